//! Where a crawl starts: the frontier and the servers' state read back from `crawl.sqlite`.
//!
//! **In:** the store (servers' counts and rests, trap counters, retries, the queued URLs,
//! robots.txt copies). **Out:** the crawler's in-memory servers and queues as the last crawl
//! left them. **Invariant:** per-run state (servers given up, trap counters, retries) goes on
//! only when the last crawl did not finish; a robots.txt copy older than its time to live or
//! unavailable is read again before the next request.

use std::time::Instant;

use crate::ground::clock::now_epoch;
use crate::ground::outcome::Revisit;

use super::servers::{politeness_delay, robots_from_status, robots_unavailable};
use super::{Crawler, RobotsState, fingerprint};

impl Crawler<'_> {
    /// The frontier and the servers' state from `crawl.sqlite`; `resumed`: the last crawl did
    /// not finish, and its per-run state goes on (servers given up, trap counters, retries).
    pub(super) fn load_frontier(&mut self, resumed: bool) -> anyhow::Result<()> {
        for (host, fetched) in self.store.host_counts()? {
            self.host_mut(&host).fetched = fetched;
        }
        if resumed {
            for host in self.store.given_up_hosts()? {
                self.host_mut(&host).gave_up = true;
            }
            for (host, path, count) in self.store.trap_counts()? {
                let h = self.host_mut(&host);
                if path.is_empty() {
                    h.calendar_pages = count;
                } else if path == super::listing::SITEMAP_COUNTER {
                    h.sitemap_files = count;
                } else {
                    h.query_variants.insert(fingerprint(&path), count);
                }
            }
            self.attempts.extend(self.store.attempts()?);
            let now = now_epoch();
            for (host, failures, rest_until) in self.store.host_rests()? {
                let h = self.host_mut(&host);
                h.failures = failures;
                h.next_at = Instant::now() + crate::topic::seconds(rest_until - now);
            }
        }
        self.restore_focus()?;
        // Revisits stay in memory (they are as many as the pages already stored), and the
        // page they refresh no longer counts against its server's budget.
        for q in self.store.pending_revisits()? {
            if self.hosts.get(&q.host).is_some_and(|h| h.gave_up) {
                // A server this crawl gave up on gets no revisit either.
                self.store.revisited(q.id, Revisit::Failed, now_epoch())?;
                continue;
            }
            self.queue_revisit(&q.host, q.id, q.depth, q.priority);
            let host = self.host_mut(&q.host);
            host.fetched = host.fetched.saturating_sub(1);
        }
        let product_token = self.ctx.product_token.clone();
        let max_crawl_delay = self.ctx.topic.file.politeness.max_crawl_delay_seconds;
        let base = self.base_delay();
        let replay = self.ctx.fetcher.is_replay();
        let keys: Vec<String> = self.hosts.keys().cloned().collect();
        let ttl = self.robots_ttl();
        for key in keys {
            if let Some((status, body, age)) = self.store.robots_of(&key, now_epoch())? {
                // An unavailable or stale robots.txt is read again before the next request.
                if robots_unavailable(status) && !replay {
                    continue;
                }
                let age = crate::topic::seconds(age);
                if age >= ttl && !replay {
                    continue;
                }
                let robots = robots_from_status(status, body.as_bytes(), &product_token);
                let host = self.host_mut(&key);
                host.delay = politeness_delay(base, robots.crawl_delay(), max_crawl_delay, replay);
                let read_at = Instant::now().checked_sub(age).unwrap_or_else(Instant::now);
                host.robots = RobotsState::Known(robots, read_at);
            }
        }
        Ok(())
    }
}
