//! The write-ahead log of `crawl.sqlite` copied into the database off the crawl loop.
//!
//! **In:** a second connection to the database. **Out:** a thread that checkpoints about once
//! a second and reports the log's length.
//!
//! **Invariants:** a passive checkpoint never blocks the writer; the thread stops and is
//! joined when the [`Checkpointer`] is dropped.

use rusqlite::Connection;

/// Pages of write-ahead log past which the crawl loop lets the log start over (see
/// [`Store::commit`]): 64 MiB of 4 KiB pages.
pub(super) const LOG_RESTART_PAGES: i64 = 16_384;

/// A thread that copies `crawl.sqlite`'s write-ahead log into the database file about once a
/// second, with a connection of its own. Left to SQLite, that copy (and its `fsync`) happens
/// inside a commit once the log passes 1,000 pages — on the crawl loop, which commits every
/// second and which, during those tens of milliseconds, starts no request: on a crawl of
/// hundreds of servers, whose pages add thousands of links a second, nearly every commit, and
/// so a few percent of every server's delay. A passive checkpoint never blocks the writer.
///
/// But a passive checkpoint alone lets the log grow for ever: SQLite starts the log over only
/// when a write transaction begins with every page of it already copied, and the crawl loop,
/// which always has a transaction open, writes again long before this thread has caught up
/// with its last commit. So the thread reports the log's length, and the loop, once it is past
/// [`LOG_RESTART_PAGES`], copies the last second's pages itself between two transactions
/// (what SQLite would do on every 1,000 pages, here once per 16,384).
pub(super) struct Checkpointer {
    stop: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Pages in the log at the last checkpoint.
    pub(super) log_pages: std::sync::Arc<std::sync::atomic::AtomicI64>,
}

impl Checkpointer {
    pub(super) fn start(conn: Connection) -> Option<Checkpointer> {
        let stop = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let signal = stop.clone();
        let log_pages = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
        let reported = log_pages.clone();
        let thread = std::thread::Builder::new()
            .name("glaneur-checkpoint".to_string())
            .spawn(move || {
                let (lock, wake) = &*signal;
                let mut stopped = lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                while !*stopped {
                    let (guard, _) = wake
                        .wait_timeout(stopped, std::time::Duration::from_secs(1))
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    stopped = guard;
                    if *stopped {
                        break;
                    }
                    // Busy or failed: the next round tries again, and the log only grows.
                    if let Ok(pages) =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(1))
                    {
                        reported.store(pages, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            })
            .ok()?;
        Some(Checkpointer {
            stop,
            thread: Some(thread),
            log_pages,
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
