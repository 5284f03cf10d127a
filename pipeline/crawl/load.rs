//! What the crawl has under way, and whether one more request may start: requests on the wire,
//! pages waiting for their analysis or for the loop, the memory they hold, and how busy the
//! analyses keep the cores.
//!
//! **In:** the jobs' counts (shared atomics) and the loop's own. **Out:** [`Load::may_start`].
//!
//! **Invariants:** at most `concurrency` requests and kept pages at once; pages waiting for the
//! loop never exceed `concurrency`, nor their bytes `backlog_bytes` (see `Load::may_start`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering as MemOrdering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::JobResult;

/// Where jobs send their results.
pub(super) struct Senders {
    /// Pages and robots.txt answers, settled in order.
    pub(super) results: mpsc::Sender<JobResult>,
    /// [`JobResult::Released`]: read before the results.
    pub(super) released: mpsc::UnboundedSender<JobResult>,
    /// The pages that gave their request back, counted by the jobs that hold them.
    pub(super) waiting: Arc<Waiting>,
}

/// The pages that gave their request back and are not settled yet. The jobs add what they
/// hold as they go (the loop cannot see it: an analysis adds to a page after the loop last
/// heard of it); the loop takes a page's share off when it settles it.
#[derive(Debug, Default)]
pub(super) struct Waiting {
    /// Bytes they hold: the body when the page arrives, then what its analysis adds (links
    /// with their anchors and targets, compressed records) — for a small page with many
    /// links, several times its body.
    pub(super) bytes: AtomicUsize,
    /// Those analysed, waiting for the loop.
    pub(super) analysed: AtomicUsize,
}

impl Waiting {
    /// A page settled by the loop, which had added `held` bytes.
    pub(super) fn settled(&self, held: usize) {
        self.bytes.fetch_sub(held, MemOrdering::Relaxed);
        self.analysed.fetch_sub(1, MemOrdering::Relaxed);
    }
}

/// The crawl's limits on what is under way at once.
pub(super) struct Limits {
    /// `[crawl] concurrency`.
    pub(super) concurrency: usize,
    /// `[crawl] backlog_bytes`.
    pub(super) backlog_bytes: usize,
    /// Page analyses that run at once (one per core).
    pub(super) cores: usize,
}

/// What the crawl has under way.
#[derive(Debug, Default)]
pub(super) struct Load {
    /// Requests on the wire (robots.txt included).
    pub(super) requests: usize,
    /// Pages arrived and not settled yet (waiting for the CPU or being analysed, or for this
    /// loop to settle them).
    pub(super) pages: usize,
    /// Bytes those pages hold ([`Waiting::bytes`]).
    pub(super) bytes: usize,
    /// Those of them analysed, waiting for this loop ([`Waiting::analysed`]).
    pub(super) settling: usize,
}

impl Load {
    /// Takes in what the jobs have counted since.
    pub(super) fn observe(&mut self, waiting: &Waiting) {
        self.bytes = waiting.bytes.load(MemOrdering::Relaxed);
        self.settling = waiting.analysed.load(MemOrdering::Relaxed);
    }

    /// Whether one more request may start. A page waiting for its analysis keeps its place
    /// under `concurrency`: the next URL is then chosen knowing its links (the order
    /// best-first promises, and what a page budget counts on; with `concurrency = 1` a crawl
    /// has a single possible order), and when the CPU is steadily behind the network (one
    /// fast server, no delay) fetching ahead of it would only fill memory. But when the
    /// analyses have left the cores room lately (`cpu_has_room`), a pile of waiting pages is a
    /// burst — large pages on many servers at once — that the CPU will catch up with: then
    /// only one waiting page per core keeps its place, the others give theirs back so that the
    /// requests to every other server go on meanwhile, and they are bounded by the memory they
    /// hold. Nor does a request start while `concurrency` pages, analysed, wait for this loop
    /// to settle them: when the loop, not the CPU, is what falls behind (thousands of servers
    /// freed at once, each page bringing fifty links to settle), more pages would add nothing
    /// to the crawl but memory.
    pub(super) fn may_start(&self, limits: &Limits, cpu_has_room: bool) -> bool {
        let waiting = if cpu_has_room {
            self.pages.min(limits.cores)
        } else {
            self.pages
        };
        self.requests + waiting < limits.concurrency
            && self.settling < limits.concurrency
            && self.bytes < limits.backlog_bytes
    }
}

/// How busy the page analyses have kept the cores lately: the busy core-seconds per second
/// and per core, averaged exponentially over [`CpuUse::HORIZON`] (0: idle, 1: every core all
/// the time). It starts at 1: until the analyses have shown that the CPU keeps up, the crawl
/// assumes it does not.
#[derive(Debug)]
pub(super) struct CpuUse {
    pub(super) level: f64,
    pub(super) at: Instant,
}

impl CpuUse {
    /// Averaging horizon: long enough that a burst of a few seconds of CPU work (the B3
    /// benchmark's tables of contents: 256 pages of 2.5 MB, about 6 s on two cores) does not
    /// pass for a CPU that cannot keep up, short enough to notice one within half a minute.
    const HORIZON: f64 = 20.0;
    /// Above this, the CPU is taken to be behind the network.
    const ROOM_BELOW: f64 = 0.8;

    pub(super) fn new(now: Instant) -> CpuUse {
        CpuUse {
            level: 1.0,
            at: now,
        }
    }

    pub(super) fn level(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.level * (-elapsed / Self::HORIZON).exp()
    }

    /// Counts `work` seconds of analysis on one of `cores` cores, done by `now`.
    pub(super) fn add(&mut self, work: Duration, cores: usize, now: Instant) {
        self.level = self.level(now) + work.as_secs_f64() / (cores.max(1) as f64 * Self::HORIZON);
        self.at = now;
    }

    pub(super) fn has_room(&self, now: Instant) -> bool {
        self.level(now) < Self::ROOM_BELOW
    }
}

pub(super) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        // Nothing to wake for: wait for a job or a signal.
        None => std::future::pending::<()>().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_use_starts_busy_decays_when_idle_and_rises_with_work() {
        let t0 = Instant::now();
        let mut cpu = CpuUse::new(t0);
        assert!(!cpu.has_room(t0), "assumed behind until shown otherwise");
        let later = t0 + Duration::from_secs(10);
        assert!(cpu.has_room(later), "{}", cpu.level(later));
        // Two cores kept busy for three horizons: back to "behind".
        let mut at = later;
        for _ in 0..(3 * 20 * 20) {
            at += Duration::from_millis(50);
            cpu.add(Duration::from_millis(100), 2, at);
        }
        assert!(!cpu.has_room(at), "{}", cpu.level(at));
        assert!((cpu.level(at) - 1.0).abs() < 0.1, "{}", cpu.level(at));
        // A burst of 12 core-seconds on an idle CPU is a burst, not a CPU that cannot keep up.
        let mut idle = CpuUse::new(t0);
        let calm = t0 + Duration::from_secs(60);
        idle.add(Duration::from_secs(12), 2, calm);
        assert!(idle.has_room(calm), "{}", idle.level(calm));
    }

    #[test]
    fn pages_waiting_for_the_cpu_hold_request_slots_up_to_one_per_core() {
        let limits = Limits {
            concurrency: 4,
            backlog_bytes: 1000,
            cores: 2,
        };
        let load = |requests, pages, bytes| Load {
            requests,
            pages,
            bytes,
            settling: 0,
        };
        for room in [true, false] {
            assert!(load(0, 0, 0).may_start(&limits, room));
            assert!(load(3, 0, 0).may_start(&limits, room));
            assert!(!load(4, 0, 0).may_start(&limits, room));
            // Two pages being read hold two of the four places.
            assert!(load(1, 2, 10).may_start(&limits, room));
            assert!(!load(2, 2, 10).may_start(&limits, room));
            // Never past the memory allowed to waiting pages.
            assert!(!load(0, 1, 1000).may_start(&limits, room));
        }
        // A burst (the CPU had room lately): the pages beyond one per core give their places
        // back, and the network goes on...
        assert!(load(1, 50, 10).may_start(&limits, true));
        // ...but not when the CPU is steadily behind: fetching ahead would only fill memory...
        assert!(!load(1, 50, 10).may_start(&limits, false));
        // ...nor while `concurrency` analysed pages wait for the loop to settle them.
        let behind = Load {
            settling: 4,
            ..load(1, 50, 10)
        };
        assert!(!behind.may_start(&limits, true));
        assert!(
            Load {
                settling: 3,
                ..behind
            }
            .may_start(&limits, true)
        );
        // One request at a time: nothing starts while a page is read.
        let serial = Limits {
            concurrency: 1,
            ..limits
        };
        assert!(!load(0, 1, 10).may_start(&serial, true));
        assert!(load(0, 0, 0).may_start(&serial, true));
    }
}
