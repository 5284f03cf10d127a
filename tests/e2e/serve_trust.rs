//! `glaneur serve` as a door into the user's machine: only its own names are served, no other
//! site (in a real browser: forms, `fetch`, images, DNS rebinding) changes anything, slow and
//! idle clients never keep a request out, a run starts once however many ask and outlives a
//! Ctrl-C in serve's terminal, a slow concordance is stopped with 503 while other requests are
//! served, and the topic form writes only the topic its URL names, only when it validates.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::serve::{Server, first_address, slow_topic, spawn_serve, start_serve};
use crate::server::TestWeb;
use crate::support::*;

/// The port of an address `http://127.0.0.1:PORT/`.
fn port_of(address: &str) -> u16 {
    address
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| panic!("no port in {address}"))
}

/// One HTTP/1.1 request (`Connection: close`); the status and the whole answer. `headers`
/// may set `Host` (the default is 127.0.0.1:PORT).
fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    // A server that answers before reading a large body may close the connection meanwhile.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

/// A same-origin POST, as the server's own pages send it.
fn post(port: u16, path: &str) -> (u16, String) {
    let origin = format!("http://127.0.0.1:{port}");
    request(port, "POST", path, &[("Origin", &origin)], b"")
}

#[test]
fn only_its_own_names_are_served_and_no_other_site_changes_anything() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    let (mut server, address) = spawn_serve(&corpora, &[], Stdio::piped());
    let port = port_of(&address);
    let host = |h: &str| request(port, "GET", "/", &[("Host", h)], b"").0;
    for name in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "app.localhost".to_string(),
    ] {
        assert_eq!(host(&name), 200, "{name}");
    }
    for name in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost.evil.example:{port}"),
        "10.1.2.3".to_string(),
    ] {
        assert_eq!(host(&name), 421, "{name}");
    }
    // Cross-site state changes over plain HTTP: refused, with no effect.
    for headers in [
        vec![("Origin", "http://evil.example")],
        vec![("Origin", "null")],
        vec![("Sec-Fetch-Site", "cross-site")],
        vec![("Sec-Fetch-Site", "same-site")],
    ] {
        for path in [
            "/runs/graphes/start",
            "/runs/graphes/subcorpora",
            "/runs/graphes/subcorpora/keep/delete",
            "/runs/graphes/seeds",
        ] {
            let (status, answer) = request(port, "POST", path, &headers, b"name=evil");
            assert_eq!(status, 403, "{path} {headers:?}: {answer}");
            assert!(answer.contains("refused"), "{answer}");
        }
    }
    // In a real browser: forms, fetches and an image from other sites, and a rebound name.
    let check = Command::new("python3")
        .arg(repo().join("tests/check_cross_site.py"))
        .arg(port.to_string())
        .arg("graphes")
        .output()
        .expect("python3 runs tests/check_cross_site.py");
    let printed = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "tests/check_cross_site.py failed\n{printed}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let seen: serde_json::Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(
        seen["rebound_statuses"],
        serde_json::json!([421, 421, 421]),
        "{seen}"
    );
    assert!(
        seen["rebound_page"]
            .as_str()
            .is_some_and(|t| t.contains("does not answer to the name")),
        "{seen}"
    );
    assert!(
        seen["navigated_page"]
            .as_str()
            .is_some_and(|t| t.contains("only the home page opens")),
        "{seen}"
    );
    let graphes = corpora.join("graphes");
    assert!(!graphes.join("serve-run.log").exists(), "a run was started");
    assert!(!graphes.join("run").exists(), "a run folder was made");
    assert!(!corpora.join("evil").exists(), "a topic was created");
    let _ = server.0.kill();
    let mut stderr = String::new();
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    for what in [
        "refused POST /runs/graphes/start",
        "refused POST /topics/new",
        "refused POST /runs/graphes/stop",
        "refused POST /runs/graphes/subcorpora",
        "refused POST /runs/graphes/subcorpora/keep/delete",
        "refused GET /runs/graphes/kwic",
        "refused a request for Host `rebind.test",
    ] {
        assert!(
            stderr.contains(what),
            "no `{what}` in serve's log:\n{stderr}"
        );
    }
    // The server's own pages still drive it.
    let (mut server, address) = spawn_serve(&corpora, &[], Stdio::piped());
    let port = port_of(&address);
    let (status, _) = post(port, "/runs/graphes/stop");
    assert_eq!(status, 303);
    // (past the checks: a run with no corpus yet has no subcorpus to make)
    let origin = format!("http://127.0.0.1:{port}");
    let form = [
        ("Origin", origin.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    let (status, answer) = request(
        port,
        "POST",
        "/runs/graphes/subcorpora",
        &form,
        b"name=mine&where=host%3D.%2A",
    );
    assert!(
        status == 404 && answer.contains("No corpus to cut yet"),
        "{status}: {answer}"
    );
    let _ = server.0.kill();
}

#[test]
fn slow_and_idle_connections_never_keep_a_request_out() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    // 256 files at most (soft and hard limits): fewer than the slow connections below.
    let mut child = Command::new("bash")
        .arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" serve \"$1\" --port 0")
        .arg(env!("CARGO_BIN_EXE_glaneur"))
        .arg(&corpora)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let address = first_address(&mut child);
    let _server = Server(child);
    let port = port_of(&address);
    // 400 clients that start a request and never finish its head.
    let mut slow = Vec::new();
    for _ in 0..400 {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
        slow.push(s);
    }
    // A real request is answered at once (a read timeout of 5 s: no wait for the slow ones).
    for _ in 0..3 {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer)
            .expect("answered while 400 slow clients hold connections");
        assert!(
            answer.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&answer)
        );
    }
    // And a slow client is cut off by the server (the head's time limit), not kept forever.
    let mut last = slow.pop().unwrap();
    last.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    let mut byte = [0u8; 64];
    let got = last.read(&mut byte);
    assert!(
        matches!(got, Ok(_) | Err(_)) && started.elapsed() < Duration::from_secs(29),
        "a client that never sends its request head keeps its connection: {got:?}"
    );
    if let Ok(n) = got {
        // Closed (0 bytes) or answered 408 by the server: either way not held.
        assert!(
            n == 0 || byte.starts_with(b"HTTP/1.1 408"),
            "{:?}",
            &byte[..n]
        );
    }
}

/// Polls `snapshot.json` until `done` says so (or a minute and a half passes).
fn wait_snapshot(
    port: u16,
    name: &str,
    done: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (_, answer) = request(
            port,
            "GET",
            &format!("/runs/{name}/snapshot.json"),
            &[],
            b"",
        );
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(body)
            && (done(&value) || Instant::now() > deadline)
        {
            return value;
        }
        assert!(Instant::now() < deadline, "no snapshot: {answer}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_run_starts_once_however_many_ask_and_its_log_keeps_every_start() {
    let web = TestWeb::start(&scenario("basic"));
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    let (_server, address) = start_serve(&corpora, &["--proxy", &web.proxy()]);
    let port = port_of(&address);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..40)
            .map(|_| scope.spawn(|| post(port, "/runs/graphes/start").0))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let started = statuses.iter().filter(|&&s| s == 303).count();
    let refused = statuses.iter().filter(|&&s| s == 409).count();
    assert_eq!((started, refused), (1, 39), "{statuses:?}");
    let log = corpora.join("graphes/serve-run.log");
    let starts = |text: &str| text.matches("glaneur serve starts").count();
    assert_eq!(starts(&std::fs::read_to_string(&log).unwrap()), 1);
    let end = wait_snapshot(port, "graphes", |s| s["running"] == false);
    assert_eq!(end["stage"], "finished", "{end}");
    // Started again once over: the log keeps the first run's output.
    let (status, _) = post(port, "/runs/graphes/start");
    assert_eq!(status, 303);
    let end = wait_snapshot(port, "graphes", |s| s["running"] == false);
    assert_eq!(end["stage"], "finished", "{end}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(starts(&text), 2, "{text}");
    // One process per start: the crawl was not run twice at once (the server saw no page
    // requested twice).
    let log = web.log();
    let mut pages: Vec<String> = log
        .iter()
        .filter(|h| h.path != "/robots.txt")
        .map(|h| format!("{}{}", h.host, h.path))
        .collect();
    let all = pages.len();
    pages.sort();
    pages.dedup();
    assert_eq!(pages.len(), all, "a page fetched twice: two runs at once");
}

#[test]
fn a_ctrl_c_in_serves_terminal_does_not_stop_its_runs() {
    let web = TestWeb::start(&scenario("basic"));
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    // serve in a process group of its own, as the foreground job of a terminal is.
    let mut command = glaneur();
    command
        .arg("serve")
        .arg(&corpora)
        .args(["--port", "0", "--proxy", &web.proxy()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().unwrap();
    let address = first_address(&mut child);
    let port = port_of(&address);
    let pgid = child.id();
    let server = Server(child);
    assert_eq!(post(port, "/runs/graphes/start").0, 303);
    wait_snapshot(port, "graphes", |s| s["stage"] == "crawl");
    // Ctrl-C: SIGINT to the terminal's foreground process group.
    let group = rustix::process::Pid::from_raw(pgid as i32).unwrap();
    rustix::process::kill_process_group(group, rustix::process::Signal::INT).unwrap();
    let mut server = server;
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "serve did not stop on Ctrl-C");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The run goes on to its end on its own.
    let run = corpora.join("graphes/run");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !run.join("report.json").is_file() {
        assert!(Instant::now() < deadline, "the run stopped with serve");
        std::thread::sleep(Duration::from_millis(200));
    }
    let live: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("live.json")).unwrap()).unwrap();
    assert_eq!(live["stage"], "finished", "{live}");
}

/// A query that makes the automaton walk every document to its end from every position.
const SLOW_CQL: &str = "[word!=\"zz\"]{0,99} [word!=\"zz\"]{0,99} [word!=\"zz\"]{0,99}";

fn encoded(query: &str) -> String {
    query
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn a_slow_concordance_is_stopped_with_503_while_other_requests_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    // The run's query index, from a vertical file of 20,000 tokens in two documents.
    let words = [
        "le", "graphe", "orienté", "a", "des", "sommets", "et", "des", "arêtes", ".",
    ];
    let mut vrt = String::new();
    for doc in 0..2 {
        vrt.push_str(&format!("<text id=\"d{doc}\">\n<s>\n"));
        for i in 0..10_000 {
            vrt.push_str(words[(i * 7 + doc) % words.len()]);
            vrt.push('\n');
        }
        vrt.push_str("</s>\n</text>\n");
    }
    let vrt_path = dir.path().join("corpus.vrt");
    std::fs::write(&vrt_path, vrt).unwrap();
    let indexed = glaneur()
        .arg("index")
        .arg(&vrt_path)
        .arg("--out")
        .arg(corpora.join("graphes/run/index"))
        .output()
        .unwrap();
    assert_exit(&indexed, 0);
    let (_server, address) = start_serve(&corpora, &[]);
    let port = port_of(&address);
    let slow = format!(
        "{} {SLOW_CQL} [word=\".\" & lc=\"le\"]",
        vec![SLOW_CQL; 29].join(" ")
    );
    let path = format!("/runs/graphes/kwic?cql={}", encoded(&slow));
    let (status, answer) = std::thread::scope(|scope| {
        let handle = scope.spawn(|| request(port, "GET", &path, &[], b""));
        std::thread::sleep(Duration::from_millis(500));
        // Meanwhile, the other pages answer.
        for page in ["/", "/runs/graphes", "/assets/uplot.js"] {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(
                format!(
                    "GET {page} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            )
            .unwrap();
            let mut got = Vec::new();
            s.read_to_end(&mut got)
                .expect("answered during a slow query");
            assert!(got.starts_with(b"HTTP/1.1 200"), "{page}");
        }
        handle.join().unwrap()
    });
    assert_eq!(status, 503, "{answer}");
    assert!(answer.contains("stopped after 10 s"), "{answer}");
    // Hundreds of words in one alternation (as many as a URL holds): one value test.
    let words: Vec<String> = (0..1500)
        .map(|i| format!("\"mot{i}\""))
        .chain(["\"graphe\"".to_string(), "\"sommets\"".to_string()])
        .collect();
    let alternation = format!("[word={}]", words.join(" | word="));
    let (status, answer) = request(
        port,
        "GET",
        &format!("/runs/graphes/kwic?cql={}", encoded(&alternation)),
        &[],
        b"",
    );
    assert_eq!(status, 200);
    assert!(answer.contains("id=\"kwic-total\""), "{answer}");
}

/// A multipart form with `fields` and one uploaded file `(name, bytes)`.
fn multipart(fields: &[(&str, &str)], file: Option<(&str, &[u8])>) -> (String, Vec<u8>) {
    let boundary = "glaneurTestBoundary7d3f";
    let mut body = Vec::new();
    for (k, v) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    if let Some((name, bytes)) = file {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"result_page\"; \
                 filename=\"{name}\"\r\nContent-Type: text/html\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The fields of a valid topic named `name` with `formula`.
fn fields<'a>(name: &'a str, formula: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("description", "Un sujet"),
        ("languages", "fr"),
        ("seed_urls", "http://a.test/"),
        ("seed_terms", ""),
        ("formula", formula),
        ("allow", ".test"),
        ("deny", ""),
        ("max_pages", "20"),
        ("max_depth", "3"),
        ("max_pages_per_host", "10"),
        ("strategy", "best-first"),
        ("delay_seconds", "1"),
        ("contact", "mailto:linguiste@univ.example"),
    ]
}

fn send_form(port: u16, path: &str, form: (String, Vec<u8>)) -> (u16, String) {
    let origin = format!("http://127.0.0.1:{port}");
    request(
        port,
        "POST",
        path,
        &[("Origin", &origin), ("Content-Type", &form.0)],
        &form.1,
    )
}

#[test]
fn the_topic_form_writes_only_the_topic_its_url_names_and_only_when_it_validates() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    slow_topic(&corpora, "arret");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, corpora.join("lien")).unwrap();
    let (_server, address) = start_serve(&corpora, &[]);
    let port = port_of(&address);
    let page = b"<html><body><p>graphe</p></body></html>".as_slice();

    // A new topic refused by validation leaves no folder and no uploaded file.
    let bad = multipart(&fields("nouveau", "(\"graphe"), Some(("r.html", page)));
    let (status, answer) = send_form(port, "/topics/new", bad);
    assert_eq!(status, 422, "{answer}");
    assert!(!corpora.join("nouveau").exists());
    // An edit refused by validation leaves the topic and its folder as they were.
    let before = std::fs::read_to_string(corpora.join("graphes/topic.toml")).unwrap();
    let bad = multipart(&fields("graphes", "(\"graphe"), Some(("r.html", page)));
    assert_eq!(send_form(port, "/topics/graphes/edit", bad).0, 422);
    assert_eq!(
        std::fs::read_to_string(corpora.join("graphes/topic.toml")).unwrap(),
        before
    );
    assert!(!corpora.join("graphes/serp").exists());
    // A link in the folder of topics is not a place for a new topic.
    let linked = multipart(&fields("lien", "\"graphe\""), Some(("r.html", page)));
    let (status, answer) = send_form(port, "/topics/new", linked);
    assert_eq!(status, 422, "{answer}");
    assert!(answer.contains("exists already"), "{answer}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // The edit form writes the topic of its URL, whatever its hidden `name` says.
    let arret_before = std::fs::read_to_string(corpora.join("arret/topic.toml")).unwrap();
    let other = multipart(&fields("arret", "\"graphe\" OU \"sommet\""), None);
    assert_eq!(send_form(port, "/topics/graphes/edit", other).0, 303);
    assert_eq!(
        std::fs::read_to_string(corpora.join("arret/topic.toml")).unwrap(),
        arret_before
    );
    let graphes = std::fs::read_to_string(corpora.join("graphes/topic.toml")).unwrap();
    assert!(graphes.contains("\"graphe\" OU \"sommet\""), "{graphes}");
    assert!(graphes.contains("name = \"graphes\""), "{graphes}");
    // A 3 MB result page is saved; a form over the limit is refused with 413 and a message.
    let mut big = page.to_vec();
    big.resize(3 << 20, b' ');
    let saved = multipart(&fields("gros", "\"graphe\""), Some(("gros.html", &big)));
    let (status, answer) = send_form(port, "/topics/new", saved);
    assert_eq!(status, 303, "{answer}");
    assert!(corpora.join("gros/serp/gros.html").is_file());
    big.resize(40 << 20, b' ');
    let huge = multipart(&fields("enorme", "\"graphe\""), Some(("enorme.html", &big)));
    let (status, answer) = send_form(port, "/topics/new", huge);
    assert_eq!(status, 413, "{answer}");
    assert!(answer.contains("larger than 32 MiB"), "{answer}");
    assert!(!corpora.join("enorme").exists());
}

/// The seed review page: the review file's lines with a checkbox each; a same-origin POST sets
/// `keep` of the URLs it shows and nothing else; another site's is refused.
#[test]
fn the_seed_review_page_sets_keep_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let corpora = dir.path().join("corpora");
    slow_topic(&corpora, "graphes");
    let (_server, address) = start_serve(&corpora, &[]);
    let port = port_of(&address);
    let (status, answer) = request(port, "GET", "/runs/graphes/seeds", &[], b"");
    assert_eq!(status, 200);
    assert!(answer.contains("id=\"seeds-none\"") && answer.contains("glaneur seeds"));

    let run = corpora.join("graphes/run");
    std::fs::create_dir_all(&run).unwrap();
    let review = run.join("seeds-review.tsv");
    let text = "# my notes\nkeep\turl\tsources\ttitle\n\
                Y\thttp://a.test/\ttopic\tLes <graphes>\n\
                yes\thttp://b.test/\ttopic\t\n\
                no\thttp://c.test/\ttopic\t\n\
                yes\thttp://d.test/\ttopic\t\n";
    std::fs::write(&review, text).unwrap();
    let (status, answer) = request(port, "GET", "/runs/graphes/seeds", &[], b"");
    assert_eq!(status, 200);
    assert_eq!(answer.matches("type=\"checkbox\"").count(), 4, "{answer}");
    assert_eq!(answer.matches(" checked>").count(), 3, "{answer}");
    assert!(answer.contains("Les &lt;graphes&gt;"), "escaped: {answer}");

    // Another site's form changes nothing.
    let form = "url=http%3A%2F%2Fb.test%2F&url=http%3A%2F%2Fc.test%2F&keep=http%3A%2F%2Fc.test%2F";
    let form_type = ("Content-Type", "application/x-www-form-urlencoded");
    let (status, _) = request(
        port,
        "POST",
        "/runs/graphes/seeds",
        &[("Origin", "http://evil.example"), form_type],
        form.as_bytes(),
    );
    assert_eq!(status, 403);
    assert_eq!(std::fs::read_to_string(&review).unwrap(), text);
    // The page's own form: b unchecked, c checked; a and d, not shown, untouched.
    let origin = format!("http://127.0.0.1:{port}");
    let (status, answer) = request(
        port,
        "POST",
        "/runs/graphes/seeds",
        &[("Origin", &origin), form_type],
        form.as_bytes(),
    );
    assert_eq!(status, 303, "{answer}");
    assert!(answer.contains("/runs/graphes/seeds?saved=2"), "{answer}");
    assert_eq!(
        std::fs::read_to_string(&review).unwrap(),
        text.replace("yes\thttp://b.test/", "no\thttp://b.test/")
            .replace("no\thttp://c.test/", "yes\thttp://c.test/")
    );
}
