//! The corpus decision (step 4): why a page is not a document (noindex, empty, language,
//! off-topic), then exact and near duplicates among the pages that pass every other test.
//!
//! **In:** a [`Final`] page; the duplicate verdicts of the candidates. **Out:** each page's
//! [`Reason`] and detail; each original's copies.
//!
//! **Invariants:** the decision depends only on the pages and the topic, never on thread
//! scheduling; which copy of a duplicate is kept is `stages::corpus::dedup`'s fixed rule.

use super::*;
use crate::topic::TextSection;

/// With `[text] paragraph_language`, the share of a page's text (paragraphs long enough to
/// have their own language) that must be in a target language for the page to be kept with
/// its target-language paragraphs; below, the page is in another language (`language`).
pub const MIN_TARGET_SHARE: f64 = 1.0 / 3.0;

/// The reason a page is not a corpus document, duplicates aside (`None`: it may be one).
pub(super) fn decide(topic: &Topic, f: &Final) -> Option<(Reason, String)> {
    let doc = &f.doc;
    let foreign = f
        .removed
        .iter()
        .filter(|r| r.reason == Removal::Language)
        .count();
    if f.noindex {
        Some((
            Reason::Noindex,
            "<meta name=robots> or X-Robots-Tag says noindex".to_string(),
        ))
    } else if !f.had_text {
        Some((
            Reason::Empty,
            "no running text after boilerplate removal".to_string(),
        ))
    } else if topic.file.text.paragraph_language
        && f.target_share.is_some_and(|s| s < MIN_TARGET_SHARE)
    {
        Some((
            Reason::Language,
            format!(
                "only {:.0} % of the text is in {:?} (a page needs {:.0} % to keep its paragraphs in those languages)",
                f.target_share.unwrap_or(0.0) * 100.0,
                topic.file.languages,
                MIN_TARGET_SHARE * 100.0
            ),
        ))
    } else if doc.paragraphs.is_empty() && foreign > 0 {
        Some((
            Reason::Language,
            format!(
                "no paragraph in {:?} ({foreign} in other languages)",
                topic.file.languages
            ),
        ))
    } else if doc.paragraphs.is_empty() {
        Some((
            Reason::Empty,
            "every paragraph is host boilerplate (repeated on many pages of the host)".to_string(),
        ))
    } else if !f.language_ok {
        Some((
            Reason::Language,
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
            Reason::OffTopic,
            format!("formula not satisfied; found: {}", doc.matched.join(" | ")),
        ))
    } else {
        None
    }
}

/// A duplicate's corpus decision: reason, detail, and the id of the document it copies.
pub(super) type DuplicateReason = (Reason, String, String);

/// Each original's copies, and each copy's decision, by candidate.
pub(super) type Duplicates = (
    BTreeMap<usize, Vec<DuplicateRef>>,
    HashMap<usize, DuplicateReason>,
);

/// Each original's copies and each copy's decision, by index into the candidates (the
/// documents that pass every other test, in URL-id order), from the copies' verdicts;
/// `document_of(k)` gives candidate `k`'s document id, URL id and URL.
pub(super) fn duplicates(
    text: &TextSection,
    verdicts: &BTreeMap<usize, Verdict>,
    mut document_of: impl FnMut(usize) -> anyhow::Result<(String, i64, String)>,
) -> anyhow::Result<Duplicates> {
    let mut copies: BTreeMap<usize, Vec<DuplicateRef>> = BTreeMap::new();
    let mut dup_reason: HashMap<usize, DuplicateReason> = HashMap::new();
    // Ordered by copy (URL-id order), so each original lists its copies in a stable order.
    for (&copy, &verdict) in verdicts {
        let Some(original) = verdict.original() else {
            continue;
        };
        let (orig_id, _, orig_url) = document_of(original)?;
        let (_, copy_id, copy_url) = document_of(copy)?;
        let (reason, kind, detail, jaccard) = match verdict {
            Verdict::Near { jaccard, .. } => (
                Reason::NearDuplicate,
                "near",
                format!(
                    "near copy of {orig_id} ({orig_url}): {:.0} % of their word 5-shingles shared (Jaccard {jaccard:.3} ≥ {})",
                    jaccard * 100.0,
                    text.near_duplicate_threshold
                ),
                Some(jaccard),
            ),
            Verdict::ExactWithoutDiacritics { .. } => (
                Reason::Duplicate,
                "exact-without-diacritics",
                format!(
                    "same text as {orig_id} ({orig_url}) once diacritics are removed; the version with diacritics is kept"
                ),
                None,
            ),
            _ => (
                Reason::Duplicate,
                "exact",
                format!("same text as {orig_id} ({orig_url})"),
                None,
            ),
        };
        copies.entry(original).or_default().push(DuplicateRef {
            url_id: copy_id,
            url: copy_url,
            kind: kind.to_string(),
            jaccard: jaccard.map(|j| (j * 1000.0).round() / 1000.0),
        });
        dup_reason.insert(copy, (reason, detail, orig_id));
    }
    Ok((copies, dup_reason))
}
