//! Duplicate detection on real pages: Mozilla Readability's test pages
//! (`tests/data/extraction/readability/input`, Apache-2.0, via j-szulc's mirror) hold about
//! twenty variants of one article (the same text under other markup, with a paragraph more or
//! less), a page saved twice (`lifehacker-working` and `lifehacker-post-comment-load`), and
//! otherwise unrelated articles; CleanEval's development pages are unrelated to each other.
//!
//! Each page goes through the pipeline's path (`extract_html` → clean text → `Fingerprint` →
//! `deduplicate`), and every verdict is checked against a brute-force Jaccard computed here
//! independently (string shingles in a `HashSet`, all pairs), so the MinHash/LSH shortcut is
//! shown to miss no pair above the threshold and to report exact similarities.

use crate::common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use stages::corpus::dedup::{self, Fingerprint, Verdict};
use stages::page::extract::{ExtractOptions, extract_html};
use url::Url;

const THRESHOLD: f64 = dedup::DEFAULT_NEAR_THRESHOLD;

fn pages(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".html") || name.ends_with(".html.gz")
        })
        .collect();
    files.sort();
    let url = Url::parse("http://fakehost/test/page.html").expect("static URL");
    files
        .iter()
        .map(|path| {
            let bytes = common::read_file(path);
            let html = stages::page::decode::decode(&bytes, None, None).text;
            let text = extract_html(&html, &url, &ExtractOptions::default()).clean_text();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            (name.strip_suffix(".gz").unwrap_or(&name).to_owned(), text)
        })
        .collect()
}

/// Word 5-shingles as strings, written independently of `stages::corpus::dedup`.
fn brute_shingles(text: &str) -> HashSet<String> {
    let folded = dedup::strip_diacritics(&text.to_lowercase());
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 5 {
        return [words.join(" ")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
    }
    words.windows(5).map(|w| w.join(" ")).collect()
}

fn brute_jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn check(dir: &str) -> (Vec<(String, String)>, Vec<Verdict>) {
    let docs: Vec<(String, String)> = pages(&common::test_data().join("extraction").join(dir))
        .into_iter()
        .filter(|(_, text)| !text.is_empty())
        .collect();
    assert!(docs.len() > 40, "{dir}: {} pages", docs.len());
    let fingerprints: Vec<Fingerprint> = docs.iter().map(|(_, t)| Fingerprint::new(t)).collect();
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let verdicts = dedup::deduplicate(&fingerprints, &texts, Some(THRESHOLD));
    let shingles: Vec<HashSet<String>> = texts.iter().map(|t| brute_shingles(t)).collect();
    let originals: Vec<usize> = (0..docs.len())
        .filter(|&i| verdicts[i] == Verdict::Original)
        .collect();
    for (i, verdict) in verdicts.iter().enumerate() {
        match *verdict {
            Verdict::Original => {
                for &o in originals.iter().filter(|&&o| o < i) {
                    let j = brute_jaccard(&shingles[i], &shingles[o]);
                    assert!(
                        j < THRESHOLD,
                        "{dir}: {} and {} are both kept but share {j:.3} of their shingles",
                        docs[o].0,
                        docs[i].0
                    );
                }
            }
            Verdict::Near { of, jaccard } => {
                let j = brute_jaccard(&shingles[i], &shingles[of]);
                assert!(
                    (j - jaccard).abs() < 1e-9,
                    "{}: {j} vs {jaccard}",
                    docs[i].0
                );
                assert!(j >= THRESHOLD, "{}", docs[i].0);
                assert_eq!(verdicts[of], Verdict::Original);
            }
            Verdict::Exact { of } | Verdict::ExactWithoutDiacritics { of } => {
                assert_eq!(
                    dedup::normalise(&dedup::strip_diacritics(texts[i])),
                    dedup::normalise(&dedup::strip_diacritics(texts[of])),
                    "{}",
                    docs[i].0
                );
                assert_eq!(verdicts[of], Verdict::Original);
            }
        }
    }
    (docs, verdicts)
}

fn verdict_of<'a>(
    docs: &'a [(String, String)],
    verdicts: &[Verdict],
    name: &str,
) -> (Verdict, Option<&'a str>) {
    let i = docs
        .iter()
        .position(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} missing"));
    let of = verdicts[i].original().map(|o| docs[o].0.as_str());
    (verdicts[i], of)
}

#[test]
fn readability_variants_are_found_and_unrelated_articles_kept() {
    let (docs, verdicts) = check("readability/input");
    // The page saved twice: exact copy of the first in order.
    let (v, of) = verdict_of(&docs, &verdicts, "lifehacker-working.html");
    assert!(matches!(v, Verdict::Exact { .. }), "{v:?}");
    assert_eq!(of, Some("lifehacker-post-comment-load.html"));
    // The same article under other markup, a paragraph more or less: near copies of the
    // first variant in order, or of the most similar original.
    let (v, of) = verdict_of(&docs, &verdicts, "svg-parsing.html");
    assert!(
        matches!(v, Verdict::Near { jaccard, .. } if jaccard > 0.95),
        "{v:?}"
    );
    assert_eq!(of, Some("003-metadata-preferred.html"));
    let (v, of) = verdict_of(&docs, &verdicts, "replace-brs.html");
    assert!(matches!(v, Verdict::Near { .. }), "{v:?}");
    assert_eq!(of, Some("normalize-spaces.html"));
    // Real, different articles stay.
    for name in [
        "mozilla-1.html",
        "wikipedia.html",
        "nytimes-1.html",
        "lwn-1.html",
    ] {
        let (v, _) = verdict_of(&docs, &verdicts, name);
        assert_eq!(v, Verdict::Original, "{name}");
    }
    let near = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Near { .. }))
        .count();
    let exact = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Exact { .. }))
        .count();
    // About twenty variants of one article: all but one are copies (18 near, 3 exact today;
    // a copy of a copy points to the original, so most are near copies).
    assert!(
        near + exact >= 18 && near >= 10,
        "near {near}, exact {exact}"
    );
}

#[test]
fn cleaneval_pages_are_all_distinct() {
    let (docs, verdicts) = check("cleaneval-dev/input");
    let copies: Vec<&str> = verdicts
        .iter()
        .zip(&docs)
        .filter(|(v, _)| **v != Verdict::Original)
        .map(|(_, (n, _))| n.as_str())
        .collect();
    assert!(copies.is_empty(), "{copies:?}");
}
