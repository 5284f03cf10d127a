//! The accept loop of `glaneur serve`: HTTP/1.1 connections served by hyper with time limits, so
//! that slow or idle clients cannot tie the server up.
//!
//! **In:** a bound listener, the router, a shutdown signal. **Out:** connections served until
//! the signal.
//!
//! **Invariants:**
//! - a client has [`HEADER_TIMEOUT`] to send a request's head (the first one and each one
//!   after on a kept-alive connection); then its connection is closed;
//! - at most [`MAX_WAITING`] connections wait for their first request head at once, and when
//!   the server serves as many connections as it may, a new one closes the oldest waiting one:
//!   clients that open connections and send nothing (or a byte now and then) never keep a real
//!   request out;
//! - the process may open as many files as its hard limit allows (the soft limit is raised at
//!   start), and the connections served at once stay a quarter of it (at most
//!   [`SPARE_FILES`]) below it, so the run folders' files can always be opened.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};

/// Time a client has to send a request's head.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections that may wait for their first request head at once.
pub(crate) const MAX_WAITING: usize = 256;

/// Files kept free for the server's own use (databases, exports, the runs' logs).
const SPARE_FILES: u64 = 256;

/// Connections accepted that have not sent a first request head, oldest first.
#[derive(Default)]
struct Waiting {
    next: u64,
    queue: VecDeque<(u64, Arc<Notify>)>,
}

impl Waiting {
    /// Closes the oldest waiting connection, if one waits.
    fn close_oldest(&mut self) -> bool {
        match self.queue.pop_front() {
            Some((_, oldest)) => {
                oldest.notify_one();
                true
            }
            None => false,
        }
    }

    /// Registers a new connection; closes the oldest waiting one when there are too many.
    fn add(&mut self, close: Arc<Notify>) -> u64 {
        if self.queue.len() >= MAX_WAITING {
            self.close_oldest();
        }
        self.next += 1;
        self.queue.push_back((self.next, close));
        self.next
    }

    fn remove(&mut self, id: u64) {
        if let Some(at) = self.queue.iter().position(|(i, _)| *i == id) {
            self.queue.remove(at);
        }
    }
}

/// Raises the soft limit of open files to the hard one; the connections that may be served at
/// once.
fn connection_limit() -> usize {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum;
    let mut soft = limit.current.unwrap_or(u64::MAX);
    if hard.is_none_or(|h| h > soft) {
        // The hard limit (at most 2^20), or less where the kernel caps lower than it says
        // (an unlimited hard limit on macOS).
        let most = hard.unwrap_or(1 << 20).min(1 << 20);
        for want in [most, 65_536, 10_240, 4_096] {
            if want > soft
                && want <= most
                && setrlimit(
                    Resource::Nofile,
                    Rlimit {
                        current: Some(want),
                        maximum: hard,
                    },
                )
                .is_ok()
            {
                soft = want;
                break;
            }
        }
    }
    let spare = SPARE_FILES.min(soft / 4);
    usize::try_from(soft.saturating_sub(spare).max(16)).unwrap_or(usize::MAX)
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(connection_limit()));
    let waiting = Arc::new(Mutex::new(Waiting::default()));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // Every slot taken: the oldest connection that has sent nothing makes room (its task
        // ends and gives its slot back).
        if slots.available_permits() == 0 {
            waiting
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .close_oldest();
        }
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = &mut shutdown => return Ok(()),
        };
        let Ok(slot) = slot else {
            return Ok(());
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of files or a connection reset before it was taken: the next one may
                // do; never a busy loop.
                tracing::debug!("glaneur serve: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let close = Arc::new(Notify::new());
        let id = waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(close.clone());
        let started = Arc::new(AtomicBool::new(false));
        let inner = TowerToHyperService::new(router.clone());
        let waiting2 = waiting.clone();
        let started2 = started.clone();
        let service = hyper::service::service_fn(move |request| {
            if !started2.swap(true, Ordering::Relaxed) {
                waiting2
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(id);
            }
            inner.call(request)
        });
        let waiting = waiting.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                served = connection => {
                    if let Err(error) = served {
                        tracing::debug!("glaneur serve: connection ended: {error}");
                    }
                }
                () = close.notified() => {}
            }
            if !started.load(Ordering::Relaxed) {
                waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_waiting_connection_makes_room() {
        let mut w = Waiting::default();
        let notes: Vec<Arc<Notify>> = (0..MAX_WAITING + 2)
            .map(|_| Arc::new(Notify::new()))
            .collect();
        let ids: Vec<u64> = notes.iter().map(|n| w.add(n.clone())).collect();
        assert_eq!(w.queue.len(), MAX_WAITING);
        // The first two were told to close (their permit is stored), the third was not.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            for n in &notes[..2] {
                tokio::time::timeout(Duration::from_millis(100), n.notified())
                    .await
                    .expect("told to close");
            }
            assert!(
                tokio::time::timeout(Duration::from_millis(20), notes[2].notified())
                    .await
                    .is_err()
            );
        });
        w.remove(ids[5]);
        assert_eq!(w.queue.len(), MAX_WAITING - 1);
    }
}
