//! Tokenising and folding, shared by texts and formula terms, so that a term matches exactly the
//! tokens it would have produced had it been written in the text.
//!
//! **In:** a text or a term, and the [`FormulaOptions`]. **Out:** its tokens (maximal runs of
//! letters and digits, combining marks inside), folded: case folding (`ß` → `ss`), then diacritics
//! and ligatures (`œ` → `oe`) unless the options keep them (then NFC).
//!
//! **Invariants:** the same folding for every caller ([`folded_tokens`] is what other scorers
//! count); never panics.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

use super::FormulaOptions;

/// The tokens of `text` folded exactly as the formula folds them (case and diacritics per
/// `options`): what other scorers (the seed centroid of [`crate::focus::centroid`]) count, so that
/// a word means the same thing to the formula and to them.
pub fn folded_tokens(text: &str, options: FormulaOptions) -> impl Iterator<Item = String> + '_ {
    let mut buf = String::new();
    Tokens::new(text).map(move |token| {
        fold_into(token, options, &mut buf);
        buf.clone()
    })
}

/// Whether `c` continues a token once one has started.
pub(super) fn continues_token(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    // A decomposed accent (e + U+0301) is not alphanumeric, yet must not split the word.
    c.is_alphanumeric() || is_combining_mark(c)
}

/// The tokens of a text, as slices: maximal runs of letters and digits.
pub(super) struct Tokens<'a> {
    text: &'a str,
    chars: std::str::CharIndices<'a>,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Tokens {
            text,
            chars: text.char_indices(),
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = loop {
            let (i, c) = self.chars.next()?;
            if c.is_alphanumeric() {
                break i;
            }
        };
        let mut end = self.text.len();
        for (i, c) in self.chars.by_ref() {
            if !continues_token(c) {
                end = i;
                break;
            }
        }
        self.text.get(start..end)
    }
}

/// Folds one token (a run of letters/digits, possibly with combining marks) into `out`
/// (cleared first), as described in the module documentation.
pub(super) fn fold_into(token: &str, options: FormulaOptions, out: &mut String) {
    out.clear();
    if token.is_ascii() {
        out.push_str(token);
        if !options.case_sensitive {
            out.make_ascii_lowercase();
        }
        return;
    }
    for c in token.chars() {
        if options.case_sensitive {
            push_folded(c, options, out);
        } else {
            // Lower-casing first: some capitals lower-case to a letter plus a combining mark
            // (İ → i + U+0307), which the diacritic folding must then see.
            for lower in c.to_lowercase() {
                if lower == 'ß' {
                    out.push_str("ss");
                } else {
                    push_folded(lower, options, out);
                }
            }
        }
    }
    if options.keep_diacritics && !unicode_normalization::is_nfc(out) {
        let composed: String = out.nfc().collect();
        *out = composed;
    }
}

/// Pushes `c` with its diacritics and ligatures folded, unless they are kept.
fn push_folded(c: char, options: FormulaOptions, out: &mut String) {
    if options.keep_diacritics || c.is_ascii() {
        out.push(c);
        return;
    }
    // Decomposing char by char and dropping every mark is the same as NFD then dropping the
    // marks: canonical reordering only moves marks among themselves.
    decompose_canonical(c, |d| match d {
        'œ' => out.push_str("oe"),
        'Œ' => out.push_str("OE"),
        'æ' => out.push_str("ae"),
        'Æ' => out.push_str("AE"),
        d if is_combining_mark(d) => {}
        d => out.push(d),
    });
}
