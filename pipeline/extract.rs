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

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
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

use crate::crawl::tld_of;
use crate::report::ExtractReport;
use crate::store::{PageFacts, Store, StoredPage};
use crate::topic::Topic;
use crate::warcfile;

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

/// A page read back and cleaned, before the cross-page steps.
struct Processed {
    host: String,
    title: Option<String>,
    noindex: bool,
    language: Option<LangGuess>,
    lang_attr: Option<String>,
    canonical: Option<String>,
    dates: PageDates,
    encoding: String,
    encoding_decision: String,
    paragraphs: Vec<Para>,
    /// Links and attributes past the topic's caps, left out (`[crawl] max_links_per_page`,
    /// `max_attributes_per_element`).
    cut: (usize, usize),
}

struct Para {
    kind: BlockKind,
    text: String,
    /// Language detected on the paragraph itself (inheritance is resolved later, on the
    /// paragraphs that survive host-boilerplate removal).
    own_lang: Option<String>,
}

/// A paragraph taken out of a page after per-page cleaning.
struct RemovedParagraph {
    index: usize,
    reason: &'static str,
    detail: String,
    kind: &'static str,
    text: String,
}

/// A page read back, with its host-boilerplate marks (or why it could not be read).
type Staged = Result<(Processed, Vec<Option<Repeated>>), String>;

/// A page, its final text (or why it could not be read) and the reason it is not a corpus
/// document, duplicates aside.
type Decided = (
    StoredPage,
    Result<Final, String>,
    Option<(&'static str, String)>,
);

/// A page with its final text, ready for the corpus decision.
struct Final {
    doc: Document,
    facts: PageFacts,
    noindex: bool,
    /// The page had running text before the cross-page steps.
    had_text: bool,
    /// Share of the letters of paragraphs with an own language that are in a target language.
    target_share: Option<f64>,
    language_ok: bool,
    removed: Vec<RemovedParagraph>,
    fingerprint: Fingerprint,
}

fn kind_name(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Heading => "heading",
        BlockKind::Paragraph => "paragraph",
        BlockKind::ListItem => "list-item",
        BlockKind::Preformatted => "preformatted",
        BlockKind::TableCell => "table-cell",
        BlockKind::Other => "other",
    }
}

fn md5_hex(text: &str) -> String {
    let digest = Md5::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `YYYY-MM-DD` of a date as pages and servers write it: RFC 3339 / ISO 8601 (the date as
/// written, in its own time zone), `YYYY/MM/DD`, `YYYY.MM.DD`, `YYYYMMDD`, or an HTTP / RFC 2822
/// date (in UTC).
fn iso_date(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let valid = |y: &str, m: &str, d: &str| -> Option<String> {
        let date =
            chrono::NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)?;
        Some(date.format("%Y-%m-%d").to_string())
    };
    let bytes = raw.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        bytes
            .get(r)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    if digits(0..4) && digits(5..7) && digits(8..10) {
        let sep = bytes.get(4).copied();
        if matches!(sep, Some(b'-' | b'/' | b'.')) && bytes.get(7).copied() == sep {
            return valid(raw.get(0..4)?, raw.get(5..7)?, raw.get(8..10)?);
        }
    }
    if raw.len() == 8 && digits(0..8) {
        return valid(raw.get(0..4)?, raw.get(4..6)?, raw.get(6..8)?);
    }
    let time = httpdate::parse_http_date(raw)
        .ok()
        .map(chrono::DateTime::<chrono::Utc>::from)
        .or_else(|| {
            chrono::DateTime::parse_from_rfc2822(raw)
                .ok()
                .map(|t| t.with_timezone(&chrono::Utc))
        })?;
    Some(time.format("%Y-%m-%d").to_string())
}

fn process(
    options: &ExtractOptions,
    paragraph_language: bool,
    product_token: &str,
    warc_dir: &Path,
    page: &StoredPage,
) -> Result<Processed, String> {
    let (file, offset, length) = &page.warc;
    let path = warc_dir.join(file);
    let record = warcfile::read_record_at(&path, *offset, *length).map_err(|e| {
        format!("{e:#} (`glaneur verify --refetch` queues the page to be fetched again)")
    })?;
    if let Some(uri) = record.target_uri()
        && uri != page.url
        && url::Url::parse(uri).ok() != url::Url::parse(&page.url).ok()
    {
        return Err(format!(
            "the WARC record at offset {offset} of {} is the response of {uri}, not of this \
             page (`glaneur verify` checks the whole folder)",
            path.display()
        ));
    }
    let http = stages::web::warc::parse_http_response(&record.block).map_err(|e| e.to_string())?;
    let url = url::Url::parse(&page.url).map_err(|e| e.to_string())?;
    let content_type = http.header("content-type").map(str::to_string);
    let tld = tld_of(&url);
    let decoded = stages::page::decode::decode(&http.body, content_type.as_deref(), tld.as_deref());
    let is_plain = content_type
        .as_deref()
        .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/plain"));
    let extracted = if is_plain {
        stages::page::extract::extract_plain(&decoded.text)
    } else {
        stages::page::extract::extract_html(&decoded.text, &url, options)
    };
    let kept: Vec<_> = extracted.kept().collect();
    let texts: Vec<ParagraphText<'_>> = kept
        .iter()
        .map(|b| ParagraphText {
            text: &b.text,
            detect: b.kind != BlockKind::Preformatted,
        })
        .collect();
    // Detection on every paragraph is the costliest step of the stage (whatlang's cost is
    // mostly per call): it runs only when the topic asks for paragraph languages.
    let langs = if paragraph_language {
        stages::corpus::paralang::own_languages(&texts)
    } else {
        vec![None; texts.len()]
    };
    let paragraphs = kept
        .iter()
        .zip(langs)
        .map(|(b, own_lang)| Para {
            kind: b.kind,
            text: b.text.clone(),
            own_lang,
        })
        .collect();
    Ok(Processed {
        host: url.host_str().unwrap_or("").to_string(),
        title: extracted.title.clone(),
        // `<meta name=robots>` or an `X-Robots-Tag` header addressed to every crawler or to us.
        noindex: extracted.meta_robots.noindex
            || stages::web::robots::x_robots_tag(
                http.headers
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case("x-robots-tag"))
                    .map(|(_, v)| v.as_str()),
                product_token,
            )
            .noindex,
        language: extracted.language.clone(),
        lang_attr: extracted.lang_attr.clone(),
        canonical: extracted.canonical.clone(),
        dates: extracted.dates.clone(),
        cut: (extracted.links_cut, extracted.attributes_cut),
        encoding: decoded.encoding.name().to_string(),
        encoding_decision: serde_json::to_value(decoded.decision)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        paragraphs,
    })
}

/// Removes the marked and (optionally) foreign paragraphs, then evaluates what is left.
fn finalize(
    topic: &Topic,
    page: &StoredPage,
    processed: Processed,
    marks: &[Option<Repeated>],
) -> Final {
    let languages = &topic.file.languages;
    let had_text = !processed.paragraphs.is_empty();
    let mut removed = Vec::new();
    // Host boilerplate first, so that paragraph languages are inherited from the neighbours a
    // reader sees (a cookie notice between two English paragraphs must not make them French).
    let mut survivors = Vec::with_capacity(processed.paragraphs.len());
    for (index, para) in processed.paragraphs.into_iter().enumerate() {
        if let Some(Some(r)) = marks.get(index) {
            removed.push(RemovedParagraph {
                index,
                reason: "host-boilerplate",
                detail: format!(
                    "on {} of {} pages of {}",
                    r.pages, r.host_pages, processed.host
                ),
                kind: kind_name(para.kind),
                text: para.text,
            });
        } else {
            survivors.push((index, para));
        }
    }
    let own: Vec<Option<String>> = survivors.iter().map(|(_, p)| p.own_lang.clone()).collect();
    let document_lang = processed.language.as_ref().map(|l| l.code.as_str());
    let texts: Vec<&str> = survivors.iter().map(|(_, p)| p.text.as_str()).collect();
    let preferred = languages.first().map(String::as_str);
    let langs = stages::corpus::paralang::inherit(&own, &texts, document_lang, preferred);
    // Share of the text measured on its own that is in a target language: a page in another
    // language with a few translated headings is not a mixed page.
    let letters = |t: &str| t.chars().filter(|c| c.is_alphabetic()).count();
    let (mut target_letters, mut own_letters) = (0usize, 0usize);
    for ((_, para), code) in survivors.iter().zip(&own) {
        if let Some(code) = code {
            own_letters += letters(&para.text);
            if languages.contains(code) {
                target_letters += letters(&para.text);
            }
        }
    }
    let target_share = (own_letters > 0).then(|| target_letters as f64 / own_letters as f64);
    let mut paragraphs = Vec::with_capacity(survivors.len());
    for ((index, para), lang) in survivors.into_iter().zip(langs) {
        let kind = kind_name(para.kind);
        if topic.file.text.paragraph_language
            && let Some(code) = &lang.code
            && !languages.contains(code)
        {
            removed.push(RemovedParagraph {
                index,
                reason: "language",
                detail: format!(
                    "{code} ({})",
                    if lang.own { "detected" } else { "inherited" }
                ),
                kind,
                text: para.text,
            });
            continue;
        }
        paragraphs.push(Paragraph {
            kind: kind.to_string(),
            text: para.text,
            lang: if topic.file.text.paragraph_language {
                lang.code
            } else {
                None
            },
        });
    }
    removed.sort_by_key(|r| r.index);
    let mut clean = String::new();
    for p in &paragraphs {
        if !clean.is_empty() {
            clean.push_str("\n\n");
        }
        clean.push_str(&p.text);
    }
    // The page language is re-detected only when the text changed, so pages the cross-page
    // steps did not touch keep exactly the per-page decision.
    let language = if removed.is_empty() {
        processed.language
    } else {
        stages::page::lang::detect(&clean)
    };
    let (language, confidence) = language
        .as_ref()
        .map_or((String::new(), 0.0), |l| (l.code.clone(), l.confidence));
    let language_ok = languages.is_empty() || languages.contains(&language);
    let title = processed.title.clone().unwrap_or_default();
    let prepared = PreparedText::new(&format!("{title}\n\n{clean}"), topic.formula.options());
    let verdict = topic.formula.evaluate_prepared(&prepared);
    let score = score::page_score(&PageEvidence {
        verdict: &verdict,
        tokens: prepared.token_count(),
        language_ok,
        language_confidence: confidence,
    });
    let facts = PageFacts {
        score,
        verdict: verdict.satisfied,
        matched: verdict.matched.clone(),
        language: (!language.is_empty()).then(|| language.clone()),
        title: processed.title,
    };
    let date = [
        processed.dates.published.as_deref(),
        processed.dates.modified.as_deref(),
        page.last_modified.as_deref(),
    ]
    .into_iter()
    .flatten()
    .find_map(iso_date);
    let count = |reason: &str| removed.iter().filter(|r| r.reason == reason).count() as u32;
    let doc = Document {
        id: format!("d{:06}", page.id),
        url_id: page.id,
        url: page.url.clone(),
        host: processed.host,
        title,
        language,
        language_confidence: confidence,
        lang_attr: processed.lang_attr,
        canonical: processed.canonical,
        score,
        matched: verdict.matched,
        depth: page.depth,
        seed: page.seed,
        fetched_at: page.fetched_at,
        last_modified: page.last_modified.clone(),
        published: processed.dates.published,
        modified: processed.dates.modified,
        date,
        encoding: processed.encoding,
        encoding_decision: processed.encoding_decision,
        md5: md5_hex(&clean),
        removed: Removed {
            host_boilerplate: count("host-boilerplate"),
            language: count("language"),
        },
        duplicates: Vec::new(),
        paragraphs,
    };
    Final {
        fingerprint: Fingerprint::new(&clean),
        doc,
        facts,
        noindex: processed.noindex,
        had_text,
        target_share,
        language_ok,
        removed,
    }
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
    let processed = parallel_map(
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

    // Host boilerplate: counted over every readable page of the run (kept or not), since a
    // footer is a footer whatever the page's topic. `keep_everything` keeps it too.
    let text = &topic.file.text;
    let marks: Vec<Vec<Option<Repeated>>> = if topic.file.output.keep_everything {
        Vec::new()
    } else {
        let inputs: Vec<PageParagraphs<'_>> = processed
            .iter()
            .filter_map(|(_, p)| p.as_ref().ok())
            .map(|p| PageParagraphs {
                host: &p.host,
                paragraphs: p.paragraphs.iter().map(|x| x.text.as_str()).collect(),
            })
            .collect();
        stages::corpus::host_boilerplate::find(
            &inputs,
            RepeatRule {
                min_pages: text.boilerplate_min_pages,
                min_share: text.boilerplate_min_share,
            },
        )
    };
    let mut marks = marks.into_iter();
    let staged: Vec<(StoredPage, Staged)> = processed
        .into_iter()
        .map(|(page, outcome)| {
            let outcome = outcome.map(|p| (p, marks.next().unwrap_or_default()));
            (page, outcome)
        })
        .collect();
    let finals = parallel_map(
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
            Err(detail) => Some(("unreadable", detail.clone())),
            Ok(f) => decide(topic, f),
        };
        decided.push((page, result, reason));
    }

    // Duplicates among the documents that pass every other test, in URL-id order.
    let eligible: Vec<usize> = decided
        .iter()
        .enumerate()
        .filter(|(_, (_, r, reason))| r.is_ok() && reason.is_none())
        .map(|(i, _)| i)
        .collect();
    let verdicts = {
        let mut fingerprints = Vec::with_capacity(eligible.len());
        let mut texts = Vec::with_capacity(eligible.len());
        let joined: Vec<String> = eligible
            .iter()
            .filter_map(|&i| decided[i].1.as_ref().ok())
            .map(|f| {
                f.doc
                    .paragraphs
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n")
            })
            .collect();
        for (&i, text) in eligible.iter().zip(&joined) {
            if let Ok(f) = &decided[i].1 {
                fingerprints.push(f.fingerprint.clone());
                texts.push(text.as_str());
            }
        }
        stages::corpus::dedup::deduplicate(
            &fingerprints,
            &texts,
            text.near_duplicates
                .then_some(text.near_duplicate_threshold),
        )
    };
    // Ordered by copy (URL-id order), so each original lists its copies in a stable order.
    let mut duplicate_of: BTreeMap<usize, (usize, Verdict)> = BTreeMap::new();
    for (k, verdict) in verdicts.iter().enumerate() {
        if let Some(of) = verdict.original()
            && let (Some(&copy), Some(&original)) = (eligible.get(k), eligible.get(of))
        {
            duplicate_of.insert(copy, (original, *verdict));
        }
    }
    let mut copies: BTreeMap<usize, Vec<DuplicateRef>> = BTreeMap::new();
    let mut dup_reason: HashMap<usize, (&'static str, String, String)> = HashMap::new();
    for (&copy, &(original, verdict)) in &duplicate_of {
        let (orig_id, orig_url) = match &decided[original].1 {
            Ok(f) => (f.doc.id.clone(), f.doc.url.clone()),
            Err(_) => continue,
        };
        let copy_page = &decided[copy].0;
        let (reason, kind, detail, jaccard) = match verdict {
            Verdict::Near { jaccard, .. } => (
                "near-duplicate",
                "near",
                format!(
                    "near copy of {orig_id} ({orig_url}): {:.0} % of their word 5-shingles shared (Jaccard {jaccard:.3} ≥ {})",
                    jaccard * 100.0,
                    text.near_duplicate_threshold
                ),
                Some(jaccard),
            ),
            Verdict::ExactWithoutDiacritics { .. } => (
                "duplicate",
                "exact-without-diacritics",
                format!(
                    "same text as {orig_id} ({orig_url}) once diacritics are removed; the version with diacritics is kept"
                ),
                None,
            ),
            _ => (
                "duplicate",
                "exact",
                format!("same text as {orig_id} ({orig_url})"),
                None,
            ),
        };
        copies.entry(original).or_default().push(DuplicateRef {
            url_id: copy_page.id,
            url: copy_page.url.clone(),
            kind: kind.to_string(),
            jaccard: jaccard.map(|j| (j * 1000.0).round() / 1000.0),
        });
        dup_reason.insert(copy, (reason, detail, orig_id));
    }

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
                store.decision(id, "unreadable", &detail, None, None, None)?;
                *report.dropped.entry("unreadable".into()).or_default() += 1;
                continue;
            }
        };
        store.page_facts(id, &f.facts)?;
        *report
            .encodings
            .entry(f.doc.encoding_decision.clone())
            .or_default() += 1;
        if let Some((reason, detail)) = reason {
            *report.dropped.entry(reason.into()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, None)?;
            continue;
        }
        if let Some((reason, detail, original)) = dup_reason.remove(&i) {
            *report.dropped.entry(reason.into()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, Some(&original))?;
            continue;
        }
        f.doc.duplicates = copies.remove(&i).unwrap_or_default();
        for r in &f.removed {
            *paragraphs_removed.entry(r.reason.to_string()).or_default() += 1;
            audit.write_record([
                f.doc.id.as_str(),
                f.doc.url.as_str(),
                &r.index.to_string(),
                r.reason,
                &r.detail,
                r.kind,
                &r.text,
            ])?;
        }
        serde_json::to_writer(&mut out, &f.doc)?;
        out.write_all(b"\n")?;
        report.kept += 1;
        store.decision(id, "kept", "", Some(&f.doc.id), None, None)?;
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

/// With `[text] paragraph_language`, the share of a page's text (paragraphs long enough to
/// have their own language) that must be in a target language for the page to be kept with
/// its target-language paragraphs; below, the page is in another language (`language`).
pub const MIN_TARGET_SHARE: f64 = 1.0 / 3.0;

/// The reason a page is not a corpus document, duplicates aside (`None`: it may be one).
fn decide(topic: &Topic, f: &Final) -> Option<(&'static str, String)> {
    let doc = &f.doc;
    let foreign = f.removed.iter().filter(|r| r.reason == "language").count();
    if f.noindex {
        Some((
            "noindex",
            "<meta name=robots> or X-Robots-Tag says noindex".to_string(),
        ))
    } else if !f.had_text {
        Some((
            "empty",
            "no running text after boilerplate removal".to_string(),
        ))
    } else if topic.file.text.paragraph_language
        && f.target_share.is_some_and(|s| s < MIN_TARGET_SHARE)
    {
        Some((
            "language",
            format!(
                "only {:.0} % of the text is in {:?} (a page needs {:.0} % to keep its paragraphs in those languages)",
                f.target_share.unwrap_or(0.0) * 100.0,
                topic.file.languages,
                MIN_TARGET_SHARE * 100.0
            ),
        ))
    } else if doc.paragraphs.is_empty() && foreign > 0 {
        Some((
            "language",
            format!(
                "no paragraph in {:?} ({foreign} in other languages)",
                topic.file.languages
            ),
        ))
    } else if doc.paragraphs.is_empty() {
        Some((
            "empty",
            "every paragraph is host boilerplate (repeated on many pages of the host)".to_string(),
        ))
    } else if !f.language_ok {
        Some((
            "language",
            format!(
                "detected `{}`, topic wants {:?}",
                if doc.language.is_empty() {
                    "?"
                } else {
                    &doc.language
                },
                topic.file.languages
            ),
        ))
    } else if !f.facts.verdict {
        Some((
            "off-topic",
            format!("formula not satisfied; found: {}", doc.matched.join(" | ")),
        ))
    } else {
        None
    }
}

/// Maps `items` on all cores, keeping their order.
fn parallel_map<T: Send, U: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> U + Sync,
    bar: &indicatif::ProgressBar,
) -> Vec<U> {
    let n = items.len();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(n.max(1));
    let slots: Vec<std::sync::Mutex<Option<T>>> = items
        .into_iter()
        .map(|t| std::sync::Mutex::new(Some(t)))
        .collect();
    let results: Vec<std::sync::Mutex<Option<U>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let item = slots[i].lock().ok().and_then(|mut s| s.take());
                    if let Some(item) = item {
                        let value = f(item);
                        if let Ok(mut slot) = results[i].lock() {
                            *slot = Some(value);
                        }
                    }
                    bar.inc(1);
                }
            });
        }
    });
    results
        .into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// Reads `docs.jsonl`.
pub fn read_documents(path: &Path) -> anyhow::Result<Vec<Document>> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read {} (run the extract stage first: `--from extract`)",
            path.display()
        )
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).with_context(|| {
                format!("{} line {}: not a glaneur document", path.display(), i + 1)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_iso_days() {
        assert_eq!(
            iso_date("2024-03-05T23:30:00-05:00").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(iso_date(" 2024/03/05 ").as_deref(), Some("2024-03-05"));
        assert_eq!(iso_date("20240305").as_deref(), Some("2024-03-05"));
        assert_eq!(
            iso_date("Tue, 15 Nov 1994 08:12:31 GMT").as_deref(),
            Some("1994-11-15")
        );
        assert_eq!(iso_date("2024-02-30"), None);
        assert_eq!(iso_date("2024-03"), None);
        assert_eq!(iso_date("hier"), None);
        assert_eq!(iso_date("2024-03/05"), None);
        assert_eq!(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn parallel_map_keeps_order() {
        let bar = indicatif::ProgressBar::hidden();
        let out = parallel_map((0..1000).collect(), |x: i32| x * 2, &bar);
        assert_eq!(out, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
    }
}
