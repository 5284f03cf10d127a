//! The crawl loop: a polite, best-first crawl that resumes where it stopped.
//!
//! **In:** the seeds already in `crawl.sqlite` (state `queued`), a [`Fetcher`], the topic.
//! **Out:** every URL of the crawl settled in `crawl.sqlite` with a state and a reason, every
//! response appended to the WARC file, the links table (the hyperlink graph).
//!
//! **Invariants:**
//! - never more than `connections_per_host` (1 unless the topic says otherwise) requests in
//!   flight to a server (scheme + host + port), and at most `crawl.concurrency` over all servers;
//! - pages waiting for their analysis count against `crawl.concurrency` (only one per core
//!   while the analyses have lately left the cores room: a burst), and no request starts while
//!   they hold `crawl.backlog_bytes` or more, links found included, nor while
//!   `crawl.concurrency` analysed pages wait for this loop (memory stays bounded when the CPU
//!   or this loop falls behind);
//! - robots.txt is fetched before anything else on a server (alone, nothing else in flight),
//!   and no URL it disallows is fetched; while it cannot be read (5xx, 429, no answer) nothing
//!   of that server is fetched, and it is asked again after a back-off;
//! - between the end of one response and the next request to the same server there is at least
//!   max(topic delay, robots `Crawl-delay` capped at `max_crawl_delay_seconds`, k × the last
//!   response time), and after a failure the longer of that and the back-off or `Retry-After` —
//!   except when replaying a recording, where there is no server to be polite to;
//! - a failing server costs at most `give_up_after` requests in a row before its URLs are
//!   settled (`server-gave-up`), so it never holds the crawl; every URL refused by a trap rule
//!   is settled with that rule's name;
//! - a URL is fetched at most once per run folder: the seen set is the `urls` table, and a
//!   response written to the WARC before a crash is recovered on resume instead of refetched;
//! - this is the only feedback loop of glaneur (page → score → new links): it *calls* the pure
//!   stage functions (`decode`, `extract`, `formula`, `score`) and never writes the corpus,
//!   which the extract stage rebuilds from the WARC afterwards.
//!
//! Shape: one task owns the frontier, the database and the WARC file (so there are no locks
//! around them); fetches run as separate tasks and send their results back over a channel; the
//! CPU work on a page (decode, parse, score, compress) runs on the analysis threads (`pool`:
//! one per core, at a lower priority) so that it never stalls the timers of other servers.
//!
//! Rooms: `schedule` (which server gets the next request), `load` (whether one more request
//! may start), `job` (starting a request and the job that runs it), `analyze` (the crawl's
//! reading of a page), `settle` (what a job brought back: state, WARC record, links,
//! redirects), `servers` (robots.txt, delays, failures, giving up), `focus` (priorities,
//! strategies, centroid), `recover` (responses written before a `kill -9`), `resume` (the
//! frontier read back), `lease` (a worker of a shared crawl: the frontier in PostgreSQL),
//! `pool` (the analysis threads), `turns` (the loop, a turn at a time); this file holds the
//! crawler's state, its start and end, and the frontier.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering as MemOrdering;
use std::time::{Duration, Instant};

use stages::focus::score::{self, LinkSignals, Scope};
use stages::focus::strategy::{self, Prioritizer};
use stages::web::robots::Robots;
use stages::web::urlnorm::{self, Canonicalizer};
use tokio::sync::{mpsc, watch};

use crate::fetch::{self, Failure, Fetcher};
use crate::ground::clock::now_epoch;
use crate::ground::outcome::{Reason, Revisit};
use crate::ground::progress::Progress;
use crate::store::{FetchRow, Store, Via};
use crate::topic::Topic;
use crate::warc::Response;

mod analyze;
pub mod digest;
mod focus;
mod job;
mod lease;
mod listing;
pub use lease::WorkerLink;
mod live;
mod load;
mod pool;
mod recover;
mod resume;
mod revisit;
pub use revisit::Pass;
mod schedule;
mod servers;
mod settle;
mod turns;

use crate::warc::{self, Packed, WarcFile};
pub use analyze::{Analysis, analyze};
use analyze::{link_kind_name, other_language};
pub use focus::Shared as FocusShared;
use load::{CpuUse, Limits, Load, Senders, Waiting, sleep_until};
use servers::fetch_robots;
pub use servers::{politeness_delay, retry_after};

/// Longest redirect chain followed (RFC 9110 suggests clients detect loops; 5 is what
/// browsers' old limit and RFC 9309 for robots.txt use).
pub const MAX_REDIRECTS: u32 = 5;

/// Commit the crawl state at least this often.
const COMMIT_EVERY: Duration = Duration::from_secs(1);

/// A worker of a shared crawl commits (and tells the shared frontier what it settled) this
/// often: a worker killed with `kill -9` costs the others a second request for what it fetched
/// since its last commit, so that window is kept short.
const WORKER_COMMIT_EVERY: Duration = Duration::from_millis(200);

/// Everything the crawl needs that does not change during it.
pub struct CrawlContext {
    /// The topic.
    pub topic: Arc<Topic>,
    /// Seen-set keys.
    pub canonicalizer: Canonicalizer,
    /// Seed 004's per-script parameter rules (`[[urls.script]]`).
    pub param_rules: Vec<stages::web::urlnorm::ParamRule>,
    /// Domain restriction.
    pub scope: Scope,
    /// Our robots.txt product token.
    pub product_token: String,
    /// Where responses come from.
    pub fetcher: Fetcher,
    /// Term counter, score weights and the seed centroid, shared with the page analysis.
    pub focus: FocusShared,
    /// The run folder (`live.json` is written there, a stop request looked for).
    pub run_dir: std::path::PathBuf,
    /// A crawl or a monitor's round, and the clock of its visits.
    pub pass: Pass,
}

impl CrawlContext {
    /// The seen-set key of a link: canonical form, then its script's parameter rule (seed 004).
    /// None for what is not an http(s) URL; with the rule's objection when it breaks the rule.
    /// A URL over the length limit is kept: the trap rule with the same limit (`[traps]
    /// max_url_length`) settles it as `trap-url-length`, so it has its row like any refused URL.
    fn canonical(
        &self,
        raw: &str,
        base: &url::Url,
    ) -> Option<(url::Url, Option<urlnorm::RuleViolation>)> {
        let target = match self.canonicalizer.parse(raw, Some(base)) {
            Ok(target) => target,
            Err(urlnorm::UrlError::TooLong { canonical, .. }) => *canonical,
            Err(_) => return None,
        };
        Some(match urlnorm::rule_for(&self.param_rules, &target) {
            Some(rule) => match rule.apply(&target) {
                Ok(mapped) => (mapped, None),
                Err(violation) => (target, Some(violation)),
            },
            None => (target, None),
        })
    }

    /// Works out the seen-set key of every link of a page (into `analysis.targets`). The
    /// job does this next to the analysis, off the loop that owns the database, because a
    /// page has a hundred links or more and the loop settles every page of the crawl.
    pub fn resolve_links(&self, analysis: &mut Analysis, base: &url::Url) {
        analysis.targets = analysis
            .links
            .iter()
            .map(|(raw, ..)| {
                self.canonical(raw, base).map(|(url, violation)| Target {
                    host: urlnorm::host_key(&url),
                    url,
                    violation,
                })
            })
            .collect();
    }
}

/// A link's target as the crawl keys it.
#[derive(Debug)]
pub struct Target {
    /// Canonical URL (after the script's parameter rule, when it keeps to it).
    pub url: url::Url,
    /// Politeness key of its server.
    pub host: String,
    /// The script's parameter rule this URL breaks, if any.
    pub violation: Option<urlnorm::RuleViolation>,
}

/// One entry of a host's queue: 16 bytes. What else the frontier knows of the URL is in the
/// prioritizer (see `stages::focus::strategy`), and its text stays in `crawl.sqlite` (read back when
/// the request starts), so that a frontier of millions of URLs fits in memory.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Row id: also the discovery order, earlier first among equal keys (keeps runs
    /// deterministic).
    id: i64,
    /// Sort key: higher first (single precision: it only orders URLs).
    key: f32,
    /// The URL's stamp when pushed: an entry whose stamp is no longer current is stale
    /// (the URL was re-keyed or left the frontier) and is skipped.
    stamp: u32,
}

/// A URL taken from the frontier for a request: what settling it needs.
#[derive(Debug, Clone)]
struct Job {
    id: i64,
    depth: u32,
    /// Link priority (the key of best-first; redirects inherit it).
    priority: f64,
    /// Off-topic pages in a row before this URL (tunnelling).
    hops: u32,
    /// Requests already made for this URL in this run (server errors, timeouts).
    attempts: u32,
    /// A stored page fetched again conditionally (`--revisit`).
    revisit: bool,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then_with(|| other.id.cmp(&self.id))
    }
}

/// What we know of a server's robots.txt.
enum RobotsState {
    Unknown,
    Fetching,
    /// Parsed, and when it was read (re-read after `robots_ttl_seconds`).
    Known(Robots, Instant),
    /// 5xx, 429 or no answer: nothing may be fetched until a retry succeeds (RFC 9309 §2.3.1.4).
    Unavailable,
}

/// One server's queue and politeness clock.
struct Host {
    queue: BinaryHeap<Entry>,
    /// Requests to this server in flight.
    in_flight: u32,
    /// URL ids of the page requests in flight (still `queued` in the database).
    flying: Vec<i64>,
    /// Queued URLs of this server kept in the database only (the in-memory budget was full
    /// when they were found); read back when the in-memory queue runs dry.
    on_disk: u64,
    /// Earliest time the next request may start.
    next_at: Instant,
    robots: RobotsState,
    /// Pages fetched from this server (all runs).
    fetched: u64,
    /// Delay between requests, robots' Crawl-delay included.
    delay: Duration,
    /// Failures in a row: server errors, timeouts, refused connections, 429/503.
    failures: u32,
    /// The crawl gave up on this server in this run.
    gave_up: bool,
    /// Distinct query strings accepted per path (hash of the path), for the trap rule.
    query_variants: HashMap<u64, u32>,
    /// Calendar-like URLs accepted, for the trap rule.
    calendar_pages: u32,
    /// Sitemap files of this server queued in this run (`[discovery] max_sitemaps_per_host`).
    sitemap_files: u32,
    /// Its politeness key, shared by its schedule entries.
    name: std::sync::Arc<str>,
    /// Changes with every new placement in the schedule: older entries are stale.
    stamp: u32,
    /// Changed since it was last placed (see `schedule`).
    marked: bool,
    /// The network guard let the server itself through.
    guard_passed: bool,
}

/// A job's result, sent back to the loop. (One message per request: boxing the larger
/// variant would buy nothing.)
#[allow(clippy::large_enum_variant)]
enum JobResult {
    Robots {
        host: String,
        url: String,
        outcome: Result<Response, Failure>,
        /// When the answer (or the failure) came: the server's clock runs from then.
        ended: Instant,
    },
    Page {
        entry: Job,
        host: String,
        url: url::Url,
        outcome: Result<Response, Failure>,
        analysis: Option<Analysis>,
        /// The exchange's WARC records, compressed in the job.
        packed: Option<Packed>,
        /// The server was already freed by a [`JobResult::Released`] for this request.
        released: bool,
        /// Bytes the page added to [`Waiting::bytes`] while it waited (0 when not released).
        held: usize,
        /// When the answer (or the failure) came.
        ended: Instant,
        /// How long the page's analysis (and compression) took, on its core.
        analysis_time: Duration,
    },
    /// A page arrived whole and is being analysed: its server is free from now on, and so is
    /// its place under `concurrency`. The politeness delay runs from the end of the response,
    /// not from the end of our own work on it, which on a busy machine can take longer than
    /// the delay itself; what the page holds meanwhile counts against `backlog_bytes`.
    Released {
        host: String,
        elapsed: Duration,
        /// When the response ended: the delay runs from then, not from when this message is
        /// read (on a busy machine the loop may read it some milliseconds later).
        ended: Instant,
    },
}

/// A page request as it comes back to the loop (or is recovered from the WARC after a crash).
struct Arrival {
    entry: Job,
    /// The server's key.
    host: String,
    url: url::Url,
    outcome: Result<Response, Failure>,
    analysis: Option<Analysis>,
    archive: Archive,
    /// The server was already freed by a [`JobResult::Released`] for this request.
    released: bool,
    /// When the answer (or the failure) came.
    ended: Instant,
}

/// Where a page's exchange stands with the WARC file.
enum Archive {
    /// Not written yet: written when the page is settled.
    Pending,
    /// Compressed by the job, to be appended as it is.
    Packed(Packed),
    /// In the file, at (offset, length) of the response record.
    Recovered((u64, u64)),
}

/// The crawl's state while it runs.
struct Crawler<'a> {
    ctx: Arc<CrawlContext>,
    store: &'a mut Store,
    warc: &'a mut WarcFile,
    progress: &'a Progress,
    hosts: HashMap<String, Host>,
    /// Entries in the in-memory queues, over all servers.
    in_memory: usize,
    /// Stored pages being fetched again (`--revisit`).
    revisits: HashSet<i64>,
    /// Requests already made in this run for URLs waiting to be tried again.
    attempts: HashMap<i64, u32>,
    /// The strategy's keys and state (lazy re-keying).
    prio: Prioritizer,
    /// Keys of the page requests in flight (the hold-back rule counts them as waiting).
    flying_keys: HashMap<i64, f32>,
    /// Seeds the centroid waits for.
    seeds: focus::SeedWatch,
    /// Page requests started, all runs (the budget counts them).
    requests_total: u64,
    outcome: CrawlOutcome,
    last_commit: Instant,
    /// Which server gets the next request.
    sched: schedule::Schedule,
    /// The last pages read, newest last (for `live.json`).
    latest: std::collections::VecDeque<crate::ground::live::LatestPage>,
    /// When this crawl started (seconds since 1970).
    started_at: f64,
    /// The last count of queued URLs, and when it was taken (see `live::publish`).
    queued_count: (Option<Instant>, u64),
    /// A worker of a shared crawl: its link to the shared frontier (see `lease`).
    worker: Option<WorkerLink>,
}

/// Runs the crawl until the frontier is empty, the budget is spent or `shutdown` fires. With
/// a `worker` link, the frontier is the shared one: this process fetches the servers it
/// leases, until no worker has anything left.
pub async fn crawl(
    ctx: Arc<CrawlContext>,
    store: &mut Store,
    warc: &mut WarcFile,
    warc_repaired_bytes: u64,
    progress: &Progress,
    mut shutdown: watch::Receiver<bool>,
    worker: Option<WorkerLink>,
) -> anyhow::Result<CrawlOutcome> {
    let started = Instant::now();
    // Pages waiting for a revisit are requests to make again, so they leave the count.
    let requests_total = store
        .requests_made()?
        .saturating_sub(store.pending_revisit_count()?);
    let mut crawler = Crawler {
        ctx: ctx.clone(),
        store,
        warc,
        progress,
        hosts: HashMap::new(),
        in_memory: 0,
        revisits: HashSet::new(),
        attempts: HashMap::new(),
        prio: Prioritizer::new(focus::settings(&ctx.topic)),
        flying_keys: HashMap::new(),
        seeds: focus::SeedWatch::default(),
        requests_total,
        outcome: CrawlOutcome {
            warc_repaired_bytes,
            ..CrawlOutcome::default()
        },
        last_commit: Instant::now(),
        sched: schedule::Schedule::default(),
        latest: Default::default(),
        started_at: now_epoch(),
        queued_count: (None, 0),
        worker,
    };
    if crawler.worker.is_some() {
        if crawler.prio.needs_graph() || ctx.pass.monitor {
            anyhow::bail!(
                "crawl.strategy = {:?} needs the whole link graph in one process: a shared \
                 crawl (glaneur worker) runs best-first or breadth-first",
                crawler.prio.strategy().name()
            );
        }
        crawler.store.keep_settled();
    }
    // A monitor round leaves the crawl's own state (and its resume) alone.
    let monitor = ctx.pass.monitor;
    let resumed = !monitor && crawler.store.begin_crawl()?;
    crawler.load_frontier(resumed)?;
    crawler.recover_from_warc()?;
    if crawler.worker.is_some() {
        // The seeds this worker gathered went to the shared frontier, and any worker may
        // fetch them: the centroid is learned from the seed pages this one fetches.
        crawler.seeds.forget_waiting();
        crawler.commit()?;
        crawler.sync_worker(false).await?;
    }

    let max_pages = if monitor {
        u64::MAX
    } else {
        ctx.topic.file.crawl.max_pages
    };
    progress.start_crawl(crawler.requests_total, max_pages);
    crawler.publish(max_pages)?;
    crawler.run_turns(max_pages, &mut shutdown).await?;
    // A stop asked after the last look at the signal still makes this an interrupted crawl.
    crawler.outcome.interrupted |= *shutdown.borrow();
    if !monitor {
        crawler.outcome.frontier_left = crawler.explain_frontier(max_pages)?;
    }
    let interrupted = crawler.outcome.interrupted;
    if !monitor {
        crawler.store.end_crawl(interrupted)?;
    }
    crawler.commit()?;
    if crawler.worker.is_some() {
        crawler.leave_shared().await?;
    }
    // The last figures exactly: the queue counted again.
    crawler.queued_count.0 = None;
    crawler.publish(max_pages)?;
    crawler.outcome.seconds = started.elapsed().as_secs_f64();
    Ok(crawler.outcome)
}

impl Crawler<'_> {
    fn host_mut(&mut self, key: &str) -> &mut Host {
        if !self.hosts.contains_key(key) {
            self.add_host(key);
        }
        // A borrowed lookup: the entry API would allocate the key on every call.
        let host = self.hosts.get_mut(key).expect("the host was just added");
        // Whatever is changed through here, the schedule looks at the server again.
        schedule::mark_host(&mut self.sched, host);
        host
    }

    fn add_host(&mut self, key: &str) {
        let delay = self.base_delay();
        let name: std::sync::Arc<str> = key.into();
        self.hosts.entry(key.to_string()).or_insert_with(|| Host {
            name,
            stamp: 0,
            marked: false,
            guard_passed: false,
            queue: BinaryHeap::new(),
            in_flight: 0,
            flying: Vec::new(),
            on_disk: 0,
            next_at: Instant::now(),
            robots: RobotsState::Unknown,
            fetched: 0,
            delay,
            failures: 0,
            gave_up: false,
            query_variants: HashMap::new(),
            calendar_pages: 0,
            sitemap_files: 0,
        });
    }

    fn base_delay(&self) -> Duration {
        if self.ctx.fetcher.is_replay() {
            Duration::ZERO
        } else {
            crate::topic::seconds(self.ctx.topic.file.politeness.delay_seconds)
        }
    }

    /// Puts an entry in its server's in-memory queue.
    fn enqueue(&mut self, host: &str, entry: Entry) {
        self.in_memory += 1;
        self.host_mut(host).queue.push(entry);
    }

    /// Takes the best live entry of a server's queue; when that empties the queue and URLs of
    /// the server wait in the database, the best of them are read back first.
    fn dequeue(&mut self, host_key: &str) -> anyhow::Result<Option<Entry>> {
        let before = self.host_mut(host_key).queue.len();
        let entry = self.pop_live(host_key);
        let after = self.host_mut(host_key).queue.len();
        self.in_memory = self.in_memory.saturating_sub(before - after);
        let host = self.host_mut(host_key);
        if host.queue.is_empty() && host.on_disk > 0 {
            self.refill_from_disk(host_key, entry.as_ref().map(|e| e.id))?;
        }
        Ok(entry)
    }

    /// Reads back the best of a server's URLs waiting in the database (not `taken`, the one
    /// just dequeued, nor those in flight) into its in-memory queue.
    fn refill_from_disk(&mut self, host_key: &str, taken: Option<i64>) -> anyhow::Result<()> {
        let host = self.host_mut(host_key);
        let mut exclude = host.flying.clone();
        exclude.extend(taken);
        let budget = self.ctx.topic.file.crawl.frontier_in_memory;
        let room = budget.saturating_sub(self.in_memory).clamp(64, 4096);
        let rows = self.store.queued_of_host(host_key, &exclude, room)?;
        let hops = self
            .store
            .hops_of(&rows.iter().map(|q| q.id).collect::<Vec<_>>())?;
        let host = self.host_mut(host_key);
        host.on_disk = host.on_disk.saturating_sub(rows.len() as u64);
        if rows.is_empty() {
            host.on_disk = 0;
        }
        for q in rows {
            let h = hops.get(&q.id).copied().unwrap_or(0);
            self.queue_in_memory(host_key, q.id, q.depth, q.priority, h);
        }
        Ok(())
    }

    /// Refills the servers whose in-memory queue held only stale entries while URLs of theirs
    /// waited in the database (the schedule found them so, see `schedule::Schedule::stranded`):
    /// without it such a server is never picked again, and the crawl would end with its URLs
    /// still queued. Whether any was refilled.
    fn refill_stranded(&mut self) -> anyhow::Result<bool> {
        let stranded = self.sched.take_stranded();
        let mut any = false;
        for name in stranded {
            let needs = self
                .hosts
                .get(&*name)
                .is_some_and(|h| h.queue.is_empty() && h.on_disk > 0);
            if needs {
                self.refill_from_disk(&name, None)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// The URL leaves the frontier for a request: everything settling it needs.
    fn take_job(&mut self, id: i64) -> Option<Job> {
        let q = self.prio.taken(id)?;
        Some(Job {
            id,
            depth: q.depth,
            priority: q.priority,
            hops: q.hops,
            attempts: self.attempts.remove(&id).unwrap_or(0),
            revisit: self.revisits.contains(&id),
        })
    }

    /// Whether any URL waits in the frontier.
    fn has_pending(&self) -> bool {
        self.prio.pending_len() > 0 || self.hosts.values().any(|h| h.on_disk > 0)
    }

    /// URLs left in the frontier keep their `queued` state (a later run with a larger budget
    /// fetches them) and get the reason they were not fetched in this one.
    fn explain_frontier(&mut self, max_pages: u64) -> anyhow::Result<u64> {
        let per_host = self.ctx.topic.file.crawl.max_pages_per_host;
        let mut waiting = Vec::new();
        let mut left = 0;
        for (key, host) in &self.hosts {
            if host.queue.is_empty() && host.on_disk == 0 {
                continue;
            }
            let (reason, detail) = if host.fetched >= per_host {
                (
                    Reason::HostBudget,
                    format!("the server already gave {per_host} pages (crawl.max_pages_per_host)"),
                )
            } else if self.requests_total >= max_pages {
                (
                    Reason::PageBudget,
                    format!("{max_pages} page requests made (crawl.max_pages)"),
                )
            } else {
                (
                    Reason::Interrupted,
                    "the crawl was stopped before this URL".to_string(),
                )
            };
            waiting.push((key.clone(), reason, detail));
            let live = host
                .queue
                .iter()
                .filter(|e| self.prio.is_live(e.id, u64::from(e.stamp)))
                .count();
            left += live as u64 + host.on_disk;
        }
        for (host, reason, detail) in waiting {
            self.store.waiting_host(&host, reason, &detail)?;
        }
        Ok(left)
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        // The WARC bytes reach the OS before the state that points at them is committed, and
        // the committed length tells a resumed crawl where unrecorded responses may start.
        self.warc.flush()?;
        let len = self.warc.len().to_string();
        self.store.set_meta("warc_committed_len", &len)?;
        self.store.commit()?;
        self.last_commit = Instant::now();
        Ok(())
    }
}

/// A 64-bit fingerprint of a string (for counters keyed by paths without keeping the paths).
fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// What the crawl did in this run.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct CrawlOutcome {
    /// Page requests made in this run (robots.txt excluded).
    pub requests: u64,
    /// robots.txt requests made in this run.
    pub robots_requests: u64,
    /// Responses recovered from the WARC file instead of refetched.
    pub recovered: u64,
    /// Bytes of a cut WARC record removed on open.
    pub warc_repaired_bytes: u64,
    /// Stopped by Ctrl-C / SIGTERM (resumable).
    pub interrupted: bool,
    /// The page budget was reached with URLs still queued.
    pub budget_reached: bool,
    /// URLs still queued at the end.
    pub frontier_left: u64,
    /// Pages with more links than `[crawl] max_links_per_page`: only the first ones were
    /// followed.
    #[serde(skip_serializing_if = "crate::ground::outcome::is_zero")]
    pub pages_links_cut: u64,
    /// Seconds spent.
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_order_by_key_then_discovery() {
        let e = |key, id| Entry { key, id, stamp: 0 };
        let mut heap = BinaryHeap::from(vec![e(0.5, 1), e(0.9, 2), e(0.5, 0), e(0.9, 3)]);
        let order: Vec<i64> = std::iter::from_fn(|| heap.pop().map(|x| x.id)).collect();
        // The entry that keeps a waiting URL in memory stays this small.
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        assert_eq!(order, [2, 3, 0, 1]);
    }
}
