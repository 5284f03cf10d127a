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

use std::fmt::Write as _;
use std::sync::Arc;

pub use build::LinkGraphBuilder;

use crate::pool::StrPool;

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

/// The graph: nodes as columns in the order given, edges as compact 12-byte records grouped by
/// source node (so a node's out-links are one slice, and the source is their group), and each
/// distinct anchor text, host, language and reason stored once.
///
/// A crawl's graph has ten to fifty links per page. As `petgraph` values with an owned anchor
/// each edge took about 130 bytes; as one `PageNode` value per URL each node took about 200.
/// Here a node costs its URL's bytes plus about 50, an edge 12 plus its share of the distinct
/// anchors: at a million pages, about 330 MB instead of 1.3 GB.
#[derive(Debug, Default)]
pub struct LinkGraph {
    nodes: build::Columns,
    /// Grouped by source index, in the order given within a source.
    edges: Vec<Edge>,
    /// `edges[out_start[i]..out_start[i + 1]]` leave node `i`.
    out_start: Vec<usize>,
    /// Distinct anchor texts, by [`Edge::anchor`].
    anchors: StrPool,
    /// Edges whose source or target is not a node.
    pub dangling_edges: usize,
}

/// One stored edge: the target's index, the anchor's number and the link count.
#[derive(Debug, Clone, Copy)]
struct Edge {
    target: u32,
    anchor: u32,
    count: u32,
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeView<'a> {
    /// Index of the node holding the link.
    pub source: usize,
    /// Index of the link target.
    pub target: usize,
    /// Anchor text of the first such link.
    pub anchor: &'a str,
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
        self.edges.len()
    }

    /// Node `i` (a node with empty facts for an index out of range).
    pub fn node(&self, i: usize) -> NodeRef<'_> {
        self.nodes.get(i)
    }

    /// Every node, by index.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeRef<'_>> + '_ {
        (0..self.nodes.len()).map(|i| self.nodes.get(i))
    }

    /// The index of the node whose URL id is `id`.
    pub fn index_of(&self, id: i64) -> Option<usize> {
        self.nodes.position(id)
    }

    fn view(&self, source: usize, e: &Edge) -> EdgeView<'_> {
        EdgeView {
            source,
            target: e.target as usize,
            anchor: self.anchors.get(e.anchor),
            count: i64::from(e.count),
        }
    }

    /// The source of edge `k`: the node whose group holds it.
    fn source_of(&self, k: usize) -> usize {
        // The last node whose group starts at or before `k` (groups may be empty).
        self.out_start
            .partition_point(|&start| start <= k)
            .saturating_sub(1)
    }

    /// Every edge, grouped by source node.
    pub fn edges(&self) -> impl Iterator<Item = EdgeView<'_>> + '_ {
        (0..self.node_count()).flat_map(move |i| self.out_edges(i))
    }

    /// Edge `k` of [`LinkGraph::edges`].
    pub fn edge(&self, k: usize) -> Option<EdgeView<'_>> {
        let e = self.edges.get(k)?;
        Some(self.view(self.source_of(k), e))
    }

    /// The target of edge `k` (what sorting links by target needs, without looking up the
    /// source).
    pub fn edge_target(&self, k: usize) -> Option<usize> {
        self.edges.get(k).map(|e| e.target as usize)
    }

    /// The links that leave node `i`.
    pub fn out_edges(&self, i: usize) -> impl Iterator<Item = EdgeView<'_>> + '_ {
        let from = self.out_start.get(i).copied().unwrap_or(0);
        let to = self.out_start.get(i + 1).copied().unwrap_or(from);
        self.edges[from..to].iter().map(move |e| self.view(i, e))
    }

    /// The indices (in [`LinkGraph::edges`] order) of the links that leave node `i`.
    pub fn out_range(&self, i: usize) -> std::ops::Range<usize> {
        let from = self.out_start.get(i).copied().unwrap_or(0);
        let to = self.out_start.get(i + 1).copied().unwrap_or(from);
        from..to
    }

    /// The targets of the links that leave node `i` (what PageRank and traversals need).
    pub fn out_targets(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let from = self.out_start.get(i).copied().unwrap_or(0);
        let to = self.out_start.get(i + 1).copied().unwrap_or(from);
        self.edges[from..to].iter().map(|e| e.target as usize)
    }

    /// The edge from node `a` to node `b`, if any.
    pub fn find_edge(&self, a: usize, b: usize) -> Option<EdgeView<'_>> {
        self.out_edges(a).find(|e| e.target == b)
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
            data(&mut out, "anchor", &xml_escape(e.anchor));
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
mod tests {
    use super::*;

    fn node(id: i64, url: &str) -> PageNode {
        PageNode {
            id,
            url: url.into(),
            host: "a.test".into(),
            depth: Some(0),
            status: Some(200),
            reason: "kept".into(),
            kept: true,
            ..PageNode::default()
        }
    }

    #[test]
    fn builds_graph_and_counts_dangling_edges() {
        let g = LinkGraph::build(
            [
                node(1, "http://a.test/"),
                node(2, "http://a.test/b?x=1&y=<2>"),
            ],
            [
                LinkEdge {
                    source: 1,
                    target: 2,
                    anchor: "B & co".into(),
                    count: 2,
                },
                LinkEdge {
                    source: 1,
                    target: 99,
                    anchor: String::new(),
                    count: 1,
                },
            ],
        );
        assert_eq!(g.node_count(), 2);
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.dangling_edges, 1);
        let xml = g.to_graphml();
        assert!(xml.contains("<data key=\"url\">http://a.test/b?x=1&amp;y=&lt;2&gt;</data>"));
        assert!(xml.contains(
            "<node id=\"n2\">\n      <data key=\"label\">http://a.test/b?x=1&amp;y=&lt;2&gt;</data>"
        ));
        assert!(xml.contains("<key id=\"label\" for=\"node\" attr.name=\"label\""));
        assert!(xml.contains("<edge source=\"n1\" target=\"n2\">"));
        assert!(xml.contains("<data key=\"anchor\">B &amp; co</data>"));
        assert!(!xml.contains("key=\"score\">"), "absent values are omitted");
        assert_eq!(g.node_rows().len(), 3);
        assert_eq!(g.edge_rows()[1], ["1", "2", "B & co", "2"]);
    }

    #[test]
    fn edges_are_grouped_by_source_and_anchors_stored_once_whatever_the_node_order() {
        let edge = |source, target, anchor: &str| LinkEdge {
            source,
            target,
            anchor: anchor.into(),
            count: 1,
        };
        // Ids out of order: the graph cannot binary-search them and must still find each one.
        let g = LinkGraph::build(
            [
                node(7, "http://a.test/7"),
                node(3, "http://a.test/3"),
                node(5, "http://a.test/5"),
            ],
            [
                edge(5, 7, "Next"),
                edge(7, 3, "Home"),
                edge(5, 3, "Home"),
                edge(7, 5, "Next"),
                edge(3, 4, "gone"),
            ],
        );
        assert_eq!((g.edge_count(), g.dangling_edges), (4, 1));
        assert_eq!(g.anchors.len(), 2, "two distinct anchors");
        let ids = |e: EdgeView<'_>| {
            (
                g.node(e.source).id,
                g.node(e.target).id,
                e.anchor.to_string(),
            )
        };
        assert_eq!(g.index_of(5), Some(2));
        assert_eq!(g.edge(2).map(ids), Some((5, 7, "Next".to_string())));
        assert_eq!(g.edge(3).map(|e| e.source), Some(2));
        assert!(g.edge(4).is_none());
        let all: Vec<_> = g.edges().map(ids).collect();
        // Node 7 (index 0) first, then 5; the order inside a source is the order given.
        assert_eq!(
            all,
            [
                (7, 3, "Home"),
                (7, 5, "Next"),
                (5, 7, "Next"),
                (5, 3, "Home")
            ]
            .map(|(s, t, a)| (s, t, a.to_string()))
        );
        let out_of_5: Vec<_> = g.out_edges(2).map(ids).collect();
        assert_eq!(
            out_of_5,
            [(5, 7, "Next".to_string()), (5, 3, "Home".to_string())]
        );
        assert_eq!(g.out_edges(1).count(), 0, "node 3 links nowhere");
        assert_eq!(g.out_edges(99).count(), 0);
        assert_eq!(g.find_edge(0, 2).map(|e| e.anchor), Some("Next"));
        assert!(g.find_edge(1, 0).is_none());
        assert_eq!(g.edge_rows()[1], ["7", "3", "Home", "1"]);
    }

    #[test]
    fn node_facts_come_back_as_given() {
        let full = PageNode {
            id: -4,
            url: "http://é.test/ü?q=1".into(),
            host: "é.test".into(),
            depth: Some(12),
            status: Some(503),
            language: Some("fr".into()),
            score: Some(-0.25),
            verdict: Some(false),
            tokens: Some(0),
            kept: false,
            reason: "http-503".into(),
            reach: Reach::Broken,
        };
        let empty = PageNode {
            id: 9,
            reason: "queued".into(),
            ..PageNode::default()
        };
        let other = PageNode {
            id: 10,
            url: "http://b.test/".into(),
            host: "b.test".into(),
            verdict: Some(true),
            kept: true,
            tokens: Some(1234),
            score: Some(f64::INFINITY),
            reason: "kept".into(),
            reach: Reach::Disallowed,
            ..PageNode::default()
        };
        let g = LinkGraph::build([full.clone(), empty.clone(), other.clone()], []);
        let back = |n: NodeRef<'_>| PageNode {
            id: n.id,
            url: n.url.into(),
            host: n.host.into(),
            depth: n.depth,
            status: n.status,
            language: n.language.map(Into::into),
            score: n.score,
            verdict: n.verdict,
            tokens: n.tokens,
            kept: n.kept,
            reason: n.reason.into(),
            reach: n.reach,
        };
        assert_eq!(back(g.node(0)), full);
        assert_eq!(back(g.node(1)), empty);
        assert_eq!(back(g.node(2)), other);
        assert_eq!(g.node(3).url, "", "out of range: empty facts");
        assert_eq!(g.nodes().len(), 3);
        // Values beyond the columns' range are clamped, not wrapped.
        let huge = PageNode {
            id: 1,
            depth: Some(i64::MAX),
            tokens: Some(i64::MAX),
            status: Some(i64::MIN),
            ..PageNode::default()
        };
        let g = LinkGraph::build([huge], []);
        let n = g.node(0);
        assert_eq!(n.depth, Some(i64::from(i32::MAX)));
        assert_eq!(n.tokens, Some(i64::from(u32::MAX - 1)));
        assert_eq!(n.status, Some(i64::from(i32::MIN) + 1));
    }

    #[test]
    fn xml_escape_drops_forbidden_controls() {
        assert_eq!(xml_escape("a\u{1}b\u{FFFF}c\n"), "abc\n");
    }
}
