//! The `focus` scenario: every crawl strategy runs the same crawl loop on a small multi-host
//! web without errors; best-first goes to the on-topic site first; tunnelling stops expansion
//! after `[focus] tunnel` off-topic pages in a row; the servers' yield (`[focus] host_yield`)
//! keeps best-first's budget off a server whose pages fail the formula however its links read.
//! Deterministic assertions only: the order checks use `concurrency = 1`, where a crawl has a
//! single possible order.

use crate::server::TestWeb;
use crate::support::*;

const STRATEGIES: [&str; 7] = [
    "best-first",
    "breadth-first",
    "backlink-count",
    "pagerank",
    "opic",
    "larger-site-first",
    "forward-link-count",
];

/// The scenario's topic with some `[crawl]` settings replaced, written into `dir`.
fn topic_with(
    dir: &std::path::Path,
    strategy: &str,
    max_pages: u32,
    concurrency: u32,
) -> std::path::PathBuf {
    let text = std::fs::read_to_string(scenario("focus").join("topic.toml")).unwrap();
    let text = text
        .replace(
            "max_pages = 30",
            &format!("max_pages = {max_pages}\nstrategy = \"{strategy}\""),
        )
        .replace("concurrency = 4", &format!("concurrency = {concurrency}"));
    let path = dir.join("topic.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Fetched page URLs in the order they were fetched.
fn fetch_order(out: &std::path::Path) -> Vec<String> {
    let conn = db(out);
    let mut stmt = conn
        .prepare("SELECT url FROM urls WHERE state = 'fetched' ORDER BY fetched_at, id")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn every_strategy_crawls_the_test_web_without_errors() {
    let web = TestWeb::start(&scenario("focus"));
    for strategy in STRATEGIES {
        let dir = tempfile::tempdir().unwrap();
        let topic = topic_with(dir.path(), strategy, 30, 4);
        let out = dir.path().join("run");
        let output = run_topic(&topic, &out, &web.proxy(), &[]);
        assert_exit(&output, 0);
        let conn = db(&out);
        let failed: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM urls WHERE state = 'failed'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(failed, 0, "{strategy}");
        let unsettled: i64 = conn
            .query_row("SELECT COUNT(*) FROM urls WHERE reason IS NULL", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(unsettled, 0, "{strategy}: every URL has a reason");
        // The budget suffices for the whole web: every strategy finds every on-topic page.
        for page in ["", "p1.html", "p2.html", "p3.html", "p4.html"] {
            let url = format!("http://on.test/{page}");
            assert_eq!(
                reason_of(&out, &url).map(|r| r.0).as_deref(),
                Some("kept"),
                "{strategy}: {url}"
            );
        }
        // Tunnelling (tunnel = 1): off1.test/ is the first off-topic page after the start page,
        // a1.html the second in a row: its link is recorded, not queued.
        let (reason, detail) = reason_of(&out, "http://off1.test/a3.html").unwrap();
        assert_eq!(reason, "tunnel-limit", "{strategy}: {detail}");
        assert!(detail.contains("focus.tunnel = 1"), "{detail}");
        assert_eq!(
            reason_of(&out, "http://off1.test/a1.html")
                .map(|r| r.0)
                .as_deref(),
            Some("off-topic"),
            "{strategy}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        assert!(report["harvest_rate"].as_f64().unwrap() > 0.0, "{strategy}");
    }
}

#[test]
fn best_first_reaches_the_on_topic_site_first() {
    let web = TestWeb::start(&scenario("focus"));
    let dir = tempfile::tempdir().unwrap();
    // A budget that cannot take the whole web, one request at a time: a single possible order.
    let topic = topic_with(dir.path(), "best-first", 6, 1);
    let out = dir.path().join("run");
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    let order = fetch_order(&out);
    assert_eq!(order[0], "http://start.test/");
    assert!(
        order[1..].iter().all(|u| u.starts_with("http://on.test/")),
        "best-first spent its budget off topic: {order:?}"
    );
    assert_eq!(order.len(), 6, "{order:?}");
    // The server saw on.test before any off-topic server.
    let log = web.log();
    let first = |host: &str| log.iter().position(|h| h.host == host);
    assert!(first("on.test").is_some());
    assert_eq!(first("off1.test"), None, "{log:?}");

    // Breadth-first, same budget: the start page's links in document order, so the
    // off-topic sites (linked first) get requests before the on-topic one.
    let web = TestWeb::start(&scenario("focus"));
    let dir = tempfile::tempdir().unwrap();
    let topic = topic_with(dir.path(), "breadth-first", 6, 1);
    let out = dir.path().join("run");
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    let order = fetch_order(&out);
    assert_eq!(
        &order[..4],
        [
            "http://start.test/",
            "http://off1.test/",
            "http://off2.test/",
            "http://on.test/"
        ],
        "{order:?}"
    );
}

/// The `yield` scenario, with `[focus] host_yield` set to `host_yield`: the fetch order and
/// the rows (url, verdict, priority) of the fetched pages.
fn yield_run(host_yield: bool) -> Vec<(String, bool, f64)> {
    let web = TestWeb::start(&scenario("yield"));
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario("yield").join("topic.toml")).unwrap();
    let text = text.replace(
        "[focus]\n",
        &format!("[focus]\nhost_yield = {host_yield}\n"),
    );
    let topic = dir.path().join("topic.toml");
    std::fs::write(&topic, text).unwrap();
    let out = dir.path().join("run");
    assert_exit(
        &run_topic(&topic, &out, &web.proxy(), &["--to", "crawl"]),
        0,
    );
    let conn = db(&out);
    let mut stmt = conn
        .prepare(
            "SELECT url, verdict, priority FROM urls WHERE state = 'fetched' \
             ORDER BY fetched_at, id",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, bool>(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn best_first_servers_compete_with_their_yield() {
    let on = |rows: &[(String, bool, f64)]| {
        rows.iter()
            .filter(|(u, _, _)| u.starts_with("http://on.test/"))
            .count()
    };
    // Without the yield, the street-art server's links ("Graphes du mur …", URL words
    // `graphe`) outrank the on-topic server's plainer ones, and its pages (graffiti: they fail
    // the formula) take the budget.
    let without = yield_run(false);
    assert_eq!(without.len(), 8, "{without:#?}");
    assert_eq!(without[1].0, "http://lure.test/", "{without:#?}");
    let lure_without = without.len() - 1 - on(&without);
    assert!(lure_without >= 5, "{without:#?}");
    assert!(
        without
            .iter()
            .filter(|(u, _, _)| u.starts_with("http://lure.test/"))
            .all(|(_, verdict, _)| !verdict),
        "the street-art pages fail the formula: {without:#?}"
    );
    // With it: one page of the street-art server (linked first), then the on-topic server's
    // pages only, though their link priorities are lower.
    let with = yield_run(true);
    assert_eq!(with.len(), 8, "{with:#?}");
    assert_eq!(with[1].0, "http://lure.test/", "{with:#?}");
    assert_eq!(on(&with), 6, "{with:#?}");
    assert!(
        with[2..].iter().all(|(_, verdict, _)| *verdict),
        "{with:#?}"
    );
    let best_lure = without
        .iter()
        .filter(|(u, _, _)| u.starts_with("http://lure.test/graphe"))
        .map(|r| r.2)
        .fold(0.0, f64::max);
    let best_on = with
        .iter()
        .filter(|(u, _, _)| u.starts_with("http://on.test/p"))
        .map(|r| r.2)
        .fold(0.0, f64::max);
    assert!(
        best_lure > best_on,
        "the test needs links that read better off topic: {best_lure} > {best_on}"
    );
}
