//! The search backends that need no key: a MediaWiki's search API (Wikipedia by default) and
//! the Common Crawl URL index; how their answers are read, and where a wiki's articles are.
//!
//! **In:** an answer's status and body; for MediaWiki, the article URL template
//! ([`article_template`], from `stages::seeds::queries`). **Out:** a [`Verdict`]: the hits, a retry, or why the answer is
//! refused.
//!
//! **Invariants:**
//! - a hit's URL comes from the answer only: a wiki title on the wiki's own article path, a
//!   captured URL as the index recorded it;
//! - Common Crawl: only captures answered `200` with an HTML or plain-text type are hits, one
//!   per distinct URL, in the index's order; "No Captures found" (404) is zero hits, not an
//!   error; an answer of which no line is JSON is refused, not read as zero hits;
//! - MediaWiki: `maxlag` and `ratelimited` errors are retried like a 429 (the wiki says when);
//!   any other error code is a refusal that quotes the wiki's own words.

use std::collections::HashSet;

use serde_json::Value;
use stages::seeds::queries::{wiki_article_template, wiki_article_url};

use super::{ApiHit, Verdict, excerpt, strip_tags, text};

/// Captures asked of Common Crawl per prefix: five per result wanted (a page is often captured
/// with a redirect, an error or a robots.txt beside it, which are left out), at least 50, at
/// most 10,000 (a few megabytes of JSON lines).
pub(super) fn capture_limit(wanted: u32) -> u32 {
    wanted.saturating_mul(5).clamp(50, 10_000)
}

/// Where a wiki's articles are (`stages::seeds::queries::wiki_article_template`), the error
/// naming `[search]`.
pub(super) fn article_template(
    endpoint: &url::Url,
    article_path: Option<&str>,
) -> anyhow::Result<String> {
    wiki_article_template(endpoint.as_str(), article_path)
        .map_err(|e| anyhow::anyhow!("[search] backend = \"mediawiki\": {e}"))
}

/// MediaWiki (`action=query&list=search&format=json&formatversion=2`):
/// `{continue: {sroffset}, query: {search: [{title, snippet}]}}`; errors
/// `{error: {code, info}}` (usually with status 200).
pub(super) fn mediawiki(status: u16, json: Option<Value>, body: &[u8], article: &str) -> Verdict {
    match status {
        200 => {}
        429 => return Verdict::Retry(None, "rate limited (429)".into()),
        403 => {
            return Verdict::Fatal(format!(
                "403 Forbidden: the wiki refused the request (Wikimedia refuses clients without \
                 a User-Agent that names a contact; glaneur sends the topic's [politeness] \
                 contact): `{}`",
                excerpt(body)
            ));
        }
        404 => {
            return Verdict::Fatal(
                "404 Not Found: no MediaWiki API at this address; `endpoint` should be the \
                 wiki's api.php, such as https://fr.wikipedia.org/w/api.php"
                    .into(),
            );
        }
        _ => {
            return Verdict::Fatal(format!(
                "the request was refused ({status}: {})",
                excerpt(body)
            ));
        }
    }
    let Some(json) = json else {
        return Verdict::Fatal(format!(
            "answered 200 with a body that is not the API's JSON (is `endpoint` the wiki's \
             api.php?): `{}`",
            excerpt(body)
        ));
    };
    if let Some(error) = json.get("error") {
        let (code, info) = (text(error, "code"), text(error, "info"));
        return match code.as_str() {
            "maxlag" | "ratelimited" => Verdict::Retry(None, format!("{code}: {info}")),
            _ => Verdict::Fatal(format!("the wiki refused the query ({code}: {info})")),
        };
    }
    let Some(items) = json.pointer("/query/search").and_then(Value::as_array) else {
        return Verdict::Fatal(format!(
            "answered without a list of results (`query.search`): `{}`",
            excerpt(body)
        ));
    };
    let hits: Vec<ApiHit> = items
        .iter()
        .map(|item| (text(item, "title"), item))
        .filter(|(title, _)| !title.trim().is_empty())
        .enumerate()
        .map(|(i, (title, item))| ApiHit {
            position: i + 1,
            url: wiki_article_url(article, &title),
            title: strip_tags(&title),
            snippet: strip_tags(&text(item, "snippet")),
        })
        .collect();
    let more = json.pointer("/continue/sroffset").is_some();
    Verdict::Hits(hits, more)
}

/// Common Crawl's URL index (pywb, `output=json`): one JSON object per line,
/// `{url, status, mime, …}`; 404 `No Captures found` when the prefix has none.
pub(super) fn commoncrawl(status: u16, body: &[u8]) -> Verdict {
    let no_captures = String::from_utf8_lossy(body).contains("No Captures found");
    match status {
        200 => {}
        404 if no_captures => return Verdict::Hits(Vec::new(), false),
        404 => {
            return Verdict::Fatal(format!(
                "404 Not Found: no such index (`{}`); `endpoint` must name a collection listed \
                 in https://index.commoncrawl.org/collinfo.json (its `cdx-api`)",
                excerpt(body)
            ));
        }
        429 => return Verdict::Retry(None, "rate limited (429)".into()),
        _ => {
            return Verdict::Fatal(format!(
                "the request was refused ({status}: {})",
                excerpt(body)
            ));
        }
    }
    let (mut hits, mut seen, mut read, mut unread) = (Vec::new(), HashSet::new(), 0, 0);
    for line in body.split(|b| *b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let capture = match serde_json::from_slice::<Value>(line) {
            Ok(v) if v.is_object() => v,
            _ => {
                unread += 1;
                continue;
            }
        };
        read += 1;
        if let Some(url) = page_of(&capture)
            && seen.insert(url.clone())
        {
            hits.push(ApiHit {
                position: hits.len() + 1,
                url,
                title: String::new(),
                snippet: String::new(),
            });
        }
    }
    if read == 0 && unread > 0 {
        return Verdict::Fatal(format!(
            "answered 200 with a body that is not the index's JSON lines: `{}`",
            excerpt(body)
        ));
    }
    Verdict::Hits(hits, false)
}

/// The URL of a capture that is a page: answered 200, HTML or plain text, not a robots.txt.
fn page_of(capture: &Value) -> Option<String> {
    let ok = match capture.get("status") {
        Some(Value::String(s)) => s.trim() == "200",
        Some(Value::Number(n)) => n.as_u64() == Some(200),
        _ => false,
    };
    let mime = text(capture, "mime").to_ascii_lowercase();
    let essence = mime.split(';').next().unwrap_or("").trim();
    let url = text(capture, "url").trim().to_string();
    let parsed = url::Url::parse(&url).ok()?;
    let page = ok
        && matches!(essence, "text/html" | "text/plain")
        && matches!(parsed.scheme(), "http" | "https")
        && parsed.path() != "/robots.txt";
    page.then_some(url)
}
