//! The export stage: documents and the crawl's graph → files the linguists' tools read.
//!
//! **In:** `docs.jsonl` and `crawl.sqlite`.
//! **Out:** `treetagger/` (one token per line with `<doc>`/`<p>` lines), `vrt/corpus.vrt`
//! (CWB vertical), `conllu/corpus.conllu`, `talismane/corpus.txt`, `metadata.csv` (TXM), `matrix/`
//! (`counts.mtx` Matrix Market + `vocab.tsv` + `docs.tsv`), `graph/` (the hyperlink graph as
//! GraphML, GEXF 1.3, DOT, Pajek and CSV with PageRank; the host graph; broken and external
//! links; a site map per host), and the token count of each document in `crawl.sqlite`.
//!
//! **Invariants:** the TreeTagger, `.vrt`, CoNLL-U and Talismane files and the matrix are built
//! from the *same* token stream (each document is tokenized and split into sentences once); matrix row `i` is line `i` of `docs.tsv` and the
//! `i`-th `<doc>` of the corpus file; every folder is rebuilt from scratch, so a re-run never
//! leaves stale files of an earlier run.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use stages::export::graph::LinkGraph;
use stages::export::matrix::MatrixBuilder;
use stages::export::tagged::TaggedToken;
use stages::export::treetagger;
use stages::export::vertical;
use stages::export::{graphio, matrix, similarity, sitemap};
use stages::focus::pagerank;

use crate::extract::Document;
use crate::report::ExportReport;
use crate::store::Store;
use crate::topic::{Topic, TreeTaggerLayout};

/// Runs every export; returns their figures.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    docs: &[Document],
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExportReport> {
    let started = Instant::now();
    bar.set_length(docs.len() as u64);
    let tt_dir = fresh_dir(&run_dir.join("treetagger"))?;
    let vrt_dir = fresh_dir(&run_dir.join("vrt"))?;
    let conllu_dir = fresh_dir(&run_dir.join("conllu"))?;
    let talismane_dir = fresh_dir(&run_dir.join("talismane"))?;
    let mut vrt = String::new();
    let mut conllu = String::new();
    let mut talismane = String::new();
    let mut metadata = String::from(vertical::metadata_csv_header());
    metadata.push('\n');
    let matrix_dir = fresh_dir(&run_dir.join("matrix"))?;
    let graph_dir = fresh_dir(&run_dir.join("graph"))?;

    let mut report = ExportReport {
        documents: docs.len() as u64,
        ..ExportReport::default()
    };
    let mut matrix = MatrixBuilder::with_options(topic.file.matrix.options())
        .map_err(|e| anyhow::anyhow!("[matrix]: {e}"))?;
    let mut corpus = String::new();
    let mut docs_tsv = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .quote_style(csv::QuoteStyle::Never)
        .from_writer(Vec::new());
    docs_tsv.write_record([
        "row", "id", "url", "title", "language", "score", "tokens", "words",
    ])?;
    // docs.tsv rows wait for the matrix: `words` counts what the filtered matrix keeps.
    let mut doc_rows: Vec<Vec<String>> = Vec::with_capacity(docs.len());
    // The tagger's output, when one has run: pos and lemma go into the `.vrt`, CoNLL-U, the
    // index and the lemma matrix.
    let tagged = read_tagged(&run_dir.join("tagged"))?;
    let tagset = tagged.as_ref().map(|t| {
        stages::export::tagged::Tagset::of(t.values().flatten().map(|tok| tok.pos.as_str()))
    });
    let mut untagged = 0u64;
    let txt_dir = fresh_dir(&run_dir.join("txt"))?;
    for doc in docs {
        let lang = if doc.language.is_empty() {
            topic.file.languages.first().map_or("fr", String::as_str)
        } else {
            doc.language.as_str()
        };
        // One tokenisation per document feeds every format and the matrix.
        let texts: Vec<String> = doc.paragraphs.iter().map(|p| p.text.clone()).collect();
        let split = vertical::split_document(&texts, lang);
        let paragraphs: Vec<Vec<String>> = split
            .iter()
            .map(|sentences| {
                sentences
                    .iter()
                    .flat_map(|s| s.tokens.iter().cloned())
                    .collect()
            })
            .collect();
        let n_tokens: usize = paragraphs.iter().map(Vec::len).sum();
        // TreeTagger's tokenizer keeps `<…>` spans whole as SGML (the tagger skips them): they
        // are not words of the matrix.
        let all_tokens: Vec<&str> = paragraphs
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|t| !stages::corpus::tokenize::is_markup(t))
            .collect();
        let (row, _) = matrix.add(&all_tokens);
        report.tokens += n_tokens as u64;

        // The date the page declares (extract stage), else `Last-Modified` (documents
        // written before the extract stage recorded dates).
        let date = doc.date.clone().or_else(|| {
            doc.last_modified
                .as_deref()
                .and_then(|d| httpdate::parse_http_date(d).ok())
                .map(|t| {
                    chrono::DateTime::<chrono::Utc>::from(t)
                        .format("%Y-%m-%d")
                        .to_string()
                })
        });
        let meta = vertical::DocMeta {
            id: &doc.id,
            url: &doc.url,
            title: &doc.title,
            lang,
            score: doc.score,
            host: &doc.host,
            date: date.as_deref(),
        };
        match topic.file.output.treetagger {
            TreeTaggerLayout::PerCorpus => treetagger::write_doc(&mut corpus, &meta, &paragraphs),
            TreeTaggerLayout::PerDocument => {
                let mut one = String::new();
                treetagger::write_doc(&mut one, &meta, &paragraphs);
                let path = tt_dir.join(format!("{}.tt", doc.id));
                std::fs::write(&path, one)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }

        let tags = tagged.as_ref().map(|t| {
            let tags = t
                .get(&doc.id)
                .and_then(|tokens| aligned_tags(tokens, &split));
            untagged += u64::from(tags.is_none());
            tags.unwrap_or_default()
        });
        vertical::write_vrt_split(&mut vrt, &meta, &split, tags.as_deref());
        vertical::write_conllu_split(&mut conllu, &meta, &split, tags.as_deref().zip(tagset));
        write_txt(&txt_dir, &doc.id, &doc.paragraphs)?;
        vertical::write_talismane_split(&mut talismane, &split);
        metadata.push_str(&vertical::metadata_csv_row(&meta, n_tokens));
        metadata.push('\n');
        doc_rows.push(vec![
            (row + 1).to_string(),
            doc.id.clone(),
            tsv_field(&doc.url),
            tsv_field(&doc.title),
            doc.language.clone(),
            format!("{:.4}", doc.score),
            n_tokens.to_string(),
        ]);
        store.set_tokens(doc.url_id, n_tokens as u64)?;
        bar.inc(1);
    }
    let vrt_path = vrt_dir.join("corpus.vrt");
    write(&vrt_path, vrt.as_bytes())?;
    drop(vrt);
    write(&conllu_dir.join("corpus.conllu"), conllu.as_bytes())?;
    write(&talismane_dir.join("corpus.txt"), talismane.as_bytes())?;
    write(&run_dir.join("metadata.csv"), metadata.as_bytes())?;
    if topic.file.output.treetagger == TreeTaggerLayout::PerCorpus {
        write(&tt_dir.join("corpus.tt"), corpus.as_bytes())?;
    }
    let filtered = matrix.filtered();
    for (i, mut row) in doc_rows.into_iter().enumerate() {
        let words: u64 = filtered.row(i).iter().map(|&(_, n)| u64::from(n)).sum();
        report.words += words;
        row.push(words.to_string());
        docs_tsv.write_record(&row)?;
    }
    write_matrix(&matrix_dir, "", &filtered)?;
    write(
        &matrix_dir.join("long.csv"),
        filtered.to_long_csv().as_bytes(),
    )?;
    match filtered.to_dense_csv(matrix::DENSE_MAX_CELLS) {
        Ok(dense) => write(&matrix_dir.join("dense.csv"), dense.as_bytes())?,
        Err(refused) => report.dense_csv = Some(refused.to_string()),
    }
    let docs_bytes = docs_tsv
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot build docs.tsv: {e}"))?;
    write(&matrix_dir.join("docs.tsv"), &docs_bytes)?;
    report.vocabulary = filtered.n_cols() as u64;
    report.nonzeros = filtered.nnz() as u64;
    if let Some(tagged) = &tagged {
        write_lemma_matrix(topic, &matrix_dir, docs, tagged, &mut report)?;
        report.tagged_documents_missing = Some(untagged);
    }
    // The query index (`glaneur kwic`, `freq`, `colloc`, `keywords`) of the `.vrt` just written.
    let columns: &[&str] = if tagged.is_some() {
        &["word", "pos", "lemma"]
    } else {
        &["word"]
    };
    crate::corpus_index::build(&vrt_path, columns, &run_dir.join("index"))?;
    // The ranked document search (`glaneur search`), stemmed in the topic's first language.
    let language = topic.file.languages.first().map_or("", String::as_str);
    crate::doc_search::build(&run_dir.join("search"), docs, language)?;

    let graph = build_graph(store)?;
    write_graphs(store, &graph_dir, &graph)?;
    write_similarity(topic, &graph_dir, &filtered, &graph, docs, &mut report)?;
    report.graph_nodes = graph.graph.node_count() as u64;
    report.graph_edges = graph.graph.edge_count() as u64;
    store.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(report)
}

/// The similarity graph (TF-IDF cosine between documents, seed 001's "logical" web) and its
/// comparison with the hyperlink graph between the same documents.
fn write_similarity(
    topic: &Topic,
    dir: &Path,
    m: &matrix::SparseMatrix,
    graph: &LinkGraph,
    docs: &[Document],
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let settings = &topic.file.similarity;
    let pairs = similarity::similar_pairs(m, settings.threshold, settings.top_k);
    write(
        &dir.join("similarity.csv"),
        similarity::pairs_csv(&pairs).as_bytes(),
    )?;
    // Matrix row i is docs[i]: the nodes carry what Gephi and networkx show of each document.
    let nodes: Vec<similarity::SimilarityNode<'_>> = docs
        .iter()
        .map(|d| similarity::SimilarityNode {
            doc: &d.id,
            title: &d.title,
            url: &d.url,
            host: &d.host,
            language: &d.language,
            score: d.score,
        })
        .collect();
    write(
        &dir.join("similarity.graphml"),
        similarity::pairs_graphml(&nodes, &pairs).as_bytes(),
    )?;
    // Hyperlinks between two corpus documents, as matrix rows.
    let row_of: HashMap<i64, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.url_id, i))
        .collect();
    let hyperlinks: Vec<(usize, usize)> = graph
        .graph
        .edge_weights()
        .filter_map(|e| Some((*row_of.get(&e.source)?, *row_of.get(&e.target)?)))
        .collect();
    let comparison = similarity::compare_graphs(m.n_rows(), &pairs, &hyperlinks);
    write(
        &dir.join("comparison.json"),
        serde_json::to_string_pretty(&comparison)?.as_bytes(),
    )?;
    report.similarity_edges = pairs.len() as u64;
    Ok(())
}

/// Tagged tokens per document id from the tagger output in `tagged/*.tagged` (TreeTagger's or
/// the fallback tagger's `word<TAB>POS<TAB>lemma` with the `<doc>` lines kept); None when no
/// tagger has run.
fn read_tagged(dir: &Path) -> anyhow::Result<Option<HashMap<String, Vec<TaggedToken>>>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tagged"))
        .collect();
    if files.is_empty() {
        return Ok(None);
    }
    files.sort();
    let mut lemmas = HashMap::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the tagger output {}", path.display()))?;
        let docs = stages::export::tagged::parse_tagged(&text)
            .with_context(|| format!("{} is not tagger output", path.display()))?;
        for doc in docs {
            lemmas.insert(doc.id, doc.tokens);
        }
    }
    Ok(Some(lemmas))
}

/// The tags of a document's tokens, when the tagger's tokens are the export's (the `.tt` file
/// it tagged was written from the same token stream); None when they differ (a stale
/// `tagged/`, written before the documents changed).
fn aligned_tags(
    tagged: &[TaggedToken],
    split: &[Vec<vertical::Sentence>],
) -> Option<Vec<vertical::Tag>> {
    let tokens = split.iter().flatten().flat_map(|s| s.tokens.iter());
    let mut tags = Vec::with_capacity(tagged.len());
    let mut n = 0;
    for (token, t) in tokens.zip(tagged) {
        // The `.tt` file escapes `<…>` spans that TreeTagger would take for markup.
        let word = t.word.replace("&lt;", "<").replace("&gt;", ">");
        let same = |a: &str, b: &str| a.split_whitespace().eq(b.split_whitespace());
        if !same(&word, token) {
            return None;
        }
        tags.push(vertical::Tag {
            pos: t.pos.clone(),
            lemma: t.lemma.clone(),
        });
        n += 1;
    }
    (n == tagged.len()
        && n == split
            .iter()
            .flatten()
            .map(|s| s.tokens.len())
            .sum::<usize>())
    .then_some(tags)
}

/// `txt/<id>.txt`: the document's paragraphs separated by blank lines (AntConc, #LancsBox,
/// TXM's TXT+CSV import with `metadata.csv`).
fn write_txt(dir: &Path, id: &str, paragraphs: &[crate::extract::Paragraph]) -> anyhow::Result<()> {
    let mut text = String::new();
    for p in paragraphs {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(p.text.trim());
    }
    text.push('\n');
    write(
        &dir.join(format!("{}.txt", sitemap_stem(id))),
        text.as_bytes(),
    )
}

/// `matrix/lemma-counts.mtx` + `lemma-vocab.tsv`: the same rows as `counts.mtx` (docs.tsv), with
/// lemmas as columns.
fn write_lemma_matrix(
    topic: &Topic,
    matrix_dir: &Path,
    docs: &[Document],
    tagged: &HashMap<String, Vec<TaggedToken>>,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let mut matrix = MatrixBuilder::with_options(topic.file.matrix.options())
        .map_err(|e| anyhow::anyhow!("[matrix]: {e}"))?;
    let mut missing = 0;
    for doc in docs {
        match tagged.get(&doc.id) {
            Some(tokens) => {
                let lemmas: Vec<&str> = tokens
                    .iter()
                    // Escaped `<…>` spans (markup to TreeTagger) are not words.
                    .filter(|t| !(t.word.starts_with("&lt;") && t.word.ends_with("&gt;")))
                    .map(|t| t.lemma.as_str())
                    .collect();
                matrix.add(&lemmas);
            }
            None => {
                // Keep the row so that rows still match docs.tsv; say the tagger output is stale.
                matrix.add::<&str>(&[]);
                missing += 1;
            }
        }
    }
    let matrix = matrix.filtered();
    write_matrix(matrix_dir, "lemma-", &matrix)?;
    report.lemma_vocabulary = Some(matrix.n_cols() as u64);
    report.tagged_documents_missing = Some(missing);
    Ok(())
}

/// `PREFIXcounts.mtx` (Matrix Market) and `PREFIXvocab.tsv` of a matrix.
fn write_matrix(dir: &Path, prefix: &str, m: &matrix::SparseMatrix) -> anyhow::Result<()> {
    write(
        &dir.join(format!("{prefix}counts.mtx")),
        m.to_matrix_market().as_bytes(),
    )?;
    write(
        &dir.join(format!("{prefix}vocab.tsv")),
        m.vocabulary_tsv().as_bytes(),
    )
}

/// The hyperlink graph in every format, the host-level graph, seed 004's reports (broken
/// links, external links, one site map per host) and PageRank (d = 0.85).
fn write_graphs(store: &Store, dir: &Path, graph: &LinkGraph) -> anyhow::Result<()> {
    let pagerank = graphio::pagerank_of(graph, pagerank::DEFAULT_DAMPING);
    write(&dir.join("links.graphml"), graph.to_graphml().as_bytes())?;
    write(
        &dir.join("links.gexf"),
        graphio::to_gexf(graph, &pagerank).as_bytes(),
    )?;
    write(&dir.join("links.dot"), graphio::to_dot(graph).as_bytes())?;
    write(&dir.join("links.net"), graphio::to_pajek(graph).as_bytes())?;
    let mut nodes = graph.node_rows();
    if let Some(header) = nodes.first_mut() {
        header.push("pagerank".to_string());
    }
    for (row, rank) in nodes.iter_mut().skip(1).zip(&pagerank) {
        row.push(format!("{rank:.8}"));
    }
    write_csv(&dir.join("nodes.csv"), nodes)?;
    write_csv(&dir.join("edges.csv"), graph.edge_rows())?;
    let hosts = graphio::host_graph(graph);
    write(&dir.join("hosts.gexf"), hosts.to_gexf().as_bytes())?;
    write(&dir.join("hosts.dot"), hosts.to_dot().as_bytes())?;
    write(&dir.join("hosts.net"), hosts.to_pajek().as_bytes())?;
    write_csv(&dir.join("hosts-nodes.csv"), hosts.node_rows())?;
    write_csv(&dir.join("hosts-edges.csv"), hosts.edge_rows())?;
    let broken = graphio::broken_links(graph);
    write_csv(
        &dir.join("broken-links.csv"),
        graphio::broken_link_rows(&broken),
    )?;
    let external = graphio::external_links(graph, graphio::same_host);
    write_csv(
        &dir.join("external-links.csv"),
        graphio::external_link_rows(&external),
    )?;
    let titles: HashMap<i64, String> = store.titles()?;
    let sitemap_dir = dir.join("sitemaps");
    std::fs::create_dir_all(&sitemap_dir)
        .with_context(|| format!("cannot create {}", sitemap_dir.display()))?;
    for map in sitemap::site_maps(graph, &pagerank, &titles) {
        let name = sitemap_stem(&map.host);
        write(
            &sitemap_dir.join(format!("{name}.xml")),
            map.to_xml().as_bytes(),
        )?;
        write(
            &sitemap_dir.join(format!("{name}.html")),
            map.to_html().as_bytes(),
        )?;
    }
    Ok(())
}

/// Longest host part of a site map's file name, in bytes: with the hash and the extension the
/// name stays under the 255 bytes file systems allow (a host name may have 253).
const STEM_BYTES: usize = 180;

/// The file name (without extension) of a host's site map: the host with every character but
/// letters, digits, `.` and `-` replaced by `_`; when that changed it or it is too long for a
/// file name, cut and followed by a hash of the host, so that two hosts never share a file.
fn sitemap_stem(host: &str) -> String {
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

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn write_csv(path: &Path, rows: Vec<Vec<String>>) -> anyhow::Result<()> {
    let mut writer =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    for row in rows {
        writer.write_record(&row)?;
    }
    writer.flush()?;
    Ok(())
}

/// The hyperlink graph: every URL the crawl saw is a node, every link between them an edge.
fn build_graph(store: &Store) -> anyhow::Result<LinkGraph> {
    let (nodes, edges) = store.link_graph_parts()?;
    Ok(LinkGraph::build(nodes, edges))
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
