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

    /// The seed source of a URL, if it is a seed (the first source recorded).
    pub fn seed_source(&self, id: i64) -> anyhow::Result<Option<String>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .prepare_cached("SELECT source FROM seeds WHERE url_id = ?1 ORDER BY rowid LIMIT 1")?
            .query_row(params![id], |r| r.get(0))
            .optional()?)
    }
}
