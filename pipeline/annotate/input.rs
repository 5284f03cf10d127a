//! A document as the tagger reads it: its TreeTagger-ready block, tokenized exactly as the
//! export tokenizes it, and the digest of its tokens.
//!
//! **In:** a document of `docs.jsonl`. **Out:** an [`Item`]: the `<doc>` block (the lines
//! `treetagger/` holds for it), its token lines, its language and digest.
//!
//! **Invariants:** the tokens are the export's (same tokenizer, same split, same escaping), so
//! the tags line up with the `.vrt` and CoNLL-U tokens; the digest covers the tokens and their
//! paragraphs only (a new title or score does not make a document to tag again).

use stages::export::{treetagger, vertical};

use crate::extract::Document;

/// A document to tag.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) url_id: i64,
    /// Its id (`d` + URL id).
    pub(super) id: String,
    /// Its language (the topic's first when it was not detected).
    pub(super) lang: String,
    /// Its `<doc>` … `</doc>` block, TreeTagger-ready.
    pub(super) block: String,
    /// Its token lines, as the block writes them.
    pub(super) tokens: Vec<String>,
    /// Digest of its tokens and paragraphs.
    pub(super) digest: String,
}

impl Item {
    /// The document as the tagger reads it.
    pub(super) fn of(doc: &Document, default_language: &str) -> Item {
        let lang = doc.language_or(default_language);
        let split = vertical::split_document(&doc.texts(), lang);
        let paragraphs = vertical::paragraph_tokens(&split);
        let meta = doc.vertical_meta(lang, None);
        let mut block = String::new();
        treetagger::write_doc(&mut block, &meta, &paragraphs);
        // Every line after the `<doc>` line: paragraphs and tokens, not the title or score.
        let body = block.split_once('\n').map_or("", |(_, rest)| rest);
        let tokens = body
            .lines()
            .filter(|line| !line.starts_with('<'))
            .map(str::to_string)
            .collect();
        let digest = crate::crawl::digest::md5_hex(body.as_bytes());
        Item {
            url_id: doc.url_id,
            id: doc.id.clone(),
            lang: lang.to_string(),
            block,
            tokens,
            digest,
        }
    }
}
