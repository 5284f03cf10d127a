//! Hierarchical site maps (seed 004, section 3.3 "Hierarchická mapa" and 3.4 "Příklad").
//!
//! **In:** the crawl's [`LinkGraph`], one PageRank score per node (indexed by
//! node index, e.g. from `graphio::pagerank_of`) and optional page titles by crawl id.
//!
//! **Out:** per host, a [`SiteMap`]: the breadth-first spanning tree of the host's pages from
//! its home page, as nested XML (`<page url title pagerank level>`) or a browsable HTML5 page.
//!
//! **Invariants** (the paper's conditions P1–P5):
//! - P1: the root is the home page: the host's `/` (no query) when it was fetched with a
//!   status below 400, else the shallowest such page (then shortest URL, then URL);
//! - P2: every page of the host reachable from the root by links inside the host appears
//!   exactly once; broken pages (`graphio::is_broken`, the paper's `P_N`) and pages excluded by
//!   robots.txt (the closest thing to its ignored pages `P_G`) are left out, unfetched pages
//!   (the paper's registered pages `P_R`) are kept;
//! - P3: only links to pages not yet in the map are tree edges, and links to other hosts
//!   (`L_ext`) are never followed, so a page reachable only through another host is left out
//!   and counted in [`SiteMap::unreachable`];
//! - P4: a page linked from several pages of the same BFS level hangs under the one with the
//!   highest PageRank; the paper allows a random choice among equal ranks, we take the
//!   smallest URL so that the output is deterministic;
//! - each page's level is its shortest-path distance from the root inside the host.
//!
//! Output is written without recursion (a chain of a million pages cannot overflow the stack)
//! and is escaped; `href`s are only written for `http`/`https` URLs.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::export::graph::{LinkGraph, NodeRef, Reach, xml_escape};
use crate::export::graphio::is_broken;

/// One page of a site map.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteMapPage {
    /// Crawl URL id.
    pub id: i64,
    /// URL.
    pub url: String,
    /// Page title: the crawl's title when given, else the anchor text of the tree link to
    /// the page, else the URL.
    pub title: String,
    /// PageRank score (0 when none was given).
    pub pagerank: f64,
    /// Depth in the tree (the root is 0).
    pub level: usize,
    /// Position of the parent in [`SiteMap::pages`]; `None` for the root.
    pub parent: Option<usize>,
    /// Positions of the children in [`SiteMap::pages`], highest PageRank first (then URL).
    pub children: Vec<usize>,
}

/// The hierarchical map of one host.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteMap {
    /// Host name.
    pub host: String,
    /// Pages in breadth-first order; `pages[0]` is the home page.
    pub pages: Vec<SiteMapPage>,
    /// Pages of the host that are neither broken nor robots-excluded but cannot be reached
    /// from the home page by links inside the host.
    pub unreachable: usize,
}

fn is_fetched(node: &NodeRef<'_>) -> bool {
    matches!(node.status, Some(s) if (100..400).contains(&s))
}

/// Whether the page may appear in a map (paper: `P_I ∪ P_R`).
fn is_mappable(node: &NodeRef<'_>) -> bool {
    !is_broken(node) && node.reach != Reach::Disallowed
}

fn is_home(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| u.path() == "/" && u.query().is_none())
}

fn score(pagerank: &[f64], i: usize) -> f64 {
    pagerank
        .get(i)
        .copied()
        .filter(|v| v.is_finite())
        .unwrap_or(0.0)
}

/// The site map of every host with at least one fetched page, sorted by host.
pub fn site_maps(
    graph: &LinkGraph,
    pagerank: &[f64],
    titles: &HashMap<i64, String>,
) -> Vec<SiteMap> {
    let mut title_of = |id: i64| titles.get(&id).cloned();
    home_pages(graph)
        .into_iter()
        .map(|home| site_map_from(graph, pagerank, &mut title_of, &home))
        .collect()
}

/// A host's home page and how many of its pages a map may show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    /// Host name.
    pub host: String,
    /// The home page (P1), a node index.
    pub root: usize,
    /// Pages of the host a map may show (fetched or not).
    pub mappable: usize,
}

/// The home page (P1) of every host with at least one fetched page, sorted by host, in one
/// pass over the nodes: a caller writes each host's map with [`site_map_from`] as it goes,
/// and the work per host follows that host's pages, not the whole graph.
pub fn home_pages(graph: &LinkGraph) -> Vec<Home> {
    let mut best: BTreeMap<&str, (Option<usize>, usize)> = BTreeMap::new();
    for (i, n) in graph.nodes().enumerate() {
        if !is_mappable(&n) {
            continue;
        }
        let entry = best.entry(n.host).or_default();
        entry.1 += 1;
        if is_fetched(&n)
            && entry
                .0
                .is_none_or(|cur| home_key(graph, i) < home_key(graph, cur))
        {
            entry.0 = Some(i);
        }
    }
    best.into_iter()
        .filter_map(|(host, (root, mappable))| {
            Some(Home {
                host: host.to_string(),
                root: root?,
                mappable,
            })
        })
        .collect()
}

/// P1's order: a home URL first, then the shallowest, the shortest, the first by bytes.
fn home_key(graph: &LinkGraph, i: usize) -> (bool, i64, usize, &str) {
    let n = graph.node(i);
    (
        !is_home(n.url),
        n.depth.unwrap_or(i64::MAX),
        n.url.len(),
        n.url,
    )
}

/// The site map of `host`, or `None` when no page of the host was fetched (no home page).
pub fn site_map(
    graph: &LinkGraph,
    pagerank: &[f64],
    titles: &HashMap<i64, String>,
    host: &str,
) -> Option<SiteMap> {
    // P1: the home page.
    let on_host = |i: &usize| graph.node(*i).host == host && is_mappable(&graph.node(*i));
    let root = (0..graph.node_count())
        .filter(|i| on_host(i) && is_fetched(&graph.node(*i)))
        .min_by(|&a, &b| home_key(graph, a).cmp(&home_key(graph, b)))?;
    let home = Home {
        host: host.to_string(),
        root,
        mappable: (0..graph.node_count()).filter(on_host).count(),
    };
    let mut title_of = |id: i64| titles.get(&id).cloned();
    Some(site_map_from(graph, pagerank, &mut title_of, &home))
}

/// The site map of a host from its home page (see [`home_pages`]); `title_of` gives a page's
/// title by URL id (asked once per page of the map, so a caller can read titles from its
/// store instead of holding every title).
pub fn site_map_from(
    graph: &LinkGraph,
    pagerank: &[f64],
    title_of: &mut dyn FnMut(i64) -> Option<String>,
    home: &Home,
) -> SiteMap {
    let g = |i: usize| graph.node(i);
    let root = home.root;
    let host = &*home.host;
    let on_host = |i: usize| g(i).host == host && is_mappable(&g(i));
    let mut position: HashMap<usize, usize> = HashMap::new();
    let mut nodes: Vec<usize> = vec![root];
    let mut parents: Vec<Option<usize>> = vec![None];
    let mut levels: Vec<usize> = vec![0];
    position.insert(root, 0);
    let mut frontier = 0..1;
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        // P3 + P4: every page not yet in the map, linked from this level, with its best parent.
        let mut best: HashMap<usize, usize> = HashMap::new();
        for p in frontier.clone() {
            let from = nodes[p];
            for q in graph.out_edges(from).map(|e| e.target) {
                if position.contains_key(&q) || !on_host(q) {
                    continue;
                }
                let better = match best.get(&q) {
                    None => true,
                    Some(&cur) => {
                        let (a, b) = (nodes[p], nodes[cur]);
                        let (ra, rb) = (score(pagerank, a), score(pagerank, b));
                        ra > rb || (ra == rb && g(a).url < g(b).url)
                    }
                };
                if better {
                    best.insert(q, p);
                }
            }
        }
        let mut next: Vec<(usize, usize)> = best.into_iter().collect();
        // The order inside a level only decides positions in `pages`; make it deterministic.
        next.sort_by(|a, b| (a.1, g(a.0).url).cmp(&(b.1, g(b.0).url)));
        let start = nodes.len();
        for (q, p) in next {
            position.insert(q, nodes.len());
            nodes.push(q);
            parents.push(Some(p));
            levels.push(level);
        }
        frontier = start..nodes.len();
    }

    let mut pages: Vec<SiteMapPage> = nodes
        .iter()
        .zip(&parents)
        .zip(&levels)
        .map(|((&i, &parent), &level)| {
            let n = g(i);
            let anchor = parent
                .and_then(|p| graph.find_edge(nodes[p], i))
                .map(|e| e.anchor.trim().to_string())
                .filter(|a| !a.is_empty());
            let title = title_of(n.id)
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .or(anchor)
                .unwrap_or_else(|| n.url.to_string());
            SiteMapPage {
                id: n.id,
                url: n.url.to_string(),
                title,
                pagerank: score(pagerank, i),
                level,
                parent,
                children: Vec::new(),
            }
        })
        .collect();
    for k in 1..pages.len() {
        if let Some(p) = pages[k].parent {
            pages[p].children.push(k);
        }
    }
    for k in 0..pages.len() {
        let mut children = std::mem::take(&mut pages[k].children);
        children.sort_by(|&a, &b| {
            pages[b]
                .pagerank
                .total_cmp(&pages[a].pagerank)
                .then_with(|| pages[a].url.cmp(&pages[b].url))
        });
        pages[k].children = children;
    }
    // Every page of the map is a mappable page of the host.
    let unreachable = home.mappable.saturating_sub(pages.len());
    SiteMap {
        host: host.to_string(),
        pages,
        unreachable,
    }
}

/// Visits the tree depth-first without recursion: `open(page)` before its children,
/// `close(page)` after them.
fn walk(map: &SiteMap, mut open: impl FnMut(&SiteMapPage), mut close: impl FnMut(&SiteMapPage)) {
    if map.pages.is_empty() {
        return;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    open(&map.pages[0]);
    while let Some(top) = stack.last_mut() {
        let page = &map.pages[top.0];
        if let Some(&child) = page.children.get(top.1) {
            top.1 += 1;
            if let Some(c) = map.pages.get(child) {
                open(c);
                stack.push((child, 0));
            }
        } else {
            close(page);
            stack.pop();
        }
    }
}

fn indent(out: &mut String, level: usize) {
    // Capped: a deep chain would otherwise make the file quadratic in its depth.
    for _ in 0..(level + 1).min(32) {
        out.push_str("  ");
    }
}

/// Text made a piece at a time and handed to a writer every [`Chunked::PIECE`] bytes: a map
/// of a quarter of a million pages is written without ever being one string.
struct Chunked<'a> {
    out: String,
    w: &'a mut dyn std::io::Write,
    failed: Option<std::io::Error>,
}

impl Chunked<'_> {
    const PIECE: usize = 1 << 16;

    fn pass_on(&mut self, force: bool) {
        if (force || self.out.len() >= Self::PIECE) && self.failed.is_none() {
            if let Err(e) = self.w.write_all(self.out.as_bytes()) {
                self.failed = Some(e);
            }
            self.out.clear();
        }
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.pass_on(true);
        self.failed.map_or(Ok(()), Err)
    }
}

impl SiteMap {
    /// Nested XML: `<sitemap host root pages unreachable>` holding
    /// `<page url title pagerank level>` elements, children inside their parent.
    pub fn to_xml(&self) -> String {
        let mut bytes = Vec::new();
        // Writing to a vector cannot fail.
        let _ = self.write_xml(&mut bytes);
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// [`SiteMap::to_xml`] into `w`, a piece at a time.
    pub fn write_xml(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut sink = Chunked {
            out: String::with_capacity(Chunked::PIECE + 4096),
            w,
            failed: None,
        };
        let out = &mut sink.out;
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let root = self.pages.first().map(|p| p.url.as_str()).unwrap_or("");
        let _ = writeln!(
            out,
            "<sitemap host=\"{}\" root=\"{}\" pages=\"{}\" unreachable=\"{}\">",
            xml_escape(&self.host),
            xml_escape(root),
            self.pages.len(),
            self.unreachable
        );
        let cell = std::cell::RefCell::new(&mut sink);
        walk(
            self,
            |p| {
                let mut sink = cell.borrow_mut();
                let out = &mut sink.out;
                indent(out, p.level);
                let _ = write!(
                    out,
                    "<page url=\"{}\" title=\"{}\" pagerank=\"{}\" level=\"{}\"",
                    xml_escape(&p.url),
                    xml_escape(&p.title),
                    p.pagerank,
                    p.level
                );
                out.push_str(if p.children.is_empty() { "/>\n" } else { ">\n" });
                sink.pass_on(false);
            },
            |p| {
                if !p.children.is_empty() {
                    let mut sink = cell.borrow_mut();
                    indent(&mut sink.out, p.level);
                    sink.out.push_str("</page>\n");
                    sink.pass_on(false);
                }
            },
        );
        sink.out.push_str("</sitemap>\n");
        sink.finish()
    }

    /// A browsable HTML5 page: nested `<ul>` lists of links, each with its PageRank.
    pub fn to_html(&self) -> String {
        let mut bytes = Vec::new();
        // Writing to a vector cannot fail.
        let _ = self.write_html(&mut bytes);
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// [`SiteMap::to_html`] into `w`, a piece at a time.
    pub fn write_html(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let host = xml_escape(&self.host);
        let mut sink = Chunked {
            out: String::with_capacity(Chunked::PIECE + 4096),
            w,
            failed: None,
        };
        let out = &mut sink.out;
        out.push_str("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n");
        let _ = writeln!(out, "<title>Site map of {host}</title>");
        out.push_str("<style>ul{list-style:none;padding-left:1.4em}.pr{color:#777;font-size:smaller}</style>\n");
        out.push_str("</head>\n<body>\n");
        let _ = writeln!(out, "<h1>Site map of {host}</h1>");
        let _ = writeln!(
            out,
            "<p>{} pages reachable from the home page by links inside the site; {} other pages of the site are not reachable that way.</p>",
            self.pages.len(),
            self.unreachable
        );
        if !self.pages.is_empty() {
            out.push_str("<ul>\n");
        }
        let cell = std::cell::RefCell::new(&mut sink);
        walk(
            self,
            |p| {
                let mut sink = cell.borrow_mut();
                let out = &mut sink.out;
                let title = xml_escape(&p.title);
                let lower = p.url.to_ascii_lowercase();
                if lower.starts_with("http://") || lower.starts_with("https://") {
                    let _ = write!(out, "<li><a href=\"{}\">{title}</a>", xml_escape(&p.url));
                } else {
                    let _ = write!(out, "<li>{title}");
                }
                let _ = write!(out, " <span class=\"pr\">{:.6}</span>", p.pagerank);
                out.push_str(if p.children.is_empty() {
                    "</li>\n"
                } else {
                    "\n<ul>\n"
                });
                sink.pass_on(false);
            },
            |p| {
                if !p.children.is_empty() {
                    let mut sink = cell.borrow_mut();
                    sink.out.push_str("</ul>\n</li>\n");
                    sink.pass_on(false);
                }
            },
        );
        if !self.pages.is_empty() {
            sink.out.push_str("</ul>\n");
        }
        sink.out.push_str("</body>\n</html>\n");
        sink.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::graph::{LinkEdge, PageNode};
    use crate::focus::pagerank::pagerank;

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
            .map(|p| (p.url.clone(), p.parent.map(|k| map.pages[k].url.clone())))
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
        let map = site_map(&g, &ranks, &HashMap::new(), "web.test").unwrap();
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
        let mut used: Vec<&str> = map.pages[1..].iter().map(|p| p.title.as_str()).collect();
        used.sort_unstable();
        assert_eq!(used, ["a", "b", "c", "d", "f", "g", "g'"]);
        assert_eq!(map.unreachable, 0);
        let levels: Vec<usize> = map.pages.iter().map(|p| p.level).collect();
        assert_eq!(levels, [0, 1, 1, 1, 2, 2, 2, 2]);
    }

    #[test]
    fn the_tie_break_follows_pagerank_then_url() {
        let g = build(&EXAMPLE_PAGES, &EXAMPLE_LINKS);
        // Same graph, A now outranks B: e wins over f.
        let mut ranks = pr(&g);
        ranks.swap(1, 2);
        let map = site_map(&g, &ranks, &HashMap::new(), "web.test").unwrap();
        assert_eq!(
            parent_of(&map)["http://web.test/e"].as_deref(),
            Some("http://web.test/a")
        );
        // Equal ranks: the smaller URL (A) wins, whatever the edge order.
        let flat = vec![0.125; 8];
        let map = site_map(&g, &flat, &HashMap::new(), "web.test").unwrap();
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
        assert_eq!(map.pages[0].url, "http://s.test/index.html");
        let urls: Vec<&str> = map.pages.iter().map(|p| p.url.as_str()).collect();
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
        let titles: Vec<&str> = map.pages.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["http://s.test/index.html", "Page X", "Queued"]);
        // The maps of one pass over the nodes are the maps asked host by host.
        for map in &maps {
            let one = site_map(&g, &ranks, &titles_of(&g), &map.host).unwrap();
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
        let map = site_map(&g, &pr(&g), &HashMap::new(), "r.test").unwrap();
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
            assert!(seen.insert(p.id), "page {} twice", p.url);
            assert_eq!(p.level, dist[p.id as usize], "{}", p.url);
            if let Some(k) = p.parent {
                let parent = &map.pages[k];
                assert_eq!(parent.level + 1, p.level);
                assert!(links.iter().any(|l| l.0 == parent.id && l.1 == p.id));
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
        let map = site_map(&g, &[0.4, 0.6], &HashMap::new(), "e.test").unwrap();
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
            "<li><a href=\"http://e.test/a?b=1&amp;c=2\">&lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;</a>"
        ));
        assert_eq!(html.matches("<ul>").count(), html.matches("</ul>").count());
        assert_eq!(html.matches("<li>").count(), html.matches("</li>").count());
        assert_eq!(html.matches("<li>").count(), 2);
    }

    #[test]
    fn no_fetched_page_means_no_map_and_deep_chains_are_fine() {
        let g = build_amended(&[(1, "http://n.test/")], &[], |n| n.status = None);
        assert!(site_map(&g, &[], &HashMap::new(), "n.test").is_none());
        assert!(site_maps(&g, &[], &HashMap::new()).is_empty());

        // A 20,000-page chain: no recursion, so no stack overflow.
        let urls: Vec<String> = (0..20_000).map(|i| format!("http://c.test/{i}")).collect();
        let pages: Vec<(i64, &str)> = urls
            .iter()
            .enumerate()
            .map(|(i, u)| (i as i64, u.as_str()))
            .collect();
        let links: Vec<(i64, i64, &str)> = (0..19_999).map(|i| (i, i + 1, "")).collect();
        let g = build(&pages, &links);
        let map = site_map(&g, &[], &HashMap::new(), "c.test").unwrap();
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
}
