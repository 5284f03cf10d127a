//! Seeds from a search API, end to end: topic terms → random tuples → compiled queries → a
//! mock Brave Search API (the recorded response served as `search.test` through the test
//! web) → hits → domain re-check → crawl with the formula filter → provenance in the run
//! folder (`seeds.csv`, `seed-hits.csv`, `crawl.sqlite`). And `glaneur seeds import`.

use std::collections::BTreeMap;

use crate::server::TestWeb;
use crate::support::*;

fn csv_rows(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn query_param(path: &str, name: &str) -> Option<String> {
    url::Url::parse(&format!("http://x{path}"))
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

#[test]
fn search_seeds_are_queried_filtered_crawled_and_traced() {
    let web = TestWeb::start(&scenario("seeds"));
    let out = tempfile::tempdir().unwrap();
    let topic = scenario("seeds").join("topic.toml");
    let run = || {
        let mut cmd = run_command(&topic, out.path(), &web.proxy(), &[]);
        cmd.env("BRAVE_SEARCH_API_KEY", "test-key")
            .env_remove("GLANEUR_SEARCH_ENDPOINT");
        cmd.output().unwrap()
    };
    let output = run();
    assert_exit(&output, 0);

    // The API saw the explicit query and the three tuples, compiled for Brave.
    let searches: Vec<_> = web
        .log()
        .into_iter()
        .filter(|h| h.host == "search.test")
        .collect();
    let sent: Vec<String> = searches
        .iter()
        .map(|h| query_param(&h.path, "q").unwrap())
        .collect();
    assert_eq!(
        sent,
        [
            "graphes orientés -graffiti site:test",
            "sommet arête -graffiti site:test",
            "arête \"théorie des graphes\" -graffiti site:test",
            "sommet \"théorie des graphes\" -graffiti site:test",
        ],
        "same topic and seed, same tuples"
    );
    for hit in &searches {
        assert_eq!(query_param(&hit.path, "search_lang").as_deref(), Some("fr"));
        assert_eq!(query_param(&hit.path, "offset").as_deref(), Some("0"));
        assert!(hit.user_agent.starts_with("glaneur/"), "{hit:?}");
    }

    // Hits → formula filter: the graffiti page is a dead end, the moved page is followed.
    let urls: Vec<String> = docs(out.path())
        .iter()
        .map(|d| d["url"].as_str().unwrap().to_string())
        .collect();
    assert!(
        urls.contains(&"http://a.test/graphes.html".to_string()),
        "{urls:?}"
    );
    assert!(
        urls.contains(&"http://a.test/nouveau.html".to_string()),
        "{urls:?}"
    );
    assert!(
        urls.contains(&"http://a.test/sommets.html".to_string()),
        "{urls:?}"
    );
    assert!(!urls.iter().any(|u| u.contains("mur.test")), "{urls:?}");
    assert_eq!(
        reason_of(out.path(), "http://mur.test/").unwrap().0,
        "off-topic"
    );
    assert_eq!(reason_of(out.path(), "http://mur.test/lettrage.html"), None);
    assert_eq!(
        reason_of(out.path(), "http://outside.example/graphes")
            .unwrap()
            .0,
        "off-domain"
    );
    assert!(
        !web.log().iter().any(|h| h.host == "outside.example"),
        "an off-domain hit is never fetched"
    );

    // Provenance: one row per seed, its four sightings merged, the redirect chain followed.
    let seeds = csv_rows(&out.path().join("seeds.csv"));
    assert_eq!(seeds.len(), 4, "{seeds:?}");
    let moved = seeds
        .iter()
        .find(|r| r["url"] == "http://a.test/ancien.html")
        .unwrap();
    assert_eq!(moved["final_url"], "http://a.test/nouveau.html");
    assert_eq!(
        moved["redirect_chain"],
        "http://a.test/ancien.html > http://a.test/nouveau.html"
    );
    assert_eq!(moved["reason"], "kept");
    assert_eq!(moved["formula"], "satisfied");
    assert_eq!(moved["sightings"], "4");
    assert_eq!(moved["best_rank"], "2");
    assert_eq!(moved["engines"], "brave");
    assert_eq!(moved["queries"].split(" | ").count(), 4, "{moved:?}");
    let mur = seeds
        .iter()
        .find(|r| r["url"] == "http://mur.test/")
        .unwrap();
    assert_eq!(mur["formula"], "not satisfied");
    let outside = seeds
        .iter()
        .find(|r| r["url"] == "http://outside.example/graphes")
        .unwrap();
    assert_eq!(
        (outside["state"].as_str(), outside["reason"].as_str()),
        ("skipped", "off-domain")
    );

    let hits = csv_rows(&out.path().join("seed-hits.csv"));
    assert_eq!(hits.len(), 16, "4 results × 4 queries");
    for hit in &hits {
        assert_eq!(hit["source"], "search:brave");
        assert_eq!(hit["page"], "1");
        assert!(hit["retrieved_at"].ends_with('Z'), "{hit:?}");
        assert!(
            !hit["title"].is_empty() && !hit["snippet"].contains('<'),
            "{hit:?}"
        );
    }
    let first = hits
        .iter()
        .find(|h| h["url"] == "http://a.test/graphes.html")
        .unwrap();
    assert_eq!(first["rank"], "1");
    assert_eq!(first["title"], "Les graphes orientés");

    // The same in crawl.sqlite, and the key is nowhere in the run folder.
    let db = db(out.path());
    let n: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM seed_hits WHERE engine = 'brave'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 16);
    let pages: i64 = db
        .query_row("SELECT COUNT(*) FROM searches", [], |r| r.get(0))
        .unwrap();
    assert_eq!(pages, 4);
    for entry in walk(out.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !bytes.windows(8).any(|w| w == b"test-key"),
            "the API key leaked into {}",
            entry.display()
        );
    }
    let report = std::fs::read_to_string(out.path().join("report.json")).unwrap();
    assert!(report.contains("\"search_requests\": 4"), "{report}");

    // Resuming sends no request already answered.
    let output = run();
    assert_exit(&output, 0);
    let again = web.log().iter().filter(|h| h.host == "search.test").count();
    assert_eq!(again, 4);
    assert_eq!(csv_rows(&out.path().join("seed-hits.csv")).len(), 16);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_missing_key_is_a_clear_fatal_error() {
    let web = TestWeb::start(&scenario("seeds"));
    let out = tempfile::tempdir().unwrap();
    let mut cmd = run_command(
        &scenario("seeds").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &[],
    );
    cmd.env_remove("BRAVE_SEARCH_API_KEY");
    let output = cmd.output().unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("BRAVE_SEARCH_API_KEY"), "{stderr}");
    assert!(web.log().is_empty(), "nothing sent without a key");
}

#[test]
fn seeds_import_prints_json_lines_and_names_pages_without_results() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("google.html");
    std::fs::write(
        &saved,
        "<!-- saved from url=(0048)https://www.google.com/search?q=graphe&start=10 -->\n\
         <html><body><div id=\"search\"><div class=\"g\"><a href=\"/url?q=https://fr.wikipedia.org/wiki/Graphe&amp;sa=U\"><h3>Graphe — Wikipédia</h3></a>\
         <div class=\"VwiC3b\">Un graphe est un ensemble de sommets.</div></div></div></body></html>",
    )
    .unwrap();
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "<html><body><p>nothing</p></body></html>").unwrap();

    let output = glaneur()
        .args(["seeds", "import"])
        .arg(&saved)
        .arg(&empty)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["engine"], "google");
    assert_eq!(lines[0]["query"], "graphe");
    assert_eq!(lines[0]["page"], 2);
    assert_eq!(lines[0]["rank"], 1);
    assert_eq!(lines[0]["url"], "https://fr.wikipedia.org/wiki/Graphe");
    assert_eq!(lines[0]["title"], "Graphe — Wikipédia");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("empty.html"), "{stderr}");

    // Nothing parsed at all: exit 1, with the reason.
    let output = glaneur()
        .args(["seeds", "import"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_exit(&output, 1);
    assert!(String::from_utf8_lossy(&output.stderr).contains("engine not recognised"));
    // The engine can be forced.
    let output = glaneur()
        .args(["seeds", "import", "--engine", "bing"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_exit(&output, 1);
    assert!(String::from_utf8_lossy(&output.stderr).contains("empty.html"));
    let output = glaneur()
        .args(["seeds", "import", "--engine", "altavista"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_exit(&output, 2);
}

/// `glaneur seeds TOPIC` writes the review; the user drops a seed; `--fetch` fills titles and
/// verdicts without asking the search API again; a malformed review stops the run before any
/// request; `glaneur run` never requests the dropped seed and records why.
#[test]
fn the_seed_review_decides_which_seeds_are_crawled() {
    let web = TestWeb::start(&scenario("seeds"));
    let out = tempfile::tempdir().unwrap();
    let topic = scenario("seeds").join("topic.toml");
    let with_key = |mut cmd: std::process::Command| {
        cmd.env("BRAVE_SEARCH_API_KEY", "test-key")
            .env_remove("GLANEUR_SEARCH_ENDPOINT");
        cmd.output().unwrap()
    };
    let seeds = |extra: &[&str]| {
        let mut cmd = glaneur();
        cmd.arg("seeds")
            .arg(&topic)
            .arg("--out")
            .arg(out.path())
            .arg("--proxy")
            .arg(web.proxy())
            .arg("--quiet")
            .args(extra);
        with_key(cmd)
    };
    let output = seeds(&[]);
    assert_exit(&output, 0);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        stdout.starts_with("keep  url") && stdout.contains("off-domain: not in [domains] allow"),
        "{stdout}"
    );
    assert!(
        stdout.contains("wrote ") && stdout.contains("glaneur run"),
        "{stdout}"
    );
    let path = out.path().join("seeds-review.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("keep\turl\tsources\tengines\tqueries\trank\tscope\ttitle\tverdict")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let keep_of = |rows: &[Vec<&str>], url: &str| {
        rows.iter()
            .find(|r| r[1] == url)
            .map(|r| r[0].to_string())
            .unwrap()
    };
    assert_eq!(rows.len(), 4, "{text}");
    assert_eq!(keep_of(&rows, "http://outside.example/graphes"), "no");
    assert_eq!(keep_of(&rows, "http://mur.test/"), "yes");
    let graphes = rows
        .iter()
        .find(|r| r[1] == "http://a.test/graphes.html")
        .unwrap();
    assert_eq!(&graphes[2..6], ["search:brave", "brave", graphes[4], "1"]);
    assert_eq!(
        graphes[4].split(" | ").count(),
        4,
        "every query that found it"
    );
    assert!(
        web.log().iter().all(|h| h.host == "search.test"),
        "without --fetch, no page is requested"
    );

    // The user drops the graffiti page; `--fetch` keeps that choice, fetches the others once.
    std::fs::write(
        &path,
        text.replace("yes\thttp://mur.test/", "no\thttp://mur.test/"),
    )
    .unwrap();
    let output = seeds(&["--fetch"]);
    assert_exit(&output, 0);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(stdout.contains("kept your choices"), "{stdout}");
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(keep_of(&rows, "http://mur.test/"), "no");
    let graphes = rows
        .iter()
        .find(|r| r[1] == "http://a.test/graphes.html")
        .unwrap();
    assert_eq!(&graphes[7..], ["Les graphes orientés", "satisfied"]);
    let moved = rows
        .iter()
        .find(|r| r[1] == "http://a.test/ancien.html")
        .unwrap();
    assert!(
        moved[8].contains("redirect to http://a.test/nouveau.html"),
        "{moved:?}"
    );
    let log = web.log();
    assert_eq!(log.iter().filter(|h| h.host == "search.test").count(), 4);
    assert!(!log.iter().any(|h| h.host == "mur.test"), "{log:?}");
    let robots = |log: &[crate::server::Hit]| {
        log.iter()
            .filter(|h| h.host == "a.test" && h.path == "/robots.txt")
            .count()
    };
    assert_eq!(robots(&log), 1, "robots.txt read before the pages");

    // A malformed review: the run stops before any request, naming the file and the line.
    let line = text
        .lines()
        .position(|l| l.starts_with("no\thttp://mur.test/"))
        .unwrap()
        + 1;
    std::fs::write(
        &path,
        text.replace("no\thttp://mur.test/", "non merci\thttp://mur.test/"),
    )
    .unwrap();
    let output = with_key(run_command(&topic, out.path(), &web.proxy(), &[]));
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("seeds-review.tsv")
            && stderr.contains(&format!("line {line}: `keep` is `non merci`")),
        "{stderr}"
    );
    assert_eq!(web.log().len(), log.len(), "nothing requested");

    // The run crawls the seeds kept, never the dropped one, and says why.
    std::fs::write(&path, &text).unwrap();
    let output = with_key(run_command(&topic, out.path(), &web.proxy(), &[]));
    assert_exit(&output, 0);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("1  seeds dropped at the seed review (2 kept")
            && stdout.contains("seed URLs: 3 in scope, 1 off-domain"),
        "{stdout}"
    );
    let run_log = web.log()[log.len()..].to_vec();
    assert!(!run_log.iter().any(|h| h.host == "mur.test"), "{run_log:?}");
    assert!(!run_log.iter().any(|h| h.host == "search.test"));
    assert_eq!(
        robots(&web.log()),
        1,
        "the crawl used the stored robots.txt"
    );
    let (reason, detail) = reason_of(out.path(), "http://mur.test/").unwrap();
    assert_eq!(reason, "seed-dropped");
    assert_eq!(detail, format!("seeds-review.tsv line {line}: keep = no"));
    let urls: Vec<String> = docs(out.path())
        .iter()
        .map(|d| d["url"].as_str().unwrap().to_string())
        .collect();
    assert!(
        urls.contains(&"http://a.test/graphes.html".to_string()),
        "{urls:?}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["review"]["dropped"], 1, "{}", report["review"]);
}

/// The keyless backends through the test web: a MediaWiki's search (titles become article
/// URLs) and the Common Crawl index (captured pages of the allowed hosts); no key is asked
/// for, and the requests carry the topic's contact in the User-Agent.
#[test]
fn mediawiki_and_commoncrawl_give_seeds_without_a_key() {
    let web = TestWeb::start(&scenario("seeds"));
    let dir = tempfile::tempdir().unwrap();
    let topic = |name: &str, search: &str, allow: &str| {
        let path = dir.path().join(format!("{name}.toml"));
        let text = format!(
            "name = \"{name}\"\nlanguages = [\"fr\"]\n[search]\n{search}\nresults_per_query = 5\n\
             delay_seconds = 0.0\nuse_proxy = true\n[domains]\nallow = [{allow}]\n\
             [politeness]\ncontact = \"mailto:test@example.org\"\n"
        );
        std::fs::write(&path, text).unwrap();
        path
    };
    let review = |topic: &std::path::Path, out: &str| {
        let out = dir.path().join(out);
        let output = glaneur()
            .arg("seeds")
            .arg(topic)
            .arg("--out")
            .arg(&out)
            .arg("--proxy")
            .arg(web.proxy())
            .arg("--quiet")
            .env_remove("GLANEUR_SEARCH_ENDPOINT")
            .output()
            .unwrap();
        assert_exit(&output, 0);
        std::fs::read_to_string(out.join("seeds-review.tsv")).unwrap()
    };

    let wiki = topic(
        "wiki",
        "backend = \"mediawiki\"\nendpoint = \"http://wiki.test/w/api.php\"\nqueries = [\"graphe orienté\"]",
        "\".test\"",
    );
    let check = glaneur().arg("check").arg(&wiki).output().unwrap();
    assert_exit(&check, 0);
    let printed = String::from_utf8_lossy(&check.stdout);
    assert!(
        printed.contains("# search: 1 queries on mediawiki at http://wiki.test/w/api.php (no key)"),
        "{printed}"
    );
    let text = review(&wiki, "wiki-run");
    assert!(
        text.contains(
            "yes\thttp://wiki.test/wiki/Graphe\tsearch:mediawiki\tmediawiki\tgraphe orienté\t1\t"
        ),
        "{text}"
    );
    assert!(
        text.contains("\thttp://wiki.test/wiki/Th%C3%A9orie_des_graphes\t"),
        "{text}"
    );
    let asked: Vec<_> = web
        .log()
        .into_iter()
        .filter(|h| h.host == "wiki.test")
        .collect();
    assert_eq!(asked.len(), 1, "two hits, no next page: {asked:?}");
    assert_eq!(
        query_param(&asked[0].path, "srsearch").as_deref(),
        Some("graphe orienté")
    );
    assert_eq!(
        query_param(&asked[0].path, "list").as_deref(),
        Some("search")
    );
    assert!(
        asked[0].user_agent.contains("mailto:test@example.org"),
        "{asked:?}"
    );

    let cc = topic(
        "cc",
        "backend = \"commoncrawl\"\nendpoint = \"http://index.test/CC-MAIN-2025-47-index\"",
        "\"a.test\", \".fr\"",
    );
    let text = review(&cc, "cc-run");
    let urls: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(
        urls,
        ["http://a.test/graphes.html", "http://a.test/sommets.html"]
    );
    assert!(
        text.contains("\tsearch:commoncrawl\tcommoncrawl\t*.a.test\t"),
        "{text}"
    );
    let asked: Vec<_> = web
        .log()
        .into_iter()
        .filter(|h| h.host == "index.test")
        .collect();
    assert_eq!(asked.len(), 1, "one request per prefix");
    assert_eq!(
        query_param(&asked[0].path, "url").as_deref(),
        Some("*.a.test")
    );
    assert_eq!(
        query_param(&asked[0].path, "output").as_deref(),
        Some("json")
    );
    assert_eq!(query_param(&asked[0].path, "limit").as_deref(), Some("50"));
}
