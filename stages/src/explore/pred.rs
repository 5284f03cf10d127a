//! Token conditions compiled for a query: a value test ([`Matcher`]) turned into the set of
//! lexicon ids it accepts, and the conditions joined by `&`, `|` and `!` ([`Pred`]).
//!
//! **In:** a parsed [`Cond`] or [`Test`], a lexicon. **Out:** a [`Pred`] that tests a token by
//! its value ids, and the postings lists that hold every position where it can hold.
//!
//! **Invariants:** a value's pattern is checked alone before it is anchored, so it matches
//! whole values whatever it holds; tests of one attribute joined by `|` (or `&`) are one set of
//! ids, so a long alternation costs one test per token; a group of one-token alternatives is
//! one token pattern ([`simplified`]).

use regex::{Regex, RegexBuilder};

use super::cql::{Atom, Cond, Item, Sequence, Test};
use super::index::{Columns, Index, Lexicon};
use super::limits::{ASK_EVERY, Interrupt, QueryError};

/// The value test of a pattern, case and diacritics as the flags ask.
pub struct Matcher {
    literal: Option<String>,
    regex: Regex,
    ignore_diacritics: bool,
}

impl Matcher {
    /// Compiles a test's pattern (anchored: it matches whole values).
    pub fn new(test: &Test) -> Result<Matcher, QueryError> {
        let pattern = if test.ignore_diacritics {
            crate::corpus::dedup::strip_diacritics(&test.pattern)
        } else {
            test.pattern.clone()
        };
        // Checked alone first: wrapped in the anchors, `le)|(la` would parse as
        // `^(?:le)|(la)$` and match values that merely start or end with a word.
        if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(&pattern) {
            return Err(QueryError::Regex {
                pattern: test.pattern.clone(),
                message: e.kind().to_string(),
            });
        }
        let regex = RegexBuilder::new(&format!("^(?:{pattern})$"))
            .case_insensitive(test.ignore_case)
            .size_limit(1 << 24)
            .build()
            .map_err(|e| QueryError::Regex {
                pattern: test.pattern.clone(),
                message: e.to_string().lines().last().unwrap_or("").to_string(),
            })?;
        let plain = !test.ignore_case
            && !test.ignore_diacritics
            && !pattern.chars().any(|c| "\\.+*?()|[]{}^$".contains(c));
        Ok(Matcher {
            literal: plain.then_some(pattern),
            regex,
            ignore_diacritics: test.ignore_diacritics,
        })
    }

    /// Whether a value matches.
    pub fn is_match(&self, value: &str) -> bool {
        if self.ignore_diacritics {
            self.regex
                .is_match(&crate::corpus::dedup::strip_diacritics(value))
        } else {
            self.regex.is_match(value)
        }
    }

    /// The ids of a lexicon's matching values, ascending.
    pub(super) fn ids(
        &self,
        lexicon: &Lexicon,
        interrupt: Option<&Interrupt>,
    ) -> Result<Vec<u32>, QueryError> {
        if let Some(l) = &self.literal {
            return Ok(lexicon.find(l).into_iter().collect());
        }
        let mut out = Vec::new();
        for (id, value) in lexicon.iter() {
            if id % ASK_EVERY == 0 && interrupt.is_some_and(|stop| stop()) {
                return Err(QueryError::Interrupted);
            }
            if self.is_match(value) {
                out.push(id);
            }
        }
        Ok(out)
    }
}

/// A compiled token condition.
#[derive(Debug, Clone)]
pub(super) enum Pred {
    Any,
    /// Value of attribute `attr` has its bit set in `bits` (or clear, when `negated`).
    In {
        attr: usize,
        bits: Vec<u64>,
        ids: Vec<u32>,
        negated: bool,
    },
    And(Vec<Pred>),
    Or(Vec<Pred>),
    Not(Box<Pred>),
}

impl Pred {
    pub(super) fn holds(&self, at: &dyn Fn(usize) -> u32) -> bool {
        match self {
            Pred::Any => true,
            Pred::In {
                attr,
                bits,
                negated,
                ..
            } => {
                let id = at(*attr) as usize;
                let set = bits.get(id / 64).is_some_and(|w| w >> (id % 64) & 1 == 1);
                set != *negated
            }
            Pred::And(all) => all.iter().all(|p| p.holds(at)),
            Pred::Or(all) => all.iter().any(|p| p.holds(at)),
            Pred::Not(a) => !a.holds(at),
        }
    }

    /// The postings lists whose union holds every position where the condition can hold, with
    /// their total length; None when no such list is smaller than the corpus (negations).
    pub(super) fn plan<C: Columns>(&self, index: &Index<C>) -> Option<(Vec<(usize, u32)>, u64)> {
        match self {
            Pred::In {
                attr,
                ids,
                negated: false,
                ..
            } => {
                let a = &index.attributes[*attr];
                let cost = ids.iter().map(|&id| a.frequency(id)).sum();
                Some((ids.iter().map(|&id| (*attr, id)).collect(), cost))
            }
            Pred::And(all) => all
                .iter()
                .filter_map(|p| p.plan(index))
                .min_by_key(|(_, cost)| *cost),
            Pred::Or(all) => {
                let mut lists = Vec::new();
                let mut cost = 0u64;
                for p in all {
                    let (l, c) = p.plan(index)?;
                    lists.extend(l);
                    cost = cost.saturating_add(c);
                }
                Some((lists, cost))
            }
            _ => None,
        }
    }

    pub(super) fn attrs(&self, out: &mut Vec<usize>) {
        match self {
            Pred::Any => {}
            Pred::In { attr, .. } => {
                if !out.contains(attr) {
                    out.push(*attr);
                }
            }
            Pred::And(all) | Pred::Or(all) => all.iter().for_each(|p| p.attrs(out)),
            Pred::Not(a) => a.attrs(out),
        }
    }

    /// Bytes held by the predicate's id sets.
    pub(super) fn set_bytes(&self) -> usize {
        match self {
            Pred::Any => 0,
            Pred::In { bits, ids, .. } => bits.len() * 8 + ids.len() * 4,
            Pred::And(all) | Pred::Or(all) => all.iter().map(Pred::set_bytes).sum(),
            Pred::Not(a) => a.set_bytes(),
        }
    }
}

/// Adds `p` to the members of an `and` (`all`) or `or` list: a value test of an attribute that
/// the list already tests with the same polarity is merged into that test (one set of ids, one
/// test per token), a nested list of the same kind is spliced in. Returns the bytes the
/// members' id sets hold now, less what they held before.
pub(super) fn join(members: &mut Vec<Pred>, p: Pred, all: bool) -> isize {
    let size = |p: &Pred| isize::try_from(p.set_bytes()).unwrap_or(isize::MAX);
    match p {
        Pred::And(inner) if all => inner.into_iter().map(|q| join(members, q, all)).sum(),
        Pred::Or(inner) if !all => inner.into_iter().map(|q| join(members, q, all)).sum(),
        Pred::In {
            attr, ids, negated, ..
        } => {
            let twin = members.iter_mut().find(
                |m| matches!(m, Pred::In { attr: a, negated: n, .. } if *a == attr && *n == negated),
            );
            let Some(twin) = twin else {
                let p = Pred::In {
                    attr,
                    bits: Vec::new(),
                    ids,
                    negated,
                };
                let added = size(&p);
                members.push(p);
                return added;
            };
            let before = size(twin);
            if let Pred::In { ids: have, .. } = twin {
                // `a | b` is the union of their values and `!a & !b` its negation; `a & b` and
                // `!a | !b` the intersection.
                if all == negated {
                    *have = merge_union(have, &ids);
                } else {
                    have.retain(|id| ids.binary_search(id).is_ok());
                }
            }
            size(twin) - before
        }
        other => {
            let added = size(&other);
            members.push(other);
            added
        }
    }
}

/// Fills the bit sets of the value tests from their ids (a compiled predicate tests a token's
/// value with one bit).
pub(super) fn fill_bits<C: Columns>(p: &mut Pred, index: &Index<C>) {
    match p {
        Pred::Any => {}
        Pred::In {
            attr, bits, ids, ..
        } => {
            let len = index.attributes[*attr].lexicon.len();
            *bits = vec![0u64; len.div_ceil(64)];
            for &id in ids.iter() {
                if let Some(w) = bits.get_mut(id as usize / 64) {
                    *w |= 1 << (id % 64);
                }
            }
        }
        Pred::And(all) | Pred::Or(all) => all.iter_mut().for_each(|q| fill_bits(q, index)),
        Pred::Not(a) => fill_bits(a, index),
    }
}

/// The union of two ascending id lists, ascending.
fn merge_union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The query with each group whose alternatives are single tokens (`("a" | "b" | …)`) made one
/// token pattern (`["a" | "b" | …]`): the same hits, one value test instead of one automaton
/// branch per alternative.
pub(super) fn simplified(seq: &Sequence) -> Sequence {
    seq.iter()
        .map(|item| {
            let atom = match &item.atom {
                Atom::Group(alts) => {
                    let tokens: Option<Vec<Cond>> = alts
                        .iter()
                        .map(|alt| match alt.as_slice() {
                            [
                                Item {
                                    atom: Atom::Token(c),
                                    min: 1,
                                    max: Some(1),
                                    label: None,
                                },
                            ] => Some(c.clone()),
                            _ => None,
                        })
                        .collect();
                    match tokens {
                        Some(mut cs) if cs.len() == 1 => Atom::Token(cs.remove(0)),
                        Some(cs)
                            if cs.iter().all(|c| !matches!(c, Cond::Any)) && !cs.is_empty() =>
                        {
                            Atom::Token(Cond::Or(cs))
                        }
                        _ => Atom::Group(alts.iter().map(simplified).collect()),
                    }
                }
                token => token.clone(),
            };
            Item {
                atom,
                min: item.min,
                max: item.max,
                label: item.label.clone(),
            }
        })
        .collect()
}
