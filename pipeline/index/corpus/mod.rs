//! The corpus index on disk: built from a vertical file, opened for queries.
//!
//! **In:** a `.vrt` file (the export's `vrt/corpus.vrt`, or any CWB vertical file) and the
//! names of its columns.
//!
//! **Out:** an index folder (`RUN/index/` after an export):
//! - `index.json`: format, token count, attribute and region names, the source file;
//! - per attribute `A` (`word`, `lc`, and `pos`, `lemma` when tagged): `A.values` (the distinct
//!   values in byte order, one after the other) and `A.valueoffsets` (u64 per value, and the
//!   total last: where each starts), `A.offsets` (u64 per value, and the total last: where
//!   each value's postings start), `A.ids` (u32 per token: the forward index), `A.postings`
//!   (u32 positions, value by value);
//! - per region `R` (`text`, `p`, `s`): `R.spans` (u32 start, u32 end per region) and per
//!   attribute `K` of the region `R.attr.K` (one value a line, region by region).
//!
//! All numbers little-endian. Opening reads the lexicons, offsets and regions; a query reads
//! the postings it needs and the stretches of the forward index it checks, with positioned
//! reads (no memory map: the workspace forbids `unsafe`).
//!
//! **Invariants:** an index is written into a fresh folder beside the target and renamed into
//! place, so a failed build never leaves half an index; a folder that is not an index (or of
//! another format) is refused with a message naming it.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use stages::explore::build::IndexBuilder;
use stages::explore::index::{Attribute, ColumnError, Columns, Index, Lexicon, Regions};

mod regions;

const FORMAT: u32 = 2;

#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    format: u32,
    tokens: u32,
    attributes: Vec<String>,
    regions: Vec<String>,
    /// Per region, the names of its attributes (`R.attr.NAME`, one value a line).
    region_attrs: Vec<Vec<String>>,
    source: String,
}

/// What building an index did.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    /// Tokens indexed.
    pub tokens: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// Token ids kept in memory before they are written to the staging folder.
const IDS_IN_MEMORY: usize = 1 << 20;

/// Positions of postings filled in memory at a time (4 bytes each, 128 MB): an attribute's
/// postings are built in as many passes over its forward index as this divides its tokens
/// (at 324 million tokens, 11 passes of 1.3 GB read back from the page cache; with 64 M
/// positions this was the export's largest memory at a million pages).
pub const POSTINGS_IN_MEMORY: u64 = 32 << 20;

/// Builds the index of `vrt` (columns named by `columns`) into `dir`, replacing what was there.
///
/// Memory is the lexicons, the regions and fixed buffers, not the tokens: ids are written to
/// the staging folder in first-seen numbering as they are read, renumbered once the lexicons
/// are sorted, and the postings filled [`POSTINGS_IN_MEMORY`] positions at a time.
pub fn build(vrt: &Path, columns: &[&str], dir: &Path) -> anyhow::Result<Built> {
    build_in(vrt, columns, dir, POSTINGS_IN_MEMORY)
}

/// [`build`] with postings filled `postings_in_memory` positions at a time.
fn build_in(
    vrt: &Path,
    columns: &[&str],
    dir: &Path,
    postings_in_memory: u64,
) -> anyhow::Result<Built> {
    let file = File::open(vrt)
        .with_context(|| format!("cannot read the vertical file {}", vrt.display()))?;
    let mut builder = IndexBuilder::new(columns).map_err(|e| anyhow::anyhow!("{e}"))?;
    let staging = staging_for(dir)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut line = String::new();
    // Per attribute, its ids in first-seen numbering, as read.
    let mut raw = FirstSeen {
        staging: staging.clone(),
        files: Vec::new(),
    };
    // The regions, written as they close.
    let mut region_files = regions::RegionFiles::new(&staging);
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
        if builder.pending_ids() >= IDS_IN_MEMORY {
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
    let mut bytes = 0u64;
    let mut attribute_names = Vec::new();
    for ((name, lexicon, rank), (raw_path, raw_out)) in lexicons.attributes.iter().zip(raw.files) {
        attribute_names.push(name.clone());
        let mut raw_out = raw_out;
        raw_out
            .flush()
            .with_context(|| format!("cannot write {}", raw_path.display()))?;
        drop(raw_out);
        bytes += write(
            &staging.join(format!("{name}.values")),
            lexicon.text.as_bytes(),
        )?;
        bytes += write_u64s(
            &staging.join(format!("{name}.valueoffsets")),
            &lexicon.offsets,
        )?;
        // The forward index in final ids, and the postings' offsets.
        let ids_path = staging.join(format!("{name}.ids"));
        let mut counted: Vec<u64> = vec![0; rank.len() + 1];
        {
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
        }
        std::fs::remove_file(&raw_path)
            .with_context(|| format!("cannot remove {}", raw_path.display()))?;
        for i in 1..counted.len() {
            counted[i] += counted[i - 1];
        }
        let offsets = counted;
        bytes += u64::from(lexicons.n_tokens) * 4;
        bytes += write_u64s(&staging.join(format!("{name}.offsets")), &offsets)?;
        // The postings, a range of ids at a time.
        let postings_path = staging.join(format!("{name}.postings"));
        let mut out = std::io::BufWriter::with_capacity(
            1 << 20,
            File::create(&postings_path)
                .with_context(|| format!("cannot write {}", postings_path.display()))?,
        );
        let mut start = 0usize;
        while start < rank.len() {
            let mut end = start + 1;
            while end < rank.len() && offsets[end + 1] - offsets[start] <= postings_in_memory {
                end += 1;
            }
            let mut fill = stages::explore::build::PostingsFill::new(&offsets, start..end);
            for_each_chunk(&ids_path, |first, chunk| {
                fill.chunk(first, chunk);
                Ok(())
            })?;
            // Written a slice at a time: a byte copy of the whole fill would double it.
            for piece in fill.finish().chunks(1 << 18) {
                let le: Vec<u8> = le_bytes(piece);
                out.write_all(&le)
                    .with_context(|| format!("cannot write {}", postings_path.display()))?;
                bytes += le.len() as u64;
            }
            start = end;
        }
        out.flush()
            .with_context(|| format!("cannot write {}", postings_path.display()))?;
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

/// Each attribute's ids in first-seen numbering, written as they are read.
struct FirstSeen {
    staging: PathBuf,
    files: Vec<(PathBuf, std::io::BufWriter<File>)>,
}

impl FirstSeen {
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

/// The forward indexes and postings of an open index, read from their files.
pub struct FileColumns {
    dir: PathBuf,
    ids: Vec<File>,
    postings: Vec<File>,
}

fn read_u32s(file: &File, offset: u64, out: &mut [u32]) -> std::io::Result<()> {
    // A chunk at a time: no second copy of a large postings list in memory.
    const CHUNK: usize = 1 << 16;
    let mut bytes = vec![0u8; out.len().min(CHUNK) * 4];
    for (k, part) in out.chunks_mut(CHUNK).enumerate() {
        let bytes = &mut bytes[..part.len() * 4];
        file.read_exact_at(bytes, offset + (k * CHUNK * 4) as u64)?;
        for (v, c) in part.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
    Ok(())
}

impl Columns for FileColumns {
    fn ids(&self, attr: usize, start: u32, out: &mut [u32]) -> Result<(), ColumnError> {
        read_u32s(&self.ids[attr], u64::from(start) * 4, out).map_err(|e| {
            ColumnError(format!(
                "{}: forward index of attribute {attr}: {e}",
                self.dir.display()
            ))
        })
    }

    fn postings(&self, attr: usize, range: std::ops::Range<u64>) -> Result<Vec<u32>, ColumnError> {
        let mut out = vec![0u32; (range.end - range.start) as usize];
        read_u32s(&self.postings[attr], range.start * 4, &mut out).map_err(|e| {
            ColumnError(format!(
                "{}: postings of attribute {attr}: {e}",
                self.dir.display()
            ))
        })?;
        Ok(out)
    }
}

fn read_u64_file(path: &Path) -> anyhow::Result<Vec<u64>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

/// The values of one attribute of a region kind (`text.attr.id`…), held as one text: a
/// document's value is read without loading every value as a string of its own.
pub struct RegionValues {
    text: String,
    /// End of each line in `text`.
    ends: Vec<usize>,
}

impl RegionValues {
    /// The values of attribute `attr` of region `region` in the index folder of `path`; None
    /// when the region has no such attribute.
    pub fn load(path: &Path, region: &str, attr: &str) -> anyhow::Result<Option<RegionValues>> {
        let file = locate(path)?.join(format!("{region}.attr.{attr}"));
        if !file.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let ends = memchr_lines(&text);
        Ok(Some(RegionValues { text, ends }))
    }

    /// The value of region `i` ("" past the end).
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.ends.get(i - 1).map_or(usize::MAX, |e| e + 1)
        };
        match self.ends.get(i) {
            Some(&end) if start <= end => &self.text[start..end],
            _ => "",
        }
    }
}

fn memchr_lines(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
        .collect()
}

/// The index folder of `path`: the folder itself when it holds `index.json`, else `index/`
/// inside it (a run folder).
pub fn locate(path: &Path) -> anyhow::Result<PathBuf> {
    if path.join("index.json").is_file() {
        return Ok(path.to_path_buf());
    }
    let inside = path.join("index");
    if inside.join("index.json").is_file() {
        return Ok(inside);
    }
    bail!(
        "{} is neither a run folder with an index nor an index: run `glaneur run … --from export` \
         to build one, or `glaneur index FILE.vrt --out DIR`",
        path.display()
    )
}

/// Opens the index in `path` (a run folder or an index folder).
pub fn open(path: &Path) -> anyhow::Result<Index<FileColumns>> {
    open_attributes(path, None, None)
}

/// Opens the index in `path` with only the attributes and regions named (all when None): a
/// query reads only the lexicons and spans it needs (`text` always comes). A name the index
/// does not have is an error listing those it has.
pub fn open_attributes(
    path: &Path,
    only: Option<&[String]>,
    regions_wanted: Option<&[String]>,
) -> anyhow::Result<Index<FileColumns>> {
    open_with(path, only, regions_wanted, None)
}

/// [`open_attributes`], loading of the regions' attributes only those named in
/// `region_attrs` (all when None): `<doc host="…"/>` needs `host`, a concordance reads the
/// `id` of the documents it shows with [`RegionValues`].
pub fn open_with(
    path: &Path,
    only: Option<&[String]>,
    regions_wanted: Option<&[String]>,
    region_attrs: Option<&[String]>,
) -> anyhow::Result<Index<FileColumns>> {
    let dir = locate(path)?;
    let manifest_path = dir.join("index.json");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(&manifest_path)
            .with_context(|| format!("cannot read {}", manifest_path.display()))?,
    )
    .with_context(|| format!("{} is not an index manifest", manifest_path.display()))?;
    if manifest.format != FORMAT {
        bail!(
            "{} is an index of format {}, this glaneur reads format {FORMAT}: rebuild it \
             (`glaneur run … --from export`)",
            dir.display(),
            manifest.format
        );
    }
    if let Some(only) = only
        && let Some(missing) = only.iter().find(|n| !manifest.attributes.contains(n))
    {
        bail!(
            "no attribute `{missing}` in this corpus (it has: {}){}",
            manifest.attributes.join(", "),
            if missing == "lemma" || missing == "pos" {
                "; lemmas and parts of speech come from a tagger: docs/guide/text.md, \"From corpus \
                 to tagged and parsed text\""
            } else {
                ""
            }
        );
    }
    if let Some(wanted) = regions_wanted
        && let Some(missing) = wanted.iter().find(|n| !manifest.regions.contains(n))
    {
        bail!(
            "no region `{missing}` in this corpus (it has: {})",
            manifest.regions.join(", ")
        );
    }
    let mut attributes = Vec::new();
    let mut columns = FileColumns {
        dir: dir.clone(),
        ids: Vec::new(),
        postings: Vec::new(),
    };
    let wanted = |name: &String| only.is_none_or(|o| o.contains(name));
    for name in manifest.attributes.iter().filter(|n| wanted(n)) {
        let path = |ext: &str| dir.join(format!("{name}.{ext}"));
        let lexicon = Lexicon {
            text: std::fs::read_to_string(path("values"))
                .with_context(|| format!("cannot read {}", path("values").display()))?,
            offsets: read_u64_file(&path("valueoffsets"))?,
        };
        let postings = read_u64_file(&path("offsets"))?;
        // The arrays must describe each other: a damaged index is refused, not misread.
        let ids_len = std::fs::metadata(path("ids"))
            .map(|m| m.len() / 4)
            .unwrap_or(0);
        let postings_len = std::fs::metadata(path("postings"))
            .map(|m| m.len() / 4)
            .unwrap_or(0);
        let sound = lexicon.offsets.windows(2).all(|w| w[0] <= w[1])
            && lexicon.offsets.last() == Some(&(lexicon.text.len() as u64))
            && postings.windows(2).all(|w| w[0] <= w[1])
            && postings.last() == Some(&postings_len)
            && ids_len == u64::from(manifest.tokens);
        if !sound {
            bail!(
                "{}: the files of attribute `{name}` do not agree with each other: the index is \
                 damaged, rebuild it (`glaneur run … --from export`, or `glaneur index`)",
                dir.display()
            );
        }
        if postings.len() != lexicon.offsets.len() {
            bail!(
                "{}: {} offsets for {} values: the index is damaged, rebuild it",
                dir.display(),
                postings.len(),
                lexicon.len()
            );
        }
        let open = |ext: &str| {
            File::open(path(ext)).with_context(|| format!("cannot read {}", path(ext).display()))
        };
        columns.ids.push(open("ids")?);
        columns.postings.push(open("postings")?);
        attributes.push(Attribute {
            name: name.clone(),
            lexicon,
            postings,
        });
    }
    if let Some(wanted) = region_attrs {
        let have: Vec<String> = manifest
            .regions
            .iter()
            .zip(&manifest.region_attrs)
            .flat_map(|(r, attrs)| attrs.iter().map(move |a| format!("{r}.{a}")))
            .collect();
        let known = |a: &String| manifest.region_attrs.iter().flatten().any(|k| k == a);
        if let Some(missing) = wanted.iter().find(|a| !known(a)) {
            bail!(
                "no region attribute `{missing}` in this corpus (it has: {})",
                have.join(", ")
            );
        }
    }
    let mut regions = Vec::new();
    let load = |name: &String| name == "text" || regions_wanted.is_none_or(|w| w.contains(name));
    for (r, name) in manifest.regions.iter().enumerate().filter(|(_, n)| load(n)) {
        let spans_path = dir.join(format!("{name}.spans"));
        let bytes = std::fs::read(&spans_path)
            .with_context(|| format!("cannot read {}", spans_path.display()))?;
        if bytes.len() % 8 != 0 {
            bail!(
                "{} is damaged (not pairs of positions): rebuild the index",
                spans_path.display()
            );
        }
        let values: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut attrs: Vec<(String, Vec<String>)> = Vec::new();
        for key in manifest
            .region_attrs
            .get(r)
            .into_iter()
            .flatten()
            .filter(|k| region_attrs.is_none_or(|w| w.contains(k)))
        {
            let attr_path = dir.join(format!("{name}.attr.{key}"));
            let text = std::fs::read_to_string(&attr_path)
                .with_context(|| format!("cannot read {}", attr_path.display()))?;
            attrs.push((key.clone(), text.lines().map(str::to_string).collect()));
        }
        regions.push(Regions {
            name: name.clone(),
            starts: values.iter().step_by(2).copied().collect(),
            ends: values.iter().skip(1).step_by(2).copied().collect(),
            attrs,
        });
    }
    Ok(Index {
        n_tokens: manifest.tokens,
        attributes,
        regions,
        columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Postings filled a few positions at a time (many passes over the forward index) are
    /// the postings filled at once, and the files are those of the in-memory index.
    #[test]
    fn postings_in_small_passes_are_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let vrt = dir.path().join("c.vrt");
        let mut text = String::new();
        for d in 0..40 {
            text.push_str(&format!("<text id=\"d{d}\">\n<s>\n"));
            for i in 0..(d * 7 % 23 + 1) {
                let w = ["le", "Calque", "et", "la", "couche", "Masque"][(i * d + i) % 6];
                text.push_str(&format!("{w}\tX{}\t{}\n", i % 3, w.to_lowercase()));
            }
            text.push_str("</s>\n</text>\n");
        }
        std::fs::write(&vrt, &text).unwrap();
        let columns = ["word", "pos", "lemma"];
        let whole = build_in(&vrt, &columns, &dir.path().join("a"), u64::MAX).unwrap();
        let small = build_in(&vrt, &columns, &dir.path().join("b"), 3).unwrap();
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
        // The index opens and answers.
        let opened = open(&dir.path().join("b")).unwrap();
        assert_eq!(u64::from(opened.n_tokens), small.tokens);
    }
}
