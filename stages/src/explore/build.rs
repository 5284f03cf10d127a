//! Builds an [`Index`] from a CWB vertical file (`.vrt`), line by line.
//!
//! **In:** the lines of a vertical file, as glaneur's export writes it or as CWB, Sketch Engine
//! and TXM read it: one token per line with TAB-separated columns (named by the caller, e.g.
//! `word`, or `word pos lemma` after tagging), XML start and end tags of structural elements
//! (`<text id="…" url="…">`, `<p>`, `<s>`) on lines of their own, `<g/>` glue and other empty
//! elements, comments and the XML declaration.
//!
//! **Out:** an [`Index`] held in memory: the columns as attributes (plus `lc`, the lower-cased
//! `word`, when there is a `word` column), each element name as a region kind with its
//! attributes; entities (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and numeric ones) decoded.
//!
//! **Invariants:** never panics; a token line with another number of columns than declared, an
//! end tag that closes nothing or another element, an element nested in one of the same name,
//! an element left open at the end, or more than `u32::MAX` tokens is a [`BuildError`] naming
//! the 1-based line. Ids are ranks in byte-sorted lexicons whatever the order of the input.

use super::index::{Attribute, Index, Lexicon, MemColumns, Regions};
use crate::pool::StrPool;

/// Why a vertical file could not be indexed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A token line with the wrong number of columns.
    #[error("line {line}: {found} column(s), expected {expected} ({columns})")]
    Columns {
        /// 1-based line.
        line: u64,
        /// Columns found.
        found: usize,
        /// Columns declared.
        expected: usize,
        /// Their names.
        columns: String,
    },
    /// A structural error in the tags.
    #[error("line {line}: {message}")]
    Structure {
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The column names given by the caller.
    #[error("columns: {0}")]
    Declaration(String),
}

/// One attribute being read: its distinct values in one buffer (no allocation per value), and
/// the id at every position.
#[derive(Default)]
struct AttrBuild {
    name: String,
    values: StrPool,
    /// Ids given to the values taken ([`IndexBuilder::take_values`]): a value's id is this
    /// plus its id in `values`.
    base: u32,
    ids: Vec<u32>,
}

fn hash(value: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(value)
}

impl AttrBuild {
    fn push(&mut self, value: &str) -> u32 {
        let id = self.base.saturating_add(self.values.intern(value));
        self.ids.push(id);
        id
    }

    /// The lexicon sorted by bytes, and each first-seen id's rank in it (its final id).
    fn sorted_lexicon(&mut self) -> (Lexicon, Vec<u32>) {
        let sorted = Values::of(std::mem::take(&mut self.values)).sort();
        let lexicon = sorted.to_lexicon();
        (lexicon, sorted.into_rank())
    }

    /// Sorts the lexicon, renumbers the ids, builds the postings.
    fn finish(mut self) -> (Attribute, Vec<u32>, Vec<u32>) {
        let (lexicon, rank) = self.sorted_lexicon();
        let AttrBuild { name, mut ids, .. } = self;
        for id in ids.iter_mut() {
            *id = rank[*id as usize];
        }
        let offsets = posting_offsets(rank.len(), [ids.as_slice()]);
        let mut fill = PostingsFill::new(&offsets, 0..rank.len());
        fill.chunk(0, &ids);
        let postings = fill.finish();
        (
            Attribute {
                name,
                lexicon,
                postings: offsets,
            },
            ids,
            postings,
        )
    }
}

/// One attribute's distinct values in first-seen order (id `i` is the `i`-th value seen), to
/// be sorted when their turn comes: a caller writing one attribute at a time holds one sorted
/// attribute, not all of them.
pub struct Values {
    pool: StrPool,
}

impl Values {
    fn of(mut pool: StrPool) -> Values {
        pool.freeze();
        Values { pool }
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The values in byte order, with each first-seen id's rank (its final id).
    pub fn sort(self) -> SortedValues {
        let pool = self.pool;
        let order = pool.sorted_ids();
        let mut rank = vec![0u32; order.len()];
        for (r, &old) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(old as usize) {
                *slot = r as u32;
            }
        }
        SortedValues { pool, order, rank }
    }
}

/// An attribute's values in byte order, read from the first-seen buffer (no second copy of
/// the text: a caller writes them out, then keeps the ranks only).
pub struct SortedValues {
    pool: StrPool,
    order: Vec<u32>,
    rank: Vec<u32>,
}

impl SortedValues {
    /// The values in byte order (the lexicon's).
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.order.iter().map(|&id| self.pool.get(id))
    }

    /// The lexicon as one buffer and its offsets.
    pub fn to_lexicon(&self) -> Lexicon {
        let mut lexicon = Lexicon {
            text: String::with_capacity(self.pool.iter().map(str::len).sum()),
            offsets: Vec::with_capacity(self.order.len() + 1),
        };
        for value in self.iter() {
            lexicon.offsets.push(lexicon.text.len() as u64);
            lexicon.text.push_str(value);
        }
        lexicon.offsets.push(lexicon.text.len() as u64);
        lexicon
    }

    /// The first-seen ids in the byte order of their values, with the values.
    pub fn ids(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.order.iter().map(|&id| (id, self.pool.get(id)))
    }

    /// Each first-seen id's rank; the values leave memory.
    pub fn into_rank(self) -> Vec<u32> {
        self.rank
    }
}

/// Where each id's positions start in the postings (and their end last), from the ids of
/// every position, given in chunks in position order.
pub fn posting_offsets<'a>(values: usize, chunks: impl IntoIterator<Item = &'a [u32]>) -> Vec<u64> {
    let mut counts = vec![0u64; values + 1];
    for chunk in chunks {
        for &id in chunk {
            if let Some(c) = counts.get_mut(id as usize + 1) {
                *c += 1;
            }
        }
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    counts
}

/// The postings of the ids in one range, filled from the ids of every position given in
/// chunks in position order: a corpus's postings are built a range of ids at a time, in
/// memory bounded by the range's positions, whatever the corpus's size.
pub struct PostingsFill {
    range: std::ops::Range<usize>,
    /// Next free slot of each id of the range, relative to the range's first posting.
    cursor: Vec<u64>,
    out: Vec<u32>,
}

impl PostingsFill {
    /// Postings of ids `range` (`offsets` from [`posting_offsets`]).
    pub fn new(offsets: &[u64], range: std::ops::Range<usize>) -> PostingsFill {
        let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
        let base = at(range.start);
        PostingsFill {
            cursor: range.clone().map(|id| at(id) - base).collect(),
            out: vec![0; (at(range.end) - base) as usize],
            range,
        }
    }

    /// The ids of positions `first ..` (chunks come in position order).
    pub fn chunk(&mut self, first: u64, ids: &[u32]) {
        for (i, &id) in ids.iter().enumerate() {
            self.place(id, first + i as u64);
        }
    }

    /// One position of `id` (each id's positions come in increasing order); an id outside the
    /// range is left out.
    #[inline]
    pub fn place(&mut self, id: u32, position: u64) {
        let id = id as usize;
        if !self.range.contains(&id) {
            return;
        }
        let cursor = &mut self.cursor[id - self.range.start];
        if let Some(slot) = self.out.get_mut(*cursor as usize) {
            *slot = position as u32;
        }
        *cursor += 1;
    }

    /// The postings of the range, in id order.
    pub fn finish(self) -> Vec<u32> {
        self.out
    }
}

struct RegionBuild {
    /// The regions not yet taken (the open one, if any, last).
    regions: Regions,
    open: Option<u64>,
    /// Regions already taken by [`IndexBuilder::take_regions`].
    taken: usize,
}

/// Regions closed since the last [`IndexBuilder::take_regions`], of one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionChunk {
    /// Rank of the element among the elements in order of first appearance (the order of
    /// [`Lexicons::regions`]).
    pub kind: usize,
    /// Number of the element's regions taken before this chunk: the chunk's first region.
    pub first: usize,
    /// The regions, each attribute with one value per region of the chunk ("" when a region
    /// lacks it); an attribute first seen in this chunk lacks a value in every earlier one.
    pub regions: Regions,
}

/// Reads a vertical file line by line into an index.
pub struct IndexBuilder {
    columns: Vec<String>,
    attrs: Vec<AttrBuild>,
    /// Position of `word` among the columns, for `lc`.
    word: Option<usize>,
    regions: Vec<RegionBuild>,
    line: u64,
    tokens: u64,
    /// The ids of token lines already read, by line.
    seen: SeenLines,
    /// Most lines `seen` remembers ([`SEEN_LINES`]; smaller in tests).
    pub(super) seen_max: usize,
    /// Names of the open elements, innermost last.
    open: Vec<String>,
}

/// Token lines already read and their ids, in one buffer each.
#[derive(Default)]
struct SeenLines {
    table: hashbrown::HashTable<u32>,
    text: String,
    ends: Vec<usize>,
    /// The ids of line `i` at `i * attributes ..`.
    ids: Vec<u32>,
}

impl SeenLines {
    fn line(&self, i: u32) -> &str {
        let i = i as usize;
        &self.text[if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i]]
    }

    fn remember(&mut self, h: u64, line: &str, ids: &[u32]) {
        let i = self.ends.len() as u32;
        self.text.push_str(line);
        self.ends.push(self.text.len());
        self.ids.extend_from_slice(ids);
        let (text, ends) = (&self.text, &self.ends);
        self.table.insert_unique(h, i, |&j| {
            let j = j as usize;
            hash(&text[if j == 0 { 0 } else { ends[j - 1] }..ends[j]])
        });
    }
}

/// Most distinct token lines remembered (about 40 bytes each with one column, 60 with three:
/// 10–15 MB in all). A corpus's frequent lines tend to be seen early (Zipf), so those past the
/// bound are mostly rare and cost little to split again; remembering every line made this
/// cache as large as the lexicons themselves (a million lines at a million pages).
const SEEN_LINES: usize = 1 << 18;

impl IndexBuilder {
    /// A builder for token lines with these columns (e.g. `["word", "pos", "lemma"]`).
    pub fn new(columns: &[&str]) -> Result<IndexBuilder, BuildError> {
        if columns.is_empty() {
            return Err(BuildError::Declaration("at least one column (word)".into()));
        }
        for (i, c) in columns.iter().enumerate() {
            if c.is_empty() || !c.chars().all(|ch| ch.is_alphanumeric() || ch == '_') {
                return Err(BuildError::Declaration(format!(
                    "`{c}` is not a column name (letters, digits, _)"
                )));
            }
            if columns[..i].contains(c) || *c == "lc" && columns.contains(&"word") {
                return Err(BuildError::Declaration(format!("`{c}` is given twice")));
            }
        }
        let word = columns.iter().position(|c| *c == "word");
        let mut attrs: Vec<AttrBuild> = columns
            .iter()
            .map(|c| AttrBuild {
                name: (*c).to_string(),
                ..AttrBuild::default()
            })
            .collect();
        if word.is_some() {
            attrs.push(AttrBuild {
                name: "lc".to_string(),
                ..AttrBuild::default()
            });
        }
        Ok(IndexBuilder {
            columns: columns.iter().map(|c| (*c).to_string()).collect(),
            attrs,
            word,
            regions: Vec::new(),
            line: 0,
            tokens: 0,
            seen: SeenLines::default(),
            seen_max: SEEN_LINES,
            open: Vec::new(),
        })
    }

    /// Tokens read so far.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// Reads one line (without its line end; a trailing CR is ignored).
    pub fn line(&mut self, line: &str) -> Result<(), BuildError> {
        self.line += 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = if self.line == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if line.starts_with('<') && !line.contains('\t') {
            return self.tag(line);
        }
        if line.trim().is_empty() {
            return Ok(());
        }
        if self.tokens >= u64::from(u32::MAX) {
            return Err(self.structure("more than 4,294,967,295 tokens: split the corpus"));
        }
        // A corpus repeats its token lines (Zipf): a repeated line costs one lookup, not one per
        // attribute.
        let h = hash(line);
        if let Some(&i) = self.seen.table.find(h, |&i| self.seen.line(i) == line) {
            let k = self.attrs.len();
            let ids = &self.seen.ids[i as usize * k..(i as usize + 1) * k];
            for (attr, &id) in self.attrs.iter_mut().zip(ids) {
                attr.ids.push(id);
            }
            self.tokens += 1;
            return Ok(());
        }
        let found = line.split('\t').count();
        if found != self.columns.len() {
            return Err(BuildError::Columns {
                line: self.line,
                found,
                expected: self.columns.len(),
                columns: self.columns.join(" "),
            });
        }
        let mut ids = Vec::with_capacity(self.attrs.len());
        for (i, field) in line.split('\t').enumerate() {
            let value = decode_entities(field);
            ids.push(self.attrs[i].push(&value));
            if self.word == Some(i) {
                // Most words have no capital: their lower-cased form is themselves.
                let lc = if value.chars().any(char::is_uppercase) {
                    std::borrow::Cow::Owned(value.to_lowercase())
                } else {
                    value
                };
                if let Some(attr) = self.attrs.last_mut() {
                    ids.push(attr.push(&lc));
                }
            }
        }
        // `lc` comes last among the attributes, and is pushed with `word`: reorder.
        if let Some(w) = self.word {
            let lc = ids.remove(w + 1);
            ids.push(lc);
        }
        if self.seen.table.len() < self.seen_max {
            self.seen.remember(h, line, &ids);
        }
        self.tokens += 1;
        Ok(())
    }

    fn structure(&self, message: &str) -> BuildError {
        BuildError::Structure {
            line: self.line,
            message: message.to_string(),
        }
    }

    fn tag(&mut self, line: &str) -> Result<(), BuildError> {
        let line = line.trim_end();
        if line.starts_with("<!--") || line.starts_with("<?") || line.starts_with("<!") {
            return Ok(());
        }
        if line.ends_with("/>") {
            return Ok(()); // `<g/>` and other empty elements hold no tokens.
        }
        let Some(inner) = line.strip_prefix('<').and_then(|l| l.strip_suffix('>')) else {
            return Err(self.structure("a line starting with `<` is neither a tag nor a token"));
        };
        let pos = self.tokens as u32;
        if let Some(name) = inner.strip_prefix('/') {
            let name = name.trim();
            if !self
                .regions
                .iter()
                .any(|r| r.regions.name == name && r.open.is_some())
            {
                return Err(self.structure(&format!("</{name}> closes no open <{name}>")));
            }
            if let Some(inner) = self.open.last()
                && inner != name
            {
                return Err(self.structure(&format!(
                    "</{name}> closes <{name}> while <{inner}> inside it is still open"
                )));
            }
            self.open.pop();
            let Some(r) = self.regions.iter_mut().find(|r| r.regions.name == name) else {
                return Ok(());
            };
            r.open = None;
            r.regions.ends.push(pos);
            return Ok(());
        }
        let (name, rest) = match inner.find(char::is_whitespace) {
            Some(i) => (&inner[..i], &inner[i..]),
            None => (inner, ""),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.:".contains(c))
        {
            return Err(self.structure(&format!("<{name}> is not an element name")));
        }
        let attrs = parse_attributes(rest).map_err(|m| self.structure(&m))?;
        let line_no = self.line;
        let index = match self.regions.iter().position(|r| r.regions.name == name) {
            Some(i) => i,
            None => {
                self.regions.push(RegionBuild {
                    regions: Regions {
                        name: name.to_string(),
                        ..Regions::default()
                    },
                    open: None,
                    taken: 0,
                });
                self.regions.len() - 1
            }
        };
        let r = &mut self.regions[index];
        if let Some(open) = r.open {
            return Err(self.structure(&format!(
                "<{name}> inside the <{name}> opened on line {open}: elements of one name cannot nest"
            )));
        }
        r.open = Some(line_no);
        let n = r.regions.starts.len();
        r.regions.starts.push(pos);
        self.open.push(name.to_string());
        let r = &mut self.regions[index];
        for (key, value) in attrs {
            match r.regions.attrs.iter_mut().find(|(k, _)| *k == key) {
                Some((_, values)) => {
                    values.resize(n, String::new());
                    values.push(value);
                }
                None => {
                    let mut values = vec![String::new(); n];
                    values.push(value);
                    r.regions.attrs.push((key, values));
                }
            }
        }
        Ok(())
    }

    /// Takes the ids read since the last call, per attribute (columns, then `lc`), in
    /// first-seen numbering: the caller keeps them (on disk) and renumbers them with the ranks
    /// of [`IndexBuilder::finish_lexicons`], so the builder's memory is the lexicons and the
    /// regions, not the tokens.
    pub fn take_ids(&mut self) -> Vec<Vec<u32>> {
        self.attrs
            .iter_mut()
            .map(|a| std::mem::take(&mut a.ids))
            .collect()
    }

    /// Takes the regions closed since the last call, so that the caller writes them out and
    /// the builder's memory does not grow with the number of documents, paragraphs and
    /// sentences. The regions still open stay, and [`IndexBuilder::finish_lexicons`] gives
    /// the rest.
    pub fn take_regions(&mut self) -> Vec<RegionChunk> {
        let mut chunks = Vec::new();
        for (kind, r) in self.regions.iter_mut().enumerate() {
            let closed = r.regions.ends.len();
            if closed == 0 {
                continue;
            }
            let open_starts = r.regions.starts.split_off(closed);
            let starts = std::mem::replace(&mut r.regions.starts, open_starts);
            let ends = std::mem::take(&mut r.regions.ends);
            let attrs = r
                .regions
                .attrs
                .iter_mut()
                .map(|(key, values)| {
                    let rest = values.split_off(closed.min(values.len()));
                    let mut done = std::mem::replace(values, rest);
                    done.resize(closed, String::new());
                    (key.clone(), done)
                })
                .collect();
            chunks.push(RegionChunk {
                kind,
                first: r.taken,
                regions: Regions {
                    name: r.regions.name.clone(),
                    starts,
                    ends,
                    attrs,
                },
            });
            r.taken += closed;
        }
        chunks
    }

    /// Takes the values of each attribute holding at least `at_least`, so that the caller
    /// keeps them on disk (sorted runs, merged when the input ends), and starts a new set for
    /// it: returns the attribute's position (columns, then `lc`), the first-seen id of the
    /// first value taken, and the values. Ids go on from there: a value seen again gets a new
    /// id, which the caller's merge gives the same final id.
    pub fn take_values(&mut self, at_least: usize) -> Vec<(usize, u32, Values)> {
        let mut taken = Vec::new();
        for (a, attr) in self.attrs.iter_mut().enumerate() {
            if attr.values.len() >= at_least.max(1) {
                let values = Values::of(std::mem::take(&mut attr.values));
                let base = attr.base;
                attr.base = base.saturating_add(values.len() as u32);
                taken.push((a, base, values));
            }
        }
        taken
    }

    /// Ids read and not yet taken.
    pub fn pending_ids(&self) -> usize {
        self.attrs.first().map_or(0, |a| a.ids.len())
    }

    /// Ends the input of a builder whose ids are taken with [`IndexBuilder::take_ids`]: the
    /// attributes' values in first-seen order (each sorted by the caller, which then has each
    /// first-seen id's final id), the regions, the ids not yet taken, and the number of tokens.
    pub fn finish_lexicons(mut self) -> Result<Lexicons, BuildError> {
        // The cache of lines leaves before the lexicons are sorted.
        drop(std::mem::take(&mut self.seen));
        let pending = self.take_ids();
        let regions = finish_regions(std::mem::take(&mut self.regions))?;
        let attributes = self
            .attrs
            .iter_mut()
            .map(|a| {
                let values = Values::of(std::mem::take(&mut a.values));
                (a.name.clone(), a.base, values)
            })
            .collect();
        Ok(Lexicons {
            n_tokens: self.tokens as u32,
            attributes,
            regions,
            pending,
        })
    }

    /// The index, once every line has been read.
    pub fn finish(self) -> Result<Index<MemColumns>, BuildError> {
        drop(self.seen);
        let regions = finish_regions(self.regions)?;
        let mut attributes = Vec::with_capacity(self.attrs.len());
        let mut columns = MemColumns::default();
        for a in self.attrs {
            let (attribute, ids, postings) = a.finish();
            attributes.push(attribute);
            columns.ids.push(ids);
            columns.postings.push(postings);
        }
        Ok(Index {
            n_tokens: self.tokens as u32,
            attributes,
            regions,
            columns,
        })
    }
}

/// What [`IndexBuilder::finish_lexicons`] gives.
pub struct Lexicons {
    /// Tokens read.
    pub n_tokens: u32,
    /// Per attribute: name, the first-seen id of the first value not taken by
    /// [`IndexBuilder::take_values`] (0 when none was) and those values in first-seen order
    /// (sorted by the caller, one attribute at a time, with [`Values::sort`]).
    pub attributes: Vec<(String, u32, Values)>,
    /// The regions not taken by [`IndexBuilder::take_regions`] (all of them when it was
    /// never called): each element's last chunk, [`RegionChunk::first`] being the regions
    /// taken before.
    pub regions: Vec<Regions>,
    /// Ids not yet taken, per attribute, in first-seen numbering.
    pub pending: Vec<Vec<u32>>,
}

/// The regions once the input has ended (an element left open is an error).
fn finish_regions(open: Vec<RegionBuild>) -> Result<Vec<Regions>, BuildError> {
    let mut regions = Vec::with_capacity(open.len());
    for r in open {
        if let Some(open) = r.open {
            return Err(BuildError::Structure {
                line: open,
                message: format!("<{}> is never closed", r.regions.name),
            });
        }
        let mut regions_one = r.regions;
        let n = regions_one.starts.len();
        for (_, values) in &mut regions_one.attrs {
            values.resize(n, String::new());
        }
        regions.push(regions_one);
    }
    Ok(regions)
}

/// `key="value" key2='value'` → pairs, entities decoded.
fn parse_attributes(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or_else(|| format!("attribute without a value: `{rest}`"))?;
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let quote = after
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .ok_or_else(|| format!("the value of `{key}` is not quoted"))?;
        let body = &after[1..];
        let end = body
            .find(quote)
            .ok_or_else(|| format!("the value of `{key}` is not closed"))?;
        out.push((key, decode_entities(&body[..end]).into_owned()));
        rest = body[end + 1..].trim_start();
    }
    Ok(out)
}

/// The five XML entities and numeric references decoded; anything else left as written.
pub fn decode_entities(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let decoded = tail.find(';').filter(|&semi| semi <= 10).and_then(|semi| {
            let name = &tail[1..semi];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Builds an index from a whole vertical text (tests and small corpora).
pub fn build_from_str(text: &str, columns: &[&str]) -> Result<Index<MemColumns>, BuildError> {
    let mut b = IndexBuilder::new(columns)?;
    for line in text.lines() {
        b.line(line)?;
    }
    b.finish()
}
