//! Tests of the site maps: the paper's example, host limits, BFS levels, output escaping.

use super::*;
use crate::export::graph::{LinkEdge, PageNode};
use crate::focus::pagerank::pagerank;

/// No page titles (the maps fall back to anchors and URLs).
fn no_titles() -> &'static HashMap<i64, String> {
    static NONE: std::sync::LazyLock<HashMap<i64, String>> = std::sync::LazyLock::new(HashMap::new);
    &NONE
}

fn page(id: i64, url: &str) -> PageNode {
    PageNode {
        id,
        url: url.into(),
        host: url.split('/').nth(2).unwrap_or_default().into(),
        depth: Some(1),
        status: Some(200),
        reason: "kept".into(),
        kept: true,
        ..PageNode::default()
    }
}

fn build(pages: &[(i64, &str)], links: &[(i64, i64, &str)]) -> LinkGraph {
    build_amended(pages, links, |_| {})
}

/// [`build`] with each page's facts amended first.
fn build_amended(
    pages: &[(i64, &str)],
    links: &[(i64, i64, &str)],
    amend: impl Fn(&mut PageNode),
) -> LinkGraph {
    LinkGraph::build(
        pages.iter().map(|&(id, url)| {
            let mut p = page(id, url);
            amend(&mut p);
            p
        }),
        links.iter().map(|&(s, t, anchor)| LinkEdge {
            source: s,
            target: t,
            anchor: anchor.into(),
            count: 1,
        }),
    )
}

fn pr(g: &LinkGraph) -> Vec<f64> {
    let edges: Vec<(usize, usize)> = g.edges().map(|e| (e.source, e.target)).collect();
    pagerank(g.node_count(), &edges, 0.85, 1e-12, 200)
}

/// The tree as `child url -> parent url`, for assertions.
fn parent_of(map: &SiteMap) -> BTreeMap<String, Option<String>> {
    map.pages
        .iter()
        .map(|p| {
            (
                map.url(p).to_string(),
                p.parent
                    .map(|k| map.url(&map.pages[k as usize]).to_string()),
            )
        })
        .collect()
}

// Seed 004, section 3.4 "Příklad", figure 1. The figure itself is an image missing from
// the text; this graph is rebuilt from the prose around it, keeping its edge names:
// "V prvním kroku vybereme pouze ty hrany, které odkazují z úvodní stránky, tedy hrany a,
// b, c (pravidlo P2). V druhém kroku vybíráme ty hrany, na jejichž uzly odkazovaly hrany
// z předchozího kroku a zároveň na jejich cílové uzly nevede žádná hrana (pravidlo P3).
// Pozitivním případem jsou hrany d, f, g a g', negativním pak hrany a', které odkazují na
// uzly již odkazované z jiných hran. Hrana e není vybrána podle pravidla P4, neboť hrana f
// odkazuje na stejnou stránku ze stejné úrovně, ale odkazující stránka má vyšší hodnotu
// PageRank. Hrana h není v mapě uvedena, ukazuje podobně jako hrany a' na uzel, který již
// byl do mapy přidán v některém z předchozím kroku. [...] Výsledná hierarchická mapa je v
// obrázku naznačena tučnými hranami."
// Node names are ours (HP, A…G); the a' edges both point at B, which gives B the higher
// PageRank that the text requires for f to beat e.
const EXAMPLE_PAGES: [(i64, &str); 8] = [
    (1, "http://web.test/"),
    (2, "http://web.test/a"),
    (3, "http://web.test/b"),
    (4, "http://web.test/c"),
    (5, "http://web.test/d"),
    (6, "http://web.test/e"),
    (7, "http://web.test/f"),
    (8, "http://web.test/g"),
];
const EXAMPLE_LINKS: [(i64, i64, &str); 11] = [
    (1, 2, "a"),
    (1, 3, "b"),
    (1, 4, "c"),
    (2, 3, "a'"),
    (4, 3, "a'"),
    (2, 5, "d"),
    (2, 6, "e"),
    (3, 6, "f"),
    (4, 7, "g"),
    (4, 8, "g'"),
    (7, 4, "h"),
];

#[test]
fn reproduces_the_worked_example_of_seed_004() {
    let g = build(&EXAMPLE_PAGES, &EXAMPLE_LINKS);
    let ranks = pr(&g);
    // The premise of the example: the page holding f outranks the page holding e.
    assert!(
        ranks[2] > ranks[1],
        "PR(B) {} <= PR(A) {}",
        ranks[2],
        ranks[1]
    );
    let map = site_map(&g, &ranks, no_titles(), "web.test").unwrap();
    let u = |s: &str| format!("http://web.test/{s}");
    let want: BTreeMap<String, Option<String>> = [
        (u(""), None),
        (u("a"), Some(u(""))),
        (u("b"), Some(u(""))),
        (u("c"), Some(u(""))),
        (u("d"), Some(u("a"))),
        (u("e"), Some(u("b"))),
        (u("f"), Some(u("c"))),
        (u("g"), Some(u("c"))),
    ]
    .into_iter()
    .collect();
    assert_eq!(parent_of(&map), want);
    // Tree edges carry the anchors of the bold edges: a b c d f g g', never a' e h.
    let mut used: Vec<String> = map.pages[1..].iter().map(|p| map.title(p)).collect();
    used.sort_unstable();
    assert_eq!(used, ["a", "b", "c", "d", "f", "g", "g'"]);
    assert_eq!(map.unreachable, 0);
    let levels: Vec<u32> = map.pages.iter().map(|p| p.level).collect();
    assert_eq!(levels, [0, 1, 1, 1, 2, 2, 2, 2]);
}

#[test]
fn the_tie_break_follows_pagerank_then_url() {
    let g = build(&EXAMPLE_PAGES, &EXAMPLE_LINKS);
    // Same graph, A now outranks B: e wins over f.
    let mut ranks = pr(&g);
    ranks.swap(1, 2);
    let map = site_map(&g, &ranks, no_titles(), "web.test").unwrap();
    assert_eq!(
        parent_of(&map)["http://web.test/e"].as_deref(),
        Some("http://web.test/a")
    );
    // Equal ranks: the smaller URL (A) wins, whatever the edge order.
    let flat = vec![0.125; 8];
    let map = site_map(&g, &flat, no_titles(), "web.test").unwrap();
    assert_eq!(
        parent_of(&map)["http://web.test/e"].as_deref(),
        Some("http://web.test/a")
    );
}

#[test]
fn keeps_to_the_host_and_skips_broken_and_robots_pages() {
    let g = build_amended(
        &[
            (1, "http://s.test/index.html"),
            (2, "http://s.test/x"),
            (3, "http://s.test/404"),
            (4, "http://s.test/private"),
            (5, "http://other.test/"),
            (6, "http://s.test/via-other"),
            (7, "http://s.test/island"),
            (8, "http://s.test/queued"),
        ],
        &[
            (1, 2, ""),
            (1, 3, ""),
            (1, 4, ""),
            (1, 5, ""),
            (5, 6, ""),
            (3, 7, ""),
            (2, 8, "Queued"),
        ],
        |n| match n.id {
            1 => n.depth = Some(0),
            3 => n.status = Some(404),
            4 => (n.status, n.reason, n.reach) = (None, "robots".into(), Reach::Disallowed),
            8 => (n.status, n.reason) = (None, "depth".into()),
            _ => {}
        },
    );
    let titles: HashMap<i64, String> = [(2, "Page X".to_string())].into_iter().collect();
    let ranks = pr(&g);
    let maps = site_maps(&g, &ranks, &titles);
    let hosts: Vec<&str> = maps.iter().map(|m| m.host.as_str()).collect();
    assert_eq!(hosts, ["other.test", "s.test"]);
    let map = &maps[1];
    // No `/` was fetched: the shallowest fetched page is the root.
    assert_eq!(map.url(&map.pages[0]), "http://s.test/index.html");
    let urls: Vec<&str> = map.pages.iter().map(|p| map.url(p)).collect();
    assert_eq!(
        urls,
        [
            "http://s.test/index.html",
            "http://s.test/x",
            "http://s.test/queued"
        ]
    );
    // via-other (only through another host) and island (only through a 404) are out.
    assert_eq!(map.unreachable, 2);
    let titles: Vec<String> = map.pages.iter().map(|p| map.title(p)).collect();
    assert_eq!(titles, ["http://s.test/index.html", "Page X", "Queued"]);
    // The maps of one pass over the nodes are the maps asked host by host.
    let all_titles = titles_of(&g);
    for map in &maps {
        let one = site_map(&g, &ranks, &all_titles, &map.host).unwrap();
        assert_eq!(one.to_xml(), map.to_xml());
        assert_eq!(one.to_html(), map.to_html());
        assert_eq!(one.unreachable, map.unreachable, "{}", map.host);
        assert_eq!(one.pages.len(), map.pages.len(), "{}", map.host);
    }
}

fn titles_of(g: &LinkGraph) -> HashMap<i64, String> {
    g.nodes()
        .filter(|n| n.id == 2)
        .map(|n| (n.id, "Page X".to_string()))
        .collect()
}

#[test]
fn every_reachable_page_once_at_its_bfs_distance() {
    // A deterministic pseudo-random site of 300 pages and 1,500 links.
    let n = 300usize;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let urls: Vec<String> = (0..n).map(|i| format!("http://r.test/p{i}")).collect();
    let pages: Vec<(i64, &str)> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| (i as i64, u.as_str()))
        .collect();
    let mut links: Vec<(i64, i64, &str)> = Vec::new();
    for _ in 0..1500 {
        let (s, t) = (rnd() % n as u64, rnd() % n as u64);
        if s != t && !links.iter().any(|l| l.0 == s as i64 && l.1 == t as i64) {
            links.push((s as i64, t as i64, ""));
        }
    }
    let g = build_amended(&pages, &links, |p| {
        if p.id == 0 {
            p.depth = Some(0);
        }
    });
    let ranks = pr(&g);
    let map = site_map(&g, &ranks, no_titles(), "r.test").unwrap();
    // Independent BFS distances.
    let mut dist = vec![usize::MAX; n];
    dist[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(v) = queue.pop_front() {
        for &(s, t, _) in &links {
            if s as usize == v && dist[t as usize] == usize::MAX {
                dist[t as usize] = dist[v] + 1;
                queue.push_back(t as usize);
            }
        }
    }
    let reachable = dist.iter().filter(|&&d| d != usize::MAX).count();
    assert_eq!(map.pages.len(), reachable);
    assert_eq!(map.unreachable, n - reachable);
    let mut seen = std::collections::HashSet::new();
    for p in &map.pages {
        let (id, url) = (map.id(p), map.url(p));
        assert!(seen.insert(id), "page {url} twice");
        assert_eq!(p.level as usize, dist[id as usize], "{url}");
        if let Some(k) = p.parent {
            let parent = &map.pages[k as usize];
            assert_eq!(parent.level + 1, p.level);
            assert!(links.iter().any(|l| l.0 == map.id(parent) && l.1 == id));
        }
    }
    let xml = map.to_xml();
    assert_eq!(xml.matches("<page ").count(), reachable);
    assert_eq!(
        xml.matches("</page>").count(),
        xml.matches("\">\n").count() - 1
    );
}

#[test]
fn xml_and_html_are_nested_and_escaped() {
    let g = build(
        &[(1, "http://e.test/"), (2, "http://e.test/a?b=1&c=2")],
        &[(1, 2, "<b>\"Tom & Jerry\"</b>")],
    );
    let map = site_map(&g, &[0.4, 0.6], no_titles(), "e.test").unwrap();
    let xml = map.to_xml();
    assert_eq!(
        xml,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <sitemap host=\"e.test\" root=\"http://e.test/\" pages=\"2\" unreachable=\"0\">\n  \
         <page url=\"http://e.test/\" title=\"http://e.test/\" pagerank=\"0.4\" level=\"0\">\n    \
         <page url=\"http://e.test/a?b=1&amp;c=2\" title=\"&lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;\" pagerank=\"0.6\" level=\"1\"/>\n  \
         </page>\n</sitemap>\n"
    );
    let html = map.to_html();
    assert!(html.starts_with("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"));
    assert!(html.contains(
        "<li class=\"kept\"><a href=\"http://e.test/a?b=1&amp;c=2\">&lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;</a> <span class=\"pr\">PageRank 0.600000</span>"
    ));
    assert_eq!(html.matches("<ul>").count(), html.matches("</ul>").count());
    assert_eq!(html.matches("<li ").count(), html.matches("</li>").count());
    assert_eq!(html.matches("<li ").count(), 2);
    assert!(html.contains("<b>2</b> in the corpus"), "{html}");
}

#[test]
fn no_fetched_page_means_no_map_and_deep_chains_are_fine() {
    let g = build_amended(&[(1, "http://n.test/")], &[], |n| n.status = None);
    assert!(site_map(&g, &[], no_titles(), "n.test").is_none());
    assert!(site_maps(&g, &[], no_titles()).is_empty());

    // A 20,000-page chain: no recursion, so no stack overflow.
    let urls: Vec<String> = (0..20_000).map(|i| format!("http://c.test/{i}")).collect();
    let pages: Vec<(i64, &str)> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| (i as i64, u.as_str()))
        .collect();
    let links: Vec<(i64, i64, &str)> = (0..19_999).map(|i| (i, i + 1, "")).collect();
    let g = build(&pages, &links);
    let map = site_map(&g, &[], no_titles(), "c.test").unwrap();
    assert_eq!(map.pages.len(), 20_000);
    assert_eq!(map.pages[19_999].level, 19_999);
    let xml = map.to_xml();
    assert_eq!(xml.matches("</page>").count(), 19_999);
    assert_eq!(map.to_html().matches("</ul>").count(), 20_000);

    // Written in pieces: a writer that fails after the first is an error, not a panic
    // nor a half map taken for a whole one.
    struct Full(usize);
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk full"));
            }
            self.0 -= 1;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    assert!(map.write_xml(&mut Full(1)).is_err());
    assert!(map.write_html(&mut Full(1)).is_err());
    assert!(map.write_xml(&mut Full(usize::MAX)).is_ok());
}

#[test]
fn chapters_keep_the_order_the_crawl_found_them_and_say_what_each_page_became() {
    // The home page links to its chapters in the order 2, 3, 4 (found in that order, so with
    // growing ids); the last chapter has the highest PageRank.
    let g = build_amended(
        &[
            (1, "http://m.test/"),
            (2, "http://m.test/intro"),
            (3, "http://m.test/layers"),
            (4, "http://m.test/zzz-index"),
        ],
        &[(1, 2, "Introduction"), (1, 3, "Calques"), (1, 4, "Index")],
        |p| match p.id {
            3 => {
                p.kept = false;
                p.reason = "off-topic".into();
            }
            4 => {
                p.kept = false;
                p.status = None;
                p.reason = "host-budget".into();
            }
            _ => {}
        },
    );
    let map = site_map(&g, &[0.1, 0.2, 0.3, 0.4], no_titles(), "m.test").unwrap();
    let order: Vec<&str> = map
        .children(&map.pages[0])
        .iter()
        .map(|&c| map.url(&map.pages[c as usize]))
        .collect();
    assert_eq!(
        order,
        [
            "http://m.test/intro",
            "http://m.test/layers",
            "http://m.test/zzz-index"
        ]
    );
    let html = map.to_html();
    assert!(
        html.contains("<li class=\"kept\"><a href=\"http://m.test/intro\">Introduction</a> <span class=\"pr\">PageRank 0.200000</span>"),
        "{html}"
    );
    assert!(html.contains("<li class=\"fetched\"><a href=\"http://m.test/layers\">Calques</a> <span class=\"why\">off-topic</span>"), "{html}");
    assert!(html.contains("<li class=\"unfetched\"><a href=\"http://m.test/zzz-index\">Index</a> <span class=\"why\">host-budget</span>"), "{html}");
    assert_eq!(html.matches("<b>2</b> in the corpus").count(), 1, "{html}");
    assert!(html.contains("<a>1</a> fetched, not kept"), "{html}");
    assert!(html.contains("<a>1</a> never fetched"), "{html}");
    // The XML lists the chapters in the same order.
    let xml = map.to_xml();
    let at = |u: &str| xml.find(&format!("url=\"{u}\"")).unwrap();
    assert!(at("http://m.test/intro") < at("http://m.test/layers"));
    assert!(at("http://m.test/layers") < at("http://m.test/zzz-index"));
}

#[test]
fn a_small_host_among_many_nodes_gets_the_map_it_gets_alone() {
    // Positions over every node for a large host, a hash map for a small one: the same map.
    let own = [
        (0, "http://s.test/"),
        (1, "http://s.test/b"),
        (2, "http://s.test/a"),
        (3, "http://s.test/c"),
    ];
    let own_links = [(0, 1, "B"), (0, 2, "A"), (1, 3, "via b"), (2, 3, "via a")];
    let others: Vec<String> = (4..44).map(|i| format!("http://o.test/{i}")).collect();
    let mut all: Vec<(i64, &str)> = own.to_vec();
    all.extend(
        others
            .iter()
            .enumerate()
            .map(|(k, u)| (k as i64 + 4, u.as_str())),
    );
    let mut all_links = own_links.to_vec();
    all_links.extend((4..43).map(|i| (i, i + 1, "next")));
    let alone = build(&own, &own_links);
    let among = build(&all, &all_links);
    assert!(matches!(Slots::for_host(4, 4), Slots::Dense(_)));
    assert!(matches!(Slots::for_host(44, 4), Slots::Sparse(_)));
    // Equal ranks for a and b: the tie goes to the smaller URL (a).
    let ranks = [0.4, 0.2, 0.2, 0.2];
    let mut ranks_among = ranks.to_vec();
    ranks_among.resize(44, 0.0);
    let one = site_map(&alone, &ranks, no_titles(), "s.test").unwrap();
    let two = site_map(&among, &ranks_among, no_titles(), "s.test").unwrap();
    assert_eq!(one.to_xml(), two.to_xml());
    assert_eq!(parent_of(&one), parent_of(&two));
    assert_eq!(
        parent_of(&two).get("http://s.test/c"),
        Some(&Some("http://s.test/a".to_string()))
    );
    // The other host (a chain from its shortest URL) holds the rest: positions over every node.
    let other = site_map(&among, &ranks_among, no_titles(), "o.test");
    assert_eq!(other.map(|m| m.pages.len()), Some(40));
}
