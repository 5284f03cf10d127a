//! Seeds in the store: every seed URL with its sightings (`seeds`, `seed_hits`) and the search
//! API result pages received (`searches`), so that a resumed run neither asks again nor loses
//! a sighting.
//!
//! **In:** what the seed stage gathers, and the seed review's choices. **Out:** rows of
//! `seeds`, `seed_hits`, `searches`; a seed the review keeps again back in the frontier.
//!
//! **Invariants:** a sighting is recorded once (same source, query, page and rank); the
//! search API's key never reaches the store (requests are stored without it).

use rusqlite::{OptionalExtension, params};

use super::{Reason, Store};

/// One sighting of a seed, for `seed_hits`.
#[derive(Debug, Clone, Default)]
pub struct SeedHitRow<'a> {
    /// Where it came from (`search:brave`, `result-page:FILE`, ...).
    pub source: &'a str,
    /// Search engine or API.
    pub engine: Option<&'a str>,
    /// Query.
    pub query: Option<&'a str>,
    /// Result page number (1 = first).
    pub page: Option<u32>,
    /// Rank among the query's results (1 = first).
    pub rank: Option<usize>,
    /// Retrieval time, ISO 8601.
    pub retrieved_at: Option<&'a str>,
    /// The URL as given.
    pub result_url: &'a str,
    /// Title shown.
    pub title: Option<&'a str>,
    /// Snippet shown.
    pub snippet: Option<&'a str>,
}

/// For every URL, the sources of the seed its crawl path starts from (`topic`,
/// `url-list:FILE`, `result-page:FILE`, `search:BACKEND`, several joined by ` + `): a document's
/// `seed` attribute, for breakdowns by seed source.
#[derive(Debug, Default)]
pub struct SeedSources {
    /// Per URL id, the index of its label in `labels` (`u32::MAX`: none known).
    root: Vec<u32>,
    labels: Vec<String>,
}

impl SeedSources {
    /// The seed source of URL `id`, if its path leads back to a seed.
    pub fn of(&self, id: i64) -> Option<&str> {
        let k = *self.root.get(usize::try_from(id).ok()?)?;
        self.labels.get(k as usize).map(String::as_str)
    }
}

/// Links followed up from a URL to its seed at most (a longer chain is cut: no source).
const MAX_HOPS: usize = 10_000;

impl Store {
    /// [`SeedSources`] of every URL: a seed's own sources, else those of the page it was found
    /// on, up the parents (one pass in id order, parents being found before their children;
    /// a parent found later is followed up, at most [`MAX_HOPS`] links).
    pub fn seed_sources(&self) -> anyhow::Result<SeedSources> {
        let mut own: std::collections::BTreeMap<i64, Vec<String>> = Default::default();
        let mut stmt = self
            .conn
            .prepare("SELECT url_id, source FROM seeds ORDER BY url_id, source")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (id, source) = row?;
            own.entry(id).or_default().push(source);
        }
        let mut labels: Vec<String> = Vec::new();
        let mut label_of: std::collections::HashMap<String, u32> = Default::default();
        let mut parents: Vec<i64> = Vec::new();
        let mut root: Vec<u32> = Vec::new();
        let mut stmt = self
            .conn
            .prepare("SELECT id, parent_id FROM urls ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
        })?;
        for row in rows {
            let (id, parent) = row?;
            let Ok(at) = usize::try_from(id) else {
                continue;
            };
            if root.len() <= at {
                root.resize(at + 1, u32::MAX);
                parents.resize(at + 1, -1);
            }
            parents[at] = parent.unwrap_or(-1);
            if let Some(sources) = own.get(&id) {
                let label = sources.join(" + ");
                let next = labels.len() as u32;
                let k = *label_of.entry(label.clone()).or_insert(next);
                if k == next {
                    labels.push(label);
                }
                root[at] = k;
            } else if let Some(p) = parent.and_then(|p| usize::try_from(p).ok())
                && p < at
            {
                root[at] = root[p];
            }
        }
        // Parents found after their children (rare): followed up.
        for at in 0..root.len() {
            if root[at] == u32::MAX && parents[at] >= 0 {
                let mut p = parents[at];
                for _ in 0..MAX_HOPS {
                    let Some(&k) = usize::try_from(p).ok().and_then(|i| root.get(i)) else {
                        break;
                    };
                    if k != u32::MAX {
                        root[at] = k;
                        break;
                    }
                    p = usize::try_from(p)
                        .ok()
                        .and_then(|i| parents.get(i))
                        .copied()
                        .unwrap_or(-1);
                    if p < 0 {
                        break;
                    }
                }
            }
        }
        Ok(SeedSources { root, labels })
    }

    /// Records a seed and where it came from.
    pub fn seed(
        &mut self,
        url_id: i64,
        source: &str,
        engine: Option<&str>,
        query: Option<&str>,
        rank: Option<usize>,
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO seeds(url_id, source, engine, query, rank) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![url_id, source, engine, query, rank.map(|r| r as i64)])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Records one sighting of a seed (kept once per source, query, page and rank).
    pub fn seed_hit(&mut self, url_id: i64, hit: &SeedHitRow<'_>) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO seed_hits(url_id, source, engine, query, page, rank, retrieved_at, result_url, title, snippet)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                url_id,
                hit.source,
                hit.engine,
                hit.query,
                hit.page,
                hit.rank.map(|r| r as i64),
                hit.retrieved_at,
                hit.result_url,
                hit.title,
                hit.snippet
            ])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// A search API result page already received: (results, another page announced).
    pub fn search_page(
        &self,
        backend: &str,
        request: &str,
        page: u32,
    ) -> anyhow::Result<Option<(u64, bool)>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT results, more FROM searches WHERE backend = ?1 AND request = ?2 AND page = ?3",
            )?
            .query_row(params![backend, request, page], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, bool>(1)?))
            })
            .optional()?)
    }

    /// Records a search API result page received.
    pub fn record_search(
        &mut self,
        backend: &str,
        request: &str,
        page: u32,
        retrieved_at: &str,
        (requests, results, more): (u32, u64, bool),
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO searches(backend, request, page, retrieved_at, requests, results, more)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![backend, request, page, retrieved_at, requests, results as i64, more])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Requests recorded for a search backend in this run folder.
    pub fn search_requests(&self, backend: &str) -> anyhow::Result<u64> {
        Ok(self.conn.query_row(
            "SELECT COALESCE(SUM(requests), 0) FROM searches WHERE backend = ?1",
            [backend],
            |r| r.get::<_, i64>(0),
        )? as u64)
    }

    /// Records whether a fetched seed satisfies the formula (membership of `G_F`); for a seed
    /// reached through redirects, the verdict goes to the seed the chain started from.
    pub fn seed_verdict(&mut self, url_id: i64, verdict: bool) -> anyhow::Result<()> {
        let (_, url_id) = self.redirect_chain(url_id)?;
        self.conn
            .prepare_cached("UPDATE seeds SET verdict = ?2 WHERE url_id = ?1")?
            .execute(params![url_id, verdict])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Puts back in the frontier a seed dropped at the seed review that the review now keeps;
    /// returns whether it was dropped (any other URL is left as it is).
    pub fn requeue_dropped_seed(&mut self, url_id: i64) -> anyhow::Result<bool> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE urls SET state = 'queued', reason = NULL, detail = NULL
                 WHERE id = ?1 AND state = 'skipped' AND reason = ?2",
            )?
            .execute(params![url_id, Reason::SeedDropped])?;
        self.uncommitted += 1;
        Ok(changed > 0)
    }

    /// Whether a URL is a seed, or a seed's redirect target (the seed's page itself).
    pub fn is_seed(&self, url_id: i64) -> anyhow::Result<bool> {
        let (_, root) = self.redirect_chain(url_id)?;
        self.is_listed_seed(root)
    }

    fn is_listed_seed(&self, url_id: i64) -> anyhow::Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM seeds WHERE url_id = ?1 LIMIT 1")?
            .query_row([url_id], |_| Ok(()))
            .optional()?
            .is_some())
    }
}
