//! JavaScript links: the URLs a page navigates to from script, read conservatively, the same way
//! by the extractor and by the crawl's skim.
//!
//! **In:** script text (an inline `<script>`, an event-handler attribute such as `onclick`, the
//! body of a `javascript:` URL) and the attributes of an element.
//! **Out:** the string literals that navigation calls (`location = '…'`, `location.href = …`,
//! `window.location…`, `document.location…`, `top.`/`self.`/`parent.location…`,
//! `location.assign('…')`, `location.replace('…')`, `window.open('…', …)`) take as their one
//! argument, and the values of URL-named data attributes (`data-url`, `data-href`, `data-link`,
//! `data-target-url`), when they look like a URL or a path ([`url_like`]); unresolved (the
//! readers resolve them as their other links). [`digest`] rewrites a script as its navigation
//! calls alone, for the extractor's pre-parse scan, which leaves script text out.
//!
//! **Invariants:** never panics; time linear in the text (one substring search per pattern,
//! bounded look-around at each hit, literals read at most once); at most the budget the caller
//! hands over (`left`, per page) is found; a concatenation, a variable or any other expression
//! gives nothing: Heritrix's `ExtractorJS`, which takes every string that looks like a path, is
//! known for the 404s it makes crawlers fetch.

use memchr::memmem;

use crate::web::urlnorm::MAX_URL_BYTES;

/// JavaScript links read from one page at most (they also count against the page's link limit):
/// a page has a handful; a script generated with thousands of `location = …` is not a reason to
/// queue thousands of URLs.
pub(crate) const MAX_JAVASCRIPT_LINKS: usize = 100;

/// Source bytes of one string literal read at most: a URL of [`MAX_URL_BYTES`] written with
/// `\uXXXX` escapes throughout is six times as long. A longer literal is no link, and the bound
/// keeps the look-around at each hit constant.
const MAX_LITERAL_BYTES: usize = 6 * MAX_URL_BYTES;

/// Whitespace bytes skipped between the tokens of a navigation call.
const MAX_SPACE: usize = 64;

/// Data attributes whose value is a URL (`data-src` is left out: it is mostly a lazy image).
const URL_ATTRIBUTES: &[&str] = &["data-url", "data-href", "data-link", "data-target-url"];

/// Objects whose `location` is the page's (`window.location`, `top.location`…).
const WINDOWS: &[&[u8]] = &[b"window", b"document", b"top", b"self", b"parent"];

/// Extensions that make a bare relative name (`page2.html`) a page rather than a word.
const PAGE_EXTENSIONS: &[&str] = &[
    "asp", "aspx", "cfm", "cgi", "do", "htm", "html", "jsp", "jspx", "php", "php3", "php4", "php5",
    "phtml", "pl", "shtml", "xhtml", "xml", "pdf", "txt",
];

/// Whether a `<script type>` (absent, empty, a JavaScript MIME type or `module`, parameters
/// ignored) holds script a browser runs; JSON-LD, templates and other data do not navigate.
pub(crate) fn runs_javascript(type_attr: Option<&str>) -> bool {
    let Some(value) = type_attr else {
        return true;
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    essence.is_empty()
        || essence.eq_ignore_ascii_case("module")
        || [
            "text/javascript",
            "application/javascript",
            "application/x-javascript",
            "text/x-javascript",
            "application/ecmascript",
            "text/ecmascript",
            "text/jscript",
            "text/livescript",
        ]
        .iter()
        .any(|t| essence.eq_ignore_ascii_case(t))
}

/// Whether an attribute may hold a JavaScript link: an event handler (`on…`), a URL-named data
/// attribute, or `href` (read as a `javascript:` URL on `<a>` and `<area>`).
pub(crate) fn is_script_attribute(name: &[u8]) -> bool {
    (name.len() > 2 && name.starts_with(b"on"))
        || name == b"href"
        || URL_ATTRIBUTES.iter().any(|a| a.as_bytes() == name)
}

/// The JavaScript links in the attributes of the element `element` (lower-case name): the
/// navigation calls of a `javascript:` `href` (on `<a>`, `<area>`) and of event handlers, the
/// value of URL-named data attributes. Attributes are read in the order of their names (the
/// extractor's parser keeps them sorted; the skim's tokenizer hands them in the page's order),
/// and a later duplicate is ignored, as the HTML parser ignores it.
pub(crate) fn element_urls<N, V>(
    element: &[u8],
    attributes: impl Iterator<Item = (N, V)>,
    left: &mut usize,
    out: &mut Vec<String>,
) where
    N: AsRef<str>,
    V: AsRef<str>,
{
    if *left == 0 {
        return;
    }
    let mut scripted: Vec<(N, V)> = attributes
        .filter(|(name, _)| is_script_attribute(name.as_ref().as_bytes()))
        .collect();
    // A stable sort keeps the first of duplicates first.
    scripted.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    scripted.dedup_by(|later, first| later.0.as_ref() == first.0.as_ref());
    for (name, value) in &scripted {
        let (name, value) = (name.as_ref(), value.as_ref());
        if *left == 0 {
            return;
        }
        if name == "href" {
            if matches!(element, b"a" | b"area")
                && let Some(body) = javascript_body(value)
            {
                navigation_urls(body.as_bytes(), left, out);
            }
        } else if name.starts_with("on") {
            navigation_urls(value.as_bytes(), left, out);
        } else if url_like(value.trim()) {
            out.push(value.trim().to_owned());
            *left -= 1;
        }
    }
}

/// The script of a `javascript:` URL (scheme case-insensitive, surrounding spaces ignored).
fn javascript_body(href: &str) -> Option<&str> {
    let href = href.trim();
    starts_with_ignore_case(href, "javascript:").then(|| href.get(11..).unwrap_or_default())
}

/// The URLs `code` navigates to, in source order, at most `*left` (decremented), appended to
/// `out`.
/// Bytes, not text: the patterns are ASCII and a literal is kept only when it is UTF-8, so a
/// script is never converted as a whole (the skim hands its bytes as they come).
pub(crate) fn navigation_urls(code: &[u8], left: &mut usize, out: &mut Vec<String>) {
    if *left == 0 {
        return;
    }
    let bytes = code;
    // Each pass keeps its hits in order, at most `left` of them: the first `left` of the merged
    // list are the first `left` of the script.
    let mut found = hits(bytes, b"location", *left, location_target);
    found.extend(hits(bytes, b"window.open", *left, open_target));
    found.sort_by_key(|(at, _)| *at);
    found.truncate(*left);
    *left -= found.len();
    out.extend(found.into_iter().map(|(_, url)| url));
}

/// What reading at a hit gives: the URL, if any, and how far the bytes were read (the scan goes
/// on from there).
type Read = (Option<String>, usize);

/// The targets `read` finds at each occurrence of `needle`, at most `limit`. The scan never
/// goes back over bytes read at an earlier hit (a literal, kept or not): a megabyte of
/// `location='location='…` costs a megabyte.
fn hits(
    bytes: &[u8],
    needle: &[u8],
    limit: usize,
    read: fn(&[u8], usize) -> Read,
) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut resume = 0;
    for at in memmem::find_iter(bytes, needle) {
        if found.len() >= limit {
            break;
        }
        if at < resume {
            continue;
        }
        let (target, scanned) = read(bytes, at);
        resume = scanned;
        if let Some(url) = target {
            found.push((at, url));
        }
    }
    found
}

/// `location = '…'`, `location.href = '…'`, `location.assign('…')`, `location.replace('…')`
/// (on its own or after `window.`, `document.`, `top.`, `self.`, `parent.`) at `at`.
fn location_target(bytes: &[u8], at: usize) -> Read {
    let end = at + b"location".len();
    if !starts_chain(bytes, at) || bytes.get(end).is_some_and(|&b| is_ident(b)) {
        return (None, end);
    }
    let mut i = skip_space(bytes, end);
    if bytes.get(i) == Some(&b'.') {
        let name = bytes.get(i + 1..).unwrap_or_default();
        let len = name.iter().take(8).take_while(|&&b| is_ident(b)).count();
        let method = &name[..len];
        i = skip_space(bytes, i + 1 + len);
        match method {
            b"href" => {}
            b"assign" | b"replace" => return call_argument(bytes, i, b")"),
            _ => return (None, i),
        }
    }
    assignment(bytes, i)
}

/// `window.open('…'…)` at `at`.
fn open_target(bytes: &[u8], at: usize) -> Read {
    let end = at + b"window.open".len();
    let before = at.checked_sub(1).and_then(|p| bytes.get(p));
    if before.is_some_and(|&b| is_ident(b) || b == b'.') {
        return (None, end);
    }
    call_argument(bytes, skip_space(bytes, end), b"),")
}

/// Whether `location` at `at` is the page's: not the end of a longer name, and reached, if
/// through a chain of properties, only through [`WINDOWS`] (`window.top.location`).
fn starts_chain(bytes: &[u8], mut at: usize) -> bool {
    for _ in 0..4 {
        let Some(&before) = at.checked_sub(1).and_then(|p| bytes.get(p)) else {
            return true;
        };
        if before != b'.' {
            return !is_ident(before) && !declared(bytes, at);
        }
        let dot = at - 1;
        let len = bytes[..dot]
            .iter()
            .rev()
            .take(8)
            .take_while(|&&b| is_ident(b))
            .count();
        if !WINDOWS.contains(&&bytes[dot - len..dot]) {
            return false;
        }
        at = dot - len;
    }
    false
}

/// Whether the name ending at `at` is declared there (`var location = '…'` is a variable of
/// that name, not the page's location).
fn declared(bytes: &[u8], at: usize) -> bool {
    let before = bytes.get(..at).unwrap_or_default();
    let spaces = before
        .iter()
        .rev()
        .take(MAX_SPACE)
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let before = &before[..before.len() - spaces];
    spaces > 0
        && [&b"var"[..], b"let", b"const"].iter().any(|keyword| {
            before.ends_with(keyword)
                && !before[..before.len() - keyword.len()]
                    .last()
                    .is_some_and(|&b| is_ident(b) || b == b'.')
        })
}

/// `= '…'` at `i`, ending the statement (not `==`, `=>`, `+=`, nor followed by `+ …` or any
/// other operator).
fn assignment(bytes: &[u8], i: usize) -> Read {
    if bytes.get(i) != Some(&b'=') || matches!(bytes.get(i + 1), Some(b'=' | b'>')) {
        return (None, i);
    }
    let (value, after) = match literal(bytes, skip_space(bytes, i + 1)) {
        Ok(read) => read,
        Err(scanned) => return (None, scanned),
    };
    let mut j = after;
    while j < after + MAX_SPACE && matches!(bytes.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    let ends = match bytes.get(j) {
        None | Some(b';' | b'}' | b')' | b',' | b'\n' | b'\r') => true,
        Some(b'/') => matches!(bytes.get(j + 1), Some(b'/' | b'*')),
        _ => false,
    };
    (kept(value, ends), after)
}

/// `( '…'` at `i`, followed by one of `next` (`)` for a call of one argument, also `,` for
/// `window.open`).
fn call_argument(bytes: &[u8], i: usize, next: &[u8]) -> Read {
    if bytes.get(i) != Some(&b'(') {
        return (None, i);
    }
    let (value, after) = match literal(bytes, skip_space(bytes, i + 1)) {
        Ok(read) => read,
        Err(scanned) => return (None, scanned),
    };
    let closes = bytes
        .get(skip_space(bytes, after))
        .is_some_and(|b| next.contains(b));
    (kept(value, closes), after)
}

fn kept(value: String, complete: bool) -> Option<String> {
    (complete && url_like(&value)).then_some(value)
}

fn skip_space(bytes: &[u8], from: usize) -> usize {
    from + bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take(MAX_SPACE)
        .take_while(|b| b.is_ascii_whitespace())
        .count()
}

/// Bytes of a JavaScript identifier (non-ASCII letters included, as any byte of them).
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The string literal at `at` (`'…'`, `"…"`, or `` `…` `` without `${`), unescaped, and the
/// offset after it. `Err` with how far it was read for anything else: no quote, an escape that
/// is not part of a URL (`\n`…), a line break, or a literal longer than [`MAX_LITERAL_BYTES`].
fn literal(bytes: &[u8], at: usize) -> Result<(String, usize), usize> {
    let Some(&quote) = bytes.get(at).filter(|q| matches!(q, b'\'' | b'"' | b'`')) else {
        return Err(at);
    };
    let mut value = Vec::new();
    let mut i = at + 1;
    let limit = (at + 1 + MAX_LITERAL_BYTES).min(bytes.len());
    while i < limit {
        let b = bytes[i];
        match b {
            _ if b == quote => return String::from_utf8(value).map(|v| (v, i + 1)).map_err(|_| i),
            b'\n' | b'\r' => return Err(i),
            b'$' if quote == b'`' && bytes.get(i + 1) == Some(&b'{') => return Err(i),
            b'\\' => {
                let Some((ch, next)) = escape(bytes, i + 1) else {
                    return Err(i);
                };
                let mut utf8 = [0; 4];
                value.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
                i = next;
                continue;
            }
            _ => value.push(b),
        }
        i += 1;
    }
    Err(i)
}

/// The character of the escape after a backslash at `at`, and the offset after it: `\/`,
/// `\'`, `\"`, `` \` ``, `\\`, `\xHH`, `\uXXXX` (surrogate pairs joined); `None` otherwise.
fn escape(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    match *bytes.get(at)? {
        b @ (b'/' | b'\'' | b'"' | b'`' | b'\\') => Some((char::from(b), at + 1)),
        b'x' => Some((char::from_u32(hex(bytes, at + 1, 2)?)?, at + 3)),
        b'u' => {
            let high = hex(bytes, at + 1, 4)?;
            if !(0xD800..0xDC00).contains(&high) {
                return Some((char::from_u32(high)?, at + 5));
            }
            let low = bytes
                .get(at + 5..at + 7)
                .filter(|s| *s == b"\\u")
                .and_then(|_| hex(bytes, at + 7, 4))
                .filter(|low| (0xDC00..0xE000).contains(low))?;
            let ch = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(ch)?, at + 11))
        }
        _ => None,
    }
}

fn hex(bytes: &[u8], at: usize, len: usize) -> Option<u32> {
    let digits = bytes.get(at..at + len)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// Whether `value` starts with the ASCII `prefix`, case-insensitively.
fn starts_with_ignore_case(value: &str, prefix: &str) -> bool {
    value
        .as_bytes()
        .get(..prefix.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Whether a string literal or attribute value is a link: an absolute `http(s)` URL, a
/// protocol-relative `//host/…`, a path (`/…`, `./…`, `../…`, `?query`, `dir/page.php`) or a
/// page name with a page extension (`page2.html`); at most [`MAX_URL_BYTES`], without spaces,
/// quotes, `<`, `>`, backslashes, braces (templates such as `/item/{id}`) or control
/// characters. Never a fragment (`#top`), another scheme (`javascript:`, `mailto:`, `data:`),
/// nor a bare word.
pub(crate) fn url_like(value: &str) -> bool {
    if value.is_empty()
        || value.len() > MAX_URL_BYTES
        || value.starts_with('#')
        || value.chars().any(|c| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '"' | '`' | '<' | '>' | '\\' | '{' | '}' | '\u{FFFD}')
        })
    {
        return false;
    }
    for absolute in ["http://", "https://"] {
        if starts_with_ignore_case(value, absolute) {
            return value.len() > absolute.len();
        }
    }
    if value.starts_with("//") {
        return value.len() > 2;
    }
    if ["/", "./", "../", "?"].iter().any(|p| value.starts_with(p)) {
        return true;
    }
    let path = value.split(['?', '#']).next().unwrap_or_default();
    if path.contains(':') {
        // A scheme (`mailto:`, `javascript:`, `data:`, `tel:`) or a `host:port` without one.
        return false;
    }
    path.contains('/')
        || value.contains('?')
        || path.rsplit_once('.').is_some_and(|(name, ext)| {
            !name.is_empty() && PAGE_EXTENSIONS.iter().any(|p| ext.eq_ignore_ascii_case(p))
        })
}

/// `code` reduced to its navigation calls, one `location="…";` per URL (the URLs hold no quote,
/// backslash, `<` or line break): what the extractor's pre-parse scan leaves of a script, so
/// that the tree walk finds the links the skim finds in the whole script. Empty when there are
/// none.
pub(crate) fn digest(code: &str) -> String {
    let mut urls = Vec::new();
    let mut left = MAX_JAVASCRIPT_LINKS;
    navigation_urls(code.as_bytes(), &mut left, &mut urls);
    let mut out = String::new();
    for url in urls {
        out.push_str("location=\"");
        out.push_str(&url);
        out.push_str("\";\n");
    }
    out
}
