//! A watched page's history read as the estimators want it, the estimates, and the two tables
//! a monitor writes: `changes.csv` (every visit) and `rates.csv` / `host-rates.csv` (every page,
//! every host).
//!
//! **In:** the `visits` rows. **Out:** [`PageRate`]s and the CSV files.
//!
//! **Invariants:** a visit whose change is unknown (`failed`) neither opens nor closes an
//! interval; a 304 without a `Last-Modified` keeps the date of the version it confirms; the
//! estimator is the one [`stages::change::estimate::choose`] picks for the data.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use stages::change::estimate::{self, Estimate, Interval, Observation};

use crate::ground::clock::iso_of;
use crate::store::{Change, VisitRecord};

/// Seconds in a day (rates are written per day).
pub const DAY: f64 = 86_400.0;

/// One page's visits as observations, in time order.
pub fn observations(visits: &[&VisitRecord]) -> Vec<Observation> {
    let mut out: Vec<Observation> = Vec::with_capacity(visits.len());
    for v in visits {
        let change = Change::from_name(&v.change);
        let changed = match change {
            Some(Change::First) => None,
            Some(c) => match c.is_change() {
                Some(changed) => Some(changed),
                // A failed visit says nothing: the next interval runs from the visit before.
                None => continue,
            },
            None => continue,
        };
        if changed.is_none() && !out.is_empty() {
            // A second `first` (a page fetched again by a later crawl): a new start.
            out.clear();
        }
        let last_modified = v.last_modified.0.or_else(|| {
            // A 304 confirms the version before it, and its date.
            (change == Some(Change::NotModified))
                .then(|| out.last().and_then(|o| o.last_modified))
                .flatten()
        });
        if out.last().is_some_and(|o| v.at <= o.at) {
            continue;
        }
        out.push(Observation {
            at: v.at,
            changed,
            last_modified,
        });
    }
    out
}

/// What the monitor knows of a page.
#[derive(Debug, Clone)]
pub struct PageRate {
    /// The page.
    pub url_id: i64,
    /// Its URL.
    pub url: String,
    /// Its host.
    pub host: String,
    /// The intervals between its visits.
    pub intervals: Vec<Interval>,
    /// Whether its Last-Modified dates can be trusted (`Err` says why not).
    pub last_modified: Result<(), estimate::Lie>,
    /// The estimate chosen for the data.
    pub estimate: Estimate,
    /// The naive estimate `X/T`, shown beside it.
    pub naive: Estimate,
    /// The last visit that saw a change.
    pub last_change: Option<f64>,
}

/// Every page's rate, in URL-id order.
pub fn rates(visits: &[VisitRecord]) -> Vec<PageRate> {
    let mut pages: BTreeMap<i64, Vec<&VisitRecord>> = BTreeMap::new();
    for v in visits {
        pages.entry(v.url_id).or_default().push(v);
    }
    pages
        .into_values()
        .filter_map(|visits| {
            let first = visits.first()?;
            let obs = observations(&visits);
            let intervals = estimate::intervals(&obs);
            let last_modified = estimate::last_modified_verdict(&obs);
            Some(PageRate {
                url_id: first.url_id,
                url: first.url.clone(),
                host: first.host.clone(),
                estimate: estimate::choose(&intervals, last_modified.is_ok()),
                naive: estimate::naive(&intervals),
                last_modified,
                last_change: obs
                    .iter()
                    .rev()
                    .find(|o| o.changed == Some(true))
                    .map(|o| o.at),
                intervals,
            })
        })
        .collect()
}

/// Writes `changes.csv`: one row per visit.
pub fn write_changes(path: &Path, visits: &[VisitRecord]) -> anyhow::Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record([
        "url",
        "host",
        "at",
        "epoch",
        "status",
        "change",
        "length",
        "body_md5",
        "text_md5",
        "plain_md5",
        "last_modified",
        "expires",
        "etag",
        "content_language",
        "server",
        "detail",
    ])?;
    for v in visits {
        let opt = |s: &Option<String>| s.clone().unwrap_or_default();
        w.write_record([
            v.url.clone(),
            v.host.clone(),
            iso_of(v.at),
            format!("{:.3}", v.at),
            v.status.map(|s| s.to_string()).unwrap_or_default(),
            v.change.clone(),
            v.length.map(|l| l.to_string()).unwrap_or_default(),
            opt(&v.digests.body),
            opt(&v.digests.text),
            opt(&v.digests.plain),
            opt(&v.last_modified.1),
            opt(&v.expires.1),
            opt(&v.etag),
            opt(&v.content_language),
            opt(&v.server),
            opt(&v.detail),
        ])?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

fn per_day(rate: f64) -> String {
    if rate.is_finite() {
        format!("{:.6}", rate * DAY)
    } else {
        String::new()
    }
}

fn days(seconds: f64) -> String {
    format!("{:.4}", seconds / DAY)
}

/// Writes `rates.csv` (one row per page) and `host-rates.csv` (one row per host: the
/// maximum-likelihood rate over all its pages' intervals, and how its pages' rates spread).
pub fn write_rates(
    pages_path: &Path,
    hosts_path: &Path,
    rates: &[PageRate],
    next_visit: &BTreeMap<i64, f64>,
) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_path(pages_path)
        .with_context(|| format!("cannot write {}", pages_path.display()))?;
    w.write_record([
        "url",
        "host",
        "intervals",
        "changes",
        "observed_days",
        "method",
        "changes_per_day",
        "low_per_day",
        "high_per_day",
        "saturated",
        "naive_per_day",
        "last_modified",
        "last_change",
        "next_visit",
    ])?;
    for r in rates {
        let e = &r.estimate;
        let observed = r.intervals.iter().fold(0.0, |sum, i| sum + i.length);
        w.write_record([
            r.url.clone(),
            r.host.clone(),
            e.visits.to_string(),
            e.changes.to_string(),
            days(observed),
            e.method.name().to_string(),
            per_day(e.rate),
            per_day(e.low),
            per_day(e.high),
            e.saturated.to_string(),
            per_day(r.naive.rate),
            match &r.last_modified {
                Ok(()) => "plausible".to_string(),
                Err(lie) => lie.to_string(),
            },
            r.last_change.map(iso_of).unwrap_or_default(),
            next_visit
                .get(&r.url_id)
                .map(|t| iso_of(*t))
                .unwrap_or_default(),
        ])?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", pages_path.display()))?;

    let mut hosts: BTreeMap<&str, Vec<&PageRate>> = BTreeMap::new();
    for r in rates {
        hosts.entry(r.host.as_str()).or_default().push(r);
    }
    let mut w = csv::Writer::from_path(hosts_path)
        .with_context(|| format!("cannot write {}", hosts_path.display()))?;
    w.write_record([
        "host",
        "pages",
        "intervals",
        "changes",
        "changes_per_day",
        "low_per_day",
        "high_per_day",
        "median_page_per_day",
        "pages_changed",
    ])?;
    for (host, pages) in hosts {
        let all: Vec<&[Interval]> = pages.iter().map(|p| p.intervals.as_slice()).collect();
        let e = estimate::pooled(&all);
        let mut page_rates: Vec<f64> = pages
            .iter()
            .map(|p| p.estimate.rate)
            .filter(|r| r.is_finite())
            .collect();
        page_rates.sort_by(f64::total_cmp);
        let median = page_rates
            .get(page_rates.len() / 2)
            .copied()
            .unwrap_or(f64::NAN);
        w.write_record([
            host.to_string(),
            pages.len().to_string(),
            e.visits.to_string(),
            e.changes.to_string(),
            per_day(e.rate),
            per_day(e.low),
            per_day(e.high),
            per_day(median),
            pages
                .iter()
                .filter(|p| p.estimate.changes > 0)
                .count()
                .to_string(),
        ])?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", hosts_path.display()))
}
