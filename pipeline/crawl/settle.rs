//! Settling what a job brought back: a page's state and reason, its WARC record, its links
//! (scored, checked against scope, depth, tunnelling, traps and the guard, then queued), and
//! redirects.
//!
//! **In:** a [`JobResult`]. **Out:** rows in `crawl.sqlite`, records in the WARC file, URLs in
//! the frontier.
//!
//! **Invariants:** every URL reached here ends in one state with one reason; a response is
//! written to the WARC before the state that points at it is committed; a URL refused by a
//! rule is settled with that rule's reason and never queued.

use super::*;
use crate::ground::progress::Fetched;
use stages::page::extract::LinkKind;

impl Crawler<'_> {
    pub(super) fn handle(&mut self, result: JobResult) -> anyhow::Result<()> {
        match result {
            JobResult::Robots {
                host,
                url,
                outcome,
                ended,
            } => {
                if let Ok(response) = &outcome {
                    self.warc.exchange(&url, response)?;
                }
                self.settle_robots(&host, outcome, Some(ended))
            }
            JobResult::Page {
                entry,
                host,
                url,
                outcome,
                analysis,
                packed,
                released,
                held: _,
                ended,
                analysis_time: _,
            } => self.settle_page(Arrival {
                entry,
                host,
                url,
                outcome,
                analysis,
                archive: packed.map_or(Archive::Pending, Archive::Packed),
                released,
                ended,
            }),
            JobResult::Released {
                host,
                elapsed,
                ended,
                ..
            } => {
                self.release_host(&host, elapsed, ended)?;
                Ok(())
            }
        }
    }

    /// Settles a page request that came back (or was recovered from the WARC).
    pub(super) fn settle_page(&mut self, arrival: Arrival) -> anyhow::Result<()> {
        let Arrival {
            entry,
            host,
            url,
            outcome,
            analysis,
            mut archive,
            released,
            ended,
        } = arrival;
        let (host_key, url) = (host.as_str(), &url);
        let now = now_epoch();
        let replay = self.ctx.fetcher.is_replay();
        // A server error, a timeout, a refused connection or "too many requests": the server
        // (or the way to it) is in trouble, so it rests, and the URL may be tried again.
        let transient = match &outcome {
            Err(failure) => failure.reason.is_transient(),
            Ok(r) => r.status == 429 || (500..600).contains(&r.status),
        } && !replay;
        let asked_to_wait = outcome
            .as_ref()
            .ok()
            .filter(|r| r.status == 429 || r.status == 503)
            .and_then(|r| retry_after(r.header("retry-after"), crate::ground::clock::now_system()));
        let elapsed = match &outcome {
            Ok(r) => r.elapsed,
            Err(f) => f.elapsed,
        };
        self.flying_keys.remove(&entry.id);
        if !released && !transient {
            self.release_host(host_key, elapsed, ended)?;
        }
        {
            let host = self.host_mut(host_key);
            host.flying.retain(|&id| id != entry.id);
            if transient {
                host.in_flight = host.in_flight.saturating_sub(1);
                host.failures += 1;
            }
        }
        if transient {
            let after = self.after_failure(
                &entry,
                host_key,
                url,
                outcome.as_ref(),
                (asked_to_wait, elapsed, ended),
                &mut archive,
            )?;
            match after {
                AfterFailure::Retried => return Ok(()),
                AfterFailure::GaveUp(detail) => {
                    if entry.revisit {
                        // The stored copy stays; only the revisit failed.
                        self.failed_visit(entry.id, &detail)?;
                        self.store.revisited(entry.id, Revisit::Failed, now)?;
                    } else {
                        self.settle_response(&entry, host_key, url, outcome, archive, now)?;
                    }
                    return self.give_up(host_key, Reason::ServerGaveUp, &detail);
                }
                AfterFailure::OutOfRetries => {}
            }
        }
        if entry.revisit
            && self.settle_revisit(
                &entry,
                host_key,
                url,
                &outcome,
                analysis.as_ref(),
                &mut archive,
            )?
        {
            return Ok(());
        }
        let Some(response) = self.settle_response(&entry, host_key, url, outcome, archive, now)?
        else {
            self.seed_settled(entry.id, None)?;
            return Ok(());
        };
        let status = response.status;
        if (300..400).contains(&status) {
            self.follow_redirect(&entry, url, response.header("location"))?;
            self.progress.fetched(Fetched::Other);
            self.seed_settled(entry.id, None)?;
            return Ok(());
        }
        let Some(analysis) = analysis else {
            self.progress
                .fetched(if status >= 400 && !not_recorded(&response) {
                    Fetched::Error
                } else {
                    Fetched::Other
                });
            self.seed_settled(entry.id, None)?;
            return Ok(());
        };
        if analysis.listing.is_some() {
            return self.take_listing(&entry, url, analysis);
        }
        self.take_page(&entry, host_key, url, &response, analysis, now)
    }

    /// A server error, a timeout or "too many requests": the URL is tried again after the
    /// server's pause, or the server is given up on, or the URL is out of retries (and settles
    /// as a failure, the server resting first).
    fn after_failure(
        &mut self,
        entry: &Job,
        host_key: &str,
        url: &url::Url,
        outcome: Result<&Response, &Failure>,
        (asked_to_wait, elapsed, ended): (Option<Duration>, Duration, Instant),
        archive: &mut Archive,
    ) -> anyhow::Result<AfterFailure> {
        let politeness = self.ctx.topic.file.politeness.clone();
        let (failures, delay) = {
            let host = self.host_mut(host_key);
            (host.failures, host.delay)
        };
        let what = match outcome {
            Ok(r) => format!("HTTP {}", r.status),
            Err(f) => format!("{}: {}", f.reason, f.detail),
        };
        let max_wait = crate::topic::seconds(politeness.max_retry_after_seconds);
        let too_long = asked_to_wait.is_some_and(|w| w > max_wait);
        let give_up = too_long || failures >= politeness.give_up_after;
        let throttled =
            asked_to_wait.is_some() || outcome.is_ok_and(|r| r.status == 429 || r.status == 503);
        // "Too many requests" says nothing against the URL: it waits its turn again, and
        // the failure count of the server bounds how long that can go on.
        let retry = !give_up && (throttled || entry.attempts < politeness.retries);
        if retry {
            let pause = self.pause_after_failure(failures, delay, asked_to_wait, elapsed);
            if let Ok(response) = outcome {
                self.archive(url, response, archive)?;
            }
            self.store.waiting(
                entry.id,
                Reason::Retry,
                &format!("{what}; tried again after {:.1} s", pause.as_secs_f64()),
            )?;
            self.rest(host_key, ended, pause)?;
            self.requeue_retry(host_key, entry)?;
            // The budget counts URLs settled, so a retry does not spend it.
            self.requests_total = self.requests_total.saturating_sub(1);
            return Ok(AfterFailure::Retried);
        }
        self.host_mut(host_key).fetched += 1;
        if give_up {
            return Ok(AfterFailure::GaveUp(if too_long {
                format!(
                    "the server asked to wait {:.0} s (Retry-After), more than [politeness] max_retry_after_seconds",
                    asked_to_wait.map_or(0.0, |w| w.as_secs_f64())
                )
            } else {
                format!("{failures} failures in a row (last: {what})")
            }));
        }
        // Out of retries for this URL; the server still answers others.
        let pause = self.pause_after_failure(failures, delay, asked_to_wait, elapsed);
        self.rest(host_key, ended, pause)?;
        Ok(AfterFailure::OutOfRetries)
    }

    /// A page read by the analysis: its facts, its verdict for the seeds and the servers'
    /// yields, then its links (unless nofollow, or an off-topic seed: a dead end).
    fn take_page(
        &mut self,
        entry: &Job,
        host_key: &str,
        url: &url::Url,
        response: &Response,
        analysis: Analysis,
        now: f64,
    ) -> anyhow::Result<()> {
        self.store.page_facts(entry.id, &analysis.facts)?;
        if self.ctx.pass.monitor {
            // A monitor watches the pages it has; it follows nothing new.
            self.progress.fetched(Fetched::Page {
                on_topic: analysis.facts.verdict,
            });
            return Ok(());
        }
        self.remember_page(url.as_str(), analysis.facts.score, analysis.facts.verdict);
        if analysis.links_cut > 0 {
            self.outcome.pages_links_cut += 1;
            if self.outcome.pages_links_cut == 1 {
                let max = self.ctx.topic.file.crawl.max_links_per_page;
                self.progress.note(&format!(
                    "{url} has {} links: the first {max} are read ([crawl] \
                     max_links_per_page); report.json counts such pages",
                    max + analysis.links_cut,
                ));
            }
        }
        let is_seed = self.store.is_seed(entry.id)?;
        if is_seed {
            self.store.seed_verdict(entry.id, analysis.facts.verdict)?;
        }
        self.progress.fetched(Fetched::Page {
            on_topic: analysis.facts.verdict,
        });
        self.store
            .set_judged_tokens(entry.id, analysis.judged_tokens)?;
        self.page_judged(
            host_key,
            analysis.facts.verdict,
            Some(analysis.judged_tokens),
        );
        let gf_terms = (is_seed && analysis.facts.verdict)
            .then_some(analysis.terms.as_ref())
            .flatten();
        self.seed_settled(entry.id, gf_terms)?;
        // Which links to follow. Seed 001: the crawl starts from the seeds that satisfy F, so
        // an off-topic seed is a dead end; a page that says nofollow (in a <meta> or an
        // X-Robots-Tag header) is one too.
        let header = stages::web::robots::x_robots_tag(
            response
                .headers
                .iter()
                .filter(|(k, _)| k == "x-robots-tag")
                .map(|(_, v)| v.as_str()),
            &self.ctx.product_token,
        );
        if analysis.nofollow || header.nofollow || (is_seed && !analysis.facts.verdict) {
            return self.links_taken_in(entry.id);
        }
        self.follow_links(entry, url, analysis, now)
    }

    /// The page's links: stored with their anchors, queued (or skipped with their reason)
    /// when new, their priorities raised when known.
    fn follow_links(
        &mut self,
        entry: &Job,
        url: &url::Url,
        mut analysis: Analysis,
        now: f64,
    ) -> anyhow::Result<()> {
        // Tunnelling: off-topic pages in a row ending here; past the limit, the links are
        // recorded but not queued.
        let run = strategy::hops_after(entry.hops, analysis.facts.verdict);
        let tunnel = self.ctx.topic.file.focus.tunnel;
        let expand = strategy::may_expand(run, Some(tunnel));
        let child_depth = entry.depth + 1;
        let too_deep = child_depth > self.ctx.topic.file.crawl.max_depth;
        if analysis.targets.len() != analysis.links.len() {
            self.ctx.resolve_links(&mut analysis, url);
        }
        for ((_, kind, anchor, anchor_score, url_score, count), target) in
            analysis.links.iter().zip(&analysis.targets)
        {
            let Some(Target {
                url: target,
                host: target_host,
                violation,
            }) = target
            else {
                continue;
            };
            let priority = score::link_priority_weighted(
                &LinkSignals {
                    parent_score: analysis.facts.score,
                    anchor: *anchor_score,
                    url: *url_score,
                    depth: child_depth,
                    other_language: other_language(target, &self.ctx.topic.file.languages),
                },
                &self.ctx.focus.weights,
            );
            let via = if *kind == LinkKind::Javascript {
                Via::Javascript
            } else {
                Via::Link
            };
            let (dst, new) = self.store.insert_url(
                target.as_str(),
                target_host,
                child_depth,
                Some(entry.id),
                via,
                priority,
                now,
            )?;
            // The page's links to one URL arrive as one, with their number.
            self.store
                .link(entry.id, dst, link_kind_name(*kind), anchor, *count)?;
            let raised = self.prio.link(entry.id, dst, priority);
            // A URL waiting on disk (over the in-memory budget) is raised there: it is read
            // back with the best priority its parents gave it.
            let on_disk =
                !new && !raised && self.hosts.get(target_host).is_some_and(|h| h.on_disk > 0);
            if raised || on_disk {
                // Stored, so that a resumed crawl queues it where this one has it.
                self.store.raise_priority(dst, priority)?;
            }
            if !new {
                continue;
            }
            if let Some(violation) = violation {
                self.store
                    .skip(dst, Reason::UrlRule, &violation.to_string())?;
                continue;
            }
            if let Err(why) = self.ctx.scope.check(target.host_str().unwrap_or("")) {
                self.store
                    .skip(dst, Reason::OffDomain, super::listing::scope_detail(why))?;
                continue;
            }
            if too_deep {
                self.store.skip(
                    dst,
                    Reason::DepthLimit,
                    &format!("depth {child_depth} > crawl.max_depth"),
                )?;
                continue;
            }
            if !expand {
                self.store.skip(
                    dst,
                    Reason::TunnelLimit,
                    &format!("{run} off-topic pages in a row > focus.tunnel = {tunnel}"),
                )?;
                continue;
            }
            if !self.admit(dst, target_host, target)? {
                continue;
            }
            if run > 0 {
                self.store.set_hops(dst, run)?;
            }
            self.queue_url(target_host, dst, child_depth, priority, run);
        }
        self.links_taken_in(entry.id)
    }

    /// Records a response (or a failure) as the URL's final state. Returns the response when
    /// there is one.
    pub(super) fn settle_response(
        &mut self,
        entry: &Job,
        host_key: &str,
        url: &url::Url,
        outcome: Result<Response, Failure>,
        mut archive: Archive,
        now: f64,
    ) -> anyhow::Result<Option<Response>> {
        let response = match outcome {
            Ok(r) => r,
            Err(failure) => {
                self.store
                    .fail(entry.id, failure.reason, &failure.detail, now)?;
                if entry.revisit {
                    self.store.host_revisited(host_key, true)?;
                } else {
                    self.first_visit(entry.id, Err(&failure), None)?;
                    self.store.host_fetched(host_key, true)?;
                }
                self.progress.fetched(Fetched::Error);
                return Ok(None);
            }
        };
        if entry.revisit {
            self.store.host_revisited(host_key, false)?;
        } else {
            self.store.host_fetched(host_key, false)?;
        }
        if not_recorded(&response) {
            // Replay only: no server answered, so nothing is archived and the URL is not
            // called fetched; a live crawl would request it.
            self.store.skip(
                entry.id,
                Reason::NotRecorded,
                "the recorded web has no answer for this URL",
            )?;
            return Ok(Some(response));
        }
        let location = self.archive(url, &response, &mut archive)?;
        let status = response.status;
        let row = FetchRow {
            status,
            content_type: response.header("content-type").map(str::to_string),
            length: response.body().len() as u64,
            last_modified: response.header("last-modified").map(str::to_string),
            etag: response.header("etag").map(str::to_string),
            server: response.header("server").map(str::to_string),
            location: response.header("location").map(str::to_string),
            fetched_at: now,
            elapsed_ms: response.elapsed.as_millis() as u64,
            warc: Some((warc::WARC_NAME.to_string(), location.0, location.1)),
        };
        let (reason, detail) = if (300..400).contains(&status) {
            (Reason::Redirect, row.location.clone().unwrap_or_default())
        } else if status == 200 && response.body_skipped {
            (
                Reason::ContentType,
                format!(
                    "{} is not harvested (HTML and plain text only)",
                    row.content_type.as_deref().unwrap_or("?")
                ),
            )
        } else if status == 200 {
            (Reason::Fetched, String::new())
        } else {
            (Reason::Http(status), String::new())
        };
        self.store.fetched(entry.id, &row, reason, &detail)?;
        if !entry.revisit {
            self.first_visit(entry.id, Ok(&response), Some(location))?;
        }
        Ok(Some(response))
    }

    /// Writes an exchange to the WARC file unless it is there already; returns where the
    /// response record is.
    pub(super) fn archive(
        &mut self,
        url: &url::Url,
        response: &Response,
        archive: &mut Archive,
    ) -> anyhow::Result<(u64, u64)> {
        let at = match std::mem::replace(archive, Archive::Pending) {
            Archive::Recovered(at) => at,
            Archive::Packed(packed) => self.warc.write_packed(&packed)?,
            Archive::Pending => self.warc.exchange(url.as_str(), response)?,
        };
        *archive = Archive::Recovered(at);
        Ok(at)
    }

    /// The last checks on a newly found in-scope URL before it joins the queue: a server the
    /// crawl gave up on, and the trap rules. Returns false when the URL was settled instead.
    pub(super) fn admit(
        &mut self,
        id: i64,
        host_key: &str,
        url: &url::Url,
    ) -> anyhow::Result<bool> {
        self.admit_listed(id, host_key, url, false)
    }

    /// [`Crawler::admit`], for a sitemap file too (`sitemap_file`: its `.xml.gz` is no file
    /// type to skip).
    pub(super) fn admit_listed(
        &mut self,
        id: i64,
        host_key: &str,
        url: &url::Url,
        sitemap_file: bool,
    ) -> anyhow::Result<bool> {
        if let Err(refusal) = self.guard(url) {
            self.store.skip(id, refusal.reason, &refusal.detail)?;
            return Ok(false);
        }
        if self.refused_given_up(id, host_key)? {
            return Ok(false);
        }
        if self.ctx.topic.file.crawl.skip_file_extensions
            && !sitemap_file
            && let Some(ext) = urlnorm::non_text_extension(url)
        {
            // Asking for a file only to record its content type would cost the server a
            // request and the crawl a politeness delay.
            self.store.skip(
                id,
                Reason::FileType,
                &format!(".{ext}: not HTML or plain text (by its extension)"),
            )?;
            return Ok(false);
        }
        let limits = self.ctx.topic.file.traps.limits();
        // Both counters are checked before either is counted, so that a refused URL counts
        // nowhere (in memory and in the store alike).
        let verdict = stages::web::traps::check_shape(url, &limits).and_then(|()| {
            let host = self.host_mut(host_key);
            let calendar = stages::web::traps::is_calendar_like(url);
            if calendar && host.calendar_pages >= limits.max_calendar_pages {
                return Err(stages::web::traps::Trap::Calendar);
            }
            let variant = stages::web::traps::query_variant_key(url);
            if let Some(path) = variant
                && host
                    .query_variants
                    .get(&fingerprint(path))
                    .is_some_and(|&n| n >= limits.max_query_variants)
            {
                return Err(stages::web::traps::Trap::QueryVariants);
            }
            let mut counted: Vec<&str> = Vec::new();
            if calendar {
                host.calendar_pages += 1;
                counted.push("");
            }
            if let Some(path) = variant {
                *host.query_variants.entry(fingerprint(path)).or_insert(0) += 1;
                counted.push(path);
            }
            Ok(counted)
        });
        // The counters are stored, so that a resumed crawl refuses what this one would.
        let verdict = match verdict {
            Ok(counted) => {
                for path in counted {
                    self.store.count_trap(host_key, path)?;
                }
                Ok(())
            }
            Err(trap) => Err(trap),
        };
        match verdict {
            Ok(()) => Ok(true),
            Err(trap) => {
                self.store
                    .skip(id, Reason::from(trap), &trap.explain(&limits))?;
                Ok(false)
            }
        }
    }

    /// A URL of a server this crawl gave up on is settled (`server-gave-up`) instead of
    /// queued: whether it was.
    pub(super) fn refused_given_up(&mut self, id: i64, host_key: &str) -> anyhow::Result<bool> {
        if !self.hosts.get(host_key).is_some_and(|h| h.gave_up) {
            return Ok(false);
        }
        self.store.skip(
            id,
            Reason::ServerGaveUp,
            "the crawl gave up on this server earlier in the run",
        )?;
        Ok(true)
    }

    /// The network guard (`crate::ground::guard`) with the topic's setting. A recording reaches no
    /// network: its addresses are only names (credentials are still refused).
    pub(super) fn guard(&self, url: &url::Url) -> Result<(), crate::ground::guard::Refusal> {
        let allow =
            self.ctx.topic.file.domains.allow_private_addresses || self.ctx.fetcher.is_replay();
        crate::ground::guard::check_url(url, allow)
    }

    pub(super) fn follow_redirect(
        &mut self,
        entry: &Job,
        url: &url::Url,
        location: Option<&str>,
    ) -> anyhow::Result<()> {
        let Some(location) = location else {
            return Ok(());
        };
        let Some((target, violation)) = self.ctx.canonical(location, url) else {
            return Ok(());
        };
        let now = now_epoch();
        let target_host = urlnorm::host_key(&target);
        let hops = self.store.redirect_chain(entry.id)?.0 + 1;
        let (dst, new) = self.store.insert_url(
            target.as_str(),
            &target_host,
            entry.depth,
            Some(entry.id),
            Via::Redirect,
            entry.priority,
            now,
        )?;
        self.store
            .link(entry.id, dst, Via::Redirect.name(), "", 1)?;
        // The target is the same page: it takes the source's links' share (OPIC cash, in-links).
        if self.prio.link(entry.id, dst, entry.priority) {
            self.store.raise_priority(dst, entry.priority)?;
        }
        self.links_taken_in(entry.id)?;
        if !new {
            // Already seen: a loop or a second path to the same page; nothing more to do.
            return Ok(());
        }
        if let Some(violation) = violation {
            self.store
                .skip(dst, Reason::UrlRule, &violation.to_string())?;
            return Ok(());
        }
        if hops > MAX_REDIRECTS {
            self.store.skip(
                dst,
                Reason::RedirectChain,
                &format!("more than {MAX_REDIRECTS} redirects in a row"),
            )?;
            return Ok(());
        }
        if self
            .ctx
            .scope
            .check(target.host_str().unwrap_or(""))
            .is_err()
        {
            self.store
                .skip(dst, Reason::OffDomain, "redirect target outside [domains]")?;
            return Ok(());
        }
        if !self.admit(dst, &target_host, &target)? {
            return Ok(());
        }
        // A redirect inherits its source's priority and tunnel: it is the same page.
        self.store.set_hops(dst, entry.hops)?;
        self.queue_url(&target_host, dst, entry.depth, entry.priority, entry.hops);
        if self.is_watched(entry.id) {
            self.watch_seed(dst);
        }
        Ok(())
    }
}

/// A replayed URL the recording does not hold (the replay fetcher's marker).
fn not_recorded(response: &Response) -> bool {
    response.replayed && response.header("x-glaneur-replay") == Some("missing")
}

/// What a failure that may pass (a server error, a timeout, "too many requests") leads to.
enum AfterFailure {
    /// The URL waits to be tried again.
    Retried,
    /// The server is given up on, for this reason.
    GaveUp(String),
    /// The URL is out of retries: it settles as a failure.
    OutOfRetries,
}
