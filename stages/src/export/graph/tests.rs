//! The graph's tests: building, edge order, node facts, anchors held or kept outside.

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
    assert!(
        matches!(&g.texts, Texts::Held { pool, .. } if pool.len() == 2),
        "two distinct anchors"
    );
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
    assert_eq!(g.find_edge(0, 2).map(|e| e.anchor), Some("Next".into()));
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

/// A sink and a store over one shared buffer (what a scratch file is to the pipeline).
#[derive(Clone, Default)]
struct Shared(Arc<std::sync::Mutex<Vec<u8>>>, bool);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl ScratchStore for Shared {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        // The second field makes every read fail, as a vanished disk would.
        let bytes = self.0.lock().unwrap();
        let from = offset as usize;
        match bytes.get(from..from + buf.len()) {
            Some(src) if !self.1 => {
                buf.copy_from_slice(src);
                Ok(())
            }
            _ => Err(std::io::Error::other("unreadable")),
        }
    }
}

/// Three hosts; a broken target, a robots-refused one, links across hosts, repeated and
/// empty anchors, a link counted three times, an anchor longer than a read piece; nodes in
/// id order and links grouped by source, as a store lists them.
fn crawl_like() -> (Vec<PageNode>, Vec<LinkEdge>) {
    let page = |id: i64, url: &str, status: Option<i64>, reach: Reach| PageNode {
        host: url::Url::parse(url).unwrap().host_str().unwrap().into(),
        status,
        reach,
        depth: Some(id % 3),
        reason: if status == Some(200) {
            "kept"
        } else {
            "http-404"
        }
        .into(),
        kept: status == Some(200),
        ..node(id, url)
    };
    let nodes = vec![
        page(1, "http://a.test/", Some(200), Reach::Open),
        page(2, "http://a.test/doc", Some(200), Reach::Open),
        page(3, "http://a.test/gone", Some(404), Reach::Broken),
        page(4, "http://b.test/", Some(200), Reach::Open),
        page(5, "http://b.test/x", None, Reach::Open),
        page(6, "http://c.test/private", None, Reach::Disallowed),
    ];
    let long = "très long ".repeat(120_000);
    let link = |source, target, anchor: &str, count| LinkEdge {
        source,
        target,
        anchor: anchor.into(),
        count,
    };
    let edges = vec![
        link(1, 2, "Documentation", 1),
        link(1, 3, "", 1),
        link(1, 4, "Le site B", 3),
        link(1, 99, "nowhere", 1),
        link(2, 1, "Accueil", 1),
        link(2, 3, "Documentation", 1),
        link(4, 5, &long, 1),
        link(4, 6, "privé", 2),
        link(5, 4, "B", 1),
    ];
    (nodes, edges)
}

/// `nodes` and `edges` as a graph whose anchors are kept outside it (in a store whose reads
/// fail when `fail_reads`).
fn outside_of(nodes: &[PageNode], edges: &[LinkEdge], fail_reads: bool) -> LinkGraph {
    let (anchors, targets) = (Shared::default(), Shared::default());
    let mut b = LinkGraphBuilder::outside(
        edges.len(),
        Box::new(anchors.clone()),
        Box::new(targets.clone()),
    );
    for n in nodes {
        b.node(n);
    }
    for e in edges {
        b.edge(e.source, e.target, &e.anchor, e.count);
    }
    let (anchors, targets) = (Shared(anchors.0, fail_reads), Shared(targets.0, fail_reads));
    b.finish_outside(Box::new(anchors), Box::new(targets))
        .unwrap()
}

fn outside_graph(fail_reads: bool) -> LinkGraph {
    let (nodes, edges) = crawl_like();
    outside_of(&nodes, &edges, fail_reads)
}

#[test]
fn anchors_and_targets_kept_outside_read_back_as_held_ones_in_every_file() {
    use crate::export::{graphio, sitemap};
    let (nodes, edges) = crawl_like();
    let held = LinkGraph::build(nodes, edges);
    let outside = outside_graph(false);
    assert!(matches!(outside.texts, Texts::Outside(_)));
    assert!(matches!(outside.targets, Targets::Outside(_)));
    assert_eq!(
        outside.edge_ends().collect::<Vec<_>>(),
        held.edge_ends().collect::<Vec<_>>()
    );
    assert_eq!(outside.edge_count(), 8);
    assert_eq!(outside.dangling_edges, 1);
    assert_eq!(
        outside.edges().collect::<Vec<_>>(),
        held.edges().collect::<Vec<_>>()
    );
    for i in 0..held.node_count() + 1 {
        assert_eq!(
            outside.out_edges(i).collect::<Vec<_>>(),
            held.out_edges(i).collect::<Vec<_>>(),
            "node {i}"
        );
        for j in 0..held.node_count() {
            assert_eq!(outside.find_edge(i, j), held.find_edge(i, j), "{i} → {j}");
        }
    }
    for k in 0..held.edge_count() + 1 {
        assert_eq!(outside.edge(k), held.edge(k), "edge {k}");
    }
    let rank = graphio::pagerank_of(&held, 0.85);
    assert_eq!(graphio::pagerank_of(&outside, 0.85), rank);
    assert_eq!(outside.to_graphml(), held.to_graphml());
    assert_eq!(outside.edge_rows(), held.edge_rows());
    assert_eq!(
        graphio::to_gexf(&outside, &rank),
        graphio::to_gexf(&held, &rank)
    );
    assert_eq!(graphio::to_dot(&outside), graphio::to_dot(&held));
    assert_eq!(graphio::to_pajek(&outside), graphio::to_pajek(&held));
    let hosts = |g: &LinkGraph| {
        let h = graphio::host_graph(g);
        (h.to_gexf(), h.edge_rows(), h.node_rows())
    };
    assert_eq!(hosts(&outside), hosts(&held));
    assert_eq!(
        graphio::broken_links(&outside),
        graphio::broken_links(&held)
    );
    let external = |g: &LinkGraph| graphio::external_links(g, graphio::same_host);
    assert_eq!(external(&outside), external(&held));
    assert!(!external(&held).is_empty() && !graphio::broken_links(&held).is_empty());
    // Site maps without titles show the anchor of the link that reaches each page.
    let titles = std::collections::HashMap::new();
    let maps = |g: &LinkGraph| {
        sitemap::site_maps(g, &rank, &titles)
            .iter()
            .map(|m| (m.to_xml(), m.to_html()))
            .collect::<Vec<_>>()
    };
    assert_eq!(maps(&outside), maps(&held));
    assert!(maps(&held)[0].0.contains("title=\"Documentation\""));
    assert!(outside.take_read_error().is_none());
}

#[test]
fn links_out_of_source_order_or_unreadable_anchors_are_errors_not_wrong_files() {
    let (nodes, mut edges) = crawl_like();
    edges.swap(0, 5);
    let mut b = LinkGraphBuilder::outside(
        edges.len(),
        Box::new(Shared::default()),
        Box::new(Shared::default()),
    );
    for n in &nodes {
        b.node(n);
    }
    for e in &edges {
        b.edge(e.source, e.target, &e.anchor, e.count);
    }
    let err = b
        .finish_outside(Box::new(Shared::default()), Box::new(Shared::default()))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    // A store that cannot be read: the files are written with empty anchors and the error
    // waits for the caller, once.
    let g = outside_graph(true);
    assert!(g.to_graphml().contains("<data key=\"anchor\"></data>"));
    assert_eq!(g.edge(0).map(|e| e.count), Some(0));
    assert!(g.take_read_error().is_some());
    assert!(g.take_read_error().is_none());
}

/// Pages `0 .. n` of one host, `http://a.test/{i}`.
fn pages(n: i64) -> Vec<PageNode> {
    (0..n)
        .map(|i| node(i, &format!("http://a.test/{i}")))
        .collect()
}

#[test]
fn a_hubs_links_read_one_at_a_time_are_the_held_ones() {
    // One page linking to 3,000 others, each with its own anchor: what the broken and
    // external link reports and the site maps ask for one link at a time.
    let nodes = pages(3001);
    let edges: Vec<LinkEdge> = (1..3001)
        .map(|t| LinkEdge {
            source: 0,
            target: t,
            anchor: format!("page n° {t}"),
            count: t % 4,
        })
        .collect();
    let outside = outside_of(&nodes, &edges, false);
    let held = LinkGraph::build(nodes, edges);
    for k in (0..3000).rev() {
        assert_eq!(outside.edge(k), held.edge(k));
    }
    for j in 1..3001 {
        assert_eq!(outside.find_edge(0, j), held.find_edge(0, j));
    }
    assert_eq!(
        outside
            .find_edge(0, 1500)
            .map(|e| (e.anchor.into_owned(), e.count)),
        Some(("page n° 1500".to_string(), 0))
    );
    assert!(outside.take_read_error().is_none());
}

#[test]
fn more_links_than_one_read_piece_come_back_in_order() {
    // 300 pages of 1,000 links each: the targets kept outside are read in several pieces, and
    // a page's links straddle a piece's end.
    let nodes = pages(1000);
    let edges: Vec<LinkEdge> = (0..300)
        .flat_map(|s| {
            (0..1000).map(move |j| LinkEdge {
                source: s,
                target: (s * 7 + j * 13) % 1000,
                anchor: String::new(),
                count: 1,
            })
        })
        .collect();
    let mut sorted = edges.clone();
    sorted.sort_by_key(|e| (e.source, e.target));
    sorted.dedup_by_key(|e| (e.source, e.target));
    let outside = outside_of(&nodes, &sorted, false);
    let held = LinkGraph::build(nodes, sorted);
    assert!(held.edge_count() > 1 << 18);
    assert!(
        outside.edge_ends().eq(held.edge_ends()),
        "the same links in the same order"
    );
    let bits = |g: &LinkGraph| {
        crate::export::graphio::pagerank_of(g, 0.85)
            .iter()
            .map(|r| r.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&outside), bits(&held));
    assert!(
        outside
            .edges()
            .map(|e| e.target)
            .eq(held.edges().map(|e| e.target))
    );
    assert!(outside.take_read_error().is_none());
}

#[test]
fn node_ids_are_found_whether_consecutive_with_gaps_or_out_of_order() {
    // Consecutive ids (a store's rows) keep no list; a gap lists them; a step back indexes them.
    let orders: [&[i64]; 4] = [
        &[4, 5, 6, 7, 8],
        &[4, 5, 6, 9, 10],
        &[4, 5, 6, 2, 8],
        &[i64::MAX - 2, i64::MAX - 1, i64::MAX, i64::MIN, 0],
    ];
    for ids in orders {
        let nodes: Vec<PageNode> = ids
            .iter()
            .map(|&id| node(id, &format!("http://a.test/{id}")))
            .collect();
        let g = LinkGraph::build(nodes, []);
        assert_eq!(g.node_count(), ids.len());
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(g.index_of(id), Some(i), "{ids:?}");
            assert_eq!(g.node(i).id, id, "{ids:?}");
            assert_eq!(g.node(i).url, format!("http://a.test/{id}"));
        }
        let others = (-1..=12).chain([i64::MIN + 1, i64::MAX - 3]);
        for absent in others.filter(|id| !ids.contains(id)) {
            assert_eq!(g.index_of(absent), None, "{ids:?} {absent}");
        }
    }
}
