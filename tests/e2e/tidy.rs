//! Repository rules checked as tests.

use std::path::PathBuf;

use crate::support::repo;

/// Every file below the repository's `roots`, leaving out the folders `skip` names (and build
/// output: `target`, `__pycache__`).
fn files_under(roots: &[&str], skip: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = roots.iter().map(|d| repo().join(d)).collect();
    while let Some(path) = stack.pop() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if skip.contains(&path) || matches!(name.as_deref(), Some("target" | "__pycache__")) {
            continue;
        }
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else {
            files.push(path);
        }
    }
    files
}

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
    let fixtures = repo().join("tests").join("data");
    for path in files_under(
        &["pipeline", "stages", "tests", "scripts", ".ci"],
        &[fixtures],
    ) {
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

/// Every source file outside tests and vendored code to a size a reader can hold (about 800
/// lines): a larger one becomes a folder along its seams. Tests (`tests.rs`, `*_tests.rs`, the
/// `tests/` folders) are exempt.
#[test]
fn source_files_stay_readable() {
    const MAX_LINES: usize = 820;
    let mut long = Vec::new();
    for path in files_under(&["pipeline", "stages/src"], &[]) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        if lines > MAX_LINES {
            long.push(format!("{}: {lines} lines", path.display()));
        }
    }
    assert!(
        long.is_empty(),
        "split these along their seams:\n{}",
        long.join("\n")
    );
}

/// The storage boundary: SQL and the database handle live in `pipeline/store*` only, so that
/// another store can implement the same calls.
#[test]
fn sql_stays_in_the_store() {
    let mut leaks = Vec::new();
    let store = [
        repo().join("pipeline/store"),
        repo().join("pipeline/store.rs"),
    ];
    for path in files_under(&["pipeline", "stages/src"], &store) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["rusqlite", "SELECT ", "UPDATE urls", "INSERT INTO"]
                .iter()
                .any(|needle| code.contains(needle))
            {
                leaks.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "SQL outside pipeline/store*: move it behind a Store method:\n{}",
        leaks.join("\n")
    );
}
