//! Crawl strategies: the priority functions that order the frontier, the state they need (the
//! known link graph, OPIC cash, partial PageRank), the tunnelling limit and the host hold-back
//! rule of a focused crawl with a limited budget.
//!
//! **In:** events from the crawl loop: a URL queued (with its link priority, depth and host),
//! a link seen between two known URLs, a page's links all seen, a URL taken from the frontier,
//! a fetched page judged on or off topic (per server).
//!
//! **Out:** for each queued URL a sort key (higher is fetched first) and a stamp; after events
//! that change keys, the re-keyed URLs ([`Queued`]) for the crawl to push again. Heap entries
//! whose stamp is no longer the URL's current one are stale and skipped ("lazy re-keying").
//! Between servers: the value a server competes with ([`Prioritizer::host_rank`]) and the
//! hold-back decision.
//!
//! **Invariants:** pure and deterministic: the same sequence of events gives the same keys
//! (maps are iterated in id order where order matters); every key is finite; one strategy, one
//! crawl loop: the strategies differ only in [`Prioritizer::key`] and, for
//! `larger-site-first` and `best-first`, in [`Prioritizer::host_rank`]. A server's yield
//! multiplies every key of that server alike, so it orders servers, never the URLs of one.
//!
//! | strategy | key of a queued URL |
//! |---|---|
//! | `best-first` | its link priority (parent score, anchor, URL words, depth); raised when a better page links to it; between servers, times the server's yield (`host_yield`) |
//! | `breadth-first` | minus its depth (then discovery order) |
//! | `backlink-count` | number of known pages linking to it (Cho, Garcia-Molina & Page 1998) |
//! | `pagerank` | PageRank over the known graph, recomputed every `pagerank_every` pages (partial PageRank, Cho et al. 1998) |
//! | `opic` | its OPIC cash (Abiteboul, Preda & Cobena 2003): seeds start with 1; a fetched page gives its cash in equal shares to the pages it links to |
//! | `forward-link-count` | the largest number of out-links of a fetched page linking to it (hubs first) |
//! | `larger-site-first` | hosts with more URLs waiting first (Baeza-Yates et al. 2005); inside a host, shallowest first |

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::focus::score::STRONG_DENSITY;

/// How the frontier is ordered (`[crawl] strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Highest link priority first (topic score of the parent, anchor text, URL, depth).
    BestFirst,
    /// Shallowest first, in discovery order.
    BreadthFirst,
    /// Most known in-links first.
    BacklinkCount,
    /// Highest partial PageRank first.
    #[serde(rename = "pagerank")]
    PageRank,
    /// Most OPIC cash first.
    Opic,
    /// Hosts with the most URLs waiting first.
    LargerSiteFirst,
    /// Linked from the page with the most out-links first.
    ForwardLinkCount,
}

impl Strategy {
    /// Every strategy, in the order of the guide's table (docs/guide/crawl.md).
    pub const ALL: [Strategy; 7] = [
        Strategy::BestFirst,
        Strategy::BreadthFirst,
        Strategy::BacklinkCount,
        Strategy::PageRank,
        Strategy::Opic,
        Strategy::LargerSiteFirst,
        Strategy::ForwardLinkCount,
    ];

    /// The name used in the topic file.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::BestFirst => "best-first",
            Strategy::BreadthFirst => "breadth-first",
            Strategy::BacklinkCount => "backlink-count",
            Strategy::PageRank => "pagerank",
            Strategy::Opic => "opic",
            Strategy::LargerSiteFirst => "larger-site-first",
            Strategy::ForwardLinkCount => "forward-link-count",
        }
    }
}

/// Settings of the strategy (from the topic).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The strategy.
    pub strategy: Strategy,
    /// `pagerank`: recompute after this many pages (at least 1).
    pub pagerank_every: u64,
    /// `best-first` hold-back margin (see [`Prioritizer::hold_back`]).
    pub margin: f64,
    /// `best-first`: servers compete with their best URL's priority times their yield so far
    /// (see [`Prioritizer::host_yield`]).
    pub host_yield: bool,
}

/// A URL to push (again) into its host's queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Queued {
    /// Row id of the URL.
    pub id: i64,
    /// Its server, as an interned politeness key ([`Prioritizer::host_name`] spells it): no
    /// string is allocated per queued URL.
    pub host: u32,
    /// Depth.
    pub depth: u32,
    /// Sort key: higher first.
    pub key: f64,
    /// Current stamp: an entry with another stamp is stale.
    pub stamp: u64,
    /// Link priority (best-first's key, kept for every strategy: the report and redirects use it).
    pub priority: f64,
    /// Off-topic pages between the last on-topic page and this URL (tunnelling).
    pub hops: u32,
}

/// What the frontier keeps per waiting URL (the rest of a [`Queued`] is its id, the slot's
/// position in [`Slots`]): 20 bytes, so that millions of waiting URLs fit in memory. Keys and
/// priorities are kept in single precision: they only order URLs. A stamp of 0 marks an empty
/// slot (stamps handed out are never 0).
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: f32,
    priority: f32,
    stamp: u32,
    host: u32,
    depth: u16,
    hops: u16,
}

impl Slot {
    const EMPTY: Slot = Slot {
        key: 0.0,
        priority: 0.0,
        stamp: 0,
        host: 0,
        depth: 0,
        hops: 0,
    };

    fn is_empty(&self) -> bool {
        self.stamp == 0
    }
}

/// Slots per chunk of [`Slots`]: 1,024 × 20 bytes = 20 KiB.
const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;

/// The waiting URLs' slots, indexed by URL id. Ids are SQLite row ids handed out in discovery
/// order, so they are dense: a table cut in chunks of [`CHUNK`] ids costs 20 bytes per id of a
/// live chunk (a hash map costs 32 bytes per entry plus its control bytes, and twice that just
/// after it doubles, which is what the running crawl showed). A chunk is freed when its last
/// URL leaves, so a long crawl does not keep the slots of URLs settled long ago. Ids outside
/// `0..2^32` (never handed out by SQLite in practice) go to a map, so no id is refused.
#[derive(Debug, Clone, Default)]
struct Slots {
    chunks: Vec<Option<Box<[Slot]>>>,
    /// Occupied slots per chunk.
    filled: Vec<u32>,
    overflow: HashMap<i64, Slot>,
    len: usize,
}

impl Slots {
    /// Chunk and offset of a dense id.
    fn locate(id: i64) -> Option<(usize, usize)> {
        let id = u32::try_from(id).ok()?;
        Some(((id >> CHUNK_BITS) as usize, (id as usize) & (CHUNK - 1)))
    }

    fn get(&self, id: i64) -> Option<&Slot> {
        match Slots::locate(id) {
            Some((c, o)) => self
                .chunks
                .get(c)?
                .as_ref()?
                .get(o)
                .filter(|s| !s.is_empty()),
            None => self.overflow.get(&id),
        }
    }

    fn get_mut(&mut self, id: i64) -> Option<&mut Slot> {
        match Slots::locate(id) {
            Some((c, o)) => self
                .chunks
                .get_mut(c)?
                .as_mut()?
                .get_mut(o)
                .filter(|s| !s.is_empty()),
            None => self.overflow.get_mut(&id),
        }
    }

    /// Stores a slot (its stamp is not 0); returns the one it replaces.
    fn insert(&mut self, id: i64, slot: Slot) -> Option<Slot> {
        let Some((c, o)) = Slots::locate(id) else {
            let old = self.overflow.insert(id, slot);
            if old.is_none() {
                self.len += 1;
            }
            return old;
        };
        if self.chunks.len() <= c {
            self.chunks.resize(c + 1, None);
            self.filled.resize(c + 1, 0);
        }
        let chunk = self.chunks[c].get_or_insert_with(|| vec![Slot::EMPTY; CHUNK].into());
        let old = std::mem::replace(&mut chunk[o], slot);
        if old.is_empty() {
            self.filled[c] += 1;
            self.len += 1;
            None
        } else {
            Some(old)
        }
    }

    fn remove(&mut self, id: i64) -> Option<Slot> {
        let Some((c, o)) = Slots::locate(id) else {
            let old = self.overflow.remove(&id);
            if old.is_some() {
                self.len -= 1;
            }
            return old;
        };
        let chunk = self.chunks.get_mut(c)?.as_mut()?;
        let old = std::mem::replace(chunk.get_mut(o)?, Slot::EMPTY);
        if old.is_empty() {
            return None;
        }
        self.len -= 1;
        self.filled[c] -= 1;
        if self.filled[c] == 0 {
            self.chunks[c] = None;
        }
        Some(old)
    }

    fn len(&self) -> usize {
        self.len
    }

    /// The ids of the waiting URLs.
    fn ids(&self) -> impl Iterator<Item = i64> + '_ {
        let dense = self.chunks.iter().enumerate().flat_map(|(c, chunk)| {
            chunk.iter().flat_map(move |slots| {
                slots
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| !s.is_empty())
                    .map(move |(o, _)| ((c << CHUNK_BITS) + o) as i64)
            })
        });
        dense.chain(self.overflow.keys().copied())
    }
}

/// Partial PageRank: damping as in [`crate::focus::pagerank::DEFAULT_DAMPING`], loose tolerance
/// (the order matters, not the fourth decimal).
const PAGERANK_TOLERANCE: f64 = 1e-6;
const PAGERANK_MAX_ITER: usize = 50;

/// The frontier's priority state (see the module doc).
#[derive(Debug, Clone)]
pub struct Prioritizer {
    settings: Settings,
    next_stamp: u64,
    pending: Slots,
    /// Interned politeness keys (a slot names its host by index).
    host_names: Vec<String>,
    host_index: HashMap<String, u32>,
    host_pending: Vec<u64>,
    /// Pages judged per interned host, each counted by its weight as evidence
    /// ([`verdict_weight`]) in millionths of a page: (on topic, all), for
    /// [`Prioritizer::host_yield`]. Whole numbers, so that the sums do not depend on the order
    /// of the pages (a resumed crawl adds them up in id order, not in fetch order).
    host_judged: Vec<(u64, u64)>,
    index: HashMap<i64, usize>,
    edges: Vec<(usize, usize)>,
    edge_seen: HashSet<(usize, usize)>,
    out: Vec<Vec<usize>>,
    ids: Vec<i64>,
    indeg: Vec<u32>,
    best_parent_outdeg: Vec<u32>,
    cash: Vec<f64>,
    history: Vec<f64>,
    rank: Vec<f64>,
    pages_since_rank: u64,
    dirty: BTreeSet<i64>,
}

impl Prioritizer {
    /// An empty frontier state.
    pub fn new(settings: Settings) -> Prioritizer {
        Prioritizer {
            settings,
            next_stamp: 0,
            pending: Slots::default(),
            host_names: Vec::new(),
            host_index: HashMap::new(),
            host_pending: Vec::new(),
            host_judged: Vec::new(),
            index: HashMap::new(),
            edges: Vec::new(),
            edge_seen: HashSet::new(),
            out: Vec::new(),
            ids: Vec::new(),
            indeg: Vec::new(),
            best_parent_outdeg: Vec::new(),
            cash: Vec::new(),
            history: Vec::new(),
            rank: Vec::new(),
            pages_since_rank: 0,
            dirty: BTreeSet::new(),
        }
    }

    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.settings.strategy
    }

    /// Whether the strategy needs the link graph (in-links, out-links, cash, PageRank). The
    /// others keep nothing per link, which keeps the frontier small.
    pub fn needs_graph(&self) -> bool {
        matches!(
            self.settings.strategy,
            Strategy::BacklinkCount
                | Strategy::PageRank
                | Strategy::Opic
                | Strategy::ForwardLinkCount
        )
    }

    fn host_id(&mut self, host: &str) -> u32 {
        if let Some(&i) = self.host_index.get(host) {
            return i;
        }
        let i = u32::try_from(self.host_names.len()).unwrap_or(u32::MAX);
        self.host_names.push(host.to_string());
        self.host_index.insert(host.to_string(), i);
        self.host_pending.push(0);
        self.host_judged.push((0, 0));
        i
    }

    fn unpend(&mut self, id: i64) -> Option<Slot> {
        let slot = self.pending.remove(id)?;
        if let Some(n) = self.host_pending.get_mut(slot.host as usize) {
            *n = n.saturating_sub(1);
        }
        Some(slot)
    }

    /// The next stamp: never 0 (the mark of an empty slot), and different from the previous
    /// one of any URL (stamps wrap after 2^32 queue events, far apart for one URL).
    fn stamp(&mut self) -> u32 {
        loop {
            self.next_stamp += 1;
            let stamp = self.next_stamp as u32;
            if stamp != 0 {
                return stamp;
            }
        }
    }

    /// The politeness key of an interned host ("" for an id this prioritizer never gave).
    pub fn host_name(&self, host: u32) -> &str {
        self.host_names
            .get(host as usize)
            .map_or("", String::as_str)
    }

    fn queued(&self, id: i64, slot: &Slot) -> Queued {
        Queued {
            id,
            host: slot.host,
            depth: u32::from(slot.depth),
            key: f64::from(slot.key),
            stamp: u64::from(slot.stamp),
            priority: f64::from(slot.priority),
            hops: u32::from(slot.hops),
        }
    }

    fn node(&mut self, id: i64) -> usize {
        if let Some(&i) = self.index.get(&id) {
            return i;
        }
        let i = self.ids.len();
        self.index.insert(id, i);
        self.ids.push(id);
        self.out.push(Vec::new());
        self.indeg.push(0);
        self.best_parent_outdeg.push(0);
        self.cash.push(0.0);
        self.history.push(0.0);
        self.rank.push(0.0);
        i
    }

    /// Gives a seed its starting OPIC cash (1 each; only the ratios matter).
    pub fn seed(&mut self, id: i64) {
        if !self.needs_graph() {
            return;
        }
        let i = self.node(id);
        if self.cash[i] == 0.0 && self.history[i] == 0.0 {
            self.cash[i] = 1.0;
            self.dirty.insert(id);
        }
    }

    /// The key a URL would have now under the strategy.
    pub fn key(&self, id: i64, depth: u32, priority: f64) -> f64 {
        let node = self.index.get(&id).copied();
        let of = |v: &Vec<f64>| node.and_then(|i| v.get(i).copied()).unwrap_or(0.0);
        let key = match self.settings.strategy {
            Strategy::BestFirst => priority,
            Strategy::BreadthFirst | Strategy::LargerSiteFirst => -f64::from(depth),
            Strategy::BacklinkCount => {
                f64::from(node.and_then(|i| self.indeg.get(i).copied()).unwrap_or(0))
            }
            Strategy::ForwardLinkCount => f64::from(
                node.and_then(|i| self.best_parent_outdeg.get(i).copied())
                    .unwrap_or(0),
            ),
            Strategy::PageRank => of(&self.rank),
            Strategy::Opic => of(&self.cash),
        };
        if key.is_finite() { key } else { 0.0 }
    }

    /// Registers a URL entering the frontier; returns what to push.
    #[allow(clippy::too_many_arguments)]
    pub fn queue(&mut self, id: i64, host: &str, depth: u32, priority: f64, hops: u32) -> Queued {
        if self.needs_graph() {
            self.node(id);
        }
        self.unpend(id);
        let priority = if priority.is_finite() { priority } else { 0.0 };
        let host_id = self.host_id(host);
        let slot = Slot {
            key: self.key(id, depth, priority) as f32,
            priority: priority as f32,
            // Stamps only need to differ from the previous one of the same URL; depth and
            // tunnel hops are capped at 65,535.
            stamp: self.stamp(),
            host: host_id,
            depth: u16::try_from(depth).unwrap_or(u16::MAX),
            hops: u16::try_from(hops).unwrap_or(u16::MAX),
        };
        if let Some(n) = self.host_pending.get_mut(host_id as usize) {
            *n += 1;
        }
        self.pending.insert(id, slot);
        self.queued(id, &slot)
    }

    /// Whether a heap entry with this stamp is the URL's current one.
    pub fn is_live(&self, id: i64, stamp: u64) -> bool {
        self.pending
            .get(id)
            .is_some_and(|q| q.stamp == stamp as u32)
    }

    /// The URL leaves the frontier (fetch started, or settled without a fetch); returns what
    /// the frontier knew of it.
    pub fn taken(&mut self, id: i64) -> Option<Queued> {
        let slot = self.unpend(id)?;
        Some(self.queued(id, &slot))
    }

    /// URLs waiting in the frontier (live entries only).
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// URLs waiting on one host.
    pub fn host_pending(&self, host: &str) -> u64 {
        self.host_index
            .get(host)
            .and_then(|&i| self.host_pending.get(i as usize))
            .copied()
            .unwrap_or(0)
    }

    /// A link `src → dst` was seen, with the priority the link gives `dst`. A best-first URL
    /// still waiting takes the best priority any of its known parents gives it. Returns
    /// whether that raised its priority (which the crawl stores, so that a resumed crawl
    /// queues the URL where the interrupted one had it).
    pub fn link(&mut self, src: i64, dst: i64, priority: f64) -> bool {
        if self.needs_graph() {
            self.graph_link(src, dst);
        }
        if self.settings.strategy == Strategy::BestFirst
            && priority.is_finite()
            && let Some(q) = self.pending.get_mut(dst)
            && (priority as f32) > q.priority
        {
            q.priority = priority as f32;
            self.dirty.insert(dst);
            return true;
        }
        false
    }

    fn graph_link(&mut self, src: i64, dst: i64) {
        let s = self.node(src);
        let d = self.node(dst);
        if self.edge_seen.insert((s, d)) {
            self.edges.push((s, d));
            self.out[s].push(d);
            self.indeg[d] = self.indeg[d].saturating_add(1);
            if self.settings.strategy == Strategy::BacklinkCount {
                self.dirty.insert(dst);
            }
        }
    }

    /// Every link of page `src` has been seen: distribute its OPIC cash, credit its out-degree
    /// to the pages it links to, count it towards the next PageRank. Returns the URLs whose key
    /// changed (id order), to push again.
    pub fn page_done(&mut self, src: i64) -> Vec<Queued> {
        if !self.needs_graph() {
            return self.rekeys();
        }
        let s = self.node(src);
        let targets = self.out[s].clone();
        match self.settings.strategy {
            Strategy::Opic if !targets.is_empty() => {
                let share = self.cash[s] / targets.len() as f64;
                self.history[s] += self.cash[s];
                self.cash[s] = 0.0;
                for &t in &targets {
                    self.cash[t] += share;
                    self.dirty.insert(self.ids[t]);
                }
            }
            Strategy::ForwardLinkCount => {
                let outdeg = u32::try_from(targets.len()).unwrap_or(u32::MAX);
                for &t in &targets {
                    if outdeg > self.best_parent_outdeg[t] {
                        self.best_parent_outdeg[t] = outdeg;
                        self.dirty.insert(self.ids[t]);
                    }
                }
            }
            Strategy::PageRank => {
                self.pages_since_rank += 1;
                if self.pages_since_rank >= self.settings.pagerank_every.max(1) {
                    self.recompute_pagerank();
                }
            }
            _ => {}
        }
        self.rekeys()
    }

    /// Recomputes PageRank over the known graph and marks every waiting URL for re-keying.
    pub fn recompute_pagerank(&mut self) {
        self.pages_since_rank = 0;
        self.rank = crate::focus::pagerank::pagerank(
            self.ids.len(),
            &self.edges,
            crate::focus::pagerank::DEFAULT_DAMPING,
            PAGERANK_TOLERANCE,
            PAGERANK_MAX_ITER,
        );
        self.dirty.extend(self.pending.ids());
    }

    /// The waiting URLs whose key changed since they were pushed, with new stamps (id order).
    pub fn rekeys(&mut self) -> Vec<Queued> {
        let dirty = std::mem::take(&mut self.dirty);
        let mut out = Vec::new();
        for id in dirty {
            let Some(q) = self.pending.get(id).copied() else {
                continue;
            };
            let key = self.key(id, u32::from(q.depth), f64::from(q.priority)) as f32;
            if key.to_bits() == q.key.to_bits() {
                continue;
            }
            let stamp = self.stamp();
            if let Some(slot) = self.pending.get_mut(id) {
                slot.key = key;
                slot.stamp = stamp;
                let slot = *slot;
                out.push(self.queued(id, &slot));
            }
        }
        out
    }

    /// How a host's best entry compares with other hosts': its key, except for
    /// `larger-site-first`, where it is the number of URLs waiting on the host, and for
    /// `best-first` with `host_yield`, where it is [`Prioritizer::host_value`].
    pub fn host_rank(&self, host: &str, top_key: f64) -> f64 {
        match self.settings.strategy {
            Strategy::LargerSiteFirst => self.host_pending(host) as f64,
            Strategy::BestFirst => self.host_value(host, top_key),
            _ => top_key,
        }
    }

    /// A fetched page of `host` was judged: on topic (the formula holds on its text) or not,
    /// on a text of `tokens` tokens (`None`: unknown, a full page's evidence). Counted for
    /// every strategy (cheap), used by `best-first` only.
    pub fn page_judged(&mut self, host: &str, on_topic: bool, tokens: Option<u64>) {
        // In [0, 1], so in [0, 1e6] once scaled.
        let weight = (verdict_weight(on_topic, tokens) * MICRO).round() as u64;
        let i = self.host_id(host) as usize;
        if let Some((on, all)) = self.host_judged.get_mut(i) {
            if on_topic {
                *on = on.saturating_add(weight);
            }
            *all = all.saturating_add(weight);
        }
    }

    /// The server's yield so far: the share of its judged pages that were on topic, each page
    /// counted by its weight as evidence ([`verdict_weight`]), with a uniform prior (Laplace's
    /// rule of succession, `(on + 1) / (all + 2)`): ½ for a server never fetched, ⅔ after one
    /// on-topic page, ⅓ after one long off-topic page, and the observed share once there are
    /// many. In `(0, 1)`.
    pub fn host_yield(&self, host: &str) -> f64 {
        let (on, all) = self
            .host_index
            .get(host)
            .and_then(|&i| self.host_judged.get(i as usize))
            .copied()
            .unwrap_or((0, 0));
        (on as f64 / MICRO + 1.0) / (all as f64 / MICRO + 2.0)
    }

    /// The factor a server's keys are weighed by against other servers': its yield for
    /// `best-first` with `host_yield`, else 1.
    pub fn host_factor(&self, host: &str) -> f64 {
        if self.settings.strategy == Strategy::BestFirst && self.settings.host_yield {
            self.host_yield(host)
        } else {
            1.0
        }
    }

    /// What a URL of `host` with best-first key `key` is worth when servers compete for a
    /// request slot: the key times [`Prioritizer::host_factor`] (the link priority estimates
    /// the page from its links, the yield from what the server actually served: a site whose
    /// pages keep failing the formula loses its turn to one whose pages pass it, however its
    /// links read). Within one server the factor is the same for every URL, so it never
    /// reorders a server's queue and needs no re-keying.
    pub fn host_value(&self, host: &str, key: f64) -> f64 {
        key * self.host_factor(host)
    }

    /// The level the hold-back rule compares servers with, from each candidate server's best
    /// key (waiting, or being fetched): the best value, and the largest factor among them
    /// (None without candidates).
    pub fn hold_back_level<'a>(
        &self,
        candidates: impl IntoIterator<Item = (&'a str, f64)>,
    ) -> Option<Level> {
        let mut level: Option<Level> = None;
        for (host, key) in candidates {
            let factor = self.host_factor(host);
            let value = key * factor;
            level = Some(match level {
                None => Level {
                    best: value,
                    top_factor: factor,
                },
                Some(l) => Level {
                    best: l.best.max(value),
                    top_factor: l.top_factor.max(factor),
                },
            });
        }
        level
    }

    /// The hold-back rule of a focused crawl (best-first only): a server whose best URL is
    /// at least `margin` below the best URL waiting anywhere (or being fetched: the crawl
    /// passes the keys of the requests in flight) is not given a request, even if it is free
    /// and the better server is busy or waiting out its delay. Without it, one request per
    /// server means the free request slots go to off-topic servers and part of the budget is
    /// spent off topic. It applies from the first request: early in a crawl the frontier is
    /// smaller than the budget but grows with every page, so "the budget can take every
    /// waiting URL" does not mean it will take every URL found.
    ///
    /// With `host_yield` the two sides are values (key × yield) divided by the largest yield
    /// among the candidate servers ([`Level`]): the margin stays in link-priority units (those
    /// of the best-yield server), and servers of equal yield compare exactly as their keys do.
    /// Divided by nothing, yields below 1 would shrink every value and so widen the margin:
    /// early in a crawl, when every yield is about ½, the rule would hold back only half as
    /// much as without the yield.
    pub fn hold_back(&self, host: &str, top_key: f64, level: Level, budget_left: u64) -> bool {
        if !self.may_hold_back(budget_left) {
            return false;
        }
        // Factors are yields in (0, 1), or 1: never 0.
        let scale = if level.top_factor > 0.0 {
            level.top_factor
        } else {
            1.0
        };
        let gap = (level.best - self.host_value(host, top_key)) / scale;
        // "At least the margin below", up to rounding: with the default weights an anchor that
        // names the topic lifts a link by exactly the default margin (0.2), so a hub's links
        // that differ by that evidence alone must be held apart; a tie is never held back.
        gap > HOLD_BACK_ROUNDING && gap >= self.settings.margin - HOLD_BACK_ROUNDING
    }

    /// Whether the hold-back rule can apply at all now (so the crawl need not look for the
    /// best URL waiting anywhere when it cannot): best-first with some budget left, and a
    /// margin below 1 (keys are in `[0, 1]`, so a margin of 1 turns the rule off).
    pub fn may_hold_back(&self, budget_left: u64) -> bool {
        self.settings.strategy == Strategy::BestFirst
            && budget_left > 0
            && self.settings.margin < 1.0
    }
}

/// A page's weight in a server's yield is counted in millionths of a page.
const MICRO: f64 = 1e6;

/// Priorities are sums of weighted terms, and the frontier keeps keys in single precision
/// (about 7 significant digits): two gaps equal on paper may differ by a few 1e-8.
const HOLD_BACK_ROUNDING: f64 = 1e-6;

/// What the hold-back rule compares a server with (see [`Prioritizer::hold_back`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// The best value (key × factor) waiting on a server that may still be asked, or being
    /// fetched.
    pub best: f64,
    /// The largest factor among the servers that have such URLs.
    pub top_factor: f64,
}

/// How much one judged page tells about its server's yield, in `[0, 1]`. A page that satisfies
/// the formula is one full observation whatever its length: the topic's words are there. A page
/// that fails it is evidence in proportion to the chance that an on-topic text of its length
/// would have shown one of the topic's words: `1 − (1 − d)^tokens`, with `d` the density of a
/// strongly on-topic page ([`STRONG_DENSITY`], one topic word in fifty). A footnote, an index
/// entry or a figure page of ten words that misses every term says little (0.18); a page of 200
/// words says nearly all (0.98); an empty page says nothing. Without it a manual whose many
/// short pages name no topic word looked like a poor server, and one page of another server
/// that matched one word outbid it.
pub fn verdict_weight(on_topic: bool, tokens: Option<u64>) -> f64 {
    match (on_topic, tokens) {
        (true, _) | (false, None) => 1.0,
        (false, Some(n)) => {
            let n = i32::try_from(n).unwrap_or(i32::MAX);
            1.0 - (1.0 - STRONG_DENSITY).powi(n)
        }
    }
}

/// Tunnelling (Bergmark et al. 2002): the off-topic pages in a row ending at a fetched page,
/// given the count before it (`hops` of its URL) and whether it is on topic.
pub fn hops_after(hops_before: u32, on_topic: bool) -> u32 {
    if on_topic {
        0
    } else {
        hops_before.saturating_add(1)
    }
}

/// Whether the links of a page that ends `run` off-topic pages in a row are followed, with the
/// topic's limit (`None`: no limit).
pub fn may_expand(run: u32, limit: Option<u32>) -> bool {
    limit.is_none_or(|n| run <= n)
}

#[cfg(test)]
mod tests;
