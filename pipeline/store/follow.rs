//! Telling a reader which pages the crawl has committed, so that extraction can follow the
//! crawl (`glaneur run` reads pages while it fetches others: see `extract::follow`).
//!
//! **In:** the crawl's calls to [`Store::fetched`] and [`Store::commit`]. **Out:** after each
//! commit, the ids of the pages stored with status 200 since the one before, sent to the
//! listener. **Invariants:** a page is announced only once its row is committed (and the crawl
//! flushes its WARC bytes before committing, so the record can be read back); the crawl never
//! waits for the listener: a full channel drops the batch, whose pages are then read by the
//! extract stage as if no one had followed; off unless a listener is set, a plain store pays
//! nothing.

use std::sync::mpsc::SyncSender;

use rusqlite::params;

use super::{Store, StoredPage};

/// The pages announced to a listener, and where they go.
pub(super) struct Listener {
    pending: Vec<i64>,
    to: SyncSender<Vec<i64>>,
}

impl Store {
    /// From now on, sends the ids of the stored pages to `to` after each commit; `None` stops.
    pub fn listen_stored(&mut self, to: Option<SyncSender<Vec<i64>>>) {
        self.listener = to.map(|to| Listener {
            pending: Vec::new(),
            to,
        });
    }

    /// A page stored with status 200: announced after the next commit.
    pub(super) fn note_stored(&mut self, id: i64) {
        if let Some(listener) = &mut self.listener {
            listener.pending.push(id);
        }
    }

    /// The commit is done: the pages stored since the last one go to the listener.
    pub(super) fn announce_stored(&mut self) {
        let Some(listener) = &mut self.listener else {
            return;
        };
        if listener.pending.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut listener.pending);
        // Full: the extract stage reads these pages. Gone: the reader stopped, nothing is
        // announced any more.
        if let Err(std::sync::mpsc::TrySendError::Disconnected(_)) = listener.to.try_send(batch) {
            self.listener = None;
        }
    }

    /// The stored page of URL `id` as the extract stage lists it (status 200, an HTML or text
    /// body in the WARC file, not a sitemap or feed), if it is one.
    pub fn stored_page(&self, id: i64) -> anyhow::Result<Option<StoredPage>> {
        use rusqlite::OptionalExtension;
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{} AND u.id = ?1", super::STORED_PAGES))?;
        Ok(stmt
            .query_row(params![id], super::stored_page_row)
            .optional()?)
    }
}
