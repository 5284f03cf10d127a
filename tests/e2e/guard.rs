//! The network guard and secrets: links and redirects to private addresses (in every numeric
//! form), URLs with credentials, bodies in a coding glaneur did not offer and an endless
//! `Crawl-delay` (scenario `guard`); an intranet crawl the topic allows; search API keys that
//! an API echoes back, and search requests kept off the crawl's proxy. Checked from the
//! servers' logs and `crawl.sqlite`.

use std::path::Path;
use std::time::Duration;

use crate::server::TestWeb;
use crate::support::*;

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn reasons(out: &Path) -> Vec<(String, String)> {
    text_pairs(
        out,
        "SELECT url, COALESCE(reason, state) FROM urls ORDER BY url",
    )
}

#[test]
fn nothing_private_is_reached_and_every_refusal_has_its_reason() {
    let web = TestWeb::start(&scenario("guard"));
    let out = tempfile::tempdir().unwrap();
    let output = run_topic(
        &scenario("guard").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &[],
    );
    assert_exit(&output, 0);
    let log = web.log();
    let hosts: std::collections::BTreeSet<&str> = log.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(
        hosts,
        ["lent.test", "start.test"].into_iter().collect(),
        "{log:?}"
    );
    let reasons = reasons(out.path());
    let reason = |url: &str| {
        reasons
            .iter()
            .find(|(u, _)| u == url)
            .map(|(_, r)| r.as_str())
            .unwrap_or_else(|| panic!("{url} not recorded: {reasons:?}"))
    };
    for url in [
        "http://127.0.0.1/admin",
        "http://127.0.0.1/graphes",
        "http://[::1]/graphes",
        "http://10.0.0.1/intranet",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/graphes",
        "http://127.0.0.1:9/graphes",
    ] {
        assert_eq!(reason(url), "private-address", "{url}");
    }
    // Kept without their user name and password, with their reason; the secrets are in no
    // table and no export (only in the archived page that links to one, and in the copy of
    // the topic that names one as a seed).
    for url in [
        "http://credentials-removed@start.test/login.html",
        "http://credentials-removed@start.test/graphes-prives.html",
    ] {
        assert_eq!(reason(url), "credentials", "{url}");
    }
    let secrets = ["user:secret", "admin:admin", ":secret@", "admin@"];
    for entry in walk(out.path()) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        if entry.components().any(|c| c.as_os_str() == "warc")
            || name == "topic.toml"
            || name.starts_with("crawl.sqlite")
        {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned();
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} in {}", entry.display());
        }
    }
    let conn = db(out.path());
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for i in 0..columns {
                if let Ok(rusqlite::types::ValueRef::Text(t)) = row.get_ref(i) {
                    let t = String::from_utf8_lossy(t);
                    for secret in secrets {
                        assert!(!t.contains(secret), "{secret} in table {table}: {t}");
                    }
                }
            }
        }
    }
    assert!(
        log.iter()
            .all(|h| !h.path.contains("login") && !h.path.contains("prives")),
        "{log:?}"
    );
    // The body in Brotli is refused, not kept as a document of binary "text".
    assert_eq!(
        reason("http://start.test/compresse.html"),
        "content-encoding"
    );
    assert!(
        docs(out.path())
            .iter()
            .all(|d| d["url"] != "http://start.test/compresse.html")
    );
    // `Crawl-delay: inf` is capped at max_crawl_delay_seconds (0.6 s), not ignored.
    let slow: Vec<_> = log.iter().filter(|h| h.host == "lent.test").collect();
    assert!(slow.len() >= 3, "{slow:?}");
    for pair in slow.windows(2) {
        let gap = pair[1].start.duration_since(pair[0].end);
        assert!(gap >= Duration::from_millis(550), "gap {gap:?}: {slow:?}");
    }
}

/// A test web answering for `127.0.0.1` itself (requests sent to it directly, not through a
/// proxy), and a topic whose seed is that address.
fn local_site(dir: &Path) -> (TestWeb, std::path::PathBuf) {
    let site = dir.join("127.0.0.1");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<html lang=fr><head><title>Intranet</title></head><body><p>Le wiki interne du \
         laboratoire : un graphe de dépendances entre les projets, avec ses sommets et ses \
         arêtes, mis à jour chaque semaine par l'équipe.</p></body></html>",
    )
    .unwrap();
    let web = TestWeb::start(dir);
    let topic = dir.join("topic.toml");
    std::fs::write(
        &topic,
        format!(
            "name = \"intranet\"\nlanguages = [\"fr\"]\n[seeds]\nurls = [\"http://{}/\"]\n\
             [formula]\nexpression = '\"graphe*\"'\n[crawl]\nmax_pages = 5\n\
             [politeness]\ncontact = \"mailto:test@example.org\"\ndelay_seconds = 0\n",
            web.addr
        ),
    )
    .unwrap();
    (web, topic)
}

#[test]
fn an_intranet_crawl_happens_only_when_the_topic_allows_it() {
    let dir = tempfile::tempdir().unwrap();
    let (web, topic) = local_site(dir.path());
    let direct = |out: &Path| {
        let mut cmd = glaneur();
        cmd.arg("run")
            .arg(&topic)
            .arg("--out")
            .arg(out)
            .arg("--quiet");
        cmd.output().unwrap()
    };
    let refused = dir.path().join("refused");
    let output = direct(&refused);
    assert_exit(&output, 1);
    assert!(web.log().is_empty(), "{:?}", web.log());
    let seed = format!("http://{}/", web.addr);
    let (reason, detail) = reason_of(&refused, &seed).unwrap();
    assert_eq!(reason, "private-address");
    assert!(detail.contains("allow_private_addresses"), "{detail}");

    let text = std::fs::read_to_string(&topic).unwrap();
    std::fs::write(
        &topic,
        text.replace(
            "[crawl]",
            "[domains]\nallow_private_addresses = true\n[crawl]",
        ),
    )
    .unwrap();
    let allowed = dir.path().join("allowed");
    assert_exit(&direct(&allowed), 0);
    assert_eq!(reason_of(&allowed, &seed).unwrap().0, "kept");
    assert!(web.log().iter().any(|h| h.path == "/"), "{:?}", web.log());
}

#[test]
fn an_api_key_echoed_by_the_api_is_never_printed_and_searches_bypass_the_proxy() {
    let api_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        api_dir.path().join("_routes.toml"),
        r#"[[route]]
host = "127.0.0.1"
path = "*"
status = 401
headers = { Content-Type = "application/json" }
body = '{"type": "ErrorResponse", "error": {"status": 401, "code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The token sekret-key-4711 sent as X-Subscription-Token=sekret-key-4711 is not valid."}}'
"#,
    )
    .unwrap();
    let api = TestWeb::start(api_dir.path());
    let crawl_web = TestWeb::start(&scenario("seeds"));
    let dir = tempfile::tempdir().unwrap();
    let topic = dir.path().join("topic.toml");
    // The scenario's topic without its opt-in to the proxy.
    let text = std::fs::read_to_string(scenario("seeds").join("topic.toml"))
        .unwrap()
        .replace("use_proxy = true", "");
    std::fs::write(&topic, text).unwrap();
    let mut cmd = run_command(&topic, &dir.path().join("run"), &crawl_web.proxy(), &[]);
    cmd.env("BRAVE_SEARCH_API_KEY", "sekret-key-4711").env(
        "GLANEUR_SEARCH_ENDPOINT",
        format!("http://{}/res/v1/web/search", api.addr),
    );
    let output = cmd.output().unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stderr.contains("BRAVE_SEARCH_API_KEY") && stderr.contains("[redacted]"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("sekret-key-4711") && !stdout.contains("sekret-key-4711"),
        "{stderr}{stdout}"
    );
    // The request went straight to the API, not through the crawl's proxy.
    assert_eq!(api.log().len(), 1, "{:?}", api.log());
    assert!(crawl_web.log().is_empty(), "{:?}", crawl_web.log());
}

#[test]
fn a_proxy_named_by_its_host_name_is_reached() {
    // The proxy's own name resolves to a loopback address: the user chose it, the guard lets
    // it through (the crawled names are the proxy's to resolve).
    let web = TestWeb::start(&scenario("basic"));
    let out = tempfile::tempdir().unwrap();
    let proxy = format!("http://localhost:{}", web.addr.port());
    let output = run_topic(
        &scenario("basic").join("topic.toml"),
        out.path(),
        &proxy,
        &[],
    );
    assert_exit(&output, 0);
    assert!(
        web.log().iter().any(|h| h.host == "a.test"),
        "{:?}",
        web.log()
    );
}
