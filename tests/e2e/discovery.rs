//! Discovery beyond HTML links, on a generated web: a server whose pages are listed only in its
//! sitemaps (robots.txt → an index → a plain and a gzipped sitemap), one whose posts are
//! listed only in its feeds (RSS and Atom, announced by `<link rel="alternate">`), one whose
//! pages are reachable only through JavaScript; and the bad input each source can bring (a
//! malformed sitemap, a gzip bomb, an index of more sitemaps than allowed, hostile feed URLs,
//! megabytes of script). Checked from the server's log and `crawl.sqlite`.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::server::{Answer, Dynamic, TestWeb};
use crate::support::*;

/// Pages reachable only through each source.
const PAGES: usize = 40;

fn page(title: &str, body: &str) -> Answer {
    let html = format!(
        "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>\
         <p>Une page sur les graphes et leurs arbres couvrants, avec assez de texte pour \
         être un document du corpus : {title}.</p>{body}</body></html>"
    );
    answer("text/html; charset=utf-8", html.into_bytes())
}

fn answer(content_type: &str, body: Vec<u8>) -> Answer {
    (
        200,
        vec![("Content-Type".into(), content_type.into())],
        body,
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn urlset(urls: impl Iterator<Item = String>) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for url in urls {
        xml.push_str(&format!(
            "<url><loc>{url}</loc><lastmod>2026-11-01</lastmod></url>\n"
        ));
    }
    xml.push_str("</urlset>\n");
    xml.into_bytes()
}

/// The sitemap server: robots.txt names an index of a plain and a gzipped sitemap (half the
/// pages each, plus an entry of another server and one off `[domains]`), a malformed sitemap,
/// a gzip bomb, and a second index listing more sitemaps than the topic allows.
fn maps(path: &str) -> Option<Answer> {
    let half = PAGES / 2;
    Some(match path {
        "/robots.txt" => answer(
            "text/plain",
            b"User-agent: *\nDisallow: /private/\n\nSitemap: http://maps.test/sitemap_index.xml\n\
              Sitemap: http://maps.test/broken.xml\nSitemap: http://maps.test/bomb.xml.gz\n\
              Sitemap: http://maps.test/many.xml\n"
                .to_vec(),
        ),
        "/" => page("Accueil", "<p>Rien à suivre ici.</p>"),
        "/sitemap_index.xml" => answer(
            "application/xml",
            b"<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
              <sitemap><loc>http://maps.test/maps/a.xml</loc></sitemap>\
              <sitemap><loc>http://maps.test/maps/b.xml.gz</loc><lastmod>2026-10-01</lastmod></sitemap>\
              <sitemap><loc>http://other.test/maps/c.xml</loc></sitemap>\
              </sitemapindex>"
                .to_vec(),
        ),
        "/maps/a.xml" => answer(
            "text/xml",
            urlset(
                (0..half)
                    .map(|i| format!("http://maps.test/pages/{i}.html"))
                    .chain(["http://other.test/listed-elsewhere.html".to_string()])
                    .chain(["http://outside.example/page.html".to_string()])
                    .chain(["http://maps.test/private/secret.html".to_string()]),
            ),
        ),
        "/maps/b.xml.gz" => answer(
            "application/x-gzip",
            gzip(&urlset(
                (half..PAGES).map(|i| format!("http://maps.test/pages/{i}.html")),
            )),
        ),
        "/broken.xml" => answer(
            "application/xml",
            b"<urlset><url><loc>http://maps.test/broken/1.html</loc></url><url><loc>http://maps.test/broken/2.html</lo"
                .to_vec(),
        ),
        "/bomb.xml.gz" => answer("application/gzip", bomb()),
        "/many.xml" => answer("application/xml", {
            let mut xml = String::from("<sitemapindex>");
            for i in 0..150 {
                xml.push_str(&format!(
                    "<sitemap><loc>http://maps.test/many/{i}.xml</loc></sitemap>"
                ));
            }
            xml.push_str("</sitemapindex>");
            xml.into_bytes()
        }),
        p if p.starts_with("/many/") => answer("application/xml", urlset(std::iter::empty())),
        // A sitemap in /pages/: it may list that directory only.
        "/pages/list.xml" => answer(
            "application/xml",
            urlset(
                (0..half)
                    .map(|i| format!("http://maps.test/pages/{i}.html"))
                    .chain(["http://maps.test/maps/a.xml".to_string()]),
            ),
        ),
        p if p.starts_with("/pages/") || p.starts_with("/broken/") => {
            page(&format!("Page {p}"), "")
        }
        _ => return None,
    })
}

/// A `<urlset>` followed by 64 MiB of spaces, as gzip members of 8 MiB (about 70 KB): a
/// sitemap bomb, made once.
fn bomb() -> Vec<u8> {
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| {
        let spaces = gzip(&vec![b' '; 8 << 20]);
        let mut body = gzip(b"<?xml version=\"1.0\"?><urlset>");
        body.extend(spaces.repeat(8));
        body
    })
    .clone()
}

/// The feed server: the home page announces an RSS and an Atom feed; each lists half the
/// posts, which no page links; the RSS feed also carries hostile URLs.
fn feeds(path: &str) -> Option<Answer> {
    let half = PAGES / 2;
    Some(match path {
        "/robots.txt" => answer("text/plain", b"User-agent: *\nDisallow:\n".to_vec()),
        "/" => page(
            "Le blog",
            "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"RSS\" href=\"/feed/\">\
             <link rel=\"alternate\" type=\"application/atom+xml\" href=\"atom.xml\">",
        ),
        "/feed/" => {
            let mut xml = String::from(
                "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Le blog</title>\
                 <link>http://feeds.test/</link>",
            );
            for i in 0..half {
                xml.push_str(&format!(
                    "<item><title><![CDATA[Billet {i} sur les graphes]]></title>\
                     <link>http://feeds.test/posts/{i}?utm_source=rss&amp;a=1</link>\
                     <guid isPermaLink=\"false\">post-{i}</guid></item>"
                ));
            }
            for hostile in [
                "javascript:alert(1)",
                "file:///etc/passwd",
                "http://127.0.0.1/admin",
                "http://user:secret@feeds.test/login",
                "mailto:someone@feeds.test",
            ] {
                xml.push_str(&format!(
                    "<item><title>piège</title><link>{hostile}</link></item>"
                ));
            }
            xml.push_str("</channel></rss>");
            answer("application/rss+xml; charset=utf-8", xml.into_bytes())
        }
        "/atom.xml" => {
            let mut xml = String::from(
                "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" \
                 xml:base=\"http://feeds.test/posts/\"><title>Le blog</title>\
                 <link rel=\"self\" href=\"http://feeds.test/atom.xml\"/>",
            );
            for i in half..PAGES {
                xml.push_str(&format!(
                    "<entry><title>Billet {i}</title>\
                     <link rel=\"replies\" href=\"http://feeds.test/comments/{i}\"/>\
                     <link rel=\"alternate\" type=\"text/html\" href=\"{i}\"/>\
                     <updated>2026-11-0{}T10:00:00Z</updated></entry>",
                    1 + i % 9
                ));
            }
            xml.push_str("</feed>");
            answer("application/atom+xml", xml.into_bytes())
        }
        p if p.starts_with("/posts/") || p.starts_with("/hidden/") => {
            page(&format!("Billet {p}"), "")
        }
        // Named by no robots.txt line: read only when the topic asks to guess it.
        "/sitemap.xml" => answer(
            "application/xml",
            urlset((0..5).map(|i| format!("http://feeds.test/hidden/{i}"))),
        ),
        _ => return None,
    })
}

/// The JavaScript server: its pages link to each other only through scripts, in every form
/// the extractor reads, and hold strings that are not links.
fn scripts(path: &str) -> Option<Answer> {
    if path == "/robots.txt" {
        return Some(answer("text/plain", b"User-agent: *\nDisallow:\n".to_vec()));
    }
    let i: usize = if path == "/" {
        0
    } else {
        path.strip_prefix("/js/")?
            .strip_suffix(".html")?
            .parse()
            .ok()?
    };
    if i >= PAGES {
        return None;
    }
    let link = |j: usize| format!("/js/{}.html", j.min(PAGES - 1));
    let body = format!(
        "<a href=\"javascript:window.location='{a}'\">suite</a>\
         <span onclick=\"location.href='{b}'\">autre</span>\
         <div data-url=\"{c}\">bloc</div>\
         <script>var notALink = 'text/html'; fetch('/api/data'); var u = '/not-navigation';\
          if (x) {{ window.open('{d}', '_blank'); }}</script>\
         <script>{big}</script>",
        a = link(4 * i + 1),
        b = link(4 * i + 2),
        c = link(4 * i + 3),
        d = link(4 * i + 4),
        // Megabytes of script on the home page: read in bounded time.
        big = if i == 0 {
            "var location_words = 'location location.href';".repeat(60_000)
        } else {
            String::new()
        },
    );
    Some(page(&format!("Page JS {i}"), &body))
}

fn discovery_web() -> TestWeb {
    let dynamic: Dynamic = Arc::new(|host: &str, path: &str| match host {
        "maps.test" => maps(path),
        "feeds.test" => feeds(path),
        "js.test" => scripts(path),
        _ => None,
    });
    let empty = tempfile::tempdir().unwrap();
    let web = TestWeb::start_with(empty.path(), Some(dynamic));
    // The server reads its files folder lazily; the dynamic answers cover every request.
    std::mem::forget(empty);
    web
}

const HOMES: &str = "\"http://maps.test/\", \"http://feeds.test/\", \"http://js.test/\"";

fn topic(dir: &Path, extra: &str) -> std::path::PathBuf {
    topic_with(dir, HOMES, extra)
}

fn topic_with(dir: &Path, seeds: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("topic.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"discovery\"\n\
             [seeds]\nurls = [{seeds}]\n\
             [domains]\nallow = [\"maps.test\", \"feeds.test\", \"js.test\"]\n\
             [crawl]\nmax_pages = 1000\nconcurrency = 8\ntimeout_seconds = 5\n\
             [politeness]\ncontact = \"mailto:test@example.org\"\ndelay_seconds = 0\n{extra}"
        ),
    )
    .unwrap();
    path
}

fn fetched_paths(log: &[crate::server::Hit], host: &str) -> HashSet<String> {
    log.iter()
        .filter(|h| h.host == host)
        .map(|h| h.path.clone())
        .collect()
}

fn share(fetched: &HashSet<String>, wanted: impl Iterator<Item = String>) -> (usize, usize) {
    let wanted: Vec<String> = wanted.collect();
    let got = wanted.iter().filter(|p| fetched.contains(*p)).count();
    (got, wanted.len())
}

#[test]
fn sitemaps_feeds_and_scripts_lead_to_pages_no_link_reaches() {
    let web = discovery_web();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = run_topic(&topic(dir.path(), ""), &out, &web.proxy(), &[]);
    assert_exit(&output, 0);
    let log = web.log();

    let maps = fetched_paths(&log, "maps.test");
    let (got, of) = share(&maps, (0..PAGES).map(|i| format!("/pages/{i}.html")));
    assert_eq!((got, of), (PAGES, PAGES), "sitemap pages fetched: {maps:?}");
    let feeds = fetched_paths(&log, "feeds.test");
    // The RSS links lose their tracking parameter (`utm_source`), as any link does.
    let posts = (0..PAGES).map(|i| {
        if i < PAGES / 2 {
            format!("/posts/{i}?a=1")
        } else {
            format!("/posts/{i}")
        }
    });
    let (got, of) = share(&feeds, posts);
    assert_eq!((got, of), (PAGES, PAGES), "feed posts fetched: {feeds:?}");
    let js = fetched_paths(&log, "js.test");
    let (got, of) = share(&js, (1..PAGES).map(|i| format!("/js/{i}.html")));
    assert_eq!(
        (got, of),
        (PAGES - 1, PAGES - 1),
        "script pages fetched: {js:?}"
    );

    // Nothing off the sitemaps' own server or off [domains], nothing robots.txt disallows,
    // no string of a script that is not a navigation, no hostile feed URL.
    let hosts: HashSet<&str> = log.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(
        hosts,
        HashSet::from(["maps.test", "feeds.test", "js.test"]),
        "{log:?}"
    );
    for path in [
        "/private/secret.html",
        "/api/data",
        "/not-navigation",
        "/login",
    ] {
        assert!(
            log.iter().all(|h| !h.path.starts_with(path)),
            "{path} requested: {log:?}"
        );
    }
    assert!(log.iter().all(|h| !h.path.starts_with("/comments/")));

    // Every URL seen has a state and a reason; the sources are recorded.
    let conn = db(&out);
    let unsettled: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE state = 'queued' OR reason IS NULL OR reason = ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unsettled, 0);
    let via = |url: &str| -> String {
        conn.query_row("SELECT via FROM urls WHERE url = ?1", [url], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{url}: {e}"))
    };
    assert_eq!(via("http://maps.test/sitemap_index.xml"), "robots");
    assert_eq!(via("http://maps.test/maps/b.xml.gz"), "sitemap");
    assert_eq!(via("http://maps.test/pages/3.html"), "sitemap");
    assert_eq!(via("http://feeds.test/posts/30"), "feed");
    assert_eq!(via("http://js.test/js/2.html"), "javascript");
    let reason = |url: &str| reason_of(&out, url).unwrap_or_else(|| panic!("no row for {url}"));
    assert_eq!(reason("http://maps.test/sitemap_index.xml").0, "sitemap");
    assert!(
        reason("http://maps.test/maps/a.xml")
            .1
            .contains("23 URLs read")
    );
    assert_eq!(reason("http://feeds.test/feed/").0, "feed");
    assert_eq!(reason("http://other.test/maps/c.xml").0, "sitemap-off-site");
    assert_eq!(
        reason("http://other.test/listed-elsewhere.html").0,
        "sitemap-off-site"
    );
    assert_eq!(
        reason("http://outside.example/page.html").0,
        "sitemap-off-site"
    );
    assert_eq!(reason("http://maps.test/private/secret.html").0, "robots");
    // A sitemap cut short keeps what it listed before the break, and says so.
    let (why, detail) = reason("http://maps.test/broken.xml");
    assert_eq!(why, "sitemap", "{detail}");
    assert!(detail.contains("malformed"), "{detail}");
    let fetched = |url: &str| -> bool {
        conn.query_row(
            "SELECT state = 'fetched' AND status = 200 FROM urls WHERE url = ?1",
            [url],
            |r| r.get(0),
        )
        .unwrap_or(false)
    };
    assert!(fetched("http://maps.test/broken/1.html"));
    let (why, detail) = reason("http://maps.test/bomb.xml.gz");
    assert_eq!(why, "bad-listing", "{detail}");
    let limited: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE reason = 'sitemap-limit'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // 100 sitemap files per server: the four robots.txt names, the index's two, then 94 of
    // the 150 the second index lists.
    assert_eq!(limited, 150 - 94);
    assert_eq!(reason("http://127.0.0.1/admin").0, "off-domain");
    let credentials: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE reason = 'credentials' AND via = 'feed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(credentials, 1);
    assert!(fetched("http://feeds.test/posts/3?a=1"));
    // The report counts each way of discovery.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let pages = |via: &str| -> u64 {
        report["discovery"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["via"] == via)
            .map_or(0, |v| v["pages"].as_u64().unwrap())
    };
    assert_eq!(pages("sitemap"), PAGES as u64 + 1, "{report:#}");
    assert_eq!(pages("feed"), PAGES as u64, "{report:#}");
    assert_eq!(pages("javascript"), PAGES as u64 - 1, "{report:#}");
    // Sitemaps and feeds are not documents.
    let docs = docs(&out);
    assert!(
        docs.iter()
            .all(|d| !d["url"].as_str().unwrap().ends_with(".xml")),
        "{docs:?}"
    );
}

#[test]
fn each_source_can_be_switched_off() {
    let web = discovery_web();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let topic = topic(
        dir.path(),
        "[discovery]\nsitemaps = false\nfeeds = false\njavascript = false\n",
    );
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 0);
    let log = web.log();
    let paths: Vec<&str> = log.iter().map(|h| h.path.as_str()).collect();
    assert!(
        paths.iter().all(|p| !p.starts_with("/pages/")
            && !p.starts_with("/posts/")
            && !p.starts_with("/js/")
            && !p.ends_with(".xml")),
        "{paths:?}"
    );
    // The feed's announcement is still a link; read, it is recorded as a type not harvested.
    assert_eq!(
        reason_of(&out, "http://feeds.test/feed/").map(|r| r.0),
        None
    );
}

#[test]
fn a_sitemap_or_a_feed_given_as_a_seed_lists_its_pages() {
    let web = discovery_web();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // The server's own sitemaps are over budget here: only the seeds list pages.
    let topic = topic_with(
        dir.path(),
        "\"http://maps.test/pages/list.xml\", \"http://feeds.test/atom.xml\"",
        "[discovery]\nmax_sitemaps_per_host = 0\n",
    );
    // The pages' only text is repeated on every page of their server: the corpus is empty
    // (exit code 1), which says nothing of discovery.
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 1);
    let log = web.log();
    let maps = fetched_paths(&log, "maps.test");
    let half = PAGES / 2;
    assert_eq!(
        share(&maps, (0..half).map(|i| format!("/pages/{i}.html"))),
        (half, half)
    );
    assert_eq!(
        share(&maps, (half..PAGES).map(|i| format!("/pages/{i}.html"))),
        (0, half)
    );
    let feeds = fetched_paths(&log, "feeds.test");
    assert_eq!(
        share(&feeds, (half..PAGES).map(|i| format!("/posts/{i}"))),
        (half, half)
    );
    assert!(
        !feeds.contains("/feed/") && !feeds.contains("/"),
        "{feeds:?}"
    );
    assert_eq!(
        reason_of(&out, "http://maps.test/sitemap_index.xml").map(|r| r.0),
        Some("sitemap-limit".to_string())
    );
    assert_eq!(
        reason_of(&out, "http://maps.test/pages/list.xml").map(|r| r.0),
        Some("sitemap".to_string())
    );
    // Outside the seed sitemap's directory, and no robots.txt named it.
    assert_eq!(
        reason_of(&out, "http://maps.test/maps/a.xml").map(|r| r.0),
        Some("sitemap-off-site".to_string())
    );
}

/// The pages fetched (200, not a listing) and the sitemap files refused for the budget.
fn outcome(out: &Path) -> (std::collections::BTreeSet<String>, i64) {
    let conn = db(out);
    let mut stmt = conn
        .prepare(
            "SELECT url FROM urls WHERE state = 'fetched' AND status = 200
             AND reason NOT IN ('sitemap', 'feed', 'bad-listing')",
        )
        .unwrap();
    let pages = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let limited = conn
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE reason = 'sitemap-limit'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (pages, limited)
}

#[test]
fn a_discovery_crawl_stopped_and_resumed_reaches_the_same_pages() {
    let dir = tempfile::tempdir().unwrap();
    let topic = topic(dir.path(), "");
    let baseline = {
        let web = discovery_web();
        let out = dir.path().join("baseline");
        assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
        outcome(&out)
    };
    for signal_name in ["INT", "KILL"] {
        let web = discovery_web();
        let out = dir.path().join(format!("stopped-{signal_name}"));
        for n in [25, 60, 40] {
            let before = web.log().iter().filter(|h| h.path != "/robots.txt").count();
            let child = crate::resume::spawn(&topic, &out, &web.proxy());
            crate::resume::wait_for_pages(&web, before + n);
            crate::resume::signal(&child, signal_name);
            let stopped = child.wait_with_output().unwrap();
            assert_ne!(stopped.status.code(), Some(2), "{stopped:?}");
        }
        assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
        assert_eq!(outcome(&out), baseline, "{signal_name}");
    }
}

#[test]
fn the_sitemap_xml_of_a_server_is_asked_only_when_the_topic_says_so() {
    let web = discovery_web();
    let dir = tempfile::tempdir().unwrap();
    for (guess, out) in [(false, "plain"), (true, "guessing")] {
        let out = dir.path().join(out);
        let folder = dir.path().join(format!("topic-{guess}"));
        std::fs::create_dir_all(&folder).unwrap();
        let topic = topic_with(
            &folder,
            "\"http://feeds.test/\"",
            &format!("[discovery]\nguess_sitemap = {guess}\nfeeds = false\n"),
        );
        let before = web.log().len();
        let output = run_topic(&topic, &out, &web.proxy(), &[]);
        assert!(output.status.code().is_some_and(|c| c <= 1), "{output:?}");
        let asked: Vec<String> = web.log()[before..].iter().map(|h| h.path.clone()).collect();
        let hidden = asked.iter().filter(|p| p.starts_with("/hidden/")).count();
        if guess {
            assert!(asked.contains(&"/sitemap.xml".to_string()), "{asked:?}");
            assert_eq!(hidden, 5, "{asked:?}");
            let via: String = db(&out)
                .query_row(
                    "SELECT via FROM urls WHERE url = 'http://feeds.test/sitemap.xml'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(via, "robots");
        } else {
            assert!(!asked.contains(&"/sitemap.xml".to_string()), "{asked:?}");
            assert_eq!(hidden, 0, "{asked:?}");
        }
    }
}

/// Every fetched page and how it was found (`via`).
fn pages_via(out: &Path) -> std::collections::BTreeMap<String, String> {
    text_pairs(
        out,
        "SELECT url, via FROM urls WHERE state = 'fetched' AND status = 200
         AND reason NOT IN ('sitemap', 'feed', 'bad-listing')",
    )
}

/// Two `glaneur worker` processes sharing the crawl through PostgreSQL find the pages a single
/// process finds, and the collected store says how each was found (sitemap, feed, JavaScript),
/// as the single process's does.
#[test]
fn workers_keep_how_each_page_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let topic = topic(dir.path(), "");
    let single = {
        let web = discovery_web();
        let out = dir.path().join("single");
        assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
        pages_via(&out)
    };
    for via in ["sitemap", "feed", "javascript"] {
        assert!(single.values().any(|v| v == via), "{via}: {single:?}");
    }
    let pg = crate::postgres::PgServer::start();
    let web = discovery_web();
    let out = dir.path().join("workers");
    crate::workers::run_workers(&topic, &out, &pg.url(), &["w1", "w2"], &web.proxy());
    crate::workers::collect_ok(&out);
    assert_eq!(pages_via(&out), single);
}
