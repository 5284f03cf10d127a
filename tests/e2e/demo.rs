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
    // The first screen explains itself: one harvest rate, and the recording's gaps are named
    // as such, not as the server's 404.
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(!summary.contains("http-404"), "{summary}");
    let harvest_line = summary
        .lines()
        .find(|l| l.trim_start().starts_with("harvest rate: "))
        .unwrap_or_else(|| panic!("no harvest rate in the summary:\n{summary}"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let rate = report["harvest_rate"].as_f64().unwrap();
    assert!(
        harvest_line.contains(&format!("{:.1} %", rate * 100.0)),
        "{harvest_line} / {rate}"
    );
    let (on_topic, pages) = (
        report["harvest"]["on_topic"].as_u64().unwrap(),
        report["harvest"]["pages"].as_u64().unwrap(),
    );
    assert!((rate - on_topic as f64 / pages as f64).abs() < 1e-12);
    let curve = report["harvest"]["curve"].as_array().unwrap();
    assert_eq!(
        curve.len() as u64,
        pages,
        "one point per page below 1,000 pages"
    );
    assert_eq!(curve.last().unwrap()["on_topic"].as_u64(), Some(on_topic));
    // report.html opens offline in Chromium and shows the same figures.
    let size = crate::browser::check_report_html(&out);
    assert!(size < 300_000, "{size} bytes");
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

    // The linguistic chain: the fallback tagger tags the TreeTagger file without retokenising
    // it, and `--from export` reads the lemmas back into a lemma matrix.
    let tagger = Command::new("python3")
        .arg(repo().join("scripts/tag-fallback"))
        .arg(&out)
        .output()
        .expect("python3 runs scripts/tag-fallback");
    assert!(
        tagger.status.success(),
        "scripts/tag-fallback failed (install its modules with `pip install -r scripts/requirements-tagger.txt`)\n{}",
        String::from_utf8_lossy(&tagger.stderr)
    );
    let tagged = std::fs::read_to_string(out.join("tagged/corpus.tagged")).unwrap();
    let tt_lines: Vec<&str> = tt.lines().collect();
    let tagged_lines: Vec<&str> = tagged.lines().collect();
    assert_eq!(tagged_lines.len(), tt_lines.len());
    for (tagged, token) in tagged_lines.iter().zip(&tt_lines) {
        if token.starts_with('<') {
            assert_eq!(tagged, token);
        } else {
            let columns: Vec<&str> = tagged.split('\t').collect();
            assert_eq!(columns.len(), 3, "{tagged}");
            assert_eq!(columns[0], *token);
        }
    }
    let output = glaneur()
        .current_dir(cwd.path())
        .args(["run", "--quiet", "--from", "export"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    assert!(out.join("matrix/lemma-counts.mtx").is_file());
    let check = Command::new("python3")
        .arg(repo().join("tests/check_exports.py"))
        .arg(&out)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success()
            && printed.contains("lemma matrix")
            && printed.contains("tagged vrt and conllu"),
        "{printed}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // Every table reads whole in R and pandas, every graph in networkx, lemma table included.
    let read = crate::readers::check_with_default_readers(&out, None);
    assert!(read.contains("matrix/lemma-vocab.tsv"), "{read}");

    crate::explore::queries_on_the_tagged_demo_find_what_the_vrt_holds(&out);
    crate::workbench::cqp_sketches_and_subcorpora_on_the_tagged_demo(&out);
}

#[test]
fn to_crawl_stops_before_extract_and_from_extract_goes_on() {
    let cwd = tempfile::tempdir().unwrap();
    let crawl_only = glaneur()
        .current_dir(cwd.path())
        .args(["run", "--quiet", "--to", "crawl"])
        .output()
        .unwrap();
    assert_exit(&crawl_only, 0);
    let out = cwd.path().join("corpora/demo/run");
    assert!(out.join("crawl.sqlite").exists());
    assert!(
        !out.join("docs.jsonl").exists(),
        "--to crawl ran the extract stage"
    );
    assert!(String::from_utf8_lossy(&crawl_only.stdout).contains("--from extract"));

    let rest = glaneur()
        .current_dir(cwd.path())
        .args(["run", "--quiet", "--from", "extract"])
        .output()
        .unwrap();
    assert_exit(&rest, 0);
    assert!(docs(&out).len() >= 50);
    assert!(out.join("graph/similarity.csv").exists());

    // Above `[similarity] max_documents`, the similarity graph is left out and the summary and
    // report.json say why; every other export is written.
    // The run's topic with every value written out; its recording is not needed after the
    // crawl.
    // `[output] formats` leaves token formats out: their folders go, the others are the same.
    let text = std::fs::read_to_string(out.join("topic.toml")).unwrap();
    assert!(text.contains("\nmax_documents = 50000\n"), "{text}");
    let start = text
        .find("\nformats = [")
        .expect("the run's topic lists its formats")
        + 1;
    let all_formats = &text[start..=start + text[start..].find(']').unwrap()];
    let listed: String = all_formats.split_whitespace().collect();
    assert_eq!(
        listed,
        "formats=[\"treetagger\",\"vrt\",\"conllu\",\"talismane\",\"txt\",]"
    );
    let vrt_before = std::fs::read(out.join("vrt/corpus.vrt")).unwrap();
    let conllu_before = std::fs::read(out.join("conllu/corpus.conllu")).unwrap();
    let without_vrt = text.replace(all_formats, "formats = [\"conllu\"]");
    std::fs::write(cwd.path().join("no-vrt.toml"), &without_vrt).unwrap();
    let refused = glaneur()
        .current_dir(cwd.path())
        .args(["check", "no-vrt.toml"])
        .output()
        .unwrap();
    assert_exit(&refused, 2);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("[output] `formats` must include \"vrt\""),
        "{said}"
    );
    let text: String = text
        .replace(all_formats, "formats = [\"vrt\", \"conllu\"]")
        .replace("\nmax_documents = 50000\n", "\nmax_documents = 10\n")
        .lines()
        .filter(|l| !l.starts_with("replay = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(cwd.path().join("capped.toml"), text).unwrap();
    let capped = glaneur()
        .current_dir(cwd.path())
        .args([
            "run",
            "capped.toml",
            "--out",
            "corpora/demo/run",
            "--from",
            "export",
        ])
        .output()
        .unwrap();
    assert_exit(&capped, 0);
    let printed = String::from_utf8_lossy(&capped.stdout);
    assert!(
        printed.contains("similarity graph not computed") && printed.contains("max_documents = 10"),
        "{printed}"
    );
    assert!(!out.join("graph/similarity.csv").exists());
    assert!(!out.join("graph/similarity.graphml").exists());
    assert!(out.join("graph/links.graphml").exists() && out.join("vrt/corpus.vrt").exists());
    for gone in ["treetagger", "talismane", "txt"] {
        assert!(
            !out.join(gone).exists(),
            "{gone}/ left beside the formats asked for"
        );
    }
    assert_eq!(
        std::fs::read(out.join("vrt/corpus.vrt")).unwrap(),
        vrt_before
    );
    assert_eq!(
        std::fs::read(out.join("conllu/corpus.conllu")).unwrap(),
        conllu_before
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(
        report["export"]["similarity_skipped"].is_string(),
        "{report}"
    );

    let backwards = glaneur()
        .current_dir(cwd.path())
        .args(["run", "--quiet", "--from", "export", "--to", "crawl"])
        .output()
        .unwrap();
    assert_exit(&backwards, 2);
}
