//! One page through the extract stage: read back from the WARC, decoded and cleaned (step 1),
//! host boilerplate found across pages (step 2), then its final text, formula, score and
//! fingerprint (step 3).
//!
//! **In:** a stored page's (file, offset, length). **Out:** a [`Processed`] page, then a
//! [`Final`] one, or why it could not be read.
//!
//! **Invariants:** no store access and no shared state (the steps run on all cores); a
//! damaged record is an `Err` with the file and offset, never a panic.

use super::*;

/// A page read back and cleaned, before the cross-page steps (kept on disk between the
/// passes of the stage).
#[derive(Serialize, Deserialize)]
pub(super) struct Processed {
    pub(super) host: String,
    pub(super) title: Option<String>,
    pub(super) noindex: bool,
    pub(super) language: Option<LangGuess>,
    pub(super) lang_attr: Option<String>,
    pub(super) canonical: Option<String>,
    pub(super) dates: PageDates,
    pub(super) encoding: String,
    pub(super) encoding_decision: String,
    pub(super) paragraphs: Vec<Para>,
    /// Links and attributes past the topic's caps, left out (`[crawl] max_links_per_page`,
    /// `max_attributes_per_element`).
    pub(super) cut: (usize, usize),
}

#[derive(Serialize, Deserialize)]
pub(super) struct Para {
    pub(super) kind: BlockKind,
    pub(super) text: String,
    /// Language detected on the paragraph itself (inheritance is resolved later, on the
    /// paragraphs that survive host-boilerplate removal).
    pub(super) own_lang: Option<String>,
}

/// A paragraph taken out of a page after per-page cleaning.
pub(super) struct RemovedParagraph {
    pub(super) index: usize,
    pub(super) reason: Removal,
    pub(super) detail: String,
    pub(super) kind: &'static str,
    pub(super) text: String,
}

/// A page with its final text, ready for the corpus decision.
pub(super) struct Final {
    pub(super) doc: Document,
    pub(super) facts: PageFacts,
    pub(super) noindex: bool,
    /// The page had running text before the cross-page steps.
    pub(super) had_text: bool,
    /// Share of the letters of paragraphs with an own language that are in a target language.
    pub(super) target_share: Option<f64>,
    pub(super) language_ok: bool,
    pub(super) removed: Vec<RemovedParagraph>,
    pub(super) fingerprint: Fingerprint,
}

pub(super) fn kind_name(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Heading => "heading",
        BlockKind::Paragraph => "paragraph",
        BlockKind::ListItem => "list-item",
        BlockKind::Preformatted => "preformatted",
        BlockKind::TableCell => "table-cell",
        BlockKind::Other => "other",
    }
}

pub(super) fn md5_hex(text: &str) -> String {
    crate::crawl::digest::md5_hex(text.as_bytes())
}

/// `YYYY-MM-DD` of a date as pages and servers write it: RFC 3339 / ISO 8601 (the date as
/// written, in its own time zone), `YYYY/MM/DD`, `YYYY.MM.DD`, `YYYYMMDD`, or an HTTP / RFC 2822
/// date (in UTC).
pub(super) fn iso_date(raw: &str) -> Option<String> {
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

/// The page's stored response, read back whole (its gzip member's checksum checked): the
/// reason it cannot be read otherwise.
pub(super) fn stored_record(
    warc_dir: &Path,
    page: &StoredPage,
) -> Result<stages::web::warc::Record, String> {
    let (file, offset, length) = &page.warc;
    let path = warc_dir.join(file);
    let record = warc::read_record_at(&path, *offset, *length).map_err(|e| {
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
    Ok(record)
}

/// Reads and cleans the page's stored response `record`.
pub(super) fn process(
    options: &ExtractOptions,
    paragraph_language: bool,
    product_token: &str,
    record: &stages::web::warc::Record,
    page: &StoredPage,
) -> Result<Processed, String> {
    let http = stages::web::warc::parse_http_response(&record.block).map_err(|e| e.to_string())?;
    let url = url::Url::parse(&page.url).map_err(|e| e.to_string())?;
    let content_type = http.header("content-type").map(str::to_string);
    let decoded = stages::page::decode::decode(&http.body, content_type.as_deref(), url.host_str());
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
pub(super) fn finalize(
    topic: &Topic,
    page: &StoredPage,
    processed: Processed,
    marks: &[Option<Repeated>],
) -> Final {
    let languages = &topic.file.languages;
    let had_text = !processed.paragraphs.is_empty();
    // Host boilerplate first, so that paragraph languages are inherited from the neighbours a
    // reader sees (a cookie notice between two English paragraphs must not make them French).
    let (survivors, mut removed) =
        remove_host_boilerplate(processed.paragraphs, marks, &processed.host);
    let document_lang = processed.language.as_ref().map(|l| l.code.as_str());
    let (paragraphs, target_share) =
        keep_target_languages(topic, survivors, document_lang, &mut removed);
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
    let count = |reason: Removal| removed.iter().filter(|r| r.reason == reason).count() as u32;
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
        seed_source: page.seed_source.clone(),
        fetched_at: page.fetched_at,
        last_modified: page.last_modified.clone(),
        published: processed.dates.published,
        modified: processed.dates.modified,
        date,
        encoding: processed.encoding,
        encoding_decision: processed.encoding_decision,
        md5: md5_hex(&clean),
        removed: Removed {
            host_boilerplate: count(Removal::HostBoilerplate),
            language: count(Removal::Language),
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

/// The paragraphs left once those repeated on the host's pages are taken out (with their
/// positions in the page), and those taken out.
fn remove_host_boilerplate(
    paragraphs: Vec<Para>,
    marks: &[Option<Repeated>],
    host: &str,
) -> (Vec<(usize, Para)>, Vec<RemovedParagraph>) {
    let mut removed = Vec::new();
    let mut survivors = Vec::with_capacity(paragraphs.len());
    for (index, para) in paragraphs.into_iter().enumerate() {
        if let Some(Some(r)) = marks.get(index) {
            removed.push(RemovedParagraph {
                index,
                reason: Removal::HostBoilerplate,
                detail: format!("on {} of {} pages of {host}", r.pages, r.host_pages),
                kind: kind_name(para.kind),
                text: para.text,
            });
        } else {
            survivors.push((index, para));
        }
    }
    (survivors, removed)
}

/// With `[text] paragraph_language`, the paragraphs in a target language (their language
/// inherited from their neighbours when too short to tell), the others added to `removed`;
/// and the share of the text measured on its own that is in a target language.
fn keep_target_languages(
    topic: &Topic,
    survivors: Vec<(usize, Para)>,
    document_lang: Option<&str>,
    removed: &mut Vec<RemovedParagraph>,
) -> (Vec<Paragraph>, Option<f64>) {
    let languages = &topic.file.languages;
    let own: Vec<Option<String>> = survivors.iter().map(|(_, p)| p.own_lang.clone()).collect();
    let texts: Vec<&str> = survivors.iter().map(|(_, p)| p.text.as_str()).collect();
    let preferred = languages.first().map(String::as_str);
    // Without `[text] paragraph_language` no paragraph language is used or written: the
    // arbitration inside `inherit` runs whatlang on short paragraphs, so it is skipped (it
    // cost 9 % of the stage on a bilingual corpus).
    let langs = if topic.file.text.paragraph_language {
        stages::corpus::paralang::inherit(&own, &texts, document_lang, preferred)
    } else {
        vec![
            stages::corpus::paralang::ParagraphLang {
                code: None,
                own: false,
            };
            texts.len()
        ]
    };
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
                reason: Removal::Language,
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
    (paragraphs, target_share)
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
}
