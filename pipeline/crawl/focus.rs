//! The priority side of the crawl loop: strategies, lazy re-keying, the host hold-back rule,
//! the servers' yields, tunnelling, and the seed centroid of the topic score.
//!
//! **In:** the crawl's events (URL queued, page settled with its links and its formula
//! verdict, URL taken), the topic's `[crawl] strategy`, `[focus]` and `[score]` tables.
//! **Out:** heap entries with keys and stamps, re-keyed entries, the hold-back level and
//! decisions, the centroid (learned once every seed is settled, stored in `crawl.sqlite` and
//! shared with the page analysis), `tunnel-limit` decisions.
//!
//! **Invariants:** the priority functions themselves are pure (`stages::focus::strategy`,
//! `stages::focus::score`, `stages::focus::centroid`); this module only feeds them and keeps the heaps in
//! step: a heap entry is *live* when its stamp is the URL's current one, and only live
//! entries are fetched, counted or explained. Everything a resumed crawl needs to give the same
//! keys is in `crawl.sqlite` (links, fetch order, tunnel hops, centroid, seed term counts,
//! the fetched pages' verdicts for the servers' yields).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use stages::focus::centroid::{Centroid, TermCounter, TermCounts};
use stages::focus::formula::{Formula, PreparedText};
use stages::focus::score::Weights;
use stages::focus::strategy::{Level, Queued, Settings, Strategy};
use stages::page::extract::{Link, LinkKind};

use super::{Crawler, Entry, Job};
use crate::store::Via;
use crate::topic::Topic;

/// Meta key of the stored centroid.
const CENTROID_KEY: &str = "focus_centroid";

/// What the page analysis (on the blocking pool) shares with the loop: the term counter and,
/// once learned, the centroid.
#[derive(Debug)]
pub struct Shared {
    /// Counts the terms of a text (formula folding, topic stop words).
    pub counter: TermCounter,
    /// The weights of `S(p)` and of the link priority.
    pub weights: Weights,
    /// The seed centroid, once every seed is settled.
    pub centroid: OnceLock<Centroid>,
    /// Pointer scores of the texts links were scored on lately, by a 64-bit fingerprint of the
    /// formula and the text: a site repeats its navigation (same anchors, same surroundings,
    /// same URLs) on every page, and with the centroid learned a text's score never changes.
    /// Emptied when it reaches [`POINTER_CACHE_ENTRIES`], so its memory is bounded.
    pointer_cache: Mutex<HashMap<u64, f64>>,
}

/// Entries of the pointer-score cache before it is emptied (about 2 MB at most).
const POINTER_CACHE_ENTRIES: usize = 65_536;

impl Shared {
    /// The shared state of a topic (no centroid yet).
    pub fn new(topic: &Topic) -> Shared {
        Shared {
            counter: TermCounter::new(topic.formula.options(), &topic.file.languages),
            weights: topic.file.score,
            centroid: OnceLock::new(),
            pointer_cache: Mutex::new(HashMap::new()),
        }
    }

    /// [`Shared::pointer_score_with`] through the cache. Only with the centroid learned: before
    /// that a text's score is provisional, and the seeds are few.
    fn cached_pointer_score(
        &self,
        formula_key: u64,
        formula: &Formula,
        centroid: Option<&Centroid>,
        text: &str,
    ) -> f64 {
        if centroid.is_none() {
            return self.pointer_score_with(formula, centroid, text);
        }
        let key = {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            formula_key.hash(&mut hasher);
            text.hash(&mut hasher);
            hasher.finish()
        };
        // A poisoned lock only means another analysis panicked mid-insert: the map is still a
        // valid cache.
        let cached = self
            .pointer_cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .copied();
        if let Some(score) = cached {
            return score;
        }
        let score = self.pointer_score_with(formula, centroid, text);
        let mut cache = self
            .pointer_cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() >= POINTER_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, score);
        score
    }

    /// Score in `[0, 1]` of a short text that points somewhere (anchor and its context, or a
    /// URL's words): 1 when it contains a positive formula term, else its similarity to the
    /// seed centroid (0 before it is learned).
    pub fn pointer_score(&self, formula: &Formula, text: &str) -> f64 {
        self.pointer_score_with(formula, self.centroid.get(), text)
    }

    /// [`Shared::pointer_score`] with the centroid read once by the caller. The text is
    /// tokenised once: the formula and the centroid read the same prepared text.
    fn pointer_score_with(
        &self,
        formula: &Formula,
        centroid: Option<&Centroid>,
        text: &str,
    ) -> f64 {
        let prepared = PreparedText::new(text, formula.options());
        if formula.evaluate_prepared(&prepared).hits > 0 {
            return 1.0;
        }
        centroid.map_or(0.0, |c| self.similarity(c, &prepared, text))
    }

    /// Similarity of a prepared text to the centroid, from the prepared tokens when the
    /// formula and the term counter fold alike (always, for the topic's own formula).
    pub fn similarity(&self, centroid: &Centroid, prepared: &PreparedText, text: &str) -> f64 {
        if prepared.options() == self.counter.options() {
            centroid.similarity_of(self.counter.terms(prepared))
        } else {
            centroid.similarity(&self.counter.count(text))
        }
    }

    /// The out-links of a page, one per distinct URL in order of first appearance, scored:
    /// the URL's words once, and the best anchor score over its occurrences (the priority a
    /// page gives a URL is the best its links give it, as the crawl's re-keying of a second
    /// link to a waiting URL would make it), with the first occurrence's kind and anchor text
    /// and the number of occurrences (the link table counts them).
    pub fn score_links(&self, formula: &Formula, links: &[Link]) -> Vec<ScoredLink> {
        let centroid = self.centroid.get();
        // The formula's normalised form keys the cache, so a score is never reused for another
        // formula.
        let formula_key = {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            formula.to_string().hash(&mut hasher);
            formula.options().hash(&mut hasher);
            hasher.finish()
        };
        let mut out: Vec<ScoredLink> = Vec::with_capacity(links.len());
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(links.len());
        let mut around = String::new();
        let mut words = String::new();
        for link in links {
            let i = match seen.get(link.url.as_str()) {
                Some(&i) => i,
                None => {
                    url_words_into(&link.url, &mut words);
                    let url_score =
                        self.cached_pointer_score(formula_key, formula, centroid, &words);
                    seen.insert(&link.url, out.len());
                    out.push((
                        link.url.clone(),
                        link.kind,
                        link.anchor.clone(),
                        0.0,
                        url_score,
                        0,
                    ));
                    out.len() - 1
                }
            };
            let Some(row) = out.get_mut(i) else {
                continue;
            };
            row.5 = row.5.saturating_add(1);
            // A URL whose anchor already names the topic cannot score higher.
            if row.5 > 1 && row.3 >= 1.0 {
                continue;
            }
            around.clear();
            around.push_str(&link.anchor);
            around.push(' ');
            around.push_str(&link.context);
            let anchor = self.cached_pointer_score(formula_key, formula, centroid, &around);
            row.3 = row.3.max(anchor);
        }
        out
    }
}

/// A distinct out-link of a page: absolute URL, kind and anchor text of its first occurrence,
/// best anchor score, URL score (both in `[0, 1]`), number of occurrences on the page.
pub type ScoredLink = (String, LinkKind, String, f64, f64, u32);

/// The words of a URL, into a reused buffer: host labels are left out (they name the site,
/// not the page), the path and query are decoded and left for the formula's tokeniser to split
/// on punctuation. The links of a page are serialised `http(s)` URLs (the
/// extract stage resolves them with the `url` crate), whose path starts at the first `/` after
/// `://` and whose query at the first `?` after that: cut there rather than parse each URL
/// again. Anything else is parsed.
fn url_words_into(url: &str, out: &mut String) {
    out.clear();
    let (path, query) = match split_serialised(url) {
        Some(parts) => parts,
        None => match url::Url::parse(url) {
            Ok(u) => {
                let mut bytes = Vec::new();
                percent_decode_into(u.path(), &mut bytes);
                bytes.push(b' ');
                percent_decode_into(u.query().unwrap_or_default(), &mut bytes);
                out.push_str(&String::from_utf8_lossy(&bytes));
                return;
            }
            Err(_) => return,
        },
    };
    let mut bytes = Vec::with_capacity(path.len() + query.len() + 1);
    percent_decode_into(path, &mut bytes);
    bytes.push(b' ');
    percent_decode_into(query, &mut bytes);
    out.push_str(&String::from_utf8_lossy(&bytes));
}

/// Path and query of a serialised `http(s)` URL without fragment; None for anything the `url`
/// crate would not have written that way.
fn split_serialised(url: &str) -> Option<(&str, &str)> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    if !url.is_ascii() || url.contains(['#', '\\', ' ']) {
        return None;
    }
    let slash = rest.find('/')?;
    if rest.get(..slash)?.contains('?') {
        return None;
    }
    let path_and_query = rest.get(slash..)?;
    Some(match path_and_query.split_once('?') {
        Some((path, query)) => (path, query),
        None => (path_and_query, ""),
    })
}

/// Appends `s` percent-decoded to `out` (malformed escapes are kept as written).
fn percent_decode_into(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
}

/// The seeds the centroid waits for: seed URLs and their redirect targets not settled yet.
#[derive(Debug, Default)]
pub struct SeedWatch {
    waiting: HashSet<i64>,
    terms: Vec<(i64, TermCounts)>,
}

impl SeedWatch {
    /// Waits for no seed (a worker of a shared crawl fetches only some of them).
    pub fn forget_waiting(&mut self) {
        self.waiting.clear();
    }
}

/// The strategy settings of a topic.
pub fn settings(topic: &Topic) -> Settings {
    Settings {
        strategy: topic.file.crawl.strategy,
        pagerank_every: topic.file.focus.pagerank_every,
        margin: topic.file.focus.margin,
        host_yield: topic.file.focus.host_yield,
    }
}

impl Crawler<'_> {
    /// Puts a URL in its host's queue with the strategy's key — or, over the in-memory
    /// budget, leaves it in the database (see [`Crawler::dequeue`]).
    pub(super) fn queue_url(&mut self, host: &str, id: i64, depth: u32, priority: f64, hops: u32) {
        if self.worker.is_some() {
            // A worker queues only what the shared frontier hands it (see `lease`).
            self.hand_over(host, id, depth, priority, hops);
            return;
        }
        // Over the budget the URL lives in the database only (it is already there, queued) —
        // except a server's first one: a server with an empty queue could never be picked,
        // and its URLs on disk are read back only when its queue runs dry.
        if self.in_memory >= self.ctx.topic.file.crawl.frontier_in_memory {
            let h = self.host_mut(host);
            if !h.queue.is_empty() {
                h.on_disk += 1;
                return;
            }
        }
        let q = self.prio.queue(id, host, depth, priority, hops);
        self.push_queued(q, 0, false);
    }

    /// A URL put straight into its server's in-memory queue: read back from the database
    /// (it was over the in-memory budget), or handed to this worker by the shared frontier
    /// (the amount taken at a time bounds the memory; see `lease`).
    pub(super) fn queue_in_memory(
        &mut self,
        host: &str,
        id: i64,
        depth: u32,
        priority: f64,
        hops: u32,
    ) {
        let q = self.prio.queue(id, host, depth, priority, hops);
        self.push_queued(q, 0, false);
    }

    /// A stored page to fetch again conditionally (`--revisit`).
    pub(super) fn queue_revisit(&mut self, host: &str, id: i64, depth: u32, priority: f64) {
        let q = self.prio.queue(id, host, depth, priority, 0);
        self.revisits.insert(id);
        self.push_queued(q, 0, true);
    }

    /// A URL whose request failed in a way worth another try: back in its queue (its count of
    /// requests stored, so that a resumed crawl tries it no more often than this one would).
    pub(super) fn requeue_retry(&mut self, host: &str, job: &Job) -> anyhow::Result<()> {
        self.store.set_attempts(job.id, job.attempts + 1)?;
        let q = self
            .prio
            .queue(job.id, host, job.depth, job.priority, job.hops);
        self.push_queued(q, job.attempts + 1, job.revisit);
        Ok(())
    }

    /// The frontier has taken in the links of page `id`: the strategy re-keys what that
    /// changed (graph strategies store the moment, to replay it on resume).
    pub(super) fn links_taken_in(&mut self, id: i64) -> anyhow::Result<()> {
        if self.prio.needs_graph() {
            self.store.page_done(id)?;
        }
        let rekeyed = self.prio.page_done(id);
        self.push_rekeyed(rekeyed);
        Ok(())
    }

    fn push_queued(&mut self, q: Queued, attempts: u32, revisit: bool) {
        if revisit {
            self.revisits.insert(q.id);
        }
        if attempts > 0 {
            self.attempts.insert(q.id, attempts);
        }
        let entry = Entry {
            id: q.id,
            key: q.key as f32,
            stamp: q.stamp as u32,
        };
        // The host is named by the prioritizer's interned key, borrowed: no string per URL.
        let host = self.prio.host_name(q.host);
        if let Some(h) = self.hosts.get_mut(host) {
            h.queue.push(entry);
            super::schedule::mark_host(&mut self.sched, h);
            self.in_memory += 1;
        } else {
            let host = host.to_string();
            self.enqueue(&host, entry);
        }
    }

    /// Pushes again the URLs whose key changed (their old entries become stale).
    pub(super) fn push_rekeyed(&mut self, rekeyed: Vec<Queued>) {
        for q in rekeyed {
            self.push_queued(q, 0, false);
        }
    }

    /// The host's best live entry, removed from its queue (stale entries are dropped).
    pub(super) fn pop_live(&mut self, host_key: &str) -> Option<Entry> {
        let host = self.hosts.get_mut(host_key)?;
        super::schedule::mark_host(&mut self.sched, host);
        while let Some(entry) = host.queue.pop() {
            if self.prio.is_live(entry.id, u64::from(entry.stamp)) {
                return Some(entry);
            }
        }
        None
    }

    /// Whether the hold-back rule keeps this host waiting (see `Prioritizer::hold_back`): its
    /// best URL against the level.
    pub(super) fn held_back(
        &self,
        host: &str,
        top_key: f64,
        level: Option<Level>,
        max_pages: u64,
    ) -> bool {
        let left = max_pages.saturating_sub(self.requests_total);
        level.is_some_and(|level| self.prio.hold_back(host, top_key, level, left))
    }

    /// A fetched page of `host` was judged by the formula (on its visible text, of `tokens`
    /// tokens): the server's yield, which weighs its URLs against other servers' (`[focus]
    /// host_yield`).
    pub(super) fn page_judged(&mut self, host: &str, on_topic: bool, tokens: Option<u64>) {
        self.prio.page_judged(host, on_topic, tokens);
        // Its yield weighs its rank and its value in the hold-back rule.
        self.mark(host);
    }

    /// Rebuilds the strategy state from `crawl.sqlite` (a resumed crawl), then queues the
    /// frontier with the keys the interrupted crawl would have given.
    pub(super) fn restore_focus(&mut self) -> anyhow::Result<()> {
        if self.ctx.pass.monitor {
            // A monitor round revisits stored pages only (the crawl's frontier waits for the
            // crawl) and scores them with the centroid the crawl learned.
            if let Some(json) = self.store.meta(CENTROID_KEY)?
                && let Ok(c) = serde_json::from_str::<Centroid>(&json)
            {
                let _ = self.ctx.focus.centroid.set(c);
            }
            return Ok(());
        }
        let seeds = self.store.seed_ids()?;
        for &id in &seeds {
            self.prio.seed(id);
        }
        let links = self.store.link_pairs()?;
        if self.prio.needs_graph() {
            self.replay_graph(&links)?;
        }
        // The servers' yields, from the verdicts of the pages fetched so far.
        for (host, on_topic, tokens) in self.store.judged_pages()? {
            self.prio.page_judged(&host, on_topic, tokens);
        }
        let hops = self.store.hops()?;
        let seed_set: HashSet<i64> = seeds.iter().copied().collect();
        for q in self.store.queued()? {
            let h = hops.get(&q.id).copied().unwrap_or(0);
            // A redirect target still queued may be a seed's page: wait for it too.
            if seed_set.contains(&q.id) || (q.via == Via::Redirect && self.store.is_seed(q.id)?) {
                self.seeds.waiting.insert(q.id);
            }
            self.queue_url(&q.host, q.id, q.depth, q.priority, h);
        }
        self.prio.rekeys();
        if let Some(json) = self.store.meta(CENTROID_KEY)? {
            if let Ok(c) = serde_json::from_str::<Centroid>(&json) {
                let _ = self.ctx.focus.centroid.set(c);
            }
        } else {
            for json in self.store.seed_terms()? {
                if let Ok(t) = serde_json::from_str::<TermCounts>(&json) {
                    self.seeds.terms.push((0, t));
                }
            }
            self.maybe_learn()?;
        }
        Ok(())
    }

    /// Rebuilds the known link graph, cash and partial PageRank as the interrupted crawl built
    /// them: each page's links, then its `page_done`, in the order the crawl took them in (the
    /// PageRank is recomputed at the same pages, over the graph known then). A run folder of an
    /// older glaneur has no such order: its links, then the fetched pages in fetch order.
    fn replay_graph(&mut self, links: &[(i64, i64)]) -> anyhow::Result<()> {
        let order = self.store.page_done_order()?;
        if order.is_empty() {
            for &(src, dst) in links {
                self.prio.link(src, dst, 0.0);
            }
            if matches!(
                self.prio.strategy(),
                Strategy::Opic | Strategy::ForwardLinkCount
            ) {
                for id in self.store.fetch_order()? {
                    self.prio.page_done(id);
                }
            }
            if self.prio.strategy() == Strategy::PageRank && !links.is_empty() {
                self.prio.recompute_pagerank();
            }
            return Ok(());
        }
        let mut by_source: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(src, dst) in links {
            by_source.entry(src).or_default().push(dst);
        }
        for id in order {
            for dst in by_source.remove(&id).unwrap_or_default() {
                self.prio.link(id, dst, 0.0);
            }
            self.prio.page_done(id);
        }
        // Links of pages not taken in yet (a crash between the two): known all the same.
        let mut rest: Vec<(i64, Vec<i64>)> = by_source.into_iter().collect();
        rest.sort_unstable_by_key(|(src, _)| *src);
        for (src, dsts) in rest {
            for dst in dsts {
                self.prio.link(src, dst, 0.0);
            }
        }
        Ok(())
    }

    /// A seed's page (or a step towards it) is settled: keep its terms when it is in `G_F`,
    /// and learn the centroid once no seed is waiting.
    pub(super) fn seed_settled(
        &mut self,
        id: i64,
        in_gf: Option<&TermCounts>,
    ) -> anyhow::Result<()> {
        if !self.seeds.waiting.remove(&id) {
            return Ok(());
        }
        if let Some(terms) = in_gf {
            self.store.set_meta(
                &format!("focus_seed_terms:{id}"),
                &serde_json::to_string(terms)?,
            )?;
            self.seeds.terms.push((id, terms.clone()));
        }
        self.maybe_learn()
    }

    /// Seeds entering the frontier for the first time (a fresh crawl) are watched.
    pub(super) fn watch_seed(&mut self, id: i64) {
        self.seeds.waiting.insert(id);
    }

    /// Whether `id` is a seed (or a seed's redirect step) the centroid waits for.
    pub(super) fn is_watched(&self, id: i64) -> bool {
        self.seeds.waiting.contains(&id)
    }

    fn maybe_learn(&mut self) -> anyhow::Result<()> {
        if !self.seeds.waiting.is_empty() || self.ctx.focus.centroid.get().is_some() {
            return Ok(());
        }
        let mut docs: Vec<(i64, TermCounts)> = std::mem::take(&mut self.seeds.terms);
        docs.sort_by_key(|(id, _)| *id);
        let counts: Vec<TermCounts> = docs.into_iter().map(|(_, t)| t).collect();
        if let Some(c) = Centroid::learn(&counts) {
            self.store
                .set_meta(CENTROID_KEY, &serde_json::to_string(&c)?)?;
            let top: Vec<&str> = c.terms.iter().take(8).map(|t| t.term.as_str()).collect();
            self.progress.note(&format!(
                "topic centroid learned from {} seed pages: {} …",
                c.documents,
                top.join(", ")
            ));
            let _ = self.ctx.focus.centroid.set(c);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_words(url: &str) -> String {
        let mut words = String::new();
        url_words_into(url, &mut words);
        words
    }

    #[test]
    fn url_words_are_the_decoded_path_and_query() {
        assert_eq!(
            url_words("http://docs.gimp.test/fr/gimp-calques%C3%A9.html?q=pixel"),
            "/fr/gimp-calquesé.html q=pixel"
        );
        assert_eq!(url_words("not a url"), "");
        assert_eq!(url_words("http://a.test/%zz%4"), "/%zz%4 ");
    }

    #[test]
    fn cutting_a_serialised_url_gives_what_parsing_it_gives() {
        let parsed = |raw: &str| {
            let u = url::Url::parse(raw).unwrap();
            let mut bytes = Vec::new();
            percent_decode_into(u.path(), &mut bytes);
            bytes.push(b' ');
            percent_decode_into(u.query().unwrap_or_default(), &mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        };
        for raw in [
            "http://a.test/",
            "https://user:p%2Fw@a.test:8080/x/y%20z.html?a=1&b=%C3%A9#frag",
            "http://[::1]/calque?x=/y",
            "http://a.test?x/y",
            "http://A.test",
            "http://a.test/é/calque",
            "http://a.test/%FF%FE?%E9",
            "http://a.test\\calques\\page",
        ] {
            let canonical = url::Url::parse(raw).unwrap().to_string();
            assert_eq!(url_words(&canonical), parsed(raw), "{canonical}");
            assert_eq!(url_words(raw), parsed(raw), "{raw}");
        }
    }

    fn link(url: &str, kind: LinkKind, anchor: &str, context: &str) -> Link {
        Link {
            url: url.to_string(),
            anchor: anchor.to_string(),
            context: context.to_string(),
            kind,
            nofollow: false,
        }
    }

    #[test]
    fn links_to_one_url_are_scored_once_with_their_best_anchor() {
        let formula = Formula::parse("calque").unwrap();
        let shared = Shared {
            counter: TermCounter::new(formula.options(), &[]),
            weights: Weights::default(),
            centroid: OnceLock::new(),
            pointer_cache: Mutex::new(HashMap::new()),
        };
        let links = [
            link("http://a.test/x", LinkKind::LinkRel, "suivant", ""),
            link("http://a.test/y", LinkKind::Anchor, "page", "rien"),
            link("http://a.test/x", LinkKind::Anchor, "le calque", ""),
            link("http://a.test/x", LinkKind::Anchor, "encore", ""),
            link("http://a.test/calque.html", LinkKind::Anchor, "là", ""),
        ];
        let scored = shared.score_links(&formula, &links);
        let got: Vec<(&str, LinkKind, &str, f64, f64, u32)> = scored
            .iter()
            .map(|(u, k, a, s, us, n)| (u.as_str(), *k, a.as_str(), *s, *us, *n))
            .collect();
        assert_eq!(
            got,
            [
                ("http://a.test/x", LinkKind::LinkRel, "suivant", 1.0, 0.0, 3),
                ("http://a.test/y", LinkKind::Anchor, "page", 0.0, 0.0, 1),
                (
                    "http://a.test/calque.html",
                    LinkKind::Anchor,
                    "là",
                    0.0,
                    1.0,
                    1
                ),
            ]
        );
        // The same scores as one text at a time.
        assert_eq!(shared.pointer_score(&formula, "le calque "), 1.0);
        assert_eq!(shared.pointer_score(&formula, "/calque.html "), 1.0);
    }

    #[test]
    fn with_a_centroid_pointer_texts_score_by_similarity() {
        let formula = Formula::parse("zzz").unwrap();
        let counter = TermCounter::new(formula.options(), &[]);
        let centroid = Centroid::learn(&[
            counter.count("calques pixels calques"),
            counter.count("pixels"),
        ])
        .unwrap();
        let shared = Shared {
            counter,
            weights: Weights::default(),
            centroid: OnceLock::from(centroid),
            pointer_cache: Mutex::new(HashMap::new()),
        };
        let links = [
            link(
                "http://a.test/pixels",
                LinkKind::Anchor,
                "serveur",
                "apache",
            ),
            link(
                "http://a.test/pixels",
                LinkKind::Anchor,
                "des calques",
                "et pixels",
            ),
        ];
        let scored = shared.score_links(&formula, &links);
        assert_eq!(scored.len(), 1);
        let (_, _, anchor, anchor_score, url_score, count) = &scored[0];
        assert_eq!((anchor.as_str(), *count), ("serveur", 2));
        let c = shared.centroid.get().unwrap();
        let best = c.similarity(&shared.counter.count("des calques et pixels"));
        assert!(best > 0.0);
        assert_eq!(anchor_score.to_bits(), best.to_bits());
        assert_eq!(
            url_score.to_bits(),
            c.similarity(&shared.counter.count("/pixels ")).to_bits()
        );
        // Scored again, from the cache: the same figures; another formula is not served the
        // first one's scores.
        assert_eq!(shared.score_links(&formula, &links), scored);
        let other = Formula::parse("pixels").unwrap();
        let rescored = shared.score_links(&other, &links);
        assert_eq!((rescored[0].3, rescored[0].4), (1.0, 1.0));
    }
}
