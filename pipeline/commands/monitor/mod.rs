//! `glaneur monitor`: revisits a run's stored pages on a schedule, records every visit, and
//! estimates how often each page and each host changes.
//!
//! **In:** a run folder whose crawl stored pages (`glaneur run` first), a duration, a policy.
//! **Out:** rows in `visits` (one per request, never overwritten) and `watch` (when each page
//! is due), WARC records (a `revisit` record when nothing changed), `changes.csv`,
//! `rates.csv` and `host-rates.csv` in the run folder.
//!
//! **Steps:** each page is due at a time its policy sets ([`stages::change::schedule`]): a
//! Poisson process (exponential intervals of a fixed mean) or the adaptive schedule (about
//! `c/λ̂` for the page's current rate estimate). The monitor takes every page due within a
//! tick (a quarter of the shortest interval) and revisits them in one polite crawl pass
//! (conditional requests, one request at a time per server, the topic's delay, robots.txt);
//! the change test of `crawl::revisit` records each answer; the pages' next visits are set from
//! their histories; then it waits (the wall clock) or moves its clock (`--virtual-clock`) to
//! the next page due.
//!
//! **Invariants:** a visit row is committed with its WARC record, so a monitor killed at any
//! point keeps every visit it recorded, and the same command resumes it (pages marked for a
//! revisit are visited first; the end time set by the first start holds until it is
//! reached); no interval is shorter than what politeness allows the page's server (its pages
//! × the topic's delay); schedules are reproducible (each draw is seeded by the page and its
//! visit count).

pub mod history;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;
use rand::{Rng, SeedableRng};
use stages::change::schedule::{self, Policy};

use crate::commands::run::{self, CrawlStage, RunOptions, Stage};
use crate::ground::progress::Progress;
use crate::ground::runlock::RunLock;
use crate::store::Store;
use crate::topic::{PolicyName, Topic};

/// What `glaneur monitor` was asked.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// Topic file or folder (`None`: the embedded demo).
    pub topic: Option<PathBuf>,
    /// Run folder (default: `run/` beside the topic file).
    pub out: Option<PathBuf>,
    /// How long to watch, in seconds (on the monitor's clock).
    pub duration: f64,
    /// The schedule (None: the topic's `[monitor] policy`).
    pub policy: Option<PolicyName>,
    /// Poisson: the mean interval; adaptive: the first interval (seconds; None: the topic's).
    pub interval: Option<f64>,
    /// The shortest interval (seconds; None: the topic's).
    pub min_interval: Option<f64>,
    /// The longest interval (seconds; None: the topic's).
    pub max_interval: Option<f64>,
    /// HTTP proxy.
    pub proxy: Option<String>,
    /// A virtual clock file (simulations).
    pub virtual_clock: Option<PathBuf>,
    /// Leave a page once its history holds this many revisits (None: watch for the whole
    /// duration).
    pub visits: Option<usize>,
    /// At the end, when a page's text changed and the run folder has a corpus, run the
    /// extract and export stages again.
    pub refresh: bool,
    /// No progress lines.
    pub quiet: bool,
}

/// How a monitor ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It watched for the whole duration.
    Done,
    /// Stopped by a signal; the same command resumes.
    Interrupted,
}

/// The schedule a monitor follows: its flags, else the topic's `[monitor]` table.
struct Schedule {
    policy: PolicyName,
    interval: f64,
    min_interval: f64,
    max_interval: f64,
}

impl Schedule {
    /// The revisit policy it names.
    fn revisit_policy(&self) -> Policy {
        match self.policy {
            PolicyName::Poisson => Policy::Poisson {
                mean: self.interval,
            },
            PolicyName::Adaptive => {
                Policy::adaptive(self.min_interval, self.max_interval, self.interval)
            }
        }
    }

    fn of(options: &MonitorOptions, topic: &Topic) -> Schedule {
        let m = &topic.file.monitor;
        Schedule {
            policy: options.policy.unwrap_or(m.policy),
            interval: options.interval.unwrap_or(m.interval_seconds),
            min_interval: options.min_interval.unwrap_or(m.min_interval_seconds),
            max_interval: options.max_interval.unwrap_or(m.max_interval_seconds),
        }
    }
}

/// Reads a duration such as `30d`, `12h`, `90m`, `45s`, `2w` or a number of seconds.
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3_600.0,
        "d" => 86_400.0,
        "w" => 7.0 * 86_400.0,
        _ => {
            return Err(format!(
                "{text:?}: the unit must be s, m, h, d or w (e.g. 30d)"
            ));
        }
    };
    let n: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (e.g. 30d, 12h, 90m)"))?;
    if !(n.is_finite() && n > 0.0) || n * scale > 100.0 * 365.0 * 86_400.0 {
        return Err(format!("{text:?}: a duration above 0 and below 100 years"));
    }
    Ok(n * scale)
}

/// The monitor's clock: the wall clock, or a virtual one in a file.
struct Clock(Option<PathBuf>);

impl Clock {
    fn now(&self) -> anyhow::Result<f64> {
        match &self.0 {
            Some(path) => crate::ground::clock::read_virtual(path),
            None => Ok(crate::ground::clock::now_epoch()),
        }
    }

    /// The time a pass dates its visits by (None: each visit its own wall-clock time).
    fn pass_time(&self) -> anyhow::Result<Option<f64>> {
        self.0
            .as_deref()
            .map(crate::ground::clock::read_virtual)
            .transpose()
    }
}

/// Runs `glaneur monitor`; prints a summary on stdout.
pub fn monitor(options: &MonitorOptions) -> anyhow::Result<Ending> {
    let topic = Arc::new(match &options.topic {
        Some(path) => Topic::load(path)?,
        None => Topic::demo(PathBuf::from("corpora").join("demo"))?,
    });
    let schedule = Schedule::of(options, &topic);
    if !(schedule.min_interval > 0.0 && schedule.min_interval <= schedule.max_interval) {
        bail!(
            "the shortest interval ({} s) must be above 0 and at most the longest ({} s): see \
             --min-interval and --max-interval, or [monitor] in the topic file",
            schedule.min_interval,
            schedule.max_interval
        );
    }
    let run_dir = options.out.clone().unwrap_or_else(|| topic.dir.join("run"));
    let db_path = run_dir.join("crawl.sqlite");
    if !db_path.exists() {
        bail!(
            "{} has no crawl.sqlite: `glaneur run` builds the corpus the monitor watches",
            run_dir.display()
        );
    }
    let lock = RunLock::acquire(&run_dir)?;
    let _ = std::fs::remove_file(crate::ground::live::stop_file(&run_dir));
    let ending = watch(options, topic.clone(), &run_dir)
        .and_then(|ending| {
            if ending == Ending::Done && options.refresh {
                refresh(options, topic, &run_dir)?;
            }
            Ok(ending)
        })
        .map_err(|e| run::name_the_cause(e, &run_dir));
    drop(lock);
    ending
}

/// The corpus brought up to date with the pages' current versions, when some page's text
/// changed since the last extraction and the run folder has a corpus: the extract stage reads
/// again only the changed pages' copies (the others come from its cache), the export stage
/// rebuilds every format.
fn refresh(options: &MonitorOptions, topic: Arc<Topic>, run_dir: &Path) -> anyhow::Result<()> {
    if !run_dir.join("docs.jsonl").exists() {
        return Ok(());
    }
    let changed = {
        let store = Store::open(&run_dir.join("crawl.sqlite"))?;
        // Without a topic the monitor runs with the demo's: it must not rebuild a corpus that
        // another topic built.
        if options.topic.is_none()
            && store
                .meta("topic")?
                .is_some_and(|recorded| recorded != topic.to_toml())
        {
            eprintln!(
                "glaneur: the corpus was not refreshed: {} was built with another topic than the \
                 demo; give its topic (`glaneur monitor TOPIC --out {}`) or run `glaneur run \
                 TOPIC --out {} --from extract`",
                run_dir.display(),
                run_dir.display(),
                run_dir.display()
            );
            return Ok(());
        }
        let since = store
            .meta(crate::extract::VISITS_EXPORTED)?
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        store.changed_since(since)?
    };
    if changed == 0 {
        return Ok(());
    }
    if !options.quiet {
        eprintln!(
            "glaneur: {changed} new versions since the last extraction: refreshing the corpus"
        );
    }
    let run_options = RunOptions {
        topic: options.topic.clone(),
        out: Some(run_dir.to_path_buf()),
        from: Stage::Extract,
        to: Stage::Export,
        proxy: None,
        replay: None,
        quiet: options.quiet,
        revisit: false,
        virtual_clock: None,
    };
    run::run_locked(
        &run_options,
        topic,
        run_dir,
        std::time::Instant::now(),
        None,
    )?;
    Ok(())
}

fn watch(options: &MonitorOptions, topic: Arc<Topic>, run_dir: &Path) -> anyhow::Result<Ending> {
    let mut store = Store::open(&run_dir.join("crawl.sqlite"))?;
    let clock = Clock(options.virtual_clock.clone());
    let runtime = run::crawl_runtime()?;
    let (crawling, shutdown) = run::signals();
    let run_options = RunOptions {
        topic: options.topic.clone(),
        out: Some(run_dir.to_path_buf()),
        from: Stage::Crawl,
        to: Stage::Crawl,
        proxy: options.proxy.clone(),
        replay: None,
        quiet: true,
        revisit: false,
        virtual_clock: None,
    };
    let replay = run::replay_source(&run_options, &topic);
    let quiet = Progress::new(true);
    let stage = CrawlStage {
        topic: &topic,
        run_dir,
        replay: replay.as_ref(),
        proxy: options.proxy.as_deref(),
        progress: &quiet,
        runtime: &runtime,
        hub: None,
    };
    let schedule = Schedule::of(options, &topic);
    let policy = schedule.revisit_policy();
    let delay = topic.file.politeness.delay_seconds.max(0.0);

    let until = end_time(&mut store, &clock, options.duration)?;
    let (pages, floor, servers) = politeness_floor(&store, run_dir, delay)?;
    let tick = schedule.min_interval / 4.0;
    if !options.quiet {
        eprintln!(
            "glaneur: watching {} pages of {} servers until {} ({} policy)",
            pages,
            servers,
            crate::ground::clock::iso_of(until),
            schedule.policy.name()
        );
    }

    let mut ending = Ending::Done;
    let mut rounds = 0u64;
    // Revisits in each page's history (with `--visits`, a page that has enough is left).
    let mut revisits: HashMap<i64, usize> = HashMap::new();
    let watch = Watch {
        policy: &policy,
        floor: &floor,
        visits: options.visits,
    };
    // The servers and reasons of the pages a round could not revisit, already told.
    let mut told: HashSet<(String, String)> = HashSet::new();
    loop {
        let now = clock.now()?;
        let (due, next) = watch.due_pages(&mut store, &mut revisits, now + tick)?;
        if due.is_empty() {
            if next >= until || !next.is_finite() {
                break;
            }
            if !wait_until(&clock, next, &runtime, shutdown.clone())? {
                ending = Ending::Interrupted;
                break;
            }
            continue;
        }
        if now >= until {
            break;
        }
        store.mark_due(&due)?;
        store.commit()?;
        let pass = crate::crawl::Pass {
            monitor: true,
            at: clock.pass_time()?,
        };
        let outcome = {
            let _crawling = run::Crawling::start(&crawling);
            stage.run(&mut store, shutdown.clone(), pass)?
        };
        rounds += 1;
        if outcome.interrupted {
            ending = Ending::Interrupted;
            break;
        }
        let undone = watch.reschedule(&mut store, &due, &mut revisits, now)?;
        tell_undone(&mut told, undone, outcome.requests, due.len());
        if !options.quiet && rounds.is_multiple_of(50) {
            let at = crate::ground::clock::iso_of(clock.now()?);
            eprintln!(
                "glaneur: {rounds} rounds, {} visits, at {at}",
                store.visit_count()?
            );
        }
        // Politeness between two rounds: the last request to a server may have just ended.
        std::thread::sleep(std::time::Duration::from_secs_f64(delay.min(60.0)));
    }
    let state = match ending {
        Ending::Done => "finished",
        Ending::Interrupted => "interrupted",
    };
    store.set_meta("monitor_state", state)?;
    store.commit()?;
    println!("{}", write_tables(&store, run_dir)?);
    Ok(ending)
}

/// When the monitor ends: a monitor that did not reach its end resumes toward it. Recorded
/// in the run folder, with the monitor's state.
fn end_time(store: &mut Store, clock: &Clock, duration: f64) -> anyhow::Result<f64> {
    let start = clock.now()?;
    let until = match (
        store.meta("monitor_state")?.as_deref(),
        store.meta("monitor_until")?,
    ) {
        (Some("running" | "interrupted"), Some(t)) => t.parse::<f64>().ok().filter(|t| *t > start),
        _ => None,
    }
    .unwrap_or(start + duration);
    store.set_meta("monitor_state", "running")?;
    store.set_meta("monitor_until", &format!("{until:.3}"))?;
    store.commit()?;
    Ok(until)
}

/// Politeness bounds a page's interval from below: its server's pages, one delay each.
/// Returns the number of pages watched, each page's floor and the number of servers.
fn politeness_floor(
    store: &Store,
    run_dir: &Path,
    delay: f64,
) -> anyhow::Result<(usize, HashMap<i64, f64>, usize)> {
    let pages = store.watched()?;
    if pages.is_empty() {
        bail!(
            "{} holds no stored page to watch (no page was fetched with status 200)",
            run_dir.display()
        );
    }
    let hosts = store.hosts_of(&pages.iter().map(|p| p.0).collect::<Vec<_>>())?;
    let mut per_host: HashMap<&str, usize> = HashMap::new();
    for h in hosts.values() {
        *per_host.entry(h.as_str()).or_default() += 1;
    }
    let floor = hosts
        .iter()
        .map(|(id, h)| {
            (
                *id,
                per_host.get(h.as_str()).copied().unwrap_or(1) as f64 * delay,
            )
        })
        .collect();
    Ok((pages.len(), floor, per_host.len()))
}

/// What choosing the pages due needs.
struct Watch<'a> {
    policy: &'a Policy,
    floor: &'a HashMap<i64, f64>,
    /// `--visits`: a page with that many revisits is left.
    visits: Option<usize>,
}

impl Watch<'_> {
    /// The pages due by `horizon`, and when the next other one is (infinite: none). A page
    /// not scheduled yet is scheduled from its last visit, as its policy says.
    fn due_pages(
        &self,
        store: &mut Store,
        revisits: &mut HashMap<i64, usize>,
        horizon: f64,
    ) -> anyhow::Result<(Vec<i64>, f64)> {
        let mut due = Vec::new();
        let mut next = f64::INFINITY;
        for (id, next_at) in store.watched()? {
            let at = match next_at {
                Some(t) => t,
                None => {
                    let (t, n, _) = schedule_page(store, self.policy, id, self.floor, 0.0)?;
                    revisits.insert(id, n);
                    store.commit()?;
                    t
                }
            };
            if let Some(wanted) = self.visits {
                let n = match revisits.get(&id) {
                    Some(n) => *n,
                    None => {
                        let n = revisit_count(store, id)?;
                        revisits.insert(id, n);
                        n
                    }
                };
                if n >= wanted {
                    continue;
                }
            }
            if at <= horizon {
                due.push(id);
            } else {
                next = next.min(at);
            }
        }
        Ok((due, next))
    }

    /// The next visit of each page of the round that began at `round`: from its last visit,
    /// or from the round when it was not visited (it is not due again at once). Returns the
    /// pages the round could not revisit, per server and reason.
    fn reschedule(
        &self,
        store: &mut Store,
        due: &[i64],
        revisits: &mut HashMap<i64, usize>,
        round: f64,
    ) -> anyhow::Result<BTreeMap<(String, String), usize>> {
        let mut why_not = Vec::new();
        for id in due {
            let (_, n, last) = schedule_page(store, self.policy, *id, self.floor, round)?;
            revisits.insert(*id, n);
            let why = match last {
                Some(v) if v.at >= round && v.change == "failed" => v.detail.clone(),
                Some(v) if v.at >= round => None,
                _ => Some("not visited in this round".to_string()),
            };
            why_not.extend(why.map(|why| (*id, why)));
        }
        store.commit()?;
        let hosts = store.hosts_of(&why_not.iter().map(|(id, _)| *id).collect::<Vec<_>>())?;
        let mut undone = BTreeMap::new();
        for (id, why) in why_not {
            let host = hosts.get(&id).cloned().unwrap_or_default();
            *undone.entry((host, why)).or_insert(0) += 1;
        }
        Ok(undone)
    }
}

/// The revisits (intervals) in a page's history.
fn revisit_count(store: &Store, id: i64) -> anyhow::Result<usize> {
    let visits = store.visits_of(id)?;
    let refs: Vec<&crate::store::VisitRecord> = visits.iter().collect();
    Ok(stages::change::estimate::intervals(&history::observations(&refs)).len())
}

/// Tells, once per server and reason, the pages a round could not revisit; and a round that
/// made no request at all.
fn tell_undone(
    told: &mut HashSet<(String, String)>,
    undone: BTreeMap<(String, String), usize>,
    requests: u64,
    due: usize,
) {
    if requests == 0 && !undone.is_empty() {
        let new = undone.keys().any(|k| !told.contains(k));
        if new {
            eprintln!("glaneur: a round could revisit none of its {due} pages due");
        }
    }
    for ((host, why), n) in undone {
        if told.insert((host.clone(), why.clone())) {
            let pages = if n == 1 { "page" } else { "pages" };
            eprintln!(
                "glaneur: {host}: {n} {pages} not revisited ({why}); their stored copies stay, \
                 asked again on their schedule"
            );
        }
    }
}

/// Sets a page's next visit from its history (from `since` when it was not visited after);
/// returns when it is due, its revisits so far, and its last visit.
fn schedule_page(
    store: &mut Store,
    policy: &Policy,
    id: i64,
    floor: &HashMap<i64, f64>,
    since: f64,
) -> anyhow::Result<(f64, usize, Option<crate::store::VisitRecord>)> {
    let visits = store.visits_of(id)?;
    let refs: Vec<&crate::store::VisitRecord> = visits.iter().collect();
    let obs = history::observations(&refs);
    let intervals = stages::change::estimate::intervals(&obs);
    let plausible = stages::change::estimate::last_modified_plausible(&obs);
    // One draw per page and visit: the same history gives the same schedule.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
        (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ visits.len() as u64,
    );
    let u: f64 = 1.0 - rng.random::<f64>();
    let interval = schedule::next_interval(policy, &intervals, plausible, u)
        .max(floor.get(&id).copied().unwrap_or(0.0));
    let last = visits.last().map_or(0.0, |v| v.at).max(since);
    let next_at = last + interval;
    store.schedule(id, next_at, interval)?;
    Ok((next_at, intervals.len(), visits.into_iter().last()))
}

/// Waits for `t` on the monitor's clock; false when a signal asked to stop.
fn wait_until(
    clock: &Clock,
    t: f64,
    runtime: &tokio::runtime::Runtime,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<bool> {
    if let Some(path) = &clock.0 {
        crate::ground::clock::set_virtual(path, t)?;
        return Ok(!*shutdown.borrow());
    }
    let wait = (t - crate::ground::clock::now_epoch()).max(0.0);
    Ok(runtime.block_on(async {
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs_f64(wait)) => true,
            _ = shutdown.changed() => false,
        }
    }))
}

/// Writes `changes.csv`, `rates.csv` and `host-rates.csv`; returns the summary to print.
pub fn write_tables(store: &Store, run_dir: &Path) -> anyhow::Result<String> {
    let visits = store.visits()?;
    history::write_changes(&run_dir.join("changes.csv"), &visits)?;
    let rates = history::rates(&visits);
    let next: BTreeMap<i64, f64> = store
        .watched()?
        .into_iter()
        .filter_map(|(id, t)| Some((id, t?)))
        .collect();
    history::write_rates(
        &run_dir.join("rates.csv"),
        &run_dir.join("host-rates.csv"),
        &rates,
        &next,
    )?;
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for v in &visits {
        *kinds.entry(v.change.as_str()).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let changing = rates.iter().filter(|r| r.estimate.changes > 0).count();
    let mut per_day: Vec<f64> = rates
        .iter()
        .filter(|r| r.estimate.visits > 0)
        .map(|r| r.estimate.rate * history::DAY)
        .collect();
    per_day.sort_by(f64::total_cmp);
    let median = per_day.get(per_day.len() / 2).copied().unwrap_or(0.0);
    Ok(format!(
        "visits: {} ({})\npages watched: {}, seen changing: {changing}; median rate {median:.3} \
         changes a day\nchanges.csv, rates.csv, host-rates.csv in {}",
        visits.len(),
        kinds.join(", "),
        rates.len(),
        run_dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(monitor: &str) -> anyhow::Result<Topic> {
        let text = format!(
            "name = \"veille\"\n[seeds]\nurls = [\"http://a.test/\"]\n[politeness]\n\
             contact = \"mailto:l@example.org\"\n[monitor]\n{monitor}\n"
        );
        Topic::from_str(&text, PathBuf::from("."), "test".into())
    }

    #[test]
    fn the_topic_sets_the_schedule_and_the_flags_override_it() {
        let topic = parse("policy = \"poisson\"\ninterval_seconds = 43200").unwrap();
        let mut options = MonitorOptions {
            topic: None,
            out: None,
            duration: 1.0,
            policy: None,
            interval: None,
            min_interval: None,
            max_interval: Some(7_200.0),
            proxy: None,
            virtual_clock: None,
            visits: None,
            refresh: true,
            quiet: true,
        };
        let s = Schedule::of(&options, &topic);
        assert_eq!(s.policy, PolicyName::Poisson);
        assert_eq!(
            (s.interval, s.min_interval, s.max_interval),
            (43_200.0, 3_600.0, 7_200.0)
        );
        options.policy = Some(PolicyName::Adaptive);
        assert_eq!(Schedule::of(&options, &topic).policy, PolicyName::Adaptive);
    }

    #[test]
    fn a_monitor_without_its_topic_does_not_rebuild_another_topics_corpus() {
        use crate::store::{Change, Digests, Via, VisitRow};
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let mut store = Store::open(&run.join("crawl.sqlite")).unwrap();
        store.set_meta("topic", "name = \"autre\"\n").unwrap();
        let (id, _) = store
            .insert_url("http://a.test/", "a.test", 0, None, Via::Seed, 1.0, 0.0)
            .unwrap();
        store
            .visit(&VisitRow {
                url_id: id,
                at: 1.0,
                status: Some(200),
                length: Some(10),
                digests: Digests::default(),
                last_modified: None,
                expires: None,
                etag: None,
                content_language: None,
                server: None,
                change: Change::Changed,
                detail: None,
                warc: None,
            })
            .unwrap();
        store.commit().unwrap();
        drop(store);
        std::fs::write(run.join("docs.jsonl"), "{}\n").unwrap();
        let demo = Arc::new(Topic::demo(PathBuf::from("corpora").join("demo")).unwrap());
        let options = MonitorOptions {
            topic: None,
            out: Some(run.to_path_buf()),
            duration: 1.0,
            policy: None,
            interval: None,
            min_interval: None,
            max_interval: None,
            proxy: None,
            virtual_clock: None,
            visits: None,
            refresh: true,
            quiet: true,
        };
        refresh(&options, demo, run).unwrap();
        // Nothing was run: the other topic's corpus is as it was.
        assert_eq!(
            std::fs::read_to_string(run.join("docs.jsonl")).unwrap(),
            "{}\n"
        );
        assert!(!run.join("report.json").exists());
    }

    #[test]
    fn a_broken_monitor_table_is_named() {
        for (table, expected) in [
            (
                "min_interval_seconds = 7200\nmax_interval_seconds = 3600",
                "[monitor] `min_interval_seconds = 7200.0` is above",
            ),
            ("interval_seconds = 0", "[monitor] `interval_seconds = 0.0`"),
            ("policy = \"daily\"", "daily"),
            ("every = 3", "every"),
        ] {
            let err = format!("{:#}", parse(table).unwrap_err());
            assert!(err.contains(expected), "{table}: {err}");
        }
    }
}
