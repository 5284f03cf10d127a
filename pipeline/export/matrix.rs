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
//! memory, byte for byte; memory is the vocabulary and one buffer of rows, unless the whole
//! matrix is asked for.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::export::matrix::{self, FilteredColumns, MatrixBuilder, SparseMatrix};

use super::Output;

/// Non-zero entries kept in memory before the builder's rows go to the scratch file.
const NONZEROS_IN_MEMORY: usize = 1 << 20;

/// A matrix being built, its rows spilled to `path`.
pub(super) struct SpilledMatrix {
    pub(super) builder: MatrixBuilder,
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
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
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            path,
        })
    }

    /// Adds one document; returns its row.
    pub(super) fn add(&mut self, tokens: &[&str]) -> anyhow::Result<usize> {
        let (row, _) = self.builder.add(tokens);
        if self.builder.pending_nnz() >= NONZEROS_IN_MEMORY {
            self.spill()?;
        }
        Ok(row)
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
        let columns = self.builder.filtered_columns();
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
    fn spilled_rows_write_the_files_of_the_matrix_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let options = MatrixOptions {
            lowercase: true,
            min_df: 2,
            ..MatrixOptions::default()
        };
        let words = [
            "Le", "calque", "masque", "de", "couche", "flou", "Calque", "été",
        ];
        let docs: Vec<Vec<&str>> = (0..3000)
            .map(|i| (0..(i % 11 + 1)).map(|k| words[(i * k + k) % 8]).collect())
            .collect();
        let mut whole = MatrixBuilder::with_options(options.clone()).unwrap();
        for doc in &docs {
            whole.add(doc);
        }
        let whole = whole.filtered();
        for keep in [false, true] {
            let out = dir.path().join(format!("keep-{keep}"));
            std::fs::create_dir_all(&out).unwrap();
            let builder = MatrixBuilder::with_options(options.clone()).unwrap();
            let mut m = SpilledMatrix::create(builder, out.join("rows.tmp")).unwrap();
            for (i, doc) in docs.iter().enumerate() {
                assert_eq!(m.add(doc).unwrap(), i);
                if i % 700 == 0 {
                    m.spill().unwrap();
                }
            }
            let written = m.write(&out, "", true, |_| keep).unwrap();
            let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
            assert_eq!(read("counts.mtx"), whole.to_matrix_market());
            assert_eq!(read("long.csv"), whole.to_long_csv());
            assert_eq!(read("vocab.tsv"), whole.vocabulary_tsv());
            assert_eq!(read("dense.csv"), whole.to_dense_csv(1 << 30).unwrap());
            assert_eq!(written.nonzeros, whole.nnz());
            assert_eq!(written.matrix.is_some(), keep);
            assert_eq!(written.words.len(), 3000);
            assert!(!out.join("rows.tmp").exists());
        }
    }
}
