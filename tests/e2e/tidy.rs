//! Repository rules checked as tests.

use crate::support::repo;

/// The architecture's main invariant: `stages` is pure. Its manifest must never list a crate
/// that does network, disk, clock or async I/O.
#[test]
fn stages_has_no_io_dependency() {
    let manifest = std::fs::read_to_string(repo().join("stages/Cargo.toml")).unwrap();
    let forbidden = [
        "reqwest",
        "tokio",
        "hyper",
        "rusqlite",
        "tantivy",
        "async-std",
        "smol",
        "mio",
        "ureq",
        "curl",
        "postgres",
        "sqlx",
        "chrono",
        "fs-err",
        "tempfile",
        "walkdir",
        "notify",
    ];
    let mut section = String::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if !section.contains("dependencies") || section.contains("dev-dependencies") {
            continue;
        }
        let name = line.split(['=', ' ', '.']).next().unwrap_or("");
        assert!(
            !forbidden.contains(&name),
            "stages/Cargo.toml lists `{name}` in {section}: stages must stay pure (no network, disk, clock or async runtime)"
        );
    }
}

/// A clone of the repository alone runs every test: no test, no script the tests run and no CI
/// step reads material from outside it (fixtures live in `tests/data`, with their sources).
#[test]
fn tests_read_nothing_outside_the_repository() {
    // Built from pieces so that this file does not match itself.
    let needles = [
        ["..", "/shared"].concat(),
        ["sha", "red/data"].concat(),
        format!("{q}shared{q}", q = '"'),
        ["/work", "/"].concat(),
    ];
    let mut offenders = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = ["pipeline", "stages", "tests", "scripts", ".ci"]
        .iter()
        .map(|d| repo().join(d))
        .collect();
    let fixtures = repo().join("tests").join("data");
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if path == fixtures || matches!(name.as_deref(), Some("target" | "__pycache__")) {
                continue;
            }
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
            continue;
        }
        // Text files only: sources, scripts, manifests.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|needle| line.contains(needle.as_str())) {
                offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these lines refer to material outside the repository; copy what a test needs into \
         tests/data (noting its source and licence in tests/data/README.md):\n{}",
        offenders.join("\n")
    );
}
