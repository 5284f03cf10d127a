//! Checksums of a folder of files that glaneur writes whole (the query index `index/`, the
//! document search index `search/`): written with them, checked by `glaneur verify`.
//!
//! **In:** a folder. **Out:** `SHA256SUMS` in it, one line per file (`HEX  NAME`, the format
//! `sha256sum -c` reads); or the files that no longer match it.
//!
//! **Invariants:** the list is written last, into the folder before it is put in place, so a
//! folder with a list was written whole; every regular file of the folder is listed but the
//! list itself and lock files (`*.lock`, which readers may create or touch); a check names each
//! file missing, changed (size or content) or not listed, and never changes the folder.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use sha2::{Digest, Sha256};

/// The list's file name.
pub const SUMS: &str = "SHA256SUMS";

/// Files of `dir` the list covers, by name.
fn listed_files(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name == SUMS || name.ends_with(".lock") || !entry.file_type()?.is_file() {
            continue;
        }
        names.push(name);
    }
    names.sort();
    Ok(names)
}

/// The SHA-256 of a file, in hex.
pub fn digest(path: &Path) -> anyhow::Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Writes `dir/SHA256SUMS` for the files of `dir`.
pub fn write(dir: &Path) -> anyhow::Result<()> {
    let mut text = String::new();
    for name in listed_files(dir)? {
        text.push_str(&digest(&dir.join(&name))?);
        text.push_str("  ");
        text.push_str(&name);
        text.push('\n');
    }
    let path = dir.join(SUMS);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// What a check of a folder found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Files listed and intact.
    pub intact: usize,
    /// Each problem, in words (file and what is wrong).
    pub problems: Vec<String>,
    /// The folder has no list (written by a glaneur that did not keep one).
    pub unlisted: bool,
}

/// Checks the files of `dir` against its list.
pub fn check(dir: &Path) -> anyhow::Result<Check> {
    let mut out = Check::default();
    let path = dir.join(SUMS);
    let Ok(text) = std::fs::read_to_string(&path) else {
        out.unlisted = true;
        return Ok(out);
    };
    let mut seen = std::collections::HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let Some((hex, name)) = line.split_once("  ") else {
            out.problems
                .push(format!("{SUMS} line {}: not `HEX  NAME`", n + 1));
            continue;
        };
        seen.insert(name.to_string());
        let file = dir.join(name);
        if name.contains(['/', '\\']) || !file.is_file() {
            out.problems.push(format!("{name}: missing"));
            continue;
        }
        if digest(&file)? == hex {
            out.intact += 1;
        } else {
            out.problems.push(format!(
                "{name}: changed since it was written (checksum differs)"
            ));
        }
    }
    for name in listed_files(dir)? {
        if !seen.contains(&name) {
            out.problems.push(format!(
                "{name}: not written with the folder (not in {SUMS})"
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flipped_byte_a_missing_file_and_a_stray_one_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("word.ids"), [1u8, 2, 3, 4]).unwrap();
        std::fs::write(d.join("word.values"), b"graphe\narete\n").unwrap();
        std::fs::write(d.join(".tantivy-meta.lock"), b"").unwrap();
        write(d).unwrap();
        let sums = std::fs::read_to_string(d.join(SUMS)).unwrap();
        // The format sha256sum reads; lock files left out.
        assert!(
            sums.lines().all(|l| l.len() > 66 && &l[64..66] == "  "),
            "{sums}"
        );
        assert!(!sums.contains(".lock"));
        assert_eq!(
            check(d).unwrap(),
            Check {
                intact: 2,
                ..Check::default()
            }
        );
        // A lock file touched by a reader is not damage.
        std::fs::write(d.join(".tantivy-meta.lock"), b"x").unwrap();
        assert!(check(d).unwrap().problems.is_empty());
        std::fs::write(d.join("word.ids"), [1u8, 2, 3, 5]).unwrap();
        std::fs::remove_file(d.join("word.values")).unwrap();
        std::fs::write(d.join("stray.bin"), b"?").unwrap();
        let found = check(d).unwrap();
        assert_eq!(found.intact, 0);
        assert_eq!(found.problems.len(), 3, "{:?}", found.problems);
        assert!(found.problems[0].starts_with("word.ids: changed"));
        assert!(found.problems[1].starts_with("word.values: missing"));
        assert!(found.problems[2].starts_with("stray.bin: not written"));
        std::fs::remove_file(d.join(SUMS)).unwrap();
        assert!(check(d).unwrap().unlisted);
    }
}
