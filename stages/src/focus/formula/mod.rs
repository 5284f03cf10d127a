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
//! **Files**, in data-flow order: `fold` (tokens and folding, shared by texts and terms) →
//! `lex` → `parse` (a formula read) and `index` (a text prepared) → this file (the types,
//! [`Formula`] and its evaluation); `tests.rs` the tests.
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
use std::str::FromStr;

mod fold;
pub use fold::folded_tokens;

mod index;
pub use index::PreparedText;

mod lex;
use lex::{TokKind, lex};

mod parse;
use parse::{Lowering, Parser};

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

#[cfg(test)]
mod tests;
