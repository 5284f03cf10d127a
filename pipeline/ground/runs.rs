//! Sorted runs of strings on disk, merged back in byte order: how a vocabulary or a lexicon
//! too large for memory is kept while a corpus is read.
//!
//! **In:** runs, each a list of distinct strings in byte order with a fixed-size payload each
//! ([`write_run`]). **Out:** every distinct string of the runs once, in byte order, with the
//! payloads it had in the runs, in run order ([`merge_runs`]).
//!
//! **Invariants:** memory is one read buffer and one string per run; a run file cut short,
//! out of order, or not UTF-8 is an error naming it, never a wrong merge.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Longest string a run holds: no token or value is near it, so a longer length read back is
/// damage, not an allocation.
const LONGEST: usize = 1 << 24;

/// Writes `entries` (strings in byte order, each with a payload of the same length) to `path`:
/// records of `u32` length, the string's bytes, the payload; little-endian.
pub fn write_run<'a, P: AsRef<[u8]>>(
    path: &Path,
    entries: impl Iterator<Item = (&'a str, P)>,
) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for (text, payload) in entries {
        // Longer strings are cut at the bound (on a character boundary): a run never holds
        // what it cannot read back.
        let mut len = text.len().min(LONGEST);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        out.write_all(&(len as u32).to_le_bytes())
            .and_then(|()| out.write_all(&text.as_bytes()[..len]))
            .and_then(|()| out.write_all(payload.as_ref()))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Calls `each` with every distinct string of the runs at `paths` (written by [`write_run`]
/// with payloads of `payload` bytes) in byte order, and its payloads one after the other, in
/// the order of the runs.
pub fn merge_runs(
    paths: &[PathBuf],
    payload: usize,
    mut each: impl FnMut(&str, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut readers = Vec::with_capacity(paths.len());
    for path in paths {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        readers.push(Run {
            path,
            reader: BufReader::with_capacity(1 << 16, file),
            payload: vec![0; payload],
        });
    }
    let mut heap = BinaryHeap::new();
    for (i, run) in readers.iter_mut().enumerate() {
        if let Some(text) = run.next()? {
            heap.push(Reverse((text, i)));
        }
    }
    let (mut current, mut payloads) = (None::<String>, Vec::new());
    while let Some(Reverse((text, i))) = heap.pop() {
        let Some(run) = readers.get_mut(i) else {
            continue;
        };
        if let Some(previous) = current.take_if(|c| *c != text) {
            each(&previous, &payloads)?;
            payloads.clear();
        }
        payloads.extend_from_slice(&run.payload);
        current = Some(text);
        if let Some(next) = run.next()? {
            if current.as_ref().is_some_and(|c| next <= *c) {
                anyhow::bail!("{} is not in byte order (damaged)", run.path.display());
            }
            heap.push(Reverse((next, i)));
        }
    }
    match current {
        Some(text) => each(&text, &payloads),
        None => Ok(()),
    }
}

/// One run being read: its next string is in the heap, that string's payload here.
struct Run<'a> {
    path: &'a Path,
    reader: BufReader<std::fs::File>,
    payload: Vec<u8>,
}

impl Run<'_> {
    /// The next string (its payload in `self.payload`), `None` at the end.
    fn next(&mut self) -> anyhow::Result<Option<String>> {
        let damaged = || anyhow::anyhow!("{} is damaged (cut in a record)", self.path.display());
        if self
            .reader
            .fill_buf()
            .with_context(|| format!("cannot read {}", self.path.display()))?
            .is_empty()
        {
            return Ok(None);
        }
        let mut len = [0u8; 4];
        self.reader.read_exact(&mut len).map_err(|_| damaged())?;
        let len = u32::from_le_bytes(len) as usize;
        if len > LONGEST {
            return Err(damaged());
        }
        let mut bytes = vec![0u8; len];
        self.reader.read_exact(&mut bytes).map_err(|_| damaged())?;
        self.reader
            .read_exact(&mut self.payload)
            .map_err(|_| damaged())?;
        let text = String::from_utf8(bytes).map_err(|_| damaged())?;
        Ok(Some(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_into_each_string_once_with_every_payload() {
        let dir = tempfile::tempdir().unwrap();
        let runs: [&[(&str, u8)]; 4] = [
            &[("calque", 1), ("masque", 2), ("été", 3)],
            &[],
            &[("", 4), ("calque", 5), ("zinc", 6)],
            &[("masque", 7), ("été", 8)],
        ];
        let paths: Vec<PathBuf> = runs
            .iter()
            .enumerate()
            .map(|(k, run)| {
                let path = dir.path().join(format!("run{k}"));
                write_run(&path, run.iter().map(|&(t, p)| (t, [p, 0]))).unwrap();
                path
            })
            .collect();
        let mut merged = Vec::new();
        merge_runs(&paths, 2, |text, payloads| {
            merged.push((text.to_string(), payloads.to_vec()));
            Ok(())
        })
        .unwrap();
        let want: Vec<(String, Vec<u8>)> = [
            ("", vec![4, 0]),
            ("calque", vec![1, 0, 5, 0]),
            ("masque", vec![2, 0, 7, 0]),
            ("zinc", vec![6, 0]),
            ("été", vec![3, 0, 8, 0]),
        ]
        .into_iter()
        .map(|(t, p)| (t.to_string(), p))
        .collect();
        assert_eq!(merged, want);
        // Cut short, out of order: errors naming the run.
        let bytes = std::fs::read(&paths[0]).unwrap();
        std::fs::write(&paths[0], &bytes[..bytes.len() - 1]).unwrap();
        let err = merge_runs(&paths, 2, |_, _| Ok(())).unwrap_err();
        assert!(format!("{err:#}").contains("run0 is damaged"), "{err:#}");
        write_run(
            &paths[0],
            [("zinc", [0u8, 0]), ("calque", [0, 0])].into_iter(),
        )
        .unwrap();
        let err = merge_runs(&paths, 2, |_, _| Ok(())).unwrap_err();
        assert!(
            format!("{err:#}").contains("run0 is not in byte order"),
            "{err:#}"
        );
    }
}
