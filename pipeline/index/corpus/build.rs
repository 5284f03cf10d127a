//! Building an index from a vertical file (the layout is in the parent module's docs).
//!
//! **In:** a `.vrt` file and the names of its columns. **Out:** the index folder.
//!
//! **Invariants:** memory is fixed buffers, at most [`VALUES_IN_MEMORY`] distinct values per
//! attribute (the rest wait in sorted runs) and the open regions, not the tokens or the
//! lexicons; the index is written into a staging folder beside the target, then moved into
//! place.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use stages::explore::build::{IndexBuilder, Lexicons, Values};

use super::{Built, FORMAT, Manifest, regions};
use crate::ground::runs;

/// Token ids kept in memory before they are written to the staging folder.
const IDS_IN_MEMORY: usize = 1 << 20;

/// Distinct values of an attribute held in memory before they go to a sorted run in the
/// staging folder (about 8 MB; a million pages have a million distinct words).
const VALUES_IN_MEMORY: usize = 1 << 18;

/// Positions of postings filled in memory at a time (4 bytes each, 32 MB). Above it, the
/// forward index is split once into scratch files of that many positions, each filled in
/// turn. (Filled from the whole forward index at each pass, it had to be 128 MB for the
/// passes to stay few: at 324 million tokens, 11 passes of 1.3 GB; it was then the largest
/// memory of the export, beside the hyperlink graph.)
pub const POSTINGS_IN_MEMORY: u64 = 8 << 20;

/// Builds the index of `vrt` (columns named by `columns`) into `dir`, replacing what was there.
///
/// Memory is fixed buffers, not the tokens or the lexicons: ids are written to the staging
/// folder in first-seen numbering as they are read, and an attribute's values to a sorted run
/// there each time it holds [`VALUES_IN_MEMORY`]; once the input ends, each lexicon is the
/// merge of its runs, the ids are renumbered, and the postings filled [`POSTINGS_IN_MEMORY`]
/// positions at a time (the staging folder then holds 8 bytes a token of scratch files for
/// one attribute at a time).
pub fn build(vrt: &Path, columns: &[&str], dir: &Path) -> anyhow::Result<Built> {
    let bounds = Bounds {
        ids: IDS_IN_MEMORY,
        values: VALUES_IN_MEMORY,
        postings: POSTINGS_IN_MEMORY,
    };
    build_in(vrt, columns, dir, &bounds)
}

/// What the build holds in memory at most (tests lower them).
struct Bounds {
    /// Token ids, per attribute ([`IDS_IN_MEMORY`]).
    ids: usize,
    /// Distinct values, per attribute ([`VALUES_IN_MEMORY`]), checked with the ids.
    values: usize,
    /// Positions of postings ([`POSTINGS_IN_MEMORY`]).
    postings: u64,
}

/// [`build`] within `bounds`.
fn build_in(vrt: &Path, columns: &[&str], dir: &Path, bounds: &Bounds) -> anyhow::Result<Built> {
    let staging = staging_for(dir)?;
    let (mut lexicons, raw, region_files) = read_vertical(vrt, columns, &staging, bounds)?;
    let mut bytes = 0u64;
    let mut attribute_names = Vec::new();
    // Each attribute's values are sorted when its turn comes (merged from their runs, or
    // written from the first-seen buffer when none left memory), then leave memory; each
    // renumbering (4 bytes a first-seen id) leaves once the forward index is: the postings of
    // one attribute are filled beside the values in memory of those not yet written only.
    let attributes = std::mem::take(&mut lexicons.attributes);
    let FirstSeen { files, runs, .. } = raw;
    let mut runs = runs.into_iter();
    for ((name, base, values), first_seen) in attributes.into_iter().zip(files) {
        let runs = runs.next().unwrap_or_default();
        let (lexicon_bytes, distinct, rank) =
            lexicon_and_rank(&staging, &name, (base, values), runs)?;
        bytes += lexicon_bytes;
        let attribute = AttributeFiles {
            path: |ext: &str| staging.join(format!("{name}.{ext}")),
            values: distinct,
        };
        let offsets = attribute.write_forward(first_seen, rank)?;
        bytes += u64::from(lexicons.n_tokens) * 4;
        bytes += write_u64s(&attribute.path("offsets"), &offsets)?;
        bytes += attribute.write_postings(&offsets, bounds.postings)?;
        attribute_names.push(name);
    }
    let (region_bytes, region_names, region_attrs) = region_files.finish(&lexicons.regions)?;
    bytes += region_bytes;
    let manifest = Manifest {
        format: FORMAT,
        tokens: lexicons.n_tokens,
        attributes: attribute_names,
        regions: region_names,
        region_attrs,
        source: vrt.display().to_string(),
    };
    bytes += write(
        &staging.join("index.json"),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    put_in_place(&staging, dir)?;
    Ok(Built {
        tokens: u64::from(lexicons.n_tokens),
        bytes,
    })
}

/// Reads the vertical file: the lexicons, each attribute's ids in first-seen numbering (in
/// the staging folder) and the regions' files.
fn read_vertical(
    vrt: &Path,
    columns: &[&str],
    staging: &Path,
    bounds: &Bounds,
) -> anyhow::Result<(Lexicons, FirstSeen, regions::RegionFiles)> {
    let file = File::open(vrt)
        .with_context(|| format!("cannot read the vertical file {}", vrt.display()))?;
    let mut builder = IndexBuilder::new(columns).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut line = String::new();
    // Per attribute, its ids in first-seen numbering, as read.
    let mut raw = FirstSeen {
        staging: staging.to_path_buf(),
        files: Vec::new(),
        runs: Vec::new(),
    };
    // The regions, written as they close.
    let mut region_files = regions::RegionFiles::new(staging);
    // `lc` follows the columns when there is a `word` column (the builder's order).
    let names = |a: usize| -> String {
        columns
            .get(a)
            .map_or_else(|| "lc".to_string(), |c| (*c).to_string())
    };
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .with_context(|| format!("cannot read {} (is it UTF-8?)", vrt.display()))?;
        if n == 0 {
            break;
        }
        let text = line.strip_suffix('\n').unwrap_or(&line);
        builder
            .line(text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", vrt.display()))?;
        if builder.pending_ids() >= bounds.ids {
            raw.keep_values(builder.take_values(bounds.values), &names)?;
            raw.keep(builder.take_ids(), &names)?;
            for chunk in builder.take_regions() {
                region_files.write(&chunk)?;
            }
        }
    }
    let mut lexicons = builder
        .finish_lexicons()
        .map_err(|e| anyhow::anyhow!("{}: {e}", vrt.display()))?;
    raw.keep(std::mem::take(&mut lexicons.pending), &names)?;
    Ok((lexicons, raw, region_files))
}

/// One attribute's files in the staging folder.
struct AttributeFiles<P: Fn(&str) -> PathBuf> {
    /// The attribute's file with an extension.
    path: P,
    /// Number of distinct values.
    values: usize,
}

impl<P: Fn(&str) -> PathBuf> AttributeFiles<P> {
    fn path(&self, ext: &str) -> PathBuf {
        (self.path)(ext)
    }

    /// The forward index in final ids (`A.ids`) from the ids in first-seen numbering (then
    /// removed; `rank` gives the final id of each, and is dropped once used); returns where
    /// each value's postings start, and the total last.
    fn write_forward(
        &self,
        (raw_path, mut raw_out): (PathBuf, std::io::BufWriter<File>),
        rank: Vec<u32>,
    ) -> anyhow::Result<Vec<u64>> {
        raw_out
            .flush()
            .with_context(|| format!("cannot write {}", raw_path.display()))?;
        drop(raw_out);
        let ids_path = self.path("ids");
        let mut counted: Vec<u64> = vec![0; self.values + 1];
        let mut out = std::io::BufWriter::with_capacity(
            1 << 20,
            File::create(&ids_path)
                .with_context(|| format!("cannot write {}", ids_path.display()))?,
        );
        for_each_chunk(&raw_path, |_, chunk| {
            let ids: Vec<u32> = chunk
                .iter()
                .map(|&id| rank.get(id as usize).copied().unwrap_or(0))
                .collect();
            for &id in &ids {
                counted[id as usize + 1] += 1;
            }
            let le: Vec<u8> = le_bytes(&ids);
            out.write_all(&le)
                .with_context(|| format!("cannot write {}", ids_path.display()))
        })?;
        out.flush()
            .with_context(|| format!("cannot write {}", ids_path.display()))?;
        drop(out);
        std::fs::remove_file(&raw_path)
            .with_context(|| format!("cannot remove {}", raw_path.display()))?;
        for i in 1..counted.len() {
            counted[i] += counted[i - 1];
        }
        Ok(counted)
    }

    /// The postings (`A.postings`), a range of ids at a time (as many as `postings_in_memory`
    /// positions); returns the bytes written. When one range holds them all they are filled
    /// from the forward index; else the forward index is read once, each position going to its
    /// range's scratch file (`A.bucketK`, id and position), and each range is filled from its
    /// file: the forward index is read once whatever the number of ranges.
    fn write_postings(&self, offsets: &[u64], postings_in_memory: u64) -> anyhow::Result<u64> {
        let (ids_path, postings_path) = (self.path("ids"), self.path("postings"));
        let mut out = std::io::BufWriter::with_capacity(
            1 << 20,
            File::create(&postings_path)
                .with_context(|| format!("cannot write {}", postings_path.display()))?,
        );
        let mut written = 0u64;
        let mut put = |postings: &[u32]| -> anyhow::Result<()> {
            // Written a slice at a time: a byte copy of the whole fill would double it.
            for piece in postings.chunks(1 << 18) {
                let le: Vec<u8> = le_bytes(piece);
                out.write_all(&le)
                    .with_context(|| format!("cannot write {}", postings_path.display()))?;
                written += le.len() as u64;
            }
            Ok(())
        };
        let ranges = id_ranges(offsets, postings_in_memory);
        if let [range] = ranges.as_slice() {
            let mut fill = stages::explore::build::PostingsFill::new(offsets, range.clone());
            for_each_chunk(&ids_path, |first, chunk| {
                fill.chunk(first, chunk);
                Ok(())
            })?;
            put(&fill.finish())?;
        } else {
            let buckets = self.split(&ids_path, &ranges)?;
            for (range, bucket) in ranges.into_iter().zip(buckets) {
                fill_range(offsets, range, &bucket, &mut put)?;
                std::fs::remove_file(&bucket)
                    .with_context(|| format!("cannot remove {}", bucket.display()))?;
            }
        }
        out.flush()
            .with_context(|| format!("cannot write {}", postings_path.display()))?;
        Ok(written)
    }

    /// Reads the forward index once and writes each position, with its id, to the scratch
    /// file of the range holding the id; returns the files, in the order of the ranges.
    fn split(
        &self,
        ids_path: &Path,
        ranges: &[std::ops::Range<usize>],
    ) -> anyhow::Result<Vec<PathBuf>> {
        let mut bucket_of = vec![0u32; self.values];
        let mut files = Vec::with_capacity(ranges.len());
        for (k, range) in ranges.iter().enumerate() {
            for b in bucket_of.get_mut(range.clone()).into_iter().flatten() {
                *b = k as u32;
            }
            let path = self.path(&format!("bucket{k}"));
            let file =
                File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
            files.push((path, std::io::BufWriter::with_capacity(1 << 17, file)));
        }
        for_each_chunk(ids_path, |first, chunk| {
            for (i, &id) in chunk.iter().enumerate() {
                let k = bucket_of.get(id as usize).copied().unwrap_or(0) as usize;
                if let Some((path, file)) = files.get_mut(k) {
                    let position = (first + i as u64) as u32;
                    let mut pair = [0u8; 8];
                    pair[..4].copy_from_slice(&id.to_le_bytes());
                    pair[4..].copy_from_slice(&position.to_le_bytes());
                    file.write_all(&pair)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                }
            }
            Ok(())
        })?;
        files
            .into_iter()
            .map(|(path, mut file)| {
                file.flush()
                    .with_context(|| format!("cannot write {}", path.display()))?;
                Ok(path)
            })
            .collect()
    }
}

/// Ranges one attribute's postings are split into, at most about: past it, the ranges grow
/// (a corpus of 2 billion tokens fills 128 MB at a time), so open files stay few. (A range and
/// the next hold more than the bound together: fewer than twice as many files.)
const MOST_RANGES: u64 = 64;

/// Ranges of ids whose positions fill at most `postings_in_memory` (raised to a
/// [`MOST_RANGES`]th of the tokens) each; an id with more positions has a range of its own.
fn id_ranges(offsets: &[u64], postings_in_memory: u64) -> Vec<std::ops::Range<usize>> {
    let values = offsets.len().saturating_sub(1);
    let total = offsets.last().copied().unwrap_or(0);
    let bound = postings_in_memory.max(total.div_ceil(MOST_RANGES));
    let mut ranges = Vec::new();
    let mut start = 0usize;
    while start < values {
        let mut end = start + 1;
        while end < values && offsets[end + 1] - offsets[start] <= bound {
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// The postings of one range from its scratch file (pairs of id and position in position
/// order). A range of one id needs no filling: its positions are already its postings, in
/// order, and go out a chunk at a time whatever their number.
fn fill_range(
    offsets: &[u64],
    range: std::ops::Range<usize>,
    bucket: &Path,
    put: &mut dyn FnMut(&[u32]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let damaged = || {
        anyhow::anyhow!(
            "{} is damaged (a position without its id)",
            bucket.display()
        )
    };
    if range.len() == 1 {
        return for_each_chunk(bucket, |_, pairs| {
            if pairs.len() % 2 != 0 {
                return Err(damaged());
            }
            let positions: Vec<u32> = pairs.chunks_exact(2).map(|p| p[1]).collect();
            put(&positions)
        });
    }
    let mut fill = stages::explore::build::PostingsFill::new(offsets, range);
    for_each_chunk(bucket, |_, pairs| {
        if pairs.len() % 2 != 0 {
            return Err(damaged());
        }
        for p in pairs.chunks_exact(2) {
            fill.place(p[0], u64::from(p[1]));
        }
        Ok(())
    })?;
    put(&fill.finish())
}

/// An empty folder beside `dir` (`DIR.building`) to write an index into before
/// [`put_in_place`] moves it: a build that fails never leaves half an index where `dir` was.
pub(crate) fn staging_for(dir: &Path) -> anyhow::Result<PathBuf> {
    // Replacing a folder is for indexes only: never a run folder or anything else by mistake.
    let is_index = dir.join("index.json").is_file() || dir.join("glaneur.json").is_file();
    if dir.exists() && !is_index && dir.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        bail!(
            "{} exists and is not an index: give a new or empty folder",
            dir.display()
        );
    }
    let mut name = dir.as_os_str().to_os_string();
    name.push(".building");
    let staging = PathBuf::from(name);
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .with_context(|| format!("cannot clear {}", staging.display()))?;
    }
    std::fs::create_dir_all(&staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    Ok(staging)
}

/// Replaces `dir` with the finished `staging` folder.
pub(crate) fn put_in_place(staging: &Path, dir: &Path) -> anyhow::Result<()> {
    // Checksums last: `glaneur verify` finds a changed or missing file by them.
    crate::ground::checksums::write(staging)?;
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::rename(staging, dir)
        .with_context(|| format!("cannot move {} to {}", staging.display(), dir.display()))
}

/// One attribute's lexicon (`NAME.values`, `NAME.valueoffsets`) and each first-seen id's final
/// id: its values sorted in memory, or, when some went to runs, the runs and the rest merged
/// (the runs are removed). Returns the bytes written, the number of distinct values and the
/// final ids.
fn lexicon_and_rank(
    staging: &Path,
    name: &str,
    (base, values): (u32, Values),
    mut runs: Vec<PathBuf>,
) -> anyhow::Result<(u64, usize, Vec<u32>)> {
    let mut lexicon = LexiconWriter::create(staging, name)?;
    if runs.is_empty() {
        let sorted = values.sort();
        for value in sorted.iter() {
            lexicon.push(value)?;
        }
        let rank = sorted.into_rank();
        return Ok((lexicon.finish()?, rank.len(), rank));
    }
    let raw_ids = base as usize + values.len();
    runs.push(write_value_run(staging, name, runs.len(), (base, values))?);
    let mut rank = vec![0u32; raw_ids];
    let mut distinct = 0u32;
    runs::merge_runs(&runs, 4, |value, payloads| {
        lexicon.push(value)?;
        for id in payloads.chunks_exact(4) {
            let id = u32::from_le_bytes([id[0], id[1], id[2], id[3]]);
            if let Some(slot) = rank.get_mut(id as usize) {
                *slot = distinct;
            }
        }
        distinct += 1;
        Ok(())
    })?;
    for path in &runs {
        std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    Ok((lexicon.finish()?, distinct as usize, rank))
}

/// Values taken from the builder as a run sorted by value (`NAME.runK`, each value's payload
/// its first-seen id); returns its path.
fn write_value_run(
    staging: &Path,
    name: &str,
    k: usize,
    (base, values): (u32, Values),
) -> anyhow::Result<PathBuf> {
    let path = staging.join(format!("{name}.run{k}"));
    let sorted = values.sort();
    let entries = sorted
        .ids()
        .map(|(id, value)| (value, base.saturating_add(id).to_le_bytes()));
    runs::write_run(&path, entries)?;
    Ok(path)
}

/// An attribute's lexicon written a value at a time, in byte order: the values one after the
/// other (`NAME.values`) and where each starts, then the end (`NAME.valueoffsets`, `u64`).
struct LexiconWriter {
    text: (PathBuf, std::io::BufWriter<File>),
    offsets: (PathBuf, std::io::BufWriter<File>),
    at: u64,
    n: u64,
}

impl LexiconWriter {
    fn create(staging: &Path, name: &str) -> anyhow::Result<LexiconWriter> {
        let create = |ext: &str| -> anyhow::Result<(PathBuf, std::io::BufWriter<File>)> {
            let path = staging.join(format!("{name}.{ext}"));
            let file =
                File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
            Ok((path, std::io::BufWriter::with_capacity(1 << 20, file)))
        };
        Ok(LexiconWriter {
            text: create("values")?,
            offsets: create("valueoffsets")?,
            at: 0,
            n: 0,
        })
    }

    fn push(&mut self, value: &str) -> anyhow::Result<()> {
        let ((text_path, text), (offsets_path, offsets)) = (&mut self.text, &mut self.offsets);
        offsets
            .write_all(&self.at.to_le_bytes())
            .with_context(|| format!("cannot write {}", offsets_path.display()))?;
        text.write_all(value.as_bytes())
            .with_context(|| format!("cannot write {}", text_path.display()))?;
        self.at += value.len() as u64;
        self.n += 1;
        Ok(())
    }

    /// Writes the end and flushes; returns the bytes written.
    fn finish(self) -> anyhow::Result<u64> {
        let ((text_path, mut text), (offsets_path, mut offsets)) = (self.text, self.offsets);
        offsets
            .write_all(&self.at.to_le_bytes())
            .with_context(|| format!("cannot write {}", offsets_path.display()))?;
        text.flush()
            .with_context(|| format!("cannot write {}", text_path.display()))?;
        offsets
            .flush()
            .with_context(|| format!("cannot write {}", offsets_path.display()))?;
        Ok(self.at + (self.n + 1) * 8)
    }
}

/// Each attribute's ids in first-seen numbering, written as they are read, and the runs of
/// values they number that left memory.
struct FirstSeen {
    staging: PathBuf,
    files: Vec<(PathBuf, std::io::BufWriter<File>)>,
    /// Per attribute, its runs of values (`NAME.runK`), in the order taken.
    runs: Vec<Vec<PathBuf>>,
}

impl FirstSeen {
    /// Writes the values taken from the builder as runs (`name(a)` names attribute `a`).
    fn keep_values(
        &mut self,
        taken: Vec<(usize, u32, Values)>,
        name: &dyn Fn(usize) -> String,
    ) -> anyhow::Result<()> {
        for (a, base, values) in taken {
            if self.runs.len() <= a {
                self.runs.resize(a + 1, Vec::new());
            }
            let k = self.runs[a].len();
            let path = write_value_run(&self.staging, &name(a), k, (base, values))?;
            self.runs[a].push(path);
        }
        Ok(())
    }

    /// Appends the ids taken from the builder (per attribute; `name(a)` names attribute `a`).
    fn keep(&mut self, ids: Vec<Vec<u32>>, name: &dyn Fn(usize) -> String) -> anyhow::Result<()> {
        for (a, ids) in ids.into_iter().enumerate() {
            if self.files.len() <= a {
                let path = self.staging.join(format!("{}.firstseen", name(a)));
                let out = File::create(&path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                self.files
                    .push((path, std::io::BufWriter::with_capacity(1 << 20, out)));
            }
            let (path, out) = &mut self.files[a];
            let bytes: Vec<u8> = le_bytes(&ids);
            out.write_all(&bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }
}

/// Numbers as little-endian bytes (the index's on-disk form).
fn le_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Reads a file of little-endian u32 in chunks; `f` gets each chunk's first position.
fn for_each_chunk(
    path: &Path,
    mut f: impl FnMut(u64, &[u32]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Read;
    let mut file = BufReader::with_capacity(
        1 << 20,
        File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
    );
    let mut bytes = vec![0u8; 4 << 20];
    let mut values: Vec<u32> = Vec::with_capacity(1 << 20);
    let mut first = 0u64;
    loop {
        let mut filled = 0;
        while filled < bytes.len() {
            let n = file
                .read(&mut bytes[filled..])
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            return Ok(());
        }
        if filled % 4 != 0 {
            bail!("{} is damaged (not whole numbers)", path.display());
        }
        values.clear();
        values.extend(
            bytes[..filled]
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        f(first, &values)?;
        first += values.len() as u64;
        if filled < bytes.len() {
            return Ok(());
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<u64> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(bytes.len() as u64)
}

fn write_u64s(path: &Path, values: &[u64]) -> anyhow::Result<u64> {
    write_le(path, values, |v, out| {
        out.extend_from_slice(&v.to_le_bytes())
    })
}

/// Writes numbers little-endian, a chunk at a time.
fn write_le<T: Copy>(
    path: &Path,
    values: &[T],
    put: impl Fn(T, &mut Vec<u8>),
) -> anyhow::Result<u64> {
    let mut file =
        File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut bytes = Vec::with_capacity(1 << 20);
    let mut written = 0u64;
    for chunk in values.chunks(1 << 16) {
        bytes.clear();
        for &v in chunk {
            put(v, &mut bytes);
        }
        file.write_all(&bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written += bytes.len() as u64;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::corpus::open;

    /// Postings filled a few positions at a time (from the forward index split into scratch
    /// files), with the lexicons merged from runs of a few values, are the postings filled at
    /// once, and the files are those of the in-memory index.
    #[test]
    fn postings_in_small_passes_are_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let vrt = dir.path().join("c.vrt");
        let mut text = String::new();
        for d in 0..40 {
            text.push_str(&format!("<text id=\"d{d}\">\n<s>\n"));
            for i in 0..(d * 7 % 23 + 1) {
                // Six frequent words and rare ones: ranges of one id and of several.
                let w = match i % 3 {
                    2 => format!("R{}", (i * d) % 37),
                    _ => ["le", "Calque", "et", "la", "couche", "Masque"][(i * d + i) % 6].into(),
                };
                text.push_str(&format!("{w}\tX{}\t{}\n", i % 3, w.to_lowercase()));
            }
            text.push_str("</s>\n</text>\n");
        }
        std::fs::write(&vrt, &text).unwrap();
        let columns = ["word", "pos", "lemma"];
        let whole = Bounds {
            ids: usize::MAX,
            values: usize::MAX,
            postings: u64::MAX,
        };
        let whole = build_in(&vrt, &columns, &dir.path().join("a"), &whole).unwrap();
        // Ids taken every 5 tokens, values every 3 new ones: runs of values merged.
        let bounds = Bounds {
            ids: 5,
            values: 3,
            postings: 3,
        };
        let small = build_in(&vrt, &columns, &dir.path().join("b"), &bounds).unwrap();
        assert_eq!(whole.tokens, small.tokens);
        assert_eq!(whole.bytes, small.bytes);
        let memory = stages::explore::build::build_from_str(&text, &columns).unwrap();
        for (a, attr) in memory.attributes.iter().enumerate() {
            let read = |d: &str, f: &str| {
                std::fs::read(dir.path().join(d).join(format!("{}.{f}", attr.name))).unwrap()
            };
            for f in ["ids", "postings", "offsets", "values", "valueoffsets"] {
                assert_eq!(read("a", f), read("b", f), "{}.{f}", attr.name);
            }
            let le: Vec<u8> = memory.columns.postings[a]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert_eq!(read("b", "postings"), le, "{}", attr.name);
            let le: Vec<u8> = memory.columns.ids[a]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert_eq!(read("b", "ids"), le, "{}", attr.name);
        }
        assert!(!dir.path().join("b").join("word.firstseen").exists());
        // Split into scratch files (ranges of several ids and of one id each), then removed.
        let offsets = &memory.attributes[0].postings;
        let ranges = id_ranges(offsets, 3);
        assert!(ranges.len() > 2 && ranges.iter().any(|r| r.len() == 1));
        assert!(ranges.iter().any(|r| r.len() > 1));
        let names: Vec<String> = std::fs::read_dir(dir.path().join("b"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains("bucket")), "{names:?}");
        assert!(!names.iter().any(|n| n.contains(".run")), "{names:?}");
        // The index opens and answers.
        let opened = open(&dir.path().join("b")).unwrap();
        assert_eq!(u64::from(opened.n_tokens), small.tokens);
    }
}
