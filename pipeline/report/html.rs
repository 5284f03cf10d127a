//! `report.html`: the run's report as one self-contained page, readable offline — the harvest
//! curve per request, pages per second and errors over time, queued against requested URLs,
//! every URL by state and reason, HTTP status classes, topic scores, depths, hosts, the kept
//! documents and the queues left.
//!
//! **In:** the run's [`Report`] and `crawl.sqlite` (one scan of the URLs, a few `LIMIT`ed
//! queries). **Out:** one HTML file with its data, uPlot (vendored, MIT) and its style inlined.
//!
//! **Invariants:** no network reference (no `src`/`href` to another file); the size does not
//! grow with the crawl: series have at most [`TIME_BINS`] bins and the harvest curve
//! [`crate::extract::CURVE_MAX_POINTS`] points, tables are cut at [`TABLE_ROWS`] rows (the whole lists
//! stay in `report.json` and the exports); the data cannot close its `<script>` element.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use super::Report;
use crate::extract::{CurvePoint, Harvest};
use crate::store::{KeptRow, Store, UrlFacts};

/// Bins of the time series (a bin is the crawl's duration ÷ this).
pub const TIME_BINS: usize = 600;

/// Requests a time bin should hold on average (see [`Timeline::coarsen`]).
const PER_BIN: u64 = 10;

/// Fewest bins of a time series.
const MIN_BINS: usize = 20;

/// Rows of the hosts', documents' and queues' tables.
pub const TABLE_ROWS: usize = 50;

/// Bins of the topic score histogram.
const SCORE_BINS: usize = 20;

/// Depths listed one by one; deeper pages share the last row.
const MAX_DEPTH_ROWS: u32 = 30;

const UPLOT_JS: &str = include_str!("../../vendor/uplot/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../../vendor/uplot/uPlot.min.css");
const TEMPLATE: &str = include_str!("report.html");

/// The crawl over time, in [`TIME_BINS`] equal bins from the first URL found to the last event.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timeline {
    /// Start (seconds since 1970).
    pub start: f64,
    /// Seconds per bin.
    pub step: f64,
    /// Requests answered or failed in each bin.
    pub requests: Vec<u64>,
    /// Of those, HTML/text pages.
    pub pages: Vec<u64>,
    /// Of those, pages the formula accepts.
    pub on_topic: Vec<u64>,
    /// Requests without a usable answer (HTTP ≥ 400, timeouts, network failures).
    pub errors: Vec<u64>,
    /// URLs found to be fetched (not settled without a request).
    pub found: Vec<u64>,
}

impl Timeline {
    /// Empty bins over `[t0, t1]`.
    pub fn new(t0: f64, t1: f64) -> Timeline {
        let span = (t1 - t0).max(1e-3);
        Timeline {
            start: t0,
            step: span / TIME_BINS as f64,
            requests: vec![0; TIME_BINS],
            pages: vec![0; TIME_BINS],
            on_topic: vec![0; TIME_BINS],
            errors: vec![0; TIME_BINS],
            found: vec![0; TIME_BINS],
        }
    }

    fn bin(&self, t: f64) -> usize {
        let i = ((t - self.start) / self.step).floor();
        if i.is_nan() || i < 0.0 {
            0
        } else {
            (i as usize).min(TIME_BINS - 1)
        }
    }

    /// Merges bins so that a bin holds about [`PER_BIN`] requests on average (at least
    /// [`MIN_BINS`] bins): a short crawl's rates are then not a comb of empty and full bins.
    pub fn coarsen(&mut self) {
        let requests: u64 = self.requests.iter().sum();
        let wanted = (requests / PER_BIN).clamp(MIN_BINS as u64, TIME_BINS as u64) as usize;
        // The largest divisor of the bin count that still leaves `wanted` bins.
        let n = self.requests.len();
        let Some(k) = (1..=n / wanted).rev().find(|k| n.is_multiple_of(*k)) else {
            return;
        };
        if k <= 1 {
            return;
        }
        let merge = |v: &mut Vec<u64>| *v = v.chunks(k).map(|c| c.iter().sum()).collect();
        merge(&mut self.requests);
        merge(&mut self.pages);
        merge(&mut self.on_topic);
        merge(&mut self.errors);
        merge(&mut self.found);
        self.step *= k as f64;
    }

    /// Counts one URL.
    pub fn add(&mut self, url: &UrlFacts) {
        if !url.skipped {
            let b = self.bin(url.discovered_at);
            self.found[b] += 1;
        }
        if let Some(at) = url.fetched_at {
            let b = self.bin(at);
            self.requests[b] += 1;
            self.pages[b] += u64::from(url.page);
            self.on_topic[b] += u64::from(url.on_topic);
            self.errors[b] += u64::from(url.error);
        }
    }
}

/// Counts per topic-score bin, on-topic and off-topic pages apart.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScoreHistogram {
    /// Lower bound of each bin.
    pub lower: Vec<f64>,
    /// Pages the formula accepts.
    pub on_topic: Vec<u64>,
    /// Pages it does not.
    pub off_topic: Vec<u64>,
}

/// What the report shows beyond `report.json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Overview {
    /// The crawl over time (absent before any URL).
    pub timeline: Option<Timeline>,
    /// Requests per HTTP status class (`2xx` … `5xx`, `no answer`).
    pub status_classes: BTreeMap<String, u64>,
    /// Topic scores of the pages read.
    pub scores: ScoreHistogram,
    /// Per link depth: requests, pages, kept (the last row holds every deeper page).
    pub depths: Vec<[u64; 4]>,
    /// The best-scored kept documents.
    pub best: Vec<KeptRow>,
    /// The latest kept documents.
    pub latest: Vec<KeptRow>,
    /// Hosts with URLs left in the queue: host, URLs, why the crawl stopped asking it.
    pub queues: Vec<(String, u64, Option<String>)>,
    /// Seed URLs (all runs).
    pub seeds: u64,
    /// Page requests answered or failed (all runs).
    pub requests: u64,
    /// URLs queued now.
    pub queued: u64,
}

/// Reads what the report shows from the store.
pub fn collect(store: &Store) -> anyhow::Result<Overview> {
    let mut overview = Overview::default();
    let mut timeline = store.time_span()?.map(|(t0, t1)| Timeline::new(t0, t1));
    // Scores are binned once the largest is known: a first pass keeps (score, on topic)
    // compactly (a million pages: 16 MB at most, freed before the page is written).
    let mut scores: Vec<(f32, bool)> = Vec::new();
    let mut depths = vec![[0u64; 4]; MAX_DEPTH_ROWS as usize + 1];
    store.each_url_facts(|url| {
        if let Some(t) = timeline.as_mut() {
            t.add(&url);
        }
        if url.fetched_at.is_some() {
            let class = match url.status {
                Some(s) => format!("{}xx", s / 100),
                None => "no answer".to_string(),
            };
            *overview.status_classes.entry(class).or_default() += 1;
            let row = &mut depths[url.depth.min(MAX_DEPTH_ROWS) as usize];
            row[1] += 1;
            row[2] += u64::from(url.page);
            row[3] += u64::from(url.kept);
        }
        if url.page
            && let Some(score) = url.score.filter(|s| s.is_finite())
        {
            scores.push((score as f32, url.on_topic));
        }
    })?;
    if let Some(t) = timeline.as_mut() {
        t.coarsen();
    }
    overview.timeline = timeline;
    overview.scores = score_histogram(&scores);
    drop(scores);
    let deepest = depths.iter().rposition(|r| r[1] > 0).unwrap_or(0);
    overview.depths = depths
        .into_iter()
        .take(deepest + 1)
        .enumerate()
        .map(|(d, mut row)| {
            row[0] = d as u64;
            row
        })
        .collect();
    overview.best = store.kept_documents(false, TABLE_ROWS as u32)?;
    overview.latest = store.kept_documents(true, TABLE_ROWS as u32)?;
    overview.queues = store.largest_queues(TABLE_ROWS as u32)?;
    overview.seeds = store.seed_ids()?.len() as u64;
    overview.requests = overview.status_classes.values().sum();
    overview.queued = store.queued_count()?;
    Ok(overview)
}

/// [`SCORE_BINS`] equal bins from 0 (or the lowest score, when negative) to the highest.
fn score_histogram(scores: &[(f32, bool)]) -> ScoreHistogram {
    if scores.is_empty() {
        return ScoreHistogram::default();
    }
    let lo = scores.iter().map(|s| s.0).fold(0.0f32, f32::min);
    let hi = scores.iter().map(|s| s.0).fold(lo, f32::max);
    let width = ((hi - lo) / SCORE_BINS as f32).max(f32::EPSILON);
    let mut h = ScoreHistogram {
        lower: (0..SCORE_BINS)
            .map(|i| f64::from(lo + width * i as f32))
            .collect(),
        on_topic: vec![0; SCORE_BINS],
        off_topic: vec![0; SCORE_BINS],
    };
    for &(score, on_topic) in scores {
        let i = (((score - lo) / width) as usize).min(SCORE_BINS - 1);
        if on_topic {
            h.on_topic[i] += 1;
        } else {
            h.off_topic[i] += 1;
        }
    }
    h
}

/// The page's data: the report without its long lists, and the overview.
#[derive(Serialize)]
struct Data<'a> {
    report: serde_json::Value,
    overview: &'a Overview,
    harvest_rate: Option<f64>,
    curve: &'a [CurvePoint],
    hosts_total: usize,
}

/// The whole page.
pub fn render(report: &Report, overview: &Overview) -> anyhow::Result<String> {
    let mut value = serde_json::to_value(report)?;
    let mut hosts_total = 0;
    if let Some(harvest) = value.get_mut("harvest").and_then(|h| h.as_object_mut()) {
        // The curve is given apart; the per-100 blocks and all hosts stay in report.json.
        harvest.remove("on_topic_per_100");
        harvest.remove("curve");
        if let Some(hosts) = harvest.get_mut("hosts").and_then(|h| h.as_array_mut()) {
            hosts_total = hosts.len();
            hosts.truncate(TABLE_ROWS);
        }
    }
    let curve = report.harvest.as_ref().map_or(&[][..], |h| &h.curve[..]);
    let data = Data {
        report: value,
        overview,
        harvest_rate: report
            .harvest
            .as_ref()
            .filter(|h| h.pages > 0)
            .map(Harvest::rate),
        curve,
        hosts_total,
    };
    let json = script_safe(&serde_json::to_string(&data)?);
    let title = format!("glaneur report: {}", report.topic);
    // Filled from the last placeholder to the first: what is put in never holds a
    // placeholder still to be found.
    Ok(TEMPLATE
        .replacen("\"{{DATA}}\"", &json, 1)
        .replacen("/*{{UPLOT_JS}}*/", UPLOT_JS, 1)
        .replacen("/*{{UPLOT_CSS}}*/", UPLOT_CSS, 1)
        .replacen("{{TITLE}}", &stages::export::graph::xml_escape(&title), 1))
}

/// Reads the overview and writes `report.html`.
pub fn write(store: &Store, report: &Report, path: &Path) -> anyhow::Result<()> {
    let overview = collect(store).context("cannot read crawl.sqlite for report.html")?;
    let page = render(report, &overview)?;
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}

/// JSON that can sit inside `<script>`: `<` is written `\u003c`, so no `</script>` or `<!--`
/// can end the element (the JSON value is unchanged).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Harvest, HostYield, harvest_curve};

    fn facts(t: f64, page: bool, on_topic: bool) -> UrlFacts {
        UrlFacts {
            discovered_at: t - 0.5,
            fetched_at: Some(t),
            skipped: false,
            error: false,
            status: Some(200),
            page,
            on_topic,
            kept: on_topic,
            score: Some(if on_topic { 0.8 } else { 0.1 }),
            depth: 1,
        }
    }

    #[test]
    fn the_timeline_bins_requests_and_findings_by_time() {
        let mut t = Timeline::new(100.0, 160.0);
        t.add(&facts(100.5, true, true));
        t.add(&facts(130.05, true, false));
        t.add(&UrlFacts {
            error: true,
            status: Some(503),
            page: false,
            ..facts(160.0, false, false)
        });
        // Skipped URLs are not "found to be fetched"; a queued one has no request.
        t.add(&UrlFacts {
            skipped: true,
            fetched_at: None,
            ..facts(150.0, false, false)
        });
        t.add(&UrlFacts {
            fetched_at: None,
            ..facts(150.0, false, false)
        });
        assert_eq!(t.requests.iter().sum::<u64>(), 3);
        assert_eq!(t.found.iter().sum::<u64>(), 4);
        assert_eq!(t.requests[5], 1);
        assert_eq!(t.requests[TIME_BINS / 2], 1);
        assert_eq!(t.errors[TIME_BINS - 1], 1);
        assert_eq!(t.on_topic.iter().sum::<u64>(), 1);
        assert_eq!(t.pages.iter().sum::<u64>(), 2);
    }

    #[test]
    fn a_short_crawl_gets_fewer_wider_bins() {
        let mut t = Timeline::new(0.0, 60.0);
        for i in 0..256 {
            t.add(&facts(f64::from(i) * 60.0 / 256.0, true, true));
        }
        t.coarsen();
        // 256 requests: about 25 bins of 10, and 600 is a multiple of their count.
        assert_eq!(t.requests.len(), 25);
        assert!((t.step - 2.4).abs() < 1e-9);
        assert_eq!(t.requests.iter().sum::<u64>(), 256);
        assert_eq!(t.found.iter().sum::<u64>(), 256);
        let mut big = Timeline::new(0.0, 60.0);
        for i in 0..100_000 {
            big.add(&facts(f64::from(i) * 0.0006, true, true));
        }
        big.coarsen();
        assert_eq!(big.requests.len(), TIME_BINS);
    }

    #[test]
    fn scores_fall_in_twenty_bins_on_and_off_topic() {
        let h = score_histogram(&[(0.0, false), (0.5, true), (1.0, true), (0.96, false)]);
        assert_eq!(h.lower.len(), SCORE_BINS);
        assert_eq!(h.on_topic[10] + h.on_topic[19], 2);
        assert_eq!(h.off_topic[0] + h.off_topic[19], 2);
        assert!(score_histogram(&[]).lower.is_empty());
    }

    #[test]
    fn the_data_cannot_end_the_script_element() {
        let report = Report {
            topic: "</script><script>alert(1)</script>".into(),
            ..Report::default()
        };
        let page = render(&report, &Overview::default()).unwrap();
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "uPlot's and the page's own"
        );
        assert!(page.contains("<title>glaneur report: &lt;/script&gt;"));
        assert!(!page.contains("{{DATA}}"));
    }

    /// A report of a million URLs over 100,000 hosts: every series and table at its bound.
    #[test]
    fn the_report_of_a_million_urls_stays_under_300_kb() {
        let n = 1_000_000usize;
        let mut timeline = Timeline::new(0.0, 1800.0);
        for i in 0..n {
            timeline.add(&facts(i as f64 * 0.0018, i % 3 != 0, i % 2 == 0));
        }
        let hosts = (0..100_000)
            .map(|i| HostYield {
                host: format!("www.host-number-{i}.example.org"),
                pages: 10,
                kept: 5,
                downloaded_bytes: 500_000,
                text_bytes: 40_000,
                yield_rate: 0.08,
            })
            .collect();
        let report = Report {
            topic: "a million".into(),
            harvest: Some(Harvest {
                pages: n as u64,
                on_topic: (n / 2) as u64,
                kept: (n / 3) as u64,
                on_topic_per_100: vec![0.5; n / 100],
                curve: harvest_curve((0..n).map(|i| (i % 2 == 0, i % 3 == 0)), n),
                hosts,
            }),
            ..Report::default()
        };
        let kept = |i: usize| KeptRow {
            url: format!(
                "http://www.host-number-{i}.example.org/a/rather/long/path/to/page-{i}.html"
            ),
            title: "Un titre de page assez long pour un document gardé dans le corpus".into(),
            score: 0.9,
            tokens: 1234,
            fetched_at: 1.0e9,
        };
        let overview = Overview {
            timeline: Some(timeline),
            status_classes: [("2xx".to_string(), 900_000), ("4xx".to_string(), 100_000)]
                .into_iter()
                .collect(),
            scores: score_histogram(
                &(0..n)
                    .map(|i| ((i % 97) as f32 / 97.0, i % 2 == 0))
                    .collect::<Vec<_>>(),
            ),
            depths: (0..=MAX_DEPTH_ROWS as u64)
                .map(|d| [d, 30_000, 20_000, 10_000])
                .collect(),
            best: (0..TABLE_ROWS).map(kept).collect(),
            latest: (0..TABLE_ROWS).map(kept).collect(),
            queues: (0..TABLE_ROWS)
                .map(|i| {
                    (
                        format!("http://www.host-number-{i}.example.org:80"),
                        5000,
                        None,
                    )
                })
                .collect(),
            seeds: 1000,
            requests: n as u64,
            queued: 2_000_000,
        };
        let page = render(&report, &overview).unwrap();
        println!(
            "report.html of a generated 1,000,000-URL run: {} bytes ({} of them uPlot)",
            page.len(),
            UPLOT_JS.len() + UPLOT_CSS.len()
        );
        assert!(page.len() < 300_000, "{} bytes", page.len());
    }
}
