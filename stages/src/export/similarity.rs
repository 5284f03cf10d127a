//! Document similarity (seed 001's "logical" web) and its comparison with the hyperlink
//! ("physical") web.
//!
//! **In:** a filtered document × word count matrix ([`SparseMatrix`]), a threshold and an
//! optional top-k; for the comparison, the similarity pairs and the hyperlinks between the
//! same documents (0-based matrix rows).
//!
//! **Out:** the undirected similarity graph as `(i, j, cosine)` with `i < j`, sorted by
//! `(i, j)`, written as CSV or GraphML (nodes carry each document's title, URL, host,
//! language and score: [`SimilarityNode`]); a [`GraphComparison`] of the two graphs
//! (serialisable to `comparison.json`).
//!
//! **Invariants:** the weights are exactly scikit-learn's
//! `TfidfVectorizer(norm='l2', use_idf=True, smooth_idf=True, sublinear_tf=False)` on the same
//! matrix: `tf` = raw count (or `1 + ln(count)` with [`TermFrequency::Sublinear`], sklearn's
//! `sublinear_tf=True`), `idf = ln((1 + N) / (1 + df)) + 1` with `N` the number of rows (empty
//! documents included) and `df` counted in the matrix, rows L2-normalised; the cosine is the
//! dot product of two rows. The all-pairs computation never makes the `n²` pass: rows are
//! taken in order, each is scored against an inverted index (column → postings of the earlier
//! rows) by sparse accumulation, then added to the index, so the work is the number of
//! (row, row) pairs that share a word and memory is the non-zeros plus one accumulator of `n`
//! floats, plus the pairs kept. Pairs that share no word (cosine 0) are never reported.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::fmt::Write as _;

use crate::export::graph::{flush_piece, text_of, xml_escape};
use crate::export::matrix::SparseMatrix;

/// How a count becomes a term frequency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TermFrequency {
    /// The raw count (scikit-learn's default).
    #[default]
    Raw,
    /// `1 + ln(count)` (scikit-learn's `sublinear_tf=True`).
    Sublinear,
}

/// Which pairs [`similar_pairs_with`] keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarityOptions {
    /// Keep pairs whose cosine is at least this.
    pub threshold: f64,
    /// When set, keep a pair only if one of its documents has the other among its `k` most
    /// similar documents (ties broken by lower row); the graph is the union of these
    /// neighbourhoods, so a document can have more than `k` edges.
    pub top_k: Option<usize>,
    /// Term frequency.
    pub tf: TermFrequency,
}

/// The idf of every column: `ln((1 + n_rows) / (1 + df)) + 1`, df counted in `m`.
pub fn idf(m: &SparseMatrix) -> Vec<f64> {
    let mut df = vec![0u32; m.n_cols()];
    for i in 0..m.n_rows() {
        for &(col, _) in m.row(i) {
            if let Some(d) = df.get_mut(col as usize) {
                *d += 1;
            }
        }
    }
    let n = m.n_rows() as f64;
    df.iter()
        .map(|&d| ((1.0 + n) / (1.0 + f64::from(d))).ln() + 1.0)
        .collect()
}

/// Row `i` of the L2-normalised TF-IDF matrix, as `(column, weight)` sorted by column (empty
/// for an empty row).
pub fn tfidf_row(m: &SparseMatrix, idf: &[f64], tf: TermFrequency, i: usize) -> Vec<(u32, f64)> {
    let mut row: Vec<(u32, f64)> = m
        .row(i)
        .iter()
        .map(|&(col, count)| {
            let t = match tf {
                TermFrequency::Raw => f64::from(count),
                TermFrequency::Sublinear => 1.0 + f64::from(count).ln(),
            };
            (col, t * idf.get(col as usize).copied().unwrap_or(1.0))
        })
        .collect();
    let norm = row.iter().map(|&(_, w)| w * w).sum::<f64>().sqrt();
    if norm > 0.0 {
        for entry in &mut row {
            entry.1 /= norm;
        }
    }
    row
}

/// The similarity graph with raw tf: pairs `(i, j, cosine)`, `i < j`, cosine ≥ `threshold`,
/// optionally cut to each document's `top_k` neighbours (see [`SimilarityOptions`]).
pub fn similar_pairs(
    m: &SparseMatrix,
    threshold: f64,
    top_k: Option<usize>,
) -> Vec<(usize, usize, f64)> {
    similar_pairs_with(
        m,
        &SimilarityOptions {
            threshold,
            top_k,
            tf: TermFrequency::Raw,
        },
    )
}

/// A neighbour candidate in a top-k heap; the heap's top is the *worst* kept neighbour.
#[derive(Debug, Clone, Copy)]
struct Neighbour {
    sim: f64,
    other: u32,
}

impl Neighbour {
    /// Better neighbours compare as smaller (higher cosine, then lower row), so a max-heap
    /// keeps the worst on top, ready to be evicted.
    fn rank(&self, other: &Neighbour) -> Ordering {
        other
            .sim
            .total_cmp(&self.sim)
            .then(self.other.cmp(&other.other))
    }
}

impl PartialEq for Neighbour {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other) == Ordering::Equal
    }
}
impl Eq for Neighbour {}
impl PartialOrd for Neighbour {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Neighbour {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank(other)
    }
}

fn offer(heap: &mut BinaryHeap<Neighbour>, k: usize, candidate: Neighbour) {
    if heap.len() < k {
        heap.push(candidate);
    } else if let Some(worst) = heap.peek()
        && candidate < *worst
    {
        heap.pop();
        heap.push(candidate);
    }
}

/// The similarity graph (see [`similar_pairs`]) with every option.
pub fn similar_pairs_with(
    m: &SparseMatrix,
    options: &SimilarityOptions,
) -> Vec<(usize, usize, f64)> {
    let n = m.n_rows();
    let idf = idf(m);
    let mut postings: Vec<Vec<(u32, f64)>> = vec![Vec::new(); m.n_cols()];
    let mut acc = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
    let mut heaps: Vec<BinaryHeap<Neighbour>> = match options.top_k {
        Some(_) => vec![BinaryHeap::new(); n],
        None => Vec::new(),
    };
    for i in 0..n {
        let row = tfidf_row(m, &idf, options.tf, i);
        for &(col, w) in &row {
            let Some(list) = postings.get(col as usize) else {
                continue;
            };
            for &(j, v) in list {
                let slot = &mut acc[j as usize];
                if *slot == 0.0 {
                    touched.push(j);
                }
                // Weights are positive, so a touched slot never returns to 0.0.
                *slot += w * v;
            }
        }
        for &j in &touched {
            let sim = acc[j as usize];
            acc[j as usize] = 0.0;
            // A NaN threshold keeps nothing.
            if sim
                .partial_cmp(&options.threshold)
                .is_none_or(Ordering::is_lt)
            {
                continue;
            }
            match options.top_k {
                None => pairs.push((j as usize, i, sim)),
                Some(k) => {
                    offer(&mut heaps[i], k, Neighbour { sim, other: j });
                    offer(
                        &mut heaps[j as usize],
                        k,
                        Neighbour {
                            sim,
                            other: i as u32,
                        },
                    );
                }
            }
        }
        touched.clear();
        for (col, w) in row {
            if let Some(list) = postings.get_mut(col as usize) {
                list.push((i as u32, w));
            }
        }
    }
    if options.top_k.is_some() {
        for (i, heap) in heaps.into_iter().enumerate() {
            for nb in heap {
                let j = nb.other as usize;
                pairs.push((i.min(j), i.max(j), nb.sim));
            }
        }
        // Both ends may have kept the pair; the cosine is the same value from either end.
        pairs.sort_by_key(|p| (p.0, p.1));
        pairs.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
    } else {
        pairs.sort_by_key(|p| (p.0, p.1));
    }
    pairs
}

/// The similarity graph as CSV `source,target,similarity` (1-based rows, the Matrix Market
/// rows), with a header.
pub fn pairs_csv(pairs: &[(usize, usize, f64)]) -> String {
    text_of(|w| write_pairs_csv(pairs, w))
}

/// [`pairs_csv`] into a writer, a piece at a time.
///
/// # Errors
/// The writer's.
pub fn write_pairs_csv(
    pairs: &[(usize, usize, f64)],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = String::with_capacity(1 << 17);
    out.push_str("source,target,similarity\r\n");
    for &(i, j, s) in pairs {
        let _ = write!(out, "{},{},{s}\r\n", i + 1, j + 1);
        flush_piece(&mut out, w)?;
    }
    w.write_all(out.as_bytes())
}

/// What the similarity graph says about a document: its node's attributes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SimilarityNode<'a> {
    /// The document id of `docs.jsonl` and `docs.tsv` (`d000012`).
    pub doc: &'a str,
    /// Title (may be empty: the label is then the URL).
    pub title: &'a str,
    /// URL.
    pub url: &'a str,
    /// Host name.
    pub host: &'a str,
    /// Detected language (empty when unknown).
    pub language: &'a str,
    /// Topic score (left out when not finite).
    pub score: f64,
}

/// GraphML node attributes of [`pairs_graphml`]: (key and name, type).
const NODE_KEYS: [(&str, &str); 7] = [
    ("label", "string"),
    ("doc", "string"),
    ("title", "string"),
    ("url", "string"),
    ("host", "string"),
    ("language", "string"),
    ("score", "double"),
];

/// The similarity graph as undirected GraphML: one node per document, id `1..=n` (1-based
/// rows, as in `similarity.csv` and `docs.tsv`), with the attributes `label` (the title, or
/// the URL when the title is empty: Gephi shows it as the node's label), `doc`, `title`,
/// `url`, `host`, `language` and `score`, each declared by a typed `<key>`; one edge per pair
/// with the cosine as `similarity` and again as `weight` (the edge weight Gephi and networkx's
/// algorithms use). The document id is `doc`, not `id`, which igraph keeps for the GraphML
/// node id. Pairs naming a row ≥ `nodes.len()` are left out so every edge's endpoints are
/// nodes; absent values (an empty string, a non-finite score) are omitted, as in
/// `links.graphml`.
pub fn pairs_graphml(nodes: &[SimilarityNode<'_>], pairs: &[(usize, usize, f64)]) -> String {
    text_of(|w| write_pairs_graphml(nodes, pairs, w))
}

/// [`pairs_graphml`] into a writer, a piece at a time.
///
/// # Errors
/// The writer's.
pub fn write_pairs_graphml(
    nodes: &[SimilarityNode<'_>],
    pairs: &[(usize, usize, f64)],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let n_docs = nodes.len();
    let mut out = String::with_capacity(1 << 17);
    out.push_str(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n",
    );
    for (key, ty) in NODE_KEYS {
        let _ = writeln!(
            out,
            "  <key id=\"{key}\" for=\"node\" attr.name=\"{key}\" attr.type=\"{ty}\"/>"
        );
    }
    out.push_str(
        "  <key id=\"similarity\" for=\"edge\" attr.name=\"similarity\" attr.type=\"double\"/>\n  \
         <key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n  \
         <graph id=\"similarity\" edgedefault=\"undirected\">\n",
    );
    for (i, node) in nodes.iter().enumerate() {
        let _ = writeln!(out, "    <node id=\"{}\">", i + 1);
        let label = if node.title.trim().is_empty() {
            node.url
        } else {
            node.title
        };
        let mut text = |key: &str, value: &str| {
            let _ = writeln!(
                out,
                "      <data key=\"{key}\">{}</data>",
                xml_escape(value)
            );
        };
        text("label", label);
        for (key, value) in [
            ("doc", node.doc),
            ("title", node.title),
            ("url", node.url),
            ("host", node.host),
            ("language", node.language),
        ] {
            if !value.is_empty() {
                text(key, value);
            }
        }
        if node.score.is_finite() {
            let _ = writeln!(out, "      <data key=\"score\">{}</data>", node.score);
        }
        out.push_str("    </node>\n");
        flush_piece(&mut out, w)?;
    }
    for &(i, j, s) in pairs {
        if i < n_docs && j < n_docs {
            let _ = writeln!(
                out,
                "    <edge source=\"{}\" target=\"{}\"><data key=\"similarity\">{s}</data>\
                 <data key=\"weight\">{s}</data></edge>",
                i + 1,
                j + 1
            );
            flush_piece(&mut out, w)?;
        }
    }
    out.push_str("  </graph>\n</graphml>\n");
    w.write_all(out.as_bytes())
}

/// How well the hyperlink graph matches the similarity graph (both undirected, over the same
/// `n_docs` documents). Ratios that would divide by zero are `None` (`null` in JSON).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GraphComparison {
    /// Documents (nodes of both graphs).
    pub n_docs: usize,
    /// Distinct undirected similarity edges.
    pub edges_similarity: usize,
    /// Distinct undirected hyperlink edges (a link both ways counts once).
    pub edges_hyperlink: usize,
    /// Edges present in both graphs.
    pub overlap: usize,
    /// `overlap / |union|`.
    pub jaccard: Option<f64>,
    /// Pearson correlation of node degrees in the two graphs (`None` when either degree
    /// sequence is constant).
    pub degree_correlation: Option<f64>,
    /// Share of hyperlinked pairs that are also similar: `overlap / edges_hyperlink`.
    pub share_hyperlinked_pairs_similar: Option<f64>,
    /// Share of similar pairs that are also hyperlinked: `overlap / edges_similarity`.
    pub share_similar_pairs_hyperlinked: Option<f64>,
    /// Input edges dropped: self-loops and endpoints ≥ `n_docs`.
    pub ignored_edges: usize,
}

/// Compares the similarity graph with the hyperlink graph (0-based rows; hyperlinks may be
/// directed and repeated, they are made undirected and deduplicated).
pub fn compare_graphs(
    n_docs: usize,
    similarity: &[(usize, usize, f64)],
    hyperlinks: &[(usize, usize)],
) -> GraphComparison {
    let mut ignored = 0;
    let mut edge_set = |edges: &mut dyn Iterator<Item = (usize, usize)>| {
        let mut set = HashSet::new();
        for (a, b) in edges {
            if a == b || a >= n_docs || b >= n_docs {
                ignored += 1;
            } else {
                set.insert((a.min(b), a.max(b)));
            }
        }
        set
    };
    let sim = edge_set(&mut similarity.iter().map(|&(i, j, _)| (i, j)));
    let links = edge_set(&mut hyperlinks.iter().copied());
    let overlap = sim.intersection(&links).count();
    let union = sim.len() + links.len() - overlap;
    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
    let degrees = |set: &HashSet<(usize, usize)>| {
        let mut d = vec![0f64; n_docs];
        for &(a, b) in set {
            d[a] += 1.0;
            d[b] += 1.0;
        }
        d
    };
    GraphComparison {
        n_docs,
        edges_similarity: sim.len(),
        edges_hyperlink: links.len(),
        overlap,
        jaccard: ratio(overlap, union),
        degree_correlation: pearson(&degrees(&sim), &degrees(&links)),
        share_hyperlinked_pairs_similar: ratio(overlap, links.len()),
        share_similar_pairs_hyperlinked: ratio(overlap, sim.len()),
        ignored_edges: ignored,
    }
}

/// Pearson's r, `None` when fewer than two values or a constant sequence.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mx, my) = (
        x[..n].iter().sum::<f64>() / n as f64,
        y[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x[..n].iter().zip(&y[..n]) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::matrix::{MatrixBuilder, MatrixOptions};

    /// xorshift64*: a tiny seeded generator, so the tests need no `rand`.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A random corpus: `n` documents of 0..`max_len` words drawn with a skewed distribution
    /// from `vocab` words, so some words are frequent and some documents empty.
    fn random_matrix(seed: u64, n: usize, vocab: u64, max_len: u64) -> SparseMatrix {
        let mut rng = XorShift(seed);
        let mut m = MatrixBuilder::new(false);
        for _ in 0..n {
            let len = rng.below(max_len);
            let doc: Vec<String> = (0..len)
                .map(|_| {
                    let a = rng.below(vocab);
                    let b = rng.below(vocab);
                    format!("w{}", a.min(b))
                })
                .collect();
            m.add(&doc);
        }
        m.filtered()
    }

    fn brute_force(m: &SparseMatrix, tf: TermFrequency) -> Vec<Vec<f64>> {
        let idf = idf(m);
        let rows: Vec<Vec<f64>> = (0..m.n_rows())
            .map(|i| {
                let mut dense = vec![0.0; m.n_cols()];
                for (c, w) in tfidf_row(m, &idf, tf, i) {
                    dense[c as usize] = w;
                }
                dense
            })
            .collect();
        rows.iter()
            .map(|a| {
                rows.iter()
                    .map(|b| a.iter().zip(b).map(|(x, y)| x * y).sum())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn matches_brute_force_with_threshold() {
        for (seed, tf) in [(7, TermFrequency::Raw), (11, TermFrequency::Sublinear)] {
            let m = random_matrix(seed, 120, 300, 40);
            let full = brute_force(&m, tf);
            for threshold in [1e-12, 0.1, 0.3] {
                let got = similar_pairs_with(
                    &m,
                    &SimilarityOptions {
                        threshold,
                        top_k: None,
                        tf,
                    },
                );
                let mut want = Vec::new();
                for (i, row) in full.iter().enumerate() {
                    for (j, &s) in row.iter().enumerate().skip(i + 1) {
                        if s >= threshold && s > 0.0 {
                            want.push((i, j, s));
                        }
                    }
                }
                assert!(want.len() > 10, "test corpus too sparse: {}", want.len());
                // Equal sets, up to summation-order rounding at the threshold itself.
                let key = |v: &[(usize, usize, f64)]| -> Vec<(usize, usize)> {
                    v.iter()
                        .filter(|p| (p.2 - threshold).abs() > 1e-9)
                        .map(|p| (p.0, p.1))
                        .collect()
                };
                assert_eq!(key(&got), key(&want));
                for &(i, j, s) in &got {
                    assert!(i < j);
                    assert!((s - full[i][j]).abs() < 1e-12);
                }
            }
        }
    }

    /// Documents that recombine a few shared "paragraphs", as pages of one site do: many pairs
    /// at high cosines, every document sharing the frequent words.
    fn recombined_matrix(seed: u64, n: usize) -> SparseMatrix {
        let mut rng = XorShift(seed);
        let paragraphs: Vec<Vec<String>> = (0..25)
            .map(|_| {
                (0..12)
                    .map(|_| format!("w{}", rng.below(400).min(rng.below(400))))
                    .collect()
            })
            .collect();
        let mut m = MatrixBuilder::new(false);
        for _ in 0..n {
            let doc: Vec<String> = (0..1 + rng.below(4))
                .flat_map(|_| paragraphs[rng.below(25) as usize].clone())
                .collect();
            m.add(&doc);
        }
        m.filtered()
    }

    #[test]
    fn finds_every_pair_at_high_thresholds() {
        for (seed, tf) in [(5, TermFrequency::Raw), (9, TermFrequency::Sublinear)] {
            let m = recombined_matrix(seed, 150);
            let full = brute_force(&m, tf);
            for threshold in [0.2, 0.5, 0.7, 0.9, 0.99] {
                for top_k in [None, Some(2)] {
                    let got = similar_pairs_with(
                        &m,
                        &SimilarityOptions {
                            threshold,
                            top_k,
                            tf,
                        },
                    );
                    let mut want = Vec::new();
                    for (i, row) in full.iter().enumerate() {
                        for (j, &s) in row.iter().enumerate().skip(i + 1) {
                            if s >= threshold {
                                want.push((i, j));
                            }
                        }
                    }
                    assert!(
                        want.len() > 20,
                        "too few pairs at {threshold}: {}",
                        want.len()
                    );
                    let near = |i: usize, j: usize| (full[i][j] - threshold).abs() < 1e-9;
                    let got_pairs: Vec<(usize, usize)> = got
                        .iter()
                        .filter(|p| !near(p.0, p.1))
                        .map(|p| (p.0, p.1))
                        .collect();
                    for &(i, j, s) in &got {
                        assert!((s - full[i][j]).abs() < 1e-12);
                    }
                    match top_k {
                        None => {
                            let want: Vec<_> =
                                want.into_iter().filter(|&(i, j)| !near(i, j)).collect();
                            assert_eq!(got_pairs, want, "threshold {threshold}, {tf:?}");
                        }
                        Some(k) => {
                            for &(i, j) in &got_pairs {
                                assert!(full[i][j] >= threshold, "{i} {j}");
                            }
                            let mut brute: HashSet<(usize, usize)> = HashSet::new();
                            for (i, row) in full.iter().enumerate() {
                                let mut nbs: Vec<(usize, f64)> = row
                                    .iter()
                                    .enumerate()
                                    .filter(|&(j, &s)| j != i && s >= threshold)
                                    .map(|(j, &s)| (j, s))
                                    .collect();
                                nbs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                                for &(j, _) in nbs.iter().take(k) {
                                    brute.insert((i.min(j), i.max(j)));
                                }
                            }
                            // Neighbour ties at equal cosines may resolve either way after
                            // rounding: compare pairs whose cosine is not tied in its row.
                            let got_set: HashSet<_> = got.iter().map(|p| (p.0, p.1)).collect();
                            let diff: Vec<_> = got_set.symmetric_difference(&brute).collect();
                            assert!(
                                diff.iter().all(|&&(i, j)| {
                                    full[i].iter().chain(&full[j]).enumerate().any(|(x, &s)| {
                                        x % full.len() != i
                                            && x % full.len() != j
                                            && (s - full[i][j]).abs() < 1e-9
                                    })
                                }),
                                "top-{k} at {threshold}: {diff:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn matches_brute_force_top_k() {
        let m = random_matrix(3, 80, 200, 30);
        let full = brute_force(&m, TermFrequency::Raw);
        let k = 3;
        let got = similar_pairs(&m, 0.05, Some(k));
        let mut want = HashSet::new();
        for (i, row) in full.iter().enumerate() {
            let mut nbs: Vec<(usize, f64)> = row
                .iter()
                .enumerate()
                .filter(|&(j, &s)| j != i && s >= 0.05 && s > 0.0)
                .map(|(j, &s)| (j, s))
                .collect();
            nbs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            for &(j, _) in nbs.iter().take(k) {
                want.insert((i.min(j), i.max(j)));
            }
        }
        let got_set: HashSet<_> = got.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(got_set.len(), got.len(), "duplicates in output");
        assert_eq!(got_set, want);
        assert!(got.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
    }

    #[test]
    fn tfidf_matches_sklearn_formula_by_hand() {
        // sklearn: docs "a a b", "b c", ""  -> N = 3, df(a)=1, df(b)=2, df(c)=1.
        let mut b = MatrixBuilder::with_options(MatrixOptions::default()).unwrap();
        b.add(&["a", "a", "b"]);
        b.add(&["b", "c"]);
        b.add::<&str>(&[]);
        let m = b.filtered();
        let idf_v = idf(&m);
        // Column order: b (df 2), a, c.
        let (ib, ia) = ((4.0f64 / 3.0).ln() + 1.0, 2.0f64.ln() + 1.0);
        assert!((idf_v[0] - ib).abs() < 1e-15 && (idf_v[1] - ia).abs() < 1e-15);
        let r0 = tfidf_row(&m, &idf_v, TermFrequency::Raw, 0);
        let norm = ((2.0 * ia).powi(2) + ib * ib).sqrt();
        assert!((r0[0].1 - ib / norm).abs() < 1e-15);
        assert!((r0[1].1 - 2.0 * ia / norm).abs() < 1e-15);
        let r1 = tfidf_row(&m, &idf_v, TermFrequency::Raw, 1);
        let pairs = similar_pairs(&m, 0.0, None);
        assert_eq!(pairs.len(), 1);
        assert!((pairs[0].2 - r0[0].1 * r1[0].1).abs() < 1e-15);
        assert!(tfidf_row(&m, &idf_v, TermFrequency::Raw, 2).is_empty());
    }

    #[test]
    fn identical_documents_have_cosine_one() {
        let mut b = MatrixBuilder::new(true);
        b.add(&["Le", "chat", "dort"]);
        b.add(&["le", "CHAT", "dort"]);
        b.add(&["un", "chien"]);
        let pairs = similar_pairs(&b.filtered(), 0.5, Some(1));
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
        assert!((pairs[0].2 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn compares_graphs() {
        let sim = [(0, 1, 0.9), (1, 2, 0.6), (2, 3, 0.7)];
        // 1->0 and 0->1 are one edge; self-loop and out-of-range ignored.
        let links = [(1, 0), (0, 1), (3, 2), (0, 4), (2, 2), (0, 9)];
        let c = compare_graphs(5, &sim, &links);
        assert_eq!(c.edges_similarity, 3);
        assert_eq!(c.edges_hyperlink, 3);
        assert_eq!(c.overlap, 2);
        assert_eq!(c.ignored_edges, 2);
        assert_eq!(c.jaccard, Some(0.5));
        assert_eq!(c.share_hyperlinked_pairs_similar, Some(2.0 / 3.0));
        assert_eq!(c.share_similar_pairs_hyperlinked, Some(2.0 / 3.0));
        // Degrees: sim [1,2,2,1,0], links [2,1,1,1,1].
        // Pearson by hand: sxy = -0.2, sxx = 2.8, syy = 0.8.
        let r = c.degree_correlation.unwrap();
        assert!((r - (-0.2 / (2.8f64 * 0.8).sqrt())).abs() < 1e-12);
        let empty = compare_graphs(3, &[], &[]);
        assert_eq!(empty.jaccard, None);
        assert_eq!(empty.degree_correlation, None);
        let json = serde_json::to_string(&empty).unwrap();
        assert!(json.contains("\"jaccard\":null"));
    }

    #[test]
    fn pearson_known_values() {
        assert_eq!(pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]), Some(1.0));
        assert_eq!(pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(pearson(&[1.0, 1.0], &[3.0, 2.0]), None);
    }

    #[test]
    fn writes_csv_and_graphml() {
        let pairs = [(0, 2, 0.5)];
        assert_eq!(pairs_csv(&pairs), "source,target,similarity\r\n1,3,0.5\r\n");
        let nodes = [
            SimilarityNode {
                doc: "d1",
                title: "L'outil \"Texte\" & <calques>",
                url: "http://a.test/?x=1&y=2",
                host: "a.test",
                language: "fr",
                score: 0.75,
            },
            SimilarityNode {
                doc: "d2",
                title: " ",
                url: "http://a.test/sans-titre",
                host: "a.test",
                language: "",
                score: f64::NAN,
            },
            SimilarityNode {
                doc: "d3",
                title: "NA",
                ..SimilarityNode::default()
            },
        ];
        let g = pairs_graphml(&nodes, &[(0, 2, 0.5), (1, 7, 0.9)]);
        assert!(
            g.contains("<key id=\"title\" for=\"node\" attr.name=\"title\" attr.type=\"string\"/>")
        );
        assert!(g.contains(
            "<key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>"
        ));
        assert!(g.contains(
            "<node id=\"1\">\n      <data key=\"label\">L&apos;outil &quot;Texte&quot; &amp; &lt;calques&gt;</data>\n      \
             <data key=\"doc\">d1</data>\n"
        ));
        assert!(g.contains("<data key=\"url\">http://a.test/?x=1&amp;y=2</data>"));
        assert!(g.contains("<data key=\"score\">0.75</data>"));
        // A blank title: the URL is the label; absent values are left out.
        assert!(g.contains(
            "<node id=\"2\">\n      <data key=\"label\">http://a.test/sans-titre</data>"
        ));
        assert_eq!(g.matches("<data key=\"language\">").count(), 1);
        assert_eq!(g.matches("<data key=\"score\">").count(), 2);
        assert_eq!(g.matches("<node id=").count(), 3);
        assert!(g.contains(
            "source=\"1\" target=\"3\"><data key=\"similarity\">0.5</data><data key=\"weight\">0.5<"
        ));
        assert!(!g.contains("target=\"8\""));
    }
}
