//! Each search backend against a local mock server that answers as the provider documents:
//! the recorded Brave response (`tests/data/serp/api/`), Mojeek's JSON response format,
//! SearXNG's `format=json` output and Google Custom Search's `Search` schema (Custom Search JSON
//! API v1 discovery document), with their error, quota and paging cases; the keyless backends
//! (MediaWiki, Common Crawl) in `keyless_tests.rs`, on the same mock.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stages::seeds::queries::{Backend, CompiledQuery};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

/// A request as the mock saw it.
#[derive(Debug, Clone)]
struct Seen {
    /// Decoded query parameters.
    params: HashMap<String, String>,
    headers: HashMap<String, String>,
    at: Instant,
}

type Reply = (u16, Vec<(&'static str, String)>, String);

/// A one-port HTTP/1.1 server; `reply(n, request)` answers the n-th request (0-based).
struct Mock {
    addr: std::net::SocketAddr,
    log: Arc<Mutex<Vec<Seen>>>,
}

impl Mock {
    async fn start(reply: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(reply);
        let shared = log.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let log = shared.clone();
                let reply = reply.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&buf).into_owned();
                    let mut lines = head.split("\r\n");
                    let target = lines
                        .next()
                        .and_then(|l| l.split(' ').nth(1))
                        .unwrap_or("/")
                        .to_string();
                    let url = url::Url::parse(&format!("http://mock{target}")).unwrap();
                    let seen = Seen {
                        params: url.query_pairs().into_owned().collect(),
                        headers: lines
                            .filter_map(|l| l.split_once(':'))
                            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                            .collect(),
                        at: Instant::now(),
                    };
                    let n = {
                        let mut log = log.lock().unwrap();
                        log.push(seen.clone());
                        log.len() - 1
                    };
                    let (status, headers, body) = reply(n, &seen);
                    let mut out = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
                        body.len()
                    );
                    for (k, v) in headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    out.push_str(&body);
                    let _ = stream.write_all(out.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Mock { addr, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn log(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }
}

/// The test material committed with the repository.
fn test_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
}

fn brave_recorded() -> String {
    std::fs::read_to_string(test_data().join("serp/api/brave-web-hello-world.json")).unwrap()
}

fn section(backend: Backend, endpoint: &str) -> SearchSection {
    let text = format!(
        "backend = \"{}\"\nendpoint = \"{endpoint}\"\ndelay_seconds = 0.0\nmax_requests = 20\n",
        backend.name()
    );
    toml::from_str(&text).unwrap()
}

fn env_with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k: &str| map.get(k).cloned()
}

fn keys() -> impl Fn(&str) -> Option<String> {
    env_with(&[
        ("BRAVE_SEARCH_API_KEY", "brave-secret"),
        ("MOJEEK_API_KEY", "mojeek-secret"),
        ("GOOGLE_CSE_API_KEY", "google-secret"),
        ("GOOGLE_CSE_ID", "cx-id"),
    ])
}

fn searcher(backend: Backend, endpoint: &str, max_requests: u64) -> Searcher {
    let mut s = section(backend, endpoint);
    s.max_requests = max_requests;
    let config = SearchConfig::new(&s, None, &keys()).unwrap();
    let client =
        crate::fetch::http_client("glaneur-test", None, Duration::from_secs(10), 1, false).unwrap();
    Searcher::new(config, client, 0)
}

fn query(q: &str, params: &[(&str, &str)]) -> CompiledQuery {
    CompiledQuery {
        q: q.into(),
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn page_of(outcome: PageOutcome) -> ResultPage {
    match outcome {
        PageOutcome::Page(p) => p,
        PageOutcome::Stop(why) => panic!("stopped: {why}"),
    }
}

fn stop_of(outcome: PageOutcome) -> String {
    match outcome {
        PageOutcome::Stop(why) => why,
        PageOutcome::Page(p) => panic!("expected a stop, got {} hits", p.hits.len()),
    }
}

fn json(v: serde_json::Value) -> String {
    v.to_string()
}

// ------------------------------------------------------------------------------------------
// Brave
// ------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn brave_reads_the_recorded_response_and_pages_by_offset() {
    let mock = Mock::start(|_, _| (200, vec![], brave_recorded())).await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 20);
    let q = query("hello world", &[("search_lang", "en")]);
    let first = page_of(s.page(&q, 1).await.unwrap());
    assert_eq!(first.hits.len(), 20);
    assert_eq!(first.hits[0].position, 1);
    assert!(first.hits.iter().all(|h| h.url.starts_with("http")));
    assert!(first.more, "query.more_results_available is true");
    assert!(
        first.hits.iter().all(|h| !h.snippet.contains('<')),
        "tags removed"
    );
    let recorded: serde_json::Value = serde_json::from_str(&brave_recorded()).unwrap();
    assert_eq!(
        first.hits[0].url,
        recorded["web"]["results"][0]["url"].as_str().unwrap()
    );
    page_of(s.page(&q, 3).await.unwrap());
    let log = mock.log();
    assert_eq!(log[0].headers["x-subscription-token"], "brave-secret");
    assert_eq!(log[0].headers["accept"], "application/json");
    assert_eq!(log[0].params["q"], "hello world");
    assert_eq!(log[0].params["search_lang"], "en");
    assert_eq!(log[0].params["count"], "20");
    assert_eq!(log[0].params["offset"], "0");
    assert_eq!(log[1].params["offset"], "2");
    assert!(
        !log[0].params.contains_key("api_key"),
        "key in the header only"
    );
    assert_eq!(s.requests, 2);
}

fn brave_error(status: u16, code: &str, detail: &str, quota: (u64, u64)) -> String {
    json(serde_json::json!({
        "type": "ErrorResponse",
        "error": {
            "id": "0f6a7c0e-3c9e-4a1e-9f0e-5d1d6c8d9e7a",
            "status": status,
            "code": code,
            "detail": detail,
            "meta": {
                "plan": "Free",
                "rate_limit": 1,
                "rate_current": 1,
                "quota_limit": quota.1,
                "quota_current": quota.0,
                "component": "rate_limiter"
            }
        },
        "time": 1_735_689_600
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn brave_refused_key_is_an_error_that_names_the_variable() {
    let mock = Mock::start(|_, _| {
        (
            401,
            vec![],
            brave_error(
                401,
                "SUBSCRIPTION_TOKEN_INVALID",
                "The provided subscription token is invalid.",
                (0, 2000),
            ),
        )
    })
    .await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("BRAVE_SEARCH_API_KEY"), "{err}");
    assert!(err.contains("SUBSCRIPTION_TOKEN_INVALID"), "{err}");
    assert!(!err.contains("brave-secret"), "{err}");
    assert_eq!(mock.log().len(), 1, "no retry on 401");
}

#[tokio::test(flavor = "multi_thread")]
async fn brave_rate_limit_is_retried_after_retry_after() {
    let mock = Mock::start(|n, _| {
        if n == 0 {
            (
                429,
                vec![
                    ("Retry-After", "1".into()),
                    ("X-RateLimit-Reset", "1, 1000".into()),
                ],
                brave_error(
                    429,
                    "RATE_LIMITED",
                    "Request rate limit exceeded for plan.",
                    (10, 2000),
                ),
            )
        } else {
            (200, vec![], brave_recorded())
        }
    })
    .await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 20);
    let page = page_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert_eq!(page.hits.len(), 20);
    assert_eq!(page.attempts, 2);
    assert_eq!(s.requests, 2, "the retry counts");
    let log = mock.log();
    let gap = log[1].at.duration_since(log[0].at);
    assert!(gap >= Duration::from_secs(1), "waited {gap:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn brave_spent_quota_stops_searching() {
    let mock = Mock::start(|_, _| {
        (
            429,
            vec![("X-RateLimit-Remaining", "0, 0".into())],
            brave_error(
                429,
                "RATE_LIMITED",
                "Request rate limit exceeded for plan.",
                (2000, 2000),
            ),
        )
    })
    .await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 20);
    let why = stop_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert!(why.contains("quota spent"), "{why}");
    assert_eq!(mock.log().len(), 1, "no retry once the quota is spent");
}

#[tokio::test(flavor = "multi_thread")]
async fn max_requests_stops_before_sending() {
    let mock = Mock::start(|_, _| (200, vec![], brave_recorded())).await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 1);
    page_of(s.page(&query("a", &[]), 1).await.unwrap());
    let why = stop_of(s.page(&query("b", &[]), 1).await.unwrap());
    assert!(why.contains("max_requests = 1"), "{why}");
    assert_eq!(mock.log().len(), 1);
}

#[test]
fn missing_key_and_missing_instance_are_named() {
    let none = env_with(&[]);
    let err =
        SearchConfig::new(&section(Backend::Brave, "http://x.test/"), None, &none).unwrap_err();
    assert!(err.to_string().contains("BRAVE_SEARCH_API_KEY"), "{err}");
    let err = SearchConfig::new(
        &section(Backend::Google, "http://x.test/"),
        None,
        &env_with(&[("GOOGLE_CSE_API_KEY", "k")]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("GOOGLE_CSE_ID"), "{err}");
    let mut s = section(Backend::Searxng, "http://x.test/");
    s.endpoint = None;
    let err = SearchConfig::new(&s, None, &none).unwrap_err();
    assert!(err.to_string().contains("endpoint"), "{err}");
    // SearXNG needs no key; its instance URL gets /search.
    let c = SearchConfig::new(
        &section(Backend::Searxng, "http://searx.test/base"),
        None,
        &none,
    )
    .unwrap();
    assert_eq!(c.endpoint.as_str(), "http://searx.test/base/search");
    // The environment overrides the topic's endpoint; the key never shows in Debug.
    let env = env_with(&[
        ("BRAVE_SEARCH_API_KEY", "brave-secret"),
        (ENDPOINT_VARIABLE, "http://mock.test/brave"),
    ]);
    let c = SearchConfig::new(&section(Backend::Brave, "http://x.test/"), None, &env).unwrap();
    assert_eq!(c.endpoint.as_str(), "http://mock.test/brave");
    assert!(!format!("{c:?}").contains("brave-secret"));
}

// ------------------------------------------------------------------------------------------
// Mojeek
// ------------------------------------------------------------------------------------------

/// A response in Mojeek's documented JSON format (`response` › `status`, `head`, `results`).
fn mojeek_page(start: u64, n: usize, total: u64) -> String {
    let results: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "url": format!("https://graphes.example.fr/page{}", start as usize + i),
                "title": format!("Théorie des graphes {}", start as usize + i),
                "desc": "Un graphe est un ensemble de sommets reliés par des arêtes.",
                "size": 12,
                "date": 1_700_000_000,
                "cdatetimestamp": 1_600_000_000,
                "mdatetimestamp": 1_650_000_000
            })
        })
        .collect();
    json(serde_json::json!({
        "response": {
            "status": "OK",
            "head": {
                "query": "graphe sommet",
                "nword": 2,
                "words": [
                    {"full": "graphe", "stem": "graph", "plus": 1, "hits": 112207},
                    {"full": "sommet", "stem": "sommet", "plus": 1, "hits": 5120}
                ],
                "timer": 0.61,
                "start": start,
                "return": n,
                "exact": false,
                "results": total,
                "rankm": 169,
                "dups": 0,
                "more": 0
            },
            "results": results
        }
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn mojeek_pages_by_start_index_and_reads_results() {
    let mock = Mock::start(|n, _| {
        if n == 0 {
            (200, vec![], mojeek_page(1, 10, 14))
        } else {
            (200, vec![], mojeek_page(11, 4, 14))
        }
    })
    .await;
    let mut s = searcher(Backend::Mojeek, &mock.url("/search"), 20);
    let q = query("graphe sommet", &[("qm", "graffiti"), ("lb", "FR")]);
    let first = page_of(s.page(&q, 1).await.unwrap());
    assert_eq!(first.hits.len(), 10);
    assert!(first.more);
    assert_eq!(first.hits[0].url, "https://graphes.example.fr/page1");
    assert_eq!(first.hits[0].title, "Théorie des graphes 1");
    let second = page_of(s.page(&q, 2).await.unwrap());
    assert_eq!(second.hits.len(), 4);
    assert!(!second.more);
    let log = mock.log();
    assert_eq!(log[0].params["api_key"], "mojeek-secret");
    assert_eq!(log[0].params["fmt"], "json");
    assert_eq!(log[0].params["qm"], "graffiti");
    assert_eq!(log[0].params["s"], "1");
    assert_eq!(log[0].params["t"], "10");
    assert_eq!(log[1].params["s"], "11");
}

#[tokio::test(flavor = "multi_thread")]
async fn mojeek_daily_limit_stops_and_a_refused_key_fails() {
    let mock = Mock::start(|_, _| {
        (
            200,
            vec![],
            json(serde_json::json!({"response": {"status": "ERROR: Daily Limit Reached"}})),
        )
    })
    .await;
    let mut s = searcher(Backend::Mojeek, &mock.url("/search"), 20);
    let why = stop_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert!(why.contains("Daily Limit Reached"), "{why}");

    let mock = Mock::start(|_, _| {
        (
            200,
            vec![],
            json(serde_json::json!({"response": {"status": "ERROR: Invalid API Key"}})),
        )
    })
    .await;
    let mut s = searcher(Backend::Mojeek, &mock.url("/search"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("MOJEEK_API_KEY"), "{err}");
    assert!(!err.contains("mojeek-secret"), "{err}");

    let mock = Mock::start(|_, _| (403, vec![], "Forbidden".into())).await;
    let mut s = searcher(Backend::Mojeek, &mock.url("/search"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("403"), "{err}");
}

// ------------------------------------------------------------------------------------------
// SearXNG
// ------------------------------------------------------------------------------------------

fn searxng_page(query: &str, urls: &[&str]) -> String {
    let results: Vec<serde_json::Value> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| {
            serde_json::json!({
                "url": u,
                "title": format!("Résultat {}", i + 1),
                "content": "Les <b>graphes</b> planaires &amp; leurs sommets.",
                "engine": "duckduckgo",
                "parsed_url": ["https", "example.fr", "/", "", "", ""],
                "template": "default.html",
                "engines": ["duckduckgo", "wikipedia"],
                "positions": [i + 1],
                "score": 2.0,
                "category": "general"
            })
        })
        .collect();
    json(serde_json::json!({
        "query": query,
        "number_of_results": 0,
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [["brave", "timeout"]]
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn searxng_reads_json_pages_until_an_empty_one() {
    let mock = Mock::start(|_, seen| {
        if seen.params.get("pageno").map(String::as_str) == Some("1") {
            (
                200,
                vec![],
                searxng_page(
                    "graphe",
                    &[
                        "https://a.example.fr/",
                        "ftp://skip.example/",
                        "https://b.example.fr/x",
                    ],
                ),
            )
        } else {
            (200, vec![], searxng_page("graphe", &[]))
        }
    })
    .await;
    let mut s = searcher(Backend::Searxng, &mock.url("/"), 20);
    let q = query("graphe", &[("language", "fr")]);
    let first = page_of(s.page(&q, 1).await.unwrap());
    assert_eq!(
        first
            .hits
            .iter()
            .map(|h| h.url.as_str())
            .collect::<Vec<_>>(),
        ["https://a.example.fr/", "https://b.example.fr/x"]
    );
    assert_eq!(first.hits[1].position, 2);
    assert_eq!(
        first.hits[0].snippet,
        "Les graphes planaires & leurs sommets."
    );
    assert!(first.more);
    let second = page_of(s.page(&q, 2).await.unwrap());
    assert!(second.hits.is_empty() && !second.more);
    let log = mock.log();
    assert_eq!(log[0].params["format"], "json");
    assert_eq!(log[0].params["language"], "fr");
    assert_eq!(log[1].params["pageno"], "2");
}

#[tokio::test(flavor = "multi_thread")]
async fn searxng_without_json_output_says_how_to_enable_it() {
    let mock = Mock::start(|_, _| (403, vec![], "<html>403 Forbidden</html>".into())).await;
    let mut s = searcher(Backend::Searxng, &mock.url("/"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("does not serve JSON"), "{err}");
    assert!(err.contains("settings.yml"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn searxng_html_answer_is_not_taken_for_results() {
    let mock = Mock::start(|_, _| (200, vec![], "<!DOCTYPE html><html>searx</html>".into())).await;
    let mut s = searcher(Backend::Searxng, &mock.url("/"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("not the API's JSON"), "{err}");
}

// ------------------------------------------------------------------------------------------
// Google Custom Search
// ------------------------------------------------------------------------------------------

/// A `customsearch#search` object as the discovery schema describes it.
fn google_page(start: u64, n: usize, next: bool) -> String {
    let items: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "kind": "customsearch#result",
                "title": format!("Graphe {}", start as usize + i),
                "htmlTitle": format!("<b>Graphe</b> {}", start as usize + i),
                "link": format!("https://www.example.fr/g{}", start as usize + i),
                "displayLink": "www.example.fr",
                "snippet": "Un graphe planaire ...",
                "htmlSnippet": "Un <b>graphe</b> planaire ...",
                "formattedUrl": "https://www.example.fr/...",
                "mime": "text/html"
            })
        })
        .collect();
    let request = serde_json::json!({
        "title": "Google Custom Search - graphe",
        "totalResults": "14",
        "searchTerms": "graphe",
        "count": n,
        "startIndex": start,
        "inputEncoding": "utf8",
        "outputEncoding": "utf8",
        "safe": "off",
        "cx": "cx-id"
    });
    let mut queries = serde_json::json!({ "request": [request] });
    if next {
        queries["nextPage"] = serde_json::json!([{
            "title": "Google Custom Search - graphe",
            "totalResults": "14",
            "searchTerms": "graphe",
            "count": 10,
            "startIndex": start + n as u64,
            "cx": "cx-id"
        }]);
    }
    json(serde_json::json!({
        "kind": "customsearch#search",
        "url": {
            "type": "application/json",
            "template": "https://www.googleapis.com/customsearch/v1?q={searchTerms}&num={count?}&start={startIndex?}&cx={cx?}&key={key?}&alt=json"
        },
        "queries": queries,
        "context": { "title": "glaneur" },
        "searchInformation": {
            "searchTime": 0.21,
            "formattedSearchTime": "0.21",
            "totalResults": "14",
            "formattedTotalResults": "14"
        },
        "items": items
    }))
}

fn google_error(code: u16, reason: &str, message: &str, status: &str) -> String {
    json(serde_json::json!({
        "error": {
            "code": code,
            "message": message,
            "errors": [{ "message": message, "domain": "global", "reason": reason }],
            "status": status
        }
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn google_pages_by_start_and_follows_next_page() {
    let mock = Mock::start(|_, seen| {
        if seen.params.get("start").map(String::as_str) == Some("1") {
            (200, vec![], google_page(1, 10, true))
        } else {
            (200, vec![], google_page(11, 4, false))
        }
    })
    .await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let q = query(
        "graphe",
        &[
            ("lr", "lang_fr"),
            ("siteSearch", "fr"),
            ("siteSearchFilter", "i"),
        ],
    );
    let first = page_of(s.page(&q, 1).await.unwrap());
    assert_eq!(first.hits.len(), 10);
    assert_eq!(first.hits[0].url, "https://www.example.fr/g1");
    assert!(first.more);
    let second = page_of(s.page(&q, 2).await.unwrap());
    assert_eq!(second.hits.len(), 4);
    assert!(!second.more);
    let log = mock.log();
    assert_eq!(log[0].params["key"], "google-secret");
    assert_eq!(log[0].params["cx"], "cx-id");
    assert_eq!(log[0].params["num"], "10");
    assert_eq!(log[0].params["siteSearch"], "fr");
    assert_eq!(log[1].params["start"], "11");
}

#[tokio::test(flavor = "multi_thread")]
async fn google_daily_quota_stops_and_per_minute_limit_is_retried() {
    let mock = Mock::start(|_, _| {
        (
            429,
            vec![],
            google_error(
                429,
                "rateLimitExceeded",
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'customsearch.googleapis.com' for consumer 'project_number:1'.",
                "RESOURCE_EXHAUSTED",
            ),
        )
    })
    .await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let why = stop_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert!(
        why.contains("quota spent") && why.contains("per day"),
        "{why}"
    );
    assert_eq!(mock.log().len(), 1);

    let mock = Mock::start(|n, _| match n {
        0 => (
            429,
            vec![("Retry-After", "0".into())],
            google_error(
                429,
                "rateLimitExceeded",
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'.",
                "RESOURCE_EXHAUSTED",
            ),
        ),
        1 => (
            503,
            vec![("Retry-After", "0".into())],
            "Service Unavailable".into(),
        ),
        _ => (200, vec![], google_page(1, 3, false)),
    })
    .await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let page = page_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert_eq!(page.hits.len(), 3);
    assert_eq!(page.attempts, 3);
    assert_eq!(s.requests, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn google_refusals_are_errors_and_persistent_5xx_stops() {
    let mock = Mock::start(|_, _| {
        (
            403,
            vec![],
            google_error(
                403,
                "forbidden",
                "This project does not have the access to Custom Search JSON API.",
                "PERMISSION_DENIED",
            ),
        )
    })
    .await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("GOOGLE_CSE_API_KEY"), "{err}");
    assert!(err.contains("does not have the access"), "{err}");
    assert!(!err.contains("google-secret"), "{err}");

    let mock = Mock::start(|_, _| {
        (
            400,
            vec![],
            google_error(
                400,
                "badRequest",
                "API key not valid. Please pass a valid API key.",
                "INVALID_ARGUMENT",
            ),
        )
    })
    .await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let err = format!("{:#}", s.page(&query("x", &[]), 1).await.unwrap_err());
    assert!(err.contains("was refused"), "{err}");

    let mock = Mock::start(|_, _| (500, vec![("Retry-After", "0".into())], "{}".into())).await;
    let mut s = searcher(Backend::Google, &mock.url("/customsearch/v1"), 20);
    let why = stop_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert!(why.contains("500") && why.contains("retries"), "{why}");
    assert_eq!(mock.log().len(), 1 + MAX_RETRIES as usize);
}

#[tokio::test(flavor = "multi_thread")]
async fn retry_after_beyond_the_cap_stops() {
    let mock = Mock::start(|_, _| (503, vec![("Retry-After", "3600".into())], String::new())).await;
    let mut s = searcher(Backend::Brave, &mock.url("/res/v1/web/search"), 20);
    let why = stop_of(s.page(&query("x", &[]), 1).await.unwrap());
    assert!(why.contains("3600 s"), "{why}");
    assert_eq!(mock.log().len(), 1);
}

#[path = "keyless_tests.rs"]
mod keyless;

#[test]
fn retry_after_reads_seconds_and_dates() {
    assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
        Some(Duration::ZERO)
    );
    assert_eq!(parse_retry_after("soon"), None);
}
