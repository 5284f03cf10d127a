//! The crawl's loop, a turn at a time: start what may start, then wait for the first of a
//! freed server, a finished job, a server's delay expiring, the clock's tick or a stop.
//!
//! **In:** a [`Crawler`] with its frontier loaded. **Out:** every request it started
//! settled, or the crawl stopped (budget, empty frontier, Ctrl-C, a stop request).
//!
//! **Invariants:** a request starts only when [`Load::may_start`] allows it; a page's release
//! is counted before the page; the state is committed and `live.json` published at least
//! every [`COMMIT_EVERY`] (a worker: [`WORKER_COMMIT_EVERY`], with an exchange with the
//! shared frontier); after a stop, no request starts and the ones in flight finish.

use super::*;

/// The loop's own state: the channels the jobs answer on and what is in flight.
struct Turns {
    limits: Limits,
    load: Load,
    cpu: CpuUse,
    tx: Senders,
    rx: mpsc::Receiver<JobResult>,
    /// Freed servers come on a channel of their own, read before anything else: settling a
    /// large page (hundreds of links into SQLite) can take milliseconds, and a server freed
    /// behind a queue of such pages would start its next request that much late.
    released_rx: mpsc::UnboundedReceiver<JobResult>,
    /// Once a period whatever else happens: commit, live.json, a stop request. One timer for
    /// the whole crawl (not one per turn of the loop).
    tick: tokio::time::Interval,
    commit_every: Duration,
    /// No request starts any more; the ones in flight finish.
    stopping: bool,
    max_pages: u64,
}

/// What an idle loop (nothing in flight) does.
enum Idle {
    /// Look again: URLs came back.
    Again,
    /// Wait: other workers of a shared crawl are busy.
    Wait,
    /// Leave: the crawl is over or stopped.
    Leave,
}

impl Crawler<'_> {
    /// Runs the loop until the frontier is empty, the budget is spent or a stop comes.
    pub(super) async fn run_turns(
        &mut self,
        max_pages: u64,
        shutdown: &mut watch::Receiver<bool>,
    ) -> anyhow::Result<()> {
        let concurrency = self.ctx.topic.file.crawl.concurrency;
        let (results, rx) = mpsc::channel::<JobResult>(concurrency * 2);
        let (released, released_rx) = mpsc::unbounded_channel::<JobResult>();
        let commit_every = if self.worker.is_some() {
            WORKER_COMMIT_EVERY
        } else {
            COMMIT_EVERY
        };
        let mut tick = tokio::time::interval(commit_every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut t = Turns {
            limits: Limits {
                concurrency,
                backlog_bytes: usize::try_from(self.ctx.topic.file.crawl.backlog_bytes)
                    .unwrap_or(usize::MAX),
                cores: pool::size(),
            },
            load: Load::default(),
            cpu: CpuUse::new(Instant::now()),
            tx: Senders {
                results,
                released,
                waiting: Arc::new(Waiting::default()),
            },
            rx,
            released_rx,
            tick,
            commit_every,
            // A stop asked while the frontier was loading (its `changed` is then already seen).
            stopping: *shutdown.borrow(),
            max_pages,
        };
        self.outcome.interrupted = t.stopping;
        loop {
            t.load.observe(&t.tx.waiting);
            self.refill_stranded()?;
            if !t.stopping {
                self.start_requests(&mut t)?;
            }
            if t.load.requests == 0 && t.load.pages == 0 {
                match self.when_idle(&t).await? {
                    Idle::Again => continue,
                    Idle::Leave => return Ok(()),
                    Idle::Wait => {}
                }
            }
            let ticked = self.wait_for_event(&mut t, shutdown).await?;
            if ticked || self.last_commit.elapsed() >= t.commit_every {
                self.on_tick(&mut t).await?;
            }
        }
    }

    /// Starts as many requests as the global limit, the budget and the servers' clocks allow.
    fn start_requests(&mut self, t: &mut Turns) -> anyhow::Result<()> {
        while t.load.may_start(&t.limits, t.cpu.has_room(Instant::now())) {
            let now = Instant::now();
            let Some(host_key) = self.pick_host(now, t.max_pages) else {
                break;
            };
            if self.start_next(&host_key, &t.tx, t.max_pages)? {
                t.load.requests += 1;
            }
        }
        Ok(())
    }

    /// Nothing in flight: whether the crawl goes on.
    async fn when_idle(&mut self, t: &Turns) -> anyhow::Result<Idle> {
        let budget_spent = self.requests_total >= t.max_pages;
        let fetchable = self.has_fetchable();
        if !t.stopping && !budget_spent && self.refill_stranded()? {
            return Ok(Idle::Again);
        }
        // A worker with nothing fetchable asks the shared frontier (see `lease`).
        let mut others_busy = false;
        if self.worker.is_some() && !t.stopping && !fetchable && !budget_spent {
            // The exchange of the tick just before answers, unless it brought work.
            let next = match self.recent_answer() {
                Some(next) => next,
                None => {
                    self.commit()?;
                    self.sync_worker(true).await?
                }
            };
            match next {
                lease::Next::Work => return Ok(Idle::Again),
                lease::Next::Wait => others_busy = true,
                lease::Next::Done => {}
            }
        }
        if !others_busy && (t.stopping || !fetchable || budget_spent) {
            self.outcome.budget_reached = !t.stopping && self.has_pending();
            return Ok(Idle::Leave);
        }
        Ok(Idle::Wait)
    }

    /// Waits for the first event and handles it; returns whether it was the tick.
    async fn wait_for_event(
        &mut self,
        t: &mut Turns,
        shutdown: &mut watch::Receiver<bool>,
    ) -> anyhow::Result<bool> {
        let wake = self.next_wake(t.max_pages);
        t.load.observe(&t.tx.waiting);
        let may_start = t.load.may_start(&t.limits, t.cpu.has_room(Instant::now()));
        let mut ticked = false;
        tokio::select! {
            biased;
            // A server freed (its page arrived whole and waits for the CPU).
            Some(result) = t.released_rx.recv() => self.released(&mut t.load, result)?,
            // Ctrl-C / SIGTERM: stop starting requests, let the ones in flight finish so that
            // their responses are stored, then leave the loop.
            changed = shutdown.changed(), if !t.stopping => {
                if changed.is_err() || *shutdown.borrow() {
                    t.stopping = true;
                    self.outcome.interrupted = true;
                    self.progress.note(
                        "stopping: waiting for the requests in flight (run again to resume)",
                    );
                }
            }
            // A server's delay expired: loop to start its next request.
            _ = sleep_until(wake), if may_start && !t.stopping => {}
            // A finished job: record it and free its server (before the tick: an exchange with
            // a far database, longer than the tick's period, would otherwise starve them).
            Some(result) = t.rx.recv() => self.finished(t, result)?,
            _ = t.tick.tick() => ticked = true,
        }
        Ok(ticked)
    }

    /// A finished job: its server freed, its result settled.
    fn finished(&mut self, t: &mut Turns, result: JobResult) -> anyhow::Result<()> {
        // A page's release was sent before the page: one not read yet is read now, so that
        // the two are always counted in that order.
        while let Ok(early) = t.released_rx.try_recv() {
            self.released(&mut t.load, early)?;
        }
        match &result {
            JobResult::Released { .. } => {}
            JobResult::Page {
                released: true,
                held,
                analysis_time,
                ..
            } => {
                t.load.pages -= 1;
                t.tx.waiting.settled(*held);
                t.cpu.add(*analysis_time, t.limits.cores, Instant::now());
            }
            JobResult::Page { .. } | JobResult::Robots { .. } => t.load.requests -= 1,
        }
        self.handle(result)
    }

    /// The period's work: commit, the shared frontier (a worker), `live.json`, a stop request.
    async fn on_tick(&mut self, t: &mut Turns) -> anyhow::Result<()> {
        self.commit()?;
        if self.worker.is_some() {
            let idle = t.load.requests == 0 && t.load.pages == 0 && !self.has_fetchable();
            self.sync_worker(idle).await?;
            // The next exchange a period after this one ended, not at once when it took
            // longer than a period (a far database): the loop runs in between.
            t.tick.reset();
            self.last_commit = Instant::now();
        }
        self.publish(t.max_pages)?;
        if !t.stopping && self.stop_asked() {
            t.stopping = true;
            self.outcome.interrupted = true;
        }
        Ok(())
    }

    /// A server freed by a [`JobResult::Released`]: its request is over, its page waits.
    fn released(&mut self, load: &mut Load, result: JobResult) -> anyhow::Result<()> {
        if let JobResult::Released { .. } = &result {
            load.requests -= 1;
            load.pages += 1;
        }
        self.handle(result)
    }
}
