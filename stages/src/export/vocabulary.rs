//! The words of a document × word matrix: counted in memory one run at a time, then placed in
//! the filtered matrix's columns from all the runs merged, without holding the vocabulary twice.
//!
//! **In:** the words of the documents, counted in a [`Vocabulary`] (ids in order of first
//! appearance). A caller that keeps runs on disk takes the vocabulary from the builder when it
//! is large, writes it in byte order ([`Vocabulary::sorted`]) and lets the builder start a new
//! one. At the end, the whole vocabulary in byte order, each distinct word once with its
//! statistics summed over the runs and every raw id it had, read twice: by a [`ColumnCounter`],
//! then by the [`ColumnPlacer`] it gives.
//!
//! **Out:** the kept words in column order (descending document frequency, then byte order,
//! cut to `max_vocabulary`) and the column of every raw id, which
//! [`FilteredColumns::placed`](crate::export::matrix::FilteredColumns::placed) takes.
//!
//! **Invariants:** the columns are those of sorting the kept words by (descending df, word),
//! with no sort: the first reading counts the kept words and their bytes for each document
//! frequency, so the second puts each word's text straight at its column's place in one buffer
//! (within one df, byte order is reading order). Memory is the kept words' texts and about 20
//! bytes a column and 4 a raw id, never a second copy of the vocabulary. A document's words
//! are all counted in one run and a run's words are distinct, so a word's `df` summed over the
//! runs counts each document once. Readings that disagree give an error, never a wrong column.

use std::collections::BTreeMap;

use crate::page::stopwords;
use crate::pool::StrPool;

/// One vocabulary word and its statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Word<'a> {
    /// The word as counted.
    pub word: &'a str,
    /// Number of documents that contain it.
    pub df: u32,
    /// Total number of occurrences.
    pub count: u64,
}

/// Words with their statistics, by id: the texts in one [`StrPool`], so a word costs its bytes
/// and about 25 more, not an allocation of its own (a million-page corpus has about a million
/// distinct words).
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    words: StrPool,
    df: Vec<u32>,
    count: Vec<u64>,
}

impl PartialEq for Vocabulary {
    fn eq(&self, other: &Vocabulary) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Vocabulary {
    /// Number of words.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// Whether there is no word.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// The word of id (column) `col`, when there is one.
    pub fn get(&self, col: usize) -> Option<Word<'_>> {
        Some(Word {
            word: self.words.get(u32::try_from(col).ok()?),
            df: *self.df.get(col)?,
            count: *self.count.get(col)?,
        })
    }

    /// The words in id order.
    pub fn iter(&self) -> impl Iterator<Item = Word<'_>> + '_ {
        (0..self.len()).filter_map(|col| self.get(col))
    }

    /// The ids in byte order of their words: the order of a run on disk.
    pub fn sorted(&self) -> Vec<u32> {
        self.words.sorted_ids()
    }

    /// The id of `word`, given the next one when it is new; `None` past `u32::MAX` words.
    pub(super) fn column(&mut self, word: &str) -> Option<usize> {
        let col = self.words.intern(word) as usize;
        if col == self.df.len() {
            self.df.push(0);
            self.count.push(0);
        }
        (col < self.df.len()).then_some(col)
    }

    /// Adds `df` documents and `count` occurrences to id `col` (nothing out of range).
    pub(super) fn add(&mut self, col: usize, df: u32, count: u64) {
        if let (Some(d), Some(c)) = (self.df.get_mut(col), self.count.get_mut(col)) {
            *d += df;
            *c += count;
        }
    }
}

/// Which words the filtered matrix keeps: the options' document-frequency bounds and stop
/// lists, for a corpus of known size.
#[derive(Debug, Clone, Default)]
pub(super) struct KeepRule {
    pub(super) min_df: u32,
    /// `max_df_ratio` × documents.
    pub(super) max_df: f64,
    pub(super) stop_codes: Vec<String>,
    pub(super) max_vocabulary: Option<usize>,
}

impl KeepRule {
    fn keeps(&self, word: &str, df: u32) -> bool {
        df >= self.min_df
            && f64::from(df) <= self.max_df
            && !self
                .stop_codes
                .iter()
                .any(|code| stopwords::is_stopword(code, word))
    }
}

/// The first reading of the merged vocabulary: the kept words and their bytes for each
/// document frequency ([`MatrixBuilder::column_counter`](crate::export::matrix::MatrixBuilder::column_counter)).
#[derive(Debug)]
pub struct ColumnCounter {
    rule: KeepRule,
    raw_ids: usize,
    /// Kept words and their bytes, by document frequency.
    by_df: BTreeMap<u32, (usize, usize)>,
}

impl ColumnCounter {
    pub(super) fn new(rule: KeepRule, raw_ids: usize) -> ColumnCounter {
        ColumnCounter {
            rule,
            raw_ids,
            by_df: BTreeMap::new(),
        }
    }

    /// Counts one word of the merged vocabulary (each distinct word once, in byte order).
    pub fn count(&mut self, word: &str, df: u32) {
        if self.rule.keeps(word, df) {
            let (words, bytes) = self.by_df.entry(df).or_default();
            *words += 1;
            *bytes += word.len();
        }
    }

    /// The second reading, which places the words.
    pub fn placer(self) -> ColumnPlacer {
        let total: usize = self.by_df.values().map(|&(words, _)| words).sum();
        let n_cols = self.rule.max_vocabulary.map_or(total, |max| max.min(total));
        let mut slots = BTreeMap::new();
        let (mut col, mut byte) = (0, 0);
        // Highest document frequency first: the column order.
        for (&df, &(words, bytes)) in self.by_df.iter().rev() {
            if col >= n_cols {
                break;
            }
            let end_col = (col + words).min(n_cols);
            slots.insert(
                df,
                Slot {
                    col,
                    end_col,
                    byte,
                    // A slot cut by `max_vocabulary` ends where its last kept word ends.
                    end_byte: (end_col == col + words).then_some(byte + bytes),
                },
            );
            col += words;
            byte += bytes;
        }
        ColumnPlacer {
            rule: self.rule,
            slots,
            text: vec![0; byte],
            starts: vec![0; n_cols],
            df: vec![0; n_cols],
            count: vec![0; n_cols],
            new_col: vec![u32::MAX; self.raw_ids],
        }
    }
}

/// The columns and bytes of one document frequency, and the next free ones.
#[derive(Debug)]
struct Slot {
    col: usize,
    end_col: usize,
    byte: usize,
    end_byte: Option<usize>,
}

/// The second reading of the merged vocabulary: each kept word's text, statistics and raw ids
/// put at its column.
#[derive(Debug)]
pub struct ColumnPlacer {
    rule: KeepRule,
    slots: BTreeMap<u32, Slot>,
    text: Vec<u8>,
    starts: Vec<usize>,
    df: Vec<u32>,
    count: Vec<u64>,
    new_col: Vec<u32>,
}

impl ColumnPlacer {
    /// Places one word of the merged vocabulary (the words of the first reading, in the same
    /// order) with the raw ids it had in the runs.
    pub fn place(&mut self, word: Word<'_>, raw_ids: &[u32]) {
        if !self.rule.keeps(word.word, word.df) {
            return;
        }
        let Some(slot) = self.slots.get_mut(&word.df) else {
            return;
        };
        let (col, from, to) = (slot.col, slot.byte, slot.byte + word.word.len());
        if col >= slot.end_col {
            return;
        }
        let (Some(text), Some(start)) = (self.text.get_mut(from..to), self.starts.get_mut(col))
        else {
            return;
        };
        text.copy_from_slice(word.word.as_bytes());
        *start = from;
        slot.col += 1;
        slot.byte = to;
        if let (Some(df), Some(count)) = (self.df.get_mut(col), self.count.get_mut(col)) {
            (*df, *count) = (word.df, word.count);
        }
        for &raw in raw_ids {
            if let Some(new) = self.new_col.get_mut(raw as usize) {
                *new = col as u32;
            }
        }
    }

    /// The new column of every raw id and the kept words in column order, or `None` when the
    /// two readings differed.
    pub(super) fn finish(self) -> Option<(Vec<u32>, Vocabulary)> {
        let complete = self
            .slots
            .values()
            .all(|s| s.col == s.end_col && s.end_byte.is_none_or(|end| s.byte == end));
        // The last column's slot is the lowest document frequency placed.
        let end = self.slots.values().next().map_or(0, |s| s.byte);
        let mut text = self.text;
        text.truncate(end);
        let mut ends = self.starts;
        ends.push(end);
        let words = String::from_utf8(text)
            .ok()
            .filter(|_| complete)
            .and_then(|text| StrPool::from_parts(text, ends))?;
        let words = Vocabulary {
            words,
            df: self.df,
            count: self.count,
        };
        Some((self.new_col, words))
    }
}
