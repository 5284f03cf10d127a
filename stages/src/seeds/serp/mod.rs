//! Saved search-engine result pages (SERPs) → seed URLs.
//!
//! The seed stage follows BootCaT: the linguist's topic terms are sent to search engines and
//! the URLs they return become the crawl's seeds. When no search API is at hand, the linguist
//! saves the result pages from a browser (or finds archived copies) and this module reads them.
//!
//! **In**: the HTML of one result page, already decoded to UTF-8, optionally with the URL the
//! page was fetched from (a Wayback Machine URL is understood) and the engine when the caller
//! knows it. Google, Bing, Yahoo, Qwant, Ecosia, Brave, Ask, DuckDuckGo, Baidu and Yandex are
//! recognised, in the layouts they used from the early 2000s to 2022.
//!
//! **Out**: a [`SerpPage`]: the engine, the query, and the organic hits in page order, each with
//! its rank, URL, title and snippet. When the page yields no hit, [`SerpPage::problem`] says why
//! in words a linguist can act on (the engine found nothing, the page needs JavaScript, a bot
//! check was shown, the layout is unknown, …).
//!
//! Each engine has a list of layouts (CSS selectors for the result blocks, their link, title
//! and snippet, and for what to leave out); the first layout that yields a hit is used, and a
//! generic rule (headings that link out of the engine) is the fallback for layouts not seen
//! yet. Image-search pages give the pages the images come from (Bing, Google's basic layout),
//! Google's news search gives the articles; other media searches are reported, not read, and a
//! listings search (TV, films, music, shopping, maps, known by the page's URL) is not even
//! tried, since any link on it would pass for a result.
//!
//! **Invariants**:
//! - never panics, whatever the input (malformed, empty or huge HTML, odd URLs);
//! - hits are organic results only: ads, "people also ask", news and video carousels,
//!   knowledge panels and related searches are left out;
//! - every hit URL is absolute `http`/`https`, with the engine's click-tracking wrapper removed
//!   when that can be done offline ([`unwrap_redirect`]); links that point back into the
//!   engine itself (cache, "similar", other searches) are dropped;
//! - hits are deduplicated by URL and ranked 1, 2, 3, … in page order;
//! - `problem` is `Some` exactly when `hits` is empty.
//!
//! **Files**, in data-flow order: `detect` (which engine) → `urls` (hit URLs unwrapped, the
//! engine's own links recognised) → `engines` (each engine's layouts) → this file (the common
//! parser: selectors, layouts run, hits, query) → `diagnose` (why a page gave no hit);
//! `tests.rs` the tests.

use std::collections::HashSet;
use std::sync::LazyLock;

use scraper::{ElementRef, Html, Selector};
use url::Url;

mod detect;
pub use detect::detect_engine;
use detect::{detect_engine_in, engine_for_url, saved_from_url};

mod urls;
pub use urls::unwrap_redirect;
use urls::{is_engine_plumbing, starts_with_http, strip_archive};

mod engines;
use engines::{COMPILED, COMPILED_GENERIC, CompiledLayout};

mod diagnose;
use diagnose::{READ_VERTICALS, diagnose, vertical_of};

/// A search engine whose result pages can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Google (web search, including the basic no-JavaScript layout and image search).
    Google,
    /// Microsoft Bing (web and image search).
    Bing,
    /// Yahoo, from the 2000-era directory listings to the 2022 layout.
    Yahoo,
    /// Qwant.
    Qwant,
    /// Ecosia.
    Ecosia,
    /// Brave Search.
    Brave,
    /// Ask.com (Ask Jeeves).
    Ask,
    /// DuckDuckGo (the no-JavaScript `html.duckduckgo.com` page or a rendered page).
    DuckDuckGo,
    /// Baidu.
    Baidu,
    /// Yandex.
    Yandex,
}

impl Engine {
    /// Every engine, in a stable order.
    pub const ALL: [Engine; 10] = [
        Engine::Google,
        Engine::Bing,
        Engine::Yahoo,
        Engine::Qwant,
        Engine::Ecosia,
        Engine::Brave,
        Engine::Ask,
        Engine::DuckDuckGo,
        Engine::Baidu,
        Engine::Yandex,
    ];

    /// Lower-case name, the same as the serde form (`"duckduckgo"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Google => "google",
            Engine::Bing => "bing",
            Engine::Yahoo => "yahoo",
            Engine::Qwant => "qwant",
            Engine::Ecosia => "ecosia",
            Engine::Brave => "brave",
            Engine::Ask => "ask",
            Engine::DuckDuckGo => "duckduckgo",
            Engine::Baidu => "baidu",
            Engine::Yandex => "yandex",
        }
    }

    /// The engine with this name, ignoring case, spaces, dots and dashes
    /// (`"DuckDuckGo"`, `"duck-duck-go"`, `"ask.com"` and `"ddg"` are all understood).
    pub fn from_name(s: &str) -> Option<Engine> {
        let key: String = s
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let key = key
            .strip_suffix("com")
            .filter(|k| !k.is_empty())
            .unwrap_or(&key);
        match key {
            "ddg" => Some(Engine::DuckDuckGo),
            "askjeeves" => Some(Engine::Ask),
            "bravesearch" => Some(Engine::Brave),
            _ => Engine::ALL.into_iter().find(|e| e.name() == key),
        }
    }

    /// Origin used to resolve relative links when the page URL is unknown.
    fn default_origin(self) -> &'static str {
        match self {
            Engine::Google => "https://www.google.com/",
            Engine::Bing => "https://www.bing.com/",
            Engine::Yahoo => "https://search.yahoo.com/",
            Engine::Qwant => "https://www.qwant.com/",
            Engine::Ecosia => "https://www.ecosia.org/",
            Engine::Brave => "https://search.brave.com/",
            Engine::Ask => "https://www.ask.com/",
            Engine::DuckDuckGo => "https://duckduckgo.com/",
            Engine::Baidu => "https://www.baidu.com/",
            Engine::Yandex => "https://yandex.ru/",
        }
    }
}

/// One organic result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SerpHit {
    /// 1-based position among the organic results kept, in page order.
    pub rank: usize,
    /// Absolute `http(s)` URL of the result, with the engine's redirect removed when possible.
    pub url: String,
    /// The result's title as shown, whitespace collapsed.
    pub title: String,
    /// The result's snippet as shown (may be empty), whitespace collapsed.
    pub snippet: String,
}

/// What was read from one result page.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SerpPage {
    /// The engine (given by the caller, or detected).
    pub engine: Option<Engine>,
    /// The query, from the page URL or the page's search box.
    pub query: Option<String>,
    /// The URL the page was retrieved from (archive wrapper removed), from the caller or the
    /// browser's "saved from" note, when known.
    pub page_url: Option<String>,
    /// Which result page of the query this is (1 = first), from the paging parameter of
    /// `page_url` (see [`result_page_number`]); `None` when the URL is unknown.
    pub page: Option<u32>,
    /// Organic results in page order.
    pub hits: Vec<SerpHit>,
    /// Why there are no hits (always set when `hits` is empty), e.g.
    /// `"no results found: the page needs JavaScript"` or `"engine not recognised"`.
    pub problem: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Selectors
// ---------------------------------------------------------------------------------------------

/// Compiles a selector written in this file; `None` only if it is malformed, which the unit
/// tests rule out (a bad rule is skipped rather than taking the crawler down).
fn css(s: &str) -> Option<Selector> {
    Selector::parse(s).ok()
}

/// A built-in selector, compiled on first use (`None` only if malformed; see [`css`]).
type Lazy = LazyLock<Option<Selector>>;

/// Every element of `doc` matching `selector` (none when the selector is missing).
fn select_all<'a>(
    doc: &'a Html,
    selector: &'static Option<Selector>,
) -> impl Iterator<Item = ElementRef<'a>> + 'a {
    selector.iter().flat_map(move |s| doc.select(s))
}

static SEL_CANONICAL: Lazy = LazyLock::new(|| css("link[rel=canonical][href]"));
static SEL_OG_URL: Lazy = LazyLock::new(|| css("meta[property='og:url'][content]"));
static SEL_BASE: Lazy = LazyLock::new(|| css("base[href]"));
static SEL_FORM: Lazy = LazyLock::new(|| css("form[action]"));
static SEL_OPENSEARCH: Lazy = LazyLock::new(|| {
    css("link[rel=search][href], link[type='application/opensearchdescription+xml'][href]")
});
static SEL_ICON: Lazy = LazyLock::new(|| css("link[rel~=icon][href]"));
static SEL_REFRESH: Lazy = LazyLock::new(|| css("meta[http-equiv][content]"));
static SEL_ANCHOR: Lazy = LazyLock::new(|| css("a[href]"));
static SEL_TITLE: Lazy = LazyLock::new(|| css("title"));
static SEL_QUERY_INPUT: Lazy = LazyLock::new(|| {
    css(
        "input[name=q][value], input[name=p][value], input[name=wd][value], \
         input[name=word][value], input[name=text][value], input[name=query][value], \
         textarea[name=q]",
    )
});

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// What the parser needs to know about the page while reading links.
struct Context {
    engine: Engine,
    /// Base for relative links: the page's `<base>`, else its original (un-archived) URL,
    /// else the engine's home.
    base: Option<Url>,
}

impl Context {
    /// The result URL behind a link's `href`, if it is one: resolved, unwrapped,
    /// `http(s)`, and not a link back into the engine.
    fn result_url(&self, href: &str) -> Option<String> {
        let href = href.trim();
        if href.is_empty() || href.starts_with('#') {
            return None;
        }
        let lower = href.get(..11).unwrap_or(href).to_ascii_lowercase();
        if lower.starts_with("javascript:") || lower.starts_with("mailto:") {
            return None;
        }
        let absolute = match Url::parse(href) {
            Ok(u) => u,
            Err(url::ParseError::RelativeUrlWithoutBase) => self.base.as_ref()?.join(href).ok()?,
            Err(_) => return None,
        };
        let unwrapped = unwrap_redirect(absolute.as_str());
        let url = Url::parse(&unwrapped).ok()?;
        if !matches!(url.scheme(), "http" | "https")
            || url.host_str().is_none_or(|h| !h.contains('.'))
        {
            return None;
        }
        if is_engine_plumbing(&url, self.engine) {
            return None;
        }
        Some(unwrapped)
    }
}

/// Parses a saved result page. `page_url` is the URL the page was fetched from, when known
/// (an archive URL is fine); `engine` overrides detection.
pub fn parse_serp(html: &str, page_url: Option<&str>, engine: Option<Engine>) -> SerpPage {
    let doc = Html::parse_document(html);
    let saved_from = saved_from_url(&doc);
    // A `file:` URL (a page opened from disk) says less than the browser's "saved from" note.
    let original_url = page_url
        .filter(|u| starts_with_http(u.trim()))
        .or(saved_from.as_deref())
        .or(page_url)
        .map(|u| strip_archive(u).unwrap_or_else(|| u.to_string()));
    let engine = engine
        .or_else(|| original_url.as_deref().and_then(engine_for_url))
        .or_else(|| detect_engine_in(&doc));
    let Some(engine) = engine else {
        return SerpPage {
            engine: None,
            query: query_from_page(&doc, original_url.as_deref(), None),
            page_url: original_url,
            page: None,
            hits: Vec::new(),
            problem: Some(if html.trim().is_empty() {
                "no results found: the page is empty".to_string()
            } else {
                "engine not recognised: give the engine or the page's URL".to_string()
            }),
        };
    };
    let base = page_base(&doc, original_url.as_deref(), engine);
    let query = query_from_page(&doc, original_url.as_deref(), Some(engine));
    let ctx = Context { engine, base };
    let rules = COMPILED.iter().find(|r| r.engine == engine);
    let mut hits = Vec::new();
    // A listings search (TV, films, music, shopping, maps) lists things, not web pages:
    // whatever links it has would be mistaken for results.
    let unread_vertical = original_url
        .as_deref()
        .and_then(|u| vertical_of(u, engine))
        .is_some_and(|v| !READ_VERTICALS.contains(&v));
    if let Some(rules) = rules.filter(|_| !unread_vertical) {
        for layout in &rules.layouts {
            hits = run_layout(&doc, &ctx, layout, rules.exclude.as_ref());
            if !hits.is_empty() {
                break;
            }
        }
        if hits.is_empty()
            && let Some(generic) = COMPILED_GENERIC.as_ref()
        {
            hits = run_layout(&doc, &ctx, generic, rules.exclude.as_ref());
        }
    }
    let problem = if hits.is_empty() {
        Some(diagnose(&doc, html, engine, original_url.as_deref(), rules))
    } else {
        None
    };
    let page = original_url
        .as_deref()
        .and_then(|u| result_page_number(engine, u));
    SerpPage {
        engine: Some(engine),
        query,
        page_url: original_url,
        page,
        hits,
        problem,
    }
}

/// Which result page `page_url` shows (1 = first), from the engine's paging parameter:
/// Google `start` and Baidu `pn` (0-based result index, 10 per page), Bing `first` and Yahoo
/// `b` (1-based result index), Ask `page`, Qwant `p` (1-based pages), Ecosia `p` and Brave
/// `offset` (0-based pages), DuckDuckGo `s` and Yandex `p` (0-based). A URL without the
/// parameter is the first page; `None` when the URL does not parse.
pub fn result_page_number(engine: Engine, page_url: &str) -> Option<u32> {
    let url = Url::parse(page_url.trim()).ok()?;
    let get = |name: &str| -> Option<u64> {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.trim().parse::<u64>().ok())
    };
    let per_page = |index: Option<u64>, base: u64| -> u64 {
        index.map_or(1, |i| i.saturating_sub(base) / 10 + 1)
    };
    let page = match engine {
        Engine::Google => per_page(get("start"), 0),
        Engine::Baidu => per_page(get("pn"), 0),
        Engine::Bing => per_page(get("first"), 1),
        Engine::Yahoo => per_page(get("b"), 1),
        Engine::DuckDuckGo => per_page(get("s"), 0),
        Engine::Ask | Engine::Qwant => {
            get(if engine == Engine::Ask { "page" } else { "p" }).map_or(1, |p| p.max(1))
        }
        Engine::Ecosia | Engine::Yandex => get("p").map_or(1, |p| p + 1),
        Engine::Brave => get("offset").map_or(1, |p| p + 1),
    };
    u32::try_from(page).ok()
}

/// Base URL for relative links.
fn page_base(doc: &Html, original_url: Option<&str>, engine: Engine) -> Option<Url> {
    let page = original_url
        .and_then(|u| Url::parse(u).ok())
        .filter(|u| u.host_str().is_some())
        .or_else(|| Url::parse(engine.default_origin()).ok());
    let declared = select_all(doc, &SEL_BASE)
        .next()
        .and_then(|b| b.attr("href"))
        .map(|h| strip_archive(h).unwrap_or_else(|| h.to_string()))
        .and_then(|h| match &page {
            Some(p) => p.join(&h).ok(),
            None => Url::parse(&h).ok(),
        })
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    declared.or(page)
}

/// One candidate result before ranking.
fn make_hit(url: String, title: String, snippet: String) -> SerpHit {
    SerpHit {
        rank: 0,
        url,
        title,
        snippet,
    }
}

/// Whether the element or one of its ancestors matches `exclude`.
fn is_excluded(el: ElementRef, exclude: Option<&Selector>) -> bool {
    let Some(exclude) = exclude else {
        return false;
    };
    if exclude.matches(&el) {
        return true;
    }
    el.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| exclude.matches(&a))
}

fn nearest<'a>(el: ElementRef<'a>, selector: &Selector) -> Option<ElementRef<'a>> {
    el.ancestors()
        .filter_map(ElementRef::wrap)
        .find(|a| selector.matches(a))
}

fn run_layout(
    doc: &Html,
    ctx: &Context,
    layout: &CompiledLayout,
    exclude: Option<&Selector>,
) -> Vec<SerpHit> {
    let mut out = Vec::new();
    for block in doc.select(&layout.block) {
        let found = match &layout.link {
            Some(link) if layout.first_only => block
                .select(link)
                .next()
                .and_then(|a| Some((a, ctx.result_url(a.attr("href")?)?))),
            Some(link) => block
                .select(link)
                .find_map(|a| Some((a, ctx.result_url(a.attr("href")?)?))),
            None => block
                .attr("href")
                .and_then(|h| ctx.result_url(h))
                .map(|u| (block, u)),
        };
        let Some((link, url)) = found else {
            continue;
        };
        if is_excluded(link, exclude) {
            continue;
        }
        // Where title and snippet are looked for: the whole result around the block when the
        // layout names it, else the block.
        let scope = match &layout.around {
            Some(around) => {
                let scope = nearest(block, around).unwrap_or(block);
                if is_excluded(scope, exclude) {
                    continue;
                }
                scope
            }
            None => block,
        };
        let title = layout
            .title
            .iter()
            .find_map(|t| {
                let found = if layout.link.is_none() {
                    // The block is the link: its own heading, or the heading it sits in.
                    link.select(t)
                        .map(text_of)
                        .find(|x| !x.is_empty())
                        .or_else(|| nearest(link, t).map(text_of))
                } else {
                    scope.select(t).map(text_of).find(|x| !x.is_empty())
                };
                found.filter(|x| !x.is_empty())
            })
            .unwrap_or_else(|| text_of(link));
        let snippet = layout
            .snippet
            .iter()
            .find_map(|s| {
                scope
                    .select(s)
                    .map(text_of)
                    .find(|t| !t.is_empty() && *t != title)
            })
            .unwrap_or_default();
        out.push(make_hit(url, title, snippet));
    }
    finish(out)
}

/// Deduplicates by URL (first occurrence wins) and numbers the hits.
fn finish(hits: Vec<SerpHit>) -> Vec<SerpHit> {
    let mut seen = HashSet::new();
    hits.into_iter()
        .filter(|h| seen.insert(h.url.clone()))
        .enumerate()
        .map(|(i, h)| SerpHit { rank: i + 1, ..h })
        .collect()
}

/// Visible text of an element (scripts and styles left out), whitespace collapsed.
fn text_of(el: ElementRef) -> String {
    let mut out = String::new();
    let mut stack = vec![*el];
    while let Some(node) = stack.pop() {
        match node.value() {
            scraper::Node::Text(t) => {
                out.push_str(t);
            }
            scraper::Node::Element(e) => {
                if matches!(e.name(), "script" | "style" | "noscript" | "template") {
                    continue;
                }
                if matches!(e.name(), "br" | "p" | "div" | "li") {
                    out.push(' ');
                }
                let mut children: Vec<_> = node.children().collect();
                children.reverse();
                stack.extend(children);
            }
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------------
// Query
// ---------------------------------------------------------------------------------------------

/// The query: from the page URL's query parameter, else from the page's search box.
fn query_from_page(
    doc: &Html,
    original_url: Option<&str>,
    engine: Option<Engine>,
) -> Option<String> {
    let from_url = original_url.and_then(|u| Url::parse(u).ok()).and_then(|u| {
        let names: &[&str] = match engine {
            Some(Engine::Yahoo) => &["p", "va", "q"],
            Some(Engine::Baidu) => &["wd", "word", "q", "kw"],
            Some(Engine::Yandex) => &["text"],
            _ => &["q", "as_q", "query", "p", "text", "wd"],
        };
        names.iter().find_map(|n| {
            u.query_pairs()
                .find(|(k, v)| k == n && !v.trim().is_empty())
                .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        })
    });
    from_url.or_else(|| {
        select_all(doc, &SEL_QUERY_INPUT).find_map(|input| {
            let value = match input.value().name() {
                "textarea" => text_of(input),
                _ => input.attr("value").unwrap_or_default().to_string(),
            };
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            (!value.is_empty()).then_some(value)
        })
    })
}

#[cfg(test)]
mod tests;
