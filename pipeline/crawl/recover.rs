//! Recovery after a `kill -9`: the responses that reached the WARC file after the last commit
//! are settled from the file, not fetched again.
//!
//! **In:** the WARC file from the committed length `crawl.sqlite` recorded, and the frontier
//! loaded from the store. **Out:** those responses settled as the interrupted crawl would have
//! settled them, in the order it wrote them.
//!
//! **Invariants:** only a URL still queued takes a recovered response; an answer asking for a
//! retry (429, 5xx) settles nothing; each page is analysed on a thread with the analysis
//! threads' stack.

use std::time::Instant;

use stages::web::urlnorm;

use super::{Analysis, Archive, Arrival, CrawlContext, Crawler, Job, RobotsState, analyze};
use crate::warc;
use crate::warc::Response;

impl Crawler<'_> {
    /// Responses that reached the WARC file after the last commit (the process was killed):
    /// settle them from the file instead of fetching them again.
    pub(super) fn recover_from_warc(&mut self) -> anyhow::Result<()> {
        let committed: u64 = self
            .store
            .meta("warc_committed_len")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if committed >= self.warc.len() {
            return Ok(());
        }
        let path = self.warc.path().to_path_buf();
        let records = warc::records_from(&path, committed)?;
        for (offset, length, record) in records {
            if record.record_type() != Some("response") {
                continue;
            }
            let Some(uri) = record.target_uri().map(str::to_string) else {
                continue;
            };
            let Ok(url) = url::Url::parse(&uri) else {
                continue;
            };
            let Some(response) = Response::from_record(&record) else {
                continue;
            };
            // An answer that asked for a retry (server error, too many requests) settled
            // nothing: the URL is still queued and will be asked again.
            if response.status == 429 || response.status >= 500 {
                continue;
            }
            let host = urlnorm::host_key(&url);
            if url.path() == "/robots.txt" && url.query().is_none() {
                let unknown = matches!(
                    self.hosts.get(&host).map(|h| &h.robots),
                    Some(RobotsState::Unknown) | None
                );
                if unknown && self.store.url_id(url.as_str())?.is_none() {
                    self.settle_robots(&host, Ok(response), None)?;
                    self.outcome.recovered += 1;
                    continue;
                }
            }
            let Some(id) = self.store.url_id(url.as_str())? else {
                continue;
            };
            // Only a URL still queued needs it; remove it from its host queue.
            let Some(entry) = self.take_queued(&host, id) else {
                continue;
            };
            let analysis = (response.status == 200 && !response.body_skipped)
                .then(|| analyze_on_a_deep_stack(&self.ctx, &url, &response))
                .flatten();
            self.settle_page(Arrival {
                entry,
                host: host.clone(),
                url,
                outcome: Ok(response),
                analysis,
                archive: Archive::Recovered((offset, length)),
                released: false,
                ended: Instant::now(),
            })?;
            self.requests_total += 1;
            self.outcome.recovered += 1;
        }
        self.commit()?;
        Ok(())
    }

    /// Takes a queued URL out of its server's queue (its entries, stale ones included).
    pub(super) fn take_queued(&mut self, host: &str, id: i64) -> Option<Job> {
        let h = self.hosts.get_mut(host)?;
        super::schedule::mark_host(&mut self.sched, h);
        let before = h.queue.len();
        h.queue.retain(|e| e.id != id);
        let removed = before - h.queue.len();
        self.in_memory = self.in_memory.saturating_sub(removed);
        self.take_job(id)
    }
}

/// [`analyze`] on a thread with the analysis threads' stack (see `stages::page::skim::STACK_BYTES`):
/// a page recovered from the WARC is read on the loop's own thread otherwise, whose stack is
/// the system's. Inline when no thread can be started.
pub(super) fn analyze_on_a_deep_stack(
    ctx: &CrawlContext,
    url: &url::Url,
    response: &Response,
) -> Option<Analysis> {
    let spawned = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("glaneur-recovery".into())
            .stack_size(stages::page::skim::STACK_BYTES)
            .spawn_scoped(scope, || analyze(&ctx.topic, &ctx.focus, url, response))
            .ok()
            .map(|handle| handle.join())
    });
    match spawned {
        Some(Ok(analysis)) => Some(analysis),
        // The thread panicked: the page is settled without an analysis (as a panic in the
        // pool is), not analysed again inline to panic again.
        Some(Err(_)) => None,
        None => Some(analyze(&ctx.topic, &ctx.focus, url, response)),
    }
}
