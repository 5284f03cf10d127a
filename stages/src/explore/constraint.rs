//! A query's global constraint (`:: a.lemma = b.lemma`) compiled against an index, and checked
//! on a candidate hit's labelled positions.
//!
//! **In:** a parsed [`Constraint`], the query's labels, an index. **Out:** a [`Global`] that says
//! whether a hit with given label positions holds.
//!
//! **Invariants:** unknown attributes and regions are errors naming what exists; an unset label
//! (its optional token was not matched) makes a comparison false, as in CQP; a token past the
//! index's end reads as no value.

use super::cql::{Constraint, Operand, Reference};
use super::index::{Columns, Index};
use super::limits::QueryError;
use super::pred::Matcher;

/// A label position that no token set.
pub(super) const UNSET: u32 = u32::MAX;

/// Which token a reference reads.
pub(super) enum Who {
    Label(usize),
    Match,
    MatchEnd,
}

/// Which value of that token.
pub(super) enum What {
    /// A positional attribute (its number).
    Positional(usize),
    /// A region's attribute: (region number, attribute number among the region's).
    Region(usize, usize),
}

pub(super) struct Ref {
    who: Who,
    what: What,
}

pub(super) enum Right {
    Ref(Ref),
    Pattern(Matcher),
}

/// The compiled constraint.
pub(super) enum Global {
    Compare {
        left: Ref,
        right: Right,
        negated: bool,
    },
    Set(usize),
    And(Vec<Global>),
    Or(Vec<Global>),
    Not(Box<Global>),
}

impl Global {
    /// Compiles `c` with `labels` the query's label names (their numbers are the positions).
    pub(super) fn new<C: Columns>(
        c: &Constraint,
        labels: &[String],
        index: &Index<C>,
    ) -> Result<Global, QueryError> {
        Ok(match c {
            Constraint::Set(l) => Global::Set(label(labels, l)),
            Constraint::Compare(cmp) => Global::Compare {
                left: reference(&cmp.left, labels, index)?,
                right: match &cmp.right {
                    Operand::Reference(r) => Right::Ref(reference(r, labels, index)?),
                    Operand::Pattern(t) => Right::Pattern(Matcher::new(t)?),
                },
                negated: cmp.negated,
            },
            Constraint::And(all) | Constraint::Or(all) => {
                let all = all
                    .iter()
                    .map(|c| Global::new(c, labels, index))
                    .collect::<Result<Vec<_>, _>>()?;
                if matches!(c, Constraint::And(_)) {
                    Global::And(all)
                } else {
                    Global::Or(all)
                }
            }
            Constraint::Not(a) => Global::Not(Box::new(Global::new(a, labels, index)?)),
        })
    }

    /// Whether the hit `start..end` with label positions `at` satisfies the constraint.
    pub(super) fn holds<C: Columns>(
        &self,
        index: &Index<C>,
        at: &[u32],
        start: u32,
        end: u32,
    ) -> bool {
        match self {
            Global::Set(l) => at.get(*l).is_some_and(|&p| p != UNSET),
            Global::And(all) => all.iter().all(|g| g.holds(index, at, start, end)),
            Global::Or(all) => all.iter().any(|g| g.holds(index, at, start, end)),
            Global::Not(a) => !a.holds(index, at, start, end),
            Global::Compare {
                left,
                right,
                negated,
            } => {
                let Some(l) = left.read(index, at, start, end) else {
                    return false;
                };
                let same = match right {
                    Right::Pattern(m) => m.is_match(l.text(index)),
                    Right::Ref(r) => match r.read(index, at, start, end) {
                        None => return false,
                        Some(v) => l.equals(&v, index),
                    },
                };
                same != *negated
            }
        }
    }
}

/// A value read for a comparison: a lexicon id (compared as such within one attribute) or text.
enum Value<'a> {
    Id(usize, u32),
    Text(&'a str),
}

impl<'a> Value<'a> {
    fn text<C>(&self, index: &'a Index<C>) -> &'a str {
        match self {
            Value::Id(a, id) => index.attributes[*a].lexicon.get(*id),
            Value::Text(t) => t,
        }
    }

    fn equals<C>(&self, other: &Value<'a>, index: &'a Index<C>) -> bool {
        match (self, other) {
            (Value::Id(a, x), Value::Id(b, y)) if a == b => x == y,
            _ => self.text(index) == other.text(index),
        }
    }
}

impl Ref {
    fn read<'a, C: Columns>(
        &self,
        index: &'a Index<C>,
        at: &[u32],
        start: u32,
        end: u32,
    ) -> Option<Value<'a>> {
        let pos = match self.who {
            Who::Label(l) => *at.get(l)?,
            Who::Match => start,
            Who::MatchEnd => end.checked_sub(1)?,
        };
        if pos == UNSET || pos >= index.n_tokens {
            return None;
        }
        match self.what {
            What::Positional(a) => {
                let mut id = [0u32];
                index.columns.ids(a, pos, &mut id).ok()?;
                let lexicon = &index.attributes[a].lexicon;
                ((id[0] as usize) < lexicon.len()).then_some(Value::Id(a, id[0]))
            }
            What::Region(r, k) => {
                let regions = &index.regions[r];
                let i = regions.find(pos)?;
                Some(Value::Text(regions.attrs[k].1.get(i)?.as_str()))
            }
        }
    }
}

fn label(labels: &[String], name: &str) -> usize {
    // The parser checked that the label is defined; an unknown one reads as never set.
    labels.iter().position(|l| l == name).unwrap_or(usize::MAX)
}

fn reference<C: Columns>(
    r: &Reference,
    labels: &[String],
    index: &Index<C>,
) -> Result<Ref, QueryError> {
    let who = match r.label.as_str() {
        "match" => Who::Match,
        "matchend" => Who::MatchEnd,
        l => Who::Label(label(labels, l)),
    };
    if super::cql::region_of(&r.attr).is_none()
        && let Some(a) = index.attribute(&r.attr)
    {
        return Ok(Ref {
            who,
            what: What::Positional(a),
        });
    }
    // A region's attribute, as CQP names it: `text_host` (`doc_host` too), `s_id`.
    let found = r.attr.split_once('_').and_then(|(region, attr)| {
        let region = super::cql::region_of(&r.attr).unwrap_or(region);
        let ri = index.regions.iter().position(|g| g.name == region)?;
        let k = index.regions[ri]
            .attrs
            .iter()
            .position(|(n, _)| n == attr)?;
        Some((ri, k))
    });
    match found {
        Some((ri, k)) => Ok(Ref {
            who,
            what: What::Region(ri, k),
        }),
        None => {
            let mut have: Vec<String> = index.attributes.iter().map(|a| a.name.clone()).collect();
            for g in &index.regions {
                have.extend(g.attrs.iter().map(|(n, _)| format!("{}_{n}", g.name)));
            }
            Err(QueryError::Attribute {
                name: format!("{}.{}", r.label, r.attr),
                have: have.join(", "),
            })
        }
    }
}
