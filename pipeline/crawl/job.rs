//! Starting a request: the next URL of a server (robots.txt first), the checks that may settle
//! it without a request, and the job that fetches, analyses and compresses it off the loop.
//!
//! **In:** a server whose turn it is. **Out:** a spawned job whose [`JobResult`] comes back to
//! the loop, or a URL settled without a request.
//!
//! **Invariants:** one request per server at a time; a job never touches the store or the
//! frontier (it sends its result back); a panic in a job becomes the URL's `internal-error`.

use super::*;

impl Crawler<'_> {
    /// Starts the next request on `host_key` (robots.txt first). Returns whether a job was
    /// spawned; URLs settled without a request (robots, budget) return false.
    pub(super) fn start_next(
        &mut self,
        host_key: &str,
        tx: &Senders,
        max_pages: u64,
    ) -> anyhow::Result<bool> {
        if !self.passes_guard(host_key)? {
            return Ok(false);
        }
        let ttl = self.robots_ttl();
        let host = self.host_mut(host_key);
        let read_robots = match &host.robots {
            RobotsState::Unknown | RobotsState::Unavailable => true,
            RobotsState::Fetching => return Ok(false),
            // A stale copy is read again as soon as nothing else is in flight.
            RobotsState::Known(_, read_at) => read_at.elapsed() >= ttl && host.in_flight == 0,
        };
        if read_robots {
            self.start_robots(host_key, tx);
            return Ok(true);
        }
        let Some((entry, url)) = self.next_request(host_key, max_pages)? else {
            return Ok(false);
        };
        self.start_page(host_key, tx, entry, url)?;
        Ok(true)
    }

    /// Whether the network guard lets the server be asked at all (checked once per server); a
    /// refused server is given up on, not even its robots.txt asked for.
    fn passes_guard(&mut self, host_key: &str) -> anyhow::Result<bool> {
        if !self.host_mut(host_key).guard_passed {
            if let Ok(server) = url::Url::parse(host_key)
                && let Err(refusal) = self.guard(&server)
            {
                self.give_up(host_key, refusal.reason, &refusal.detail)?;
                return Ok(false);
            }
            self.host_mut(host_key).guard_passed = true;
        }
        Ok(true)
    }

    /// Spawns the request for the server's robots.txt.
    fn start_robots(&mut self, host_key: &str, tx: &Senders) {
        let fetcher = self.ctx.fetcher.clone();
        let host = self.host_mut(host_key);
        host.robots = RobotsState::Fetching;
        host.in_flight += 1;
        let url = format!("{host_key}/robots.txt");
        let tx = tx.results.clone();
        let host_key = host_key.to_string();
        self.outcome.robots_requests += 1;
        tokio::spawn(async move {
            let outcome = guarded(fetch_robots(fetcher, url.clone())).await;
            let _ = tx
                .send(JobResult::Robots {
                    host: host_key,
                    url,
                    outcome,
                    ended: Instant::now(),
                })
                .await;
        });
    }

    /// The server's next URL that a request may go to, taken from the frontier; the ones
    /// settled without a request on the way (unparsable, refused by the guard or by robots.txt)
    /// settle here. None when there is none, or the page budget is spent.
    fn next_request(
        &mut self,
        host_key: &str,
        max_pages: u64,
    ) -> anyhow::Result<Option<(Job, url::Url)>> {
        let Some(entry) = self.dequeue(host_key)? else {
            return Ok(None);
        };
        let parsed = self
            .store
            .url_of(entry.id)?
            .and_then(|text| url::Url::parse(&text).ok());
        let Some(url) = parsed else {
            self.store
                .skip(entry.id, Reason::InvalidUrl, "cannot parse the stored URL")?;
            self.prio.taken(entry.id);
            self.seed_settled(entry.id, None)?;
            return Ok(None);
        };
        // Seeds and URLs of older runs come here without passing `admit`.
        let refused = match self.guard(&url) {
            Err(refusal) => Some((refusal.reason, refusal.detail)),
            Ok(()) => match &self.host_mut(host_key).robots {
                RobotsState::Known(robots, _)
                    if !robots.is_allowed(&fetch::request_target(&url)) =>
                {
                    Some((
                        Reason::Robots,
                        "disallowed by the server's robots.txt".to_string(),
                    ))
                }
                _ => None,
            },
        };
        if let Some((reason, detail)) = refused {
            if self.revisits.contains(&entry.id) {
                // A stored page the server no longer lets us ask: its copy stays a document;
                // only this visit fails, with the reason.
                self.prio.taken(entry.id);
                return self.refuse_revisit(entry.id, &detail).map(|()| None);
            }
            self.store.skip(entry.id, reason, &detail)?;
            self.progress.dropped();
            self.prio.taken(entry.id);
            self.seed_settled(entry.id, None)?;
            return Ok(None);
        }
        if self.requests_total >= max_pages {
            // Put it back: it stays in the frontier for a later run with a larger budget.
            self.enqueue(host_key, entry);
            return Ok(None);
        }
        Ok(self.take_job(entry.id).map(|entry| (entry, url)))
    }

    /// Spawns the request for `entry`, counted against the budget and the server.
    fn start_page(
        &mut self,
        host_key: &str,
        tx: &Senders,
        entry: Job,
        url: url::Url,
    ) -> anyhow::Result<()> {
        let validators = if entry.revisit {
            let (etag, last_modified) = self.store.validators(entry.id)?;
            fetch::Validators {
                etag,
                last_modified,
            }
        } else {
            fetch::Validators::default()
        };
        self.requests_total += 1;
        self.outcome.requests += 1;
        let host = self.host_mut(host_key);
        host.in_flight += 1;
        host.flying.push(entry.id);
        self.flying_keys.insert(entry.id, entry.priority as f32);
        let request = Request {
            ctx: self.ctx.clone(),
            host_key: host_key.to_string(),
            entry,
            url,
            validators,
        };
        tokio::spawn(page_job(
            request,
            tx.results.clone(),
            tx.released.clone(),
            tx.waiting.clone(),
        ));
        Ok(())
    }
}

/// A page request, as its job takes it.
struct Request {
    ctx: Arc<CrawlContext>,
    host_key: String,
    entry: Job,
    url: url::Url,
    validators: fetch::Validators,
}

/// A page request's job: the fetch, then (for a page to read) the server released and the page
/// analysed and compressed on the analysis threads; the result goes back to the loop.
async fn page_job(
    request: Request,
    results: mpsc::Sender<JobResult>,
    released_tx: mpsc::UnboundedSender<JobResult>,
    waiting: Arc<Waiting>,
) {
    let Request {
        ctx,
        host_key,
        entry,
        url,
        validators,
    } = request;
    let outcome = {
        let fetcher = ctx.fetcher.clone();
        let url = url.clone();
        guarded(async move { fetcher.fetch_if_changed(&url, &validators).await }).await
    };
    let ended = Instant::now();
    let mut released = false;
    let mut held = 0;
    let mut analysis_time = Duration::ZERO;
    let (outcome, analysis, packed) = match outcome {
        Ok(response) if response.status == 200 && !response.body_skipped => {
            released = released_tx
                .send(JobResult::Released {
                    host: host_key.clone(),
                    elapsed: response.elapsed,
                    ended,
                })
                .is_ok();
            if released {
                held = response.held_bytes();
                waiting.bytes.fetch_add(held, MemOrdering::Relaxed);
            }
            let read = analyse_off_loop(&ctx, &url, response, entry.revisit, released, &waiting);
            match read.await {
                Some((response, analysis, packed, took, more)) => {
                    analysis_time = took;
                    held += more;
                    (Ok(response), analysis, Some(packed))
                }
                None => {
                    // The closure ended before counting the page: count it here, as the loop
                    // uncounts every page it settles.
                    if released {
                        waiting.analysed.fetch_add(1, MemOrdering::Relaxed);
                    }
                    (
                        Err(Failure {
                            reason: Reason::InternalError,
                            detail: "glaneur failed on this page; please report it".to_string(),
                            elapsed: Duration::ZERO,
                        }),
                        None,
                        None,
                    )
                }
            }
        }
        Ok(response) => {
            let packed = Packed::exchange(url.as_str(), &response);
            (Ok(response), None, Some(packed))
        }
        Err(failure) => (Err(failure), None, None),
    };
    let _ = results
        .send(JobResult::Page {
            entry,
            host: host_key,
            url,
            outcome,
            analysis,
            packed,
            released,
            held,
            ended,
            analysis_time,
        })
        .await;
}

/// A page's analysis and compression, on the analysis threads (one per core, see `pool`),
/// where they neither stall other servers' timers nor hold up the loop that owns the
/// database: the response back, its analysis (None after a bug: the page is archived anyway),
/// its records, the time taken and the bytes the analysis added. None when the thread died.
fn analyse_off_loop(
    ctx: &Arc<CrawlContext>,
    url: &url::Url,
    response: Response,
    revisit: bool,
    released: bool,
    waiting: &Arc<Waiting>,
) -> impl std::future::Future<Output = Option<(Response, Option<Analysis>, Packed, Duration, usize)>>
{
    let ctx2 = ctx.clone();
    let url2 = url.clone();
    let waiting2 = waiting.clone();
    pool::run(move || {
        let began = Instant::now();
        // A bug in the analysis must not lose the page: it is archived anyway.
        let analysis = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut analysis = analyze(&ctx2.topic, &ctx2.focus, &url2, &response);
            ctx2.resolve_links(&mut analysis, &url2);
            if revisit {
                // The change test's digests, off the loop like the rest.
                analysis.digests = Some(crate::crawl::digest::digests(
                    &url2,
                    response.header("content-type"),
                    response.body(),
                    &crate::crawl::digest::options(&ctx2.topic),
                ));
            }
            analysis
        }))
        .ok();
        let packed = Packed::exchange(url2.as_str(), &response);
        // From here on the page waits for the loop (see `Load::may_start`), holding what its
        // analysis added. Counted here, as the analysis ends, not when this request's task
        // next runs: that task may wait for the thread the loop runs on, and the loop would go
        // on starting requests while analysed pages pile up uncounted.
        let mut more = 0;
        if released {
            more = analysis.as_ref().map_or(0, Analysis::held_bytes) + packed.held_bytes();
            waiting2.analysed.fetch_add(1, MemOrdering::Relaxed);
            waiting2.bytes.fetch_add(more, MemOrdering::Relaxed);
        }
        (response, analysis, packed, began.elapsed(), more)
    })
}

/// Runs a request in its own task, so that a bug (a panic) in it becomes a recorded failure of
/// that URL instead of a crawl that waits forever for an answer.
async fn guarded(
    request: impl Future<Output = Result<Response, Failure>> + Send + 'static,
) -> Result<Response, Failure> {
    match tokio::spawn(request).await {
        Ok(outcome) => outcome,
        Err(e) => Err(Failure {
            reason: Reason::InternalError,
            detail: format!("glaneur failed on this request ({e}); please report it"),
            elapsed: Duration::ZERO,
        }),
    }
}
