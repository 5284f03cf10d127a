//! A worker's side of a crawl shared through PostgreSQL (`glaneur worker`).
//!
//! **In:** the shared frontier (`crate::store::postgres`), this worker's `crawl.sqlite`.
//! **Out:** the URLs this worker found, in the shared seen set; the servers it leases, fetched
//! with the loop of a single crawl; the URLs it settled, marked done once committed here.
//!
//! **Invariants:**
//! - a URL joins this worker's queues only when the shared frontier hands it over (`take`) on
//!   a server this worker leases: what it finds goes to the shared frontier first, which drops
//!   what another worker already saw;
//! - a URL is marked done in the shared frontier only after the row that settles it is
//!   committed in this worker's `crawl.sqlite` (a `kill -9` in between costs a second request
//!   for it, never its loss);
//! - a server is let go only when nothing of it is queued here, in flight or taken and
//!   unsettled; its remaining delay goes with it (`next_allowed`), and the lease is renewed
//!   at every exchange while held (again before the loop asks anything when an exchange
//!   outlived half a lease);
//! - while another worker wants more servers, this one holds no more than its share and gives
//!   the surplus back (servers with nothing in flight nor arrived unsettled);
//! - a server's page count here is never below the shared frontier's (every worker's requests
//!   to it), and what it gained here goes there at the next renewal;
//! - the URLs found on a page reach the shared frontier before the page is marked done, so that
//!   an idle worker never sees an empty frontier while links are on their way.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::ground::clock::now_epoch;
use crate::store::Via;
use crate::store::postgres::{Frontier, Pushed, Share};

use super::Crawler;

/// URLs taken from the shared frontier per server and call, at most.
const TAKE_PER_HOST: usize = 2048;

/// Servers held at most per request of `crawl.concurrency` (bounds the memory and what a
/// stalled worker keeps from the others).
const MAX_HELD_PER_REQUEST: usize = 64;

/// How often a worker exchanges with the shared frontier (its commit interval).
const WORKER_EXCHANGE: Duration = super::WORKER_COMMIT_EVERY;

/// A worker reads its share of the servers (a count over the crawl's servers) at most as
/// often as spends this part of its time on it: at every exchange on a crawl of a few servers,
/// less often on a crawl of a million.
const SHARE_COST: u32 = 10;

/// A worker's link to the shared frontier, owned by the crawl loop.
pub struct WorkerLink {
    frontier: Frontier,
    /// Servers leased to this worker, with the URLs taken on each and not settled yet.
    held: HashMap<String, HashMap<i64, String>>,
    /// Local ids of the taken URLs, with their server.
    taken: HashMap<i64, String>,
    /// URLs found here, not yet in the shared frontier: (local id, server, depth, priority, hops).
    outbox: Vec<(i64, String, u32, f64, u32)>,
    /// The crawl's page requests (all workers) at the last renewal.
    synced_requests: u64,
    /// Requests this worker may have in flight (`crawl.concurrency`).
    concurrency: usize,
    /// This worker created the crawl: once its seeds are in the shared frontier, the other
    /// workers are told they may start.
    announce_seeds: bool,
    /// The last exchange: when, whether nothing was fetchable here, and its answer.
    last: Option<(Instant, bool, Next)>,
    /// This worker's share of the servers, when it was read, and how long reading took.
    share: Option<(Instant, Duration, Share)>,
    /// Per server held, its page count (`Host::fetched`) the shared frontier knows: what is
    /// above it goes with the next renewal.
    reported: HashMap<String, u64>,
}

/// What the shared frontier has for an idle worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Work arrived: go on.
    Work,
    /// Nothing for this worker now, but the crawl is not over (URLs of servers leased by
    /// others or resting, pages of other workers that may bring links): ask again soon.
    Wait,
    /// Nothing left for anyone.
    Done,
}

impl WorkerLink {
    /// A link for a crawl of `concurrency` parallel requests; `creator`: this worker created
    /// the crawl and gathered its seeds.
    pub fn new(frontier: Frontier, concurrency: usize, creator: bool) -> WorkerLink {
        WorkerLink {
            frontier,
            held: HashMap::new(),
            taken: HashMap::new(),
            outbox: Vec::new(),
            synced_requests: 0,
            concurrency: concurrency.max(1),
            announce_seeds: creator,
            last: None,
            share: None,
            reported: HashMap::new(),
        }
    }
}

impl Crawler<'_> {
    /// Worker mode: a URL found and admitted here waits for the shared frontier's verdict.
    pub(super) fn hand_over(&mut self, host: &str, id: i64, depth: u32, priority: f64, hops: u32) {
        if let Some(link) = self.worker.as_mut() {
            link.outbox
                .push((id, host.to_string(), depth, priority, hops));
        }
    }

    /// Exchanges with the shared frontier (after a commit of `crawl.sqlite`): the settled
    /// URLs are marked done, the URLs found are added, the leases renewed, the drained servers
    /// let go, new servers leased and their URLs taken. `idle`: nothing is fetchable here,
    /// so whether the crawl is over is asked too.
    pub(super) async fn sync_worker(&mut self, idle: bool) -> anyhow::Result<Next> {
        let Some(mut link) = self.worker.take() else {
            return Ok(Next::Done);
        };
        let started = Instant::now();
        let next = self.exchange(&mut link, idle).await;
        if let Ok(answer) = &next {
            link.last = Some((started, idle, *answer));
        }
        self.worker = Some(link);
        next.context(
            "the shared frontier (PostgreSQL) failed: this worker stops; its servers and URLs \
             go back to the other workers when its leases expire",
        )
    }

    /// The answer of an exchange made while idle less than half an exchange interval ago,
    /// when it brought no work: an idle worker exchanges once per interval, not twice (the
    /// tick's exchange, then the loop's).
    pub(super) fn recent_answer(&self) -> Option<Next> {
        let (at, idle, answer) = self.worker.as_ref()?.last?;
        (idle && answer != Next::Work && at.elapsed() < WORKER_EXCHANGE / 2).then_some(answer)
    }

    /// One exchange with the shared frontier; says what the crawl loop does next. An exchange
    /// that took more than half a lease (a stalled link) may have outlived the leases it
    /// renewed: they are renewed again, and the lost ones dropped, before the loop asks any
    /// server (another worker may hold them now).
    async fn exchange(&mut self, link: &mut WorkerLink, idle: bool) -> anyhow::Result<Next> {
        let mut started = Instant::now();
        let next = self.exchange_steps(link, idle).await?;
        while started.elapsed() > link.frontier.lease() / 2 {
            started = Instant::now();
            let share = self.read_share(link).await?;
            self.renew_leases(link, &share).await?;
        }
        Ok(next)
    }

    /// The exchange's six steps.
    async fn exchange_steps(&mut self, link: &mut WorkerLink, idle: bool) -> anyhow::Result<Next> {
        // Found URLs first: between the two, the frontier would otherwise look empty to an
        // idle worker while the last page's links are on their way (it would leave).
        self.push_found(link).await?;
        self.report_done(link).await?;
        let share = self.read_share(link).await?;
        self.renew_leases(link, &share).await?;
        let got = self.take_work(link, &share).await?;
        self.give_back_excess(link, &share).await?;
        if idle && !got && !link.taken.is_empty() {
            self.leave_blocked(link).await?;
        }
        self.release_drained(link).await?;
        if got {
            return Ok(Next::Work);
        }
        if !idle {
            return Ok(Next::Wait);
        }
        let left = link.frontier.left().await?;
        if left.waiting == 0 && left.taken == 0 && link.held.is_empty() {
            Ok(Next::Done)
        } else {
            Ok(Next::Wait)
        }
    }

    /// Exchange step 2: what was settled and committed here is done for everyone.
    async fn report_done(&mut self, link: &mut WorkerLink) -> anyhow::Result<()> {
        let mut done = Vec::new();
        for id in self.store.take_settled() {
            if let Some(host) = link.taken.remove(&id)
                && let Some(url) = link.held.get_mut(&host).and_then(|t| t.remove(&id))
            {
                done.push(url);
            }
        }
        link.frontier
            .done(&done.iter().map(String::as_str).collect::<Vec<_>>())
            .await?;
        Ok(())
    }

    /// Exchange step 1: what was found here goes into the shared seen set (before its pages are
    /// done).
    async fn push_found(&mut self, link: &mut WorkerLink) -> anyhow::Result<()> {
        let outbox = std::mem::take(&mut link.outbox);
        let mut pushed = Vec::with_capacity(outbox.len());
        for (id, host, depth, priority, hops) in outbox {
            let Some((url, via, seed)) = self.store.url_via_seed(id)? else {
                continue;
            };
            pushed.push(Pushed {
                url,
                host,
                depth,
                priority,
                hops,
                seed,
                via: Some(via),
            });
        }
        link.frontier.push(&pushed).await?;
        if std::mem::take(&mut link.announce_seeds) {
            link.frontier.mark_seeded().await?;
        }
        Ok(())
    }

    /// Exchange step 3: this worker's share of the servers (read again once an interval of
    /// [`SHARE_COST`] times what reading it took has passed).
    async fn read_share(&mut self, link: &mut WorkerLink) -> anyhow::Result<Share> {
        if let Some((at, took, share)) = link.share
            && at.elapsed() < took * SHARE_COST
        {
            return Ok(share);
        }
        let started = Instant::now();
        let share = link.frontier.share().await?;
        link.share = Some((Instant::now(), started.elapsed(), share));
        Ok(share)
    }

    /// Exchange step 4: leases renewed with each server's remaining delay; the crawl's
    /// requests counted; whether this worker wants more servers than it holds told.
    async fn renew_leases(&mut self, link: &mut WorkerLink, share: &Share) -> anyhow::Result<()> {
        let now = Instant::now();
        let hungry = below_share(link.held.len(), share) && self.servers_wanted(link, now) > 0;
        let waits: Vec<(String, f64)> = link
            .held
            .keys()
            .map(|h| (h.clone(), self.remaining_delay(h, now)))
            .collect();
        let new_requests = self.requests_total.saturating_sub(link.synced_requests);
        let mut pages: Vec<(String, i64)> = Vec::new();
        for (host, known) in &mut link.reported {
            let now_at = self.hosts.get(host).map_or(*known, |h| h.fetched);
            if now_at > *known {
                pages.push((
                    host.clone(),
                    i64::try_from(now_at - *known).unwrap_or(i64::MAX),
                ));
                *known = now_at;
            }
        }
        let (lost, requests) = link
            .frontier
            .renew(
                &waits
                    .iter()
                    .map(|(h, w)| (h.as_str(), *w))
                    .collect::<Vec<_>>(),
                &pages
                    .iter()
                    .map(|(h, n)| (h.as_str(), *n))
                    .collect::<Vec<_>>(),
                new_requests,
                hungry,
            )
            .await?;
        self.requests_total = requests;
        link.synced_requests = requests;
        for host in lost {
            self.lose(link, &host);
        }
        Ok(())
    }

    /// Exchange step 5: the waiting URLs of the servers this worker holds; new servers when
    /// there is room, no more than its share while another worker wants more. Returns whether
    /// URLs arrived.
    async fn take_work(&mut self, link: &mut WorkerLink, share: &Share) -> anyhow::Result<bool> {
        let mut want = self.servers_wanted(link, Instant::now());
        if share.others_hungry {
            let mine = usize::try_from(share.mine).unwrap_or(usize::MAX);
            want = want.min(mine.saturating_sub(link.held.len()));
        }
        let claimed = if self.requests_total < self.ctx.topic.file.crawl.max_pages {
            link.frontier.claim(want).await?
        } else {
            Vec::new()
        };
        let now = Instant::now();
        for c in &claimed {
            link.held.entry(c.host.clone()).or_default();
            let host = self.host_mut(&c.host);
            let at = now + Duration::from_secs_f64(c.wait.clamp(0.0, 86_400.0));
            host.next_at = host.next_at.max(at);
            // The server's pages by every worker: `max_pages_per_host` holds for the crawl.
            host.fetched = host.fetched.max(c.pages);
            link.reported.insert(c.host.clone(), host.fetched);
        }
        let hungry: Vec<&str> = link
            .held
            .keys()
            .filter(|h| {
                self.hosts
                    .get(h.as_str())
                    .is_none_or(|x| x.queue.len() < TAKE_PER_HOST)
            })
            .map(String::as_str)
            .collect();
        let arrived = link.frontier.take(&hungry, TAKE_PER_HOST).await?;
        let got = !arrived.is_empty();
        let mut settled_here = Vec::new();
        for p in arrived {
            settled_here.extend(self.import(link, p)?);
        }
        if !settled_here.is_empty() {
            // Done for everyone only once settled here for good.
            self.commit()?;
        }
        link.frontier
            .done(&settled_here.iter().map(String::as_str).collect::<Vec<_>>())
            .await?;
        Ok(got)
    }

    /// Exchange step 6a: while another worker wants more servers, those held beyond this
    /// worker's share go back (none with a request in flight; the longest resting first), with
    /// the URLs taken on them and what is left of their delay.
    async fn give_back_excess(
        &mut self,
        link: &mut WorkerLink,
        share: &Share,
    ) -> anyhow::Result<()> {
        let mine = usize::try_from(share.mine).unwrap_or(usize::MAX);
        if !share.others_hungry || link.held.len() <= mine {
            return Ok(());
        }
        let now = Instant::now();
        let mut idle: Vec<(String, f64, usize)> = link
            .held
            .keys()
            .filter_map(|h| {
                let host = self.hosts.get(h.as_str());
                // Nothing in flight, nor arrived and not settled yet.
                (host.is_none_or(|x| x.in_flight == 0 && x.flying.is_empty())).then(|| {
                    let queued = host.map_or(0, |x| x.queue.len());
                    (h.clone(), self.remaining_delay(h, now), queued)
                })
            })
            .collect();
        idle.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
        idle.truncate(link.held.len() - mine);
        if idle.is_empty() {
            return Ok(());
        }
        let urls: Vec<String> = idle
            .iter()
            .flat_map(|(h, _, _)| {
                link.held
                    .get(h)
                    .into_iter()
                    .flat_map(|t| t.values().cloned())
            })
            .collect();
        link.frontier
            .give_back(&urls.iter().map(String::as_str).collect::<Vec<_>>())
            .await?;
        link.frontier
            .release(
                &idle
                    .iter()
                    .map(|(h, w, _)| (h.as_str(), *w))
                    .collect::<Vec<_>>(),
            )
            .await?;
        for (host, _, _) in &idle {
            self.forget_server(link, host);
        }
        Ok(())
    }

    /// Exchange step 6b: drained servers go back, with what is left of their delay.
    async fn release_drained(&mut self, link: &mut WorkerLink) -> anyhow::Result<()> {
        let now = Instant::now();
        // Every URL of a held server in this worker's queue was taken from the shared
        // frontier (retries included): none taken and unsettled, none in flight (robots.txt
        // included) means nothing left; what the queue may still hold is stale entries.
        let drained: Vec<(String, f64)> = link
            .held
            .iter()
            .filter(|(h, taken)| {
                taken.is_empty() && self.hosts.get(h.as_str()).is_none_or(|x| x.in_flight == 0)
            })
            .map(|(h, _)| (h.clone(), self.remaining_delay(h, now)))
            .collect();
        link.frontier
            .release(
                &drained
                    .iter()
                    .map(|(h, w)| (h.as_str(), *w))
                    .collect::<Vec<_>>(),
            )
            .await?;
        for (h, _) in &drained {
            link.held.remove(h);
            link.reported.remove(h);
            if let Some(host) = self.hosts.get_mut(h) {
                let stale = host.queue.len();
                host.queue.clear();
                self.in_memory = self.in_memory.saturating_sub(stale);
            }
        }
        Ok(())
    }

    /// Nothing is fetchable here, no request is in flight, and yet URLs are taken: their
    /// servers cannot be asked by this worker any more (its per-server budget is spent, or its
    /// requests budget). As at the end of a single crawl, they keep their queued state here
    /// with the reason; the shared frontier counts them done, so that the crawl can end.
    async fn leave_blocked(&mut self, link: &mut WorkerLink) -> anyhow::Result<()> {
        let max_pages = self.ctx.topic.file.crawl.max_pages;
        self.explain_frontier(max_pages)?;
        let mut urls = Vec::with_capacity(link.taken.len());
        for (id, host) in link.taken.drain() {
            urls.extend(link.held.get_mut(&host).and_then(|t| t.remove(&id)));
        }
        self.commit()?;
        link.frontier
            .done(&urls.iter().map(String::as_str).collect::<Vec<_>>())
            .await
    }

    /// A URL handed over by the shared frontier joins this worker's queue. Returns it when it
    /// was settled here already (a lease lost and won back): done for everyone.
    fn import(&mut self, link: &mut WorkerLink, p: Pushed) -> anyhow::Result<Option<String>> {
        let via = match p.via.as_deref().and_then(Via::parse) {
            Some(via) => via,
            None if p.seed.is_some() => Via::Seed,
            None => Via::Link,
        };
        let (id, new) =
            self.store
                .insert_url(&p.url, &p.host, p.depth, None, via, p.priority, now_epoch())?;
        if let Some(source) = &p.seed {
            self.store.seed(id, source, None, None, None)?;
            self.prio.seed(id);
        }
        if !new && !self.store.adopt(id)? {
            return Ok(Some(p.url));
        }
        // Another worker admitted it; what only this worker knows of the server is checked.
        if self.refused_given_up(id, &p.host)? {
            return Ok(Some(p.url));
        }
        if p.hops > 0 {
            self.store.set_hops(id, p.hops)?;
        }
        link.held
            .entry(p.host.clone())
            .or_default()
            .insert(id, p.url);
        link.taken.insert(id, p.host.clone());
        self.queue_in_memory(&p.host, id, p.depth, p.priority, p.hops);
        Ok(None)
    }

    /// A lease expired while this worker held it (it stalled longer than the lease): the
    /// server's URLs left here are another worker's now.
    fn lose(&mut self, link: &mut WorkerLink, host: &str) {
        self.forget_server(link, host);
        self.progress.note(&format!(
            "the lease on {host} expired before it was renewed: its URLs went to another worker"
        ));
    }

    /// A server this worker no longer holds: its URLs leave the queue here (their rows stay
    /// queued in `crawl.sqlite`; the worker that settles them has the settled row, which
    /// `collect` keeps).
    fn forget_server(&mut self, link: &mut WorkerLink, host: &str) {
        link.reported.remove(host);
        if let Some(taken) = link.held.remove(host) {
            for id in taken.keys() {
                link.taken.remove(id);
            }
        }
        let Some(h) = self.hosts.get_mut(host) else {
            return;
        };
        let entries: Vec<i64> = h.queue.drain().map(|e| e.id).collect();
        self.in_memory = self.in_memory.saturating_sub(entries.len());
        for id in entries {
            self.prio.taken(id);
        }
    }

    /// How many more servers this worker should lease: enough to fill the requests its
    /// `crawl.concurrency` leaves free, counting what the servers it holds are asked now or may
    /// be asked within the next exchange (each up to `connections_per_host`). A worker does not
    /// hoard servers it cannot ask — the other workers would wait — and on a polite crawl,
    /// whose servers rest most of the time, it comes to hold many.
    fn servers_wanted(&self, link: &WorkerLink, now: Instant) -> usize {
        let per_host = usize::try_from(self.ctx.topic.file.politeness.connections_per_host)
            .unwrap_or(1)
            .max(1);
        let soon = now + WORKER_EXCHANGE;
        let mut used = 0usize;
        for name in link.held.keys() {
            let Some(h) = self.hosts.get(name) else {
                continue;
            };
            let flying = usize::try_from(h.in_flight).unwrap_or(usize::MAX);
            let ready = !h.queue.is_empty() && h.next_at <= soon;
            used = used.saturating_add(if ready { per_host.max(flying) } else { flying });
        }
        let free = link.concurrency.saturating_sub(used);
        let room = (link.concurrency * MAX_HELD_PER_REQUEST).saturating_sub(link.held.len());
        free.div_ceil(per_host).min(room)
    }

    /// Seconds before the server may be asked again.
    fn remaining_delay(&self, host: &str, now: Instant) -> f64 {
        self.hosts.get(host).map_or(0.0, |h| {
            h.next_at.saturating_duration_since(now).as_secs_f64()
        })
    }

    /// The crawl ends (or stops): URLs taken and not settled wait again for another worker,
    /// every server is let go, the worker leaves the crawl.
    pub(super) async fn leave_shared(&mut self) -> anyhow::Result<()> {
        // What was settled and committed is done first.
        self.sync_worker(false).await?;
        let Some(link) = self.worker.take() else {
            return Ok(());
        };
        let left: Vec<&str> = link
            .held
            .values()
            .flat_map(|t| t.values().map(String::as_str))
            .collect();
        link.frontier.give_back(&left).await?;
        let now = Instant::now();
        let waits: Vec<(&str, f64)> = link
            .held
            .keys()
            .map(|h| (h.as_str(), self.remaining_delay(h, now)))
            .collect();
        link.frontier.release(&waits).await?;
        link.frontier.finish().await?;
        Ok(())
    }
}

/// Holds fewer servers than its share (while the crawl has servers with work).
fn below_share(held: usize, share: &Share) -> bool {
    u64::try_from(held).unwrap_or(u64::MAX) < share.mine
}
