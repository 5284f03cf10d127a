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
//! may start), `servers` (robots.txt, delays, failures, giving up), `focus` (priorities,
//! strategies, centroid), `recover` (responses written before a `kill -9`), `pool` (the
//! analysis threads); this file holds the loop, the jobs and how a page is settled.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering as MemOrdering;
use std::time::{Duration, Instant};

use anyhow::Context;
use stages::focus::formula::PreparedText;
use stages::focus::score::{self, LinkSignals, PageEvidence, Scope};
use stages::focus::strategy::{self, Prioritizer};
use stages::page::extract::LinkKind;
use stages::web::robots::Robots;
use stages::web::urlnorm::{self, Canonicalizer};
use tokio::sync::{mpsc, watch};

use crate::fetch::{self, Failure, Fetcher, Response};
use crate::progress::Progress;
use crate::store::{FetchRow, PageFacts, Store};
use crate::topic::Topic;

mod focus;
mod load;
mod pool;
mod recover;
mod schedule;
mod servers;
use crate::warcfile::{self, Packed, WarcFile};
pub use focus::Shared as FocusShared;
use load::{CpuUse, Limits, Load, Senders, Waiting, sleep_until};
use servers::{fetch_robots, robots_from_status, robots_unavailable};
pub use servers::{politeness_delay, retry_after};

/// Longest redirect chain followed (RFC 9110 suggests clients detect loops; 5 is what
/// browsers' old limit and RFC 9309 for robots.txt use).
pub const MAX_REDIRECTS: u32 = 5;

/// Commit the crawl state at least this often.
const COMMIT_EVERY: Duration = Duration::from_secs(1);

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
}

impl CrawlContext {
    /// The seen-set key of a link: canonical form, then its script's parameter rule (seed 004).
    /// None for what is not an http(s) URL; with the rule's objection when it breaks the rule.
    fn canonical(
        &self,
        raw: &str,
        base: &url::Url,
    ) -> Option<(url::Url, Option<urlnorm::RuleViolation>)> {
        let target = self.canonicalizer.parse(raw, Some(base)).ok()?;
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
    #[serde(skip_serializing_if = "crate::report::is_zero")]
    pub pages_links_cut: u64,
    /// Seconds spent.
    pub seconds: f64,
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

/// Where a page's exchange stands with the WARC file.
enum Archive {
    /// Not written yet: written when the page is settled.
    Pending,
    /// Compressed by the job, to be appended as it is.
    Packed(Packed),
    /// In the file, at (offset, length) of the response record.
    Recovered((u64, u64)),
}

/// What the crawl learns from a page (computed on the blocking pool).
#[derive(Debug, Default)]
pub struct Analysis {
    /// Topic facts.
    pub facts: PageFacts,
    /// Out-links, one per distinct URL (first occurrence's kind and anchor text, best anchor
    /// score, URL score, occurrences): see [`focus::ScoredLink`].
    pub links: Vec<focus::ScoredLink>,
    /// The page's term counts, while the seed centroid is not learned yet (seeds teach it).
    pub terms: Option<stages::focus::centroid::TermCounts>,
    /// `<meta name=robots>` nofollow.
    pub nofollow: bool,
    /// The links' targets, in the order of `links` (None: not an http(s) URL); filled by
    /// [`CrawlContext::resolve_links`].
    pub targets: Vec<Option<Target>>,
    /// Links past `[crawl] max_links_per_page`, not followed.
    pub links_cut: usize,
}

impl Analysis {
    /// About the bytes this analysis holds in memory (a page's out-links dominate).
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let links: usize = self
            .links
            .iter()
            .map(|(raw, _, anchor, ..)| raw.capacity() + anchor.capacity())
            .sum();
        let targets: usize = self
            .targets
            .iter()
            .flatten()
            .map(|t| t.url.as_str().len() + t.host.capacity())
            .sum();
        // A B-tree entry: the word, its count and the node's share.
        let terms = self
            .terms
            .as_ref()
            .map_or(0, |t| t.keys().map(|w| w.capacity() + 32).sum());
        let facts = self
            .facts
            .matched
            .iter()
            .map(String::capacity)
            .sum::<usize>()
            + self.facts.title.as_ref().map_or(0, String::capacity);
        size_of::<Analysis>()
            + self.links.capacity() * size_of::<focus::ScoredLink>()
            + self.targets.capacity() * size_of::<Option<Target>>()
            + links
            + targets
            + terms
            + facts
    }
}

/// Decodes, extracts and scores a page: the crawl's view of it.
pub fn analyze(
    topic: &Topic,
    focus: &FocusShared,
    url: &url::Url,
    response: &Response,
) -> Analysis {
    let content_type = response.header("content-type");
    let tld = tld_of(url);
    let decoded = stages::page::decode::decode(response.body(), content_type, tld.as_deref());
    let is_plain = content_type
        .map(|ct| ct.to_ascii_lowercase().starts_with("text/plain"))
        .unwrap_or(false);
    // The crawl judges a page by *all* its visible text, boilerplate included: a table of
    // contents about the topic is exactly where a focused crawl should go on from, even though
    // the extract stage will not keep it as a document (that decision uses the clean text). So
    // it skims the page (no tree, no block classification: see stages/src/page/skim/), and the
    // extract stage reads the stored page again with the full extractor.
    let skimmed = if is_plain {
        stages::page::skim::skim_plain(&decoded.text)
    } else {
        stages::page::skim::skim_html_with(
            &decoded.text,
            url,
            topic.file.crawl.max_links_per_page,
            topic.file.crawl.max_attributes_per_element,
        )
    };
    let mut text = skimmed.title.clone().unwrap_or_default();
    text.push_str("\n\n");
    text.push_str(&skimmed.text);
    let prepared = PreparedText::new(&text, topic.formula.options());
    let verdict = topic.formula.evaluate_prepared(&prepared);
    let language = skimmed.language.clone();
    let languages = &topic.file.languages;
    let language_ok = languages.is_empty()
        || language
            .as_ref()
            .is_some_and(|l| languages.contains(&l.code));
    // The formula's tokens serve the centroid too (one tokenisation of the page).
    let centroid = focus.centroid.get();
    let similarity = centroid.map(|c| focus.similarity(c, &prepared, &text));
    let score = score::topic_score(
        &PageEvidence {
            verdict: &verdict,
            tokens: prepared.token_count(),
            language_ok,
            language_confidence: language.as_ref().map_or(0.0, |l| l.confidence),
        },
        similarity,
        &focus.weights,
    );
    let links = focus.score_links(&topic.formula, &skimmed.links);
    // Seed pages teach the centroid their term counts (it is not learned yet).
    let terms = centroid.is_none().then(|| {
        if prepared.options() == focus.counter.options() {
            focus.counter.count_prepared(&prepared)
        } else {
            focus.counter.count(&text)
        }
    });
    Analysis {
        links_cut: skimmed.links_cut,
        facts: PageFacts {
            score,
            verdict: verdict.satisfied,
            matched: verdict.matched,
            language: language.map(|l| l.code),
            title: skimmed.title,
        },
        links,
        nofollow: skimmed.meta_robots.nofollow,
        terms,
        targets: Vec::new(),
    }
}

/// The last DNS label, lower-case ASCII, as chardetng wants its TLD hint (None for IPs).
pub fn tld_of(url: &url::Url) -> Option<String> {
    match url.host() {
        Some(url::Host::Domain(d)) => d
            .rsplit('.')
            .next()
            .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
            .map(str::to_ascii_lowercase),
        _ => None,
    }
}

fn now_epoch() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Whether a link's URL names a language the topic does not want (never when the topic names
/// no language).
fn other_language(target: &url::Url, languages: &[String]) -> bool {
    !languages.is_empty()
        && stages::page::lang::url_language(target)
            .is_some_and(|code| !languages.iter().any(|l| l == code))
}

fn link_kind_name(kind: LinkKind) -> &'static str {
    match kind {
        LinkKind::Anchor => "anchor",
        LinkKind::Area => "area",
        LinkKind::Frame => "frame",
        LinkKind::Iframe => "iframe",
        LinkKind::LinkRel => "link-rel",
        LinkKind::MetaRefresh => "meta-refresh",
    }
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
}

/// Runs the crawl until the frontier is empty, the budget is spent or `shutdown` fires.
pub async fn crawl(
    ctx: Arc<CrawlContext>,
    store: &mut Store,
    warc: &mut WarcFile,
    warc_repaired_bytes: u64,
    progress: &Progress,
    mut shutdown: watch::Receiver<bool>,
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
    };
    let resumed = crawler.store.begin_crawl()?;
    crawler.load_frontier(resumed)?;
    crawler.recover_from_warc()?;

    let concurrency = ctx.topic.file.crawl.concurrency;
    let max_pages = ctx.topic.file.crawl.max_pages;
    let (results, mut rx) = mpsc::channel::<JobResult>(concurrency * 2);
    // Freed servers come on a channel of their own, read before anything else: settling a
    // large page (hundreds of links into SQLite) can take milliseconds, and a server freed
    // behind a queue of such pages would start its next request that much late.
    let (released, mut released_rx) = mpsc::unbounded_channel::<JobResult>();
    let tx = Senders {
        results,
        released,
        waiting: Arc::new(Waiting::default()),
    };
    let limits = Limits {
        concurrency,
        backlog_bytes: usize::try_from(ctx.topic.file.crawl.backlog_bytes).unwrap_or(usize::MAX),
        cores: pool::size(),
    };
    let mut load = Load::default();
    let mut cpu = CpuUse::new(Instant::now());
    // A stop asked while the frontier was loading (its `changed` is then already seen).
    let mut stopping = *shutdown.borrow();
    crawler.outcome.interrupted = stopping;

    loop {
        load.observe(&tx.waiting);
        // Start as many requests as the global limit, the budget and the servers' clocks allow.
        if !stopping {
            while load.may_start(&limits, cpu.has_room(Instant::now())) {
                let now = Instant::now();
                let Some(host_key) = crawler.pick_host(now, max_pages) else {
                    break;
                };
                if crawler.start_next(&host_key, &tx, max_pages)? {
                    load.requests += 1;
                }
            }
        }
        if load.requests == 0 && load.pages == 0 {
            let budget_spent = crawler.requests_total >= max_pages;
            let fetchable = crawler.has_fetchable();
            if stopping || !fetchable || budget_spent {
                crawler.outcome.budget_reached = !stopping && crawler.has_pending();
                break;
            }
        }
        let wake = crawler.next_wake(max_pages);
        load.observe(&tx.waiting);
        tokio::select! {
            biased;
            // A server freed (its page arrived whole and waits for the CPU).
            Some(result) = released_rx.recv() => crawler.released(&mut load, result)?,
            // Ctrl-C / SIGTERM: stop starting requests, let the ones in flight finish so that
            // their responses are stored, then leave the loop.
            changed = shutdown.changed(), if !stopping => {
                if changed.is_err() || *shutdown.borrow() {
                    stopping = true;
                    crawler.outcome.interrupted = true;
                    crawler.progress.note("stopping: waiting for the requests in flight (run again to resume)");
                }
            }
            // A server's delay expired: loop to start its next request.
            _ = sleep_until(wake), if load.may_start(&limits, cpu.has_room(Instant::now())) && !stopping => {}
            // A finished job: record it and free its server.
            Some(result) = rx.recv() => {
                // A page's release was sent before the page: one not read yet is read now, so
                // that the two are always counted in that order.
                while let Ok(early) = released_rx.try_recv() {
                    crawler.released(&mut load, early)?;
                }
                match &result {
                    JobResult::Released { .. } => {}
                    JobResult::Page { released: true, held, analysis_time, .. } => {
                        load.pages -= 1;
                        tx.waiting.settled(*held);
                        cpu.add(*analysis_time, limits.cores, Instant::now());
                    }
                    JobResult::Page { .. } | JobResult::Robots { .. } => load.requests -= 1,
                }
                crawler.handle(result)?;
            }
        }
        if crawler.last_commit.elapsed() >= COMMIT_EVERY {
            crawler.commit()?;
        }
    }
    // A stop asked after the last look at the signal still makes this an interrupted crawl.
    crawler.outcome.interrupted |= *shutdown.borrow();
    crawler.outcome.frontier_left = crawler.explain_frontier(max_pages)?;
    let interrupted = crawler.outcome.interrupted;
    crawler.store.end_crawl(interrupted)?;
    crawler.commit()?;
    crawler.outcome.seconds = started.elapsed().as_secs_f64();
    Ok(crawler.outcome)
}

impl Crawler<'_> {
    /// A server freed by a [`JobResult::Released`]: its request is over, its page waits.
    fn released(&mut self, load: &mut Load, result: JobResult) -> anyhow::Result<()> {
        if let JobResult::Released { .. } = &result {
            load.requests -= 1;
            load.pages += 1;
        }
        self.handle(result)
    }

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
            let mut exclude = host.flying.clone();
            exclude.extend(entry.as_ref().map(|e| e.id));
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
                self.requeue_from_disk(host_key, q.id, q.depth, q.priority, h);
            }
        }
        Ok(entry)
    }

    /// The frontier and the servers' state from `crawl.sqlite`; `resumed`: the last crawl did
    /// not finish, and its per-run state goes on (servers given up, trap counters, retries).
    fn load_frontier(&mut self, resumed: bool) -> anyhow::Result<()> {
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
                self.store.revisited(q.id, "failed", now_epoch())?;
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
                    "host-budget",
                    format!("the server already gave {per_host} pages (crawl.max_pages_per_host)"),
                )
            } else if self.requests_total >= max_pages {
                (
                    "page-budget",
                    format!("{max_pages} page requests made (crawl.max_pages)"),
                )
            } else {
                (
                    "interrupted",
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

    /// Starts the next request on `host_key` (robots.txt first). Returns whether a job was
    /// spawned; URLs settled without a request (robots, budget) return false.
    fn start_next(&mut self, host_key: &str, tx: &Senders, max_pages: u64) -> anyhow::Result<bool> {
        let fetcher = self.ctx.fetcher.clone();
        let ttl = self.robots_ttl();
        // A server the network guard refuses gets no request at all, not even robots.txt
        // (checked once per server).
        if !self.host_mut(host_key).guard_passed {
            if let Ok(server) = url::Url::parse(host_key)
                && let Err(refusal) = self.guard(&server)
            {
                self.give_up(host_key, refusal.reason, &refusal.detail)?;
                return Ok(false);
            }
            self.host_mut(host_key).guard_passed = true;
        }
        let host = self.host_mut(host_key);
        let read_robots = match &host.robots {
            RobotsState::Unknown | RobotsState::Unavailable => true,
            RobotsState::Fetching => return Ok(false),
            // A stale copy is read again as soon as nothing else is in flight.
            RobotsState::Known(_, read_at) => read_at.elapsed() >= ttl && host.in_flight == 0,
        };
        if read_robots {
            host.robots = RobotsState::Fetching;
            host.in_flight += 1;
            let url = format!("{host_key}/robots.txt");
            let tx = tx.results.clone();
            let host_key = host_key.to_string();
            self.outcome.robots_requests += 1;
            tokio::spawn(async move {
                let outcome = guarded(fetch_robots(fetcher, url.clone())).await;
                let _ = tx
                    .send(JobResult::Robots {
                        host: host_key,
                        url,
                        outcome,
                        ended: Instant::now(),
                    })
                    .await;
            });
            return Ok(true);
        }
        let Some(entry) = self.dequeue(host_key)? else {
            return Ok(false);
        };
        let parsed = self
            .store
            .url_of(entry.id)?
            .and_then(|text| url::Url::parse(&text).ok());
        let Some(url) = parsed else {
            self.store
                .skip(entry.id, "invalid-url", "cannot parse the stored URL")?;
            self.prio.taken(entry.id);
            self.seed_settled(entry.id, None)?;
            return Ok(false);
        };
        // Seeds and URLs of older runs come here without passing `admit`.
        if let Err(refusal) = self.guard(&url) {
            self.store.skip(entry.id, refusal.reason, &refusal.detail)?;
            self.progress.dropped();
            self.prio.taken(entry.id);
            self.seed_settled(entry.id, None)?;
            return Ok(false);
        }
        let allowed = match &self.host_mut(host_key).robots {
            RobotsState::Known(robots, _) => robots.is_allowed(&fetch::request_target(&url)),
            _ => true,
        };
        if !allowed {
            self.store
                .skip(entry.id, "robots", "disallowed by the server's robots.txt")?;
            self.progress.dropped();
            self.prio.taken(entry.id);
            self.seed_settled(entry.id, None)?;
            return Ok(false);
        }
        if self.requests_total >= max_pages {
            // Put it back: it stays in the frontier for a later run with a larger budget.
            self.enqueue(host_key, entry);
            return Ok(false);
        }
        let Some(entry) = self.take_job(entry.id) else {
            return Ok(false);
        };
        let validators = if entry.revisit {
            let (etag, last_modified) = self.store.validators(entry.id)?;
            fetch::Validators {
                etag,
                last_modified,
            }
        } else {
            fetch::Validators::default()
        };
        self.requests_total += 1;
        self.outcome.requests += 1;
        let host = self.host_mut(host_key);
        host.in_flight += 1;
        host.flying.push(entry.id);
        self.flying_keys.insert(entry.id, entry.priority as f32);
        let ctx = self.ctx.clone();
        let results = tx.results.clone();
        let released_tx = tx.released.clone();
        let waiting = tx.waiting.clone();
        let host_key = host_key.to_string();
        tokio::spawn(async move {
            let outcome = {
                let url = url.clone();
                guarded(async move { fetcher.fetch_if_changed(&url, &validators).await }).await
            };
            let ended = Instant::now();
            let mut released = false;
            let mut held = 0;
            let mut analysis_time = Duration::ZERO;
            let (outcome, analysis, packed) = match outcome {
                Ok(response) if response.status == 200 && !response.body_skipped => {
                    released = released_tx
                        .send(JobResult::Released {
                            host: host_key.clone(),
                            elapsed: response.elapsed,
                            ended,
                        })
                        .is_ok();
                    if released {
                        held = response.held_bytes();
                        waiting.bytes.fetch_add(held, MemOrdering::Relaxed);
                    }
                    // Parsing and compressing are CPU work: they run on the analysis
                    // threads (one per core, see `pool`), where they neither stall other
                    // servers' timers nor hold up the loop that owns the database.
                    let ctx2 = ctx.clone();
                    let url2 = url.clone();
                    let waiting2 = waiting.clone();
                    let work = pool::run(move || {
                        let began = Instant::now();
                        // A bug in the analysis must not lose the page: it is archived anyway.
                        let analysis = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            let mut analysis = analyze(&ctx2.topic, &ctx2.focus, &url2, &response);
                            ctx2.resolve_links(&mut analysis, &url2);
                            analysis
                        }))
                        .ok();
                        let packed = Packed::exchange(url2.as_str(), &response);
                        // From here on the page waits for the loop (see `Load::may_start`),
                        // holding what its analysis added. Counted here, as the analysis ends,
                        // not when this request's task next runs: that task may wait for the
                        // thread the loop runs on, and the loop would go on starting requests
                        // while analysed pages pile up uncounted.
                        let mut more = 0;
                        if released {
                            more = analysis.as_ref().map_or(0, Analysis::held_bytes)
                                + packed.held_bytes();
                            waiting2.analysed.fetch_add(1, MemOrdering::Relaxed);
                            waiting2.bytes.fetch_add(more, MemOrdering::Relaxed);
                        }
                        (response, analysis, packed, began.elapsed(), more)
                    })
                    .await;
                    match work {
                        Some((response, analysis, packed, took, more)) => {
                            analysis_time = took;
                            held += more;
                            (Ok(response), analysis, Some(packed))
                        }
                        None => {
                            // The closure ended before counting the page: count it here, as
                            // the loop uncounts every page it settles.
                            if released {
                                waiting.analysed.fetch_add(1, MemOrdering::Relaxed);
                            }
                            (
                                Err(Failure {
                                    reason: "internal-error",
                                    detail: "glaneur failed on this page; please report it"
                                        .to_string(),
                                    elapsed: Duration::ZERO,
                                }),
                                None,
                                None,
                            )
                        }
                    }
                }
                Ok(response) => {
                    let packed = Packed::exchange(url.as_str(), &response);
                    (Ok(response), None, Some(packed))
                }
                Err(failure) => (Err(failure), None, None),
            };
            let _ = results
                .send(JobResult::Page {
                    entry,
                    host: host_key,
                    url,
                    outcome,
                    analysis,
                    packed,
                    released,
                    held,
                    ended,
                    analysis_time,
                })
                .await;
        });
        Ok(true)
    }

    fn handle(&mut self, result: JobResult) -> anyhow::Result<()> {
        match result {
            JobResult::Robots {
                host,
                url,
                outcome,
                ended,
            } => {
                if let Ok(response) = &outcome {
                    self.warc.exchange(&url, response)?;
                }
                self.settle_robots(&host, outcome, Some(ended))
            }
            JobResult::Page {
                entry,
                host,
                url,
                outcome,
                analysis,
                packed,
                released,
                held: _,
                ended,
                analysis_time: _,
            } => {
                let archive = packed.map_or(Archive::Pending, Archive::Packed);
                self.settle_page(
                    entry, &host, &url, outcome, analysis, archive, released, ended,
                )
            }
            JobResult::Released {
                host,
                elapsed,
                ended,
                ..
            } => {
                self.release_host(&host, elapsed, ended)?;
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn settle_page(
        &mut self,
        entry: Job,
        host_key: &str,
        url: &url::Url,
        outcome: Result<Response, Failure>,
        analysis: Option<Analysis>,
        mut archive: Archive,
        released: bool,
        ended: Instant,
    ) -> anyhow::Result<()> {
        let now = now_epoch();
        let replay = self.ctx.fetcher.is_replay();
        let politeness = self.ctx.topic.file.politeness.clone();
        // A server error, a timeout, a refused connection or "too many requests": the server
        // (or the way to it) is in trouble, so it rests, and the URL may be tried again.
        let transient = match &outcome {
            Err(failure) => matches!(failure.reason, "timeout" | "network-error"),
            Ok(r) => r.status == 429 || (500..600).contains(&r.status),
        } && !replay;
        let asked_to_wait = outcome
            .as_ref()
            .ok()
            .filter(|r| r.status == 429 || r.status == 503)
            .and_then(|r| retry_after(r.header("retry-after"), std::time::SystemTime::now()));
        let elapsed = match &outcome {
            Ok(r) => r.elapsed,
            Err(f) => f.elapsed,
        };
        self.flying_keys.remove(&entry.id);
        if !released && !transient {
            self.release_host(host_key, elapsed, ended)?;
        }
        let (failures, delay) = {
            let host = self.host_mut(host_key);
            host.flying.retain(|&id| id != entry.id);
            if transient {
                host.in_flight = host.in_flight.saturating_sub(1);
                host.failures += 1;
            }
            (host.failures, host.delay)
        };
        if transient {
            let what = match &outcome {
                Ok(r) => format!("HTTP {}", r.status),
                Err(f) => format!("{}: {}", f.reason, f.detail),
            };
            let max_wait = crate::topic::seconds(politeness.max_retry_after_seconds);
            let too_long = asked_to_wait.is_some_and(|w| w > max_wait);
            let give_up = too_long || failures >= politeness.give_up_after;
            let throttled = asked_to_wait.is_some()
                || outcome
                    .as_ref()
                    .is_ok_and(|r| r.status == 429 || r.status == 503);
            // "Too many requests" says nothing against the URL: it waits its turn again, and
            // the failure count of the server bounds how long that can go on.
            let retry = !give_up && (throttled || entry.attempts < politeness.retries);
            if retry {
                let pause = self.pause_after_failure(failures, delay, asked_to_wait, elapsed);
                if let Ok(response) = &outcome {
                    self.archive(url, response, &mut archive)?;
                }
                self.store.waiting(
                    entry.id,
                    "retry",
                    &format!("{what}; tried again after {:.1} s", pause.as_secs_f64()),
                )?;
                self.rest(host_key, ended, pause)?;
                self.requeue_retry(host_key, &entry)?;
                // The budget counts URLs settled, so a retry does not spend it.
                self.requests_total = self.requests_total.saturating_sub(1);
                return Ok(());
            }
            self.host_mut(host_key).fetched += 1;
            let detail = if too_long {
                format!(
                    "the server asked to wait {:.0} s (Retry-After), more than [politeness] max_retry_after_seconds",
                    asked_to_wait.map_or(0.0, |w| w.as_secs_f64())
                )
            } else {
                format!("{failures} failures in a row (last: {what})")
            };
            if give_up {
                if entry.revisit {
                    // The stored copy stays; only the revisit failed.
                    self.store.revisited(entry.id, "failed", now)?;
                } else {
                    self.settle_response(&entry, host_key, url, outcome, archive, now)?;
                }
                return self.give_up(host_key, "server-gave-up", &detail);
            }
            // Out of retries for this URL; the server still answers others.
            let pause = self.pause_after_failure(failures, delay, asked_to_wait, elapsed);
            self.rest(host_key, ended, pause)?;
        }
        if entry.revisit {
            match &outcome {
                // Unchanged: the stored copy stays the page's text; the answer is archived.
                Ok(r) if r.status == 304 => {
                    self.archive(url, r, &mut archive)?;
                    self.store.host_fetched(host_key, false)?;
                    self.store.revisited(entry.id, "not-modified", now)?;
                    self.progress.fetched(false);
                    return Ok(());
                }
                Err(_) => {
                    self.store.revisited(entry.id, "failed", now)?;
                    self.progress.fetched(false);
                    return Ok(());
                }
                Ok(_) => self.store.revisited(entry.id, "refetched", now)?,
            }
        }
        let Some(response) = self.settle_response(&entry, host_key, url, outcome, archive, now)?
        else {
            self.seed_settled(entry.id, None)?;
            return Ok(());
        };
        let status = response.status;
        if (300..400).contains(&status) {
            self.follow_redirect(&entry, url, response.header("location"))?;
            self.progress.fetched(false);
            self.seed_settled(entry.id, None)?;
            return Ok(());
        }
        let Some(mut analysis) = analysis else {
            self.progress.fetched(false);
            self.seed_settled(entry.id, None)?;
            return Ok(());
        };
        self.store.page_facts(entry.id, &analysis.facts)?;
        if analysis.links_cut > 0 {
            self.outcome.pages_links_cut += 1;
            if self.outcome.pages_links_cut == 1 {
                let max = self.ctx.topic.file.crawl.max_links_per_page;
                self.progress.note(&format!(
                    "{url} has {} links: the first {max} are read ([crawl] \
                     max_links_per_page); report.json counts such pages",
                    max + analysis.links_cut,
                ));
            }
        }
        let is_seed = self.store.is_seed(entry.id)?;
        if is_seed {
            self.store.seed_verdict(entry.id, analysis.facts.verdict)?;
        }
        self.progress.fetched(analysis.facts.verdict);
        self.page_judged(host_key, analysis.facts.verdict);
        let gf_terms = (is_seed && analysis.facts.verdict)
            .then_some(analysis.terms.as_ref())
            .flatten();
        self.seed_settled(entry.id, gf_terms)?;
        // Which links to follow. Seed 001: the crawl starts from the seeds that satisfy F, so
        // an off-topic seed is a dead end; a page that says nofollow (in a <meta> or an
        // X-Robots-Tag header) is one too.
        let header = stages::web::robots::x_robots_tag(
            response
                .headers
                .iter()
                .filter(|(k, _)| k == "x-robots-tag")
                .map(|(_, v)| v.as_str()),
            &self.ctx.product_token,
        );
        if analysis.nofollow || header.nofollow || (is_seed && !analysis.facts.verdict) {
            return self.links_taken_in(entry.id);
        }
        // Tunnelling: off-topic pages in a row ending here; past the limit, the links are
        // recorded but not queued.
        let run = strategy::hops_after(entry.hops, analysis.facts.verdict);
        let tunnel = self.ctx.topic.file.focus.tunnel;
        let expand = strategy::may_expand(run, Some(tunnel));
        let child_depth = entry.depth + 1;
        let too_deep = child_depth > self.ctx.topic.file.crawl.max_depth;
        if analysis.targets.len() != analysis.links.len() {
            self.ctx.resolve_links(&mut analysis, url);
        }
        for ((_, kind, anchor, anchor_score, url_score, count), target) in
            analysis.links.iter().zip(&analysis.targets)
        {
            let Some(Target {
                url: target,
                host: target_host,
                violation,
            }) = target
            else {
                continue;
            };
            let priority = score::link_priority_weighted(
                &LinkSignals {
                    parent_score: analysis.facts.score,
                    anchor: *anchor_score,
                    url: *url_score,
                    depth: child_depth,
                    other_language: other_language(target, &self.ctx.topic.file.languages),
                },
                &self.ctx.focus.weights,
            );
            let (dst, new) = self.store.insert_url(
                target.as_str(),
                target_host,
                child_depth,
                Some(entry.id),
                "link",
                priority,
                now,
            )?;
            // The page's links to one URL arrive as one, with their number.
            self.store
                .link(entry.id, dst, link_kind_name(*kind), anchor, *count)?;
            let raised = self.prio.link(entry.id, dst, priority);
            // A URL waiting on disk (over the in-memory budget) is raised there: it is read
            // back with the best priority its parents gave it.
            let on_disk =
                !new && !raised && self.hosts.get(target_host).is_some_and(|h| h.on_disk > 0);
            if raised || on_disk {
                // Stored, so that a resumed crawl queues it where this one has it.
                self.store.raise_priority(dst, priority)?;
            }
            if !new {
                continue;
            }
            if let Some(violation) = violation {
                self.store.skip(dst, "url-rule", &violation.to_string())?;
                continue;
            }
            if let Err(why) = self.ctx.scope.check(target.host_str().unwrap_or("")) {
                let detail = match why {
                    score::OutOfScope::NotAllowed => "host outside [domains] allow",
                    score::OutOfScope::Denied => "host in [domains] deny",
                };
                self.store.skip(dst, "off-domain", detail)?;
                continue;
            }
            if too_deep {
                self.store.skip(
                    dst,
                    "depth-limit",
                    &format!("depth {child_depth} > crawl.max_depth"),
                )?;
                continue;
            }
            if !expand {
                self.store.skip(
                    dst,
                    "tunnel-limit",
                    &format!("{run} off-topic pages in a row > focus.tunnel = {tunnel}"),
                )?;
                continue;
            }
            if !self.admit(dst, target_host, target)? {
                continue;
            }
            if run > 0 {
                self.store.set_hops(dst, run)?;
            }
            self.queue_url(target_host, dst, child_depth, priority, run);
        }
        self.links_taken_in(entry.id)
    }

    /// Records a response (or a failure) as the URL's final state. Returns the response when
    /// there is one.
    fn settle_response(
        &mut self,
        entry: &Job,
        host_key: &str,
        url: &url::Url,
        outcome: Result<Response, Failure>,
        mut archive: Archive,
        now: f64,
    ) -> anyhow::Result<Option<Response>> {
        let response = match outcome {
            Ok(r) => r,
            Err(failure) => {
                self.store
                    .fail(entry.id, failure.reason, &failure.detail, now)?;
                self.store.host_fetched(host_key, true)?;
                self.progress.fetched(false);
                return Ok(None);
            }
        };
        self.store.host_fetched(host_key, false)?;
        let location = self.archive(url, &response, &mut archive)?;
        let status = response.status;
        let row = FetchRow {
            status,
            content_type: response.header("content-type").map(str::to_string),
            length: response.body().len() as u64,
            last_modified: response.header("last-modified").map(str::to_string),
            etag: response.header("etag").map(str::to_string),
            server: response.header("server").map(str::to_string),
            location: response.header("location").map(str::to_string),
            fetched_at: now,
            elapsed_ms: response.elapsed.as_millis() as u64,
            warc: Some((warcfile::WARC_NAME.to_string(), location.0, location.1)),
        };
        let (reason, detail) = if (300..400).contains(&status) {
            ("redirect", row.location.clone().unwrap_or_default())
        } else if status == 200 && response.body_skipped {
            (
                "content-type",
                format!(
                    "{} is not harvested (HTML and plain text only)",
                    row.content_type.as_deref().unwrap_or("?")
                ),
            )
        } else if status == 200 {
            ("fetched", String::new())
        } else if response.header("x-glaneur-replay") == Some("missing") {
            ("http-404", "not in the recording".to_string())
        } else {
            ("", String::new())
        };
        let reason = if reason.is_empty() {
            format!("http-{status}")
        } else {
            reason.to_string()
        };
        self.store.fetched(entry.id, &row, &reason, &detail)?;
        Ok(Some(response))
    }

    /// Writes an exchange to the WARC file unless it is there already; returns where the
    /// response record is.
    fn archive(
        &mut self,
        url: &url::Url,
        response: &Response,
        archive: &mut Archive,
    ) -> anyhow::Result<(u64, u64)> {
        let at = match std::mem::replace(archive, Archive::Pending) {
            Archive::Recovered(at) => at,
            Archive::Packed(packed) => self.warc.write_packed(&packed)?,
            Archive::Pending => self.warc.exchange(url.as_str(), response)?,
        };
        *archive = Archive::Recovered(at);
        Ok(at)
    }

    /// The last checks on a newly found in-scope URL before it joins the queue: a server the
    /// crawl gave up on, and the trap rules. Returns false when the URL was settled instead.
    fn admit(&mut self, id: i64, host_key: &str, url: &url::Url) -> anyhow::Result<bool> {
        if let Err(refusal) = self.guard(url) {
            self.store.skip(id, refusal.reason, &refusal.detail)?;
            return Ok(false);
        }
        if self.hosts.get(host_key).is_some_and(|h| h.gave_up) {
            self.store.skip(
                id,
                "server-gave-up",
                "the crawl gave up on this server earlier in the run",
            )?;
            return Ok(false);
        }
        if self.ctx.topic.file.crawl.skip_file_extensions
            && let Some(ext) = urlnorm::non_text_extension(url)
        {
            // Asking for a file only to record its content type would cost the server a
            // request and the crawl a politeness delay.
            self.store.skip(
                id,
                "file-type",
                &format!(".{ext}: not HTML or plain text (by its extension)"),
            )?;
            return Ok(false);
        }
        let limits = self.ctx.topic.file.traps.limits();
        // Both counters are checked before either is counted, so that a refused URL counts
        // nowhere (in memory and in the store alike).
        let verdict = stages::web::traps::check_shape(url, &limits).and_then(|()| {
            let host = self.host_mut(host_key);
            let calendar = stages::web::traps::is_calendar_like(url);
            if calendar && host.calendar_pages >= limits.max_calendar_pages {
                return Err(stages::web::traps::Trap::Calendar);
            }
            let variant = stages::web::traps::query_variant_key(url);
            if let Some(path) = variant
                && host
                    .query_variants
                    .get(&fingerprint(path))
                    .is_some_and(|&n| n >= limits.max_query_variants)
            {
                return Err(stages::web::traps::Trap::QueryVariants);
            }
            let mut counted: Vec<&str> = Vec::new();
            if calendar {
                host.calendar_pages += 1;
                counted.push("");
            }
            if let Some(path) = variant {
                *host.query_variants.entry(fingerprint(path)).or_insert(0) += 1;
                counted.push(path);
            }
            Ok(counted)
        });
        // The counters are stored, so that a resumed crawl refuses what this one would.
        let verdict = match verdict {
            Ok(counted) => {
                for path in counted {
                    self.store.count_trap(host_key, path)?;
                }
                Ok(())
            }
            Err(trap) => Err(trap),
        };
        match verdict {
            Ok(()) => Ok(true),
            Err(trap) => {
                self.store.skip(id, trap.reason(), &trap.explain(&limits))?;
                Ok(false)
            }
        }
    }

    /// The network guard (`crate::guard`) with the topic's setting. A recording reaches no
    /// network: its addresses are only names (credentials are still refused).
    fn guard(&self, url: &url::Url) -> Result<(), crate::guard::Refusal> {
        let allow =
            self.ctx.topic.file.domains.allow_private_addresses || self.ctx.fetcher.is_replay();
        crate::guard::check_url(url, allow)
    }

    fn follow_redirect(
        &mut self,
        entry: &Job,
        url: &url::Url,
        location: Option<&str>,
    ) -> anyhow::Result<()> {
        let Some(location) = location else {
            return Ok(());
        };
        let Some((target, violation)) = self.ctx.canonical(location, url) else {
            return Ok(());
        };
        let now = now_epoch();
        let target_host = urlnorm::host_key(&target);
        let hops = self.store.redirect_chain(entry.id)?.0 + 1;
        let (dst, new) = self.store.insert_url(
            target.as_str(),
            &target_host,
            entry.depth,
            Some(entry.id),
            "redirect",
            entry.priority,
            now,
        )?;
        self.store.link(entry.id, dst, "redirect", "", 1)?;
        // The target is the same page: it takes the source's links' share (OPIC cash, in-links).
        if self.prio.link(entry.id, dst, entry.priority) {
            self.store.raise_priority(dst, entry.priority)?;
        }
        self.links_taken_in(entry.id)?;
        if !new {
            // Already seen: a loop or a second path to the same page; nothing more to do.
            return Ok(());
        }
        if let Some(violation) = violation {
            self.store.skip(dst, "url-rule", &violation.to_string())?;
            return Ok(());
        }
        if hops > MAX_REDIRECTS {
            self.store.skip(
                dst,
                "redirect-chain",
                &format!("more than {MAX_REDIRECTS} redirects in a row"),
            )?;
            return Ok(());
        }
        if self
            .ctx
            .scope
            .check(target.host_str().unwrap_or(""))
            .is_err()
        {
            self.store
                .skip(dst, "off-domain", "redirect target outside [domains]")?;
            return Ok(());
        }
        if !self.admit(dst, &target_host, &target)? {
            return Ok(());
        }
        // A redirect inherits its source's priority and tunnel: it is the same page.
        self.store.set_hops(dst, entry.hops)?;
        self.queue_url(&target_host, dst, entry.depth, entry.priority, entry.hops);
        if self.is_watched(entry.id) {
            self.watch_seed(dst);
        }
        Ok(())
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

/// Runs a request in its own task, so that a bug (a panic) in it becomes a recorded failure of
/// that URL instead of a crawl that waits forever for an answer.
async fn guarded(
    request: impl Future<Output = Result<Response, Failure>> + Send + 'static,
) -> Result<Response, Failure> {
    match tokio::spawn(request).await {
        Ok(outcome) => outcome,
        Err(e) => Err(Failure {
            reason: "internal-error",
            detail: format!("glaneur failed on this request ({e}); please report it"),
            elapsed: Duration::ZERO,
        }),
    }
}

/// Runs the crawl on the run's runtime, on the calling thread (the caller is synchronous).
pub fn run_blocking(
    ctx: Arc<CrawlContext>,
    store: &mut Store,
    warc: &mut WarcFile,
    warc_repaired_bytes: u64,
    progress: &Progress,
    shutdown: watch::Receiver<bool>,
    runtime: &tokio::runtime::Runtime,
) -> anyhow::Result<CrawlOutcome> {
    runtime
        .block_on(crawl(
            ctx,
            store,
            warc,
            warc_repaired_bytes,
            progress,
            shutdown,
        ))
        .context("the crawl stopped on an error")
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

    #[test]
    fn tld_hint() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert_eq!(tld_of(&u("http://www.seznam.cz/")), Some("cz".into()));
        assert_eq!(tld_of(&u("http://127.0.0.1/")), None);
        assert_eq!(tld_of(&u("http://[::1]/")), None);
    }
}
