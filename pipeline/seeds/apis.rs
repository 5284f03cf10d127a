//! Seeds from search APIs: Brave Search, Mojeek, a SearXNG instance, Google Custom Search, and
//! the two that need no key, a MediaWiki's search (Wikipedia) and the Common Crawl URL index
//! (`keyless.rs`).
//!
//! **In:** the compiled queries of `[search]` ([`crate::topic::SearchPlan`]), the API key from
//! the environment, the run's HTTP client (User-Agent with the topic's contact, which
//! Wikimedia's User-Agent policy asks for, `--proxy`).
//! **Out:** result pages ([`ResultPage`]) with their hits, and a record of every result page
//! received in `crawl.sqlite` (`searches`), so that a resumed run never asks twice.
//!
//! **Invariants:**
//! - keys are read from the environment only ([`key_variables`]) and never written anywhere
//!   (not in errors, the report, the WARC or `crawl.sqlite`);
//! - one request at a time, `delay_seconds` between the end of a response and the next
//!   request; every request sent counts against `max_requests`, retries included, over the
//!   whole run folder;
//! - 429 and 5xx are retried (at most [`MAX_RETRIES`] times), waiting what `Retry-After` says
//!   (or Brave's `X-RateLimit-Reset`), else an exponential back-off; a spent quota, a retry
//!   wait over [`MAX_RETRY_WAIT`] or `max_requests` *stops* searching with a message (the crawl
//!   goes on with the seeds found); a missing or refused key, a SearXNG instance without JSON
//!   output and any other refusal are errors that name the cause;
//! - the hits are not trusted: the seeds stage re-checks them against `[domains]` and the
//!   crawl against the formula, whatever the query asked.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;
use stages::seeds::queries::{Backend, CompiledQuery, paging};

use crate::topic::SearchSection;

/// Retries of one request after a 429 or 5xx.
pub const MAX_RETRIES: u32 = 3;

/// Longest wait glaneur accepts before a retry; a server asking for more stops searching.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(120);

/// Environment variable that overrides every backend's endpoint (tests, mirrors).
pub const ENDPOINT_VARIABLE: &str = "GLANEUR_SEARCH_ENDPOINT";

/// The environment variables a backend reads its credentials from: (key, engine id).
pub fn key_variables(backend: Backend) -> (Option<&'static str>, Option<&'static str>) {
    match backend {
        Backend::Brave => (Some("BRAVE_SEARCH_API_KEY"), None),
        Backend::Mojeek => (Some("MOJEEK_API_KEY"), None),
        Backend::Google => (Some("GOOGLE_CSE_API_KEY"), Some("GOOGLE_CSE_ID")),
        Backend::Searxng | Backend::Mediawiki | Backend::Commoncrawl => (None, None),
    }
}

/// The latest Common Crawl collection when this glaneur was written; the others are listed
/// in <https://index.commoncrawl.org/collinfo.json> (`cdx-api`).
pub const COMMONCRAWL_INDEX: &str = "https://index.commoncrawl.org/CC-MAIN-2025-47-index";

/// The provider's public endpoint (SearXNG has none: it is your instance). MediaWiki: the
/// Wikipedia in `language` (`en` without one).
pub fn default_endpoint(backend: Backend, language: Option<&str>) -> Option<String> {
    let fixed = match backend {
        Backend::Brave => "https://api.search.brave.com/res/v1/web/search",
        Backend::Mojeek => "https://api.mojeek.com/search",
        Backend::Google => "https://www.googleapis.com/customsearch/v1",
        Backend::Commoncrawl => COMMONCRAWL_INDEX,
        Backend::Searxng => return None,
        Backend::Mediawiki => {
            let language = language
                .map(|l| l.trim().to_ascii_lowercase())
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| "en".into());
            return Some(format!("https://{language}.wikipedia.org/w/api.php"));
        }
    };
    Some(fixed.to_string())
}

/// Everything a [`Searcher`] needs besides the HTTP client.
#[derive(Clone)]
pub struct SearchConfig {
    /// Which API.
    pub backend: Backend,
    /// Where to send requests.
    pub endpoint: url::Url,
    /// API key (Brave, Mojeek, Google).
    key: Option<String>,
    /// Google's search engine id (`cx`).
    cx: Option<String>,
    /// MediaWiki: the article URL with `$1` for the title.
    pub article: Option<String>,
    /// Results wanted per query (Common Crawl's `limit` is drawn from it).
    pub wanted: u32,
    /// Gap between the end of a response and the next request.
    pub delay: Duration,
    /// Requests allowed over the run folder.
    pub max_requests: u64,
}

impl std::fmt::Debug for SearchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("SearchConfig")
            .field("backend", &self.backend)
            .field("endpoint", &self.endpoint.as_str())
            .field("delay", &self.delay)
            .field("max_requests", &self.max_requests)
            .finish_non_exhaustive()
    }
}

impl SearchConfig {
    /// `text` with the credentials (as they are, and percent-encoded as a URL carries them)
    /// replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in self.key.iter().chain(&self.cx) {
            if secret.is_empty() {
                continue;
            }
            let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
            let escaped = secret.replace('/', "\\/");
            for form in [secret.as_str(), encoded.as_str(), escaped.as_str()] {
                out = out.replace(form, "[redacted]");
            }
        }
        out
    }

    /// The configuration of `[search]`, with credentials and the endpoint override read
    /// through `env` (the process environment in `glaneur run`); `language` chooses the
    /// Wikipedia of a `mediawiki` backend without an endpoint.
    pub fn new(
        section: &SearchSection,
        language: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> anyhow::Result<SearchConfig> {
        let backend = section.backend;
        let name = backend.name();
        let raw = env(ENDPOINT_VARIABLE)
            .filter(|v| !v.trim().is_empty())
            .or_else(|| section.endpoint.clone())
            .or_else(|| default_endpoint(backend, language));
        let Some(raw) = raw else {
            bail!(
                "[search] backend = \"{name}\" needs the URL of your instance: `endpoint = \"http://localhost:8888\"` (or {ENDPOINT_VARIABLE})"
            );
        };
        let mut endpoint = url::Url::parse(raw.trim())
            .with_context(|| format!("[search] `endpoint = \"{raw}\"` is not a URL"))?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            bail!("[search] `endpoint = \"{raw}\"` is not http or https");
        }
        if backend == Backend::Searxng && !endpoint.path().ends_with("/search") {
            if !endpoint.path().ends_with('/') {
                let path = format!("{}/", endpoint.path());
                endpoint.set_path(&path);
            }
            endpoint = endpoint
                .join("search")
                .with_context(|| format!("cannot add /search to {raw}"))?;
        }
        let article = match backend {
            Backend::Mediawiki => Some(keyless::article_template(
                &endpoint,
                section.article_path.as_deref(),
            )?),
            _ => None,
        };
        let (key_var, cx_var) = key_variables(backend);
        let read = |var: Option<&str>| -> anyhow::Result<Option<String>> {
            let Some(var) = var else { return Ok(None) };
            match env(var).map(|v| v.trim().to_string()) {
                Some(v) if !v.is_empty() => Ok(Some(v)),
                _ => bail!(
                    "[search] backend = \"{name}\" needs the environment variable {var} (keys are read from the environment only, never from the topic file)"
                ),
            }
        };
        Ok(SearchConfig {
            backend,
            endpoint,
            key: read(key_var)?,
            cx: read(cx_var)?,
            article,
            wanted: section.results_per_query,
            delay: crate::topic::seconds(section.delay_seconds),
            max_requests: section.max_requests,
        })
    }
}

/// One result of an API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiHit {
    /// Position on its result page (1-based).
    pub position: usize,
    /// The result's URL as the API gave it.
    pub url: String,
    /// Title, tags removed.
    pub title: String,
    /// Snippet, tags removed.
    pub snippet: String,
}

/// One result page received.
#[derive(Debug, Clone)]
pub struct ResultPage {
    /// The hits in page order.
    pub hits: Vec<ApiHit>,
    /// The API says (or the page size suggests) that another page exists.
    pub more: bool,
    /// Requests this page took (1 + retries).
    pub attempts: u32,
    /// When the response arrived (ISO 8601, UTC).
    pub retrieved_at: String,
}

/// What asking for a page led to.
#[derive(Debug)]
pub enum PageOutcome {
    /// The page.
    Page(ResultPage),
    /// Searching must stop (quota spent, `max_requests` reached, rate limit that does not
    /// clear); the message says which and what to do.
    Stop(String),
}

/// How one response is to be handled.
enum Verdict {
    Hits(Vec<ApiHit>, bool),
    Retry(Option<Duration>, String),
    Quota(String),
    Fatal(String),
}

/// Sends the requests of one backend, paced and counted.
pub struct Searcher {
    config: SearchConfig,
    client: reqwest::Client,
    /// Requests sent so far, including those recorded in the run folder before this run.
    pub requests: u64,
    last_end: Option<Instant>,
}

impl Searcher {
    /// A searcher whose request count starts at `already_sent`.
    pub fn new(config: SearchConfig, client: reqwest::Client, already_sent: u64) -> Searcher {
        Searcher {
            config,
            client,
            requests: already_sent,
            last_end: None,
        }
    }

    /// The backend.
    pub fn backend(&self) -> Backend {
        self.config.backend
    }

    /// Result page `page` (1 = first) of `query`. No message it returns holds the API key
    /// or the engine id, even when the API echoes the request in its error body.
    pub async fn page(&mut self, query: &CompiledQuery, page: u32) -> anyhow::Result<PageOutcome> {
        match self.page_unredacted(query, page).await {
            Ok(PageOutcome::Stop(why)) => Ok(PageOutcome::Stop(self.config.redact(&why))),
            Ok(page) => Ok(page),
            Err(e) => Err(anyhow::anyhow!(self.config.redact(&format!("{e:#}")))),
        }
    }

    async fn page_unredacted(
        &mut self,
        query: &CompiledQuery,
        page: u32,
    ) -> anyhow::Result<PageOutcome> {
        let backend = self.config.backend;
        let name = backend.name();
        let Some(paging) = paging(backend, page) else {
            return Ok(PageOutcome::Page(ResultPage {
                hits: Vec::new(),
                more: false,
                attempts: 0,
                retrieved_at: crate::ground::clock::now_iso(),
            }));
        };
        let url = self.request_url(query, &paging);
        // What errors may show: the endpoint without the query, which can hold the key.
        let shown = {
            let mut u = self.config.endpoint.clone();
            u.set_query(None);
            u.to_string()
        };
        let mut attempts = 0u32;
        loop {
            if let Some(stop) = self.wait_turn().await {
                return Ok(stop);
            }
            attempts += 1;
            let mut request = self
                .client
                .get(url.as_str())
                .header(reqwest::header::ACCEPT, "application/json");
            if backend == Backend::Brave
                && let Some(key) = &self.config.key
            {
                request = request.header("X-Subscription-Token", key);
            }
            let sent = request.send().await;
            let response = match sent {
                Ok(r) => r,
                Err(e) => {
                    self.last_end = Some(Instant::now());
                    if attempts <= MAX_RETRIES {
                        tokio::time::sleep(backoff(self.config.delay, attempts)).await;
                        continue;
                    }
                    bail!(
                        "{name}: cannot reach {shown} after {attempts} attempts: {}",
                        error_text(e)
                    );
                }
            };
            let status = response.status().as_u16();
            let retry_after = retry_after_of(&response);
            let body = response.bytes().await;
            self.last_end = Some(Instant::now());
            let body = match body {
                Ok(b) => b,
                Err(e) => {
                    if attempts <= MAX_RETRIES {
                        tokio::time::sleep(backoff(self.config.delay, attempts)).await;
                        continue;
                    }
                    bail!(
                        "{name}: the response from {shown} was cut: {}",
                        error_text(e)
                    );
                }
            };
            let verdict = classify(&self.config, status, &body);
            let wait = match self.outcome(verdict, attempts, retry_after, &shown)? {
                Ok(outcome) => return Ok(outcome),
                Err(wait) => wait,
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// The request's URL: the endpoint with the query, the page and the backend's
    /// parameters (the key, for the APIs that take it there).
    fn request_url(&self, query: &CompiledQuery, paging: &[(String, String)]) -> url::Url {
        let backend = self.config.backend;
        let mut url = self.config.endpoint.clone();
        {
            let mut pairs = url.query_pairs_mut();
            let q_name = match backend {
                Backend::Mediawiki => {
                    pairs.append_pair("action", "query");
                    pairs.append_pair("list", "search");
                    "srsearch"
                }
                Backend::Commoncrawl => "url",
                _ => "q",
            };
            pairs.append_pair(q_name, &query.q);
            for (k, v) in query.params.iter().chain(paging.iter()) {
                pairs.append_pair(k, v);
            }
            match backend {
                Backend::Brave => {}
                Backend::Mediawiki => {
                    pairs.append_pair("format", "json");
                    pairs.append_pair("formatversion", "2");
                }
                Backend::Commoncrawl => {
                    pairs.append_pair("output", "json");
                    let limit = keyless::capture_limit(self.config.wanted);
                    pairs.append_pair("limit", &limit.to_string());
                }
                Backend::Mojeek => {
                    pairs.append_pair("fmt", "json");
                    if let Some(key) = &self.config.key {
                        pairs.append_pair("api_key", key);
                    }
                }
                Backend::Searxng => {
                    pairs.append_pair("format", "json");
                }
                Backend::Google => {
                    if let Some(key) = &self.config.key {
                        pairs.append_pair("key", key);
                    }
                    if let Some(cx) = &self.config.cx {
                        pairs.append_pair("cx", cx);
                    }
                }
            }
        }
        url
    }

    /// Waits for the delay between requests and counts the request; says why searching
    /// stops instead when `[search] max_requests` is reached.
    async fn wait_turn(&mut self) -> Option<PageOutcome> {
        if self.requests >= self.config.max_requests {
            return Some(PageOutcome::Stop(format!(
                "[search] max_requests = {} reached: searching stopped; raise it to send the remaining queries (requests already answered are not sent again)",
                self.config.max_requests
            )));
        }
        if let Some(end) = self.last_end {
            let since = end.elapsed();
            if since < self.config.delay {
                tokio::time::sleep(self.config.delay - since).await;
            }
        }
        self.requests += 1;
        None
    }

    /// What an answer means: the page, or why searching stops (`Ok`), or how long to wait
    /// before trying again (`Err`).
    fn outcome(
        &self,
        verdict: Verdict,
        attempts: u32,
        retry_after: Option<Duration>,
        shown: &str,
    ) -> anyhow::Result<Result<PageOutcome, Duration>> {
        let name = self.config.backend.name();
        match verdict {
            Verdict::Hits(hits, more) => Ok(Ok(PageOutcome::Page(ResultPage {
                hits,
                more,
                attempts,
                retrieved_at: crate::ground::clock::now_iso(),
            }))),
            Verdict::Quota(why) => Ok(Ok(PageOutcome::Stop(format!(
                "{name}: quota spent ({why}): searching stopped; the queries not answered are sent when the run is resumed"
            )))),
            Verdict::Fatal(why) => bail!("{name} ({shown}): {why}"),
            Verdict::Retry(asked, why) => {
                if attempts > MAX_RETRIES {
                    return Ok(Ok(PageOutcome::Stop(format!(
                        "{name}: {why}, still after {MAX_RETRIES} retries: searching stopped; resume the run later"
                    ))));
                }
                let wait = asked
                    .or(retry_after)
                    .unwrap_or_else(|| backoff(self.config.delay, attempts));
                if wait > MAX_RETRY_WAIT {
                    return Ok(Ok(PageOutcome::Stop(format!(
                        "{name}: {why}, and the API asks to wait {} s: searching stopped; resume the run later",
                        wait.as_secs()
                    ))));
                }
                Ok(Err(wait))
            }
        }
    }
}

/// How long the API asks to wait: `Retry-After`, or Brave's `X-RateLimit-Reset: 1, 1419704`
/// (seconds until the per-second and the monthly windows reset).
fn retry_after_of(response: &reqwest::Response) -> Option<Duration> {
    let header = |n: &str| {
        response
            .headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    header("retry-after")
        .and_then(|v| parse_retry_after(&v))
        .or_else(|| {
            header("x-ratelimit-reset").and_then(|v| {
                v.split(',')
                    .next()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .map(Duration::from_secs)
            })
        })
}

/// A transport error without its URL (which may hold the key), with its causes.
fn error_text(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// `delay · 2^(attempt-1)`, at least one second.
fn backoff(delay: Duration, attempt: u32) -> Duration {
    delay.max(Duration::from_secs(1)) * 2u32.saturating_pow(attempt.saturating_sub(1).min(6))
}

/// `Retry-After`: seconds, or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(crate::ground::clock::now_system())
            .unwrap_or(Duration::ZERO),
    )
}

/// The first characters of a body, for an error message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn classify(config: &SearchConfig, status: u16, body: &[u8]) -> Verdict {
    let server_error = (500..600).contains(&status);
    if server_error {
        return Verdict::Retry(None, format!("the server answered {status}"));
    }
    if config.backend == Backend::Commoncrawl {
        // JSON lines, not one JSON document.
        return keyless::commoncrawl(status, body);
    }
    let json: Option<Value> = serde_json::from_slice(body).ok();
    match config.backend {
        Backend::Brave => brave(status, json, body),
        Backend::Google => google(status, json, body),
        Backend::Mojeek => mojeek(status, json, body),
        Backend::Searxng => searxng(status, json, body),
        Backend::Mediawiki => keyless::mediawiki(
            status,
            json,
            body,
            config.article.as_deref().unwrap_or("$1"),
        ),
        Backend::Commoncrawl => keyless::commoncrawl(status, body),
    }
}

/// A string field, or "".
fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The hits of a JSON array of result objects.
fn hits_of(items: Option<&Value>, url: &str, title: &str, snippet: &str) -> Vec<ApiHit> {
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| (text(item, url), item))
                .filter(|(u, _)| {
                    let lower = u.trim().to_ascii_lowercase();
                    lower.starts_with("http://") || lower.starts_with("https://")
                })
                .enumerate()
                .map(|(i, (u, item))| ApiHit {
                    position: i + 1,
                    url: u.trim().to_string(),
                    title: strip_tags(&text(item, title)),
                    snippet: strip_tags(&text(item, snippet)),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Removes HTML tags (Brave marks query words with `<strong>`) and decodes the few entities
/// APIs use.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn not_json(status: u16, body: &[u8]) -> Verdict {
    Verdict::Fatal(format!(
        "answered {status} with a body that is not the API's JSON: `{}`",
        excerpt(body)
    ))
}

/// Brave: `{web: {results: [{url, title, description}]}, query: {more_results_available}}`;
/// errors `{type: "ErrorResponse", error: {status, code, detail, meta}}`.
fn brave(status: u16, json: Option<Value>, body: &[u8]) -> Verdict {
    let Some(json) = json else {
        return not_json(status, body);
    };
    if status == 200 {
        let hits = hits_of(json.pointer("/web/results"), "url", "title", "description");
        let more = json
            .pointer("/query/more_results_available")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        return Verdict::Hits(hits, more);
    }
    let code = json
        .pointer("/error/code")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let detail = json
        .pointer("/error/detail")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let why = format!("{status} {code}: {detail}");
    let meta = |k: &str| {
        json.pointer(&format!("/error/meta/{k}"))
            .and_then(Value::as_u64)
    };
    match status {
        401 | 403 => Verdict::Fatal(format!(
            "the key in BRAVE_SEARCH_API_KEY was refused ({why})"
        )),
        429 => {
            let quota_spent = matches!((meta("quota_current"), meta("quota_limit")), (Some(c), Some(l)) if l > 0 && c >= l)
                || code.to_ascii_uppercase().contains("QUOTA");
            if quota_spent {
                Verdict::Quota(why)
            } else {
                Verdict::Retry(None, format!("rate limited ({why})"))
            }
        }
        _ if code.to_ascii_uppercase().contains("TOKEN") => Verdict::Fatal(format!(
            "the key in BRAVE_SEARCH_API_KEY was refused ({why})"
        )),
        _ => Verdict::Fatal(format!("the request was refused ({why})")),
    }
}

/// Google Custom Search: `{items: [{link, title, snippet}], queries: {nextPage}}`; errors
/// `{error: {code, message, errors: [{reason}], status}}`.
fn google(status: u16, json: Option<Value>, body: &[u8]) -> Verdict {
    let Some(json) = json else {
        return not_json(status, body);
    };
    if status == 200 {
        let hits = hits_of(json.get("items"), "link", "title", "snippet");
        let more = json
            .pointer("/queries/nextPage")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        return Verdict::Hits(hits, more);
    }
    let message = json
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let reasons: Vec<String> = json
        .pointer("/error/errors")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|e| text(e, "reason")).collect())
        .unwrap_or_default();
    let has = |r: &str| reasons.iter().any(|x| x == r);
    let why = format!("{status} {}: {message}", reasons.join(","));
    let per_day = message.to_ascii_lowercase().contains("per day");
    if has("dailyLimitExceeded") || has("quotaExceeded") || per_day {
        return Verdict::Quota(why);
    }
    if status == 429 || has("rateLimitExceeded") || has("userRateLimitExceeded") {
        return Verdict::Retry(None, format!("rate limited ({why})"));
    }
    if status == 401 || status == 403 || has("keyInvalid") || message.contains("API key not valid")
    {
        return Verdict::Fatal(format!(
            "the key in GOOGLE_CSE_API_KEY (with GOOGLE_CSE_ID) was refused ({why}); the Custom Search JSON API is closed to new customers"
        ));
    }
    Verdict::Fatal(format!("the request was refused ({why})"))
}

/// Mojeek: `{response: {status: "OK", head: {…}, results: [{url, title, desc}]}}`; a refusal
/// is `status: "ERROR: …"` (e.g. `ERROR: Daily Limit Reached`).
fn mojeek(status: u16, json: Option<Value>, body: &[u8]) -> Verdict {
    if status == 401 || status == 403 {
        return Verdict::Fatal(format!(
            "the key in MOJEEK_API_KEY was refused ({status}: {})",
            excerpt(body)
        ));
    }
    if status == 429 {
        return Verdict::Retry(None, "rate limited (429)".into());
    }
    let Some(json) = json else {
        return not_json(status, body);
    };
    let state = json
        .pointer("/response/status")
        .and_then(Value::as_str)
        .unwrap_or("");
    if status == 200 && state.eq_ignore_ascii_case("OK") {
        let hits = hits_of(json.pointer("/response/results"), "url", "title", "desc");
        let more = hits.len() >= Backend::Mojeek.page_size() as usize;
        return Verdict::Hits(hits, more);
    }
    let lower = state.to_ascii_lowercase();
    if lower.contains("limit") {
        Verdict::Quota(state.to_string())
    } else if lower.contains("key") || lower.contains("auth") {
        Verdict::Fatal(format!("the key in MOJEEK_API_KEY was refused ({state})"))
    } else {
        Verdict::Fatal(format!("the request was refused ({status}: {state})"))
    }
}

/// SearXNG: `{query, results: [{url, title, content, engine}], …}`; 403 when the instance
/// does not serve the JSON format.
fn searxng(status: u16, json: Option<Value>, body: &[u8]) -> Verdict {
    match status {
        403 => {
            return Verdict::Fatal(
                "403 Forbidden: this SearXNG instance does not serve JSON; add `json` to `search: formats:` in its settings.yml (public instances usually disable it)".into(),
            );
        }
        429 => {
            return Verdict::Retry(
                None,
                "the instance's limiter refused the request (429)".into(),
            );
        }
        200 => {}
        _ => {
            return Verdict::Fatal(format!(
                "the request was refused ({status}: {})",
                excerpt(body)
            ));
        }
    }
    let Some(json) = json else {
        return not_json(status, body);
    };
    let hits = hits_of(json.get("results"), "url", "title", "content");
    let more = !hits.is_empty();
    Verdict::Hits(hits, more)
}

#[path = "keyless.rs"]
mod keyless;

#[cfg(test)]
#[path = "apis_tests.rs"]
mod tests;
