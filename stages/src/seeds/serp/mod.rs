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
//! Google's news search gives the articles; other media searches are reported, not read.
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

use std::collections::HashSet;
use std::sync::LazyLock;

use scraper::{ElementRef, Html, Selector};
use url::Url;

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
// Engines from hosts and pages
// ---------------------------------------------------------------------------------------------

/// Whether `host` is `domain` or one of its subdomains.
fn domain_is(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// The engine a host name belongs to.
fn engine_for_host(host: &str) -> Option<Engine> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let has_label = |l: &str| labels.contains(&l);
    // Labels rather than substrings: `google.co.uk` and `scholar.google.com` are Google,
    // `googleusercontent.com` and `askmen.com` are not search engines.
    if has_label("google") {
        Some(Engine::Google)
    } else if domain_is(&host, "bing.com") {
        Some(Engine::Bing)
    } else if has_label("yahoo") {
        Some(Engine::Yahoo)
    } else if domain_is(&host, "qwant.com") {
        Some(Engine::Qwant)
    } else if domain_is(&host, "ecosia.org") {
        Some(Engine::Ecosia)
    } else if domain_is(&host, "search.brave.com") {
        Some(Engine::Brave)
    } else if domain_is(&host, "ask.com") {
        Some(Engine::Ask)
    } else if domain_is(&host, "duckduckgo.com") {
        Some(Engine::DuckDuckGo)
    } else if domain_is(&host, "baidu.com") {
        Some(Engine::Baidu)
    } else if has_label("yandex") || domain_is(&host, "ya.ru") {
        Some(Engine::Yandex)
    } else {
        None
    }
}

/// The engine of an absolute URL (after removing an archive wrapper).
fn engine_for_url(url: &str) -> Option<Engine> {
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

fn detect_engine_in(doc: &Html) -> Option<Engine> {
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
fn saved_from_url(doc: &Html) -> Option<String> {
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

// ---------------------------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------------------------

/// How many redirect wrappers are peeled at most (an archived Google link inside a Yahoo
/// redirect is three); bounded so that a crafted URL cannot loop.
const MAX_UNWRAP: usize = 6;

/// Removes a search engine's click-tracking redirect (and a Wayback Machine wrapper) from a
/// result link, giving the URL of the result itself:
/// Google `/url?q=` and `/url?url=` (and `/imgres?imgrefurl=`), Yahoo `r.search.yahoo.com/…/RU=…/`
/// and the old `srd.yahoo.com/…/*http://…`, Bing `/ck/a?…&u=a1<base64>`, DuckDuckGo
/// `/l/?uddg=`, Yandex `clck/jsredir?…&url=`, and any engine link whose path names a redirect
/// and carries the target in `url`, `u`, `q`, `uddg`, `target`, `dest` or `to`.
/// Baidu's `link?url=` carries an opaque token that only Baidu can resolve, so it is kept, as
/// is anything that is not such a wrapper (absolute URLs are returned unchanged).
pub fn unwrap_redirect(url: &str) -> String {
    let trimmed = url.trim();
    let mut current = if trimmed.starts_with("//") {
        format!("https:{trimmed}")
    } else {
        trimmed.to_string()
    };
    let mut unwrapped = false;
    for _ in 0..MAX_UNWRAP {
        match unwrap_once(&current) {
            Some(next) if next != current => {
                current = next;
                unwrapped = true;
            }
            _ => break,
        }
    }
    if unwrapped { current } else { url.to_string() }
}

/// One layer of [`unwrap_redirect`].
fn unwrap_once(url: &str) -> Option<String> {
    if let Some(inner) = strip_archive(url) {
        return Some(inner);
    }
    let parsed = Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host_str()?.to_ascii_lowercase();
    let engine = engine_for_host(&host)?;
    let path = parsed.path();
    let param = |names: &[&str]| -> Option<String> {
        names.iter().find_map(|name| {
            parsed
                .query_pairs()
                .find(|(k, v)| k == name && is_absolute_http(v))
                .map(|(_, v)| v.trim().to_string())
        })
    };
    let specific = match engine {
        Engine::Google => match path {
            "/url" | "/local_url" | "/interstitial" | "/amp_url" => param(&["q", "url"]),
            "/imgres" => param(&["imgrefurl"]),
            _ => None,
        },
        Engine::Yahoo => yahoo_target(url, &host),
        Engine::Bing if path.starts_with("/ck/") => parsed
            .query_pairs()
            .find(|(k, _)| k == "u")
            .and_then(|(_, v)| bing_target(&v)),
        Engine::DuckDuckGo if path == "/l/" || path == "/l" => param(&["uddg"]),
        Engine::Yandex if path.contains("clck") || path.contains("redir") => param(&["url"]),
        _ => None,
    };
    if specific.is_some() {
        return specific;
    }
    let lower_path = path.to_ascii_lowercase();
    let redirect_path = lower_path.contains("redirect")
        || lower_path.contains("redir")
        || lower_path == "/r"
        || lower_path.starts_with("/r/")
        || lower_path == "/url"
        || lower_path == "/l"
        || lower_path.starts_with("/l/")
        || lower_path.contains("/goto")
        || lower_path.contains("/click");
    if redirect_path {
        return param(&["url", "u", "q", "uddg", "target", "dest", "to", "RU"]);
    }
    None
}

/// Yahoo's wrappers: `…/RU=<encoded URL>/RK=…` (2010s) and `srd.yahoo.com/…/*http://…` or
/// `rd.yahoo.com/…?http://…` (2000s).
fn yahoo_target(url: &str, host: &str) -> Option<String> {
    if let Some(i) = url.find("/RU=") {
        let rest = url.get(i + 4..)?;
        // The target is percent-encoded, so the first raw `/` ends it.
        let end = rest.find('/').unwrap_or(rest.len());
        let target = percent_decode(rest.get(..end)?);
        return is_absolute_http(&target).then_some(target);
    }
    let tracker = ["rd.yahoo.com", "srd.yahoo.com", "rds.yahoo.com"]
        .iter()
        .any(|d| domain_is(host, d));
    if !tracker {
        return None;
    }
    let after_star = url
        .find('*')
        .and_then(|i| url.get(i..))
        .map(|s| s.trim_start_matches(['*', '-']));
    let usable = |s: &&str| starts_with_http(s) || starts_with_encoded_http(s);
    let candidate = after_star
        .filter(usable)
        .or_else(|| url.split_once('?').map(|(_, q)| q).filter(usable))?;
    let target = if starts_with_encoded_http(candidate) {
        percent_decode(candidate)
    } else {
        candidate.to_string()
    };
    is_absolute_http(&target).then_some(target)
}

/// Bing's `u` parameter: `a1` followed by the target in URL-safe base64.
fn bing_target(u: &str) -> Option<String> {
    if is_absolute_http(u) {
        return Some(u.to_string());
    }
    let encoded = u.strip_prefix("a1")?;
    let bytes = base64_decode(encoded)?;
    let target = String::from_utf8(bytes).ok()?;
    is_absolute_http(&target).then_some(target)
}

/// Whether `s` starts with `http:` or `https:` (any case).
fn starts_with_http(s: &str) -> bool {
    let head = s.get(..6).unwrap_or(s).to_ascii_lowercase();
    head.starts_with("http:") || head.starts_with("https:")
}

/// Whether `s` starts with a percent-encoded `http:` or `https:` (`http%3A//…`).
fn starts_with_encoded_http(s: &str) -> bool {
    let head = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    head.starts_with("http%3a") || head.starts_with("https%3a")
}

fn is_absolute_http(s: &str) -> bool {
    let s = s.trim();
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && Url::parse(s).is_ok_and(|u| u.host_str().is_some())
}

/// The original URL inside a web-archive URL in the Wayback form
/// `…/web/20210425234829id_/https://www.ask.com/web?q=…` (any archive running Wayback
/// software: a path segment of 4–14 digits, an optional short flag such as `id_` or `im_`,
/// then the archived URL).
fn strip_archive(url: &str) -> Option<String> {
    let bytes = url.as_bytes();
    let mut from = url.find("://")? + 3;
    // Skip the host: the archived URL is in the path.
    from += url.get(from..)?.find('/')?;
    while let Some(offset) = url.get(from..)?.find('/') {
        let start = from + offset + 1;
        let digits = bytes
            .get(start..)?
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if (4..=14).contains(&digits) {
            let mut end = start + digits;
            while end < bytes.len()
                && end - start - digits < 4
                && (bytes[end].is_ascii_alphabetic() || bytes[end] == b'_')
            {
                end += 1;
            }
            if bytes.get(end) == Some(&b'/') {
                let rest = url.get(end + 1..)?;
                if starts_with_http(rest) {
                    return Some(repair_scheme_slashes(rest));
                }
            }
        }
        from = start;
    }
    None
}

/// `http:/example.com` (a slash lost by an archive) → `http://example.com`.
fn repair_scheme_slashes(url: &str) -> String {
    for scheme in ["https:", "http:"] {
        if let Some(rest) = url.get(scheme.len()..)
            && url
                .get(..scheme.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(scheme))
        {
            let rest = rest.trim_start_matches('/');
            return format!("{scheme}//{rest}");
        }
    }
    url.to_string()
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%XX` escapes (invalid UTF-8 is replaced); `+` is left alone.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex_value),
                b.get(i + 2).copied().and_then(hex_value),
            )
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Base64 in either alphabet (standard or URL-safe), padding optional.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

/// Links that lead back into a search engine rather than to a result: searches, caches,
/// click trackers that could not be unwrapped offline, ads, maps and the like. Another
/// engine's pages are only plumbing when they are its searches, trackers or ads: a Google
/// sign-in page is a fair result on an Ecosia page, not on a Google one.
fn is_engine_plumbing(url: &Url, page_engine: Engine) -> bool {
    let Some(host) = url.host_str().map(|h| h.to_ascii_lowercase()) else {
        return true;
    };
    let path = url.path();
    // Ad networks and the engines' page caches (Google's `webcache.googleusercontent.com`,
    // Bing's and Yahoo's `cc.bingj.com`).
    const AD_OR_CACHE_DOMAINS: [&str; 6] = [
        "overture.com",
        "googleadservices.com",
        "doubleclick.net",
        "googlesyndication.com",
        "googleusercontent.com",
        "bingj.com",
    ];
    if AD_OR_CACHE_DOMAINS.iter().any(|d| domain_is(&host, d)) {
        return true;
    }
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| path.starts_with(p));
    let host_engine = engine_for_host(&host);
    if host_engine.is_some() && host_engine != Some(page_engine) {
        let lower = path.to_ascii_lowercase();
        return [
            "/search",
            "/url",
            "/aclk",
            "/aclick",
            "/ck/",
            "/cbclk",
            "/clck",
            "/y.js",
            "/baidu.php",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
            || ["/s", "/web", "/l", "/l/", "/"].contains(&lower.as_str()) && url.query().is_some();
    }
    match host_engine {
        None => false,
        Some(Engine::Google) => {
            starts(&[
                "/search",
                "/url",
                "/aclk",
                "/imgres",
                "/webhp",
                "/setprefs",
                "/preferences",
                "/advanced_search",
                "/sorry",
                "/intl/",
                "/maps",
                "/travel",
                "/flights",
                "/shopping",
                "/alerts",
                "/history",
                "/scholar",
            ]) || (path == "/" && url.query().is_some())
                || domain_is(&host, "maps.google.com")
                || host.starts_with("maps.google.")
                || host.starts_with("accounts.google.")
        }
        // Bing links are always Bing's own (searches, trackers, ads): results sit elsewhere.
        Some(Engine::Bing) => true,
        Some(Engine::Yahoo) => {
            host.starts_with("search.")
                || host.contains(".search.")
                || host.starts_with("r.search")
                || ["rd.yahoo.com", "srd.yahoo.com", "rds.yahoo.com"]
                    .iter()
                    .any(|d| domain_is(&host, d))
                || starts(&["/search", "/bin/search", "/bin/query"])
        }
        Some(Engine::Qwant | Engine::Ecosia | Engine::DuckDuckGo | Engine::Ask | Engine::Brave) => {
            true
        }
        Some(Engine::Baidu) => {
            // `www.baidu.com/link?url=` is the (opaque) result redirect; other Baidu sites
            // (baike, zhidao, wenku) are genuine results.
            (host == "www.baidu.com" || host == "baidu.com" || host == "m.baidu.com")
                && path != "/link"
        }
        // Like Bing, Yandex's own links on its result pages are searches, help and trackers.
        Some(Engine::Yandex) => true,
    }
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

/// Markup specific to each engine, for pages that come without any URL.
static MARKERS: LazyLock<Vec<(Engine, Selector)>> = LazyLock::new(|| {
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

// ---------------------------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------------------------

/// One way an engine laid out its results, as CSS selectors.
struct Layout {
    /// The result containers, in page order. When `link` is empty the container is the link.
    block: &'static str,
    /// Inside a block, the candidates for the result link; the first that points to a
    /// result (not back into the engine) is taken.
    link: &'static str,
    /// Inside a block, the title; empty: the link's own text.
    title: &'static str,
    /// Inside a block (or its `around` ancestor), the snippet; empty: none.
    snippet: &'static str,
    /// When the block is the link itself, the nearest ancestor holding the whole result
    /// (for the snippet and the exclusions).
    around: &'static str,
    /// Only the block's first `link` match can be the result (a block whose first link is
    /// not a result, e.g. a `news:` link, is skipped rather than searched further).
    first_only: bool,
}

/// How one engine's pages are read.
struct EngineRules {
    engine: Engine,
    /// Tried in order; the first layout that yields a hit is used.
    layouts: &'static [Layout],
    /// Ancestors (or the block itself) that mark non-organic content: ads, carousels,
    /// "people also ask", knowledge panels, related searches.
    exclude: &'static str,
    /// Markup the engine uses to say it found nothing.
    no_results: &'static str,
}

const fn layout(
    block: &'static str,
    link: &'static str,
    title: &'static str,
    snippet: &'static str,
) -> Layout {
    Layout {
        block,
        link,
        title,
        snippet,
        around: "",
        first_only: false,
    }
}

const GOOGLE_LAYOUTS: &[Layout] = &[
    // Web results in every layout since about 2010 (desktop `div.g`, the basic/mobile
    // `div.xpd`, the old `li.g > h3.r > a`): the result link carries or sits in the title
    // heading.
    Layout {
        block: "a[href]:has(h3), h3 > a[href], h3 > span > a[href]",
        link: "",
        title: "h3",
        snippet: "div.VwiC3b, span.st, div.IsZvec, div.s, div.BNeawe.s3v9rd, div.Uroaid, div[data-content-feature='1'], div.lEBKkf",
        around: "div.g, li.g, div.xpd, div.ZINbbc, div.Gx5Zad, div.MjjYud, div.tF2Cxc",
        first_only: false,
    },
    // 2001-2007: `p.g > a` then `div.g > h2.r > a.l`, snippets in `font` / `td.j`.
    layout(
        "p.g, div.g, li.g",
        "a.l[href], h2 a[href], a[href]",
        "h2, a.l",
        "td.j, font, div.std, div.s",
    ),
    // Basic (no-JavaScript) image search: source pages under each thumbnail.
    layout("table.IkMU6e, div.lIMUZd td", "a[href]", "a", ""),
    // News search: article cards.
    Layout {
        block: "div.dbsr > a[href], g-card a[href]:has(div[role=heading]), div.SoaBEf a[href]",
        link: "",
        title: "div[role=heading], div.nDgy9d, div.JheGif",
        snippet: "div.eYN3rb, div.Y3v8qd, div.GI74Re",
        around: "div.dbsr, g-card, div.SoaBEf",
        first_only: false,
    },
    // Google Scholar.
    layout(
        "div.gs_r.gs_or, div.gs_r",
        "h3.gs_rt a[href], div.gs_ggs a[href]",
        "h3.gs_rt",
        "div.gs_rs",
    ),
];

const GOOGLE_EXCLUDE: &str = "#tads, #tadsb, #bottomads, #taw, .ads-ad, .uEierd, .commercial-unit-desktop-top, \
    .commercial-unit-desktop-rhs, .cu-container, [data-text-ad], #rhs, \
    g-scrolling-carousel, g-section-with-header, .related-question-pair, [jsname=Cpkphb], \
    #botstuff, #extrares, .brs_col, #brs";

const BING_LAYOUTS: &[Layout] = &[
    // 2013-2022 web results.
    layout(
        "li.b_algo",
        "h2 a[href], .b_title a[href], a.tilk[href]",
        "h2",
        ".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4, p, .b_snippet",
    ),
    // 2009-2013 web results.
    layout(
        "div.sa_cc, li.sa_wr",
        "div.sb_tlst h3 a[href], h3 a[href]",
        "h3",
        "p",
    ),
    // Image search (2022): the page each image comes from.
    layout("div.iuscp, div.imgpt", "div.lnkw a[href]", "div.lnkw a", ""),
    // Image search (2016-2020).
    layout(
        "div.content div.item, div.dg_u div.meta",
        "a.tit[href]",
        "a.tit",
        "div.des",
    ),
];

const BING_EXCLUDE: &str = "li.b_ad, .b_ad, .b_adTop, .b_adBottom, .b_adSlug, .sb_adsW, #b_context, \
    .b_ans, li.b_ans, .b_rs, .b_rrsr, .b_vidAns, .b_nwsAns";

const YAHOO_LAYOUTS: &[Layout] = &[
    // 2010s-2022: `div.algo` results.
    layout(
        "div.algo-sr, div.dd.algo, div.algo",
        "h3.title a[href], h3 a[href], div.compTitle a[href]",
        "h3",
        "div.compText p, p.lh-16, div.compText, p",
    ),
    // 2004-2010: `div.res` results.
    layout(
        "#web li div.res, div#web ol > li, li div.res",
        "h3 a[href], a.yschttl[href]",
        "h3",
        "div.abstr, div.sm-abs, div",
    ),
    // 1996-2003 (directory era): every result, site or directory category, is a list item
    // whose first link is the result (often through `srd.yahoo.com/…/*http://…`); category
    // paths and sponsor links outside lists are not results.
    Layout {
        first_only: true,
        ..layout("li", "a[href]", "", "")
    },
];

const YAHOO_EXCLUDE: &str = "#header, #hd, #ft, #footer, footer, nav, [role=navigation], \
    #main .searchCenterTopAds, #main .searchCenterBottomAds, .searchRightTopAds, \
    .searchRightBottomAds, ol.searchCenterTopAds, ol.searchCenterBottomAds, ol.searchRightTopAds, \
    ol.searchRightBottomAds, .ads, div.dd.ad, .sys_ads, .layoutCenter .cmpbox, #right";

const QWANT_LAYOUTS: &[Layout] = &[
    // 2020-2022 (CSS modules: the class names carry a hash suffix).
    layout(
        "[data-testid=webResult], [class*='WebResult-module__container'], [class*='SER-module__container']",
        "a.external[href], a[href]",
        "[class*='title'], [class*='Title']",
        "[class*='desc'], [class*='Desc']",
    ),
    // 2013-2016.
    layout(
        "#contenerresults div.result, div.result",
        "span.title a[href], .title a[href], a[href]",
        "span.title, .title",
        "p.desc, .desc, p:not(.url)",
    ),
];

const QWANT_EXCLUDE: &str = "[data-testid=adResult], [data-testid=adSiteLink], [class*='SerpAdWebResult'], \
    [class*='SerpAd-module__SerpAd___'], \
    [class*='Sidebar'], [class*='Videos-module'], [class*='News-module'], [class*='Images-module'], \
    [class*='Carousel'], div.result.ad, .result--ad";

const ECOSIA_LAYOUTS: &[Layout] = &[
    // 2021-2022.
    layout(
        "article.result, div.mainline__result-wrapper article, div[data-test-id=mainline-result-web]",
        "a.result-title__link[href], a.result__link[href], h2 a[href], a[href]",
        "h2",
        "p.result-snippet, .result__description, [data-test-id=result-description], p",
    ),
    // 2016-2021.
    layout(
        "div.result.js-result, div.card-web div.result",
        "a.result-title[href], h2 a[href]",
        "a.result-title, h2",
        "p.result-snippet, .result-snippet",
    ),
];

const ECOSIA_EXCLUDE: &str = ".result--ad, .js-ad, [data-test-id=ad-result], .card-ad, [class*=ad-result], \
    .videos-snippet, .news-snippet, [data-test-id=entity], .entity, .sidebar";

const BRAVE_LAYOUTS: &[Layout] = &[layout(
    "#results div.snippet[data-type=web], #results > div.snippet, #results div.fdb",
    "a.result-header[href], a.heading-serpresult[href], a[href]",
    ".snippet-title, .title",
    ".snippet-description, .snippet-content p, .generic-snippet .content",
)];

const BRAVE_EXCLUDE: &str = "#infobox, #codebox, .infobox, [data-type=ad], .ad, #news, #videos, \
    #discussions, .video-snippet, [data-type=news], [data-type=videos], [data-type=discussions], \
    #side-right, aside";

const ASK_LAYOUTS: &[Layout] = &[
    // 2019-2022.
    layout(
        "div.PartialSearchResults-item",
        "a.PartialSearchResults-item-title-link[href], a.result-link[href]",
        "a.PartialSearchResults-item-title-link",
        "p.PartialSearchResults-item-abstract",
    ),
    // 2014-2018.
    layout(
        "div.web-result, div.sa",
        "a.web-result-title-link[href], h2 a[href], a.sa_headline[href]",
        "",
        "p.web-result-description, .sa_abstract, p",
    ),
    // 2006-2009: `div#r_t0 > a#r0_t`.
    Layout {
        around: "div:has(> div[id^=r_t])",
        ..layout(
            "div[id^=r_t]",
            "a[id^=r][id$=_t][href], a.L4[href]",
            "",
            "div.T1, div[id$=_a]",
        )
    },
    // Ask Jeeves (around 2004-2006).
    layout(
        "div.teoma-item, div#teoma-results div.result, div.wr, div.wrTtl",
        "a.L4[href], a.title[href], a[href]",
        "",
        ".T1, p",
    ),
];

const ASK_EXCLUDE: &str = ".PartialSearchResults-item-ads, [class*=adResult], .ad, #ads, .sponsored, \
    #ssa, .spl_shd, .rr, #rr, #rightcolumn";

const DDG_LAYOUTS: &[Layout] = &[
    // html.duckduckgo.com and the old rendered page.
    layout(
        "div.result, div.results_links, div.web-result",
        "a.result__a[href], h2 a[href]",
        "a.result__a, h2",
        "a.result__snippet, .result__snippet",
    ),
    // Rendered page (2022 onwards).
    layout(
        "article[data-testid=result], li[data-layout=organic]",
        "a[data-testid=result-title-a][href], h2 a[href]",
        "h2",
        "[data-result=snippet], [data-testid=result-snippet]",
    ),
    // lite.duckduckgo.com.
    layout("table tr:has(a.result-link)", "a.result-link[href]", "", ""),
];

const DDG_EXCLUDE: &str = ".result--ad, [data-testid=ad], .badge--ad, .is-ad, [data-layout=ad]";

const BAIDU_LAYOUTS: &[Layout] = &[
    layout(
        "#content_left > div.result, #content_left > div.c-container, #content_left > div.result-op, \
         #content_left > table.result, #content_left > table.result-op",
        "h3.t a[href], h3 a[href], .c-title a[href]",
        "h3",
        "div.c-abstract, .c-span-last, span.content-right_8Zs40, div.c-row",
    ),
    // Site search (zhannei.baidu.com) and wenku.
    layout(
        "#results div.result, div.result",
        "h3 a[href], a.c-title[href], a[href]",
        "h3, a.c-title",
        "div.c-abstract, p",
    ),
];

const BAIDU_EXCLUDE: &str = "[data-tuiguang], .ec_tuiguang, .ec-tuiguang, [id^='300'], .EC_result, \
    #content_right, .result-op[tpl=recommend_list], [tpl=rel-baijia]";

const YANDEX_LAYOUTS: &[Layout] = &[layout(
    "li.serp-item, div.serp-item",
    "a.organic__url[href], a.OrganicTitle-Link[href], h2 a[href]",
    "h2, .organic__title",
    ".organic__text, .text-container, .OrganicText",
)];

const YANDEX_EXCLUDE: &str = "[data-fast-name], .serp-adv, [data-fast-wzrd], .label_theme_direct, \
    [class*=direct], .serp-item_card_ad";

static RULES: &[EngineRules] = &[
    EngineRules {
        engine: Engine::Google,
        layouts: GOOGLE_LAYOUTS,
        exclude: GOOGLE_EXCLUDE,
        no_results: "#topstuff .card-section, div.card-section:has(> p)",
    },
    EngineRules {
        engine: Engine::Bing,
        layouts: BING_LAYOUTS,
        exclude: BING_EXCLUDE,
        no_results: "li.b_no, #b_results > .b_no",
    },
    EngineRules {
        engine: Engine::Yahoo,
        layouts: YAHOO_LAYOUTS,
        exclude: YAHOO_EXCLUDE,
        no_results: "div.zrp, .zrp-cont, #cols .zrp",
    },
    EngineRules {
        engine: Engine::Qwant,
        layouts: QWANT_LAYOUTS,
        exclude: QWANT_EXCLUDE,
        no_results: "[class*=NoResult], [class*=noResult]",
    },
    EngineRules {
        engine: Engine::Ecosia,
        layouts: ECOSIA_LAYOUTS,
        exclude: ECOSIA_EXCLUDE,
        no_results: ".no-results, [data-test-id=no-results]",
    },
    EngineRules {
        engine: Engine::Brave,
        layouts: BRAVE_LAYOUTS,
        exclude: BRAVE_EXCLUDE,
        no_results: "#no-results, .no-results",
    },
    EngineRules {
        engine: Engine::Ask,
        layouts: ASK_LAYOUTS,
        exclude: ASK_EXCLUDE,
        no_results: ".PartialSearchResults-noresults, .no-results",
    },
    EngineRules {
        engine: Engine::DuckDuckGo,
        layouts: DDG_LAYOUTS,
        exclude: DDG_EXCLUDE,
        no_results: ".no-results, div.result--no-result",
    },
    EngineRules {
        engine: Engine::Baidu,
        layouts: BAIDU_LAYOUTS,
        exclude: BAIDU_EXCLUDE,
        no_results: ".nors, #noresult",
    },
    EngineRules {
        engine: Engine::Yandex,
        layouts: YANDEX_LAYOUTS,
        exclude: YANDEX_EXCLUDE,
        no_results: ".misspell__message, .serp-list_empty, .content__left .misspell",
    },
];

/// Tried for every engine when none of its own layouts yields a hit: on a result page, a
/// heading that links out of the engine is nearly always a result.
const GENERIC_LAYOUT: Layout = Layout {
    block: "h2 > a[href], h3 > a[href], h2 > span > a[href], h3 > span > a[href], \
            a[href]:has(> h2), a[href]:has(> h3)",
    link: "",
    title: "h2, h3",
    snippet: "p",
    around: "li, article, div.result, div.g",
    first_only: false,
};

/// A [`Layout`] with its selectors compiled.
struct CompiledLayout {
    block: Selector,
    link: Option<Selector>,
    title: Vec<Selector>,
    snippet: Vec<Selector>,
    around: Option<Selector>,
    first_only: bool,
}

struct CompiledRules {
    engine: Engine,
    layouts: Vec<CompiledLayout>,
    exclude: Option<Selector>,
    no_results: Option<Selector>,
}

fn optional(s: &str) -> Option<Selector> {
    if s.trim().is_empty() { None } else { css(s) }
}

/// The comma-separated alternatives of a selector list, compiled one by one, so that they can
/// be tried in the order written (a selector list matches in document order instead).
fn alternatives(s: &str) -> Vec<Selector> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .filter_map(css)
        .collect()
}

static COMPILED_GENERIC: LazyLock<Option<CompiledLayout>> =
    LazyLock::new(|| compile(&GENERIC_LAYOUT));

fn compile(l: &Layout) -> Option<CompiledLayout> {
    Some(CompiledLayout {
        block: css(l.block)?,
        link: optional(l.link),
        title: alternatives(l.title),
        snippet: alternatives(l.snippet),
        around: optional(l.around),
        first_only: l.first_only,
    })
}

static COMPILED: LazyLock<Vec<CompiledRules>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|r| CompiledRules {
            engine: r.engine,
            layouts: r.layouts.iter().filter_map(compile).collect(),
            exclude: optional(r.exclude),
            no_results: optional(r.no_results),
        })
        .collect()
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
    let ctx = Context { engine, base };
    let query = query_from_page(&doc, original_url.as_deref(), Some(engine));
    let rules = COMPILED.iter().find(|r| r.engine == engine);
    let mut hits = Vec::new();
    if let Some(rules) = rules {
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

// ---------------------------------------------------------------------------------------------
// Diagnosis
// ---------------------------------------------------------------------------------------------

/// Phrases engines use to say they found nothing, in the languages of the corpus pages.
const NO_RESULT_PHRASES: &[&str] = &[
    "did not match any documents",
    "there are no results for",
    "no results found for",
    "no results for",
    "we did not find results for",
    "we did not find any results",
    "your search did not match",
    "no results found",
    "aucun résultat",
    "aucun document ne correspond",
    "keine ergebnisse",
    "es wurden keine",
    "no se han encontrado resultados",
    "no hay resultados",
    "nessun risultato",
    "нет результатов",
    "ничего не нашлось",
    "ничего не найдено",
    "没有找到",
    "未找到",
    "no hi ha cap resultat",
    "geen resultaten",
    "nenhum resultado",
];

const BOT_CHECK_PHRASES: &[&str] = &[
    "unusual traffic",
    "captcha",
    "are you a robot",
    "not a robot",
    "ip blocked",
    "verify you are human",
    "please solve the challenge",
    "automated queries",
    "access denied",
];

const NEEDS_JS_PHRASES: &[&str] = &[
    "enable javascript",
    "javascript is disabled",
    "javascript is required",
    "requires javascript",
    "turn on javascript",
    "you are being redirected to the non-javascript site",
    "javascript が無効",
    "включите javascript",
];

/// Why a page gave no hits, in words the user can act on.
fn diagnose(
    doc: &Html,
    html: &str,
    engine: Engine,
    original_url: Option<&str>,
    rules: Option<&CompiledRules>,
) -> String {
    let name = engine.name();
    if html.trim().is_empty() {
        return "no results found: the page is empty".to_string();
    }
    let body_text = select_all(doc, &BODY)
        .next()
        .map(text_of)
        .unwrap_or_default()
        .to_lowercase();
    let has_element =
        |sel: &Option<Selector>| sel.as_ref().is_some_and(|s| doc.select(s).next().is_some());
    if BOT_CHECK_PHRASES.iter().any(|p| body_text.contains(p)) {
        return format!(
            "no results found: {name} showed a bot check or block page instead of results"
        );
    }
    // A media search page may well list items, just not web pages.
    if let Some(vertical) = original_url.and_then(|u| vertical_of(u, engine)) {
        return format!(
            "no results found: this is a {name} {vertical} search page, whose results are not \
             web pages this parser reads"
        );
    }
    if rules.is_some_and(|r| has_element(&r.no_results))
        || NO_RESULT_PHRASES.iter().any(|p| body_text.contains(p))
    {
        return format!("no results found: {name} reported no results for this query");
    }
    let lower_html = html.to_lowercase();
    let script_redirect = body_text.len() < 200
        && (lower_html.contains("location.replace")
            || lower_html.contains("location.href")
            || lower_html.contains("http-equiv=\"refresh\"")
            || lower_html.contains("http-equiv=refresh"));
    if NEEDS_JS_PHRASES
        .iter()
        .any(|p| body_text.contains(p) || lower_html.contains(p))
        || script_redirect
        || body_text.len() < 200
    {
        return format!(
            "no results found: the page needs JavaScript ({name} draws its results with scripts; \
             save the page after it has rendered)"
        );
    }
    format!("no results found: the {name} page layout was not recognised")
}

static BODY: Lazy = LazyLock::new(|| css("body"));

/// The kind of search a page URL asks for, when it is not plain web search.
fn vertical_of(url: &str, engine: Engine) -> Option<&'static str> {
    let parsed = Url::parse(url).ok()?;
    let path = parsed.path().to_ascii_lowercase();
    let param = |name: &str| {
        parsed
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    let by_tbm = match param("tbm").as_deref() {
        Some("isch") => Some("image"),
        Some("vid") => Some("video"),
        Some("nws") => Some("news"),
        Some("bks") => Some("books"),
        Some("shop") => Some("shopping"),
        _ => None,
    };
    let by_t = match param("t").as_deref() {
        Some("images") => Some("image"),
        Some("videos") => Some("video"),
        Some("news") => Some("news"),
        _ => None,
    };
    let by_path = if path.contains("/images") || path.contains("/isch") {
        Some("image")
    } else if path.contains("/video") {
        Some("video")
    } else if path.contains("/news") {
        Some("news")
    } else {
        None
    };
    match engine {
        Engine::Google => by_tbm.or(by_path),
        Engine::Qwant => by_t.or(by_path),
        _ => by_path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_page_numbers_follow_each_engine() {
        let n = |e, u| result_page_number(e, u);
        assert_eq!(
            n(Engine::Google, "https://www.google.com/search?q=x&start=20"),
            Some(3)
        );
        assert_eq!(
            n(Engine::Google, "https://www.google.com/search?q=x"),
            Some(1)
        );
        assert_eq!(
            n(Engine::Bing, "https://www.bing.com/search?q=x&first=11"),
            Some(2)
        );
        assert_eq!(
            n(Engine::Yahoo, "https://search.yahoo.com/search?p=x&b=21"),
            Some(3)
        );
        assert_eq!(
            n(Engine::Baidu, "https://www.baidu.com/s?wd=x&pn=10"),
            Some(2)
        );
        assert_eq!(
            n(
                Engine::Brave,
                "https://search.brave.com/search?q=x&offset=1"
            ),
            Some(2)
        );
        assert_eq!(
            n(Engine::Ecosia, "https://www.ecosia.org/search?q=x&p=2"),
            Some(3)
        );
        assert_eq!(
            n(Engine::Ask, "https://www.ask.com/web?q=x&page=4"),
            Some(4)
        );
        assert_eq!(n(Engine::Qwant, "https://www.qwant.com/?q=x&p=0"), Some(1));
        assert_eq!(n(Engine::Google, "not a url"), None);
        let page = parse_serp(
            "<!-- saved from url=(0050)https://www.google.com/search?q=graphe&start=10 --><html></html>",
            None,
            None,
        );
        assert_eq!(page.page, Some(2));
        assert_eq!(
            page.page_url.as_deref(),
            Some("https://www.google.com/search?q=graphe&start=10")
        );
    }

    #[test]
    fn every_built_in_selector_compiles() {
        for rules in RULES {
            for l in rules.layouts {
                for s in [l.block, l.link, l.title, l.snippet, l.around] {
                    assert!(
                        s.is_empty() || css(s).is_some(),
                        "{:?}: bad selector {s:?}",
                        rules.engine
                    );
                }
            }
            assert!(
                css(rules.exclude).is_some(),
                "{:?}: bad exclude",
                rules.engine
            );
            assert!(
                css(rules.no_results).is_some(),
                "{:?}: bad no_results",
                rules.engine
            );
        }
        assert_eq!(MARKERS.len(), Engine::ALL.len());
        assert_eq!(
            COMPILED.iter().map(|r| r.layouts.len()).sum::<usize>(),
            RULES.iter().map(|r| r.layouts.len()).sum::<usize>()
        );
    }

    #[test]
    fn names_round_trip() {
        for e in Engine::ALL {
            assert_eq!(Engine::from_name(e.name()), Some(e));
            assert_eq!(Engine::from_name(&e.name().to_uppercase()), Some(e));
            let json = serde_json::to_string(&e).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", e.name()));
        }
        assert_eq!(Engine::from_name("DuckDuckGo"), Some(Engine::DuckDuckGo));
        assert_eq!(Engine::from_name("Ask.com"), Some(Engine::Ask));
        assert_eq!(Engine::from_name("altavista"), None);
    }

    #[test]
    fn hosts_map_to_engines() {
        assert_eq!(engine_for_host("www.google.co.uk"), Some(Engine::Google));
        assert_eq!(engine_for_host("scholar.google.com"), Some(Engine::Google));
        assert_eq!(engine_for_host("webcache.googleusercontent.com"), None);
        assert_eq!(engine_for_host("cn.bing.com"), Some(Engine::Bing));
        assert_eq!(engine_for_host("fr.search.yahoo.com"), Some(Engine::Yahoo));
        assert_eq!(engine_for_host("askmen.com"), None);
        assert_eq!(engine_for_host("www.ask.com"), Some(Engine::Ask));
        assert_eq!(
            engine_for_host("html.duckduckgo.com"),
            Some(Engine::DuckDuckGo)
        );
        assert_eq!(engine_for_host("yandex.com.tr"), Some(Engine::Yandex));
        assert_eq!(engine_for_host("notbing.com"), None);
    }

    #[test]
    fn unwraps_known_redirects() {
        assert_eq!(
            unwrap_redirect(
                "https://www.google.com/url?q=https://example.org/a%3Fb%3D1&sa=U&ved=x"
            ),
            "https://example.org/a?b=1"
        );
        assert_eq!(
            unwrap_redirect("http://www.google.co.uk/url?url=http://example.org/&rct=j"),
            "http://example.org/"
        );
        assert_eq!(
            unwrap_redirect(
                "https://r.search.yahoo.com/_ylt=A0g;_ylu=Y29s/RV=2/RE=1619409856/RO=10/RU=https%3a%2f%2fwww.example.com%2fpage%3fx%3d1/RK=2/RS=abc-"
            ),
            "https://www.example.com/page?x=1"
        );
        assert_eq!(
            unwrap_redirect(
                "http://srd.yahoo.com/srst/865745/ashland+oregon+/1/63/T=1015427114/F=a5/*http://www.oregoncitylink.com/ashland"
            ),
            "http://www.oregoncitylink.com/ashland"
        );
        assert_eq!(
            unwrap_redirect(
                "http://rds.yahoo.com/_ylt=A0g/SIG=12/EXP=1/**http%3a//example.org/a%3fb=1"
            ),
            "http://example.org/a?b=1"
        );
        // base64url("https://example.org/x?y=1") without padding.
        assert_eq!(
            unwrap_redirect(
                "https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy94P3k9MQ&ntb=1"
            ),
            "https://example.org/x?y=1"
        );
        assert_eq!(
            unwrap_redirect("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F&rut=abc"),
            "https://example.org/"
        );
        assert_eq!(
            unwrap_redirect(
                "https://web.archive.org/web/20210425234829id_/https://www.example.org/p?q=1"
            ),
            "https://www.example.org/p?q=1"
        );
        assert_eq!(
            unwrap_redirect(
                "https://web.archive.org/web/20070228001357/http://www.google.com/url?q=http://example.org/"
            ),
            "http://example.org/"
        );
        // Baidu's token cannot be resolved offline; plain URLs are unchanged.
        let baidu = "http://www.baidu.com/link?url=bXaYOx_nZgqVK51CEQc";
        assert_eq!(unwrap_redirect(baidu), baidu);
        assert_eq!(
            unwrap_redirect("https://example.org/2021/https-guide"),
            "https://example.org/2021/https-guide"
        );
        assert_eq!(unwrap_redirect("not a url"), "not a url");
        assert_eq!(unwrap_redirect(""), "");
    }

    #[test]
    fn hostile_urls_do_not_panic() {
        for s in [
            "http://",
            "https://www.google.com/url?q=",
            "https://r.search.yahoo.com/RU=",
            "https://www.bing.com/ck/a?u=a1%%%",
            "http://srd.yahoo.com/*",
            "https://web.archive.org/web/2021/",
            "https://web.archive.org/web/20210101000000id_/http:",
            "//",
            "%",
            "http://[::1/",
            "https://www.bing.com/ck/a?u=a1////",
        ] {
            let _ = unwrap_redirect(s);
        }
        assert_eq!(percent_decode("%E2%82%AC%zz%"), "€%zz%");
        assert_eq!(base64_decode("aGk"), Some(b"hi".to_vec()));
        assert_eq!(base64_decode("a b"), None);
    }

    const GOOGLE_PAGE: &str = r#"<html><head><title>linguistique - Google Search</title></head><body>
        <form action="/search"><input name="q" value="linguistique"></form>
        <div id="tads"><div class="uEierd"><a href="https://ads.example.com/"><h3>An ad</h3></a></div></div>
        <div id="search"><div id="rso">
          <div class="g"><div class="yuRUbf"><a href="https://fr.wikipedia.org/wiki/Linguistique"><h3>Linguistique — Wikipédia</h3></a></div>
            <div class="VwiC3b">La linguistique est l'étude scientifique du langage.</div></div>
          <div class="related-question-pair"><div class="g"><a href="https://paa.example.com/"><h3>Question?</h3></a></div></div>
          <div class="g"><a href="/url?q=https://www.larousse.fr/linguistique&amp;sa=U"><h3>Larousse</h3></a>
            <a href="/search?q=related:larousse.fr"><h3>Similar</h3></a></div>
          <div class="g"><a href="https://fr.wikipedia.org/wiki/Linguistique"><h3>Duplicate</h3></a></div>
          <div class="g"><a href="ftp://files.example.com/"><h3>Not http</h3></a></div>
        </div></div></body></html>"#;

    #[test]
    fn reads_a_google_page() {
        let page = parse_serp(GOOGLE_PAGE, None, None);
        assert_eq!(page.engine, Some(Engine::Google));
        assert_eq!(page.query.as_deref(), Some("linguistique"));
        let urls: Vec<&str> = page.hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://fr.wikipedia.org/wiki/Linguistique",
                "https://www.larousse.fr/linguistique"
            ]
        );
        assert_eq!(page.hits[0].rank, 1);
        assert_eq!(page.hits[1].rank, 2);
        assert_eq!(page.hits[0].title, "Linguistique — Wikipédia");
        assert_eq!(
            page.hits[0].snippet,
            "La linguistique est l'étude scientifique du langage."
        );
        assert!(page.problem.is_none());
    }

    #[test]
    fn engine_override_and_url_detection() {
        let bing = r#"<ol id="b_results"><li class="b_algo"><h2><a href="https://example.org/">Ex</a></h2><div class="b_caption"><p>Snip</p></div></li>
            <li class="b_ad"><h2><a href="https://ad.example.org/">Ad</a></h2></li></ol>"#;
        assert_eq!(detect_engine(bing, None), Some(Engine::Bing));
        assert_eq!(
            detect_engine(bing, Some("https://www.qwant.com/?q=x")),
            Some(Engine::Qwant)
        );
        assert_eq!(
            detect_engine(
                "<p>hi</p>",
                Some("https://web.archive.org/web/2020id_/https://www.bing.com/search?q=x")
            ),
            Some(Engine::Bing)
        );
        let page = parse_serp(
            bing,
            Some("https://www.bing.com/search?q=linguistique+de+corpus"),
            None,
        );
        assert_eq!(page.query.as_deref(), Some("linguistique de corpus"));
        assert_eq!(page.hits.len(), 1);
        assert_eq!(page.hits[0].snippet, "Snip");
        // Forced to read it as Google, only the generic heading rule applies, and it does
        // not know Bing's ad markup: the override is obeyed, and the ad gets in.
        let forced = parse_serp(bing, None, Some(Engine::Google));
        assert_eq!(forced.engine, Some(Engine::Google));
        assert_eq!(forced.hits.len(), 2);
    }

    #[test]
    fn saved_from_comment_gives_the_engine_and_query() {
        let html = "<!-- saved from url=(0044)https://search.yahoo.com/search?p=corpus -->\n<html><body><div class=\"algo-sr\"><h3 class=\"title\"><a href=\"https://r.search.yahoo.com/_ylt=x/RV=2/RU=https%3a%2f%2fexample.org%2f/RK=2\">T</a></h3></div></body></html>";
        let page = parse_serp(html, None, None);
        assert_eq!(page.engine, Some(Engine::Yahoo));
        assert_eq!(page.query.as_deref(), Some("corpus"));
        assert_eq!(
            page.hits.first().map(|h| h.url.as_str()),
            Some("https://example.org/")
        );
    }

    #[test]
    fn duckduckgo_html_page() {
        let html = r#"<html><head><title>corpus at DuckDuckGo</title></head><body>
          <div class="result results_links result--ad"><h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Ad</a></h2></div>
          <div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
            <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fcorpus&amp;rut=x">Corpus</a></h2>
            <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fcorpus">A corpus is…</a></div></div>
        </body></html>"#;
        let page = parse_serp(html, None, None);
        assert_eq!(page.engine, Some(Engine::DuckDuckGo));
        assert_eq!(page.hits.len(), 1);
        assert_eq!(page.hits[0].url, "https://example.org/corpus");
        assert_eq!(page.hits[0].snippet, "A corpus is…");
    }

    #[test]
    fn problems_are_reported() {
        let empty = parse_serp("", None, None);
        assert!(empty.hits.is_empty());
        assert!(
            empty
                .problem
                .as_deref()
                .is_some_and(|p| p.contains("empty"))
        );

        let unknown = parse_serp("<html><body><p>Hello</p></body></html>", None, None);
        assert_eq!(unknown.engine, None);
        assert!(
            unknown
                .problem
                .as_deref()
                .is_some_and(|p| p.starts_with("engine not recognised"))
        );

        let js = parse_serp(
            "<html><head><title>x at DuckDuckGo</title></head><body><noscript>You are being redirected to the non-JavaScript site.</noscript></body></html>",
            Some("https://duckduckgo.com/?q=x"),
            None,
        );
        assert!(
            js.problem
                .as_deref()
                .is_some_and(|p| p.contains("needs JavaScript")),
            "{:?}",
            js.problem
        );

        let none = parse_serp(
            r#"<html><body><ol id="b_results"><li class="b_no"><h1>There are no results for <strong>zzz</strong></h1></li></ol></body></html>"#,
            Some("https://www.bing.com/search?q=zzz"),
            None,
        );
        assert!(
            none.problem
                .as_deref()
                .is_some_and(|p| p.contains("reported no results")),
            "{:?}",
            none.problem
        );

        let bot = parse_serp(
            "<html><body><p>Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot. Please solve the challenge below to continue searching, this text is long enough to not look empty at all.</p></body></html>",
            Some("https://www.google.com/search?q=x"),
            None,
        );
        assert!(
            bot.problem
                .as_deref()
                .is_some_and(|p| p.contains("bot check")),
            "{:?}",
            bot.problem
        );
    }

    #[test]
    fn hostile_html_does_not_panic() {
        // Deep enough to break a recursive walk; html5ever itself is quadratic in nesting
        // depth, so the depth is kept affordable for a debug build.
        let deep = "<div>".repeat(3_000) + "<a href='/url?q=http://x.org/'><h3>t</h3></a>";
        let _ = parse_serp(&deep, Some("https://www.google.com/search?q=x"), None);
        let _ = parse_serp(
            "<a href='\u{0}'><h3>\u{fffd}</h3></a>",
            None,
            Some(Engine::Google),
        );
        let _ = parse_serp(
            "<html><base href='javascript:alert(1)'><a href='x'><h3>y</h3></a>",
            Some("::::"),
            Some(Engine::Google),
        );
        for engine in Engine::ALL {
            let _ = parse_serp(
                "<<<>>><a href=http://[::1]:99999/><h2><a href=//>",
                Some("http://"),
                Some(engine),
            );
        }
    }
}
