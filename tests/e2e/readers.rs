//! The exports open whole in the readers linguists have: R's `read.delim` and `read.csv`
//! (Debian's `r-base-core`), pandas' `read_table` and `read_csv`, networkx (`tests/requirements.txt`),
//! with their default arguments and with the ones docs/guide/exports.md gives. `tests/check_readers.py`
//! does the reading and the comparing; here, a fixture of hostile words and titles written by
//! glaneur's own writers, and the helper the demo test calls on its run folder.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use stages::export::delimited;
use stages::export::graph::{LinkEdge, LinkGraph, PageNode};
use stages::export::matrix::MatrixBuilder;
use stages::export::similarity::{self, SimilarityNode};
use stages::export::vertical::{self, DocMeta};

use crate::support::repo;

/// Runs `tests/check_readers.py` on `run` (with the fixture's own tables when `expected` is
/// given) and returns what it printed; panics with its message when a reader did not get what
/// glaneur wrote, or when R is missing.
pub fn check_with_default_readers(run: &Path, expected: Option<&Path>) -> String {
    let r = Command::new("Rscript").arg("--version").output();
    assert!(
        r.is_ok_and(|o| o.status.success()),
        "Rscript is needed to check that R reads the exports: apt-get install r-base-core \
         (scripts/test installs it)"
    );
    let mut check = Command::new("python3");
    check.arg(repo().join("tests/check_readers.py")).arg(run);
    if let Some(expected) = expected {
        check.arg(expected);
    }
    let output = check.output().expect("python3 runs tests/check_readers.py");
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "tests/check_readers.py failed (pandas and networkx: `pip install -r tests/requirements.txt`)\n{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    printed
}

/// Words a reader once split, merged, misaligned or took for a missing value. Each is a token
/// the matrix counts (at least one letter or digit; no whitespace).
const WORDS: [&str; 24] = [
    "\"calque\"",
    "d\"écraser",
    "système\">",
    "l'",
    "aujourd'hui",
    "#0000ff",
    "#N/A",
    "NA",
    "null",
    "NULL",
    "nan",
    "NaN",
    "None",
    "N/A",
    "n/a",
    "<NA>",
    "1.#IND",
    "doc",
    "X",
    "007",
    "1,5",
    "TRUE",
    "C:\\dossier",
    "écran",
];

/// (title, url) of the fixture's documents: quotes, apostrophes, `#`, missing-value words,
/// edge and inner whitespace, a tab, an empty title, markup characters.
const DOCS: [(&str, &str); 6] = [
    (
        "L'outil \"Texte\" : #1 des calques",
        "http://a.test/outil?q=\"x\"&y='z'#haut",
    ),
    ("NA", "http://a.test/na"),
    ("null", "http://b.test/null"),
    (" Avec  espaces ", "http://b.test/espaces"),
    ("Prix, taxes\tet <frais>", "http://b.test/prix,taxes"),
    ("", "http://c.test/sans-titre"),
];

fn table(header: &[&str], rows: Vec<Vec<String>>) -> serde_json::Value {
    let mut all = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    all.extend(rows);
    json!(all)
}

/// Writes the fixture into `dir` with glaneur's writers and returns the tables it holds.
fn write_fixture(dir: &Path) -> serde_json::Value {
    std::fs::create_dir_all(dir.join("matrix")).unwrap();
    std::fs::create_dir_all(dir.join("graph")).unwrap();
    let mut builder = MatrixBuilder::new(false);
    for (i, _) in DOCS.iter().enumerate() {
        // Every document holds some of the words, so every pair shares one.
        let words: Vec<&str> = WORDS.iter().copied().skip(i * 3).chain(["écran"]).collect();
        builder.add(&words);
    }
    let m = builder.filtered();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("matrix/counts.mtx", &m.to_matrix_market());
    write("matrix/vocab.tsv", &m.vocabulary_tsv());
    write("matrix/long.csv", &m.to_long_csv());
    write("matrix/dense.csv", &m.to_dense_csv(1_000_000).unwrap());
    let words: Vec<&str> = m.vocabulary().iter().map(|w| w.word).collect();
    let vocab = m
        .vocabulary()
        .iter()
        .enumerate()
        .map(|(j, w)| {
            vec![
                (j + 1).to_string(),
                w.word.to_string(),
                w.df.to_string(),
                w.count.to_string(),
            ]
        })
        .collect();
    let mut long = Vec::new();
    let mut dense = Vec::new();
    for i in 0..m.n_rows() {
        let mut counts = vec!["0".to_string(); m.n_cols()];
        for &(col, n) in m.row(i) {
            long.push(vec![
                (i + 1).to_string(),
                words[col as usize].to_string(),
                n.to_string(),
            ]);
            counts[col as usize] = n.to_string();
        }
        dense.push([vec![(i + 1).to_string()], counts].concat());
    }
    let mut dense_header = vec![""];
    dense_header.extend(&words);

    // docs.tsv as the export stage writes it (tabs and line breaks to spaces, then quoted),
    // metadata.csv by the TXM writer (whitespace collapsed).
    let mut docs_tsv = String::from("row\tid\turl\ttitle\n");
    let mut metadata = format!("{}\n", vertical::metadata_csv_header());
    let (mut docs_rows, mut meta_rows, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
    let host = |url: &'static str| url.split('/').nth(2).unwrap();
    let ids: Vec<String> = (1..=DOCS.len()).map(|i| format!("d{i:06}")).collect();
    for (i, &(title, url)) in DOCS.iter().enumerate() {
        let one_line = title.replace(['\t', '\n', '\r'], " ");
        let id = ids[i].as_str();
        docs_tsv.push_str(&format!(
            "{}\t{id}\t{}\t{}\n",
            i + 1,
            delimited::field(url, '\t'),
            delimited::field(&one_line, '\t')
        ));
        docs_rows.push(vec![(i + 1).to_string(), id.into(), url.into(), one_line]);
        let meta = DocMeta {
            id,
            url,
            title,
            lang: "fr",
            score: 0.5,
            host: host(url),
            date: None,
            seed: "topic",
        };
        metadata.push_str(&vertical::metadata_csv_row(&meta, 10 + i));
        metadata.push('\n');
        let collapsed = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let tokens = (10 + i).to_string();
        meta_rows.push(
            [
                id,
                url,
                collapsed.as_str(),
                host(url),
                "fr",
                "",
                "0.5",
                tokens.as_str(),
            ]
            .map(String::from)
            .to_vec(),
        );
        nodes.push(SimilarityNode {
            doc: id,
            title,
            url,
            host: host(url),
            language: "fr",
            score: 0.5,
        });
    }
    write("matrix/docs.tsv", &docs_tsv);
    write("metadata.csv", &metadata);
    let pairs = similarity::similar_pairs(&m, 0.0, None);
    assert!(!pairs.is_empty(), "the fixture's documents share words");
    write("graph/similarity.csv", &similarity::pairs_csv(&pairs));
    write(
        "graph/similarity.graphml",
        &similarity::pairs_graphml(&nodes, &pairs),
    );

    // The link graph with the same URLs, and anchors no reader may change.
    let pages = DOCS.iter().enumerate().map(|(i, &(_, url))| PageNode {
        id: i as i64 + 1,
        url: url.into(),
        host: host(url).into(),
        kept: true,
        reason: "kept".into(),
        ..PageNode::default()
    });
    let anchors = ["\"Texte\"", "l'outil", "#1", "NA", " lead", "a,b"];
    let links = anchors.iter().enumerate().map(|(i, anchor)| LinkEdge {
        source: i as i64 + 1,
        target: (i as i64 + 1) % DOCS.len() as i64 + 1,
        anchor: anchor.to_string(),
        count: 1,
    });
    let graph = LinkGraph::build(pages, links);
    write("graph/links.graphml", &graph.to_graphml());
    // edges.csv as the export stage writes it: the csv crate's RFC 4180 writer.
    let mut edges = csv::Writer::from_path(dir.join("graph/edges.csv")).unwrap();
    let edge_rows = graph.edge_rows();
    for row in &edge_rows {
        edges.write_record(row).unwrap();
    }
    edges.flush().unwrap();

    json!({
        "tables": {
            "matrix/vocab.tsv": table(&["col", "word", "df", "count"], vocab),
            "matrix/long.csv": table(&["doc", "word", "count"], long),
            "matrix/dense.csv": table(&dense_header, dense),
            "matrix/docs.tsv": table(&["row", "id", "url", "title"], docs_rows),
            "metadata.csv": table(&vertical::metadata_csv_header().split(',').collect::<Vec<_>>(), meta_rows),
            "graph/edges.csv": json!(edge_rows),
        },
        "similarity_nodes": DOCS.iter().zip(&ids).map(|(&(title, url), id)| {
            json!({"doc": id, "title": title, "url": url})
        }).collect::<Vec<_>>(),
    })
}

#[test]
fn r_pandas_and_networkx_read_hostile_words_and_titles_whole() {
    let dir = tempfile::tempdir().unwrap();
    let expected = write_fixture(dir.path());
    let vocab_rows = expected["tables"]["matrix/vocab.tsv"]
        .as_array()
        .unwrap()
        .len()
        - 1;
    assert_eq!(vocab_rows, WORDS.len(), "every hostile word is a column");
    let expected_path = dir.path().join("expected.json");
    std::fs::write(&expected_path, expected.to_string()).unwrap();
    let printed = check_with_default_readers(dir.path(), Some(&expected_path));
    println!("{printed}");
    assert!(
        printed.contains(&format!("matrix/vocab.tsv {vocab_rows}x4")),
        "{printed}"
    );
    // The quirks the guide documents are met, and only with the default arguments.
    for quirk in [
        "vocab.tsv read by R (default arguments): read as missing: 1, e.g. 'NA'",
        "vocab.tsv read by pandas (default arguments): read as missing: 11",
        "docs.tsv read by R (default arguments): read as missing: 1, e.g. 'NA'",
        "dense.csv read by R (default arguments): column renamed by check.names",
    ] {
        assert!(printed.contains(quirk), "{quirk}\n{printed}");
    }
    assert!(
        printed.contains("similarity.graphml 6 nodes with title and url"),
        "{printed}"
    );
}
