//! WARC (ISO 28500) codec: reads WARC/0.17–1.1 records from plain or gzip data, builds
//! WARC/1.1 records, and parses the HTTP messages stored inside them.
//!
//! **In**: any `std::io::Read` (plain `.warc`, per-record gzip `.warc.gz`, or a whole file
//! compressed as one gzip member); byte buffers holding HTTP messages; caller-made record ids
//! (`<urn:uuid:…>`) and ISO 8601 dates.
//!
//! **Out**: [`Record`]s with their stream offset (and length when the record can be fetched
//! alone), serialised WARC/1.1 records ready to be compressed with [`gzip_member`], parsed
//! [`HttpResponse`]s with de-chunked and decompressed bodies, and the length of the usable
//! prefix of a file cut by a crash ([`complete_prefix_len`]).
//!
//! **Invariants**:
//! - Pure: no file is opened, no clock or random source is read; the same input gives the
//!   same bytes out (gzip members carry MTIME 0).
//! - Hostile input never panics. A cut or corrupt stream yields the records before the damage,
//!   then exactly one `Err`, then `None`. Memory grows with the bytes actually read, never with
//!   a declared `Content-Length` (that is capped by [`Reader::with_max_block_len`]), and a
//!   decompressed HTTP body is capped by [`parse_http_response_with_limit`].
//! - Built records follow WARC/1.1: `WARC/1.1` line, named fields, `WARC-Block-Digest`
//!   (`sha1:` + RFC 4648 base32), `Content-Length`, blank line, block, `\r\n\r\n`. Field values
//!   lose any CR/LF, so a hostile URL cannot inject a header.
//!
//! **Files**, in data-flow order: `source` (plain or gzip bytes, member by member) → `reader`
//! (records) → `http` (the messages inside them); `writer` (records built); this file holds the
//! limits, the error type and the small helpers they share; `tests.rs` the tests.

use std::io;

use sha1::{Digest, Sha1};

mod reader;
pub use reader::{Reader, Record, complete_prefix_len};

mod source;

mod writer;
pub use writer::{
    RecordBuilder, base32, gzip_member, metadata_record, parse_warc_fields, request_record,
    response_record, sha1_digest, warc_fields_block, warcinfo_record,
};

mod http;
pub use http::{
    HttpResponse, http_payload_offset, parse_http_request_line, parse_http_response,
    parse_http_response_with_limit,
};

/// Largest block [`Reader`] accepts unless told otherwise (512 MiB).
pub const DEFAULT_MAX_BLOCK_LEN: u64 = 512 * 1024 * 1024;
/// Largest decoded HTTP body [`parse_http_response`] produces (64 MiB), against gzip bombs.
pub const DEFAULT_MAX_HTTP_BODY: usize = 64 * 1024 * 1024;
/// Longest WARC header line accepted; real lines are far shorter, garbage may have no newline.
const MAX_HEADER_LINE: usize = 64 * 1024;
/// Largest WARC header block accepted.
const MAX_HEADER_BYTES: usize = 1024 * 1024;
/// Up-front reservation for a block: a lying `Content-Length` must not allocate gigabytes.
const BLOCK_RESERVE_CAP: u64 = 1024 * 1024;
/// Size of the input and inflate buffers.
const BUF_LEN: usize = 64 * 1024;

/// Errors of the WARC codec.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// The underlying reader failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A gzip member is corrupt (bad header, bad deflate data, CRC or size mismatch).
    #[error("corrupt gzip member at byte {offset}: {message}")]
    Gzip {
        /// Byte offset of the gzip member in the compressed stream.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The bytes at `offset` are not a well-formed WARC record.
    #[error("malformed WARC record at byte {offset}: {message}")]
    Malformed {
        /// Byte offset of the record (of its gzip member in compressed data).
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The stream ends inside the record (or gzip member) starting at `offset`.
    #[error("truncated WARC record at byte {offset}")]
    Truncated {
        /// Byte offset of the cut record (of its gzip member in compressed data).
        offset: u64,
    },
    /// A record declares a block larger than the reader's limit.
    #[error("record at byte {offset} declares a {length}-byte block, above the {limit}-byte limit")]
    TooLarge {
        /// Byte offset of the record.
        offset: u64,
        /// Declared `Content-Length`.
        length: u64,
        /// The reader's limit.
        limit: u64,
    },
    /// An HTTP message inside a record cannot be parsed.
    #[error("malformed HTTP message: {0}")]
    Http(String),
    /// A decompressed HTTP body exceeds the allowed size.
    #[error("decoded HTTP body exceeds {limit} bytes")]
    BodyTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

impl WarcError {
    /// Where in the stream the error is (the record's, or its gzip member's, offset), when it
    /// is about a place in the stream.
    pub fn offset(&self) -> Option<u64> {
        match self {
            WarcError::Gzip { offset, .. }
            | WarcError::Malformed { offset, .. }
            | WarcError::Truncated { offset }
            | WarcError::TooLarge { offset, .. } => Some(*offset),
            WarcError::Io(_) | WarcError::Http(_) | WarcError::BodyTooLarge { .. } => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn strip_angles(value: &str) -> &str {
    let v = value.trim();
    v.strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(v)
}

fn angle(id: &str) -> String {
    let id = id.trim();
    if id.starts_with('<') && id.ends_with('>') {
        id.to_string()
    } else {
        format!("<{id}>")
    }
}

fn push_field(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"\r\n");
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Header bytes as text: UTF-8 when valid, otherwise Latin-1 (what HTTP/1.1 allowed).
fn decode_header_bytes(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Compares a `sha1:` digest field (base32 or hex, any case) with the SHA-1 of `data`.
fn digest_matches(field: &str, data: &[u8]) -> Option<bool> {
    let (algo, value) = field.trim().split_once(':')?;
    if !algo.trim().eq_ignore_ascii_case("sha1") && !algo.trim().eq_ignore_ascii_case("sha-1") {
        return None;
    }
    let value = value.trim();
    let hash = Sha1::digest(data);
    if value.len() == 40 && value.bytes().all(|b| b.is_ascii_hexdigit()) {
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        return Some(value.eq_ignore_ascii_case(&hex));
    }
    Some(
        value
            .trim_end_matches('=')
            .eq_ignore_ascii_case(base32(&hash).trim_end_matches('=')),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
