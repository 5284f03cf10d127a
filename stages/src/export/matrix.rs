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
//! and columns are re-numbered only when the filtered matrix is made); a caller may take the
//! rows ([`MatrixBuilder::take_rows`]) and the vocabulary
//! ([`MatrixBuilder::take_vocabulary`]) as they grow and keep them on disk, and the columns
//! placed from the vocabulary's runs ([`crate::export::vocabulary`]) are those of the builder
//! that kept everything; only tokens with at
//! least one letter or digit are words (punctuation is not counted); with `lowercase` every
//! word is lower-cased before counting; filtering removes columns, never rows, so row `i` is
//! the same document in both matrices (a document may become an empty row); the Matrix Market
//! size line always equals (documents added, vocabulary size, non-zeros), so `scipy.io.mmread`
//! gives a matrix whose shape matches both tables; TSV and CSV fields are quoted by
//! [`delimited`](crate::export::delimited)'s rule, so R's `read.delim`/`read.csv` and pandas' `read_table`/`read_csv`
//! read every word back whole (a vocabulary of `n` words is `n` rows); the dense CSV's row
//! column has an empty header, so no word can share its column name (a word `doc` did).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::export::delimited::push_field;
use crate::export::vocabulary::KeepRule;
pub use crate::export::vocabulary::{ColumnCounter, ColumnPlacer, Vocabulary, Word};
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
    /// The two readings of a vocabulary kept on disk gave different words.
    #[error(
        "the matrix's vocabulary read differently the second time (its scratch files changed \
         while the export ran); run the export again"
    )]
    VocabularyChanged,
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
    /// The words counted since the vocabulary was last taken
    /// ([`MatrixBuilder::take_vocabulary`]).
    words: Vocabulary,
    /// Raw ids given to the vocabularies taken: a word's raw id is this plus its id in `words`.
    base: u32,
    /// Non-zero entries per document, each row sorted by column (the rows not yet taken by
    /// [`MatrixBuilder::take_rows`]).
    rows: Vec<Vec<(u32, u32)>>,
    /// Rows already taken.
    taken: usize,
    /// Non-zero entries of `rows`, kept as rows come and go: the caller asks after every
    /// document whether to take them.
    pending: usize,
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
            // With `lowercase`, only a word with an upper-case letter is copied to be folded.
            let lowered;
            let key = if self.options.lowercase && token.chars().any(char::is_uppercase) {
                lowered = token.to_lowercase();
                lowered.as_str()
            } else {
                token
            };
            // Past `u32::MAX` raw ids a word is not counted (no corpus comes near).
            if let Some(col) = self.words.column(key)
                && let Some(raw) = self.base.checked_add(col as u32)
            {
                *counts.entry(raw).or_insert(0) += 1;
            }
        }
        let mut row: Vec<(u32, u32)> = counts.into_iter().collect();
        row.sort_unstable();
        for &(raw, count) in &row {
            self.words
                .add((raw - self.base) as usize, 1, u64::from(count));
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

    /// Takes the words counted so far, so the caller can keep them on disk, and starts a new
    /// vocabulary: returns the raw id of its first word and the words. Raw ids go on from there,
    /// so the rows stay valid; a word seen again gets a new raw id, and the caller merges the
    /// runs by word for [`MatrixBuilder::column_counter`].
    pub fn take_vocabulary(&mut self) -> (u32, Vocabulary) {
        let base = self.base;
        let words = std::mem::take(&mut self.words);
        self.base = base.saturating_add(words.len() as u32);
        (base, words)
    }

    /// Raw ids given so far (the vocabularies taken and the words counted since).
    pub fn raw_ids(&self) -> usize {
        self.base as usize + self.words.len()
    }

    /// The first of the two readings that place the filtered columns when the vocabulary was
    /// taken in runs (see [`crate::export::vocabulary`]): after the last document and the last
    /// [`take_vocabulary`](Self::take_vocabulary).
    pub fn column_counter(&self) -> ColumnCounter {
        ColumnCounter::new(
            KeepRule {
                min_df: self.options.min_df,
                max_df: self.options.max_df_ratio * self.n_docs() as f64,
                stop_codes: self.stop_codes.clone(),
                max_vocabulary: self.options.max_vocabulary,
            },
            self.raw_ids(),
        )
    }

    /// The columns of the filtered matrix (see [`MatrixBuilder::filtered`]): its vocabulary and
    /// the new column of every raw one. Only the words counted since the vocabulary was last
    /// taken are seen: a caller that took it places the columns with
    /// [`column_counter`](Self::column_counter).
    pub fn filtered_columns(&self) -> FilteredColumns {
        let order = self.words.sorted();
        let word = |local: u32| self.words.get(local as usize).unwrap_or_default();
        let mut counter = self.column_counter();
        for &local in &order {
            let w = word(local);
            counter.count(w.word, w.df);
        }
        let mut placer = counter.placer();
        for &local in &order {
            placer.place(word(local), &[self.base.saturating_add(local)]);
        }
        // Both readings go over the same words, so the placement is complete.
        FilteredColumns::placed(placer).unwrap_or_default()
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &Vocabulary {
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
    words: Vocabulary,
}

impl FilteredColumns {
    /// The columns `placer` placed (see [`MatrixBuilder::column_counter`]), or
    /// [`MatrixError::VocabularyChanged`] when its two readings gave different words.
    pub fn placed(placer: ColumnPlacer) -> Result<FilteredColumns, MatrixError> {
        let (new_col, words) = placer.finish().ok_or(MatrixError::VocabularyChanged)?;
        Ok(FilteredColumns { new_col, words })
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.words.len()
    }

    /// Number of raw columns (the builder's vocabulary): no raw row has more entries.
    pub fn raw_cols(&self) -> usize {
        self.new_col.len()
    }

    /// The vocabulary in column order.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.words
    }

    /// The vocabulary table (as [`SparseMatrix::vocabulary_tsv`]).
    pub fn vocabulary_tsv(&self) -> String {
        vocabulary_tsv(&self.words)
    }

    /// The same table handed to `put` about 64 KB at a time, header first.
    pub fn write_vocabulary_tsv<E>(&self, put: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        vocabulary_tsv_pieces(&self.words, put)
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
pub fn long_csv_row(out: &mut String, row_idx: usize, row: &[(u32, u32)], words: &Vocabulary) {
    for &(col, count) in row {
        let word = words.get(col as usize).map_or("", |w| w.word);
        let _ = write!(out, "{},", row_idx + 1);
        push_field(out, word, ',');
        let _ = write!(out, ",{count}\r\n");
    }
}

/// A finished (filtered) document × word count matrix, rows sorted by column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SparseMatrix {
    words: Vocabulary,
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
    pub fn vocabulary(&self) -> &Vocabulary {
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
        for w in self.words.iter() {
            out.push(',');
            push_field(&mut out, w.word, ',');
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

fn vocabulary_tsv(words: &Vocabulary) -> String {
    let mut out = String::new();
    let _ = vocabulary_tsv_pieces::<std::convert::Infallible>(words, |piece| {
        out.push_str(piece);
        Ok(())
    });
    out
}

/// The vocabulary table handed to `put` about 64 KB at a time, header first: a million words
/// are never one string.
fn vocabulary_tsv_pieces<E>(
    words: &Vocabulary,
    mut put: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    let mut out = String::from("col\tword\tdf\tcount\n");
    for (idx, w) in words.iter().enumerate() {
        let _ = write!(out, "{}\t", idx + 1);
        push_field(&mut out, w.word, '\t');
        let _ = writeln!(out, "\t{}\t{}", w.df, w.count);
        if out.len() >= 1 << 16 {
            put(&out)?;
            out.clear();
        }
    }
    put(&out)
}

#[cfg(test)]
#[path = "matrix_tests.rs"]
mod tests;
