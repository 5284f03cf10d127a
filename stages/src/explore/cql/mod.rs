//! The Corpus Query Language (CQL) of CQP, Sketch Engine and BlackLab, parsed into a [`Query`].
//!
//! **In:** a query string such as
//! `a:[pos="ADJ"] [lemma="graphe"] <s/>? :: a.lemma != "grand" within p containing [pos="NUM"]`.
//!
//! **Out:** a [`Query`]: a sequence of items (a token pattern, a parenthesised group of
//! alternative sequences, a structural tag or a whole region, each with a repetition and an
//! optional label), a global constraint after `::`, a `within` clause, and `containing` /
//! `not containing` clauses.
//!
//! What is understood, with the syntax users of those tools know:
//! - token patterns: `[attr="regex"]`, `[attr!="regex"]`, `"word"` or `'word'` alone, flags `%c`
//!   (ignore case), `%d` (ignore diacritics), `%l` (literal: no regex operator), combined;
//!   conditions combined with `&`, `|`, `!` and parentheses; `[]` is any token; a bare `"regex"`
//!   is `[word="regex"]`;
//! - repetition of an item: `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, `{,m}`;
//! - groups of alternative sequences: `([word="a"] | [word="b"] [word="c"])`;
//! - labels on token patterns, `a:[pos="ADJ"]`, and `@[…]` (the label `target`);
//! - structural tags inside a sequence: `<s>` (a sentence starts here), `</s>` (one ends here),
//!   `<text host="x.*">` or CQP's `<text_host="x.*">` (a region whose attribute matches starts
//!   here), and `<s/>` (a whole region, as in Sketch Engine and BlackLab);
//! - a global constraint after `::` comparing labelled tokens, `match` (the first token of the
//!   hit) and `matchend` (its last): `a.lemma = b.lemma`, `a.word != "x"%c`, region attributes
//!   as CQP names them (`match.text_host = "fr\..*"`, `doc_` is a synonym of `text_`), a bare
//!   label (`a`: the optional token was matched), combined with `&`, `|`, `!`, parentheses;
//! - `within s`, `within p`, `within text` (`doc` is a synonym), `within <doc host="x.*"/>`;
//! - `containing Q` and `not containing Q`: the hit holds (does not hold) a hit of `Q`, as in
//!   Sketch Engine and BlackLab (`<s/> containing [lemma="calque"]`).
//!
//! Regular expressions are those of the `regex` crate and match the whole value (as in CQP).
//!
//! **Invariants:** never panics (nesting deeper than [`MAX_DEPTH`] is an error, not a stack
//! overflow); an error names the character position in the query and what was expected there;
//! a constraint naming a label the sequence does not define is an error at the label.

mod display;
mod global;
mod parser;

pub use global::{Compare, Constraint, Operand, Reference};
use parser::Parser;

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The sequence of items a hit must match, in order.
    pub sequence: Sequence,
    /// The region a hit must lie in, if any.
    pub within: Option<Within>,
    /// The global constraint after `::`, if any.
    pub constraint: Option<Constraint>,
    /// `containing` / `not containing` clauses, all required.
    pub containing: Vec<Containing>,
}

/// `containing Q` or `not containing Q`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Containing {
    /// `not containing`.
    pub negated: bool,
    /// The query whose hit must (must not) lie inside the hit.
    pub query: Box<Query>,
}

/// Items matched one after the other.
pub type Sequence = Vec<Item>;

/// One item of a sequence with its repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What is repeated.
    pub atom: Atom,
    /// Least number of repetitions.
    pub min: u32,
    /// Most repetitions; `None` for `*`, `+`, `{n,}` (bounded by the engine's longest hit).
    pub max: Option<u32>,
    /// The label of a token pattern (`a:[…]`): the position it matched, for the constraint.
    pub label: Option<String>,
}

/// A token pattern, a group of alternative sequences, a structural tag or a whole region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// One token satisfying the condition (`[]` is [`Cond::Any`]).
    Token(Cond),
    /// One of several sequences: `(a b | c)`.
    Group(Vec<Sequence>),
    /// `<s>`, `</s>`, `<text host="x">`: no token, a boundary.
    Tag(Tag),
    /// `<s/>`: every token of one region.
    Region(Within),
}

/// A structural tag inside a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Region name as written (`s`, `p`, `text`, `doc`).
    pub region: String,
    /// `</s>`: a region ends here; else one starts here.
    pub close: bool,
    /// Conditions on the region's attributes (opening tags only), all required.
    pub attrs: Vec<Test>,
}

/// A condition on one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// Any token: `[]`.
    Any,
    /// `attr="regex"` (`negated` for `attr!="regex"`).
    Test(Test),
    /// All of them (two or more: `a & b & c` is one list, so a long chain is not a deep tree).
    And(Vec<Cond>),
    /// One of them at least (two or more).
    Or(Vec<Cond>),
    /// Not.
    Not(Box<Cond>),
}

/// `attr="regex"%flags` or `attr!="regex"%flags`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Test {
    /// Attribute name: `word`, `lc`, `lemma`, `pos`, … (whatever the index holds).
    pub attr: String,
    /// The regular expression, matched against the whole value.
    pub pattern: String,
    /// `%c`.
    pub ignore_case: bool,
    /// `%d`.
    pub ignore_diacritics: bool,
    /// `!=`.
    pub negated: bool,
}

/// The region a hit must lie in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Within {
    /// Region name as written (`s`, `p`, `text`, `doc`, …).
    pub region: String,
    /// Conditions on the region's attributes (`<doc host="x"/>`), all required.
    pub attrs: Vec<Test>,
}

/// Why a query could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("query, at character {at}: {message}")]
pub struct CqlError {
    /// 1-based character position in the query.
    pub at: usize,
    /// What was wrong.
    pub message: String,
}

/// Deepest nesting of parentheses, groups and `!` a query may have.
pub const MAX_DEPTH: usize = 100;

/// Label names the engine sets itself: never defined in a sequence.
pub const BUILT_IN_LABELS: [&str; 2] = ["match", "matchend"];

/// The region of a constraint's attribute name as CQP writes it (`text_host` → `text`,
/// `doc_host` → `text`, `s_id` → `s`, `p_n` → `p`); None for a positional attribute.
pub fn region_of(attr: &str) -> Option<&'static str> {
    match attr.split_once('_')?.0 {
        "text" | "doc" => Some("text"),
        "s" => Some("s"),
        "p" => Some("p"),
        _ => None,
    }
}

/// Parses a CQL query.
pub fn parse(query: &str) -> Result<Query, CqlError> {
    let mut p = Parser::new(query);
    let parsed = p.query(true)?;
    p.skip_space();
    if !p.at_end() {
        return Err(p.error(&format!("unexpected `{}`", p.current())));
    }
    Ok(parsed)
}

impl Query {
    /// The positional attributes the query's token patterns test, each once, in order of
    /// appearance (the `containing` clauses' included, the constraint's not).
    pub fn attributes(&self) -> Vec<String> {
        fn cond(c: &Cond, out: &mut Vec<String>) {
            match c {
                Cond::Any => {}
                Cond::Test(t) => {
                    if !out.contains(&t.attr) {
                        out.push(t.attr.clone());
                    }
                }
                Cond::And(all) | Cond::Or(all) => all.iter().for_each(|c| cond(c, out)),
                Cond::Not(a) => cond(a, out),
            }
        }
        fn sequence(seq: &[Item], out: &mut Vec<String>) {
            for item in seq {
                match &item.atom {
                    Atom::Token(c) => cond(c, out),
                    Atom::Group(alts) => alts.iter().for_each(|a| sequence(a, out)),
                    Atom::Tag(_) | Atom::Region(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        sequence(&self.sequence, &mut out);
        for r in self.references() {
            if region_of(&r.attr).is_none() && !out.contains(&r.attr) {
                out.push(r.attr.clone());
            }
        }
        for c in &self.containing {
            for a in c.query.attributes() {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// The regions the query names (`doc` as `text`): its `within`, tags, whole regions, and
    /// the constraint's region attributes (`text_host`, `s_id`, `p_…`).
    pub fn regions(&self) -> Vec<String> {
        fn sequence(seq: &[Item], out: &mut Vec<String>) {
            for item in seq {
                match &item.atom {
                    Atom::Tag(Tag { region, .. }) | Atom::Region(Within { region, .. }) => {
                        push(out, region);
                    }
                    Atom::Group(alts) => alts.iter().for_each(|a| sequence(a, out)),
                    Atom::Token(_) => {}
                }
            }
        }
        fn push(out: &mut Vec<String>, region: &str) {
            let region = if region == "doc" { "text" } else { region };
            if !out.iter().any(|r| r == region) {
                out.push(region.to_string());
            }
        }
        let mut out = Vec::new();
        if let Some(w) = &self.within {
            push(&mut out, &w.region);
        }
        sequence(&self.sequence, &mut out);
        for r in self.references() {
            if let Some(region) = region_of(&r.attr) {
                push(&mut out, region);
            }
        }
        for c in &self.containing {
            for r in c.query.regions() {
                push(&mut out, &r);
            }
        }
        out
    }

    /// The region attributes the query tests (`host` of `within <doc host="x"/>`, of
    /// `<text host="x">`, of `:: match.text_host = "x"`), each once.
    pub fn region_attributes(&self) -> Vec<String> {
        fn sequence(seq: &[Item], out: &mut Vec<String>) {
            for item in seq {
                match &item.atom {
                    Atom::Tag(Tag { attrs, .. }) | Atom::Region(Within { attrs, .. }) => {
                        out.extend(attrs.iter().map(|t| t.attr.clone()));
                    }
                    Atom::Group(alts) => alts.iter().for_each(|a| sequence(a, out)),
                    Atom::Token(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        if let Some(w) = &self.within {
            out.extend(w.attrs.iter().map(|t| t.attr.clone()));
        }
        sequence(&self.sequence, &mut out);
        for r in self.references() {
            if region_of(&r.attr).is_some()
                && let Some((_, a)) = r.attr.split_once('_')
            {
                out.push(a.to_string());
            }
        }
        for c in &self.containing {
            out.extend(c.query.region_attributes());
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|a| seen.insert(a.clone()));
        out
    }

    /// The attribute references of the global constraint.
    pub fn references(&self) -> Vec<&Reference> {
        fn walk<'a>(c: &'a Constraint, out: &mut Vec<&'a Reference>) {
            match c {
                Constraint::Compare(cmp) => {
                    out.push(&cmp.left);
                    if let Operand::Reference(r) = &cmp.right {
                        out.push(r);
                    }
                }
                Constraint::Set(_) => {}
                Constraint::And(all) | Constraint::Or(all) => all.iter().for_each(|c| walk(c, out)),
                Constraint::Not(a) => walk(a, out),
            }
        }
        let mut out = Vec::new();
        if let Some(c) = &self.constraint {
            walk(c, &mut out);
        }
        out
    }

    /// A query of a sequence alone.
    pub fn of_sequence(sequence: Sequence) -> Query {
        Query {
            sequence,
            within: None,
            constraint: None,
            containing: Vec::new(),
        }
    }

    /// The labels the sequence defines, each once, in order of appearance.
    pub fn labels(&self) -> Vec<String> {
        fn walk(seq: &[Item], out: &mut Vec<String>) {
            for item in seq {
                if let Some(l) = &item.label
                    && !out.contains(l)
                {
                    out.push(l.clone());
                }
                if let Atom::Group(alts) = &item.atom {
                    alts.iter().for_each(|a| walk(a, out));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.sequence, &mut out);
        out
    }
}
