//! The token formats of the export, in one table ([`TOKEN_FORMATS`]): each writes one
//! document at a time from the same tokens, into a file for the whole corpus or a file of its
//! own. The topic names them in `[output] formats`; the export writes every one it names.
//!
//! **In:** a document's [`Tokens`]. **Out:** the document's text in a format.
//!
//! **Invariants:** every format reads the same tokenisation (so their tokens agree); a format
//! depends on nothing but the document (documents are formatted on any thread, in any order,
//! and written in corpus order by the caller). A new format is a writer and one row of
//! [`TOKEN_FORMATS`].

use super::tagged::Tagset;
use super::treetagger;
use super::vertical::{self, DocMeta, Sentence, Tag};

/// A document as every token format sees it.
pub struct Tokens<'a> {
    /// Its identity and attributes.
    pub meta: &'a DocMeta<'a>,
    /// Paragraphs → sentences → tokens.
    pub split: &'a [Vec<Sentence>],
    /// The tokens of each paragraph.
    pub paragraphs: &'a [Vec<String>],
    /// The clean text of each paragraph.
    pub texts: &'a [String],
    /// One tag per token, when a tagger has run (and its output holds the document).
    pub tags: Option<&'a [Tag]>,
    /// The tagset of the tags.
    pub tagset: Option<Tagset>,
}

/// Where a format puts the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// One file for the corpus, in the format's folder: the documents one after the other.
    Corpus(&'static str),
    /// One file per document, named by the document, with this extension.
    PerDocument(&'static str),
}

/// A token format.
pub struct TokenFormat {
    /// Its name in `[output] formats`, and its folder in the run folder.
    pub name: &'static str,
    /// What reads it.
    pub about: &'static str,
    /// Where its documents go.
    pub files: Files,
    /// Whether a topic may leave it out (the query index is built from `vrt`).
    pub optional: bool,
    /// Appends a document in the format.
    pub write: fn(&Tokens<'_>, &mut String),
}

/// Every token format, in the order of the guide and of `[output] formats`' default.
pub const TOKEN_FORMATS: &[TokenFormat] = &[
    TokenFormat {
        name: "treetagger",
        about: "TreeTagger's input (`[output] treetagger = \"per-document\"`: one file per document)",
        files: Files::Corpus("corpus.tt"),
        optional: true,
        write: |doc, out| treetagger::write_doc(out, doc.meta, doc.paragraphs),
    },
    TokenFormat {
        name: "vrt",
        about: "CWB, Sketch Engine, TXM; the query index is built from it",
        files: Files::Corpus("corpus.vrt"),
        optional: false,
        write: |doc, out| {
            vertical::write_vrt_split(out, doc.meta, doc.split, doc.tags);
        },
    },
    TokenFormat {
        name: "conllu",
        about: "UD tools, UDPipe, Stanza",
        files: Files::Corpus("corpus.conllu"),
        optional: true,
        write: |doc, out| {
            vertical::write_conllu_split(out, doc.meta, doc.split, doc.tags.zip(doc.tagset));
        },
    },
    TokenFormat {
        name: "talismane",
        about: "Talismane's input",
        files: Files::Corpus("corpus.txt"),
        optional: true,
        write: |doc, out| {
            vertical::write_talismane_split(out, doc.split);
        },
    },
    TokenFormat {
        name: "txt",
        about: "the clean text, paragraphs separated by blank lines (AntConc, #LancsBox, TXM's TXT+CSV import)",
        files: Files::PerDocument("txt"),
        optional: true,
        write: write_txt,
    },
];

/// The format named `name`.
pub fn named(name: &str) -> Option<&'static TokenFormat> {
    TOKEN_FORMATS.iter().find(|f| f.name == name)
}

/// The names of every format, in table order.
pub fn names() -> Vec<&'static str> {
    TOKEN_FORMATS.iter().map(|f| f.name).collect()
}

/// A document's paragraphs separated by blank lines, ending with a line break.
fn write_txt(doc: &Tokens<'_>, out: &mut String) {
    let start = out.len();
    for text in doc.texts {
        if out.len() > start {
            out.push_str("\n\n");
        }
        out.push_str(text.trim());
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_writes_the_same_tokens() {
        let meta = DocMeta {
            id: "d000001",
            url: "http://a.test/",
            title: "Graphes",
            lang: "fr",
            score: 0.5,
            host: "a.test",
            date: None,
            seed: "",
        };
        let texts = vec!["Un graphe orienté.".to_string(), "Des arêtes.".to_string()];
        let split = vertical::split_document(&texts, "fr");
        let paragraphs: Vec<Vec<String>> = split
            .iter()
            .map(|s| s.iter().flat_map(|x| x.tokens.iter().cloned()).collect())
            .collect();
        let tokens = Tokens {
            meta: &meta,
            split: &split,
            paragraphs: &paragraphs,
            texts: &texts,
            tags: None,
            tagset: None,
        };
        for format in TOKEN_FORMATS {
            let mut out = String::new();
            (format.write)(&tokens, &mut out);
            assert!(out.contains("graphe"), "{}: {out}", format.name);
        }
        let mut txt = String::new();
        write_txt(&tokens, &mut txt);
        assert_eq!(txt, "Un graphe orienté.\n\nDes arêtes.\n");
        assert_eq!(names(), ["treetagger", "vrt", "conllu", "talismane", "txt"]);
        assert!(named("vrt").is_some_and(|f| !f.optional));
        assert!(named("pdf").is_none());
    }
}
