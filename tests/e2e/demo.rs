//! The README's first command: `glaneur run` with no arguments, offline, on the embedded demo.

use std::process::Command;

use crate::support::*;

#[test]
fn demo_runs_offline_and_keeps_only_on_topic_french_documents() {
    let cwd = tempfile::tempdir().unwrap();
    // An unreachable proxy in the environment: the demo must not need the network at all.
    let output = glaneur()
        .current_dir(cwd.path())
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let out = cwd.path().join("corpora/demo/run");
    let docs = docs(&out);
    assert!(docs.len() >= 50, "{} documents", docs.len());
    for doc in &docs {
        assert_eq!(doc["language"], "fr", "{}", doc["url"]);
        assert!(
            !doc["matched"].as_array().unwrap().is_empty(),
            "{}",
            doc["url"]
        );
        let host = doc["host"].as_str().unwrap();
        assert!(host.ends_with(".test"), "{host}");
    }
    // The formula: GIMP pages in, LilyPond score pages out.
    // (on token boundaries: "répartition" is not "partition*")
    for doc in &docs {
        let text = doc["paragraphs"].to_string().to_lowercase();
        assert!(
            !text
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w.starts_with("partition")),
            "{}",
            doc["url"]
        );
    }
    let tt = std::fs::read_to_string(out.join("treetagger/corpus.tt")).unwrap();
    let (n_docs, _) = check_treetagger(&tt);
    assert_eq!(n_docs, docs.len());
    let (rows, _, _) = check_matrix(&out);
    assert_eq!(rows, docs.len());

    // The exports load in the tools linguists use (networkx, SciPy) with counts that agree
    // with crawl.sqlite.
    let check = Command::new("python3")
        .arg(repo().join("tests/check_exports.py"))
        .arg(&out)
        .output()
        .expect("python3 is needed for the export checks");
    assert!(
        check.status.success(),
        "tests/check_exports.py failed (install its modules with `pip install -r tests/requirements.txt`)\n{}\n{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}
