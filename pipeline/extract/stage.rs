//! The extract stage's passes over every stored page, memory bounded by the batches, not by
//! the corpus: (1) every page (listed from the store 10,000 at a time) is read back and cleaned
//! on all cores, counted for host boilerplate, and written with its page facts to
//! `extract.tmp/pages.jsonl`; (2) each page is read back from there, its boilerplate removed,
//! its score and decision computed on all cores, and the pages that may be documents are
//! written to `extract.tmp/candidates.jsonl`, their compact signatures to
//! `extract.tmp/signatures.bin`; (3) after the duplicate decision (on the signatures, read
//! back once per key table; the texts of candidate pairs are read back), the documents are
//! copied to `docs.jsonl` while a second thread records each page's decision in the store.
//! `extract.tmp/` is removed at the end.
//!
//! **In:** the topic, the store, the run folder's WARC file and extract cache. **Out:**
//! `docs.jsonl`, `removed-paragraphs.csv`, every page's decision in the store, the next run's
//! cache, [`ExtractReport`].
//!
//! **Invariants:** pass 1 of a completed extraction is the next one's cache (a page whose
//! stored record has not changed is not read again); a page is decided once, in URL-id order.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::Context;
use stages::corpus::host_boilerplate::{RepeatCounter, RepeatRule, paragraph_keys};
use stages::page::extract::ExtractOptions;

use super::page::{finalize, process};
use super::{
    BATCH_BYTES, Document, DuplicateRef, ExtractReport, Judged, Listed, RemovedOf, RemovedRow,
    Spilled, StoredPages, VISITS_EXTRACTED, cache, decide, repeats, spill,
};
use crate::ground::outcome::Reason;
use crate::store::Store;
use crate::topic::Topic;

/// How the pages are read: what pass 1 and pass 2 share (and the reader that follows the
/// crawl).
pub(super) struct Reading<'a> {
    topic: &'a Topic,
    options: ExtractOptions,
    product_token: String,
    warc_dir: PathBuf,
    rule: RepeatRule,
    /// Host boilerplate is looked for (not when the topic keeps everything).
    boilerplate: bool,
}

/// Runs the extract stage over every stored page; writes `docs.jsonl` in `run_dir`.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExtractReport> {
    let started = Instant::now();
    let (reading, scratch, mut report) = prepare(topic, store, run_dir, bar)?;
    let total = report.pages;
    // Read before any page: a version stored while the stage runs is the next refresh's.
    let visits_seen = store.last_visit()?;
    let (processed_path, counter) =
        read_pages(&reading, store, run_dir, &scratch, &mut report, bar)?;
    let judged = judge_pages(
        &reading,
        store,
        &processed_path,
        &counter,
        &scratch,
        (total, &mut report),
        bar,
    )?;
    drop(counter);
    let (copies, dup_reason) = duplicates(topic, &judged)?;
    write_documents(store, run_dir, &judged, copies, dup_reason, &mut report)?;
    store.commit()?;
    store.set_meta(VISITS_EXTRACTED, &visits_seen.to_string())?;
    store.commit()?;
    // Pass 1 of a completed extraction becomes the next one's cache; without it the next
    // extraction reads every page again, which is no reason to fail this one.
    match keep_cache(&processed_path, run_dir) {
        // What the reader that followed the crawl wrote is in the cache now.
        Ok(()) => remove_followed(run_dir),
        Err(e) => {
            eprintln!("glaneur: warning: {e:#}: the next extraction reads every page again")
        }
    }
    finish(report, started, &scratch, bar)
}

/// Pass 1's file becomes the run folder's extract cache.
fn keep_cache(processed: &Path, run_dir: &Path) -> anyhow::Result<()> {
    let cache_path = cache::path(run_dir);
    std::fs::rename(processed, &cache_path)
        .with_context(|| format!("cannot write {}", cache_path.display()))
}

/// The reader's file removed (a failure only leaves a file the next extraction checks).
fn remove_followed(run_dir: &Path) {
    let path = cache::followed_path(run_dir);
    if let Err(e) = std::fs::remove_file(&path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        eprintln!("glaneur: warning: cannot remove {}: {e}", path.display());
    }
}

/// The scratch folder removed, the report's timing set, the bar cleared.
fn finish(
    mut report: ExtractReport,
    started: Instant,
    scratch: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExtractReport> {
    std::fs::remove_dir_all(scratch)
        .with_context(|| format!("cannot remove {}", scratch.display()))?;
    report.seconds = started.elapsed().as_secs_f64();
    report.pages_per_second = report.pages as f64 / report.seconds.max(1e-6);
    bar.finish_and_clear();
    Ok(report)
}

/// Pass 1 alone, for a worker of a shared crawl: every stored page read and cleaned, written
/// as `extract-cache.jsonl`, which `glaneur collect` borrows (no decision, no `docs.jsonl`:
/// those need every worker's pages). The report counts the pages read.
pub fn read_only(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExtractReport> {
    let started = Instant::now();
    let (reading, scratch, mut report) = prepare(topic, store, run_dir, bar)?;
    let (processed_path, _) = read_pages(&reading, store, run_dir, &scratch, &mut report, bar)?;
    keep_cache(&processed_path, run_dir)?;
    finish(report, started, &scratch, bar)
}

impl<'a> Reading<'a> {
    /// The topic's reading options, for the pages of the run folder `run_dir`.
    pub(super) fn new(topic: &'a Topic, run_dir: &Path) -> Reading<'a> {
        let text = &topic.file.text;
        Reading {
            topic,
            options: ExtractOptions {
                keep_everything: topic.file.output.keep_everything,
                max_links: topic.file.crawl.max_links_per_page,
                max_attributes: topic.file.crawl.max_attributes_per_element,
                javascript_links: topic.file.discovery.javascript,
                ..ExtractOptions::default()
            },
            product_token: stages::web::robots::product_token(&topic.user_agent()),
            warc_dir: run_dir.join("warc"),
            rule: RepeatRule {
                min_pages: text.boilerplate_min_pages,
                min_share: text.boilerplate_min_share,
            },
            boilerplate: !topic.file.output.keep_everything,
        }
    }
}

/// What reading pages needs (the topic's reading options), an empty scratch folder, and the
/// report with the number of pages to read.
fn prepare<'t>(
    topic: &'t Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(Reading<'t>, PathBuf, ExtractReport)> {
    let total = store.count_stored_pages()?;
    bar.set_length(2 * total);
    let reading = Reading::new(topic, run_dir);
    let scratch = run_dir.join("extract.tmp");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)
            .with_context(|| format!("cannot clear {}", scratch.display()))?;
    }
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let report = ExtractReport {
        pages: total,
        ..ExtractReport::default()
    };
    Ok((reading, scratch, report))
}

/// The extract cache's stamp: what the last extraction read from pages whose stored copy has
/// not changed since is read from its cache, not decoded and cleaned again.
pub(super) fn cache_stamp(reading: &Reading<'_>, store: &mut Store) -> anyhow::Result<String> {
    let store_id = match store.meta("store_id")? {
        Some(id) => id,
        None => {
            let id = uuid::Uuid::new_v4().to_string();
            store.set_meta("store_id", &id)?;
            store.commit()?;
            id
        }
    };
    Ok(cache::stamp(
        &store_id,
        &reading.options,
        reading.topic.file.text.paragraph_language,
        &reading.product_token,
    ))
}

/// Pass 1: read back, clean, count host boilerplate (over every readable page of the run,
/// kept or not: a footer is a footer whatever the page's topic), keep on disk. The pages'
/// file, and the counter that knows which paragraphs are host boilerplate.
fn read_pages(
    reading: &Reading<'_>,
    store: &mut Store,
    run_dir: &Path,
    scratch: &Path,
    report: &mut ExtractReport,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(PathBuf, RepeatCounter)> {
    let mut counter = RepeatCounter::default();
    let mut counts = repeats::KeyCounts::new(scratch.to_path_buf(), repeats::BUFFER_ENTRIES);
    let stamp = cache_stamp(reading, store)?;
    let mut previous = cache::Cache::open(&cache::path(run_dir), &stamp);
    previous.follow(&cache::followed_path(run_dir), &stamp);
    if let Some(workers) = store.meta("collected_from")? {
        // A collected run: what each worker read of its pages when its crawl ended.
        let names: Vec<&str> = workers.split(' ').filter(|n| !n.is_empty()).collect();
        previous.borrow_workers(run_dir, &names, &stamp);
    }
    let reused = Reused::default();
    let mut processed_out = spill::Writer::create(scratch.join("pages.jsonl"))?;
    processed_out.line(&stamp)?;
    let listed = StoredPages {
        seeds: store.seed_sources()?,
        store,
        after: i64::MIN,
        slice: Vec::new().into_iter(),
        done: false,
    }
    .map(|listed| {
        listed.map(|(page, size)| match previous.take(&page) {
            Some((line, followed)) => {
                let size = line.len();
                (Listed::Cached(page, line, followed), size)
            }
            None => (Listed::Fresh(page), size),
        })
    });
    crate::ground::parallel::ordered(
        listed,
        BATCH_BYTES,
        |listed: Listed| read_page(reading, listed, &reused),
        |spilled: Spilled| {
            if let Ok(p) = &spilled.outcome {
                report.pages_links_cut += u64::from(p.cut.0 > 0);
                report.pages_attributes_cut += u64::from(p.cut.1 > 0);
                if let Some((host, keys)) = counter.add_page(&p.host, &spilled.keys) {
                    counts.add(host, &keys)?;
                }
            }
            processed_out.line(&serde_json::to_string(&spilled)?)?;
            bar.inc(1);
            Ok(())
        },
    )?;
    let processed_path = processed_out.finish()?;
    report.reused = reused.cache.into_inner();
    report.read_while_crawling = reused.followed.into_inner();
    // Only the keys that are boilerplate stay in memory.
    let mut batch = Vec::new();
    counts.finish(|key, pages| {
        batch.push((key, pages));
        if batch.len() >= 1 << 16 {
            counter.keep_repeated(batch.drain(..), reading.rule);
        }
        Ok(())
    })?;
    counter.keep_repeated(batch, reading.rule);
    Ok((processed_path, counter))
}

/// Pages pass 1 did not read again: from the last extraction's cache, and read while the
/// crawl ran.
#[derive(Default)]
pub(super) struct Reused {
    cache: AtomicU64,
    followed: AtomicU64,
}

/// One page of pass 1: its stored record read back, and cleaned, or taken from the cache.
pub(super) fn read_page(
    reading: &Reading<'_>,
    listed: Listed,
    reused: &Reused,
) -> anyhow::Result<Spilled> {
    let (page, cached, count) = match listed {
        Listed::Fresh(page) => (page, None, &reused.cache),
        Listed::Cached(page, line, false) => (page, Some(line), &reused.cache),
        Listed::Cached(page, line, true) => (page, Some(line), &reused.followed),
    };
    // The record is read back even for a cached page (a cheap gunzip next to parsing and
    // cleaning): one damaged since is named, and its id must be the cached one.
    let record = super::page::stored_record(&reading.warc_dir, &page);
    let record_id = record
        .as_ref()
        .ok()
        .and_then(|r| r.record_id())
        .map(str::to_string);
    if let Some(line) = cached
        && let Ok(cached) = serde_json::from_str::<Spilled>(&line)
        && cached.outcome.is_ok()
        && cached.record.is_some()
        && cached.record == record_id
    {
        count.fetch_add(1, Ordering::Relaxed);
        // The page's current row (depth, fetch time) with what its record gave.
        return Ok(Spilled { page, ..cached });
    }
    let outcome = record.and_then(|record| {
        process(
            &reading.options,
            reading.topic.file.text.paragraph_language,
            &reading.product_token,
            &record,
            &page,
        )
    });
    let keys = match &outcome {
        Ok(p) if reading.boilerplate => {
            let texts: Vec<&str> = p.paragraphs.iter().map(|x| x.text.as_str()).collect();
            paragraph_keys(&texts)
        }
        _ => Vec::new(),
    };
    Ok(Spilled {
        page,
        outcome,
        record: record_id,
        keys,
    })
}

/// What pass 2 leaves for the duplicate decision and pass 3: the candidates' file, each
/// candidate's URL id and line offset, and their signatures (on disk).
struct Candidates {
    path: PathBuf,
    /// Per candidate: its URL id and line offset.
    rows: Vec<(i64, u64)>,
    signatures: spill::SignatureFile,
}

/// Pass 2: remove the marked paragraphs, evaluate, decide (duplicates aside).
fn judge_pages(
    reading: &Reading<'_>,
    store: &mut Store,
    processed_path: &Path,
    counter: &RepeatCounter,
    scratch: &Path,
    (total, report): (u64, &mut ExtractReport),
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<Candidates> {
    let mut candidates_out = spill::Writer::create(scratch.join("candidates.jsonl"))?;
    let mut signatures = spill::SignatureWriter::create(scratch.join("signatures.bin"))?;
    // Sized once (the stored pages bound the candidates): a doubling vector would hold twice
    // a million rows.
    let mut rows: Vec<(i64, u64)> = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    // The stamp line aside.
    let source = spill::Reader::open(processed_path)?.skip(1);
    crate::ground::parallel::ordered(
        source,
        BATCH_BYTES,
        |line: String| judge_page(reading, counter, &line),
        |(id, judged)| {
            match judged {
                Judged::Unreadable(detail) => {
                    store.decision(id, Reason::Unreadable, &detail, None, None, None)?;
                    *report
                        .dropped
                        .entry(Reason::Unreadable.to_string())
                        .or_default() += 1;
                }
                Judged::Dropped {
                    facts,
                    encoding_decision,
                    reason: (reason, detail),
                } => {
                    store.page_facts(id, &facts)?;
                    *report.encodings.entry(encoding_decision).or_default() += 1;
                    *report.dropped.entry(reason.to_string()).or_default() += 1;
                    store.decision(id, reason, &detail, None, None, None)?;
                }
                Judged::Candidate {
                    facts,
                    encoding_decision,
                    signature,
                    doc_line,
                    removed_line,
                } => {
                    store.page_facts(id, &facts)?;
                    *report.encodings.entry(encoding_decision).or_default() += 1;
                    let offset = candidates_out.line(&doc_line)?;
                    candidates_out.line(&removed_line)?;
                    rows.push((id, offset));
                    signatures.push(&signature)?;
                }
            }
            bar.inc(1);
            Ok(())
        },
    )?;
    Ok(Candidates {
        path: candidates_out.finish()?,
        rows,
        signatures: signatures.finish()?,
    })
}

/// One page of pass 2: its boilerplate removed, its score and decision.
fn judge_page(
    reading: &Reading<'_>,
    counter: &RepeatCounter,
    line: &str,
) -> anyhow::Result<(i64, Judged)> {
    let topic = reading.topic;
    let Spilled {
        page,
        outcome,
        keys,
        ..
    } = serde_json::from_str(line).context("extract.tmp/pages.jsonl: damaged line")?;
    let i = page.id;
    let page = &page;
    let p = match outcome {
        Ok(p) => p,
        Err(detail) => return Ok((i, Judged::Unreadable(detail))),
    };
    let marks = counter.marks_of_keys(&p.host, &keys, reading.rule);
    let f = finalize(topic, page, p, &marks);
    let encoding_decision = f.doc.encoding_decision.clone();
    if let Some(reason) = decide(topic, &f) {
        return Ok((
            i,
            Judged::Dropped {
                facts: f.facts,
                encoding_decision,
                reason,
            },
        ));
    }
    let removed: Vec<RemovedRow> = f
        .removed
        .into_iter()
        .map(|r| RemovedRow {
            index: r.index,
            reason: r.reason.name().to_string(),
            detail: r.detail,
            kind: r.kind.to_string(),
            text: r.text,
        })
        .collect();
    Ok((
        i,
        Judged::Candidate {
            facts: f.facts,
            encoding_decision,
            signature: f.fingerprint.signature(),
            doc_line: serde_json::to_string(&f.doc)?,
            // Most documents lose no paragraph: an empty line, which pass 3 does not parse.
            removed_line: if removed.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&RemovedOf {
                    url: page.url.clone(),
                    rows: removed,
                })?
            },
        },
    ))
}

/// A candidate's copies, by its number.
type Copies = BTreeMap<usize, Vec<DuplicateRef>>;

/// Why a candidate is not kept (duplicate or near-duplicate), with the original, by number.
type DupReasons = HashMap<usize, (Reason, String, String)>;

/// Duplicates among the documents that pass every other test, in URL-id order: each kept
/// document's copies, and each copy's reason.
fn duplicates(topic: &Topic, candidates: &Candidates) -> anyhow::Result<(Copies, DupReasons)> {
    let text = &topic.file.text;
    let mut lookup = spill::Lookup::open(&candidates.path)?;
    let mut failed: Option<anyhow::Error> = None;
    let copies = stages::corpus::dedup::copies(
        &candidates.signatures,
        text.near_duplicates
            .then_some(text.near_duplicate_threshold),
        |k| match candidates.rows.get(k).map(|c| lookup.document_text(c.1)) {
            Some(Ok(text)) => stages::corpus::dedup::shingle_set(&text),
            Some(Err(e)) => {
                failed.get_or_insert(e);
                Vec::new()
            }
            None => Vec::new(),
        },
    );
    if let Some(e) = failed.or_else(|| candidates.signatures.take_error()) {
        return Err(e);
    }
    // Only copies and their originals are looked up (their URLs read back from the file).
    let document_of = |k: usize| -> anyhow::Result<(String, i64, String)> {
        let &(id, offset) = candidates
            .rows
            .get(k)
            .context("a duplicate verdict names no candidate")?;
        Ok((format!("d{id:06}"), id, lookup.document_url(offset)?))
    };
    decide::duplicates(text, &copies, document_of)
}

/// Pass 3: the documents, in URL-id order, with their copies; the paragraphs removed from
/// them in `removed-paragraphs.csv`. The store records each page's decision on a thread of its
/// own while this one copies the lines (a million updates and 3 GB copied at a million pages,
/// both on one core otherwise).
fn write_documents(
    store: &mut Store,
    run_dir: &Path,
    candidates: &Candidates,
    copies: Copies,
    dup_reason: DupReasons,
    report: &mut ExtractReport,
) -> anyhow::Result<()> {
    let tmp = run_dir.join("docs.jsonl.tmp");
    let audit_tmp = run_dir.join("removed-paragraphs.csv.tmp");
    std::thread::scope(|scope| {
        let (decisions, received) = std::sync::mpsc::sync_channel::<Decided>(4096);
        let recorder = scope.spawn(move || -> anyhow::Result<()> {
            for d in received {
                store.decision(
                    d.id,
                    d.reason,
                    &d.detail,
                    d.doc_id.as_deref(),
                    None,
                    d.original.as_deref(),
                )?;
            }
            Ok(())
        });
        let copied = copy_documents(
            candidates,
            (copies, dup_reason),
            (&tmp, &audit_tmp),
            &decisions,
            report,
        );
        drop(decisions);
        let recorded = match recorder.join() {
            Ok(recorded) => recorded,
            Err(_) => Err(anyhow::anyhow!(
                "recording the documents' decisions stopped on an internal error"
            )),
        };
        // The store's error first: the copy stops with "closed" when the recorder has failed.
        recorded.and(copied)
    })?;
    let final_path = run_dir.join("docs.jsonl");
    std::fs::rename(&tmp, &final_path)
        .with_context(|| format!("cannot write {}", final_path.display()))?;
    let audit_path = run_dir.join("removed-paragraphs.csv");
    std::fs::rename(&audit_tmp, &audit_path)
        .with_context(|| format!("cannot write {}", audit_path.display()))?;
    Ok(())
}

/// A page's decision in pass 3, for the store.
struct Decided {
    id: i64,
    reason: Reason,
    detail: String,
    doc_id: Option<String>,
    original: Option<String>,
}

/// Pass 3's copy: each candidate's document line to `docs` (with its copies when it has
/// some) and its removed paragraphs to `audit`, its decision sent to the store's thread.
fn copy_documents(
    candidates: &Candidates,
    (mut copies, mut dup_reason): (Copies, DupReasons),
    (docs, audit_path): (&Path, &Path),
    decisions: &std::sync::mpsc::SyncSender<Decided>,
    report: &mut ExtractReport,
) -> anyhow::Result<()> {
    let closed = || anyhow::anyhow!("the store stopped recording decisions");
    let mut out = spill::Writer::create(docs.to_path_buf())?;
    let mut audit = csv::Writer::from_path(audit_path)
        .with_context(|| format!("cannot write {}", audit_path.display()))?;
    audit.write_record([
        "doc",
        "url",
        "paragraph",
        "reason",
        "detail",
        "kind",
        "text",
    ])?;
    let mut paragraphs_removed: BTreeMap<String, u64> = BTreeMap::new();
    let path = &candidates.path;
    let mut lines = spill::Reader::open(path)?.bytes();
    for (k, &(id, _)) in candidates.rows.iter().enumerate() {
        let (doc_line, removed_line) = match (lines.next(), lines.next()) {
            (Some(d), Some(r)) => (d?, r?),
            _ => anyhow::bail!("{} ends early", path.display()),
        };
        if let Some((reason, detail, original)) = dup_reason.remove(&k) {
            *report.dropped.entry(reason.to_string()).or_default() += 1;
            let decided = Decided {
                id,
                reason,
                detail,
                doc_id: None,
                original: Some(original),
            };
            decisions.send(decided).map_err(|_| closed())?;
            continue;
        }
        let doc_id = format!("d{id:06}");
        if !removed_line.is_empty() {
            let removed: RemovedOf = serde_json::from_slice(&removed_line)
                .with_context(|| format!("{}: damaged line", path.display()))?;
            for r in &removed.rows {
                *paragraphs_removed.entry(r.reason.clone()).or_default() += 1;
                audit.write_record([
                    doc_id.as_str(),
                    removed.url.as_str(),
                    &r.index.to_string(),
                    &r.reason,
                    &r.detail,
                    &r.kind,
                    &r.text,
                ])?;
            }
        }
        match copies.remove(&k) {
            // Copied as it was written in pass 2, unless the document has copies to list.
            None => out.line_bytes(doc_line.trim_ascii_end())?,
            Some(duplicates) => {
                let mut doc: Document = serde_json::from_slice(&doc_line)
                    .with_context(|| format!("{}: damaged line", path.display()))?;
                doc.duplicates = duplicates;
                out.line(&serde_json::to_string(&doc)?)?;
            }
        };
        report.kept += 1;
        let decided = Decided {
            id,
            reason: Reason::Kept,
            detail: String::new(),
            doc_id: Some(doc_id),
            original: None,
        };
        decisions.send(decided).map_err(|_| closed())?;
    }
    out.finish()?;
    audit.flush()?;
    report.paragraphs_removed = paragraphs_removed;
    Ok(())
}
