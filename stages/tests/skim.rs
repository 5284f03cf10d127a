//! Fixture test of `stages::page::skim` (the crawl's reader) against `stages::page::extract` (the extract
//! stage's) on the real pages of `tests/data/extraction` (CleanEval-dev, Mozilla Readability
//! test pages, the article-extraction benchmark): the crawl must see the same links, titles and
//! language as the extractor, and at least the text the extractor reads.
//!
//! Run with `--nocapture` to see the figures.

use crate::common;

use std::collections::HashSet;

use stages::page::extract::{ExtractOptions, extract_html};
use stages::page::skim::skim_html;
use url::Url;

/// Links (URL and kind) found by both readers ÷ found by either, summed over all pages
/// (measured 1.000: 35,377 of 35,377).
const MIN_LINK_AGREEMENT: f64 = 0.995;
/// Share of the links found by both with the same anchor text (measured 1.000).
const MIN_ANCHOR_AGREEMENT: f64 = 0.99;
/// Share of pages with the same title (measured 1.000).
const MIN_TITLE_AGREEMENT: f64 = 0.99;
/// Share of pages with the same detected language (measured 1.000).
const MIN_LANGUAGE_AGREEMENT: f64 = 0.98;
/// Share of the extractor's words (all blocks, kept or not) that the skim's text has too
/// (measured 1.000); the skim also reads elements the extractor drops as hidden.
const MIN_WORD_COVERAGE: f64 = 0.995;

fn pages() -> Vec<(String, String)> {
    let root = common::test_data().join("extraction");
    let mut out = Vec::new();
    for (dir, suffix) in [
        ("cleaneval-dev/input", ".html"),
        ("readability/input", ".html"),
        ("article-extraction-benchmark/html", ".html.gz"),
    ] {
        let dir = root.join(dir);
        let files = common::sorted_files(&dir, suffix);
        assert!(!files.is_empty(), "no {suffix} pages in {}", dir.display());
        for path in files {
            let bytes = common::read_file(&path);
            let decoded = stages::page::decode::decode(&bytes, None, None);
            out.push((path.display().to_string(), decoded.text));
        }
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

#[test]
fn the_crawl_sees_what_the_extractor_sees() {
    let url = Url::parse("https://example.org/dir/page.html").expect("static URL");
    let options = ExtractOptions {
        keep_everything: true,
        ..ExtractOptions::default()
    };
    let pages = pages();
    let (mut both, mut either, mut same_anchor) = (0usize, 0usize, 0usize);
    let (mut same_title, mut same_lang) = (0usize, 0usize);
    let (mut words_extract, mut words_covered) = (0usize, 0usize);
    let mut worst: Vec<(f64, String)> = Vec::new();
    let (mut time_extract, mut time_skim) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for (name, html) in &pages {
        let started = std::time::Instant::now();
        let full = extract_html(html, &url, &options);
        let between = std::time::Instant::now();
        let skim = skim_html(html, &url);
        time_extract += between - started;
        time_skim += between.elapsed();
        let a: HashSet<(&str, u8)> = full
            .links
            .iter()
            .map(|l| (l.url.as_str(), l.kind as u8))
            .collect();
        let b: HashSet<(&str, u8)> = skim
            .links
            .iter()
            .map(|l| (l.url.as_str(), l.kind as u8))
            .collect();
        let common = a.intersection(&b).count();
        let union = a.union(&b).count();
        both += common;
        either += union;
        if union > 0 {
            worst.push((common as f64 / union as f64, name.clone()));
        }
        // Anchors of the first link to each URL, on the URLs both found.
        for link in &full.links {
            if b.contains(&(link.url.as_str(), link.kind as u8))
                && let Some(other) = skim
                    .links
                    .iter()
                    .find(|s| s.url == link.url && s.kind == link.kind)
            {
                let first = full
                    .links
                    .iter()
                    .find(|f| f.url == link.url && f.kind == link.kind);
                if first.is_some_and(|f| std::ptr::eq(f, link)) {
                    same_anchor += usize::from(other.anchor == link.anchor);
                }
            }
        }
        same_title += usize::from(full.title == skim.title);
        if full.title != skim.title {
            println!(
                "  title differs in {name}: {:?} / {:?}",
                full.title, skim.title
            );
        }
        same_lang += usize::from(
            full.language.as_ref().map(|l| &l.code) == skim.language.as_ref().map(|l| &l.code),
        );
        let seen: HashSet<&str> = words(&skim.text).collect();
        for block in &full.blocks {
            for w in words(&block.text) {
                words_extract += 1;
                words_covered += usize::from(seen.contains(w));
            }
        }
    }
    let n = pages.len() as f64;
    let links = both as f64 / either.max(1) as f64;
    let anchors = same_anchor as f64 / both.max(1) as f64;
    let titles = same_title as f64 / n;
    let langs = same_lang as f64 / n;
    let coverage = words_covered as f64 / words_extract.max(1) as f64;
    worst.sort_by(|x, y| x.0.total_cmp(&y.0));
    println!(
        "{} pages; links both/either {both}/{either} = {links:.3}",
        pages.len()
    );
    println!(
        "same anchor {same_anchor} ({anchors:.4}), same title {same_title}, same language {same_lang}"
    );
    println!("extractor words found in the skim: {words_covered}/{words_extract} = {coverage:.4}");
    // Printed, not asserted (a release build gives the real ratio).
    println!(
        "time: extractor {:.0} ms, skim {:.0} ms",
        time_extract.as_secs_f64() * 1e3,
        time_skim.as_secs_f64() * 1e3
    );
    for (share, name) in worst.iter().take(5) {
        println!("  lowest link agreement {share:.3}  {name}");
    }
    assert!(links >= MIN_LINK_AGREEMENT, "link agreement {links:.3}");
    assert!(
        anchors >= MIN_ANCHOR_AGREEMENT,
        "anchor agreement {anchors:.3}"
    );
    assert!(titles >= MIN_TITLE_AGREEMENT, "title agreement {titles:.3}");
    assert!(
        langs >= MIN_LANGUAGE_AGREEMENT,
        "language agreement {langs:.3}"
    );
    assert!(coverage >= MIN_WORD_COVERAGE, "word coverage {coverage:.3}");
}
