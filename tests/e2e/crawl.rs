//! The `basic` scenario: a French web about graphs on five hosts (robots rules, a redirect, a
//! 404, two PDFs (one known by its extension), an off-topic site, an English page, an off-domain link).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::server::TestWeb;
use crate::support::*;

#[test]
fn basic_crawl_is_polite_and_produces_every_artefact() {
    let web = TestWeb::start(&scenario("basic"));
    let out = tempfile::tempdir().unwrap();
    let output = run_topic(
        &scenario("basic").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &[],
    );
    assert_exit(&output, 0);
    let log = web.log();

    // Who we are: name, version and the topic's contact, on every request.
    for hit in &log {
        assert!(hit.user_agent.starts_with("glaneur/"), "{hit:?}");
        assert!(
            hit.user_agent.contains("mailto:test@example.org"),
            "{hit:?}"
        );
    }
    // Never outside [domains], never a path robots.txt disallows.
    assert!(log.iter().all(|h| h.host.ends_with(".test")), "{log:?}");
    assert!(
        !log.iter().any(|h| h.path.starts_with("/prive/")),
        "{log:?}"
    );

    for (host, hits) in per_host(&log) {
        // robots.txt before anything else on each server.
        assert_eq!(
            hits[0].path, "/robots.txt",
            "{host}: first request {:?}",
            hits[0]
        );
        // One request at a time per server, and the delay between the end of a response and
        // the next request: 0.2 s from the topic, 0.3 s where robots.txt says Crawl-delay.
        let delay = if host == "a.test" { 0.3 } else { 0.2 };
        for pair in hits.windows(2) {
            assert!(
                pair[1].start >= pair[0].end,
                "{host}: overlapping requests {pair:?}"
            );
            let gap = pair[1].start.duration_since(pair[0].end);
            assert!(
                gap >= Duration::from_secs_f64(delay),
                "{host}: gap {gap:?} < {delay} s between {} and {}",
                pair[0].path,
                pair[1].path
            );
        }
        // No URL twice.
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        let distinct: BTreeSet<&str> = paths.iter().copied().collect();
        assert_eq!(paths.len(), distinct.len(), "{host}: {paths:?}");
    }

    // Only on-topic French documents in the corpus; the windows-1252 page decoded right.
    let docs = docs(out.path());
    let urls: BTreeSet<&str> = docs.iter().map(|d| d["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        BTreeSet::from([
            "http://a.test/",
            "http://a.test/graphes.html",
            "http://a.test/sommets.html",
            "http://a.test/nouveau.html",
            "http://c.test/doc.html",
        ])
    );
    assert!(docs.iter().all(|d| d["language"] == "fr"));
    let c = docs
        .iter()
        .find(|d| d["url"] == "http://c.test/doc.html")
        .unwrap();
    let text = c["paragraphs"].to_string();
    assert!(text.contains("présente les graphes non orientés"), "{text}");
    assert_eq!(c["encoding"], "windows-1252");

    // Every URL has its reason.
    let expect = [
        ("http://a.test/prive/secret.html", "robots"),
        ("http://outside.example/graphes", "off-domain"),
        ("http://a.test/manquant.html", "http-404"),
        ("http://a.test/ancien.html", "redirect"),
        // Known by its extension: never fetched.
        ("http://a.test/fichier.pdf", "file-type"),
        ("http://a.test/cours-complet", "content-type"),
        ("http://b.test/", "off-topic"),
        ("http://english.test/", "language"),
        ("http://a.test/nouveau.html", "kept"),
    ];
    for (url, reason) in expect {
        let got = reason_of(out.path(), url).unwrap_or_else(|| panic!("{url} not recorded"));
        assert_eq!(got.0, reason, "{url}: {got:?}");
    }
    // An off-topic seed is not expanded (seed 001's G_F): its link was never queued.
    assert_eq!(reason_of(out.path(), "http://b.test/tapenade.html"), None);

    // The exports.
    let tt = std::fs::read_to_string(out.path().join("treetagger/corpus.tt")).unwrap();
    let (n_docs, n_tokens) = check_treetagger(&tt);
    assert_eq!(n_docs, 5);
    assert!(n_tokens > 200, "{n_tokens}");
    assert!(tt.lines().any(|l| l == "sommets"));
    let (rows, cols, _) = check_matrix(out.path());
    assert_eq!(rows, 5);
    assert!(cols > 100);
    let graphml = std::fs::read_to_string(out.path().join("graph/links.graphml")).unwrap();
    assert!(graphml.contains("<edge source="));
    let n_urls: i64 = db(out.path())
        .query_row("SELECT COUNT(*) FROM urls", [], |r| r.get(0))
        .unwrap();
    let nodes = std::fs::read_to_string(out.path().join("graph/nodes.csv")).unwrap();
    assert_eq!(nodes.lines().count() as i64 - 1, n_urls);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["export"]["documents"], 5);
    // Harvest: one block of fewer than 100 pages; a.test gave 4 of the 5 documents.
    let curve = report["harvest"]["on_topic_per_100"].as_array().unwrap();
    assert_eq!(curve.len(), 1);
    let a = report["harvest"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == "a.test")
        .unwrap();
    assert_eq!(a["kept"], 4);
    assert!(a["yield_rate"].as_f64().unwrap() > 0.0);
    assert!(out.path().join("warc/glaneur-00000.warc.gz").is_file());
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("robots"), "{summary}");
}

#[test]
fn from_extract_reruns_downstream_without_a_single_fetch() {
    let web = TestWeb::start(&scenario("basic"));
    let out = tempfile::tempdir().unwrap();
    let topic = scenario("basic").join("topic.toml");
    assert_exit(&run_topic(&topic, out.path(), &web.proxy(), &[]), 0);
    let before = web.log().len();
    let docs_before = std::fs::read_to_string(out.path().join("docs.jsonl")).unwrap();
    std::fs::remove_dir_all(out.path().join("treetagger")).unwrap();
    assert_exit(
        &run_topic(&topic, out.path(), &web.proxy(), &["--from", "extract"]),
        0,
    );
    assert_eq!(web.log().len(), before, "--from extract fetched something");
    assert_eq!(
        std::fs::read_to_string(out.path().join("docs.jsonl")).unwrap(),
        docs_before
    );
    assert!(out.path().join("treetagger/corpus.tt").is_file());
    // Running the finished topic again resumes a crawl with nothing left to fetch.
    assert_exit(&run_topic(&topic, out.path(), &web.proxy(), &[]), 0);
    assert_eq!(web.log().len(), before, "a finished crawl fetched again");
}

#[test]
fn bad_topic_exits_2_naming_the_field_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario("basic").join("topic.toml"))
        .unwrap()
        .replace("delay_seconds = 0.2", "delai = 0.2");
    let topic = dir.path().join("topic.toml");
    std::fs::write(&topic, text).unwrap();
    let output = glaneur().arg("check").arg(&topic).output().unwrap();
    assert_exit(&output, 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("delai") && err.contains("line"), "{err}");
    let output = glaneur()
        .args(["run", "--quiet", "--out"])
        .arg(dir.path().join("run"))
        .arg(&topic)
        .output()
        .unwrap();
    assert_exit(&output, 2);
}

#[test]
fn empty_corpus_exits_1_and_says_why() {
    let web = TestWeb::start(&scenario("basic"));
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario("basic").join("topic.toml"))
        .unwrap()
        .replace(
            r#"'("graphe*" OU "sommet*") ET NON "graffiti"'"#,
            r#"'"hippopotame"'"#,
        );
    let topic = dir.path().join("topic.toml");
    std::fs::write(&topic, text).unwrap();
    let out = dir.path().join("run");
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 1);
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("the corpus is empty"), "{summary}");
    assert!(summary.contains("off-topic"), "{summary}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(
        report["empty_corpus"]
            .as_str()
            .unwrap()
            .contains("off-topic")
    );
}

#[test]
fn check_prints_the_resolved_topic_without_fetching() {
    let output = glaneur()
        .arg("check")
        .arg(scenario("basic"))
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains(r#"formula, normalised: ("graphe*" OR "sommet*") AND (NOT "graffiti")"#),
        "{text}"
    );
    assert!(
        text.contains("max_pages_per_host"),
        "defaults are shown: {text}"
    );
    assert!(text.contains("User-Agent: glaneur/"), "{text}");
}

#[test]
fn large_pages_waiting_for_analysis_stay_within_the_backlog() {
    // Every page (about 2 MiB) is larger than `[crawl] backlog_bytes` (1 MiB): each one stops
    // new requests until it has been analysed. The crawl must still read every page, find its
    // links and end — the pages waiting for the CPU are accounted apart from the requests in
    // flight, and each one, once settled, gives its bytes back.
    let web = TestWeb::start(&scenario("large"));
    let out = tempfile::tempdir().unwrap();
    let mut child = run_command(
        &scenario("large").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &["--to", "crawl"],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // A leak in the accounting would stop the crawl for good: fail instead of hanging.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the crawl did not end within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    assert_exit(&output, 0);
    let log = web.log();
    for (host, hits) in per_host(&log) {
        let pages: BTreeSet<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        let expected: BTreeSet<&str> = [
            "/robots.txt",
            "/",
            "/p0.html",
            "/p1.html",
            "/p2.html",
            "/p3.html",
            "/p4.html",
        ]
        .into();
        assert_eq!(pages, expected, "{host}");
        assert_eq!(hits.len(), expected.len(), "{host}: a page asked twice");
        for pair in hits.windows(2) {
            assert!(pair[1].start >= pair[0].end, "{host}: overlap {pair:?}");
        }
    }
    assert_eq!(per_host(&log).len(), 3);
    let conn = db(out.path());
    let fetched: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE state = 'fetched' AND reason = 'fetched'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(fetched, 18, "every page settled as fetched");
}

#[test]
fn a_frontier_kept_mostly_on_disk_is_crawled_to_the_end() {
    // Two URLs in memory, 43 pages: the leaves wait in crawl.sqlite. `/a.html` raises the
    // priority of `/b1.html` (found on an off-topic hub) while it waits in memory, which leaves a stale entry in the
    // server's queue once `/b1.html` is fetched. A server whose queue held only stale entries
    // while its URLs waited on disk was never picked again, and the crawl ended with them
    // queued ("budgets reached" when no budget was).
    let web = TestWeb::start(&scenario("frontier"));
    let out = tempfile::tempdir().unwrap();
    let output = run_topic(
        &scenario("frontier").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &["--to", "crawl"],
    );
    assert_exit(&output, 0);
    let log = web.log();
    let pages: Vec<&str> = log
        .iter()
        .filter(|h| h.path != "/robots.txt")
        .map(|h| h.path.as_str())
        .collect();
    let distinct: BTreeSet<&str> = pages.iter().copied().collect();
    assert_eq!(pages.len(), distinct.len(), "a page asked twice: {pages:?}");
    let mut expected: BTreeSet<String> = ["/", "/hub.html", "/a.html"].map(String::from).into();
    expected.extend((1..=crate::server::FRONTIER_LEAVES).map(|b| format!("/b{b}.html")));
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(distinct, expected);
    let queued: i64 = db(out.path())
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE state = 'queued'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(queued, 0);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("budgets reached"), "{stdout}");
}
