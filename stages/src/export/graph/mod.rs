//! The hyperlink graph built during the crawl (seed 001's "physical" web).
//!
//! **In:** one [`PageNode`] per URL the crawl saw, and one [`LinkEdge`] per distinct
//! (source, target) pair of a link found on a fetched page.
//!
//! **Out:** a compact directed graph (edges grouped by source, anchors stored once), written as GraphML (Gephi, networkx, igraph; each node
//! labelled with its URL) and as two CSV tables (`nodes.csv`, `edges.csv`, for R, pandas and
//! spreadsheets).
//!
//! **Invariants:** node ids are the crawl's URL ids, so the graph joins with `crawl.sqlite`;
//! every edge's endpoints are nodes of the graph (edges to unknown ids are dropped and counted);
//! GraphML attribute values are XML-escaped and absent values are omitted rather than written
//! as empty strings, so typed readers (networkx) never meet an unparsable number.

mod build;
mod scratch;
mod targets;
mod texts;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

pub use build::LinkGraphBuilder;
pub use scratch::ScratchStore;
use targets::Targets;
use texts::Texts;

/// A node: one URL the crawl saw, with the facts a linguist filters on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageNode {
    /// The crawl's URL id (`urls.id` in `crawl.sqlite`).
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// Host name (shared by the host's nodes: a million URLs hold a few hundred hosts).
    pub host: Arc<str>,
    /// Link depth from the nearest seed.
    pub depth: Option<i64>,
    /// HTTP status, when fetched.
    pub status: Option<i64>,
    /// Detected language, when extracted.
    pub language: Option<Arc<str>>,
    /// Topic score, when scored.
    pub score: Option<f64>,
    /// Whether the page satisfies the formula, when evaluated.
    pub verdict: Option<bool>,
    /// Number of tokens in the corpus document, when kept.
    pub tokens: Option<i64>,
    /// Whether the page is in the corpus.
    pub kept: bool,
    /// Final state reason (`kept`, `robots`, `http-404`, `off-topic`, …), as written in the
    /// exports (shared, like the host).
    pub reason: Arc<str>,
    /// What following a link to this URL gives, as the crawl found out (decided by the
    /// pipeline from the URL's state and reason).
    pub reach: Reach,
}

/// What following a link to a URL gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reach {
    /// Nothing against it (fetched, not yet fetched, or refused by a rule of the crawl's own).
    #[default]
    Open,
    /// A dead end for a reader: an HTTP error, no answer, or a URL that cannot be fetched
    /// (seed 004's invalid link targets, `P_N`).
    Broken,
    /// The server's robots.txt forbids it.
    Disallowed,
}

/// A directed edge: `source` links to `target`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkEdge {
    /// URL id of the page that holds the link.
    pub source: i64,
    /// URL id of the link target.
    pub target: i64,
    /// Anchor text of the first such link.
    pub anchor: String,
    /// Number of links from source to target on the page.
    pub count: i64,
}

/// The graph: nodes as columns in the order given, edge targets grouped by source node (so a
/// node's out-links are one range, and the source is their group), each distinct host,
/// language and reason stored once, and the edges' targets, anchors and counts either held
/// (each distinct anchor once) or kept outside the graph ([`LinkGraphBuilder::outside`]).
///
/// A crawl's graph has ten to fifty links per page. As `petgraph` values with an owned anchor
/// each edge took about 130 bytes; as one `PageNode` value per URL each node took about 200.
/// Here a node costs its URL's bytes plus about 60, an edge, when held, 12 bytes and its share
/// of the distinct anchors, and nothing when kept outside: at a million pages and 16 million
/// links, about 110 MB with the edges outside, 330 MB with them held.
#[derive(Debug, Default)]
pub struct LinkGraph {
    nodes: build::Columns,
    /// Edge targets by node index, grouped by source, in the order given within a source
    /// (held, or kept outside with the anchors).
    targets: Targets,
    /// `targets[out_start[i]..out_start[i + 1]]` leave node `i`.
    out_start: Vec<usize>,
    /// Anchors and counts, in edge order.
    texts: Texts,
    /// Edges whose source or target is not a node.
    pub dangling_edges: usize,
}

/// A node as the writers see it: the facts of [`PageNode`], borrowed from the graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeRef<'a> {
    /// The crawl's URL id.
    pub id: i64,
    /// Canonical URL.
    pub url: &'a str,
    /// Host name.
    pub host: &'a str,
    /// Link depth from the nearest seed.
    pub depth: Option<i64>,
    /// HTTP status, when fetched.
    pub status: Option<i64>,
    /// Detected language, when extracted.
    pub language: Option<&'a str>,
    /// Topic score, when scored and finite.
    pub score: Option<f64>,
    /// Whether the page satisfies the formula, when evaluated.
    pub verdict: Option<bool>,
    /// Number of tokens in the corpus document, when kept.
    pub tokens: Option<i64>,
    /// Whether the page is in the corpus.
    pub kept: bool,
    /// Final state reason.
    pub reason: &'a str,
    /// What following a link to this URL gives.
    pub reach: Reach,
}

/// An edge as the writers see it: node indices (positions in the graph's node order).
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeView<'a> {
    /// Index of the node holding the link.
    pub source: usize,
    /// Index of the link target.
    pub target: usize,
    /// Anchor text of the first such link (borrowed when the graph holds it).
    pub anchor: Cow<'a, str>,
    /// Number of links from source to target on the page.
    pub count: i64,
}

impl LinkGraph {
    /// Builds the graph from nodes and edges (see [`LinkGraphBuilder`] to add them one at a
    /// time with the edges' number known). An edge whose end is not a node is dropped and
    /// counted; a link count beyond `u32::MAX` is kept as `u32::MAX`.
    pub fn build(
        nodes: impl IntoIterator<Item = PageNode>,
        edges: impl IntoIterator<Item = LinkEdge>,
    ) -> LinkGraph {
        let mut builder = LinkGraphBuilder::new(0);
        for node in nodes {
            builder.node(&node);
        }
        for edge in edges {
            builder.edge(edge.source, edge.target, &edge.anchor, edge.count);
        }
        builder.finish()
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.out_start.last().copied().unwrap_or(0)
    }

    /// Node `i` (a node with empty facts for an index out of range).
    pub fn node(&self, i: usize) -> NodeRef<'_> {
        self.nodes.get(i)
    }

    /// The crawl's URL id of node `i` (0 for an index out of range).
    pub fn node_id(&self, i: usize) -> i64 {
        self.nodes.id(i)
    }

    /// Every node, by index.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeRef<'_>> + '_ {
        (0..self.nodes.len()).map(|i| self.nodes.get(i))
    }

    /// The index of the node whose URL id is `id`.
    pub fn index_of(&self, id: i64) -> Option<usize> {
        self.nodes.position(id)
    }

    /// The first error met reading anchors or targets kept outside the graph (their text then
    /// reads as empty, their targets as node 0), taken: a writer's caller checks it once the
    /// files are written.
    pub fn take_read_error(&self) -> Option<std::io::Error> {
        let texts = match &self.texts {
            Texts::Held { .. } => None,
            Texts::Outside(o) => o.take_error(),
        };
        // Both taken: one failing disk is one error for the caller.
        let targets = self.targets.take_error();
        texts.or(targets)
    }

    /// The source of edge `k`: the node whose group holds it.
    fn source_of(&self, k: usize) -> usize {
        // The last node whose group starts at or before `k` (groups may be empty).
        self.out_start
            .partition_point(|&start| start <= k)
            .saturating_sub(1)
    }

    /// Every edge, grouped by source node (anchors and targets kept outside are read in one
    /// pass).
    pub fn edges(&self) -> Box<dyn Iterator<Item = EdgeView<'_>> + '_> {
        let mut targets = self.targets.in_order(self.edge_count());
        match &self.texts {
            Texts::Held {
                anchor,
                count,
                pool,
            } => Box::new((0..self.node_count()).flat_map(move |i| {
                let range = self.out_range(i);
                let ends = targets.next(range.clone());
                range
                    .zip(ends)
                    .map(|(k, &target)| EdgeView {
                        source: i,
                        target: target as usize,
                        anchor: Cow::Borrowed(pool.get(anchor[k])),
                        count: i64::from(count[k]),
                    })
                    .collect::<Vec<_>>()
            })),
            Texts::Outside(o) => {
                let mut records = o.in_order();
                Box::new((0..self.node_count()).flat_map(move |i| {
                    let ends = targets.next(self.out_range(i));
                    ends.iter()
                        .map(|&target| {
                            let (anchor, count) = records.next_record();
                            EdgeView {
                                source: i,
                                target: target as usize,
                                anchor,
                                count: i64::from(count),
                            }
                        })
                        .collect::<Vec<_>>()
                }))
            }
        }
    }

    /// Every edge's ends, grouped by source node (what PageRank, traversals and filters need,
    /// without the anchors).
    pub fn edge_ends(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut targets = self.targets.in_order(self.edge_count());
        (0..self.node_count()).flat_map(move |i| {
            let ends = targets.next(self.out_range(i));
            ends.iter().map(|&t| (i, t as usize)).collect::<Vec<_>>()
        })
    }

    /// Calls `f` with every node's index and the targets of its links, node after node (targets
    /// kept outside are read in one pass, with no allocation per node).
    pub fn for_each_out(&self, mut f: impl FnMut(usize, &[u32])) {
        let mut targets = self.targets.in_order(self.edge_count());
        for i in 0..self.node_count() {
            f(i, targets.next(self.out_range(i)));
        }
    }

    /// Edge `k` of [`LinkGraph::edges`].
    pub fn edge(&self, k: usize) -> Option<EdgeView<'_>> {
        if k >= self.edge_count() {
            return None;
        }
        Some(self.edge_of(self.source_of(k), k))
    }

    /// Edge `k`, which leaves `source` (one anchor read, whatever the source's links).
    fn edge_of(&self, source: usize, k: usize) -> EdgeView<'_> {
        let range = self.out_range(source);
        let target = self
            .targets
            .of(source, range.clone())
            .get(k.wrapping_sub(range.start))
            .copied()
            .unwrap_or_default();
        let (anchor, count) = match &self.texts {
            Texts::Held {
                anchor,
                count,
                pool,
            } => (Cow::Borrowed(pool.get(anchor[k])), count[k]),
            Texts::Outside(o) => {
                let block = o.block(source, range.len());
                let (anchor, count) = block
                    .get(k.wrapping_sub(range.start))
                    .cloned()
                    .unwrap_or_default();
                (Cow::Owned(anchor), count)
            }
        };
        EdgeView {
            source,
            target: target as usize,
            anchor,
            count: i64::from(count),
        }
    }

    /// The links that leave node `i` (anchors kept outside are read once per node visited).
    pub fn out_edges(&self, i: usize) -> Box<dyn Iterator<Item = EdgeView<'_>> + '_> {
        let range = self.out_range(i);
        let targets = self.targets.of(i, range.clone());
        match &self.texts {
            Texts::Held {
                anchor,
                count,
                pool,
            } => Box::new(range.enumerate().map(move |(j, k)| EdgeView {
                source: i,
                target: targets.get(j).copied().unwrap_or_default() as usize,
                anchor: Cow::Borrowed(pool.get(anchor[k])),
                count: i64::from(count[k]),
            })),
            Texts::Outside(o) => {
                let records = o.block(i, range.len());
                Box::new((0..records.len()).map(move |j| {
                    let (anchor, count) = &records[j];
                    EdgeView {
                        source: i,
                        target: targets.get(j).copied().unwrap_or_default() as usize,
                        anchor: Cow::Owned(anchor.clone()),
                        count: i64::from(*count),
                    }
                }))
            }
        }
    }

    /// The indices (in [`LinkGraph::edges`] order) of the links that leave node `i`.
    pub fn out_range(&self, i: usize) -> std::ops::Range<usize> {
        let from = self.out_start.get(i).copied().unwrap_or(0);
        let to = self.out_start.get(i + 1).copied().unwrap_or(from);
        from..to
    }

    /// The targets of the links that leave node `i` (what PageRank and traversals need).
    pub fn out_targets(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let targets = self.targets.of(i, self.out_range(i));
        (0..targets.len()).map(move |j| targets[j] as usize)
    }

    /// The edge from node `a` to node `b`, if any.
    pub fn find_edge(&self, a: usize, b: usize) -> Option<EdgeView<'_>> {
        let nth = self.out_targets(a).position(|t| t == b)?;
        Some(self.edge_of(a, self.out_range(a).start + nth))
    }

    /// GraphML text (directed graph; node attributes typed for networkx and Gephi; `label` is
    /// the URL, which Gephi shows as the node's label, as in the GEXF file).
    pub fn to_graphml(&self) -> String {
        text_of(|w| self.write_graphml(w))
    }

    /// [`LinkGraph::to_graphml`] into a writer, a piece at a time.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_graphml(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut out = String::with_capacity(1 << 17);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n");
        for (key, target, name, ty) in GRAPHML_KEYS {
            let _ = writeln!(
                out,
                "  <key id=\"{key}\" for=\"{target}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>"
            );
        }
        out.push_str("  <graph id=\"links\" edgedefault=\"directed\">\n");
        for node in self.nodes() {
            let _ = writeln!(out, "    <node id=\"n{}\">", node.id);
            // Gephi takes a node key named `label` for the label it shows (else the id).
            data(&mut out, "label", &xml_escape(node.url));
            data(&mut out, "url", &xml_escape(node.url));
            data(&mut out, "host", &xml_escape(node.host));
            if let Some(depth) = node.depth {
                data(&mut out, "depth", &depth.to_string());
            }
            if let Some(status) = node.status {
                data(&mut out, "status", &status.to_string());
            }
            if let Some(language) = node.language {
                data(&mut out, "language", &xml_escape(language));
            }
            if let Some(score) = node.score.filter(|s| s.is_finite()) {
                data(&mut out, "score", &format!("{score:.4}"));
            }
            if let Some(verdict) = node.verdict {
                data(&mut out, "verdict", if verdict { "true" } else { "false" });
            }
            if let Some(tokens) = node.tokens {
                data(&mut out, "tokens", &tokens.to_string());
            }
            data(&mut out, "kept", if node.kept { "true" } else { "false" });
            data(&mut out, "reason", &xml_escape(node.reason));
            out.push_str("    </node>\n");
            flush_piece(&mut out, w)?;
        }
        for e in self.edges() {
            let _ = writeln!(
                out,
                "    <edge source=\"n{}\" target=\"n{}\">",
                self.nodes.id(e.source),
                self.nodes.id(e.target)
            );
            data(&mut out, "anchor", &xml_escape(&e.anchor));
            data(&mut out, "count", &e.count.to_string());
            out.push_str("    </edge>\n");
            flush_piece(&mut out, w)?;
        }
        out.push_str("  </graph>\n</graphml>\n");
        w.write_all(out.as_bytes())
    }

    /// The node table as CSV rows (header first), for the `csv` writer of the caller.
    pub fn node_rows(&self) -> Vec<Vec<String>> {
        self.node_rows_iter().collect()
    }

    /// [`LinkGraph::node_rows`] one row at a time.
    pub fn node_rows_iter(&self) -> impl Iterator<Item = Vec<String>> + '_ {
        let header: Vec<String> = [
            "id", "url", "host", "depth", "status", "language", "score", "verdict", "tokens",
            "kept", "reason",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let opt = |v: Option<String>| v.unwrap_or_default();
        std::iter::once(header).chain(self.nodes().map(move |n| {
            vec![
                n.id.to_string(),
                n.url.to_string(),
                n.host.to_string(),
                opt(n.depth.map(|d| d.to_string())),
                opt(n.status.map(|d| d.to_string())),
                opt(n.language.map(str::to_string)),
                opt(n.score.filter(|s| s.is_finite()).map(|s| format!("{s:.4}"))),
                opt(n.verdict.map(|v| v.to_string())),
                opt(n.tokens.map(|d| d.to_string())),
                n.kept.to_string(),
                n.reason.to_string(),
            ]
        }))
    }

    /// The edge table as CSV rows (header first): `source,target,anchor,count`.
    pub fn edge_rows(&self) -> Vec<Vec<String>> {
        self.edge_rows_iter().collect()
    }

    /// [`LinkGraph::edge_rows`] one row at a time.
    pub fn edge_rows_iter(&self) -> impl Iterator<Item = Vec<String>> + '_ {
        let header = vec![
            "source".to_string(),
            "target".to_string(),
            "anchor".to_string(),
            "count".to_string(),
        ];
        std::iter::once(header).chain(self.edges().map(|e| {
            vec![
                self.nodes.id(e.source).to_string(),
                self.nodes.id(e.target).to_string(),
                e.anchor.to_string(),
                e.count.to_string(),
            ]
        }))
    }
}

impl crate::focus::pagerank::OutLinks for LinkGraph {
    fn each_link(&self, mut f: impl FnMut(usize, usize)) {
        self.for_each_out(|i, targets| {
            for &t in targets {
                f(i, t as usize);
            }
        });
    }
}

/// Runs a writer into a `String` (the graph writers only produce UTF-8; writing to memory
/// cannot fail).
pub(crate) fn text_of(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> String {
    let mut bytes = Vec::new();
    let _ = write(&mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// Hands `out` to `w` once it holds 64 KiB (the writers of large graphs build their text a
/// piece at a time).
pub(crate) fn flush_piece(out: &mut String, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    if out.len() >= 1 << 16 {
        w.write_all(out.as_bytes())?;
        out.clear();
    }
    Ok(())
}

const GRAPHML_KEYS: [(&str, &str, &str, &str); 14] = [
    ("label", "node", "label", "string"),
    ("url", "node", "url", "string"),
    ("host", "node", "host", "string"),
    ("depth", "node", "depth", "int"),
    ("status", "node", "status", "int"),
    ("language", "node", "language", "string"),
    ("score", "node", "score", "double"),
    ("verdict", "node", "verdict", "boolean"),
    ("tokens", "node", "tokens", "int"),
    ("kept", "node", "kept", "boolean"),
    ("reason", "node", "reason", "string"),
    ("anchor", "edge", "anchor", "string"),
    ("count", "edge", "count", "int"),
    ("label", "graph", "label", "string"),
];

fn data(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(out, "      <data key=\"{key}\">{value}</data>");
}

/// Escapes text for XML content and attributes; drops characters XML 1.0 forbids.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
