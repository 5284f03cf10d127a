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

use std::cell::RefCell;
use std::io::{self, Read};

use flate2::{Compress, Crc, Decompress, FlushCompress, FlushDecompress, Status};
use sha1::{Digest, Sha1};

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
// Reading
// ---------------------------------------------------------------------------------------------

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
        let mut line = Vec::new();
        if !self.src.read_line(&mut line, MAX_HEADER_LINE, offset)? {
            return Err(WarcError::Truncated { offset });
        }
        let first = trim_eol(&line);
        if !line.ends_with(b"\n") && (first.starts_with(b"WARC/") || b"WARC/".starts_with(first)) {
            return Err(WarcError::Truncated { offset });
        }
        let version = match first.strip_prefix(b"WARC/") {
            Some(v) => String::from_utf8_lossy(v).trim().to_string(),
            None => {
                let shown = String::from_utf8_lossy(&first[..first.len().min(40)]).into_owned();
                return Err(malformed(format!(
                    "expected a WARC/x.y line, found {shown:?}"
                )));
            }
        };
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut header_bytes = line.len();
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
                break;
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
        // The trailing CRLFs belong to this record; only look inside the current member so
        // that a per-record member is finished (and its CRC checked) before the record is
        // handed out, while the next member is left alone.
        let ends_member = loop {
            let buf = self.src.peek()?;
            if buf.is_empty() {
                break true;
            }
            let ws = buf
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let all = ws == buf.len();
            self.src.consume(ws);
            if !all {
                break false;
            }
        };
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Unknown,
    Plain,
    Gzip,
}

/// Buffered input that counts the bytes consumed, so gzip member offsets are exact.
struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes consumed so far: the stream offset of `buf[start]`.
    pos: u64,
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Self {
        Input {
            inner,
            buf: vec![0; BUF_LEN],
            start: 0,
            end: 0,
            pos: 0,
        }
    }

    /// The buffered bytes, reading more when none are left; empty only at end of stream.
    fn fill(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    /// At least `n` (≤ buffer size) buffered bytes, or fewer at end of stream.
    fn fill_to(&mut self, n: usize) -> io::Result<&[u8]> {
        let n = n.min(self.buf.len());
        while self.end - self.start < n {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.read_more()? == 0 {
                break;
            }
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn read_more(&mut self) -> io::Result<usize> {
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.pos += n as u64;
    }

    /// Skips `n` bytes; false when the stream ends first.
    fn skip(&mut self, mut n: usize) -> io::Result<bool> {
        while n > 0 {
            let avail = self.fill()?.len();
            if avail == 0 {
                return Ok(false);
            }
            let k = avail.min(n);
            self.consume(k);
            n -= k;
        }
        Ok(true)
    }

    /// Skips past the next NUL byte (gzip FNAME/FCOMMENT); false when the stream ends first.
    fn skip_cstring(&mut self) -> io::Result<bool> {
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Ok(false);
            }
            match buf.iter().position(|&b| b == 0) {
                Some(i) => {
                    self.consume(i + 1);
                    return Ok(true);
                }
                None => {
                    let n = buf.len();
                    self.consume(n);
                }
            }
        }
    }

    /// Reads exactly `out.len()` (≤ buffer size) bytes; false when the stream ends first.
    fn read_exact_or_eof(&mut self, out: &mut [u8]) -> io::Result<bool> {
        let buf = self.fill_to(out.len())?;
        if buf.len() < out.len() {
            return Ok(false);
        }
        out.copy_from_slice(&buf[..out.len()]);
        self.consume(out.len());
        Ok(true)
    }
}

/// State of the gzip member being inflated.
struct Member {
    start: u64,
    crc: Crc,
    done: bool,
}

/// The decoded byte stream: plain bytes, or the concatenated output of gzip members, served
/// one member at a time so that record boundaries can be matched to member boundaries.
struct Source<R> {
    input: Input<R>,
    mode: Mode,
    inflate: Decompress,
    member: Option<Member>,
    out: Vec<u8>,
    out_pos: usize,
    out_len: usize,
    /// Whether a record has started in the current member (or, in plain data, ever).
    content_seen: bool,
}

impl<R: Read> Source<R> {
    fn new(inner: R) -> Self {
        Source {
            input: Input::new(inner),
            mode: Mode::Unknown,
            inflate: Decompress::new(false),
            member: None,
            out: Vec::new(),
            out_pos: 0,
            out_len: 0,
            content_seen: false,
        }
    }

    fn detect(&mut self) -> Result<(), WarcError> {
        if self.mode == Mode::Unknown {
            let head = self.input.fill_to(2)?;
            self.mode = if head.starts_with(&[0x1f, 0x8b]) {
                Mode::Gzip
            } else {
                Mode::Plain
            };
        }
        Ok(())
    }

    /// Offset reported for a record starting at the current position.
    fn record_offset(&self) -> u64 {
        match (&self.mode, &self.member) {
            (Mode::Gzip, Some(m)) => m.start,
            _ => self.input.pos,
        }
    }

    /// Decoded bytes of the current member (plain: of the stream); empty when the member is
    /// finished — its trailer read and checked — or the plain stream has ended.
    fn peek(&mut self) -> Result<&[u8], WarcError> {
        self.detect()?;
        if self.mode == Mode::Plain {
            return Ok(self.input.fill()?);
        }
        if self.out_pos == self.out_len {
            self.inflate_more()?;
        }
        Ok(&self.out[self.out_pos..self.out_len])
    }

    /// Decoded bytes, moving on to the next gzip member when the current one is finished;
    /// empty only at the end of the stream.
    fn peek_any(&mut self) -> Result<&[u8], WarcError> {
        loop {
            if !self.peek()?.is_empty() {
                break;
            }
            if !self.next_member()? {
                break;
            }
        }
        self.peek()
    }

    fn consume(&mut self, n: usize) {
        match self.mode {
            Mode::Gzip => self.out_pos = (self.out_pos + n).min(self.out_len),
            Mode::Plain | Mode::Unknown => self.input.consume(n),
        }
    }

    /// Appends one line (through `\n`, or to end of stream) to `line`; false when the
    /// stream had already ended.
    fn read_line(
        &mut self,
        line: &mut Vec<u8>,
        max: usize,
        offset: u64,
    ) -> Result<bool, WarcError> {
        let before = line.len();
        loop {
            let buf = self.peek_any()?;
            if buf.is_empty() {
                return Ok(line.len() > before);
            }
            let (n, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            line.extend_from_slice(&buf[..n]);
            self.consume(n);
            if found {
                return Ok(true);
            }
            if line.len() - before > max {
                return Err(WarcError::Malformed {
                    offset,
                    message: format!("header line longer than {max} bytes"),
                });
            }
        }
    }

    /// Opens the next gzip member (the current one must be finished); false at end of
    /// stream. Plain data has a single "member", so this is always false there.
    fn next_member(&mut self) -> Result<bool, WarcError> {
        self.detect()?;
        if self.mode != Mode::Gzip {
            return Ok(false);
        }
        if self.member.as_ref().is_some_and(|m| !m.done) {
            return Ok(true);
        }
        self.member = None;
        self.out_pos = 0;
        self.out_len = 0;
        let start = self.input.pos;
        if self.input.fill()?.is_empty() {
            return Ok(false);
        }
        let gzip_err = |message: &str| WarcError::Gzip {
            offset: start,
            message: message.to_string(),
        };
        let mut head = [0u8; 10];
        if !self.input.read_exact_or_eof(&mut head)? {
            return Err(WarcError::Truncated { offset: start });
        }
        if head[..2] != [0x1f, 0x8b] {
            return Err(gzip_err("not a gzip member (bad magic bytes)"));
        }
        if head[2] != 8 {
            return Err(gzip_err("unknown compression method"));
        }
        let flags = head[3];
        if flags & 0xe0 != 0 {
            return Err(gzip_err("reserved header flags set"));
        }
        let mut complete = true;
        if flags & 0x04 != 0 {
            let mut xlen = [0u8; 2];
            complete = self.input.read_exact_or_eof(&mut xlen)?
                && self.input.skip(usize::from(u16::from_le_bytes(xlen)))?;
        }
        if complete && flags & 0x08 != 0 {
            complete = self.input.skip_cstring()?;
        }
        if complete && flags & 0x10 != 0 {
            complete = self.input.skip_cstring()?;
        }
        if complete && flags & 0x02 != 0 {
            complete = self.input.skip(2)?;
        }
        if !complete {
            return Err(WarcError::Truncated { offset: start });
        }
        self.inflate.reset(false);
        if self.out.is_empty() {
            self.out = vec![0; BUF_LEN];
        }
        self.member = Some(Member {
            start,
            crc: Crc::new(),
            done: false,
        });
        self.content_seen = false;
        Ok(true)
    }

    /// Inflates the next piece of the current member into `out` (left empty when the member
    /// is finished or none is open).
    fn inflate_more(&mut self) -> Result<(), WarcError> {
        self.out_pos = 0;
        self.out_len = 0;
        let Some(member) = self.member.as_mut() else {
            return Ok(());
        };
        while !member.done {
            let input = self.input.fill()?;
            let eof = input.is_empty();
            let (in_before, out_before) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(input, &mut self.out, FlushDecompress::None);
            let consumed = usize::try_from(self.inflate.total_in() - in_before).unwrap_or(0);
            let produced = usize::try_from(self.inflate.total_out() - out_before).unwrap_or(0);
            self.input.consume(consumed);
            let produced = produced.min(self.out.len());
            member.crc.update(&self.out[..produced]);
            self.out_len = produced;
            match status {
                Ok(Status::StreamEnd) => {
                    let mut trailer = [0u8; 8];
                    if !self.input.read_exact_or_eof(&mut trailer)? {
                        return Err(WarcError::Truncated {
                            offset: member.start,
                        });
                    }
                    let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
                    let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
                    if crc != member.crc.sum() || size != member.crc.amount() {
                        return Err(WarcError::Gzip {
                            offset: member.start,
                            message: "CRC or size mismatch in the gzip trailer".to_string(),
                        });
                    }
                    member.done = true;
                }
                Ok(_) if produced == 0 && consumed == 0 => {
                    if eof {
                        return Err(WarcError::Truncated {
                            offset: member.start,
                        });
                    }
                    return Err(WarcError::Gzip {
                        offset: member.start,
                        message: "deflate stream makes no progress".to_string(),
                    });
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(WarcError::Gzip {
                        offset: member.start,
                        message: e.to_string(),
                    });
                }
            }
            if produced > 0 {
                break;
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Builds one serialised WARC/1.1 record; the typed helpers ([`request_record`],
/// [`response_record`], …) cover glaneur's own records, this covers any other (`resource`,
/// `revisit`, `conversion`, …).
#[derive(Debug, Clone)]
pub struct RecordBuilder {
    headers: Vec<(String, String)>,
}

impl RecordBuilder {
    /// Starts a record with `WARC-Type`, `WARC-Record-ID` (wrapped in `<>` if the caller
    /// left them out) and `WARC-Date`.
    pub fn new(record_type: &str, record_id: &str, date: &str) -> Self {
        RecordBuilder {
            headers: Vec::new(),
        }
        .header("WARC-Type", record_type)
        .header("WARC-Record-ID", &angle(record_id))
        .header("WARC-Date", date)
    }

    /// Adds a named field. CR and LF in the name or value become spaces (and `:` in the
    /// name), so a value taken from the web cannot start a new field.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        let name: String = name
            .chars()
            .map(|c| if c.is_control() || c == ':' { ' ' } else { c })
            .collect::<String>()
            .trim()
            .to_string();
        let value: String = value
            .chars()
            .map(|c| if c == '\r' || c == '\n' { ' ' } else { c })
            .collect::<String>()
            .trim()
            .to_string();
        if !name.is_empty() {
            self.headers.push((name, value));
        }
        self
    }

    /// Serialises the record around `block`, adding `WARC-Block-Digest` (unless given) and
    /// `Content-Length` (any given one is replaced by the true length).
    pub fn build(&self, block: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(block.len() + 512);
        out.extend_from_slice(b"WARC/1.1\r\n");
        for (name, value) in &self.headers {
            if name.eq_ignore_ascii_case("Content-Length") {
                continue;
            }
            push_field(&mut out, name, value);
        }
        if find_header(&self.headers, "WARC-Block-Digest").is_none() {
            push_field(&mut out, "WARC-Block-Digest", &sha1_digest(block));
        }
        push_field(&mut out, "Content-Length", &block.len().to_string());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }
}

/// A `warcinfo` record (first record of a file): `fields` become the
/// `application/warc-fields` block (`software`, `format`, `isPartOf`, `robots`, …).
pub fn warcinfo_record(
    filename: &str,
    fields: &[(&str, &str)],
    date: &str,
    record_id: &str,
) -> Vec<u8> {
    RecordBuilder::new("warcinfo", record_id, date)
        .header("WARC-Filename", filename)
        .header("Content-Type", "application/warc-fields")
        .build(&warc_fields_block(fields))
}

/// A `request` record holding the HTTP request as sent; `concurrent_to` is the record id of
/// the matching response.
pub fn request_record(
    target_uri: &str,
    http_request: &[u8],
    date: &str,
    record_id: &str,
    concurrent_to: Option<&str>,
) -> Vec<u8> {
    let mut b =
        RecordBuilder::new("request", record_id, date).header("WARC-Target-URI", target_uri);
    if let Some(id) = concurrent_to {
        b = b.header("WARC-Concurrent-To", &angle(id));
    }
    b = b.header("Content-Type", "application/http;msgtype=request");
    if let Some(payload) = http_payload_offset(http_request).and_then(|i| http_request.get(i..)) {
        b = b.header("WARC-Payload-Digest", &sha1_digest(payload));
    }
    b.build(http_request)
}

/// A `response` record holding the HTTP response as received (status line, headers, blank
/// line, body as transferred). `ip` is the server address; `truncated` the
/// `WARC-Truncated` reason (`length`, `time`, `disconnect`, `unspecified`) when the body
/// was cut. The payload digest covers the body bytes as stored.
pub fn response_record(
    target_uri: &str,
    http_response: &[u8],
    date: &str,
    record_id: &str,
    ip: Option<&str>,
    truncated: Option<&str>,
) -> Vec<u8> {
    let mut b =
        RecordBuilder::new("response", record_id, date).header("WARC-Target-URI", target_uri);
    if let Some(ip) = ip {
        b = b.header("WARC-IP-Address", ip);
    }
    if let Some(reason) = truncated {
        b = b.header("WARC-Truncated", reason);
    }
    b = b.header("Content-Type", "application/http;msgtype=response");
    if let Some(payload) = http_payload_offset(http_response).and_then(|i| http_response.get(i..)) {
        b = b.header("WARC-Payload-Digest", &sha1_digest(payload));
    }
    b.build(http_response)
}

/// A `metadata` record about `target_uri` (e.g. the crawl decision: score, depth, reason),
/// with `fields` as an `application/warc-fields` block; `concurrent_to` links it to the
/// response it describes, as Heritrix does.
pub fn metadata_record(
    target_uri: &str,
    fields: &[(&str, &str)],
    date: &str,
    record_id: &str,
    concurrent_to: Option<&str>,
) -> Vec<u8> {
    let mut b =
        RecordBuilder::new("metadata", record_id, date).header("WARC-Target-URI", target_uri);
    if let Some(id) = concurrent_to {
        b = b.header("WARC-Concurrent-To", &angle(id));
    }
    b.header("Content-Type", "application/warc-fields")
        .build(&warc_fields_block(fields))
}

/// The `application/warc-fields` block for `fields` (`name: value` lines, CR/LF removed).
pub fn warc_fields_block(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in fields {
        let name = name.replace(['\r', '\n', ':'], " ");
        let value = value.replace(['\r', '\n'], " ");
        push_field(&mut out, name.trim(), value.trim());
    }
    out
}

/// Parses an `application/warc-fields` block (warcinfo, metadata) into `(name, value)`
/// pairs; lines without a colon are skipped.
pub fn parse_warc_fields(block: &[u8]) -> Vec<(String, String)> {
    block
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = trim_eol(line);
            let colon = line.iter().position(|&b| b == b':')?;
            let name = decode_header_bytes(&line[..colon]).trim().to_string();
            let value = decode_header_bytes(&line[colon + 1..]).trim().to_string();
            (!name.is_empty()).then_some((name, value))
        })
        .collect()
}

/// `record` compressed as one gzip member (MTIME 0, so output is deterministic). Members
/// written one after another form a valid `.warc.gz` readable at any member offset.
///
/// Level 1: the crawl writes every response as it arrives, and the default level (6) costs
/// three times the CPU of level 1 for files a third smaller (measured on 317 pages of the
/// Python documentation, 90 KB each: 3.0 against 0.9 ms per page, 14 % against 20 % of the
/// original size) — on a fast crawl the archive's compression was the largest CPU cost per page.
///
/// Each thread keeps one compressor and resets it between members: a fresh one allocates and
/// clears its window and hash tables (about 300 KB) for every record, twice per page, which
/// cost more than compressing a short request record. A reset compressor gives the same bytes
/// as a fresh one (a test checks it), so the member still depends on the record alone.
pub fn gzip_member(record: &[u8]) -> Vec<u8> {
    thread_local! {
        static DEFLATE: RefCell<Compress> =
            RefCell::new(Compress::new(flate2::Compression::fast(), false));
    }
    DEFLATE
        .with(|deflate| deflate_member(&mut deflate.borrow_mut(), record))
        // Compressing into a Vec has no failure mode; should the compressor still report one,
        // a stored (uncompressed) member keeps the record rather than losing it.
        .unwrap_or_else(|| stored_gzip_member(record))
}

/// `record` as a gzip member deflated by `deflate` (reset first), or `None` if it fails.
fn deflate_member(deflate: &mut Compress, record: &[u8]) -> Option<Vec<u8>> {
    deflate.reset();
    let mut out = Vec::with_capacity(record.len() / 2 + 64);
    // ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=4 (fastest) OS=255 (unknown), as flate2 writes it.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255]);
    loop {
        let consumed = usize::try_from(deflate.total_in()).ok()?;
        let rest = record.get(consumed..)?;
        if out.capacity() - out.len() < 64 {
            out.reserve(rest.len() / 2 + 1024);
        }
        match deflate.compress_vec(rest, &mut out, FlushCompress::Finish) {
            Ok(flate2::Status::StreamEnd) => break,
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    let mut crc = Crc::new();
    crc.update(record);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // ISIZE is the length modulo 2^32 (RFC 1952).
    out.extend_from_slice(&(record.len() as u32).to_le_bytes());
    Some(out)
}

/// A valid gzip member using stored deflate blocks only.
fn stored_gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65535 * 5 + 32);
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
        out.push(u8::from(last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    let mut crc = Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes());
    out
}

/// `sha1:` + RFC 4648 base32 of the SHA-1 of `data`, the form WARC writers use for
/// `WARC-Block-Digest` and `WARC-Payload-Digest`.
pub fn sha1_digest(data: &[u8]) -> String {
    let hash = Sha1::digest(data);
    format!("sha1:{}", base32(&hash))
}

/// RFC 4648 base32 (upper case, `=` padding).
pub fn base32(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(data.len().div_ceil(5) * 8);
    for chunk in data.chunks(5) {
        let mut group = [0u8; 5];
        group[..chunk.len()].copy_from_slice(chunk);
        let bits = group.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        // 8 output symbols per 5 input bytes; only those covering real input bits are kept.
        let symbols = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < symbols {
                let index = (bits >> (35 - 5 * i)) & 0x1f;
                out.push(char::from(ALPHABET[index as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

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
mod tests {
    #[test]
    fn doubled_protocol_in_the_status_line_is_tolerated() {
        let block = b"HTTP/1.1 HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        let response = parse_http_response(block).unwrap();
        assert_eq!(
            (response.version.as_str(), response.status),
            ("HTTP/1.1", 200)
        );
        assert_eq!(response.reason, "OK");
        assert_eq!(response.body, b"ok");
    }

    use super::*;
    use std::io::Write;

    fn read_all(data: &[u8]) -> (Vec<Record>, Option<WarcError>) {
        let mut records = Vec::new();
        let mut error = None;
        let mut reader = Reader::new(data);
        for item in reader.by_ref() {
            match item {
                Ok(r) => records.push(r),
                Err(e) => error = Some(e),
            }
        }
        assert!(reader.next().is_none(), "iterator must stay finished");
        (records, error)
    }

    #[test]
    fn base32_matches_rfc4648_vectors() {
        let cases: [(&str, &str); 7] = [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ];
        for (input, expected) in cases {
            assert_eq!(base32(input.as_bytes()), expected, "base32({input:?})");
        }
    }

    #[test]
    fn sha1_digest_of_empty_block_is_the_well_known_value() {
        // SHA-1("") = da39a3ee…, which every WARC tool writes for empty blocks.
        assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
    }

    #[test]
    fn built_record_has_warc_1_1_layout() {
        let rec = RecordBuilder::new("resource", "urn:uuid:1", "2024-01-01T00:00:00Z")
            .header("WARC-Target-URI", "http://x/\r\nEvil: yes")
            .header("Content-Length", "999")
            .build(b"abc");
        let text = String::from_utf8_lossy(&rec);
        assert!(
            text.starts_with("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n")
        );
        assert!(text.contains("WARC-Target-URI: http://x/  Evil: yes\r\n"));
        assert!(!text.contains("\r\nEvil"));
        assert!(text.contains("Content-Length: 3\r\n\r\nabc\r\n\r\n"));
        assert_eq!(text.matches("Content-Length").count(), 1);
        let (records, error) = read_all(&rec);
        assert!(error.is_none());
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].verify_block_digest(), Some(true));
        assert_eq!(records[0].length, Some(rec.len() as u64));
    }

    #[test]
    fn a_reused_compressor_writes_what_a_fresh_one_writes() {
        let text: Vec<u8> = "Le corpus d'un linguiste, récolté sur le web. "
            .repeat(5000)
            .into_bytes();
        // Bytes that do not compress: the member is larger than the record.
        let noise: Vec<u8> = (0u32..300_000)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let records: [&[u8]; 5] = [&text, b"", b"GET / HTTP/1.1\r\n\r\n", &noise, &text[..1000]];
        // Each record compressed by a fresh compressor (a thread of its own)...
        let fresh: Vec<Vec<u8>> = records
            .iter()
            .map(|r| {
                let r = r.to_vec();
                std::thread::spawn(move || gzip_member(&r)).join().unwrap()
            })
            .collect();
        // ...then all by this thread's compressor, twice, each after another of another size:
        // the reset must leave nothing behind.
        for _ in 0..2 {
            for (data, first) in records.iter().zip(&fresh) {
                let member = gzip_member(data);
                assert!(&member == first, "record of {} bytes", data.len());
                let mut back = Vec::new();
                flate2::read::GzDecoder::new(&member[..])
                    .read_to_end(&mut back)
                    .unwrap();
                assert!(back == *data, "record of {} bytes", data.len());
            }
        }
        // Level 1 compresses text (here 240 KB of one repeated sentence) to a fraction.
        assert!(fresh[0].len() < text.len() / 20, "{}", fresh[0].len());
    }

    #[test]
    fn stored_member_is_valid_gzip() {
        for len in [0usize, 1, 65535, 65536, 200_000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let member = stored_gzip_member(&data);
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&member[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data, "len {len}");
        }
    }

    #[test]
    fn lying_content_length_is_truncation_not_allocation() {
        let data = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 99999999999999\r\n\r\nabc";
        let mut reader = Reader::new(&data[..]).with_max_block_len(u64::MAX);
        assert!(matches!(
            reader.next(),
            Some(Err(WarcError::Truncated { offset: 0 }))
        ));
        assert!(reader.next().is_none());
        let mut reader = Reader::new(&data[..]);
        assert!(matches!(
            reader.next(),
            Some(Err(WarcError::TooLarge { .. }))
        ));
        assert!(reader.next().is_none());
    }

    #[test]
    fn garbage_gives_one_error() {
        for data in [
            &b"<html>not a warc</html>"[..],
            b"WARC/1.0\r\nno colon here\r\n\r\n",
            b"WARC/1.0\r\nWARC-Type: x\r\n\r\n",
            b"WARC/1.0\r\nContent-Length: -3\r\n\r\n",
            b"\x1f\x8b\x08\x00garbage",
            b"\x1f\x8b",
        ] {
            let (records, error) = read_all(data);
            assert!(records.is_empty());
            assert!(error.is_some(), "{data:?}");
        }
        let (records, error) = read_all(b"\r\n\r\n");
        assert!(records.is_empty() && error.is_none());
    }

    #[test]
    fn corrupt_crc_is_a_gzip_error() {
        let rec = RecordBuilder::new("resource", "<urn:uuid:2>", "2024").build(b"hello");
        let mut member = gzip_member(&rec);
        let n = member.len();
        member[n - 8] ^= 0xff;
        let (records, error) = read_all(&member);
        assert!(records.is_empty());
        assert!(
            matches!(error, Some(WarcError::Gzip { offset: 0, .. })),
            "{error:?}"
        );
    }

    #[test]
    fn lf_only_warc_headers_are_accepted() {
        let data = b"WARC/1.0\nWARC-Type: resource\nWARC-Target-URI: <http://a/>\nX-Folded: a\n  b\nContent-Length: 2\n\nok\n\nWARC/1.0\nWARC-Type: resource\nContent-Length: 0\n\n";
        let (records, error) = read_all(data);
        assert!(error.is_none(), "{error:?}");
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].block, b"ok");
        assert_eq!(records[0].target_uri(), Some("http://a/"));
        assert_eq!(records[0].header("x-folded"), Some("a b"));
        assert_eq!(records[1].offset, records[0].length.unwrap());
    }

    #[test]
    fn http_response_tolerates_lf_and_missing_reason() {
        let r = parse_http_response(b"HTTP/1.0 404\nServer: x\nX-Fold: a\n\tb\nBad line\n\nbody")
            .unwrap();
        assert_eq!(
            (r.version.as_str(), r.status, r.reason.as_str()),
            ("HTTP/1.0", 404, "")
        );
        assert_eq!(r.header("server"), Some("x"));
        assert_eq!(r.header("X-Fold"), Some("a b"));
        assert_eq!(r.body, b"body");
        let r =
            parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=\xe9\r\n")
                .unwrap();
        assert_eq!(r.header("content-type"), Some("text/plain; charset=\u{e9}"));
        assert!(r.body.is_empty());
        assert!(parse_http_response(b"GET / HTTP/1.1\r\n\r\n").is_err());
        assert!(parse_http_response(b"HTTP/1.1 2000 OK\r\n\r\n").is_err());
        assert!(parse_http_response(b"").is_err());
    }

    #[test]
    fn chunked_gzip_body_is_decoded_and_headers_follow() {
        let text: Vec<u8> = (0..400u32)
            .flat_map(|i| format!("ligne {i}: {}\n", i.wrapping_mul(2_654_435_761)).into_bytes())
            .collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let mut msg =
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
                .to_vec();
        for piece in gz.chunks(50) {
            msg.extend_from_slice(format!("{:x};ext=1\r\n", piece.len()).as_bytes());
            msg.extend_from_slice(piece);
            msg.extend_from_slice(b"\r\n");
        }
        msg.extend_from_slice(b"0\r\nTrailer: x\r\n\r\n");
        let r = parse_http_response(&msg).unwrap();
        assert_eq!(r.body, text);
        assert_eq!(r.header("Transfer-Encoding"), None);
        assert_eq!(r.header("Content-Encoding"), None);
        assert!(matches!(
            parse_http_response_with_limit(&msg, 100),
            Err(WarcError::BodyTooLarge { limit: 100 })
        ));
        // Cut inside the gzip data: the decoded prefix is kept.
        let cut = &msg[..msg.len() / 2];
        let r = parse_http_response(cut).unwrap();
        assert!(!r.body.is_empty() && text.starts_with(&r.body));
    }

    #[test]
    fn deflate_zlib_and_raw_and_unknown_codings() {
        let text = b"abcabcabcabc deflate me".to_vec();
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&text).unwrap();
        let zlib = z.finish().unwrap();
        let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        d.write_all(&text).unwrap();
        let raw = d.finish().unwrap();
        for body in [zlib, raw] {
            let mut msg =
                b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: 5\r\n\r\n"
                    .to_vec();
            msg.extend_from_slice(&body);
            let r = parse_http_response(&msg).unwrap();
            assert_eq!(r.body, text);
            assert_eq!(
                r.header("content-length"),
                Some(text.len().to_string().as_str())
            );
        }
        let r = parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n\x0b\x01\x80")
            .unwrap();
        assert_eq!(r.header("content-encoding"), Some("br"));
        assert_eq!(r.body, b"\x0b\x01\x80");
        // Declared gzip but plain text: kept as is, with the field.
        let r =
            parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\nplain").unwrap();
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        assert_eq!(r.body, b"plain");
        // Declared chunked but not chunked.
        let r = parse_http_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n<html>")
            .unwrap();
        assert_eq!(r.body, b"<html>");
        assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    }

    #[test]
    fn request_line() {
        assert_eq!(
            parse_http_request_line(b"GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n"),
            Some(("GET".to_string(), "/a?b=c".to_string()))
        );
        assert_eq!(
            parse_http_request_line(b"POST http://x/ HTTP/1.0\n\n"),
            Some(("POST".to_string(), "http://x/".to_string()))
        );
        assert_eq!(parse_http_request_line(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(parse_http_request_line(b"G(T / HTTP/1.1\r\n"), None);
        assert_eq!(parse_http_request_line(b""), None);
    }

    #[test]
    fn warc_fields_round_trip() {
        let block = warc_fields_block(&[
            ("software", "glaneur"),
            ("bad\nname", "a\r\nb"),
            ("empty", ""),
        ]);
        assert_eq!(
            parse_warc_fields(&block),
            vec![
                ("software".to_string(), "glaneur".to_string()),
                ("bad name".to_string(), "a  b".to_string()),
                ("empty".to_string(), String::new()),
            ]
        );
    }

    #[test]
    fn complete_prefix_of_plain_data() {
        let a = RecordBuilder::new("resource", "<urn:uuid:a>", "d").build(b"one");
        let b = RecordBuilder::new("resource", "<urn:uuid:b>", "d").build(b"two");
        let mut data = a.clone();
        data.extend_from_slice(&b);
        assert_eq!(complete_prefix_len(&data[..]).unwrap(), data.len() as u64);
        assert_eq!(
            complete_prefix_len(&data[..data.len() - 7]).unwrap(),
            a.len() as u64
        );
        assert_eq!(complete_prefix_len(&b""[..]).unwrap(), 0);
    }
}
