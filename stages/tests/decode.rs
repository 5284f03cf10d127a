//! Fixture tests of `stages::page::decode` on real material in `tests/data/encoding`:
//! html5lib's `<meta>` pre-scan tests (html5lib/html5lib-tests, MIT) and the chardet project's
//! labelled web text (CulturaX snippets re-encoded, LGPL).

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use encoding_rs::{Encoding, WINDOWS_1252};
use stages::page::decode::{Decision, PRESCAN_LIMIT, decode, prescan};
use unicode_normalization::UnicodeNormalization;

/// One html5lib encoding test: the `#data` bytes and the `#encoding` label.
struct PrescanCase {
    file: String,
    data: Vec<u8>,
    expected: String,
}

/// Parses html5lib's `.dat` format: sections start with a `#name` line; the newline before the
/// next heading is a separator, not data.
fn parse_dat(file: &Path) -> Vec<PrescanCase> {
    let raw = fs::read(file).expect("read .dat file");
    let name = file.display().to_string();
    let mut cases = Vec::new();
    let mut data: Option<Vec<&[u8]>> = None;
    let mut lines = raw.split(|b| *b == b'\n').peekable();
    while let Some(line) = lines.next() {
        if line == b"#data" {
            data = Some(Vec::new());
        } else if line == b"#encoding" {
            let expected = lines.next().expect("#encoding has a value line");
            let body = data.take().expect("#encoding follows #data").join(&b'\n');
            cases.push(PrescanCase {
                file: name.clone(),
                data: body,
                expected: String::from_utf8_lossy(expected).trim().to_owned(),
            });
        } else if let Some(d) = data.as_mut() {
            d.push(line);
        }
    }
    cases
}

fn dat_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            dat_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "dat") {
            out.push(path);
        }
    }
}

/// Every html5lib case: those whose data fits the 1024-byte pre-scan window go through
/// `prescan` (after the BOM, as in the sniffing algorithm; no result means the windows-1252
/// default html5lib expects). Longer ones test the HTML parser's "change the encoding" on a
/// late `<meta>`, which a 1024-byte pre-scan cannot see by definition (html5lib's own
/// prescan test skips them the same way): for those, `prescan` must find nothing and
/// `decode` must find the late `<meta>`. `scripted/` cases need a script to run.
#[test]
fn html5lib_meta_prescan() {
    let dir = common::test_data().join("encoding/html5lib-meta-prescan");
    let mut files = Vec::new();
    dat_files(&dir, &mut files);
    let (mut via_prescan, mut via_late_meta, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in &files {
        for case in parse_dat(file) {
            let expected = Encoding::for_label(case.expected.as_bytes())
                .unwrap_or_else(|| panic!("unknown expected label {}", case.expected));
            if case.file.contains("scripted") {
                skipped += 1;
                continue;
            }
            let sniffed = Encoding::for_bom(&case.data)
                .map(|(e, _)| e)
                .or_else(|| prescan(&case.data))
                .unwrap_or(WINDOWS_1252);
            if case.data.len() <= PRESCAN_LIMIT {
                via_prescan += 1;
                if sniffed != expected {
                    failures.push(format!(
                        "{}: {:?} expected {} got {}",
                        case.file,
                        String::from_utf8_lossy(&case.data),
                        expected.name(),
                        sniffed.name()
                    ));
                }
            } else {
                via_late_meta += 1;
                let decoded = decode(&case.data, Some("text/html"), None);
                if prescan(&case.data).is_some()
                    || decoded.encoding != expected
                    || decoded.decision != Decision::MetaPrescan
                    || !decoded.late_meta
                {
                    failures.push(format!(
                        "{}: late meta at {} bytes: prescan {:?}, decode {} {:?}",
                        case.file,
                        case.data.len(),
                        prescan(&case.data).map(Encoding::name),
                        decoded.encoding.name(),
                        decoded.decision
                    ));
                }
            }
        }
    }
    println!(
        "html5lib meta pre-scan: {} cases through prescan, {} longer than {} bytes through \
         decode's late <meta>, {} skipped (scripted: need JavaScript), {} failures",
        via_prescan,
        via_late_meta,
        PRESCAN_LIMIT,
        skipped,
        failures.len()
    );
    assert!(via_prescan >= 70, "the html5lib files were not all read");
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

/// The TLD a crawler would most likely see for text in `language`, or `None` where the
/// language does not point to one country: English is mostly on generic TLDs (`.com`, which
/// chardetng treats like no TLD), and Chinese is split between `.cn` (GBK) and `.tw`/`.hk`
/// (Big5) by the very script difference being detected, so naming one would leak the answer.
fn language_tld(language: &str) -> Option<&'static str> {
    Some(match language {
        "croatian" => "hr",
        "czech" => "cz",
        "dutch" => "nl",
        "french" => "fr",
        "german" => "de",
        "hungarian" => "hu",
        "italian" => "it",
        "japanese" => "jp",
        "korean" => "kr",
        "polish" => "pl",
        "portuguese" => "pt",
        "romanian" => "ro",
        "russian" => "ru",
        "slovak" => "sk",
        "slovene" => "si",
        "spanish" => "es",
        "bulgarian" => "bg",
        "estonian" => "ee",
        "greek" => "gr",
        "hebrew" => "il",
        "latvian" => "lv",
        "lithuanian" => "lt",
        "thai" => "th",
        "turkish" => "tr",
        "ukrainian" => "ua",
        "vietnamese" => "vn",
        _ => return None,
    })
}

#[derive(Default)]
struct Tally {
    files: usize,
    correct: usize,
}

struct Run {
    per_encoding: BTreeMap<String, Tally>,
    failures: Vec<String>,
    skipped: BTreeMap<String, usize>,
}

/// Decodes every file of the labelled set `tests/data/encoding/<set>/` (folders
/// `<label>-<language>`).
fn run_labelled(set: &str, use_tld: bool) -> Run {
    let dir = common::test_data().join("encoding").join(set);
    let mut folders: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut run = Run {
        per_encoding: BTreeMap::new(),
        failures: Vec::new(),
        skipped: BTreeMap::new(),
    };
    for folder in folders {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 folder name")
            .to_owned();
        let (label, language) = name.rsplit_once('-').expect("encoding-language");
        let mut files: Vec<PathBuf> = fs::read_dir(&folder)
            .expect("read folder")
            .map(|e| e.expect("dir entry").path())
            .collect();
        files.sort();
        // chardet's folders say `macroman` for what WHATWG labels `macintosh`.
        let whatwg = if label == "macroman" {
            "macintosh"
        } else {
            label
        };
        let Some(truth_encoding) = Encoding::for_label(whatwg.as_bytes()) else {
            *run.skipped.entry(label.to_owned()).or_default() += files.len();
            continue;
        };
        let tld = if use_tld {
            language_tld(language)
        } else {
            None
        };
        for file in files {
            let bytes = fs::read(&file).expect("read file");
            let truth: String = truth_encoding.decode(&bytes).0.nfc().collect();
            let decoded = decode(&bytes, None, tld);
            let tally = run.per_encoding.entry(label.to_owned()).or_default();
            tally.files += 1;
            if decoded.text == truth {
                tally.correct += 1;
            } else {
                run.failures.push(format!(
                    "{name}/{}: truth {} got {} ({:?}, meta {:?}, {} U+FFFD)",
                    file.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
                    truth_encoding.name(),
                    decoded.encoding.name(),
                    decoded.decision,
                    decoded.declared_meta,
                    decoded.replacements
                ));
            }
        }
    }
    run
}

fn overall(run: &Run) -> (usize, usize) {
    run.per_encoding
        .values()
        .fold((0, 0), |(f, c), t| (f + t.files, c + t.correct))
}

fn percent(correct: usize, files: usize) -> f64 {
    100.0 * correct as f64 / files.max(1) as f64
}

/// Prints the table of a set decoded with and without TLD; returns (files, correct) of both.
fn report(set: &str, with_tld: &Run, without_tld: &Run) -> ((usize, usize), (usize, usize)) {
    println!("{set}:");
    println!(
        "{:<14} {:>6} {:>8} {:>7}   (no TLD: {:>7} {:>7})",
        "encoding", "files", "correct", "%", "correct", "%"
    );
    for (label, tally) in &with_tld.per_encoding {
        let bare = &without_tld.per_encoding[label];
        println!(
            "{:<14} {:>6} {:>8} {:>6.1}%   (no TLD: {:>7} {:>6.1}%)",
            label,
            tally.files,
            tally.correct,
            percent(tally.correct, tally.files),
            bare.correct,
            percent(bare.correct, bare.files)
        );
    }
    let (files, correct) = overall(with_tld);
    let (bare_files, bare_correct) = overall(without_tld);
    println!(
        "{:<14} {:>6} {:>8} {:>6.1}%   (no TLD: {:>7} {:>6.1}%)",
        "overall",
        files,
        correct,
        percent(correct, files),
        bare_correct,
        percent(bare_correct, bare_files)
    );
    println!("skipped (no WHATWG encoding for the folder label):");
    for (label, count) in &with_tld.skipped {
        println!("  {label}: {count} files");
    }
    println!("wrong with TLD:");
    for failure in &with_tld.failures {
        println!("  {failure}");
    }
    println!("wrong without TLD:");
    for failure in &without_tld.failures {
        println!("  {failure}");
    }
    ((files, correct), (bare_files, bare_correct))
}

/// Undeclared detection on real text: each file decoded with no Content-Type must give the
/// same text as decoding it with its folder's encoding. The measure is the run with the TLD of
/// the language where one is sensible (see `language_tld`), the way the crawler calls
/// `decode`: it must reach 98 %. The run with no TLD at all is printed beside it and guarded
/// at 98 % too: without a TLD, Hungarian `ő`/`ű` (ISO-8859-2) and `õ`/`û` (windows-1252) are
/// letters either way, and only the TLD tells them apart. The collection's `macroman-*`
/// folders are read as `macintosh`; one of its files is labelled wrong
/// (`iso-8859-1-english/ioreg_output.txt` says `Blanchard’s` in Mac Roman) and counts as a
/// miss.
#[test]
fn labelled_text_detection() {
    let with_tld = run_labelled("labelled-text", true);
    let without_tld = run_labelled("labelled-text", false);
    let ((files, correct), (bare_files, bare_correct)) =
        report("labelled-text", &with_tld, &without_tld);
    assert!(files >= 300, "the labelled-text folders were not all read");
    assert!(
        percent(correct, files) >= 98.0,
        "with TLD: {correct}/{files} correct"
    );
    assert!(
        percent(bare_correct, bare_files) >= 98.0,
        "without TLD: {bare_correct}/{bare_files} correct"
    );
}

/// The same measure on labelled text built from Debian's translated man pages and message
/// catalogues (`tests/data/encoding/labelled-debian-dev/METHOD.md`): 72 encoding × language
/// folders, a development set and an unseen set split by package. The goal is 98 % with the
/// TLD on both: development 98.9 % (98.9 % without TLD), unseen 99.2 % (99.0 %); most misses
/// left are ISO-8859-16 Romanian without `„ ”` read as windows-1250, byte for byte the same
/// text but for `ș ț` (`ş ţ`), which nothing in the bytes tells apart. The figures are
/// guarded so that they do not fall; printed with `--nocapture`, and in docs/BENCHMARKS.md.
#[test]
fn labelled_debian_detection() {
    for (set, floor, bare_floor) in [
        ("labelled-debian-dev", 98.9, 98.9),
        ("labelled-debian-unseen", 99.2, 99.0),
    ] {
        let with_tld = run_labelled(set, true);
        let without_tld = run_labelled(set, false);
        let ((files, correct), (bare_files, bare_correct)) = report(set, &with_tld, &without_tld);
        assert!(files >= 500, "{set}: the folders were not all read");
        assert!(
            percent(correct, files) >= floor,
            "{set}: with TLD {correct}/{files} correct"
        );
        assert!(
            percent(bare_correct, bare_files) >= bare_floor,
            "{set}: without TLD {bare_correct}/{bare_files} correct"
        );
    }
}
