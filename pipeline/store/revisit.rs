//! Revisits in the store (`glaneur run --revisit`): which stored pages wait for a conditional
//! request, their validators, and what each revisit gave.
//!
//! **In:** the crawl's revisit outcomes. **Out:** the `revisit` column of `urls`.
//!
//! **Invariants:** a revisited page keeps its state and stored copy until a new answer
//! replaces it; `not-modified` also refreshes its fetch time.

use rusqlite::{OptionalExtension, params};

use super::{QueuedUrl, Revisit, Store};

impl Store {
    /// Marks every stored page for a conditional re-fetch (`glaneur run --revisit`); returns
    /// how many. The pages keep their state and stored copy until a new answer replaces it.
    pub fn mark_revisits(&mut self) -> anyhow::Result<u64> {
        let n = self.conn.execute(
            "UPDATE urls SET revisit = ?1
             WHERE state = 'fetched' AND status = 200 AND warc_file IS NOT NULL",
            [Revisit::Pending.name()],
        )?;
        self.uncommitted += 1;
        Ok(n as u64)
    }

    /// Pages waiting for their revisit.
    pub fn pending_revisits(&self) -> anyhow::Result<Vec<QueuedUrl>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, host, depth, priority, via FROM urls
             WHERE revisit = ?1 AND state = 'fetched' ORDER BY id",
        )?;
        let rows = stmt
            .query_map([Revisit::Pending.name()], QueuedUrl::from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// How many pages wait for their revisit.
    pub fn pending_revisit_count(&self) -> anyhow::Result<u64> {
        Ok(self.conn.query_row(
            "SELECT COUNT(*) FROM urls WHERE revisit = ?1 AND state = 'fetched'",
            [Revisit::Pending.name()],
            |r| r.get::<_, i64>(0),
        )? as u64)
    }

    /// `ETag` and `Last-Modified` of a stored page.
    pub fn validators(&self, id: i64) -> anyhow::Result<(Option<String>, Option<String>)> {
        Ok(self
            .conn
            .prepare_cached("SELECT etag, last_modified FROM urls WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or((None, None)))
    }

    /// Records the outcome of a revisit (`not-modified` and `unchanged` also refresh the
    /// fetch time).
    pub fn revisited(&mut self, id: i64, outcome: Revisit, now: f64) -> anyhow::Result<()> {
        let sql = if matches!(outcome, Revisit::NotModified | Revisit::Unchanged) {
            "UPDATE urls SET revisit = ?2, fetched_at = ?3 WHERE id = ?1"
        } else {
            "UPDATE urls SET revisit = ?2 WHERE id = ?1 AND ?3 = ?3"
        };
        self.conn
            .prepare_cached(sql)?
            .execute(params![id, outcome.name(), now])?;
        self.uncommitted += 1;
        Ok(())
    }
}
