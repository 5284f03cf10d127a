//! Linguistic export formats written from glaneur's token stream, so that a corpus goes
//! straight into the usual tools:
//!
//! - **vertical XML** (`.vrt`) for CWB/CQPweb, Sketch Engine and TXM: one `<text>` element per
//!   document carrying its metadata as attributes, `<p>` per paragraph, `<s>` per sentence, one
//!   token per line and `<g/>` ("glue") between two tokens that were not separated by
//!   whitespace in the original text;
//! - **CoNLL-U** for UD tools and UDPipe: `# newdoc id`, `# newpar`, `# sent_id`, `# text`
//!   comments, ten columns with only ID, FORM and MISC (`SpaceAfter=No`) filled;
//! - **Talismane's pre-tokenised input**, see [`write_talismane`];
//! - the **TXM `metadata.csv`** row of a document, see [`metadata_csv_row`].
//!
//! Tokens and sentence boundaries come from [`crate::corpus::tokenize`] (TreeTagger-exact), so the
//! three formats hold the same token sequence as the TreeTagger files. Whether whitespace preceded
//! a token is found by aligning the tokens back onto the paragraph text, which the tokenizer allows
//! because it never drops a non-space character.
//!
//! Text is first made safe for every target ([`clean_text`]): NFC (required by CoNLL-U, and
//! what CWB users query with), a leading byte-order mark dropped, the two characters that are
//! whitespace but not allowed in XML 1.0 (U+000B, U+000C) turned into spaces, and every other
//! character XML 1.0 forbids (other C0 controls, U+FFFE, U+FFFF) into U+FFFD, so that a `.vrt`
//! file always parses.
//!
//! Whitespace inside a token (only SGML/XML tags such as `<a href="x">` kept whole by the
//! tokenizer can hold any) is written as one U+0020 per run in every format. The tags are
//! written as ordinary escaped tokens (`&lt;a href="x"&gt;`), never as markup. CoNLL-U allows
//! the space: its specification (UD v2 `format.md`) says "Fields other than FORM, LEMMA, and
//! MISC must not contain space characters", so no U+00A0 substitution is needed (the UD
//! *validator*, at its higher levels, only accepts spaced forms from a per-language list).
//!
//! **In**: per document its metadata ([`DocMeta`]) and its paragraphs as plain text (any
//! content: markup debris, control characters, decomposed accents, empty strings).
//!
//! **Out**: text appended to a caller's `String`; the writers return how many tokens they wrote.
//!
//! **Invariants**: never panics; the three formats hold the same tokens, in the same sentences,
//! as [`sentences`] (which are [`crate::corpus::tokenize::tokenize`]'s tokens of [`clean_text`]'s
//! output, whitespace runs inside a token written as one space); a `.vrt` document is one
//! well-formed XML element; every CoNLL-U sentence satisfies "`# text` = forms joined by a space
//! where `SpaceAfter=No` is absent"; output is NFC.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use crate::corpus::tokenize::{sentence_ends, tokenize_into};
use crate::export::delimited::push_field;

/// What the exports record about a document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocMeta<'a> {
    /// glaneur's document identifier (also the CoNLL-U `newdoc id` and `sent_id` prefix).
    pub id: &'a str,
    /// The URL the document was fetched from.
    pub url: &'a str,
    /// The page title.
    pub title: &'a str,
    /// The document's language code (`"fr"`, `"fr-CA"`…); also chooses the tokenizer rules.
    pub lang: &'a str,
    /// The topic score given by the crawl.
    pub score: f64,
    /// The host name of the URL.
    pub host: &'a str,
    /// The publication or fetch date, if known.
    pub date: Option<&'a str>,
    /// The sources of the seed the document's crawl path starts from (`topic`,
    /// `search:BACKEND`, `result-page:FILE`, `url-list:FILE`); empty when unknown.
    pub seed: &'a str,
}

/// One sentence of a paragraph, ready to be written in any of the formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// The tokens, exactly as the tokenizer gives them for [`clean_text`] of the paragraph.
    pub tokens: Vec<String>,
    /// For each token, whether whitespace (or the end of the paragraph) follows it.
    pub space_after: Vec<bool>,
    /// The sentence's original text with each whitespace run collapsed to one space; it is
    /// the tokens' forms joined by a space where `space_after` is true.
    pub text: String,
}

/// Makes text safe for all formats: NFC, no leading byte-order mark, no character that XML
/// 1.0 forbids (U+000B and U+000C become a space, since the tokenizer treats them as
/// whitespace; other forbidden characters become U+FFFD, keeping tokens where they were).
pub fn clean_text(text: &str) -> String {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let clean = |c| match c {
        '\u{B}' | '\u{C}' => ' ',
        '\t' | '\n' | '\r' => c,
        c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
        c => c,
    };
    // Nearly every paragraph is already in NFC: the quick check proves it without composing.
    if unicode_normalization::is_nfc_quick(text.chars()) == unicode_normalization::IsNormalized::Yes
    {
        text.chars().map(clean).collect()
    } else {
        text.nfc().map(clean).collect()
    }
}

/// Splits a paragraph into sentences of tokens, recording where whitespace separated them.
///
/// The paragraph goes through [`clean_text`] first. A final sentence without closing
/// punctuation is kept. An empty or all-whitespace paragraph gives no sentence.
pub fn sentences(paragraph: &str, lang: &str) -> Vec<Sentence> {
    let text = clean_text(paragraph);
    let mut tokens = Vec::new();
    tokenize_into(&text, lang, &mut tokens);
    if tokens.is_empty() {
        return Vec::new();
    }
    let spans = align(&text, &tokens);
    let space_after: Vec<bool> = (0..tokens.len())
        .map(|i| match (spans[i], spans.get(i + 1).copied().flatten()) {
            (Some((_, end)), Some((next_start, _))) => next_start > end,
            // End of the paragraph, or alignment lost (not expected; see `align`).
            _ => true,
        })
        .collect();

    let mut bounds: Vec<usize> = sentence_ends(&tokens, lang)
        .into_iter()
        .map(|end| end + 1)
        .filter(|&end| end <= tokens.len())
        .collect();
    if bounds.last() != Some(&tokens.len()) {
        bounds.push(tokens.len());
    }

    let mut out = Vec::with_capacity(bounds.len());
    let mut token_iter = tokens.into_iter();
    let mut start = 0;
    for end in bounds {
        if end <= start {
            continue;
        }
        let sentence_tokens: Vec<String> = token_iter.by_ref().take(end - start).collect();
        let sentence_space = space_after[start..end].to_vec();
        let mut text = String::new();
        for (i, token) in sentence_tokens.iter().enumerate() {
            if i > 0 && sentence_space[i - 1] {
                text.push(' ');
            }
            text.push_str(&form(token));
        }
        out.push(Sentence {
            tokens: sentence_tokens,
            space_after: sentence_space,
            text,
        });
        start = end;
    }
    out
}

/// Byte spans of the tokens in `text`, in order. A token's whitespace may differ from the
/// text's (the tokenizer turns tabs inside tags into blanks), so any whitespace character
/// matches any other. Should a token ever not be found where expected, it and all later
/// tokens get `None` and are treated as separated by spaces: wrong glue is better than a
/// panic or a lost token.
fn align(text: &str, tokens: &[String]) -> Vec<Option<(usize, usize)>> {
    let mut spans = Vec::with_capacity(tokens.len());
    let mut pos = 0;
    let mut lost = false;
    for token in tokens {
        if lost {
            spans.push(None);
            continue;
        }
        let start = text[pos..]
            .char_indices()
            .find(|&(_, c)| !c.is_whitespace())
            .map_or(text.len(), |(i, _)| pos + i);
        match match_at(text, start, token) {
            Some(end) => {
                spans.push(Some((start, end)));
                pos = end;
            }
            None => {
                lost = true;
                spans.push(None);
            }
        }
    }
    spans
}

/// End of `token` if it occurs in `text` at byte `start`, whitespace matching whitespace.
fn match_at(text: &str, start: usize, token: &str) -> Option<usize> {
    let mut chars = text.get(start..)?.char_indices();
    let mut end = start;
    for want in token.chars() {
        let (i, got) = chars.next()?;
        if got != want && !(got.is_whitespace() && want.is_whitespace()) {
            return None;
        }
        end = start + i + got.len_utf8();
    }
    Some(end)
}

/// The form written for a token: whitespace runs (only tags hold any) become one space, so a
/// token never breaks a line or a tab-separated column.
fn form(token: &str) -> Cow<'_, str> {
    if token.chars().any(char::is_whitespace) {
        Cow::Owned(collapse_whitespace(token))
    } else {
        Cow::Borrowed(token)
    }
}

/// `s` with each whitespace run turned into one space and the ends trimmed.
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A metadata value made safe for one line: cleaned and whitespace collapsed.
fn one_line(value: &str) -> String {
    collapse_whitespace(&clean_text(value))
}

/// Appends `s` with `&`, `<`, `>` escaped (and, for attributes, both quotes).
fn push_escaped(out: &mut String, s: &str, attribute: bool) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
}

/// The score as text: shortest round-trip decimal, empty when not finite.
fn score_text(score: f64) -> String {
    if score.is_finite() {
        format!("{score}")
    } else {
        String::new()
    }
}

/// Appends one document in vertical XML (`.vrt`) and returns the number of tokens written.
///
/// ```text
/// <text id=".." url=".." title=".." lang=".." score=".." host=".." date="..">
/// <p>
/// <s>
/// l'
/// <g/>
/// image
/// </s>
/// </p>
/// </text>
/// ```
///
/// Every document carries all seven attributes (`date=""` when unknown) so that CWB can
/// declare them once. Paragraphs without tokens are left out, since CWB cannot hold
/// zero-length regions; a document without tokens is an empty `<text>` element.
pub fn write_vrt(out: &mut String, meta: &DocMeta<'_>, paragraphs: &[String]) -> usize {
    write_vrt_split(out, meta, &split_document(paragraphs, meta.lang), None)
}

/// A tagger's part of speech and lemma for one token (see [`crate::export::tagged`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Part of speech as the tagger wrote it.
    pub pos: String,
    /// Lemma (normalised: never empty, never `<unknown>`).
    pub lemma: String,
}

/// [`write_vrt`] for a document already split by [`split_document`]; with `tags` (one per
/// token, in order) each token line is `word<TAB>pos<TAB>lemma` (`_` for a token past the
/// end of `tags`), the three positional attributes `cwb-encode -P pos -P lemma` declares.
pub fn write_vrt_split(
    out: &mut String,
    meta: &DocMeta<'_>,
    paragraphs: &[Vec<Sentence>],
    tags: Option<&[Tag]>,
) -> usize {
    out.push_str("<text");
    let score = score_text(meta.score);
    let attributes = [
        ("id", meta.id),
        ("url", meta.url),
        ("title", meta.title),
        ("lang", meta.lang),
        ("score", score.as_str()),
        ("host", meta.host),
        ("date", meta.date.unwrap_or("")),
        ("seed", meta.seed),
    ];
    for (name, value) in attributes {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        push_escaped(out, &one_line(value), true);
        out.push('"');
    }
    out.push_str(">\n");
    let mut count = 0;
    for sentences in paragraphs {
        if sentences.is_empty() {
            continue;
        }
        out.push_str("<p>\n");
        for sentence in sentences {
            out.push_str("<s>\n");
            for (i, token) in sentence.tokens.iter().enumerate() {
                if i > 0 && !sentence.space_after[i - 1] {
                    out.push_str("<g/>\n");
                }
                push_escaped(out, &form(token), false);
                if let Some(tags) = tags {
                    let tag = tags.get(count + i);
                    for value in [tag.map(|t| &t.pos), tag.map(|t| &t.lemma)] {
                        out.push('\t');
                        push_escaped(out, &form(value.map_or("_", String::as_str)), false);
                    }
                }
                out.push('\n');
            }
            count += sentence.tokens.len();
            out.push_str("</s>\n");
        }
        out.push_str("</p>\n");
    }
    out.push_str("</text>\n");
    count
}

/// A document split once into paragraphs of sentences: the one token stream every export
/// format is written from (paragraphs without tokens are left out).
pub fn split_document(paragraphs: &[String], lang: &str) -> Vec<Vec<Sentence>> {
    paragraphs
        .iter()
        .map(|p| sentences(p, lang))
        .filter(|s| !s.is_empty())
        .collect()
}

/// The tokens of each paragraph of a document split by [`split_document`], its sentences
/// joined: what TreeTagger's files hold and what a tagger is given.
pub fn paragraph_tokens(split: &[Vec<Sentence>]) -> Vec<Vec<String>> {
    split
        .iter()
        .map(|sentences| {
            sentences
                .iter()
                .flat_map(|s| s.tokens.iter().cloned())
                .collect()
        })
        .collect()
}

/// Appends one document in CoNLL-U and returns the number of tokens written.
///
/// `# newdoc id = <id>` opens the document, `# newpar` each paragraph that has tokens, and each
/// sentence has `# sent_id = <id>-<n>` (n from 1 within the document) and `# text = …`. Only
/// ID, FORM and MISC are filled (`SpaceAfter=No` where no whitespace follows the token, `_`
/// otherwise); every sentence ends with a blank line. Whitespace in the id becomes `_` (a
/// `sent_id` may not hold any) and an empty id becomes `doc`. A document without tokens writes
/// nothing, since CoNLL-U comments must belong to a sentence.
pub fn write_conllu(out: &mut String, meta: &DocMeta<'_>, paragraphs: &[String]) -> usize {
    write_conllu_split(out, meta, &split_document(paragraphs, meta.lang), None)
}

/// [`write_conllu`] for a document already split by [`split_document`]; with `tags` (one per
/// token, in order) UPOS, XPOS and LEMMA are filled: a UD tagset goes to UPOS; another
/// tagset (TreeTagger's) goes to XPOS, with UPOS mapped from it where
/// [`crate::export::tagged::upos_of`] knows the tag.
pub fn write_conllu_split(
    out: &mut String,
    meta: &DocMeta<'_>,
    paragraphs: &[Vec<Sentence>],
    tags: Option<(&[Tag], crate::export::tagged::Tagset)>,
) -> usize {
    if paragraphs.iter().all(Vec::is_empty) {
        return 0;
    }
    let mut id = one_line(meta.id).replace(' ', "_");
    if id.is_empty() {
        id.push_str("doc");
    }
    out.push_str("# newdoc id = ");
    out.push_str(&id);
    out.push('\n');
    let mut sentence_number = 0usize;
    let mut count = 0;
    for sentences in paragraphs.iter().filter(|s| !s.is_empty()) {
        out.push_str("# newpar\n");
        for sentence in sentences {
            sentence_number += 1;
            out.push_str(&format!("# sent_id = {id}-{sentence_number}\n"));
            out.push_str("# text = ");
            out.push_str(&sentence.text);
            out.push('\n');
            for (i, token) in sentence.tokens.iter().enumerate() {
                let misc = if sentence.space_after[i] {
                    "_"
                } else {
                    "SpaceAfter=No"
                };
                let (lemma, upos, xpos) = match tags {
                    Some((tags, tagset)) => match tags.get(count + i) {
                        Some(tag) => {
                            let (upos, xpos) = tagset.conllu(&tag.pos);
                            (form(&tag.lemma).into_owned(), upos, xpos)
                        }
                        None => ("_".to_string(), "_".to_string(), "_".to_string()),
                    },
                    None => ("_".to_string(), "_".to_string(), "_".to_string()),
                };
                out.push_str(&format!(
                    "{}\t{}\t{lemma}\t{upos}\t{xpos}\t_\t_\t_\t_\t{misc}\n",
                    i + 1,
                    form(token)
                ));
            }
            count += sentence.tokens.len();
            out.push('\n');
        }
    }
    count
}

/// Appends paragraphs as Talismane's pre-tokenised input and returns the number of tokens.
///
/// What Talismane expects (read from its sources, `joliciel-informatique/talismane`):
/// `TokenRegexBasedCorpusReader` reads one token per line, matching each whole line against the
/// configured input pattern in which `%TOKEN%` marks the token (the default in its
/// `reference.conf` is `.+\t%TOKEN%`; `%INDEX%` marks an index column), and ends a sentence at
/// each blank line. The token captured is passed through `CoNLLFormatter.fromCoNLL`, which with
/// the default `conll.spaces-to-underscores = true` reads `_` alone as the empty string, every
/// other `_` as a space and `&und;` as `_`.
///
/// So each line here is `<index>\t<token>` (index from 1 within the sentence), which both the
/// default pattern and `%INDEX%\t%TOKEN%` read, and the token is written with Talismane's own
/// `toCoNLL` (`_` → `&und;`, then space → `_`) so that it reads back unchanged. A blank line
/// follows every sentence. The reader has no comment lines, hence no document metadata. A
/// literal `&und;` in the text would read back as `_` (the format has no escape for it).
pub fn write_talismane(out: &mut String, paragraphs: &[String], lang: &str) -> usize {
    write_talismane_split(out, &split_document(paragraphs, lang))
}

/// [`write_talismane`] for a document already split by [`split_document`].
pub fn write_talismane_split(out: &mut String, paragraphs: &[Vec<Sentence>]) -> usize {
    let mut count = 0;
    for sentences in paragraphs {
        for sentence in sentences {
            for (i, token) in sentence.tokens.iter().enumerate() {
                out.push_str(&(i + 1).to_string());
                out.push('\t');
                out.push_str(&form(token).replace('_', "&und;").replace(' ', "_"));
                out.push('\n');
            }
            count += sentence.tokens.len();
            out.push('\n');
        }
    }
    count
}

/// Header line of TXM's `metadata.csv` (without line ending): `id` first, as TXM requires.
pub fn metadata_csv_header() -> &'static str {
    "id,url,title,host,language,date,score,tokens"
}

/// One `metadata.csv` line (without line ending) for a document of `tokens` tokens.
///
/// Fields are cleaned like the text and their whitespace collapsed (a title never spans
/// lines); a field is quoted by [`delimited`](crate::export::delimited)'s rule (a `,`, `"`,
/// `'` or `#`: inner quotes doubled, as RFC 4180 does).
pub fn metadata_csv_row(meta: &DocMeta<'_>, tokens: usize) -> String {
    let score = score_text(meta.score);
    let tokens = tokens.to_string();
    let fields = [
        meta.id,
        meta.url,
        meta.title,
        meta.host,
        meta.lang,
        meta.date.unwrap_or(""),
        score.as_str(),
        tokens.as_str(),
    ];
    let mut row = String::new();
    for (i, field) in fields.into_iter().enumerate() {
        if i > 0 {
            row.push(',');
        }
        push_field(&mut row, &one_line(field), ',');
    }
    row
}

#[cfg(test)]
mod tests;
