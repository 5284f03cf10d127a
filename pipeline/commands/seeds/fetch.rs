//! `glaneur seeds --fetch`: each seed's page requested once, politely, so that the review shows
//! its title and whether the topic's formula accepts it.
//!
//! **In:** the seeds in scope, the topic (User-Agent, politeness, formula, limits), the run's
//! fetcher (live, through `--proxy`, or the topic's recorded web). **Out:** a
//! [`Preview`] per seed; the robots.txt copies read, stored in `crawl.sqlite` (the crawl that
//! follows uses them instead of asking again).
//!
//! **Invariants:** a server's robots.txt is read before any of its pages, and a page it
//! disallows is not requested; one request at a time, and a server's next request waits its
//! politeness delay (its `Crawl-delay` lengthens it, up to the topic's cap); a redirect is not
//! followed (one request per seed: the crawl follows it); timeouts, body caps and the network
//! guard are the crawl's (the same fetcher); the page is judged as the crawl judges it, by its
//! title and all its visible text (`stages::page::skim`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use stages::focus::formula::PreparedText;
use stages::web::robots::Robots;

use crate::fetch::{Fetcher, HttpFetcher, Replay};
use crate::ground::clock::now_epoch;
use crate::seeds::review::{Preview, SeedLine};
use crate::store::Store;
use crate::topic::{Topic, seconds};
use crate::warc::Response;

/// Redirects of robots.txt followed (RFC 9309 §2.3.1.2).
const ROBOTS_REDIRECTS: usize = 5;

/// The fetcher of the previews: the topic's recorded web when it has one, else the live web.
pub(super) fn fetcher(topic: &Topic, proxy: Option<&str>) -> anyhow::Result<Fetcher> {
    let crawl = &topic.file.crawl;
    if let Some(path) = topic.file.replay.as_ref().map(|p| topic.resolve(p)) {
        let bytes = std::fs::read(&path)
            .with_context(|| format!("cannot read the recorded web {}", path.display()))?;
        let canonicalizer = topic
            .file
            .urls
            .canonicalizer(topic.file.traps.max_url_length);
        let replay = Replay::from_bytes(&bytes, &canonicalizer, crawl.max_body_bytes)
            .with_context(|| format!("the recorded web {}", path.display()))?;
        return Ok(Fetcher::Replay(Arc::new(replay)));
    }
    Ok(Fetcher::Http(Arc::new(HttpFetcher::new(
        &topic.user_agent(),
        proxy,
        seconds(crawl.timeout_seconds),
        crawl.max_body_bytes,
        1,
        topic.file.domains.allow_private_addresses,
    )?)))
}

/// The previews of `lines` in scope that no crawl fetched yet, server by server.
pub(super) async fn previews(
    topic: &Topic,
    store: &mut Store,
    fetcher: &Fetcher,
    lines: &[SeedLine],
) -> anyhow::Result<HashMap<i64, Preview>> {
    let mut servers: Vec<(String, Vec<(i64, url::Url)>)> = Vec::new();
    for line in lines.iter().filter(|l| l.in_scope && l.known.is_none()) {
        let Ok(url) = url::Url::parse(&line.url) else {
            continue;
        };
        let key = stages::web::urlnorm::host_key(&url);
        match servers.iter_mut().find(|(k, _)| *k == key) {
            Some((_, seeds)) => seeds.push((line.id, url)),
            None => servers.push((key, vec![(line.id, url)])),
        }
    }
    let mut out = HashMap::new();
    for (key, seeds) in servers {
        let (robots, mut last) = robots_of(topic, store, fetcher, &key).await?;
        let delay = crate::crawl::politeness_delay(
            seconds(topic.file.politeness.delay_seconds),
            robots.as_ref().and_then(Robots::crawl_delay),
            topic.file.politeness.max_crawl_delay_seconds,
            fetcher.is_replay(),
        );
        for (id, url) in seeds {
            let path = match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_string(),
            };
            let preview = match &robots {
                None => not_fetched("robots.txt could not be read"),
                Some(r) if !r.is_allowed(&path) => not_fetched("disallowed by robots.txt"),
                Some(_) => {
                    if let Some(end) = last {
                        tokio::time::sleep(delay.saturating_sub(end.elapsed())).await;
                    }
                    let answer = fetcher.fetch(&url).await;
                    last = Some(Instant::now());
                    match answer {
                        Ok(response) => judge(topic, &url, &response),
                        Err(failure) => {
                            not_fetched(&format!("{} ({})", failure.reason, failure.detail))
                        }
                    }
                }
            };
            out.insert(id, preview);
        }
    }
    Ok(out)
}

/// A preview without a page.
fn not_fetched(why: &str) -> Preview {
    Preview {
        title: String::new(),
        verdict: format!("not judged: {why}"),
    }
}

/// The server's robots.txt rules (None: unavailable, nothing may be fetched), from a fresh
/// copy in the store or asked for (and stored); and when the server was last asked.
async fn robots_of(
    topic: &Topic,
    store: &mut Store,
    fetcher: &Fetcher,
    key: &str,
) -> anyhow::Result<(Option<Robots>, Option<Instant>)> {
    let token = stages::web::robots::product_token(&topic.user_agent());
    let ttl = topic.file.politeness.robots_ttl_seconds;
    if let Some((status, body, age)) = store.robots_of(key, now_epoch())?
        && (age < ttl || fetcher.is_replay())
        && !unavailable(status)
    {
        return Ok((
            Some(Robots::from_response(status, body.as_bytes(), &token)),
            None,
        ));
    }
    let Some(response) = fetch_robots(fetcher, key).await else {
        return Ok((None, Some(Instant::now())));
    };
    let asked = Some(Instant::now());
    if unavailable(response.status) {
        return Ok((None, asked));
    }
    let robots = Robots::from_response(response.status, response.body(), &token);
    let body = String::from_utf8_lossy(response.body()).into_owned();
    store.host_robots(
        key,
        response.status,
        &body,
        robots.crawl_delay(),
        now_epoch(),
    )?;
    store.commit()?;
    Ok((Some(robots), asked))
}

/// RFC 9309: a server error, 429 or no answer leaves the rules unknown.
fn unavailable(status: u16) -> bool {
    status == 0 || status == 429 || status >= 500
}

/// `GET /robots.txt`, redirects followed; None when no answer came.
async fn fetch_robots(fetcher: &Fetcher, key: &str) -> Option<Response> {
    let mut url = url::Url::parse(&format!("{key}/robots.txt")).ok()?;
    for _ in 0..=ROBOTS_REDIRECTS {
        let response = fetcher.fetch(&url).await.ok()?;
        let next = (300..400)
            .contains(&response.status)
            .then(|| response.header("location").and_then(|l| url.join(l).ok()))
            .flatten();
        match next {
            Some(next) => url = next,
            None => {
                let mut response = response;
                response.truncate_body(stages::web::robots::MAX_BODY_BYTES);
                return Some(response);
            }
        }
    }
    None
}

/// The page's title and the formula's verdict on its title and visible text, as the crawl
/// reads it; or why there is none.
fn judge(topic: &Topic, url: &url::Url, response: &Response) -> Preview {
    let content_type = response.header("content-type");
    if (300..400).contains(&response.status) {
        let to = response
            .header("location")
            .map(|l| url.join(l).map_or(l.to_string(), |u| u.to_string()))
            .unwrap_or_else(|| "?".into());
        return not_fetched(&format!("a redirect to {to} (the crawl follows it)"));
    }
    if response.status != 200 {
        return not_fetched(&format!("the server answered HTTP {}", response.status));
    }
    if !crate::fetch::is_harvested_type(content_type) {
        return not_fetched(&format!(
            "{} is not HTML or plain text",
            content_type.unwrap_or("?")
        ));
    }
    let decoded = stages::page::decode::decode(response.body(), content_type, url.host_str());
    let plain = content_type.is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/plain"));
    let crawl = &topic.file.crawl;
    // The skim's tokenizer recurses per attribute: it runs on a thread with the stack the crawl
    // gives its own (`stages::page::skim::STACK_BYTES`).
    let skimmed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(stages::page::skim::STACK_BYTES)
            .spawn_scoped(scope, || {
                if plain {
                    stages::page::skim::skim_plain(&decoded.text)
                } else {
                    stages::page::skim::skim_html_with(
                        &decoded.text,
                        url,
                        crawl.max_links_per_page,
                        crawl.max_attributes_per_element,
                    )
                }
            })
            .ok()
            .and_then(|thread| thread.join().ok())
    });
    let Some(skimmed) = skimmed else {
        return not_fetched("the page could not be read (please report it)");
    };
    let title = skimmed.title.clone().unwrap_or_default();
    let text = format!("{title}\n\n{}", skimmed.text);
    let prepared = PreparedText::new(&text, topic.formula.options());
    let satisfied = topic.formula.evaluate_prepared(&prepared).satisfied;
    let mut verdict = if satisfied {
        "satisfied"
    } else {
        "not satisfied"
    }
    .to_string();
    let languages = &topic.file.languages;
    if let Some(lang) = skimmed.language.as_ref().filter(|l| l.reliable)
        && !languages.is_empty()
        && !languages.contains(&lang.code)
    {
        verdict.push_str(&format!(" (in {}, not a topic language)", lang.code));
    }
    Preview { title, verdict }
}
