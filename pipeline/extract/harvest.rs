//! What the crawl harvested, measured after the extract stage: the on-topic share per 100
//! pages fetched (the harvest curve) and, per host, pages, kept documents and the yield
//! (clean text bytes ÷ downloaded bytes, SpiderLing's measure).
//!
//! **In:** `crawl.sqlite` (pages in fetch order with their verdicts, bytes downloaded) and the
//! kept documents in `docs.jsonl`, streamed. **Out:** [`Harvest`] for `report.json` and the summary.
//!
//! **Invariants:** reads only; hosts ordered by clean text, then name; memory is per host and
//! two flags per page (no URL held), the documents read on a second thread while the store is
//! read on this one.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;

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
    // The documents are read on a thread of their own while the store is read here: both
    // take seconds at a million pages, and nothing else runs then.
    let (text, pages, mut hosts) = std::thread::scope(|scope| {
        let text = scope.spawn(|| text_bytes_per_host(docs_path));
        let pages = pages_per_host(store);
        let text = match text.join() {
            Ok(text) => text,
            Err(_) => Err(anyhow::anyhow!(
                "reading {} stopped on an internal error",
                docs_path.display()
            )),
        };
        let (pages, hosts) = pages?;
        anyhow::Ok((text?, pages, hosts))
    })?;
    let (text_bytes, documents) = text;
    for (host, bytes) in text_bytes {
        hosts.entry(host).or_default().text_bytes += bytes;
    }
    let on_topic_per_100 = pages
        .chunks(100)
        .map(|block| block.iter().filter(|p| p.0).count() as f64 / block.len() as f64)
        .collect();
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
            on_topic: pages.iter().filter(|p| p.0).count() as u64,
            kept: pages.iter().filter(|p| p.1).count() as u64,
            on_topic_per_100,
            curve: harvest_curve(pages.iter().copied(), pages.len()),
            hosts,
        },
        documents,
    ))
}

/// What each host gave, by host name.
type PerHost = std::collections::BTreeMap<String, HostYield>;

/// The host of a URL ("" when it has none).
fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// Per host: pages, kept documents and bytes downloaded, from the store; and whether each page
/// was on topic and kept, in fetch order (two flags a page: the URLs are not held).
fn pages_per_host(store: &Store) -> anyhow::Result<(Vec<(bool, bool)>, PerHost)> {
    let mut hosts = PerHost::default();
    let mut pages = Vec::new();
    store.each_judged_in_fetch_order(|url, on_topic, kept| {
        pages.push((on_topic, kept));
        let h = hosts.entry(host_of(url)).or_default();
        h.pages += 1;
        h.kept += u64::from(kept);
    })?;
    store.each_fetched_length(|url, length| {
        hosts.entry(host_of(url)).or_default().downloaded_bytes += length;
    })?;
    Ok((pages, hosts))
}

/// Clean text bytes per host in `docs_path` (`docs.jsonl`, read one line at a time), and the
/// number of documents.
fn text_bytes_per_host(
    docs_path: &Path,
) -> anyhow::Result<(std::collections::HashMap<String, u64>, u64)> {
    let file = std::fs::File::open(docs_path).with_context(|| {
        format!(
            "cannot read {} (run the extract stage first: `--from extract`)",
            docs_path.display()
        )
    })?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut line, mut line_no, mut documents) = (String::new(), 0usize, 0u64);
    let mut hosts: std::collections::HashMap<String, u64> = Default::default();
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
            Some(total) => *total += bytes as u64,
            None => {
                hosts.insert(doc.host.into_owned(), bytes as u64);
            }
        }
    }
    Ok((hosts, documents))
}

/// Extract stage figures.
#[derive(Debug, Default, serde::Serialize)]
pub struct ExtractReport {
    /// Fetched pages processed.
    pub pages: u64,
    /// Documents kept.
    pub kept: u64,
    /// Pages dropped, per reason.
    pub dropped: std::collections::BTreeMap<String, u64>,
    /// Encoding decisions (`http-header`, `meta-prescan`, `detected`, ...).
    pub encodings: std::collections::BTreeMap<String, u64>,
    /// Paragraphs removed from kept documents after per-page cleaning, per cause
    /// (`host-boilerplate`, `language`); each is listed in `removed-paragraphs.csv`.
    pub paragraphs_removed: std::collections::BTreeMap<String, u64>,
    /// Pages whose stored copy had not changed since the last extraction: what reading them
    /// gave came from `extract-cache.jsonl` (the corpus-wide steps ran on every page).
    #[serde(default, skip_serializing_if = "crate::ground::outcome::is_zero")]
    pub reused: u64,
    /// Pages read while the crawl ran (`extract-follow.jsonl`), not read again.
    #[serde(default, skip_serializing_if = "crate::ground::outcome::is_zero")]
    pub read_while_crawling: u64,
    /// Pages with more links than `[crawl] max_links_per_page` (the first ones were read).
    #[serde(skip_serializing_if = "crate::ground::outcome::is_zero")]
    pub pages_links_cut: u64,
    /// Pages with an element bearing more attributes than `[crawl]
    /// max_attributes_per_element` (the first ones were read).
    #[serde(skip_serializing_if = "crate::ground::outcome::is_zero")]
    pub pages_attributes_cut: u64,
    /// Seconds.
    pub seconds: f64,
    /// Pages per second.
    pub pages_per_second: f64,
}

/// The harvest of a crawl over time and per server.
#[derive(Debug, Default, serde::Serialize)]
pub struct Harvest {
    /// HTML/text pages fetched (status 200): the harvest rate's denominator.
    pub pages: u64,
    /// Of those, pages the topic formula accepts: its numerator.
    pub on_topic: u64,
    /// Of those, documents kept in the corpus.
    pub kept: u64,
    /// On-topic share (formula satisfied by the clean text) of each block of 100 HTML/text
    /// pages, in fetch order: the harvest-rate curve of focused crawling.
    pub on_topic_per_100: Vec<f64>,
    /// The harvest curve per request: after each point's number of HTML/text pages fetched (in
    /// fetch order), how many the formula accepted and how many were kept; at most
    /// [`CURVE_MAX_POINTS`] points, evenly spaced, the last one the whole crawl.
    pub curve: Vec<CurvePoint>,
    /// Per server, most yielding first.
    pub hosts: Vec<HostYield>,
}

/// One point of the harvest curve (running totals).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CurvePoint {
    /// HTML/text pages fetched so far.
    pub pages: u64,
    /// Of those, accepted by the formula.
    pub on_topic: u64,
    /// Of those, kept in the corpus.
    pub kept: u64,
}

/// Most points of [`Harvest::curve`] (a million-page crawl keeps one point per 1,000 pages).
pub const CURVE_MAX_POINTS: usize = 1000;

/// The running totals of `pages` ((on topic, kept) per page in fetch order, `n` of them), at
/// most [`CURVE_MAX_POINTS`] evenly spaced points ending on the last page.
pub fn harvest_curve(pages: impl Iterator<Item = (bool, bool)>, n: usize) -> Vec<CurvePoint> {
    let points = n.min(CURVE_MAX_POINTS);
    let mut curve = Vec::with_capacity(points);
    let mut at = CurvePoint::default();
    for (i, (on_topic, kept)) in pages.enumerate() {
        at.pages += 1;
        at.on_topic += u64::from(on_topic);
        at.kept += u64::from(kept);
        // Point j (1-based) falls on page ceil(j·n/points): the last point on page n.
        let next = curve.len() + 1;
        if (i + 1) * points >= next * n {
            curve.push(at);
        }
    }
    curve
}

/// What one host gave.
#[derive(Debug, Default, serde::Serialize)]
pub struct HostYield {
    /// Host name.
    pub host: String,
    /// HTML/text pages fetched.
    pub pages: u64,
    /// Documents kept.
    pub kept: u64,
    /// Bytes downloaded (all responses).
    pub downloaded_bytes: u64,
    /// Bytes of clean text kept.
    pub text_bytes: u64,
    /// `text_bytes / downloaded_bytes`: SpiderLing's yield rate.
    pub yield_rate: f64,
}

impl Harvest {
    /// The crawl's harvest rate ([`crate::ground::outcome::harvest_rate`]).
    pub fn rate(&self) -> f64 {
        crate::ground::outcome::harvest_rate(self.on_topic, self.pages)
    }

    /// Documents kept ÷ HTML/text pages fetched.
    pub fn kept_rate(&self) -> f64 {
        crate::ground::outcome::share(self.kept, self.pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harvest_curve_keeps_a_thousand_points_ending_on_the_last_page() {
        let short = harvest_curve([(true, true), (false, false), (true, false)].into_iter(), 3);
        assert_eq!(
            short,
            vec![
                CurvePoint {
                    pages: 1,
                    on_topic: 1,
                    kept: 1
                },
                CurvePoint {
                    pages: 2,
                    on_topic: 1,
                    kept: 1
                },
                CurvePoint {
                    pages: 3,
                    on_topic: 2,
                    kept: 1
                },
            ]
        );
        let n = 1_000_003;
        let long = harvest_curve((0..n).map(|i| (i % 4 != 0, i % 2 == 0)), n);
        assert_eq!(long.len(), CURVE_MAX_POINTS);
        let last = long[long.len() - 1];
        assert_eq!(last.pages, n as u64);
        assert_eq!(last.on_topic, (n - n.div_ceil(4)) as u64);
        assert_eq!(last.kept, n.div_ceil(2) as u64);
        // Evenly spaced: every step is 1,000 or 1,001 pages.
        assert!(
            long.windows(2)
                .all(|w| (1000..=1001).contains(&(w[1].pages - w[0].pages)))
        );
    }
}
