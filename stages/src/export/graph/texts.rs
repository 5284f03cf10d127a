//! The anchors and link counts of a graph's edges: held in memory, or kept outside it (in
//! storage the caller owns, e.g. a scratch file) and read back a source's links, or all of
//! them in order, at a time.
//!
//! **In:** per edge, in the graph's final edge order, its anchor text and link count.
//! **Out:** the same, by source node or in order.
//!
//! **Invariants:** kept outside, the records are written in the final edge order (edges
//! grouped by source, as a store lists them), so node `i`'s records are the bytes
//! `block_start[i] .. block_start[i + 1]`; a read error is kept (the first one) for the caller
//! to report, and the text read is then empty: the graph's readers stay infallible, as the
//! in-memory ones are.

use std::borrow::Cow;
use std::io;
use std::sync::Arc;

use super::scratch::{FirstError, LastBlock, ScratchStore};

use crate::pool::StrPool;

/// One record: the count (u32 LE), the anchor's length in bytes (u32 LE), the anchor.
const HEAD: usize = 8;

/// Appends the record of one edge to `out`; its length in bytes.
pub(super) fn encode(out: &mut Vec<u8>, anchor: &str, count: u32) -> u64 {
    // An anchor longer than 4 GiB cannot come from a page the crawl kept; cut, not lost whole.
    let bytes = &anchor.as_bytes()[..anchor.len().min(u32::MAX as usize)];
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
    (HEAD + bytes.len()) as u64
}

/// The records of `bytes`, in order (a truncated tail is dropped).
fn decode(bytes: &[u8]) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((record, len)) = decode_one(&bytes[at..]) {
        out.push(record);
        at += len;
    }
    out
}

fn decode_one(bytes: &[u8]) -> Option<((String, u32), usize)> {
    let head: &[u8; HEAD] = bytes.get(..HEAD)?.try_into().ok()?;
    let count = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
    let text = bytes.get(HEAD..HEAD + len)?;
    Some((
        (String::from_utf8_lossy(text).into_owned(), count),
        HEAD + len,
    ))
}

/// One node's links' anchors and counts, in edge order (shared: a hub's thousands of links
/// are read once, and each link asked for is one clone of its anchor, not of the block).
pub(super) type Block = Arc<[(String, u32)]>;

/// Where a graph's anchors and counts are.
pub(super) enum Texts {
    /// In memory: per edge, its anchor's number in `pool` and its count.
    Held {
        anchor: Vec<u32>,
        count: Vec<u32>,
        pool: StrPool,
    },
    /// Outside the graph, read back through `store`.
    Outside(Outside),
}

impl Default for Texts {
    fn default() -> Texts {
        Texts::Held {
            anchor: Vec::new(),
            count: Vec::new(),
            pool: StrPool::default(),
        }
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Texts::Held { anchor, .. } => write!(f, "Texts::Held({} edges)", anchor.len()),
            Texts::Outside(o) => write!(f, "Texts::Outside({} nodes)", o.block_start.len()),
        }
    }
}

/// Anchors and counts kept outside the graph.
pub(super) struct Outside {
    pub(super) store: Box<dyn ScratchStore>,
    /// Node `i`'s records are the bytes `block_start[i] .. block_start[i + 1]`.
    pub(super) block_start: Vec<u64>,
    /// The last node whose records were read, and them: a caller going through one source's
    /// links one at a time reads its records once.
    last: LastBlock<[(String, u32)]>,
    error: FirstError,
}

/// Bytes read at a time when going through every record in order.
const READ_AHEAD: usize = 1 << 20;

impl Outside {
    pub(super) fn new(store: Box<dyn ScratchStore>, block_start: Vec<u64>) -> Outside {
        Outside {
            store,
            block_start,
            last: LastBlock::default(),
            error: FirstError::default(),
        }
    }

    pub(super) fn take_error(&self) -> Option<io::Error> {
        self.error.take()
    }

    /// Node `i`'s records (`expected` of them; missing ones come back empty, with the error
    /// kept).
    pub(super) fn block(&self, i: usize, expected: usize) -> Block {
        if let Some(records) = self.last.get(i) {
            return records;
        }
        let at = |i: usize| self.block_start.get(i).copied().unwrap_or(0);
        let (from, to) = (at(i), at(i + 1).max(at(i)));
        let mut bytes = vec![0; (to - from) as usize];
        let mut records = match self.store.read_at(from, &mut bytes) {
            Ok(()) => decode(&bytes),
            Err(e) => {
                self.error.keep(e);
                Vec::new()
            }
        };
        if records.len() != expected {
            if records.len() < expected && !self.error.is_kept() {
                self.error.keep(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the links of node {i}: {} records of {expected}",
                        records.len()
                    ),
                ));
            }
            records.resize(expected, (String::new(), 0));
        }
        let records: Block = records.into();
        self.last.put(i, &records);
        records
    }

    /// Every record in order, read [`READ_AHEAD`] bytes at a time.
    pub(super) fn in_order(&self) -> InOrder<'_> {
        InOrder {
            outside: self,
            offset: 0,
            end: self.block_start.last().copied().unwrap_or(0),
            buf: Vec::new(),
            pos: 0,
        }
    }
}

/// The records of an [`Outside`] in order.
pub(super) struct InOrder<'a> {
    outside: &'a Outside,
    /// Storage offset of `buf`'s end.
    offset: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl InOrder<'_> {
    /// The next record (an empty one, with the error kept, when the storage fails).
    pub(super) fn next_record(&mut self) -> (Cow<'static, str>, u32) {
        loop {
            if let Some(((text, count), len)) = decode_one(&self.buf[self.pos..]) {
                self.pos += len;
                return (Cow::Owned(text), count);
            }
            if self.offset >= self.end {
                self.outside.error.keep(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the links' anchors end before the links",
                ));
                return (Cow::Borrowed(""), 0);
            }
            // Keep the partial record, read the next piece after it.
            self.buf.drain(..self.pos);
            self.pos = 0;
            let want = READ_AHEAD.max(self.buf.len() + HEAD + 1);
            let n = want.min((self.end - self.offset) as usize);
            let old = self.buf.len();
            self.buf.resize(old + n, 0);
            if let Err(e) = self
                .outside
                .store
                .read_at(self.offset, &mut self.buf[old..])
            {
                self.outside.error.keep(e);
                self.offset = self.end;
                self.buf.truncate(old);
                return (Cow::Borrowed(""), 0);
            }
            // A record longer than what is buffered is read on until it fits.
            self.offset += n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_by_block_and_in_order_across_read_pieces() {
        // Node 0: two links; node 1: none; node 2: one anchor longer than a read piece.
        let long = "é".repeat(READ_AHEAD);
        let mut bytes = Vec::new();
        let mut starts = vec![0];
        encode(&mut bytes, "première", 1);
        encode(&mut bytes, "", 3);
        starts.push(bytes.len() as u64);
        starts.push(bytes.len() as u64);
        encode(&mut bytes, &long, 7);
        starts.push(bytes.len() as u64);
        let outside = Outside::new(Box::new(bytes), starts);
        assert_eq!(
            *outside.block(0, 2),
            [("première".to_string(), 1), (String::new(), 3)]
        );
        assert!(outside.block(1, 0).is_empty());
        let first = outside.block(2, 1);
        assert_eq!(*first, [(long.clone(), 7)]);
        // Read again: the cached block itself, not a copy.
        assert!(Arc::ptr_eq(&first, &outside.block(2, 1)));
        let mut all = outside.in_order();
        let got: Vec<(String, u32)> = (0..3)
            .map(|_| {
                let (t, c) = all.next_record();
                (t.into_owned(), c)
            })
            .collect();
        assert_eq!(
            got,
            vec![("première".to_string(), 1), (String::new(), 3), (long, 7)]
        );
        assert!(outside.take_error().is_none());
        // Past the end: empty, and the error is kept for the caller.
        assert_eq!(all.next_record(), (Cow::Borrowed(""), 0));
        assert!(outside.take_error().is_some());
    }

    #[test]
    fn a_failing_store_gives_empty_texts_and_one_error() {
        let outside = Outside::new(Box::new(Vec::<u8>::new()), vec![0, 20]);
        assert_eq!(
            *outside.block(0, 2),
            [(String::new(), 0), (String::new(), 0)]
        );
        assert_eq!(outside.in_order().next_record(), (Cow::Borrowed(""), 0));
        let e = outside.take_error().expect("the read error");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(outside.take_error().is_none());
    }
}
