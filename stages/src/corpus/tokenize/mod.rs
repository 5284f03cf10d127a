//! Word tokenizer shared by the TreeTagger files, the document × word matrix and the index.
//!
//! The rules reproduce TreeTagger's own `utf8-tokenize.perl` (Helmut Schmid, IMS Stuttgart;
//! Serge Sharoff, Leeds), so that a file glaneur writes for TreeTagger is token-for-token what
//! TreeTagger's French pipeline (`utf8-tokenize.perl -f -a french-abbreviations-utf8`) would
//! produce itself. The script works word by word, in this order:
//!
//! 1. a line is cut into SGML tags (`<[^<>]*>`, kept whole) and text; text is cut at
//!    whitespace; `...` is set apart and a blank is inserted after `;`, `!`, `?`;
//! 2. opening brackets, quotes and dashes are peeled off the front of a word, closing brackets,
//!    quotes, `,;:!?%…` off its end, and a final `.` after such a character or `)`;
//! 3. a word of the language's list of "words that must not be split" is emitted whole;
//!    so is a run of single letters with periods (`A.`, `U.S.A.`);
//! 4. any other final period becomes its own token (unless the word without it is listed, or,
//!    in German, the word is an ordinal such as `3.`);
//! 5. elided prefixes (`l'`, `qu'`, `jusqu'`…; Italian `dell'`…) are cut off the front and
//!    clitic suffixes (`-t-il`, `-moi`, `-là`…; English `'s`, `n't`…) off the end.
//!
//! Matching is done by hand on byte ranges of the word rather than with regular expressions:
//! every step only narrows a range, so tokenizing is linear in the input (one 1 MB word made of
//! brackets included) and allocates little besides the returned tokens.
//!
//! The French list of words that must not be split is TreeTagger's `french-abbreviations`
//! file (see [`FRENCH_WORDS`]); the English, German, Italian and Spanish lists are glaneur's
//! own. Measured against the script's output on three sets of real French text (the one the
//! rules were written on, a second one examined while correcting them, and one drawn from
//! five other sources before glaneur ever read it): 100 % of the tokens on each
//! (`stages/tests/tokenize.rs`).
//!
//! Deliberate departure from the Perl script: it uses the characters U+00FE `þ` and U+00FF `ÿ`
//! as internal separators, so it splits a word at those letters and drops them
//! (`L'Haÿ-les-Roses`); here they are ordinary letters.
//!
//! **In**: UTF-8 text (any size, any content, including markup debris and control characters)
//! and a language code (ISO 639-1 such as `"fr"`, optionally with a region: `"fr-CA"`).
//!
//! **Out**: tokens in text order, one `String` each, as TreeTagger expects them one per line;
//! and, for exports, the indices of the tokens that end a sentence.
//!
//! **Invariants**: never panics; no token is empty; a token contains whitespace only if it is an
//! SGML tag ([`is_markup`]); the tokens, concatenated, hold exactly the non-whitespace
//! characters of the input in their order (a leading byte-order mark excepted); the output
//! depends on nothing but the text and the language.
//!
//! **Files**: this file (languages, the tokenizer's steps, sentence ends) and `rules` (each
//! language's clitics and list of words that must not be split); `tests.rs` the tests.

mod rules;
use rules::{ENGLISH, FRENCH, GERMAN, ITALIAN, NEUTRAL, Rules, SPANISH};
pub use rules::{ENGLISH_WORDS, FRENCH_WORDS, GERMAN_WORDS, ITALIAN_WORDS, SPANISH_WORDS};

/// The rule sets the tokenizer knows, chosen from a language code by [`Language::from_code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// French: TreeTagger's `-f` rules (elisions, hyphenated clitics) and list.
    French,
    /// English: TreeTagger's `-e` rules (`'s`, `n't`, `'ll`…) and glaneur's list.
    English,
    /// German: no clitics, ordinals such as `3.` kept whole (TreeTagger's `-g`), glaneur's list.
    German,
    /// Italian: TreeTagger's `-i` elisions (`l'`, `dell'`, `un'`…) and glaneur's list.
    Italian,
    /// Spanish: no clitics (enclitics are written solid), glaneur's list.
    Spanish,
    /// Any other language: punctuation and period rules only, no list.
    Neutral,
}

impl Language {
    /// The rule set for a language code: the primary subtag of an ISO 639-1 or 639-2 code,
    /// any case (`"fr"`, `"FR-ca"`, `"fra"`, `"en_GB"`); anything unknown gives
    /// [`Language::Neutral`].
    pub fn from_code(code: &str) -> Self {
        let primary = code.trim().split(['-', '_']).next().unwrap_or_default();
        let is = |names: &[&str]| names.iter().any(|n| primary.eq_ignore_ascii_case(n));
        if is(&["fr", "fra", "fre"]) {
            Self::French
        } else if is(&["en", "eng"]) {
            Self::English
        } else if is(&["de", "deu", "ger"]) {
            Self::German
        } else if is(&["it", "ita"]) {
            Self::Italian
        } else if is(&["es", "spa"]) {
            Self::Spanish
        } else {
            Self::Neutral
        }
    }

    fn rules(self) -> &'static Rules {
        match self {
            Self::French => &FRENCH,
            Self::English => &ENGLISH,
            Self::German => &GERMAN,
            Self::Italian => &ITALIAN,
            Self::Spanish => &SPANISH,
            Self::Neutral => &NEUTRAL,
        }
    }
}

/// Tokenizes `text` with the rules of language `lang` (see [`Language::from_code`]).
pub fn tokenize(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenize_into(text, lang, &mut out);
    out
}

/// Like [`tokenize`], but appends to `out`, so that one buffer can serve many documents.
pub fn tokenize_into(text: &str, lang: &str, out: &mut Vec<String>) {
    tokenize_language_into(text, Language::from_code(lang), out);
}

/// Like [`tokenize_into`], with the rule set already chosen.
pub fn tokenize_language_into(text: &str, language: Language, out: &mut Vec<String>) {
    let rules = language.rules();
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut work = Work::default();
    for line in text.split('\n') {
        tokenize_line(line, rules, &mut work, out);
    }
}

/// True for a token that is an SGML/XML tag (`<…>`), which TreeTagger passes through untagged
/// with `-sgml`; the matrix and the index may want to skip them. For tokens of this module the
/// test is exact: any other token starting with `<` and ending with `>` would contain a tag.
pub fn is_markup(token: &str) -> bool {
    token.len() >= 2 && token.starts_with('<') && token.ends_with('>')
}

/// Indices of the tokens that end a sentence, for `.vrt` and CoNLL-U exports.
///
/// A sentence ends at a token made only of `.`, `!`, `?`, `…` (the tokenizer has already kept
/// abbreviations such as `M.` or `Mr.` whole, so their period is not such a token), extended
/// over directly following terminal or closing tokens (`?` `!`, `.` `»`, `.` `)`, `?` `"`).
/// It does not end there when the next token starts with a lowercase letter or is `,` `;` `:`
/// (`« Oui ? » dit-il`, `orientées ... enfin`), nor at a `.` cut off an abbreviation stem that
/// TreeTagger splits, such as French `cf` (`cf. Martin`). A German ordinal (`3.`) ends a
/// sentence only as the last token. Tokens after the last reported end form an unterminated
/// sentence that the caller closes.
pub fn sentence_ends(tokens: &[String], lang: &str) -> Vec<usize> {
    let rules = Language::from_code(lang).rules();
    let mut ends = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].as_str();
        let last = i + 1 == tokens.len();
        let final_ordinal = rules.ordinals && last && is_ordinal(token);
        if !(is_terminal(token) || final_ordinal) {
            i += 1;
            continue;
        }
        let mut j = i;
        while let Some(next) = tokens.get(j + 1) {
            if is_terminal(next) || is_closer(next) {
                j += 1;
            } else {
                break;
            }
        }
        let ends_here = match tokens.get(j + 1) {
            None => true,
            Some(next) => {
                let after_stem = token == "."
                    && i > 0
                    && rules
                        .nonfinal_stems
                        .iter()
                        .any(|stem| tokens[i - 1].eq_ignore_ascii_case(stem));
                !continues_sentence(next) && !after_stem
            }
        };
        if ends_here {
            ends.push(j);
        }
        i = j + 1;
    }
    ends
}

fn is_terminal(token: &str) -> bool {
    !token.is_empty() && token.chars().all(|c| matches!(c, '.' | '!' | '?' | '…'))
}

fn is_closer(token: &str) -> bool {
    // A straight quote right after sentence punctuation nearly always closes a quotation.
    matches!(token, ")" | "]" | "»" | "”" | "’" | "›" | "\"" | "'")
}

fn continues_sentence(next: &str) -> bool {
    matches!(next, "," | ";" | ":") || next.chars().next().is_some_and(char::is_lowercase)
}

fn is_ordinal(word: &str) -> bool {
    word.len() >= 2
        && word.ends_with('.')
        && word[..word.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

/// The apostrophes TreeTagger's clitic patterns accept (`['’´]`); `'` in a clitic pattern
/// below stands for any of them.
const APOSTROPHES: [char; 3] = ['\'', '\u{2019}', '\u{00B4}'];

/// Characters cut off the front of a word (TreeTagger's `$PChar`).
fn is_leading_punct(c: char) -> bool {
    matches!(
        c,
        '[' | '¿'
            | '¡'
            | '{'
            | '\''
            | '`'
            | '"'
            | '‚'
            | '„'
            | '†'
            | '‡'
            | '‹'
            | '‘'
            | '’'
            | '“'
            | '”'
            | '•'
            | '–'
            | '—'
            | '›'
            | '»'
            | '«'
    )
}

/// Characters cut off the end of a word (TreeTagger's `$FChar`).
fn is_trailing_punct(c: char) -> bool {
    matches!(
        c,
        ']' | '}'
            | '\''
            | '`'
            | '"'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '%'
            | '‚'
            | '„'
            | '…'
            | '†'
            | '‡'
            | '‰'
            | '‹'
            | '‘'
            | '’'
            | '“'
            | '”'
            | '•'
            | '–'
            | '—'
            | '›'
            | '»'
            | '«'
    )
}

/// Buffers reused across the words of one call.
#[derive(Default)]
struct Work {
    /// A segment after `...` and `;!?` were spaced out.
    spaced: String,
    /// Byte ranges of the tokens cut off the end of the current word, innermost last.
    suffix: Vec<(usize, usize)>,
}

/// One input line: SGML tags are tokens of their own, the text between them is split at
/// whitespace. The script turns tabs into blanks before protecting the blanks inside tags,
/// so a tag comes out with its tabs as blanks.
fn tokenize_line(line: &str, rules: &Rules, work: &mut Work, out: &mut Vec<String>) {
    let bytes = line.as_bytes();
    let mut text_start = 0;
    let mut from = 0;
    while let Some(offset) = bytes[from..].iter().position(|&b| b == b'<') {
        let open = from + offset;
        let after = open + 1;
        match bytes[after..].iter().position(|&b| b == b'<' || b == b'>') {
            Some(k) if bytes[after + k] == b'>' => {
                let close = after + k;
                tokenize_text(&line[text_start..open], rules, work, out);
                out.push(line[open..=close].replace('\t', " "));
                text_start = close + 1;
                from = close + 1;
            }
            Some(k) => from = after + k,
            None => break,
        }
    }
    tokenize_text(&line[text_start..], rules, work, out);
}

fn tokenize_text(text: &str, rules: &Rules, work: &mut Work, out: &mut Vec<String>) {
    for segment in (Segments { text, pos: 0 }) {
        if !needs_spacing(segment) {
            tokenize_word(segment, rules, &mut work.suffix, out);
            continue;
        }
        space_out(segment, &mut work.spaced);
        for word in work.spaced.split(' ') {
            if !word.is_empty() {
                tokenize_word(word, rules, &mut work.suffix, out);
            }
        }
    }
}

/// The non-empty runs of non-whitespace of a text. Whitespace is Unicode's White_Space, the
/// set of Perl's `\s`; it is found on bytes, since only four lead bytes can begin a
/// non-ASCII space.
struct Segments<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Segments<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let mut start = None;
        while let Some(&b) = bytes.get(self.pos) {
            let space = match b {
                b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' => 1,
                0xC2 | 0xE1 | 0xE2 | 0xE3 => self.text[self.pos..]
                    .chars()
                    .next()
                    .filter(|c| c.is_whitespace())
                    .map_or(0, char::len_utf8),
                _ => 0,
            };
            if space == 0 {
                start.get_or_insert(self.pos);
                self.pos += 1;
            } else if let Some(start) = start {
                return Some(&self.text[start..self.pos]);
            } else {
                self.pos += space;
            }
        }
        start.map(|start| &self.text[start..])
    }
}

/// Whether `s/(\.\.\.)/ ... /g` or `s/([;\!\?])([^ ])/$1 $2/g` would change the segment.
fn needs_spacing(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'.' => bytes.get(i + 1..i + 3) == Some(b".."),
        b';' | b'!' | b'?' => i + 1 < bytes.len(),
        _ => false,
    })
}

/// The script's two substitutions, in its order, on a segment that holds no whitespace.
fn space_out(segment: &str, spaced: &mut String) {
    let dotted = segment.replace("...", " ... ");
    spaced.clear();
    let mut chars = dotted.chars().peekable();
    while let Some(c) = chars.next() {
        spaced.push(c);
        if matches!(c, ';' | '!' | '?')
            && let Some(&next) = chars.peek()
            && next != ' '
        {
            spaced.push(' ');
            spaced.push(next);
            chars.next();
        }
    }
}

/// One whitespace-free word, cut as the script does. `s..e` is the part still undecided;
/// pieces cut off the front are emitted at once, pieces cut off the end wait in `suffix`.
fn tokenize_word(
    word: &str,
    rules: &Rules,
    suffix: &mut Vec<(usize, usize)>,
    out: &mut Vec<String>,
) {
    suffix.clear();
    let (s, mut e) = peel_punctuation(word, suffix, out);
    let listed = |s: usize, e: usize| rules.words.contains(&word[s..e]);
    if listed(s, e) || is_letter_period_run(&word[s..e]) {
        return emit(word, s, e, suffix, out);
    }
    // Disambiguate a final period: /^(..*)\.$/ and not "..."
    let w = &word[s..e];
    if w.len() >= 2 && w.ends_with('.') && w != "..." && !(rules.ordinals && is_ordinal(w)) {
        suffix.push((e - 1, e));
        e -= 1;
        if listed(s, e) {
            return emit(word, s, e, suffix, out);
        }
    }
    let (s, e) = peel_clitics(word, rules, (s, e), suffix, out);
    emit(word, s, e, suffix, out);
}

/// The script's first loop: brackets and punctuation peeled off both ends of the word, one
/// at a time; the part still undecided, `s..e`.
fn peel_punctuation(
    word: &str,
    suffix: &mut Vec<(usize, usize)>,
    out: &mut Vec<String>,
) -> (usize, usize) {
    let bytes = word.as_bytes();
    let mut s = 0;
    let mut e = word.len();
    // First `)` at or after `s + 1`, and first `(` at or after `s`: both only move forward,
    // so the bracket rules stay linear on a word made of thousands of brackets.
    let mut close_paren: Option<usize> = None;
    let mut open_paren: Option<usize> = None;

    loop {
        let w = &word[s..e];
        let mut chars = w.chars();
        let (Some(first), Some(last)) = (chars.next(), chars.next_back()) else {
            // Every rule of the loop needs at least two characters.
            break;
        };
        // s/^(\()([^\)]*)(.)$/$2$3/
        if first == '(' {
            let from = s + 1;
            let close = match close_paren {
                Some(p) if p >= from => p,
                _ => find_byte(bytes, from, b')'),
            };
            close_paren = Some(close);
            if close >= e - last.len_utf8() {
                out.push("(".to_owned());
                s += 1;
                continue;
            }
        }
        // s/^([^(]+)(\))$/$1/
        if last == ')' {
            let open = match open_paren {
                Some(p) if p >= s => p,
                _ => find_byte(bytes, s, b'('),
            };
            open_paren = Some(open);
            if open >= e - 1 {
                suffix.push((e - 1, e));
                e -= 1;
                continue;
            }
        }
        // s/^([$PChar])(.)/$2/
        if is_leading_punct(first) {
            out.push(first.to_string());
            s += first.len_utf8();
            continue;
        }
        // s/(.)([$FChar])$/$1/
        if is_trailing_punct(last) {
            suffix.push((e - last.len_utf8(), e));
            e -= last.len_utf8();
            continue;
        }
        // s/([$FChar]|\))\.$//
        if last == '.'
            && let Some(before) = w[..w.len() - 1].chars().next_back()
            && (is_trailing_punct(before) || before == ')')
        {
            let before_start = e - 1 - before.len_utf8();
            suffix.push((e - 1, e));
            if before_start > s {
                suffix.push((before_start, e - 1));
                e = before_start;
            } else {
                e -= 1;
            }
            continue;
        }
        break;
    }

    (s, e)
}

/// The script's dashes and clitics: `--` and the prefix clitics (`l'`, `qu'`…) off the front,
/// `--` and the suffix clitics (`-t-il`…) off the end.
fn peel_clitics(
    word: &str,
    rules: &Rules,
    (mut s, mut e): (usize, usize),
    suffix: &mut Vec<(usize, usize)>,
    out: &mut Vec<String>,
) -> (usize, usize) {
    // while (s/^(--)(.)/$2/)
    while word[s..e].starts_with("--") && e - s > 2 {
        out.push("--".to_owned());
        s += 2;
    }
    // while (s/^($PClitic)(.)/$2/i)
    'prefix: loop {
        let w = &word[s..e];
        let early_apostrophe = w
            .chars()
            .take(rules.prefix_longest)
            .any(|c| APOSTROPHES.contains(&c));
        if !early_apostrophe {
            break;
        }
        for clitic in rules.prefix_clitics {
            if let Some(len) = match_prefix(clitic, w)
                && len < w.len()
            {
                out.push(w[..len].to_owned());
                s += len;
                continue 'prefix;
            }
        }
        break;
    }
    // while (s/(.)(--)$/$1/)
    while word[s..e].ends_with("--") && e - s > 2 {
        suffix.push((e - 2, e));
        e -= 2;
    }
    // while (s/(.)($FClitic)$/$1/i)
    while let Some(start) = find_suffix_clitic(&word[s..e], rules) {
        suffix.push((s + start, e));
        e = s + start;
    }
    (s, e)
}

fn emit(word: &str, s: usize, e: usize, suffix: &[(usize, usize)], out: &mut Vec<String>) {
    out.push(word[s..e].to_owned());
    out.extend(suffix.iter().rev().map(|&(a, b)| word[a..b].to_owned()));
}

/// Index of the first `needle` at or after `from`, or `bytes.len()`.
fn find_byte(bytes: &[u8], from: usize, needle: u8) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| b == needle))
        .map_or(bytes.len(), |p| from + p)
}

/// `^([A-Za-z-]\.)+$`: `A.`, `U.S.A.`, `e.g.`.
fn is_letter_period_run(w: &str) -> bool {
    let bytes = w.as_bytes();
    !bytes.is_empty()
        && bytes.len().is_multiple_of(2)
        && bytes
            .chunks_exact(2)
            .all(|pair| (pair[0].is_ascii_alphabetic() || pair[0] == b'-') && pair[1] == b'.')
}

/// Case-insensitive equality of a text character with a lowercase pattern character, where
/// the pattern's `'` accepts any apostrophe.
fn char_matches(text: char, pattern: char) -> bool {
    if pattern == '\'' {
        return APOSTROPHES.contains(&text);
    }
    if text == pattern {
        return true;
    }
    if text.is_ascii() {
        return text.to_ascii_lowercase() == pattern;
    }
    let mut lower = text.to_lowercase();
    lower.next() == Some(pattern) && lower.next().is_none()
}

/// Byte length of the prefix of `text` matching `pattern`, if it does.
fn match_prefix(pattern: &str, text: &str) -> Option<usize> {
    let mut text_chars = text.char_indices();
    for p in pattern.chars() {
        let (_, t) = text_chars.next()?;
        if !char_matches(t, p) {
            return None;
        }
    }
    Some(text_chars.next().map_or(text.len(), |(i, _)| i))
}

/// Leftmost start (after at least one character) of a suffix of `w` that is a whole clitic,
/// as Perl's leftmost match of `(.)($FClitic)$` finds it.
fn find_suffix_clitic(w: &str, rules: &Rules) -> Option<usize> {
    if rules.suffix_longest == 0 {
        return None;
    }
    // Only the last `suffix_longest` characters can start a match.
    let window = w
        .char_indices()
        .rev()
        .nth(rules.suffix_longest - 1)
        .map_or(0, |(i, _)| i);
    w[window..]
        .char_indices()
        .map(|(i, c)| (window + i, c))
        .filter(|&(start, c)| start > 0 && rules.suffix_starts.iter().any(|&p| char_matches(c, p)))
        .map(|(start, _)| start)
        .find(|&start| {
            let rest = &w[start..];
            rules
                .suffix_clitics
                .iter()
                .any(|c| match_prefix(c, rest) == Some(rest.len()))
        })
}

#[cfg(test)]
mod tests;
