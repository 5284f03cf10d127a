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

use super::ExportReport;
use super::{sitemap_stem, write};
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
    let pairs = similarity::similar_pairs(m, settings.threshold, settings.top_k);
    write_with(dir, "similarity.csv", false, |w| {
        similarity::write_pairs_csv(&pairs, w)
    })?;
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
    write_with(dir, "similarity.graphml", false, |w| {
        similarity::write_pairs_graphml(&nodes, &pairs, w)
    })?;
    // Hyperlinks between two corpus documents, as matrix rows.
    let hyperlinks: Vec<(usize, usize)> = graph
        .edge_ends()
        .filter_map(|(source, target)| {
            Some((
                *row_of.get(&graph.node(source).id)?,
                *row_of.get(&graph.node(target).id)?,
            ))
        })
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
pub(super) fn write_graphs(
    store: &Store,
    dir: &Path,
    graph: &LinkGraph,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let pagerank = graphio::pagerank_of(graph, pagerank::DEFAULT_DAMPING);
    let compress = graph.node_count() > PLAIN_GRAPH_MAX_NODES;
    if compress {
        report.graph_compressed = Some(format!(
            "page-level graph files gzip-compressed (links.*.gz, nodes.csv.gz, edges.csv.gz): \
             {} nodes, more than {PLAIN_GRAPH_MAX_NODES}",
            graph.node_count()
        ));
    }
    // One after the other: written side by side (30 s less of 250 at a million pages), one
    // million-page run peaked at 541 MB of anonymous memory, over the 500 MB it must stay
    // under, against 464 MB one after the other.
    write_page_graph(dir, graph, &pagerank, compress)?;
    write_host_and_site_maps(store, dir, graph, &pagerank)?;
    if let Some(e) = graph.take_read_error() {
        return Err(anyhow::Error::new(e).context(format!(
            "cannot read the links' anchors back from their scratch file in {} (the graph \
             files hold empty anchors)",
            dir.display()
        )));
    }
    Ok(())
}

/// The page-level graph files: `links.*`, `nodes.csv` (with PageRank), `edges.csv`.
fn write_page_graph(
    dir: &Path,
    graph: &LinkGraph,
    pagerank: &[f64],
    compress: bool,
) -> anyhow::Result<()> {
    write_with(dir, "links.graphml", compress, |w| graph.write_graphml(w))?;
    write_with(dir, "links.gexf", compress, |w| {
        graphio::write_gexf_to(graph, pagerank, w)
    })?;
    write_with(dir, "links.dot", compress, |w| {
        graphio::write_dot_to(graph, w)
    })?;
    write_with(dir, "links.net", compress, |w| {
        graphio::write_pajek_to(graph, w)
    })?;
    let mut ranks = pagerank.iter();
    let nodes = graph.node_rows_iter().enumerate().map(|(i, mut row)| {
        if i == 0 {
            row.push("pagerank".to_string());
        } else if let Some(rank) = ranks.next() {
            row.push(format!("{rank:.8}"));
        }
        row
    });
    write_csv_rows(dir, "nodes.csv", compress, nodes)?;
    write_csv_rows(dir, "edges.csv", compress, graph.edge_rows_iter())
}

/// The host graph, the broken and external links, and one site map per host (titles read
/// from the store).
fn write_host_and_site_maps(
    store: &Store,
    dir: &Path,
    graph: &LinkGraph,
    pagerank: &[f64],
) -> anyhow::Result<()> {
    let hosts = graphio::host_graph(graph);
    write(&dir.join("hosts.gexf"), hosts.to_gexf().as_bytes())?;
    write(&dir.join("hosts.dot"), hosts.to_dot().as_bytes())?;
    write(&dir.join("hosts.net"), hosts.to_pajek().as_bytes())?;
    write_csv_rows(dir, "hosts-nodes.csv", false, hosts.node_rows())?;
    write_csv_rows(dir, "hosts-edges.csv", false, hosts.edge_rows())?;
    // Rows are made as they are written; what is held is one edge index per reported link.
    let broken = graphio::broken_link_edges(graph);
    let rows = broken
        .iter()
        .filter_map(|&k| graphio::broken_link(graph, k as usize))
        .map(|l| graphio::broken_link_row(&l));
    write_csv_rows(
        dir,
        "broken-links.csv",
        false,
        std::iter::once(graphio::broken_link_header()).chain(rows),
    )?;
    let external = graphio::external_link_edges(graph, graphio::same_host);
    let rows = external
        .iter()
        .filter_map(|&k| graphio::external_link(graph, k as usize, graphio::same_host))
        .map(|l| graphio::external_link_row(&l));
    write_csv_rows(
        dir,
        "external-links.csv",
        false,
        std::iter::once(graphio::external_link_header()).chain(rows),
    )?;
    // Titles are read from the store as each map is written, not held for every URL.
    let title_error = std::cell::RefCell::new(None);
    let sitemap_dir = dir.join("sitemaps");
    std::fs::create_dir_all(&sitemap_dir)
        .with_context(|| format!("cannot create {}", sitemap_dir.display()))?;
    for home in sitemap::home_pages(graph) {
        let title_of = Box::new(|id: i64| match store.title(id) {
            Ok(title) => title,
            Err(e) => {
                title_error.borrow_mut().get_or_insert(e);
                None
            }
        });
        let map = sitemap::site_map_from(graph, pagerank, title_of, &home);
        let name = sitemap_stem(&map.host);
        write_with(&sitemap_dir, &format!("{name}.xml"), false, |w| {
            map.write_xml(w)
        })?;
        write_with(&sitemap_dir, &format!("{name}.html"), false, |w| {
            map.write_html(w)
        })?;
        if let Some(e) = title_error.borrow_mut().take() {
            return Err(e.context("crawl.sqlite: reading page titles for the site maps"));
        }
    }
    Ok(())
}

/// Above this many nodes (URLs the crawl saw), the page-level graph files are written
/// gzip-compressed: a million-page crawl's are about 8 GB as text, a tenth of that compressed,
/// and networkx, pandas and R read `.gz` files as they are.
pub const PLAIN_GRAPH_MAX_NODES: usize = 100_000;

/// Writes `dir/name` (or `dir/name.gz`) through `f`, a piece at a time.
fn write_with(
    dir: &Path,
    name: &str,
    compress: bool,
    f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let path = dir.join(if compress {
        format!("{name}.gz")
    } else {
        name.to_string()
    });
    let file =
        std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let done = if compress {
        let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        f(&mut gz).and_then(|()| gz.finish().map(|_| ()))
    } else {
        f(&mut out)
    };
    done.and_then(|()| out.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// CSV rows (header first) into `dir/name` (or `dir/name.gz`), one at a time.
fn write_csv_rows(
    dir: &Path,
    name: &str,
    compress: bool,
    rows: impl IntoIterator<Item = Vec<String>>,
) -> anyhow::Result<()> {
    write_with(dir, name, compress, |w| {
        let mut writer = csv::Writer::from_writer(w);
        for row in rows {
            writer.write_record(&row)?;
        }
        writer.flush()
    })
}

/// The hyperlink graph: every URL the crawl saw is a node, every link between them an edge
/// (the anchors wait in a scratch file in `dir`, the graph folder).
pub(super) fn build_graph(store: &Store, dir: &Path) -> anyhow::Result<LinkGraph> {
    store.link_graph(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_files_are_plain_or_gzip_with_the_same_text() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let rows = || {
            (0..5000).map(|i| {
                vec![
                    i.to_string(),
                    format!("http://a.test/{i}"),
                    "x,y".to_string(),
                ]
            })
        };
        write_csv_rows(dir.path(), "nodes.csv", false, rows()).unwrap();
        write_csv_rows(dir.path(), "nodes.csv", true, rows()).unwrap();
        let plain = std::fs::read_to_string(dir.path().join("nodes.csv")).unwrap();
        let mut unzipped = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(dir.path().join("nodes.csv.gz")).unwrap())
            .read_to_string(&mut unzipped)
            .unwrap();
        assert_eq!(plain, unzipped);
        assert!(plain.contains("\"x,y\"") && plain.lines().count() == 5000);
        let err = write_with(&dir.path().join("absent"), "a.dot", false, |_| Ok(())).unwrap_err();
        assert!(format!("{err:#}").contains("a.dot"), "{err:#}");
    }
}
