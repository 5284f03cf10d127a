//! The document × word matrices on disk while the documents stream: rows are kept in a scratch
//! file as they come, then written filtered (Matrix Market, long CSV, vocabulary) once the
//! vocabulary's document frequencies are known.
//!
//! **In:** a [`MatrixBuilder`] fed one document at a time. **Out:** `PREFIXcounts.mtx`,
//! `PREFIXvocab.tsv`, with the word matrix also `long.csv` and (small matrices) `dense.csv`;
//! each row's word count; the matrix in memory when a caller needs it whole (the similarity
//! graph, below its size limit).
//!
//! **Invariants:** the files are those `stages::export::matrix` writes from a matrix held in
//! memory, byte for byte; memory is one buffer of rows and at most [`WORDS_IN_MEMORY`] words
//! while the documents stream (the vocabulary goes to sorted runs beside the rows, merged by
//! word at the end), then the kept words once, unless the whole matrix is asked for.

use std::io::{BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::export::matrix::{self, FilteredColumns, MatrixBuilder, SparseMatrix, Word};

use super::Output;
use crate::ground::runs;

/// Non-zero entries kept in memory before the builder's rows go to the scratch file.
const NONZEROS_IN_MEMORY: usize = 1 << 20;

/// Distinct words counted in memory before the vocabulary goes to a sorted run (about 10 MB;
/// a million pages of web text have about a million).
const WORDS_IN_MEMORY: usize = 1 << 18;

/// A matrix being built, its rows spilled to `path`, its vocabulary in runs beside it.
pub(super) struct SpilledMatrix {
    pub(super) builder: MatrixBuilder,
    path: PathBuf,
    file: BufWriter<std::fs::File>,
    /// The vocabulary's runs, each sorted by word.
    runs: Vec<PathBuf>,
    /// [`WORDS_IN_MEMORY`], lowered by tests.
    words_max: usize,
}

/// What writing a matrix gave.
pub(super) struct Written {
    /// Words of each row in the filtered matrix.
    pub(super) words: Vec<u64>,
    pub(super) vocabulary: usize,
    pub(super) nonzeros: usize,
    /// The filtered matrix, when asked for.
    pub(super) matrix: Option<SparseMatrix>,
    /// Why `dense.csv` was not written, when asked for and refused.
    pub(super) dense_refused: Option<String>,
}

impl SpilledMatrix {
    pub(super) fn create(builder: MatrixBuilder, path: PathBuf) -> anyhow::Result<SpilledMatrix> {
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(SpilledMatrix {
            builder,
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            runs: Vec::new(),
            words_max: WORDS_IN_MEMORY,
        })
    }

    /// Adds one document; returns its row.
    pub(super) fn add(&mut self, tokens: &[&str]) -> anyhow::Result<usize> {
        let (row, _) = self.builder.add(tokens);
        if self.builder.pending_nnz() >= NONZEROS_IN_MEMORY {
            self.spill()?;
        }
        if self.builder.vocabulary().len() >= self.words_max {
            self.spill_words()?;
        }
        Ok(row)
    }

    /// The builder's vocabulary as a run sorted by word, beside the rows (each word's payload:
    /// `u32` raw id, `u32` df, `u64` count).
    fn spill_words(&mut self) -> anyhow::Result<()> {
        let (base, words) = self.builder.take_vocabulary();
        let path = self
            .path
            .with_extension(format!("words{}", self.runs.len()));
        // Listed before it is written, so that a failed run is removed with the others.
        self.runs.push(path.clone());
        let entries = words.sorted().into_iter().filter_map(|local| {
            let w = words.get(local as usize)?;
            let mut p = [0u8; 16];
            p[..4].copy_from_slice(&base.saturating_add(local).to_le_bytes());
            p[4..8].copy_from_slice(&w.df.to_le_bytes());
            p[8..].copy_from_slice(&w.count.to_le_bytes());
            Some((w.word, p))
        });
        runs::write_run(&path, entries)
    }

    /// The filtered columns: from the builder when its vocabulary never left memory, else from
    /// the runs merged by word, read twice (counted, then placed); the runs are removed.
    fn columns(&mut self) -> anyhow::Result<FilteredColumns> {
        if self.runs.is_empty() {
            return Ok(self.builder.filtered_columns());
        }
        self.spill_words()?;
        let mut counter = self.builder.column_counter();
        merge_words(&self.runs, |w, _| counter.count(w.word, w.df))?;
        let mut placer = counter.placer();
        merge_words(&self.runs, |w, raw_ids| placer.place(w, raw_ids))?;
        for path in std::mem::take(&mut self.runs) {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
        FilteredColumns::placed(placer)
            .map_err(|e| anyhow::anyhow!("{e} ({})", self.path.with_extension("words*").display()))
    }

    /// Rows as `u32 length, then (u32 column, u32 count)…`, little-endian.
    fn spill(&mut self) -> anyhow::Result<()> {
        let mut bytes = Vec::with_capacity(NONZEROS_IN_MEMORY * 8 + 4096);
        for row in self.builder.take_rows() {
            bytes.extend_from_slice(&(row.len() as u32).to_le_bytes());
            for (col, count) in row {
                bytes.extend_from_slice(&col.to_le_bytes());
                bytes.extend_from_slice(&count.to_le_bytes());
            }
        }
        self.file
            .write_all(&bytes)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// Writes the filtered matrix into `dir` (`PREFIXcounts.mtx`, `PREFIXvocab.tsv`, and with
    /// `long`, `long.csv` and, up to `matrix::DENSE_MAX_CELLS`, `dense.csv`); keeps it in
    /// memory when `keep` says so for its number of rows. Removes the scratch file.
    pub(super) fn write(
        mut self,
        dir: &Path,
        prefix: &str,
        long: bool,
        keep: impl Fn(usize) -> bool,
    ) -> anyhow::Result<Written> {
        self.spill()?;
        self.file
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        let columns = self.columns()?;
        let n_rows = self.builder.n_docs();
        drop(self.builder);
        let dense_cells = n_rows.saturating_mul(columns.n_cols());
        let want_dense = long && dense_cells <= matrix::DENSE_MAX_CELLS;
        let in_memory = keep(n_rows) || want_dense;
        // Pass 1: each row's filtered non-zeros and words (and the rows, when kept).
        let mut words = Vec::with_capacity(n_rows);
        let mut nonzeros = 0usize;
        let mut rows: Vec<Vec<(u32, u32)>> = Vec::new();
        read_rows(&self.path, &columns, |row| {
            nonzeros += row.len();
            words.push(row.iter().map(|&(_, n)| u64::from(n)).sum());
            if in_memory {
                rows.push(row);
            }
            Ok(())
        })?;
        let mut vocab = Output::create(dir.join(format!("{prefix}vocab.tsv")))?;
        columns.write_vocabulary_tsv(|piece| vocab.put(piece))?;
        vocab.finish()?;
        // Pass 2 (or the rows in memory): the Matrix Market and long CSV lines.
        let mut mtx = Output::create(dir.join(format!("{prefix}counts.mtx")))?;
        mtx.put(&matrix::matrix_market_header(
            n_rows,
            columns.n_cols(),
            nonzeros,
        ))?;
        let mut long_csv = if long {
            let mut out = Output::create(dir.join("long.csv"))?;
            out.put(matrix::LONG_CSV_HEADER)?;
            Some(out)
        } else {
            None
        };
        let mut text = String::with_capacity(1 << 17);
        let mut put_row = |i: usize, row: &[(u32, u32)]| -> anyhow::Result<()> {
            text.clear();
            matrix::matrix_market_row(&mut text, i, row);
            mtx.put(&text)?;
            if let Some(out) = &mut long_csv {
                text.clear();
                matrix::long_csv_row(&mut text, i, row, columns.vocabulary());
                out.put(&text)?;
            }
            Ok(())
        };
        if in_memory {
            for (i, row) in rows.iter().enumerate() {
                put_row(i, row)?;
            }
        } else {
            let mut i = 0;
            read_rows(&self.path, &columns, |row| {
                put_row(i, &row)?;
                i += 1;
                Ok(())
            })?;
        }
        mtx.finish()?;
        if let Some(out) = long_csv {
            out.finish()?;
        }
        std::fs::remove_file(&self.path)
            .with_context(|| format!("cannot remove {}", self.path.display()))?;
        let vocabulary = columns.n_cols();
        let whole = in_memory.then(|| columns.matrix(rows));
        let mut dense_refused = None;
        if long {
            match whole
                .as_ref()
                .map(|m| m.to_dense_csv(matrix::DENSE_MAX_CELLS))
            {
                Some(Ok(dense)) => super::write(&dir.join("dense.csv"), dense.as_bytes())?,
                Some(Err(refused)) => dense_refused = Some(refused.to_string()),
                None => {
                    dense_refused = Some(
                        matrix::MatrixError::DenseTooLarge {
                            rows: n_rows,
                            cols: vocabulary,
                            cells: dense_cells,
                            max_cells: matrix::DENSE_MAX_CELLS,
                        }
                        .to_string(),
                    );
                }
            }
        }
        Ok(Written {
            words,
            vocabulary,
            nonzeros,
            matrix: whole.filter(|_| keep(n_rows)),
            dense_refused,
        })
    }
}

/// Calls `each` with every distinct word of the vocabulary's runs, in byte order, its df and
/// count summed over the runs, and the raw ids it had in them.
fn merge_words(paths: &[PathBuf], mut each: impl FnMut(Word<'_>, &[u32])) -> anyhow::Result<()> {
    let mut raw_ids = Vec::new();
    runs::merge_runs(paths, 16, |word, payloads| {
        let (mut df, mut count) = (0u32, 0u64);
        raw_ids.clear();
        for p in payloads.chunks_exact(16) {
            let u32_at = |a: usize| u32::from_le_bytes([p[a], p[a + 1], p[a + 2], p[a + 3]]);
            let mut c = [0u8; 8];
            c.copy_from_slice(&p[8..]);
            raw_ids.push(u32_at(0));
            df = df.saturating_add(u32_at(4));
            count = count.saturating_add(u64::from_le_bytes(c));
        }
        each(Word { word, df, count }, &raw_ids);
        Ok(())
    })
}

/// Reads the spilled rows back in order, in the filtered columns.
fn read_rows(
    path: &Path,
    columns: &FilteredColumns,
    mut f: impl FnMut(Vec<(u32, u32)>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut file = std::io::BufReader::with_capacity(
        1 << 20,
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
    );
    let damaged = || anyhow::anyhow!("{} is damaged (cut in a row)", path.display());
    let mut word = [0u8; 4];
    let mut raw: Vec<(u32, u32)> = Vec::new();
    loop {
        if file
            .fill_buf()
            .with_context(|| format!("cannot read {}", path.display()))?
            .is_empty()
        {
            return Ok(());
        }
        file.read_exact(&mut word).map_err(|_| damaged())?;
        let len = u32::from_le_bytes(word) as usize;
        // A row has at most one entry per word: a longer one is damage, not an allocation.
        if len > columns.raw_cols() {
            return Err(damaged());
        }
        let mut bytes = vec![0u8; len * 8];
        file.read_exact(&mut bytes).map_err(|_| damaged())?;
        raw.clear();
        raw.extend(bytes.chunks_exact(8).map(|b| {
            (
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            )
        }));
        f(columns.row(&raw))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stages::export::matrix::MatrixOptions;

    #[test]
    fn spilled_rows_and_words_write_the_files_of_the_matrix_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let options = MatrixOptions {
            lowercase: true,
            min_df: 2,
            max_vocabulary: Some(60),
            ..MatrixOptions::default()
        };
        // Eight frequent words and a tail of rarer ones, so that a vocabulary run holds some
        // words another run has too and some of its own.
        let words: Vec<String> = [
            "Le", "calque", "masque", "de", "couche", "flou", "Calque", "été",
        ]
        .iter()
        .map(|w| w.to_string())
        .chain((0..300).map(|i| format!("mot{i}")))
        .collect();
        let docs: Vec<Vec<&str>> = (0..3000)
            .map(|i| {
                (0..(i % 11 + 1))
                    .map(|k| words[(i * k + k) % 8].as_str())
                    .chain([
                        words[8 + (i * 7) % 300].as_str(),
                        words[8 + i % 41].as_str(),
                    ])
                    .collect()
            })
            .collect();
        let mut whole = MatrixBuilder::with_options(options.clone()).unwrap();
        for doc in &docs {
            whole.add(doc);
        }
        let whole = whole.filtered();
        assert_eq!(whole.n_cols(), 60);
        for (keep, words_max) in [(false, 1), (true, 5), (false, 64), (true, usize::MAX)] {
            let out = dir.path().join(format!("keep-{keep}-{words_max}"));
            std::fs::create_dir_all(&out).unwrap();
            let builder = MatrixBuilder::with_options(options.clone()).unwrap();
            let mut m = SpilledMatrix::create(builder, out.join("rows.tmp")).unwrap();
            m.words_max = words_max;
            for (i, doc) in docs.iter().enumerate() {
                assert_eq!(m.add(doc).unwrap(), i);
                if i % 700 == 0 {
                    m.spill().unwrap();
                }
            }
            assert_eq!(m.runs.is_empty(), words_max == usize::MAX);
            let written = m.write(&out, "", true, |_| keep).unwrap();
            let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
            assert_eq!(read("counts.mtx"), whole.to_matrix_market());
            assert_eq!(read("long.csv"), whole.to_long_csv());
            assert_eq!(read("vocab.tsv"), whole.vocabulary_tsv());
            assert_eq!(read("dense.csv"), whole.to_dense_csv(1 << 30).unwrap());
            assert_eq!(written.nonzeros, whole.nnz());
            assert_eq!(written.matrix.is_some(), keep);
            assert_eq!(written.words.len(), 3000);
            // Only the written files are left.
            let mut left: Vec<String> = std::fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            left.sort();
            assert_eq!(left, ["counts.mtx", "dense.csv", "long.csv", "vocab.tsv"]);
        }
    }

    #[test]
    fn a_damaged_vocabulary_run_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let builder = MatrixBuilder::new(false);
        let mut m = SpilledMatrix::create(builder, dir.path().join("rows.tmp")).unwrap();
        m.words_max = 2;
        for doc in [["calque", "masque"], ["flou", "couche"], ["masque", "zinc"]] {
            m.add(&doc).unwrap();
        }
        let run = m.runs[0].clone();
        let bytes = std::fs::read(&run).unwrap();
        std::fs::write(&run, &bytes[..bytes.len() - 3]).unwrap();
        let err = m.write(dir.path(), "", false, |_| false).err().unwrap();
        assert!(
            format!("{err:#}").contains("rows.words0 is damaged"),
            "{err:#}"
        );
    }
}
