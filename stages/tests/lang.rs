//! Fixture test of the language detector underneath `stages::lang`: glaneur builds whatlang from
//! its own copy (`vendor/whatlang`, faster scoring), which must give the published crate's
//! answers. The answers of whatlang 0.18.0 as published, on the chardet project's labelled web
//! texts that read as UTF-8 (CulturaX snippets, LGPL), are in
//! `fixtures/whatlang-0.18.0-answers.tsv`, written by `scripts/whatlang-check` (which also
//! compares the two crates directly on any folder of pages).

mod common;

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `text` from the first character boundary at or after `half` halves of it, at most `len`
/// bytes, cut at a character boundary (as `scripts/whatlang-check` cuts it).
fn sample(text: &str, half: usize, len: usize) -> &str {
    let mut start = text.len() * half / 2;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let rest = &text[start..];
    let mut end = len.min(rest.len());
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    &rest[..end]
}

#[test]
fn whatlang_copy_gives_the_published_answers() {
    let root = common::shared_data().join("encoding").join("labelled-text");
    let expected = include_str!("fixtures/whatlang-0.18.0-answers.tsv");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut lines = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // not UTF-8: not a sample
        };
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        for half in 0..2 {
            for len in [20, 80, 300, 1200, usize::MAX] {
                let answer = match whatlang::detect(sample(&text, half, len)) {
                    Some(info) => format!(
                        "{}\t{:?}\t{:016x}",
                        info.lang().code(),
                        info.script(),
                        info.confidence().to_bits()
                    ),
                    None => "-".to_string(),
                };
                lines.push(format!("{name}\t{half}\t{len}\t{answer}"));
            }
        }
    }
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(lines.len(), expected.len(), "not the same samples");
    let differing: Vec<(&String, &&str)> = lines
        .iter()
        .zip(&expected)
        .filter(|(got, want)| got.as_str() != **want)
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} answers differ from the published whatlang's, e.g. got {:?}, published {:?}",
        differing.len(),
        lines.len(),
        differing[0].0,
        differing[0].1
    );
    // Several scripts and languages are exercised, not only English.
    let languages: std::collections::BTreeSet<&str> = expected
        .iter()
        .filter_map(|l| l.split('\t').nth(3))
        .filter(|l| *l != "-")
        .collect();
    assert!(languages.len() >= 20, "{languages:?}");
}
