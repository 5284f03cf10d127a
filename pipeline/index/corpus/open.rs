//! Opening an index for queries (the layout is in the parent module's docs).
//!
//! **In:** an index folder, or a run folder holding `index/`. **Out:** an [`Index`] over
//! [`FileColumns`]: lexicons, offsets and regions in memory, the forward indexes and postings
//! read from their files when a query needs them.
//!
//! **Invariants:** an index of another format, or whose files do not agree with each other,
//! is refused with a message naming the folder and how to rebuild it.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use stages::explore::index::{Attribute, ColumnError, Columns, Index, Lexicon, Regions};

use super::{FORMAT, Manifest};

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
    let manifest = read_manifest(&dir)?;
    manifest.check_names(only, regions_wanted, region_attrs)?;
    let mut attributes = Vec::new();
    let mut columns = FileColumns {
        dir: dir.clone(),
        ids: Vec::new(),
        postings: Vec::new(),
    };
    let wanted = |name: &String| only.is_none_or(|o| o.contains(name));
    for name in manifest.attributes.iter().filter(|n| wanted(n)) {
        let (attribute, ids, postings) = open_attribute(&dir, name, manifest.tokens)?;
        columns.ids.push(ids);
        columns.postings.push(postings);
        attributes.push(attribute);
    }
    let mut regions = Vec::new();
    let load = |name: &String| name == "text" || regions_wanted.is_none_or(|w| w.contains(name));
    for (r, name) in manifest.regions.iter().enumerate().filter(|(_, n)| load(n)) {
        let keys = manifest.region_attrs.get(r).into_iter().flatten();
        let keys = keys.filter(|k| region_attrs.is_none_or(|w| w.contains(k)));
        regions.push(load_regions(&dir, name, keys)?);
    }
    Ok(Index {
        n_tokens: manifest.tokens,
        attributes,
        regions,
        columns,
    })
}

/// The manifest of the index in `dir`, of the format this glaneur reads.
/// The names an index holds: its token attributes, and the attributes of its documents
/// (`text` regions), without loading anything else.
pub fn names(path: &Path) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let manifest = read_manifest(&locate(path)?)?;
    let documents = manifest
        .regions
        .iter()
        .zip(&manifest.region_attrs)
        .find(|(r, _)| *r == "text")
        .map(|(_, attrs)| attrs.clone())
        .unwrap_or_default();
    Ok((manifest.attributes, documents))
}

fn read_manifest(dir: &Path) -> anyhow::Result<Manifest> {
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
    Ok(manifest)
}

impl Manifest {
    /// Refuses an attribute, region or region attribute the index does not have, listing
    /// those it has.
    fn check_names(
        &self,
        only: Option<&[String]>,
        regions_wanted: Option<&[String]>,
        region_attrs: Option<&[String]>,
    ) -> anyhow::Result<()> {
        if let Some(only) = only
            && let Some(missing) = only.iter().find(|n| !self.attributes.contains(n))
        {
            bail!(
                "no attribute `{missing}` in this corpus (it has: {}){}",
                self.attributes.join(", "),
                if missing == "lemma" || missing == "pos" {
                    "; lemmas and parts of speech come from a tagger: docs/guide/text.md, \
                     \"From corpus to tagged and parsed text\""
                } else {
                    ""
                }
            );
        }
        if let Some(wanted) = regions_wanted
            && let Some(missing) = wanted.iter().find(|n| !self.regions.contains(n))
        {
            bail!(
                "no region `{missing}` in this corpus (it has: {})",
                self.regions.join(", ")
            );
        }
        if let Some(wanted) = region_attrs {
            let have: Vec<String> = self
                .regions
                .iter()
                .zip(&self.region_attrs)
                .flat_map(|(r, attrs)| attrs.iter().map(move |a| format!("{r}.{a}")))
                .collect();
            let known = |a: &String| self.region_attrs.iter().flatten().any(|k| k == a);
            if let Some(missing) = wanted.iter().find(|a| !known(a)) {
                bail!(
                    "no region attribute `{missing}` in this corpus (it has: {})",
                    have.join(", ")
                );
            }
        }
        Ok(())
    }
}

/// Attribute `name` of the index in `dir` (of `tokens` tokens): its lexicon and offsets, and
/// its forward index and postings files opened.
fn open_attribute(dir: &Path, name: &str, tokens: u32) -> anyhow::Result<(Attribute, File, File)> {
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
        && ids_len == u64::from(tokens);
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
    let attribute = Attribute {
        name: name.to_string(),
        lexicon,
        postings,
    };
    Ok((attribute, open("ids")?, open("postings")?))
}

/// The regions of element `name` of the index in `dir`, with the attributes `keys`.
fn load_regions<'a>(
    dir: &Path,
    name: &str,
    keys: impl Iterator<Item = &'a String>,
) -> anyhow::Result<Regions> {
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
    for key in keys {
        let attr_path = dir.join(format!("{name}.attr.{key}"));
        let text = std::fs::read_to_string(&attr_path)
            .with_context(|| format!("cannot read {}", attr_path.display()))?;
        attrs.push((key.clone(), text.lines().map(str::to_string).collect()));
    }
    Ok(Regions {
        name: name.to_string(),
        starts: values.iter().step_by(2).copied().collect(),
        ends: values.iter().skip(1).step_by(2).copied().collect(),
        attrs,
    })
}
