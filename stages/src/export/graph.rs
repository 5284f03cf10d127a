//! The hyperlink graph built during the crawl (seed 001's "physical" web).
//!
//! **In:** one [`PageNode`] per URL the crawl saw, and one [`LinkEdge`] per distinct
//! (source, target) pair of a link found on a fetched page.
//!
//! **Out:** a `petgraph` directed graph, written as GraphML (Gephi, networkx, igraph; each node
//! labelled with its URL) and as two CSV tables (`nodes.csv`, `edges.csv`, for R, pandas and
//! spreadsheets).
//!
//! **Invariants:** node ids are the crawl's URL ids, so the graph joins with `crawl.sqlite`;
//! every edge's endpoints are nodes of the graph (edges to unknown ids are dropped and counted);
//! GraphML attribute values are XML-escaped and absent values are omitted rather than written
//! as empty strings, so typed readers (networkx) never meet an unparsable number.

use std::collections::HashMap;
use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};

/// A node: one URL the crawl saw, with the facts a linguist filters on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageNode {
    /// The crawl's URL id (`urls.id` in `crawl.sqlite`).
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// Host name.
    pub host: String,
    /// Link depth from the nearest seed.
    pub depth: Option<i64>,
    /// HTTP status, when fetched.
    pub status: Option<i64>,
    /// Detected language, when extracted.
    pub language: Option<String>,
    /// Topic score, when scored.
    pub score: Option<f64>,
    /// Whether the page satisfies the formula, when evaluated.
    pub verdict: Option<bool>,
    /// Number of tokens in the corpus document, when kept.
    pub tokens: Option<i64>,
    /// Whether the page is in the corpus.
    pub kept: bool,
    /// Final state reason (`kept`, `robots`, `http-404`, `off-topic`, …), as written in the
    /// exports.
    pub reason: String,
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

/// The graph and how many edges were dropped for lack of an endpoint.
#[derive(Debug, Default)]
pub struct LinkGraph {
    /// The graph itself.
    pub graph: DiGraph<PageNode, LinkEdge>,
    /// Edges whose source or target is not a node.
    pub dangling_edges: usize,
}

impl LinkGraph {
    /// Builds the graph from nodes and edges.
    pub fn build(
        nodes: impl IntoIterator<Item = PageNode>,
        edges: impl IntoIterator<Item = LinkEdge>,
    ) -> LinkGraph {
        let mut graph = DiGraph::new();
        let mut index: HashMap<i64, NodeIndex> = HashMap::new();
        for node in nodes {
            let id = node.id;
            let idx = graph.add_node(node);
            index.insert(id, idx);
        }
        let mut dangling_edges = 0;
        for edge in edges {
            match (index.get(&edge.source), index.get(&edge.target)) {
                (Some(&s), Some(&t)) => {
                    graph.add_edge(s, t, edge);
                }
                _ => dangling_edges += 1,
            }
        }
        LinkGraph {
            graph,
            dangling_edges,
        }
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
        for node in self.graph.node_weights() {
            let _ = writeln!(out, "    <node id=\"n{}\">", node.id);
            // Gephi takes a node key named `label` for the label it shows (else the id).
            data(&mut out, "label", &xml_escape(&node.url));
            data(&mut out, "url", &xml_escape(&node.url));
            data(&mut out, "host", &xml_escape(&node.host));
            if let Some(depth) = node.depth {
                data(&mut out, "depth", &depth.to_string());
            }
            if let Some(status) = node.status {
                data(&mut out, "status", &status.to_string());
            }
            if let Some(language) = &node.language {
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
            data(&mut out, "reason", &xml_escape(&node.reason));
            out.push_str("    </node>\n");
            flush_piece(&mut out, w)?;
        }
        for edge in self.graph.edge_references() {
            let e = edge.weight();
            let _ = writeln!(
                out,
                "    <edge source=\"n{}\" target=\"n{}\">",
                e.source, e.target
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
        std::iter::once(header).chain(self.graph.node_weights().map(move |n| {
            vec![
                n.id.to_string(),
                n.url.clone(),
                n.host.clone(),
                opt(n.depth.map(|d| d.to_string())),
                opt(n.status.map(|d| d.to_string())),
                opt(n.language.clone()),
                opt(n.score.filter(|s| s.is_finite()).map(|s| format!("{s:.4}"))),
                opt(n.verdict.map(|v| v.to_string())),
                opt(n.tokens.map(|d| d.to_string())),
                n.kept.to_string(),
                n.reason.clone(),
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
        std::iter::once(header).chain(self.graph.edge_references().map(|edge| {
            let w = edge.weight();
            vec![
                w.source.to_string(),
                w.target.to_string(),
                w.anchor.clone(),
                w.count.to_string(),
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
        assert_eq!(g.graph.node_count(), 2);
        assert_eq!(g.graph.edge_count(), 1);
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
    fn xml_escape_drops_forbidden_controls() {
        assert_eq!(xml_escape("a\u{1}b\u{FFFF}c\n"), "abc\n");
    }
}
