//! Breakdowns of a query's hits: by a token attribute at a position around the hit (the node,
//! L1…, R1…), and by an attribute of the documents (host, language, date…); and the
//! dispersion of a frequency list over the documents.
//!
//! **In:** an index and the hits of a query (or none: the whole corpus).
//!
//! **Out:** rows sorted by frequency, ties by value.
//!
//! **Invariants:** a position left or right of a hit is read only inside the hit's document
//! (a hit at a document's start has no L1); every count is of hits or tokens, never both.

use rustc_hash::FxHashMap;

use super::dispersion::{Dispersion, Dispersions};
use super::index::{ColumnError, Columns, Index};
use super::query::Hit;

/// Where a hit's value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The hit's own tokens (a multi-token hit's values joined by a space).
    Node,
    /// The k-th token before the hit (L1 is the one just before).
    Left(u32),
    /// The k-th token after the hit (R1 is the one just after).
    Right(u32),
}

/// Positions go up to this many tokens away from the hit.
pub const MAX_OFFSET: u32 = 50;

impl Position {
    /// `node`, `L1`…`L50`, `R1`…`R50` (case ignored).
    pub fn parse(text: &str) -> Option<Position> {
        let t = text.trim().to_ascii_lowercase();
        if t == "node" || t == "kwic" {
            return Some(Position::Node);
        }
        let (side, k) = t.split_at_checked(1)?;
        let k: u32 = k.parse().ok().filter(|k| (1..=MAX_OFFSET).contains(k))?;
        match side {
            "l" => Some(Position::Left(k)),
            "r" => Some(Position::Right(k)),
            _ => None,
        }
    }
}

/// Occurrences of the values of `attr` at `at` of each hit; hits whose position falls outside
/// their document are not counted (returned second).
pub fn at_position<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    attr: usize,
    at: Position,
) -> Result<(Vec<(String, u64)>, u64), ColumnError> {
    let text = index.region("text");
    // One-token values are counted by id (a block of ids read at a time: hits come in corpus
    // order); a multi-token node's values are joined.
    let mut by_id = vec![0u64; index.attributes[attr].lexicon.len()];
    let mut joined: FxHashMap<String, u64> = FxHashMap::default();
    let mut block: (u32, Vec<u32>) = (u32::MAX, Vec::new());
    const BLOCK: u32 = 4096;
    let mut outside = 0u64;
    for h in hits {
        let range = match at {
            Position::Node => h.start..h.end,
            Position::Left(k) => match h.start.checked_sub(k) {
                Some(p) => p..p + 1,
                None => {
                    outside += 1;
                    continue;
                }
            },
            Position::Right(k) => {
                let p = h.end.saturating_add(k - 1);
                p..p.saturating_add(1)
            }
        };
        let (lo, hi) = match text.and_then(|r| r.find(h.start).map(|i| (r.starts[i], r.ends[i]))) {
            Some(bounds) => bounds,
            None => (0, index.n_tokens),
        };
        if range.start < lo || range.end > hi || range.end > index.n_tokens {
            outside += 1;
            continue;
        }
        if range.len() == 1 {
            let p = range.start;
            if !(block.0..block.0.saturating_add(BLOCK)).contains(&p) {
                let start = p - p % BLOCK;
                block = (start, index.ids(attr, start..start.saturating_add(BLOCK))?);
            }
            if let Some(slot) = block
                .1
                .get((p - block.0) as usize)
                .and_then(|&id| by_id.get_mut(id as usize))
            {
                *slot += 1;
            }
        } else {
            let value = index.values(attr, range)?.join(" ");
            *joined.entry(value).or_default() += 1;
        }
    }
    let lexicon = &index.attributes[attr].lexicon;
    for (id, n) in by_id.into_iter().enumerate().filter(|&(_, n)| n > 0) {
        *joined
            .entry(lexicon.get(id as u32).to_string())
            .or_default() += n;
    }
    Ok((sorted(joined.into_iter().collect()), outside))
}

/// One value of a document attribute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DocumentRow {
    /// The value (`""` for documents without the attribute).
    pub value: String,
    /// Hits in its documents (tokens, without a query).
    pub count: u64,
    /// Tokens of its documents.
    pub tokens: u64,
    /// Its documents.
    pub documents: u64,
    /// Its documents holding at least one hit (all of them, without a query).
    pub with_hits: u64,
}

/// The hits (or, without hits, the tokens) per value of the documents' attribute `name`;
/// None when the documents have no such attribute.
pub fn by_document<C: Columns>(
    index: &Index<C>,
    name: &str,
    hits: Option<&[Hit]>,
) -> Option<Vec<DocumentRow>> {
    let text = index.region("text")?;
    text.attrs.iter().find(|(n, _)| n == name)?;
    let mut rows: FxHashMap<&str, DocumentRow> = FxHashMap::default();
    for i in 0..text.len() {
        let value = text.attr(name, i).unwrap_or("");
        let row = rows.entry(value).or_insert_with(|| DocumentRow {
            value: value.to_string(),
            count: 0,
            tokens: 0,
            documents: 0,
            with_hits: 0,
        });
        let size = u64::from(text.ends[i].saturating_sub(text.starts[i]));
        row.tokens += size;
        row.documents += 1;
        if hits.is_none() {
            row.count += size;
            row.with_hits += 1;
        }
    }
    if let Some(hits) = hits {
        let mut last_doc = None;
        for h in hits {
            let Some(i) = text.find(h.start) else {
                continue;
            };
            let value = text.attr(name, i).unwrap_or("");
            if let Some(row) = rows.get_mut(value) {
                row.count += 1;
                if last_doc != Some(i) {
                    row.with_hits += 1;
                }
            }
            last_doc = Some(i);
        }
    }
    let mut rows: Vec<DocumentRow> = rows.into_values().filter(|r| r.count > 0).collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    Some(rows)
}

/// The dispersion over the documents of every value of `attr`, by value id (one pass over
/// the corpus, a block at a time).
pub fn dispersion<C: Columns>(
    index: &Index<C>,
    attr: usize,
) -> Result<Vec<Dispersion>, ColumnError> {
    let a = &index.attributes[attr];
    let freq: Vec<u64> = (0..a.lexicon.len() as u32)
        .map(|id| a.frequency(id))
        .collect();
    let parts: Vec<(u32, u32)> = match index.region("text") {
        Some(r) if !r.is_empty() => r
            .starts
            .iter()
            .copied()
            .zip(r.ends.iter().copied())
            .collect(),
        _ => vec![(0, index.n_tokens)],
    };
    let mut d = Dispersions::new(u64::from(index.n_tokens), &parts, &freq);
    const BLOCK: u32 = 1 << 16;
    let mut start = 0u32;
    while start < index.n_tokens {
        let end = start.saturating_add(BLOCK).min(index.n_tokens);
        for (k, id) in index.ids(attr, start..end)?.into_iter().enumerate() {
            d.add(id as usize, start + k as u32);
        }
        start = end;
    }
    Ok(d.finish())
}

fn sorted(mut rows: Vec<(String, u64)>) -> Vec<(String, u64)> {
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

/// N-grams counted at most: past this many distinct ones, [`ngrams`] stops with
/// [`NgramError::TooMany`] rather than grow without bound (≈ 70–140 bytes each while counting).
pub const MAX_NGRAMS: usize = 10_000_000;

/// Why n-grams could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum NgramError {
    /// More distinct n-grams than [`MAX_NGRAMS`].
    #[error(
        "more than {MAX_NGRAMS} distinct n-grams: count shorter ones, or by an attribute with fewer values (lemma, pos)"
    )]
    TooMany,
    /// The ids of n values do not fit 128 bits together.
    #[error("the attribute has too many distinct values to count {0}-grams of it")]
    TooManyValues(usize),
    /// The index could not be read.
    #[error(transparent)]
    Read(#[from] ColumnError),
}

/// The n-grams (2 ≤ n ≤ 5) of `attr` inside each region of `within` (sentences: an n-gram never
/// crosses a sentence end), as value ids with their frequency, most frequent first (ties by
/// ids). Tokens outside every such region are not counted. The n ids are packed in one
/// 128-bit key while counting.
pub fn ngrams<C: Columns>(
    index: &Index<C>,
    attr: usize,
    n: usize,
    within: &str,
) -> Result<Ngrams, NgramError> {
    let n = n.clamp(2, 5);
    let values = index.attributes[attr].lexicon.len() as u64;
    let bits = (64 - values.leading_zeros()).max(1);
    if bits as usize * n > 128 {
        return Err(NgramError::TooManyValues(n));
    }
    let spans: Vec<(u32, u32)> = match index.region(within) {
        Some(r) => r
            .starts
            .iter()
            .copied()
            .zip(r.ends.iter().copied())
            .collect(),
        None => vec![(0, index.n_tokens)],
    };
    // Keys of 64 bits when the n ids fit (bigrams always do): half the memory per n-gram.
    let rows = if bits as usize * n <= 64 {
        count_packed::<u64, C>(index, attr, n, bits, &spans)?
            .into_iter()
            .map(|(k, f)| (u128::from(k), f))
            .collect()
    } else {
        count_packed::<u128, C>(index, attr, n, bits, &spans)?
    };
    Ok(Ngrams { n, bits, rows })
}

/// The n-grams of `attr` inside `spans`, each packed in a key of type `K` (`bits` a value),
/// with their frequency, most frequent first.
fn count_packed<K, C>(
    index: &Index<C>,
    attr: usize,
    n: usize,
    bits: u32,
    spans: &[(u32, u32)],
) -> Result<Vec<(K, u64)>, NgramError>
where
    K: Copy
        + Ord
        + std::hash::Hash
        + From<u32>
        + std::ops::Shl<u32, Output = K>
        + std::ops::BitOr<Output = K>,
    C: Columns,
{
    let mut counts: FxHashMap<K, u64> = FxHashMap::default();
    for &(start, end) in spans {
        if end.saturating_sub(start) < n as u32 {
            continue;
        }
        let ids = index.ids(attr, start..end)?;
        for w in ids.windows(n) {
            let key = w
                .iter()
                .fold(K::from(0), |k, &id| (k << bits) | K::from(id));
            if let Some(c) = counts.get_mut(&key) {
                *c += 1;
            } else {
                if counts.len() >= MAX_NGRAMS {
                    return Err(NgramError::TooMany);
                }
                counts.insert(key, 1);
            }
        }
    }
    let mut rows: Vec<(K, u64)> = counts.into_iter().collect();
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(rows)
}

/// Counted n-grams, most frequent first; [`Ngrams::ids`] unpacks a key.
pub struct Ngrams {
    n: usize,
    bits: u32,
    /// Packed ids and frequency.
    pub rows: Vec<(u128, u64)>,
}

impl Ngrams {
    /// The value ids of a packed n-gram, in text order.
    pub fn ids(&self, key: u128) -> Vec<u32> {
        let mask = (1u128 << self.bits) - 1;
        (0..self.n)
            .rev()
            .map(|i| ((key >> (self.bits as usize * i)) & mask) as u32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::build::build_from_str;

    #[test]
    fn wide_and_narrow_keys_count_the_same_ngrams() {
        let vrt = "<text>\n<s>\na\nb\nc\na\nb\nc\nd\n</s>\n<s>\na\nb\nc\n</s>\n</text>\n";
        let index = build_from_str(vrt, &["word"]).expect("indexes");
        let spans = [(0, 7), (7, 10)];
        for n in 2..=4 {
            let narrow = count_packed::<u64, _>(&index, 0, n, 3, &spans).expect("counts");
            let wide = count_packed::<u128, _>(&index, 0, n, 3, &spans).expect("counts");
            let narrow: Vec<(u128, u64)> = narrow
                .into_iter()
                .map(|(k, f)| (u128::from(k), f))
                .collect();
            assert_eq!(narrow, wide, "n {n}");
        }
        // "a b" three times (twice in the first sentence, once in the second), never "c a b"
        // across the sentence end.
        let grams = ngrams(&index, 0, 2, "s").expect("counts");
        let lexicon = &index.attributes[0].lexicon;
        let text = |key| -> String {
            grams
                .ids(key)
                .iter()
                .map(|&id| lexicon.get(id))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let first = grams.rows[0];
        assert_eq!((text(first.0), first.1), ("a b".to_string(), 3));
        let trigrams = ngrams(&index, 0, 3, "s").expect("counts");
        assert_eq!(trigrams.rows.iter().map(|r| r.1).sum::<u64>(), 5 + 1);
    }
}
