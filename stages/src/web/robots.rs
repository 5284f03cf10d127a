//! robots.txt rules of one server (RFC 9309), for one crawler.
//!
//! **In:** the outcome of fetching `/robots.txt` (HTTP status and body bytes) and the crawler's
//! product token (see [`product_token`]); later, the path and query of each URL to fetch.
//!
//! **Out:** a [`Robots`] value that answers "may this path be fetched?", plus the
//! `Crawl-delay` of the group that applies to the crawler and every `Sitemap` URL of the file.
//!
//! **Invariants:** total on any input (hostile bytes, invalid UTF-8, huge bodies): nothing
//! here panics or fails; `/robots.txt` itself is always allowed, so a server that is
//! disallowed "until retried" can be retried; only the first 500 KiB of a body are read.
//!
//! Matching is done by the `robotxt` crate (RFC 9309: longest match wins, `Allow` wins ties,
//! `*` and a final `$`, percent-encoding normalised on both sides, case-insensitive group
//! selection with a fallback to the `*` group). It was chosen over `texting_robots` by running
//! Google's robots.txt conformance suite on both (see `tests/robots.rs`). Before handing the
//! body over, this module does the two things the crate leaves out:
//!
//! * a partial UTF-8 byte order mark at the start of the file is skipped, as Google does, so
//!   a truncated BOM does not turn the first `User-agent` line into garbage;
//! * the value of every `User-agent` line is reduced to its RFC 9309 product token (letters,
//!   `_` and `-`): `User-agent: glaneur/0.1 (+https://…)` is a group for `glaneur`, and
//!   `User-agent: * anything` is the `*` group. Site owners often paste a whole User-Agent
//!   string; the crate would compare it verbatim and silently apply another group to us.

use std::borrow::Cow;

/// How many bytes of a robots.txt body are read (RFC 9309 §2.5 asks for at least 500 KiB).
///
/// The line that crosses the limit is dropped as well, so a rule cut in half never applies.
pub const MAX_BODY_BYTES: usize = robotxt::BYTE_LIMIT;

/// The UTF-8 byte order mark; any prefix of it at the start of the body is skipped.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The key spellings that the `robotxt` lexer reads as `User-agent`.
const USER_AGENT_KEYS: [&[u8]; 3] = [b"user-agent", b"user agent", b"useragent"];

/// The robots.txt rules that apply to one crawler on one server.
#[derive(Debug, Clone)]
pub struct Robots {
    inner: robotxt::Robots,
}

impl Robots {
    /// Builds the rules from the final response to `GET /robots.txt` (RFC 9309 §2.3.1).
    ///
    /// * 2xx: the body is parsed (first [`MAX_BODY_BYTES`] bytes only);
    /// * 429 (Too Many Requests): nothing is allowed until the file is fetched again;
    /// * other 4xx, and a 3xx left after following redirects (the file is "unavailable"):
    ///   everything is allowed;
    /// * 5xx, and any status outside 200–599 (the file is "unreachable"): nothing is allowed.
    ///
    /// `product_token` is matched as given, case-insensitively, against the product tokens
    /// of the file's `User-agent` lines: pass [`product_token`] of the crawler's User-Agent,
    /// not the whole User-Agent string.
    pub fn from_response(status: u16, body: &[u8], product_token: &str) -> Robots {
        match status {
            200..=299 => Robots::parse(body, product_token),
            429 => Robots::disallow_all(),
            300..=499 => Robots::allow_all(),
            _ => Robots::disallow_all(),
        }
    }

    /// Rules that allow every URL (robots.txt absent: 4xx).
    pub fn allow_all() -> Robots {
        Robots {
            inner: robotxt::Robots::allow_all(),
        }
    }

    /// Rules that allow nothing but `/robots.txt` (server error or unreachable server): the
    /// crawler must wait and fetch robots.txt again before anything else.
    pub fn disallow_all() -> Robots {
        Robots {
            inner: robotxt::Robots::disallow_all(),
        }
    }

    /// Parses a robots.txt body for the crawler named `product_token`.
    fn parse(body: &[u8], product_token: &str) -> Robots {
        let body = prepare_body(cap_body(body));
        Robots {
            inner: robotxt::Robots::parse(&body, product_token),
        }
    }

    /// Whether the crawler may fetch `path_and_query`: the path plus optional `?query`, as
    /// sent in the request line (a `#fragment`, if any, is ignored).
    ///
    /// Percent-encoding is normalised on both sides before matching (`/%7Ea` is `/~a`,
    /// `/ä` is `/%C3%A4`), so a canonical URL and the rule written for it always meet.
    pub fn is_allowed(&self, path_and_query: &str) -> bool {
        self.inner.is_allowed(path_and_query)
    }

    /// The `Crawl-delay` in seconds of the group that applies to the crawler (the smallest one
    /// if the merged groups give several), or `None` when that group sets none or an
    /// unreadable one. A delay set only in another group does not apply to us.
    pub fn crawl_delay(&self) -> Option<f64> {
        self.inner.crawl_delay().map(|delay| delay.as_secs_f64())
    }

    /// Every `Sitemap` URL of the file that parses as an absolute URL, in file order; these
    /// belong to no group.
    pub fn sitemaps(&self) -> Vec<String> {
        self.inner
            .sitemaps()
            .iter()
            .map(|url| url.as_str().to_owned())
            .collect()
    }
}

/// The RFC 9309 product token at the start of a User-Agent: the longest prefix made of ASCII
/// letters, `_` and `-` (leading blanks skipped).
///
/// `"glaneur/0.1 (+https://example.org/bot)"` gives `"glaneur"`; a User-Agent that starts
/// with anything else gives `""`, which matches no group (only `*` then applies).
pub fn product_token(user_agent: &str) -> String {
    user_agent
        .trim_start()
        .chars()
        .take_while(|&c| c.is_ascii_alphabetic() || c == '_' || c == '-')
        .collect()
}

/// The `noindex` / `nofollow` directives of a page's `X-Robots-Tag` headers that apply to us.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeaderDirectives {
    /// Do not put the page in the corpus.
    pub noindex: bool,
    /// Do not follow the page's links.
    pub nofollow: bool,
}

/// Directive names that may stand before a `:` (so that `unavailable_after: DATE` is not read
/// as a user-agent prefix).
const DIRECTIVES_WITH_VALUE: &[&str] = &[
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
];

/// Reads `X-Robots-Tag` header values with the syntax search engines document: comma-separated
/// directives, optionally prefixed by a crawler name and a colon (`otherbot: noindex`), which
/// then apply to that crawler only. `none` means `noindex, nofollow`. Names are
/// case-insensitive; `product_token` is ours (see [`product_token`]).
pub fn x_robots_tag<'a>(
    values: impl IntoIterator<Item = &'a str>,
    product_token: &str,
) -> HeaderDirectives {
    let mut out = HeaderDirectives::default();
    for value in values {
        let (applies, directives) = match value.split_once(':') {
            Some((name, rest))
                if !name.contains(',')
                    && !DIRECTIVES_WITH_VALUE
                        .contains(&name.trim().to_ascii_lowercase().as_str()) =>
            {
                (name.trim().eq_ignore_ascii_case(product_token), rest)
            }
            _ => (true, value),
        };
        if !applies {
            continue;
        }
        for directive in directives.split(',') {
            match directive.trim().to_ascii_lowercase().as_str() {
                "noindex" => out.noindex = true,
                "nofollow" => out.nofollow = true,
                "none" => {
                    out.noindex = true;
                    out.nofollow = true;
                }
                _ => {}
            }
        }
    }
    out
}

/// Returns true for the bytes that end a line for the `robotxt` lexer.
const fn is_line_end(byte: u8) -> bool {
    matches!(byte, b'\n' | b'\r' | b'\0')
}

/// The first [`MAX_BODY_BYTES`] bytes of the body, cut after the last line ending so that the
/// line crossing the limit is dropped whole (a line ending right after the limit still counts).
fn cap_body(body: &[u8]) -> &[u8] {
    let Some(window) = body.get(..=MAX_BODY_BYTES) else {
        return body;
    };
    let end = window.iter().rposition(|&byte| is_line_end(byte));
    body.get(..end.unwrap_or(0)).unwrap_or_default()
}

/// Skips a (possibly partial) leading byte order mark and reduces every `User-agent` value to
/// its product token. Never makes the body longer, so the size cap still holds afterwards.
fn prepare_body(body: &[u8]) -> Cow<'_, [u8]> {
    let bom = body
        .iter()
        .zip(BOM)
        .take_while(|(byte, bom)| byte == bom)
        .count();
    let body = body.get(bom..).unwrap_or_default();

    let mut out: Option<Vec<u8>> = None;
    let mut start = 0;
    while start < body.len() {
        let end = body
            .get(start..)
            .and_then(|rest| rest.iter().position(|&byte| is_line_end(byte)))
            .map_or(body.len(), |offset| start + offset);
        let line = body.get(start..end).unwrap_or_default();
        let rewritten = rewrite_user_agent(line).or_else(|| rewrite_crawl_delay(line));
        if rewritten.is_some() && out.is_none() {
            out = Some(body.get(..start).unwrap_or_default().to_vec());
        }
        if let Some(out) = out.as_mut() {
            out.extend_from_slice(rewritten.as_deref().unwrap_or(line));
            out.extend_from_slice(body.get(end..=end).unwrap_or_default());
        }
        start = end + 1;
    }
    out.map_or(Cow::Borrowed(body), Cow::Owned)
}

/// If the line is a `User-agent` line (read the way the `robotxt` lexer reads it: optional
/// blanks, a key spelling, then `:` or at least one blank), the line with its value replaced
/// by the value's product token (`*` when the value is `*` or starts with `*` and a blank);
/// `None` for any other line or when the value is already a bare token.
fn rewrite_user_agent(line: &[u8]) -> Option<Vec<u8>> {
    let (value_start, value) = value_of(line, &USER_AGENT_KEYS)?;

    let token: Cow<'_, str> = match value {
        [b'*'] => Cow::Borrowed("*"),
        [b'*', next, ..] if next.is_ascii_whitespace() => Cow::Borrowed("*"),
        _ => Cow::Owned(product_token(&String::from_utf8_lossy(value))),
    };
    if token.as_bytes() == value {
        return None;
    }
    let mut rewritten = line.get(..value_start)?.to_vec();
    rewritten.extend_from_slice(token.as_bytes());
    Some(rewritten)
}

/// Where the value of a line with one of `keys` starts, and the value itself (comment cut,
/// blanks trimmed), read the way the `robotxt` lexer reads it: optional blanks, a key
/// spelling, then `:` or at least one blank. `None` for a line with another key.
fn value_of<'a>(line: &'a [u8], keys: &[&[u8]]) -> Option<(usize, &'a [u8])> {
    let is_blank = |byte: &u8| matches!(byte, b' ' | b'\t');
    let key_start = line.iter().position(|byte| !is_blank(byte))?;
    let rest = line.get(key_start..)?;
    let key = keys.iter().find(|key| {
        rest.get(..key.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(key))
    })?;
    let after_key = rest.get(key.len()..)?;
    let blanks = after_key.iter().take_while(|byte| is_blank(byte)).count();
    let after_blanks = after_key.get(blanks..)?;
    let value = match after_blanks.strip_prefix(b":") {
        Some(value) => value,
        None if blanks > 0 => after_blanks,
        None => return None,
    };
    let value_start = line.len() - value.len();
    let value = value
        .iter()
        .position(|&byte| byte == b'#')
        .map_or(value, |hash| value.get(..hash).unwrap_or_default());
    Some((value_start, value.trim_ascii()))
}

/// The spellings of `Crawl-delay` the `robotxt` lexer accepts.
const CRAWL_DELAY_KEYS: [&[u8]; 3] = [b"crawl-delay", b"crawl delay", b"crawldelay"];

/// Longest `Crawl-delay` passed on as written, in seconds; a longer one (`inf`, `1e300`),
/// which `robotxt` would drop as unreadable, is passed on as this, so that the crawler caps it
/// like any other long delay instead of ignoring it.
pub const CRAWL_DELAY_CEILING: f64 = 1e9;

/// If the line is a `Crawl-delay` line whose value is a number too large for a duration
/// (`inf`, `1e300`), the line with the value [`CRAWL_DELAY_CEILING`]; `None` otherwise.
fn rewrite_crawl_delay(line: &[u8]) -> Option<Vec<u8>> {
    let (value_start, value) = value_of(line, &CRAWL_DELAY_KEYS)?;
    let delay: f64 = std::str::from_utf8(value).ok()?.parse().ok()?;
    if delay.is_nan() || delay <= CRAWL_DELAY_CEILING {
        return None;
    }
    let mut rewritten = line.get(..value_start)?.to_vec();
    rewritten.extend_from_slice(b" 1000000000");
    Some(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UA: &str = "glaneur/0.1 (+https://example.org/bot)";

    fn robots(body: &str) -> Robots {
        Robots::from_response(200, body.as_bytes(), &product_token(UA))
    }

    #[test]
    fn product_token_is_the_leading_identifier() {
        assert_eq!(product_token(UA), "glaneur");
        assert_eq!(product_token("  Foo_Bar-baz2 x"), "Foo_Bar-baz");
        assert_eq!(product_token("Mozilla/5.0 (compatible)"), "Mozilla");
        assert_eq!(product_token("/bot"), "");
        assert_eq!(product_token(""), "");
        assert_eq!(product_token("élan"), "");
    }

    #[test]
    fn status_codes_follow_rfc_9309() {
        let body = b"User-agent: *\nDisallow: /private\n";
        let ok = Robots::from_response(200, body, "glaneur");
        assert!(!ok.is_allowed("/private/x"));
        assert!(ok.is_allowed("/public"));
        for status in [301, 400, 401, 403, 404, 410, 451] {
            let r = Robots::from_response(status, body, "glaneur");
            assert!(r.is_allowed("/private/x"), "{status} must allow all");
        }
        for status in [0, 100, 429, 500, 502, 503, 504, 599, 600, 999] {
            let r = Robots::from_response(status, body, "glaneur");
            assert!(!r.is_allowed("/public"), "{status} must disallow all");
            assert!(
                r.is_allowed("/robots.txt"),
                "{status}: robots.txt stays fetchable"
            );
        }
    }

    #[test]
    fn robots_txt_is_always_allowed() {
        assert!(robots("User-agent: *\nDisallow: /").is_allowed("/robots.txt"));
        assert!(Robots::disallow_all().is_allowed("/robots.txt"));
        assert!(!Robots::disallow_all().is_allowed("/"));
        assert!(Robots::allow_all().is_allowed("/anything?x=1"));
    }

    #[test]
    fn our_group_is_chosen_by_product_token() {
        let r = robots(
            "User-agent: *\nDisallow: /\nCrawl-delay: 9\n\n\
             User-agent: GLANEUR\nDisallow: /private\nCrawl-delay: 2.5\n",
        );
        assert!(r.is_allowed("/page"));
        assert!(!r.is_allowed("/private/page"));
        assert_eq!(r.crawl_delay(), Some(2.5));

        // Passing the whole User-Agent string instead of its token finds no group.
        let whole = Robots::from_response(200, b"User-agent: glaneur\nDisallow: /x", UA);
        assert!(whole.is_allowed("/x"));
    }

    #[test]
    fn user_agent_lines_are_reduced_to_their_token() {
        // A site owner pasting our whole User-Agent string still addresses us.
        let r = robots(
            "User-agent: *\nAllow: /\n\nUser-agent: glaneur/0.1 (+https://x)\nDisallow: /\n",
        );
        assert!(!r.is_allowed("/page"));
        // A value that only starts with our token's letters is somebody else.
        let r = robots("User-agent: glaneurbot\nDisallow: /\n");
        assert!(r.is_allowed("/page"));
        // `* something` is the global group; `*bot` is nobody.
        let r = robots("User-agent: * all robots\nDisallow: /a\n");
        assert!(!r.is_allowed("/a"));
        let r = robots("User-agent: *bot\nDisallow: /a\n");
        assert!(r.is_allowed("/a"));
        // Spellings without colon and with comments are read like the crate reads them.
        let r = robots("useragent glaneur # us\ndisallow /b\n");
        assert!(!r.is_allowed("/b"));
    }

    #[test]
    fn other_groups_delay_does_not_apply() {
        let r = robots("User-agent: otherbot\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /x\n");
        assert_eq!(r.crawl_delay(), None);
        let r = robots("User-agent: *\nCrawl-delay: 4\n");
        assert_eq!(r.crawl_delay(), Some(4.0));
        let r = robots("User-agent: *\nCrawl-delay: soon\n");
        assert_eq!(r.crawl_delay(), None);
        // Too long for a duration: passed on as the ceiling, for the crawler to cap.
        for endless in ["inf", "1e300", "Infinity", "18446744073709551616"] {
            let r = robots(&format!(
                "User-agent: *\nCrawl-delay: {endless}\nDisallow: /x\n"
            ));
            assert_eq!(r.crawl_delay(), Some(CRAWL_DELAY_CEILING), "{endless}");
            assert!(!r.is_allowed("/x"));
        }
        let r = robots("User-agent: *\ncrawl delay: -inf\n");
        assert_eq!(r.crawl_delay(), None);
    }

    #[test]
    fn wildcards_and_end_anchor() {
        let r = robots("User-agent: *\nDisallow: /*.php$\nDisallow: /tmp*/x\nAllow: /tmp/ok/x\n");
        assert!(!r.is_allowed("/a/index.php"));
        assert!(r.is_allowed("/a/index.php?id=1"));
        assert!(r.is_allowed("/a/index.php5"));
        assert!(!r.is_allowed("/tmpfoo/bar/x"));
        // Longest match wins: the Allow rule is longer than the Disallow one.
        assert!(r.is_allowed("/tmp/ok/x"));
    }

    #[test]
    fn percent_encoding_is_normalised_on_both_sides() {
        let r = robots("User-agent: *\nDisallow: /%7Euser/\nDisallow: /café\nDisallow: /a%2fb\n");
        assert!(!r.is_allowed("/~user/page"));
        assert!(!r.is_allowed("/%7euser/page"));
        assert!(!r.is_allowed("/caf%C3%A9"));
        assert!(!r.is_allowed("/caf%c3%a9/x"));
        // `%2F` is reserved: it is not the same as `/`.
        assert!(!r.is_allowed("/a%2Fb"));
        assert!(r.is_allowed("/a/b"));
    }

    #[test]
    fn query_and_fragment() {
        let r = robots("User-agent: *\nDisallow: /*?sort=\n");
        assert!(!r.is_allowed("/list?sort=asc"));
        assert!(r.is_allowed("/list?page=2"));
        assert!(r.is_allowed("/list#?sort=asc"));
    }

    #[test]
    fn sitemaps_belong_to_no_group() {
        let r = robots(
            "Sitemap: https://example.org/a.xml\nUser-agent: other\nDisallow: /\n\
             Sitemap: not a url\nsitemap: https://example.org/b.xml\n",
        );
        assert_eq!(
            r.sitemaps(),
            vec![
                "https://example.org/a.xml".to_owned(),
                "https://example.org/b.xml".to_owned()
            ]
        );
        assert!(Robots::allow_all().sitemaps().is_empty());
    }

    #[test]
    fn partial_byte_order_marks_are_skipped() {
        for bom in [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"] {
            let mut body = bom.to_vec();
            body.extend_from_slice(b"User-agent: glaneur\nDisallow: /x\n");
            let r = Robots::from_response(200, &body, "glaneur");
            assert!(!r.is_allowed("/x"), "{bom:?}");
        }
        // A broken mark is garbage: the line it starts is skipped.
        let r = Robots::from_response(
            200,
            b"\xEF\x11User-agent: glaneur\nDisallow: /x\n",
            "glaneur",
        );
        assert!(r.is_allowed("/x"));
    }

    #[test]
    fn bytes_past_the_cap_are_ignored() {
        let head = b"User-agent: *\nDisallow: /early\n";
        let mut body = head.to_vec();
        let padding = MAX_BODY_BYTES - body.len() - 20;
        body.extend(std::iter::repeat_n(b'#', padding));
        body.push(b'\n');
        // This line crosses the cap: dropped whole, not cut into a broader `/lat` rule.
        body.extend_from_slice(b"Disallow: /late-and-long-enough-to-cross\n");
        body.extend_from_slice(b"Disallow: /after\n");
        assert!(body.len() > MAX_BODY_BYTES);
        let r = Robots::from_response(200, &body, "glaneur");
        assert!(!r.is_allowed("/early"));
        assert!(r.is_allowed("/lat"));
        assert!(r.is_allowed("/late-and-long-enough-to-cross"));
        assert!(r.is_allowed("/after"));
    }

    #[test]
    fn user_agent_rewrite_never_grows_the_body() {
        let body = b"User-agent:glaneur/0.1\r\nuser agent\t*  x\0Useragent  bot (a)\nAllow: /";
        let prepared = prepare_body(body);
        assert!(prepared.len() <= body.len());
        assert_eq!(
            &prepared[..],
            &b"User-agent:glaneur\r\nuser agent\t*\0Useragent  bot\nAllow: /"[..]
        );
        // A body with nothing to rewrite is passed through untouched.
        assert!(matches!(
            prepare_body(b"User-agent: a\nAllow: /"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn hostile_bodies_do_not_panic() {
        let bodies: [&[u8]; 6] = [
            b"",
            b"\xFF\xFE\x00\x00",
            b"User-agent:",
            b"Disallow: /\xC3",
            b"User-agent: *\nDisallow: ******************************$$$$\n",
            b"\r\r\r\n\n\0\0user-agent\0",
        ];
        for body in bodies {
            let r = Robots::from_response(200, body, "glaneur");
            let _ = r.is_allowed("/a*b$?%zz%");
            let _ = r.is_allowed("");
            let _ = r.crawl_delay();
            let _ = r.sitemaps();
        }
    }

    #[test]
    fn x_robots_tag_headers() {
        let d = |v: &[&str]| x_robots_tag(v.iter().copied(), "glaneur");
        assert_eq!(d(&[]), HeaderDirectives::default());
        assert!(d(&["noindex"]).noindex && !d(&["noindex"]).nofollow);
        assert!(d(&["NoIndex, NOFOLLOW"]).nofollow);
        assert_eq!(
            d(&["none"]),
            HeaderDirectives {
                noindex: true,
                nofollow: true
            }
        );
        // Addressed to another crawler: not for us.
        assert_eq!(d(&["googlebot: noindex"]), HeaderDirectives::default());
        assert!(d(&["Glaneur: nofollow"]).nofollow);
        assert!(d(&["googlebot: noindex", "nofollow"]).nofollow);
        // A directive with a value is not a crawler name.
        assert_eq!(
            d(&["unavailable_after: 25 Jun 2010 15:00:00 PST"]),
            HeaderDirectives::default()
        );
        assert!(d(&["max-snippet: 20, noindex"]).noindex);
    }
}
