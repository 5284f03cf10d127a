//! Ctrl-C and SIGTERM during a run: the first one during a crawl stops it gracefully, any
//! other one ends the process (see [`signals`]).
//!
//! **In:** the process's signals. **Out:** a receiver that turns true on the graceful stop,
//! and the count of crawls under way ([`Crawling`]). **Invariants:** the handlers are
//! registered once per process, on a thread of their own, before the run writes anything; a
//! stop asked of an earlier run in the process is not the next run's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::watch;

/// One crawl under way, counted for the signal handler while it lives (an error that ends the
/// crawl ends the count too).
pub(crate) struct Crawling(Arc<AtomicUsize>);

impl Crawling {
    /// Counts a crawl starting.
    pub(crate) fn start(count: &Arc<AtomicUsize>) -> Crawling {
        count.fetch_add(1, Ordering::SeqCst);
        Crawling(count.clone())
    }
}

impl Drop for Crawling {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// During the crawl, the first Ctrl-C / SIGTERM is a graceful stop (in-flight requests finish
/// and are stored). A second one, or one outside the crawl, exits at once: the run folder stays
/// consistent (the WARC recovery on resume handles a cut crawl, and `docs.jsonl` is replaced
/// atomically).
///
/// The signals are awaited on a thread of their own, with its own small runtime, started once
/// per process: the run's runtime is only driven while the crawl (or the search) blocks on it,
/// and a signal that arrived during the extract or export stages would otherwise wait, unseen,
/// for a poll that never comes. Returns the count of crawls under way (a batch runs several)
/// and a receiver that turns true on the graceful stop.
pub(crate) fn signals() -> (Arc<AtomicUsize>, watch::Receiver<bool>) {
    static SIGNALS: std::sync::OnceLock<(Arc<AtomicUsize>, watch::Sender<bool>)> =
        std::sync::OnceLock::new();
    let (crawling, tx) = SIGNALS.get_or_init(|| {
        let crawling = Arc::new(AtomicUsize::new(0));
        let (tx, _) = watch::channel(false);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let (flag, sender) = (crawling.clone(), tx.clone());
        let spawned = std::thread::Builder::new()
            .name("glaneur-signals".into())
            .spawn(move || {
                let Ok(signals) = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                else {
                    let _ = ready_tx.send(());
                    return;
                };
                signals.block_on(async move {
                    let mut waiter = SignalWaiter::new();
                    let _ = ready_tx.send(());
                    loop {
                        waiter.wait().await;
                        // The first one during a crawl stops it gracefully; any other one ends
                        // the process.
                        if flag.load(Ordering::SeqCst) > 0 && !*sender.borrow() {
                            sender.send_replace(true);
                        } else {
                            eprintln!(
                                "glaneur: stopped at once; run the same command again to resume"
                            );
                            std::process::exit(130);
                        }
                    }
                });
            });
        if spawned.is_ok() {
            // The handlers are in place before the run writes anything.
            let _ = ready_rx.recv_timeout(Duration::from_secs(5));
        }
        (crawling, tx)
    });
    // A stop asked of an earlier run in this process is not this run's.
    tx.send_replace(false);
    (crawling.clone(), tx.subscribe())
}

/// Ctrl-C and SIGTERM, registered once.
struct SignalWaiter {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl SignalWaiter {
    #[cfg(unix)]
    fn new() -> SignalWaiter {
        use tokio::signal::unix::{SignalKind, signal};
        SignalWaiter {
            term: signal(SignalKind::terminate()).ok(),
            interrupt: signal(SignalKind::interrupt()).ok(),
        }
    }

    #[cfg(not(unix))]
    fn new() -> SignalWaiter {
        SignalWaiter {}
    }

    #[cfg(unix)]
    async fn wait(&mut self) {
        async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
            match signal {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            _ = next(&mut self.interrupt) => {}
            _ = next(&mut self.term) => {}
        }
    }

    #[cfg(not(unix))]
    async fn wait(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}
