//! The crawl's `live.json` (see [`crate::ground::live`]): its counters, its servers by state, the
//! largest queues and the last pages read, once a second.
//!
//! **In:** the crawler's state. **Out:** `RUN/live.json`; the terminal's frontier count.
//!
//! **Invariants:** reads the crawler's state, changes nothing in it; one pass over the
//! servers a second and a count of the queued URLs (an index range) at most once a second.

use super::*;
use crate::ground::live::{HostStates, LatestPage, Live};

/// Pages kept in `live.json`'s list of the last pages read.
const LATEST: usize = 10;

/// Servers in `live.json`'s list of the largest queues.
const LARGEST_QUEUES: usize = 10;

impl Crawler<'_> {
    /// A page read: remembered for `live.json`.
    pub(super) fn remember_page(&mut self, url: &str, score: f64, on_topic: bool) {
        if self.latest.len() == LATEST {
            self.latest.pop_front();
        }
        self.latest.push_back(LatestPage {
            url: url.to_string(),
            score,
            on_topic,
        });
    }

    /// URLs queued: counted again once a second, or every `n / 100,000` seconds for `n`
    /// queued URLs (counting reads the `urls_state` index range, about 50 ns an entry: at most
    /// half a percent of a core whatever the frontier's size).
    fn queued_now(&mut self) -> anyhow::Result<u64> {
        let (at, last) = self.queued_count;
        let wait = Duration::from_secs(1).max(Duration::from_secs(last / 100_000));
        if at.is_none_or(|at| at.elapsed() >= wait) {
            self.queued_count = (Some(Instant::now()), self.store.queued_count()?);
        }
        Ok(self.queued_count.1)
    }

    /// Whether a stop was asked through the run folder (the request is taken, and said).
    pub(super) fn stop_asked(&self) -> bool {
        let asked = crate::ground::live::take_stop_request(&self.ctx.run_dir);
        if asked {
            self.progress.note(&format!(
                "stopping: asked by {} (run again to resume)",
                crate::ground::live::stop_file(&self.ctx.run_dir).display()
            ));
        }
        asked
    }

    /// Writes `live.json` and gives the terminal the frontier.
    pub(super) fn publish(&mut self, budget: u64) -> anyhow::Result<()> {
        let queued = self.queued_now()?;
        self.progress.frontier(queued);
        let now = Instant::now();
        let mut hosts = HostStates::default();
        let mut queues: Vec<(u64, &str)> = Vec::new();
        for (name, host) in &self.hosts {
            let waiting = host.queue.len() as u64 + host.on_disk;
            let count = if host.gave_up {
                &mut hosts.given_up
            } else if host.in_flight > 0 {
                &mut hosts.in_flight
            } else if waiting == 0 {
                &mut hosts.idle
            } else if host.next_at > now && host.failures > 0 {
                &mut hosts.backing_off
            } else if host.next_at > now {
                &mut hosts.waiting_delay
            } else {
                &mut hosts.ready
            };
            *count += 1;
            if waiting > 0 && !host.gave_up {
                queues.push((waiting, name));
            }
        }
        let cut = queues.len().min(LARGEST_QUEUES);
        if cut > 0 {
            queues.select_nth_unstable_by(cut - 1, |a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        }
        queues.truncate(cut);
        queues.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let [requests, pages, on_topic, errors, dropped] = self.progress.counts();
        let live = Live {
            pid: std::process::id(),
            at: now_epoch(),
            started_at: self.started_at,
            stage: "crawl".into(),
            requests,
            requests_total: self.requests_total,
            budget,
            pages,
            on_topic,
            errors,
            dropped,
            queued,
            hosts,
            largest_queues: queues
                .into_iter()
                .map(|(n, host)| (host.to_string(), n))
                .collect(),
            latest: self.latest.iter().rev().cloned().collect(),
            annotate: None,
        };
        crate::ground::live::write(&self.ctx.run_dir, &live)
    }
}
