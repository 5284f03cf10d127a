//! The fetches a batch's topics share: a URL wanted by several topics is requested once, and
//! every server is asked by one topic at a time, as slowly as the slowest topic allows.
//!
//! **In:** each topic's own fetcher (its client, user agent, proxy and limits) and the URL it
//! asks for. **Out:** the response, from the network the first time, from the hub's memory for
//! every later topic.
//!
//! **Invariants:**
//! - one request in flight per server across all the topics, and between the end of one and
//!   the start of the next at least the largest `[politeness] delay_seconds` of the topics
//!   whose `[domains]` hold the server, their largest `response_time_factor` × the last
//!   response's time, and the server's robots.txt `Crawl-delay` (read by any topic, capped by
//!   their largest `max_crawl_delay_seconds`);
//! - a URL is requested once: concurrent askers wait for the first one's answer; later ones get
//!   a copy. A transient outcome (timeout, network error, 429, 5xx) is not kept: a retry asks
//!   the server again. A conditional request (a revisit) always goes to the server;
//! - a shared response is the one the first asking topic fetched, with its own client (user
//!   agent, timeout, size limit); topics whose network guards differ
//!   (`allow_private_addresses`) never share a response;
//! - when the batch starts, the responses its topics' run folders already hold are remembered
//!   (where they are, not their bytes): a topic asking for one reads the stored copy, so a
//!   batch started again does not ask the servers again for what another topic fetched
//!   before the stop (robots.txt files excepted: they are not stored with the pages);
//! - memory is bounded: past `cache_bytes` of kept bodies, the oldest are forgotten (a topic
//!   that asks for one later fetches it again, and the hub counts it).
//!
//! The hub uses only runtime-independent primitives (`tokio::sync`, `std::sync`): each topic
//! runs its own single-threaded runtime on its own thread, and its waits happen on it.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stages::web::robots::Robots;
use stages::web::urlnorm;
use tokio::sync::OnceCell;

use crate::fetch::{Failure, Fetcher, Validators};
use crate::warc::Response;

/// What the hub was asked and did (for the batch's summary and its tests).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct HubCounts {
    /// Requests the topics made through the hub.
    pub asked: u64,
    /// Of those, answered from another topic's fetch.
    pub reused: u64,
    /// Of those, answered from the copy another topic stored before the batch started (an
    /// earlier, interrupted run of the batch, or a run of its own).
    pub stored: u64,
    /// Requests sent to servers.
    pub fetched: u64,
    /// Of those, for a URL the hub had fetched before and forgotten (memory bound).
    pub fetched_again: u64,
}

/// One topic's place in a batch: the hub, and the topic's own fetcher that the hub uses for
/// the requests this topic is the first to make.
pub struct Member {
    /// The batch's hub.
    pub hub: Arc<Hub>,
    /// The topic's own fetcher.
    pub own: Fetcher,
}

/// One topic's politeness settings, and the servers they apply to (its `[domains]`).
#[derive(Debug, Clone)]
pub struct TopicPoliteness {
    /// The servers the topic may ask.
    pub scope: stages::focus::score::Scope,
    /// Its settings.
    pub politeness: HubPoliteness,
}

/// Politeness settings: a topic's, or, for a server, the largest of the topics that may ask it.
#[derive(Debug, Clone, Copy, Default)]
pub struct HubPoliteness {
    /// Least gap between two requests to a server.
    pub delay: Duration,
    /// The gap is at least this many times the last response's duration.
    pub response_time_factor: f64,
    /// Largest robots.txt `Crawl-delay` obeyed, in seconds.
    pub max_crawl_delay_seconds: f64,
}

type Outcome = Result<Response, Failure>;

/// Where a stored response is: WARC file, offset, length.
type StoredAt = (Arc<std::path::PathBuf>, u64, u64);

/// The shared fetches of a batch.
pub struct Hub {
    topics: Vec<TopicPoliteness>,
    /// robots.txt product tokens of the topics: a server's `Crawl-delay` is the largest any
    /// of them is given.
    tokens: Vec<String>,
    cache_bytes: usize,
    /// How long a robots.txt answer is handed out (the topics' shortest `robots_ttl_seconds`).
    robots_ttl: Duration,
    slots: Mutex<Slots>,
    servers: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Server>>>>,
    asked: AtomicU64,
    reused: AtomicU64,
    stored: AtomicU64,
    /// Responses the topics' run folders held when the batch started: URL (keyed as in
    /// `slots`) → WARC file, offset, length.
    on_disk: Mutex<HashMap<String, StoredAt>>,
    fetched: AtomicU64,
    fetched_again: AtomicU64,
}

#[derive(Default)]
struct Slots {
    /// Each URL's answer, and when it was first asked for.
    by_url: HashMap<String, (Arc<OnceCell<Outcome>>, Instant)>,
    /// URLs with a kept outcome, oldest first, with the bytes each holds.
    order: VecDeque<(String, usize)>,
    held: usize,
    /// Hashes of the URLs fetched and then forgotten (8 bytes each), to count refetches.
    forgotten: std::collections::HashSet<u64>,
}

#[derive(Default)]
struct Server {
    /// The largest settings of the topics that may ask this server.
    politeness: HubPoliteness,
    /// When the next request may start.
    next: Option<Instant>,
    crawl_delay: Option<Duration>,
}

impl Hub {
    /// A hub for topics with these settings and robots.txt product `tokens`, keeping at most
    /// `cache_bytes` of responses and a robots.txt answer for `robots_ttl`.
    pub fn new(
        topics: Vec<TopicPoliteness>,
        tokens: Vec<String>,
        cache_bytes: usize,
        robots_ttl: Duration,
    ) -> Hub {
        Hub {
            topics,
            robots_ttl,
            tokens,
            cache_bytes,
            slots: Mutex::default(),
            servers: Mutex::default(),
            asked: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            stored: AtomicU64::new(0),
            on_disk: Mutex::default(),
            fetched: AtomicU64::new(0),
            fetched_again: AtomicU64::new(0),
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> HubCounts {
        HubCounts {
            asked: self.asked.load(Ordering::Relaxed),
            reused: self.reused.load(Ordering::Relaxed),
            stored: self.stored.load(Ordering::Relaxed),
            fetched: self.fetched.load(Ordering::Relaxed),
            fetched_again: self.fetched_again.load(Ordering::Relaxed),
        }
    }

    /// `url` through the hub, fetched with `inner` (the asking topic's fetcher) when no topic
    /// has fetched it yet.
    pub async fn fetch(&self, inner: &Fetcher, url: &url::Url, validators: &Validators) -> Outcome {
        self.asked.fetch_add(1, Ordering::Relaxed);
        if validators.etag.is_some() || validators.last_modified.is_some() {
            // A revisit asks the server whether its copy changed: never answered from memory.
            return self.politely(inner, url, validators).await;
        }
        // Topics whose fetchers differ in what they may reach or keep do not share.
        let key = format!("{} {url}", inner.sharing_key());
        let cell = {
            let mut slots = lock(&self.slots);
            let now = Instant::now();
            // A robots.txt is read again when the topics' shortest robots_ttl_seconds has
            // passed, as a single run would.
            let stale = url.path() == "/robots.txt"
                && slots
                    .by_url
                    .get(&key)
                    .is_some_and(|(_, at)| now.duration_since(*at) >= self.robots_ttl);
            if stale {
                slots.by_url.remove(&key);
            }
            slots
                .by_url
                .entry(key.clone())
                .or_insert_with(|| (Arc::default(), now))
                .0
                .clone()
        };
        let mut mine = false;
        let outcome = cell
            .get_or_init(|| {
                mine = true;
                async {
                    match self.stored_copy(&key, url) {
                        Some(response) => Ok(response),
                        None => self.politely(inner, url, validators).await,
                    }
                }
            })
            .await
            .clone();
        if mine {
            self.keep(&key, &cell, &outcome);
        } else {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }

    /// Remembers the responses stored in a topic's run folder (`run`, with its `crawl.sqlite`
    /// and `warc/`) before the batch starts, so that another topic asking for one of them reads
    /// the stored copy instead of asking the server again. `sharing`: the topic's
    /// [`crate::fetch::sharing_key`] (only topics alike share). Returns how many were
    /// remembered.
    pub fn remember_stored(&self, run: &std::path::Path, sharing: &str) -> anyhow::Result<usize> {
        let store = crate::store::Store::open_read_only(&run.join("crawl.sqlite"))?;
        let records = store.stored_records()?;
        let mut files: HashMap<String, Arc<std::path::PathBuf>> = HashMap::new();
        let mut on_disk = lock(&self.on_disk);
        let before = on_disk.len();
        for r in records {
            let file = files
                .entry(r.file.clone())
                .or_insert_with(|| Arc::new(run.join("warc").join(&r.file)))
                .clone();
            let key = format!("{sharing} {}", r.url);
            on_disk.entry(key).or_insert((file, r.offset, r.length));
        }
        Ok(on_disk.len() - before)
    }

    /// The stored copy of `url` from a topic's run folder, when there is one that reads back
    /// as a lasting answer (a transient one is asked again).
    fn stored_copy(&self, key: &str, url: &url::Url) -> Option<Response> {
        let (file, offset, length) = lock(&self.on_disk).remove(key)?;
        let record = crate::warc::read_record_at(&file, offset, length).ok()?;
        if record.record_type() != Some("response") {
            return None;
        }
        let mut response = Response::from_record(&record)?;
        if response.status == 429 || (500..600).contains(&response.status) {
            return None;
        }
        response.request_block = crate::fetch::bare_request(url);
        self.stored.fetch_add(1, Ordering::Relaxed);
        Some(response)
    }

    /// After the first fetch of `key`: forget a transient outcome at once, and the oldest
    /// kept ones past the memory bound.
    fn keep(&self, key: &str, cell: &Arc<OnceCell<Outcome>>, outcome: &Outcome) {
        let mut slots = lock(&self.slots);
        if slots.forgotten.remove(&hash(key)) {
            self.fetched_again.fetch_add(1, Ordering::Relaxed);
        }
        let transient = match outcome {
            Err(failure) => failure.reason.is_transient(),
            Ok(r) => r.status == 429 || (500..600).contains(&r.status),
        };
        if transient {
            if slots
                .by_url
                .get(key)
                .is_some_and(|(c, _)| Arc::ptr_eq(c, cell))
            {
                slots.by_url.remove(key);
            }
            return;
        }
        let bytes = outcome.as_ref().map_or(0, Response::held_bytes) + key.len();
        slots.order.push_back((key.to_string(), bytes));
        slots.held += bytes;
        while slots.held > self.cache_bytes {
            let Some((old, size)) = slots.order.pop_front() else {
                break;
            };
            slots.held = slots.held.saturating_sub(size);
            slots.by_url.remove(&old);
            slots.forgotten.insert(hash(&old));
        }
    }

    /// One request to the server, when its turn comes: one at a time per server, after the
    /// gap the last one asked for.
    async fn politely(&self, inner: &Fetcher, url: &url::Url, validators: &Validators) -> Outcome {
        if inner.is_replay() {
            self.fetched.fetch_add(1, Ordering::Relaxed);
            return inner.fetch_if_changed(url, validators).await;
        }
        let server = {
            let mut servers = lock(&self.servers);
            servers
                .entry(urlnorm::host_key(url))
                .or_insert_with(|| {
                    Arc::new(tokio::sync::Mutex::new(Server {
                        politeness: self.politeness_of(url.host_str().unwrap_or_default()),
                        ..Server::default()
                    }))
                })
                .clone()
        };
        // Held during the request: the server's next asker waits here.
        let mut state = server.lock().await;
        if let Some(next) = state.next {
            tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
        }
        // Should this request be dropped half-way (its topic stopped), the next one still
        // waits the delay from its start.
        state.next = Some(Instant::now() + state.politeness.delay);
        self.fetched.fetch_add(1, Ordering::Relaxed);
        let outcome = inner.fetch_if_changed(url, validators).await;
        let elapsed = match &outcome {
            Ok(r) => r.elapsed,
            Err(f) => f.elapsed,
        };
        if url.path() == "/robots.txt"
            && let Ok(r) = &outcome
            && (200..300).contains(&r.status)
        {
            let longest = self
                .tokens
                .iter()
                .filter_map(|t| Robots::from_response(r.status, r.body(), t).crawl_delay())
                .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
            let cap = state.politeness.max_crawl_delay_seconds;
            state.crawl_delay = longest.map(|d| crate::topic::seconds(d.min(cap)));
        }
        let gap = state
            .politeness
            .delay
            .max(crate::topic::scaled(
                elapsed,
                state.politeness.response_time_factor,
            ))
            .max(state.crawl_delay.unwrap_or_default());
        state.next = Some(Instant::now() + gap);
        outcome
    }
}

impl Hub {
    /// The largest settings of the topics whose `[domains]` hold `host` (of all the topics if
    /// none does: a seed outside every scope is not asked, but a guess must err on the slow
    /// side).
    fn politeness_of(&self, host: &str) -> HubPoliteness {
        let mut users: Vec<&HubPoliteness> = self
            .topics
            .iter()
            .filter(|t| t.scope.check(host).is_ok())
            .map(|t| &t.politeness)
            .collect();
        if users.is_empty() {
            users = self.topics.iter().map(|t| &t.politeness).collect();
        }
        users
            .into_iter()
            .fold(HubPoliteness::default(), |a, b| HubPoliteness {
                delay: a.delay.max(b.delay),
                response_time_factor: a.response_time_factor.max(b.response_time_factor),
                max_crawl_delay_seconds: a.max_crawl_delay_seconds.max(b.max_crawl_delay_seconds),
            })
    }
}

fn hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// A poisoned lock only means another topic's thread panicked while holding it; the maps stay
/// usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn politeness(delay_ms: u64) -> Vec<TopicPoliteness> {
        vec![topic(&[], delay_ms)]
    }

    /// A hub for one topic without delay, keeping `cache_bytes` of responses.
    fn hub(cache_bytes: usize) -> Hub {
        Hub::new(
            politeness(0),
            vec!["glaneur".into()],
            cache_bytes,
            Duration::MAX,
        )
    }

    fn topic(allow: &[&str], delay_ms: u64) -> TopicPoliteness {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        TopicPoliteness {
            scope: stages::focus::score::Scope::new(&allow, &[]),
            politeness: HubPoliteness {
                delay: Duration::from_millis(delay_ms),
                response_time_factor: 0.0,
                max_crawl_delay_seconds: 30.0,
            },
        }
    }

    #[test]
    fn a_server_gets_the_largest_delay_of_the_topics_that_may_ask_it() {
        let hub = Hub::new(
            vec![
                topic(&["a.test", "shared.test"], 300),
                topic(&["b.test", "shared.test"], 100),
            ],
            vec![],
            0,
            Duration::MAX,
        );
        let delay = |host: &str| hub.politeness_of(host).delay;
        assert_eq!(delay("a.test"), Duration::from_millis(300));
        assert_eq!(delay("b.test"), Duration::from_millis(100));
        assert_eq!(delay("shared.test"), Duration::from_millis(300));
        assert_eq!(delay("www.b.test"), Duration::from_millis(100));
        // Outside every scope: the slowest.
        assert_eq!(delay("elsewhere.test"), Duration::from_millis(300));
    }

    fn recording(pages: &[(&str, &str)]) -> Fetcher {
        recording_limited(pages, 1 << 20)
    }

    /// A recorded web whose bodies are cut at `max_body_bytes`.
    fn recording_limited(pages: &[(&str, &str)], max_body_bytes: u64) -> Fetcher {
        use stages::web::warc;
        let mut data = Vec::new();
        for (i, (url, body)) in pages.iter().enumerate() {
            let http = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            data.extend(warc::gzip_member(&warc::response_record(
                url,
                http.as_bytes(),
                "2026-11-27T00:00:00Z",
                &format!("<urn:uuid:00000000-0000-4000-8000-{i:012}>"),
                None,
                None,
            )));
        }
        let canon = stages::web::urlnorm::Canonicalizer::default();
        Fetcher::Replay(Arc::new(
            crate::fetch::Replay::from_bytes(&data, &canon, max_body_bytes).unwrap(),
        ))
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_url_is_fetched_once_and_shared() {
        let inner = recording(&[
            ("http://a.test/", "<p>a</p>"),
            ("http://a.test/b", "<p>b</p>"),
        ]);
        let hub = hub(1 << 20);
        let url = url::Url::parse("http://a.test/").unwrap();
        let none = Validators::default();
        block_on(async {
            let first = hub.fetch(&inner, &url, &none).await.unwrap();
            let second = hub.fetch(&inner, &url, &none).await.unwrap();
            assert_eq!(first.body(), second.body());
        });
        assert_eq!(
            hub.counts(),
            HubCounts {
                asked: 2,
                reused: 1,
                stored: 0,
                fetched: 1,
                fetched_again: 0
            }
        );
    }

    #[test]
    fn past_the_memory_bound_the_oldest_are_fetched_again() {
        let inner = recording(&[
            ("http://a.test/", "<p>a</p>"),
            ("http://a.test/b", "<p>b</p>"),
        ]);
        // Room for one response only.
        let hub = hub(200);
        let (a, b) = (
            url::Url::parse("http://a.test/").unwrap(),
            url::Url::parse("http://a.test/b").unwrap(),
        );
        let none = Validators::default();
        block_on(async {
            for url in [&a, &b, &a] {
                hub.fetch(&inner, url, &none).await.unwrap();
            }
        });
        let counts = hub.counts();
        assert_eq!((counts.fetched, counts.fetched_again), (3, 1), "{counts:?}");
    }

    #[test]
    fn topics_with_other_limits_do_not_share_and_robots_txt_expires() {
        let pages = [
            ("http://a.test/", "<p>a</p>"),
            ("http://a.test/robots.txt", ""),
        ];
        let small = recording_limited(&pages, 4);
        let large = recording(&pages);
        let hub = Hub::new(politeness(0), vec![], 1 << 20, Duration::ZERO);
        let page = url::Url::parse("http://a.test/").unwrap();
        let robots = url::Url::parse("http://a.test/robots.txt").unwrap();
        let none = Validators::default();
        block_on(async {
            let cut = hub.fetch(&small, &page, &none).await.unwrap();
            let whole = hub.fetch(&large, &page, &none).await.unwrap();
            assert!(cut.truncated && !whole.truncated);
            assert_eq!(whole.body(), b"<p>a</p>");
            // robots_ttl 0: every ask reads it again.
            hub.fetch(&large, &robots, &none).await.unwrap();
            hub.fetch(&large, &robots, &none).await.unwrap();
        });
        let counts = hub.counts();
        assert_eq!((counts.fetched, counts.reused), (4, 0), "{counts:?}");
    }

    #[test]
    fn a_revisit_is_never_answered_from_memory() {
        let inner = recording(&[("http://a.test/", "<p>a</p>")]);
        let hub = hub(1 << 20);
        let url = url::Url::parse("http://a.test/").unwrap();
        let conditional = Validators {
            etag: Some("\"x\"".into()),
            last_modified: None,
        };
        block_on(async {
            hub.fetch(&inner, &url, &Validators::default())
                .await
                .unwrap();
            hub.fetch(&inner, &url, &conditional).await.unwrap();
        });
        assert_eq!(hub.counts().fetched, 2);
    }
}
