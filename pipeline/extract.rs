//! The extract stage: stored responses → clean documents → `docs.jsonl`.
//!
//! **In:** every fetched page with status 200 and an HTML or text body, read back from the
//! run's WARC file by the (offset, length) that `crawl.sqlite` keeps.
//! **Out:** `docs.jsonl` (one JSON object per kept document) and, in `crawl.sqlite`, the final
//! reason of every such page (`kept`, `noindex`, `empty`, `language`, `off-topic`, `duplicate`).
//!
//! **Invariants:** never fetches; the same WARC and topic always give the same `docs.jsonl`
//! (pages are processed in URL-id order, and the first of two identical texts is the one
//! kept); `docs.jsonl` is written to a temporary file and renamed, so a crash leaves either the
//! old file or the new one; one damaged record is a recorded reason, not an error.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use stages::extract::{BlockKind, ExtractOptions};
use stages::formula::PreparedText;
use stages::score::{self, PageEvidence};

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
    /// Encoding used to decode the page.
    pub encoding: String,
    /// Why that encoding (`bom`, `http-header`, `meta-prescan`, `detected`, ...).
    pub encoding_decision: String,
    /// MD5 of the clean text (hex).
    pub md5: String,
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
}

/// The result of processing one page, before the corpus decision.
struct Candidate {
    page: StoredPage,
    outcome: Result<Processed, String>,
}

struct Processed {
    doc: Document,
    facts: PageFacts,
    noindex: bool,
    /// MD5 of the text with diacritics removed (seed 002: copies served without accents).
    md5_plain: String,
    language_ok: bool,
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

fn strip_diacritics(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    text.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect()
}

fn process(
    topic: &Topic,
    options: &ExtractOptions,
    warc_dir: &Path,
    page: &StoredPage,
) -> Result<Processed, String> {
    let (file, offset, length) = &page.warc;
    let record = warcfile::read_record_at(&warc_dir.join(file), *offset, *length)
        .map_err(|e| format!("{e:#}"))?;
    let http = stages::warc::parse_http_response(&record.block).map_err(|e| e.to_string())?;
    let url = url::Url::parse(&page.url).map_err(|e| e.to_string())?;
    let content_type = http.header("content-type").map(str::to_string);
    let tld = tld_of(&url);
    let decoded = stages::decode::decode(&http.body, content_type.as_deref(), tld.as_deref());
    let is_plain = content_type
        .as_deref()
        .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/plain"));
    let extracted = if is_plain {
        stages::extract::extract_plain(&decoded.text)
    } else {
        stages::extract::extract_html(&decoded.text, &url, options)
    };
    let title = extracted.title.clone().unwrap_or_default();
    let paragraphs: Vec<Paragraph> = extracted
        .kept()
        .map(|b| Paragraph {
            kind: kind_name(b.kind).to_string(),
            text: b.text.clone(),
        })
        .collect();
    let clean = extracted.clean_text();
    let prepared = PreparedText::new(&format!("{title}\n\n{clean}"), topic.formula.options());
    let verdict = topic.formula.evaluate_prepared(&prepared);
    let (language, confidence) = extracted
        .language
        .as_ref()
        .map_or((String::new(), 0.0), |l| (l.code.clone(), l.confidence));
    let languages = &topic.file.languages;
    let language_ok = languages.is_empty() || languages.contains(&language);
    let score = score::page_score(&PageEvidence {
        verdict: &verdict,
        tokens: prepared.token_count(),
        language_ok,
        language_confidence: confidence,
    });
    let md5 = md5_hex(&clean);
    let md5_plain = md5_hex(&strip_diacritics(&clean));
    let facts = PageFacts {
        score,
        verdict: verdict.satisfied,
        matched: verdict.matched.clone(),
        language: (!language.is_empty()).then(|| language.clone()),
        title: extracted.title.clone(),
    };
    let doc = Document {
        id: format!("d{:06}", page.id),
        url_id: page.id,
        url: page.url.clone(),
        host: url.host_str().unwrap_or("").to_string(),
        title,
        language,
        language_confidence: confidence,
        score,
        matched: verdict.matched,
        depth: page.depth,
        seed: page.seed,
        fetched_at: page.fetched_at,
        last_modified: page.last_modified.clone(),
        encoding: decoded.encoding.name().to_string(),
        encoding_decision: serde_json::to_value(decoded.decision)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        md5,
        paragraphs,
    };
    Ok(Processed {
        doc,
        facts,
        // `<meta name=robots>` or an `X-Robots-Tag` header addressed to every crawler or to us.
        noindex: extracted.meta_robots.noindex
            || stages::robots::x_robots_tag(
                http.headers
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case("x-robots-tag"))
                    .map(|(_, v)| v.as_str()),
                &stages::robots::product_token(&topic.user_agent()),
            )
            .noindex,
        md5_plain,
        language_ok,
    })
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
        ..ExtractOptions::default()
    };
    let warc_dir = run_dir.join("warc");
    let candidates = parallel_map(
        pages,
        |page| Candidate {
            outcome: process(topic, &options, &warc_dir, &page),
            page,
        },
        bar,
    );

    let mut report = ExtractReport {
        pages: candidates.len() as u64,
        ..ExtractReport::default()
    };
    let tmp = run_dir.join("docs.jsonl.tmp");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?,
    );
    // Exact duplicates: the same clean text, or the same text without diacritics (a copy
    // served without accents). The first in URL-id order is kept.
    let mut seen: HashMap<String, String> = HashMap::new();
    for candidate in candidates {
        let id = candidate.page.id;
        let processed = match candidate.outcome {
            Ok(p) => p,
            Err(detail) => {
                store.decision(id, "unreadable", &detail, None, None, None)?;
                *report.dropped.entry("unreadable".into()).or_default() += 1;
                continue;
            }
        };
        store.page_facts(id, &processed.facts)?;
        *report
            .encodings
            .entry(processed.doc.encoding_decision.clone())
            .or_default() += 1;
        let doc = &processed.doc;
        let (reason, detail, duplicate_of) = if processed.noindex {
            (
                "noindex",
                "<meta name=robots> or X-Robots-Tag says noindex".to_string(),
                None,
            )
        } else if doc.paragraphs.is_empty() {
            (
                "empty",
                "no running text after boilerplate removal".to_string(),
                None,
            )
        } else if !processed.language_ok {
            (
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
                None,
            )
        } else if !processed.facts.verdict {
            (
                "off-topic",
                format!("formula not satisfied; found: {}", doc.matched.join(" | ")),
                None,
            )
        } else if let Some(original) = seen
            .get(&doc.md5)
            .or_else(|| seen.get(&processed.md5_plain))
            .cloned()
        {
            (
                "duplicate",
                format!("same text as {original}"),
                Some(original),
            )
        } else {
            ("kept", String::new(), None)
        };
        if reason == "kept" {
            seen.insert(doc.md5.clone(), doc.id.clone());
            seen.insert(processed.md5_plain.clone(), doc.id.clone());
            serde_json::to_writer(&mut out, doc)?;
            out.write_all(b"\n")?;
            report.kept += 1;
            store.decision(id, "kept", "", Some(&doc.id), None, None)?;
        } else {
            *report.dropped.entry(reason.into()).or_default() += 1;
            store.decision(id, reason, &detail, None, None, duplicate_of.as_deref())?;
        }
    }
    out.flush()?;
    drop(out);
    let final_path = run_dir.join("docs.jsonl");
    std::fs::rename(&tmp, &final_path)
        .with_context(|| format!("cannot write {}", final_path.display()))?;
    store.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    report.pages_per_second = report.pages as f64 / report.seconds.max(1e-6);
    bar.finish_and_clear();
    Ok(report)
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
    fn diacritics_are_stripped_for_the_second_digest() {
        assert_eq!(strip_diacritics("Été à Brno, œuvre"), "Ete a Brno, œuvre");
        assert_ne!(md5_hex("été"), md5_hex("ete"));
        assert_eq!(md5_hex(&strip_diacritics("été")), md5_hex("ete"));
    }

    #[test]
    fn parallel_map_keeps_order() {
        let bar = indicatif::ProgressBar::hidden();
        let out = parallel_map((0..1000).collect(), |x: i32| x * 2, &bar);
        assert_eq!(out, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
    }
}
