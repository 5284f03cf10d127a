//! The extract stage: stored responses → clean documents → `docs.jsonl`.
//!
//! **In:** every fetched page with status 200 and an HTML or text body, read back from the
//! run's WARC file by the (offset, length) that `crawl.sqlite` keeps.
//! **Out:** `docs.jsonl` (one JSON object per kept document), `removed-paragraphs.csv` (every
//! paragraph taken out of a kept document after per-page cleaning, with why) and, in
//! `crawl.sqlite`, the final reason of every such page (`kept`, `noindex`, `empty`,
//! `language`, `off-topic`, `duplicate`, `near-duplicate`, `unreadable`), with the id of the
//! original in `duplicate_of` for copies; `extract-cache.jsonl` (pass 1's lines, see
//! [`cache`]), so that the next extraction reads again only the pages stored anew since.
//!
//! **Steps:** (1) on all cores, each page is decoded, cleaned ([`stages::page::extract`]) and each
//! paragraph given a language ([`stages::corpus::paralang`]); (2) paragraphs a host repeats on many of
//! its pages are marked ([`stages::corpus::host_boilerplate`], `[text] boilerplate_*`); (3) on all
//! cores, marked paragraphs (and, with `[text] paragraph_language`, paragraphs in other
//! languages) are removed, and the formula, score and fingerprints are computed on what is
//! left; (4) the corpus decision, with exact and near duplicates ([`stages::corpus::dedup`]) among the
//! documents that pass every other test. Steps 1–2, 3 and 4 are the three passes of [`run`],
//! each over batches of pages, with what the next pass reads kept in `extract.tmp/`.
//!
//! **Invariants:** never fetches; the same WARC and topic always give the same `docs.jsonl`,
//! with or without the cache
//! (pages are processed in URL-id order; which copy of a duplicate is kept is decided by
//! [`stages::corpus::dedup`]'s fixed rule, not by thread scheduling); `docs.jsonl` is written to a
//! temporary file and renamed, so a crash leaves either the old file or the new one; one
//! damaged record is a recorded reason, not an error; memory is the batches, a fixed buffer
//! for the host-boilerplate counts (which spill to `extract.tmp/` in sorted runs, so only the
//! boilerplate paragraphs' keys stay), one compact duplicate signature per candidate document
//! (about 120 bytes) and the digests and band keys that two candidates share — not the pages'
//! text, nor one entry per distinct paragraph.

mod cache;
mod decide;
mod harvest;
mod page;
mod repeats;
mod spill;

pub use cache::FILE as CACHE_FILE;
pub use harvest::harvest;

/// The meta key holding the last visit an extraction saw (`visits.id`).
pub const VISITS_EXTRACTED: &str = "visits_extracted";

/// The meta key holding the last visit seen by an extraction whose exports were then written:
/// a monitor refreshes the corpus when a later visit found a new version.
pub const VISITS_EXPORTED: &str = "visits_exported";

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use stages::corpus::dedup::{Fingerprint, Signature, Verdict};
use stages::corpus::host_boilerplate::{RepeatCounter, RepeatRule, Repeated, paragraph_keys};
use stages::corpus::paralang::ParagraphText;
use stages::focus::formula::PreparedText;
use stages::focus::score::{self, PageEvidence};
use stages::page::extract::{BlockKind, ExtractOptions, PageDates};
use stages::page::lang::LangGuess;

use crate::ground::outcome::{Reason, Removal};
use crate::store::{PageFacts, Store, StoredPage};
use crate::topic::Topic;
use crate::warc;
use decide::decide;
pub use harvest::{CURVE_MAX_POINTS, CurvePoint, ExtractReport, Harvest, HostYield, harvest_curve};
use page::{Final, Processed, finalize, process};

/// One line of `docs.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    /// Stable document id (`d` + the URL id), used by every export.
    pub id: String,
    /// `urls.id` in `crawl.sqlite`.
    pub url_id: i64,
    /// Canonical URL.
    pub url: String,
    /// Host name.
    pub host: String,
    /// Title.
    pub title: String,
    /// Detected language (ISO 639-1 when it has one).
    pub language: String,
    /// Language detector confidence.
    pub language_confidence: f64,
    /// The page's declared language (`<html lang>`, else the first `lang` attribute, else
    /// `<meta http-equiv=content-language>`), as written.
    #[serde(default)]
    pub lang_attr: Option<String>,
    /// `<link rel=canonical>`, absolute.
    #[serde(default)]
    pub canonical: Option<String>,
    /// Topic score `S(p)`.
    pub score: f64,
    /// Formula clauses found in the text.
    pub matched: Vec<String>,
    /// Link depth from the nearest seed.
    pub depth: u32,
    /// The page was a seed.
    pub seed: bool,
    /// Fetch time (seconds since 1970).
    pub fetched_at: f64,
    /// `Last-Modified` header, as sent.
    pub last_modified: Option<String>,
    /// Publication date the page declares (meta tags, microdata, `<time>`), as written.
    #[serde(default)]
    pub published: Option<String>,
    /// Modification date the page declares, as written.
    #[serde(default)]
    pub modified: Option<String>,
    /// The document's date as `YYYY-MM-DD`: `published`, else `modified`, else
    /// `Last-Modified`, the first that reads as a date.
    #[serde(default)]
    pub date: Option<String>,
    /// Encoding used to decode the page.
    pub encoding: String,
    /// Why that encoding (`bom`, `http-header`, `meta-prescan`, `detected`, ...).
    pub encoding_decision: String,
    /// MD5 of the clean text (hex).
    pub md5: String,
    /// Paragraphs removed after per-page cleaning (listed in `removed-paragraphs.csv`).
    #[serde(default)]
    pub removed: Removed,
    /// Pages dropped as copies of this document.
    #[serde(default)]
    pub duplicates: Vec<DuplicateRef>,
    /// Clean text, paragraph by paragraph, with its structure.
    pub paragraphs: Vec<Paragraph>,
}

/// A block of running text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Paragraph {
    /// `heading`, `paragraph`, `list-item`, `preformatted`, `table-cell`, `other`.
    pub kind: String,
    /// Text, whitespace collapsed.
    pub text: String,
    /// Language of the paragraph (detected on it, or inherited: see [`stages::corpus::paralang`]);
    /// only with `[text] paragraph_language`.
    #[serde(default)]
    pub lang: Option<String>,
}

/// How many paragraphs were removed from a document, by cause.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Removed {
    /// Repeated on many pages of the host.
    pub host_boilerplate: u32,
    /// Not in a target language (`[text] paragraph_language`).
    pub language: u32,
}

/// A page dropped as a copy of a kept document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DuplicateRef {
    /// `urls.id` of the copy.
    pub url_id: i64,
    /// Its URL.
    pub url: String,
    /// `exact`, `exact-without-diacritics` or `near`.
    pub kind: String,
    /// Jaccard resemblance of the word 5-shingles (near copies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jaccard: Option<f64>,
}

/// Bytes of stored responses (compressed WARC records) read back and cleaned together on
/// every core in pass 1; `extract.tmp/` bytes in pass 2.
pub const BATCH_BYTES: usize = 4 << 20;

/// A page after pass 2: what the store and the corpus decision need, and, for a page that may
/// be a document, its lines for `docs.jsonl` and `removed-paragraphs.csv`.
enum Judged {
    Unreadable(String),
    Dropped {
        facts: PageFacts,
        encoding_decision: String,
        reason: (Reason, String),
    },
    Candidate {
        facts: PageFacts,
        encoding_decision: String,
        signature: Signature,
        /// The document as its `docs.jsonl` line (without copies yet).
        doc_line: String,
        /// Its removed paragraphs as one JSON line.
        removed_line: String,
    },
}

/// A page as pass 1 leaves it for pass 2: the page and what reading it gave.
#[derive(Serialize, Deserialize)]
struct Spilled {
    page: StoredPage,
    outcome: Result<Processed, String>,
    /// The `WARC-Record-ID` of the record read (the extract cache's proof that a record at the
    /// same place is the same one).
    #[serde(default)]
    record: Option<String>,
    /// The host-boilerplate keys of its paragraphs (empty with `keep_everything`), hashed on
    /// the workers once, for the count of pass 1 and the marks of pass 2.
    keys: Vec<Option<u64>>,
}

/// A page to read in pass 1: from its stored copy, or from the cache of the last extraction
/// (one line of `pages.jsonl`) when that copy has not changed since.
enum Listed {
    Fresh(StoredPage),
    Cached(StoredPage, String),
}

/// The paragraphs taken out of a document that may be kept, and its URL.
#[derive(Serialize, Deserialize)]
struct RemovedOf {
    url: String,
    rows: Vec<RemovedRow>,
}

/// The pages to extract, read from the store a slice at a time, with their WARC record's
/// length (the batch size of pass 1).
struct StoredPages<'a> {
    store: &'a Store,
    after: i64,
    slice: std::vec::IntoIter<StoredPage>,
    done: bool,
}

/// Pages read from the store at a time.
const PAGES_PER_SLICE: i64 = 10_000;

impl Iterator for StoredPages<'_> {
    type Item = anyhow::Result<(StoredPage, usize)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(page) = self.slice.next() {
                self.after = page.id;
                let size = page.warc.2 as usize;
                return Some(Ok((page, size)));
            }
            if self.done {
                return None;
            }
            match self.store.stored_pages_after(self.after, PAGES_PER_SLICE) {
                Ok(slice) => {
                    self.done = (slice.len() as i64) < PAGES_PER_SLICE;
                    self.slice = slice.into_iter();
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// A paragraph taken out of a kept document, as `removed-paragraphs.csv` lists it.
#[derive(Serialize, Deserialize)]
struct RemovedRow {
    index: usize,
    reason: String,
    detail: String,
    kind: String,
    text: String,
}

/// Runs the extract stage over every stored page; writes `docs.jsonl` in `run_dir`.
///
/// Three passes keep memory bounded by the batches, not by the corpus: (1) every page (listed
/// from the store 10,000 at a time) is read back and cleaned on all cores, counted for host
/// boilerplate, and written with its page facts to `extract.tmp/pages.jsonl`; (2) each page is read back from there, its boilerplate removed,
/// its score and decision computed on all cores, and the pages that may be documents are
/// written to `extract.tmp/candidates.jsonl` with their compact signature kept in memory; (3)
/// after the duplicate decision (on the signatures; the texts of candidate pairs are read
/// back), the documents are copied to `docs.jsonl`. `extract.tmp/` is removed at the end.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExtractReport> {
    let started = Instant::now();
    let total = store.count_stored_pages()?;
    bar.set_length(2 * total);
    let options = ExtractOptions {
        keep_everything: topic.file.output.keep_everything,
        max_links: topic.file.crawl.max_links_per_page,
        max_attributes: topic.file.crawl.max_attributes_per_element,
        ..ExtractOptions::default()
    };
    let warc_dir = run_dir.join("warc");
    let product_token = stages::web::robots::product_token(&topic.user_agent());
    let scratch = run_dir.join("extract.tmp");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)
            .with_context(|| format!("cannot clear {}", scratch.display()))?;
    }
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let mut report = ExtractReport {
        pages: total,
        ..ExtractReport::default()
    };

    // Pass 1: read back, clean, count host boilerplate (over every readable page of the run,
    // kept or not: a footer is a footer whatever the page's topic), keep on disk.
    let text = &topic.file.text;
    let rule = RepeatRule {
        min_pages: text.boilerplate_min_pages,
        min_share: text.boilerplate_min_share,
    };
    let boilerplate = !topic.file.output.keep_everything;
    let mut counter = RepeatCounter::default();
    let mut counts = repeats::KeyCounts::new(scratch.clone(), repeats::BUFFER_ENTRIES);
    // What the last extraction read from pages whose stored copy has not changed since is
    // read from its cache, not decoded and cleaned again.
    let store_id = match store.meta("store_id")? {
        Some(id) => id,
        None => {
            let id = uuid::Uuid::new_v4().to_string();
            store.set_meta("store_id", &id)?;
            store.commit()?;
            id
        }
    };
    let stamp = cache::stamp(
        &store_id,
        &options,
        topic.file.text.paragraph_language,
        &product_token,
    );
    let mut previous = cache::Cache::open(&cache::path(run_dir), &stamp);
    let reused = std::sync::atomic::AtomicU64::new(0);
    // Read before any page: a version stored while the stage runs is the next refresh's.
    let visits_seen = store.last_visit()?;
    let mut processed_out = spill::Writer::create(scratch.join("pages.jsonl"))?;
    processed_out.line(&stamp)?;
    let listed = StoredPages {
        store,
        after: i64::MIN,
        slice: Vec::new().into_iter(),
        done: false,
    }
    .map(|listed| {
        listed.map(|(page, size)| match previous.take(&page) {
            Some(line) => {
                let size = line.len();
                (Listed::Cached(page, line), size)
            }
            None => (Listed::Fresh(page), size),
        })
    });
    crate::ground::parallel::ordered(
        listed,
        BATCH_BYTES,
        |listed: Listed| {
            let (page, cached) = match listed {
                Listed::Fresh(page) => (page, None),
                Listed::Cached(page, line) => (page, Some(line)),
            };
            // The record is read back even for a cached page (a cheap gunzip next to parsing
            // and cleaning): one damaged since is named, and its id must be the cached one.
            let record = page::stored_record(&warc_dir, &page);
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
                reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // The page's current row (depth, fetch time) with what its record gave.
                return Ok(Spilled { page, ..cached });
            }
            let outcome = record.and_then(|record| {
                process(
                    &options,
                    topic.file.text.paragraph_language,
                    &product_token,
                    &record,
                    &page,
                )
            });
            let keys = match &outcome {
                Ok(p) if boilerplate => {
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
        },
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
    report.reused = reused.into_inner();
    // Only the keys that are boilerplate stay in memory.
    let mut batch = Vec::new();
    counts.finish(|key, pages| {
        batch.push((key, pages));
        if batch.len() >= 1 << 16 {
            counter.keep_repeated(batch.drain(..), rule);
        }
        Ok(())
    })?;
    counter.keep_repeated(batch, rule);

    // Pass 2: remove the marked paragraphs, evaluate, decide (duplicates aside).
    let mut candidates_out = spill::Writer::create(scratch.join("candidates.jsonl"))?;
    // Per candidate: its URL id and line offset; and its signature. Sized once (the stored
    // pages bound the candidates): a doubling vector would hold twice a million signatures.
    let capacity = usize::try_from(total).unwrap_or(0);
    let mut candidates: Vec<(i64, u64)> = Vec::with_capacity(capacity);
    let mut signatures: Vec<Signature> = Vec::with_capacity(capacity);
    // The stamp line aside.
    let source = spill::Reader::open(&processed_path)?.skip(1);
    crate::ground::parallel::ordered(
        source,
        BATCH_BYTES,
        |line: String| -> anyhow::Result<(i64, Judged)> {
            let Spilled {
                page,
                outcome,
                keys,
                ..
            } = serde_json::from_str(&line).context("extract.tmp/pages.jsonl: damaged line")?;
            let i = page.id;
            let page = &page;
            let p = match outcome {
                Ok(p) => p,
                Err(detail) => return Ok((i, Judged::Unreadable(detail))),
            };
            let marks = counter.marks_of_keys(&p.host, &keys, rule);
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
                    removed_line: serde_json::to_string(&RemovedOf {
                        url: page.url.clone(),
                        rows: removed,
                    })?,
                },
            ))
        },
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
                    candidates.push((id, offset));
                    signatures.push(signature);
                }
            }
            bar.inc(1);
            Ok(())
        },
    )?;
    let candidates_path = candidates_out.finish()?;
    drop(counter);

    // Duplicates among the documents that pass every other test, in URL-id order.
    let mut lookup = spill::Lookup::open(&candidates_path)?;
    let mut failed: Option<anyhow::Error> = None;
    let verdicts = stages::corpus::dedup::deduplicate_signatures(
        &signatures,
        text.near_duplicates
            .then_some(text.near_duplicate_threshold),
        |k| match candidates.get(k).map(|c| lookup.document_text(c.1)) {
            Some(Ok(text)) => stages::corpus::dedup::shingle_set(&text),
            Some(Err(e)) => {
                failed.get_or_insert(e);
                Vec::new()
            }
            None => Vec::new(),
        },
    );
    drop(signatures);
    if let Some(e) = failed {
        return Err(e);
    }
    // Only copies and their originals are looked up (their URLs read back from the file).
    let document_of = |k: usize| -> anyhow::Result<(String, i64, String)> {
        let &(id, offset) = candidates
            .get(k)
            .context("a duplicate verdict names no candidate")?;
        Ok((format!("d{id:06}"), id, lookup.document_url(offset)?))
    };
    let (mut copies, mut dup_reason) = decide::duplicates(text, &verdicts, document_of)?;

    // Pass 3: the documents, in URL-id order, with their copies.
    let tmp = run_dir.join("docs.jsonl.tmp");
    let mut out = spill::Writer::create(tmp.clone())?;
    let audit_tmp = run_dir.join("removed-paragraphs.csv.tmp");
    let mut audit = csv::Writer::from_path(&audit_tmp)
        .with_context(|| format!("cannot write {}", audit_tmp.display()))?;
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
    let mut lines = spill::Reader::open(&candidates_path)?;
    for (k, &(id, _)) in candidates.iter().enumerate() {
        let (doc_line, removed_line) = match (lines.next(), lines.next()) {
            (Some(d), Some(r)) => (d?.0, r?.0),
            _ => anyhow::bail!("{} ends early", candidates_path.display()),
        };
        if let Some((reason, detail, original)) = dup_reason.remove(&k) {
            *report.dropped.entry(reason.to_string()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, Some(&original))?;
            continue;
        }
        let doc_id = format!("d{id:06}");
        let removed: RemovedOf = serde_json::from_str(&removed_line)
            .with_context(|| format!("{}: damaged line", candidates_path.display()))?;
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
        match copies.remove(&k) {
            // Copied as it was written in pass 2, unless the document has copies to list.
            None => out.line(doc_line.trim_end())?,
            Some(duplicates) => {
                let mut doc: Document = serde_json::from_str(&doc_line)
                    .with_context(|| format!("{}: damaged line", candidates_path.display()))?;
                doc.duplicates = duplicates;
                out.line(&serde_json::to_string(&doc)?)?
            }
        };
        report.kept += 1;
        store.decision(id, Reason::Kept, "", Some(&doc_id), None, None)?;
    }
    out.finish()?;
    audit.flush()?;
    drop(audit);
    let final_path = run_dir.join("docs.jsonl");
    std::fs::rename(&tmp, &final_path)
        .with_context(|| format!("cannot write {}", final_path.display()))?;
    let audit_path = run_dir.join("removed-paragraphs.csv");
    std::fs::rename(&audit_tmp, &audit_path)
        .with_context(|| format!("cannot write {}", audit_path.display()))?;
    store.commit()?;
    store.set_meta(VISITS_EXTRACTED, &visits_seen.to_string())?;
    store.commit()?;
    // Pass 1 of a completed extraction becomes the next one's cache; without it the next
    // extraction reads every page again, which is no reason to fail this one.
    let cache_path = cache::path(run_dir);
    if let Err(e) = std::fs::rename(&processed_path, &cache_path) {
        eprintln!(
            "glaneur: warning: cannot write {} ({e}): the next extraction reads every page again",
            cache_path.display()
        );
    }
    std::fs::remove_dir_all(&scratch)
        .with_context(|| format!("cannot remove {}", scratch.display()))?;
    report.paragraphs_removed = paragraphs_removed;
    report.seconds = started.elapsed().as_secs_f64();
    report.pages_per_second = report.pages as f64 / report.seconds.max(1e-6);
    bar.finish_and_clear();
    Ok(report)
}

/// Reads `docs.jsonl` whole (tests and small runs; the stages stream it with [`documents`]).
pub fn read_documents(path: &Path) -> anyhow::Result<Vec<Document>> {
    documents(path)?.map(|r| r.map(|(doc, _)| doc)).collect()
}

/// `docs.jsonl`, one document at a time with the length of its line, so that a corpus larger
/// than memory streams through the export.
pub fn documents(path: &Path) -> anyhow::Result<DocumentReader> {
    let file = std::fs::File::open(path).with_context(|| {
        format!(
            "cannot read {} (run the extract stage first: `--from extract`)",
            path.display()
        )
    })?;
    Ok(DocumentReader {
        path: path.to_path_buf(),
        lines: std::io::BufReader::with_capacity(1 << 20, file),
        line_no: 0,
        buf: String::new(),
    })
}

/// The iterator of [`documents`].
pub struct DocumentReader {
    path: std::path::PathBuf,
    lines: std::io::BufReader<std::fs::File>,
    line_no: usize,
    buf: String,
}

impl Iterator for DocumentReader {
    type Item = anyhow::Result<(Document, usize)>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::BufRead;
        loop {
            self.buf.clear();
            self.line_no += 1;
            match self.lines.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(n) if !self.buf.trim().is_empty() => {
                    let doc = serde_json::from_str(&self.buf).with_context(|| {
                        format!(
                            "{} line {}: not a glaneur document",
                            self.path.display(),
                            self.line_no
                        )
                    });
                    return Some(doc.map(|d| (d, n)));
                }
                Ok(_) => continue,
                Err(e) => {
                    return Some(Err(anyhow::Error::new(e).context(format!(
                        "cannot read {} line {}",
                        self.path.display(),
                        self.line_no
                    ))));
                }
            }
        }
    }
}
