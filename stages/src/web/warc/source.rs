//! The bytes under the reader: plain or gzip input, detected on the first bytes, read member by
//! member so that each record's offset and length in the file are known.
//!
//! **In:** the raw stream. **Out:** decompressed bytes, lines and blocks with the offsets of the
//! gzip members they came from.
//!
//! **Invariants:** input is read in buffers of [`BUF_LEN`] bytes, so memory follows the bytes
//! actually read; a corrupt member is an error, never a panic.

use std::io::{self, Read};

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::{BUF_LEN, WarcError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Unknown,
    Plain,
    Gzip,
}

/// Buffered input that counts the bytes consumed, so gzip member offsets are exact.
pub(super) struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes consumed so far: the stream offset of `buf[start]`.
    pub(super) pos: u64,
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
pub(super) struct Source<R> {
    pub(super) input: Input<R>,
    pub(super) mode: Mode,
    inflate: Decompress,
    member: Option<Member>,
    out: Vec<u8>,
    out_pos: usize,
    out_len: usize,
    /// Whether a record has started in the current member (or, in plain data, ever).
    pub(super) content_seen: bool,
}

impl<R: Read> Source<R> {
    pub(super) fn new(inner: R) -> Self {
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

    pub(super) fn detect(&mut self) -> Result<(), WarcError> {
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
    pub(super) fn record_offset(&self) -> u64 {
        match (&self.mode, &self.member) {
            (Mode::Gzip, Some(m)) => m.start,
            _ => self.input.pos,
        }
    }

    /// Decoded bytes of the current member (plain: of the stream); empty when the member is
    /// finished — its trailer read and checked — or the plain stream has ended.
    pub(super) fn peek(&mut self) -> Result<&[u8], WarcError> {
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
    pub(super) fn peek_any(&mut self) -> Result<&[u8], WarcError> {
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

    pub(super) fn consume(&mut self, n: usize) {
        match self.mode {
            Mode::Gzip => self.out_pos = (self.out_pos + n).min(self.out_len),
            Mode::Plain | Mode::Unknown => self.input.consume(n),
        }
    }

    /// Appends one line (through `\n`, or to end of stream) to `line`; false when the
    /// stream had already ended.
    pub(super) fn read_line(
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
    pub(super) fn next_member(&mut self) -> Result<bool, WarcError> {
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
