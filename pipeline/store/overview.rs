//! What `report.html` reads from `crawl.sqlite`: every URL once, as a few numbers (one scan,
//! no sort), and the short tables (kept documents, hosts with URLs left).
//!
//! **In:** tables `urls`, `hosts`. **Out:** [`UrlFacts`] streamed to a callback; small vectors.
//!
//! **Invariants:** read-only; memory does not grow with the crawl (rows are streamed, tables
//! are `LIMIT`ed); a URL is a page exactly when [`Store::judged_in_fetch_order`] lists it.

use rusqlite::params;

use super::{NOT_PAGES, Reason, Store};

/// One URL, as the report's timeline and histograms see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UrlFacts {
    /// When it was found (seconds since 1970).
    pub discovered_at: f64,
    /// When it was requested, if it was.
    pub fetched_at: Option<f64>,
    /// Settled without a request (robots, scope, traps, replay's unrecorded URLs).
    pub skipped: bool,
    /// No usable answer: a failed request or an HTTP status of 400 or more.
    pub error: bool,
    /// HTTP status, when there was an answer.
    pub status: Option<u16>,
    /// A `200` HTML/text page (the harvest rate's denominator).
    pub page: bool,
    /// The topic formula accepts it (pages only).
    pub on_topic: bool,
    /// In the corpus.
    pub kept: bool,
    /// Topic score, when the page was read.
    pub score: Option<f64>,
    /// Link depth from the seeds.
    pub depth: u32,
}

/// A kept document for the report's tables.
#[derive(Debug, Clone, serde::Serialize)]
pub struct KeptRow {
    /// Canonical URL.
    pub url: String,
    /// Title, when the page had one.
    pub title: String,
    /// Topic score.
    pub score: f64,
    /// Tokens in the exports (0 before the export stage).
    pub tokens: u64,
    /// When it was fetched (seconds since 1970).
    pub fetched_at: f64,
}

impl Store {
    /// The time span of the crawl's records: first discovery, last discovery or request.
    pub fn time_span(&self) -> anyhow::Result<Option<(f64, f64)>> {
        let (first, last_found, last_fetched): (Option<f64>, Option<f64>, Option<f64>) =
            self.conn.query_row(
                "SELECT min(discovered_at), max(discovered_at), max(fetched_at) FROM urls",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
        Ok(first.map(|t0| {
            let t1 = last_found.unwrap_or(t0).max(last_fetched.unwrap_or(t0));
            (t0, t1)
        }))
    }

    /// Every URL once, in table order, as [`UrlFacts`].
    pub fn each_url_facts(&self, mut each: impl FnMut(UrlFacts)) -> anyhow::Result<()> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT discovered_at, fetched_at, state = 'skipped',
                    state = 'failed' OR COALESCE(status, 0) >= 400, status,
                    state = 'fetched' AND status = 200 AND COALESCE(reason, '') NOT IN {NOT_PAGES},
                    COALESCE(verdict, 0), COALESCE(reason, '') = ?1, score, depth
             FROM urls"
        ))?;
        let mut rows = stmt.query(params![Reason::Kept])?;
        while let Some(r) = rows.next()? {
            let page: bool = r.get(5)?;
            each(UrlFacts {
                discovered_at: r.get(0)?,
                fetched_at: r.get(1)?,
                skipped: r.get(2)?,
                error: r.get(3)?,
                status: r
                    .get::<_, Option<i64>>(4)?
                    .and_then(|s| u16::try_from(s).ok()),
                page,
                on_topic: page && r.get::<_, i64>(6)? != 0,
                kept: r.get(7)?,
                score: r.get(8)?,
                depth: r.get::<_, i64>(9)?.clamp(0, i64::from(u32::MAX)) as u32,
            });
        }
        Ok(())
    }

    /// Requests by HTTP status class (`2xx` … `5xx`, `no answer` for a failed request).
    pub fn status_classes(&self) -> anyhow::Result<Vec<(String, u64)>> {
        let mut stmt = self.conn.prepare(
            "SELECT CASE WHEN status IS NULL THEN 'no answer' ELSE (status / 100) || 'xx' END,
                    count(*)
             FROM urls WHERE fetched_at IS NOT NULL AND state IN ('fetched', 'failed')
             GROUP BY 1 ORDER BY 1",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Kept documents: the `limit` best scored, or the `limit` latest fetched.
    pub fn kept_documents(&self, latest: bool, limit: u32) -> anyhow::Result<Vec<KeptRow>> {
        let order = if latest {
            "fetched_at DESC, id DESC"
        } else {
            "score DESC, id"
        };
        let mut stmt = self.conn.prepare(&format!(
            "SELECT url, COALESCE(title, ''), COALESCE(score, 0), COALESCE(tokens, 0),
                    COALESCE(fetched_at, 0)
             FROM urls WHERE reason = ?1 ORDER BY {order} LIMIT ?2"
        ))?;
        let rows = stmt
            .query_map(params![Reason::Kept, limit], |r| {
                Ok(KeptRow {
                    url: r.get(0)?,
                    title: r.get(1)?,
                    score: r.get(2)?,
                    tokens: r.get::<_, i64>(3)?.max(0) as u64,
                    fetched_at: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Hosts with URLs still queued, the largest queues first (at most `limit`), and why the
    /// crawl stopped asking a host, if it did.
    pub fn largest_queues(&self, limit: u32) -> anyhow::Result<Vec<(String, u64, Option<String>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT u.host, count(*), h.gave_up FROM urls u LEFT JOIN hosts h ON h.host = u.host
             WHERE u.state = 'queued' GROUP BY u.host ORDER BY 2 DESC, u.host LIMIT ?1",
        )?;
        let rows = stmt
            .query_map(params![limit], |r| {
                Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64, r.get(2)?))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }
}
