//! The graphs of the export: the hyperlink graph in every format, the host graph, seed 004's
//! reports (broken and external links, one site map per host) with PageRank, and the
//! similarity graph between documents beside its comparison with the hyperlinks.
//!
//! **In:** `crawl.sqlite`'s URLs and links; the filtered matrix and each row's document.
//! **Out:** `graph/`.
//!
//! **Invariants:** every URL the crawl saw is a node, every link between two of them an edge;
//! similarity rows are matrix rows (`docs.tsv`).

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use stages::export::graph::LinkGraph;
use stages::export::{graphio, matrix, similarity, sitemap};
use stages::focus::pagerank;

use super::{sitemap_stem, write};
use crate::report::ExportReport;
use crate::store::Store;
use crate::topic::Topic;

/// What a similarity-graph node shows of its document.
pub(super) struct Node {
    pub(super) doc: String,
    pub(super) url: String,
    pub(super) title: String,
    pub(super) language: String,
    pub(super) score: f64,
    pub(super) host: String,
}

/// The similarity graph (TF-IDF cosine between documents, seed 001's "logical" web) and its
/// comparison with the hyperlink graph between the same documents.
pub(super) fn write_similarity(
    topic: &Topic,
    dir: &Path,
    m: &matrix::SparseMatrix,
    graph: &LinkGraph,
    nodes: &[Node],
    row_of: &HashMap<i64, usize>,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let settings = &topic.file.similarity;
    if m.n_rows() as u64 > settings.max_documents {
        report.similarity_skipped = Some(format!(
            "similarity graph not computed: {} documents, more than [similarity] max_documents = {} \
             (its cost grows with the square of the documents that share words; raise the limit to \
             compute it)",
            m.n_rows(),
            settings.max_documents
        ));
        return Ok(());
    }
    let pairs = similarity::similar_pairs(m, settings.threshold, settings.top_k);
    write(
        &dir.join("similarity.csv"),
        similarity::pairs_csv(&pairs).as_bytes(),
    )?;
    // Matrix row i is docs[i]: the nodes carry what Gephi and networkx show of each document.
    let nodes: Vec<similarity::SimilarityNode<'_>> = nodes
        .iter()
        .map(|d| similarity::SimilarityNode {
            doc: &d.doc,
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

/// The hyperlink graph in every format, the host-level graph, seed 004's reports (broken
/// links, external links, one site map per host) and PageRank (d = 0.85).
pub(super) fn write_graphs(store: &Store, dir: &Path, graph: &LinkGraph) -> anyhow::Result<()> {
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
    for home in sitemap::home_pages(graph) {
        let map = sitemap::site_map_from(graph, &pagerank, &titles, &home);
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
pub(super) fn build_graph(store: &Store) -> anyhow::Result<LinkGraph> {
    let (nodes, edges) = store.link_graph_parts()?;
    Ok(LinkGraph::build(nodes, edges))
}
