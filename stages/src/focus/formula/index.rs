//! Prepared texts: a text tokenised once into a sorted vocabulary with the positions of each word,
//! for every folding the formulas may ask for, so that evaluating a formula only looks words up
//! (binary searches) and never rescans the text.
//!
//! **In:** a plain text. **Out:** a [`PreparedText`] whose indexes count words, phrases, prefixes
//! and `NEAR` pairs.
//!
//! **Invariants:** an index is built lazily per folding and at most once; look-ups never panic,
//! whatever the slot.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use super::fold::{Tokens, fold_into};
use super::{Clause, FormulaOptions, Term, Word};

/// FxHash's multiply-rotate hash for the token table: the tokens of one page need no
/// DoS-resistant hashing (a page crafted for collisions only slows down its own preparation),
/// and it makes preparing a text about 15 % faster than the default SipHash.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The index of one text under one folding.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    /// Distinct folded tokens, sorted (byte order), so that a prefix is a contiguous range.
    vocab: Vec<Box<str>>,
    /// Postings of `vocab[i]` are `postings[offsets[i]..offsets[i + 1]]`; the postings of a
    /// range of ids are therefore one contiguous slice.
    offsets: Vec<u32>,
    /// Token positions, ascending within each vocabulary entry.
    postings: Vec<u32>,
    /// Vocabulary id of the token at each position, to check phrases.
    sequence: Vec<u32>,
}

impl Index {
    fn build(text: &str, options: FormulaOptions) -> Index {
        // Sized for a page of running text (a token every 6 bytes, a new word every 40 or
        // so), so that neither grows by doubling on most pages.
        let mut ids: HashMap<Box<str>, u32, BuildHasherDefault<TokenHasher>> =
            HashMap::with_capacity_and_hasher(text.len() / 40, BuildHasherDefault::default());
        let mut sequence: Vec<u32> = Vec::with_capacity(text.len() / 6);
        let mut buf = String::new();
        for token in Tokens::new(text) {
            // Positions are u32: a text of more than four billion tokens is cut there rather
            // than mis-indexed.
            if u32::try_from(sequence.len()).is_err() {
                break;
            }
            fold_into(token, options, &mut buf);
            let id = match ids.get(buf.as_str()) {
                Some(&id) => id,
                None => {
                    let Ok(id) = u32::try_from(ids.len()) else {
                        break;
                    };
                    ids.insert(buf.as_str().into(), id);
                    id
                }
            };
            sequence.push(id);
        }
        let mut entries: Vec<(Box<str>, u32)> = ids.into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // rank[first-seen id] = sorted id
        let mut rank = vec![0u32; entries.len()];
        for (sorted, (_, seen)) in (0u32..).zip(&entries) {
            if let Some(slot) = rank.get_mut(*seen as usize) {
                *slot = sorted;
            }
        }
        let mut counts = vec![0u32; entries.len()];
        for id in &mut sequence {
            *id = rank.get(*id as usize).copied().unwrap_or(0);
            if let Some(count) = counts.get_mut(*id as usize) {
                *count += 1;
            }
        }
        let mut offsets = Vec::with_capacity(entries.len() + 1);
        let mut total = 0u32;
        offsets.push(0);
        for count in &counts {
            total += count;
            offsets.push(total);
        }
        let mut cursor: Vec<u32> = offsets.clone();
        let mut postings = vec![0u32; sequence.len()];
        for (pos, id) in (0u32..).zip(&sequence) {
            if let Some(next) = cursor.get_mut(*id as usize)
                && let Some(slot) = postings.get_mut(*next as usize)
            {
                *slot = pos;
                *next += 1;
            }
        }
        Index {
            vocab: entries.into_iter().map(|(token, _)| token).collect(),
            offsets,
            postings,
            sequence,
        }
    }

    /// The ids (a half-open range) of the vocabulary entries `word` matches.
    fn range(&self, word: &Word) -> (usize, usize) {
        let w = word.text.as_str();
        let lo = self.vocab.partition_point(|t| &**t < w);
        let rest = self.vocab.get(lo..).unwrap_or_default();
        let len = if word.prefix {
            rest.partition_point(|t| t.starts_with(w))
        } else {
            usize::from(rest.first().is_some_and(|t| &**t == w))
        };
        (lo, lo + len)
    }

    /// The positions of the tokens whose ids are in `lo..hi` (ascending when `hi - lo == 1`).
    fn span(&self, (lo, hi): (usize, usize)) -> &[u32] {
        let start = self.offsets.get(lo).copied().unwrap_or(0) as usize;
        let end = self.offsets.get(hi).copied().unwrap_or(0) as usize;
        self.postings.get(start..end).unwrap_or_default()
    }

    pub(super) fn clause_count(&self, clause: &Clause) -> usize {
        match clause {
            Clause::Term(term) => self.term_count(term),
            Clause::Near {
                left,
                right,
                distance,
            } => self.near_count(left, right, *distance),
        }
    }

    fn term_count(&self, term: &Term) -> usize {
        match term.words.as_slice() {
            [word] => self.span(self.range(word)).len(),
            _ => self.term_starts(term).len(),
        }
    }

    /// Ascending start positions of the occurrences of `term`.
    fn term_starts(&self, term: &Term) -> Vec<u32> {
        let ranges: Vec<(usize, usize)> = term.words.iter().map(|w| self.range(w)).collect();
        if ranges.iter().any(|(lo, hi)| lo >= hi) {
            return Vec::new();
        }
        // Anchor on the rarest word: a phrase such as "la théorie des graphes" is then checked
        // at the few places of "théorie" rather than at every "la".
        let Some((anchor, &anchor_range)) = ranges
            .iter()
            .enumerate()
            .min_by_key(|(_, range)| self.span(**range).len())
        else {
            return Vec::new();
        };
        let mut starts = Vec::new();
        for &pos in self.span(anchor_range) {
            let Some(start) = (pos as usize).checked_sub(anchor) else {
                continue;
            };
            let fits = ranges.iter().enumerate().all(|(k, &(lo, hi))| {
                k == anchor
                    || self
                        .sequence
                        .get(start + k)
                        .is_some_and(|&id| (lo..hi).contains(&(id as usize)))
            });
            if fits && let Ok(start) = u32::try_from(start) {
                starts.push(start);
            }
        }
        if anchor_range.1 - anchor_range.0 > 1 {
            starts.sort_unstable();
        }
        starts
    }

    /// Occurrences of `left` that have an occurrence of `right` within `distance` tokens,
    /// before or after, without overlapping it.
    fn near_count(&self, left: &Term, right: &Term, distance: u32) -> usize {
        let lefts = self.term_starts(left);
        if lefts.is_empty() {
            return 0;
        }
        let rights = self.term_starts(right);
        if rights.is_empty() {
            return 0;
        }
        let left_len = left.words.len() as u64;
        let right_len = right.words.len() as u64;
        let distance = u64::from(distance);
        // Is some right start within lo..=hi?
        let any_in = |lo: u64, hi: u64| {
            let i = rights.partition_point(|&r| u64::from(r) < lo);
            rights.get(i).is_some_and(|&r| u64::from(r) <= hi)
        };
        lefts
            .iter()
            .filter(|&&l| {
                let l = u64::from(l);
                // right after: its first token at most `distance` after left's last token
                let after = any_in(l + left_len, l + left_len - 1 + distance);
                // right before: left's first token at most `distance` after right's last one
                let before = l >= right_len
                    && any_in((l + 1).saturating_sub(distance + right_len), l - right_len);
                after || before
            })
            .count()
    }
}

/// A text tokenised and indexed once, to be judged by many formulas.
#[derive(Debug, Clone)]
pub struct PreparedText {
    /// Kept so that a formula with other options can have its own folding of the text.
    text: Box<str>,
    options: FormulaOptions,
    token_count: usize,
    /// One lazily built index per folding (see [`FormulaOptions::slot`]).
    indexes: [OnceLock<Index>; 4],
}

impl PreparedText {
    /// Tokenises and indexes `text` for formulas parsed with `options`.
    pub fn new(text: &str, options: FormulaOptions) -> Self {
        let index = Index::build(text, options);
        let token_count = index.sequence.len();
        let slot = options.slot();
        let mut index = Some(index);
        let indexes = std::array::from_fn(|i| match index.take_if(|_| i == slot) {
            Some(index) => OnceLock::from(index),
            None => OnceLock::new(),
        });
        PreparedText {
            text: text.into(),
            options,
            token_count,
            indexes,
        }
    }

    /// The number of tokens (words and numbers) in the text.
    pub fn token_count(&self) -> usize {
        self.token_count
    }

    /// The options the text was prepared for.
    pub fn options(&self) -> FormulaOptions {
        self.options
    }

    pub(super) fn index(&self, options: FormulaOptions) -> &Index {
        match self.indexes.get(options.slot()) {
            Some(cell) => cell.get_or_init(|| Index::build(&self.text, options)),
            None => empty_index(),
        }
    }

    /// The distinct tokens of the text, folded with the options it was prepared for, each with
    /// its number of occurrences, in byte order: exactly what
    /// [`folded_tokens`](super::folded_tokens) would count, without tokenising the text a second
    /// time (the seed centroid scores the same texts).
    pub fn token_counts(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        let index = self.index(self.options);
        index
            .vocab
            .iter()
            .zip(index.offsets.windows(2))
            .map(|(token, bounds)| match bounds {
                [start, end] => (&**token, end.saturating_sub(*start)),
                _ => (&**token, 0),
            })
    }
}

/// Unreachable in practice (the slot is always below 4), but indexing must not panic.
fn empty_index() -> &'static Index {
    static EMPTY: OnceLock<Index> = OnceLock::new();
    EMPTY.get_or_init(Index::default)
}
