//! The export stage: documents and the crawl's graph → files the linguists' tools read.
//!
//! **In:** `docs.jsonl` (streamed) and `crawl.sqlite`; `tagged/` when a tagger has run.
//! **Out:** `treetagger/` (one token per line with `<doc>`/`<p>` lines), `vrt/corpus.vrt`
//! (CWB vertical), `conllu/corpus.conllu`, `talismane/corpus.txt`, `metadata.csv` (TXM), `matrix/`
//! (`counts.mtx` Matrix Market + `vocab.tsv` + `docs.tsv`), `graph/` (the hyperlink graph as
//! GraphML, GEXF 1.3, DOT, Pajek and CSV with PageRank; the host graph; broken and external
//! links; a site map per host), and the token count of each document in `crawl.sqlite`.
//!
//! **Invariants:** the TreeTagger, `.vrt`, CoNLL-U and Talismane files and the matrix are built
//! from the *same* token stream (each document is tokenized and split into sentences once); matrix row `i` is line `i` of `docs.tsv` and the
//! `i`-th `<doc>` of the corpus file; every folder is rebuilt from scratch, so a re-run never
//! leaves stale files of an earlier run. Documents stream: they are formatted on every core
//! in batches of [`BATCH_BYTES`] of `docs.jsonl` and written in order as they come, so the
//! memory of the token formats is a few batches, not the corpus; the matrices' rows and the
//! query index's token ids wait on disk until their vocabularies are complete, and the graph
//! files are written a piece at a time. Once the stream ends, the matrices, the query index
//! and the hyperlink graph are written side by side on three threads (each reads its own
//! input; their memory adds up), then the similarity graph. Built whole in memory: the similarity graph (up to
//! `[similarity] max_documents`) and the hyperlink graph's nodes and link targets, which grow
//! with the URLs and the links (about 50 bytes per URL plus its text, 4 per link); the links'
//! anchors and counts wait in a scratch file in `graph/`, deleted when the graph is.

mod document;
mod graphs;
mod matrix;
mod sink;
mod tags;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use stages::export::formats::{Files, TOKEN_FORMATS};
use stages::export::graph::LinkGraph;

use crate::store::Store;
use crate::topic::{Topic, TreeTaggerLayout};
use document::{Formatted, Shared, Written};
use sink::{Finished, Sink};
use tags::Tags;

/// `docs.jsonl` bytes formatted together on every core; two batches are in memory at a time,
/// with their formats (about ten times their size).
pub const BATCH_BYTES: usize = 4 << 20;

/// A buffered output file, named in its errors.
struct Output {
    path: std::path::PathBuf,
    file: std::io::BufWriter<std::fs::File>,
}

impl Output {
    fn create(path: std::path::PathBuf) -> anyhow::Result<Output> {
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Output {
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            path,
        })
    }

    fn put(&mut self, text: &str) -> anyhow::Result<()> {
        self.file
            .write_all(text.as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.file
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Runs every export; returns their figures.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExportReport> {
    let started = Instant::now();
    let matrix_dir = fresh_dir(&run_dir.join("matrix"))?;
    let graph_dir = fresh_dir(&run_dir.join("graph"))?;
    // The tagger's output, when one has run: pos and lemma go into the `.vrt`, CoNLL-U, the
    // index and the lemma matrix.
    let mut tagged = Tags::open(topic, run_dir)?;
    // With `[annotate]`, `tagged/` is the stage's tags in TreeTagger's output shape (what
    // Syntex reads); otherwise it is a tagger's output written by hand, read above.
    let tagged_out = match (&topic.file.annotate, &tagged) {
        (None, _) => None,
        (Some(_), tags) => {
            let dir = run_dir.join("tagged");
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("cannot clear {}", dir.display()))?;
            }
            match tags {
                Some(_) => Some(fresh_dir(&dir)?.join("corpus.tagged")),
                None => None,
            }
        }
    };
    let shared = Shared {
        default_language: topic
            .file
            .languages
            .first()
            .map_or("fr", String::as_str)
            .to_string(),
        formats: open_formats(topic, run_dir)?,
        tagset: tagged.as_ref().map(|(_, tagset)| *tagset),
        tagged_out: tagged_out.is_some(),
    };
    let mut sink = Sink::open(topic, &shared, run_dir, &matrix_dir, store, bar)?;
    sink.write_tagged(tagged_out)?;
    let source = crate::extract::documents(&run_dir.join("docs.jsonl"))?.map(|doc| {
        let (doc, bytes) = doc?;
        let tokens = match &mut tagged {
            Some((tags, _)) => Some(tags.tokens_of(&doc)?),
            None => None,
        };
        Ok(((doc, tokens), bytes))
    });
    crate::ground::parallel::ordered(
        source,
        BATCH_BYTES,
        |job| document::format(&shared, job),
        |f: Formatted| sink.add(f),
    )?;
    let finished = sink.finish()?;
    let mut report = ExportReport::default();
    // The query index (`glaneur kwic`, `freq`, `colloc`, `keywords`) of the `.vrt` just written.
    let columns: &[&str] = if shared.tagset.is_some() {
        &["word", "pos", "lemma"]
    } else {
        &["word"]
    };
    let vrt = run_dir.join("vrt").join("corpus.vrt");
    let index_dir = run_dir.join("index");
    // Three pieces of corpus-wide work read different inputs, so they run side by side: the
    // matrices (the stream's scratch files), the query index (the `.vrt`) and the hyperlink
    // graph (the store, with the token counts the stream wrote). Only the similarity graph
    // needs two of them, so it comes after.
    let (written, graph, compressed) = std::thread::scope(|scope| {
        let graph_job = scope.spawn(|| hyperlink_graph(store, &graph_dir));
        let index_job = scope.spawn(|| crate::index::corpus::build(&vrt, columns, &index_dir));
        let written = write_matrices(topic, &matrix_dir, finished, &mut report);
        let index = joined(index_job, "the query index");
        let graph = joined(graph_job, "the hyperlink graph");
        index?;
        let (graph, compressed) = graph?;
        anyhow::Ok((written?, graph, compressed))
    })?;
    let (matrix, nodes, row_of) = written;
    report.graph_compressed = compressed;
    write_similarity_graph(
        topic,
        &graph_dir,
        &matrix,
        (&graph, &nodes, &row_of),
        &mut report,
    )?;
    report.graph_nodes = graph.node_count() as u64;
    report.graph_edges = graph.edge_count() as u64;
    store.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(report)
}

/// The folder of each token format the topic asks for, emptied; the folder of each one it
/// leaves out removed, so no stale copy stays beside the formats written now.
fn open_formats(topic: &Topic, run_dir: &Path) -> anyhow::Result<Vec<Written>> {
    let output = &topic.file.output;
    let mut formats = Vec::new();
    for format in TOKEN_FORMATS {
        let dir = run_dir.join(format.name);
        if !output.writes(format.name) {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("cannot clear {}", dir.display()))?;
            }
            continue;
        }
        let files = match (format.name, output.treetagger) {
            ("treetagger", TreeTaggerLayout::PerDocument) => Files::PerDocument("tt"),
            _ => format.files,
        };
        formats.push(Written {
            format,
            files,
            dir: fresh_dir(&dir)?,
        });
    }
    Ok(formats)
}

/// The matrices and `docs.tsv` from the stream's scratch files; returns the filtered matrix
/// (when the similarity graph is computed), the documents as graph nodes and their rows.
fn write_matrices(
    topic: &Topic,
    matrix_dir: &Path,
    finished: Finished,
    report: &mut ExportReport,
) -> anyhow::Result<(matrix::Written, Vec<graphs::Node>, HashMap<i64, usize>)> {
    *report = finished.report;
    let max_documents = topic.file.similarity.max_documents;
    // The similarity graph needs the matrix whole; it is computed up to its size limit.
    let similar = |rows: usize| rows as u64 <= max_documents;
    let written = finished.matrix.write(matrix_dir, "", true, similar)?;
    report.dense_csv = written.dense_refused.clone();
    report.vocabulary = written.vocabulary as u64;
    report.nonzeros = written.nonzeros as u64;
    let nodes = write_docs_tsv(
        matrix_dir,
        &finished.rows_path,
        &written.words,
        written.matrix.is_some(),
        report,
    )?;
    if let Some(lemma_matrix) = finished.lemma_matrix {
        let lemmas = lemma_matrix.write(matrix_dir, "lemma-", false, |_| false)?;
        report.lemma_vocabulary = Some(lemmas.vocabulary as u64);
        report.tagged_documents_missing = Some(finished.tagged_missing);
    }
    Ok((written, nodes, finished.row_of))
}

/// The result of work done on a thread of a scope, a panic turned into an error naming it.
fn joined<T>(
    job: std::thread::ScopedJoinHandle<'_, anyhow::Result<T>>,
    what: &str,
) -> anyhow::Result<T> {
    match job.join() {
        Ok(result) => result,
        Err(_) => anyhow::bail!("writing {what} stopped on an internal error"),
    }
}

/// The hyperlink graph, read from the store and written in every format; why its files are
/// compressed, when they are.
fn hyperlink_graph(
    store: &mut Store,
    graph_dir: &Path,
) -> anyhow::Result<(LinkGraph, Option<String>)> {
    let mut report = ExportReport::default();
    let graph = graphs::build_graph(store, graph_dir)?;
    graphs::write_graphs(store, graph_dir, &graph, &mut report)?;
    Ok((graph, report.graph_compressed))
}

/// The similarity graph when the matrix was kept, else why not.
fn write_similarity_graph(
    topic: &Topic,
    graph_dir: &Path,
    matrix: &matrix::Written,
    (graph, nodes, row_of): (&LinkGraph, &[graphs::Node], &HashMap<i64, usize>),
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    match &matrix.matrix {
        Some(m) => graphs::write_similarity(topic, graph_dir, m, graph, nodes, row_of, report),
        None => {
            report.similarity_skipped = Some(format!(
                "similarity graph not computed: {} documents, more than [similarity] \
                 max_documents = {} (its cost grows with the square of the documents that \
                 share words; raise the limit to compute it)",
                matrix.words.len(),
                topic.file.similarity.max_documents
            ));
            Ok(())
        }
    }
}

/// `matrix/docs.tsv` from the rows kept while streaming (then removed), with each row's word
/// count in the filtered matrix; returns what the similarity graph's nodes show (with
/// `keep_nodes`).
fn write_docs_tsv(
    matrix_dir: &Path,
    rows_path: &Path,
    words_per_row: &[u64],
    keep_nodes: bool,
    report: &mut ExportReport,
) -> anyhow::Result<Vec<graphs::Node>> {
    let mut docs_tsv = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .quote_style(csv::QuoteStyle::Never)
        .from_writer(Output::create(matrix_dir.join("docs.tsv"))?.file);
    docs_tsv.write_record([
        "row", "id", "url", "title", "language", "score", "tokens", "words",
    ])?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .has_headers(false)
        .from_path(rows_path)
        .with_context(|| format!("cannot read {}", rows_path.display()))?;
    let mut nodes = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("cannot read {}", rows_path.display()))?;
        let field = |k: usize| record.get(k).unwrap_or("");
        let words = words_per_row.get(i).copied().unwrap_or(0);
        report.words += words;
        let score: f64 = field(4).parse().unwrap_or(0.0);
        docs_tsv.write_record([
            (i + 1).to_string(),
            field(0).to_string(),
            tsv_field(field(1)),
            tsv_field(field(2)),
            field(3).to_string(),
            format!("{score:.4}"),
            field(5).to_string(),
            words.to_string(),
        ])?;
        if !keep_nodes {
            continue;
        }
        nodes.push(graphs::Node {
            doc: field(0).to_string(),
            url: field(1).to_string(),
            title: field(2).to_string(),
            language: field(3).to_string(),
            score,
            host: field(6).to_string(),
        });
    }
    docs_tsv.flush().context("cannot write matrix/docs.tsv")?;
    drop(reader);
    std::fs::remove_file(rows_path)
        .with_context(|| format!("cannot remove {}", rows_path.display()))?;
    Ok(nodes)
}

/// Longest host part of a site map's file name, in bytes: with the hash and the extension the
/// name stays under the 255 bytes file systems allow (a host name may have 253).
const STEM_BYTES: usize = 180;

/// The file name (without extension) of a host's site map: the host with every character but
/// letters, digits, `.` and `-` replaced by `_`; when that changed it or it is too long for a
/// file name, cut and followed by a hash of the host, so that two hosts never share a file.
pub(super) fn sitemap_stem(host: &str) -> String {
    let clean: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean == host && clean.len() <= STEM_BYTES {
        return clean;
    }
    // FNV-1a: the same name for the same host in every run and every version.
    let hash = host.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let cut: String = clean.chars().take(STEM_BYTES).collect();
    format!("{cut}-{hash:016x}")
}

/// Tabs and line breaks become spaces (a `docs.tsv` row stays one line; titles and URLs rarely
/// have them, but web input can), then the field is quoted by the rule of every table
/// glaneur writes (`stages::export::delimited`), so R and pandas read it whole.
fn tsv_field(value: &str) -> String {
    let one_line: String = value
        .chars()
        .map(|c| {
            if c == '\t' || c == '\n' || c == '\r' {
                ' '
            } else {
                c
            }
        })
        .collect();
    stages::export::delimited::field(&one_line, '\t').into_owned()
}

fn fresh_dir(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir.to_path_buf())
}

pub(super) fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Export stage figures.
#[derive(Debug, Default, serde::Serialize)]
pub struct ExportReport {
    /// Documents exported.
    pub documents: u64,
    /// Tokens in the TreeTagger files.
    pub tokens: u64,
    /// Words counted in the matrix.
    pub words: u64,
    /// Vocabulary size (matrix columns).
    pub vocabulary: u64,
    /// Non-zero matrix entries.
    pub nonzeros: u64,
    /// Why `matrix/dense.csv` was not written (too many cells), when it was not.
    pub dense_csv: Option<String>,
    /// Edges of the similarity graph.
    pub similarity_edges: u64,
    /// Why the similarity graph was not computed (more documents than
    /// `[similarity] max_documents`), when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity_skipped: Option<String>,
    /// Why the page-level graph files are gzip-compressed (a graph of more nodes than
    /// `export::PLAIN_GRAPH_MAX_NODES`), when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_compressed: Option<String>,
    /// Lemma columns of `matrix/lemma-counts.mtx`, when tagger output was read back.
    pub lemma_vocabulary: Option<u64>,
    /// Documents absent from the tagger output (stale `tagged/`: run the tagger again).
    pub tagged_documents_missing: Option<u64>,
    /// Hyperlink graph nodes.
    pub graph_nodes: u64,
    /// Hyperlink graph edges.
    pub graph_edges: u64,
    /// Seconds.
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_map_names_fit_a_file_system_and_never_collide() {
        assert_eq!(sitemap_stem("docs.gimp.test"), "docs.gimp.test");
        let long = format!("{}.test", vec!["a".repeat(63); 3].join("."));
        let stem = sitemap_stem(&long);
        assert!(stem.len() + ".html".len() < 255, "{}", stem.len());
        assert_ne!(sitemap_stem("a.test:8080"), sitemap_stem("a.test_8080"));
        assert_eq!(sitemap_stem("a.test:8080"), sitemap_stem("a.test:8080"));
    }
}
