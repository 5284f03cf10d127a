//! Stopping a crawl and running the same command again.
//!
//! The test web is generated: one host with a chain of 40 French pages (each links to the
//! next), served 40 ms per response, crawled with a 50 ms politeness delay, so the crawl lasts
//! a few seconds and can be stopped in the middle.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::server::TestWeb;
use crate::support::*;

pub const PAGES: usize = 40;

/// Writes the chain web and its topic into `root`.
pub fn chain_web(root: &Path) {
    let host = root.join("chaine.test");
    std::fs::create_dir_all(&host).unwrap();
    for i in 0..PAGES {
        let next = if i + 1 < PAGES {
            format!("<p><a href=\"/p{}.html\">Le graphe suivant</a></p>", i + 1)
        } else {
            String::new()
        };
        let page = format!(
            "<!DOCTYPE html><html lang=\"fr\"><head><meta charset=\"utf-8\"><title>Graphe numéro {i}</title></head><body>\
             <h1>Graphe numéro {i}</h1>\
             <p>Ce graphe possède {i} sommets et autant d'arêtes que de sommets. Chaque sommet du graphe numéro {i} est relié à ses deux voisins, ce qui forme un cycle dont la longueur est égale au nombre de sommets.</p>\
             <p>On peut parcourir ce graphe en partant de n'importe quel sommet et en suivant les arêtes dans le même sens jusqu'à revenir au point de départ.</p>\
             {next}</body></html>"
        );
        let name = if i == 0 {
            "index.html".to_string()
        } else {
            format!("p{i}.html")
        };
        std::fs::write(host.join(name), page).unwrap();
    }
    std::fs::write(root.join("_routes.toml"), "delay_ms = 40\n").unwrap();
    std::fs::write(
        root.join("topic.toml"),
        r#"name = "chaine"
languages = ["fr"]
[seeds]
urls = ["http://chaine.test/"]
[formula]
expression = '"graphe*"'
[crawl]
max_depth = 100
[politeness]
contact = "mailto:test@example.org"
delay_seconds = 0.05
# The 40 pages share one template word for word: the cross-page clean-up would rightly
# reduce them to one document, and this test counts documents.
[text]
near_duplicates = false
boilerplate_min_pages = 1000
"#,
    )
    .unwrap();
}

/// Starts `glaneur run` on the topic, stderr captured.
pub fn spawn(topic: &Path, out: &Path, proxy: &str) -> Child {
    run_command(topic, out, proxy, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the server has answered `n` page requests.
pub fn wait_for_pages(web: &TestWeb, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while web.log().iter().filter(|h| h.path != "/robots.txt").count() < n {
        assert!(
            Instant::now() < deadline,
            "the crawl did not reach {n} pages"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends a signal (`TERM`, `INT`, `KILL`) to the process.
pub fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// Requests per path, over the server's whole log.
pub fn page_counts(web: &TestWeb) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for hit in web.log() {
        *counts.entry(hit.path).or_insert(0) += 1;
    }
    counts
}

/// Every page of the chain fetched and kept.
pub fn assert_complete(out: &Path) {
    let docs = docs(out);
    assert_eq!(
        docs.len(),
        PAGES,
        "every page of the chain is in the corpus"
    );
    let fetched: i64 = db(out)
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE state = 'fetched'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(fetched as usize, PAGES);
}

#[test]
fn interrupted_crawl_resumes_without_fetching_any_url_twice() {
    let dir = tempfile::tempdir().unwrap();
    chain_web(dir.path());
    let web = TestWeb::start(dir.path());
    let topic = dir.path().join("topic.toml");
    let out = dir.path().join("run");
    let child = spawn(&topic, &out, &web.proxy());
    wait_for_pages(&web, 10);
    signal(&child, "TERM");
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(
        stopped.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&stopped.stderr)
    );
    let fetched_before = page_counts(&web).len();
    assert!(
        fetched_before < PAGES,
        "the crawl was stopped before its end"
    );

    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    let counts = page_counts(&web);
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "fetched twice: {twice:?}");
    assert_eq!(counts.len(), PAGES + 1, "every page and robots.txt once");
    assert_complete(&out);
}

#[test]
fn killed_crawl_loses_no_stored_page_and_refetches_at_most_what_was_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    chain_web(dir.path());
    let web = TestWeb::start(dir.path());
    let topic = dir.path().join("topic.toml");
    let out = dir.path().join("run");
    let mut child = spawn(&topic, &out, &web.proxy());
    wait_for_pages(&web, 12);
    // kill -9: no chance to flush anything.
    child.kill().unwrap();
    child.wait().unwrap();
    let served_before: Vec<String> = web.log().into_iter().map(|h| h.path).collect();

    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    let counts = page_counts(&web);
    let twice: Vec<_> = counts
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(p, _)| p.clone())
        .collect();
    // One server, one request in flight at most: only that one can have been lost in transit.
    assert!(
        twice.len() <= 1,
        "fetched twice: {twice:?} (served before the kill: {served_before:?})"
    );
    assert_complete(&out);
    // The WARC file is whole: every response record reads back.
    let warc = std::fs::read(out.join("warc/glaneur-00000.warc.gz")).unwrap();
    let records: Vec<_> = stages::web::warc::Reader::new(&warc[..]).collect();
    assert!(records.iter().all(Result::is_ok), "a damaged WARC record");
    let responses = records
        .iter()
        .filter(|r| {
            r.as_ref()
                .map(|r| r.record_type() == Some("response"))
                .unwrap_or(false)
        })
        .count();
    assert!(responses > PAGES, "{responses} responses");
}

/// Pages of the maze web: an index and 120 pages on one host, two thirds about graphs, the
/// others about cooking, each linking to five others (anchors that name the target's topic),
/// half of them also to a page that does not exist. More pages than the budget: the crawl
/// order decides the corpus.
const MAZE: usize = 120;

fn maze_web(root: &Path) {
    maze_web_with(root, "", 0.02)
}

/// The maze web with `crawl` lines added to the topic's `[crawl]` table.
fn maze_web_with(root: &Path, crawl: &str, delay_seconds: f64) {
    let host = root.join("dedale.test");
    std::fs::create_dir_all(&host).unwrap();
    let on_topic = |i: usize| !i.is_multiple_of(5) && i % 7 != 3;
    let anchor = |j: usize| {
        if on_topic(j) {
            format!("le graphe numéro {j}")
        } else {
            format!("la recette numéro {j}")
        }
    };
    for i in 0..MAZE {
        let mut links = String::new();
        for j in [
            (i * 7 + 3) % MAZE,
            (i * 13 + 5) % MAZE,
            (i * 31 + 11) % MAZE,
            (i * 17 + 1) % MAZE,
            i / 2,
        ] {
            links.push_str(&format!(
                "<li><a href=\"/p{j}.html\">{}</a></li>",
                anchor(j)
            ));
        }
        if i % 2 == 0 {
            links.push_str(&format!(
                "<li><a href=\"/absent{i}.html\">un graphe perdu</a></li>"
            ));
        }
        let text = if on_topic(i) {
            format!(
                "<p>Le graphe numéro {i} relie ses sommets par des arêtes. Chaque sommet du graphe \
                 a un degré, et la somme des degrés vaut deux fois le nombre d'arêtes.</p>\
                 <p>On parcourt ce graphe en largeur ou en profondeur pour trouver un chemin \
                 entre deux sommets, et l'on compte les composantes connexes du graphe {i}.</p>"
            )
        } else {
            format!(
                "<p>La recette numéro {i} demande de la farine, du beurre et des oeufs. On mélange \
                 le tout avant de laisser reposer la pâte une heure au frais.</p>\
                 <p>La cuisson se fait à four chaud, et l'on sert la tarte tiède avec une crème \
                 légère, comme le veut la tradition de la recette {i}.</p>"
            )
        };
        let page = format!(
            "<!DOCTYPE html><html lang=\"fr\"><head><meta charset=\"utf-8\"><title>Page {i}</title>\
             </head><body><h1>Page {i}</h1>{text}<ul>{links}</ul></body></html>"
        );
        let name = if i == 0 {
            "index.html".to_string()
        } else {
            format!("p{i}.html")
        };
        std::fs::write(host.join(name), page).unwrap();
    }
    std::fs::write(root.join("_routes.toml"), "delay_ms = 5\n").unwrap();
    std::fs::write(
        root.join("topic.toml"),
        r#"name = "dedale"
languages = ["fr"]
[seeds]
urls = ["http://dedale.test/"]
[formula]
expression = '"graphe*" OU "sommet*"'
[crawl]
max_pages = 60
max_depth = 50
concurrency = 4
CRAWL_EXTRA
[politeness]
contact = "mailto:test@example.org"
delay_seconds = DELAY
[text]
near_duplicates = false
boilerplate_min_pages = 1000
"#
        .replace("CRAWL_EXTRA", crawl)
        .replace("DELAY", &delay_seconds.to_string()),
    )
    .unwrap();
}

fn kept(out: &Path) -> std::collections::BTreeSet<String> {
    let conn = db(out);
    let mut stmt = conn
        .prepare("SELECT url FROM urls WHERE reason = 'kept'")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Stops the same command after the server has answered each of `stops` more page requests
/// (SIGINT or kill -9), resuming every time, then lets it finish; returns the requests per
/// path over the whole chain.
fn stopped_chain(web: &TestWeb, topic: &Path, out: &Path, signal_name: &str, stops: &[usize]) {
    for &n in stops {
        let before = web.log().iter().filter(|h| h.path != "/robots.txt").count();
        let child = spawn(topic, out, &web.proxy());
        wait_for_pages(web, before + n);
        signal(&child, signal_name);
        let stopped = child.wait_with_output().unwrap();
        assert_ne!(
            stopped.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&stopped.stderr)
        );
    }
    assert_exit(&run_topic(topic, out, &web.proxy(), &[]), 0);
}

#[test]
fn a_crawl_stopped_at_many_points_gives_the_corpus_of_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    maze_web(dir.path());
    let topic = dir.path().join("topic.toml");
    let baseline = {
        let web = TestWeb::start(dir.path());
        let out = dir.path().join("baseline");
        assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
        kept(&out)
    };
    assert!(baseline.len() > 20, "{baseline:?}");
    for (signal_name, stops) in [("INT", [4, 9, 7, 12]), ("KILL", [6, 3, 11, 8])] {
        let web = TestWeb::start(dir.path());
        let out = dir.path().join(format!("stopped-{signal_name}"));
        stopped_chain(&web, &topic, &out, signal_name, &stops);
        assert_eq!(kept(&out), baseline, "{signal_name}: another corpus");
        let counts = page_counts(&web);
        let twice: Vec<_> = counts
            .iter()
            .filter(|(path, n)| **n > 1 && path.as_str() != "/robots.txt")
            .collect();
        // A graceful stop lets the request in flight finish; kill -9 may lose it (one server,
        // one request at a time): at most one page per stop is asked again.
        let allowed = if signal_name == "KILL" {
            stops.len()
        } else {
            0
        };
        assert!(
            twice.len() <= allowed,
            "{signal_name}: fetched twice: {twice:?}"
        );
    }
}

#[test]
fn a_partial_pagerank_crawl_killed_at_many_points_gives_the_same_corpus() {
    // The graph strategies rebuild their state (the known graph, the ranks recomputed every
    // few pages) from the order in which pages gave their links. A server is free again as
    // soon as its page has arrived, so the next URL is chosen with the links of the pages
    // analysed by then: the order (and, under a page budget, the corpus) is that of a crawl
    // whose analysis keeps up with the politeness delay. 20 ms is not enough on a starved
    // CPU (the analysis threads run at a lower priority), not even for the uninterrupted
    // baseline; 100 ms is.
    let dir = tempfile::tempdir().unwrap();
    maze_web_with(
        dir.path(),
        "strategy = \"pagerank\"\n[focus]\npagerank_every = 4",
        0.1,
    );
    let topic = dir.path().join("topic.toml");
    let baseline = {
        let web = TestWeb::start(dir.path());
        let out = dir.path().join("baseline");
        assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
        kept(&out)
    };
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("stopped");
    stopped_chain(&web, &topic, &out, "KILL", &[5, 9, 4]);
    assert_eq!(kept(&out), baseline);
}

/// Every file a run writes from the crawl's store (the corpus and its exports; not the store,
/// the WARC, the reports, nor the indexes that name their own folder), by path.
fn outputs(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, files: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, files);
            } else {
                let name = path.strip_prefix(root).unwrap().display().to_string();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut files = std::collections::BTreeMap::new();
    for name in [
        "docs.jsonl",
        "extract-cache.jsonl",
        "removed-paragraphs.csv",
        "metadata.csv",
        "vrt",
        "treetagger",
        "matrix",
        "graph",
    ] {
        let path = out.join(name);
        if path.is_dir() {
            walk(&path, out, &mut files);
        } else {
            files.insert(name.to_string(), std::fs::read(&path).unwrap());
        }
    }
    files
}

#[test]
fn a_run_killed_while_extraction_follows_the_crawl_gives_the_outputs_of_a_run_in_turns() {
    let dir = tempfile::tempdir().unwrap();
    chain_web(dir.path());
    let web = TestWeb::start(dir.path());
    let topic = dir.path().join("topic.toml");
    let out = dir.path().join("run");
    let followed = out.join("extract-follow.jsonl");
    // The reader writes a line per page the crawl has committed, on idle CPU: kill -9 once it
    // has read two pages (a stamp line first).
    let mut child = spawn(&topic, &out, &web.proxy());
    let deadline = Instant::now() + Duration::from_secs(60);
    let lines = |path: &Path| std::fs::read_to_string(path).map_or(0, |t| t.lines().count());
    while lines(&followed) < 3 {
        assert!(
            child.try_wait().unwrap().is_none() && Instant::now() < deadline,
            "the crawl ended before the reader that follows it read two pages"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let read_before_kill = lines(&followed) - 1;

    // The same command again: the crawl resumes, its reader appends to the file, and the
    // extraction takes what was read before the kill too.
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    assert_complete(&out);
    assert!(
        !followed.exists(),
        "the reader's file outlived the extraction"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let read_while_crawling = report["extract"]["read_while_crawling"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        read_while_crawling as usize >= read_before_kill.min(PAGES) - 1,
        "{read_while_crawling} pages taken from the reader's {read_before_kill} lines"
    );

    // In turns: the same crawl extracted and exported again from scratch.
    let turns = dir.path().join("turns");
    copy_dir(&out, &turns);
    std::fs::remove_file(turns.join("extract-cache.jsonl")).unwrap();
    assert_exit(
        &run_topic(&topic, &turns, &web.proxy(), &["--from", "extract"]),
        0,
    );
    let (streamed, in_turns) = (outputs(&out), outputs(&turns));
    assert_eq!(
        streamed.keys().collect::<Vec<_>>(),
        in_turns.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &streamed {
        assert!(
            in_turns[name] == *bytes,
            "{name} differs from a run in turns"
        );
    }
}

/// A copy of a folder and everything in it.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}
