//! Hit URLs as the engines write them: click-tracking wrappers removed offline, archive prefixes
//! stripped, and the links that point back into the engine itself recognised.
//!
//! **In:** an `href` found on a result page. **Out:** the target URL ([`unwrap_redirect`]), or
//! whether a link is the engine's own plumbing (cache, "similar", other searches).
//!
//! **Invariants:** at most [`MAX_UNWRAP`] wrappers are peeled, so a crafted URL cannot loop;
//! decoding is total (bad percent or base64 input leaves the URL as it was).

use url::Url;

use super::Engine;

/// Whether `host` is `domain` or one of its subdomains.
pub(super) fn domain_is(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// The engine a host name belongs to.
pub(super) fn engine_for_host(host: &str) -> Option<Engine> {
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
pub(super) fn starts_with_http(s: &str) -> bool {
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
pub(super) fn strip_archive(url: &str) -> Option<String> {
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
pub(super) fn percent_decode(s: &str) -> String {
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
pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
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
pub(super) fn is_engine_plumbing(url: &Url, page_engine: Engine) -> bool {
    let Some(host) = url.host_str().map(|h| h.to_ascii_lowercase()) else {
        return true;
    };
    let path = url.path();
    // Ad networks and the engines' page caches (Google's `webcache.googleusercontent.com`,
    // Bing's and Yahoo's `cc.bingj.com`).
    const AD_OR_CACHE_DOMAINS: [&str; 7] = [
        "overture.com",
        // Microsoft adCenter's clicks (`<n>.r.msn.com`), the ads of Yahoo and Bing about 2011.
        "r.msn.com",
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
                || starts(&["/bin/search", "/bin/query"])
                // Its searches under every property (`movies.yahoo.com/mv/search`), not a
                // news story whose name starts with "search".
                || path.split('/').any(|s| s == "search" || s.starts_with("search;"))
        }
        Some(Engine::Qwant | Engine::Ecosia | Engine::DuckDuckGo | Engine::Ask | Engine::Brave) => {
            true
        }
        Some(Engine::Baidu) => {
            // `www.baidu.com/link?url=` is the (opaque) result redirect; other Baidu sites
            // (baike, zhidao, wenku) are genuine results, but not its page snapshots
            // (`cache.baidu.com`) nor its ad clicks (`ma.baidu.com`).
            (host == "www.baidu.com" || host == "baidu.com" || host == "m.baidu.com")
                && path != "/link"
                || domain_is(&host, "cache.baidu.com")
                || domain_is(&host, "ma.baidu.com")
        }
        // Like Bing, Yandex's own links on its result pages are searches, help and trackers.
        Some(Engine::Yandex) => true,
    }
}
