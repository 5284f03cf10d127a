//! A response as the crawl holds it and the WARC file archives it: status, headers, the
//! (decompressed, capped) body, and the exact request and response blocks of its records.
//!
//! **In:** what a fetcher received, or a stored WARC `response` record. **Out:** [`Response`].
//!
//! **Invariants:** an uncompressed body is read in place in the response block, never kept
//! twice; the blocks are what the WARC records hold, byte for byte.

use std::time::Duration;

use stages::web::warc;

/// A response (any status).
#[derive(Debug, Clone)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Response headers in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body as received (possibly cut): see [`Response::body`].
    pub(crate) body: Body,
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
pub(crate) enum Body {
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
