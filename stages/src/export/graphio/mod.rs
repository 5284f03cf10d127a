//! More views of the crawl's hyperlink graph: GEXF, Graphviz DOT and Pajek writers, the host
//! graph, and seed 004's two link reports (broken links, external links).
//!
//! **In:** a [`LinkGraph`] (one node per URL the crawl saw, one edge per linked pair) and, for
//! GEXF, one PageRank score per node (see [`pagerank_of`]).
//!
//! **Out:** `String`s ready to write (`links.gexf`, `links.dot`, `links.net`, `hosts.*`) and
//! CSV row tables (header first) for the caller's `csv` writer.
//!
//! **Invariants:**
//! - every writer emits each node once and each edge once, with node ids that join with
//!   `crawl.sqlite` (`n<id>` as in the GraphML writer; Pajek must number `1..=n`, so its
//!   vertex `k` is the graph's node index `k-1` and the URL is its label);
//! - text is escaped for its format (XML for GEXF, `\"`/`\\` for DOT, no `"` or `\` inside
//!   Pajek's quoted labels), absent values are omitted, non-finite numbers are never written;
//! - a page is *broken* when it was fetched with status ≥ 400 or its fetch failed
//!   ([`is_broken`]); broken targets are reported by [`broken_links`] and never by
//!   [`external_links`] (seed 004, A2: an invalid URL is the site's error, not an external
//!   resource);
//! - the host graph drops links inside a host from its edges (no self-loops, which clutter
//!   Gephi and Graphviz layouts) and keeps their sum per host as `internal_links`.
//!
//! Nothing here panics on any graph: a PageRank slice of the wrong length just leaves the
//! missing scores out.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::export::graph::{LinkGraph, NodeRef, Reach, flush_piece, text_of, xml_escape};
use crate::focus::pagerank::pagerank_links;

/// Whether a page is an invalid link target (seed 004's set `P_N`): fetched with an HTTP
/// status of 400 or more, or recorded as an HTTP error or failed fetch.
pub fn is_broken(node: &NodeRef<'_>) -> bool {
    match node.status {
        Some(status) => status >= 400,
        None => node.reach == Reach::Broken,
    }
}

/// PageRank of every node of `graph` (damping `damping`, tolerance 1e-10, at most 200
/// iterations), indexed by `NodeIndex::index()`, summing to 1. Links count once per page
/// pair, whatever their `count`: seed 004's formula divides by the number of pages linked.
pub fn pagerank_of(graph: &LinkGraph, damping: f64) -> Vec<f64> {
    pagerank_links(graph.node_count(), graph, damping, 1e-10, 200)
}

/// A typed attribute value, as GEXF declares it.
#[derive(Clone)]
enum Value {
    Str(String),
    Int(i64),
    Double(f64),
    Bool(bool),
}

/// A format-neutral view of a graph, so the three writers serve both the page graph and the
/// host graph. Rows are made one at a time as the writers ask for them, so writing a large
/// page graph never holds a second copy of it.
struct Table<'a> {
    node_schema: &'static [(&'static str, &'static str)],
    edge_schema: &'static [(&'static str, &'static str)],
    nodes: usize,
    edges: usize,
    node: Box<dyn Fn(usize) -> NodeOut + 'a>,
    /// A node's id alone (what an edge line needs of its ends).
    node_id: Box<dyn Fn(usize) -> String + 'a>,
    /// The edges in order (edge `k` is the `k`-th), made as they are read.
    edge_rows: Box<dyn Fn() -> Box<dyn Iterator<Item = EdgeOut> + 'a> + 'a>,
}

struct NodeOut {
    id: String,
    label: String,
    /// Parallel to `node_schema`; `None` is an absent value.
    values: Vec<Option<Value>>,
}

struct EdgeOut {
    /// Positions in `Table::nodes`.
    source: usize,
    target: usize,
    weight: i64,
    values: Vec<Option<Value>>,
}

const PAGE_SCHEMA: &[(&str, &str)] = &[
    ("host", "string"),
    ("depth", "integer"),
    ("status", "integer"),
    ("language", "string"),
    ("score", "double"),
    ("verdict", "boolean"),
    ("tokens", "integer"),
    ("kept", "boolean"),
    ("reason", "string"),
    ("pagerank", "double"),
];
const LINK_SCHEMA: &[(&str, &str)] = &[("anchor", "string")];
const HOST_SCHEMA: &[(&str, &str)] = &[
    ("pages", "integer"),
    ("pages_kept", "integer"),
    ("tokens", "integer"),
    ("internal_links", "integer"),
];
const HOST_LINK_SCHEMA: &[(&str, &str)] = &[("page_links", "integer")];

fn finite(v: Option<f64>) -> Option<Value> {
    v.filter(|x| x.is_finite()).map(Value::Double)
}

fn page_table<'a>(graph: &'a LinkGraph, pagerank: &'a [f64]) -> Table<'a> {
    Table {
        node_schema: PAGE_SCHEMA,
        edge_schema: LINK_SCHEMA,
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        node: Box::new(move |k| {
            let n = graph.node(k);
            NodeOut {
                id: format!("n{}", n.id),
                label: n.url.to_string(),
                values: vec![
                    Some(Value::Str(n.host.to_string())),
                    n.depth.map(Value::Int),
                    n.status.map(Value::Int),
                    n.language.map(|l| Value::Str(l.to_string())),
                    finite(n.score),
                    n.verdict.map(Value::Bool),
                    n.tokens.map(Value::Int),
                    Some(Value::Bool(n.kept)),
                    Some(Value::Str(n.reason.to_string())),
                    finite(pagerank.get(k).copied()),
                ],
            }
        }),
        node_id: Box::new(move |k| format!("n{}", graph.node(k).id)),
        edge_rows: Box::new(move || {
            Box::new(graph.edges().map(|e| EdgeOut {
                source: e.source,
                target: e.target,
                weight: e.count,
                values: vec![Some(Value::Str(e.anchor.to_string()))],
            }))
        }),
    }
}

/// A materialised table (the host graph is small) as a [`Table`].
fn owned_table(
    node_schema: &'static [(&'static str, &'static str)],
    edge_schema: &'static [(&'static str, &'static str)],
    nodes: Vec<NodeOut>,
    edges: Vec<EdgeOut>,
) -> Table<'static> {
    let nodes = std::rc::Rc::new(nodes);
    let edges = std::rc::Rc::new(edges);
    let (n, e) = (nodes.len(), edges.len());
    let (for_node, for_id) = (nodes.clone(), nodes);
    Table {
        node_schema,
        edge_schema,
        nodes: n,
        edges: e,
        node: Box::new(move |k| {
            let node = &for_node[k];
            NodeOut {
                id: node.id.clone(),
                label: node.label.clone(),
                values: node.values.clone(),
            }
        }),
        node_id: Box::new(move |k| for_id[k].id.clone()),
        edge_rows: Box::new(move || {
            let edges = edges.clone();
            Box::new((0..edges.len()).map(move |k| {
                let edge = &edges[k];
                EdgeOut {
                    source: edge.source,
                    target: edge.target,
                    weight: edge.weight,
                    values: edge.values.clone(),
                }
            }))
        }),
    }
}

/// GEXF 1.3 text of the page graph (directed; typed node attributes, `pagerank` included;
/// node label = URL; edge weight = number of links, edge attribute `anchor`). Gephi reads it;
/// networkx 3.4's `read_gexf` only knows GEXF 1.1/1.2 and needs the GraphML file instead.
pub fn to_gexf(graph: &LinkGraph, pagerank: &[f64]) -> String {
    text_of(|w| write_gexf(&page_table(graph, pagerank), w))
}

/// [`to_gexf`] into a writer, a piece at a time.
///
/// # Errors
/// The writer's.
pub fn write_gexf_to(
    graph: &LinkGraph,
    pagerank: &[f64],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_gexf(&page_table(graph, pagerank), w)
}

/// Graphviz DOT text of the page graph: quoted ids `"n<id>"`, label = URL, `weight` = links.
pub fn to_dot(graph: &LinkGraph) -> String {
    text_of(|w| write_dot(&page_table(graph, &[]), "links", w))
}

/// [`to_dot`] into a writer, a piece at a time.
///
/// # Errors
/// The writer's.
pub fn write_dot_to(graph: &LinkGraph, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_dot(&page_table(graph, &[]), "links", w)
}

/// Pajek `.net` text of the page graph: `*Vertices n` (1-based, quoted URL labels) and
/// `*Arcs` with the link count as weight.
pub fn to_pajek(graph: &LinkGraph) -> String {
    text_of(|w| write_pajek(&page_table(graph, &[]), w))
}

/// [`to_pajek`] into a writer, a piece at a time.
///
/// # Errors
/// The writer's.
pub fn write_pajek_to(graph: &LinkGraph, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_pajek(&page_table(graph, &[]), w)
}

fn write_gexf(table: &Table<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::with_capacity(1 << 17);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<gexf xmlns=\"http://gexf.net/1.3\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd\" version=\"1.3\">\n");
    out.push_str("  <meta>\n    <creator>glaneur</creator>\n  </meta>\n");
    out.push_str("  <graph defaultedgetype=\"directed\" mode=\"static\">\n");
    for (class, schema) in [("node", table.node_schema), ("edge", table.edge_schema)] {
        let _ = writeln!(out, "    <attributes class=\"{class}\" mode=\"static\">");
        for (name, ty) in schema {
            let _ = writeln!(
                out,
                "      <attribute id=\"{name}\" title=\"{name}\" type=\"{ty}\"/>"
            );
        }
        out.push_str("    </attributes>\n");
    }
    let _ = writeln!(out, "    <nodes count=\"{}\">", table.nodes);
    for k in 0..table.nodes {
        let node = (table.node)(k);
        let _ = write!(
            out,
            "      <node id=\"{}\" label=\"{}\"",
            xml_escape(&node.id),
            xml_escape(&node.label)
        );
        gexf_attvalues(&mut out, table.node_schema, &node.values, "node");
        flush_piece(&mut out, w)?;
    }
    out.push_str("    </nodes>\n");
    let _ = writeln!(out, "    <edges count=\"{}\">", table.edges);
    for (k, edge) in (table.edge_rows)().enumerate() {
        if edge.source >= table.nodes || edge.target >= table.nodes {
            continue;
        }
        let _ = write!(
            out,
            "      <edge id=\"{k}\" source=\"{}\" target=\"{}\" weight=\"{}\"",
            xml_escape(&(table.node_id)(edge.source)),
            xml_escape(&(table.node_id)(edge.target)),
            edge.weight
        );
        gexf_attvalues(&mut out, table.edge_schema, &edge.values, "edge");
        flush_piece(&mut out, w)?;
    }
    out.push_str("    </edges>\n  </graph>\n</gexf>\n");
    w.write_all(out.as_bytes())
}

/// Ends the start tag `tag` opened by the caller: `/>` when no value is present, else the
/// `<attvalues>` block and the end tag.
fn gexf_attvalues(out: &mut String, schema: &[(&str, &str)], values: &[Option<Value>], tag: &str) {
    let present: Vec<(&str, String)> = schema
        .iter()
        .zip(values)
        .filter_map(|((name, _), v)| {
            let text = match v.as_ref()? {
                Value::Str(s) => xml_escape(s),
                Value::Int(i) => i.to_string(),
                Value::Double(d) => d.to_string(),
                Value::Bool(b) => b.to_string(),
            };
            Some((*name, text))
        })
        .collect();
    if present.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n        <attvalues>\n");
    for (name, text) in present {
        let _ = writeln!(out, "          <attvalue for=\"{name}\" value=\"{text}\"/>");
    }
    let _ = writeln!(out, "        </attvalues>\n      </{tag}>");
}

fn dot_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            // A lone backslash starts an escString sequence (`\N`, `\l`…) in labels.
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_dot(table: &Table<'_>, name: &str, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::with_capacity(1 << 17);
    let _ = writeln!(out, "digraph {} {{", dot_quote(name));
    out.push_str("  node [shape=box];\n");
    for k in 0..table.nodes {
        let node = (table.node)(k);
        let _ = write!(
            out,
            "  {} [label={}",
            dot_quote(&node.id),
            dot_quote(&node.label)
        );
        for ((attr, _), value) in table.node_schema.iter().zip(&node.values) {
            let text = match value {
                Some(Value::Str(s)) => dot_quote(s),
                Some(Value::Int(i)) => i.to_string(),
                Some(Value::Double(d)) => format!("\"{d}\""),
                Some(Value::Bool(b)) => b.to_string(),
                None => continue,
            };
            let _ = write!(out, ", {attr}={text}");
        }
        out.push_str("];\n");
        flush_piece(&mut out, w)?;
    }
    for edge in (table.edge_rows)() {
        if edge.source >= table.nodes || edge.target >= table.nodes {
            continue;
        }
        // Graphviz rejects negative weights; a count is never negative in a sane database.
        let _ = writeln!(
            out,
            "  {} -> {} [weight={}];",
            dot_quote(&(table.node_id)(edge.source)),
            dot_quote(&(table.node_id)(edge.target)),
            edge.weight.max(0)
        );
        flush_piece(&mut out, w)?;
    }
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

fn pajek_label(text: &str) -> String {
    // Pajek has no escape inside quoted labels; URLs percent-encode `"` and `\` anyway, so
    // doing the same keeps the label a valid URL.
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("%22"),
            '\\' => out.push_str("%5C"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_pajek(table: &Table<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::with_capacity(1 << 17);
    let _ = writeln!(out, "*Vertices {}", table.nodes);
    for k in 0..table.nodes {
        let _ = writeln!(out, "{} {}", k + 1, pajek_label(&(table.node)(k).label));
        flush_piece(&mut out, w)?;
    }
    out.push_str("*Arcs\n");
    for edge in (table.edge_rows)() {
        if edge.source < table.nodes && edge.target < table.nodes {
            let _ = writeln!(
                out,
                "{} {} {}",
                edge.source + 1,
                edge.target + 1,
                edge.weight
            );
        }
        flush_piece(&mut out, w)?;
    }
    w.write_all(out.as_bytes())
}

/// One host of the host graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostNode {
    /// Host name.
    pub host: String,
    /// URLs of this host the crawl saw.
    pub pages: i64,
    /// Of these, pages in the corpus.
    pub pages_kept: i64,
    /// Sum of the corpus tokens of the kept pages.
    pub tokens: i64,
    /// Sum of the link counts between two pages of this host (dropped from the edges).
    pub internal_links: i64,
}

/// Links from one host to another.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostEdge {
    /// Sum of the link counts of the page pairs.
    pub count: i64,
    /// Number of distinct (source page, target page) pairs.
    pub page_links: i64,
}

/// The host graph: one node per host, one edge per ordered pair of distinct hosts.
#[derive(Debug, Default)]
pub struct HostGraph {
    /// Hosts in alphabetical order; edges in (source, target) order.
    pub graph: DiGraph<HostNode, HostEdge>,
}

/// Aggregates the page graph by host (see [`HostNode`], [`HostEdge`]); links inside a host are
/// not edges but are summed in [`HostNode::internal_links`].
pub fn host_graph(graph: &LinkGraph) -> HostGraph {
    let mut hosts: BTreeMap<&str, HostNode> = BTreeMap::new();
    for n in graph.nodes() {
        let h = hosts.entry(n.host).or_insert_with(|| HostNode {
            host: n.host.to_string(),
            ..HostNode::default()
        });
        h.pages += 1;
        if n.kept {
            h.pages_kept += 1;
            h.tokens = h.tokens.saturating_add(n.tokens.unwrap_or(0).max(0));
        }
    }
    let mut pairs: BTreeMap<(&str, &str), HostEdge> = BTreeMap::new();
    for e in graph.edges() {
        let s = graph.node(e.source).host;
        let t = graph.node(e.target).host;
        let count = e.count;
        if s == t {
            if let Some(h) = hosts.get_mut(s) {
                h.internal_links = h.internal_links.saturating_add(count);
            }
        } else {
            let p = pairs.entry((s, t)).or_default();
            p.count = p.count.saturating_add(count);
            p.page_links += 1;
        }
    }
    let mut out = DiGraph::with_capacity(hosts.len(), pairs.len());
    let mut index: HashMap<&str, NodeIndex> = HashMap::with_capacity(hosts.len());
    for (name, node) in hosts {
        index.insert(name, out.add_node(node));
    }
    for ((s, t), edge) in pairs {
        if let (Some(&a), Some(&b)) = (index.get(s), index.get(t)) {
            out.add_edge(a, b, edge);
        }
    }
    HostGraph { graph: out }
}

impl HostGraph {
    fn table(&self) -> Table<'static> {
        let nodes = self
            .graph
            .node_weights()
            .enumerate()
            .map(|(k, h)| NodeOut {
                id: format!("h{k}"),
                label: h.host.clone(),
                values: vec![
                    Some(Value::Int(h.pages)),
                    Some(Value::Int(h.pages_kept)),
                    Some(Value::Int(h.tokens)),
                    Some(Value::Int(h.internal_links)),
                ],
            })
            .collect();
        let edges = self
            .graph
            .edge_references()
            .map(|e| EdgeOut {
                source: e.source().index(),
                target: e.target().index(),
                weight: e.weight().count,
                values: vec![Some(Value::Int(e.weight().page_links))],
            })
            .collect();
        owned_table(HOST_SCHEMA, HOST_LINK_SCHEMA, nodes, edges)
    }

    /// GEXF 1.3 text (label = host, weight = summed link count).
    pub fn to_gexf(&self) -> String {
        text_of(|w| write_gexf(&self.table(), w))
    }

    /// Graphviz DOT text (ids `h<k>` in alphabetical host order).
    pub fn to_dot(&self) -> String {
        text_of(|w| write_dot(&self.table(), "hosts", w))
    }

    /// Pajek `.net` text (vertex `k` is the `k`-th host alphabetically).
    pub fn to_pajek(&self) -> String {
        text_of(|w| write_pajek(&self.table(), w))
    }

    /// The host table as CSV rows (header first):
    /// `host,pages,pages_kept,tokens,internal_links`.
    pub fn node_rows(&self) -> Vec<Vec<String>> {
        let mut rows = vec![header(&[
            "host",
            "pages",
            "pages_kept",
            "tokens",
            "internal_links",
        ])];
        for h in self.graph.node_weights() {
            rows.push(vec![
                h.host.clone(),
                h.pages.to_string(),
                h.pages_kept.to_string(),
                h.tokens.to_string(),
                h.internal_links.to_string(),
            ]);
        }
        rows
    }

    /// The host link table as CSV rows (header first): `source,target,count,page_links`.
    pub fn edge_rows(&self) -> Vec<Vec<String>> {
        let mut rows = vec![header(&["source", "target", "count", "page_links"])];
        for e in self.graph.edge_references() {
            rows.push(vec![
                self.graph[e.source()].host.clone(),
                self.graph[e.target()].host.clone(),
                e.weight().count.to_string(),
                e.weight().page_links.to_string(),
            ]);
        }
        rows
    }
}

fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// A link to an invalid page (seed 004, A1: `L_nv = {<p, q> : p ∈ P_I, q ∈ P_N}`).
#[derive(Debug, Clone, PartialEq)]
pub struct BrokenLink {
    /// URL of the page holding the link.
    pub source_url: String,
    /// URL of the broken target.
    pub target_url: String,
    /// The HTTP status (`404`) when the target answered, else the recorded reason
    /// (`timeout`, `network-error`, …).
    pub problem: String,
    /// Anchor text of the link.
    pub anchor: String,
}

/// Every link whose target is broken ([`is_broken`]), sorted by source then target URL.
pub fn broken_links(graph: &LinkGraph) -> Vec<BrokenLink> {
    broken_link_edges(graph)
        .into_iter()
        .filter_map(|k| broken_link(graph, k as usize))
        .collect()
}

/// The edges of [`broken_links`] as edge indices, in its order: a caller writes each row as
/// it makes it (4 bytes per link held, not the link's URLs).
pub fn broken_link_edges(graph: &LinkGraph) -> Vec<u32> {
    edges_by_urls(graph, |_, target| is_broken(&graph.node(target)))
}

/// Edge `k` as a [`BrokenLink`], when its target is broken.
pub fn broken_link(graph: &LinkGraph, k: usize) -> Option<BrokenLink> {
    let e = graph.edge(k)?;
    let t = graph.node(e.target);
    is_broken(&t).then(|| BrokenLink {
        source_url: graph.node(e.source).url.to_string(),
        target_url: t.url.to_string(),
        problem: t
            .status
            .map_or_else(|| t.reason.to_string(), |s| s.to_string()),
        anchor: e.anchor.to_string(),
    })
}

/// The indices of the edges `keep` accepts, ordered by source then target URL: sources are
/// visited in URL order and each one's kept links sorted by target URL, so the sort never
/// looks up an edge's source (4 bytes per node and per kept edge held).
fn edges_by_urls(graph: &LinkGraph, keep: impl Fn(usize, usize) -> bool) -> Vec<u32> {
    let mut sources: Vec<u32> = (0..graph.node_count())
        .filter(|&i| !graph.out_range(i).is_empty())
        .filter_map(|i| u32::try_from(i).ok())
        .collect();
    sources.sort_by(|&a, &b| graph.node(a as usize).url.cmp(graph.node(b as usize).url));
    let mut out: Vec<u32> = Vec::new();
    for s in sources {
        // Ends only: anchors kept outside the graph are read for the links kept, not all; the
        // source's targets once, not once per comparison.
        let mut kept: Vec<(u32, usize)> = graph
            .out_range(s as usize)
            .zip(graph.out_targets(s as usize))
            .filter(|&(_, t)| keep(s as usize, t))
            .filter_map(|(k, t)| Some((u32::try_from(k).ok()?, t)))
            .collect();
        kept.sort_by(|a, b| graph.node(a.1).url.cmp(graph.node(b.1).url));
        out.extend(kept.iter().map(|&(k, _)| k));
    }
    out
}

/// The header of `broken-links.csv`.
pub fn broken_link_header() -> Vec<String> {
    header(&["source_url", "target_url", "problem", "anchor"])
}

/// One row of `broken-links.csv`.
pub fn broken_link_row(l: &BrokenLink) -> Vec<String> {
    vec![
        l.source_url.clone(),
        l.target_url.clone(),
        l.problem.clone(),
        l.anchor.clone(),
    ]
}

/// `broken-links.csv` rows (header first): `source_url,target_url,problem,anchor`.
pub fn broken_link_rows(links: &[BrokenLink]) -> Vec<Vec<String>> {
    let mut rows = vec![broken_link_header()];
    rows.extend(links.iter().map(broken_link_row));
    rows
}

/// A link leaving the site (seed 004, A2: `L_ext = {<p, q> : D(p) ≠ D(q), q ∉ P_N}`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalLink {
    /// URL of the page holding the link.
    pub source_url: String,
    /// URL of the target.
    pub target_url: String,
    /// Site of the source, as `site_of` gave it.
    pub source_site: String,
    /// Site of the target.
    pub target_site: String,
    /// Number of such links on the source page.
    pub count: i64,
    /// Anchor text of the first such link.
    pub anchor: String,
}

/// Every link between two different sites whose target is not broken, sorted by source then
/// target URL. `site_of` maps a host to its site: without a public-suffix list the caller can
/// pass [`same_host`] (each host is its own site, so `www.a.fr` → `a.fr` counts as external)
/// or a coarser key of its own.
pub fn external_links(graph: &LinkGraph, site_of: impl Fn(&str) -> String) -> Vec<ExternalLink> {
    external_link_edges(graph, &site_of)
        .into_iter()
        .filter_map(|k| external_link(graph, k as usize, &site_of))
        .collect()
}

/// The edges of [`external_links`] as edge indices, in its order (4 bytes per link held).
pub fn external_link_edges(graph: &LinkGraph, site_of: impl Fn(&str) -> String) -> Vec<u32> {
    edges_by_urls(graph, |source, target| {
        let (s, t) = (graph.node(source), graph.node(target));
        // One host is one site whatever `site_of` says: no key to make for inside links.
        !is_broken(&t) && s.host != t.host && site_of(s.host) != site_of(t.host)
    })
}

/// Edge `k` as an [`ExternalLink`], when it leaves its site for a target that is not broken.
pub fn external_link(
    graph: &LinkGraph,
    k: usize,
    site_of: impl Fn(&str) -> String,
) -> Option<ExternalLink> {
    let e = graph.edge(k)?;
    let (s, t) = (graph.node(e.source), graph.node(e.target));
    if is_broken(&t) {
        return None;
    }
    let (source_site, target_site) = (site_of(s.host), site_of(t.host));
    (source_site != target_site).then(|| ExternalLink {
        source_url: s.url.to_string(),
        target_url: t.url.to_string(),
        source_site,
        target_site,
        count: e.count,
        anchor: e.anchor.to_string(),
    })
}

/// The default site key: the host itself, lower-cased (no public-suffix list in glaneur).
pub fn same_host(host: &str) -> String {
    host.to_ascii_lowercase()
}

/// `external-links.csv` rows (header first):
/// `source_url,target_url,source_site,target_site,count,anchor`.
pub fn external_link_rows(links: &[ExternalLink]) -> Vec<Vec<String>> {
    let mut rows = vec![external_link_header()];
    rows.extend(links.iter().map(external_link_row));
    rows
}

/// The header of `external-links.csv`.
pub fn external_link_header() -> Vec<String> {
    header(&[
        "source_url",
        "target_url",
        "source_site",
        "target_site",
        "count",
        "anchor",
    ])
}

/// One row of `external-links.csv`.
pub fn external_link_row(l: &ExternalLink) -> Vec<String> {
    vec![
        l.source_url.clone(),
        l.target_url.clone(),
        l.source_site.clone(),
        l.target_site.clone(),
        l.count.to_string(),
        l.anchor.clone(),
    ]
}

#[cfg(test)]
mod tests;
