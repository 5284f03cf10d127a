//! One document through the export, on any core: tokenized and split into sentences once,
//! then written in every token format.
//!
//! **In:** a document of `docs.jsonl` and, when a tagger has run, its tagged tokens.
//! **Out:** a [`Formatted`] document: its block of each corpus file of the token formats the
//! topic asks for (`stages::export::formats`) and its `metadata.csv` row, its sentences (for
//! the matrix); its files of the per-document formats (`txt/<id>.txt`, and with `[output]
//! treetagger = "per-document"`, `treetagger/<id>.tt`) already written.
//!
//! **Invariants:** every format comes from the same token stream; nothing here depends on
//! other documents, so documents are formatted in any order on any thread and written in
//! `docs.jsonl` order by the caller.

use std::path::PathBuf;

use stages::export::formats::{Files, TokenFormat, Tokens};
use stages::export::tagged::{TaggedToken, Tagset};
use stages::export::vertical;

use super::tags::aligned_tags;
use super::{sitemap_stem, write};
use crate::extract::Document;

/// A token format the topic asks for, and where its documents go.
pub(super) struct Written {
    pub(super) format: &'static TokenFormat,
    /// The treetagger layout of the topic applied.
    pub(super) files: Files,
    /// Its folder in the run folder.
    pub(super) dir: PathBuf,
}

/// What every document's formatting shares.
pub(super) struct Shared {
    /// The language of a document whose language was not detected.
    pub(super) default_language: String,
    /// The token formats written, in table order.
    pub(super) formats: Vec<Written>,
    /// The tagset of the tagger output, when a tagger has run.
    pub(super) tagset: Option<Tagset>,
    /// Write each tagged document in TreeTagger's output shape (`tagged/corpus.tagged`).
    pub(super) tagged_out: bool,
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
    /// The document's block of each corpus file, in [`Shared::formats`] order (empty for the
    /// formats that write a file per document, written already).
    pub(super) blocks: Vec<String>,
    pub(super) metadata: String,
    /// Its block of `tagged/corpus.tagged` (empty: not asked, or not tagged).
    pub(super) tagged_block: String,
}

/// Formats one document.
pub(super) fn format(shared: &Shared, (doc, tagged): Job) -> anyhow::Result<Formatted> {
    let lang = doc.language_or(&shared.default_language);
    // One tokenisation per document feeds every format and the matrix.
    let texts = doc.texts();
    let split = vertical::split_document(&texts, lang);
    let paragraphs = vertical::paragraph_tokens(&split);
    let n_tokens: usize = paragraphs.iter().map(Vec::len).sum();
    let date = date_of(&doc);
    let meta = doc.vertical_meta(lang, date.as_deref());
    let tags = tagged.as_ref().map(|tokens| {
        tokens
            .as_deref()
            .and_then(|tokens| aligned_tags(tokens, &split))
    });
    let untagged = matches!(tags, Some(None));
    let tags_aligned = tags.clone();
    let tags = tags.map(Option::unwrap_or_default);
    let tokens = Tokens {
        meta: &meta,
        split: &split,
        paragraphs: &paragraphs,
        texts: &texts,
        tags: tags.as_deref(),
        tagset: shared.tagset,
    };
    let mut blocks = Vec::with_capacity(shared.formats.len());
    for written in &shared.formats {
        let mut text = String::new();
        (written.format.write)(&tokens, &mut text);
        match written.files {
            Files::Corpus(_) => blocks.push(text),
            Files::PerDocument(extension) => {
                let name = format!("{}.{extension}", sitemap_stem(&doc.id));
                write(&written.dir.join(name), text.as_bytes())?;
                blocks.push(String::new());
            }
        }
    }
    let metadata = vertical::metadata_csv_row(&meta, n_tokens);
    let mut tagged_block = String::new();
    if shared.tagged_out
        && let Some(Some(tags)) = &tags_aligned
    {
        stages::export::treetagger::write_tagged_doc(&mut tagged_block, &meta, &paragraphs, tags);
    }
    Ok(Formatted {
        split,
        n_tokens,
        tagged,
        untagged,
        blocks,
        metadata,
        tagged_block,
        doc,
    })
}

/// The date the page declares (extract stage), else `Last-Modified` (documents written
/// before the extract stage recorded dates).
fn date_of(doc: &Document) -> Option<String> {
    doc.date.clone().or_else(|| {
        doc.last_modified
            .as_deref()
            .and_then(|d| httpdate::parse_http_date(d).ok())
            .map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%d")
                    .to_string()
            })
    })
}
