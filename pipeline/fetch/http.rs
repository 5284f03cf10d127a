//! The live fetcher: one GET over HTTP(S), its body read in chunks under the size cap, its
//! coding undone under the inflation guard, and the blocks its WARC records hold.
//!
//! **In:** a canonical URL (and the validators of a stored copy). **Out:** a [`Response`] or
//! a [`Failure`] with its reason.
//!
//! **Invariants:** see the module `fetch`: no redirect followed, bodies capped, bodies of
//! types glaneur does not harvest not downloaded, gzip/deflate accepted and refused when they
//! inflate past [`MAX_INFLATION`] or do not decompress.

use std::time::{Duration, Instant};

use stages::web::warc;

use super::{Failure, MAX_INFLATION, Validators, http_client, is_harvested_type};
use crate::ground::outcome::Reason;
use crate::warc::Response;
use crate::warc::response::Body;

/// Live HTTP fetcher.
pub struct HttpFetcher {
    client: reqwest::Client,
    user_agent: String,
    pub(super) max_body_bytes: u64,
    /// `[domains] allow_private_addresses`: the network guard is off.
    pub(super) allow_private: bool,
}

impl HttpFetcher {
    /// A client with our User-Agent, no redirects, timeouts, an optional proxy, up to
    /// `connections_per_host` connections kept open per server, and the network guard
    /// (`crate::ground::guard`) unless `allow_private`.
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

    pub(super) async fn fetch(
        &self,
        url: &url::Url,
        validators: &Validators,
    ) -> Result<Response, Failure> {
        let started = Instant::now();
        let fail = |reason: Reason, detail: String| Failure {
            reason,
            detail,
            elapsed: started.elapsed(),
        };
        // The last guard: whatever led here, a private address or credentials are not sent.
        if let Err(refusal) = crate::ground::guard::check_url(url, self.allow_private) {
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
        let max_body_bytes = super::body_cap(content_type, self.max_body_bytes);
        // The chunks are kept as hyper hands them over and copied once, into the response
        // block, when the body is complete (its length goes in the block's header).
        let mut chunks = Vec::new();
        let mut body_len = 0usize;
        let mut truncated = false;
        if !body_skipped {
            loop {
                match response.chunk().await {
                    Ok(Some(mut chunk)) => {
                        let room = max_body_bytes.saturating_sub(body_len as u64) as usize;
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
        let body = match decompressed(&headers, &response_block, max_body_bytes) {
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
    if let Some(detail) = crate::ground::guard::private_name(error) {
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
