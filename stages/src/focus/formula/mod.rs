//! The boolean keyword formula that says which texts are on topic.
//!
//! **In**: a formula written by a linguist, such as
//! `(NON "graffiti") ET ("graphe" OU "graphes")`, with [`FormulaOptions`]; then plain texts
//! (page bodies, titles, anchors) to judge.
//!
//! **Out**: a parsed [`Formula`], or a [`FormulaError`] giving a 1-based column (in characters)
//! and a message the author can act on; for each text a [`Verdict`]: whether the formula is
//! satisfied, which leaf clauses occur, and how many times the clauses that are not negated
//! occur (the input of the topic score).
//!
//! **Invariants**:
//! - nothing here panics, whatever the formula or the text; nesting deeper than [`MAX_DEPTH`]
//!   (parentheses and NOTs) is a parse error, never a stack overflow;
//! - texts and formula terms go through the same tokeniser and the same folding, so a term
//!   matches exactly the tokens it would have produced had it been written in the text;
//! - `Formula::parse_with(&f.to_string(), f.options())` gives a formula equal to `f`;
//! - a text is tokenised once ([`PreparedText`]); evaluating a formula only looks words up in
//!   the prepared index (binary searches over the sorted vocabulary), it never rescans the text.
//!
//! # Language
//!
//! | what | how it is written |
//! |---|---|
//! | and | `AND`, `ET`, `&`, or nothing (`graphe sommet` = `graphe AND sommet`) |
//! | or | `OR`, `OU`, `\|` |
//! | not | `NOT`, `NON`, or `-` in front of an operand (`-graffiti`) |
//! | proximity | `"graphe" NEAR/5 "sommet"` (`NEAR` alone = `NEAR/10`) |
//! | word or phrase | `graphe`, `"théorie des graphes"`, `« théorie des graphes »` |
//! | prefix wildcard | `graph*`, `"théorie des graph*"` (a `*` may only end a word) |
//!
//! Operator words are recognised only in upper case: `et`, `ou`, `non` are ordinary French
//! words. Precedence, tightest first: NOT, NEAR, AND, OR. `NEAR/n` holds when an occurrence of
//! each operand is found with at most `n - 1` tokens between them, in either order (adjacent
//! words are at distance 1); its operands are terms or phrases, possibly with wildcards.
//! `&&` and `||` are accepted as `&` and `|`. `&` and `|` always act as operators, so a term such
//! as `R&D` must be quoted (`"R&D"`, the phrase `r d`); inside quotes, operator words are plain
//! words (`"ET"` searches the word *et*). A `-` is NOT only at the start of an operand:
//! `porte-monnaie` is the phrase `porte monnaie`.
//!
//! # Counting
//!
//! [`Verdict::hits`] adds up the occurrences of the distinct leaf clauses that are not negated:
//! every occurrence of a word, phrase or wildcard; for `a NEAR/n b`, the occurrences of `a` that
//! have a `b` close enough. A clause written twice (even with different case or accents, when
//! those are folded) is looked up and counted once.
//!
//! # Matching
//!
//! Tokens are maximal runs of Unicode letters and digits (combining marks stay inside the run),
//! so apostrophes, hyphens and all punctuation separate words: `l'image` is `l` `image`,
//! `porte-monnaie` is `porte` `monnaie`, and a term written with such characters is a phrase.
//! By default tokens are folded: lower case with `ß` → `ss` (case folding), then NFD with the
//! combining marks dropped and `œ` → `oe`, `æ` → `ae` (diacritic and ligature folding, since both
//! say how a word was typed rather than which word it is). [`FormulaOptions`] turns either
//! folding off; with diacritics kept, text and terms are put in NFC so that precomposed and
//! decomposed accents still compare equal.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;
use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The deepest nesting of parentheses and NOTs a formula may have.
///
/// Real formulas nest a handful of levels; the limit exists so that hostile input such as ten
/// thousand `(` is refused with an error instead of exhausting the stack.
pub const MAX_DEPTH: usize = 100;

/// The distance of a bare `NEAR`, in tokens.
pub const DEFAULT_NEAR_DISTANCE: u32 = 10;

/// The largest distance accepted in `NEAR/n`.
pub const MAX_NEAR_DISTANCE: u32 = 1000;

/// How terms and texts are compared.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct FormulaOptions {
    /// Keep upper and lower case distinct (`Calc` no longer matches `calc`).
    pub case_sensitive: bool,
    /// Keep diacritics and ligatures (`côte` no longer matches `cote`, `œuvre` not `oeuvre`).
    pub keep_diacritics: bool,
}

impl FormulaOptions {
    /// Which of the four foldings this is, to cache one index per folding.
    fn slot(self) -> usize {
        usize::from(self.case_sensitive) * 2 + usize::from(self.keep_diacritics)
    }
}

/// A formula that cannot be parsed: where, and what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct FormulaError {
    /// 1-based column, in characters, of the offending part of the formula.
    pub column: usize,
    /// What is wrong, phrased so that the author of the formula can fix it.
    pub message: String,
}

fn error(column: usize, message: impl Into<String>) -> FormulaError {
    FormulaError {
        column,
        message: message.into(),
    }
}

/// The outcome of evaluating a formula on one text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// Whether the text satisfies the formula.
    pub satisfied: bool,
    /// Every leaf clause (term, phrase, wildcard or NEAR clause, shown as in the formula's
    /// `Display`) that occurs in the text, in formula order, once each.
    pub matched: Vec<String>,
    /// Total number of occurrences in the text of the distinct leaf clauses that are not
    /// negated (a clause written twice in the formula is counted once).
    pub hits: usize,
}

/// One word of a term, folded; `prefix` when it was written with a trailing `*`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Word {
    text: String,
    prefix: bool,
}

/// A word or phrase of the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    /// As written, with quotes removed and white space collapsed (shown by `Display`).
    written: String,
    /// Folded words; never empty.
    words: Vec<Word>,
}

/// A leaf of the formula: what is looked up in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Clause {
    Term(Term),
    Near {
        left: Term,
        right: Term,
        distance: u32,
    },
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clause::Term(term) => write!(f, "\"{}\"", term.written),
            Clause::Near {
                left,
                right,
                distance,
            } => write!(
                f,
                "\"{}\" NEAR/{} \"{}\"",
                left.written, distance, right.written
            ),
        }
    }
}

/// What makes two clauses the same search, whatever their spelling in the formula.
#[derive(Debug, PartialEq, Eq, Hash)]
enum ClauseKey {
    Term(Vec<Word>),
    Near(Vec<Word>, Vec<Word>, u32),
}

impl Clause {
    fn key(&self) -> ClauseKey {
        match self {
            Clause::Term(term) => ClauseKey::Term(term.words.clone()),
            Clause::Near {
                left,
                right,
                distance,
            } => ClauseKey::Near(left.words.clone(), right.words.clone(), *distance),
        }
    }
}

/// A leaf clause at one place of the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Leaf {
    clause: Clause,
    /// Index of the first leaf with the same search: it alone is looked up and counted.
    canonical: usize,
    /// Under an odd number of NOTs.
    negated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Leaf(usize),
    Not(Box<Node>),
    And(Vec<Node>),
    Or(Vec<Node>),
}

/// A parsed topic formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formula {
    root: Node,
    /// In formula order.
    leaves: Vec<Leaf>,
    /// Per leaf: its occurrences count towards `Verdict::hits` (canonical, and at least one
    /// of its spellings is not negated).
    scored: Vec<bool>,
    options: FormulaOptions,
}

impl Formula {
    /// Parses `src` with the default options (case- and diacritics-insensitive).
    pub fn parse(src: &str) -> Result<Formula, FormulaError> {
        Formula::parse_with(src, FormulaOptions::default())
    }

    /// Parses `src`; its terms are folded according to `options`.
    pub fn parse_with(src: &str, options: FormulaOptions) -> Result<Formula, FormulaError> {
        let toks = lex(src, options)?;
        if toks.is_empty() {
            return Err(error(
                1,
                "the formula is empty: write at least one term, e.g. \"graphe\"",
            ));
        }
        let mut parser = Parser {
            toks,
            pos: 0,
            depth: 0,
        };
        let ast = parser.parse_or()?;
        if let Some(tok) = parser.peek() {
            let message = match tok.kind {
                TokKind::RParen => "unbalanced parenthesis: this ) has no matching (".to_string(),
                _ => format!("unexpected {}", tok.quoted()),
            };
            return Err(error(tok.col, message));
        }
        let mut lowering = Lowering {
            leaves: Vec::new(),
            keys: HashMap::new(),
        };
        let root = lowering.lower(ast, false);
        let leaves = lowering.leaves;
        let mut scored = vec![false; leaves.len()];
        for leaf in &leaves {
            if !leaf.negated
                && let Some(flag) = scored.get_mut(leaf.canonical)
            {
                *flag = true;
            }
        }
        Ok(Formula {
            root,
            leaves,
            scored,
            options,
        })
    }

    /// The formula every text satisfies (no terms, no hits): what a topic without a formula
    /// uses, so that every page counts as on topic and is scored by its other evidence.
    pub fn everything(options: FormulaOptions) -> Formula {
        Formula {
            root: Node::And(Vec::new()),
            leaves: Vec::new(),
            scored: Vec::new(),
            options,
        }
    }

    /// Whether this is [`Formula::everything`].
    pub fn accepts_everything(&self) -> bool {
        self.leaves.is_empty()
    }

    /// Evaluates the formula on `text`, which is tokenised for this one call.
    pub fn evaluate(&self, text: &str) -> Verdict {
        self.evaluate_prepared(&PreparedText::new(text, self.options))
    }

    /// Evaluates the formula on a text tokenised beforehand, so that one tokenisation serves
    /// many formulas. A text prepared with other options is indexed again for this formula's
    /// options (once, then cached in the `PreparedText`).
    pub fn evaluate_prepared(&self, text: &PreparedText) -> Verdict {
        let index = text.index(self.options);
        let mut counts: Vec<usize> = Vec::with_capacity(self.leaves.len());
        for (i, leaf) in self.leaves.iter().enumerate() {
            let count = if leaf.canonical == i {
                index.clause_count(&leaf.clause)
            } else {
                counts.get(leaf.canonical).copied().unwrap_or(0)
            };
            counts.push(count);
        }
        let satisfied = eval(&self.root, &counts);
        let mut matched = Vec::new();
        let mut hits = 0usize;
        for (i, (leaf, &count)) in self.leaves.iter().zip(&counts).enumerate() {
            if leaf.canonical != i {
                continue;
            }
            if count > 0 {
                matched.push(leaf.clause.to_string());
            }
            if self.scored.get(i).copied().unwrap_or(false) {
                hits = hits.saturating_add(count);
            }
        }
        Verdict {
            satisfied,
            matched,
            hits,
        }
    }

    /// The terms (words, phrases, wildcards, NEAR operands) not under an odd number of NOTs,
    /// as written (without quotes, `*` kept), once each, in formula order: what to score on
    /// and what to send to a search engine.
    pub fn positive_terms(&self) -> Vec<String> {
        self.terms(false)
    }

    /// The terms under an odd number of NOTs, as written, once each, in formula order.
    pub fn negative_terms(&self) -> Vec<String> {
        self.terms(true)
    }

    /// The terms every satisfying text must lack: words or phrases under a NOT that is the
    /// whole formula or one of its top-level conjuncts (`NOT "a"`, `NOT ("a" OR "b")`), as
    /// written, once each, in formula order. What a search engine's `-word` may exclude
    /// without losing a page the formula accepts (`NOT ("a" AND "b")` excludes neither).
    pub fn excluded_terms(&self) -> Vec<String> {
        let mut leaves = Vec::new();
        self.collect_excluded(&self.root, &mut leaves);
        let mut out: Vec<String> = Vec::new();
        for i in leaves {
            if let Some(Leaf {
                clause: Clause::Term(term),
                ..
            }) = self.leaves.get(i)
                && !out.contains(&term.written)
            {
                out.push(term.written.clone());
            }
        }
        out
    }

    /// Leaves of `node`'s top-level conjuncts of the form NOT leaf or NOT (leaf OR leaf …).
    fn collect_excluded(&self, node: &Node, out: &mut Vec<usize>) {
        match node {
            Node::And(items) => {
                for item in items {
                    self.collect_excluded(item, out);
                }
            }
            Node::Not(inner) => match inner.as_ref() {
                Node::Leaf(i) => out.push(*i),
                Node::Or(items) => {
                    // NOT (a OR b) = NOT a AND NOT b.
                    for item in items {
                        self.collect_excluded(&Node::Not(Box::new(item.clone())), out);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// The options the formula was parsed with.
    pub fn options(&self) -> FormulaOptions {
        self.options
    }

    fn terms(&self, negated: bool) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let terms = self
            .leaves
            .iter()
            .filter(|leaf| leaf.negated == negated)
            .flat_map(|leaf| match &leaf.clause {
                Clause::Term(term) => [Some(term), None],
                Clause::Near { left, right, .. } => [Some(left), Some(right)],
            })
            .flatten();
        for term in terms {
            if seen.insert(term.written.as_str()) {
                out.push(term.written.clone());
            }
        }
        out
    }

    fn write_node(&self, node: &Node, nested: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (items, op) = match node {
            Node::Leaf(i) => {
                let Some(leaf) = self.leaves.get(*i) else {
                    return Ok(());
                };
                let compound = matches!(leaf.clause, Clause::Near { .. });
                return if nested && compound {
                    write!(f, "({})", leaf.clause)
                } else {
                    write!(f, "{}", leaf.clause)
                };
            }
            Node::Not(inner) => {
                if nested {
                    f.write_str("(")?;
                }
                f.write_str("NOT ")?;
                self.write_node(inner, true, f)?;
                if nested {
                    f.write_str(")")?;
                }
                return Ok(());
            }
            Node::And(items) => (items, " AND "),
            Node::Or(items) => (items, " OR "),
        };
        if nested {
            f.write_str("(")?;
        }
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                f.write_str(op)?;
            }
            self.write_node(item, true, f)?;
        }
        if nested {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Formula {
    /// The normalised form: English operators, every term quoted, every operand that is not a
    /// single term in parentheses, e.g. `(NOT "graffiti") AND ("graphe" OR "graphes")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.accepts_everything() {
            return f.write_str("(none: every text satisfies it)");
        }
        self.write_node(&self.root, false, f)
    }
}

impl FromStr for Formula {
    type Err = FormulaError;

    /// Same as [`Formula::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Formula::parse(s)
    }
}

fn eval(node: &Node, counts: &[usize]) -> bool {
    match node {
        Node::Leaf(i) => counts.get(*i).is_some_and(|&c| c > 0),
        Node::Not(inner) => !eval(inner, counts),
        Node::And(items) => items.iter().all(|item| eval(item, counts)),
        Node::Or(items) => items.iter().any(|item| eval(item, counts)),
    }
}

// ---------------------------------------------------------------------------------------------
// Tokenising and folding (shared by texts and formula terms)
// ---------------------------------------------------------------------------------------------

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
fn continues_token(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    // A decomposed accent (e + U+0301) is not alphanumeric, yet must not split the word.
    c.is_alphanumeric() || is_combining_mark(c)
}

/// The tokens of a text, as slices: maximal runs of letters and digits.
struct Tokens<'a> {
    text: &'a str,
    chars: std::str::CharIndices<'a>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
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
fn fold_into(token: &str, options: FormulaOptions, out: &mut String) {
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

// ---------------------------------------------------------------------------------------------
// Prepared texts
// ---------------------------------------------------------------------------------------------

/// FxHash's multiply-rotate hash for the token table: the tokens of one page need no
/// DoS-resistant hashing (a page crafted for collisions only slows down its own preparation),
/// and it makes preparing a text about 15 % faster than the default SipHash.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The index of one text under one folding.
#[derive(Debug, Clone, Default)]
struct Index {
    /// Distinct folded tokens, sorted (byte order), so that a prefix is a contiguous range.
    vocab: Vec<Box<str>>,
    /// Postings of `vocab[i]` are `postings[offsets[i]..offsets[i + 1]]`; the postings of a
    /// range of ids are therefore one contiguous slice.
    offsets: Vec<u32>,
    /// Token positions, ascending within each vocabulary entry.
    postings: Vec<u32>,
    /// Vocabulary id of the token at each position, to check phrases.
    sequence: Vec<u32>,
}

impl Index {
    fn build(text: &str, options: FormulaOptions) -> Index {
        // Sized for a page of running text (a token every 6 bytes, a new word every 40 or
        // so), so that neither grows by doubling on most pages.
        let mut ids: HashMap<Box<str>, u32, BuildHasherDefault<TokenHasher>> =
            HashMap::with_capacity_and_hasher(text.len() / 40, BuildHasherDefault::default());
        let mut sequence: Vec<u32> = Vec::with_capacity(text.len() / 6);
        let mut buf = String::new();
        for token in Tokens::new(text) {
            // Positions are u32: a text of more than four billion tokens is cut there rather
            // than mis-indexed.
            if u32::try_from(sequence.len()).is_err() {
                break;
            }
            fold_into(token, options, &mut buf);
            let id = match ids.get(buf.as_str()) {
                Some(&id) => id,
                None => {
                    let Ok(id) = u32::try_from(ids.len()) else {
                        break;
                    };
                    ids.insert(buf.as_str().into(), id);
                    id
                }
            };
            sequence.push(id);
        }
        let mut entries: Vec<(Box<str>, u32)> = ids.into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // rank[first-seen id] = sorted id
        let mut rank = vec![0u32; entries.len()];
        for (sorted, (_, seen)) in (0u32..).zip(&entries) {
            if let Some(slot) = rank.get_mut(*seen as usize) {
                *slot = sorted;
            }
        }
        let mut counts = vec![0u32; entries.len()];
        for id in &mut sequence {
            *id = rank.get(*id as usize).copied().unwrap_or(0);
            if let Some(count) = counts.get_mut(*id as usize) {
                *count += 1;
            }
        }
        let mut offsets = Vec::with_capacity(entries.len() + 1);
        let mut total = 0u32;
        offsets.push(0);
        for count in &counts {
            total += count;
            offsets.push(total);
        }
        let mut cursor: Vec<u32> = offsets.clone();
        let mut postings = vec![0u32; sequence.len()];
        for (pos, id) in (0u32..).zip(&sequence) {
            if let Some(next) = cursor.get_mut(*id as usize)
                && let Some(slot) = postings.get_mut(*next as usize)
            {
                *slot = pos;
                *next += 1;
            }
        }
        Index {
            vocab: entries.into_iter().map(|(token, _)| token).collect(),
            offsets,
            postings,
            sequence,
        }
    }

    /// The ids (a half-open range) of the vocabulary entries `word` matches.
    fn range(&self, word: &Word) -> (usize, usize) {
        let w = word.text.as_str();
        let lo = self.vocab.partition_point(|t| &**t < w);
        let rest = self.vocab.get(lo..).unwrap_or_default();
        let len = if word.prefix {
            rest.partition_point(|t| t.starts_with(w))
        } else {
            usize::from(rest.first().is_some_and(|t| &**t == w))
        };
        (lo, lo + len)
    }

    /// The positions of the tokens whose ids are in `lo..hi` (ascending when `hi - lo == 1`).
    fn span(&self, (lo, hi): (usize, usize)) -> &[u32] {
        let start = self.offsets.get(lo).copied().unwrap_or(0) as usize;
        let end = self.offsets.get(hi).copied().unwrap_or(0) as usize;
        self.postings.get(start..end).unwrap_or_default()
    }

    fn clause_count(&self, clause: &Clause) -> usize {
        match clause {
            Clause::Term(term) => self.term_count(term),
            Clause::Near {
                left,
                right,
                distance,
            } => self.near_count(left, right, *distance),
        }
    }

    fn term_count(&self, term: &Term) -> usize {
        match term.words.as_slice() {
            [word] => self.span(self.range(word)).len(),
            _ => self.term_starts(term).len(),
        }
    }

    /// Ascending start positions of the occurrences of `term`.
    fn term_starts(&self, term: &Term) -> Vec<u32> {
        let ranges: Vec<(usize, usize)> = term.words.iter().map(|w| self.range(w)).collect();
        if ranges.iter().any(|(lo, hi)| lo >= hi) {
            return Vec::new();
        }
        // Anchor on the rarest word: a phrase such as "la théorie des graphes" is then checked
        // at the few places of "théorie" rather than at every "la".
        let Some((anchor, &anchor_range)) = ranges
            .iter()
            .enumerate()
            .min_by_key(|(_, range)| self.span(**range).len())
        else {
            return Vec::new();
        };
        let mut starts = Vec::new();
        for &pos in self.span(anchor_range) {
            let Some(start) = (pos as usize).checked_sub(anchor) else {
                continue;
            };
            let fits = ranges.iter().enumerate().all(|(k, &(lo, hi))| {
                k == anchor
                    || self
                        .sequence
                        .get(start + k)
                        .is_some_and(|&id| (lo..hi).contains(&(id as usize)))
            });
            if fits && let Ok(start) = u32::try_from(start) {
                starts.push(start);
            }
        }
        if anchor_range.1 - anchor_range.0 > 1 {
            starts.sort_unstable();
        }
        starts
    }

    /// Occurrences of `left` that have an occurrence of `right` within `distance` tokens,
    /// before or after, without overlapping it.
    fn near_count(&self, left: &Term, right: &Term, distance: u32) -> usize {
        let lefts = self.term_starts(left);
        if lefts.is_empty() {
            return 0;
        }
        let rights = self.term_starts(right);
        if rights.is_empty() {
            return 0;
        }
        let left_len = left.words.len() as u64;
        let right_len = right.words.len() as u64;
        let distance = u64::from(distance);
        // Is some right start within lo..=hi?
        let any_in = |lo: u64, hi: u64| {
            let i = rights.partition_point(|&r| u64::from(r) < lo);
            rights.get(i).is_some_and(|&r| u64::from(r) <= hi)
        };
        lefts
            .iter()
            .filter(|&&l| {
                let l = u64::from(l);
                // right after: its first token at most `distance` after left's last token
                let after = any_in(l + left_len, l + left_len - 1 + distance);
                // right before: left's first token at most `distance` after right's last one
                let before = l >= right_len
                    && any_in((l + 1).saturating_sub(distance + right_len), l - right_len);
                after || before
            })
            .count()
    }
}

/// A text tokenised and indexed once, to be judged by many formulas.
#[derive(Debug, Clone)]
pub struct PreparedText {
    /// Kept so that a formula with other options can have its own folding of the text.
    text: Box<str>,
    options: FormulaOptions,
    token_count: usize,
    /// One lazily built index per folding (see [`FormulaOptions::slot`]).
    indexes: [OnceLock<Index>; 4],
}

impl PreparedText {
    /// Tokenises and indexes `text` for formulas parsed with `options`.
    pub fn new(text: &str, options: FormulaOptions) -> Self {
        let index = Index::build(text, options);
        let token_count = index.sequence.len();
        let slot = options.slot();
        let mut index = Some(index);
        let indexes = std::array::from_fn(|i| match index.take_if(|_| i == slot) {
            Some(index) => OnceLock::from(index),
            None => OnceLock::new(),
        });
        PreparedText {
            text: text.into(),
            options,
            token_count,
            indexes,
        }
    }

    /// The number of tokens (words and numbers) in the text.
    pub fn token_count(&self) -> usize {
        self.token_count
    }

    /// The options the text was prepared for.
    pub fn options(&self) -> FormulaOptions {
        self.options
    }

    fn index(&self, options: FormulaOptions) -> &Index {
        match self.indexes.get(options.slot()) {
            Some(cell) => cell.get_or_init(|| Index::build(&self.text, options)),
            None => empty_index(),
        }
    }

    /// The distinct tokens of the text, folded with the options it was prepared for, each with
    /// its number of occurrences, in byte order: exactly what [`folded_tokens`] would count,
    /// without tokenising the text a second time (the seed centroid scores the same texts).
    pub fn token_counts(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        let index = self.index(self.options);
        index
            .vocab
            .iter()
            .zip(index.offsets.windows(2))
            .map(|(token, bounds)| match bounds {
                [start, end] => (&**token, end.saturating_sub(*start)),
                _ => (&**token, 0),
            })
    }
}

/// Unreachable in practice (the slot is always below 4), but indexing must not panic.
fn empty_index() -> &'static Index {
    static EMPTY: OnceLock<Index> = OnceLock::new();
    EMPTY.get_or_init(Index::default)
}

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum TokKind {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Near(u32),
    Term(Term),
}

#[derive(Debug, Clone)]
struct Tok {
    kind: TokKind,
    /// 1-based column of its first character.
    col: usize,
    /// As written, for messages.
    text: String,
}

impl Tok {
    fn is_operator(&self) -> bool {
        matches!(
            self.kind,
            TokKind::And | TokKind::Or | TokKind::Not | TokKind::Near(_)
        )
    }

    fn quoted(&self) -> String {
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

fn lex(src: &str, options: FormulaOptions) -> Result<Vec<Tok>, FormulaError> {
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
                        format!(
                            "unterminated quote: the {c} opened here is never closed; add a {closer}"
                        ),
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
                toks.push(Tok {
                    kind: TokKind::Term(Term {
                        written: written.clone(),
                        words,
                    }),
                    col,
                    text: written,
                });
                i += len + 2;
            }
            '”' | '»' => {
                return Err(error(
                    col,
                    format!("closing quote {c} without an opening quote before it"),
                ));
            }
            _ => {
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
                toks.push(Tok {
                    kind,
                    col,
                    text: word,
                });
                i += len;
            }
        }
    }
    Ok(toks)
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

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// The parse tree before leaves are numbered.
#[derive(Debug)]
enum Ast {
    Term(Term),
    Near(Term, Term, u32),
    Not(Box<Ast>),
    And(Vec<Ast>),
    Or(Vec<Ast>),
}

/// Builds an n-ary AND or OR, splicing operands that are the same operator, so that
/// `(a AND b) AND c` and `a AND b AND c` are one tree (and `Display` round-trips).
fn combine(items: Vec<Ast>, and: bool) -> Ast {
    let mut flat = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ast::And(inner) if and => flat.extend(inner),
            Ast::Or(inner) if !and => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1
        && let Some(only) = flat.pop()
    {
        return only;
    }
    if and { Ast::And(flat) } else { Ast::Or(flat) }
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Current nesting of parentheses and NOTs.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn prev(&self) -> Option<&Tok> {
        self.pos.checked_sub(1).and_then(|p| self.toks.get(p))
    }

    fn enter(&mut self, col: usize) -> Result<(), FormulaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error(
                col,
                format!(
                    "the formula is nested too deeply (more than {MAX_DEPTH} parentheses or NOTs \
                     inside each other); simplify it"
                ),
            ));
        }
        Ok(())
    }

    fn parse_or(&mut self) -> Result<Ast, FormulaError> {
        let mut items = vec![self.parse_and()?];
        while self.peek().is_some_and(|t| matches!(t.kind, TokKind::Or)) {
            self.pos += 1;
            items.push(self.parse_and()?);
        }
        Ok(combine(items, false))
    }

    fn parse_and(&mut self) -> Result<Ast, FormulaError> {
        let mut items = vec![self.parse_near()?];
        while let Some(tok) = self.peek() {
            match tok.kind {
                TokKind::And => {
                    self.pos += 1;
                    items.push(self.parse_near()?);
                }
                // Two operands side by side: implicit AND, as in search engines.
                TokKind::Term(_) | TokKind::LParen | TokKind::Not => {
                    items.push(self.parse_near()?);
                }
                _ => break,
            }
        }
        Ok(combine(items, true))
    }

    fn parse_near(&mut self) -> Result<Ast, FormulaError> {
        let left = self.parse_unary()?;
        let Some(tok) = self.peek() else {
            return Ok(left);
        };
        let TokKind::Near(distance) = tok.kind else {
            return Ok(left);
        };
        let near_col = tok.col;
        let near_text = tok.text.clone();
        self.pos += 1;
        let right = self.parse_unary()?;
        if let Some(next) = self.peek()
            && matches!(next.kind, TokKind::Near(_))
        {
            return Err(error(
                next.col,
                "NEAR clauses cannot be chained: write (a NEAR b) AND (b NEAR c)",
            ));
        }
        match (left, right) {
            (Ast::Term(left), Ast::Term(right)) => Ok(Ast::Near(left, right, distance)),
            (Ast::Term(_), _) => Err(error(
                near_col,
                format!(
                    "`{near_text}` needs a single term or phrase on its right, not NOT, NEAR or \
                     a group in parentheses; to exclude, write NOT (a NEAR b)"
                ),
            )),
            _ => Err(error(
                near_col,
                format!(
                    "`{near_text}` needs a single term or phrase on its left, not NOT, NEAR or \
                     a group in parentheses; to exclude, write NOT (a NEAR b)"
                ),
            )),
        }
    }

    fn parse_unary(&mut self) -> Result<Ast, FormulaError> {
        let Some(tok) = self.peek() else {
            return Err(self.missing_at_end());
        };
        let col = tok.col;
        match &tok.kind {
            TokKind::Term(term) => {
                let term = term.clone();
                self.pos += 1;
                Ok(Ast::Term(term))
            }
            TokKind::Not => {
                self.pos += 1;
                self.enter(col)?;
                let inner = self.parse_unary()?;
                self.depth -= 1;
                Ok(Ast::Not(Box::new(inner)))
            }
            TokKind::LParen => {
                self.pos += 1;
                self.enter(col)?;
                match self.peek() {
                    Some(next) if matches!(next.kind, TokKind::RParen) => {
                        return Err(error(
                            col,
                            "empty parentheses: put a term or a clause between ( and )",
                        ));
                    }
                    None => return Err(unclosed(col)),
                    Some(_) => {}
                }
                let inner = self.parse_or()?;
                match self.peek() {
                    Some(next) if matches!(next.kind, TokKind::RParen) => {
                        self.pos += 1;
                        self.depth -= 1;
                        Ok(inner)
                    }
                    _ => Err(unclosed(col)),
                }
            }
            TokKind::RParen => Err(match self.prev() {
                Some(prev) if prev.is_operator() => error(
                    prev.col,
                    format!("{} has no operand on its right", prev.quoted()),
                ),
                _ => error(col, "unbalanced parenthesis: this ) has no matching ("),
            }),
            TokKind::And | TokKind::Or | TokKind::Near(_) => Err(match self.prev() {
                Some(prev) if prev.is_operator() => error(
                    col,
                    format!(
                        "{} is followed by {}: a term is missing between them",
                        prev.quoted(),
                        tok.quoted()
                    ),
                ),
                _ => error(col, format!("{} has no operand on its left", tok.quoted())),
            }),
        }
    }

    fn missing_at_end(&self) -> FormulaError {
        match self.prev() {
            Some(prev) if prev.is_operator() => error(
                prev.col,
                format!("{} has no operand on its right", prev.quoted()),
            ),
            Some(prev) => error(
                prev.col,
                format!("the formula ends unexpectedly after {}", prev.quoted()),
            ),
            None => error(
                1,
                "the formula is empty: write at least one term, e.g. \"graphe\"",
            ),
        }
    }
}

fn unclosed(col: usize) -> FormulaError {
    error(
        col,
        "unbalanced parenthesis: this ( is never closed; add a ) after its clause",
    )
}

/// Numbers the leaves in formula order and records their polarity.
struct Lowering {
    leaves: Vec<Leaf>,
    keys: HashMap<ClauseKey, usize>,
}

impl Lowering {
    fn leaf(&mut self, clause: Clause, negated: bool) -> Node {
        let index = self.leaves.len();
        let canonical = *self.keys.entry(clause.key()).or_insert(index);
        self.leaves.push(Leaf {
            clause,
            canonical,
            negated,
        });
        Node::Leaf(index)
    }

    fn lower(&mut self, ast: Ast, negated: bool) -> Node {
        match ast {
            Ast::Term(term) => self.leaf(Clause::Term(term), negated),
            Ast::Near(left, right, distance) => self.leaf(
                Clause::Near {
                    left,
                    right,
                    distance,
                },
                negated,
            ),
            Ast::Not(inner) => Node::Not(Box::new(self.lower(*inner, !negated))),
            Ast::And(items) => Node::And(
                items
                    .into_iter()
                    .map(|item| self.lower(item, negated))
                    .collect(),
            ),
            Ast::Or(items) => Node::Or(
                items
                    .into_iter()
                    .map(|item| self.lower(item, negated))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_are_the_folded_tokens_counted() {
        for options in [
            FormulaOptions::default(),
            FormulaOptions {
                case_sensitive: true,
                keep_diacritics: true,
            },
        ] {
            let text = "Les Calques, les calques et l'ÉTÉ : œuvre 2024 -- calques";
            let mut expected: std::collections::BTreeMap<String, u32> = Default::default();
            for token in folded_tokens(text, options) {
                *expected.entry(token).or_insert(0) += 1;
            }
            let prepared = PreparedText::new(text, options);
            let got: Vec<(String, u32)> = prepared
                .token_counts()
                .map(|(t, n)| (t.to_string(), n))
                .collect();
            assert_eq!(got, expected.into_iter().collect::<Vec<_>>());
        }
        assert_eq!(
            PreparedText::new("", FormulaOptions::default())
                .token_counts()
                .count(),
            0
        );
    }

    fn f(src: &str) -> Formula {
        match Formula::parse(src) {
            Ok(formula) => formula,
            Err(e) => panic!("{src:?} should parse: {e}"),
        }
    }

    fn err(src: &str) -> FormulaError {
        match Formula::parse(src) {
            Ok(formula) => panic!("{src:?} should not parse, got {formula}"),
            Err(e) => e,
        }
    }

    fn sat(src: &str, text: &str) -> bool {
        f(src).evaluate(text).satisfied
    }

    #[test]
    fn excluded_terms_are_only_the_top_level_negations() {
        let ex = |src: &str| f(src).excluded_terms();
        assert_eq!(
            ex(r#"(NON "graffiti") ET ("graphe" OU "graphes")"#),
            vec!["graffiti"]
        );
        assert_eq!(ex(r#"graphe -tag -"art mural""#), vec!["tag", "art mural"]);
        assert_eq!(
            ex(r#"graphe AND NOT (tag OR graff*)"#),
            vec!["tag", "graff*"]
        );
        assert_eq!(ex("NOT tag"), vec!["tag"]);
        // Negations that do not exclude a term from every accepted page.
        assert!(ex("graphe AND NOT (tag AND mur)").is_empty());
        assert!(ex("graphe OR NOT tag").is_empty());
        assert!(ex("graphe AND NOT (tag NEAR/3 mur)").is_empty());
        assert!(ex("graphe AND NOT NOT tag").is_empty());
    }

    #[test]
    fn seed_formula_in_french_english_and_symbols_is_one_tree() {
        let seed = f(r#"(NON "graffiti") ET ("graphe" OU "graphes")"#);
        assert_eq!(
            seed.to_string(),
            r#"(NOT "graffiti") AND ("graphe" OR "graphes")"#
        );
        for variant in [
            r#"(NOT "graffiti") AND ("graphe" OR "graphes")"#,
            "(NOT graffiti) AND (graphe OR graphes)",
            "-graffiti & (graphe | graphes)",
            "-graffiti (graphe || graphes)",
            "NON graffiti && (graphe OU graphes)",
            "NON « graffiti » ET (“graphe” OU graphes)",
        ] {
            assert_eq!(f(variant), seed, "{variant}");
        }
        assert!(seed.evaluate("La théorie des graphes.").satisfied);
        assert!(seed.evaluate("Un GRAPHE orienté").satisfied);
        assert!(!seed.evaluate("Des graphes et des GRAFFITI").satisfied);
        // Whole words only: the plural is another word.
        assert!(seed.evaluate("Des graphes et des graffitis").satisfied);
        assert!(!seed.evaluate("Des graphes et un graffiti").satisfied);
        assert!(!seed.evaluate("Un graphique").satisfied);
    }

    #[test]
    fn precedence_not_near_and_or() {
        assert_eq!(f("a OR b AND c").to_string(), r#""a" OR ("b" AND "c")"#);
        assert_eq!(f("a AND b OR c").to_string(), r#"("a" AND "b") OR "c""#);
        assert_eq!(f("NOT a AND b").to_string(), r#"(NOT "a") AND "b""#);
        assert_eq!(f("NOT a OR b").to_string(), r#"(NOT "a") OR "b""#);
        assert_eq!(
            f("a NEAR/3 b AND c").to_string(),
            r#"("a" NEAR/3 "b") AND "c""#
        );
        assert_eq!(
            f("a OR b NEAR c").to_string(),
            r#""a" OR ("b" NEAR/10 "c")"#
        );
        assert_eq!(
            f("a b OR c d").to_string(),
            r#"("a" AND "b") OR ("c" AND "d")"#
        );
        assert_eq!(f("(a OR b) c").to_string(), r#"("a" OR "b") AND "c""#);
        assert_eq!(f("NOT NOT a").to_string(), r#"NOT (NOT "a")"#);
        assert_eq!(f("--a").to_string(), r#"NOT (NOT "a")"#);
        assert_eq!(f("NOT (a OR b)").to_string(), r#"NOT ("a" OR "b")"#);
        // Same-operator groups are flattened.
        assert_eq!(
            f("(a AND b) AND (c AND d)").to_string(),
            r#""a" AND "b" AND "c" AND "d""#
        );
        assert_eq!(f("((a))").to_string(), r#""a""#);
        // Semantics agree with the precedence.
        assert!(sat("a OR b AND c", "a"));
        assert!(!sat("a OR b AND c", "b"));
        assert!(sat("NOT a OR b", "zzz"));
        assert!(!sat("NOT a AND b", "a b"));
        assert!(sat("NOT (a AND b)", "a"));
    }

    #[test]
    fn operator_words_only_in_upper_case() {
        let formula = f("chat et chien");
        assert_eq!(formula.to_string(), r#""chat" AND "et" AND "chien""#);
        assert!(!formula.evaluate("chat, chien").satisfied);
        assert!(formula.evaluate("le chat et le chien").satisfied);
        assert_eq!(f("vrai ou faux").positive_terms(), ["vrai", "ou", "faux"]);
        assert_eq!(f("non").positive_terms(), ["non"]);
        assert_eq!(f(r#""ET""#).positive_terms(), ["ET"]);
        assert!(sat(r#""ET""#, "Et alors ?"));
        assert_eq!(
            f("Et Ou Non Near").positive_terms(),
            ["Et", "Ou", "Non", "Near"]
        );
        assert_eq!(f("near/5").to_string(), r#""near/5""#);
    }

    #[test]
    fn phrases_and_token_boundaries() {
        let phrase = f(r#""théorie des graphes""#);
        assert!(phrase.evaluate("La Théorie des Graphes, enfin.").satisfied);
        assert!(!phrase.evaluate("des graphes de la théorie").satisfied);
        assert!(!phrase.evaluate("théorie, graphes").satisfied);
        // Apostrophes (straight and curly) and hyphens separate tokens, in text and terms.
        assert!(sat("l'image", "Ouvrez l’image."));
        assert!(sat("image", "Ouvrez l'image."));
        assert!(!sat("limage", "Ouvrez l'image."));
        assert!(sat("porte-monnaie", "un porte monnaie"));
        assert!(sat(r#""porte monnaie""#, "un porte-monnaie"));
        assert!(sat("monnaie", "un porte-monnaie"));
        // A word only matches whole tokens.
        assert!(!sat("graphe", "paragraphe"));
        assert!(!sat("graph", "graphe"));
        assert!(sat("gdm3", "use gdm3 as a display manager"));
        assert!(!sat("gdm", "use gdm3 as a display manager"));
        // Typographic quotes work as quotes; quote characters inside do not matter.
        assert_eq!(f("« théorie des graphes »"), phrase);
        assert_eq!(f("“théorie des graphes”"), phrase);
        assert_eq!(f(r#"«dit "bonjour"»"#).to_string(), r#""dit bonjour""#);
        // Counting: every occurrence of the phrase.
        assert_eq!(f(r#""a b""#).evaluate("a b a b x a b").hits, 3);
        assert_eq!(f(r#""a a""#).evaluate("a a a").hits, 2);
    }

    #[test]
    fn wildcards() {
        let graph = f("graph*");
        assert!(graph.evaluate("les graphes").satisfied);
        assert!(graph.evaluate("Graphique").satisfied);
        assert!(graph.evaluate("graph").satisfied);
        assert!(!graph.evaluate("paragraphe").satisfied);
        assert!(!graph.evaluate("grap").satisfied);
        assert_eq!(
            graph.evaluate("graphe, graphes, grapheur, geographie").hits,
            3
        );
        assert_eq!(f(r#""graph*""#), graph);
        assert_eq!(graph.to_string(), r#""graph*""#);
        assert_eq!(graph.positive_terms(), ["graph*"]);
        // Inside phrases, each word may end with `*`.
        let phrase = f(r#""théorie des graph*""#);
        assert!(phrase.evaluate("la théorie des graphes orientés").satisfied);
        assert!(!phrase.evaluate("la théorie des ensembles").satisfied);
        assert!(sat(r#""th* des graphes""#, "la théorie des graphes"));
        // Folding applies to the prefix too.
        assert!(sat("élé*", "ELEPHANT"));
        assert!(sat("ele*", "Éléphant"));
        // Hits of a wildcard term with phrase anchor on a multi-id range are counted once each.
        assert_eq!(f(r#""x*""#).evaluate("xa xb xa y xc").hits, 4);
        assert_eq!(f(r#""a x*""#).evaluate("a xb a xa a y a xc").hits, 3);
    }

    #[test]
    fn near() {
        let near2 = f(r#""graphe" NEAR/2 "sommet""#);
        assert!(near2.evaluate("graphe sommet").satisfied);
        assert!(near2.evaluate("graphe à sommet").satisfied);
        assert!(!near2.evaluate("graphe à un sommet").satisfied);
        assert!(near2.evaluate("sommet du graphe").satisfied);
        assert!(!near2.evaluate("sommet de ce graphe").satisfied);
        assert!(!near2.evaluate("graphe").satisfied);
        assert!(!near2.evaluate("").satisfied);
        // Default distance is 10 tokens.
        let near = f("graphe NEAR sommet");
        assert_eq!(near.to_string(), r#""graphe" NEAR/10 "sommet""#);
        assert!(near.evaluate("graphe 1 2 3 4 5 6 7 8 9 sommet").satisfied);
        assert!(
            !near
                .evaluate("graphe 1 2 3 4 5 6 7 8 9 10 sommet")
                .satisfied
        );
        // Phrases: distance from the end of one to the start of the other.
        let phrases = f(r#""théorie des graphes" NEAR/1 "orientés*""#);
        assert!(phrases.evaluate("théorie des graphes orientés").satisfied);
        assert!(
            !phrases
                .evaluate("théorie des graphes non orientés")
                .satisfied
        );
        let before = f(r#""a b" NEAR/2 "c d""#);
        assert!(before.evaluate("c d x a b").satisfied);
        assert!(!before.evaluate("c d x y a b").satisfied);
        // Overlapping occurrences do not count: a term near itself needs two occurrences.
        let twice = f("graphe NEAR/3 graphe");
        assert!(!twice.evaluate("un graphe").satisfied);
        assert!(twice.evaluate("graphe et graphe").satisfied);
        assert!(!sat(r#""a b" NEAR/5 b"#, "a b"));
        // Hits: occurrences of the left operand that have a partner.
        assert_eq!(near2.evaluate("graphe sommet graphe x x x graphe").hits, 2);
        assert_eq!(
            near2.evaluate("graphe sommet").matched,
            [r#""graphe" NEAR/2 "sommet""#]
        );
        // NEAR binds tighter than AND, looser than nothing else but NOT.
        assert!(sat("a NEAR/1 b c", "c x a b"));
        assert!(!sat("a NEAR/1 b c", "a b"));
        assert!(sat("NOT (a NEAR/1 b)", "a x b"));
        assert!(!sat("NOT (a NEAR/1 b)", "b a"));
    }

    #[test]
    fn folding_default_and_options() {
        assert!(sat("élève", "ELEVE"));
        assert!(sat("ELEVE", "élève"));
        assert!(sat("cœur", "COEUR"));
        assert!(sat("coeur", "Cœur"));
        assert!(sat("Œuvre", "oeuvre"));
        assert!(sat("ex aequo", "ex æquo"));
        assert!(sat("straße", "STRASSE"));
        assert!(sat("strasse", "Straße"));
        // A decomposed accent neither splits the word nor defeats the match.
        assert!(sat("élève", "e\u{301}le\u{300}ve"));
        assert!(sat("e\u{301}le\u{300}ve", "élève"));
        assert_eq!(
            PreparedText::new("e\u{301}le\u{300}ve", FormulaOptions::default()).token_count(),
            1
        );

        let case = FormulaOptions {
            case_sensitive: true,
            keep_diacritics: false,
        };
        let calc = Formula::parse_with("Calc", case).ok();
        assert!(
            calc.as_ref()
                .is_some_and(|c| c.evaluate("LibreOffice Calc").satisfied)
        );
        assert!(calc.as_ref().is_some_and(|c| !c.evaluate("calc").satisfied));
        assert!(calc.as_ref().is_some_and(|c| c.evaluate("Cälc").satisfied));
        assert_eq!(calc.map(|c| c.options()), Some(case));

        let accents = FormulaOptions {
            case_sensitive: false,
            keep_diacritics: true,
        };
        let cote = Formula::parse_with("côte", accents).ok();
        assert!(
            cote.as_ref()
                .is_some_and(|c| c.evaluate("la CÔTE").satisfied)
        );
        assert!(
            cote.as_ref()
                .is_some_and(|c| c.evaluate("la co\u{302}te").satisfied)
        );
        assert!(
            cote.as_ref()
                .is_some_and(|c| !c.evaluate("la cote").satisfied)
        );
        let coeur = Formula::parse_with("cœur", accents).ok();
        assert!(
            coeur
                .as_ref()
                .is_some_and(|c| !c.evaluate("coeur").satisfied)
        );
        assert!(coeur.as_ref().is_some_and(|c| c.evaluate("CŒUR").satisfied));

        let exact = FormulaOptions {
            case_sensitive: true,
            keep_diacritics: true,
        };
        let both = Formula::parse_with("Élève", exact).ok();
        assert!(both.as_ref().is_some_and(|c| c.evaluate("Élève").satisfied));
        assert!(
            both.as_ref()
                .is_some_and(|c| !c.evaluate("élève").satisfied)
        );
        assert!(
            both.as_ref()
                .is_some_and(|c| !c.evaluate("Eleve").satisfied)
        );
    }

    #[test]
    fn prepared_text_serves_formulas_with_other_options() {
        let text = PreparedText::new("LibreOffice Calc, la côte", FormulaOptions::default());
        assert_eq!(text.token_count(), 4);
        let insensitive = f("calc AND cote");
        assert!(insensitive.evaluate_prepared(&text).satisfied);
        let exact = FormulaOptions {
            case_sensitive: true,
            keep_diacritics: true,
        };
        let strict_lower = Formula::parse_with("calc", exact).ok();
        assert!(strict_lower.is_some_and(|c| !c.evaluate_prepared(&text).satisfied));
        let strict = Formula::parse_with("Calc AND côte", exact).ok();
        assert!(strict.is_some_and(|c| c.evaluate_prepared(&text).satisfied));
        // The default index is still the one used by default formulas.
        assert!(insensitive.evaluate_prepared(&text).satisfied);
    }

    #[test]
    fn matched_hits_and_term_lists() {
        let formula = f(
            r#"graphe* OR (sommet AND -graffiti) OR Graphe* OR "arête" NEAR/3 sommet OR NOT NOT arc"#,
        );
        let verdict = formula.evaluate("Un graphe, deux graphes, un sommet, une arête et un arc.");
        assert!(verdict.satisfied);
        // `Graphe*` is the same search as `graphe*`: listed and counted once.
        assert_eq!(
            verdict.matched,
            [
                r#""graphe*""#,
                r#""sommet""#,
                r#""arête" NEAR/3 "sommet""#,
                r#""arc""#
            ]
        );
        // graphe* 2 + sommet 1 + NEAR 1 + arc 1 (double negation is positive); graffiti is not
        // counted, being negated.
        assert_eq!(verdict.hits, 5);
        assert_eq!(
            formula.positive_terms(),
            ["graphe*", "sommet", "Graphe*", "arête", "arc"]
        );
        assert_eq!(formula.negative_terms(), ["graffiti"]);
        let with_graffiti = formula.evaluate("graffiti");
        assert_eq!(with_graffiti.matched, [r#""graffiti""#]);
        assert_eq!(with_graffiti.hits, 0);
        assert!(!with_graffiti.satisfied);
        // A clause both negated and not is counted.
        let both = f("chat OR NOT chat");
        assert_eq!(both.evaluate("chat chat").hits, 2);
        assert_eq!(both.positive_terms(), ["chat"]);
        assert_eq!(both.negative_terms(), ["chat"]);
        // NEAR operands are terms.
        assert_eq!(f("-(a NEAR b)").negative_terms(), ["a", "b"]);
    }

    #[test]
    fn verdict_serialises() {
        let verdict = f("graphe").evaluate("un graphe");
        let json = serde_json::to_string(&verdict).ok();
        assert_eq!(
            json.as_deref(),
            Some(r#"{"satisfied":true,"matched":["\"graphe\""],"hits":1}"#)
        );
        let options = FormulaOptions {
            case_sensitive: true,
            keep_diacritics: false,
        };
        let json = serde_json::to_string(&options).unwrap_or_default();
        let back: Option<FormulaOptions> = serde_json::from_str(&json).ok();
        assert_eq!(back, Some(options));
    }

    #[test]
    fn error_columns_and_messages() {
        let cases: &[(&str, usize, &str)] = &[
            ("", 1, "empty"),
            ("   ", 1, "empty"),
            ("(graphe", 1, "never closed"),
            ("a AND (b OR (c)", 7, "never closed"),
            ("graphe)", 7, "no matching ("),
            ("(a) b)", 6, "no matching ("),
            ("()", 1, "empty parentheses"),
            ("a ()", 3, "empty parentheses"),
            (r#"a "graphe"#, 3, "unterminated quote"),
            ("« graphe", 1, "unterminated quote"),
            ("graphe »", 8, "closing quote"),
            (r#""""#, 1, "empty quotes"),
            (r#"a "  ""#, 3, "empty quotes"),
            ("AND a", 1, "no operand on its left"),
            ("a AND", 3, "no operand on its right"),
            ("a OU", 3, "`OU` has no operand on its right"),
            ("a ET OU b", 6, "a term is missing"),
            ("(a OR) b", 4, "no operand on its right"),
            ("a &", 3, "no operand on its right"),
            ("| a", 1, "no operand on its left"),
            ("NOT", 1, "no operand on its right"),
            ("a -", 3, "`-` (NOT) has no operand"),
            ("gr*phe", 3, "end of a word"),
            (r#"a "théorie des gr*phes""#, 18, "end of a word"),
            ("*", 1, "right after"),
            ("graph**", 7, "right after"),
            ("a * b", 3, "right after"),
            ("a NEAR/0 b", 3, "bad NEAR distance"),
            ("a NEAR/x b", 3, "bad NEAR distance"),
            ("a NEAR/ b", 3, "bad NEAR distance"),
            ("a NEAR/1001 b", 3, "bad NEAR distance"),
            ("a NEAR/99999999999 b", 3, "bad NEAR distance"),
            ("a NEAR/+5 b", 3, "bad NEAR distance"),
            ("a NEAR", 3, "no operand on its right"),
            ("NEAR b", 1, "no operand on its left"),
            ("(a OR b) NEAR c", 10, "on its left"),
            ("a NEAR (b c)", 3, "on its right"),
            ("NOT a NEAR b", 7, "NOT (a NEAR b)"),
            ("a NEAR b NEAR c", 10, "cannot be chained"),
            ("...", 1, "no letter or digit"),
            (r#"a "' - '""#, 3, "no letter or digit"),
            ("éé ... b", 4, "no letter or digit"),
        ];
        for &(src, column, fragment) in cases {
            let e = err(src);
            assert_eq!(e.column, column, "{src:?}: {e}");
            assert!(
                e.message.contains(fragment),
                "{src:?}: {e} lacks {fragment:?}"
            );
            assert!(e.to_string().starts_with(&format!("column {column}: ")));
        }
    }

    #[test]
    fn display_round_trips() {
        let sources = [
            r#"(NON "graffiti") ET ("graphe" OU "graphes")"#,
            "a OR b AND c NEAR/3 d",
            "--a -(b | c) & d*",
            r#""théorie des graph*" NEAR "sommet" OR « l'arête »"#,
            "porte-monnaie ((x OR y) AND (z OR (w AND v)))",
            r#"«dit "bonjour"» (a) NOT (b NEAR/1 c)"#,
            "A a Â â",
            "NOT NOT NOT x OR y",
            "a AND (b AND (c OR (d OR e)))",
        ];
        for options in [
            FormulaOptions::default(),
            FormulaOptions {
                case_sensitive: true,
                keep_diacritics: true,
            },
        ] {
            for src in sources {
                let Ok(first) = Formula::parse_with(src, options) else {
                    panic!("{src:?} should parse");
                };
                let shown = first.to_string();
                let again = Formula::parse_with(&shown, options);
                assert_eq!(again.as_ref(), Ok(&first), "{src:?} shown as {shown}");
                assert_eq!(again.map(|g| g.to_string()), Ok(shown));
            }
        }
        assert_eq!(
            "graphe OU graphes".parse::<Formula>(),
            Formula::parse("graphe OR graphes")
        );
    }

    #[test]
    fn hostile_inputs_give_errors_not_crashes() {
        let deep_open = "(".repeat(10_000);
        assert_eq!(err(&deep_open).column, MAX_DEPTH + 1);
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(err(&deep).message.contains("nested too deeply"));
        let nots = format!("{}a", "NOT ".repeat(10_000));
        assert!(err(&nots).message.contains("nested too deeply"));
        let dashes = format!("{}a", "-".repeat(10_000));
        assert_eq!(err(&dashes).column, MAX_DEPTH + 1);
        assert!(err(&")".repeat(10_000)).message.contains("no matching"));
        // Exactly at the limit is accepted.
        let at_limit = format!("{}a{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(sat(&at_limit, "a"));
        // Wide formulas are fine.
        let wide = (0..10_000)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let wide = f(&wide);
        assert!(wide.evaluate("x w9999 y").satisfied);
        assert_eq!(wide.positive_terms().len(), 10_000);
        // Odd characters in formula and text.
        for src in [
            "a\u{0}b",
            "\u{FEFF}graphe",
            "a\u{301}",
            "\u{301}a",
            "x\tOR\ny",
            "🦀 OR a",
        ] {
            let _ = Formula::parse(src).map(|g| g.evaluate("\u{0}\u{301}🦀 a\u{FFFD}"));
        }
        // Pseudo-random formulas over the special characters: parse or fail, never panic, and
        // whatever parses round-trips.
        let alphabet: Vec<char> = "ab é*()\"«»“”&|-NOTANDORETNEAR/5 \u{301}'"
            .chars()
            .collect();
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..5_000 {
            let mut src = String::new();
            for _ in 0..(state % 17) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                src.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if let Ok(formula) = Formula::parse(&src) {
                let _ = formula.evaluate("a b é aé ab");
                let again = Formula::parse(&formula.to_string());
                assert_eq!(again.as_ref(), Ok(&formula), "{src:?}");
            } else if let Err(e) = Formula::parse(&src) {
                assert!(
                    e.column >= 1 && e.column <= src.chars().count().max(1),
                    "{src:?}: {e}"
                );
            }
        }
    }

    #[test]
    fn empty_and_symbol_only_texts() {
        let text = PreparedText::new("", FormulaOptions::default());
        assert_eq!(text.token_count(), 0);
        assert!(f("NOT a").evaluate_prepared(&text).satisfied);
        assert!(!f("a*").evaluate_prepared(&text).satisfied);
        assert!(!f(r#""a b" NEAR c"#).evaluate_prepared(&text).satisfied);
        let symbols = PreparedText::new("... — « » ’ - * ( )", FormulaOptions::default());
        assert_eq!(symbols.token_count(), 0);
        assert_eq!(
            PreparedText::new("l'an 2000 n'a", FormulaOptions::default()).token_count(),
            5
        );
    }

    #[test]
    fn everything_is_satisfied_by_any_text_with_no_hits() {
        let f = Formula::everything(FormulaOptions::default());
        for text in ["", "graphe", "n'importe quoi, vraiment"] {
            let v = f.evaluate(text);
            assert!(v.satisfied, "{text:?}");
            assert_eq!((v.hits, v.matched.len()), (0, 0));
        }
        assert!(f.excluded_terms().is_empty());
        assert!(!Formula::parse("graphe").unwrap().accepts_everything());
    }
}
