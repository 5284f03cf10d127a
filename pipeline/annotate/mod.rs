//! The annotate stage: the corpus's documents tagged (part of speech, lemma) between extract
//! and export, by spaCy, TreeTagger or any command that reads tokens and writes
//! `word<TAB>pos<TAB>lemma` lines (`[annotate]` of the topic).
//!
//! **In:** `docs.jsonl`; the `tags` rows and `annotate/` files of earlier runs. **Out:** each
//! document's tags in a file of `annotate/` (TreeTagger's output shape, a batch per file) and
//! its row in `crawl.sqlite` (`tags`: tagged, or untagged with a reason); an [`AnnotateReport`].
//!
//! **Invariants:**
//! - the tokens are the export's (`input.rs`), so the tags line up with every token format;
//! - a document keeps its tags while its tokens and the tagger's settings are the same: a
//!   stopped run tags only what is left, a re-export never re-tags, a changed setting re-tags
//!   everything and says so;
//! - every document ends tagged or untagged with a reason (`no-model`, `tagger-unavailable`,
//!   `tagger-failed`, `malformed-output`): a batch the tagger fails on is split in halves until
//!   the document at fault is found, the others are tagged;
//! - a row is written only after its file is in place (written beside, renamed in), so a
//!   `kill -9` loses at most the batches in flight, which the next run tags again;
//! - memory is the batches in flight (`[annotate] batch_tokens` × two per process), not the
//!   corpus; the tagger processes run beside, one per core unless the topic says otherwise.

mod answer;
mod check;
mod input;
pub mod read;
mod tagger;
mod venv;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::ground::progress::Progress;
use crate::store::{Store, TagRow};
use crate::topic::{AnnotateSection, TaggerName, Topic};
pub use check::describe;
use input::Item;
use tagger::{Plan, RunError, Setup, Tagger};

/// The stage's folder in the run folder.
pub const DIR: &str = "annotate";

/// The meta key holding the settings the tags were made with.
const SETTINGS: &str = "annotate_settings";

/// What the annotate stage did.
#[derive(Debug, Default, serde::Serialize)]
pub struct AnnotateReport {
    /// `spacy`, `treetagger` or `command`.
    pub tagger: String,
    /// Per language of the corpus: the model, or why its documents are not tagged.
    pub languages: BTreeMap<String, String>,
    /// Documents of the corpus.
    pub documents: u64,
    /// Documents tagged in this run.
    pub tagged: u64,
    /// Documents whose tags of an earlier run were kept (same tokens, same settings).
    pub kept: u64,
    /// Documents without tags, by reason (all of the corpus's, as this run left them).
    pub untagged: BTreeMap<String, u64>,
    /// Tokens tagged in this run.
    pub tokens: u64,
    /// Tokens tagged per second in this run (tagging time only).
    pub tokens_per_second: f64,
    /// Tagger processes at once.
    pub processes: u64,
    /// The tagger's settings changed since the tags were made: everything was tagged again.
    pub settings_changed: bool,
    /// Stopped (Ctrl-C, a stop request) before every document was done.
    pub interrupted: bool,
    /// Seconds.
    pub seconds: f64,
}

/// What the stage needs besides the topic and the store.
pub struct Inputs<'a> {
    /// The run folder.
    pub run_dir: &'a Path,
    /// The terminal's progress.
    pub progress: &'a Progress,
    /// Turns true on a graceful stop (Ctrl-C, SIGTERM).
    pub shutdown: &'a tokio::sync::watch::Receiver<bool>,
}

/// A batch of documents of one language for a tagger.
struct Batch {
    seq: u64,
    lang: String,
    items: Vec<Item>,
}

/// What a worker sends back: the batch's rows, tokens tagged, its tagging time.
struct Done {
    rows: Vec<TagRow>,
    tokens: u64,
    busy: Duration,
}

/// Tags the corpus of `run_dir` as `[annotate]` says (None: the topic has no such table).
pub fn run(
    topic: &Topic,
    store: &mut Store,
    cx: &Inputs<'_>,
) -> anyhow::Result<Option<AnnotateReport>> {
    let Some(annotate) = &topic.file.annotate else {
        return Ok(None);
    };
    let started = Instant::now();
    let dir = cx.run_dir.join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut report = AnnotateReport {
        tagger: annotate.tagger.name().to_string(),
        ..AnnotateReport::default()
    };
    report.settings_changed = check_settings(annotate, store, cx.progress)?;
    let default_language = topic.file.languages.first().map_or("fr", String::as_str);
    let (documents, languages) = survey(&cx.run_dir.join("docs.jsonl"), default_language)?;
    report.documents = documents;
    let setup = Arc::new(setup(topic, annotate, &dir, &languages, cx.progress)?);
    for (lang, plan) in setup.plans() {
        let said = match plan {
            Plan::Tag(model) if model.is_empty() => "tagged".to_string(),
            Plan::Tag(model) => model.clone(),
            Plan::Untagged(reason, why) => format!("{reason}: {why}"),
        };
        report.languages.insert(lang.clone(), said);
    }
    let processes = annotate
        .processes
        .map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            |n| n as usize,
        )
        .max(1);
    report.processes = processes as u64;
    let mut walk = Walk::new(store, cx, &setup, documents, annotate.batch_tokens);
    walk.run(processes, default_language, &mut report)?;
    report.tokens_per_second = walk.rate();
    report.tokens = walk.tokens;
    let seen = std::mem::take(&mut walk.seen_ids);
    drop(walk);
    // A stopped walk did not meet every document: its rows stay for the next run.
    if !report.interrupted {
        forget_stale(store, &seen)?;
    }
    collect_garbage(store, &dir)?;
    let (_, untagged) = store.tag_counts()?;
    report.untagged = untagged.into_iter().collect();
    store.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(Some(report))
}

/// Whether the tagger's settings changed since the stored tags were made (they are then
/// forgotten, with a message); records the settings of this run.
fn check_settings(
    annotate: &AnnotateSection,
    store: &mut Store,
    progress: &Progress,
) -> anyhow::Result<bool> {
    // What changes the tags: the tagger and its models or command (not the Python, the
    // processes or the batches).
    let settings = serde_json::json!({
        "tagger": annotate.tagger.name(),
        "models": annotate.models,
        "command": annotate.command,
        "treetagger": annotate.treetagger,
    })
    .to_string();
    let before = store.meta(SETTINGS)?;
    let changed = before.as_ref().is_some_and(|b| *b != settings);
    if changed {
        progress.note(&format!(
            "the tagger's settings changed ([annotate]: was {}, now {settings}): every \
             document is tagged again",
            before.unwrap_or_default()
        ));
        store.forget_all_tag_rows()?;
    }
    store.set_meta(SETTINGS, &settings)?;
    store.commit()?;
    Ok(changed)
}

/// The number of documents and their languages (the topic's first for a document whose
/// language was not detected).
fn survey(docs: &Path, default_language: &str) -> anyhow::Result<(u64, BTreeSet<String>)> {
    let mut documents = 0;
    let mut languages = BTreeSet::new();
    for doc in crate::extract::documents(docs)? {
        let (doc, _) = doc?;
        documents += 1;
        let lang = doc.language_or(default_language);
        if !languages.contains(lang) {
            languages.insert(lang.to_string());
        }
    }
    Ok((documents, languages))
}

/// The taggers for the corpus's languages (spaCy: its Python, made when needed).
fn setup(
    topic: &Topic,
    annotate: &AnnotateSection,
    dir: &Path,
    languages: &BTreeSet<String>,
    progress: &Progress,
) -> anyhow::Result<Setup> {
    let resolve = |p: &Path| topic.resolve(p);
    let languages: Vec<String> = languages.iter().cloned().collect();
    let python = match annotate.tagger {
        TaggerName::Spacy => {
            let models: Vec<String> = languages
                .iter()
                .filter_map(|lang| annotate.model_for(lang))
                .collect();
            venv::spacy_python(annotate, &resolve, &models, &|m| progress.note(m))
        }
        TaggerName::Treetagger | TaggerName::Command => Err(String::new()),
    };
    Setup::new(annotate, python, dir, &resolve, &languages)
}

/// The documents walked: the stored rows beside them, the batches sent to the workers, the
/// rows that come back.
struct Walk<'a> {
    store: &'a mut Store,
    cx: &'a Inputs<'a>,
    setup: &'a Arc<Setup>,
    batch_tokens: u64,
    /// Stored rows not yet compared with a document, in `url_id` order.
    stored: std::collections::VecDeque<TagRow>,
    stored_after: i64,
    stored_done: bool,
    /// Documents of the corpus met so far.
    seen_ids: Vec<i64>,
    /// Batches being filled, by language.
    filling: BTreeMap<String, (Vec<Item>, u64)>,
    seq: u64,
    /// Documents done (kept, tagged, untagged), tagged, and tokens tagged, in this run.
    done: u64,
    tagged: u64,
    tokens: u64,
    /// Tagging time of the batches (all workers together).
    busy: Duration,
    processes: usize,
    bar: indicatif::ProgressBar,
    last_said: Instant,
    started: Instant,
    documents: u64,
    stopped: bool,
}

impl<'a> Walk<'a> {
    fn new(
        store: &'a mut Store,
        cx: &'a Inputs<'a>,
        setup: &'a Arc<Setup>,
        documents: u64,
        batch_tokens: u64,
    ) -> Walk<'a> {
        Walk {
            store,
            cx,
            setup,
            batch_tokens,
            stored: std::collections::VecDeque::new(),
            stored_after: i64::MIN,
            stored_done: false,
            seen_ids: Vec::new(),
            filling: BTreeMap::new(),
            seq: 0,
            done: 0,
            tagged: 0,
            tokens: 0,
            busy: Duration::ZERO,
            processes: 1,
            bar: cx.progress.stage("annotate", documents),
            last_said: Instant::now(),
            started: Instant::now(),
            documents,
            stopped: false,
        }
    }

    /// Tokens tagged per second of wall time, the processes working side by side.
    fn rate(&self) -> f64 {
        let wall = self.started.elapsed().as_secs_f64();
        if wall > 0.0 {
            self.tokens as f64 / wall
        } else {
            0.0
        }
    }

    /// Walks the corpus with `processes` workers.
    fn run(
        &mut self,
        processes: usize,
        default_language: &str,
        report: &mut AnnotateReport,
    ) -> anyhow::Result<()> {
        self.processes = processes;
        let (jobs, job_rx) = channel::bounded(processes * 2);
        let discard = job_rx.clone();
        let (done_tx, done_rx) = mpsc::channel::<anyhow::Result<Done>>();
        let dir = self.cx.run_dir.join(DIR);
        let nonce = format!("{:x}", (crate::ground::clock::now_epoch() * 1000.0) as u64);
        let workers: Vec<_> = (0..processes)
            .map(|n| {
                let (jobs, done) = (job_rx.clone(), done_tx.clone());
                let (setup, dir, nonce) = (self.setup.clone(), dir.clone(), nonce.clone());
                std::thread::Builder::new()
                    .name(format!("glaneur-tagger-{n}"))
                    .spawn(move || work(Tagger::new(setup, n), &jobs, &done, &dir, &nonce))
            })
            .collect::<Result<_, _>>()
            .context("cannot start the tagging threads")?;
        drop((job_rx, done_tx));
        let walked = self.send_batches(&jobs, &done_rx, default_language, report);
        drop(jobs);
        if self.stopped {
            // A graceful stop waits for the batches being tagged, not for those queued.
            while discard.try_recv().is_some() {}
        }
        drop(discard);
        // Whatever happened, the batches in flight are recorded.
        for result in &done_rx {
            self.record(result?)?;
        }
        for worker in workers {
            let _ = worker.join();
        }
        walked?;
        report.interrupted = self.stopped;
        report.tagged = self.tagged;
        self.bar.finish_and_clear();
        self.publish(true);
        Ok(())
    }

    /// Reads the documents, keeps what is done, sends the rest in batches.
    fn send_batches(
        &mut self,
        jobs: &Jobs,
        done: &mpsc::Receiver<anyhow::Result<Done>>,
        default_language: &str,
        report: &mut AnnotateReport,
    ) -> anyhow::Result<()> {
        for doc in crate::extract::documents(&self.cx.run_dir.join("docs.jsonl"))? {
            let (doc, _) = doc?;
            self.seen_ids.push(doc.url_id);
            let item = Item::of(&doc, default_language);
            let stored = self.stored_row(doc.url_id)?;
            match self.setup.plan(&item.lang) {
                _ if stored
                    .as_ref()
                    .is_some_and(|r| r.tokens == item.digest && r.untagged.is_none()) =>
                {
                    report.kept += 1;
                    self.done += 1;
                }
                _ if item.tokens.is_empty() => {
                    self.store.set_tag_row(&row_tagged(&item, None, true))?;
                    self.done += 1;
                }
                Plan::Untagged(reason, why) => {
                    self.store.set_tag_row(&row_untagged(&item, reason, &why))?;
                    self.done += 1;
                }
                Plan::Tag(_) => {
                    let full = self.fill(item);
                    if let Some(batch) = full {
                        self.send(jobs, done, batch)?;
                    }
                }
            }
            if self.stopped {
                return Ok(());
            }
            self.drain(done)?;
        }
        let left: Vec<String> = self.filling.keys().cloned().collect();
        for lang in left {
            if let Some((items, _)) = self.filling.remove(&lang) {
                let batch = self.batch(lang, items);
                self.send(jobs, done, batch)?;
            }
            if self.stopped {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The stored row of `url_id`, if any (rows of documents no longer there are passed).
    fn stored_row(&mut self, url_id: i64) -> anyhow::Result<Option<TagRow>> {
        loop {
            if self.stored.is_empty() && !self.stored_done {
                let page = self.store.tag_rows_after(self.stored_after, 4096)?;
                self.stored_done = page.len() < 4096;
                if let Some(last) = page.last() {
                    self.stored_after = last.url_id;
                }
                self.stored.extend(page);
            }
            match self.stored.front() {
                Some(row) if row.url_id < url_id => {
                    self.stored.pop_front();
                }
                Some(row) if row.url_id == url_id => return Ok(self.stored.pop_front()),
                _ => return Ok(None),
            }
        }
    }

    /// Adds a document to its language's batch; the batch when it is full.
    fn fill(&mut self, item: Item) -> Option<Batch> {
        let lang = item.lang.clone();
        let entry = self.filling.entry(lang.clone()).or_default();
        entry.1 += item.tokens.len() as u64;
        entry.0.push(item);
        if entry.1 < self.batch_tokens {
            return None;
        }
        let (items, _) = self.filling.remove(&lang)?;
        Some(self.batch(lang, items))
    }

    fn batch(&mut self, lang: String, items: Vec<Item>) -> Batch {
        self.seq += 1;
        Batch {
            seq: self.seq,
            lang,
            items,
        }
    }

    /// Sends a batch to the workers (waiting while they are all busy), unless a stop came.
    fn send(
        &mut self,
        jobs: &Jobs,
        done: &mpsc::Receiver<anyhow::Result<Done>>,
        batch: Batch,
    ) -> anyhow::Result<()> {
        let mut batch = Some(batch);
        while let Some(b) = batch.take() {
            if self.stop_asked() {
                self.stopped = true;
                return Ok(());
            }
            match jobs.send_timeout(b, Duration::from_millis(200)) {
                Ok(()) => {}
                Err(back) => batch = Some(back),
            }
            self.drain(done)?;
        }
        Ok(())
    }

    /// Records what the workers finished.
    fn drain(&mut self, done: &mpsc::Receiver<anyhow::Result<Done>>) -> anyhow::Result<()> {
        while let Ok(result) = done.try_recv() {
            self.record(result?)?;
        }
        self.publish(false);
        Ok(())
    }

    fn record(&mut self, done: Done) -> anyhow::Result<()> {
        for row in &done.rows {
            self.store.set_tag_row(row)?;
            self.tagged += u64::from(row.untagged.is_none());
        }
        self.store.commit()?;
        self.done += done.rows.len() as u64;
        self.tokens += done.tokens;
        self.busy += done.busy;
        Ok(())
    }

    /// A graceful stop: Ctrl-C, SIGTERM, or the web interface's stop button.
    fn stop_asked(&self) -> bool {
        *self.cx.shutdown.borrow() || crate::ground::live::take_stop_request(self.cx.run_dir)
    }

    /// The bar, `live.json` and (without a bar) a line now and then.
    fn publish(&mut self, last: bool) {
        self.bar.set_position(self.done);
        let rate = self.rate();
        self.bar.set_message(format!(
            "{} tokens/s",
            crate::ground::progress::per_second(rate)
        ));
        if !last && self.last_said.elapsed() < Duration::from_secs(1) {
            return;
        }
        let left = self.documents.saturating_sub(self.done);
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = (self.done > 0 && self.tokens > 0 && left > 0)
            .then(|| elapsed / self.done as f64 * left as f64);
        let mut live = crate::ground::live::read(self.cx.run_dir).unwrap_or_default();
        live.pid = std::process::id();
        live.at = crate::ground::clock::now_epoch();
        live.stage = "annotate".into();
        live.annotate = Some(crate::ground::live::AnnotateLive {
            documents: self.documents,
            done: self.done,
            tokens: self.tokens,
            tokens_per_second: rate,
            eta_seconds: eta,
        });
        let _ = crate::ground::live::write(self.cx.run_dir, &live);
        let every = Duration::from_secs(10);
        if self.cx.progress.says_lines() && (last || self.last_said.elapsed() >= every) {
            eprintln!(
                "glaneur: annotate: {}/{} documents, {} tokens tagged ({} tokens/s){}",
                self.done,
                self.documents,
                self.tokens,
                crate::ground::progress::per_second(rate),
                eta.map(|s| format!(", about {} s left", s.round()))
                    .unwrap_or_default()
            );
        }
        self.last_said = Instant::now();
    }
}

/// The jobs' channel: bounded (the batches in flight are the stage's memory).
type Jobs = channel::SyncSender<Batch>;

/// A bounded channel with a receiver several workers share (std's `Receiver` behind a lock).
mod channel {
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    pub(super) struct SyncSender<T>(mpsc::SyncSender<T>);

    impl<T> SyncSender<T> {
        /// Sends, or gives the value back after `wait` if every slot stays taken.
        pub(super) fn send_timeout(&self, value: T, wait: Duration) -> Result<(), T> {
            let deadline = std::time::Instant::now() + wait;
            let mut value = value;
            loop {
                match self.0.try_send(value) {
                    Ok(()) => return Ok(()),
                    Err(mpsc::TrySendError::Disconnected(v)) => return Err(v),
                    Err(mpsc::TrySendError::Full(v)) => value = v,
                }
                if std::time::Instant::now() >= deadline {
                    return Err(value);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    pub(super) struct SharedReceiver<T>(Arc<Mutex<mpsc::Receiver<T>>>);

    impl<T> Clone for SharedReceiver<T> {
        fn clone(&self) -> Self {
            SharedReceiver(self.0.clone())
        }
    }

    impl<T> SharedReceiver<T> {
        /// The next value; None once every sender is gone.
        pub(super) fn recv(&self) -> Option<T> {
            let receiver = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            receiver.recv().ok()
        }

        /// A value waiting, if any (without waiting for one).
        pub(super) fn try_recv(&self) -> Option<T> {
            let receiver = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            receiver.try_recv().ok()
        }
    }

    pub(super) fn bounded<T>(n: usize) -> (SyncSender<T>, SharedReceiver<T>) {
        let (tx, rx) = mpsc::sync_channel(n);
        (SyncSender(tx), SharedReceiver(Arc::new(Mutex::new(rx))))
    }
}

/// A worker: tags batch after batch, writes each batch's tags into a file of `dir`, sends the
/// rows back.
fn work(
    mut tagger: Tagger,
    jobs: &channel::SharedReceiver<Batch>,
    done: &mpsc::Sender<anyhow::Result<Done>>,
    dir: &Path,
    nonce: &str,
) {
    while let Some(batch) = jobs.recv() {
        let started = Instant::now();
        let items: Vec<&Item> = batch.items.iter().collect();
        let outcomes = tag_items(&mut tagger, &batch.lang, &items);
        let file = format!("{nonce}-{:06}.tagged", batch.seq);
        let result = write_batch(dir, &file, &items, outcomes).map(|(rows, tokens)| Done {
            rows,
            tokens,
            busy: started.elapsed(),
        });
        if done.send(result).is_err() {
            return;
        }
    }
}

/// The tags of `items`, or why each has none: a failed batch is split in halves until the
/// document at fault is alone.
fn tag_items(
    tagger: &mut Tagger,
    lang: &str,
    items: &[&Item],
) -> Vec<Result<answer::Tagged, (&'static str, String)>> {
    let input: String = items.iter().map(|i| i.block.as_str()).collect();
    let tokens = items.iter().map(|i| i.tokens.len()).sum();
    let failure = match tagger.run(lang, &input, tokens) {
        Ok(answer) => match answer::split(&answer, items) {
            Ok(tagged) => return tagged.into_iter().map(Ok).collect(),
            Err(why) => ("malformed-output", why),
        },
        Err(RunError::Unavailable(why)) => {
            return items
                .iter()
                .map(|_| Err(("tagger-unavailable", why.clone())))
                .collect();
        }
        Err(RunError::Failed(why)) => ("tagger-failed", why),
    };
    if items.len() == 1 {
        return vec![Err(failure)];
    }
    let (a, b) = items.split_at(items.len() / 2);
    let mut outcomes = tag_items(tagger, lang, a);
    outcomes.extend(tag_items(tagger, lang, b));
    outcomes
}

/// Writes the tagged blocks into `dir/file` (beside, then renamed in); the rows of `items`
/// and the tokens tagged.
fn write_batch(
    dir: &Path,
    file: &str,
    items: &[&Item],
    outcomes: Vec<Result<answer::Tagged, (&'static str, String)>>,
) -> anyhow::Result<(Vec<TagRow>, u64)> {
    let mut text = String::new();
    let mut rows = Vec::with_capacity(items.len());
    let mut tokens = 0u64;
    for (item, outcome) in items.iter().zip(outcomes) {
        match outcome {
            Ok(tagged) => {
                let at = (
                    file.to_string(),
                    text.len() as u64,
                    tagged.block.len() as u64,
                );
                text.push_str(&tagged.block);
                tokens += item.tokens.len() as u64;
                rows.push(row_tagged(item, Some(at), tagged.ud));
            }
            Err((reason, why)) => rows.push(row_untagged(item, reason, &why)),
        }
    }
    if !text.is_empty() {
        let path = dir.join(file);
        let part: PathBuf = dir.join(format!("{file}.partial"));
        std::fs::write(&part, &text)
            .and_then(|()| std::fs::rename(&part, &path))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok((rows, tokens))
}

fn row_tagged(item: &Item, at: Option<(String, u64, u64)>, ud: bool) -> TagRow {
    TagRow {
        url_id: item.url_id,
        tokens: item.digest.clone(),
        untagged: None,
        at,
        ud,
    }
}

fn row_untagged(item: &Item, reason: &str, why: &str) -> TagRow {
    TagRow {
        url_id: item.url_id,
        tokens: item.digest.clone(),
        untagged: Some((reason.to_string(), why.to_string())),
        at: None,
        ud: false,
    }
}

/// Forgets the rows of documents no longer in the corpus.
fn forget_stale(store: &mut Store, seen: &[i64]) -> anyhow::Result<()> {
    let mut stale = Vec::new();
    let mut after = i64::MIN;
    let mut next = seen.iter().peekable();
    loop {
        let page = store.tag_rows_after(after, 4096)?;
        let Some(last) = page.last() else { break };
        after = last.url_id;
        for row in &page {
            while next.peek().is_some_and(|id| **id < row.url_id) {
                next.next();
            }
            if next.peek() != Some(&&row.url_id) {
                stale.push(row.url_id);
            }
        }
    }
    store.forget_tag_rows(&stale)?;
    store.commit()
}

/// Removes the files of `annotate/` no row points to (batches of forgotten documents, a
/// batch cut by a `kill -9`, inputs of the per-batch taggers).
fn collect_garbage(store: &Store, dir: &Path) -> anyhow::Result<()> {
    let kept: BTreeSet<String> = store.tag_files()?.into_iter().collect();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let batch_file = name.ends_with(".tagged") || name.ends_with(".partial");
        let input = name.starts_with("batch-") && name.ends_with(".tt");
        if (batch_file && !kept.contains(&name)) || input {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}
