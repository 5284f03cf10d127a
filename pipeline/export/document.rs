//! One document through the export, on any core: tokenized and split into sentences once,
//! then written in every token format.
//!
//! **In:** a document of `docs.jsonl` and, when a tagger has run, its tagged tokens.
//! **Out:** a [`Formatted`] document: the text of its TreeTagger, `.vrt`, CoNLL-U and
//! Talismane blocks and its `metadata.csv` row, its sentences (for the matrix), and its
//! `txt/<id>.txt` (and, with `[output] treetagger = "per-document"`, `treetagger/<id>.tt`)
//! already written.
//!
//! **Invariants:** every format comes from the same token stream; nothing here depends on
//! other documents, so documents are formatted in any order on any thread and written in
//! `docs.jsonl` order by the caller.

use std::path::PathBuf;

use anyhow::Context;
use stages::export::tagged::{TaggedToken, Tagset};
use stages::export::{treetagger, vertical};

use super::tags::aligned_tags;
use super::{sitemap_stem, write};
use crate::extract::Document;
use crate::topic::TreeTaggerLayout;

/// What every document's formatting shares.
pub(super) struct Shared {
    /// The language of a document whose language was not detected.
    pub(super) default_language: String,
    pub(super) layout: TreeTaggerLayout,
    /// `None` when the topic leaves the format out (`[output] formats`).
    pub(super) tt_dir: Option<PathBuf>,
    pub(super) txt_dir: Option<PathBuf>,
    pub(super) conllu: bool,
    pub(super) talismane: bool,
    /// The tagset of the tagger output, when a tagger has run.
    pub(super) tagset: Option<Tagset>,
}

/// A document and its tagged tokens: `None` when no tagger has run, `Some(None)` when the
/// tagger output does not hold it.
pub(super) type Job = (Document, Option<Option<Vec<TaggedToken>>>);

/// A document formatted in every token format.
pub(super) struct Formatted {
    pub(super) doc: Document,
    /// Paragraphs → sentences → tokens.
    pub(super) split: Vec<Vec<vertical::Sentence>>,
    pub(super) n_tokens: usize,
    /// The tagger's tokens (for the lemma matrix); see [`Job`].
    pub(super) tagged: Option<Option<Vec<TaggedToken>>>,
    /// The tags did not reach the formats (absent or stale tagger output).
    pub(super) untagged: bool,
    /// `corpus.tt`'s block (empty with per-document files); each block is empty when the
    /// topic leaves its format out.
    pub(super) tt: String,
    pub(super) vrt: String,
    pub(super) conllu: String,
    pub(super) talismane: String,
    pub(super) metadata: String,
}

/// Formats one document.
pub(super) fn format(shared: &Shared, (doc, tagged): Job) -> anyhow::Result<Formatted> {
    let lang = if doc.language.is_empty() {
        shared.default_language.as_str()
    } else {
        doc.language.as_str()
    };
    // One tokenisation per document feeds every format and the matrix.
    let texts: Vec<String> = doc.paragraphs.iter().map(|p| p.text.clone()).collect();
    let split = vertical::split_document(&texts, lang);
    let paragraphs: Vec<Vec<String>> = split
        .iter()
        .map(|sentences| {
            sentences
                .iter()
                .flat_map(|s| s.tokens.iter().cloned())
                .collect()
        })
        .collect();
    let n_tokens: usize = paragraphs.iter().map(Vec::len).sum();
    // The date the page declares (extract stage), else `Last-Modified` (documents written
    // before the extract stage recorded dates).
    let date = doc.date.clone().or_else(|| {
        doc.last_modified
            .as_deref()
            .and_then(|d| httpdate::parse_http_date(d).ok())
            .map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%d")
                    .to_string()
            })
    });
    let meta = vertical::DocMeta {
        id: &doc.id,
        url: &doc.url,
        title: &doc.title,
        lang,
        score: doc.score,
        host: &doc.host,
        date: date.as_deref(),
    };
    let mut tt = String::new();
    match (&shared.tt_dir, shared.layout) {
        (None, _) => {}
        (Some(_), TreeTaggerLayout::PerCorpus) => {
            treetagger::write_doc(&mut tt, &meta, &paragraphs)
        }
        (Some(dir), TreeTaggerLayout::PerDocument) => {
            let mut one = String::new();
            treetagger::write_doc(&mut one, &meta, &paragraphs);
            let path = dir.join(format!("{}.tt", doc.id));
            std::fs::write(&path, one)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    let tags = tagged.as_ref().map(|tokens| {
        tokens
            .as_deref()
            .and_then(|tokens| aligned_tags(tokens, &split))
    });
    let untagged = matches!(tags, Some(None));
    let tags = tags.map(Option::unwrap_or_default);
    let mut vrt = String::new();
    vertical::write_vrt_split(&mut vrt, &meta, &split, tags.as_deref());
    let mut conllu = String::new();
    if shared.conllu {
        vertical::write_conllu_split(
            &mut conllu,
            &meta,
            &split,
            tags.as_deref().zip(shared.tagset),
        );
    }
    let mut talismane = String::new();
    if shared.talismane {
        vertical::write_talismane_split(&mut talismane, &split);
    }
    let metadata = vertical::metadata_csv_row(&meta, n_tokens);
    if let Some(dir) = &shared.txt_dir {
        write_txt(dir, &doc)?;
    }
    Ok(Formatted {
        split,
        n_tokens,
        tagged,
        untagged,
        tt,
        vrt,
        conllu,
        talismane,
        metadata,
        doc,
    })
}

/// `txt/<id>.txt`: the document's paragraphs separated by blank lines (AntConc, #LancsBox,
/// TXM's TXT+CSV import with `metadata.csv`).
fn write_txt(dir: &std::path::Path, doc: &Document) -> anyhow::Result<()> {
    let mut text = String::new();
    for p in &doc.paragraphs {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(p.text.trim());
    }
    text.push('\n');
    write(
        &dir.join(format!("{}.txt", sitemap_stem(&doc.id))),
        text.as_bytes(),
    )
}
