//! Which server gets the next request: the crawl's schedule of servers, kept in heaps so that
//! a scheduling step costs the logarithm of the number of servers, not the number itself.
//!
//! **In:** the servers the crawl changed since the last step (every change goes through
//! `Crawler::host_mut`, which marks the server, or [`Crawler::mark`]), and the clock.
//! **Out:** the server to ask next ([`Crawler::pick_host`]), when to wake up for the next one
//! ([`Crawler::next_wake`]), whether anything is left to fetch ([`Crawler::has_fetchable`]),
//! and the level the hold-back rule compares servers with ([`Crawler::global_best`]).
//!
//! **Invariants:**
//! - the choice is the one a scan of every server would make: among the servers that may start
//!   a request now (robots.txt, connections, per-server budget, politeness clock), the one
//!   whose rank is highest (then its best URL, then the server waiting longest, then its
//!   name), unless the hold-back rule keeps it waiting;
//! - each marked server is looked at again before the next choice: its heap entries are
//!   replaced (a stamp per server makes the older ones stale; stale entries are dropped when
//!   they reach a heap's top, and the heaps are rebuilt when stale entries outnumber live
//!   ones), so no change is missed and no server is chosen on old figures;
//! - a crawl of 100,000 servers with one URL each costs no more per request than a crawl of
//!   one server (a scan per request made that crawl take seconds per page);
//! - a server found with no live URL in memory while URLs of its wait in the database (its
//!   queue held only entries made stale by a raised priority) is reported as stranded, and the
//!   crawl loop reads its URLs back before anything else: the crawl never ends with URLs it
//!   could fetch still queued.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Instant;

use stages::focus::strategy::Level;

use super::{Crawler, Host};

/// The heaps of the schedule.
#[derive(Default)]
pub(super) struct Schedule {
    /// Servers that may start a request now, best first.
    ready: BinaryHeap<Ready>,
    /// Servers that may start one when their politeness clock allows, soonest first.
    due: BinaryHeap<Due>,
    /// Every server with a URL waiting (per-server budget not spent) or in flight, by the value
    /// of its best one: the hold-back rule's level.
    values: BinaryHeap<Peak>,
    /// The same servers by their factor (yield).
    factors: BinaryHeap<Peak>,
    /// Servers changed since the last step.
    marked: Vec<Arc<str>>,
    /// Servers found with no live URL in memory while some of theirs wait in the database
    /// (their queue held only entries made stale by a raised priority): the crawl loop reads
    /// their URLs back ([`Crawler::refill_stranded`]), which the schedule cannot do itself
    /// (it has no store).
    stranded: Vec<Arc<str>>,
}

impl Schedule {
    /// The stranded servers found since the last call.
    pub(super) fn take_stranded(&mut self) -> Vec<Arc<str>> {
        std::mem::take(&mut self.stranded)
    }
}

/// A server that may start a request now.
struct Ready {
    rank: f64,
    /// Its best URL's key and id.
    key: f32,
    id: i64,
    next_at: Instant,
    host: Arc<str>,
    stamp: u32,
}

impl Ready {
    fn order(&self, other: &Ready) -> Ordering {
        self.rank
            .total_cmp(&other.rank)
            .then_with(|| self.key.total_cmp(&other.key))
            // Among equal keys, the URL found first.
            .then_with(|| other.id.cmp(&self.id))
            // Then the server waiting longest, then the name (deterministic runs).
            .then_with(|| other.next_at.cmp(&self.next_at))
            .then_with(|| other.host.cmp(&self.host))
    }
}

/// A server waiting for its politeness clock.
struct Due {
    at: Instant,
    host: Arc<str>,
    stamp: u32,
}

/// A server's value (or factor) for the hold-back level.
struct Peak {
    value: f64,
    host: Arc<str>,
    stamp: u32,
}

macro_rules! ordered_by {
    ($t:ty, $cmp:expr) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.cmp(other) == Ordering::Equal
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $t {
            fn cmp(&self, other: &Self) -> Ordering {
                let cmp: fn(&$t, &$t) -> Ordering = $cmp;
                cmp(self, other)
            }
        }
    };
}

ordered_by!(Ready, |a, b| a.order(b));
// A max-heap of the soonest: the later time orders first.
ordered_by!(Due, |a, b| b
    .at
    .cmp(&a.at)
    .then_with(|| b.host.cmp(&a.host)));
ordered_by!(Peak, |a, b| a.value.total_cmp(&b.value));

impl Schedule {
    /// Entries held, over all heaps.
    fn len(&self) -> usize {
        self.ready.len() + self.due.len() + self.values.len() + self.factors.len()
    }
}

impl Crawler<'_> {
    /// Marks a server as changed (its schedule entries are replaced before the next choice).
    /// `host_mut` does it for every change made through it.
    pub(super) fn mark(&mut self, host: &str) {
        if let Some(h) = self.hosts.get_mut(host) {
            mark_host(&mut self.sched, h);
        }
    }

    /// Replaces the entries of the marked servers.
    fn flush(&mut self, now: Instant) {
        // Stale entries outnumber live ones: start over from every server.
        if self.sched.len() > 8 * self.hosts.len() + 4096 {
            self.sched.ready.clear();
            self.sched.due.clear();
            self.sched.values.clear();
            self.sched.factors.clear();
            self.sched.marked.clear();
            for h in self.hosts.values_mut() {
                h.marked = true;
                self.sched.marked.push(h.name.clone());
            }
        }
        let marked = std::mem::take(&mut self.sched.marked);
        for name in &marked {
            self.place(name, now);
        }
        // `place` marks nothing: a mark made there would be lost with the vector swapped out.
        debug_assert!(self.sched.marked.is_empty());
        // The vector's memory is kept for the next step.
        self.sched.marked = marked;
        self.sched.marked.clear();
    }

    /// Looks at one server again: drops the stale URLs at the top of its queue and puts it
    /// where it belongs now.
    fn place(&mut self, name: &Arc<str>, now: Instant) {
        let per_host = self.ctx.topic.file.crawl.max_pages_per_host;
        let connections = self.ctx.topic.file.politeness.connections_per_host;
        let Some(h) = self.hosts.get_mut(&**name) else {
            return;
        };
        h.marked = false;
        h.stamp = h.stamp.wrapping_add(1);
        let stamp = h.stamp;
        let mut dropped = 0;
        while let Some(top) = h.queue.peek() {
            if self.prio.is_live(top.id, u64::from(top.stamp)) {
                break;
            }
            h.queue.pop();
            dropped += 1;
        }
        self.in_memory = self.in_memory.saturating_sub(dropped);
        let Some(h) = self.hosts.get(&**name) else {
            return;
        };
        if h.queue.is_empty() && h.on_disk > 0 {
            self.sched.stranded.push(name.clone());
        }
        let top = h.queue.peek().copied();
        // The hold-back level: the best URL waiting (per-server budget permitting) or flying
        // — never on a server given up, which will not be asked again (were it the best, every
        // other server would be held back for good).
        let waiting = top
            .filter(|_| h.fetched < per_host && !h.gave_up)
            .map(|e| f64::from(e.key));
        let flying = h
            .flying
            .iter()
            .filter_map(|id| self.flying_keys.get(id))
            .map(|&k| f64::from(k));
        // Only best-first with a margin below 1 ever compares with the level.
        if self.prio.may_hold_back(1)
            && let Some(key) = waiting.into_iter().chain(flying).max_by(f64::total_cmp)
        {
            let factor = self.prio.host_factor(name);
            self.sched.values.push(Peak {
                value: key * factor,
                host: name.clone(),
                stamp,
            });
            self.sched.factors.push(Peak {
                value: factor,
                host: name.clone(),
                stamp,
            });
        }
        let (Some(top), true) = (top, can_start(h, per_host, connections)) else {
            return;
        };
        if h.next_at > now {
            self.sched.due.push(Due {
                at: h.next_at,
                host: name.clone(),
                stamp,
            });
        } else {
            self.sched.ready.push(Ready {
                rank: self.prio.host_rank(name, f64::from(top.key)),
                key: top.key,
                id: top.id,
                next_at: h.next_at,
                host: name.clone(),
                stamp,
            });
        }
    }

    /// Whether a heap entry is the server's current one.
    fn current(&self, host: &str, stamp: u32) -> bool {
        self.hosts
            .get(host)
            .is_some_and(|h| h.stamp == stamp && !h.marked)
    }

    /// Servers whose clock has come: looked at again (they go to `ready`).
    fn wake_due(&mut self, now: Instant) {
        while let Some(due) = self.sched.due.peek() {
            if due.at > now {
                break;
            }
            let host = due.host.clone();
            let stamp = due.stamp;
            self.sched.due.pop();
            if self.current(&host, stamp) {
                self.mark(&host);
            }
        }
        self.flush(now);
    }

    /// The ready server whose best URL comes first (ties: the server waiting longest), unless
    /// the hold-back rule keeps it (and so every lower one) waiting.
    pub(super) fn pick_host(&mut self, now: Instant, max_pages: u64) -> Option<String> {
        // With the budget spent nothing starts, not even a robots.txt: no page would follow it.
        if self.requests_total >= max_pages {
            return None;
        }
        self.wake_due(now);
        let level = self.global_best();
        while let Some(top) = self.sched.ready.pop() {
            if !self.current(&top.host, top.stamp) {
                continue;
            }
            // Best-first ranks servers by the value the rule compares: when the best one is
            // held back, so is every other.
            if self.held_back(&top.host, f64::from(top.key), level, max_pages) {
                self.sched.ready.push(top);
                return None;
            }
            // The caller starts a request on it (or settles its URL): that marks it again.
            let host = top.host.to_string();
            self.mark(&host);
            return Some(host);
        }
        None
    }

    /// When the next server's clock allows a request (None: none is waiting on its clock).
    pub(super) fn next_wake(&mut self, max_pages: u64) -> Option<Instant> {
        if self.requests_total >= max_pages {
            return None;
        }
        self.flush(Instant::now());
        while let Some(due) = self.sched.due.peek() {
            if self.current(&due.host, due.stamp) {
                return Some(due.at);
            }
            self.sched.due.pop();
        }
        None
    }

    /// Whether a URL waits that the budgets still allow to fetch (asked when nothing is in
    /// flight: every server with such a URL is then ready or waiting for its clock).
    pub(super) fn has_fetchable(&mut self) -> bool {
        self.flush(Instant::now());
        while let Some(top) = self.sched.ready.peek() {
            if self.current(&top.host, top.stamp) {
                return true;
            }
            self.sched.ready.pop();
        }
        while let Some(due) = self.sched.due.peek() {
            if self.current(&due.host, due.stamp) {
                return true;
            }
            self.sched.due.pop();
        }
        false
    }

    /// The level the hold-back rule compares a free server with (None when the rule cannot
    /// apply): the best key waiting on servers that may still be asked (per-host budget not
    /// spent), busy or not, or being fetched, weighed by the servers' yields (see
    /// `Prioritizer::hold_back`). A page in flight counts because its links are about to join
    /// the frontier: while the on-topic server's only URL is being fetched, its queue is empty,
    /// and without it the free slots would go to the off-topic servers' worst URLs.
    pub(super) fn global_best(&mut self) -> Option<Level> {
        let left = self
            .ctx
            .topic
            .file
            .crawl
            .max_pages
            .saturating_sub(self.requests_total);
        if !self.prio.may_hold_back(left) {
            return None;
        }
        self.flush(Instant::now());
        let best = self.top_peak(true)?;
        let top_factor = self.top_peak(false)?;
        Some(Level { best, top_factor })
    }

    /// The highest current value (or factor) of the hold-back heaps.
    fn top_peak(&mut self, values: bool) -> Option<f64> {
        loop {
            let heap = if values {
                &self.sched.values
            } else {
                &self.sched.factors
            };
            let peak = heap.peek()?;
            if self.current(&peak.host, peak.stamp) {
                return Some(peak.value);
            }
            if values {
                self.sched.values.pop();
            } else {
                self.sched.factors.pop();
            }
        }
    }
}

/// Marks a server as changed.
pub(super) fn mark_host(sched: &mut Schedule, h: &mut Host) {
    if !h.marked {
        h.marked = true;
        sched.marked.push(h.name.clone());
    }
}

/// Whether a request could start on this server once its clock allows: robots.txt goes
/// alone (nothing else is in flight while it is read), pages go up to the connection limit.
pub(super) fn can_start(h: &Host, per_host: u64, connections: u32) -> bool {
    use super::RobotsState;
    if h.gave_up || h.queue.is_empty() || h.fetched + u64::from(h.in_flight) >= per_host {
        return false;
    }
    match h.robots {
        RobotsState::Fetching => false,
        RobotsState::Known(..) => h.in_flight < connections,
        RobotsState::Unknown | RobotsState::Unavailable => h.in_flight == 0,
    }
}
