//! Servers in the store: robots.txt as last read, pages fetched and failures per server, and
//! the servers the crawl gave up on, with their queued URLs settled.
//!
//! **In:** the crawl's per-server outcomes. **Out:** rows of `hosts`; URLs of a server settled
//! or given a waiting reason.
//!
//! **Invariants:** one row per server (scheme + host + port); settling a server's URLs touches
//! only those still queued.

use rusqlite::{OptionalExtension, params};

use super::{Reason, Revisit, Store};

impl Store {
    /// Stores what robots.txt said for a host.
    pub fn host_robots(
        &mut self,
        host: &str,
        status: u16,
        body: &str,
        crawl_delay: Option<f64>,
        now: f64,
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO hosts(host, robots_status, robots_body, crawl_delay, robots_fetched_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(host) DO UPDATE SET robots_status = excluded.robots_status,
                   robots_body = excluded.robots_body, crawl_delay = excluded.crawl_delay,
                   robots_fetched_at = excluded.robots_fetched_at",
            )?
            .execute(params![host, status, body, crawl_delay, now])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// robots.txt status, body and age in seconds (at `now`) of a host, when known.
    pub fn robots_of(&self, host: &str, now: f64) -> anyhow::Result<Option<(u16, String, f64)>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT robots_status, robots_body, robots_fetched_at FROM hosts
                 WHERE host = ?1 AND robots_status IS NOT NULL",
            )?
            .query_row([host], |r| {
                Ok((
                    r.get::<_, i64>(0)? as u16,
                    r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    now - r.get::<_, Option<f64>>(2)?.unwrap_or(now),
                ))
            })
            .optional()?)
    }

    /// Records that the crawl stopped asking a server, and why.
    pub fn host_gave_up(&mut self, host: &str, why: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO hosts(host, gave_up) VALUES (?1, ?2)
                 ON CONFLICT(host) DO UPDATE SET gave_up = excluded.gave_up",
            )?
            .execute(params![host, why])?;
        // The crawl under way's own list (`store/focus.rs`): a resumed crawl goes on without
        // the server, a new one tries it again.
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO given_up(host) VALUES (?1)")?
            .execute([host])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Counts one more page fetched (or failed) from a host.
    pub fn host_fetched(&mut self, host: &str, failed: bool) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO hosts(host, fetched, failures) VALUES (?1, 1, ?2)
                 ON CONFLICT(host) DO UPDATE SET fetched = fetched + 1, failures = failures + ?2",
            )?
            .execute(params![host, i64::from(failed)])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Counts one more revisit of a host's page (or its failure): a failure counts, the page
    /// does not count again against the server's budget (`max_pages_per_host` counts pages, so
    /// that a monitor can revisit them for as long as it runs).
    pub fn host_revisited(&mut self, host: &str, failed: bool) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO hosts(host, fetched, failures) VALUES (?1, 0, ?2)
                 ON CONFLICT(host) DO UPDATE SET failures = failures + ?2",
            )?
            .execute(params![host, i64::from(failed)])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Pages already fetched per host (for the per-host budget on resume).
    pub fn host_counts(&self) -> anyhow::Result<Vec<(String, u64)>> {
        let mut stmt = self.conn.prepare("SELECT host, fetched FROM hosts")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Gives every URL of a server that stays queued the reason it was not fetched in this run.
    pub fn waiting_host(&mut self, host: &str, reason: Reason, detail: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET reason = ?2, detail = ?3 WHERE host = ?1 AND state = 'queued'",
            )?
            .execute(params![host, reason, detail])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Settles every URL of a server still queued; returns how many.
    pub fn skip_host(&mut self, host: &str, reason: Reason, detail: &str) -> anyhow::Result<u64> {
        if self.settled.is_some() {
            let ids: Vec<i64> = self
                .conn
                .prepare_cached("SELECT id FROM urls WHERE host = ?1 AND state = 'queued'")?
                .query_map(params![host], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            for id in ids {
                self.note_settled(id);
            }
        }
        let n = self
            .conn
            .prepare_cached(
                "UPDATE urls SET state = 'skipped', reason = ?2, detail = ?3
                 WHERE host = ?1 AND state = 'queued'",
            )?
            .execute(params![host, reason, detail])?;
        // Stored pages waiting for a revisit keep their copy; the revisit failed.
        self.conn
            .prepare_cached("UPDATE urls SET revisit = ?2 WHERE host = ?1 AND revisit = ?3")?
            .execute(params![
                host,
                Revisit::Failed.name(),
                Revisit::Pending.name()
            ])?;
        self.uncommitted += 1;
        Ok(n as u64)
    }
}
