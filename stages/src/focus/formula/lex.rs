//! The formula's lexer: operators (`AND`/`ET`/`&`, `OR`/`OU`/`|`, `NOT`/`NON`/`-`, `NEAR/n`),
//! parentheses, quoted phrases and bare terms, with their 1-based columns.
//!
//! **In:** the formula as written and the [`FormulaOptions`]. **Out:** tokens whose terms are
//! already split into folded words, or a [`FormulaError`] with a column and a message.
//!
//! **Invariants:** operator words only in upper case; a `*` may only end a word; columns count
//! characters, not bytes.

use unicode_normalization::char::is_combining_mark;

use super::fold::{continues_token, fold_into};
use super::{
    DEFAULT_NEAR_DISTANCE, FormulaError, FormulaOptions, MAX_NEAR_DISTANCE, Term, Word, error,
};

#[derive(Debug, Clone)]
pub(super) enum TokKind {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Near(u32),
    Term(Term),
}

#[derive(Debug, Clone)]
pub(super) struct Tok {
    pub(super) kind: TokKind,
    /// 1-based column of its first character.
    pub(super) col: usize,
    /// As written, for messages.
    pub(super) text: String,
}

impl Tok {
    pub(super) fn is_operator(&self) -> bool {
        matches!(
            self.kind,
            TokKind::And | TokKind::Or | TokKind::Not | TokKind::Near(_)
        )
    }

    pub(super) fn quoted(&self) -> String {
        match self.kind {
            TokKind::Not if self.text == "-" => "`-` (NOT)".to_string(),
            TokKind::Term(_) => format!("the term `{}`", self.text),
            _ => format!("`{}`", self.text),
        }
    }
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '“' | '”' | '«' | '»')
}

/// Characters that end a bare word.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || is_quote(c) || matches!(c, '(' | ')' | '&' | '|')
}

pub(super) fn lex(src: &str, options: FormulaOptions) -> Result<Vec<Tok>, FormulaError> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let col = i + 1;
        let simple = |kind: TokKind, text: &str| Tok {
            kind,
            col,
            text: text.to_string(),
        };
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                toks.push(simple(TokKind::LParen, "("));
                i += 1;
            }
            ')' => {
                toks.push(simple(TokKind::RParen, ")"));
                i += 1;
            }
            '&' | '|' => {
                let doubled = chars.get(i + 1) == Some(&c);
                let text = if doubled {
                    format!("{c}{c}")
                } else {
                    c.to_string()
                };
                let kind = if c == '&' { TokKind::And } else { TokKind::Or };
                toks.push(simple(kind, &text));
                i += if doubled { 2 } else { 1 };
            }
            '-' => {
                toks.push(simple(TokKind::Not, "-"));
                i += 1;
            }
            '"' | '“' | '«' => {
                let (tok, len) = quoted(&chars, i, options)?;
                toks.push(tok);
                i += len;
            }
            '”' | '»' => {
                return Err(error(
                    col,
                    format!("closing quote {c} without an opening quote before it"),
                ));
            }
            _ => {
                let (tok, len) = bare(&chars, i, options)?;
                toks.push(tok);
                i += len;
            }
        }
    }
    Ok(toks)
}

/// The quoted term opened by the quote at `i` (`"…"`, `“…”`, `«…»`): its token and how many
/// characters it takes, quotes included.
fn quoted(chars: &[char], i: usize, options: FormulaOptions) -> Result<(Tok, usize), FormulaError> {
    let col = i + 1;
    let c = chars[i];
    let closes = |d: char| match c {
        '«' => d == '»',
        _ => d == '"' || d == '”',
    };
    let Some(len) = chars
        .get(i + 1..)
        .unwrap_or_default()
        .iter()
        .position(|&d| closes(d))
    else {
        let closer = if c == '«' { '»' } else { '"' };
        return Err(error(
            col,
            format!("unterminated quote: the {c} opened here is never closed; add a {closer}"),
        ));
    };
    let content = chars.get(i + 1..i + 1 + len).unwrap_or_default();
    let written: String = content
        .iter()
        .map(|&d| if is_quote(d) { ' ' } else { d })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if written.is_empty() {
        return Err(error(
            col,
            "empty quotes: write a word or a phrase between them",
        ));
    }
    let words = term_words(content, col + 1, col, &written, options)?;
    Ok((
        Tok {
            kind: TokKind::Term(Term {
                written: written.clone(),
                words,
            }),
            col,
            text: written,
        },
        len + 2,
    ))
}

/// The bare word at `i` (an operator or a term): its token and its length.
fn bare(chars: &[char], i: usize, options: FormulaOptions) -> Result<(Tok, usize), FormulaError> {
    let col = i + 1;
    let len = chars
        .get(i..)
        .unwrap_or_default()
        .iter()
        .position(|&d| is_delimiter(d))
        .unwrap_or(chars.len() - i);
    let run = chars.get(i..i + len).unwrap_or_default();
    let word: String = run.iter().collect();
    let kind = match word.as_str() {
        "AND" | "ET" => TokKind::And,
        "OR" | "OU" => TokKind::Or,
        "NOT" | "NON" => TokKind::Not,
        "NEAR" => TokKind::Near(DEFAULT_NEAR_DISTANCE),
        w if w.starts_with("NEAR/") => {
            TokKind::Near(near_distance(w.get(5..).unwrap_or_default(), col)?)
        }
        _ => TokKind::Term(Term {
            words: term_words(run, col, col, &word, options)?,
            written: word.clone(),
        }),
    };
    Ok((
        Tok {
            kind,
            col,
            text: word,
        },
        len,
    ))
}

fn near_distance(digits: &str, col: usize) -> Result<u32, FormulaError> {
    let parsed = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse::<u32>().ok()
    } else {
        None
    };
    match parsed {
        Some(n) if (1..=MAX_NEAR_DISTANCE).contains(&n) => Ok(n),
        _ => Err(error(
            col,
            format!(
                "bad NEAR distance `{digits}`: write NEAR/n with n a whole number of words \
                 from 1 to {MAX_NEAR_DISTANCE}, e.g. NEAR/5, or NEAR alone for NEAR/{DEFAULT_NEAR_DISTANCE}"
            ),
        )),
    }
}

/// Splits a term into folded words exactly as the text tokeniser would, recognising a `*` at
/// the end of a word. `first_col` is the column of `content[0]`, `term_col` that of the
/// term (its opening quote, if any).
fn term_words(
    content: &[char],
    first_col: usize,
    term_col: usize,
    written: &str,
    options: FormulaOptions,
) -> Result<Vec<Word>, FormulaError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut folded = String::new();
    let mut finish = |current: &mut String, prefix: bool, words: &mut Vec<Word>| {
        fold_into(current, options, &mut folded);
        words.push(Word {
            text: folded.clone(),
            prefix,
        });
        current.clear();
    };
    for (k, &c) in content.iter().enumerate() {
        let in_word = !current.is_empty();
        if c.is_alphanumeric() || (in_word && is_combining_mark(c)) {
            current.push(c);
        } else if c == '*' {
            let col = first_col + k;
            if !in_word {
                return Err(error(
                    col,
                    "`*` must come right after the beginning of a word, as in graph* \
                     (which matches graphe, graphes, graphique...)",
                ));
            }
            if content.get(k + 1).is_some_and(|&d| continues_token(d)) {
                return Err(error(
                    col,
                    "`*` is only allowed at the end of a word (graph*), not inside it",
                ));
            }
            finish(&mut current, true, &mut words);
        } else if in_word {
            finish(&mut current, false, &mut words);
        }
    }
    if !current.is_empty() {
        finish(&mut current, false, &mut words);
    }
    if words.is_empty() {
        return Err(error(
            term_col,
            format!("`{written}` has no letter or digit to search for"),
        ));
    }
    Ok(words)
}
