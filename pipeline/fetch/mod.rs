//! Getting the bytes of a URL: live over HTTP, or replayed from a recorded web (WARC).
//!
//! **In:** a canonical URL. **Out:** a [`Response`] with the status, headers, the body (capped)
//! and the exact blocks that go into the run's WARC file, or a [`Failure`] with a reason code.
//!
//! **Invariants:**
//! - redirects are never followed here: a 3xx is a response like any other, and the crawl loop
//!   queues its target as a new URL, so robots.txt, scope, the seen set and politeness apply
//!   to every hop;
//! - bodies are read in chunks and cut at `max_body_bytes` (the response says it was cut);
//! - the body of a content type glaneur does not harvest (images, PDF, ...) is not downloaded;
//! - gzip and deflate are accepted (less load on the servers); the WARC stores the body as
//!   the server sent it, compressed, and [`Response::body`] is the decompressed body, cut at
//!   `max_body_bytes` too, and refused when it inflates more than [`MAX_INFLATION`] times (a
//!   decompression bomb);
//! - the replay fetcher answers `404` for a URL that is not in the recording, as a live server
//!   would for a dead link, and marks it with the `x-glaneur-replay: missing` header.

mod http;
pub mod hub;
mod replay;

pub use http::{HttpFetcher, bare_request, request_target};
pub use replay::Replay;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::ground::outcome::Reason;
use crate::warc::Response;

/// Largest ratio of decompressed to compressed size accepted for a body over 1 MiB. HTML
/// compresses 5–15 times; deflate cannot exceed about 1,032 times, which only crafted bodies
/// approach.
pub const MAX_INFLATION: usize = 100;

/// Content types whose bodies glaneur downloads: HTML and plain text (seed 001), and the XML
/// and gzip types sitemaps and feeds come in (the crawl reads those as lists of URLs, never as
/// documents; any other XML is recorded as `content-type`).
pub fn is_harvested_type(content_type: Option<&str>) -> bool {
    let Some(ct) = content_type else {
        // No header: sniffing decides later; download it.
        return true;
    };
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "text/html" | "application/xhtml+xml" | "text/plain" | ""
    ) || is_listing_type(&essence)
}

/// The sitemap protocol's size limit (uncompressed), which a body in a sitemap's or feed's
/// content type may reach whatever `[crawl] max_body_bytes` (5 MiB by default: a full sitemap
/// of 50,000 URLs is about 5 MB, and would be cut).
pub const LISTING_MAX_BYTES: u64 = 50 * 1024 * 1024;

/// The body cap for a response of this content type: `max_body_bytes`, or up to
/// [`LISTING_MAX_BYTES`] for the types sitemaps and feeds come in.
pub fn body_cap(content_type: Option<&str>, max_body_bytes: u64) -> u64 {
    let essence = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|e| e.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if is_listing_type(&essence) {
        max_body_bytes.max(LISTING_MAX_BYTES)
    } else {
        max_body_bytes
    }
}

/// Content types (lower-case essence) a sitemap or a feed comes in.
pub fn is_listing_type(essence: &str) -> bool {
    matches!(
        essence,
        "application/xml"
            | "text/xml"
            | "application/rss+xml"
            | "application/atom+xml"
            | "application/rdf+xml"
            | "application/gzip"
            | "application/x-gzip"
    )
}

/// Why a fetch produced no response.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Reason code recorded in `crawl.sqlite`: `timeout`, `network-error` (both may be retried),
    /// `decompression-bomb`, `too-large`, `internal-error`.
    pub reason: Reason,
    /// What happened, for a human.
    pub detail: String,
    /// Time spent before giving up.
    pub elapsed: Duration,
}

/// The key under which a batch shares responses between topics (see
/// [`Fetcher::sharing_key`]): from a recording or the network, private addresses allowed,
/// body size limit.
pub fn sharing_key(replay: bool, allow_private: bool, max_body_bytes: u64) -> String {
    format!(
        "{} {} {max_body_bytes}",
        if replay { "replay" } else { "live" },
        if allow_private { "private" } else { "public" }
    )
}

/// Where responses come from.
#[derive(Clone)]
pub enum Fetcher {
    /// The live web (through a proxy when asked).
    Http(Arc<HttpFetcher>),
    /// A recorded web.
    Replay(Arc<Replay>),
    /// A topic's own fetcher inside a batch: its requests go through the batch's hub, which
    /// asks each URL once and each server one topic at a time (`crate::fetch::hub`).
    Shared(Arc<crate::fetch::hub::Member>),
}

/// Validators of a stored copy, sent back to make a request conditional (RFC 9110 §13).
#[derive(Debug, Clone, Default)]
pub struct Validators {
    /// `ETag` of the stored copy → `If-None-Match`.
    pub etag: Option<String>,
    /// `Last-Modified` of the stored copy → `If-Modified-Since`.
    pub last_modified: Option<String>,
}

impl Fetcher {
    /// Fetches `url`.
    pub async fn fetch(&self, url: &url::Url) -> Result<Response, Failure> {
        self.fetch_if_changed(url, &Validators::default()).await
    }

    /// Fetches `url`, conditionally when validators are given: a server that supports them
    /// answers `304 Not Modified` without a body when the stored copy is still current. (A
    /// recording has no newer copy: it answers as for [`Fetcher::fetch`].)
    pub async fn fetch_if_changed(
        &self,
        url: &url::Url,
        validators: &Validators,
    ) -> Result<Response, Failure> {
        match self {
            Fetcher::Http(http) => http.fetch(url, validators).await,
            Fetcher::Replay(replay) => Ok(replay.fetch(url)),
            Fetcher::Shared(member) => {
                Box::pin(member.hub.fetch(&member.own, url, validators)).await
            }
        }
    }

    /// What must be alike for two topics of a batch to share this fetcher's responses: where
    /// they come from (the network or a recording), whether private addresses may be reached,
    /// and the body size limit. No topic is handed a page its own fetcher would have refused,
    /// cut or recorded elsewhere ([`sharing_key`]).
    pub fn sharing_key(&self) -> String {
        match self {
            Fetcher::Http(http) => sharing_key(false, http.allow_private, http.max_body_bytes),
            Fetcher::Replay(replay) => sharing_key(true, true, replay.max_body_bytes),
            Fetcher::Shared(member) => member.own.sharing_key(),
        }
    }

    /// Whether responses come from a recording (no server to be polite to).
    pub fn is_replay(&self) -> bool {
        match self {
            Fetcher::Replay(_) => true,
            Fetcher::Http(_) => false,
            Fetcher::Shared(member) => member.own.is_replay(),
        }
    }
}

/// How long an idle keep-alive connection is kept for the next request to its server. An
/// idle HTTP/1.1 connection holds about 20 KB (hyper's read and write buffers, its task), and a
/// crawl over 10,000 servers that waits its politeness delay between requests would otherwise
/// keep one per server for reqwest's default 90 s: 200 MB, more than its frontier of a million
/// URLs. 5 s is Apache's `KeepAliveTimeout`: a server that closes earlier than we do makes the
/// next request on the connection fail, so a longer wait would buy little anyway; a server
/// asked again within 5 s (delay 0–4 s, the usual case) keeps its connection.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// The HTTP client of every request glaneur sends (crawl and search APIs): our User-Agent,
/// no redirects followed, timeouts, and `proxy` when given (it then replaces the
/// environment's `*_PROXY` variables). At most `idle_per_host` idle connections are kept per
/// server: as many as requests may be in flight to it (`[politeness] connections_per_host`),
/// since a connection closed when its request ends is opened again for the next one (a TCP
/// handshake on both sides, for every request beyond the kept ones).
///
/// With `guard`, host names are resolved by [`crate::ground::guard::GuardedResolver`]: no connection
/// goes to an address that is not on the public internet.
pub fn http_client(
    user_agent: &str,
    proxy: Option<&str>,
    timeout: Duration,
    idle_per_host: usize,
    guard: bool,
) -> anyhow::Result<reqwest::Client> {
    // reqwest is built without a default TLS crypto provider (ring is much cheaper to build
    // than aws-lc); building a client without one installed would panic. A second call
    // returns Err, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .user_agent(user_agent)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .read_timeout(timeout)
        .timeout(timeout)
        .pool_max_idle_per_host(idle_per_host.max(1))
        .pool_idle_timeout(POOL_IDLE_TIMEOUT);
    if guard {
        // The proxies' own names are the user's choice (often `localhost` or an intranet
        // name): they resolve freely. Behind a proxy the proxy resolves the crawled names, so
        // only the literal checks of `guard::check_url` apply there.
        let mut proxies: Vec<&str> = proxy.into_iter().collect();
        let from_env: Vec<String> = PROXY_VARIABLES
            .iter()
            .filter_map(|var| std::env::var(var).ok())
            .collect();
        proxies.extend(from_env.iter().map(String::as_str));
        builder = builder.dns_resolver(crate::ground::guard::GuardedResolver::exempting(&proxies));
    }
    if let Some(proxy) = proxy {
        let proxy =
            reqwest::Proxy::all(proxy).with_context(|| format!("invalid --proxy `{proxy}`"))?;
        builder = builder.no_proxy().proxy(proxy);
    }
    builder.build().context("cannot build the HTTP client")
}

/// The environment variables reqwest reads its proxies from (when `--proxy` is not given).
const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harvested_types() {
        assert!(is_harvested_type(Some("text/html; charset=utf-8")));
        assert!(is_harvested_type(Some("TEXT/PLAIN")));
        assert!(is_harvested_type(None));
        assert!(!is_harvested_type(Some("application/pdf")));
        assert!(!is_harvested_type(Some("image/png")));
        assert!(is_harvested_type(Some(
            "application/rss+xml; charset=utf-8"
        )));
        assert!(is_harvested_type(Some("application/x-gzip")));
        assert!(!is_harvested_type(Some("application/octet-stream")));
        assert_eq!(body_cap(Some("text/html"), 1024), 1024);
        assert_eq!(
            body_cap(Some("Application/XML; charset=utf-8"), 1024),
            LISTING_MAX_BYTES
        );
        assert_eq!(body_cap(Some("application/x-gzip"), u64::MAX), u64::MAX);
    }
}
