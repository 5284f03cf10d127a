//! `glaneur worker` and `glaneur collect`: one crawl shared by several processes, on one
//! machine or many, through a PostgreSQL frontier.
//!
//! ```text
//! worker A ─┐                                 RUN/workers/A/ crawl.sqlite + warc/
//! worker B ─┼─ PostgreSQL (seen set, queue, ─► RUN/workers/B/ …
//! worker C ─┘  host leases, politeness)       RUN/workers/C/ …
//!                                               │ glaneur collect RUN
//!                                               ▼
//!                                   RUN/crawl.sqlite + warc/ ─► extract ─► export
//! ```
//!
//! **In:** a topic, a PostgreSQL connection string, a crawl id (default: the topic's name).
//! **Out:** each worker's own run folder `RUN/workers/NAME/` (its `crawl.sqlite` and WARC
//! file); `collect` merges them into `RUN/` and runs the extract and export stages there.
//!
//! **Invariants:** the first worker of a crawl gathers the seeds, the others wait until they
//! are in; a worker's folder is its own (never resumed by another process: a killed worker's
//! servers and URLs go back to the others when its leases expire, and what it committed is
//! collected); the collected folder is an ordinary run folder, so every later command
//! (`run --from extract`, `report`, `serve`, `verify`, the explorer) reads it unchanged.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::commands::run::{self, CrawlStage, Ending, RunOptions, Stage};
use crate::crawl::{self, WorkerLink};
use crate::extract;
use crate::ground::progress::Progress;
use crate::ground::runlock::RunLock;
use crate::store::Store;
use crate::store::postgres::{Frontier, Pushed};
use crate::store::{Reason, Via};
use crate::topic::{self, Topic};
use crate::warc::WARC_NAME;

/// Default lease on a server, seconds: renewed every second while the worker lives.
pub const DEFAULT_LEASE_SECONDS: f64 = 30.0;

/// What `glaneur worker` was asked.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Topic file or folder (every worker of a crawl uses the same).
    pub topic: PathBuf,
    /// The crawl's run folder; the worker writes in `OUT/workers/NAME/`.
    pub out: Option<PathBuf>,
    /// PostgreSQL connection string.
    pub store: String,
    /// Crawl id (default: the topic's name).
    pub crawl: Option<String>,
    /// The worker's name (default: machine name and process id).
    pub name: Option<String>,
    /// Seconds a lease lasts without renewal.
    pub lease_seconds: f64,
    /// HTTP proxy for every request.
    pub proxy: Option<String>,
    /// No progress bars.
    pub quiet: bool,
    /// Read the worker's pages when its crawl ends (`glaneur collect` then reuses the reading).
    pub extract: bool,
}

/// Runs one worker until the shared crawl has nothing left (or a signal stops it).
pub fn worker(options: &WorkerOptions) -> anyhow::Result<Ending> {
    let topic = Arc::new(Topic::load(&options.topic)?);
    topic::check_files(&topic, false)?;
    for warning in topic::warnings(&topic) {
        eprintln!("glaneur: warning: {warning}");
    }
    if topic.file.replay.is_some() {
        bail!(
            "{}: a topic that replays a recording (replay = …) has no server to share: run it \
             with glaneur run",
            options.topic.display()
        );
    }
    let lease = options.lease_seconds;
    if !(lease.is_finite() && (2.0..=86_400.0).contains(&lease)) {
        bail!("--lease-seconds {lease}: give a number of seconds from 2 to 86400");
    }
    let name = options.name.clone().unwrap_or_else(default_name);
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || name.starts_with('.')
    {
        bail!("--name {name:?}: use letters, digits, '-', '_' and '.' (it names a folder)");
    }
    let run_dir = options.out.clone().unwrap_or_else(|| topic.dir.join("run"));
    let dir = run_dir.join("workers").join(&name);
    if dir.join("crawl.sqlite").exists() {
        bail!(
            "{} already holds the crawl of a worker named {name}: give this one another --name \
             (a worker is never resumed: when one stops, its servers and URLs go back to the \
             others, and `glaneur collect` gathers what it stored)",
            dir.display()
        );
    }
    // The folders this worker makes, outermost first: a worker that stores nothing (the
    // database could not be reached) leaves none of them behind.
    let made: Vec<PathBuf> = [run_dir.clone(), run_dir.join("workers"), dir.clone()]
        .into_iter()
        .filter(|d| !d.exists())
        .collect();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the worker's folder {}", dir.display()))?;
    // The shared frontier records where each worker's folder is: a whole path.
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let lock = RunLock::acquire(&dir)?;
    let crawl_id = options
        .crawl
        .clone()
        .unwrap_or_else(|| topic.file.name.clone());
    let ending = std::fs::write(dir.join("topic.toml"), topic.to_toml())
        .with_context(|| format!("cannot write in {}", dir.display()))
        .and_then(|()| work(options, &topic, &dir, &name, &crawl_id));
    if ending.is_err() && !dir.join("crawl.sqlite").exists() && !made.is_empty() {
        // Only a folder this worker made is removed, while it holds the folder's lock (a new
        // worker of the same name waits for it); a parent folder only when it is empty
        // (another worker may have started in it meanwhile).
        if made
            .last()
            .is_some_and(|d| std::path::absolute(d).is_ok_and(|d| d == dir))
        {
            let _ = std::fs::remove_dir_all(&dir);
        }
        for folder in made.iter().rev() {
            let _ = std::fs::remove_dir(folder);
        }
    }
    let ending = match ending {
        Ok(Ending::Stopped) if options.extract => {
            extract_own(&topic, &dir, options.quiet).map(|()| Ending::Stopped)
        }
        other => other,
    };
    drop(lock);
    ending
}

/// The worker reads its own pages once its crawl has ended, on its own machine (pass 1 of the
/// extract stage: decoding, cleaning, paragraph languages): `glaneur collect` then borrows that
/// reading (the extract cache) and runs only the corpus-wide steps.
fn extract_own(topic: &Topic, dir: &Path, quiet: bool) -> anyhow::Result<()> {
    let failed = || {
        format!(
            "the worker's crawl ended, but reading its pages in {} failed (`glaneur collect` \
             will read them)",
            dir.display()
        )
    };
    let mut store = Store::open(&dir.join("crawl.sqlite")).with_context(failed)?;
    let progress = Progress::new(quiet);
    let bar = progress.stage("extract", 0);
    let report = extract::read_only(topic, &mut store, dir, &bar).with_context(failed)?;
    progress.finish();
    println!(
        "  read its {} pages ({:.1} s); glaneur collect reuses the reading",
        report.pages, report.seconds
    );
    Ok(())
}

fn work(
    options: &WorkerOptions,
    topic: &Arc<Topic>,
    dir: &Path,
    name: &str,
    crawl_id: &str,
) -> anyhow::Result<Ending> {
    let runtime = run::crawl_runtime()?;
    let (crawling, shutdown) = run::signals();
    let progress = Progress::new(options.quiet);
    // The database first: a worker that cannot reach it leaves no folder behind that its name
    // could not be given again for.
    let frontier = runtime.block_on(Frontier::connect(
        &options.store,
        crawl_id,
        name,
        Duration::from_secs_f64(options.lease_seconds),
    ))?;
    let mut store = Store::open(&dir.join("crawl.sqlite"))?;
    store.set_meta("topic", &topic.to_toml())?;
    store.set_meta("topic_name", &topic.file.name)?;
    store.set_meta("worker", name)?;
    store.set_meta("shared_crawl", crawl_id)?;
    let creator = runtime.block_on(frontier.create_or_join(
        &topic.to_toml(),
        topic.file.crawl.max_pages,
        &dir.display().to_string(),
        topic.file.crawl.concurrency,
    ))?;
    if creator {
        run::gather_seeds(
            topic,
            &mut store,
            &runtime,
            options.proxy.as_deref(),
            &progress,
        )?;
        // The user's choices of `glaneur seeds` in the crawl's folder, as `glaneur run` applies
        // them: a dropped seed never reaches the shared frontier (a malformed file stops here,
        // before any request).
        if let Some(run_dir) = dir.parent().and_then(Path::parent)
            && let Some(review) = crate::seeds::review::apply(&mut store, run_dir)?
        {
            progress.note(&format!(
                "the seed review {}: {} seeds kept, {} dropped",
                review.file, review.kept, review.dropped
            ));
            runtime.block_on(frontier.push_settled(&dropped_seeds(&store)?))?;
        }
        store.commit()?;
    } else {
        let started = Instant::now();
        let mut told = false;
        while !runtime.block_on(frontier.seeded())? {
            if *shutdown.borrow() {
                return Ok(Ending::Interrupted);
            }
            if !told && started.elapsed() > Duration::from_secs(10) {
                progress.note(&format!(
                    "waiting for the first worker of the crawl {crawl_id:?} to put its seeds in"
                ));
                told = true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let link = WorkerLink::new(frontier, topic.file.crawl.concurrency, creator);
    let stage = CrawlStage {
        topic,
        run_dir: dir,
        replay: None,
        proxy: options.proxy.as_deref(),
        progress: &progress,
        runtime: &runtime,
        hub: None,
    };
    let pass = crawl::Pass {
        monitor: false,
        at: None,
    };
    let outcome = {
        let _crawling = run::Crawling::start(&crawling);
        stage.run_shared(&mut store, shutdown, pass, Some(link))?
    };
    progress.finish();
    store.commit()?;
    let fetched = store.requests_made()?;
    println!(
        "worker {name} of the crawl {crawl_id:?}: {fetched} page requests, stored in {}",
        dir.display()
    );
    if outcome.interrupted {
        println!("  stopped: its servers and the URLs it had taken went back to the other workers");
        return Ok(Ending::Interrupted);
    }
    println!(
        "  when every worker has ended: glaneur collect {}",
        dir.parent().and_then(Path::parent).unwrap_or(dir).display()
    );
    Ok(Ending::Stopped)
}

/// The seeds the review dropped, for the shared seen set: another worker that finds one as a
/// link leaves it.
fn dropped_seeds(store: &Store) -> anyhow::Result<Vec<Pushed>> {
    let dropped: Vec<(i64, String)> = store
        .seed_outcomes()?
        .into_iter()
        .filter(|s| s.url.reason == Some(Reason::SeedDropped))
        .map(|s| (s.url.id, s.url.url))
        .collect();
    let hosts = store.hosts_of(&dropped.iter().map(|(id, _)| *id).collect::<Vec<_>>())?;
    Ok(dropped
        .into_iter()
        .filter_map(|(id, url)| {
            Some(Pushed {
                url,
                host: hosts.get(&id)?.clone(),
                depth: 0,
                priority: 0.0,
                hops: 0,
                seed: None,
                via: Some(Via::Seed.name().to_string()),
            })
        })
        .collect())
}

/// The machine's name and the process id: unique among the workers of a crawl.
fn default_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| {
            h.trim()
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".to_string());
    format!("{host}-{}", std::process::id())
}

/// `glaneur run TOPIC --store postgres://…`: one worker of the shared crawl, then, once the
/// crawl has nothing left, `collect` on its run folder. Run again after a stop, it joins the
/// same crawl as a new worker and goes on where the shared frontier stands.
pub fn run_alone(
    topic: Option<PathBuf>,
    out: Option<PathBuf>,
    store: String,
    proxy: Option<String>,
    quiet: bool,
) -> anyhow::Result<Ending> {
    let Some(topic) = topic else {
        bail!(
            "--store needs a topic file: the embedded demo topic replays a recording, which has \
             no server to share"
        );
    };
    let run_dir = out.unwrap_or_else(|| topic_dir(&topic).join("run"));
    let options = WorkerOptions {
        out: Some(run_dir.clone()),
        topic,
        store,
        crawl: None,
        name: None,
        lease_seconds: DEFAULT_LEASE_SECONDS,
        proxy,
        quiet,
        extract: true,
    };
    match worker(&options)? {
        Ending::Interrupted => Ok(Ending::Interrupted),
        _ => collect(&run_dir, None, quiet),
    }
}

/// The folder of a topic given as a file or a folder.
fn topic_dir(topic: &Path) -> PathBuf {
    if topic.is_dir() {
        topic.to_path_buf()
    } else {
        topic
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

/// What `glaneur collect` gathered.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// Workers merged, in order, with the URLs each settled first and whether it had ended.
    pub workers: Vec<(String, u64, bool)>,
    /// URLs settled by two workers (around a killed worker): one response kept.
    pub duplicates: u64,
}

/// Merges the workers' folders of `run_dir` into `run_dir` itself (its `crawl.sqlite` and
/// WARC file), then runs the extract and export stages there with `topic` (default: the
/// topic the workers followed).
pub fn collect(run_dir: &Path, topic: Option<&Path>, quiet: bool) -> anyhow::Result<Ending> {
    let collected = {
        let _lock = RunLock::acquire(run_dir)?;
        merge_folders(run_dir)?
    };
    for (name, settled, ended) in &collected.workers {
        let note = if *ended {
            ""
        } else {
            " (it did not end: killed, or still running — what it had committed is collected)"
        };
        println!("collected worker {name}: {settled} URLs settled{note}");
    }
    if collected.duplicates > 0 {
        println!(
            "  {} URLs were fetched by two workers (around a stopped worker): one response kept",
            collected.duplicates
        );
    }
    let topic = match topic {
        Some(path) => path.to_path_buf(),
        None => run_dir.join("topic.toml"),
    };
    run::run(&RunOptions {
        topic: Some(topic),
        out: Some(run_dir.to_path_buf()),
        from: Stage::Extract,
        to: Stage::Export,
        proxy: None,
        replay: None,
        quiet,
        revisit: false,
        virtual_clock: None,
    })
}

/// The workers' topic in the collected folder; what no worker took gets the reason a single
/// process would have given it.
fn keep_topic(store: &mut Store, run_dir: &Path, toml: &str) -> anyhow::Result<()> {
    let topic = crate::topic::Topic::from_str(toml, run_dir.to_path_buf(), "collect".into())
        .context("the workers' topic (in their crawl.sqlite) does not read back")?;
    let crawl = &topic.file.crawl;
    store.explain_collected(crawl.max_pages_per_host, crawl.max_pages)?;
    store.set_meta("topic", toml)?;
    std::fs::write(run_dir.join("topic.toml"), toml)
        .with_context(|| format!("cannot write in {}", run_dir.display()))
}

/// The merge itself (the run folder locked by the caller).
fn merge_folders(run_dir: &Path) -> anyhow::Result<Collected> {
    let workers_dir = run_dir.join("workers");
    let mut folders: Vec<(String, PathBuf)> = std::fs::read_dir(&workers_dir)
        .with_context(|| {
            format!(
                "{} has no workers/ folder: collect gathers the folders `glaneur worker --out {}` wrote",
                run_dir.display(),
                run_dir.display()
            )
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("crawl.sqlite").is_file())
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), p)))
        .collect();
    folders.sort();
    if folders.is_empty() {
        bail!("{}: no worker's crawl.sqlite in it", workers_dir.display());
    }
    let db = run_dir.join("crawl.sqlite");
    if db.exists() {
        let earlier = Store::open_read_only(&db)?;
        // A folder where `glaneur seeds` gathered the seeds to review (no request made) is
        // the shared crawl's own: its review stays in seeds-review.tsv.
        if earlier.meta("collected_from")?.is_none() && earlier.requests_made()? > 0 {
            bail!(
                "{} holds a crawl of its own (not one collected from workers): collect into \
                 another folder",
                db.display()
            );
        }
        drop(earlier);
        for suffix in ["", "-wal", "-shm"] {
            let path = PathBuf::from(format!("{}{suffix}", db.display()));
            if path.exists() {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot replace {}", path.display()))?;
            }
        }
    }
    let warc_dir = run_dir.join("warc");
    std::fs::create_dir_all(&warc_dir)
        .with_context(|| format!("cannot create {}", warc_dir.display()))?;
    let warc_path = warc_dir.join(WARC_NAME);
    let mut warc = std::fs::File::create(&warc_path)
        .with_context(|| format!("cannot write {}", warc_path.display()))?;
    let mut store = Store::open(&db)?;
    let mut collected = Collected::default();
    let mut offset = 0u64;
    let mut topic_toml = None;
    for (name, folder) in &folders {
        let (committed, ended, topic) = {
            let theirs = Store::open_read_only(&folder.join("crawl.sqlite"))?;
            (
                theirs.warc_horizon()?,
                theirs.meta("crawl_state")?.as_deref() == Some("finished"),
                theirs.meta("topic")?,
            )
        };
        if topic_toml.is_none() {
            topic_toml = topic;
        }
        // Only the bytes the worker committed: a killed worker's last, unrecorded response
        // is not referenced, and a half-written one would break the file for other readers.
        let theirs = folder.join("warc").join(WARC_NAME);
        let copied = if committed > 0 {
            let file = std::fs::File::open(&theirs)
                .with_context(|| format!("cannot read {}", theirs.display()))?;
            std::io::copy(&mut file.take(committed), &mut warc)
                .with_context(|| format!("cannot write {}", warc_path.display()))?
        } else {
            0
        };
        if copied < committed {
            bail!(
                "{} is shorter ({copied} bytes) than its crawl.sqlite says ({committed}): the \
                 worker's folder is damaged (glaneur verify {} says more)",
                theirs.display(),
                folder.display()
            );
        }
        let merged = store.merge_worker(&folder.join("crawl.sqlite"), offset)?;
        offset += copied;
        collected.duplicates += merged.duplicates;
        collected
            .workers
            .push((name.clone(), merged.settled, ended));
    }
    warc.flush()
        .and_then(|()| warc.sync_all())
        .with_context(|| format!("cannot write {}", warc_path.display()))?;
    if let Some(toml) = &topic_toml {
        keep_topic(&mut store, run_dir, toml)?;
    }
    let names: Vec<&str> = folders.iter().map(|(n, _)| n.as_str()).collect();
    store.set_meta("collected_from", &names.join(" "))?;
    store.set_meta("crawl_state", "finished")?;
    store.set_meta("warc_committed_len", &offset.to_string())?;
    store.commit()?;
    Ok(collected)
}
