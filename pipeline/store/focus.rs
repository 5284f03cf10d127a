//! The crawl's own state in `crawl.sqlite`, beyond the URLs: tunnelling hops, raised
//! priorities, the order in which pages gave their links (graph strategies), the trap rules'
//! counters, retry counts, servers given up or resting after failures, the seed centroid and the term counts of the
//! `G_F` seed pages — so that a crawl stopped at any moment (Ctrl-C, `kill -9`) and run again
//! orders, expands and refuses exactly as the uninterrupted one would have.
//!
//! **In:** what `crawl::focus` computes. **Out:** tables `tunnel`, `judged`, `page_done`,
//! `trap_counts`, `attempts`, `given_up`, `host_rest`, and `meta` keys `crawl_state`, `focus_centroid` (JSON of
//! `stages::focus::centroid::Centroid`) and `focus_seed_terms:ID`; read back: links, seeds, and the
//! verdicts of fetched pages (servers' yields).
//!
//! **Invariants:** the tables are created with the rest of the schema ([`SCHEMA`], run by
//! `Store::open`; a run folder of an older glaneur gets them empty); writes go into the
//! store's open transaction like every other write, so they are committed with the URL states
//! they go with; per-run state (`trap_counts`, `attempts`, `given_up`, `host_rest`) carries over only
//! to a crawl that continues an unfinished one ([`Store::begin_crawl`]).

use rusqlite::{OptionalExtension, params};

use super::Store;

/// The focus table: off-topic pages in a row before each URL (tunnelling).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tunnel (
    url_id INTEGER PRIMARY KEY REFERENCES urls(id),
    hops   INTEGER NOT NULL   -- off-topic pages in a row between the last on-topic page and this URL
);
CREATE TABLE IF NOT EXISTS judged (      -- tokens of the text the crawl judged, per page (servers' yields)
    url_id INTEGER PRIMARY KEY REFERENCES urls(id),
    tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS page_done (   -- graph strategies: pages whose links the frontier took in, in order
    url_id INTEGER NOT NULL REFERENCES urls(id)
);
CREATE TABLE IF NOT EXISTS trap_counts ( -- the trap rules' counters of the crawl under way
    host  TEXT NOT NULL,                 -- politeness key
    path  TEXT NOT NULL,                 -- path whose query variants are counted; '' = calendar-like URLs
    count INTEGER NOT NULL,
    PRIMARY KEY (host, path)
);
CREATE TABLE IF NOT EXISTS attempts (    -- requests already made for a URL waiting to be tried again
    url_id   INTEGER PRIMARY KEY REFERENCES urls(id),
    attempts INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS given_up (    -- servers the crawl under way gave up on (hosts.gave_up says why)
    host TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS host_rest (   -- servers resting after failures in a row
    host       TEXT PRIMARY KEY,
    failures   INTEGER NOT NULL,         -- failures in a row
    rest_until REAL NOT NULL             -- no request before this, seconds since 1970
);
";

/// Meta key of the crawl's state: `running` while a crawl runs (also what a killed crawl
/// leaves), `interrupted` after a graceful stop, `finished` when it ended by itself.
const CRAWL_STATE_KEY: &str = "crawl_state";

impl Store {
    /// Records the tunnelling hops of a URL entering the frontier.
    pub fn set_hops(&mut self, url_id: i64, hops: u32) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO tunnel(url_id, hops) VALUES (?1, ?2)
                 ON CONFLICT(url_id) DO UPDATE SET hops = excluded.hops",
            )?
            .execute(params![url_id, hops])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Tunnelling hops of every URL that has them.
    pub fn hops(&self) -> anyhow::Result<std::collections::HashMap<i64, u32>> {
        let mut stmt = self.conn.prepare("SELECT url_id, hops FROM tunnel")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?.clamp(0, i64::from(u32::MAX)) as u32,
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Tunnelling hops of some URLs (those without a row have none).
    pub fn hops_of(&self, ids: &[i64]) -> anyhow::Result<std::collections::HashMap<i64, u32>> {
        let mut out = std::collections::HashMap::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT hops FROM tunnel WHERE url_id = ?1")?;
        for &id in ids {
            if let Some(h) = stmt.query_row([id], |r| r.get::<_, i64>(0)).optional()? {
                out.insert(id, h.clamp(0, i64::from(u32::MAX)) as u32);
            }
        }
        Ok(out)
    }

    /// Every link `(src, dst)` in the order it was first recorded (to rebuild the known graph).
    pub fn link_pairs(&self) -> anyhow::Result<Vec<(i64, i64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT src, dst FROM links ORDER BY rowid")?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Fetched pages in fetch order (to replay OPIC's cash distribution on resume).
    pub fn fetch_order(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM urls WHERE state = 'fetched' ORDER BY fetched_at, id")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The crawl judged a page on a text of `tokens` tokens (what its verdict is worth as
    /// evidence about its server: `stages::focus::strategy::verdict_weight`).
    pub fn set_judged_tokens(&mut self, url_id: i64, tokens: u64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO judged(url_id, tokens) VALUES (?1, ?2)
                 ON CONFLICT(url_id) DO UPDATE SET tokens = excluded.tokens",
            )?
            .execute(params![url_id, i64::try_from(tokens).unwrap_or(i64::MAX)])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// (politeness key, verdict, tokens judged) of every page judged by the formula, in id
    /// order: the servers' yields of a resumed crawl. The verdict is the crawl's (all visible
    /// text) until the extract stage replaces it with the clean text's; the tokens are the
    /// crawl's (None for a page judged by a glaneur that did not record them).
    pub fn judged_pages(&self) -> anyhow::Result<Vec<(String, bool, Option<u64>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT u.host, u.verdict, j.tokens FROM urls u LEFT JOIN judged j ON j.url_id = u.id
             WHERE u.state = 'fetched' AND u.verdict IS NOT NULL ORDER BY u.id",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, i64>(1)? != 0,
                    r.get::<_, Option<i64>>(2)?.map(|n| n.max(0) as u64),
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// A waiting URL's priority was raised by a better page linking to it (best-first).
    pub fn raise_priority(&mut self, url_id: i64, priority: f64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET priority = ?2 WHERE id = ?1 AND state = 'queued' AND priority < ?2",
            )?
            .execute(params![url_id, priority])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The frontier took in the links of this page (graph strategies replay these in order).
    pub fn page_done(&mut self, url_id: i64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("INSERT INTO page_done(url_id) VALUES (?1)")?
            .execute([url_id])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// [`Store::page_done`]'s pages, in order (empty for a run folder of an older glaneur).
    pub fn page_done_order(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT url_id FROM page_done ORDER BY rowid")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// One more URL counted by a trap rule (`path` '' for calendar-like URLs).
    pub fn count_trap(&mut self, host: &str, path: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO trap_counts(host, path, count) VALUES (?1, ?2, 1)
                 ON CONFLICT(host, path) DO UPDATE SET count = count + 1",
            )?
            .execute(params![host, path])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The trap rules' counters: (host, path, count).
    pub fn trap_counts(&self) -> anyhow::Result<Vec<(String, String, u32)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT host, path, count FROM trap_counts")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    u32::try_from(r.get::<_, i64>(2)?).unwrap_or(u32::MAX),
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Requests already made for a URL that waits to be tried again.
    pub fn set_attempts(&mut self, url_id: i64, attempts: u32) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO attempts(url_id, attempts) VALUES (?1, ?2)
                 ON CONFLICT(url_id) DO UPDATE SET attempts = excluded.attempts",
            )?
            .execute(params![url_id, attempts])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// [`Store::set_attempts`]'s counts of the URLs still queued.
    pub fn attempts(&self) -> anyhow::Result<Vec<(i64, u32)>> {
        let mut stmt = self.conn.prepare(
            "SELECT a.url_id, a.attempts FROM attempts a JOIN urls u ON u.id = a.url_id
             WHERE u.state = 'queued'",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    u32::try_from(r.get::<_, i64>(1)?).unwrap_or(u32::MAX),
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Servers the crawl under way gave up on (an earlier, finished crawl's are in
    /// `hosts.gave_up` only).
    pub fn given_up_hosts(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT host FROM given_up ORDER BY host")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Starts a crawl: returns whether it continues one that did not finish (stopped or
    /// killed), whose per-run state (servers given up, trap counters, retry counts) then
    /// goes on; otherwise that state starts over, as for a new run.
    pub fn begin_crawl(&mut self) -> anyhow::Result<bool> {
        let resumed = matches!(
            self.meta(CRAWL_STATE_KEY)?.as_deref(),
            Some("running" | "interrupted")
        );
        if !resumed {
            self.conn.execute_batch(
                "DELETE FROM trap_counts; DELETE FROM attempts; DELETE FROM given_up;
                 DELETE FROM host_rest;",
            )?;
        }
        self.set_meta(CRAWL_STATE_KEY, "running")?;
        Ok(resumed)
    }

    /// Ends a crawl: `interrupted` (a graceful stop) or finished.
    pub fn end_crawl(&mut self, interrupted: bool) -> anyhow::Result<()> {
        self.set_meta(
            CRAWL_STATE_KEY,
            if interrupted {
                "interrupted"
            } else {
                "finished"
            },
        )
    }

    /// A server rests after `failures` failures in a row, until `rest_until` (seconds since
    /// 1970); 0 failures: it answered again.
    pub fn host_rest(&mut self, host: &str, failures: u32, rest_until: f64) -> anyhow::Result<()> {
        if failures == 0 {
            self.conn
                .prepare_cached("DELETE FROM host_rest WHERE host = ?1")?
                .execute([host])?;
        } else {
            self.conn
                .prepare_cached(
                    "INSERT INTO host_rest(host, failures, rest_until) VALUES (?1, ?2, ?3)
                     ON CONFLICT(host) DO UPDATE SET failures = excluded.failures,
                       rest_until = excluded.rest_until",
                )?
                .execute(params![host, failures, rest_until])?;
        }
        self.uncommitted += 1;
        Ok(())
    }

    /// [`Store::host_rest`]'s servers: (host, failures, rest until).
    pub fn host_rests(&self) -> anyhow::Result<Vec<(String, u32, f64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT host, failures, rest_until FROM host_rest")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    u32::try_from(r.get::<_, i64>(1)?).unwrap_or(u32::MAX),
                    r.get(2)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// URL ids of the seeds (the `seeds` table).
    pub fn seed_ids(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT url_id FROM seeds ORDER BY url_id")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The stored term counts of the `G_F` seed pages, as JSON texts, in id order.
    pub fn seed_terms(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT value FROM meta WHERE key LIKE 'focus_seed_terms:%'
             ORDER BY CAST(substr(key, 18) AS INTEGER)",
        )?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PageFacts, Via};
    use super::*;

    #[test]
    fn judged_pages_are_the_fetched_pages_with_a_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
        let id = |store: &mut Store, url: &str, host: &str| {
            store
                .insert_url(url, host, 1, None, Via::Link, 0.5, 0.0)
                .unwrap()
                .0
        };
        let on = id(&mut store, "http://a.test/on", "http://a.test:80");
        let off = id(&mut store, "http://b.test/off", "http://b.test:80");
        let missing = id(&mut store, "http://a.test/404", "http://a.test:80");
        let waiting = id(&mut store, "http://a.test/later", "http://a.test:80");
        let facts = |verdict| PageFacts {
            score: 0.0,
            verdict,
            matched: Vec::new(),
            language: None,
            title: None,
        };
        store.page_facts(on, &facts(true)).unwrap();
        store.page_facts(off, &facts(false)).unwrap();
        store.set_judged_tokens(off, 12).unwrap();
        for fetched in [on, off, missing] {
            store
                .conn
                .execute("UPDATE urls SET state = 'fetched' WHERE id = ?1", [fetched])
                .unwrap();
        }
        // Never fetched: its verdict (there is none in a real crawl) would not count.
        store.page_facts(waiting, &facts(true)).unwrap();
        assert_eq!(
            store.judged_pages().unwrap(),
            [
                ("http://a.test:80".to_string(), true, None),
                ("http://b.test:80".to_string(), false, Some(12))
            ]
        );
    }
}
