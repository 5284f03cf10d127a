//! What the crawl harvested, measured after the extract stage: the on-topic share per 100
//! pages fetched (the harvest curve) and, per host, pages, kept documents and the yield
//! (clean text bytes ÷ downloaded bytes, SpiderLing's measure).
//!
//! **In:** `crawl.sqlite` (pages in fetch order with their verdicts, bytes downloaded) and the
//! kept documents in `docs.jsonl`, streamed. **Out:** [`Harvest`] for `report.json` and the summary.
//!
//! **Invariants:** reads only; hosts ordered by clean text, then name.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;

use crate::report::{Harvest, HostYield};
use crate::store::Store;

/// What the yield needs of a document: its host and the length of its paragraphs (read
/// without copying the text when it has no escapes).
#[derive(Deserialize)]
struct Lengths<'a> {
    #[serde(borrow)]
    host: Cow<'a, str>,
    #[serde(borrow)]
    paragraphs: Vec<TextOnly<'a>>,
}

#[derive(Deserialize)]
struct TextOnly<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// The harvest curve and per-host yield, from `crawl.sqlite` and the kept documents in
/// `docs_path` (`docs.jsonl`, read one line at a time); also the number of documents.
pub fn harvest(store: &Store, docs_path: &Path) -> anyhow::Result<(Harvest, u64)> {
    // HTML/text pages in fetch order, with the clean-text verdict the extract stage recorded.
    let pages = store.judged_in_fetch_order()?;
    let on_topic_per_100 = pages
        .chunks(100)
        .map(|block| block.iter().filter(|p| p.on_topic).count() as f64 / block.len() as f64)
        .collect();
    let mut hosts: std::collections::BTreeMap<String, HostYield> = Default::default();
    let host_of = |url: &str| {
        url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default()
    };
    for page in &pages {
        let entry = hosts.entry(host_of(&page.url)).or_default();
        entry.pages += 1;
        entry.kept += u64::from(page.kept);
    }
    for (url, length) in store.fetched_lengths()? {
        hosts.entry(host_of(&url)).or_default().downloaded_bytes += length;
    }
    let file = std::fs::File::open(docs_path).with_context(|| {
        format!(
            "cannot read {} (run the extract stage first: `--from extract`)",
            docs_path.display()
        )
    })?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut line, mut line_no, mut documents) = (String::new(), 0usize, 0u64);
    loop {
        line.clear();
        line_no += 1;
        let n = lines
            .read_line(&mut line)
            .with_context(|| format!("cannot read {}", docs_path.display()))?;
        if n == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let doc: Lengths<'_> = serde_json::from_str(&line).with_context(|| {
            format!(
                "{} line {line_no}: not a glaneur document",
                docs_path.display()
            )
        })?;
        let bytes: usize = doc.paragraphs.iter().map(|p| p.text.len() + 1).sum();
        documents += 1;
        match hosts.get_mut(doc.host.as_ref()) {
            Some(entry) => entry.text_bytes += bytes as u64,
            None => {
                hosts.entry(doc.host.into_owned()).or_default().text_bytes += bytes as u64;
            }
        }
    }
    let mut hosts: Vec<HostYield> = hosts
        .into_iter()
        .map(|(host, mut h)| {
            h.host = host;
            h.yield_rate = if h.downloaded_bytes == 0 {
                0.0
            } else {
                h.text_bytes as f64 / h.downloaded_bytes as f64
            };
            h
        })
        .collect();
    hosts.sort_by(|a, b| {
        b.text_bytes
            .cmp(&a.text_bytes)
            .then_with(|| a.host.cmp(&b.host))
    });
    Ok((
        Harvest {
            pages: pages.len() as u64,
            on_topic: pages.iter().filter(|p| p.on_topic).count() as u64,
            kept: pages.iter().filter(|p| p.kept).count() as u64,
            on_topic_per_100,
            curve: crate::report::harvest_curve(
                pages.iter().map(|p| (p.on_topic, p.kept)),
                pages.len(),
            ),
            hosts,
        },
        documents,
    ))
}
