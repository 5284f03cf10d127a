//! Tests of the graph writers and link reports: GEXF, DOT, Pajek, the host graph, broken and
//! external links, escaping and odd graphs.

use super::*;
use crate::export::graph::{LinkEdge, PageNode};

fn page(id: i64, url: &str, status: Option<i64>, reason: &str) -> PageNode {
    let host = url.split('/').nth(2).unwrap_or_default().to_string();
    PageNode {
        id,
        url: url.into(),
        host: host.into(),
        depth: Some(1),
        status,
        kept: reason == "kept",
        tokens: (reason == "kept").then_some(100),
        reason: reason.into(),
        reach: match reason {
            "robots" => Reach::Disallowed,
            "timeout" | "network-error" | "redirect-chain" | "invalid-url" => Reach::Broken,
            r if r.starts_with("http-") => Reach::Broken,
            _ => Reach::Open,
        },
        ..PageNode::default()
    }
}

fn link(source: i64, target: i64, count: i64) -> LinkEdge {
    LinkEdge {
        source,
        target,
        anchor: format!("to {target}"),
        count,
    }
}

/// a.test: home(1) → 2, 3 (404), 4 (timeout); 2 → 1; a.test → b.test(5), c.test(6 robots).
fn sample() -> LinkGraph {
    LinkGraph::build(
        [
            page(1, "http://a.test/", Some(200), "kept"),
            page(2, "http://a.test/q?x=1&y=\"<2>\"", Some(200), "kept"),
            page(3, "http://a.test/gone", Some(404), "http-404"),
            page(4, "http://a.test/slow", None, "timeout"),
            page(5, "http://b.test/", Some(200), "off-topic"),
            page(6, "http://c.test/x\\y", None, "robots"),
        ],
        [
            link(1, 2, 2),
            link(1, 3, 1),
            link(1, 4, 1),
            link(2, 1, 1),
            link(1, 5, 3),
            link(2, 5, 1),
            link(2, 6, 1),
            link(5, 1, 1),
        ],
    )
}

#[test]
fn broken_links_are_4xx_and_failed_fetches() {
    let g = sample();
    let broken = broken_links(&g);
    let got: Vec<(&str, &str)> = broken
        .iter()
        .map(|b| (b.target_url.as_str(), b.problem.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("http://a.test/gone", "404"),
            ("http://a.test/slow", "timeout")
        ]
    );
    assert_eq!(broken_link_rows(&broken).len(), 3);
    let broken = |p: PageNode| is_broken(&LinkGraph::build([p], []).node(0));
    assert!(!broken(page(9, "http://a.test/r", Some(301), "redirect")));
    assert!(!broken(page(9, "http://a.test/r", None, "robots")));
    assert!(broken(page(9, "http://a.test/r", None, "http-404")));
}

#[test]
fn external_links_cross_hosts_and_skip_broken_targets() {
    let g = sample();
    let ext = external_links(&g, same_host);
    let got: Vec<(&str, &str, i64)> = ext
        .iter()
        .map(|e| (e.source_url.as_str(), e.target_url.as_str(), e.count))
        .collect();
    assert_eq!(
        got,
        [
            ("http://a.test/", "http://b.test/", 3),
            ("http://a.test/q?x=1&y=\"<2>\"", "http://b.test/", 1),
            ("http://a.test/q?x=1&y=\"<2>\"", "http://c.test/x\\y", 1),
            ("http://b.test/", "http://a.test/", 1),
        ]
    );
    // A coarser site key merges hosts.
    assert!(external_links(&g, |_| "one".to_string()).is_empty());
    assert_eq!(external_link_rows(&ext)[0].len(), 6);
}

#[test]
fn host_graph_sums_pages_tokens_and_links() {
    let h = host_graph(&sample());
    let rows = h.node_rows();
    assert_eq!(
        rows[0],
        ["host", "pages", "pages_kept", "tokens", "internal_links"]
    );
    assert_eq!(rows[1], ["a.test", "4", "2", "200", "5"]);
    assert_eq!(rows[2], ["b.test", "1", "0", "0", "0"]);
    assert_eq!(rows[3], ["c.test", "1", "0", "0", "0"]);
    let edges = h.edge_rows();
    assert_eq!(
        edges[1..],
        [
            ["a.test", "b.test", "4", "2"],
            ["a.test", "c.test", "1", "1"],
            ["b.test", "a.test", "1", "1"],
        ]
    );
    assert!(h.to_pajek().starts_with("*Vertices 3\n1 \"a.test\"\n"));
    assert!(h.to_gexf().contains("label=\"b.test\""));
    assert!(h.to_dot().contains("\"h0\" -> \"h1\" [weight=4];"));
}

#[test]
fn gexf_declares_types_escapes_and_omits_absent_values() {
    let g = sample();
    let pr = pagerank_of(&g, 0.85);
    assert!((pr.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    let x = to_gexf(&g, &pr);
    assert!(x.contains("version=\"1.3\""));
    assert!(x.contains("defaultedgetype=\"directed\""));
    assert!(x.contains("<attribute id=\"depth\" title=\"depth\" type=\"integer\"/>"));
    assert!(x.contains("<attribute id=\"pagerank\" title=\"pagerank\" type=\"double\"/>"));
    assert!(x.contains("label=\"http://a.test/q?x=1&amp;y=&quot;&lt;2&gt;&quot;\""));
    assert!(x.contains("source=\"n1\" target=\"n5\" weight=\"3\""));
    assert_eq!(x.matches("<node ").count(), 6);
    assert_eq!(x.matches("<edge ").count(), 8);
    assert_eq!(x.matches("for=\"pagerank\"").count(), 6);
    assert!(!x.contains("for=\"score\""), "absent values are omitted");
    // A short PageRank slice leaves scores out instead of panicking.
    assert_eq!(to_gexf(&g, &pr[..2]).matches("for=\"pagerank\"").count(), 2);
}

#[test]
fn dot_quotes_ids_and_escapes_labels() {
    let d = to_dot(&sample());
    assert!(d.starts_with("digraph \"links\" {\n"));
    assert!(d.contains("\"n2\" [label=\"http://a.test/q?x=1&y=\\\"<2>\\\"\""));
    assert!(d.contains("\"n6\" [label=\"http://c.test/x\\\\y\""));
    assert!(d.contains("\"n1\" -> \"n5\" [weight=3];"));
    assert_eq!(d.matches(" -> ").count(), 8);
    assert!(d.ends_with("}\n"));
}

#[test]
fn pajek_numbers_vertices_from_one() {
    let p = to_pajek(&sample());
    let lines: Vec<&str> = p.lines().collect();
    assert_eq!(lines[0], "*Vertices 6");
    assert_eq!(lines[1], "1 \"http://a.test/\"");
    assert_eq!(lines[2], "2 \"http://a.test/q?x=1&y=%22<2>%22\"");
    assert_eq!(lines[6], "6 \"http://c.test/x%5Cy\"");
    assert_eq!(lines[7], "*Arcs");
    assert!(lines.contains(&"1 5 3"));
    assert_eq!(lines.len(), 1 + 6 + 1 + 8);
}

#[test]
fn empty_graph_writes_empty_documents() {
    let g = LinkGraph::default();
    assert!(to_gexf(&g, &[]).contains("<nodes count=\"0\">"));
    assert_eq!(to_pajek(&g), "*Vertices 0\n*Arcs\n");
    assert!(host_graph(&g).graph.node_count() == 0);
    assert!(broken_links(&g).is_empty());
}
