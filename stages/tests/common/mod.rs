//! Helpers shared by the fixture tests of `stages`.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The real test material committed with the repository (`tests/data/`, sources and licences
/// in its README): no test reads anything outside the repository.
#[allow(dead_code)]
pub fn test_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("data")
}

/// The files of `dir` whose name ends with `suffix` (or `suffix` then `.gz`: large fixture sets
/// are stored gzipped), numbered names (`12.html`) in numeric order, then by name.
#[allow(dead_code)]
pub fn sorted_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(suffix)
                || name
                    .strip_suffix(".gz")
                    .is_some_and(|n| n.ends_with(suffix))
        })
        .collect();
    files.sort_by_key(|p| {
        let stem = p.file_name().map(|s| s.to_string_lossy().into_owned());
        let stem = stem.unwrap_or_default();
        let number: Option<u64> = stem.split('.').next().and_then(|n| n.parse().ok());
        (number.unwrap_or(u64::MAX), stem)
    });
    files
}

/// A file's bytes, gunzipped when its name ends with `.gz`.
#[allow(dead_code)]
pub fn read_file(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out
    } else {
        bytes
    }
}
