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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use stages::web::urlnorm::Canonicalizer;
use stages::web::warc;

use crate::outcome::Reason;

/// Largest ratio of decompressed to compressed size accepted for a body over 1 MiB. HTML
/// compresses 5–15 times; deflate cannot exceed about 1,032 times, which only crafted bodies
/// approach.
pub const MAX_INFLATION: usize = 100;

/// Content types whose bodies glaneur harvests (seed 001: HTML and plain text only).
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
    )
}

/// A response (any status).
#[derive(Debug, Clone)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Response headers in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body as received (possibly cut): see [`Response::body`].
    body: Body,
    /// The body was cut at the size cap.
    pub truncated: bool,
    /// The body was not downloaded (content type not harvested).
    pub body_skipped: bool,
    /// Request as sent (request line + headers), for the WARC `request` record.
    pub request_block: Vec<u8>,
    /// Status line + headers + blank line + body, for the WARC `response` record.
    pub response_block: Vec<u8>,
    /// Server address, when known.
    pub ip: Option<String>,
    /// Time from sending the request to the end of the body.
    pub elapsed: Duration,
    /// Served from a recording rather than the network.
    pub replayed: bool,
}

/// Where a response's body is. A page waits in memory from its arrival until the crawl has
/// analysed and archived it, and a crawl of large pages can hold hundreds of them at once: an
/// uncompressed body is read in place in the response block (the bytes the WARC record
/// stores) instead of being kept twice.
#[derive(Debug, Clone)]
enum Body {
    /// `response_block[start..end]`.
    InBlock { start: usize, end: usize },
    /// A buffer of its own (decompressed, or decoded from a WARC record).
    Own(Vec<u8>),
}

impl Response {
    /// A response whose body is `body` and whose WARC block is `response_block`.
    pub fn new(
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        request_block: Vec<u8>,
        response_block: Vec<u8>,
    ) -> Response {
        Response {
            status,
            headers,
            body: Body::Own(body),
            truncated: false,
            body_skipped: false,
            request_block,
            response_block,
            ip: None,
            elapsed: Duration::ZERO,
            replayed: false,
        }
    }

    /// The body (decompressed; possibly cut at the size cap).
    pub fn body(&self) -> &[u8] {
        match &self.body {
            Body::InBlock { start, end } => self.response_block.get(*start..*end).unwrap_or(&[]),
            Body::Own(body) => body,
        }
    }

    /// Keeps at most the first `len` bytes of the body.
    pub fn truncate_body(&mut self, len: usize) {
        match &mut self.body {
            Body::InBlock { start, end } => *end = (*end).min(start.saturating_add(len)),
            Body::Own(body) => body.truncate(len),
        }
    }

    /// Bytes this response holds in memory (what a page waiting for analysis costs).
    pub fn held_bytes(&self) -> usize {
        let own = match &self.body {
            Body::InBlock { .. } => 0,
            Body::Own(body) => body.len(),
        };
        own + self.response_block.len() + self.request_block.len()
    }

    /// The response stored in a WARC `response` record (None when its HTTP block does not
    /// parse). `WARC-Truncated` says whether glaneur cut the body or did not download it.
    pub fn from_record(record: &warc::Record) -> Option<Response> {
        let http = warc::parse_http_response(&record.block).ok()?;
        let truncation = record.header("WARC-Truncated");
        Some(Response {
            status: http.status,
            headers: http
                .headers
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect(),
            body: Body::Own(http.body),
            truncated: truncation == Some("length"),
            body_skipped: truncation == Some("unspecified"),
            request_block: Vec::new(),
            response_block: record.block.clone(),
            ip: record.header("WARC-IP-Address").map(str::to_string),
            elapsed: Duration::ZERO,
            replayed: false,
        })
    }

    /// First header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
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
    /// asks each URL once and each server one topic at a time (`crate::batch::hub`).
    Shared(Arc<crate::batch::hub::Member>),
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
/// With `guard`, host names are resolved by [`crate::guard::GuardedResolver`]: no connection
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
        builder = builder.dns_resolver(crate::guard::GuardedResolver::exempting(&proxies));
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

/// Live HTTP fetcher.
pub struct HttpFetcher {
    client: reqwest::Client,
    user_agent: String,
    max_body_bytes: u64,
    /// `[domains] allow_private_addresses`: the network guard is off.
    allow_private: bool,
}

impl HttpFetcher {
    /// A client with our User-Agent, no redirects, timeouts, an optional proxy, up to
    /// `connections_per_host` connections kept open per server, and the network guard
    /// (`crate::guard`) unless `allow_private`.
    pub fn new(
        user_agent: &str,
        proxy: Option<&str>,
        timeout: Duration,
        max_body_bytes: u64,
        connections_per_host: usize,
        allow_private: bool,
    ) -> anyhow::Result<HttpFetcher> {
        let client = http_client(
            user_agent,
            proxy,
            timeout,
            connections_per_host,
            !allow_private,
        )?;
        Ok(HttpFetcher {
            client,
            user_agent: user_agent.to_string(),
            max_body_bytes,
            allow_private,
        })
    }

    async fn fetch(&self, url: &url::Url, validators: &Validators) -> Result<Response, Failure> {
        let started = Instant::now();
        let fail = |reason: Reason, detail: String| Failure {
            reason,
            detail,
            elapsed: started.elapsed(),
        };
        // The last guard: whatever led here, a private address or credentials are not sent.
        if let Err(refusal) = crate::guard::check_url(url, self.allow_private) {
            return Err(fail(refusal.reason, refusal.detail));
        }
        let accept = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1";
        let mut request = self
            .client
            .get(url.as_str())
            .header(reqwest::header::ACCEPT, accept)
            .header(reqwest::header::ACCEPT_ENCODING, ACCEPT_ENCODING);
        let mut conditional = String::new();
        if let Some(etag) = validators.etag.as_deref().filter(|v| is_header_value(v)) {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
            conditional.push_str(&format!("If-None-Match: {etag}\r\n"));
        }
        if let Some(date) = validators
            .last_modified
            .as_deref()
            .filter(|v| is_header_value(v))
        {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
            conditional.push_str(&format!("If-Modified-Since: {date}\r\n"));
        }
        let mut response = request.send().await.map_err(|e| classify(&e, &fail))?;
        let status = response.status().as_u16();
        let ip = response.remote_addr().map(|a| a.ip().to_string());
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let content_type = headers
            .iter()
            .find(|(k, _)| k == "content-type")
            .map(|(_, v)| v.as_str());
        let body_skipped = !is_harvested_type(content_type);
        // The chunks are kept as hyper hands them over and copied once, into the response
        // block, when the body is complete (its length goes in the block's header).
        let mut chunks = Vec::new();
        let mut body_len = 0usize;
        let mut truncated = false;
        if !body_skipped {
            loop {
                match response.chunk().await {
                    Ok(Some(mut chunk)) => {
                        let room = self.max_body_bytes.saturating_sub(body_len as u64) as usize;
                        if chunk.len() > room {
                            chunk.truncate(room);
                            body_len += chunk.len();
                            chunks.push(chunk);
                            truncated = true;
                            break;
                        }
                        body_len += chunk.len();
                        chunks.push(chunk);
                    }
                    Ok(None) => break,
                    Err(e) => return Err(classify(&e, &fail)),
                }
            }
        }
        let request_block = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {}\r\nAccept: {accept}\r\nAccept-Encoding: {ACCEPT_ENCODING}\r\n{conditional}\r\n",
            request_target(url),
            host_header(url),
            self.user_agent
        )
        .into_bytes();
        let reason = reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
        for (name, value) in &headers {
            // The body is stored de-chunked, so the framing headers must describe what is
            // stored, not what was on the wire.
            if name == "transfer-encoding" || name == "content-length" {
                continue;
            }
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("content-length: {body_len}\r\n\r\n"));
        let mut response_block = Vec::with_capacity(head.len() + body_len);
        response_block.extend_from_slice(head.as_bytes());
        for chunk in &chunks {
            response_block.extend_from_slice(chunk);
        }
        drop(chunks);
        let body = match decompressed(&headers, &response_block, self.max_body_bytes) {
            Decoded::Plain => Body::InBlock {
                start: head.len(),
                end: response_block.len(),
            },
            Decoded::Inflated(inflated) => Body::Own(inflated),
            Decoded::Bomb(why) => return Err(fail(Reason::DecompressionBomb, why)),
            Decoded::NotOffered(coding) => {
                return Err(fail(
                    Reason::ContentEncoding,
                    format!(
                        "the server sent the body in `{coding}` coding, which glaneur did not \
                         offer (Accept-Encoding: {ACCEPT_ENCODING}): not stored as text"
                    ),
                ));
            }
            Decoded::TooLarge(why) => return Err(fail(Reason::TooLarge, why)),
            Decoded::Corrupt(why) => return Err(fail(Reason::CorruptEncoding, why)),
        };
        Ok(Response {
            status,
            headers,
            body,
            truncated,
            body_skipped,
            request_block,
            response_block,
            ip,
            elapsed: started.elapsed(),
            replayed: false,
        })
    }
}

/// Whether a stored header value can be sent back as is (visible ASCII and spaces only).
fn is_header_value(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
}

/// A body after undoing its `Content-Encoding`.
enum Decoded {
    /// Not compressed (or in a coding glaneur cannot undo: kept as is).
    Plain,
    /// Decompressed.
    Inflated(Vec<u8>),
    /// Inflates suspiciously: refused, with the reason.
    Bomb(String),
    /// Decompressed, larger than the size cap: refused, with the reason.
    TooLarge(String),
    /// In a coding glaneur did not offer (`br`, `zstd`…): refused, with the coding.
    NotOffered(String),
    /// Labelled gzip or deflate, and not a single byte of it decompresses: refused, with the
    /// reason (a body cut short by the size cap keeps what decompresses).
    Corrupt(String),
}

/// The codings glaneur offers, and can undo.
const ACCEPT_ENCODING: &str = "gzip, deflate";

/// Undoes gzip/deflate with the WARC reader's decoder (the same code reads the body back from
/// the WARC file later), under the size cap and the inflation guard.
fn decompressed(headers: &[(String, String)], block: &[u8], max_body: u64) -> Decoded {
    let mut coded = false;
    for (_, value) in headers.iter().filter(|(k, _)| k == "content-encoding") {
        for coding in value.split(',') {
            let coding = coding.trim().to_ascii_lowercase();
            match coding.as_str() {
                "gzip" | "x-gzip" | "deflate" => coded = true,
                // Codings that do compress, which glaneur did not offer and cannot undo.
                "br" | "zstd" | "compress" | "x-compress" | "dcb" | "dcz" | "aes128gcm" | "exi"
                | "pack200-gzip" => return Decoded::NotOffered(coding),
                // `identity`, and what misconfigured servers send for it (`none`, `utf-8`,
                // `binary`…): browsers read such bodies as they are, and so does glaneur.
                _ => {}
            }
        }
    }
    if !coded {
        return Decoded::Plain;
    }
    let compressed = block.len();
    let cap = usize::try_from(max_body).unwrap_or(usize::MAX);
    match warc::parse_http_response_with_limit(block, cap) {
        Ok(http) => {
            // The parser keeps a coding it could not undo in the header: the body is still
            // the compressed bytes, not text.
            let undone = http
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("content-encoding"))
                .flat_map(|(_, v)| v.split(','))
                .map(|c| c.trim().to_ascii_lowercase())
                .find(|c| matches!(c.as_str(), "gzip" | "x-gzip" | "deflate"));
            if let Some(coding) = undone {
                return Decoded::Corrupt(format!(
                    "the server labelled the body `Content-Encoding: {coding}`, but its {} \
                     bytes do not decompress: not stored as text",
                    http.body.len()
                ));
            }
            if http.body.len() > (1 << 20) && http.body.len() > compressed * MAX_INFLATION {
                Decoded::Bomb(format!(
                    "{} bytes inflate to {} (more than {MAX_INFLATION} times)",
                    compressed,
                    http.body.len()
                ))
            } else {
                Decoded::Inflated(http.body)
            }
        }
        Err(warc::WarcError::BodyTooLarge { .. }) => Decoded::TooLarge(format!(
            "the decompressed body exceeds [crawl] max_body_bytes ({max_body} bytes)"
        )),
        Err(_) => Decoded::Plain,
    }
}

fn classify(error: &reqwest::Error, fail: &impl Fn(Reason, String) -> Failure) -> Failure {
    if let Some(detail) = crate::guard::private_name(error) {
        return fail(Reason::PrivateAddress, detail);
    }
    // `{:#}`-style chain: reqwest's top-level message alone ("error sending request") says
    // nothing a linguist can act on.
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    if error.is_timeout() {
        fail(Reason::Timeout, detail)
    } else {
        fail(Reason::NetworkError, detail)
    }
}

/// Path and query as sent in the request line.
pub fn request_target(url: &url::Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    }
}

/// The request block archived for a response that was not requested from the server itself
/// (a recording's, or one a batch reads back from another topic's folder): the request line
/// and `Host`, nothing a client would add.
pub fn bare_request(url: &url::Url) -> Vec<u8> {
    format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\n\r\n",
        request_target(url),
        host_header(url)
    )
    .into_bytes()
}

fn host_header(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

/// A recorded web: every `response` record of a WARC file, by canonical URL.
pub struct Replay {
    pages: HashMap<String, Response>,
    max_body_bytes: u64,
}

impl Replay {
    /// Indexes the responses of a WARC file (plain or gzip). Later records win over earlier
    /// ones for the same URL, as in a re-crawl.
    pub fn from_bytes(
        data: &[u8],
        canonicalizer: &Canonicalizer,
        max_body_bytes: u64,
    ) -> anyhow::Result<Replay> {
        let mut pages = HashMap::new();
        for record in warc::Reader::new(data) {
            let record = record.context("damaged WARC record")?;
            if record.record_type() != Some("response") {
                continue;
            }
            let Some(url) = record
                .target_uri()
                .and_then(|uri| canonicalizer.parse(uri, None).ok())
            else {
                continue;
            };
            if let Some(response) = Response::from_record(&record) {
                pages.insert(url.to_string(), response);
            }
        }
        Ok(Replay {
            pages,
            max_body_bytes,
        })
    }

    /// Number of recorded URLs.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether the recording is empty.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    fn fetch(&self, url: &url::Url) -> Response {
        let request_block = bare_request(url);
        let Some(page) = self.pages.get(url.as_str()) else {
            let body = b"not in the recording".to_vec();
            let headers = vec![
                ("content-type".to_string(), "text/plain".to_string()),
                ("x-glaneur-replay".to_string(), "missing".to_string()),
            ];
            let mut block = b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nx-glaneur-replay: missing\r\n".to_vec();
            block.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
            block.extend_from_slice(&body);
            return Response {
                status: 404,
                headers,
                body: Body::Own(body),
                truncated: false,
                body_skipped: false,
                request_block,
                response_block: block,
                ip: None,
                elapsed: Duration::ZERO,
                replayed: true,
            };
        };
        let mut response = page.clone();
        response.request_block = request_block;
        response.replayed = true;
        response.body_skipped = !is_harvested_type(response.header("content-type"));
        if response.body_skipped {
            response.truncate_body(0);
        }
        if response.body().len() as u64 > self.max_body_bytes {
            response.truncate_body(usize::try_from(self.max_body_bytes).unwrap_or(usize::MAX));
            response.truncated = true;
        }
        response
    }
}

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
    }

    #[test]
    fn replay_serves_recorded_pages_and_404s_the_rest() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello";
        let record = warc::response_record(
            "http://A.test/p?b=2&a=1#x",
            http,
            "2026-11-22T00:00:00Z",
            "<urn:uuid:00000000-0000-4000-8000-000000000001>",
            None,
            None,
        );
        let data = warc::gzip_member(&record);
        let canon = Canonicalizer::default();
        let replay = Replay::from_bytes(&data, &canon, 1 << 20).unwrap();
        assert_eq!(replay.len(), 1);
        let url = canon.parse("http://a.test/p?a=1&b=2", None).unwrap();
        let page = replay.fetch(&url);
        assert_eq!(page.status, 200);
        assert_eq!(page.body(), b"hello");
        assert_eq!(page.response_block, http.to_vec());
        let missing = replay.fetch(&canon.parse("http://a.test/other", None).unwrap());
        assert_eq!(missing.status, 404);
        assert_eq!(missing.header("x-glaneur-replay"), Some("missing"));
    }
}
