//! Document × word frequency matrix (seed 001's `M(i, j)`), written as Matrix Market.
//!
//! **In:** documents one at a time, each as the token list that also goes into the TreeTagger
//! files.
//!
//! **Out:** a sparse count matrix: rows are documents in the order they were added, columns are
//! words in order of first appearance; written as Matrix Market coordinate `integer general`
//! (1-based `row col count` triples, rows then columns ascending), plus the vocabulary table
//! (`col`, `word`, `df`, `count`) and the document table written by the caller.
//!
//! **Invariants:** memory is bounded by the vocabulary plus the non-zero entries, never by
//! documents squared; only tokens with at least one letter or digit are words (punctuation is
//! not counted); with `lowercase` every word is lower-cased before counting; the Matrix Market
//! size line always equals (documents added, vocabulary size, non-zeros), so `scipy.io.mmread`
//! gives a matrix whose shape matches both tables.

use std::collections::HashMap;
use std::fmt::Write as _;

/// Builds the matrix one document at a time (a fold).
#[derive(Debug, Default)]
pub struct MatrixBuilder {
    lowercase: bool,
    vocab: HashMap<String, u32>,
    words: Vec<WordStats>,
    /// Non-zero entries per document, each row sorted by column.
    rows: Vec<Vec<(u32, u32)>>,
}

/// Statistics of one vocabulary word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordStats {
    /// The word as counted.
    pub word: String,
    /// Number of documents that contain it.
    pub df: u32,
    /// Total number of occurrences.
    pub count: u64,
}

impl MatrixBuilder {
    /// A new, empty matrix; `lowercase` folds case before counting.
    pub fn new(lowercase: bool) -> MatrixBuilder {
        MatrixBuilder {
            lowercase,
            ..MatrixBuilder::default()
        }
    }

    /// Adds one document (a row) and returns its 0-based row index and its word count.
    pub fn add<T: AsRef<str>>(&mut self, tokens: &[T]) -> (usize, usize) {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let mut n_words = 0;
        for token in tokens {
            let token = token.as_ref();
            if !token.chars().any(char::is_alphanumeric) {
                continue;
            }
            n_words += 1;
            let key = if self.lowercase {
                token.to_lowercase()
            } else {
                token.to_string()
            };
            let next_id = self.words.len() as u32;
            let col = *self.vocab.entry(key.clone()).or_insert(next_id);
            if col == next_id {
                self.words.push(WordStats {
                    word: key,
                    ..WordStats::default()
                });
            }
            *counts.entry(col).or_insert(0) += 1;
        }
        let mut row: Vec<(u32, u32)> = counts.into_iter().collect();
        row.sort_unstable();
        for &(col, count) in &row {
            let stats = &mut self.words[col as usize];
            stats.df += 1;
            stats.count += u64::from(count);
        }
        self.rows.push(row);
        (self.rows.len() - 1, n_words)
    }

    /// Number of documents added.
    pub fn n_docs(&self) -> usize {
        self.rows.len()
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &[WordStats] {
        &self.words
    }

    /// Number of non-zero entries.
    pub fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// The Matrix Market text of the matrix.
    pub fn to_matrix_market(&self) -> String {
        let mut out = String::with_capacity(64 + self.nnz() * 12);
        out.push_str("%%MatrixMarket matrix coordinate integer general\n");
        out.push_str("% glaneur document x word counts: rows = docs.tsv, columns = vocab.tsv\n");
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "{} {} {}",
            self.rows.len(),
            self.words.len(),
            self.nnz()
        );
        for (row_idx, row) in self.rows.iter().enumerate() {
            for &(col, count) in row {
                let _ = writeln!(out, "{} {} {}", row_idx + 1, col + 1, count);
            }
        }
        out
    }

    /// The vocabulary table as TSV with a header: `col word df count` (1-based `col`, the
    /// Matrix Market column). Tabs and line breaks cannot occur in a token.
    pub fn vocabulary_tsv(&self) -> String {
        let mut out = String::from("col\tword\tdf\tcount\n");
        for (idx, w) in self.words.iter().enumerate() {
            let _ = writeln!(out, "{}\t{}\t{}\t{}", idx + 1, w.word, w.df, w.count);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_not_punctuation() {
        let mut m = MatrixBuilder::new(true);
        let (row, n) = m.add(&["Le", "calque", ",", "le", "calque", "."]);
        assert_eq!((row, n), (0, 4));
        m.add(&["Un", "calque"]);
        m.add::<&str>(&[]);
        assert_eq!(m.n_docs(), 3);
        let vocab: Vec<_> = m.vocabulary().iter().map(|w| w.word.as_str()).collect();
        assert_eq!(vocab, ["le", "calque", "un"]);
        assert_eq!(m.vocabulary()[1].df, 2);
        assert_eq!(m.vocabulary()[1].count, 3);
        assert_eq!(
            m.to_matrix_market(),
            "%%MatrixMarket matrix coordinate integer general\n\
             % glaneur document x word counts: rows = docs.tsv, columns = vocab.tsv\n\
             3 3 4\n1 1 2\n1 2 2\n2 2 1\n2 3 1\n"
        );
        assert!(
            m.vocabulary_tsv()
                .starts_with("col\tword\tdf\tcount\n1\tle\t1\t2\n")
        );
    }

    #[test]
    fn keeps_case_when_asked() {
        let mut m = MatrixBuilder::new(false);
        m.add(&["Le", "le"]);
        assert_eq!(m.vocabulary().len(), 2);
    }
}
