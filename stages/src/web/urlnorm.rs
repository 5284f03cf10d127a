//! URL canonicalisation: the key of the crawler's seen-set, and the politeness key of a server.
//!
//! **In:** a URL string as found in a page or a seed list (absolute, or relative to the page's
//! URL), or an already parsed [`url::Url`]; the list of query parameters to drop (defaults to
//! common session and tracking parameters, see [`DEFAULT_DROP_PARAMS`]).
//!
//! **Out:** one canonical `http`/`https` URL per resource, or a typed [`UrlError`] that names
//! the URL; [`host_key`] gives `scheme://host:port`, the unit of politeness.
//!
//! **Invariants:** canonicalisation is idempotent (`c(c(u)) == c(u)`); it never panics; it
//! changes only what cannot change the resource fetched, plus the deliberate drop list.
//!
//! The rules, in order:
//! 1. WHATWG parsing by the `url` crate: scheme and host lower-cased, IDNA to punycode,
//!    default port removed, `.`/`..` segments resolved, tabs and newlines removed;
//! 2. the fragment is removed (it is never sent to the server);
//! 3. percent-encoding is normalised in the path and the query: escapes of unreserved
//!    characters (`A-Z a-z 0-9 - . _ ~`) are decoded, the hex of every other escape is
//!    upper-cased (RFC 3986 §6.2.2);
//! 4. path parameters (`;name=value` in a segment) whose name is on the drop list are removed:
//!    `/cart;jsessionid=0A1B` is `/cart`;
//! 5. query parameters whose name is on the drop list are removed (case-insensitive names;
//!    a pattern ending in `*` matches every name with that prefix), as are empty parameters
//!    (`&&`, a trailing `&`), which form decoding skips anyway;
//! 6. the remaining parameters are sorted by name, stably (equal names keep their order, as
//!    `?x=1&x=2` may mean a list): one canonical URL per content (design seed 004);
//! 7. an empty query (`?` alone, or nothing left after dropping) is removed.
//!
//! Deliberately *not* done, because it can change the resource: `www.` stripping, path
//! lower-casing, `https` → `http`, trailing-slash removal, repeated percent-decoding,
//! collapsing `//` in paths.

use url::Url;

/// The longest canonical URL accepted, in bytes (longer URLs are almost always traps or
/// generated junk, and many servers refuse them).
pub const MAX_URL_BYTES: usize = 2048;

/// The default drop list: session and tracking parameters (`*` at the end = any suffix).
pub const DEFAULT_DROP_PARAMS: [&str; 11] = [
    "utm_*",
    "fbclid",
    "gclid",
    "msclkid",
    "jsessionid",
    "phpsessid",
    "sid",
    "sessionid",
    "aspsessionid*",
    "cfid",
    "cftoken",
];

/// How many characters of a URL an error message quotes.
const QUOTED_CHARS: usize = 200;

/// Why a URL string was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The WHATWG parser rejected the string (or could not resolve it against the base).
    #[error("cannot parse URL {url:?}: {reason}")]
    Invalid {
        /// The input, quoted (long inputs are shortened).
        url: String,
        /// The parser's reason.
        #[source]
        reason: url::ParseError,
    },
    /// The URL is not `http` or `https` (`mailto:`, `javascript:`, `ftp:`, …).
    #[error("unsupported scheme {scheme:?} in URL {url:?}: only http and https are crawled")]
    UnsupportedScheme {
        /// The resolved URL, quoted.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// The URL has no host to connect to (empty, or only dots).
    #[error("URL {url:?} has an empty host")]
    EmptyHost {
        /// The resolved URL, quoted.
        url: String,
    },
    /// The canonical URL is longer than [`MAX_URL_BYTES`].
    #[error("URL {url:?} is {len} bytes long, more than the {MAX_URL_BYTES} accepted")]
    TooLong {
        /// The canonical URL, quoted (shortened).
        url: String,
        /// Its length in bytes.
        len: usize,
    },
}

/// A parameter-name pattern of the drop list, lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DropPattern {
    /// The whole name, case-insensitively.
    Exact(String),
    /// Any name that starts with this, case-insensitively.
    Prefix(String),
}

impl DropPattern {
    fn matches(&self, name: &str) -> bool {
        match self {
            DropPattern::Exact(exact) => name.eq_ignore_ascii_case(exact),
            DropPattern::Prefix(prefix) => name
                .as_bytes()
                .get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes())),
        }
    }
}

/// Canonicalises URLs with one drop list of session and tracking parameters.
#[derive(Debug, Clone)]
pub struct Canonicalizer {
    drop: Vec<DropPattern>,
}

impl Default for Canonicalizer {
    /// The canonicaliser with [`DEFAULT_DROP_PARAMS`].
    fn default() -> Self {
        let patterns: Vec<String> = DEFAULT_DROP_PARAMS
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        Canonicalizer::with_drop_params(&patterns)
    }
}

impl Canonicalizer {
    /// A canonicaliser whose drop list is `patterns` (replacing the default list).
    ///
    /// Names are matched case-insensitively after percent-normalisation; a pattern ending in
    /// `*` matches every name that starts with the rest (so `*` alone drops every query
    /// parameter). Blank patterns are ignored; an empty list drops nothing.
    pub fn with_drop_params(patterns: &[String]) -> Canonicalizer {
        let drop = patterns
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .map(|p| match p.strip_suffix('*') {
                Some(prefix) => DropPattern::Prefix(prefix.to_ascii_lowercase()),
                None => DropPattern::Exact(p.to_ascii_lowercase()),
            })
            .collect();
        Canonicalizer { drop }
    }

    /// Whether a parameter of this name is dropped.
    fn drops(&self, name: &str) -> bool {
        self.drop.iter().any(|pattern| pattern.matches(name))
    }

    /// The canonical form of an already parsed URL (rules 2–7 of the module doc; rule 1 is
    /// the parse itself). A URL that is not `http`/`https` only loses its fragment.
    pub fn canonicalize(&self, url: &Url) -> Url {
        let mut out = url.clone();
        out.set_fragment(None);
        if !matches!(out.scheme(), "http" | "https") {
            return out;
        }
        let path = self.canonical_path(out.path());
        if path != out.path() {
            out.set_path(&path);
        }
        let query = out.query().map(|query| self.canonical_query(query));
        out.set_query(query.as_deref().filter(|query| !query.is_empty()));
        out
    }

    /// Parses `input` (resolved against `base` when given, as a browser resolves a link) and
    /// canonicalises it.
    ///
    /// # Errors
    /// [`UrlError::Invalid`] when the WHATWG parser rejects it, [`UrlError::UnsupportedScheme`]
    /// for anything but `http`/`https`, [`UrlError::EmptyHost`], and [`UrlError::TooLong`]
    /// when the canonical URL exceeds [`MAX_URL_BYTES`].
    pub fn parse(&self, input: &str, base: Option<&Url>) -> Result<Url, UrlError> {
        let parsed = Url::options()
            .base_url(base)
            .parse(input)
            .map_err(|reason| UrlError::Invalid {
                url: quote(input),
                reason,
            })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(UrlError::UnsupportedScheme {
                url: quote(parsed.as_str()),
                scheme: parsed.scheme().to_owned(),
            });
        }
        // The WHATWG parser refuses an empty host for http(s) but keeps a host made of dots
        // only (`http://%2e/`, `http://.../`), which names no server either.
        if parsed
            .host_str()
            .is_none_or(|host| host.trim_matches('.').is_empty())
        {
            return Err(UrlError::EmptyHost {
                url: quote(parsed.as_str()),
            });
        }
        let canonical = self.canonicalize(&parsed);
        let len = canonical.as_str().len();
        if len > MAX_URL_BYTES {
            return Err(UrlError::TooLong {
                url: quote(canonical.as_str()),
                len,
            });
        }
        Ok(canonical)
    }

    /// The path with percent-encoding normalised and dropped path parameters removed.
    fn canonical_path(&self, path: &str) -> String {
        let path = normalize_percent(path);
        let mut out = String::with_capacity(path.len());
        for (i, segment) in path.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            let mut pieces = segment.split(';');
            out.push_str(pieces.next().unwrap_or_default());
            for parameter in pieces {
                let name = parameter.split('=').next().unwrap_or_default();
                if !self.drops(name) {
                    out.push(';');
                    out.push_str(parameter);
                }
            }
        }
        out
    }

    /// The query with percent-encoding normalised, dropped and empty parameters removed and
    /// the rest stably sorted by name ("" when nothing is left).
    fn canonical_query(&self, query: &str) -> String {
        let query = normalize_percent(query);
        let mut parameters: Vec<(&str, &str)> = query
            .split('&')
            .filter(|parameter| !parameter.is_empty())
            .map(|parameter| {
                let name = parameter.split('=').next().unwrap_or_default();
                (name, parameter)
            })
            .filter(|(name, _)| !self.drops(name))
            .collect();
        // `sort_by` is stable: equal names keep their relative order.
        parameters.sort_by(|a, b| a.0.cmp(b.0));
        let kept: Vec<&str> = parameters.iter().map(|(_, parameter)| *parameter).collect();
        kept.join("&")
    }
}

/// Seed 004's mapping of a dynamic page to its content: which query parameters of one script
/// matter. Parameters the rule does not name are dropped (their influence on the content is
/// taken as negligible); a URL that breaks the rule is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamRule {
    /// Host name, lower-case (`www.example.com`).
    pub host: String,
    /// Path of the script (`/tisk.php`).
    pub path: String,
    /// Parameters that must be present.
    pub required: Vec<String>,
    /// Parameters that must be present with one of these values.
    pub enumerated: Vec<(String, Vec<String>)>,
    /// Parameters kept when present.
    pub optional: Vec<String>,
    /// Optional parameters added with this value when absent.
    pub defaults: Vec<(String, String)>,
}

/// Why a URL breaks its script's [`ParamRule`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleViolation {
    /// A required (or enumerated) parameter is absent.
    #[error("the parameter `{0}` is required")]
    Missing(String),
    /// An enumerated parameter has another value.
    #[error("`{name}={value}` is not one of the allowed values")]
    NotAllowed {
        /// Parameter name.
        name: String,
        /// The value found.
        value: String,
    },
}

impl ParamRule {
    /// Applies the rule to a canonical URL of its script: the URL with only the parameters
    /// the rule names (defaults added), or why it is ignored. Names are matched exactly,
    /// values after percent-decoding.
    pub fn apply(&self, url: &Url) -> Result<Url, RuleViolation> {
        let query = url.query().unwrap_or("");
        let pairs: Vec<(String, String, &str)> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|raw| {
                let (name, value) = raw.split_once('=').unwrap_or((raw, ""));
                (decode_component(name), decode_component(value), raw)
            })
            .collect();
        let has = |name: &str| pairs.iter().any(|(n, _, _)| n == name);
        for name in &self.required {
            if !has(name) {
                return Err(RuleViolation::Missing(name.clone()));
            }
        }
        for (name, allowed) in &self.enumerated {
            let Some((_, value, _)) = pairs.iter().find(|(n, _, _)| n == name) else {
                return Err(RuleViolation::Missing(name.clone()));
            };
            if !allowed.contains(value) {
                return Err(RuleViolation::NotAllowed {
                    name: name.clone(),
                    value: value.clone(),
                });
            }
        }
        let named = |name: &str| {
            self.required.iter().any(|n| n == name)
                || self.enumerated.iter().any(|(n, _)| n == name)
                || self.optional.iter().any(|n| n == name)
                || self.defaults.iter().any(|(n, _)| n == name)
        };
        let mut kept: Vec<String> = pairs
            .iter()
            .filter(|(name, _, _)| named(name))
            .map(|(_, _, raw)| (*raw).to_string())
            .collect();
        for (name, value) in &self.defaults {
            if !has(name) {
                kept.push(format!(
                    "{}={}",
                    url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>(),
                    url::form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>()
                ));
            }
        }
        let mut out = url.clone();
        out.set_query(Some(&kept.join("&")));
        // Sorting and percent-normalisation as for any URL (rules 3 and 6).
        Ok(Canonicalizer::with_drop_params(&[]).canonicalize(&out))
    }
}

/// Percent- and `+`-decoding of one query component, lossy on invalid UTF-8.
fn decode_component(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The rule of a URL's script, if any.
pub fn rule_for<'a>(rules: &'a [ParamRule], url: &Url) -> Option<&'a ParamRule> {
    let host = url.host_str()?;
    rules
        .iter()
        .find(|r| r.host.eq_ignore_ascii_case(host) && r.path == url.path())
}

/// The politeness key of a URL: `scheme://host:port`, the port always explicit (the
/// scheme's default when the URL has none), so `http://a.org` and `http://a.org:80` share a
/// key and `https://a.org` does not. A URL without a known port (not http/https) gets no
/// `:port`; one without a host gets an empty host.
pub fn host_key(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// RFC 3986 unreserved characters: their escapes are decoded.
const fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// The value of one ASCII hex digit.
fn hex_value(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|digit| u8::try_from(digit).ok())
}

/// Decodes escapes of unreserved characters and upper-cases the hex of the other escapes;
/// a `%` not followed by two hex digits is left alone (WHATWG keeps it as is).
fn normalize_percent(input: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = input.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let escaped = match (byte, bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&high), Some(&low)) => hex_value(high)
                .zip(hex_value(low))
                .map(|(high, low)| high * 16 + low),
            _ => None,
        };
        match escaped {
            Some(decoded) => {
                // Decoding must not create an escape that was not there: after a stray `%`
                // (or a stray `%` and one hex digit), a decoded hex digit stays encoded, or
                // `%%36%31` would become `%61` and then `a` on the next pass.
                let after_stray = match out.as_slice() {
                    [.., b'%'] => true,
                    [.., b'%', digit] => digit.is_ascii_hexdigit(),
                    _ => false,
                };
                if is_unreserved(decoded) && !(after_stray && decoded.is_ascii_hexdigit()) {
                    out.push(decoded);
                } else {
                    out.push(b'%');
                    out.push(HEX[usize::from(decoded >> 4)]);
                    out.push(HEX[usize::from(decoded & 0x0f)]);
                }
                i += 3;
            }
            None => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII triplets were replaced by ASCII, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The URL as quoted in an error message: shortened to [`QUOTED_CHARS`] characters.
fn quote(url: &str) -> String {
    match url.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", url.get(..cut).unwrap_or_default()),
        None => url.to_owned(),
    }
}

/// File extensions of formats glaneur does not harvest (it keeps HTML and plain text only):
/// images, audio, video, office and PDF documents, archives and packages, fonts, style sheets
/// and scripts. Scrapy's link extractor skips the same kinds by default.
pub const NON_TEXT_EXTENSIONS: &[&str] = &[
    "3gp", "7z", "aac", "ai", "apk", "avi", "bin", "bmp", "bz2", "css", "deb", "dmg", "doc",
    "docx", "eot", "eps", "epub", "exe", "flac", "flv", "gif", "gz", "ico", "iso", "jar", "jpeg",
    "jpg", "js", "m4a", "m4v", "mid", "midi", "mkv", "mov", "mp3", "mp4", "mpeg", "mpg", "msi",
    "odg", "odp", "ods", "odt", "oga", "ogg", "ogv", "otf", "pdf", "png", "ppt", "pptx", "ps",
    "psd", "rar", "rpm", "rtf", "svg", "tar", "tgz", "tif", "tiff", "ttf", "wav", "webm", "webp",
    "wma", "wmv", "woff", "woff2", "xls", "xlsx", "xz", "zip",
];

/// The extension of the URL's file name (last path segment, query ignored) when it names a
/// format of [`NON_TEXT_EXTENSIONS`], lower-cased: `/cours.PDF` gives `pdf`,
/// `/get.php?file=a.pdf` gives nothing (the script decides what it sends).
pub fn non_text_extension(url: &Url) -> Option<&'static str> {
    let file = url.path_segments()?.next_back()?;
    let (_, ext) = file.rsplit_once('.')?;
    NON_TEXT_EXTENSIONS
        .iter()
        .find(|e| ext.eq_ignore_ascii_case(e))
        .copied()
}

#[cfg(test)]
mod tests {

    #[test]
    fn non_text_files_are_known_by_their_extension() {
        let ext = |u: &str| non_text_extension(&Url::parse(u).expect("test URL"));
        assert_eq!(ext("http://a.test/cours.pdf"), Some("pdf"));
        assert_eq!(ext("http://a.test/img/Logo.PNG?v=2"), Some("png"));
        assert_eq!(ext("http://a.test/a/archive.tar.gz"), Some("gz"));
        assert_eq!(ext("http://a.test/get.php?file=a.pdf"), None);
        assert_eq!(ext("http://a.test/page.html"), None);
        assert_eq!(ext("http://a.test/notes.txt"), None);
        assert_eq!(ext("http://a.test/pdf/"), None);
        assert_eq!(ext("http://a.test/"), None);
        assert_eq!(ext("http://a.test/v1.2"), None);
        let mut sorted = NON_TEXT_EXTENSIONS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, NON_TEXT_EXTENSIONS, "kept sorted for reading");
    }
    use super::*;

    fn canon(input: &str) -> String {
        Canonicalizer::default()
            .parse(input, None)
            .map(String::from)
            .unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    #[test]
    fn whatwg_parse_lowercases_punycodes_and_resolves() {
        assert_eq!(
            canon("HTTPS://Example.ORG:443/a/../b/./c"),
            "https://example.org/b/c"
        );
        assert_eq!(
            canon("http://Bücher.example:80"),
            "http://xn--bcher-kva.example/"
        );
        assert_eq!(
            canon("http://example.org:8080/"),
            "http://example.org:8080/"
        );
        assert_eq!(
            canon(" http://ex\tample.org/a\nb "),
            "http://example.org/ab"
        );
    }

    #[test]
    fn relative_links_resolve_against_the_base() {
        let c = Canonicalizer::default();
        let base = Url::parse("https://example.org/dir/page.html?x=1#top").ok();
        let got = c
            .parse("../other?b=2&a=1#frag", base.as_ref())
            .map(String::from);
        assert_eq!(got, Ok("https://example.org/other?a=1&b=2".to_owned()));
        let got = c
            .parse("//cdn.example.net/x", base.as_ref())
            .map(String::from);
        assert_eq!(got, Ok("https://cdn.example.net/x".to_owned()));
    }

    #[test]
    fn fragment_is_removed() {
        assert_eq!(
            canon("http://example.org/p#section-2"),
            "http://example.org/p"
        );
        assert_eq!(
            canon("http://example.org/p?q=1#"),
            "http://example.org/p?q=1"
        );
    }

    #[test]
    fn percent_encoding_is_normalised_in_path_and_query() {
        assert_eq!(
            canon("http://e.org/%7euser/%41%2d%5F"),
            "http://e.org/~user/A-_"
        );
        assert_eq!(
            canon("http://e.org/a%2fb%c3%a9"),
            "http://e.org/a%2Fb%C3%A9"
        );
        assert_eq!(
            canon("http://e.org/?q=%7e%2b%3d"),
            "http://e.org/?q=~%2B%3D"
        );
        // Non-ASCII is encoded by the parser, then upper-cased like any escape.
        assert_eq!(
            canon("http://e.org/café?é"),
            "http://e.org/caf%C3%A9?%C3%A9"
        );
        // A stray `%` is not an escape.
        assert_eq!(canon("http://e.org/100%?x=%zz"), "http://e.org/100%?x=%zz");
        // Decoding is done once: `%2541` is `%41` literally, not `A`.
        assert_eq!(canon("http://e.org/%2541"), "http://e.org/%2541");
        // Nor does decoding assemble a new escape behind a stray `%`.
        assert_eq!(
            canon("http://e.org/%%36%31?%%36%31"),
            "http://e.org/%%361?%%361"
        );
        assert_eq!(canon("http://e.org/%%361%6"), "http://e.org/%%361%6");
        assert_eq!(canon("http://e.org/%6%31"), "http://e.org/%6%31");
        assert_eq!(canon("http://e.org/%%37A"), "http://e.org/%%37A");
    }

    #[test]
    fn query_parameters_are_sorted_stably_by_name() {
        assert_eq!(
            canon("http://e.org/s?q=b&page=2&q=a&Q=c"),
            "http://e.org/s?Q=c&page=2&q=b&q=a"
        );
        assert_eq!(canon("http://e.org/s?b&a=&a"), "http://e.org/s?a=&a&b");
    }

    #[test]
    fn empty_query_and_empty_parameters_are_removed() {
        assert_eq!(canon("http://e.org/p?"), "http://e.org/p");
        assert_eq!(canon("http://e.org/p?&&"), "http://e.org/p");
        assert_eq!(canon("http://e.org/p?&b=1&&a=2&"), "http://e.org/p?a=2&b=1");
    }

    #[test]
    fn session_and_tracking_parameters_are_dropped() {
        assert_eq!(
            canon(
                "http://e.org/p?id=7&utm_source=x&UTM_Medium=y&fbclid=1&gclid=2&msclkid=3\
                 &JSESSIONID=4&PHPSESSID=5&sid=6&sessionid=7&ASPSESSIONIDQQ=8&CFID=9&cftoken=10"
            ),
            "http://e.org/p?id=7"
        );
        // Only the named parameters go; similar names stay.
        assert_eq!(
            canon("http://e.org/p?sidebar=1&utm=2"),
            "http://e.org/p?sidebar=1&utm=2"
        );
        // Everything dropped: no `?` left.
        assert_eq!(canon("http://e.org/p?utm_campaign=z"), "http://e.org/p");
        // Names are compared after percent-normalisation.
        assert_eq!(
            canon("http://e.org/p?utm%5Fsource=x&a=1"),
            "http://e.org/p?a=1"
        );
    }

    #[test]
    fn session_path_parameters_are_dropped() {
        assert_eq!(
            canon("http://e.org/shop/cart.do;jsessionid=0A1B2C?item=3"),
            "http://e.org/shop/cart.do?item=3"
        );
        assert_eq!(canon("http://e.org/a;JSessionID=x/b"), "http://e.org/a/b");
        assert_eq!(
            canon("http://e.org/a;v=2;sid=9;w=3"),
            "http://e.org/a;v=2;w=3"
        );
        assert_eq!(canon("http://e.org/map;lat=50"), "http://e.org/map;lat=50");
    }

    #[test]
    fn drop_list_is_configurable() {
        let none = Canonicalizer::with_drop_params(&[]);
        let got = none.parse("http://e.org/a;jsessionid=1?utm_source=x", None);
        assert_eq!(
            got.map(String::from),
            Ok("http://e.org/a;jsessionid=1?utm_source=x".to_owned())
        );
        let custom = Canonicalizer::with_drop_params(&["Ref".to_owned(), " tr_* ".to_owned()]);
        let got = custom.parse("http://e.org/?ref=1&tr_a=2&tr=3&utm_source=4", None);
        assert_eq!(
            got.map(String::from),
            Ok("http://e.org/?tr=3&utm_source=4".to_owned())
        );
    }

    #[test]
    fn only_http_and_https_are_accepted() {
        let c = Canonicalizer::default();
        for input in [
            "mailto:a@b.org",
            "javascript:void(0)",
            "ftp://e.org/f",
            "file:///etc",
        ] {
            assert!(
                matches!(
                    c.parse(input, None),
                    Err(UrlError::UnsupportedScheme { .. })
                ),
                "{input}"
            );
        }
        assert!(matches!(
            c.parse("/relative", None),
            Err(UrlError::Invalid { .. })
        ));
        assert!(matches!(
            c.parse("http://", None),
            Err(UrlError::Invalid { .. })
        ));
        assert!(matches!(
            c.parse("http://a b/", None),
            Err(UrlError::Invalid { .. })
        ));
        for input in ["http://./a", "http://.../", "https://%2e%2e/"] {
            assert!(
                matches!(c.parse(input, None), Err(UrlError::EmptyHost { .. })),
                "{input}"
            );
        }
    }

    #[test]
    fn long_urls_are_rejected() {
        let c = Canonicalizer::default();
        let head = "http://e.org/";
        let fits = format!("{head}{}", "a".repeat(MAX_URL_BYTES - head.len()));
        assert_eq!(
            c.parse(&fits, None).map(|u| u.as_str().len()),
            Ok(MAX_URL_BYTES)
        );
        let long = format!("{fits}b");
        let err = c.parse(&long, None);
        assert!(matches!(err, Err(UrlError::TooLong { len, .. }) if len == MAX_URL_BYTES + 1));
        // Judged on the canonical form: tracking junk that is dropped does not count.
        let junk = format!("{head}?utm_source={}", "x".repeat(3000));
        assert_eq!(c.parse(&junk, None).map(String::from), Ok(head.to_owned()));
    }

    #[test]
    fn error_messages_name_the_url() {
        let c = Canonicalizer::default();
        let msg = |input: &str| c.parse(input, None).map_err(|e| e.to_string()).err();
        assert!(msg("mailto:x@y.org").is_some_and(|m| m.contains("mailto:x@y.org")));
        assert!(msg("http://a b/").is_some_and(|m| m.contains("http://a b/")));
        let long = format!("http://e.org/{}", "z".repeat(5000));
        let m = msg(&long).unwrap_or_default();
        assert!(m.contains("http://e.org/zzz") && m.len() < 400, "{m}");
    }

    #[test]
    fn canonicalize_is_idempotent_and_leaves_other_schemes_alone() {
        let c = Canonicalizer::default();
        for input in [
            "http://e.org/a;jsessionid=1/%7e?b=%aa&a=1&&utm_x=2#f",
            "https://[::1]:8443/%2e%2E%2e/x?z&y",
            "http://e.org/a/%2e%2e%2e/b?%41=%42",
        ] {
            let once = c.parse(input, None).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(c.canonicalize(&once), once, "{input}");
        }
        let mail = Url::parse("mailto:a@b.org?subject=x&a=1#f").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            c.canonicalize(&mail).as_str(),
            "mailto:a@b.org?subject=x&a=1"
        );
    }

    #[test]
    fn host_key_always_names_the_port() {
        let key = |s: &str| Url::parse(s).map(|u| host_key(&u)).unwrap_or_default();
        assert_eq!(key("http://Example.org/a"), "http://example.org:80");
        assert_eq!(key("http://example.org:80/b"), "http://example.org:80");
        assert_eq!(key("https://example.org/"), "https://example.org:443");
        assert_eq!(key("http://example.org:8080/"), "http://example.org:8080");
        assert_eq!(key("http://[::1]/"), "http://[::1]:80");
        assert_eq!(key("foo://h/"), "foo://h");
    }

    #[test]
    fn seed_004_parameter_rules() {
        // The seed's example: `clanek` required, `jazyk` optional with default `cz`,
        // `uzivatel` not listed (dropped).
        let rule = ParamRule {
            host: "example.com".into(),
            path: "/tisk.php".into(),
            required: vec!["clanek".into()],
            defaults: vec![("jazyk".into(), "cz".into())],
            ..ParamRule::default()
        };
        let c = Canonicalizer::default();
        let u = |s: &str| c.parse(s, None).unwrap();
        let apply = |s: &str| rule.apply(&u(s)).map(|u| u.to_string());
        assert_eq!(
            apply("http://example.com/tisk.php?jazyk=cz&clanek=123&uzivatel=987"),
            Ok("http://example.com/tisk.php?clanek=123&jazyk=cz".into())
        );
        // The default is added, so both forms are one page.
        assert_eq!(
            apply("http://example.com/tisk.php?uzivatel=5&clanek=123"),
            Ok("http://example.com/tisk.php?clanek=123&jazyk=cz".into())
        );
        assert_eq!(
            apply("http://example.com/tisk.php?jazyk=en"),
            Err(RuleViolation::Missing("clanek".into()))
        );
        let enumerated = ParamRule {
            enumerated: vec![("jazyk".into(), vec!["cz".into(), "en".into()])],
            ..rule.clone()
        };
        assert_eq!(
            enumerated
                .apply(&u("http://example.com/tisk.php?clanek=1&jazyk=de"))
                .map(|u| u.to_string()),
            Err(RuleViolation::NotAllowed {
                name: "jazyk".into(),
                value: "de".into()
            })
        );
        let rules = [rule];
        assert!(rule_for(&rules, &u("http://EXAMPLE.com/tisk.php?x=1")).is_some());
        assert!(rule_for(&rules, &u("http://example.com/jiny.php?x=1")).is_none());
    }
}
