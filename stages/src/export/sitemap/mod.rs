//! Hierarchical site maps (seed 004, section 3.3 "Hierarchická mapa" and 3.4 "Příklad").
//!
//! **In:** the crawl's [`LinkGraph`], one PageRank score per node (indexed by
//! node index, e.g. from `graphio::pagerank_of`) and a source of page titles by crawl id,
//! asked for as the map is written (a map holds no title).
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

use crate::export::graph::{LinkGraph, NodeRef, Reach, text_of, xml_escape};
use crate::export::graphio::is_broken;

/// One page of a site map (24 bytes: its URL, id and PageRank are read from the graph through
/// the map, its title when the map is written, its children are a slice of one shared list).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteMapPage {
    /// The page's node in the graph (see [`SiteMap::url`], [`SiteMap::id`],
    /// [`SiteMap::pagerank`]).
    node: u32,
    /// Depth in the tree (the root is 0).
    pub level: u32,
    /// Position of the parent in [`SiteMap::pages`]; `None` for the root.
    pub parent: Option<u32>,
    /// Where the children's positions are in the map's child list (see [`SiteMap::children`]).
    children: (u32, u32),
}

/// Where a map's titles come from: a page's title by URL id.
pub type TitleSource<'g> = Box<dyn FnMut(i64) -> Option<String> + 'g>;

/// The hierarchical map of one host.
pub struct SiteMap<'g> {
    /// Host name.
    pub host: String,
    /// Pages in breadth-first order; `pages[0]` is the home page.
    pub pages: Vec<SiteMapPage>,
    /// Pages of the host that are neither broken nor robots-excluded but cannot be reached
    /// from the home page by links inside the host.
    pub unreachable: usize,
    /// The graph the map was drawn from (the pages' URLs and ids, and the tree links' anchors,
    /// are read from it).
    graph: &'g LinkGraph,
    /// PageRank by node index.
    pagerank: &'g [f64],
    /// The pages' own titles, asked for as the map is written: a host of a million pages has
    /// a hundred megabytes of them.
    title_of: std::cell::RefCell<TitleSource<'g>>,
    /// Every page's children, parent by parent.
    child_list: Vec<u32>,
}

impl std::fmt::Debug for SiteMap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiteMap")
            .field("host", &self.host)
            .field("pages", &self.pages)
            .field("unreachable", &self.unreachable)
            .finish_non_exhaustive()
    }
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
pub fn site_maps<'g>(
    graph: &'g LinkGraph,
    pagerank: &'g [f64],
    titles: &'g HashMap<i64, String>,
) -> Vec<SiteMap<'g>> {
    home_pages(graph)
        .into_iter()
        .map(|home| {
            let title_of: TitleSource<'g> = Box::new(|id: i64| titles.get(&id).cloned());
            site_map_from(graph, pagerank, title_of, &home)
        })
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
pub fn site_map<'g>(
    graph: &'g LinkGraph,
    pagerank: &'g [f64],
    titles: &'g HashMap<i64, String>,
    host: &str,
) -> Option<SiteMap<'g>> {
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
    let title_of: TitleSource<'g> = Box::new(|id: i64| titles.get(&id).cloned());
    Some(site_map_from(graph, pagerank, title_of, &home))
}

/// The site map of a host from its home page (see [`home_pages`]); `title_of` gives a page's
/// title by URL id (asked for each page every time the map is written, so a caller reads
/// titles from its store instead of holding them).
pub fn site_map_from<'g>(
    graph: &'g LinkGraph,
    pagerank: &'g [f64],
    title_of: TitleSource<'g>,
    home: &Home,
) -> SiteMap<'g> {
    let host = &*home.host;
    let on_host = |i: usize| {
        let node = graph.node(i);
        node.host == host && is_mappable(&node)
    };
    // Node indices and positions as u32: a map holds fewer than 4 billion pages.
    let mut position = Slots::for_host(graph.node_count(), home.mappable);
    let mut best = Slots::for_host(graph.node_count(), home.mappable);
    let mut pages = vec![SiteMapPage {
        node: home.root as u32,
        level: 0,
        parent: None,
        children: (0, 0),
    }];
    position.insert(home.root as u32, 0);
    let mut frontier = 0..1usize;
    let mut level = 0u32;
    // The pages found at a level, before they are placed.
    let mut found: Vec<u32> = Vec::new();
    while !frontier.is_empty() {
        level += 1;
        // P3 + P4: every page not yet in the map, linked from this level, with its best parent.
        for p in frontier.clone() {
            let from = pages[p].node as usize;
            for q in graph.out_targets(from) {
                let q32 = q as u32;
                if position.get(q32).is_some() || !on_host(q) {
                    continue;
                }
                let better = match best.get(q32) {
                    None => {
                        found.push(q32);
                        true
                    }
                    Some(cur) => {
                        let other = pages[cur as usize].node as usize;
                        let (ra, rb) = (score(pagerank, from), score(pagerank, other));
                        ra > rb || (ra == rb && graph.node(from).url < graph.node(other).url)
                    }
                };
                if better {
                    best.insert(q32, p as u32);
                }
            }
        }
        // Sorted by parent, the children of a page are next to each other; the order among
        // them (node order) only decides positions in `pages`, never the files.
        found.sort_unstable_by_key(|&q| (best.get(q), q));
        let start = pages.len();
        for q in found.drain(..) {
            let parent = best.take(q);
            position.insert(q, pages.len() as u32);
            pages.push(SiteMapPage {
                node: q,
                level,
                parent,
                children: (0, 0),
            });
        }
        frontier = start..pages.len();
    }
    drop((position, best));
    let child_list = child_list(graph, &mut pages);
    // Every page of the map is a mappable page of the host.
    let unreachable = home.mappable.saturating_sub(pages.len());
    SiteMap {
        host: host.to_string(),
        pages,
        unreachable,
        graph,
        pagerank,
        title_of: std::cell::RefCell::new(title_of),
        child_list,
    }
}

/// The children of every page, parent by parent: children are contiguous in `pages`
/// (positions 1.. by parent), so the list is those positions, each parent's slice in the
/// order the crawl found the pages (URL id), which is the order of the links on the page that
/// found them: a manual's chapters come in the order of its table of contents. Sets each
/// page's slice of it.
fn child_list(graph: &LinkGraph, pages: &mut [SiteMapPage]) -> Vec<u32> {
    let mut child_list: Vec<u32> = (1..pages.len() as u32).collect();
    let mut k = 1;
    while k < pages.len() {
        let parent = pages[k].parent;
        let mut end = k + 1;
        while end < pages.len() && pages[end].parent == parent {
            end += 1;
        }
        let slice = &mut child_list[k - 1..end - 1];
        slice.sort_by_key(|&a| graph.node_id(pages[a as usize].node as usize));
        if let Some(p) = parent.and_then(|p| pages.get_mut(p as usize)) {
            p.children = ((k - 1) as u32, (end - 1) as u32);
        }
        k = end;
    }
    child_list
}

/// Node index → a position, for the nodes of one host: a vector over every node when the host
/// holds a quarter of them or more (4 bytes a node of the graph), else a hash map (about 16
/// bytes a page of the host).
enum Slots {
    Dense(Vec<u32>),
    Sparse(HashMap<u32, u32>),
}

impl Slots {
    const NONE: u32 = u32::MAX;

    fn for_host(nodes: usize, host_pages: usize) -> Slots {
        if host_pages.saturating_mul(4) >= nodes {
            Slots::Dense(vec![Slots::NONE; nodes])
        } else {
            Slots::Sparse(HashMap::new())
        }
    }

    fn get(&self, node: u32) -> Option<u32> {
        match self {
            Slots::Dense(v) => v.get(node as usize).copied().filter(|&p| p != Slots::NONE),
            Slots::Sparse(m) => m.get(&node).copied(),
        }
    }

    fn insert(&mut self, node: u32, position: u32) {
        match self {
            Slots::Dense(v) => {
                if let Some(slot) = v.get_mut(node as usize) {
                    *slot = position;
                }
            }
            Slots::Sparse(m) => {
                m.insert(node, position);
            }
        }
    }

    /// The position of `node`, removed.
    fn take(&mut self, node: u32) -> Option<u32> {
        match self {
            Slots::Dense(v) => v
                .get_mut(node as usize)
                .map(|slot| std::mem::replace(slot, Slots::NONE))
                .filter(|&p| p != Slots::NONE),
            Slots::Sparse(m) => m.remove(&node),
        }
    }
}

impl<'g> SiteMap<'g> {
    /// The URL of `page`.
    pub fn url(&self, page: &SiteMapPage) -> &'g str {
        self.graph.node(page.node as usize).url
    }

    /// The crawl's URL id of `page`.
    pub fn id(&self, page: &SiteMapPage) -> i64 {
        self.graph.node_id(page.node as usize)
    }

    /// The PageRank of `page` (0 when none was given).
    pub fn pagerank(&self, page: &SiteMapPage) -> f64 {
        score(self.pagerank, page.node as usize)
    }

    /// The title of `page`: the crawl's title when given, else the anchor text of the tree
    /// link to the page, else the URL.
    pub fn title(&self, page: &SiteMapPage) -> String {
        let own = self
            .title_of
            .try_borrow_mut()
            .ok()
            .and_then(|mut title_of| title_of(self.id(page)));
        if let Some(own) = own.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            return own.to_string();
        }
        page.parent
            .and_then(|p| self.pages.get(p as usize))
            .and_then(|parent| {
                self.graph
                    .find_edge(parent.node as usize, page.node as usize)
            })
            .map(|e| e.anchor.trim().to_string())
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| self.url(page).to_string())
    }

    /// The positions of `page`'s children in [`SiteMap::pages`], in the order the crawl found
    /// them (URL id).
    pub fn children(&self, page: &SiteMapPage) -> &[u32] {
        let (from, to) = page.children;
        self.child_list
            .get(from as usize..to as usize)
            .unwrap_or(&[])
    }
}

/// Whether a page's element opens (before its children) or closes (after them).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Open,
    Close,
}

/// Visits the tree depth-first without recursion: `visit(page, Open)` before its children,
/// `visit(page, Close)` after them.
fn walk<'g>(map: &SiteMap<'g>, mut visit: impl FnMut(&SiteMapPage, Step)) {
    if map.pages.is_empty() {
        return;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    visit(&map.pages[0], Step::Open);
    while let Some(top) = stack.last_mut() {
        let page = &map.pages[top.0];
        if let Some(&child) = map.children(page).get(top.1) {
            top.1 += 1;
            if let Some(c) = map.pages.get(child as usize) {
                visit(c, Step::Open);
                stack.push((child as usize, 0));
            }
        } else {
            visit(page, Step::Close);
            stack.pop();
        }
    }
}

fn indent(out: &mut String, level: u32) {
    // Capped: a deep chain would otherwise make the file quadratic in its depth.
    for _ in 0..level.saturating_add(1).min(32) {
        out.push_str("  ");
    }
}

/// Bytes of text handed to the writer at a time: a map of a quarter of a million pages is
/// written without ever being one string.
const PIECE: usize = 1 << 16;

impl SiteMap<'_> {
    /// The tree as text into `w`, a piece at a time: `head`, then every page's opening and
    /// closing text in depth-first order, then `tail`. The first write error stops the writing
    /// and is returned.
    fn write_tree(
        &self,
        w: &mut dyn std::io::Write,
        head: &str,
        mut page: impl FnMut(&mut String, &SiteMapPage, Step),
        tail: &str,
    ) -> std::io::Result<()> {
        let mut out = String::with_capacity(PIECE + 4096);
        out.push_str(head);
        let mut failed = None;
        walk(self, |p, step| {
            if failed.is_some() {
                return;
            }
            page(&mut out, p, step);
            if out.len() >= PIECE {
                failed = w.write_all(out.as_bytes()).err();
                out.clear();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        out.push_str(tail);
        w.write_all(out.as_bytes())
    }

    /// Nested XML: `<sitemap host root pages unreachable>` holding
    /// `<page url title pagerank level>` elements, children inside their parent.
    pub fn to_xml(&self) -> String {
        text_of(|w| self.write_xml(w))
    }

    /// [`SiteMap::to_xml`] into `w`, a piece at a time.
    pub fn write_xml(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let root = self.pages.first().map_or("", |p| self.url(p));
        let head = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <sitemap host=\"{}\" root=\"{}\" pages=\"{}\" unreachable=\"{}\">\n",
            xml_escape(&self.host),
            xml_escape(root),
            self.pages.len(),
            self.unreachable
        );
        let page = |out: &mut String, p: &SiteMapPage, step| {
            let leaf = self.children(p).is_empty();
            match step {
                Step::Open => {
                    indent(out, p.level);
                    let _ = write!(
                        out,
                        "<page url=\"{}\" title=\"{}\" pagerank=\"{}\" level=\"{}\"",
                        xml_escape(self.url(p)),
                        xml_escape(&self.title(p)),
                        self.pagerank(p),
                        p.level
                    );
                    out.push_str(if leaf { "/>\n" } else { ">\n" });
                }
                Step::Close if !leaf => {
                    indent(out, p.level);
                    out.push_str("</page>\n");
                }
                Step::Close => {}
            }
        };
        self.write_tree(w, &head, page, "</sitemap>\n")
    }

    /// What a page of the map is to the corpus: `kept`, `fetched` (not kept) or `unfetched`
    /// (never requested), with the crawl's reason.
    fn standing(&self, page: &SiteMapPage) -> (&'static str, String) {
        let node = self.graph.node(page.node as usize);
        let class = if node.kept {
            "kept"
        } else if node.status.is_some() {
            "fetched"
        } else {
            "unfetched"
        };
        let reason = if node.reason.is_empty() {
            "queued".to_string()
        } else {
            node.reason.to_string()
        };
        (class, reason)
    }

    /// A browsable HTML5 page: nested `<ul>` lists of links, each marked as in the corpus,
    /// fetched but not kept (with the reason) or never fetched (with the reason), with its
    /// PageRank; a legend counts each kind.
    pub fn to_html(&self) -> String {
        text_of(|w| self.write_html(w))
    }

    /// [`SiteMap::to_html`] into `w`, a piece at a time.
    pub fn write_html(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let host = xml_escape(&self.host);
        let mut head = String::new();
        head.push_str("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n");
        let _ = writeln!(head, "<title>Site map of {host}</title>");
        head.push_str(
            "<style>body{font-family:system-ui,sans-serif;max-width:70em;margin:1em auto;padding:0 1em}\
             ul{list-style:none;padding-left:1.4em}.pr,.why{color:#666;font-size:smaller}\
             .kept>a,.kept>b{color:#14663f;font-weight:600}.fetched>a{color:#8a4b08}\
             .unfetched>a{color:#777;font-style:italic}\
             .legend span{margin-right:1.2em}</style>\n",
        );
        head.push_str("</head>\n<body>\n");
        let _ = writeln!(head, "<h1>Site map of {host}</h1>");
        let _ = writeln!(
            head,
            "<p>{} pages reachable from the home page by links inside the site; {} other pages of the site are not reachable that way.</p>",
            self.pages.len(),
            self.unreachable
        );
        let mut counts = [0usize; 3];
        for p in &self.pages {
            counts[match self.standing(p).0 {
                "kept" => 0,
                "fetched" => 1,
                _ => 2,
            }] += 1;
        }
        let _ = writeln!(
            head,
            "<p class=\"legend\"><span class=\"kept\"><b>{}</b> in the corpus</span>\
             <span class=\"fetched\"><a>{}</a> fetched, not kept (the reason follows)</span>\
             <span class=\"unfetched\"><a>{}</a> never fetched (the reason follows)</span>\
             <span class=\"pr\">PageRank: the page's share of the crawl's link graph</span></p>",
            counts[0], counts[1], counts[2]
        );
        let listed = !self.pages.is_empty();
        if listed {
            head.push_str("<ul>\n");
        }
        let page = |out: &mut String, p: &SiteMapPage, step| {
            let leaf = self.children(p).is_empty();
            match step {
                Step::Open => {
                    let title = xml_escape(&self.title(p));
                    let (class, reason) = self.standing(p);
                    let url = self.url(p);
                    let lower = url.to_ascii_lowercase();
                    if lower.starts_with("http://") || lower.starts_with("https://") {
                        let _ = write!(
                            out,
                            "<li class=\"{class}\"><a href=\"{}\">{title}</a>",
                            xml_escape(url)
                        );
                    } else {
                        let _ = write!(out, "<li class=\"{class}\">{title}");
                    }
                    if class != "kept" {
                        let _ = write!(out, " <span class=\"why\">{}</span>", xml_escape(&reason));
                    }
                    let _ = write!(
                        out,
                        " <span class=\"pr\">PageRank {:.6}</span>",
                        self.pagerank(p)
                    );
                    out.push_str(if leaf { "</li>\n" } else { "\n<ul>\n" });
                }
                Step::Close if !leaf => out.push_str("</ul>\n</li>\n"),
                Step::Close => {}
            }
        };
        let tail = if listed {
            "</ul>\n</body>\n</html>\n"
        } else {
            "</body>\n</html>\n"
        };
        self.write_tree(w, &head, page, tail)
    }
}

#[cfg(test)]
mod tests;
