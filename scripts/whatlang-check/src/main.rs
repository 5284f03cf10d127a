//! Compares glaneur's copy of whatlang with the published crate 0.18.0 (not a user tool).
//!
//! **In:** `cmp DIR…` (every file below: `.html`/`.htm` read as the crawl's skim reads them,
//! other files as decoded text), or `answers DIR` (the UTF-8 texts the `stages` test reads).
//! **Out:** `cmp`: how many samples, how many answers differ (language, script, confidence to
//! the bit; the first few shown), detected languages; exit 1 if any differs. `answers`: the
//! published crate's answers, one line per sample (file, first and end byte, language, script,
//! confidence's bits), for `stages/tests/fixtures/`.
//! **Invariants:** samples are the texts cut at several lengths (12 bytes to 16 KB) at character
//! boundaries, so the short-text branches of the scoring are exercised too.
//!
//! `cargo run --release --manifest-path scripts/whatlang-check/Cargo.toml -- cmp tests/data/extraction`

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `text` cut to at most `len` bytes, at a character boundary.
fn prefix(text: &str, len: usize) -> &str {
    let mut n = len.min(text.len());
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    &text[..n]
}

fn answer_published(text: &str) -> Option<(String, String, u64)> {
    published::detect(text).map(|i| {
        (
            i.lang().code().to_string(),
            format!("{:?}", i.script()),
            i.confidence().to_bits(),
        )
    })
}

fn answer_copy(text: &str) -> Option<(String, String, u64)> {
    copy::detect(text).map(|i| {
        (
            i.lang().code().to_string(),
            format!("{:?}", i.script()),
            i.confidence().to_bits(),
        )
    })
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((mode, dirs)) = args.split_first() else {
        eprintln!("usage: whatlang-check cmp DIR… | answers DIR");
        return std::process::ExitCode::from(2);
    };
    let mut files = Vec::new();
    for dir in dirs {
        walk(Path::new(dir), &mut files);
    }
    if mode == "answers" {
        // The `stages` test's samples: the files that read as UTF-8, from their start and from
        // their middle, cut at several lengths; each line names its bytes, so the test reads
        // exactly these.
        for path in files {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let name = path.strip_prefix(&dirs[0]).unwrap_or(&path);
            let name: Vec<_> = name
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            let name = name.join("/");
            let mut middle = text.len() / 2;
            while !text.is_char_boundary(middle) {
                middle += 1;
            }
            for start in [0, middle] {
                for len in [20, 80, 300, 1200, usize::MAX] {
                    let end = start + prefix(&text[start..], len).len();
                    let line = match answer_published(&text[start..end]) {
                        Some((lang, script, bits)) => format!("{lang}\t{script}\t{bits:016x}"),
                        None => "-".to_string(),
                    };
                    println!("{name}\t{start}\t{end}\t{line}");
                }
            }
        }
        return std::process::ExitCode::SUCCESS;
    }
    let url = url::Url::parse("http://x.test/a.html").expect("a valid URL");
    let mut samples = 0;
    let mut detected = 0;
    let mut differ = 0;
    let mut languages = std::collections::BTreeMap::new();
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let decoded = stages::page::decode::decode(&bytes, None, None).text;
        let name = path.to_string_lossy();
        let text = if name.ends_with(".html") || name.ends_with(".htm") {
            stages::page::skim::skim_html(&decoded, &url).text
        } else {
            decoded
        };
        for len in [12, 40, 150, 600, 4096, 16384] {
            let sample = prefix(&text, len);
            samples += 1;
            let (a, b) = (answer_published(sample), answer_copy(sample));
            if let Some((lang, _, _)) = &a {
                detected += 1;
                *languages.entry(lang.clone()).or_insert(0) += 1;
            }
            if a != b {
                differ += 1;
                if differ <= 5 {
                    eprintln!(
                        "differs on {} cut at {len}: published {a:?}, copy {b:?}",
                        path.display()
                    );
                }
            }
            if sample.len() == text.len() {
                break;
            }
        }
    }
    println!("{samples} samples, {detected} detected, {differ} differ; languages: {languages:?}");
    if differ > 0 {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
