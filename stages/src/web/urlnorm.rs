//! URL canonicalisation: the key of the crawler's seen-set, and the politeness key of a server.
//!
//! **In:** a URL string as found in a page or a seed list (absolute, or relative to the page's
//! URL), or an already parsed [`url::Url`]; the list of query parameters to drop (defaults to
//! common session and tracking parameters, see [`DEFAULT_DROP_PARAMS`]); the longest canonical
//! URL accepted (the topic's `[traps] max_url_length`, default [`MAX_URL_BYTES`]).
//!
//! **Out:** one canonical `http`/`https` URL per resource, or a typed [`UrlError`] that names
//! the URL (a URL over the length limit comes with its canonical form, so that the crawl records
//! it); [`host_key`] gives `scheme://host:port`, the unit of politeness.
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
//! 7. an empty query (`?` alone, or nothing left after dropping) is removed;
//! 8. a user name and password (`http://user:pass@host/`) are replaced by the user name
//!    [`CREDENTIALS_REMOVED`]: no secret is kept or stored, and the URL stays apart from the same
//!    URL without user information (the crawler refuses to fetch it, see its network guard).
//!    Error messages quoting a URL leave its user information out too.
//!
//! Deliberately *not* done, because it can change the resource: `www.` stripping, path
//! lower-casing, `https` → `http`, trailing-slash removal, repeated percent-decoding,
//! collapsing `//` in paths.

use url::Url;

/// The longest canonical URL accepted by default, in bytes: the default of the topic's
/// `[traps] max_url_length` too (2,083, the old Internet Explorer limit, Heritrix's), one limit
/// for the parser and the crawl. Longer URLs are almost always traps or generated junk, and
/// many servers refuse them.
pub const MAX_URL_BYTES: usize = 2083;

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

/// The user name a URL's user information is replaced by (rule 8).
pub const CREDENTIALS_REMOVED: &str = "credentials-removed";

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
    /// The canonical URL is longer than the canonicaliser's limit ([`MAX_URL_BYTES`] unless
    /// [`Canonicalizer::with_max_url_length`] set another).
    #[error("URL {url:?} is {len} bytes long, more than the {max} accepted")]
    TooLong {
        /// The canonical URL, quoted (shortened).
        url: String,
        /// Its length in bytes.
        len: usize,
        /// The limit it is over.
        max: usize,
        /// The canonical URL itself, for a caller that records the refusal under it.
        canonical: Box<Url>,
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

/// Canonicalises URLs with one drop list of session and tracking parameters, and one length
/// limit.
#[derive(Debug, Clone)]
pub struct Canonicalizer {
    drop: Vec<DropPattern>,
    /// The longest canonical URL [`Canonicalizer::parse`] accepts, in bytes.
    max_url_length: usize,
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
        Canonicalizer {
            drop,
            max_url_length: MAX_URL_BYTES,
        }
    }

    /// The same canonicaliser with another length limit (the topic's `[traps]
    /// max_url_length`).
    #[must_use]
    pub fn with_max_url_length(self, max_url_length: usize) -> Canonicalizer {
        Canonicalizer {
            max_url_length,
            ..self
        }
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
        if !out.username().is_empty() || out.password().is_some() {
            // Fails only for URLs that cannot have user information (no host), which then
            // have none.
            let _ = out.set_password(None);
            let _ = out.set_username(CREDENTIALS_REMOVED);
        }
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
    /// (with the canonical URL) when the canonical URL exceeds the length limit.
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
        if len > self.max_url_length {
            return Err(UrlError::TooLong {
                url: quote(canonical.as_str()),
                len,
                max: self.max_url_length,
                canonical: Box::new(canonical),
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
    /// Parameters that must be present (or have a default).
    pub required: Vec<String>,
    /// Parameters that must be present (or have a default) with one of these values.
    pub enumerated: Vec<(String, Vec<String>)>,
    /// Parameters kept when present.
    pub optional: Vec<String>,
    /// Parameters added with this value when absent: a required or enumerated parameter
    /// with a default is never missing.
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
    /// the rule names (defaults added, and checked like given values), or why it is ignored.
    /// Names are matched exactly, values after percent-decoding.
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
        // A parameter with a default is always given: the default fills it when absent.
        let value_of = |name: &str| {
            pairs
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, value, _)| value)
                .or_else(|| {
                    self.defaults
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| v)
                })
        };
        for name in &self.required {
            if value_of(name).is_none() {
                return Err(RuleViolation::Missing(name.clone()));
            }
        }
        for (name, allowed) in &self.enumerated {
            let Some(value) = value_of(name) else {
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
    let url: &str = &without_userinfo(url);
    match url.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", url.get(..cut).unwrap_or_default()),
        None => url.to_owned(),
    }
}

/// `url` with what looks like user information (`scheme://user:pass@`) replaced by
/// [`CREDENTIALS_REMOVED`]: text between `://` and the last `@` of the first word, when it holds
/// no `/`, or a `:` before its first `/` (a password may hold a `/`).
fn without_userinfo(url: &str) -> std::borrow::Cow<'_, str> {
    let Some(start) = url.find("://").map(|i| i + 3) else {
        return url.into();
    };
    let word_end = url[start..]
        .find(char::is_whitespace)
        .map_or(url.len(), |i| start + i);
    let Some(at) = url[start..word_end].rfind('@').map(|i| start + i) else {
        return url.into();
    };
    let info = &url[start..at];
    let userinfo = match info.find('/') {
        None => true,
        Some(slash) => info[..slash].contains(':'),
    };
    if !userinfo {
        return url.into();
    }
    format!("{}{CREDENTIALS_REMOVED}{}", &url[..start], &url[at..]).into()
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
#[path = "urlnorm_tests.rs"]
mod tests;
