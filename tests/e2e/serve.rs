//! `glaneur serve` in a real browser: `tests/check_serve.py` drives headless Chromium (Selenium
//! and Debian's chromedriver) against the server while it crawls the local test web; here, the
//! server, the web, and what the web's access log says about the runs started from the browser.

use std::io::BufRead;
use std::process::{Command, Stdio};

use crate::server::TestWeb;
use crate::support::*;

/// The basic scenario's topic, slowed down so that a crawl lasts several seconds.
pub fn slow_topic(corpora: &std::path::Path, name: &str) {
    let dir = corpora.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(scenario("basic").join("topic.toml"))
        .unwrap()
        .replace("delay_seconds = 0.2", "delay_seconds = 1.0")
        .replace("concurrency = 4", "concurrency = 2");
    std::fs::write(dir.join("topic.toml"), text).unwrap();
}

/// Kills the server when the test ends, however it ends.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `glaneur serve CORPORA --port 0 EXTRA…`; the server (killed when dropped) and the
/// address its first line prints.
pub fn start_serve(corpora: &std::path::Path, extra: &[&str]) -> (Server, String) {
    spawn_serve(corpora, extra, Stdio::inherit())
}

/// [`start_serve`] with serve's stderr going to `stderr` (piped: read once it is killed).
pub fn spawn_serve(corpora: &std::path::Path, extra: &[&str], stderr: Stdio) -> (Server, String) {
    let mut child = glaneur()
        .arg("serve")
        .arg(corpora)
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let address = first_address(&mut child);
    (Server(child), address)
}

/// The address serve's first line prints.
pub fn first_address(child: &mut std::process::Child) -> String {
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in `{first}`"))
        .to_string()
}

#[test]
fn the_web_interface_starts_follows_stops_and_explains_runs_in_a_browser() {
    let web = TestWeb::start(&scenario("basic"));
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    slow_topic(&corpora, "arret");
    let (server, address) = start_serve(&corpora, &["--proxy", &web.proxy()]);
    let base = address.trim_end_matches('/').to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");

    let shots = repo().join("target/e2e-screenshots");
    let check = Command::new("python3")
        .arg(repo().join("tests/check_serve.py"))
        .arg(&base)
        .arg("graphes")
        .arg(corpora.join("graphes/run"))
        .arg("arret")
        .arg(corpora.join("arret/run"))
        .arg(&shots)
        .arg("nouveau")
        .arg(
            repo()
                .join("tests/data/serp/warcs/ask-caring-1173637789.warc.gz")
                .canonicalize()
                .unwrap(),
        )
        .arg(env!("CARGO_BIN_EXE_glaneur"))
        .output()
        .expect("python3 runs tests/check_serve.py");
    let printed = String::from_utf8_lossy(&check.stdout);
    println!("{printed}");
    assert!(
        check.status.success(),
        "tests/check_serve.py failed (Selenium: `pip install -r tests/requirements.txt`; \
         Chromium and chromedriver: `apt-get install chromium chromium-driver`)\n{printed}\n{}\n\
         run log: {}",
        String::from_utf8_lossy(&check.stderr),
        std::fs::read_to_string(corpora.join("graphes/serve-run.log")).unwrap_or_default()
    );
    drop(server);

    // The topic written from the form passes `glaneur check`, with its uploaded result page.
    let checked = glaneur()
        .arg("check")
        .arg(corpora.join("nouveau"))
        .output()
        .unwrap();
    assert_exit(&checked, 0);
    let text = std::fs::read_to_string(corpora.join("nouveau/topic.toml")).unwrap();
    let topic: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(
        topic["formula"]["expression"].as_str(),
        Some("(\"graphe*\" OU \"sommet*\") ET NON \"graffiti\""),
        "{text}"
    );
    assert_eq!(
        topic["seeds"]["result_pages"][0].as_str(),
        Some("serp/ask-caring-1173637789.warc.gz")
    );
    assert_eq!(topic["crawl"]["max_pages"].as_integer(), Some(20));
    assert!(
        corpora
            .join("nouveau/serp/ask-caring-1173637789.warc.gz")
            .is_file()
    );
    // The template's comments are kept.
    assert!(
        text.contains("# A glaneur topic: what to gather and how."),
        "{text}"
    );

    // The server's access log: both runs polite (one request at a time per host, every gap at
    // least the delay), and the stopped run, once resumed, fetched no page twice.
    let log = web.log();
    for (host, hits) in per_host(&log) {
        for pair in hits.windows(2) {
            assert!(
                pair[1].start >= pair[0].end,
                "two requests in flight on {host}: {:?}",
                pair
            );
        }
    }
    let requests = |run: &str| {
        let conn = db(&corpora.join(run).join("run"));
        let n: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM urls WHERE state IN ('fetched', 'failed')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        n as usize
    };
    let pages = requests("graphes") + requests("arret");
    let robots = log.iter().filter(|h| h.path == "/robots.txt").count();
    assert_eq!(
        log.len() - robots,
        pages,
        "the server saw {} page requests for {pages} URLs fetched by the two runs",
        log.len() - robots
    );
}

/// One HTTP/1.1 GET on `port` of this machine: the status line and the headers and body.
fn get(port: u16, path_and_cookie: (&str, Option<&str>)) -> (String, String) {
    use std::io::{Read, Write};
    let (path, cookie) = path_and_cookie;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n{cookie}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.lines().next().unwrap_or_default().to_string();
    (status, answer)
}

#[test]
fn beyond_this_machine_every_request_needs_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    // "glaneur serve: http://0.0.0.0:PORT/?token=TOKEN (…)"
    let (_server, address) = start_serve(&corpora, &["--bind", "0.0.0.0"]);
    let (port, token) = address
        .trim_start_matches("http://0.0.0.0:")
        .split_once("/?token=")
        .unwrap_or_else(|| panic!("no token in `{address}`"));
    let port: u16 = port.parse().unwrap();
    assert_eq!(token.len(), 32, "{token}");
    for path in [
        "/",
        "/runs/graphes",
        "/runs/graphes/events",
        "/assets/uplot.js",
    ] {
        let (status, _) = get(port, (path, None));
        assert!(
            status.contains(" 403 "),
            "{path} without the token: {status}"
        );
    }
    let (status, _) = get(port, ("/?token=wrong", None));
    assert!(status.contains(" 403 "), "a wrong token: {status}");
    let (status, answer) = get(port, (&format!("/?token={token}"), None));
    assert!(status.contains(" 200 "), "{status}");
    assert!(
        answer.contains(&format!("glaneur_token={token}; Path=/; HttpOnly")),
        "{answer}"
    );
    // Then the cookie alone opens every page.
    let (status, answer) = get(
        port,
        ("/runs/graphes", Some(&format!("glaneur_token={token}"))),
    );
    assert!(
        status.contains(" 200 ") && answer.contains("Run of"),
        "{status}"
    );
}
