//! The pages per (host, paragraph key) of the host-boilerplate count, counted in a bounded
//! buffer that spills sorted runs to disk.
//!
//! **In:** for every page, its host's number and its distinct paragraph keys
//! ([`stages::corpus::host_boilerplate::RepeatCounter::add_page`]).
//! **Out:** every (host, key) with its number of pages, in (host, key) order, once.
//!
//! **Invariants:** the counts are exact whatever the buffer's size; memory is the buffer
//! ([`BUFFER_ENTRIES`] entries of 16 bytes) and one read buffer per run, not the corpus's
//! distinct paragraphs (on a million pages of distinct text, tens of millions); a run file cut
//! short is an error naming it; runs live in the stage's scratch folder.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use anyhow::Context;

/// Entries held before the buffer is folded (and spilled when it stays large): 64 MiB.
pub(super) const BUFFER_ENTRIES: usize = 1 << 22;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    host: u32,
    key: u64,
    count: u32,
}

/// A counter of (host, key) pairs.
pub(super) struct KeyCounts {
    dir: PathBuf,
    limit: usize,
    buffer: Vec<Entry>,
    runs: Vec<PathBuf>,
}

impl KeyCounts {
    /// A counter whose runs go to `dir`, folding its buffer every `limit` entries.
    pub(super) fn new(dir: PathBuf, limit: usize) -> KeyCounts {
        KeyCounts {
            dir,
            limit: limit.max(2),
            buffer: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// Counts one page's distinct keys on its host.
    pub(super) fn add(&mut self, host: u32, keys: &[u64]) -> anyhow::Result<()> {
        for &key in keys {
            self.buffer.push(Entry {
                host,
                key,
                count: 1,
            });
            if self.buffer.len() >= self.limit {
                fold(&mut self.buffer);
                // Still large once folded: the keys are mostly distinct, so they go to disk.
                if self.buffer.len() > self.limit / 2 {
                    self.spill()?;
                }
            }
        }
        Ok(())
    }

    fn spill(&mut self) -> anyhow::Result<()> {
        let path = self.dir.join(format!("repeats-{}.bin", self.runs.len()));
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for e in &self.buffer {
            let mut record = [0u8; 16];
            record[..4].copy_from_slice(&e.host.to_le_bytes());
            record[4..12].copy_from_slice(&e.key.to_le_bytes());
            record[12..].copy_from_slice(&e.count.to_le_bytes());
            out.write_all(&record)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        out.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
        self.buffer.clear();
        self.runs.push(path);
        Ok(())
    }

    /// Gives every (host, key) with its pages, in order, to `each`; removes the runs.
    pub(super) fn finish(
        mut self,
        mut each: impl FnMut((u32, u64), u32) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        fold(&mut self.buffer);
        if self.runs.is_empty() {
            for e in std::mem::take(&mut self.buffer) {
                each((e.host, e.key), e.count)?;
            }
            return Ok(());
        }
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        self.buffer = Vec::new();
        let mut readers = Vec::with_capacity(self.runs.len());
        for path in &self.runs {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            readers.push((path, BufReader::with_capacity(1 << 16, file)));
        }
        let mut heap = BinaryHeap::new();
        for (i, (path, r)) in readers.iter_mut().enumerate() {
            if let Some(e) = next(path, r)? {
                heap.push(Reverse((e, i)));
            }
        }
        let mut current: Option<Entry> = None;
        while let Some(Reverse((e, i))) = heap.pop() {
            if let Some((path, r)) = readers.get_mut(i)
                && let Some(n) = next(path, r)?
            {
                heap.push(Reverse((n, i)));
            }
            match &mut current {
                Some(c) if (c.host, c.key) == (e.host, e.key) => {
                    c.count = c.count.saturating_add(e.count);
                }
                _ => {
                    if let Some(c) = current.replace(e) {
                        each((c.host, c.key), c.count)?;
                    }
                }
            }
        }
        if let Some(c) = current {
            each((c.host, c.key), c.count)?;
        }
        for path in &self.runs {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
        Ok(())
    }
}

/// Sorts the buffer by (host, key) and sums the counts of equal pairs.
fn fold(buffer: &mut Vec<Entry>) {
    buffer.sort_unstable();
    buffer.dedup_by(|later, kept| {
        if (later.host, later.key) == (kept.host, kept.key) {
            kept.count = kept.count.saturating_add(later.count);
            true
        } else {
            false
        }
    });
}

/// The next record of a run (None at its end).
fn next(path: &std::path::Path, r: &mut impl Read) -> anyhow::Result<Option<Entry>> {
    let mut record = [0u8; 16];
    let mut filled = 0;
    while filled < record.len() {
        let n = r
            .read(&mut record[filled..])
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    match filled {
        0 => Ok(None),
        16 => {
            let word = |a: usize| {
                u32::from_le_bytes([record[a], record[a + 1], record[a + 2], record[a + 3]])
            };
            let mut key = [0u8; 8];
            key.copy_from_slice(&record[4..12]);
            Ok(Some(Entry {
                host: word(0),
                key: u64::from_le_bytes(key),
                count: word(12),
            }))
        }
        _ => anyhow::bail!("{} is cut short (a damaged scratch file)", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts of generated pages: with a buffer so small that it spills many runs, with one
    /// that folds without spilling, and with one large enough to hold everything, the counts
    /// are those of a map.
    #[test]
    fn spilled_runs_count_like_a_map() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut pages: Vec<(u32, Vec<u64>)> = Vec::new();
        let mut state = 7u64;
        for p in 0..3_000u64 {
            let mut keys: Vec<u64> = (0..8)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    // Half the keys repeat (a footer-like pool of 40), half are nearly unique.
                    if state >> 63 == 0 {
                        (state >> 40) % 40
                    } else {
                        state >> 8
                    }
                })
                .collect();
            keys.sort_unstable();
            keys.dedup();
            pages.push(((p % 3) as u32, keys));
        }
        let mut expected: std::collections::BTreeMap<(u32, u64), u32> = Default::default();
        for (host, keys) in &pages {
            for &k in keys {
                *expected.entry((*host, k)).or_default() += 1;
            }
        }
        for limit in [100, 4_000, 1 << 20] {
            let mut counts = KeyCounts::new(dir.path().to_path_buf(), limit);
            for (host, keys) in &pages {
                counts.add(*host, keys).expect("add");
            }
            let spilled = counts.runs.len();
            let mut got: Vec<((u32, u64), u32)> = Vec::new();
            counts
                .finish(|k, n| {
                    got.push((k, n));
                    Ok(())
                })
                .expect("finish");
            assert_eq!(
                got,
                expected.clone().into_iter().collect::<Vec<_>>(),
                "{limit}"
            );
            assert_eq!(spilled > 0, limit < 1 << 20, "{limit}: {spilled} runs");
            assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
        }
    }

    #[test]
    fn a_damaged_run_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut counts = KeyCounts::new(dir.path().to_path_buf(), 4);
        counts.add(0, &[1, 2, 3, 4, 5, 6, 7, 8]).expect("add");
        let run = counts.runs[0].clone();
        let bytes = std::fs::read(&run).expect("run");
        std::fs::write(&run, &bytes[..bytes.len() - 3]).expect("cut");
        let err = counts.finish(|_, _| Ok(())).expect_err("cut short");
        assert!(err.to_string().contains("repeats-0.bin"), "{err}");
    }
}
