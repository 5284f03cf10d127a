//! `glaneur monitor` against a simulated web whose pages change as Poisson processes of known
//! rates, on a virtual clock shared by the monitor and the server (months of revisits in
//! seconds): conditional requests, the change test (a page whose bytes change but whose text
//! does not), the estimates against the true rates, politeness across rounds, and a monitor
//! killed with SIGKILL that resumes without losing its history.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::{Rng, SeedableRng};

use crate::server::{Answer, Dynamic, TestWeb};
use crate::support::{assert_exit, db, glaneur, per_host};

const DAY: f64 = 86_400.0;
/// The virtual clock's start: 2027-01-15.
const T0: f64 = 1_800_000_000.0;

/// How a page's server speaks of its changes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dates {
    /// `Last-Modified` is the time of the last change, with an `ETag`.
    True,
    /// No validator at all (and a timestamp in the markup on every other page).
    Missing,
    /// `Last-Modified` is the time of the request, and a timestamp in the markup.
    Lying,
}

struct Page {
    /// Changes per second.
    rate: f64,
    dates: Dates,
    /// When it changed, in order (from 60 days before T0).
    changes: Vec<f64>,
}

struct SimWeb {
    pages: Vec<Page>,
    hosts: usize,
    clock: PathBuf,
}

impl SimWeb {
    fn new(n: usize, hosts: usize, seed: u64, clock: PathBuf) -> SimWeb {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let pages = (0..n)
            .map(|i| {
                // Log-uniform between one change in 4 days and 3 a day.
                let per_day = (0.25f64.ln() + rng.random::<f64>() * (12.0f64).ln()).exp();
                let rate = per_day / DAY;
                let mut t = T0 - 60.0 * DAY;
                let mut changes = Vec::new();
                while t < T0 + 800.0 * DAY {
                    t += -(1.0 - rng.random::<f64>()).ln() / rate;
                    changes.push(t);
                }
                let dates = [Dates::True, Dates::Missing, Dates::Lying][i % 3];
                Page {
                    rate,
                    dates,
                    changes,
                }
            })
            .collect();
        SimWeb {
            pages,
            hosts,
            clock,
        }
    }

    fn url(&self, i: usize) -> String {
        format!("http://m{}.test/p{i}.html", i % self.hosts)
    }

    fn answer(&self, host: &str, path: &str) -> Option<Answer> {
        let i: usize = path
            .strip_prefix("/p")?
            .strip_suffix(".html")?
            .parse()
            .ok()?;
        let page = self.pages.get(i)?;
        if host != format!("m{}.test", i % self.hosts) {
            return None;
        }
        let now: f64 = std::fs::read_to_string(&self.clock)
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let version = page.changes.partition_point(|&c| c <= now);
        let changed_at = page.changes[..version]
            .last()
            .copied()
            .unwrap_or(T0 - 60.0 * DAY);
        let http_date = |t: f64| {
            httpdate::fmt_http_date(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(t as u64),
            )
        };
        let mut headers = vec![(
            "Content-Type".to_string(),
            "text/html; charset=utf-8".to_string(),
        )];
        let stamp = match page.dates {
            Dates::True => {
                headers.push(("Last-Modified".to_string(), http_date(changed_at)));
                headers.push(("ETag".to_string(), format!("\"{i}-{version}\"")));
                false
            }
            Dates::Missing => i.is_multiple_of(2),
            Dates::Lying => {
                headers.push(("Last-Modified".to_string(), http_date(now)));
                true
            }
        };
        let markup = if stamp {
            format!("<!-- servi à {now:.0} --><div class=\"pub\" data-t=\"{now:.0}\"></div>")
        } else {
            String::new()
        };
        let body = format!(
            "<html lang=\"fr\"><head><title>Graphe {i}</title></head><body>{markup}\
             <p>Le graphe numéro {i} en est à sa version {version} : ses sommets et ses arêtes \
             sont décrits dans ce paragraphe, assez long pour être gardé comme texte.</p>\
             </body></html>"
        );
        Some((200, headers, body.into_bytes()))
    }
}

fn topic(dir: &Path, web: &SimWeb) -> PathBuf {
    topic_with(dir, web, "")
}

/// The monitor's topic with more `[crawl]` lines.
fn topic_with(dir: &Path, web: &SimWeb, crawl: &str) -> PathBuf {
    let seeds: Vec<String> = (0..web.pages.len())
        .map(|i| format!("\"{}\"", web.url(i)))
        .collect();
    let text = format!(
        "name = \"surveillance\"\nlanguages = [\"fr\"]\n\n[seeds]\nurls = [{}]\n\n\
         [formula]\nexpression = '\"graphe\"'\n\n[domains]\nallow = [\".test\"]\n\n\
         [crawl]\nmax_pages = 10000\nmax_depth = 0\nconcurrency = 8\ntimeout_seconds = 5\n{}\n\
         [politeness]\ncontact = \"mailto:test@example.org\"\ndelay_seconds = 0.02\n\n\
         [monitor]\ninterval_seconds = 86400\nmin_interval_seconds = 21600\n\
         max_interval_seconds = 2592000\n",
        seeds.join(", "),
        crawl
    );
    let path = dir.join("topic.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn start(web: SimWeb) -> (TestWeb, Arc<SimWeb>) {
    let web = Arc::new(web);
    let served = web.clone();
    let dynamic: Dynamic = Arc::new(move |host: &str, path: &str| served.answer(host, path));
    let empty = tempfile::tempdir().unwrap();
    (TestWeb::start_with(empty.path(), Some(dynamic)), web)
}

fn monitor_command(
    topic: &Path,
    out: &Path,
    proxy: &str,
    clock: &Path,
    visits: usize,
) -> std::process::Command {
    let mut cmd = glaneur();
    cmd.args(["monitor"])
        .arg(topic)
        .arg("--out")
        .arg(out)
        // The schedule's bounds come from the topic's [monitor] table.
        .args(["--proxy", proxy, "--for", "800d", "--quiet"])
        .args(["--visits", &visits.to_string()])
        .arg("--virtual-clock")
        .arg(clock);
    cmd
}

fn first_run(topic: &Path, out: &Path, proxy: &str, clock: &Path) {
    let output = glaneur()
        .arg("run")
        .arg(topic)
        .arg("--out")
        .arg(out)
        .args(["--proxy", proxy, "--quiet"])
        .arg("--virtual-clock")
        .arg(clock)
        .output()
        .unwrap();
    assert_exit(&output, 0);
}

/// url → estimated changes per day, from rates.csv.
fn estimates(out: &Path) -> HashMap<String, f64> {
    let mut reader = csv::Reader::from_path(out.join("rates.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (url, rate) = (col("url"), col("changes_per_day"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[url].to_string(), r[rate].parse().unwrap_or(f64::NAN))
        })
        .collect()
}

#[test]
fn monitor_estimates_known_change_rates_and_tells_markup_from_text() {
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    std::fs::write(&clock, format!("{T0}\n")).unwrap();
    let (server, web) = start(SimWeb::new(90, 6, 7, clock.clone()));
    let topic = topic(dir.path(), &web);
    let out = dir.path().join("run");
    first_run(&topic, &out, &server.proxy(), &clock);
    let output = monitor_command(&topic, &out, &server.proxy(), &clock, 20)
        .output()
        .unwrap();
    assert_exit(&output, 0);

    // Every page was revisited 20 times (plus its first visit).
    let conn = db(&out);
    let per_page: Vec<i64> = conn
        .prepare("SELECT COUNT(*) FROM visits GROUP BY url_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(per_page.len(), 90);
    assert!(per_page.iter().all(|&n| n >= 21), "{per_page:?}");
    let kinds: HashMap<String, i64> = conn
        .prepare("SELECT change, COUNT(*) FROM visits GROUP BY change")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // Validators gave 304s; the timestamped markup gave same-text visits.
    assert!(
        kinds.get("not-modified").copied().unwrap_or(0) > 30,
        "{kinds:?}"
    );
    assert!(
        kinds.get("same-text").copied().unwrap_or(0) > 100,
        "{kinds:?}"
    );
    assert!(
        kinds.get("same-bytes").copied().unwrap_or(0) > 0,
        "{kinds:?}"
    );
    let log = server.log();
    assert!(log.iter().any(|h| h.status == 304));
    // Politeness across rounds: no two requests to one server closer than the delay.
    for (host, hits) in per_host(&log) {
        for pair in hits.windows(2) {
            let gap = pair[1].start.duration_since(pair[0].end).as_secs_f64();
            assert!(
                gap >= 0.02,
                "{host}: {gap} s between {} and {}",
                pair[0].path,
                pair[1].path
            );
        }
    }
    // A lying Last-Modified is not used: those pages are estimated from change/no-change.
    let rates = std::fs::read_to_string(out.join("rates.csv")).unwrap();
    assert!(
        rates.contains("the Last-Modified date is the visit time"),
        "{rates}"
    );

    let estimated = estimates(&out);
    let (mut truth, mut guess, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for (i, page) in web.pages.iter().enumerate() {
        let per_day = page.rate * DAY;
        let e = estimated[&web.url(i)];
        truth.push(per_day);
        guess.push(e);
        errors.push((e - per_day).abs() / per_day);
    }
    errors.sort_by(f64::total_cmp);
    let rho = stages::change::spearman(&truth, &guess);
    let median = errors[errors.len() / 2];
    eprintln!(
        "monitor e2e: 90 pages, 20 revisits each: Spearman {rho:.3}, median relative error {:.1} %",
        median * 100.0
    );
    assert!(rho >= 0.9, "Spearman {rho}");
    assert!(median <= 0.25, "median relative error {median}");
}

#[test]
fn a_monitor_killed_mid_round_resumes_and_keeps_every_visit() {
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    std::fs::write(&clock, format!("{T0}\n")).unwrap();
    let mut sim = SimWeb::new(30, 3, 11, clock.clone());
    // A page in four never changes while watched: the refreshed corpus reads it from the cache.
    for page in sim.pages.iter_mut().step_by(4) {
        page.changes.retain(|&c| c < T0);
    }
    let (server, web) = start(sim);
    let topic = topic(dir.path(), &web);
    let out = dir.path().join("run");
    first_run(&topic, &out, &server.proxy(), &clock);
    let mut child = monitor_command(&topic, &out, &server.proxy(), &clock, 8)
        .spawn()
        .unwrap();
    // Wait for some revisits to be committed, then kill without warning.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let count = |out: &Path| -> i64 {
        rusqlite::Connection::open(out.join("crawl.sqlite"))
            .and_then(|c| c.query_row("SELECT COUNT(*) FROM visits", [], |r| r.get(0)))
            .unwrap_or(0)
    };
    while count(&out) < 60 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = visit_rows(&out);
    assert!(before.len() >= 60, "{}", before.len());

    let output = monitor_command(&topic, &out, &server.proxy(), &clock, 8)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let after = visit_rows(&out);
    // Nothing recorded before the kill was lost or rewritten.
    assert_eq!(&after[..before.len()], &before[..]);
    // And the resumed monitor finished the job: 8 revisits for every page.
    let short: i64 = db(&out)
        .query_row(
            "SELECT COUNT(*) FROM (SELECT url_id, COUNT(*) AS n FROM visits
               WHERE change <> 'failed' GROUP BY url_id) WHERE n < 9",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(short, 0);
    assert!(out.join("changes.csv").is_file());
    corpus_is_refreshed(&topic, &out, &web, dir.path());
}

#[test]
fn a_monitor_revisits_past_the_per_server_page_budget() {
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    std::fs::write(&clock, format!("{T0}\n")).unwrap();
    // 10 pages per server, a budget of 12 pages per server: the budget counts pages, and six
    // rounds of revisits (60 requests per server) must all happen.
    let (server, web) = start(SimWeb::new(30, 3, 5, clock.clone()));
    let topic = topic_with(dir.path(), &web, "max_pages_per_host = 12\n");
    let out = dir.path().join("run");
    first_run(&topic, &out, &server.proxy(), &clock);
    // In two invocations, so that the budget is also read back from the store.
    // A stalled monitor never ends: each invocation gets two minutes, then fails the test.
    for visits in [3, 6] {
        let mut child = monitor_command(&topic, &out, &server.proxy(), &clock, visits)
            .spawn()
            .unwrap();
        let status = end_within_two_minutes(&mut child, "the monitor stalled");
        assert!(status.success(), "{status:?}");
    }
    let short: i64 = db(&out)
        .query_row(
            "SELECT COUNT(*) FROM (SELECT u.id, COUNT(v.url_id) AS n FROM urls u
               LEFT JOIN visits v ON v.url_id = u.id AND v.change <> 'failed'
               WHERE u.state = 'fetched' GROUP BY u.id) WHERE n < 7",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(short, 0);
    let budget: i64 = db(&out)
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE reason = 'host-budget'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(budget, 0);
}

/// The child's exit status; killed, and the test failed with `stalled`, after two minutes (a
/// monitor that stalls never ends).
fn end_within_two_minutes(
    child: &mut std::process::Child,
    stalled: &str,
) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{stalled}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Every visit row: id, page, time, change.
fn visit_rows(out: &Path) -> Vec<(i64, i64, f64, String)> {
    db(out)
        .prepare("SELECT id, url_id, at, change FROM visits ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// After a monitor that found new versions, the corpus holds each page's last stored version;
/// only the pages stored again were read again; and it equals a full extraction.
fn corpus_is_refreshed(topic: &Path, out: &Path, web: &SimWeb, dir: &Path) {
    let conn = db(out);
    // url → (version stored last: the time of its last first or changed visit).
    let last: Vec<(String, f64)> = conn
        .prepare(
            "SELECT u.url, MAX(v.at) FROM visits v JOIN urls u ON u.id = v.url_id
             WHERE v.change IN ('first', 'changed') GROUP BY u.url",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let stored_again: i64 = conn
        .query_row(
            "SELECT COUNT(DISTINCT url_id) FROM visits WHERE change = 'changed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(stored_again > 0 && stored_again < web.pages.len() as i64);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let extract = &report["extract"];
    let pages = extract["pages"].as_i64().unwrap();
    let reused = extract["reused"].as_i64().unwrap_or(0);
    assert_eq!(pages, web.pages.len() as i64, "{extract}");
    eprintln!("refresh: {pages} pages, {reused} from the cache, {stored_again} stored again");
    assert_eq!(pages - reused, stored_again, "{extract}");

    let docs = std::fs::read_to_string(out.join("docs.jsonl")).unwrap();
    let mut seen = 0;
    for line in docs.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let url = doc["url"].as_str().unwrap();
        let i: usize = url
            .rsplit("/p")
            .next()
            .and_then(|p| p.strip_suffix(".html"))
            .and_then(|n| n.parse().ok())
            .unwrap();
        let at = last.iter().find(|(u, _)| u == url).unwrap().1;
        let version = web.pages[i].changes.partition_point(|&c| c <= at);
        let text = doc["paragraphs"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("à sa version {version} :")),
            "{url} at {at}: {text}"
        );
        seen += 1;
    }
    eprintln!("refresh: {seen} documents hold their last version");
    assert!(seen > 0);

    // A full extraction of the same stored copies gives the same corpus.
    let full = dir.join("full");
    std::fs::create_dir_all(&full).unwrap();
    for name in ["crawl.sqlite", "topic.toml"] {
        std::fs::copy(out.join(name), full.join(name)).unwrap();
    }
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    };
    copy(&out.join("warc"), &full.join("warc"));
    let output = glaneur()
        .arg("run")
        .arg(topic)
        .arg("--out")
        .arg(&full)
        .args(["--from", "extract", "--quiet"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(full.join("report.json")).unwrap()).unwrap();
    assert!(report["extract"].get("reused").is_none(), "{report}");
    assert_eq!(
        std::fs::read_to_string(full.join("docs.jsonl")).unwrap(),
        docs
    );
}

/// A server whose robots.txt comes to disallow every page after the first run: the monitor
/// keeps the stored pages (they stay documents), records why they are not visited, goes on
/// with the other server, and ends (it neither spins on rounds that can visit nothing nor
/// waits forever).
#[test]
fn a_monitor_keeps_the_pages_robots_txt_now_disallows_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    std::fs::write(&clock, format!("{T0}\n")).unwrap();
    let closed = dir.path().join("closed");
    let web = Arc::new(SimWeb::new(12, 2, 9, clock.clone()));
    let served = web.clone();
    let flag = closed.clone();
    let dynamic: Dynamic = Arc::new(move |host: &str, path: &str| {
        if path == "/robots.txt" {
            let body = if host == "m0.test" && flag.exists() {
                "User-agent: *\nDisallow: /\n"
            } else {
                "User-agent: *\nDisallow:\n"
            };
            return Some((
                200,
                vec![("Content-Type".to_string(), "text/plain".to_string())],
                body.as_bytes().to_vec(),
            ));
        }
        served.answer(host, path)
    });
    let empty = tempfile::tempdir().unwrap();
    let server = TestWeb::start_with(empty.path(), Some(dynamic));
    let topic = topic(dir.path(), &web);
    let out = dir.path().join("run");
    first_run(&topic, &out, &server.proxy(), &clock);
    let fetched = |host: &str| -> i64 {
        db(&out)
            .query_row(
                "SELECT COUNT(*) FROM urls WHERE state = 'fetched' AND host LIKE ?1",
                [format!("%{host}%")],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!((fetched("m0.test"), fetched("m1.test")), (6, 6));
    std::fs::write(&closed, "").unwrap();
    // The copies of robots.txt read by the first run are two days old (robots.txt is read again
    // after a day of the real clock; the virtual one runs months in seconds).
    db(&out)
        .execute(
            "UPDATE hosts SET robots_fetched_at = robots_fetched_at - 172800",
            [],
        )
        .unwrap();
    let mut child = monitor_command(&topic, &out, &server.proxy(), &clock, 3)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = end_within_two_minutes(&mut child, "the monitor never ended");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    eprintln!("{stderr}");
    assert!(status.success(), "{status:?}\n{stderr}");
    // The harvested pages stay documents.
    assert_eq!((fetched("m0.test"), fetched("m1.test")), (6, 6), "{stderr}");
    // The open server's pages had their visits; the closed one's none, and the reason is said.
    let visits = |host: &str| -> i64 {
        db(&out)
            .query_row(
                "SELECT COUNT(*) FROM visits v JOIN urls u ON u.id = v.url_id
                 WHERE u.host LIKE ?1 AND v.change <> 'failed'",
                [format!("%{host}%")],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!(visits("m1.test"), 6 * 4, "{stderr}");
    assert_eq!(visits("m0.test"), 6, "{stderr}");
    assert!(stderr.contains("robots.txt"), "{stderr}");
    assert!(stderr.contains("m0.test"), "{stderr}");
}
