//! `glaneur batch`: the three planted-vocabulary topics of `compare.rs` crawled together, with
//! different delays, on a web whose shared site all three use. The server's log must show every
//! URL requested once across the topics and every server's gaps at least the largest delay of
//! the topics whose `[domains]` hold it (each topic's own site: its delay; the shared site: the
//! largest); each topic's corpus must be the one its single run gives; the batch's comparison
//! must find each topic's planted words. One topic is crawled alone first: what it stored is
//! read back for the others; started again, the batch resumes without asking again. A batch
//! killed with kill -9 mid-crawl and started again gives the single runs' corpora, asking again
//! at most the requests that were in flight.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::compare::{TOPICS, build_web, check_planted_keywords, csv_rows};
use crate::resume::wait_for_pages;
use crate::server::TestWeb;
use crate::support::{assert_exit, docs, glaneur, per_host, run_topic};

const DELAYS: [f64; 3] = [0.15, 0.1, 0.05];

/// (URL, clean-text digest) of every document of a run folder.
fn corpus(run: &Path) -> BTreeSet<(String, String)> {
    docs(run)
        .iter()
        .map(|d| {
            (
                d["url"].as_str().unwrap().to_string(),
                d["md5"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Each topic run on its own (into `work/single/<name>`), on a server of its own: the corpora,
/// and the requests the three runs made.
fn single_runs(
    web_dir: &Path,
    topics: &[PathBuf],
    work: &Path,
) -> (Vec<BTreeSet<(String, String)>>, usize) {
    let web = TestWeb::start(web_dir);
    let corpora = topics
        .iter()
        .zip(TOPICS)
        .map(|(topic, (name, _, _))| {
            let out = work.join("single").join(name);
            assert_exit(&run_topic(topic, &out, &web.proxy(), &[]), 0);
            corpus(&out)
        })
        .collect();
    (corpora, web.log().len())
}

/// `glaneur batch TOPICS --runs RUNS --out OUT --proxy PROXY`.
fn batch_command(topics: &[PathBuf], runs: &Path, out: &Path, proxy: &str) -> Command {
    let mut cmd = glaneur();
    cmd.arg("batch")
        .args(topics)
        .arg("--runs")
        .arg(runs)
        .arg("--out")
        .arg(out)
        .arg("--proxy")
        .arg(proxy);
    cmd
}

#[test]
fn batch_fetches_each_url_once_politely_and_gives_the_single_runs_corpora() {
    let web_dir = tempfile::tempdir().unwrap();
    let topics = build_web(web_dir.path(), DELAYS);
    let work = tempfile::tempdir().unwrap();

    let (singles, single_requests) = single_runs(web_dir.path(), &topics, work.path());

    // The batch, on another server.
    let web = TestWeb::start(web_dir.path());
    let runs = work.path().join("runs");
    let out = work.path().join("batch");
    let batch = || {
        batch_command(&topics, &runs, &out, &web.proxy())
            .output()
            .unwrap()
    };
    // The first topic was crawled on its own before: the batch resumes its finished run, and
    // what that run stored is read back for the other topics instead of being asked again.
    assert_exit(
        &run_topic(&topics[0], &runs.join(TOPICS[0].0), &web.proxy(), &[]),
        0,
    );
    let before_batch = web.log().len();
    let first = batch();
    assert_exit(&first, 0);
    let log = web.log();
    println!(
        "the first topic alone, then the batch: {} requests; the three single runs: \
         {single_requests}",
        log.len()
    );

    // Every URL once across the topics and the two processes (robots.txt files are not stored
    // with the pages: the batch reads them again, once).
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for hit in &log {
        let robots = usize::from(hit.path == "/robots.txt");
        *seen
            .entry((hit.host.clone(), hit.path.clone()))
            .or_default() += 1 - robots;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
    assert!(
        log.len() < single_requests,
        "{} ≥ {single_requests}",
        log.len()
    );

    // One request at a time per server, and between two the largest delay of the topics
    // whose [domains] hold it: each topic's own site and the shared one.
    for (host, hits) in per_host(&log[before_batch..]) {
        let largest = TOPICS
            .iter()
            .zip(DELAYS)
            .filter(|((_, own, _), _)| host == *own || host == "mix.test")
            .map(|(_, d)| d)
            .fold(0.0, f64::max);
        assert!(largest > 0.0, "{host}");
        for pair in hits.windows(2) {
            let gap = pair[1].start.saturating_duration_since(pair[0].end);
            assert!(
                pair[1].start >= pair[0].end && gap >= Duration::from_secs_f64(largest),
                "{host}: gap {gap:?} < {largest} s between {} and {}",
                pair[0].path,
                pair[1].path
            );
        }
    }

    // Each topic's corpus is its single run's.
    for ((name, _, _), single) in TOPICS.iter().zip(&singles) {
        let batch_corpus = corpus(&runs.join(name));
        assert_eq!(&batch_corpus, single, "{name}: the batch's corpus differs");
    }

    // The counts the batch reports agree with the server.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("batch.json")).unwrap()).unwrap();
    let n = |key: &str| report["requests"][key].as_u64().unwrap();
    assert_eq!(n("fetched"), (log.len() - before_batch) as u64, "{report}");
    assert_eq!(
        n("asked"),
        n("fetched") + n("reused") + n("stored"),
        "{report}"
    );
    assert!(n("reused") > 0, "{report}");
    // The shared site's index and three of its pages at least came from the first topic's
    // WARC file.
    assert!(n("stored") >= 4, "{report}");

    // The comparison: each topic's planted words are its keywords against the others.
    check_planted_keywords(&out);
    assert_eq!(csv_rows(&out.join("compare.csv")).len(), 3);
    assert!(out.join("compare.html").is_file());

    // Started again: every topic resumes its finished run, and no page is asked again.
    let again = batch();
    assert_exit(&again, 0);
    let pages_again: Vec<String> = web.log()[log.len()..]
        .iter()
        .filter(|h| h.path != "/robots.txt")
        .map(|h| format!("{}{}", h.host, h.path))
        .collect();
    assert!(
        pages_again.is_empty(),
        "asked again on resume: {pages_again:?}"
    );
}

#[test]
fn batch_refuses_bad_topics_before_running_any() {
    let web_dir = tempfile::tempdir().unwrap();
    let topics = build_web(web_dir.path(), DELAYS);
    let broken = web_dir.path().join("broken.toml");
    std::fs::write(&broken, "name = \"broken\"\n[crawl]\nmax_pages = -3\n").unwrap();
    let web = TestWeb::start(web_dir.path());
    let output = glaneur()
        .arg("batch")
        .arg(&topics[0])
        .arg(&broken)
        .arg("--runs")
        .arg(web_dir.path().join("runs"))
        .arg("--out")
        .arg(web_dir.path().join("batch"))
        .arg("--proxy")
        .arg(web.proxy())
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("broken.toml"), "{stderr}");
    assert!(web.log().is_empty(), "a request was made: {:?}", web.log());
    assert!(!web_dir.path().join("runs").exists());

    // One topic only.
    let one = glaneur()
        .arg("batch")
        .arg(&topics[0])
        .arg("--out")
        .arg(web_dir.path().join("batch"))
        .output()
        .unwrap();
    assert_exit(&one, 2);
    assert!(String::from_utf8_lossy(&one.stderr).contains("at least two topics"));
}

#[test]
fn a_batch_killed_mid_crawl_resumes_to_the_single_runs_corpora() {
    let web_dir = tempfile::tempdir().unwrap();
    let topics = build_web(web_dir.path(), DELAYS);
    let work = tempfile::tempdir().unwrap();
    let (singles, _) = single_runs(web_dir.path(), &topics, work.path());

    let web = TestWeb::start(web_dir.path());
    let runs = work.path().join("runs");
    let out = work.path().join("batch");
    let batch = || batch_command(&topics, &runs, &out, &web.proxy());
    let mut child = batch()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_pages(&web, 15);
    // kill -9: no topic has a chance to flush anything.
    child.kill().unwrap();
    child.wait().unwrap();
    let before: usize = web.log().len();

    assert_exit(&batch().output().unwrap(), 0);
    for ((name, _, _), single) in TOPICS.iter().zip(&singles) {
        assert_eq!(
            &corpus(&runs.join(name)),
            single,
            "{name}: the resumed batch's corpus differs"
        );
    }
    // Asked twice: at most the requests in flight at the kill, one per server (four servers).
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for hit in web.log().iter().filter(|h| h.path != "/robots.txt") {
        *counts
            .entry(format!("{}{}", hit.host, hit.path))
            .or_default() += 1;
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.len() <= 4,
        "asked again after the kill ({before} requests before it): {twice:?}"
    );
}
