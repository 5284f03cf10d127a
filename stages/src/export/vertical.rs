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
    text.nfc()
        .map(|c| match c {
            '\u{B}' | '\u{C}' => ' ',
            '\t' | '\n' | '\r' => c,
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
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
    write_vrt_split(out, meta, &split_document(paragraphs, meta.lang))
}

/// [`write_vrt`] for a document already split by [`split_document`].
pub fn write_vrt_split(
    out: &mut String,
    meta: &DocMeta<'_>,
    paragraphs: &[Vec<Sentence>],
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

/// Appends one document in CoNLL-U and returns the number of tokens written.
///
/// `# newdoc id = <id>` opens the document, `# newpar` each paragraph that has tokens, and each
/// sentence has `# sent_id = <id>-<n>` (n from 1 within the document) and `# text = …`. Only
/// ID, FORM and MISC are filled (`SpaceAfter=No` where no whitespace follows the token, `_`
/// otherwise); every sentence ends with a blank line. Whitespace in the id becomes `_` (a
/// `sent_id` may not hold any) and an empty id becomes `doc`. A document without tokens writes
/// nothing, since CoNLL-U comments must belong to a sentence.
pub fn write_conllu(out: &mut String, meta: &DocMeta<'_>, paragraphs: &[String]) -> usize {
    write_conllu_split(out, meta, &split_document(paragraphs, meta.lang))
}

/// [`write_conllu`] for a document already split by [`split_document`].
pub fn write_conllu_split(
    out: &mut String,
    meta: &DocMeta<'_>,
    paragraphs: &[Vec<Sentence>],
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
                out.push_str(&format!(
                    "{}\t{}\t_\t_\t_\t_\t_\t_\t_\t{misc}\n",
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
mod tests {
    use super::*;

    fn meta<'a>(id: &'a str, title: &'a str) -> DocMeta<'a> {
        DocMeta {
            id,
            url: "https://example.org/a?b=1&c=2",
            title,
            lang: "fr",
            score: 0.75,
            host: "example.org",
            date: Some("2024-01-02"),
        }
    }

    fn vrt(paragraphs: &[&str]) -> String {
        let paragraphs: Vec<String> = paragraphs.iter().map(|p| p.to_string()).collect();
        let mut out = String::new();
        write_vrt(&mut out, &meta("d1", "Titre"), &paragraphs);
        out
    }

    fn conllu(paragraphs: &[&str]) -> String {
        let paragraphs: Vec<String> = paragraphs.iter().map(|p| p.to_string()).collect();
        let mut out = String::new();
        write_conllu(&mut out, &meta("d1", "Titre"), &paragraphs);
        out
    }

    /// The lines between `<s>` and `</s>` of a vrt document, per sentence.
    fn vrt_sentences(doc: &str) -> Vec<Vec<&str>> {
        let mut all = Vec::new();
        let mut current = None;
        for line in doc.lines() {
            match line {
                "<s>" => current = Some(Vec::new()),
                "</s>" => all.extend(current.take()),
                _ => {
                    if let Some(s) = current.as_mut() {
                        s.push(line);
                    }
                }
            }
        }
        all
    }

    #[test]
    fn glue_marks_tokens_without_space_between_them() {
        let doc = vrt(&["Regarde l'image, mot."]);
        let s = vrt_sentences(&doc);
        assert_eq!(
            s,
            vec![vec![
                "Regarde", "l'", "<g/>", "image", "<g/>", ",", "mot", "<g/>", "."
            ]]
        );
    }

    #[test]
    fn no_glue_where_spaces_separate_punctuation() {
        let doc = vrt(&["Vraiment ? Oui !"]);
        let s = vrt_sentences(&doc);
        assert_eq!(s, vec![vec!["Vraiment", "?"], vec!["Oui", "!"]]);
    }

    #[test]
    fn structure_and_attributes_are_escaped() {
        let paragraphs = vec!["Un.".to_string()];
        let mut out = String::new();
        let m = DocMeta {
            date: None,
            ..meta("a\"b", "Tom & <Jerry> l'\"ami\"\n  suite")
        };
        write_vrt(&mut out, &m, &paragraphs);
        assert_eq!(
            out,
            "<text id=\"a&quot;b\" url=\"https://example.org/a?b=1&amp;c=2\" \
             title=\"Tom &amp; &lt;Jerry&gt; l&apos;&quot;ami&quot; suite\" lang=\"fr\" \
             score=\"0.75\" host=\"example.org\" date=\"\">\n<p>\n<s>\nUn\n<g/>\n.\n</s>\n</p>\n</text>\n"
        );
    }

    #[test]
    fn tokens_are_escaped_and_markup_is_a_plain_token() {
        let doc = vrt(&["A & B <b class=\"x\">gras</b> 3<4"]);
        let tokens: Vec<&str> = vrt_sentences(&doc).concat();
        assert!(tokens.contains(&"&amp;"), "{doc}");
        assert!(tokens.contains(&"&lt;b class=\"x\"&gt;"), "{doc}");
        assert!(tokens.contains(&"&lt;/b&gt;"), "{doc}");
        // No line of the document except the structure starts a real tag.
        for line in doc.lines() {
            if line.starts_with('<') {
                assert!(
                    ["<text ", "<p>", "</p>", "<s>", "</s>", "<g/>", "</text>"]
                        .iter()
                        .any(|t| line.starts_with(t)),
                    "{line}"
                );
            }
        }
    }

    #[test]
    fn markup_with_tabs_and_newline_runs_becomes_one_line() {
        let s = sentences("voir <a\t\thref=\"u\">ici</a>.", "fr");
        let tokens: Vec<&str> = s
            .iter()
            .flat_map(|s| s.tokens.iter().map(String::as_str))
            .collect();
        assert!(tokens.iter().any(|t| t.starts_with("<a")), "{tokens:?}");
        let doc = conllu(&["voir <a\t\thref=\"u\">ici</a>."]);
        assert!(doc.contains("\t<a href=\"u\">\t"), "{doc}");
        assert!(
            doc.contains("# text = voir <a href=\"u\">ici</a>.\n"),
            "{doc}"
        );
    }

    #[test]
    fn abbreviations_do_not_end_sentences() {
        let s = sentences(
            "M. Dupont est venu avec ses livres, ses cahiers, etc. Il est reparti. Puis",
            "fr",
        );
        let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "M. Dupont est venu avec ses livres, ses cahiers, etc.",
                "Il est reparti.",
                "Puis"
            ]
        );
        assert_eq!(s[0].tokens[0], "M.");
        // TreeTagger cuts `etc.` into `etc` `.` (see the tricky fixture): the period ends the
        // sentence before a capital, not before a lowercase word.
        assert!(s[0].tokens.ends_with(&["etc".to_string(), ".".to_string()]));
        let s = sentences("Des pommes, des poires, etc. et des fraises.", "fr");
        assert_eq!(s.len(), 1, "{s:?}");
    }

    #[test]
    fn sentence_text_is_the_collapsed_original() {
        let s = sentences("  Il  a dit :\t« oui »\n(enfin).  ", "fr");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].text, "Il a dit : « oui » (enfin).");
        assert_eq!(
            s[0].space_after,
            vec![
                true, true, true, true, true, true, true, false, false, false, true
            ]
        );
    }

    #[test]
    fn conllu_space_after_and_comments() {
        let doc = conllu(&["L'image, enfin.", "", "Deux"]);
        let expected = "# newdoc id = d1\n# newpar\n# sent_id = d1-1\n# text = L'image, enfin.\n\
            1\tL'\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n\
            2\timage\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n\
            3\t,\t_\t_\t_\t_\t_\t_\t_\t_\n\
            4\tenfin\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n\
            5\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n\
            # newpar\n# sent_id = d1-2\n# text = Deux\n\
            1\tDeux\t_\t_\t_\t_\t_\t_\t_\t_\n\n";
        assert_eq!(doc, expected);
    }

    #[test]
    fn conllu_sentence_glued_to_the_next_keeps_space_after_no() {
        let s = sentences("Fin.Puis", "fr");
        // Whatever the split, the last token before `Puis` is not followed by a space.
        let flat: Vec<bool> = s.iter().flat_map(|s| s.space_after.clone()).collect();
        let tokens: Vec<String> = s.iter().flat_map(|s| s.tokens.clone()).collect();
        let i = tokens
            .iter()
            .position(|t| t == "Puis")
            .unwrap_or(tokens.len());
        if i > 0 && i < tokens.len() {
            assert!(!flat[i - 1], "{tokens:?} {flat:?}");
        }
    }

    #[test]
    fn decomposed_input_comes_out_nfc() {
        let decomposed = "E\u{301}te\u{301} a\u{300} Ko\u{308}ln.";
        let doc = vrt(&[decomposed]);
        assert!(doc.contains("\u{c9}t\u{e9}\n"), "{doc}");
        assert!(doc.contains("K\u{f6}ln\n"), "{doc}");
        assert!(!doc.contains('\u{301}'));
        let c = conllu(&[decomposed]);
        assert!(
            c.contains("# text = \u{c9}t\u{e9} \u{e0} K\u{f6}ln.\n"),
            "{c}"
        );
        let mut t = String::new();
        write_talismane(&mut t, &[decomposed.to_string()], "fr");
        assert!(t.starts_with("1\t\u{c9}t\u{e9}\n"), "{t}");
    }

    #[test]
    fn empty_paragraphs_and_documents() {
        assert!(sentences("", "fr").is_empty());
        assert!(sentences(" \n\t ", "fr").is_empty());
        let doc = vrt(&["", "  ", "Un."]);
        assert_eq!(doc.matches("<p>").count(), 1);
        let empty = vrt(&[]);
        assert!(
            empty.starts_with("<text ") && empty.ends_with(">\n</text>\n"),
            "{empty}"
        );
        assert_eq!(conllu(&["", " "]), "");
        let mut t = String::new();
        assert_eq!(write_talismane(&mut t, &[String::new()], "fr"), 0);
        assert_eq!(t, "");
    }

    #[test]
    fn control_characters_become_xml_safe() {
        let doc = vrt(&["a\u{0}b c\u{B}d \u{FEFF}e\u{FFFF}"]);
        let tokens: Vec<&str> = vrt_sentences(&doc).concat();
        assert_eq!(tokens, vec!["a\u{FFFD}b", "c", "d", "\u{FEFF}e\u{FFFD}"]);
    }

    #[test]
    fn talismane_lines_and_underscores() {
        let mut out = String::new();
        let n = write_talismane(
            &mut out,
            &["Le fichier mon_fichier _ existe. Oui".to_string()],
            "fr",
        );
        assert_eq!(n, 7);
        assert_eq!(
            out,
            "1\tLe\n2\tfichier\n3\tmon&und;fichier\n4\t&und;\n5\texiste\n6\t.\n\n1\tOui\n\n"
        );
    }

    #[test]
    fn talismane_markup_spaces_become_underscores() {
        let mut out = String::new();
        write_talismane(&mut out, &["<a href=\"x_y\">".to_string()], "fr");
        assert_eq!(out, "1\t<a_href=\"x&und;y\">\n\n");
    }

    #[test]
    fn csv_header_and_quoting() {
        assert!(metadata_csv_header().starts_with("id,"));
        let m = DocMeta {
            date: None,
            ..meta("d,1", "Le \"grand\"\r\n titre")
        };
        assert_eq!(
            metadata_csv_row(&m, 42),
            "\"d,1\",https://example.org/a?b=1&c=2,\"Le \"\"grand\"\" titre\",example.org,fr,,0.75,42"
        );
        let nan = DocMeta {
            score: f64::NAN,
            ..meta("x", "t")
        };
        assert!(metadata_csv_row(&nan, 0).ends_with(",,0"));
        // `'` and `#` are quoted too (R's read.table takes them for a quote and a comment).
        assert!(metadata_csv_row(&meta("d2", "L'image #1"), 1).contains(",\"L'image #1\","));
    }

    #[test]
    fn writers_agree_on_token_counts() {
        let paragraphs = vec![
            "Jusqu'où ira-t-on ? Donne-le-moi, s'il te plaît !".to_string(),
            String::new(),
            "Voir http://www.irit.fr/ et <i>cf.</i> p. 12".to_string(),
        ];
        let m = meta("d", "t");
        let (mut a, mut b, mut c) = (String::new(), String::new(), String::new());
        let n1 = write_vrt(&mut a, &m, &paragraphs);
        let n2 = write_conllu(&mut b, &m, &paragraphs);
        let n3 = write_talismane(&mut c, &paragraphs, "fr");
        let mut all = Vec::new();
        for p in &paragraphs {
            crate::corpus::tokenize::tokenize_into(p, "fr", &mut all);
        }
        assert_eq!((n1, n2, n3), (all.len(), all.len(), all.len()));
    }

    #[test]
    fn hostile_input_never_panics() {
        let mut inputs: Vec<String> = vec![
            "<".repeat(1000),
            ">".repeat(1000),
            "<<<a>>>< b\t>\u{0}\u{1F}\u{FFFF}".to_string(),
            "\u{FEFF}\u{FEFF}".to_string(),
            "\u{301}\u{301}\u{301}".to_string(),
            ".".repeat(5000),
            "?!…».)".repeat(300),
            "\r\n\r\n\u{2028}\u{85}\u{A0}x\u{A0}y".to_string(),
            "&amp;&und;__ _".to_string(),
            "a".repeat(100_000),
        ];
        let bytes: Vec<u8> = (0u32..4000).map(|i| (i * 7919 % 251) as u8).collect();
        inputs.push(String::from_utf8_lossy(&bytes).into_owned());
        for input in &inputs {
            let paragraphs = vec![input.clone(), String::new(), input.clone()];
            let m = DocMeta {
                id: input,
                url: input,
                title: input,
                lang: "xx",
                score: f64::INFINITY,
                host: input,
                date: Some(input),
            };
            let mut out = String::new();
            let n = write_vrt(&mut out, &m, &paragraphs);
            assert_eq!(n, write_conllu(&mut out, &m, &paragraphs));
            assert_eq!(n, write_talismane(&mut out, &paragraphs, "fr-CA"));
            let row = metadata_csv_row(&m, n);
            assert!(!row.contains('\n'));
        }
    }
}
