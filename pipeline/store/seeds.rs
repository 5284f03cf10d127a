//! Seeds in the store: every seed URL with its sightings (`seeds`, `seed_hits`) and the search
//! API result pages received (`searches`), so that a resumed run neither asks again nor loses
//! a sighting.
//!
//! **In:** what the seed stage gathers. **Out:** rows of `seeds`, `seed_hits`, `searches`.
//!
//! **Invariants:** a sighting is recorded once (same source, query, page and rank); the
//! search API's key never reaches the store (requests are stored without it).

use rusqlite::{OptionalExtension, params};

use super::Store;

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

impl Store {
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
