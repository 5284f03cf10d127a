//! The HTTP messages stored in records: responses parsed with de-chunked and decompressed bodies,
//! request lines, and the payload offset.
//!
//! **In:** a record's block. **Out:** an [`HttpResponse`] (status, headers, body), or a
//! [`WarcError`].
//!
//! **Invariants:** a decompressed body is capped ([`parse_http_response_with_limit`]); malformed
//! messages are tolerated where browsers tolerate them, never a panic.

use std::io::{self, Read};

use super::{
    BUF_LEN, DEFAULT_MAX_HTTP_BODY, MAX_HEADER_BYTES, WarcError, decode_header_bytes, find_header,
    is_token_byte, trim_eol,
};

/// An HTTP response stored in a `response` (or `revisit`) record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// Protocol from the status line, e.g. `HTTP/1.1`.
    pub version: String,
    /// Status code.
    pub status: u16,
    /// Reason phrase; empty when the server sent none.
    pub reason: String,
    /// Header fields in order. Codings that were undone are removed from
    /// `Transfer-Encoding`/`Content-Encoding` (the field goes when none is left) and
    /// `Content-Length` is set to the decoded length, so the fields describe `body`;
    /// a coding that could not be undone (`br`, `zstd`, …) stays, with the body still coded.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked and decompressed where possible.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// First value of a header, matched case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Whether the status is a redirection (3xx) with a `Location` field; gives the field.
    pub fn location(&self) -> Option<&str> {
        (300..400)
            .contains(&self.status)
            .then(|| self.header("Location"))
            .flatten()
    }
}

/// Parses the HTTP response in a record block, with the body size limit
/// [`DEFAULT_MAX_HTTP_BODY`]. See [`parse_http_response_with_limit`].
pub fn parse_http_response(block: &[u8]) -> Result<HttpResponse, WarcError> {
    parse_http_response_with_limit(block, DEFAULT_MAX_HTTP_BODY)
}

/// Parses the HTTP response in a record block: status line (reason phrase optional),
/// header fields (LF or CRLF line ends, folded lines, Latin-1 bytes), then the body,
/// de-chunked if `Transfer-Encoding: chunked` and decompressed for `gzip`, `x-gzip` and
/// `deflate` (zlib or raw). A body cut by `WARC-Truncated` keeps what could be decoded;
/// a body that is not actually in the declared coding is kept as is, with its field. A block
/// with no blank line after the header (header-only `revisit` records) has an empty body.
/// A decoded body above `max_body` bytes gives [`WarcError::BodyTooLarge`].
pub fn parse_http_response_with_limit(
    block: &[u8],
    max_body: usize,
) -> Result<HttpResponse, WarcError> {
    let head = split_head(block);
    let mut lines = head.lines.iter().map(|&(s, e)| trim_eol(&block[s..e]));
    let status_line = lines
        .next()
        .ok_or_else(|| WarcError::Http("empty message".to_string()))?;
    let status_text = decode_header_bytes(status_line);
    // Some archivers write the protocol twice (`HTTP/1.1 HTTP/1.1 200 OK`, seen in the
    // archive-query-log WARCs): the second one is dropped.
    let status_text = match status_text.trim().split_once([' ', '\t']) {
        Some((first, rest))
            if first
                .get(..5)
                .is_some_and(|p| p.eq_ignore_ascii_case("HTTP/"))
                && rest
                    .trim_start()
                    .get(..5)
                    .is_some_and(|p| p.eq_ignore_ascii_case("HTTP/")) =>
        {
            rest.trim_start().to_string()
        }
        _ => status_text,
    };
    let mut parts = status_text.trim().splitn(3, [' ', '\t']);
    let version = parts.next().unwrap_or_default().to_string();
    if !version
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("HTTP/"))
    {
        let shown: String = status_text.chars().take(40).collect();
        return Err(WarcError::Http(format!(
            "not an HTTP status line: {shown:?}"
        )));
    }
    let code = parts.next().unwrap_or_default().trim();
    let status = match code.parse::<u16>() {
        Ok(s) if code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()) => s,
        _ => return Err(WarcError::Http(format!("bad status code {code:?}"))),
    };
    let reason = parts.next().unwrap_or_default().trim().to_string();
    let mut headers = parse_header_lines(lines);

    let raw = head
        .body_start
        .and_then(|i| block.get(i..))
        .unwrap_or_default();
    let mut body = raw.to_vec();
    let mut changed = false;
    for field in ["Transfer-Encoding", "Content-Encoding"] {
        let Some(value) = find_header(&headers, field) else {
            continue;
        };
        let mut codings: Vec<String> = value
            .split(',')
            .map(|c| c.trim().to_ascii_lowercase())
            .filter(|c| !c.is_empty())
            .collect();
        // Codings apply in the order listed, so they are undone from the last one.
        while let Some(coding) = codings.last() {
            let decoded = match coding.as_str() {
                "identity" => Some(std::mem::take(&mut body)),
                "chunked" => dechunk(&body),
                "gzip" | "x-gzip" => decompress(&body, Coding::Gzip, max_body)?,
                "deflate" => match decompress(&body, Coding::Zlib, max_body)? {
                    Some(b) => Some(b),
                    None => decompress(&body, Coding::Deflate, max_body)?,
                },
                _ => None,
            };
            match decoded {
                Some(b) => {
                    body = b;
                    codings.pop();
                    changed = true;
                }
                None => break,
            }
        }
        headers = set_or_remove(headers, field, &codings.join(", "));
    }
    if changed && find_header(&headers, "Content-Length").is_some() {
        headers = set_or_remove(headers, "Content-Length", &body.len().to_string());
    }
    Ok(HttpResponse {
        version,
        status,
        reason,
        headers,
        body,
    })
}

/// Method and target of the HTTP request in a `request` record block
/// (`GET /path HTTP/1.1` gives `("GET", "/path")`); `None` if the first line is not a
/// request line.
pub fn parse_http_request_line(block: &[u8]) -> Option<(String, String)> {
    let head = split_head(block);
    let &(s, e) = head.lines.first()?;
    let line = decode_header_bytes(trim_eol(&block[s..e]));
    let mut parts = line.split_ascii_whitespace();
    let method = parts.next()?;
    let target = parts.next()?;
    if let Some(version) = parts.next()
        && !version
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("HTTP/"))
    {
        return None;
    }
    if parts.next().is_some() || !method.bytes().all(is_token_byte) {
        return None;
    }
    Some((method.to_string(), target.to_string()))
}

/// Offset of the payload (body) in an HTTP message: just after the blank line ending the
/// header. `None` when the message has no such blank line.
pub fn http_payload_offset(message: &[u8]) -> Option<usize> {
    split_head(message).body_start
}

struct Head {
    /// Header lines (status line first) as `(start, end)` ranges, end including the `\n`.
    lines: Vec<(usize, usize)>,
    body_start: Option<usize>,
}

/// Splits an HTTP message into header lines and body; a few stray blank lines before the
/// status line are tolerated, as some writers leave them.
fn split_head(message: &[u8]) -> Head {
    let mut lines = Vec::new();
    let mut pos = 0;
    // A header larger than this is garbage; stop scanning so a binary block without a blank
    // line costs little.
    while pos < message.len() && pos <= MAX_HEADER_BYTES {
        let end = message[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(message.len(), |i| pos + i + 1);
        let blank = trim_eol(&message[pos..end]).is_empty();
        if blank && end <= message.len() && message[pos..end].ends_with(b"\n") {
            if !lines.is_empty() {
                return Head {
                    lines,
                    body_start: Some(end),
                };
            }
        } else {
            lines.push((pos, end));
        }
        pos = end;
    }
    Head {
        lines,
        body_start: None,
    }
}

fn parse_header_lines<'a>(lines: impl Iterator<Item = &'a [u8]>) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if matches!(line.first(), Some(b' ' | b'\t')) {
            if let Some((_, value)) = headers.last_mut() {
                value.push(' ');
                value.push_str(decode_header_bytes(line).trim());
            }
            continue;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let name = decode_header_bytes(&line[..colon]).trim().to_string();
        if name.is_empty() {
            continue;
        }
        let value = decode_header_bytes(&line[colon + 1..]).trim().to_string();
        headers.push((name, value));
    }
    headers
}

/// Sets the first `name` field to `value` and drops the others; drops all when `value` is
/// empty.
fn set_or_remove(headers: Vec<(String, String)>, name: &str, value: &str) -> Vec<(String, String)> {
    let mut seen = false;
    headers
        .into_iter()
        .filter_map(|(n, v)| {
            if !n.eq_ignore_ascii_case(name) {
                return Some((n, v));
            }
            if seen || value.is_empty() {
                return None;
            }
            seen = true;
            Some((n, value.to_string()))
        })
        .collect()
}

/// Undoes chunked framing. `None` when the body does not start with a chunk-size line (the
/// header lies, or the archiver already de-chunked); a body cut inside a chunk keeps the
/// chunks read so far.
fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0;
    let mut first = true;
    while pos < body.len() {
        let Some(nl) = body[pos..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let line = trim_eol(&body[pos..pos + nl + 1]);
        let size_text = line.split(|&b| b == b';').next().unwrap_or_default();
        let size_text = String::from_utf8_lossy(size_text);
        let size = match u64::from_str_radix(size_text.trim(), 16) {
            Ok(s) => s,
            Err(_) if first => return None,
            Err(_) => break,
        };
        first = false;
        pos += nl + 1;
        if size == 0 {
            break;
        }
        let available = body.len() - pos;
        let take = usize::try_from(size).map_or(available, |s| s.min(available));
        out.extend_from_slice(&body[pos..pos + take]);
        pos += take;
        if body[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if body[pos..].starts_with(b"\n") {
            pos += 1;
        }
    }
    if first {
        return None;
    }
    Some(out)
}

#[derive(Clone, Copy)]
enum Coding {
    Gzip,
    Zlib,
    Deflate,
}

/// Decompresses `body`; `None` when not even the start decodes (not really compressed), the
/// decoded prefix when the data is cut or damaged later on.
fn decompress(body: &[u8], coding: Coding, max_body: usize) -> Result<Option<Vec<u8>>, WarcError> {
    if body.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut reader: Box<dyn Read + '_> = match coding {
        Coding::Gzip => Box::new(flate2::read::MultiGzDecoder::new(body)),
        Coding::Zlib => Box::new(flate2::read::ZlibDecoder::new(body)),
        Coding::Deflate => Box::new(flate2::read::DeflateDecoder::new(body)),
    };
    let mut out = Vec::new();
    let mut chunk = vec![0u8; BUF_LEN];
    let failed = loop {
        match reader.read(&mut chunk) {
            Ok(0) => break false,
            Ok(n) => {
                if out.len() + n > max_body {
                    return Err(WarcError::BodyTooLarge { limit: max_body });
                }
                out.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break true,
        }
    };
    Ok((!failed || !out.is_empty()).then_some(out))
}
