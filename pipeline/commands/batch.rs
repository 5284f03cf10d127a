//! `glaneur batch TOPIC…`: several topics crawled together in one process, then compared.
//!
//! **In:** topic files or folders (a folder without a `topic.toml` stands for every
//! `*/topic.toml` under it); a proxy, the hub's memory bound.
//!
//! **Out:** each topic's usual run folder (its `run/`, or `--runs DIR/<topic name>`), with every
//! artefact a single run writes; in `--out`, `batch.json` (per topic: run folder, ending,
//! documents, error; the hub's counts; seconds) and the comparison of the corpora
//! (`crate::commands::compare`: `compare.csv`, `compare-pairs.csv`, `keywords.csv`, `compare.json`,
//! `compare.html`).
//!
//! **Invariants:** the topics run side by side, each on its own thread with its own runtime,
//! store and WARC file, through one [`hub::Hub`]: a URL is requested once for all of them and a
//! server is asked by one topic at a time, with the largest delay of the topics whose
//! `[domains]` hold it between two requests. A topic's run is the run `glaneur run` makes (same stages, same folder, resumed the
//! same way when the batch is started again); one topic's fatal error ends that topic only.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;

use crate::commands::run::{Ending, RunOptions, Stage};
use crate::fetch::hub::{Hub, HubCounts, HubPoliteness, TopicPoliteness};
use crate::topic::Topic;

/// What `glaneur batch` is asked.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Topic files or folders.
    pub topics: Vec<PathBuf>,
    /// Folder of the batch's own files (`batch.json`, the comparison).
    pub out: PathBuf,
    /// Put each topic's run folder in this folder, under the topic's name (default: the
    /// topic's own `run/`).
    pub runs: Option<PathBuf>,
    /// HTTP proxy for every request.
    pub proxy: Option<String>,
    /// Most bytes of responses the hub keeps for the other topics.
    pub cache_bytes: usize,
    /// The comparison's settings.
    pub compare: crate::commands::compare::CompareOptions,
}

/// One topic's line of `batch.json`.
#[derive(Debug, Clone, Serialize)]
pub struct TopicOutcome {
    /// Topic name.
    pub topic: String,
    /// Topic file.
    pub topic_file: String,
    /// Run folder.
    pub run: String,
    /// `corpus`, `empty`, `interrupted` or `error`.
    pub ending: String,
    /// The error, for `error`.
    pub error: Option<String>,
}

/// `batch.json`.
#[derive(Debug, Clone, Serialize)]
pub struct BatchReport {
    /// One entry per topic, in the order given.
    pub topics: Vec<TopicOutcome>,
    /// What the hub was asked and did.
    pub requests: HubCounts,
    /// Seconds the batch took.
    pub seconds: f64,
    /// Why the corpora were not compared, when they were not.
    pub compare_skipped: Option<String>,
}

/// The topic files a batch argument names: a topic file, a topic folder, or a folder of topic
/// folders.
fn topic_files(arg: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if arg.is_file() {
        return Ok(vec![arg.to_path_buf()]);
    }
    if arg.join("topic.toml").is_file() {
        return Ok(vec![arg.join("topic.toml")]);
    }
    if arg.is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(arg)
            .with_context(|| format!("cannot read the folder {}", arg.display()))?
            .filter_map(|e| e.ok().map(|e| e.path().join("topic.toml")))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        if found.is_empty() {
            bail!(
                "{}: no topic.toml in it nor in its sub-folders",
                arg.display()
            );
        }
        return Ok(found);
    }
    bail!("{}: no such topic file or folder", arg.display())
}

/// `glaneur batch`: runs the topics together, then compares their corpora. Returns the report
/// and the worst ending (an error counts as the worst).
pub fn batch(options: &BatchOptions) -> anyhow::Result<(BatchReport, Option<Ending>)> {
    let started = Instant::now();
    // The comparison's settings are checked before hours of crawling, not after.
    crate::commands::compare::check(&options.compare)?;
    let topics = load_topics(options)?;
    let hub = shared_hub(&topics, options.cache_bytes);
    // What an earlier, interrupted batch (or a topic's own run) stored is read back rather
    // than asked for again.
    for (file, topic, run) in &topics {
        let sharing = crate::fetch::sharing_key(
            topic.file.replay.is_some(),
            topic.file.domains.allow_private_addresses,
            topic.file.crawl.max_body_bytes,
        );
        if run.join("crawl.sqlite").is_file()
            && let Err(e) = hub.remember_stored(run, &sharing)
        {
            eprintln!(
                "glaneur: warning: topic {}: the pages its run folder holds are not offered to \
                 the other topics: {e:#}",
                file.display()
            );
        }
    }
    let endings: Vec<anyhow::Result<Ending>> = std::thread::scope(|scope| {
        let handles: Vec<_> = topics
            .iter()
            .map(|(file, _, run)| {
                let hub = hub.clone();
                let run_options = RunOptions {
                    topic: Some(file.clone()),
                    out: Some(run.clone()),
                    from: Stage::Seeds,
                    to: Stage::Export,
                    proxy: options.proxy.clone(),
                    replay: None,
                    quiet: true,
                    revisit: false,
                    virtual_clock: None,
                };
                scope.spawn(move || crate::commands::run::run_with(&run_options, Some(&hub)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("the topic's thread panicked")))
            })
            .collect()
    });

    let (outcomes, worst, corpora) = outcomes(&topics, endings);
    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("cannot create {}", options.out.display()))?;
    let compare_skipped = if corpora.len() < 2 {
        Some(format!(
            "{} of the topics gave a corpus: nothing to compare",
            corpora.len()
        ))
    } else {
        let compare = crate::commands::compare::CompareOptions {
            runs: corpora,
            out: options.out.clone(),
            ..options.compare.clone()
        };
        match crate::commands::compare::compare(&compare) {
            Ok(c) => {
                print!("\n{}", crate::commands::compare::summary(&c, &options.out));
                None
            }
            Err(e) => Some(format!("{e:#}")),
        }
    };
    let report = BatchReport {
        topics: outcomes,
        requests: hub.counts(),
        seconds: started.elapsed().as_secs_f64(),
        compare_skipped,
    };
    let path = options.out.join("batch.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((report, worst))
}

/// A topic of the batch: its file, the topic, its run folder.
type BatchTopic = (PathBuf, Topic, PathBuf);

/// Every topic named, read and checked before any is run; no two share a run folder.
fn load_topics(options: &BatchOptions) -> anyhow::Result<Vec<BatchTopic>> {
    let mut files = Vec::new();
    for arg in &options.topics {
        files.extend(topic_files(arg)?);
    }
    // Every topic is read and checked before any is run.
    let mut topics: Vec<BatchTopic> = Vec::new();
    for file in files {
        let topic = Topic::load(&file)?;
        crate::topic::check_files(&topic, false)
            .with_context(|| format!("topic {}", file.display()))?;
        let run = match &options.runs {
            Some(dir) => dir.join(&topic.file.name),
            None => topic.dir.join("run"),
        };
        topics.push((file, topic, run));
    }
    if topics.len() < 2 {
        bail!("a batch needs at least two topics ({} given)", topics.len());
    }
    // The same folder written two ways (`./t/run`, `t/run`) is the same folder.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    for (i, (file, topic, run)) in topics.iter().enumerate() {
        if let Some((other, _, _)) = topics[..i]
            .iter()
            .find(|(_, _, r)| absolute(r) == absolute(run))
        {
            bail!(
                "{} and {} would share the run folder {}: give each topic its own folder or name \
                 (with --runs, the folder is the topic's name: `{}`)",
                other.display(),
                file.display(),
                run.display(),
                topic.file.name
            );
        }
    }
    Ok(topics)
}

/// The hub the topics share: one politeness per server for them all, and what one fetched
/// offered to the others.
fn shared_hub(topics: &[BatchTopic], cache_bytes: usize) -> Arc<Hub> {
    Arc::new(Hub::new(
        topics
            .iter()
            .map(|(_, t, _)| TopicPoliteness {
                scope: stages::focus::score::Scope::new(
                    &t.file.domains.allow,
                    &t.file.domains.deny,
                ),
                politeness: HubPoliteness {
                    delay: crate::topic::seconds(t.file.politeness.delay_seconds),
                    response_time_factor: t.file.politeness.response_time_factor,
                    max_crawl_delay_seconds: t.file.politeness.max_crawl_delay_seconds,
                },
            })
            .collect(),
        topics
            .iter()
            .map(|(_, t, _)| stages::web::robots::product_token(&t.user_agent()))
            .collect(),
        cache_bytes,
        topics
            .iter()
            .map(|(_, t, _)| crate::topic::seconds(t.file.politeness.robots_ttl_seconds))
            .min()
            .unwrap_or(std::time::Duration::MAX),
    ))
}

/// Each topic's outcome, the worst ending, and the run folders that gave a corpus.
fn outcomes(
    topics: &[BatchTopic],
    endings: Vec<anyhow::Result<Ending>>,
) -> (Vec<TopicOutcome>, Option<Ending>, Vec<PathBuf>) {
    let mut outcomes = Vec::new();
    let mut worst: Option<Ending> = Some(Ending::Corpus);
    let mut corpora = Vec::new();
    for ((file, topic, run), ending) in topics.iter().zip(endings) {
        let (name, error) = match &ending {
            Ok(Ending::Corpus | Ending::Stopped) => ("corpus", None),
            Ok(Ending::Empty) => ("empty", None),
            Ok(Ending::Interrupted) => ("interrupted", None),
            Err(e) => ("error", Some(format!("{e:#}"))),
        };
        if let Some(e) = &error {
            eprintln!("glaneur: topic {}: error: {e}", topic.file.name);
        }
        worst = match (&ending, worst) {
            (Err(_), _) | (_, None) => None,
            (Ok(Ending::Interrupted), _) | (_, Some(Ending::Interrupted)) => {
                Some(Ending::Interrupted)
            }
            (Ok(Ending::Empty), _) | (_, Some(Ending::Empty)) => Some(Ending::Empty),
            _ => Some(Ending::Corpus),
        };
        if name == "corpus" {
            corpora.push(run.clone());
        }
        outcomes.push(TopicOutcome {
            topic: topic.file.name.clone(),
            topic_file: file.display().to_string(),
            run: run.display().to_string(),
            ending: name.to_string(),
            error,
        });
    }
    (outcomes, worst, corpora)
}

/// The lines printed at the end of a batch.
pub fn summary(report: &BatchReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("\nbatch:\n");
    for t in &report.topics {
        let _ = writeln!(s, "  {:20} {:12} {}", t.topic, t.ending, t.run);
    }
    let r = &report.requests;
    let _ = writeln!(
        s,
        "  requests: {} asked by the topics, {} answered from another topic's fetch, {} from a \
         copy stored in a topic's folder, {} sent to servers{} ({:.1} s)",
        r.asked,
        r.reused,
        r.stored,
        r.fetched,
        if r.fetched_again > 0 {
            format!(
                " ({} of them again: past the memory bound, --cache-mb)",
                r.fetched_again
            )
        } else {
            String::new()
        },
        report.seconds
    );
    if let Some(why) = &report.compare_skipped {
        let _ = writeln!(s, "  not compared: {why}");
    }
    s
}
