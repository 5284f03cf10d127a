//! The region files of an index (`R.spans`, `R.attr.K`), written as the builder closes
//! regions.
//!
//! **In:** [`RegionChunk`]s from [`stages::explore::build::IndexBuilder::take_regions`], then
//! the regions left at the end, in the builder's order.
//! **Out:** per element `R`, `R.spans` (u32 start, u32 end per region, little-endian) and per
//! attribute `K` `R.attr.K` (one value a line, region by region, a line break in a value
//! written as a space); the names for the manifest.
//!
//! **Invariants:** the files are those a whole build would write: an attribute first seen on a
//! later region has an empty line for every region before, and every attribute file ends with
//! one line per region. Memory is one open file per element and attribute, not the regions.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::explore::build::RegionChunk;
use stages::explore::index::Regions;

/// One element's files.
struct Element {
    name: String,
    spans: Out,
    /// Regions written.
    count: usize,
    /// Per attribute, in order of first appearance: its file and the lines written.
    attrs: Vec<(String, Out, usize)>,
}

/// A file being written and its name, for messages.
struct Out {
    path: PathBuf,
    file: BufWriter<File>,
    bytes: u64,
}

impl Out {
    fn create(path: PathBuf) -> anyhow::Result<Out> {
        let file =
            File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Out {
            path,
            file: BufWriter::with_capacity(1 << 16, file),
            bytes: 0,
        })
    }

    fn put(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.bytes += bytes.len() as u64;
        self.file
            .write_all(bytes)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    fn empty_lines(&mut self, n: usize) -> anyhow::Result<()> {
        for _ in 0..n {
            self.put(b"\n")?;
        }
        Ok(())
    }

    fn close(mut self) -> anyhow::Result<u64> {
        self.file
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(self.bytes)
    }
}

/// The region files of one index being built.
pub(super) struct RegionFiles {
    staging: PathBuf,
    /// By the builder's element rank.
    elements: Vec<Option<Element>>,
}

impl RegionFiles {
    pub(super) fn new(staging: &Path) -> RegionFiles {
        RegionFiles {
            staging: staging.to_path_buf(),
            elements: Vec::new(),
        }
    }

    /// Appends regions closed since the last chunk.
    pub(super) fn write(&mut self, chunk: &RegionChunk) -> anyhow::Result<()> {
        self.append(chunk.kind, chunk.first, &chunk.regions)
    }

    fn append(&mut self, kind: usize, first: usize, regions: &Regions) -> anyhow::Result<()> {
        if self.elements.len() <= kind {
            self.elements.resize_with(kind + 1, || None);
        }
        let element = match &mut self.elements[kind] {
            Some(e) => e,
            slot @ None => slot.insert(Element {
                name: regions.name.clone(),
                spans: Out::create(self.staging.join(format!("{}.spans", regions.name)))?,
                count: 0,
                attrs: Vec::new(),
            }),
        };
        if element.count != first {
            anyhow::bail!(
                "index regions <{}>: {} written, the next chunk starts at {first}",
                element.name,
                element.count
            );
        }
        let mut spans = Vec::with_capacity(regions.starts.len() * 8);
        for (s, e) in regions.starts.iter().zip(&regions.ends) {
            spans.extend_from_slice(&s.to_le_bytes());
            spans.extend_from_slice(&e.to_le_bytes());
        }
        element.spans.put(&spans)?;
        let n = regions.starts.len();
        element.count += n;
        for (key, values) in &regions.attrs {
            let at = match element.attrs.iter().position(|(k, _, _)| k == key) {
                Some(at) => at,
                None => {
                    let path = self.staging.join(format!("{}.attr.{key}", element.name));
                    element.attrs.push((key.clone(), Out::create(path)?, 0));
                    element.attrs.len() - 1
                }
            };
            let (_, out, lines) = &mut element.attrs[at];
            out.empty_lines(first.saturating_sub(*lines))?;
            let mut text = String::new();
            for v in values.iter().take(n) {
                text.push_str(&v.replace(['\n', '\r'], " "));
                text.push('\n');
            }
            out.put(text.as_bytes())?;
            out.empty_lines(n - values.len().min(n))?;
            *lines = first + n;
        }
        Ok(())
    }

    /// Writes the regions left at the end (`rest`, in the builder's element order) and closes
    /// every file: the bytes written, and per element its name and its attributes' names.
    pub(super) fn finish(
        mut self,
        rest: &[Regions],
    ) -> anyhow::Result<(u64, Vec<String>, Vec<Vec<String>>)> {
        for (kind, regions) in rest.iter().enumerate() {
            let first = self
                .elements
                .get(kind)
                .and_then(Option::as_ref)
                .map_or(0, |e| e.count);
            self.append(kind, first, regions)?;
        }
        let (mut bytes, mut names, mut attr_names) = (0, Vec::new(), Vec::new());
        for element in self.elements.into_iter().flatten() {
            bytes += element.spans.close()?;
            let mut keys = Vec::new();
            for (key, mut out, lines) in element.attrs {
                out.empty_lines(element.count.saturating_sub(lines))?;
                bytes += out.close()?;
                keys.push(key);
            }
            names.push(element.name);
            attr_names.push(keys);
        }
        Ok((bytes, names, attr_names))
    }
}
