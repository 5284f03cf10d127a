//! The threads that analyse fetched pages (decode, skim, scores, WARC compression).
//!
//! **In:** closures sent by the crawl's request tasks. **Out:** each closure's value, back to
//! the task that sent it.
//!
//! **Invariants:** one thread per core ([`size`]), created on first use and kept for the life
//! of the process; they run at a lower scheduling priority than the rest of glaneur (nice 9 on
//! Linux and the BSDs), so that when the pages come faster than the cores can read them, the
//! thread of the crawl loop and its network tasks still runs at once: a server's next request leaves when its
//! delay is over, not when an analysis yields the core, and the other servers' answers are read
//! as they come. The analyses lose nothing by it — they are a queue the cores work through in
//! order — and a machine shared with other work gets its interactive programs first. A panic in
//! a closure ends that closure only: its caller gets `None`.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Mutex, OnceLock, PoisonError};

type Job = Box<dyn FnOnce() + Send>;

/// How many analyses run at once: one per core, at least two.
pub fn size() -> usize {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZero::get)
        .max(2)
}

fn jobs() -> Option<&'static Sender<Job>> {
    static JOBS: OnceLock<Option<Sender<Job>>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let (sender, receiver) = channel::<Job>();
        let receiver: &'static Mutex<Receiver<Job>> = Box::leak(Box::new(Mutex::new(receiver)));
        let mut started = 0;
        for n in 0..size() {
            let spawned = std::thread::Builder::new()
                .name(format!("glaneur-analysis-{n}"))
                .stack_size(stages::page::skim::STACK_BYTES)
                .spawn(move || work(receiver));
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then_some(sender)
    })
    .as_ref()
}

fn work(receiver: &Mutex<Receiver<Job>>) {
    // Lower priority only: a failure (a platform without it) leaves the thread as it is.
    if let Ok(nice9) = thread_priority::ThreadPriorityValue::try_from(25u8) {
        let _ = thread_priority::set_current_thread_priority(
            thread_priority::ThreadPriority::Crossplatform(nice9),
        );
    }
    loop {
        let job = receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(job) = job else {
            return;
        };
        let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
    }
}

/// Runs `f` on an analysis thread and returns its value; `None` if it panicked (or no thread
/// could be started).
pub async fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (answer, value) = tokio::sync::oneshot::channel();
    jobs()?
        .send(Box::new(move || {
            let _ = answer.send(f());
        }))
        .ok()?;
    value.await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_closures_and_survives_a_panic() {
        assert_eq!(run(|| 6 * 7).await, Some(42));
        assert_eq!(
            run(|| -> u32 { panic!("a bug in one analysis") }).await,
            None
        );
        // The threads are still there for the next pages, several at once.
        let handles: Vec<_> = (1..=5u32).map(|n| tokio::spawn(run(move || n))).collect();
        for (n, handle) in (1..=5u32).zip(handles) {
            assert_eq!(handle.await.unwrap(), Some(n));
        }
    }
}
