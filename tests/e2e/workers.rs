//! `glaneur worker` and `glaneur collect`: three workers share one crawl through a throw-away
//! PostgreSQL server; one is killed with kill -9 in the middle.
//!
//! The web: ten servers of 12 French pages about graphs; each server's start page links to
//! all its pages and to the next server's start page (the first one to every server), each
//! page to the next two. Politeness 0.25 s, 20 ms per response; leases of 3 s. What is checked, from the server's log and the
//! folders: never two requests in flight to one server and every gap ≥ the delay (across
//! workers and across the kill); no page asked twice except around the kill (in flight, or
//! fetched in the killed worker's last uncommitted second); the killed worker's servers taken
//! over; each worker's share of the pages before the kill (fair leases); the collected corpus
//! equal to a single process's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::postgres::PgServer;
use crate::server::{Hit, TestWeb};
use crate::support::*;

pub(crate) const HOSTS: usize = 10;
pub(crate) const PAGES: usize = 12;
pub(crate) const DELAY: f64 = 0.25;

pub(crate) fn write_web(root: &Path) {
    for h in 0..HOSTS {
        let dir = root.join(format!("h{h}.test"));
        std::fs::create_dir_all(&dir).unwrap();
        let next = (h + 1) % HOSTS;
        for i in 0..PAGES {
            let links: String = if i == 0 {
                (1..PAGES)
                    .map(|j| format!("<li><a href=\"/p{j}.html\">Graphe {j}</a></li>"))
                    .chain(std::iter::once(format!(
                        "<li><a href=\"http://h{next}.test/\">Les graphes du serveur {next}</a></li>"
                    )))
                    // The first server's start page knows every server: there is work for
                    // every worker soon after the start.
                    .chain((1..HOSTS).filter(|_| h == 0).map(|k| {
                        format!("<li><a href=\"http://h{k}.test/\">Graphes {k}</a></li>")
                    }))
                    .collect()
            } else {
                (i + 1..=i + 2)
                    .filter(|j| *j < PAGES)
                    .map(|j| format!("<li><a href=\"/p{j}.html\">Graphe {j}</a></li>"))
                    .collect()
            };
            let page = format!(
                "<!DOCTYPE html><html lang=\"fr\"><head><meta charset=\"utf-8\"><title>Serveur {h}, graphe {i}</title></head><body>\
                 <h1>Serveur {h}, graphe numéro {i}</h1>\
                 <p>Le graphe numéro {i} du serveur {h} possède {} sommets et {} arêtes. Chaque sommet est relié à ses voisins les plus proches, et le degré moyen du graphe vaut {}.</p>\
                 <p>On parcourt ce graphe en largeur à partir du sommet zéro : la distance de chaque sommet à l'origine se lit sur l'arbre couvrant obtenu, qui compte {} niveaux.</p>\
                 <ul>{links}</ul></body></html>",
                i + 3 + h,
                2 * i + 5 + h,
                (i % 4) + 2,
                (i % 5) + h + 1,
            );
            let name = if i == 0 {
                "index.html".to_string()
            } else {
                format!("p{i}.html")
            };
            std::fs::write(dir.join(name), page).unwrap();
        }
    }
    std::fs::write(root.join("_routes.toml"), "delay_ms = 20\n").unwrap();
    std::fs::write(
        root.join("topic.toml"),
        format!(
            r#"name = "graphes-partages"
languages = ["fr"]
[seeds]
urls = ["http://h0.test/"]
[formula]
expression = '"graphe*"'
[crawl]
concurrency = 8
max_depth = 100
strategy = "breadth-first"
[politeness]
contact = "mailto:test@example.org"
delay_seconds = {DELAY}
[text]
near_duplicates = false
boilerplate_min_pages = 1000
"#
        ),
    )
    .unwrap();
}

fn spawn_worker(topic: &Path, out: &Path, store: &str, name: &str, proxy: &str) -> Child {
    spawn_worker_leased(topic, out, store, name, proxy, "3")
}

/// `glaneur worker` processes of these names on one crawl, each ending with success.
pub(crate) fn run_workers(topic: &Path, out: &Path, store: &str, names: &[&str], proxy: &str) {
    let workers: Vec<Child> = names
        .iter()
        .map(|name| spawn_worker(topic, out, store, name, proxy))
        .collect();
    for mut w in workers {
        assert!(w.wait().unwrap().success());
    }
}

/// `glaneur collect OUT`, ending with success.
pub(crate) fn collect_ok(out: &Path) {
    assert_exit(
        &glaneur()
            .arg("collect")
            .arg(out)
            .arg("--quiet")
            .output()
            .unwrap(),
        0,
    );
}

/// A `glaneur worker` whose leases last `lease` seconds.
pub(crate) fn spawn_worker_leased(
    topic: &Path,
    out: &Path,
    store: &str,
    name: &str,
    proxy: &str,
    lease: &str,
) -> Child {
    glaneur()
        .arg("worker")
        .arg(topic)
        .arg("--out")
        .arg(out)
        .args(["--store", store, "--name", name, "--lease-seconds", lease])
        .args(["--proxy", proxy, "--quiet"])
        .env("GLANEUR_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

pub(crate) fn pages_served(web: &TestWeb) -> usize {
    web.log().iter().filter(|h| h.path != "/robots.txt").count()
}

/// The corpus as (URL, paragraphs) pairs.
pub(crate) fn corpus(out: &Path) -> BTreeSet<(String, String)> {
    docs(out)
        .iter()
        .map(|d| {
            (
                d["url"].as_str().unwrap().to_string(),
                d["paragraphs"].to_string(),
            )
        })
        .collect()
}

/// The pages each worker of `shared` has committed since the last of the three fetched its
/// first page (all zero until each has one), and the pages fetched before that.
fn shares_since_all_joined(shared: &Path) -> ([usize; 3], usize) {
    let times: Vec<Vec<f64>> = ["w1", "w2", "w3"]
        .iter()
        .map(|name| {
            let path = shared.join("workers").join(name).join("crawl.sqlite");
            let Ok(db) = rusqlite::Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            ) else {
                return Vec::new();
            };
            db.prepare("SELECT fetched_at FROM urls WHERE state = 'fetched' AND fetched_at > 0")
                .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
                .unwrap_or_default()
        })
        .collect();
    if times.iter().any(Vec::is_empty) {
        return ([0; 3], 0);
    }
    let joined = times
        .iter()
        .map(|t| t.iter().copied().fold(f64::INFINITY, f64::min))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut shares = [0; 3];
    let mut before = 0;
    for (share, t) in shares.iter_mut().zip(&times) {
        *share = t.iter().filter(|&&at| at >= joined).count();
        before += t.len() - *share;
    }
    (shares, before)
}

#[test]
fn three_workers_one_killed_share_a_polite_crawl_and_collect_the_single_process_corpus() {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    let topic = dir.path().join("topic.toml");

    // The reference: one process, SQLite only.
    let single_web = TestWeb::start(dir.path());
    let single = dir.path().join("single");
    let started = Instant::now();
    assert_exit(&run_topic(&topic, &single, &single_web.proxy(), &[]), 0);
    eprintln!("single process: {:.1} s", started.elapsed().as_secs_f64());
    let expected = corpus(&single);
    assert_eq!(expected.len(), HOSTS * PAGES, "the single run's corpus");

    let pg = PgServer::start();
    let web = TestWeb::start(dir.path());
    let shared = dir.path().join("workers-run");
    let shared_started = Instant::now();
    let mut workers: Vec<Child> = ["w1", "w2", "w3"]
        .iter()
        .map(|name| spawn_worker(&topic, &shared, &pg.url(), name, &web.proxy()))
        .collect();
    // Kill the worker that holds the most servers, once some pages are fetched.
    let deadline = Instant::now() + Duration::from_secs(60);
    let (victim, victim_hosts) = loop {
        assert!(
            Instant::now() < deadline,
            "no worker holds a server, or the three did not fetch 24 pages together: {:?}",
            shares_since_all_joined(&shared)
        );
        let ready = pg.sql("SELECT to_regclass('glaneur.hosts') IS NOT NULL") == "t";
        let held = if ready {
            pg.sql(
                "SELECT owner || '|' || string_agg(host, ' ' ORDER BY host) FROM glaneur.hosts
                 WHERE owner IS NOT NULL GROUP BY owner ORDER BY count(*) DESC, owner LIMIT 1",
            )
        } else {
            String::new()
        };
        // Enough pages, and enough of them fetched once all three had joined (a worker
        // that starts late on a loaded machine has had no share to take before it started).
        let (shares, _) = shares_since_all_joined(&shared);
        if pages_served(&web) >= HOSTS * PAGES * 2 / 5
            && shares.iter().sum::<usize>() >= 24
            && let Some((owner, hosts)) = held.split_once('|')
        {
            break (owner.to_string(), hosts.to_string());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Each worker's part of the pages fetched (and committed) since the last one joined: the
    // servers are shared, not all leased by the first worker to ask.
    let (shares, before) = shares_since_all_joined(&shared);
    let total: usize = shares.iter().sum();
    eprintln!(
        "pages per worker before the kill, since all three joined: {shares:?} of {total} \
         (before: {before})"
    );
    for (i, n) in shares.iter().enumerate() {
        assert!(
            *n * 100 >= total * 15,
            "worker w{} fetched {n} of {total} pages before the kill: {shares:?}",
            i + 1
        );
    }
    let index: usize = victim.trim_start_matches('w').parse().unwrap();
    let killed = &mut workers[index - 1];
    killed.kill().unwrap();
    killed.wait().unwrap();
    let killed_at = Instant::now();
    // What each server had served by then: a server whose pages were all fetched before the
    // kill has nothing left for another worker to take over.
    let served_before = per_host(&web.log());
    eprintln!(
        "{victim} killed after {:.1} s, holding {victim_hosts}",
        (killed_at - shared_started).as_secs_f64()
    );
    for (i, child) in workers.iter_mut().enumerate() {
        if i + 1 == index {
            continue;
        }
        let status = child.wait().unwrap();
        let err = "";
        assert!(status.success(), "worker w{}: {status:?}\n{err}", i + 1);
    }
    eprintln!(
        "workers ended after {:.1} s",
        shared_started.elapsed().as_secs_f64()
    );
    let log = web.log();

    // Politeness across workers and across the kill.
    assert_polite(&log);
    // The killed worker's servers were taken over: requests to them after the kill (those that
    // still had pages to give).
    for host in victim_hosts.split(' ') {
        let name = host.trim_start_matches("http://");
        let name = name.split(':').next().unwrap();
        let done = served_before.get(name).map_or(0, |hits| {
            hits.iter()
                .filter(|h| h.path != "/robots.txt")
                .map(|h| &h.path)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        });
        if done >= PAGES {
            continue;
        }
        assert!(
            log.iter().any(|h| h.host == name && h.start > killed_at),
            "{host}, leased by the killed worker, was not taken over"
        );
    }
    // No page twice, except those the killed worker had in flight or had not committed (a
    // worker commits every 0.2 s): asked first at most 1 s before the kill, at most two per
    // server it held.
    let mut asked: BTreeMap<(String, String), Vec<&Hit>> = BTreeMap::new();
    for hit in log.iter().filter(|h| h.path != "/robots.txt") {
        asked
            .entry((hit.host.clone(), hit.path.clone()))
            .or_default()
            .push(hit);
    }
    let twice: Vec<_> = asked.iter().filter(|(_, hits)| hits.len() > 1).collect();
    for ((host, path), hits) in &twice {
        assert_eq!(hits.len(), 2, "{host}{path} asked {} times", hits.len());
        let first = hits.iter().map(|h| h.start).min().unwrap();
        assert!(
            first + Duration::from_millis(1000) >= killed_at && first <= killed_at,
            "{host}{path} asked twice, first long before the kill"
        );
    }
    let held = victim_hosts.split(' ').count();
    assert!(
        twice.len() <= 2 * held,
        "{} pages asked twice: {twice:?}",
        twice.len()
    );
    assert_eq!(asked.len(), HOSTS * PAGES, "every page asked");
    eprintln!(
        "workers: {} page requests for {} pages ({} asked twice around the kill)",
        log.iter().filter(|h| h.path != "/robots.txt").count(),
        asked.len(),
        twice.len()
    );
    // The shared frontier has nothing left.
    assert_eq!(
        pg.sql("SELECT count(*) FROM glaneur.urls WHERE state <> 'd'"),
        "0"
    );
    assert_eq!(
        pg.sql(
            "SELECT count(*) FROM glaneur.hosts WHERE owner IS NOT NULL AND lease_until > now()"
        ),
        "0"
    );

    // Collected: an ordinary run folder with the single process's corpus.
    let stdout = collect_checked(&shared, &expected);
    assert!(
        stdout.contains(&format!("collected worker {victim}")),
        "{stdout}"
    );
    // Every URL with the single process's state and reason.
    let decisions = |out: &Path| -> BTreeMap<String, String> {
        text_pairs(
            out,
            "SELECT url, state || ' ' || COALESCE(reason, '') FROM urls",
        )
    };
    assert_eq!(decisions(&shared), decisions(&single));
    // The two workers that ended read their own pages; collect read again only the killed
    // worker's (and any page another worker fetched first).
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shared.join("report.json")).unwrap())
            .unwrap();
    let reused = report["extract"]["reused"].as_u64().unwrap();
    let pages = report["extract"]["pages"].as_u64().unwrap();
    let victim_pages =
        rusqlite::Connection::open(shared.join("workers").join(&victim).join("crawl.sqlite"))
            .unwrap()
            .query_row(
                "SELECT count(*) FROM urls WHERE state = 'fetched' AND warc_offset IS NOT NULL",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap();
    eprintln!(
        "collect: {reused} of {pages} pages read by the workers, {victim_pages} by the killed one"
    );
    assert!(
        reused + u64::try_from(victim_pages).unwrap() >= pages && reused > 0,
        "{reused} of {pages} pages reused, {victim_pages} fetched by {victim}"
    );
}

/// Never two requests in flight to one server, and every gap between two of them at least
/// the topic's delay, whichever worker sent them.
pub(crate) fn assert_polite(log: &[Hit]) {
    for (host, hits) in per_host(log) {
        let mut hits = hits;
        hits.sort_by_key(|h| h.start);
        for pair in hits.windows(2) {
            assert!(
                pair[1].start >= pair[0].end,
                "{host}: two requests in flight {pair:?}"
            );
            let gap = pair[1].start.duration_since(pair[0].end);
            assert!(
                gap >= Duration::from_secs_f64(DELAY),
                "{host}: gap {gap:?} < {DELAY} s between {} and {}",
                pair[0].path,
                pair[1].path
            );
        }
    }
}

/// `glaneur collect RUN`, then checks the collected folder: the corpus is `expected`, the WARC
/// file verifies, each URL is settled with a reason. Returns what collect printed.
pub(crate) fn collect_checked(run: &Path, expected: &BTreeSet<(String, String)>) -> String {
    let out = glaneur()
        .arg("collect")
        .arg(run)
        .arg("--quiet")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let got = corpus(run);
    assert_eq!(got.len(), expected.len(), "{stdout}");
    assert_eq!(&got, expected);
    // Every stored response reads back from the collected WARC file.
    let verify = glaneur().arg("verify").arg(run).output().unwrap();
    assert_exit(&verify, 0);
    // Each URL once, settled.
    let db = db(run);
    let queued: i64 = db
        .query_row(
            "SELECT count(*) FROM urls WHERE state = 'queued'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(queued, 0);
    let reasonless: i64 = db
        .query_row(
            "SELECT count(*) FROM urls WHERE COALESCE(reason, '') = ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reasonless, 0);
    stdout
}

#[test]
fn run_with_a_postgres_store_gives_the_single_process_corpus_and_joins_again_after_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    let topic = dir.path().join("topic.toml");
    let single_web = TestWeb::start(dir.path());
    let single = dir.path().join("single");
    assert_exit(&run_topic(&topic, &single, &single_web.proxy(), &[]), 0);

    let pg = PgServer::start();
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("one-worker");
    // Stopped in the middle (SIGINT, as Ctrl-C), then run again: a second worker goes on.
    let mut first = run_command(&topic, &out, &web.proxy(), &["--store", &pg.url()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while pages_served(&web) < 20 {
        assert!(Instant::now() < deadline, "nothing fetched");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(first.wait().unwrap().code(), Some(130));
    let served_before = pages_served(&web);
    assert!(
        served_before < HOSTS * PAGES,
        "the first run was stopped before its end"
    );
    // Stopped cleanly: nothing left taken, every lease given back.
    assert_eq!(
        pg.sql("SELECT count(*) FROM glaneur.urls WHERE state = 't'"),
        "0"
    );
    assert_eq!(
        pg.sql("SELECT count(*) FROM glaneur.hosts WHERE owner IS NOT NULL"),
        "0"
    );
    let again = run_topic(&topic, &out, &web.proxy(), &["--store", &pg.url()]);
    assert_exit(&again, 0);
    // Nothing asked twice across the stop (a clean stop settles what was in flight).
    let mut asked = BTreeMap::new();
    for hit in web.log().iter().filter(|h| h.path != "/robots.txt") {
        *asked
            .entry((hit.host.clone(), hit.path.clone()))
            .or_insert(0) += 1;
    }
    assert!(asked.values().all(|&n| n == 1), "{asked:?}");
    assert_eq!(asked.len(), HOSTS * PAGES);
    assert_eq!(corpus(&out), corpus(&single));
    // Both workers' folders were collected.
    let workers = std::fs::read_dir(out.join("workers")).unwrap().count();
    assert_eq!(workers, 2);
}

/// The seed review of `glaneur seeds` holds for a shared crawl: a seed the user dropped is never
/// requested by any worker, and the collected store says why.
#[test]
fn workers_follow_the_seed_review() {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    // Two seeds: the first server and the sixth; the sixth is linked from the first only by its
    // start page, the seed the user drops.
    let topic = dir.path().join("topic.toml");
    let text = std::fs::read_to_string(&topic).unwrap().replace(
        "urls = [\"http://h0.test/\"]",
        "urls = [\"http://h0.test/\", \"http://h5.test/\"]",
    );
    std::fs::write(&topic, text).unwrap();
    let out = dir.path().join("collected");
    let web = TestWeb::start(dir.path());
    let review = glaneur()
        .arg("seeds")
        .arg(&topic)
        .arg("--out")
        .arg(&out)
        .args(["--proxy", &web.proxy(), "--quiet"])
        .output()
        .unwrap();
    assert_exit(&review, 0);
    let path = out.join("seeds-review.tsv");
    let reviewed = std::fs::read_to_string(&path).unwrap();
    assert!(reviewed.contains("yes\thttp://h5.test/"), "{reviewed}");
    std::fs::write(
        &path,
        reviewed.replace("yes\thttp://h5.test/", "no\thttp://h5.test/"),
    )
    .unwrap();
    let pg = PgServer::start();
    run_workers(&topic, &out, &pg.url(), &["w1", "w2"], &web.proxy());
    let log = web.log();
    assert!(
        !log.iter()
            .any(|h| h.host == "h5.test" && h.path != "/robots.txt"),
        "a dropped seed's server was asked"
    );
    assert!(log.iter().any(|h| h.host == "h4.test"));
    collect_ok(&out);
    let reason: String = db(&out)
        .query_row(
            "SELECT state || ' ' || reason FROM urls WHERE url = 'http://h5.test/'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reason, "skipped seed-dropped");
}

/// `max_pages_per_host` counts every worker's requests to a server (the servers move between
/// workers): the collected crawl gives each server the single process's number of pages, and
/// every other URL the single process's reason.
#[test]
fn the_per_server_budget_holds_across_workers() {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    let topic = dir.path().join("topic.toml");
    let text = std::fs::read_to_string(&topic).unwrap().replace(
        "max_depth = 100\n",
        "max_depth = 100\nmax_pages_per_host = 5\n",
    );
    std::fs::write(&topic, text).unwrap();
    let single = dir.path().join("single");
    let single_web = TestWeb::start(dir.path());
    assert_exit(&run_topic(&topic, &single, &single_web.proxy(), &[]), 0);
    let pg = PgServer::start();
    let web = TestWeb::start(dir.path());
    let out = dir.path().join("collected");
    run_workers(&topic, &out, &pg.url(), &["w1", "w2", "w3"], &web.proxy());
    collect_ok(&out);
    let per_host = |out: &Path| -> BTreeMap<String, String> {
        text_pairs(
            out,
            "SELECT host, CAST(COUNT(*) AS TEXT) FROM urls WHERE state = 'fetched' GROUP BY host",
        )
    };
    let expected = per_host(&single);
    assert_eq!(expected.len(), HOSTS);
    assert!(expected.values().all(|n| n == "5"), "{expected:?}");
    assert_eq!(per_host(&out), expected);
    // Pages asked of the web: five per server, none more.
    let asked = per_host_hits(&web);
    assert!(asked.values().all(|n| *n == 5), "{asked:?}");
    let reasons = |out: &Path| -> BTreeMap<String, String> {
        text_pairs(
            out,
            "SELECT state || ' ' || COALESCE(reason, ''), CAST(COUNT(*) AS TEXT) FROM urls
             GROUP BY 1",
        )
    };
    assert_eq!(reasons(&out), reasons(&single));
}

/// Page requests per server in the web's log (robots.txt aside).
fn per_host_hits(web: &TestWeb) -> BTreeMap<String, usize> {
    let mut asked = BTreeMap::new();
    for hit in web.log().iter().filter(|h| h.path != "/robots.txt") {
        *asked.entry(hit.host.clone()).or_insert(0) += 1;
    }
    asked
}
