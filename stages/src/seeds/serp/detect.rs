//! Which engine a result page comes from: its URL (or the one a browser saved it from, or an
//! archive's original), else its title, canonical and form URLs, else engine-specific markup.
//!
//! **In:** a parsed page and, when known, the URL it was fetched from. **Out:** an [`Engine`] or
//! `None`.
//!
//! **Invariants:** hosts match on label boundaries (`notgoogle.com` is not Google); never panics.

use std::sync::LazyLock;

use scraper::{Html, Selector};
use url::Url;

use super::urls::{engine_for_host, strip_archive};
use super::{
    Engine, SEL_ANCHOR, SEL_BASE, SEL_CANONICAL, SEL_FORM, SEL_ICON, SEL_OG_URL, SEL_OPENSEARCH,
    SEL_REFRESH, SEL_TITLE, css, select_all, text_of,
};

/// The engine of an absolute URL (after removing an archive wrapper).
pub(super) fn engine_for_url(url: &str) -> Option<Engine> {
    let original = strip_archive(url).unwrap_or_else(|| url.to_string());
    let parsed = Url::parse(&original).ok()?;
    engine_for_host(parsed.host_str()?)
}

/// Detects the engine of a result page: from the URL's host when a URL is given and known,
/// else from the page itself (the URL in a browser's "saved from" comment, canonical and
/// form-action URLs, the title, then engine-specific markup).
pub fn detect_engine(html: &str, page_url: Option<&str>) -> Option<Engine> {
    if let Some(engine) = page_url.and_then(engine_for_url) {
        return Some(engine);
    }
    let doc = Html::parse_document(html);
    detect_engine_in(&doc)
}

pub(super) fn detect_engine_in(doc: &Html) -> Option<Engine> {
    if let Some(engine) = saved_from_url(doc).as_deref().and_then(engine_for_url) {
        return Some(engine);
    }
    // URLs the page states about itself, then where its search box sends queries.
    for (selector, attr) in [
        (&SEL_CANONICAL, "href"),
        (&SEL_OG_URL, "content"),
        (&SEL_BASE, "href"),
        (&SEL_FORM, "action"),
        (&SEL_OPENSEARCH, "href"),
        (&SEL_ICON, "href"),
    ] {
        for el in select_all(doc, selector) {
            if let Some(engine) = el.attr(attr).and_then(engine_for_absolute) {
                return Some(engine);
            }
        }
    }
    if let Some(engine) = select_all(doc, &SEL_TITLE)
        .next()
        .and_then(|t| engine_from_title(&text_of(t)))
    {
        return Some(engine);
    }
    if let Some(engine) = select_all(doc, &SEL_REFRESH)
        .filter_map(|m| m.attr("content"))
        .filter_map(|c| {
            let lower = c.to_ascii_lowercase();
            let at = lower.find("url=")?;
            c.get(at + 4..)
                .map(|u| u.trim().trim_matches(['\'', '"']).to_string())
        })
        .find_map(|u| engine_for_absolute(&u))
    {
        return Some(engine);
    }
    // Markup no other engine uses; checked late because it drifts with every redesign.
    if let Some(engine) = MARKERS
        .iter()
        .find(|(_, selector)| doc.select(selector).next().is_some())
        .map(|(engine, _)| *engine)
    {
        return Some(engine);
    }
    // Last resort: the engine whose own hosts the page links to most (its logo, its other
    // services, its help pages).
    let mut votes = [0usize; Engine::ALL.len()];
    for href in select_all(doc, &SEL_ANCHOR).filter_map(|a| a.attr("href")) {
        if let Some(engine) = engine_for_absolute(href)
            && let Some(i) = Engine::ALL.iter().position(|e| *e == engine)
        {
            votes[i] += 1;
        }
    }
    let (best, count) = votes
        .iter()
        .enumerate()
        .max_by_key(|(i, v)| (**v, std::cmp::Reverse(*i)))?;
    let runner_up = votes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best)
        .map(|(_, v)| *v)
        .max()
        .unwrap_or(0);
    (*count > runner_up).then(|| Engine::ALL[best])
}

/// The engine of a URL only if it is absolute (or protocol-relative).
fn engine_for_absolute(url: &str) -> Option<Engine> {
    let url = url.trim();
    if url.starts_with("//") {
        engine_for_url(&format!("https:{url}"))
    } else {
        engine_for_url(url)
    }
}

fn engine_from_title(title: &str) -> Option<Engine> {
    let t = title.to_lowercase();
    let ends = |s: &str| t.trim_end().ends_with(s);
    if ends("google search")
        || ends("- google")
        || t.contains("google 検索")
        || ends("google suche")
    {
        Some(Engine::Google)
    } else if ends("- bing") || ends("- search") && t.contains("bing") {
        Some(Engine::Bing)
    } else if t.contains("yahoo") {
        Some(Engine::Yahoo)
    } else if ends("qwant") || t.starts_with("qwant") {
        Some(Engine::Qwant)
    } else if t.contains("ecosia") {
        Some(Engine::Ecosia)
    } else if ends("brave search") {
        Some(Engine::Brave)
    } else if t.contains("ask.com") {
        Some(Engine::Ask)
    } else if ends("at duckduckgo") || ends("duckduckgo") {
        Some(Engine::DuckDuckGo)
    } else if t.contains("百度") {
        Some(Engine::Baidu)
    } else if t.contains("яндекс") || t.contains("yandex") {
        Some(Engine::Yandex)
    } else {
        None
    }
}

/// The URL in the comment browsers add when saving a page
/// (`<!-- saved from url=(0045)https://www.google.com/search?q=x -->`).
pub(super) fn saved_from_url(doc: &Html) -> Option<String> {
    doc.tree.root().descendants().take(64).find_map(|node| {
        let comment = node.value().as_comment()?;
        let text: &str = comment;
        let rest = text.trim().strip_prefix("saved from url=")?;
        // The length in parentheses is optional in practice.
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map(|(_, u)| u).unwrap_or(r),
            None => rest,
        };
        let url = rest.split_whitespace().next()?;
        url.starts_with("http").then(|| url.to_string())
    })
}
/// Markup specific to each engine, for pages that come without any URL.
pub(super) static MARKERS: LazyLock<Vec<(Engine, Selector)>> = LazyLock::new(|| {
    [
        (Engine::Bing, "#b_results, li.b_algo, #b_content"),
        (
            Engine::Google,
            "#rso, #ires, div.g h3, #gbqfq, .kCrYT, #gs_hdr, #gs_res_ccl",
        ),
        (
            Engine::Yahoo,
            "div.algo-sr, #web ol li div.res, a[href*='srd.yahoo.com']",
        ),
        (
            Engine::Ecosia,
            "div.js-result, article.result, [class*=mainline]",
        ),
        (Engine::Brave, "#results div.snippet a.result-header"),
        (Engine::Qwant, "[class*=WebResult-module], #contenerresults"),
        (
            Engine::Ask,
            "div.PartialSearchResults-item, div.web-result, #webr",
        ),
        (
            Engine::DuckDuckGo,
            "a.result__a, article[data-testid=result], #links.results",
        ),
        (
            Engine::Baidu,
            "#content_left, h3.t a[href*='baidu.com/link']",
        ),
        (Engine::Yandex, "li.serp-item, .serp-list"),
    ]
    .into_iter()
    .filter_map(|(engine, s)| css(s).map(|sel| (engine, sel)))
    .collect()
});
