//! Document × word frequency matrix (seed 001's `M(i, j)`), written as Matrix Market.
//!
//! **In:** documents one at a time, each as the token list that also goes into the TreeTagger
//! files, and [`MatrixOptions`] (case folding, stop list, document-frequency bounds, vocabulary
//! cap).
//!
//! **Out:** the raw sparse count matrix ([`MatrixBuilder`]): rows are documents in the order
//! they were added, columns are words in order of first appearance; written as Matrix Market
//! coordinate `integer general` (1-based `row col count` triples, rows then columns ascending),
//! plus the vocabulary table (`col`, `word`, `df`, `count`) and the document table written by
//! the caller. [`MatrixBuilder::filtered`] gives the filtered matrix ([`SparseMatrix`]): same
//! rows, only the words that pass the options, columns re-numbered **by descending document
//! frequency, then by word (byte order)**; it writes Matrix Market, `vocab.tsv`, a long CSV
//! (`doc,word,count`) and, below a size guard, a dense CSV (first column the 1-based row under
//! an empty header, then one column per word).
//!
//! **Invariants:** memory is bounded by the vocabulary plus the non-zero entries, never by
//! documents squared (filtering needs the final document frequencies, so the raw rows are kept
//! and columns are re-numbered only when the filtered matrix is made); only tokens with at
//! least one letter or digit are words (punctuation is not counted); with `lowercase` every
//! word is lower-cased before counting; filtering removes columns, never rows, so row `i` is
//! the same document in both matrices (a document may become an empty row); the Matrix Market
//! size line always equals (documents added, vocabulary size, non-zeros), so `scipy.io.mmread`
//! gives a matrix whose shape matches both tables; TSV and CSV fields are quoted by
//! [`delimited`](crate::export::delimited)'s rule, so R's `read.delim`/`read.csv` and pandas' `read_table`/`read_csv`
//! read every word back whole (a vocabulary of `n` words is `n` rows); the dense CSV's row
//! column has an empty header, so no word can share its column name (a word `doc` did).

use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt::Write as _;

use crate::export::delimited::push_field;
use crate::page::stopwords;

/// Default guard of [`SparseMatrix::to_dense_csv`]: at most this many cells (rows × columns).
pub const DENSE_MAX_CELLS: usize = 5_000_000;

/// Why a matrix could not be configured or written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatrixError {
    /// A stop-list language code has no list in [`crate::page::stopwords`].
    #[error("no stop list for language {0:?} (known: cs, de, en, es, fr, it, nl, pl, pt)")]
    UnknownStoplist(String),
    /// `max_df_ratio` is not a number in (0, 1].
    #[error("max_df_ratio must be in (0, 1], got {0}")]
    BadMaxDfRatio(f64),
    /// The dense CSV would exceed the cell guard; the caller reports it and writes the sparse
    /// forms only.
    #[error(
        "dense matrix refused: {rows} documents × {cols} words = {cells} cells, more than the \
         limit of {max_cells}; use the Matrix Market or long CSV form"
    )]
    DenseTooLarge {
        /// Documents (rows).
        rows: usize,
        /// Words (columns).
        cols: usize,
        /// rows × cols, saturating.
        cells: usize,
        /// The guard that was exceeded.
        max_cells: usize,
    },
}

/// How the matrix is built ([`lowercase`](Self::lowercase)) and filtered (the other fields,
/// applied by [`MatrixBuilder::filtered`]). The default keeps every word and keeps case, like
/// `MatrixBuilder::new(false)`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixOptions {
    /// Fold case before counting.
    pub lowercase: bool,
    /// Stop lists to remove: one ISO 639-1 code or several separated by commas (`"fr,en"` for a
    /// bilingual corpus). `None` keeps function words.
    pub stoplist: Option<String>,
    /// Keep words found in at least this many documents (0 and 1 keep all).
    pub min_df: u32,
    /// Keep words found in at most this share of the documents (`df <= max_df_ratio × n_docs`,
    /// scikit-learn's float `max_df`); 1.0 keeps all.
    pub max_df_ratio: f64,
    /// Keep only the first this-many words of the filtered column order (highest document
    /// frequency first). Note: scikit-learn's `max_features` ranks by total count instead.
    pub max_vocabulary: Option<usize>,
}

impl Default for MatrixOptions {
    fn default() -> MatrixOptions {
        MatrixOptions {
            lowercase: false,
            stoplist: None,
            min_df: 1,
            max_df_ratio: 1.0,
            max_vocabulary: None,
        }
    }
}

impl MatrixOptions {
    /// The stop-list codes, checked: every code must have a list.
    fn stoplist_codes(&self) -> Result<Vec<String>, MatrixError> {
        let Some(list) = &self.stoplist else {
            return Ok(Vec::new());
        };
        let mut codes = Vec::new();
        for code in list.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if stopwords::stopwords(code).is_none() {
                return Err(MatrixError::UnknownStoplist(code.to_string()));
            }
            codes.push(code.to_string());
        }
        Ok(codes)
    }

    /// Checks the options without building anything.
    pub fn validate(&self) -> Result<(), MatrixError> {
        if !(self.max_df_ratio > 0.0 && self.max_df_ratio <= 1.0) {
            return Err(MatrixError::BadMaxDfRatio(self.max_df_ratio));
        }
        self.stoplist_codes().map(|_| ())
    }
}

/// Builds the matrix one document at a time (a fold).
#[derive(Debug, Default)]
pub struct MatrixBuilder {
    options: MatrixOptions,
    stop_codes: Vec<String>,
    vocab: HashMap<String, u32>,
    words: Vec<WordStats>,
    /// Non-zero entries per document, each row sorted by column (the rows not yet taken by
    /// [`MatrixBuilder::take_rows`]).
    rows: Vec<Vec<(u32, u32)>>,
    /// Rows already taken.
    taken: usize,
    /// Non-zero entries of `rows`, kept as rows come and go: the caller asks after every
    /// document whether to take them.
    pending: usize,
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
    /// A new, empty matrix; `lowercase` folds case before counting. No filtering.
    pub fn new(lowercase: bool) -> MatrixBuilder {
        MatrixBuilder {
            options: MatrixOptions {
                lowercase,
                ..MatrixOptions::default()
            },
            ..MatrixBuilder::default()
        }
    }

    /// A new, empty matrix built and filtered with `options` (checked here, so
    /// [`filtered`](Self::filtered) cannot fail).
    pub fn with_options(options: MatrixOptions) -> Result<MatrixBuilder, MatrixError> {
        options.validate()?;
        let stop_codes = options.stoplist_codes()?;
        Ok(MatrixBuilder {
            options,
            stop_codes,
            ..MatrixBuilder::default()
        })
    }

    /// The options in force.
    pub fn options(&self) -> &MatrixOptions {
        &self.options
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
            let col = match self.vocab.get(token) {
                // Fast path: no allocation for a word already seen in this exact form (with
                // `lowercase`, only lower-case forms are keys, so this matches only them).
                Some(&col) if !self.options.lowercase || !token.chars().any(char::is_uppercase) => {
                    col
                }
                _ => {
                    let key = if self.options.lowercase {
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
                    col
                }
            };
            *counts.entry(col).or_insert(0) += 1;
        }
        let mut row: Vec<(u32, u32)> = counts.into_iter().collect();
        row.sort_unstable();
        for &(col, count) in &row {
            let stats = &mut self.words[col as usize];
            stats.df += 1;
            stats.count += u64::from(count);
        }
        self.pending += row.len();
        self.rows.push(row);
        (self.taken + self.rows.len() - 1, n_words)
    }

    /// Number of documents added.
    pub fn n_docs(&self) -> usize {
        self.taken + self.rows.len()
    }

    /// Takes the rows added since the last call, in raw column numbering, so the caller can
    /// keep them on disk: the builder's memory is then the vocabulary, not the non-zeros. Row
    /// numbers go on from the rows taken; [`MatrixBuilder::filtered`] and the writers of this
    /// builder only see the rows not taken, [`MatrixBuilder::filtered_columns`] renumbers the
    /// taken ones.
    pub fn take_rows(&mut self) -> Vec<Vec<(u32, u32)>> {
        self.taken += self.rows.len();
        self.pending = 0;
        std::mem::take(&mut self.rows)
    }

    /// Non-zero entries of the rows not taken.
    pub fn pending_nnz(&self) -> usize {
        self.pending
    }

    /// The columns of the filtered matrix (see [`MatrixBuilder::filtered`]): its vocabulary and
    /// the new column of every raw one.
    pub fn filtered_columns(&self) -> FilteredColumns {
        let n_docs = self.n_docs() as f64;
        let max_df = self.options.max_df_ratio * n_docs;
        let mut kept: Vec<u32> = (0..self.words.len() as u32)
            .filter(|&col| {
                let w = &self.words[col as usize];
                w.df >= self.options.min_df
                    && f64::from(w.df) <= max_df
                    && !self
                        .stop_codes
                        .iter()
                        .any(|code| stopwords::is_stopword(code, &w.word))
            })
            .collect();
        kept.sort_by(|&a, &b| {
            let (wa, wb) = (&self.words[a as usize], &self.words[b as usize]);
            (Reverse(wa.df), &wa.word).cmp(&(Reverse(wb.df), &wb.word))
        });
        if let Some(max) = self.options.max_vocabulary {
            kept.truncate(max);
        }
        let mut new_col = vec![u32::MAX; self.words.len()];
        for (new, &old) in kept.iter().enumerate() {
            new_col[old as usize] = new as u32;
        }
        FilteredColumns {
            new_col,
            words: kept
                .iter()
                .map(|&old| self.words[old as usize].clone())
                .collect(),
        }
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &[WordStats] {
        &self.words
    }

    /// Number of non-zero entries (of the rows not taken).
    pub fn nnz(&self) -> usize {
        self.pending
    }

    /// The Matrix Market text of the matrix.
    pub fn to_matrix_market(&self) -> String {
        matrix_market(&self.rows, self.words.len())
    }

    /// The vocabulary table as TSV with a header: `col word df count` (1-based `col`, the
    /// Matrix Market column); a word is quoted by [`delimited`](crate::export::delimited)'s rule.
    pub fn vocabulary_tsv(&self) -> String {
        vocabulary_tsv(&self.words)
    }

    /// The filtered matrix: the words that are not on the stop lists and whose document
    /// frequency is within `[min_df, max_df_ratio × n_docs]`, ordered by descending document
    /// frequency then by word (byte order), cut to `max_vocabulary`. Every document keeps its
    /// row. Document frequencies are those of the whole corpus, so filtering never changes a
    /// kept word's `df` or `count`.
    pub fn filtered(&self) -> SparseMatrix {
        let columns = self.filtered_columns();
        let rows = self.rows.iter().map(|row| columns.row(row)).collect();
        SparseMatrix {
            words: columns.words,
            rows,
        }
    }
}

/// The columns of a filtered matrix: its vocabulary, and where each raw column goes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilteredColumns {
    /// New column of each raw column (`u32::MAX`: left out).
    new_col: Vec<u32>,
    words: Vec<WordStats>,
}

impl FilteredColumns {
    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.words.len()
    }

    /// Number of raw columns (the builder's vocabulary): no raw row has more entries.
    pub fn raw_cols(&self) -> usize {
        self.new_col.len()
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &[WordStats] {
        &self.words
    }

    /// The vocabulary table (as [`SparseMatrix::vocabulary_tsv`]).
    pub fn vocabulary_tsv(&self) -> String {
        vocabulary_tsv(&self.words)
    }

    /// A raw row in the filtered columns, sorted by column.
    pub fn row(&self, raw: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = raw
            .iter()
            .filter_map(|&(col, count)| {
                let c = self.new_col.get(col as usize).copied().unwrap_or(u32::MAX);
                (c != u32::MAX).then_some((c, count))
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// The filtered matrix of these rows (already in the filtered columns).
    pub fn matrix(&self, rows: Vec<Vec<(u32, u32)>>) -> SparseMatrix {
        SparseMatrix {
            words: self.words.clone(),
            rows,
        }
    }
}

/// The Matrix Market header of a matrix of this shape (the size line last).
pub fn matrix_market_header(n_rows: usize, n_cols: usize, nnz: usize) -> String {
    format!(
        "%%MatrixMarket matrix coordinate integer general\n\
         % glaneur document x word counts: rows = docs.tsv, columns = vocab.tsv\n\
         {n_rows} {n_cols} {nnz}\n"
    )
}

/// The Matrix Market lines of row `row_idx` (0-based).
pub fn matrix_market_row(out: &mut String, row_idx: usize, row: &[(u32, u32)]) {
    for &(col, count) in row {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{} {} {}", row_idx + 1, col + 1, count);
    }
}

/// The header of the long CSV.
pub const LONG_CSV_HEADER: &str = "doc,word,count\r\n";

/// The long CSV lines of row `row_idx` (0-based), words from `words`.
pub fn long_csv_row(out: &mut String, row_idx: usize, row: &[(u32, u32)], words: &[WordStats]) {
    for &(col, count) in row {
        let word = words.get(col as usize).map_or("", |w| w.word.as_str());
        let _ = write!(out, "{},", row_idx + 1);
        push_field(out, word, ',');
        let _ = write!(out, ",{count}\r\n");
    }
}

/// A finished (filtered) document × word count matrix, rows sorted by column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SparseMatrix {
    words: Vec<WordStats>,
    rows: Vec<Vec<(u32, u32)>>,
}

impl SparseMatrix {
    /// Number of documents (rows).
    pub fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// Number of words (columns).
    pub fn n_cols(&self) -> usize {
        self.words.len()
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &[WordStats] {
        &self.words
    }

    /// Row `i` as `(column, count)` pairs sorted by column (empty when out of range).
    pub fn row(&self, i: usize) -> &[(u32, u32)] {
        self.rows.get(i).map_or(&[], Vec::as_slice)
    }

    /// Number of non-zero entries.
    pub fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// The Matrix Market text (same layout as [`MatrixBuilder::to_matrix_market`]).
    pub fn to_matrix_market(&self) -> String {
        matrix_market(&self.rows, self.words.len())
    }

    /// The vocabulary table (`col word df count`, 1-based `col`; words quoted by
    /// [`delimited`](crate::export::delimited)'s rule).
    pub fn vocabulary_tsv(&self) -> String {
        vocabulary_tsv(&self.words)
    }

    /// The long CSV `doc,word,count` with a header, one line per non-zero entry, rows then
    /// columns ascending; `doc` is the 1-based row (the Matrix Market row).
    pub fn to_long_csv(&self) -> String {
        let mut out = String::with_capacity(16 + self.nnz() * 16);
        out.push_str(LONG_CSV_HEADER);
        for (row_idx, row) in self.rows.iter().enumerate() {
            long_csv_row(&mut out, row_idx, row, &self.words);
        }
        out
    }

    /// The dense CSV (header `,<word>,…`: an empty name over the row column, as R's
    /// `write.csv` and pandas' `to_csv` write row names, so `read.csv(…, row.names = 1)` and
    /// `read_csv(…, index_col = 0)` give the matrix; then one line per document: 1-based row and
    /// one count per column), or [`MatrixError::DenseTooLarge`] when rows × columns exceeds
    /// `max_cells` (see [`DENSE_MAX_CELLS`]).
    pub fn to_dense_csv(&self, max_cells: usize) -> Result<String, MatrixError> {
        let (rows, cols) = (self.rows.len(), self.words.len());
        let cells = rows.saturating_mul(cols);
        if cells > max_cells {
            return Err(MatrixError::DenseTooLarge {
                rows,
                cols,
                cells,
                max_cells,
            });
        }
        let mut out = String::with_capacity(cells * 2 + cols * 8 + 16);
        for w in &self.words {
            out.push(',');
            push_field(&mut out, &w.word, ',');
        }
        out.push_str("\r\n");
        let mut dense = vec![0u32; cols];
        for (row_idx, row) in self.rows.iter().enumerate() {
            for &(col, count) in row {
                dense[col as usize] = count;
            }
            let _ = write!(out, "{}", row_idx + 1);
            for value in &dense {
                let _ = write!(out, ",{value}");
            }
            out.push_str("\r\n");
            for &(col, _) in row {
                dense[col as usize] = 0;
            }
        }
        Ok(out)
    }
}

fn matrix_market(rows: &[Vec<(u32, u32)>], n_cols: usize) -> String {
    let nnz: usize = rows.iter().map(Vec::len).sum();
    let mut out = matrix_market_header(rows.len(), n_cols, nnz);
    for (row_idx, row) in rows.iter().enumerate() {
        matrix_market_row(&mut out, row_idx, row);
    }
    out
}

fn vocabulary_tsv(words: &[WordStats]) -> String {
    let mut out = String::from("col\tword\tdf\tcount\n");
    for (idx, w) in words.iter().enumerate() {
        let _ = write!(out, "{}\t", idx + 1);
        push_field(&mut out, &w.word, '\t');
        let _ = writeln!(out, "\t{}\t{}", w.df, w.count);
    }
    out
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
    fn rows_taken_in_chunks_give_the_filtered_matrix() {
        let options = MatrixOptions {
            lowercase: true,
            stoplist: Some("fr".into()),
            min_df: 2,
            max_df_ratio: 0.9,
            max_vocabulary: Some(4),
        };
        let docs: Vec<Vec<String>> = (0..50)
            .map(|i| {
                (0..(i % 7 + 2))
                    .map(|k| {
                        ["Le", "calque", "masque", "de", "couche", "flou", "Calque"]
                            [(i * k + k) % 7]
                            .to_string()
                    })
                    .collect()
            })
            .collect();
        let mut whole = MatrixBuilder::with_options(options.clone()).unwrap();
        let mut chunked = MatrixBuilder::with_options(options).unwrap();
        let mut taken = Vec::new();
        for (i, doc) in docs.iter().enumerate() {
            whole.add(doc);
            let (row, _) = chunked.add(doc);
            assert_eq!(row, i);
            if i % 9 == 8 {
                taken.extend(chunked.take_rows());
            }
        }
        taken.extend(chunked.take_rows());
        assert_eq!(chunked.n_docs(), 50);
        assert_eq!(chunked.pending_nnz(), 0);
        let columns = chunked.filtered_columns();
        let rows: Vec<Vec<(u32, u32)>> = taken.iter().map(|r| columns.row(r)).collect();
        let m = columns.matrix(rows);
        assert_eq!(m, whole.filtered());
        assert_eq!(columns.vocabulary_tsv(), whole.filtered().vocabulary_tsv());
        let mut mm = matrix_market_header(m.n_rows(), m.n_cols(), m.nnz());
        let mut long = LONG_CSV_HEADER.to_string();
        for i in 0..m.n_rows() {
            matrix_market_row(&mut mm, i, m.row(i));
            long_csv_row(&mut long, i, m.row(i), columns.vocabulary());
        }
        assert_eq!(mm, whole.filtered().to_matrix_market());
        assert_eq!(long, whole.filtered().to_long_csv());
    }

    #[test]
    fn keeps_case_when_asked() {
        let mut m = MatrixBuilder::new(false);
        m.add(&["Le", "le"]);
        assert_eq!(m.vocabulary().len(), 2);
    }
    fn corpus(options: MatrixOptions) -> MatrixBuilder {
        let mut m = MatrixBuilder::with_options(options).unwrap();
        m.add(&["Le", "chat", "et", "le", "chien", "1,5"]);
        m.add(&["Un", "chien", "\"x\""]);
        m.add(&["le", "chien", "dort", "."]);
        m.add::<&str>(&[]);
        m
    }

    #[test]
    fn filtered_orders_by_df_then_word_and_keeps_rows() {
        let m = corpus(MatrixOptions {
            lowercase: true,
            ..MatrixOptions::default()
        });
        let f = m.filtered();
        let words: Vec<_> = f.vocabulary().iter().map(|w| w.word.as_str()).collect();
        // chien df 3, le df 2, then df 1 in byte order.
        assert_eq!(
            words,
            ["chien", "le", "\"x\"", "1,5", "chat", "dort", "et", "un"]
        );
        assert_eq!(f.n_rows(), 4);
        assert_eq!(f.nnz(), m.nnz());
        assert_eq!(f.row(0), &[(0, 1), (1, 2), (3, 1), (4, 1), (6, 1)]);
        assert!(f.row(3).is_empty());
        assert!(f.to_matrix_market().contains("\n4 8 11\n1 1 1\n1 2 2\n"));
        assert!(
            f.vocabulary_tsv()
                .starts_with("col\tword\tdf\tcount\n1\tchien\t3\t3\n")
        );
    }

    #[test]
    fn filters_stopwords_df_and_cap() {
        let options = MatrixOptions {
            lowercase: true,
            stoplist: Some("fr, en".to_string()),
            min_df: 1,
            max_df_ratio: 0.5,
            max_vocabulary: Some(3),
        };
        let f = corpus(options).filtered();
        let words: Vec<_> = f.vocabulary().iter().map(|w| w.word.as_str()).collect();
        // chien (3 of 4 docs) exceeds 0.5; le, et, un are stop words; cap 3.
        assert_eq!(words, ["\"x\"", "1,5", "chat"]);
        assert_eq!(f.row(2), &[]);
        let min2 = corpus(MatrixOptions {
            lowercase: true,
            min_df: 2,
            ..MatrixOptions::default()
        })
        .filtered();
        assert_eq!(min2.n_cols(), 2);
    }

    #[test]
    fn rejects_bad_options() {
        let bad = |o: MatrixOptions| MatrixBuilder::with_options(o).err();
        assert_eq!(
            bad(MatrixOptions {
                stoplist: Some("fr,xx".into()),
                ..MatrixOptions::default()
            }),
            Some(MatrixError::UnknownStoplist("xx".into()))
        );
        for ratio in [0.0, -1.0, 1.5, f64::NAN] {
            assert!(
                bad(MatrixOptions {
                    max_df_ratio: ratio,
                    ..MatrixOptions::default()
                })
                .is_some()
            );
        }
    }

    #[test]
    fn long_and_dense_csv_quote_and_guard() {
        let f = corpus(MatrixOptions {
            lowercase: true,
            min_df: 1,
            max_df_ratio: 1.0,
            max_vocabulary: Some(4),
            stoplist: None,
        })
        .filtered();
        let long = f.to_long_csv();
        assert!(long.starts_with("doc,word,count\r\n1,chien,1\r\n1,le,2\r\n1,\"1,5\",1\r\n"));
        assert!(long.contains("2,\"\"\"x\"\"\",1\r\n"));
        let dense = f.to_dense_csv(DENSE_MAX_CELLS).unwrap();
        assert_eq!(
            dense,
            ",chien,le,\"\"\"x\"\"\",\"1,5\"\r\n1,1,2,0,1\r\n2,1,0,1,0\r\n3,1,1,0,0\r\n4,0,0,0,0\r\n"
        );
        assert_eq!(
            f.to_dense_csv(15),
            Err(MatrixError::DenseTooLarge {
                rows: 4,
                cols: 4,
                cells: 16,
                max_cells: 15
            })
        );
    }

    #[test]
    fn hostile_words_stay_one_row_each_and_keep_their_columns() {
        // Words R's read.delim or pandas once split, merged or misread: quotes around and
        // inside a word, an apostrophe, a leading `#`, and words that name a missing value or
        // the dense CSV's row column.
        let words = [
            "\"calque\"",
            "d\"écraser",
            "l'",
            "#0000ff",
            "NA",
            "null",
            "doc",
            "é",
        ];
        let mut m = MatrixBuilder::new(false);
        m.add(&words);
        m.add(&words[..3]);
        let f = m.filtered();
        let tsv = f.vocabulary_tsv();
        let lines: Vec<&str> = tsv.lines().collect();
        assert_eq!(lines.len(), 1 + words.len(), "{tsv}");
        assert_eq!(
            &lines[..5],
            [
                "col\tword\tdf\tcount",
                "1\t\"\"\"calque\"\"\"\t2\t2",
                "2\t\"d\"\"écraser\"\t2\t2",
                "3\t\"l'\"\t2\t2",
                "4\t\"#0000ff\"\t1\t1",
            ]
        );
        // Words no quote can protect from a reader's missing values stay verbatim.
        assert!(lines.contains(&"5\tNA\t1\t1") && lines.contains(&"7\tnull\t1\t1"));
        for line in &lines {
            assert_eq!(line.matches('\t').count(), 3, "{line}");
        }
        let dense = f.to_dense_csv(DENSE_MAX_CELLS).unwrap();
        assert!(
            dense.starts_with(
                ",\"\"\"calque\"\"\",\"d\"\"écraser\",\"l'\",\"#0000ff\",NA,doc,null,é\r\n"
            ),
            "{dense}"
        );
        assert!(f.to_long_csv().contains("\r\n2,\"l'\",1\r\n"));
    }
}
