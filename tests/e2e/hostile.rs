//! The `hostile` scenario: servers that misbehave, each in its own way (an overloaded one
//! that answers 429 + Retry-After, a dead one, one whose robots.txt fails once, one too slow
//! for the timeout, an endless agenda, X-Robots-Tag headers). Checked from the server's log.

use std::time::Duration;

use crate::server::{Hit, TestWeb};
use crate::support::*;

fn urls_with_reason(out: &std::path::Path, reason: &str) -> Vec<String> {
    let conn = db(out);
    let mut stmt = conn
        .prepare("SELECT url FROM urls WHERE reason = ?1 ORDER BY url")
        .unwrap();
    stmt.query_map([reason], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn misbehaving_servers_are_handled_politely_and_do_not_stall_the_crawl() {
    let web = TestWeb::start(&scenario("hostile"));
    let out = tempfile::tempdir().unwrap();
    let output = run_topic(
        &scenario("hostile").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &[],
    );
    assert_exit(&output, 0);
    // The slow server logs a request when its late answer is due (2.5 s after it came), even
    // though the crawler stopped waiting after 1 s: let the last one land.
    std::thread::sleep(Duration::from_secs(3));
    let log = web.log();
    let hosts = per_host(&log);

    // The usual politeness holds on every server, misbehaving or not.
    for (host, hits) in &hosts {
        assert_eq!(hits[0].path, "/robots.txt", "{host}: {hits:?}");
        for pair in hits.windows(2) {
            assert!(pair[1].start >= pair[0].end, "{host}: overlap {pair:?}");
            let gap = pair[1].start.duration_since(pair[0].end);
            assert!(gap >= Duration::from_millis(100), "{host}: gap {gap:?}");
        }
    }

    // 429 + Retry-After: 2 → nothing to that server for 2 s, then the same URL again.
    let busy = &hosts["busy.test"];
    let i = busy.iter().position(|h| h.status == 429).expect("the 429");
    let refused = &busy[i];
    assert!(busy.len() > i + 1, "{busy:?}");
    let wait = busy[i + 1].start.duration_since(refused.end);
    assert!(wait >= Duration::from_secs(2), "waited {wait:?} after 429");
    assert_eq!(
        busy.iter().filter(|h| h.path == "/p1.html").count(),
        2,
        "{busy:?}"
    );
    assert_eq!(
        reason_of(out.path(), "http://busy.test/p1.html").unwrap().0,
        "kept"
    );

    // A dead server: at most `give_up_after` (3) page requests, then every URL of it is
    // settled with a reason instead of being asked again and again.
    let dead = &hosts["dead.test"];
    let dead_pages = dead.iter().filter(|h| h.path != "/robots.txt").count();
    assert!(dead_pages <= 3, "{dead:?}");
    let gave_up = urls_with_reason(out.path(), "server-gave-up");
    assert!(
        gave_up.iter().filter(|u| u.contains("dead.test")).count() >= 3,
        "{gave_up:?}"
    );
    let why: Option<String> = db(out.path())
        .query_row(
            "SELECT gave_up FROM hosts WHERE host LIKE '%//dead.test%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(why.unwrap().contains("failures in a row"));

    // robots.txt that fails once (503): nothing is fetched until it is read again, and then
    // its rules apply (no URL settled as "robots" because of the outage).
    let flaky = &hosts["flaky.test"];
    assert_eq!(flaky[0].status, 503, "{flaky:?}");
    assert_eq!(flaky[1].path, "/robots.txt", "{flaky:?}");
    assert!(flaky.iter().any(|h| h.path == "/p1.html"), "{flaky:?}");
    assert!(!flaky.iter().any(|h| h.path.starts_with("/prive/")));
    assert_eq!(
        reason_of(out.path(), "http://flaky.test/prive/s.html")
            .unwrap()
            .0,
        "robots"
    );

    // A server too slow for the timeout: robots.txt tried 3 times, then given up; the other
    // servers were served meanwhile.
    let slow = &hosts["slow.test"];
    assert!(slow.len() <= 3, "{slow:?}");
    let (first, last) = (slow[0].start, slow[slow.len() - 1].start);
    assert!(
        log.iter()
            .any(|h| h.host != "slow.test" && h.start > first && h.start < last),
        "nothing else happened while slow.test was retried"
    );
    assert!(
        urls_with_reason(out.path(), "robots-unavailable")
            .iter()
            .any(|u| u.contains("slow.test")),
    );

    // An endless agenda costs its budgets: 4 calendar pages, 4 list pages, a nesting path
    // cut at its third repetition, plus robots.txt and the entry page.
    let trap = &hosts["trap.test"];
    assert!(
        trap.len() <= 2 + 4 + 4 + 2,
        "{} requests: {trap:?}",
        trap.len()
    );
    for rule in [
        "trap-calendar",
        "trap-query-variants",
        "trap-repeated-segments",
    ] {
        assert!(
            urls_with_reason(out.path(), rule)
                .iter()
                .any(|u| u.contains("trap.test")),
            "no URL refused by {rule}"
        );
    }

    // gzip: the page is decompressed (and kept), the bomb is refused with its reason, and so
    // is a page that is not gzip at all.
    assert_eq!(
        reason_of(out.path(), "http://gzip.test/").unwrap().0,
        "kept"
    );
    assert_eq!(
        reason_of(out.path(), "http://gzip.test/bombe.html")
            .unwrap()
            .0,
        "decompression-bomb"
    );
    // Labelled gzip, not compressed: refused with its reason, never a document of bytes.
    assert_eq!(
        reason_of(out.path(), "http://gzip.test/casse.html")
            .unwrap()
            .0,
        "corrupt-encoding"
    );

    // Seed 004's script rule: one request for the two spellings of fiche 1, none for the URL
    // without the required `id`.
    let shop: Vec<&str> = hosts["shop.test"].iter().map(|h| h.path.as_str()).collect();
    assert_eq!(shop, ["/robots.txt", "/fiche.php?id=1&lang=fr"]);
    assert_eq!(
        reason_of(out.path(), "http://shop.test/fiche.php?lang=fr")
            .unwrap()
            .0,
        "url-rule"
    );

    // X-Robots-Tag: nofollow keeps the links unfollowed, noindex keeps the page out of the
    // corpus, and a directive addressed to another crawler is not for us.
    let x = &hosts["xrobots.test"];
    assert!(!x.iter().any(|h| h.path == "/cache.html"), "{x:?}");
    assert!(x.iter().any(|h| h.path == "/suivi.html"), "{x:?}");
    assert_eq!(
        reason_of(out.path(), "http://xrobots.test/noindex.html")
            .unwrap()
            .0,
        "noindex"
    );
}

#[test]
fn a_frontier_over_its_memory_budget_waits_on_disk_and_loses_nothing() {
    // The same crawl twice: all queued URLs in memory, then at most one (the rest wait in
    // crawl.sqlite and are read back). Every URL must end in the same state for the same reason.
    let topic = std::fs::read_to_string(scenario("basic").join("topic.toml")).unwrap();
    let settled = |extra: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("topic.toml");
        std::fs::write(
            &path,
            topic.replace("[crawl]\n", &format!("[crawl]\n{extra}")),
        )
        .unwrap();
        let web = TestWeb::start(&scenario("basic"));
        let out = dir.path().join("run");
        let output = run_topic(&path, &out, &web.proxy(), &[]);
        assert_exit(&output, 0);
        let conn = db(&out);
        let mut stmt = conn
            .prepare("SELECT url, state, reason FROM urls ORDER BY url")
            .unwrap();
        let rows: Vec<(String, String, Option<String>)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows
    };
    let in_memory = settled("");
    let spilled = settled("frontier_in_memory = 1\n");
    assert!(in_memory.len() > 10, "{in_memory:?}");
    assert_eq!(in_memory, spilled);
}

#[test]
fn revisit_asks_conditionally_and_keeps_unchanged_pages() {
    let web = TestWeb::start(&scenario("basic"));
    let out = tempfile::tempdir().unwrap();
    let topic = scenario("basic").join("topic.toml");
    assert_exit(&run_topic(&topic, out.path(), &web.proxy(), &[]), 0);
    let before = web.log().len();
    let docs_before: Vec<String> = docs(out.path())
        .iter()
        .map(|d| d["url"].as_str().unwrap().to_string())
        .collect();

    assert_exit(
        &run_topic(&topic, out.path(), &web.proxy(), &["--revisit"]),
        0,
    );
    let second: Vec<Hit> = web.log()[before..].to_vec();
    let status_of = |path: &str| {
        second
            .iter()
            .find(|h| h.host == "a.test" && h.path == path)
            .map(|h| h.status)
    };
    // The pages with an ETag or a Last-Modified answered 304; the others were fetched again.
    assert_eq!(status_of("/graphes.html"), Some(304), "{second:?}");
    assert_eq!(status_of("/sommets.html"), Some(304), "{second:?}");
    assert_eq!(status_of("/"), Some(200), "{second:?}");
    // robots.txt is still fresh (read less than a day ago): not asked again.
    assert!(
        !second.iter().any(|h| h.path == "/robots.txt"),
        "{second:?}"
    );
    // Nothing lost: the same documents, the unchanged ones from their stored copy.
    let docs_after: Vec<String> = docs(out.path())
        .iter()
        .map(|d| d["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(docs_before, docs_after);
    let revisit = |url: &str| -> Option<String> {
        db(out.path())
            .query_row("SELECT revisit FROM urls WHERE url = ?1", [url], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!(
        revisit("http://a.test/graphes.html").as_deref(),
        Some("not-modified")
    );
    // Fetched again without validators, the same bytes: the stored copy stays.
    assert_eq!(revisit("http://a.test/").as_deref(), Some("unchanged"));
    // The history keeps both visits of each page, with what the change test found.
    let changes: Vec<String> = db(out.path())
        .prepare(
            "SELECT v.change FROM visits v JOIN urls u ON u.id = v.url_id
             WHERE u.url = ?1 ORDER BY v.at, v.id",
        )
        .unwrap()
        .query_map(["http://a.test/graphes.html"], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(changes, ["first", "not-modified"]);
    let same: String = db(out.path())
        .query_row(
            "SELECT v.change FROM visits v JOIN urls u ON u.id = v.url_id
             WHERE u.url = 'http://a.test/' ORDER BY v.at DESC, v.id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(same, "same-bytes");
}

#[test]
fn pages_built_to_choke_parsers_are_read_in_part_and_the_crawl_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("_routes.toml"),
        r#"[[route]]
host = "lourd.test"
path = "/"
headers = { Content-Type = "text/html; charset=utf-8" }
body = '<html lang="fr"><head><title>Graphes</title></head><body><p>Un graphe et ses sommets.</p><a href="/attributs.html">attributs</a> <a href="/liens.html">liens</a></body></html>'

[[route]]
host = "lourd.test"
path = "/attributs.html"
generate = "attributes"

[[route]]
host = "lourd.test"
path = "/liens.html"
generate = "links"
"#,
    )
    .unwrap();
    let topic = dir.path().join("topic.toml");
    std::fs::write(
        &topic,
        "name = \"lourd\"\nlanguages = [\"fr\"]\n[seeds]\nurls = [\"http://lourd.test/\"]\n\
         [formula]\nexpression = '\"graphe*\"'\n[crawl]\nmax_pages = 6\nmax_depth = 3\n\
         max_links_per_page = 500\n[politeness]\ncontact = \"mailto:test@example.org\"\n\
         delay_seconds = 0\n",
    )
    .unwrap();
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("run");
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 0);
    // Both pages were read (the crawl went on past them), and the page after the attribute
    // bomb was reached through the link that follows it.
    for url in [
        "http://lourd.test/attributs.html",
        "http://lourd.test/liens.html",
        "http://lourd.test/apres.html",
    ] {
        let (reason, _) = reason_of(&out, url).unwrap();
        assert!(
            reason != "queued" && reason != "unreadable",
            "{url}: {reason}"
        );
    }
    // The page of 20,000 links gave its first 500, and the reports say it was cut.
    let rows: i64 = db(&out)
        .query_row(
            "SELECT COUNT(*) FROM links WHERE src = (SELECT id FROM urls WHERE url = ?1)",
            ["http://lourd.test/liens.html"],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 500);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["crawl"]["pages_links_cut"], 1, "{report:#}");
    assert_eq!(report["extract"]["pages_attributes_cut"], 1, "{report:#}");
    assert_eq!(report["extract"]["pages_links_cut"], 1, "{report:#}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("max_links_per_page"), "{stderr}");
}

#[test]
fn a_host_name_too_long_for_a_file_name_does_not_block_the_exports() {
    let dir = tempfile::tempdir().unwrap();
    // 251 bytes, a valid DNS name: the site map `HOST.html` would be 256 bytes long.
    let host = format!(
        "{}.{}.test",
        vec!["graphe".repeat(10); 3].join("."),
        "s".repeat(63)
    );
    assert!(host.len() > 250, "{}", host.len());
    std::fs::create_dir(dir.path().join(&host)).unwrap();
    std::fs::write(
        dir.path().join(&host).join("index.html"),
        "<html lang=fr><head><title>Graphes</title></head><body><p>Un graphe est un ensemble \
         de sommets reliés par des arêtes, et cette page en parle assez longuement pour être \
         gardée dans le corpus des graphes.</p></body></html>",
    )
    .unwrap();
    let topic = dir.path().join("topic.toml");
    std::fs::write(
        &topic,
        format!(
            "name = \"long\"\nlanguages = [\"fr\"]\n[seeds]\nurls = [\"http://{host}/\"]\n\
             [formula]\nexpression = '\"graphe*\"'\n[politeness]\n\
             contact = \"mailto:test@example.org\"\ndelay_seconds = 0\n"
        ),
    )
    .unwrap();
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("run");
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    assert_exit(
        &run_topic(&topic, &out, &web.proxy(), &["--from", "export"]),
        0,
    );
    let maps: Vec<_> = std::fs::read_dir(out.join("graph/sitemaps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(maps.len(), 2, "{maps:?}");
    assert!(
        maps.iter()
            .all(|m| m.starts_with("graphe") && m.len() < 255),
        "{maps:?}"
    );
}

#[test]
fn a_link_over_the_url_length_limit_gets_its_row_and_reason() {
    // One limit for the parser and `[traps] max_url_length` (default 2,083 bytes): a link of
    // 2,100 or 2,123 bytes is recorded as `trap-url-length`, never dropped without a row; a
    // link of 2,083 bytes is within it.
    let dir = tempfile::tempdir().unwrap();
    let head = "http://long.test/";
    let link = |len: usize| format!("{head}{}", "a".repeat(len - head.len()));
    std::fs::create_dir(dir.path().join("long.test")).unwrap();
    std::fs::write(
        dir.path().join("long.test").join("index.html"),
        format!(
            "<html lang=fr><head><title>Graphes</title></head><body><p>Un graphe est un \
             ensemble de sommets reliés par des arêtes, et cette page en parle assez \
             longuement pour être gardée dans le corpus des graphes.</p>\
             <a href=\"{}\">a</a> <a href=\"{}\">b</a> <a href=\"{}\">c</a></body></html>",
            link(2083),
            link(2100),
            link(2123)
        ),
    )
    .unwrap();
    let topic = dir.path().join("topic.toml");
    std::fs::write(
        &topic,
        format!(
            "name = \"long-links\"\nlanguages = [\"fr\"]\n[seeds]\nurls = [\"{head}\"]\n\
             [formula]\nexpression = '\"graphe*\"'\n[politeness]\n\
             contact = \"mailto:test@example.org\"\ndelay_seconds = 0\n"
        ),
    )
    .unwrap();
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("run");
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    for len in [2100, 2123] {
        let (reason, detail) = reason_of(&out, &link(len)).expect("a row for the long link");
        assert_eq!(reason, "trap-url-length", "{len} bytes");
        assert!(detail.contains("2083"), "{detail}");
    }
    let (reason, _) = reason_of(&out, &link(2083)).expect("a row for the 2,083-byte link");
    assert_ne!(reason, "trap-url-length");
}
