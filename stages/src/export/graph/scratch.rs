//! What the graph's parts kept outside memory share: the storage they are read back from, the
//! first read error, and the last node's block read.
//!
//! **In:** the caller's storage. **Out:** reads, a kept error, a cached block.
//!
//! **Invariants:** only the first error is kept, and taken once; the cached block is the last
//! one put, whatever the thread that put it (a writer going through one source's links one at
//! a time reads them once).

use std::io;
use std::sync::{Arc, Mutex};

/// Storage the graph reads what it keeps outside memory back from (its edges' anchors and
/// counts, its edge targets): the bytes a [`super::LinkGraphBuilder::outside`] sink received,
/// in the order it received them.
pub trait ScratchStore: Send + Sync {
    /// Fills `buf` with the bytes from `offset` on.
    ///
    /// # Errors
    /// The storage's (a short read is an error).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

/// Bytes in memory as a store (a short read is an error).
#[cfg(test)]
impl ScratchStore for Vec<u8> {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let from = usize::try_from(offset).unwrap_or(usize::MAX);
        let src = self
            .get(from..from.saturating_add(buf.len()))
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "short"))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// The first read error, kept for the caller to take.
#[derive(Default)]
pub(super) struct FirstError(Mutex<Option<io::Error>>);

impl FirstError {
    /// Keeps `e` unless an error is kept already.
    pub(super) fn keep(&self, e: io::Error) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(e);
        }
    }

    /// Whether an error is kept.
    pub(super) fn is_kept(&self) -> bool {
        self.0.lock().is_ok_and(|e| e.is_some())
    }

    /// The error kept, taken.
    pub(super) fn take(&self) -> Option<io::Error> {
        self.0.lock().ok().and_then(|mut e| e.take())
    }
}

/// The last node whose block was read, and the block.
pub(super) struct LastBlock<T: ?Sized>(Mutex<Option<(usize, Arc<T>)>>);

impl<T: ?Sized> Default for LastBlock<T> {
    fn default() -> LastBlock<T> {
        LastBlock(Mutex::new(None))
    }
}

impl<T: ?Sized> LastBlock<T> {
    /// Node `node`'s block, when it is the last one put.
    pub(super) fn get(&self, node: usize) -> Option<Arc<T>> {
        let last = self.0.lock().ok()?;
        let (i, block) = last.as_ref()?;
        (*i == node).then(|| Arc::clone(block))
    }

    /// Keeps `block` as node `node`'s.
    pub(super) fn put(&self, node: usize, block: &Arc<T>) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some((node, Arc::clone(block)));
        }
    }
}
