//! What the crawl harvested, measured after the extract stage: the on-topic share per 100
//! pages fetched (the harvest curve) and, per host, pages, kept documents and the yield
//! (clean text bytes ÷ downloaded bytes, SpiderLing's measure).
//!
//! **In:** `crawl.sqlite` (pages in fetch order with their verdicts, bytes downloaded) and the
//! kept documents. **Out:** [`Harvest`] for `report.json` and the summary.
//!
//! **Invariants:** reads only; hosts ordered by clean text, then name.

use super::Document;
use crate::report::{Harvest, HostYield};
use crate::store::Store;

/// The harvest curve and per-host yield, from `crawl.sqlite` and the kept documents.
pub fn harvest(store: &Store, docs: &[Document]) -> anyhow::Result<Harvest> {
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
    for doc in docs {
        let bytes: usize = doc.paragraphs.iter().map(|p| p.text.len() + 1).sum();
        hosts.entry(doc.host.clone()).or_default().text_bytes += bytes as u64;
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
    Ok(Harvest {
        on_topic_per_100,
        hosts,
    })
}
