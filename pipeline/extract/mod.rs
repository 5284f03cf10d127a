//! The extract stage: stored responses → clean documents → `docs.jsonl`.
//!
//! **In:** every fetched page with status 200 and an HTML or text body, read back from the
//! run's WARC file by the (offset, length) that `crawl.sqlite` keeps.
//! **Out:** `docs.jsonl` (one JSON object per kept document), `removed-paragraphs.csv` (every
//! paragraph taken out of a kept document after per-page cleaning, with why) and, in
//! `crawl.sqlite`, the final reason of every such page (`kept`, `noindex`, `empty`,
//! `language`, `off-topic`, `duplicate`, `near-duplicate`, `unreadable`), with the id of the
//! original in `duplicate_of` for copies.
//!
//! **Steps:** (1) on all cores, each page is decoded, cleaned ([`stages::page::extract`]) and each
//! paragraph given a language ([`stages::corpus::paralang`]); (2) paragraphs a host repeats on many of
//! its pages are marked ([`stages::corpus::host_boilerplate`], `[text] boilerplate_*`); (3) on all
//! cores, marked paragraphs (and, with `[text] paragraph_language`, paragraphs in other
//! languages) are removed, and the formula, score and fingerprints are computed on what is
//! left; (4) the corpus decision, with exact and near duplicates ([`stages::corpus::dedup`]) among the
//! documents that pass every other test.
//!
//! **Invariants:** never fetches; the same WARC and topic always give the same `docs.jsonl`
//! (pages are processed in URL-id order; which copy of a duplicate is kept is decided by
//! [`stages::corpus::dedup`]'s fixed rule, not by thread scheduling); `docs.jsonl` is written to a
//! temporary file and renamed, so a crash leaves either the old file or the new one; one
//! damaged record is a recorded reason, not an error.

mod decide;
mod harvest;
mod page;

pub use harvest::harvest;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use stages::corpus::dedup::{Fingerprint, Verdict};
use stages::corpus::host_boilerplate::{PageParagraphs, RepeatRule, Repeated};
use stages::corpus::paralang::ParagraphText;
use stages::focus::formula::PreparedText;
use stages::focus::score::{self, PageEvidence};
use stages::page::extract::{BlockKind, ExtractOptions, PageDates};
use stages::page::lang::LangGuess;

use crate::outcome::{Reason, Removal};
use crate::report::ExtractReport;
use crate::store::{PageFacts, Store, StoredPage};
use crate::topic::Topic;
use crate::warcfile;
use decide::{Decided, decide, duplicates};
use page::{Final, Staged, boilerplate_marks, finalize, process};

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

/// Runs the extract stage over every stored page; writes `docs.jsonl` in `run_dir`.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<ExtractReport> {
    let started = Instant::now();
    let pages = store.stored_pages()?;
    bar.set_length(pages.len() as u64);
    let options = ExtractOptions {
        keep_everything: topic.file.output.keep_everything,
        max_links: topic.file.crawl.max_links_per_page,
        max_attributes: topic.file.crawl.max_attributes_per_element,
        ..ExtractOptions::default()
    };
    let warc_dir = run_dir.join("warc");
    let product_token = stages::web::robots::product_token(&topic.user_agent());
    let processed = crate::parallel::map(
        pages,
        |page| {
            let outcome = process(
                &options,
                topic.file.text.paragraph_language,
                &product_token,
                &warc_dir,
                &page,
            );
            (page, outcome)
        },
        bar,
    );
    let mut report = ExtractReport {
        pages: processed.len() as u64,
        ..ExtractReport::default()
    };
    for (_, p) in &processed {
        if let Ok(p) = p {
            report.pages_links_cut += u64::from(p.cut.0 > 0);
            report.pages_attributes_cut += u64::from(p.cut.1 > 0);
        }
    }

    let text = &topic.file.text;
    let marks = boilerplate_marks(topic, &processed);
    let mut marks = marks.into_iter();
    let staged: Vec<(StoredPage, Staged)> = processed
        .into_iter()
        .map(|(page, outcome)| {
            let outcome = outcome.map(|p| (p, marks.next().unwrap_or_default()));
            (page, outcome)
        })
        .collect();
    let finals = crate::parallel::map(
        staged,
        |(page, outcome)| {
            let result = outcome.map(|(p, m)| finalize(topic, &page, p, &m));
            (page, result)
        },
        &indicatif::ProgressBar::hidden(),
    );

    // The corpus decision, duplicates aside.
    let mut decided: Vec<Decided> = Vec::with_capacity(finals.len());
    for (page, result) in finals {
        let reason = match &result {
            Err(detail) => Some((Reason::Unreadable, detail.clone())),
            Ok(f) => decide(topic, f),
        };
        decided.push((page, result, reason));
    }

    let (mut copies, mut dup_reason) = duplicates(text, &decided);

    let tmp = run_dir.join("docs.jsonl.tmp");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?,
    );
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
    for (i, (page, result, reason)) in decided.into_iter().enumerate() {
        let id = page.id;
        let mut f = match result {
            Ok(f) => f,
            Err(detail) => {
                store.decision(id, Reason::Unreadable, &detail, None, None, None)?;
                *report
                    .dropped
                    .entry(Reason::Unreadable.to_string())
                    .or_default() += 1;
                continue;
            }
        };
        store.page_facts(id, &f.facts)?;
        *report
            .encodings
            .entry(f.doc.encoding_decision.clone())
            .or_default() += 1;
        if let Some((reason, detail)) = reason {
            *report.dropped.entry(reason.to_string()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, None)?;
            continue;
        }
        if let Some((reason, detail, original)) = dup_reason.remove(&i) {
            *report.dropped.entry(reason.to_string()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, Some(&original))?;
            continue;
        }
        f.doc.duplicates = copies.remove(&i).unwrap_or_default();
        for r in &f.removed {
            *paragraphs_removed
                .entry(r.reason.name().to_string())
                .or_default() += 1;
            audit.write_record([
                f.doc.id.as_str(),
                f.doc.url.as_str(),
                &r.index.to_string(),
                r.reason.name(),
                &r.detail,
                r.kind,
                &r.text,
            ])?;
        }
        serde_json::to_writer(&mut out, &f.doc)?;
        out.write_all(b"\n")?;
        report.kept += 1;
        store.decision(id, Reason::Kept, "", Some(&f.doc.id), None, None)?;
    }
    out.flush()?;
    drop(out);
    audit.flush()?;
    drop(audit);
    let final_path = run_dir.join("docs.jsonl");
    std::fs::rename(&tmp, &final_path)
        .with_context(|| format!("cannot write {}", final_path.display()))?;
    let audit_path = run_dir.join("removed-paragraphs.csv");
    std::fs::rename(&audit_tmp, &audit_path)
        .with_context(|| format!("cannot write {}", audit_path.display()))?;
    store.commit()?;
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
