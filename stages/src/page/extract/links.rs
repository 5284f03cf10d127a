//! Links and robots directives as the page means them, read the same way by the extractor and by
//! the crawl's skim (`crate::page::skim`).
//!
//! **In:** `href`/`src` values, `<meta>` contents, `<link rel type>`, the text around a link,
//! and for the extractor's walk each element (its feeds and JavaScript links, [`PageLinks`]).
//! **Out:** absolute `http`/`https` URLs without fragment ([`resolve`], [`resolve_links`]), the
//! URL of a `<meta http-equiv=refresh>` ([`refresh_url`]), whether a `<link>` announces a feed
//! ([`is_feed`]), `noindex`/`nofollow` ([`read_robots`]) and the bounded text around a link
//! ([`context_around`]).
//!
//! **Invariants:** never panics; same-document references and other schemes give no link; cuts in
//! text fall on character boundaries; the walk and the skim push an element's feed and
//! JavaScript links in the same order (JavaScript links, then the feed, before the element's own
//! link), so both readers give the same list.

use scraper::ElementRef;
use url::Url;

use super::cues::has_rel;
use super::{CONTEXT_CHARS, ExtractOptions, Link, LinkKind, MetaRobots, push_collapsed};
use crate::page::script_links::{
    MAX_JAVASCRIPT_LINKS, element_urls, navigation_urls, runs_javascript,
};

/// A link as found in the page, before URL resolution.
pub(crate) struct RawLink {
    pub(crate) href: String,
    pub(crate) anchor: String,
    /// Alt text of the first image inside the anchor: the anchor when it has no text.
    pub(crate) alt: String,
    /// `title` or `aria-label`: the anchor when it has neither text nor image alt.
    pub(crate) fallback: String,
    pub(crate) context: String,
    pub(crate) kind: LinkKind,
    pub(crate) nofollow: bool,
    /// The link takes its texts from the next one: a JavaScript link of an `<a href>` or an
    /// `<area href>`, whose own link (its text read as the page goes on) is pushed right after.
    pub(crate) text_from_next: bool,
}

impl RawLink {
    /// A link as read from an element, before its text is known.
    pub(crate) fn new(href: &str, kind: LinkKind, nofollow: bool) -> RawLink {
        RawLink {
            href: href.to_owned(),
            anchor: String::new(),
            alt: String::new(),
            fallback: String::new(),
            context: String::new(),
            kind,
            nofollow,
            text_from_next: false,
        }
    }
}

/// The links as the page means them: resolved against `base` (non-http(s) and same-page links
/// dropped), with the anchor text, else the image `alt`, else the fallback attribute.
pub(crate) fn resolve_links(base: &Url, mut raw: Vec<RawLink>) -> Vec<Link> {
    // From the end, so that every link of a run borrowing from the next reaches the element's
    // own link (past `max_links`, that link is not there: the texts stay empty).
    for i in (1..raw.len()).rev() {
        let (head, tail) = raw.split_at_mut(i);
        if let (Some(link), Some(next)) = (head.last_mut(), tail.first())
            && link.text_from_next
        {
            link.anchor.clone_from(&next.anchor);
            link.alt.clone_from(&next.alt);
            link.fallback.clone_from(&next.fallback);
            link.context.clone_from(&next.context);
        }
    }
    raw.into_iter()
        .filter_map(|raw| {
            let url = resolve(base, &raw.href)?;
            let anchor = [raw.anchor, raw.alt, raw.fallback]
                .into_iter()
                .find(|a| !a.is_empty())
                .unwrap_or_default();
            Some(Link {
                url,
                anchor,
                context: raw.context,
                kind: raw.kind,
                nofollow: raw.nofollow,
            })
        })
        .collect()
}

/// Whether a `<link>` announces a feed: `alternate` among its `rel` tokens and an RSS, Atom or
/// RDF `type` (case-insensitive, parameters ignored; JSON feeds are left out).
pub(crate) fn is_feed(rel: Option<&str>, type_attr: Option<&str>) -> bool {
    let essence = type_attr
        .and_then(|t| t.split(';').next())
        .unwrap_or_default()
        .trim();
    has_rel(rel, "alternate")
        && [
            "application/rss+xml",
            "application/atom+xml",
            "application/rdf+xml",
        ]
        .iter()
        .any(|t| essence.eq_ignore_ascii_case(t))
}

/// The links of the walk that are not read with the element's text: feeds, and JavaScript
/// links (within the page's budget, [`MAX_JAVASCRIPT_LINKS`], none when
/// [`ExtractOptions::javascript_links`] is off).
#[derive(Default)]
pub(super) struct PageLinks {
    /// JavaScript links still to find on the page.
    javascript_left: usize,
}

impl PageLinks {
    pub(super) fn new(options: &ExtractOptions) -> PageLinks {
        PageLinks {
            javascript_left: if options.javascript_links {
                MAX_JAVASCRIPT_LINKS
            } else {
                0
            },
        }
    }

    /// Pushes the feed and the JavaScript links `el` makes onto `links`, at most `max_links` in
    /// all (`cut` counts the others); before the walk reads the element's own link.
    pub(super) fn read(
        &mut self,
        el: ElementRef<'_>,
        links: &mut Vec<RawLink>,
        max_links: usize,
        cut: &mut usize,
    ) {
        let e = el.value();
        let tag: &str = &e.name.local;
        let mut push = |link: RawLink| {
            if links.len() >= max_links {
                *cut += 1;
            } else {
                links.push(link);
            }
        };
        if self.javascript_left > 0 {
            let mut urls = Vec::new();
            element_urls(
                tag.as_bytes(),
                e.attrs(),
                &mut self.javascript_left,
                &mut urls,
            );
            // The pre-parse scan left a script's navigation calls alone in its text.
            if tag == "script" && e.attr("src").is_none() && runs_javascript(e.attr("type")) {
                let code: String = el.text().collect();
                navigation_urls(code.as_bytes(), &mut self.javascript_left, &mut urls);
            }
            let own = matches!(tag, "a" | "area");
            let nofollow = own && has_rel(e.attr("rel"), "nofollow");
            for url in urls {
                push(RawLink {
                    text_from_next: own && e.attr("href").is_some(),
                    ..RawLink::new(&url, LinkKind::Javascript, nofollow)
                });
            }
        }
        if tag == "link"
            && let Some(href) = e.attr("href")
            && is_feed(e.attr("rel"), e.attr("type"))
        {
            let mut link = RawLink::new(href, LinkKind::Feed, has_rel(e.attr("rel"), "nofollow"));
            push_collapsed(
                &mut link.anchor,
                e.attr("title").unwrap_or_default(),
                &mut false,
            );
            push(link);
        }
    }
}

/// Adds the directives of a `<meta name=robots>` content (`none` sets both).
pub(crate) fn read_robots(robots: &mut MetaRobots, content: &str) {
    for token in content.split([',', ' ', '\t', '\n', '\r', ';']) {
        let token = token.trim();
        if token.eq_ignore_ascii_case("noindex") {
            robots.noindex = true;
        } else if token.eq_ignore_ascii_case("nofollow") {
            robots.nofollow = true;
        } else if token.eq_ignore_ascii_case("none") {
            robots.noindex = true;
            robots.nofollow = true;
        }
    }
}

/// Absolute http(s) URL without fragment; `None` for same-document references (`#top`, ``)
/// and other schemes (`mailto:`, `javascript:`, `data:`, `tel:`, `ftp:`…).
pub(crate) fn resolve(base: &Url, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url.into())
}

/// The URL of a `<meta http-equiv=refresh>` content (`"5; url=page.html"`), following the
/// HTML standard's parsing loosely; `None` when it only reloads the page.
pub(crate) fn refresh_url(content: &str) -> Option<&str> {
    let rest = content
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim_start();
    let rest = rest.strip_prefix([';', ',']).unwrap_or(rest).trim_start();
    let rest = match rest.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("url") => {
            let after = rest.get(3..).unwrap_or_default().trim_start();
            match after.strip_prefix('=') {
                Some(value) => value.trim_start(),
                None => rest,
            }
        }
        _ => rest,
    };
    let url = match rest.chars().next() {
        Some(quote @ ('"' | '\'')) => {
            let inner = &rest[quote.len_utf8()..];
            inner.split(quote).next().unwrap_or(inner)
        }
        _ => rest,
    }
    .trim();
    (!url.is_empty()).then_some(url)
}

/// About [`CONTEXT_CHARS`] characters of `text` around bytes `start..end`, cut at spaces.
pub(crate) fn context_around(text: &str, start: usize, end: usize) -> String {
    let start = floor_boundary(text, start.min(text.len()));
    let end = floor_boundary(text, end.clamp(start, text.len()));
    // Every count stops at what can matter (about CONTEXT_CHARS characters): a block holding
    // a hundred thousand links must cost a hundred thousand short looks, not as many walks
    // over the whole block.
    let short = text.chars().nth(CONTEXT_CHARS).is_none();
    let (from, to) = if short {
        (0, text.len())
    } else {
        let span = text[start..end].chars().take(CONTEXT_CHARS).count();
        if span >= CONTEXT_CHARS {
            (start, advance(text, start, CONTEXT_CHARS))
        } else {
            let budget = CONTEXT_CHARS - span;
            // The room on each side, counted up to the budget (more changes nothing below).
            let left_room = text[..start].chars().rev().take(budget).count();
            let right_room = text[end..].chars().take(budget).count();
            let mut left = budget / 2;
            let mut right = budget - left;
            if left > left_room {
                right += left - left_room;
                left = left_room;
            }
            if right > right_room {
                left = (left + right - right_room).min(left_room);
                right = right_room;
            }
            let mut from = retreat(text, start, left);
            let mut to = advance(text, end, right);
            // Do not show half words at the cut edges.
            if from > 0
                && let Some(space) = text[from..start].find(' ')
            {
                from += space + 1;
            }
            if to < text.len()
                && let Some(space) = text[end..to].rfind(' ')
            {
                to = end + space;
            }
            (from, to)
        }
    };
    text.get(from..to)
        .unwrap_or_default()
        .trim()
        .replace('\n', " ")
}

pub(super) fn floor_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Byte offset `n` characters after `from`.
pub(super) fn advance(text: &str, from: usize, n: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| from + i)
}

/// Byte offset `n` characters before `from`.
pub(super) fn retreat(text: &str, from: usize, n: usize) -> usize {
    if n == 0 {
        return from;
    }
    text[..from]
        .char_indices()
        .rev()
        .nth(n - 1)
        .map_or(0, |(i, _)| i)
}
