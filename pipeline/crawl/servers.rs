//! The servers' side of the crawl: robots.txt, delays, failures and giving up.
//!
//! **In:** robots.txt answers, ends of requests, failures (status, timeout, `Retry-After`).
//! **Out:** each server's rules (`RobotsState`), delay and politeness clock, its count of
//! failures in a row and the pause they earn, or the decision to give it up with its URLs
//! settled; what a resumed crawl needs of that is stored (`hosts`, `host_rest`, `given_up`).
//!
//! **Invariants:** robots.txt follows RFC 9309 (2xx parsed, 4xx and an unfollowable
//! redirect allow all, 5xx, 429 and no answer disallow all until read again); a server's delay
//! is never shorter than the topic's and a robots `Crawl-delay` lengthens it up to the cap
//! (`inf` included); no wait, the server's own `Retry-After` included, exceeds
//! `max_retry_after_seconds`; a server is given up after `give_up_after` failures in a row.

use std::time::{Duration, Instant};

use stages::web::robots::Robots;

use super::{Crawler, MAX_REDIRECTS, RobotsState};
use crate::fetch::{Failure, Fetcher};
use crate::ground::clock::now_epoch;
use crate::ground::outcome::Reason;
use crate::warc::Response;

impl Crawler<'_> {
    /// How long a robots.txt copy is trusted (forever when replaying: the recording does not
    /// change).
    pub(super) fn robots_ttl(&self) -> Duration {
        if self.ctx.fetcher.is_replay() {
            Duration::MAX
        } else {
            crate::topic::seconds(self.ctx.topic.file.politeness.robots_ttl_seconds)
        }
    }

    /// Stops asking a server: its waiting URLs, and any found later in this run, are settled
    /// with `reason`. One dead server must not hold the crawl.
    pub(super) fn give_up(
        &mut self,
        host_key: &str,
        reason: Reason,
        detail: &str,
    ) -> anyhow::Result<()> {
        let dropped: Vec<i64> = {
            let host = self.host_mut(host_key);
            host.gave_up = true;
            host.on_disk = 0;
            host.queue.drain().map(|e| e.id).collect()
        };
        self.in_memory = self.in_memory.saturating_sub(dropped.len());
        for id in dropped {
            self.prio.taken(id);
        }
        // In memory or on disk, every URL of the server still queued.
        let settled = self.store.skip_host(host_key, reason, detail)?;
        for _ in 0..settled {
            self.progress.dropped();
        }
        self.store.host_gave_up(host_key, detail)?;
        self.progress
            .note(&format!("giving up on {host_key}: {detail}"));
        Ok(())
    }

    /// How long a server rests after its `failures`-th failure in a row: what `Retry-After`
    /// asked, else the back-off doubled for every failure; never less than its delay, nor
    /// than k times how long the failed request took (after a timeout the server may still be
    /// working on it).
    pub(super) fn pause_after_failure(
        &self,
        failures: u32,
        delay: Duration,
        retry_after: Option<Duration>,
        elapsed: Duration,
    ) -> Duration {
        let politeness = &self.ctx.topic.file.politeness;
        let doubling = f64::from(1u32 << failures.clamp(1, 16).saturating_sub(1));
        let backoff = crate::topic::seconds(politeness.backoff_seconds * doubling);
        // A server's `Retry-After` is capped like everything it says: a wait of 2^64 seconds
        // would overflow the clock.
        let longest = crate::topic::seconds(politeness.max_retry_after_seconds);
        retry_after
            .map(|wait| wait.min(longest))
            .unwrap_or(backoff)
            .max(delay)
            .max(crate::topic::scaled(
                elapsed,
                politeness.response_time_factor,
            ))
    }

    /// Records a server's robots.txt; `fetched` is when the answer came for one just fetched
    /// (the server's clock runs from then), None for a copy recovered from the WARC file.
    pub(super) fn settle_robots(
        &mut self,
        host_key: &str,
        outcome: Result<Response, Failure>,
        fetched: Option<Instant>,
    ) -> anyhow::Result<()> {
        if let Err(failure) = &outcome
            && failure.reason == Reason::PrivateAddress
        {
            // The name resolves to private addresses only: nothing of this server is fetched.
            let host = self.host_mut(host_key);
            host.in_flight = host.in_flight.saturating_sub(1);
            host.robots = RobotsState::Unavailable;
            return self.give_up(host_key, Reason::PrivateAddress, &failure.detail);
        }
        let token = self.ctx.product_token.clone();
        let replay = self.ctx.fetcher.is_replay();
        let now = now_epoch();
        let (status, body, what, elapsed) = match &outcome {
            Ok(r) => (
                r.status,
                String::from_utf8_lossy(r.body()).into_owned(),
                format!("HTTP {}", r.status),
                r.elapsed,
            ),
            Err(failure) => (0, String::new(), failure.detail.clone(), failure.elapsed),
        };
        let retry_after = outcome
            .as_ref()
            .ok()
            .and_then(|r| retry_after(r.header("retry-after"), crate::ground::clock::now_system()));
        let robots = robots_from_status(status, body.as_bytes(), &token);
        let crawl_delay = robots.crawl_delay();
        let sitemaps = (robots.sitemaps(), robots.is_allowed("/sitemap.xml"));
        self.store
            .host_robots(host_key, status, &body, crawl_delay, now)?;
        let base = self.base_delay();
        let max_cd = self.ctx.topic.file.politeness.max_crawl_delay_seconds;
        let give_up_after = self.ctx.topic.file.politeness.give_up_after;
        let delay = politeness_delay(base, crawl_delay, max_cd, replay);
        let live = fetched.is_some();
        let ended = fetched.unwrap_or_else(Instant::now);
        let failures = {
            let host = self.host_mut(host_key);
            if live {
                host.in_flight = host.in_flight.saturating_sub(1);
            }
            host.delay = delay;
            if robots_unavailable(status) && !replay {
                // RFC 9309 §2.3.1.4: assume complete disallow, and ask again later rather
                // than settle every URL of the server as disallowed.
                host.robots = RobotsState::Unavailable;
                host.failures += 1;
                host.failures
            } else {
                host.robots = RobotsState::Known(robots, Instant::now());
                let was_failing = std::mem::take(&mut host.failures) > 0;
                if live {
                    host.next_at = ended + host.delay;
                }
                if was_failing {
                    self.store.host_rest(host_key, 0, 0.0)?;
                }
                return self.robots_sitemaps(host_key, sitemaps.0, sitemaps.1);
            }
        };
        if failures >= give_up_after {
            return self.give_up(
                host_key,
                Reason::RobotsUnavailable,
                &format!("robots.txt could not be read {failures} times in a row (last: {what})"),
            );
        }
        let pause = self.pause_after_failure(failures, delay, retry_after, elapsed);
        self.rest(host_key, ended, pause)
    }

    #[allow(clippy::too_many_lines)]
    /// A request to `host_key` ended well: the server may take the next one after its delay
    /// (or k times this response's time, if longer: a slow answer is a busy server).
    pub(super) fn release_host(
        &mut self,
        host_key: &str,
        elapsed: Duration,
        ended: Instant,
    ) -> anyhow::Result<()> {
        let factor = self.ctx.topic.file.politeness.response_time_factor;
        let host = self.host_mut(host_key);
        host.in_flight = host.in_flight.saturating_sub(1);
        let was_failing = std::mem::take(&mut host.failures) > 0;
        host.fetched += 1;
        host.next_at = ended + host.delay.max(crate::topic::scaled(elapsed, factor));
        if was_failing {
            self.store.host_rest(host_key, 0, 0.0)?;
        }
        Ok(())
    }

    /// A failing server rests for `pause` from `ended`; stored with its count of failures in a
    /// row, so that a resumed crawl lets it rest as long and gives it up at the same failure.
    pub(super) fn rest(
        &mut self,
        host_key: &str,
        ended: Instant,
        pause: Duration,
    ) -> anyhow::Result<()> {
        let host = self.host_mut(host_key);
        host.next_at = ended + pause;
        let failures = host.failures;
        let left = host.next_at.saturating_duration_since(Instant::now());
        self.store
            .host_rest(host_key, failures, now_epoch() + left.as_secs_f64())
    }
}

/// RFC 9309 status rules: 2xx parse; 4xx (except 429) allow all; 5xx, 429 and no answer
/// disallow all. A 3xx is followed by [`fetch_robots`] before we get here; one left (a
/// redirect the network guard would not follow) makes the file unavailable: allow all.
pub(super) fn robots_from_status(status: u16, body: &[u8], product_token: &str) -> Robots {
    match status {
        200..=299 => Robots::from_response(status, body, product_token),
        300..=499 if status != 429 => Robots::allow_all(),
        _ => Robots::disallow_all(),
    }
}

/// Politeness delay of a server: never shorter than the topic's; robots.txt can lengthen it
/// up to the cap. No delay at all when replaying a recording.
pub fn politeness_delay(
    base: Duration,
    crawl_delay: Option<f64>,
    max_crawl_delay: f64,
    replay: bool,
) -> Duration {
    if replay {
        return Duration::ZERO;
    }
    // `inf` or `1e300` is a very long delay, capped like any other; NaN says nothing.
    let robots = crawl_delay
        .filter(|d| *d > 0.0)
        .map(|d| crate::topic::seconds(d.min(max_crawl_delay)))
        .unwrap_or(Duration::ZERO);
    base.max(robots)
}

/// RFC 9309 §2.3.1.4: a server error, "too many requests" or no answer at all means the rules
/// are unknown for now (everything is disallowed until robots.txt can be read).
pub(super) fn robots_unavailable(status: u16) -> bool {
    status == 0 || status == 429 || status >= 500
}

/// How long a `Retry-After` header asks to wait: delay-seconds or an HTTP date (RFC 9110
/// §10.2.3). None when absent or unreadable.
pub fn retry_after(value: Option<&str>, now: std::time::SystemTime) -> Option<Duration> {
    let value = value?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Fetches robots.txt, following up to five redirects (RFC 9309 §2.3.1.2).
pub(super) async fn fetch_robots(fetcher: Fetcher, url: String) -> Result<Response, Failure> {
    let mut current = url::Url::parse(&url).map_err(|e| Failure {
        reason: Reason::InvalidUrl,
        detail: e.to_string(),
        elapsed: Duration::ZERO,
    })?;
    let mut redirect: Option<Response> = None;
    for _ in 0..=MAX_REDIRECTS {
        let response = match fetcher.fetch(&current).await {
            Ok(response) => response,
            // A redirect the network guard refuses to follow: the file is unavailable, as
            // after too many redirects (RFC 9309 §2.3.1.2), which allows everything; the
            // server itself is not at fault.
            Err(f) if matches!(f.reason, Reason::PrivateAddress | Reason::Credentials) => {
                return redirect.ok_or(f);
            }
            Err(f) => return Err(f),
        };
        if (300..400).contains(&response.status)
            && let Some(next) = response
                .header("location")
                .and_then(|l| current.join(l).ok())
        {
            current = next;
            redirect = Some(response);
            continue;
        }
        let mut response = response;
        // RFC 9309: parse at least 500 KiB; glaneur parses exactly that much.
        response.truncate_body(500 * 1024);
        return Ok(response);
    }
    Err(Failure {
        reason: Reason::RedirectChain,
        detail: format!("robots.txt redirected more than {MAX_REDIRECTS} times"),
        elapsed: Duration::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_can_lengthen_never_shorten_the_delay() {
        let base = Duration::from_secs(2);
        assert_eq!(politeness_delay(base, Some(1.0), 30.0, false), base);
        assert_eq!(
            politeness_delay(base, Some(5.0), 30.0, false),
            Duration::from_secs(5)
        );
        assert_eq!(
            politeness_delay(base, Some(500.0), 30.0, false),
            Duration::from_secs(30)
        );
        assert_eq!(politeness_delay(base, Some(f64::NAN), 30.0, false), base);
        for absurd in [f64::INFINITY, 1e300] {
            assert_eq!(
                politeness_delay(base, Some(absurd), 30.0, false),
                Duration::from_secs(30)
            );
        }
        assert_eq!(
            politeness_delay(base, Some(5.0), 30.0, true),
            Duration::ZERO
        );
    }
}
