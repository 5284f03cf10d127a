//! Reading WARC records: the record type, the streaming [`Reader`], and the usable prefix of a file
//! cut by a crash ([`complete_prefix_len`]).
//!
//! **In:** any `std::io::Read` (plain `.warc`, per-record gzip `.warc.gz`, or a whole file
//! compressed as one gzip member). **Out:** [`Record`]s with their stream offset (and length when
//! the record can be fetched alone), WARC/0.17–1.1.
//!
//! **Invariants:** a cut or corrupt stream yields the records before the damage, then exactly one
//! `Err`, then `None`; memory grows with the bytes actually read, never with a declared
//! `Content-Length`.

use std::io::Read;

use super::source::{Mode, Source};
use super::{
    BLOCK_RESERVE_CAP, DEFAULT_MAX_BLOCK_LEN, MAX_HEADER_BYTES, MAX_HEADER_LINE, WarcError,
    digest_matches, find_header, http_payload_offset, strip_angles, trim_eol,
};

/// One WARC record as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Byte offset of the record in the stream; in gzip data, the offset of the gzip member
    /// holding its first byte (records of a whole-file gzip share offset 0).
    pub offset: u64,
    /// Bytes from `offset` to the end of the record including its trailing newlines, when
    /// the record can be read alone from `(offset, length)`: always for plain data, and for
    /// gzip data when the record fills whole members (the usual one-member-per-record
    /// layout); `None` when it shares a member with another record.
    pub length: Option<u64>,
    /// Version from the first line, without the `WARC/` prefix (`"1.1"`, `"1.0"`, `"0.17"`).
    pub version: String,
    /// Named fields in file order; continuation lines are joined with a space.
    pub headers: Vec<(String, String)>,
    /// The record block: exactly `Content-Length` bytes.
    pub block: Vec<u8>,
}

impl Record {
    /// First value of a header, matched case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// `WARC-Type` (`warcinfo`, `request`, `response`, `revisit`, `metadata`, `resource`, …).
    pub fn record_type(&self) -> Option<&str> {
        self.header("WARC-Type")
    }

    /// `WARC-Target-URI` without the `<…>` that WARC/1.0 writers put around it.
    pub fn target_uri(&self) -> Option<&str> {
        self.header("WARC-Target-URI").map(strip_angles)
    }

    /// `WARC-Record-ID` as written (`<urn:uuid:…>`).
    pub fn record_id(&self) -> Option<&str> {
        self.header("WARC-Record-ID")
    }

    /// `WARC-Date` as written.
    pub fn date(&self) -> Option<&str> {
        self.header("WARC-Date")
    }

    /// `Content-Type` of the block, e.g. `application/http;msgtype=response`.
    pub fn content_type(&self) -> Option<&str> {
        self.header("Content-Type")
    }

    /// Whether the block is an HTTP message (`application/http`, any parameters).
    pub fn is_http(&self) -> bool {
        self.content_type().is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/http"))
        })
    }

    /// Checks `WARC-Block-Digest` against the block. `None` when the record has no digest or
    /// uses an algorithm other than SHA-1 (base32 or hex).
    pub fn verify_block_digest(&self) -> Option<bool> {
        digest_matches(self.header("WARC-Block-Digest")?, &self.block)
    }

    /// Checks `WARC-Payload-Digest` against the payload in the block: the bytes after the
    /// HTTP header for `application/http` blocks, the whole block otherwise. `None` when
    /// there is no SHA-1 digest, or when the payload is not in the block (`revisit` records,
    /// `WARC-Truncated` records, HTTP blocks without an end of header).
    pub fn verify_payload_digest(&self) -> Option<bool> {
        let digest = self.header("WARC-Payload-Digest")?;
        if self.record_type() == Some("revisit") || self.header("WARC-Truncated").is_some() {
            return None;
        }
        let payload = if self.is_http() {
            self.block.get(http_payload_offset(&self.block)?..)?
        } else {
            &self.block[..]
        };
        digest_matches(digest, payload)
    }
}

/// Reads records from plain or gzip WARC data (per-record members, several records per
/// member, or one member for the whole file); gzip is detected by its magic bytes.
///
/// The iterator yields each complete record; on a cut or corrupt stream it yields one `Err`
/// and then `None` forever.
pub struct Reader<R: Read> {
    src: Source<R>,
    max_block: u64,
    done: bool,
}

impl<R: Read> Reader<R> {
    /// A reader over `inner`; nothing is read until the first call to `next`.
    pub fn new(inner: R) -> Self {
        Reader {
            src: Source::new(inner),
            max_block: DEFAULT_MAX_BLOCK_LEN,
            done: false,
        }
    }

    /// Sets the largest `Content-Length` accepted; a record declaring more yields
    /// [`WarcError::TooLarge`] (the default is [`DEFAULT_MAX_BLOCK_LEN`]).
    pub fn with_max_block_len(mut self, limit: u64) -> Self {
        self.max_block = limit;
        self
    }

    /// Whether the data is gzip (known once the first record has been asked for).
    pub fn is_gzip(&self) -> bool {
        self.src.mode == Mode::Gzip
    }

    fn read_record(&mut self) -> Result<Option<Record>, WarcError> {
        // Writers disagree on the blank lines between records; skip any CR/LF, across members.
        loop {
            let buf = self.src.peek_any()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let ws = buf
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let all = ws == buf.len();
            self.src.consume(ws);
            if !all {
                break;
            }
        }
        let starts_member = !self.src.content_seen;
        let offset = self.src.record_offset();
        self.src.content_seen = true;
        self.read_record_at(offset, starts_member)
            .map_err(|e| match e {
                // The cut is reported at the record it damages, not at a later member.
                WarcError::Truncated { .. } => WarcError::Truncated { offset },
                other => other,
            })
            .map(Some)
    }

    fn read_record_at(&mut self, offset: u64, starts_member: bool) -> Result<Record, WarcError> {
        let malformed = |message: String| WarcError::Malformed { offset, message };
        let (version, version_bytes) = self.read_version(offset)?;
        let headers = self.read_headers(offset, version_bytes)?;
        let declared = find_header(&headers, "Content-Length")
            .ok_or_else(|| malformed("no Content-Length".to_string()))?;
        let length: u64 = declared
            .parse()
            .map_err(|_| malformed(format!("bad Content-Length {declared:?}")))?;
        if length > self.max_block {
            return Err(WarcError::TooLarge {
                offset,
                length,
                limit: self.max_block,
            });
        }
        let block = self.read_block(offset, length)?;
        let ends_member = self.skip_record_end()?;
        let length = match self.src.mode {
            Mode::Plain | Mode::Unknown => Some(self.src.input.pos - offset),
            Mode::Gzip if starts_member && ends_member => Some(self.src.input.pos - offset),
            Mode::Gzip => None,
        };
        Ok(Record {
            offset,
            length,
            version,
            headers,
            block,
        })
    }

    /// The `WARC/x.y` line: the version and the line's bytes.
    fn read_version(&mut self, offset: u64) -> Result<(String, usize), WarcError> {
        let mut line = Vec::new();
        if !self.src.read_line(&mut line, MAX_HEADER_LINE, offset)? {
            return Err(WarcError::Truncated { offset });
        }
        let first = trim_eol(&line);
        if !line.ends_with(b"\n") && (first.starts_with(b"WARC/") || b"WARC/".starts_with(first)) {
            return Err(WarcError::Truncated { offset });
        }
        match first.strip_prefix(b"WARC/") {
            Some(v) => Ok((String::from_utf8_lossy(v).trim().to_string(), line.len())),
            None => {
                let shown = String::from_utf8_lossy(&first[..first.len().min(40)]).into_owned();
                Err(WarcError::Malformed {
                    offset,
                    message: format!("expected a WARC/x.y line, found {shown:?}"),
                })
            }
        }
    }

    /// The header fields up to the blank line (continuation lines joined), the header block
    /// bounded by [`MAX_HEADER_BYTES`] with the `already` bytes read.
    fn read_headers(
        &mut self,
        offset: u64,
        already: usize,
    ) -> Result<Vec<(String, String)>, WarcError> {
        let malformed = |message: String| WarcError::Malformed { offset, message };
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut header_bytes = already;
        let mut line = Vec::new();
        loop {
            line.clear();
            if !self.src.read_line(&mut line, MAX_HEADER_LINE, offset)? {
                return Err(WarcError::Truncated { offset });
            }
            header_bytes += line.len();
            if header_bytes > MAX_HEADER_BYTES {
                return Err(malformed("header block too large".to_string()));
            }
            if !line.ends_with(b"\n") {
                return Err(WarcError::Truncated { offset });
            }
            let text = trim_eol(&line);
            if text.is_empty() {
                return Ok(headers);
            }
            if matches!(text[0], b' ' | b'\t') {
                match headers.last_mut() {
                    Some((_, value)) => {
                        let more = String::from_utf8_lossy(text);
                        value.push(' ');
                        value.push_str(more.trim());
                        continue;
                    }
                    None => return Err(malformed("continuation line before any field".into())),
                }
            }
            let Some(colon) = text.iter().position(|&b| b == b':') else {
                let shown = String::from_utf8_lossy(&text[..text.len().min(40)]).into_owned();
                return Err(malformed(format!("header line without a colon: {shown:?}")));
            };
            let name = String::from_utf8_lossy(&text[..colon]).trim().to_string();
            let value = String::from_utf8_lossy(&text[colon + 1..])
                .trim()
                .to_string();
            headers.push((name, value));
        }
    }

    /// The block of `length` bytes.
    fn read_block(&mut self, offset: u64, length: u64) -> Result<Vec<u8>, WarcError> {
        let mut block =
            Vec::with_capacity(usize::try_from(length.min(BLOCK_RESERVE_CAP)).unwrap_or(0));
        let mut remaining = length;
        while remaining > 0 {
            let buf = self.src.peek_any()?;
            if buf.is_empty() {
                return Err(WarcError::Truncated { offset });
            }
            let n = usize::try_from(remaining).map_or(buf.len(), |r| r.min(buf.len()));
            block.extend_from_slice(&buf[..n]);
            self.src.consume(n);
            remaining -= n as u64;
        }
        Ok(block)
    }

    /// Skips the trailing CRLFs, which belong to this record; whether its gzip member ended.
    /// Only the current member is looked into, so that a per-record member is finished (and
    /// its CRC checked) before the record is handed out, while the next member is left alone.
    fn skip_record_end(&mut self) -> Result<bool, WarcError> {
        loop {
            let buf = self.src.peek()?;
            if buf.is_empty() {
                return Ok(true);
            }
            let ws = buf
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let all = ws == buf.len();
            self.src.consume(ws);
            if !all {
                return Ok(false);
            }
        }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record, WarcError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_record() {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl<R: Read> std::iter::FusedIterator for Reader<R> {}

/// Where the last complete gzip member of `data` ends: a `.warc.gz` cut by a crash in the
/// middle of a member is truncated back to this length and appending can resume.
///
/// Members are checked from the start (header, deflate data, CRC and size); the result is the
/// end of the unbroken run of valid members, so anything after the first damaged member is
/// given up. Plain (uncompressed) data gets the same treatment per record: the end of the
/// last complete record. Only I/O errors are returned as `Err`.
pub fn complete_prefix_len<R: Read>(data: R) -> Result<u64, WarcError> {
    let mut src = Source::new(data);
    src.detect()?;
    match src.mode {
        Mode::Gzip => {
            let mut good = 0;
            loop {
                match src.next_member() {
                    Ok(true) => {}
                    Ok(false) => return Ok(good),
                    Err(WarcError::Io(e)) => return Err(WarcError::Io(e)),
                    Err(_) => return Ok(good),
                }
                loop {
                    match src.peek() {
                        Ok([]) => break,
                        Ok(buf) => {
                            let n = buf.len();
                            src.consume(n);
                        }
                        Err(WarcError::Io(e)) => return Err(WarcError::Io(e)),
                        Err(_) => return Ok(good),
                    }
                }
                good = src.input.pos;
            }
        }
        Mode::Plain | Mode::Unknown => {
            let reader = Reader {
                src,
                max_block: u64::MAX,
                done: false,
            };
            let mut good = 0;
            for item in reader {
                match item {
                    Ok(record) => good = record.offset + record.length.unwrap_or(0),
                    Err(WarcError::Io(e)) => return Err(WarcError::Io(e)),
                    Err(_) => break,
                }
            }
            Ok(good)
        }
    }
}
