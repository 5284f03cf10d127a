//! Where formatted documents go, in corpus order: the corpus files of the token formats,
//! `metadata.csv`, the matrices' rows, the document search, each document's token count in
//! `crawl.sqlite`.
//!
//! **In:** [`Formatted`] documents, in `docs.jsonl` order. **Out:** those files, and on
//! [`Sink::finish`] what the matrices, `docs.tsv` and the similarity graph still need.
//!
//! **Invariants:** one document is added to every output before the next (matrix row `i` is
//! the `i`-th `<doc>` of every corpus file and line `i` of `docs.tsv`); the matrices' rows
//! wait in scratch files, so memory does not grow with the corpus.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::export::formats::Files;
use stages::export::matrix::MatrixBuilder;
use stages::export::vertical;

use super::document::{Formatted, Shared};
use super::matrix::SpilledMatrix;
use super::{ExportReport, Output};
use crate::store::Store;
use crate::topic::Topic;

/// The outputs of the documents' stream.
pub(super) struct Sink<'a> {
    /// The corpus file of each format of [`Shared::formats`] (`None` for a format that writes
    /// a file per document).
    corpus: Vec<Option<Output>>,
    metadata: Output,
    /// `tagged/corpus.tagged`, when the tags come from the annotate stage.
    tagged: Option<Output>,
    /// Each document's row facts, in matrix row order, until the matrix is filtered
    /// (`docs.tsv`'s `words` counts what the filtered matrix keeps).
    rows: csv::Writer<std::fs::File>,
    pub(super) rows_path: PathBuf,
    pub(super) matrix: SpilledMatrix,
    /// Lemma counts, when a tagger has run.
    pub(super) lemma_matrix: Option<SpilledMatrix>,
    /// Documents whose tags did not reach the formats.
    untagged: u64,
    /// Documents the lemma matrix has an empty row for.
    lemmas_missing: u64,
    /// The ranked document search (`glaneur search`).
    search: crate::index::documents::Builder,
    /// Matrix row by URL id, for the similarity graph's comparison with the links: only while
    /// the documents are few enough for that graph to be computed.
    pub(super) row_of: HashMap<i64, usize>,
    max_documents: u64,
    pub(super) report: ExportReport,
    store: &'a mut Store,
    bar: &'a indicatif::ProgressBar,
}

impl<'a> Sink<'a> {
    /// Creates every output of the stream.
    pub(super) fn open(
        topic: &Topic,
        shared: &Shared,
        run_dir: &Path,
        matrix_dir: &Path,
        store: &'a mut Store,
        bar: &'a indicatif::ProgressBar,
    ) -> anyhow::Result<Sink<'a>> {
        let corpus = shared
            .formats
            .iter()
            .map(|written| match written.files {
                Files::Corpus(name) => Output::create(written.dir.join(name)).map(Some),
                Files::PerDocument(_) => Ok(None),
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut metadata = Output::create(run_dir.join("metadata.csv"))?;
        metadata.put(vertical::metadata_csv_header())?;
        metadata.put("\n")?;
        let rows_path = matrix_dir.join("docs.rows.tmp");
        let rows = csv::WriterBuilder::new()
            .delimiter(b'\t')
            .has_headers(false)
            .from_path(&rows_path)
            .with_context(|| format!("cannot write {}", rows_path.display()))?;
        let spilled = |name: &str| {
            SpilledMatrix::create(
                MatrixBuilder::with_options(topic.file.matrix.options())
                    .map_err(|e| anyhow::anyhow!("[matrix]: {e}"))?,
                matrix_dir.join(name),
            )
        };
        let matrix = spilled("counts.rows.tmp")?;
        let lemma_matrix = match shared.tagset {
            Some(_) => Some(spilled("lemma-counts.rows.tmp")?),
            None => None,
        };
        // Stemmed in the topic's first language.
        let language = topic.file.languages.first().map_or("", String::as_str);
        let search = crate::index::documents::Builder::new(&run_dir.join("search"), language)?;
        Ok(Sink {
            corpus,
            metadata,
            tagged: None,
            rows,
            rows_path,
            matrix,
            lemma_matrix,
            untagged: 0,
            lemmas_missing: 0,
            search,
            row_of: HashMap::new(),
            max_documents: topic.file.similarity.max_documents,
            report: ExportReport::default(),
            store,
            bar,
        })
    }

    /// Writes the tagged documents into `path` too.
    pub(super) fn write_tagged(&mut self, path: Option<PathBuf>) -> anyhow::Result<()> {
        self.tagged = path.map(Output::create).transpose()?;
        Ok(())
    }

    /// Adds one document to every output.
    pub(super) fn add(&mut self, f: Formatted) -> anyhow::Result<()> {
        let row = self.add_to_matrices(&f)?;
        self.untagged += u64::from(f.untagged);
        self.report.documents += 1;
        self.report.tokens += f.n_tokens as u64;
        for (out, block) in self.corpus.iter_mut().zip(&f.blocks) {
            if let Some(out) = out {
                out.put(block)?;
            }
        }
        self.metadata.put(&f.metadata)?;
        self.metadata.put("\n")?;
        if let Some(tagged) = &mut self.tagged {
            tagged.put(&f.tagged_block)?;
        }
        let d = &f.doc;
        self.rows
            .write_record([
                d.id.as_str(),
                d.url.as_str(),
                d.title.as_str(),
                d.language.as_str(),
                &d.score.to_string(),
                &f.n_tokens.to_string(),
                d.host.as_str(),
            ])
            .with_context(|| format!("cannot write {}", self.rows_path.display()))?;
        if (row as u64) < self.max_documents {
            self.row_of.insert(d.url_id, row);
        } else if !self.row_of.is_empty() {
            self.row_of = HashMap::new();
        }
        self.store.set_tokens(d.url_id, f.n_tokens as u64)?;
        self.search.add(d)?;
        self.bar.inc(1);
        Ok(())
    }

    /// The document's words into the matrix, its lemmas into the lemma matrix; returns its row.
    fn add_to_matrices(&mut self, f: &Formatted) -> anyhow::Result<usize> {
        // TreeTagger's tokenizer keeps `<…>` spans whole as SGML (the tagger skips them): they
        // are not words of the matrix.
        let words: Vec<&str> = f
            .split
            .iter()
            .flatten()
            .flat_map(|s| s.tokens.iter())
            .map(String::as_str)
            .filter(|t| !stages::corpus::tokenize::is_markup(t))
            .collect();
        let row = self.matrix.add(&words)?;
        if let Some(lemma_matrix) = &mut self.lemma_matrix {
            match &f.tagged {
                Some(Some(tokens)) => {
                    let lemmas: Vec<&str> = tokens
                        .iter()
                        // Escaped `<…>` spans (markup to TreeTagger) are not words.
                        .filter(|t| !(t.word.starts_with("&lt;") && t.word.ends_with("&gt;")))
                        .map(|t| t.lemma.as_str())
                        .collect();
                    lemma_matrix.add(&lemmas)?;
                }
                // Keep the row so that rows still match docs.tsv.
                _ => {
                    lemma_matrix.add(&[])?;
                    self.lemmas_missing += 1;
                }
            }
        }
        Ok(row)
    }

    /// Closes the stream's files; returns what the matrices and graphs still need.
    pub(super) fn finish(self) -> anyhow::Result<Finished> {
        for out in self.corpus.into_iter().flatten() {
            out.finish()?;
        }
        self.metadata.finish()?;
        if let Some(tagged) = self.tagged {
            tagged.finish()?;
        }
        let mut rows = self.rows;
        rows.flush()
            .with_context(|| format!("cannot write {}", self.rows_path.display()))?;
        drop(rows);
        self.search.finish()?;
        Ok(Finished {
            rows_path: self.rows_path,
            matrix: self.matrix,
            lemma_matrix: self.lemma_matrix,
            // Documents the tagger output does not hold, or holds with other tokens.
            tagged_missing: self.untagged.max(self.lemmas_missing),
            row_of: self.row_of,
            report: self.report,
        })
    }
}

/// The stream's leftovers for the matrices and graphs.
pub(super) struct Finished {
    pub(super) rows_path: PathBuf,
    pub(super) matrix: SpilledMatrix,
    pub(super) lemma_matrix: Option<SpilledMatrix>,
    pub(super) tagged_missing: u64,
    pub(super) row_of: HashMap<i64, usize>,
    pub(super) report: ExportReport,
}
