//! Helpers shared by the fixture tests of `stages`.

use std::path::PathBuf;

/// The `shared/data` folder with the real test material.
///
/// `GLANEUR_SHARED_DATA` wins; otherwise the folder is found by walking up from this crate
/// (a clone of the repository sits beside `shared/`, on a developer's machine and in CI).
#[allow(dead_code)]
pub fn shared_data() -> PathBuf {
    if let Some(dir) = std::env::var_os("GLANEUR_SHARED_DATA") {
        return PathBuf::from(dir);
    }
    let start = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in start.ancestors() {
        let candidate = dir.join("shared").join("data");
        if candidate.join("README.md").is_file() {
            return candidate;
        }
    }
    panic!(
        "the shared test material (shared/data) was not found above {}; set GLANEUR_SHARED_DATA",
        start.display()
    );
}
