//! The targets of a graph's edges: held in memory, or kept outside it (in storage the caller
//! owns, e.g. a scratch file) and read back a source's links, or all of them in order, at a
//! time.
//!
//! **In:** per edge, in the graph's final edge order (grouped by source), its target's node
//! index.
//! **Out:** the same, by source node (`range` of the edge indices) or source after source.
//!
//! **Invariants:** kept outside, edge `k`'s target is the four bytes (little-endian) at
//! `4 k`; a read error is kept (the first one) for the caller to report and the targets read
//! are then node 0: the graph's readers stay infallible, their caller checks the error once
//! the files are written, as for the anchors.

use std::io;
use std::ops::{Deref, Range};
use std::sync::Arc;

use super::scratch::{FirstError, LastBlock, ScratchStore};

/// Bytes of one target.
const WIDTH: usize = 4;

/// Targets read at a time when going through every edge in order (1 MiB).
const READ_AHEAD: usize = 1 << 18;

/// Where a graph's edge targets are.
pub(super) enum Targets {
    /// In memory, in edge order.
    Held(Vec<u32>),
    /// Outside the graph, read back through the store.
    Outside(Outside),
}

impl Default for Targets {
    fn default() -> Targets {
        Targets::Held(Vec::new())
    }
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Targets::Held(v) => write!(f, "Targets::Held({} edges)", v.len()),
            Targets::Outside(_) => write!(f, "Targets::Outside"),
        }
    }
}

/// A source's targets: borrowed from memory or shared from the last block read.
pub(super) enum Slice<'a> {
    Borrowed(&'a [u32]),
    Shared(Arc<[u32]>),
}

impl Deref for Slice<'_> {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match self {
            Slice::Borrowed(s) => s,
            Slice::Shared(s) => s,
        }
    }
}

/// Edge targets kept outside the graph.
pub(super) struct Outside {
    store: Box<dyn ScratchStore>,
    /// The last node whose targets were read, and them: a caller going through one source's
    /// links one at a time reads them once.
    last: LastBlock<[u32]>,
    error: FirstError,
}

impl Outside {
    pub(super) fn new(store: Box<dyn ScratchStore>) -> Outside {
        Outside {
            store,
            last: LastBlock::default(),
            error: FirstError::default(),
        }
    }

    /// Targets `range` into `out` (zeros, with the error kept, when the store fails).
    fn read(&self, range: Range<usize>, out: &mut Vec<u32>) {
        let mut bytes = vec![0u8; range.len() * WIDTH];
        if let Err(e) = self.store.read_at((range.start * WIDTH) as u64, &mut bytes) {
            self.error.keep(e);
            bytes.fill(0);
        }
        out.extend(
            bytes
                .chunks_exact(WIDTH)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
    }
}

impl Targets {
    /// The targets of node `node`'s links, edges `range`.
    pub(super) fn of(&self, node: usize, range: Range<usize>) -> Slice<'_> {
        match self {
            Targets::Held(v) => Slice::Borrowed(v.get(range).unwrap_or_default()),
            Targets::Outside(o) => {
                if let Some(block) = o.last.get(node) {
                    return Slice::Shared(block);
                }
                let mut block = Vec::with_capacity(range.len());
                o.read(range, &mut block);
                let block: Arc<[u32]> = block.into();
                o.last.put(node, &block);
                Slice::Shared(block)
            }
        }
    }

    /// The first error met reading targets kept outside, taken.
    pub(super) fn take_error(&self) -> Option<io::Error> {
        match self {
            Targets::Held(_) => None,
            Targets::Outside(o) => o.error.take(),
        }
    }

    /// A reader of every target in order (the edges `0 .. total`).
    pub(super) fn in_order(&self, total: usize) -> InOrder<'_> {
        InOrder {
            targets: self,
            total,
            buf: Vec::new(),
            buf_start: 0,
        }
    }
}

/// The targets of a graph, source after source, read [`READ_AHEAD`] at a time when outside.
pub(super) struct InOrder<'a> {
    targets: &'a Targets,
    total: usize,
    /// Targets `buf_start .. buf_start + buf.len()`.
    buf: Vec<u32>,
    buf_start: usize,
}

impl InOrder<'_> {
    /// The targets of edges `range`, which start at or after the previous call's start.
    pub(super) fn next(&mut self, range: Range<usize>) -> &[u32] {
        let outside = match self.targets {
            Targets::Held(v) => return v.get(range).unwrap_or_default(),
            Targets::Outside(o) => o,
        };
        let end = range.end.min(self.total);
        let start = range.start.min(end);
        let have = self.buf_start + self.buf.len();
        if start < self.buf_start || end > have {
            // Keep what this range still needs, read on past its end.
            if start < self.buf_start || start >= have {
                self.buf.clear();
            } else {
                self.buf.drain(..start - self.buf_start);
            }
            self.buf_start = start;
            let have = self.buf_start + self.buf.len();
            let upto = end.max(have + READ_AHEAD).min(self.total);
            outside.read(have..upto, &mut self.buf);
        }
        &self.buf[start - self.buf_start..end - self.buf_start]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outside(values: &[u32]) -> Targets {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Targets::Outside(Outside::new(Box::new(bytes)))
    }

    #[test]
    fn targets_come_back_by_node_and_in_order_across_read_pieces() {
        // More targets than one read piece, in uneven groups, one group across the boundary.
        let values: Vec<u32> = (0..(READ_AHEAD as u32 * 2 + 17))
            .map(|v| v ^ 0x5a5a)
            .collect();
        let outside = outside(&values);
        let held = Targets::Held(values.clone());
        let mut starts = vec![0usize, 3, 3, READ_AHEAD - 5, READ_AHEAD + 9];
        starts.push(values.len() - 1);
        starts.push(values.len());
        let (mut a, mut b) = (outside.in_order(values.len()), held.in_order(values.len()));
        for (node, w) in starts.windows(2).enumerate() {
            let range = w[0]..w[1];
            assert_eq!(a.next(range.clone()), &values[range.clone()]);
            assert_eq!(b.next(range.clone()), &values[range.clone()]);
            assert_eq!(&*outside.of(node, range.clone()), &values[range.clone()]);
            assert_eq!(&*held.of(node, range.clone()), &values[range]);
        }
        // The same node again: the block read before, not a second read.
        let (Slice::Shared(x), Slice::Shared(y)) = (outside.of(5, 1..2), outside.of(5, 1..2))
        else {
            panic!("outside targets are shared blocks");
        };
        assert!(Arc::ptr_eq(&x, &y));
        assert!(outside.take_error().is_none());
    }

    #[test]
    fn a_failing_store_gives_node_zero_and_one_error() {
        let outside = outside(&[7, 8]);
        assert_eq!(&*outside.of(0, 1..4), &[0, 0, 0]);
        assert_eq!(outside.in_order(3).next(0..3), &[0, 0, 0]);
        let e = outside.take_error().expect("the read error");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(outside.take_error().is_none());
    }
}
