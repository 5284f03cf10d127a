//! What a worker of a shared crawl (`glaneur worker`) needs of its own `crawl.sqlite`.
//!
//! **In:** the crawl's settling calls. **Out:** the ids of the URLs settled since the last
//! look (the worker tells the shared frontier they are done once they are committed here).
//! **Invariant:** counting is off unless a worker turns it on; a plain run pays nothing.

use rusqlite::params;

use super::Store;

impl Store {
    /// Starts keeping the ids of the URLs settled from now on.
    pub fn keep_settled(&mut self) {
        self.settled.get_or_insert_with(Vec::new);
    }

    /// The ids of the URLs settled since the last call (empty unless [`Store::keep_settled`]).
    pub fn take_settled(&mut self) -> Vec<i64> {
        self.settled
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(super) fn note_settled(&mut self, id: i64) {
        if let Some(ids) = &mut self.settled {
            ids.push(id);
        }
    }

    /// A URL this worker refused (a deeper path to it, a trap counter) that another worker
    /// admitted and that now falls to this one: queued again. Whether it is queued.
    pub fn adopt(&mut self, id: i64) -> anyhow::Result<bool> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET state = 'queued', reason = NULL, detail = NULL
                 WHERE id = ?1 AND state = 'skipped'",
            )?
            .execute(params![id])?;
        let state: String = self
            .conn
            .prepare_cached("SELECT state FROM urls WHERE id = ?1")?
            .query_row(params![id], |r| r.get(0))?;
        self.uncommitted += 1;
        Ok(state == "queued")
    }

    /// A URL, how it was found, and, when it is a seed, its first recorded source (what the
    /// shared frontier is told of a URL this worker found).
    pub fn url_via_seed(
        &self,
        id: i64,
    ) -> anyhow::Result<Option<(String, String, Option<String>)>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .prepare_cached(
                "SELECT u.url, u.via, (SELECT s.source FROM seeds s WHERE s.url_id = u.id
                                       ORDER BY s.rowid LIMIT 1)
                 FROM urls u WHERE u.id = ?1",
            )?
            .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?)
    }
}
