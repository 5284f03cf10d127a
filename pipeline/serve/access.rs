//! Who may drive `glaneur serve`: the checks every request passes before its route.
//!
//! **In:** a request's `Host`, `Origin`, `Sec-Fetch-*` and `Cookie` headers, its method and
//! query; the address the server is bound to, the names given with `--allow-host`, the token.
//! **Out:** the request passed on, or refused with a page that names the header at fault;
//! the security headers on every response.
//!
//! **Invariants:**
//! - *DNS rebinding*: a request whose `Host` is not `localhost`, a `*.localhost` name, an IP
//!   address this server answers on, or a name given with `--allow-host` is refused (421)
//!   before anything is read: a page of another site whose name was made to resolve to this
//!   machine sends its own name, which no attacker can make one of these;
//! - *cross-site requests*: a state change (any method but GET, HEAD and OPTIONS) carrying an
//!   `Origin` other than this server's, `Origin: null`, or `Sec-Fetch-Site` other than
//!   `same-origin`/`none` is refused (403); so is a GET that another site's page makes in the
//!   background (an image, a script, a `fetch`, a frame: `Sec-Fetch-Site: cross-site` or
//!   `same-site` without a top-level navigation), and so is a navigation from another site to
//!   anything but the home page (a link still opens glaneur, but a page cannot make it run a
//!   query or read a document a click at a time). Clients that send neither header (curl,
//!   scripts) are not browsers driven by a page and pass;
//! - *beyond this machine* (bound to a non-loopback address): every request carries the token
//!   printed at start (`?token=` once, then a `SameSite=Strict` cookie);
//! - every response forbids framing and content sniffing and keeps its referrer on this site.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};

use super::App;

/// What the access checks need to know about the server.
#[derive(Debug, Clone)]
pub(crate) struct AccessRules {
    /// The address the server listens on.
    pub bound: IpAddr,
    /// Host names given with `--allow-host` (lower case, without port).
    pub hosts: Vec<String>,
    /// Required on every request when the server listens beyond this machine.
    pub token: Option<String>,
}

impl AccessRules {
    /// Whether `Host: value` names this server: see the module's invariants.
    pub(crate) fn host_allowed(&self, value: &str) -> bool {
        let Some(name) = host_name(value) else {
            return false;
        };
        if let Some(ip) = parse_ip(&name) {
            return ip.is_loopback() || ip == self.bound || self.bound.is_unspecified();
        }
        name == "localhost"
            || name.ends_with(".localhost")
            || self
                .hosts
                .iter()
                .any(|h| h.trim_end_matches('.').eq_ignore_ascii_case(&name))
    }
}

/// The host part of a `Host` header value, lower case, without the port and a final dot; None
/// when it is not a host name or address.
fn host_name(value: &str) -> Option<String> {
    let value = value.trim();
    let host = if let Some(rest) = value.strip_prefix('[') {
        // [v6]:port
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        format!("[{inside}]")
    } else {
        match value.rsplit_once(':') {
            Some((host, port)) if is_port(port) => host.to_string(),
            Some(_) => return None,
            None => value.to_string(),
        }
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let plain = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '[' | ']' | ':'));
    plain.then_some(host)
}

fn is_port(port: &str) -> bool {
    !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())
}

/// An IP address written as a host (`127.0.0.1`, `[::1]`).
fn parse_ip(name: &str) -> Option<IpAddr> {
    // Brackets hold an IPv6 address and nothing else (`[127.0.0.1]` is no host).
    match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6),
        None => name.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4),
    }
}

/// Why a request from a browser is refused as cross-site, if it is.
pub(crate) fn cross_site(
    method: &Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    host: &str,
) -> Option<String> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let site = text("sec-fetch-site");
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if safe {
        let Some(s @ ("cross-site" | "same-site")) = site else {
            return None;
        };
        // A page of another site may link to the home page (a top-level navigation, with the
        // token when there is one), and to nothing else: not load our pages in the background
        // or in a frame, not prefetch them, not open a query or a document a click at a time.
        let navigation = text("sec-fetch-mode") == Some("navigate")
            && matches!(text("sec-fetch-dest"), None | Some("document"))
            && !headers.contains_key("sec-purpose")
            && !headers.contains_key("purpose");
        let home = uri.path() == "/"
            && uri
                .query()
                .is_none_or(|q| q.split('&').all(|kv| kv.starts_with("token=")));
        return match (navigation, home) {
            (true, true) => None,
            (true, false) => Some(format!(
                "a page of another site opened {} (Sec-Fetch-Site: {s}): from another site, \
                 only the home page opens",
                uri.path()
            )),
            (false, _) => Some(format!(
                "a page of another site asked for this in the background (Sec-Fetch-Site: {s}, \
                 Sec-Fetch-Dest: {})",
                text("sec-fetch-dest").unwrap_or("?")
            )),
        };
    }
    if let Some(s) = site
        && !matches!(s, "same-origin" | "none")
    {
        return Some(format!(
            "a state change sent from another site (Sec-Fetch-Site: {s})"
        ));
    }
    match text("origin") {
        None if headers.contains_key(header::ORIGIN) => {
            Some("a state change with an unreadable Origin header".to_string())
        }
        None => None,
        Some(origin) => {
            let ours = origin
                .strip_prefix("http://")
                .is_some_and(|rest| rest.eq_ignore_ascii_case(host.trim()));
            (!ours).then(|| {
                format!(
                    "a state change sent from another site (Origin: {origin}; this server is \
                     http://{host})"
                )
            })
        }
    }
}

/// The token check: `?token=` sets the cookie, the cookie is checked.
fn token_state(token: &str, request: &Request) -> Option<bool> {
    let in_cookie = request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|kv| kv.trim() == format!("glaneur_token={token}"));
    if in_cookie {
        return Some(false);
    }
    let in_query = request
        .uri()
        .query()
        .is_some_and(|q| q.split('&').any(|kv| kv == format!("token={token}")));
    in_query.then_some(true)
}

fn refusal(status: StatusCode, message: &str) -> Response {
    let body = super::html::page(
        "Refused",
        &format!(
            "<h1>Refused</h1><p class=\"error\">{}</p>",
            super::html::escape(message)
        ),
    );
    (status, Html(body)).into_response()
}

/// The middleware: Host, cross-site and token checks, then the route, then the headers.
pub(crate) async fn check(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let rules = &app.access;
    // One Host header (RFC 9112 §3.2: several are a bad request, whichever a proxy would read).
    if request.headers().get_all(header::HOST).iter().count() > 1 {
        return refusal(
            StatusCode::BAD_REQUEST,
            "glaneur serve refused a request with several Host headers",
        );
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()))
        .unwrap_or_default();
    if !rules.host_allowed(&host) {
        tracing::warn!("glaneur serve: refused a request for Host `{host}`");
        return refusal(
            StatusCode::MISDIRECTED_REQUEST,
            &format!(
                "glaneur serve does not answer to the name `{host}`: it answers to localhost, \
                 its IP addresses and the names given with --allow-host (a page of another \
                 site may have made its own name point here)"
            ),
        );
    }
    if let Some(why) = cross_site(request.method(), request.uri(), request.headers(), &host) {
        tracing::warn!(
            "glaneur serve: refused {} {}: {why}",
            request.method(),
            request.uri().path()
        );
        return refusal(
            StatusCode::FORBIDDEN,
            &format!("glaneur serve refused this request: {why}. Use its own pages."),
        );
    }
    let set_cookie = match &rules.token {
        None => false,
        Some(token) => match token_state(token, &request) {
            Some(set) => set,
            None => {
                return refusal(
                    StatusCode::FORBIDDEN,
                    "open the address with the token glaneur serve printed when it started",
                );
            }
        },
    };
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if set_cookie
        && let Some(token) = &rules.token
        && let Ok(cookie) =
            format!("glaneur_token={token}; Path=/; HttpOnly; SameSite=Strict").parse()
    {
        headers.insert(header::SET_COOKIE, cookie);
    }
    for (name, value) in [
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (
            header::HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(bound: &str, hosts: &[&str]) -> AccessRules {
        AccessRules {
            bound: bound.parse().unwrap(),
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            token: None,
        }
    }

    #[test]
    fn only_this_machines_names_and_addresses_are_served() {
        let local = rules("127.0.0.1", &[]);
        for ok in [
            "127.0.0.1:8040",
            "localhost:8040",
            "LOCALHOST",
            "app.localhost:1",
            "[::1]:8040",
            "127.0.0.2",
            "localhost.",
        ] {
            assert!(local.host_allowed(ok), "{ok}");
        }
        for refused in [
            "evil.example:8040",
            "localhost.evil.example",
            "127.0.0.1.nip.io:8040",
            "10.0.0.5:8040",
            "",
            "127.0.0.1:80:80",
            "local host",
            "[::1",
            "[127.0.0.1]",
            "[localhost]:8040",
            "::1",
        ] {
            assert!(!local.host_allowed(refused), "{refused}");
        }
        let lan = rules("192.168.1.5", &["Atelier.lan"]);
        assert!(lan.host_allowed("192.168.1.5:8040"));
        assert!(lan.host_allowed("atelier.lan:8040"));
        assert!(!lan.host_allowed("192.168.1.6:8040"));
        assert!(!lan.host_allowed("other.lan"));
        let any = rules("0.0.0.0", &[]);
        assert!(any.host_allowed("192.168.1.6:8040"));
        assert!(!any.host_allowed("evil.example"));
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    fn cross_site(method: &Method, headers: &HeaderMap, host: &str) -> Option<String> {
        super::cross_site(method, &"/".parse().unwrap(), headers, host)
    }

    #[test]
    fn state_changes_from_other_sites_are_refused() {
        let host = "127.0.0.1:8040";
        let post = Method::POST;
        assert!(cross_site(&post, &headers(&[]), host).is_none());
        assert!(
            cross_site(
                &post,
                &headers(&[
                    ("origin", "http://127.0.0.1:8040"),
                    ("sec-fetch-site", "same-origin")
                ]),
                host
            )
            .is_none()
        );
        for bad in [
            headers(&[("origin", "http://evil.example")]),
            headers(&[("origin", "null")]),
            headers(&[("origin", "http://127.0.0.1:9999")]),
            headers(&[("origin", "https://127.0.0.1:8040")]),
            headers(&[("sec-fetch-site", "cross-site")]),
            headers(&[
                ("sec-fetch-site", "same-site"),
                ("origin", "http://127.0.0.1:8040"),
            ]),
        ] {
            assert!(cross_site(&post, &bad, host).is_some(), "{bad:?}");
            // Whatever the route: a run started or stopped, a topic or a subcorpus written.
            for target in [
                "/runs/demo/start",
                "/runs/demo/stop",
                "/topics/new",
                "/runs/demo/subcorpora",
                "/runs/demo/subcorpora/debian/delete",
            ] {
                let uri = target.parse().unwrap();
                assert!(
                    super::cross_site(&post, &uri, &bad, host).is_some(),
                    "{target} {bad:?}"
                );
            }
        }
    }

    #[test]
    fn other_sites_may_link_here_but_not_load_in_the_background() {
        let host = "127.0.0.1:8040";
        let get = Method::GET;
        let link = headers(&[
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-mode", "navigate"),
            ("sec-fetch-dest", "document"),
        ]);
        assert!(cross_site(&get, &link, host).is_none());
        let image = headers(&[
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-mode", "no-cors"),
            ("sec-fetch-dest", "image"),
        ]);
        assert!(cross_site(&get, &image, host).is_some());
        let frame = headers(&[
            ("sec-fetch-site", "same-site"),
            ("sec-fetch-mode", "navigate"),
            ("sec-fetch-dest", "iframe"),
        ]);
        assert!(cross_site(&get, &frame, host).is_some());
        let own = headers(&[
            ("sec-fetch-site", "same-origin"),
            ("sec-fetch-dest", "empty"),
        ]);
        assert!(cross_site(&get, &own, host).is_none());
        // Only the home page: not a query, a document or a run's page a click at a time.
        for target in [
            "/runs/demo/corpus?cql=%5B%5D",
            "/runs/demo/kwic?cql=%5B%5D&format=csv",
            "/runs/demo/freq?by=host",
            "/runs/demo/sketch?lemma=graphe&format=tsv",
            "/runs/demo/subcorpora",
            "/runs/demo/doc/d000001",
            "/runs/demo",
            "/?page=2",
        ] {
            let uri = target.parse().unwrap();
            assert!(
                super::cross_site(&get, &uri, &link, host).is_some(),
                "{target}"
            );
        }
        let with_token = "/?token=abc".parse().unwrap();
        assert!(super::cross_site(&get, &with_token, &link, host).is_none());
        // Nor a prefetch.
        let mut prefetch = link.clone();
        prefetch.insert("sec-purpose", HeaderValue::from_static("prefetch"));
        assert!(cross_site(&get, &prefetch, host).is_some());
    }
}
