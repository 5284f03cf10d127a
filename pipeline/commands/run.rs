//! `glaneur run`: the stages in order, each reading what the previous one stored.
//!
//! ```text
//! seeds ─► crawl (filter + score inside) ─► extract (decode + clean) ─► export ─► report
//!  G0        crawl.sqlite + warc/             docs.jsonl                  treetagger/ matrix/ graph/
//! ```
//!
//! **Invariants:** `--from STAGE` skips the stages before it and reads their stored output, so
//! `--from extract` never fetches; a run folder is resumed, never overwritten (the seen set,
//! frontier and responses are in it); an interrupted crawl leaves a consistent folder and the
//! same command continues it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use anyhow::{Context, bail};
use stages::focus::score::Scope;
use tokio::sync::watch;

use crate::crawl::{self, CrawlContext};
use crate::fetch::{Fetcher, HttpFetcher, Replay};
use crate::ground::progress::Progress;
use crate::ground::runlock::RunLock;
use crate::report::{self, ReasonCount, Report};
use crate::store::{self, Store};
use crate::topic::{self, Topic};
use crate::warc::WarcFile;
use crate::{annotate, export, extract, seeds};

pub(crate) use super::signals::{Crawling, signals};

/// The recorded web of the embedded default topic.
pub const DEMO_WEB: &[u8] = include_bytes!("../../corpora/demo/web.warc.gz");

/// A stage `--from` can start at (and `--to` stop after). Each one's help says what the stage
/// itself does: the flags' own help says whether it is where a run starts or ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Stage {
    /// The seed URLs: the topic's, files of URLs and result pages, search APIs.
    #[default]
    Seeds,
    /// Fetching, from the stored frontier on (a crawl resumes where it stopped).
    Crawl,
    /// `docs.jsonl` from the stored responses (no fetching).
    Extract,
    /// Tagging the documents not tagged yet (`[annotate]`).
    Annotate,
    /// The exports from `docs.jsonl` and the stored tags (vrt, matrices, graphs, index…).
    Export,
    /// Syntex and Upery on the tagged corpus (`[parse]`).
    Parse,
}

impl Stage {
    /// The stage after this one (None after the last).
    fn next(self) -> Option<Stage> {
        match self {
            Stage::Seeds => Some(Stage::Crawl),
            Stage::Crawl => Some(Stage::Extract),
            Stage::Extract => Some(Stage::Annotate),
            Stage::Annotate => Some(Stage::Export),
            Stage::Export => Some(Stage::Parse),
            Stage::Parse => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Stage::Seeds => "seeds",
            Stage::Crawl => "crawl",
            Stage::Extract => "extract",
            Stage::Annotate => "annotate",
            Stage::Export => "export",
            Stage::Parse => "parse",
        }
    }
}

/// What `glaneur run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Topic file or folder; `None`: the embedded default.
    pub topic: Option<PathBuf>,
    /// Run folder; default: `run/` beside the topic file.
    pub out: Option<PathBuf>,
    /// First stage to run.
    pub from: Stage,
    /// Last stage to run (`Export`: the whole pipeline).
    pub to: Stage,
    /// HTTP proxy for every request.
    pub proxy: Option<String>,
    /// Replay this WARC file instead of fetching.
    pub replay: Option<PathBuf>,
    /// No progress bars.
    pub quiet: bool,
    /// Fetch the stored pages again, conditionally.
    pub revisit: bool,
    /// Date every visit by this virtual clock file (simulations; see `glaneur monitor`).
    pub virtual_clock: Option<PathBuf>,
}

/// How a run ended (mapped to the exit code by `main`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The corpus has at least one document.
    Corpus,
    /// The run finished and the corpus is empty (the report says why).
    Empty,
    /// Stopped by a signal; the same command resumes.
    Interrupted,
    /// Stopped after the stage `--to` named, as asked; `--from` the next stage goes on.
    Stopped,
}

/// Runs the pipeline; prints the summary on stdout.
pub fn run(options: &RunOptions) -> anyhow::Result<Ending> {
    run_with(options, None)
}

/// [`run`], with the crawl's requests going through a batch's hub when one is given.
pub(crate) fn run_with(
    options: &RunOptions,
    hub: Option<&Arc<crate::fetch::hub::Hub>>,
) -> anyhow::Result<Ending> {
    let started = Instant::now();
    let topic = match &options.topic {
        Some(path) => Topic::load(path)?,
        None => Topic::demo(PathBuf::from("corpora").join("demo"))?,
    };
    let topic = Arc::new(topic);
    // What `glaneur check` checks, checked again: the files may have changed since.
    match &options.replay {
        Some(path) => {
            let mut flag = (*topic).clone();
            flag.file.replay = None;
            topic::check_files(&flag, false)?;
            if !path.is_file() {
                bail!("--replay {}: no such file", path.display());
            }
        }
        None => topic::check_files(&topic, options.topic.is_none())?,
    }
    for warning in topic::warnings(&topic) {
        eprintln!("glaneur: warning: {warning}");
    }
    let run_dir = options.out.clone().unwrap_or_else(|| topic.dir.join("run"));
    std::fs::create_dir_all(&run_dir)
        .with_context(|| format!("cannot create the run folder {}", run_dir.display()))?;
    // Before anything is read or written in the folder: a second process stops here.
    let lock = RunLock::acquire(&run_dir)?;
    // A stop asked of an earlier run that ended before it looked is not this run's.
    let _ = std::fs::remove_file(crate::ground::live::stop_file(&run_dir));
    if let Some(holder) = &lock.stale {
        eprintln!(
            "glaneur: the last run in {} ({holder}) did not end normally (killed, crashed or \
             stopped at once); taking over: what it left half-written is checked first",
            run_dir.display()
        );
    }
    let ending = run_locked(options, topic, &run_dir, started, hub)
        .map_err(|error| name_the_cause(error, &run_dir));
    drop(lock);
    ending
}

/// The pipeline, with the run folder locked.
pub(crate) fn run_locked(
    options: &RunOptions,
    topic: Arc<Topic>,
    run_dir: &Path,
    started: Instant,
    hub: Option<&Arc<crate::fetch::hub::Hub>>,
) -> anyhow::Result<Ending> {
    let started_iso = crate::ground::clock::now_iso();
    let run_dir = run_dir.to_path_buf();
    check_writable(&run_dir)?;
    std::fs::write(run_dir.join("topic.toml"), topic.to_toml())
        .with_context(|| format!("cannot write in the run folder {}", run_dir.display()))?;

    let mut store = open_store(options, &topic, &run_dir)?;

    let runtime = crawl_runtime()?;
    let (crawling, shutdown) = signals();
    let shutdown_copy = shutdown.clone();

    let progress = Progress::new(options.quiet);
    let replay = replay_source(options, &topic);
    let replay_name = replay.as_ref().map(Replayed::name);
    let mut report = Report {
        glaneur: env!("CARGO_PKG_VERSION").to_string(),
        topic: topic.file.name.clone(),
        topic_origin: topic.origin.clone(),
        run_dir: run_dir.display().to_string(),
        from_stage: options.from.name().to_string(),
        replay: replay_name,
        started: started_iso,
        ..Report::default()
    };

    if options.from <= Stage::Seeds {
        let gathered = gather_seeds(
            &topic,
            &mut store,
            &runtime,
            options.proxy.as_deref(),
            &progress,
        )?;
        report.seeds = Some(gathered);
    }

    let mut interrupted = false;
    if options.revisit {
        if options.from > Stage::Crawl {
            bail!("--revisit fetches pages again: it cannot go with --from extract or export");
        }
        let n = store.mark_revisits()?;
        store.commit()?;
        progress.note(&format!(
            "revisiting {n} stored pages (conditional requests)"
        ));
    }
    if options.from <= Stage::Crawl && options.to >= Stage::Crawl {
        // The user's choices of `glaneur seeds` (a malformed file stops here, before any request).
        report.review = seeds::review::apply(&mut store, &run_dir)?;
        let pass = crawl::Pass {
            monitor: false,
            at: options
                .virtual_clock
                .as_deref()
                .map(crate::ground::clock::read_virtual)
                .transpose()?,
        };
        let stage = CrawlStage {
            topic: &topic,
            run_dir: &run_dir,
            replay: replay.as_ref(),
            proxy: options.proxy.as_deref(),
            progress: &progress,
            runtime: &runtime,
            hub,
        };
        let outcome = {
            let _crawling = Crawling::start(&crawling);
            let follows = options.to >= Stage::Extract;
            stage.run_followed(&mut store, (shutdown, pass), follows)?
        };
        progress.finish();
        interrupted = outcome.interrupted;
        report.crawl = Some(outcome);
    }

    if !interrupted && options.to >= Stage::Extract {
        let signals = Signals {
            crawling: &crawling,
            shutdown: &shutdown_copy,
        };
        interrupted = downstream(
            options,
            &topic,
            &run_dir,
            &mut store,
            &mut report,
            (&progress, signals),
        )?;
    }
    let stopped = !interrupted && options.to < Stage::Export;

    finish(
        options,
        &run_dir,
        &mut store,
        report,
        (interrupted, stopped),
        started,
    )
}

/// The run's end: `report.json`, `report.html`, the summary; what the run came to.
fn finish(
    options: &RunOptions,
    run_dir: &Path,
    store: &mut Store,
    mut report: Report,
    (interrupted, stopped): (bool, bool),
    started: Instant,
) -> anyhow::Result<Ending> {
    report.discovery = store
        .via_counts()?
        .into_iter()
        .map(|(via, urls, pages, kept)| crate::report::ViaCount {
            via: via.name().to_string(),
            urls,
            pages,
            kept,
        })
        .collect();
    report.urls = store
        .reason_counts()?
        .into_iter()
        .map(|(state, reason, count)| ReasonCount::new(state, reason, count))
        .collect();
    if let Some(harvest) = &report.harvest
        && harvest.pages > 0
    {
        report.harvest_rate = Some(harvest.rate());
        report.kept_rate = Some(harvest.kept_rate());
    }
    let n_docs = report.export.as_ref().map_or(0, |e| e.documents);
    let ending = if interrupted {
        Ending::Interrupted
    } else if stopped {
        Ending::Stopped
    } else if n_docs == 0 {
        report.empty_corpus = Some(report.explain_empty());
        Ending::Empty
    } else {
        Ending::Corpus
    };
    report.seconds = started.elapsed().as_secs_f64();
    let report_path = run_dir.join("report.json");
    std::fs::write(&report_path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    report::html::write(store, &report, &run_dir.join("report.html"))?;
    store.commit()?;
    live_stage(run_dir, if interrupted { "stopped" } else { "finished" });
    print!("{}", report.summary());
    if interrupted {
        println!("\n  interrupted: run the same command again to resume the crawl");
    }
    if let Some(next) = stopped.then(|| options.to.next()).flatten() {
        println!(
            "\n  stopped after the {} stage (--to {}): add `--from {}` to go on",
            options.to.name(),
            options.to.name(),
            next.name()
        );
    }
    Ok(ending)
}

/// The runtime of a crawl, one for the whole run: its signal handler must stay in charge
/// after the crawl (tokio keeps the process's SIGINT handler installed once registered). One
/// thread, the one the crawl loop runs on: the network tasks only move bytes (requests,
/// responses, timers), the pages are read on the analysis threads (`crawl::pool`). With the
/// network on threads of its own, every response woke one of them and every request the loop
/// started woke another, each time preempting a core that was reading a page: 6 % of the
/// crawl's CPU in B1 (docs/BENCHMARKS.md).
pub(crate) fn crawl_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The run folder's `crawl.sqlite`, after the checks `--from` and `--to` need.
fn open_store(options: &RunOptions, topic: &Topic, run_dir: &Path) -> anyhow::Result<Store> {
    if options.to < options.from {
        bail!(
            "--to {} comes before --from {}: nothing to run",
            options.to.name(),
            options.from.name()
        );
    }
    let db_path = run_dir.join("crawl.sqlite");
    if options.from >= Stage::Extract && !db_path.exists() {
        bail!(
            "--from {} needs a crawled run folder, and {} has no crawl.sqlite: run without --from first",
            options.from.name(),
            run_dir.display()
        );
    }
    // A crawl that must be there (`--from extract`, or responses already archived): an empty
    // or foreign crawl.sqlite is an error, never a new empty crawl.
    let archived = std::fs::metadata(run_dir.join("warc").join(crate::warc::WARC_NAME))
        .is_ok_and(|m| m.len() > 0);
    let mut store = if options.from >= Stage::Extract || (archived && db_path.exists()) {
        Store::open_crawled(&db_path)?
    } else {
        Store::open(&db_path)?
    };
    store.set_meta("topic", &topic.to_toml())?;
    store.set_meta("topic_name", &topic.file.name)?;
    Ok(store)
}

/// What the stages after the crawl need to stop gracefully.
struct Signals<'a> {
    /// Stages under way that a first Ctrl-C stops gracefully (see [`signals`]).
    crawling: &'a Arc<AtomicUsize>,
    /// Turns true on that graceful stop.
    shutdown: &'a watch::Receiver<bool>,
}

/// The extract, annotate, export and parse stages (as far as `--to` goes), and the harvest;
/// returns whether the run was interrupted (during the tagging).
fn downstream(
    options: &RunOptions,
    topic: &Topic,
    run_dir: &Path,
    store: &mut Store,
    report: &mut Report,
    (progress, signals): (&Progress, Signals<'_>),
) -> anyhow::Result<bool> {
    if options.from <= Stage::Extract {
        live_stage(run_dir, "extract");
        let bar = progress.stage("extract", 0);
        report.extract = Some(extract::run(topic, store, run_dir, &bar)?);
    }
    let (harvest, documents) = extract::harvest(store, &run_dir.join("docs.jsonl"))?;
    report.harvest = Some(harvest);
    if options.from <= Stage::Annotate
        && options.to >= Stage::Annotate
        && topic.file.annotate.is_some()
    {
        live_stage(run_dir, "annotate");
        let _tagging = Crawling::start(signals.crawling);
        let inputs = annotate::Inputs {
            run_dir,
            progress,
            shutdown: signals.shutdown,
        };
        report.annotate = annotate::run(topic, store, &inputs)?;
        if report.annotate.as_ref().is_some_and(|a| a.interrupted) {
            return Ok(true);
        }
    }
    if options.to >= Stage::Export {
        live_stage(run_dir, "export");
        let bar = progress.stage("export", documents);
        report.export = Some(export::run(topic, store, run_dir, &bar)?);
        // The exports now hold every version the extraction saw.
        if let Some(seen) = store.meta(extract::VISITS_EXTRACTED)? {
            store.set_meta(extract::VISITS_EXPORTED, &seen)?;
        }
        seeds::write_csv(store, run_dir)?;
    }
    if options.to >= Stage::Parse
        && let Some(parse) = &topic.file.parse
    {
        live_stage(run_dir, "parse");
        report.parse = Some(crate::parse::run(parse, run_dir, &|m| progress.note(m))?);
    }
    Ok(false)
}

/// The seeds stage: the topic's seeds into the store (a search stopped early is noted).
pub(crate) fn gather_seeds(
    topic: &Topic,
    store: &mut Store,
    runtime: &tokio::runtime::Runtime,
    proxy: Option<&str>,
    progress: &Progress,
) -> anyhow::Result<seeds::SeedsReport> {
    let canonicalizer = topic
        .file
        .urls
        .canonicalizer(topic.file.traps.max_url_length);
    let scope = Scope::new(&topic.file.domains.allow, &topic.file.domains.deny);
    let gathered = seeds::run(topic, store, &canonicalizer, &scope, runtime, proxy)?;
    if let Some(why) = &gathered.search_stopped {
        progress.note(why);
    }
    Ok(gathered)
}

/// Where the responses of a replayed crawl come from.
pub(crate) enum Replayed {
    /// A WARC file.
    File(PathBuf),
    /// The demo web compiled into the binary (the embedded demo topic, run from a folder that
    /// does not have `corpora/demo/web.warc.gz`).
    Embedded,
}

impl Replayed {
    fn name(&self) -> String {
        match self {
            Replayed::File(path) => path.display().to_string(),
            Replayed::Embedded => "embedded demo web (corpora/demo/web.warc.gz)".to_string(),
        }
    }

    fn bytes(&self) -> anyhow::Result<std::borrow::Cow<'static, [u8]>> {
        match self {
            Replayed::File(path) => std::fs::read(path)
                .map(std::borrow::Cow::Owned)
                .with_context(|| format!("cannot read the recorded web {}", path.display())),
            Replayed::Embedded => Ok(std::borrow::Cow::Borrowed(DEMO_WEB)),
        }
    }
}

/// What the crawl stage needs from the run (a crawl, or a round of `glaneur monitor`).
pub(crate) struct CrawlStage<'a> {
    pub(crate) topic: &'a Arc<Topic>,
    pub(crate) run_dir: &'a Path,
    pub(crate) replay: Option<&'a Replayed>,
    pub(crate) proxy: Option<&'a str>,
    pub(crate) progress: &'a Progress,
    pub(crate) runtime: &'a tokio::runtime::Runtime,
    /// A batch's hub: the requests go through it (None: a run of its own).
    pub(crate) hub: Option<&'a Arc<crate::fetch::hub::Hub>>,
}

impl CrawlStage<'_> {
    /// Opens the fetcher and the WARC file and runs one crawl pass.
    pub(crate) fn run(
        &self,
        store: &mut Store,
        shutdown: watch::Receiver<bool>,
        pass: crawl::Pass,
    ) -> anyhow::Result<crawl::CrawlOutcome> {
        self.run_shared(store, shutdown, pass, None)
    }

    /// [`CrawlStage::run`], with extraction following the crawl when `follows` (the run goes
    /// on to it): a reader reads the pages the crawl commits, with the CPU the crawl leaves
    /// idle. A reader that cannot start or stops is only a warning: the extract stage reads
    /// those pages itself.
    fn run_followed(
        &self,
        store: &mut Store,
        (shutdown, pass): (watch::Receiver<bool>, crawl::Pass),
        follows: bool,
    ) -> anyhow::Result<crawl::CrawlOutcome> {
        let follower = if follows {
            match crate::extract::follow::start(self.topic, store, self.run_dir) {
                Ok((follower, to)) => {
                    store.listen_stored(Some(to));
                    Some(follower)
                }
                Err(e) => {
                    eprintln!("glaneur: warning: {e:#}; the extract stage reads every page");
                    None
                }
            }
        } else {
            None
        };
        let outcome = self.run(store, shutdown, pass);
        store.listen_stored(None);
        if let Some(follower) = follower
            && let Err(e) = follower.finish()
        {
            eprintln!("glaneur: warning: {e:#}; the extract stage reads those pages itself");
        }
        outcome
    }

    /// [`CrawlStage::run`], as a worker of a shared crawl when `worker` is given.
    pub(crate) fn run_shared(
        &self,
        store: &mut Store,
        shutdown: watch::Receiver<bool>,
        pass: crawl::Pass,
        worker: Option<crawl::WorkerLink>,
    ) -> anyhow::Result<crawl::CrawlOutcome> {
        let topic = self.topic;
        let canonicalizer = topic
            .file
            .urls
            .canonicalizer(topic.file.traps.max_url_length);
        let fetcher = match self.replay {
            Some(source) => Fetcher::Replay(Arc::new(
                Replay::from_bytes(
                    &source.bytes()?,
                    &canonicalizer,
                    topic.file.crawl.max_body_bytes,
                )
                .with_context(|| format!("the recorded web {}", source.name()))?,
            )),
            None => Fetcher::Http(Arc::new(HttpFetcher::new(
                &topic.user_agent(),
                self.proxy,
                crate::topic::seconds(topic.file.crawl.timeout_seconds),
                topic.file.crawl.max_body_bytes,
                topic.file.politeness.connections_per_host as usize,
                topic.file.domains.allow_private_addresses,
            )?)),
        };
        let fetcher = match self.hub {
            Some(hub) => Fetcher::Shared(Arc::new(crate::fetch::hub::Member {
                hub: hub.clone(),
                own: fetcher,
            })),
            None => fetcher,
        };
        let (mut warc, opened) = WarcFile::open(&self.run_dir.join("warc"), store.warc_horizon()?)?;
        if opened.truncated_bytes > 0 {
            self.progress.note(&format!(
                "removed {} bytes after the last committed record of {}: an unfinished \
                 record of the last stop (its pages are fetched again)",
                opened.truncated_bytes,
                warc.path().display()
            ));
        }
        let ctx = Arc::new(CrawlContext {
            topic: topic.clone(),
            canonicalizer,
            param_rules: topic.file.urls.rules(),
            scope: Scope::new(&topic.file.domains.allow, &topic.file.domains.deny),
            product_token: stages::web::robots::product_token(&topic.user_agent()),
            fetcher,
            focus: crawl::FocusShared::new(topic),
            run_dir: self.run_dir.to_path_buf(),
            pass,
        });
        // On the run's runtime, on the calling thread (the caller is synchronous).
        self.runtime
            .block_on(crawl::crawl(
                ctx,
                store,
                &mut warc,
                opened.truncated_bytes,
                self.progress,
                shutdown,
                worker,
            ))
            .context("the crawl stopped on an error")
    }
}

/// `--replay` wins; then the topic's `replay`; the embedded demo topic falls back on its
/// compiled-in recording when the file is not beside it.
pub(crate) fn replay_source(options: &RunOptions, topic: &Topic) -> Option<Replayed> {
    if let Some(path) = &options.replay {
        return Some(Replayed::File(path.clone()));
    }
    let path = topic.file.replay.as_ref().map(|p| topic.resolve(p))?;
    if path.is_file() || options.topic.is_some() {
        Some(Replayed::File(path))
    } else {
        Some(Replayed::Embedded)
    }
}

/// Adds to a fatal error what a linguist needs to act on it, when the error itself does not
/// say it: which file or folder, and what to do. A full disk, a database held by another
/// program or a damaged database are named as such, with the file.
pub fn name_the_cause(error: anyhow::Error, run_dir: &Path) -> anyhow::Error {
    let db = run_dir.join("crawl.sqlite");
    let shown = format!("{error:#}");
    let fault = store::fault_of(&error);
    let disk_full = fault == Some(store::Fault::DiskFull)
        || error.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull)
        });
    if disk_full {
        return error.context(format!(
            "the disk holding {} is full: free some space (or move the folder), then run the \
             same command again; what was stored so far is kept and the crawl resumes",
            run_dir.display()
        ));
    }
    match fault {
        Some(store::Fault::Busy) => error.context(format!(
            "{} is locked by another program (an open `sqlite3` shell or a database viewer in \
             the middle of a change?): close it and run the same command again",
            db.display()
        )),
        Some(store::Fault::Damaged) => error.context(format!(
            "{} is damaged; `glaneur verify {}` tells what can be saved",
            db.display(),
            run_dir.display()
        )),
        Some(_) if !shown.contains(&db.display().to_string()) => {
            error.context(format!("in the crawl database {}", db.display()))
        }
        _ => error,
    }
}

fn check_writable(dir: &Path) -> anyhow::Result<()> {
    let probe = dir.join(".glaneur-write-test");
    std::fs::write(&probe, b"")
        .with_context(|| format!("the run folder {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Records the stage the run is in, in `live.json` (the crawl's figures kept): what the web
/// interface shows between crawl updates. A failure to write it does not stop the run.
fn live_stage(run_dir: &Path, stage: &str) {
    let mut live = crate::ground::live::read(run_dir).unwrap_or_default();
    live.pid = std::process::id();
    live.at = crate::ground::clock::now_epoch();
    live.stage = stage.to_string();
    if let Err(error) = crate::ground::live::write(run_dir, &live) {
        eprintln!("glaneur: {error:#}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_named_with_the_folder() {
        let dir = Path::new("/data/corpus/run");
        let full = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::StorageFull))
            .context("cannot write to /data/corpus/run/warc/glaneur-00000.warc.gz");
        let shown = format!("{:#}", name_the_cause(full, dir));
        assert!(
            shown.starts_with("the disk holding /data/corpus/run is full")
                && shown.contains("glaneur-00000.warc.gz"),
            "{shown}"
        );
        let busy = store::tests::busy_error();
        let shown = format!("{:#}", name_the_cause(busy, dir));
        assert!(
            shown.contains("/data/corpus/run/crawl.sqlite is locked by another program"),
            "{shown}"
        );
    }
}
