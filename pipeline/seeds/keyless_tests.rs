//! The keyless backends against the local mock: MediaWiki's search API as Wikipedia answers
//! `action=query&list=search&format=json&formatversion=2` (paging by `continue.sroffset`,
//! `maxlag` and parameter errors, a 403 for a client without a proper User-Agent), and the
//! Common Crawl index's `output=json` lines (captures of every status and type, "No Captures
//! found", a collection that does not exist).

use super::*;

fn wiki_hit(title: &str, snippet: &str) -> serde_json::Value {
    serde_json::json!({
        "ns": 0,
        "title": title,
        "pageid": 3217,
        "size": 45210,
        "wordcount": 5432,
        "snippet": snippet,
        "timestamp": "2025-10-02T08:14:51Z"
    })
}

/// A `list=search` answer: the hits, and `continue.sroffset` when there is a next page.
fn wiki_page(hits: Vec<serde_json::Value>, next: Option<u64>) -> String {
    let mut answer = serde_json::json!({
        "batchcomplete": true,
        "query": {
            "searchinfo": { "totalhits": 52 },
            "search": hits
        }
    });
    if let Some(offset) = next {
        answer["continue"] = serde_json::json!({ "sroffset": offset, "continue": "-||" });
    }
    json(answer)
}

fn wiki_error(code: &str, info: &str) -> String {
    json(serde_json::json!({
        "error": {
            "code": code,
            "info": info,
            "docref": "See https://fr.wikipedia.org/w/api.php for API usage."
        },
        "servedby": "mw-api-ext.eqiad.main-5f7c9d8b8-x2k4q"
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn mediawiki_reads_titles_as_article_urls_and_pages_by_offset() {
    let mock = Mock::start(|_, seen| {
        if seen.params.get("sroffset").map(String::as_str) == Some("0") {
            let hits = vec![
                wiki_hit(
                    "Théorie des graphes",
                    "La <span class=\"searchmatch\">théorie</span> des <span class=\"searchmatch\">graphes</span> est la discipline qui étudie les &quot;graphes&quot;",
                ),
                wiki_hit("", "a hit without a title is skipped"),
                wiki_hit("Graphe orienté", "Un <span class=\"searchmatch\">graphe</span> orienté"),
            ];
            (200, vec![], wiki_page(hits, Some(50)))
        } else {
            let hits = vec![wiki_hit("C++ (langage)", "")];
            (200, vec![], wiki_page(hits, None))
        }
    })
    .await;
    let mut s = searcher(Backend::Mediawiki, &mock.url("/w/api.php"), 20);
    let q = query("graphe -graffiti", &[]);
    let first = page_of(s.page(&q, 1).await.unwrap());
    let base = mock.url("/wiki/");
    assert_eq!(
        first.hits.iter().map(|h| h.url.clone()).collect::<Vec<_>>(),
        [
            format!("{base}Th%C3%A9orie_des_graphes"),
            format!("{base}Graphe_orient%C3%A9")
        ]
    );
    assert_eq!(first.hits[1].position, 2);
    assert_eq!(first.hits[0].title, "Théorie des graphes");
    assert_eq!(
        first.hits[0].snippet,
        "La théorie des graphes est la discipline qui étudie les \"graphes\""
    );
    assert!(first.more, "continue.sroffset announces a next page");
    let second = page_of(s.page(&q, 2).await.unwrap());
    assert_eq!(second.hits[0].url, format!("{base}C%2B%2B_(langage)"));
    assert!(!second.more);
    let log = mock.log();
    for (k, v) in [
        ("action", "query"),
        ("list", "search"),
        ("srsearch", "graphe -graffiti"),
        ("srlimit", "50"),
        ("format", "json"),
        ("formatversion", "2"),
    ] {
        assert_eq!(log[0].params[k], v, "{k}");
    }
    assert!(!log[0].params.contains_key("q"));
    assert_eq!(log[1].params["sroffset"], "50");
    assert_eq!(log[0].headers["user-agent"], "glaneur-test");
}

#[tokio::test(flavor = "multi_thread")]
async fn mediawiki_empty_answer_lag_and_refusals() {
    let empty = wiki_page(Vec::new(), None);
    let mock = Mock::start(move |n, _| match n {
        0 => (
            200,
            vec![("Retry-After", "0".into())],
            wiki_error("maxlag", "Waiting for 10.64.16.8: 6 seconds lagged."),
        ),
        _ => (200, vec![], empty.clone()),
    })
    .await;
    let mut s = searcher(Backend::Mediawiki, &mock.url("/w/api.php"), 20);
    let page = page_of(s.page(&query("zzzxq", &[]), 1).await.unwrap());
    assert!(page.hits.is_empty() && !page.more);
    assert_eq!(page.attempts, 2, "maxlag is retried");

    let refusals: [(u16, String, &str); 4] = [
        (
            200,
            wiki_error("nosrsearch", "The \"srsearch\" parameter must be set."),
            "nosrsearch: The \"srsearch\" parameter must be set.",
        ),
        (
            403,
            "Please set a user-agent and respect our robot policy https://w.wiki/4wJS.".into(),
            "User-Agent",
        ),
        (
            200,
            "<!DOCTYPE html><html><title>Wikipédia</title></html>".into(),
            "not the API's JSON",
        ),
        (
            200,
            json(serde_json::json!({"batchcomplete": true})),
            "query.search",
        ),
    ];
    for (status, body, said) in refusals {
        let mock = Mock::start(move |_, _| (status, vec![], body.clone())).await;
        let mut s = searcher(Backend::Mediawiki, &mock.url("/w/api.php"), 20);
        let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
        assert!(err.contains(said) && err.contains("mediawiki"), "{err}");
        assert_eq!(mock.log().len(), 1, "no retry: {err}");
    }
}

#[test]
fn mediawiki_defaults_to_the_topics_wikipedia_and_needs_no_key() {
    assert_eq!(key_variables(Backend::Mediawiki), (None, None));
    assert_eq!(key_variables(Backend::Commoncrawl), (None, None));
    let none = env_with(&[]);
    let mut s = section(Backend::Mediawiki, "http://x.test/");
    s.endpoint = None;
    let c = SearchConfig::new(&s, Some("fr"), &none).unwrap();
    assert_eq!(c.endpoint.as_str(), "https://fr.wikipedia.org/w/api.php");
    assert_eq!(
        c.article.as_deref(),
        Some("https://fr.wikipedia.org/wiki/$1")
    );
    let c = SearchConfig::new(&s, None, &none).unwrap();
    assert_eq!(c.endpoint.as_str(), "https://en.wikipedia.org/w/api.php");
    // Another wiki: its api.php gives its article path; a wiki laid out otherwise says it.
    let wiki = |endpoint: &str, article: Option<&str>| {
        let mut s = section(Backend::Mediawiki, endpoint);
        s.article_path = article.map(str::to_string);
        SearchConfig::new(&s, None, &none).map(|c| c.article.unwrap_or_default())
    };
    assert_eq!(
        wiki("https://wiki.example.org/api.php", None).unwrap(),
        "https://wiki.example.org/index.php?title=$1"
    );
    assert_eq!(
        wiki(
            "https://wiki.example.org/api.php",
            Some("https://wiki.example.org/page/$1")
        )
        .unwrap(),
        "https://wiki.example.org/page/$1"
    );
    let err = wiki("https://wiki.example.org/search", None).unwrap_err();
    assert!(err.to_string().contains("article_path"), "{err}");
    let err = wiki("https://wiki.example.org/api.php", Some("/wiki/")).unwrap_err();
    assert!(err.to_string().contains("`article_path"), "{err}");
    let mut s = section(Backend::Commoncrawl, "http://x.test/");
    s.endpoint = None;
    let c = SearchConfig::new(&s, Some("fr"), &none).unwrap();
    assert_eq!(c.endpoint.as_str(), COMMONCRAWL_INDEX);
}

/// One line of the index's `output=json`, as index.commoncrawl.org writes it.
fn capture(url: &str, status: &str, mime: &str, kind: &str) -> String {
    let key = url
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    json(serde_json::json!({
        "urlkey": format!("org,example){}", key.trim_start_matches("graphes.example.org")),
        "timestamp": "20251117083412",
        "url": url,
        "mime": mime,
        "mime-detected": mime,
        "status": status,
        "digest": "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
        "length": "18462",
        "offset": "412983210",
        "filename": format!(
            "crawl-data/CC-MAIN-2025-47/segments/1762439342185.16/{kind}/CC-MAIN-20251117081506-20251117111506-00421.warc.gz"
        ),
        "languages": "fra",
        "encoding": "UTF-8"
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn commoncrawl_keeps_captured_pages_once_each() {
    let lines = [
        capture(
            "http://graphes.example.org/",
            "301",
            "unk",
            "crawldiagnostics",
        ),
        capture("https://graphes.example.org/", "200", "text/html", "warc"),
        capture(
            "https://graphes.example.org/robots.txt",
            "200",
            "text/plain",
            "robotstxt",
        ),
        capture(
            "https://graphes.example.org/cours.pdf",
            "200",
            "application/pdf",
            "warc",
        ),
        capture(
            "https://graphes.example.org/arbres",
            "404",
            "text/html",
            "crawldiagnostics",
        ),
        capture(
            "https://graphes.example.org/arbres.txt",
            "200",
            "text/plain",
            "warc",
        ),
        capture("https://graphes.example.org/", "200", "text/html", "warc"),
        "{\"url\": \"https://graphes.example.org/cut\", \"sta".to_string(),
    ];
    let body = lines.join("\n") + "\n";
    let mock = Mock::start(move |_, _| (200, vec![], body.clone())).await;
    let mut s = searcher(
        Backend::Commoncrawl,
        &mock.url("/CC-MAIN-2025-47-index"),
        20,
    );
    let page = page_of(
        s.page(&query("graphes.example.org/*", &[]), 1)
            .await
            .unwrap(),
    );
    assert_eq!(
        page.hits.iter().map(|h| h.url.as_str()).collect::<Vec<_>>(),
        [
            "https://graphes.example.org/",
            "https://graphes.example.org/arbres.txt"
        ]
    );
    assert_eq!(page.hits[1].position, 2);
    assert!(!page.more, "one request per prefix");
    let log = mock.log();
    assert_eq!(log[0].params["url"], "graphes.example.org/*");
    assert_eq!(log[0].params["output"], "json");
    assert_eq!(
        log[0].params["limit"], "100",
        "five captures per result wanted"
    );
    assert!(!log[0].params.contains_key("q"));
    // Past the first page there is nothing to ask.
    let none = page_of(
        s.page(&query("graphes.example.org/*", &[]), 2)
            .await
            .unwrap(),
    );
    assert!(none.hits.is_empty() && none.attempts == 0);
    assert_eq!(mock.log().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn commoncrawl_no_captures_is_zero_hits_and_refusals_are_named() {
    let mock = Mock::start(|n, _| match n {
        0 => (503, vec![("Retry-After", "0".into())], "Slow Down".into()),
        _ => (
            404,
            vec![],
            json(serde_json::json!({"message": "No Captures found for: nothing.example/*"})),
        ),
    })
    .await;
    let mut s = searcher(
        Backend::Commoncrawl,
        &mock.url("/CC-MAIN-2025-47-index"),
        20,
    );
    let page = page_of(s.page(&query("nothing.example/*", &[]), 1).await.unwrap());
    assert!(page.hits.is_empty() && !page.more);
    assert_eq!(page.attempts, 2, "a 503 is retried");

    let refusals: [(u16, &str, &str); 4] = [
        (404, "<html><body>Not Found</body></html>", "collinfo.json"),
        (
            200,
            "<!DOCTYPE html><html>Common Crawl Index Server</html>",
            "not the index's JSON lines",
        ),
        (400, "{\"error\": \"Invalid Request\"}", "Invalid Request"),
        (403, "Forbidden", "403"),
    ];
    for (status, body, said) in refusals {
        let mock = Mock::start(move |_, _| (status, vec![], body.to_string())).await;
        let mut s = searcher(
            Backend::Commoncrawl,
            &mock.url("/CC-MAIN-2099-01-index"),
            20,
        );
        let err = format!(
            "{:#}",
            s.page(&query("a.example/*", &[]), 1).await.unwrap_err()
        );
        assert!(err.contains(said) && err.contains("commoncrawl"), "{err}");
    }
    // An empty 200 answer is no capture, not a refusal.
    let mock = Mock::start(|_, _| (200, vec![], String::new())).await;
    let mut s = searcher(
        Backend::Commoncrawl,
        &mock.url("/CC-MAIN-2025-47-index"),
        20,
    );
    let page = page_of(s.page(&query("a.example/*", &[]), 1).await.unwrap());
    assert!(page.hits.is_empty());
}
