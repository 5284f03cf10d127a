//! Building a [`LinkGraph`] a node and an edge at a time, into columns.
//!
//! **In:** nodes (as [`PageNode`] values, read and not kept), then edges by URL id with their
//! anchor text borrowed from the caller's row.
//! **Out:** the graph: one column per node fact, URLs in one buffer, hosts, languages and
//! reasons as ids into one [`StrPool`], edge targets grouped by source; targets, anchors and
//! counts held (each distinct anchor once) or written to the caller's sinks
//! ([`LinkGraphBuilder::outside`]).
//!
//! **Invariants:** node order is the order given; edges keep the order given within a source
//! (a store's `ORDER BY src, dst` arrives grouped already, and is then neither copied nor
//! sorted); memory is the final graph plus, when held, the anchors' hash table, never a second
//! copy of the edges when they arrive grouped and their number is given. Written outside, the
//! edges must arrive grouped by source in node order (the records are the final order).

use std::collections::HashMap;
use std::io::Write as _;

use super::scratch::ScratchStore;
use super::targets::{self, Targets};
use super::texts::{self, Outside, Texts};
use super::{LinkGraph, NodeRef, PageNode, Reach};
use crate::pool::StrPool;

/// "No value" in the integer columns.
const NONE_I32: i32 = i32::MIN;
const NONE_U32: u32 = u32::MAX;

/// Bits of [`Columns::flags`].
const VERDICT_KNOWN: u8 = 1;
const VERDICT_TRUE: u8 = 2;
const KEPT: u8 = 4;
const REACH_SHIFT: u8 = 3;

/// The nodes, one vector per fact (about 40 bytes a node plus its URL).
#[derive(Debug, Default)]
pub(super) struct Columns {
    ids: Ids,
    /// The URLs one after the other; node `i`'s ends at `url_ends[i]`.
    urls: String,
    url_ends: Vec<usize>,
    /// Hosts, languages and reasons, by id into `labels`.
    host: Vec<u32>,
    language: Vec<u32>,
    reason: Vec<u32>,
    labels: StrPool,
    depth: Vec<i32>,
    status: Vec<i32>,
    tokens: Vec<u32>,
    /// NaN for no score.
    score: Vec<f64>,
    flags: Vec<u8>,
    /// When the ids do not arrive in increasing order, their positions; else empty (a binary
    /// search of `ids` then finds them).
    index: HashMap<i64, usize>,
}

/// The nodes' URL ids. A store's ids are its row ids, one after the other: while they come
/// so, only the first and the count are kept (8 bytes a node less at a million URLs).
#[derive(Debug, Default)]
struct Ids {
    first: i64,
    len: usize,
    /// Every id, once one did not follow the one before.
    listed: Option<Vec<i64>>,
}

impl Ids {
    fn get(&self, i: usize) -> Option<i64> {
        match &self.listed {
            Some(ids) => ids.get(i).copied(),
            None => (i < self.len).then(|| self.first.wrapping_add(i as i64)),
        }
    }

    fn last(&self) -> Option<i64> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// The position of `id` when the ids are increasing.
    fn find_sorted(&self, id: i64) -> Option<usize> {
        match &self.listed {
            Some(ids) => ids.binary_search(&id).ok(),
            None => {
                let i = usize::try_from(id.checked_sub(self.first)?).ok()?;
                (i < self.len).then_some(i)
            }
        }
    }

    fn push(&mut self, id: i64) {
        if self.listed.is_none()
            && self.len > 0
            && self.last().and_then(|l| l.checked_add(1)) != Some(id)
        {
            self.listed = Some((0..self.len).filter_map(|i| self.get(i)).collect());
        }
        match &mut self.listed {
            Some(ids) => ids.push(id),
            None if self.len == 0 => self.first = id,
            None => {}
        }
        self.len += 1;
    }

    fn shrink(&mut self) {
        if let Some(ids) = &mut self.listed {
            ids.shrink_to_fit();
        }
    }
}

fn small(v: Option<i64>) -> i32 {
    // Depths and statuses are small; a value out of range is clamped rather than lost.
    v.map_or(NONE_I32, |v| {
        v.clamp(i64::from(NONE_I32) + 1, i64::from(i32::MAX)) as i32
    })
}

fn wide(v: i32) -> Option<i64> {
    (v != NONE_I32).then_some(i64::from(v))
}

impl Columns {
    pub(super) fn len(&self) -> usize {
        self.ids.len
    }

    pub(super) fn id(&self, i: usize) -> i64 {
        self.ids.get(i).unwrap_or_default()
    }

    pub(super) fn position(&self, id: i64) -> Option<usize> {
        if self.index.is_empty() {
            self.ids.find_sorted(id)
        } else {
            self.index.get(&id).copied()
        }
    }

    fn push(&mut self, n: &PageNode) {
        if self.index.is_empty() && self.ids.last().is_some_and(|last| last >= n.id) {
            self.index = (0..self.len()).map(|i| (self.id(i), i)).collect();
        }
        if !self.index.is_empty() {
            self.index.entry(n.id).or_insert(self.ids.len);
        }
        self.ids.push(n.id);
        self.urls.push_str(&n.url);
        self.url_ends.push(self.urls.len());
        self.host.push(self.labels.intern(&n.host));
        self.language.push(
            n.language
                .as_deref()
                .map_or(NONE_U32, |l| self.labels.intern(l)),
        );
        self.reason.push(self.labels.intern(&n.reason));
        self.depth.push(small(n.depth));
        self.status.push(small(n.status));
        self.tokens.push(
            n.tokens
                .map_or(NONE_U32, |t| t.clamp(0, i64::from(NONE_U32) - 1) as u32),
        );
        self.score.push(n.score.unwrap_or(f64::NAN));
        let verdict = match n.verdict {
            None => 0,
            Some(false) => VERDICT_KNOWN,
            Some(true) => VERDICT_KNOWN | VERDICT_TRUE,
        };
        let reach = match n.reach {
            Reach::Open => 0,
            Reach::Broken => 1,
            Reach::Disallowed => 2,
        };
        self.flags
            .push(verdict | if n.kept { KEPT } else { 0 } | (reach << REACH_SHIFT));
    }

    fn shrink(&mut self) {
        self.labels.freeze();
        self.urls.shrink_to_fit();
        for v in [&mut self.host, &mut self.language, &mut self.reason] {
            v.shrink_to_fit();
        }
        self.url_ends.shrink_to_fit();
        self.ids.shrink();
        self.depth.shrink_to_fit();
        self.status.shrink_to_fit();
        self.tokens.shrink_to_fit();
        self.score.shrink_to_fit();
        self.flags.shrink_to_fit();
    }

    pub(super) fn get(&self, i: usize) -> NodeRef<'_> {
        if i >= self.len() {
            return NodeRef {
                id: 0,
                url: "",
                host: "",
                depth: None,
                status: None,
                language: None,
                score: None,
                verdict: None,
                tokens: None,
                kept: false,
                reason: "",
                reach: Reach::Open,
            };
        }
        let from = if i == 0 { 0 } else { self.url_ends[i - 1] };
        let flags = self.flags[i];
        NodeRef {
            id: self.id(i),
            url: self.urls.get(from..self.url_ends[i]).unwrap_or(""),
            host: self.labels.get(self.host[i]),
            depth: wide(self.depth[i]),
            status: wide(self.status[i]),
            language: (self.language[i] != NONE_U32).then(|| self.labels.get(self.language[i])),
            score: Some(self.score[i]).filter(|s| !s.is_nan()),
            verdict: (flags & VERDICT_KNOWN != 0).then_some(flags & VERDICT_TRUE != 0),
            tokens: (self.tokens[i] != NONE_U32).then_some(i64::from(self.tokens[i])),
            kept: flags & KEPT != 0,
            reason: self.labels.get(self.reason[i]),
            reach: match flags >> REACH_SHIFT {
                1 => Reach::Broken,
                2 => Reach::Disallowed,
                _ => Reach::Open,
            },
        }
    }
}

/// Builds a [`LinkGraph`]: every node first ([`LinkGraphBuilder::node`]), then every edge
/// ([`LinkGraphBuilder::edge`]), then [`LinkGraphBuilder::finish`] (or
/// [`LinkGraphBuilder::finish_outside`] for a builder made by [`LinkGraphBuilder::outside`]).
#[derive(Default)]
pub struct LinkGraphBuilder {
    graph: LinkGraph,
    /// Source index of every edge so far, once an edge arrived out of source order.
    sources: Option<Vec<u32>>,
    /// Source index of the last edge while they arrive grouped.
    last_source: usize,
    /// The last edge's source as (URL id, index): a store lists a page's links together, so
    /// the source is looked up once per page, not once per link.
    last_lookup: Option<(i64, usize)>,
    edge_capacity: usize,
    /// Where anchors and counts go when they are kept outside the graph.
    sink: Option<Sink>,
}

/// Anchors, counts and targets on their way out of the graph.
struct Sink {
    out: Box<dyn std::io::Write + Send>,
    /// Records not yet handed to `out`.
    pending: Vec<u8>,
    targets: Box<dyn std::io::Write + Send>,
    /// Targets (four bytes each) not yet handed to `targets`.
    pending_targets: Vec<u8>,
    /// Bytes of node `i`'s records at `i + 1` (starts once summed).
    block_len: Vec<u64>,
    error: Option<std::io::Error>,
}

impl std::fmt::Debug for LinkGraphBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkGraphBuilder")
            .field("graph", &self.graph)
            .field("outside", &self.sink.is_some())
            .finish_non_exhaustive()
    }
}

impl LinkGraphBuilder {
    /// A builder expecting about `edges` edges (the edge vector is sized once for them).
    pub fn new(edges: usize) -> LinkGraphBuilder {
        LinkGraphBuilder {
            edge_capacity: edges,
            ..LinkGraphBuilder::default()
        }
    }

    /// A builder that writes the edges' anchors and counts to `sink`, and their targets to
    /// `targets`, instead of holding them (a million-page crawl's are hundreds of megabytes);
    /// [`LinkGraphBuilder::finish_outside`] then takes the storage they are read back from.
    /// The edges must arrive grouped by source, sources in node order, as a store's
    /// `ORDER BY src, dst` lists them.
    pub fn outside(
        edges: usize,
        sink: Box<dyn std::io::Write + Send>,
        targets: Box<dyn std::io::Write + Send>,
    ) -> LinkGraphBuilder {
        LinkGraphBuilder {
            edge_capacity: edges,
            sink: Some(Sink {
                out: sink,
                pending: Vec::new(),
                targets,
                pending_targets: Vec::new(),
                block_len: Vec::new(),
                error: None,
            }),
            ..LinkGraphBuilder::default()
        }
    }

    /// Adds a node (before any edge).
    pub fn node(&mut self, node: &PageNode) {
        self.graph.nodes.push(node);
    }

    /// Adds the edge `source → target` (URL ids); dropped and counted when either is not a
    /// node.
    pub fn edge(&mut self, source: i64, target: i64, anchor: &str, count: i64) {
        let g = &mut self.graph;
        let s = match self.last_lookup {
            Some((id, i)) if id == source => Some(i),
            _ => g.nodes.position(source),
        };
        if let Some(s) = s {
            self.last_lookup = Some((source, s));
        }
        let (Some(s), Some(t)) = (s, g.nodes.position(target)) else {
            g.dangling_edges += 1;
            return;
        };
        let (Ok(s32), Ok(target)) = (u32::try_from(s), u32::try_from(t)) else {
            g.dangling_edges += 1;
            return;
        };
        let count = u32::try_from(count.max(0)).unwrap_or(u32::MAX);
        if g.out_start.is_empty() {
            g.out_start = vec![0; g.nodes.len() + 1];
            match &mut self.sink {
                Some(sink) => sink.block_len = vec![0; g.nodes.len() + 1],
                None => {
                    if let Targets::Held(targets) = &mut g.targets {
                        targets.reserve_exact(self.edge_capacity);
                    }
                    if let Texts::Held { anchor, count, .. } = &mut g.texts {
                        anchor.reserve_exact(self.edge_capacity);
                        count.reserve_exact(self.edge_capacity);
                    }
                }
            }
        }
        if self.sources.is_none() && s < self.last_source {
            if let Some(sink) = &mut self.sink {
                // The records already written are in arrival order: they cannot be regrouped.
                sink.error.get_or_insert_with(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "links kept outside the graph must arrive grouped by source",
                    )
                });
                return;
            }
            // Out of order: remember every edge's source, to group them at the end.
            let mut sources = Vec::with_capacity(self.edge_capacity);
            for (i, &count) in g.out_start.iter().skip(1).enumerate() {
                sources.extend(std::iter::repeat_n(i as u32, count));
            }
            self.sources = Some(sources);
        }
        self.last_source = s;
        match &mut self.sources {
            Some(sources) => sources.push(s32),
            // Counts for now; `finish` turns them into starts.
            None => g.out_start[s + 1] += 1,
        }
        if let Targets::Held(targets) = &mut g.targets
            && self.sink.is_none()
        {
            targets.push(target);
        }
        match (&mut self.sink, &mut g.texts) {
            (Some(sink), _) => {
                sink.block_len[s + 1] += texts::encode(&mut sink.pending, anchor, count);
                sink.pending_targets
                    .extend_from_slice(&target.to_le_bytes());
                sink.hand_over(1 << 16);
            }
            (
                None,
                Texts::Held {
                    anchor: anchors,
                    count: counts,
                    pool,
                },
            ) => {
                anchors.push(pool.intern(anchor));
                counts.push(count);
            }
            (None, Texts::Outside(_)) => {}
        }
    }

    /// The graph (anchors held; for a builder made by [`LinkGraphBuilder::outside`], use
    /// [`LinkGraphBuilder::finish_outside`]: here its anchors read as empty).
    pub fn finish(mut self) -> LinkGraph {
        let mut g = std::mem::take(&mut self.graph);
        let n = g.nodes.len();
        g.out_start.resize(n + 1, 0);
        if let Some(sources) = self.sources.take()
            && let Targets::Held(targets) = &mut g.targets
        {
            // Stable: the order given is kept within a source.
            let mut order: Vec<u32> = (0..targets.len() as u32).collect();
            order.sort_by_key(|&k| sources[k as usize]);
            let permute = |v: &[u32]| order.iter().map(|&k| v[k as usize]).collect::<Vec<u32>>();
            *targets = permute(targets);
            if let Texts::Held { anchor, count, .. } = &mut g.texts {
                *anchor = permute(anchor);
                *count = permute(count);
            }
            g.out_start = vec![0; n + 1];
            for &s in &sources {
                g.out_start[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            g.out_start[i + 1] += g.out_start[i];
        }
        if let Targets::Held(targets) = &mut g.targets {
            targets.shrink_to_fit();
        }
        if let Texts::Held {
            anchor,
            count,
            pool,
        } = &mut g.texts
        {
            anchor.shrink_to_fit();
            count.shrink_to_fit();
            pool.freeze();
        }
        g.nodes.shrink();
        g
    }

    /// The graph of a builder made by [`LinkGraphBuilder::outside`], its anchors and counts
    /// read back from `store` (which holds what the sink received), its targets from
    /// `targets` (what the targets' sink received).
    ///
    /// # Errors
    /// The sinks' first write error, or links that did not arrive grouped by source.
    pub fn finish_outside(
        mut self,
        store: Box<dyn ScratchStore>,
        targets: Box<dyn ScratchStore>,
    ) -> std::io::Result<LinkGraph> {
        let sink = self.sink.take();
        let mut g = self.finish();
        let Some(mut sink) = sink else {
            return Ok(g);
        };
        sink.hand_over(0);
        if sink.error.is_none() {
            sink.error = sink.out.flush().and_then(|()| sink.targets.flush()).err();
        }
        if let Some(e) = sink.error {
            return Err(e);
        }
        let mut starts = sink.block_len;
        starts.resize(g.nodes.len() + 1, 0);
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        g.texts = Texts::Outside(Outside::new(store, starts));
        g.targets = Targets::Outside(targets::Outside::new(targets));
        Ok(g)
    }
}

impl Sink {
    /// Hands the pending records and targets to their writers once they hold `at_least`
    /// bytes (the first write error is kept, and nothing more is written after it).
    fn hand_over(&mut self, at_least: usize) {
        if self.pending.len() < at_least.max(1) && self.pending_targets.len() < at_least.max(1) {
            return;
        }
        if self.error.is_none() {
            self.error = self
                .out
                .write_all(&self.pending)
                .and_then(|()| self.targets.write_all(&self.pending_targets))
                .err();
        }
        self.pending.clear();
        self.pending_targets.clear();
    }
}
