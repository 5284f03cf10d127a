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
