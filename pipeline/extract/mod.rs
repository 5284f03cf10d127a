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
//! boilerplate paragraphs' keys stay), each candidate document's URL id and line offset (16
//! bytes; its compact duplicate signature waits in `extract.tmp/`) and the digests and band
//! keys that two candidates share — not the pages' text, nor one entry per distinct paragraph.

mod cache;
mod decide;
pub mod follow;
mod harvest;
mod page;
mod repeats;
mod spill;
mod stage;

pub use cache::FILE as CACHE_FILE;
pub use harvest::harvest;
pub use stage::{read_only, run};

/// The meta key holding the last visit an extraction saw (`visits.id`).
pub const VISITS_EXTRACTED: &str = "visits_extracted";

/// The meta key holding the last visit seen by an extraction whose exports were then written:
/// a monitor refreshes the corpus when a later visit found a new version.
pub const VISITS_EXPORTED: &str = "visits_exported";

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use stages::corpus::dedup::{Fingerprint, Signature, Verdict};
use stages::corpus::host_boilerplate::Repeated;
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
use page::{Final, Processed};

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
    /// The sources of the seed its crawl path starts from (`topic`, `search:BACKEND`,
    /// `result-page:FILE`, `url-list:FILE`; several joined by ` + `).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_source: Option<String>,
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

impl Document {
    /// Its language, or `default` (the topic's first) when none was identified: the
    /// language its tokens are cut and tagged in.
    pub fn language_or<'a>(&'a self, default: &'a str) -> &'a str {
        if self.language.is_empty() {
            default
        } else {
            &self.language
        }
    }

    /// Its paragraphs' texts.
    pub fn texts(&self) -> Vec<String> {
        self.paragraphs.iter().map(|p| p.text.clone()).collect()
    }

    /// What the token formats write in its opening line, in language `lang`.
    pub fn vertical_meta<'a>(
        &'a self,
        lang: &'a str,
        date: Option<&'a str>,
    ) -> stages::export::vertical::DocMeta<'a> {
        stages::export::vertical::DocMeta {
            id: &self.id,
            url: &self.url,
            title: &self.title,
            lang,
            score: self.score,
            host: &self.host,
            date,
            seed: self.seed_source.as_deref().unwrap_or(""),
        }
    }
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
    /// The line, and whether the reader that followed the crawl wrote it.
    Cached(StoredPage, String, bool),
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
    /// Each page's seed source, set on the page as it is listed.
    seeds: crate::store::SeedSources,
}

/// Pages read from the store at a time.
const PAGES_PER_SLICE: i64 = 10_000;

impl Iterator for StoredPages<'_> {
    type Item = anyhow::Result<(StoredPage, usize)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(mut page) = self.slice.next() {
                self.after = page.id;
                page.seed_source = self.seeds.of(page.id).map(String::from);
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
