//! Tagger output read back: TreeTagger's `word<TAB>POS<TAB>lemma` lines, grouped by document.
//!
//! **In:** the text of one tagged file, as written by `tree-tagger -token -lemma -sgml` from a
//! glaneur `.tt` file (`scripts/treetagger`) or by `scripts/tag-fallback` (same shape, UD
//! tagset): SGML lines (`<doc id="…" …>`, `<p>`, `</p>`, `</doc>`) copied through, one token
//! per other line; blank lines (TreeTagger's sentence separators in some outputs) may appear.
//!
//! **Out:** one [`TaggedDoc`] per `<doc>` … `</doc>` block, in file order, with its `id`
//! attribute and its tokens; lemmas normalised as TreeTagger users expect: `<unknown>` (or an
//! empty lemma) becomes the word itself, and an ambiguous lemma `a|b` keeps its first
//! alternative `a`.
//!
//! **Invariants:** never panics; a line is markup when it starts with `<` and holds no tab
//! (TreeTagger never tags markup, and glaneur never writes a tab inside a `<doc>` line), every
//! other non-blank line must have exactly three tab-separated columns with a non-empty word
//! and POS, otherwise a [`TaggedError`] names the 1-based line number; `<doc>` blocks must be
//! balanced and not nested. Words are returned exactly as written (a token that glaneur
//! escaped as `&lt;…&gt;` stays escaped, so the words equal the `.tt` token lines).

/// One tagged token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedToken {
    /// The token, exactly as in the tagger's first column.
    pub word: String,
    /// Part of speech: TreeTagger's French tagset (`NOM`, `VER:pres`, …) from TreeTagger, UD
    /// (`NOUN`, `VERB`, …) from `scripts/tag-fallback`.
    pub pos: String,
    /// Lemma after normalisation (`<unknown>` → word, `a|b` → `a`).
    pub lemma: String,
}

/// One document of tagger output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedDoc {
    /// The `id` attribute of the `<doc>` line, entities decoded; empty for tokens that are
    /// outside any `<doc>` block (see [`parse_tagged`]) or for a `<doc>` line without `id`.
    pub id: String,
    /// The document's tokens in order; paragraph and sentence boundaries are not kept.
    pub tokens: Vec<TaggedToken>,
}

/// Why a tagged file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaggedError {
    /// A token line without exactly three tab-separated columns.
    #[error("line {line}: expected 3 tab-separated columns (word, POS, lemma), found {found}")]
    Columns {
        /// 1-based line number.
        line: usize,
        /// Number of columns found.
        found: usize,
    },
    /// A token line whose word or POS column is empty.
    #[error("line {line}: empty word or POS column")]
    EmptyField {
        /// 1-based line number.
        line: usize,
    },
    /// A `<doc>` line inside a document that is still open.
    #[error("line {line}: <doc> inside the document opened on line {open}")]
    NestedDoc {
        /// 1-based line number of the second `<doc>`.
        line: usize,
        /// 1-based line number of the open `<doc>`.
        open: usize,
    },
    /// A `</doc>` line with no open document.
    #[error("line {line}: </doc> without an open <doc>")]
    UnopenedClose {
        /// 1-based line number.
        line: usize,
    },
    /// The file ends inside a document (typically a truncated tagger run).
    #[error("line {line}: <doc> never closed (file truncated?)")]
    UnclosedDoc {
        /// 1-based line number of the `<doc>` line.
        line: usize,
    },
}

/// TreeTagger's lemma for a word form missing from its lexicon (without `-no-unknown`).
const UNKNOWN_LEMMA: &str = "<unknown>";

/// Parses the text of one tagged file into its documents.
///
/// Tokens outside any `<doc>` block (a file with no `<doc>` line at all, such as plain
/// TreeTagger output of running text) form a document with an empty `id`: one such document
/// per run of tokens between `<doc>` blocks, so a file without `<doc>` lines is one document.
/// A `<doc>` block without tokens gives a document with no tokens. Blank lines and markup
/// other than `<doc>`/`</doc>` (`<p>`, `<s>`, …) are skipped. An empty text gives no document.
///
/// # Errors
/// [`TaggedError`] for the first malformed line (wrong column count, empty word or POS,
/// nested, unopened or unclosed `<doc>`), naming its 1-based line number.
pub fn parse_tagged(text: &str) -> Result<Vec<TaggedDoc>, TaggedError> {
    let mut reader = TaggedReader::default();
    let mut docs = Vec::new();
    for line in text.lines() {
        docs.extend(reader.line(line)?);
    }
    docs.extend(reader.finish()?);
    Ok(docs)
}

/// [`parse_tagged`] one line at a time, so that a tagged corpus larger than memory is read
/// document by document: feed every line to [`TaggedReader::line`], which returns each
/// document as it closes, then call [`TaggedReader::finish`].
#[derive(Debug, Default)]
pub struct TaggedReader {
    /// The document being filled and, when it came from a `<doc>` line, that line's number.
    current: Option<(TaggedDoc, Option<usize>)>,
    /// Lines read so far.
    line_no: usize,
}

impl TaggedReader {
    /// Reads the next line; returns the document it closes, if any.
    ///
    /// # Errors
    /// As [`parse_tagged`], with the line's 1-based number in the input.
    pub fn line(&mut self, raw: &str) -> Result<Option<TaggedDoc>, TaggedError> {
        self.line_no += 1;
        let line_no = self.line_no;
        // `lines()` leaves the `\r` of CRLF files; a tagger run on Windows writes them.
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return Ok(None);
        }
        if line.starts_with('<') && !line.contains('\t') {
            if let Some(attrs) = doc_open_attrs(line) {
                let done = match self.current.take() {
                    Some((_, Some(open))) => {
                        return Err(TaggedError::NestedDoc {
                            line: line_no,
                            open,
                        });
                    }
                    Some((implicit, None)) => Some(implicit),
                    None => None,
                };
                let id = attribute(attrs, "id").unwrap_or_default();
                self.current = Some((
                    TaggedDoc {
                        id,
                        tokens: Vec::new(),
                    },
                    Some(line_no),
                ));
                return Ok(done);
            } else if is_doc_close(line) {
                return match self.current.take() {
                    Some((doc, Some(_))) => Ok(Some(doc)),
                    _ => Err(TaggedError::UnopenedClose { line: line_no }),
                };
            }
            return Ok(None);
        }
        let token = parse_token(line, line_no)?;
        match &mut self.current {
            Some((doc, _)) => doc.tokens.push(token),
            None => {
                self.current = Some((
                    TaggedDoc {
                        id: String::new(),
                        tokens: vec![token],
                    },
                    None,
                ));
            }
        }
        Ok(None)
    }

    /// Ends the input; returns the last document (tokens after the last `</doc>`).
    ///
    /// # Errors
    /// [`TaggedError::UnclosedDoc`] when the input ends inside a `<doc>` block.
    pub fn finish(self) -> Result<Option<TaggedDoc>, TaggedError> {
        match self.current {
            Some((_, Some(open))) => Err(TaggedError::UnclosedDoc { line: open }),
            Some((implicit, None)) => Ok(Some(implicit)),
            None => Ok(None),
        }
    }
}

/// Reads one `word<TAB>POS<TAB>lemma` line.
fn parse_token(line: &str, line_no: usize) -> Result<TaggedToken, TaggedError> {
    let columns: Vec<&str> = line.split('\t').collect();
    let [word, pos, lemma] = columns.as_slice() else {
        return Err(TaggedError::Columns {
            line: line_no,
            found: columns.len(),
        });
    };
    if word.is_empty() || pos.is_empty() {
        return Err(TaggedError::EmptyField { line: line_no });
    }
    Ok(TaggedToken {
        word: (*word).to_owned(),
        pos: (*pos).to_owned(),
        lemma: normalise_lemma(word, lemma),
    })
}

/// `<unknown>` and empty lemmas fall back to the word, because a downstream count by lemma
/// must not merge every unknown form into one entry; of TreeTagger's ambiguous `a|b` lemmas
/// the first is kept, which is what TreeTagger's own `-lemma` users conventionally do.
fn normalise_lemma(word: &str, lemma: &str) -> String {
    if lemma == UNKNOWN_LEMMA {
        return word.to_owned();
    }
    match lemma.split('|').find(|alt| !alt.is_empty()) {
        Some(first) => first.to_owned(),
        None => word.to_owned(),
    }
}

/// The attribute part of a `<doc …>` line, or `None` for any other line.
fn doc_open_attrs(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("<doc")?;
    let inner = rest.trim_end().strip_suffix('>')?;
    // `<document>` or `<doc-x>` are other elements: the name must end here.
    match inner.chars().next() {
        None => Some(""),
        Some(c) if c.is_whitespace() => Some(inner),
        Some(_) => None,
    }
}

/// Whether the line is `</doc>` (whitespace tolerated).
fn is_doc_close(line: &str) -> bool {
    line.strip_prefix("</doc")
        .and_then(|rest| rest.trim().strip_suffix('>'))
        .is_some_and(|between| between.trim().is_empty())
}

/// The decoded value of attribute `name` in `attrs` (`name="value"` pairs, double or single
/// quotes); `None` when absent or when the attribute list is malformed before it.
fn attribute(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let eq = rest.find('=')?;
        let key = rest.get(..eq)?.trim();
        let after = rest.get(eq + 1..)?.trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let body = after.get(1..)?;
        let end = body.find(quote)?;
        if key == name {
            return Some(decode_entities(body.get(..end)?));
        }
        rest = body.get(end + 1..)?;
    }
}

/// Decodes the XML entities glaneur's attribute escaping writes (`&amp;` last, so that
/// `&amp;lt;` stays `&lt;`) plus `&apos;`.
fn decode_entities(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The 17 Universal Dependencies part-of-speech tags (UPOS).
pub const UD_TAGS: [&str; 17] = [
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
    "PUNCT", "SCONJ", "SYM", "VERB", "X",
];

/// Which tagset a corpus's tags are in, as far as CoNLL-U is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagset {
    /// Universal Dependencies (the fallback tagger, spaCy): the tags are UPOS.
    Ud,
    /// Anything else (TreeTagger's French tagset…): the tags are XPOS.
    Other,
}

impl Tagset {
    /// UD when every tag is a UPOS tag, otherwise Other.
    pub fn of<'a>(tags: impl IntoIterator<Item = &'a str>) -> Tagset {
        if tags.into_iter().all(|t| UD_TAGS.contains(&t)) {
            Tagset::Ud
        } else {
            Tagset::Other
        }
    }

    /// CoNLL-U's UPOS and XPOS columns for a tag (`_` where unknown; spaces, which those
    /// columns may not hold, become `_`).
    pub fn conllu(self, tag: &str) -> (String, String) {
        let clean = |t: &str| {
            if t.is_empty() {
                "_".to_string()
            } else {
                t.replace(char::is_whitespace, "_")
            }
        };
        match self {
            Tagset::Ud => (clean(tag), "_".to_string()),
            Tagset::Other => (upos_of(tag).unwrap_or("_").to_string(), clean(tag)),
        }
    }
}

/// The UPOS of a tag of TreeTagger's French tagset (Achim Stein's), where one fits: `NOM` →
/// NOUN, `NAM` → PROPN, `VER:*` → VERB, `DET:*` → DET, `PRO*` → PRON, `PRP*` → ADP,
/// `KON` → CCONJ (TreeTagger does not tell subordinating conjunctions apart), `PUN*`/`SENT`
/// → PUNCT, `ABR` → X; None for other tags.
pub fn upos_of(tag: &str) -> Option<&'static str> {
    let head = tag.split(':').next().unwrap_or(tag);
    Some(match head {
        "NOM" => "NOUN",
        "NAM" => "PROPN",
        "ADJ" => "ADJ",
        "ADV" => "ADV",
        "VER" => "VERB",
        "DET" => "DET",
        "PRO" => "PRON",
        "PRP" => "ADP",
        "KON" => "CCONJ",
        "NUM" => "NUM",
        "INT" => "INTJ",
        "PUN" | "SENT" => "PUNCT",
        "SYM" => "SYM",
        "ABR" => "X",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(word: &str, pos: &str, lemma: &str) -> TaggedToken {
        TaggedToken {
            word: word.into(),
            pos: pos.into(),
            lemma: lemma.into(),
        }
    }

    #[test]
    fn reads_documents_with_ids_and_skips_paragraph_lines() {
        let text = "<doc id=\"d000012\" url=\"http://a.test/?x=1&amp;y=2\" title=\"T\" lang=\"fr\" score=\"0.974\">\n<p>\nPartie\tNOM\tpartie\nI.\tNUM\tI.\n</p>\n</doc>\n<doc id=\"d2\">\n<p>\nest\tVER:pres\têtre\n</p>\n</doc>\n";
        let docs = parse_tagged(text).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].id, "d000012");
        assert_eq!(
            docs[0].tokens,
            vec![tok("Partie", "NOM", "partie"), tok("I.", "NUM", "I.")]
        );
        assert_eq!(docs[1].id, "d2");
        assert_eq!(docs[1].tokens, vec![tok("est", "VER:pres", "être")]);
    }

    #[test]
    fn unknown_and_ambiguous_lemmas_are_normalised() {
        let text = "GIMPen\tNAM\t<unknown>\nsommes\tVER:pres\têtre|sommer\nles\tPRO:PER\tla|le\nx\tNOM\t\n";
        let docs = parse_tagged(text).unwrap();
        let lemmas: Vec<&str> = docs[0].tokens.iter().map(|t| t.lemma.as_str()).collect();
        assert_eq!(lemmas, ["GIMPen", "être", "la", "x"]);
    }

    #[test]
    fn without_doc_lines_the_file_is_one_document_with_empty_id() {
        let text = "Un\tDET:ART\tun\n.\tSENT\t.\n\nIl\tPRO:PER\til\n";
        let docs = parse_tagged(text).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].id, "");
        assert_eq!(docs[0].tokens.len(), 3);
    }

    #[test]
    fn tokens_between_documents_form_their_own_empty_id_document() {
        let text = "a\tX\ta\n<doc id=\"d1\">\nb\tX\tb\n</doc>\nc\tX\tc\n";
        let docs = parse_tagged(text).unwrap();
        let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["", "d1", ""]);
        assert_eq!(docs[2].tokens, vec![tok("c", "X", "c")]);
    }

    #[test]
    fn wrong_column_count_names_the_line() {
        let text = "<doc id=\"d1\">\n<p>\nun\tDET:ART\tun\ndeux\tNUM\n</p>\n</doc>\n";
        assert_eq!(
            parse_tagged(text),
            Err(TaggedError::Columns { line: 4, found: 2 })
        );
        let four = "a\tb\tc\td\n";
        assert_eq!(
            parse_tagged(four),
            Err(TaggedError::Columns { line: 1, found: 4 })
        );
        let bare = "mot\n";
        assert_eq!(
            parse_tagged(bare),
            Err(TaggedError::Columns { line: 1, found: 1 })
        );
        let message = parse_tagged(text).unwrap_err().to_string();
        assert!(message.starts_with("line 4:"), "{message}");
    }

    #[test]
    fn empty_word_or_pos_is_an_error() {
        assert_eq!(
            parse_tagged("ok\tNOM\tok\n\tNOM\tx\n"),
            Err(TaggedError::EmptyField { line: 2 })
        );
        assert_eq!(
            parse_tagged("x\t\tx\n"),
            Err(TaggedError::EmptyField { line: 1 })
        );
    }

    #[test]
    fn unbalanced_doc_lines_are_errors() {
        assert_eq!(
            parse_tagged("<doc id=\"a\">\n<doc id=\"b\">\n</doc>\n"),
            Err(TaggedError::NestedDoc { line: 2, open: 1 })
        );
        assert_eq!(
            parse_tagged("a\tX\ta\n</doc>\n"),
            Err(TaggedError::UnopenedClose { line: 2 })
        );
        assert_eq!(
            parse_tagged("<p>\n<doc id=\"a\">\nx\tX\tx\n"),
            Err(TaggedError::UnclosedDoc { line: 2 })
        );
    }

    #[test]
    fn escaped_tokens_stay_as_written_and_crlf_is_accepted() {
        let text = "<doc id=\"a&amp;b\">\r\n&lt;b&gt;\tNOM\t&lt;b&gt;\r\n<\tPUN\t<\r\n</doc>\r\n";
        let docs = parse_tagged(text).unwrap();
        assert_eq!(docs[0].id, "a&b");
        assert_eq!(
            docs[0].tokens,
            vec![tok("&lt;b&gt;", "NOM", "&lt;b&gt;"), tok("<", "PUN", "<")]
        );
    }

    #[test]
    fn doc_line_variants() {
        let docs = parse_tagged("<doc>\n</doc>\n<doc url='u' id='x y'>\n</doc >\n").unwrap();
        let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["", "x y"]);
        assert!(docs.iter().all(|d| d.tokens.is_empty()));
        // Other elements whose name starts with "doc" are plain markup.
        let docs = parse_tagged("<document id=\"z\">\nw\tX\tw\n").unwrap();
        assert_eq!(docs[0].id, "");
        // `xid` is not `id`.
        let docs = parse_tagged("<doc xid=\"no\" id=\"yes\">\n</doc>\n").unwrap();
        assert_eq!(docs[0].id, "yes");
        assert_eq!(attribute(" id=unquoted", "id"), None);
        assert_eq!(decode_entities("&amp;lt;"), "&lt;");
    }

    #[test]
    fn empty_and_blank_inputs_give_no_document() {
        assert_eq!(parse_tagged(""), Ok(vec![]));
        assert_eq!(parse_tagged("\n\n  \n"), Ok(vec![]));
        assert_eq!(parse_tagged("<p>\n</p>\n"), Ok(vec![]));
    }

    #[test]
    fn hostile_input_never_panics() {
        let samples = [
            "<doc id=\"é",
            "<doc id=",
            "<doc  id  =  \"x\"  >",
            "\t\t",
            "<\t",
            "é\tà\t|",
            "<doc id=\"\u{0}\">\n</doc>",
            "</doc",
            "<doc\n</doc>",
        ];
        for s in samples {
            let _ = parse_tagged(s);
        }
        assert_eq!(
            parse_tagged("<doc  id  =  \"x\"  >\n</doc>\n").unwrap()[0].id,
            "x"
        );
        assert_eq!(parse_tagged("é\tà\t|").unwrap()[0].tokens[0].lemma, "é");
    }

    #[test]
    fn tagsets_fill_the_right_conllu_columns() {
        assert_eq!(Tagset::of(["NOUN", "VERB", "PUNCT"]), Tagset::Ud);
        assert_eq!(Tagset::of(["NOM", "VER:pres"]), Tagset::Other);
        assert_eq!(Tagset::Ud.conllu("NOUN"), ("NOUN".into(), "_".into()));
        assert_eq!(
            Tagset::Other.conllu("VER:pres"),
            ("VERB".into(), "VER:pres".into())
        );
        assert_eq!(
            Tagset::Other.conllu("PRO:PER"),
            ("PRON".into(), "PRO:PER".into())
        );
        assert_eq!(
            Tagset::Other.conllu("SENT"),
            ("PUNCT".into(), "SENT".into())
        );
        assert_eq!(Tagset::Other.conllu("NN S"), ("_".into(), "NN_S".into()));
    }
}
