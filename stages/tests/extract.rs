//! Fixture tests of `stages::page::extract` on real pages (`tests/data/extraction`).
//!
//! - CleanEval 2007 development set (SIGWAC; mirror j-szulc/html-cleaning-dataset-merged): word
//!   precision/recall/F1 of the kept text against the hand-cleaned gold text, with the
//!   `keep_everything` baseline for comparison.
//! - Every HTML page of the three sets (CleanEval, Mozilla Readability test pages,
//!   scrapinghub/article-extraction-benchmark) and every response of the archived search-engine
//!   result pages (webis-de/archive-query-log WARCs) goes through `extract_html` without
//!   panicking and without a blow-up of its output (sizes bounded by the input's). Timings are
//!   printed, not asserted: `scripts/bench-extract` reports the slowest page of a release build.
//!
//! Run with `--nocapture` to see the tables.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use stages::page::extract::{ExtractOptions, extract_html};
use url::Url;

/// Overall (micro-averaged) word F1 on CleanEval-dev must stay above this (measured 0.955:
/// P 0.962, R 0.948; `keep_everything` P 0.872, R 0.993, F1 0.929).
const CLEANEVAL_MIN_F1: f64 = 0.945;
/// Boilerplate removal must beat the `keep_everything` precision by at least this much
/// (measured 0.093).
const MIN_PRECISION_GAIN: f64 = 0.07;
/// Word F1 against `articleBody` on the article-extraction benchmark (measured 0.950 with
/// comments kept, 0.970 with `drop_comments`; `keep_everything` 0.700). The benchmark's own
/// metric (word 4-gram shingles) is computed by `scripts/bench-extract`.
const ARTICLES_MIN_F1: f64 = 0.935;

/// Bytes to text: UTF-8 when valid, else windows-1252 (CleanEval mixes both; the same rule is
/// used for page and gold, so words compare equal). Charset sniffing is another stage's job.
fn decode(bytes: &[u8]) -> String {
    /// windows-1252 0x80..=0x9F (the rest is Latin-1); undefined bytes map to U+FFFD.
    const HIGH: [char; 32] = [
        '€', '\u{fffd}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{fffd}', 'Ž',
        '\u{fffd}', '\u{fffd}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ',
        '\u{fffd}', 'ž', 'Ÿ',
    ];
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes
            .iter()
            .map(|&b| match b {
                0x80..=0x9f => HIGH[usize::from(b - 0x80)],
                _ => char::from(b),
            })
            .collect(),
    }
}

/// Bag of words (maximal runs of letters and digits, case kept).
fn bag(text: &str) -> HashMap<&str, usize> {
    let mut bag = HashMap::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *bag.entry(word).or_insert(0) += 1;
    }
    bag
}

/// (matched, extracted, gold) word counts.
fn overlap(extracted: &str, gold: &str) -> (usize, usize, usize) {
    let (e, g) = (bag(extracted), bag(gold));
    let matched = e
        .iter()
        .map(|(w, n)| (*n).min(g.get(w).copied().unwrap_or(0)))
        .sum();
    (matched, e.values().sum(), g.values().sum())
}

fn prf(matched: usize, extracted: usize, gold: usize) -> (f64, f64, f64) {
    let p = if extracted == 0 {
        0.0
    } else {
        matched as f64 / extracted as f64
    };
    let r = if gold == 0 {
        0.0
    } else {
        matched as f64 / gold as f64
    };
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, f)
}

/// Gold text without the `URL:` line and the `<p>`, `<h>`, `<l>` markup.
fn clean_gold(gold: &str) -> String {
    let gold = gold.trim_start_matches('\u{feff}');
    let body = match gold.trim_start().strip_prefix("URL:") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, body)| body),
        None => gold,
    };
    body.replace("<p>", " ")
        .replace("<h>", " ")
        .replace("<l>", " ")
        .replace("<P>", " ")
        .replace("<H>", " ")
        .replace("<L>", " ")
}

/// The page URL from CleanEval's `<text id="URL" …>` wrapper.
fn cleaneval_url(page: &str) -> Url {
    let fallback = || Url::parse("http://cleaneval.invalid/").expect("static URL");
    let Some(rest) = page.split_once("id=\"").map(|(_, r)| r) else {
        return fallback();
    };
    rest.split('"')
        .next()
        .and_then(|id| Url::parse(id).ok())
        .unwrap_or_else(fallback)
}

#[test]
fn cleaneval_word_f1() {
    let dir = common::test_data().join("extraction/cleaneval-dev");
    let inputs = common::sorted_files(&dir.join("input"), ".html");
    assert!(inputs.len() >= 50, "CleanEval-dev has 58 pages");
    let clean = ExtractOptions::default();
    let everything = ExtractOptions {
        keep_everything: true,
        ..ExtractOptions::default()
    };
    let (mut sum, mut sum_all) = ([0usize; 3], [0usize; 3]);
    let mut macro_f1 = 0.0;
    println!(
        "{:<10} {:>6} {:>6} {:>6}   {:>6} {:>6} {:>6}",
        "file", "P", "R", "F1", "P-all", "R-all", "F1-all"
    );
    for input in &inputs {
        let name = input.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let gold_path = dir.join("GoldStandard").join(name.replace(".html", ".txt"));
        let page = decode(&std::fs::read(input).expect("read input"));
        let gold = clean_gold(&decode(&std::fs::read(&gold_path).expect("read gold")));
        let url = cleaneval_url(&page);

        let kept = extract_html(&page, &url, &clean).clean_text();
        let all = extract_html(&page, &url, &everything).clean_text();
        let (m, e, g) = overlap(&kept, &gold);
        let (ma, ea, ga) = overlap(&all, &gold);
        for (s, v) in sum.iter_mut().zip([m, e, g]) {
            *s += v;
        }
        for (s, v) in sum_all.iter_mut().zip([ma, ea, ga]) {
            *s += v;
        }
        let (p, r, f) = prf(m, e, g);
        let (pa, ra, fa) = prf(ma, ea, ga);
        macro_f1 += f;
        println!("{name:<10} {p:>6.3} {r:>6.3} {f:>6.3}   {pa:>6.3} {ra:>6.3} {fa:>6.3}");
    }
    let (p, r, f) = prf(sum[0], sum[1], sum[2]);
    let (pa, ra, fa) = prf(sum_all[0], sum_all[1], sum_all[2]);
    let macro_f1 = macro_f1 / inputs.len() as f64;
    println!(
        "{:<10} {p:>6.3} {r:>6.3} {f:>6.3}   {pa:>6.3} {ra:>6.3} {fa:>6.3}",
        "overall"
    );
    println!("macro-averaged F1 (clean): {macro_f1:.3}");
    assert!(
        f >= CLEANEVAL_MIN_F1,
        "CleanEval-dev word F1 {f:.3} fell below {CLEANEVAL_MIN_F1}"
    );
    assert!(
        p >= pa + MIN_PRECISION_GAIN,
        "boilerplate removal should raise precision clearly: {p:.3} vs keep_everything {pa:.3}"
    );
    assert!(ra >= r, "keep_everything cannot have lower recall");
}

fn read_page(path: &Path) -> String {
    decode(&common::read_file(path))
}

/// The HTML responses of the archived result pages, decoded as the crawler decodes them.
fn serp_pages(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut pages = Vec::new();
    for path in common::sorted_files(dir, ".warc.gz") {
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for record in stages::web::warc::Reader::new(std::io::BufReader::new(file)) {
            let Ok(record) = record else { break };
            if record.record_type() != Some("response") {
                continue;
            }
            let Ok(response) = stages::web::warc::parse_http_response(&record.block) else {
                continue;
            };
            let content_type = response.header("content-type").map(str::to_owned);
            let decoded =
                stages::page::decode::decode(&response.body, content_type.as_deref(), None);
            pages.push((path.clone(), decoded.text));
        }
    }
    pages
}

#[test]
fn every_fixture_page_extracts_without_panic_or_blow_up() {
    let root = common::test_data().join("extraction");
    let mut files = Vec::new();
    for (dir, suffix) in [
        ("cleaneval-dev/input", ".html"),
        ("readability/input", ".html"),
        ("article-extraction-benchmark/html", ".html.gz"),
    ] {
        let found = common::sorted_files(&root.join(dir), suffix);
        assert!(!found.is_empty(), "no {suffix} pages in {dir}");
        files.extend(found);
    }
    let mut pages: Vec<(PathBuf, String)> = files
        .iter()
        .map(|path| (path.clone(), read_page(path)))
        .collect();
    let serp = serp_pages(&common::test_data().join("serp/warcs"));
    assert!(
        serp.len() >= 200,
        "expected the SERP WARCs, found {}",
        serp.len()
    );
    pages.extend(serp);
    let url = Url::parse("https://example.org/dir/page.html").expect("static URL");
    let options = ExtractOptions::default();
    let mut total = Duration::ZERO;
    let mut total_bytes = 0usize;
    let mut slowest = (Duration::ZERO, PathBuf::new(), 0usize);
    let mut failures = Vec::new();
    let (mut blocks, mut kept, mut links) = (0usize, 0usize, 0usize);
    for (path, page) in &pages {
        let started = Instant::now();
        let result = std::panic::catch_unwind(|| extract_html(page, &url, &options));
        let took = started.elapsed();
        match result {
            Ok(extracted) => {
                // Output bounded by the input: text only shrinks (tags, entities and runs of
                // spaces go), and every block or link needs at least one tag.
                let tags = page.matches('<').count();
                let text: usize = extracted.blocks.iter().map(|b| b.text.len()).sum();
                assert!(
                    text <= page.len(),
                    "{}: {text} bytes of text",
                    path.display()
                );
                assert!(
                    extracted.blocks.len() <= tags + 1 && extracted.links.len() <= tags,
                    "{}: {} blocks, {} links from {tags} tags",
                    path.display(),
                    extracted.blocks.len(),
                    extracted.links.len()
                );
                blocks += extracted.blocks.len();
                kept += extracted.kept().count();
                links += extracted.links.len();
                for block in &extracted.blocks {
                    assert!(
                        !block.text.trim().is_empty(),
                        "{}: empty block",
                        path.display()
                    );
                }
                for link in &extracted.links {
                    assert!(
                        link.url.starts_with("http://") || link.url.starts_with("https://"),
                        "{}: {}",
                        path.display(),
                        link.url
                    );
                    assert!(!link.url.contains('#'), "{}: {}", path.display(), link.url);
                }
            }
            Err(_) => failures.push(path.display().to_string()),
        }
        total += took;
        total_bytes += page.len();
        if took > slowest.0 {
            slowest = (took, path.clone(), page.len());
        }
    }
    println!(
        "{} pages, {:.1} MB, total {:.1} ms ({:.2} ms/page, {:.1} MB/s); {blocks} blocks, {kept} kept, {links} links",
        pages.len(),
        total_bytes as f64 / 1e6,
        total.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3 / pages.len() as f64,
        total_bytes as f64 / 1e6 / total.as_secs_f64().max(1e-9),
    );
    println!(
        "slowest: {} ({} KB) in {:.1} ms",
        slowest.1.display(),
        slowest.2 / 1024,
        slowest.0.as_secs_f64() * 1e3
    );
    assert!(failures.is_empty(), "extract_html panicked on {failures:?}");
    assert!(
        files.len() > 300,
        "expected the three sets, found {} pages",
        files.len()
    );
}

#[test]
fn article_benchmark_word_f1() {
    let dir = common::test_data().join("extraction/article-extraction-benchmark");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ground-truth.json")).expect("ground-truth.json"),
    )
    .expect("valid JSON");
    let truth = truth.as_object().expect("object keyed by page id");
    assert!(truth.len() > 150, "the benchmark has 181 pages");
    let variants = [
        ("default", ExtractOptions::default()),
        (
            "drop_comments",
            ExtractOptions {
                drop_comments: true,
                ..ExtractOptions::default()
            },
        ),
        (
            "keep_everything",
            ExtractOptions {
                keep_everything: true,
                ..ExtractOptions::default()
            },
        ),
    ];
    let mut sums = [[0usize; 3]; 3];
    for (id, entry) in truth {
        let gold = entry["articleBody"].as_str().unwrap_or_default();
        let url = entry["url"]
            .as_str()
            .and_then(|u| Url::parse(u).ok())
            .unwrap_or_else(|| Url::parse("https://example.org/").expect("static URL"));
        let page = read_page(&dir.join("html").join(format!("{id}.html.gz")));
        for ((_, options), sum) in variants.iter().zip(sums.iter_mut()) {
            let text = extract_html(&page, &url, options).clean_text();
            let (m, e, g) = overlap(&text, gold);
            for (s, v) in sum.iter_mut().zip([m, e, g]) {
                *s += v;
            }
        }
    }
    let mut figures = Vec::new();
    for ((name, _), sum) in variants.iter().zip(&sums) {
        let (p, r, f) = prf(sum[0], sum[1], sum[2]);
        println!("articles {name:<16} P {p:.3} R {r:.3} F1 {f:.3}");
        figures.push((p, r, f));
    }
    let (p, _, f) = figures[0];
    let (p_dc, _, _) = figures[1];
    let (p_all, _, f_all) = figures[2];
    assert!(
        f >= ARTICLES_MIN_F1,
        "article word F1 {f:.3} < {ARTICLES_MIN_F1}"
    );
    assert!(
        p_dc >= p,
        "dropping comments cannot lower precision: {p_dc:.3} < {p:.3}"
    );
    assert!(p > p_all && f > f_all, "cleaning must beat keep_everything");
}
