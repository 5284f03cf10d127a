//! A compiled query's automaton: what a walk from one start position reads (the states, the
//! value tests, the structural tags, the labels and constraint, the `containing` clauses, the
//! bounds of a hit), below both the search that plans the starts ([`super::query`]) and the
//! walk that runs them ([`super::walk`]).
//!
//! **In:** built by [`super::query::Search`]. **Out:** the bounds of a hit from a position, the
//! tags' checks. **Invariants:** a hit never crosses a document or its `within` region and
//! never spans more than `longest` tokens; a tag holds only between two positions a region
//! starts or ends at.

use super::constraint::Global;
use super::cql::Within;
use super::index::{Columns, Index};
use super::limits::{Interrupt, QueryError};
use super::pred::{Matcher, Pred};

/// A hit: token positions `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hit {
    /// First position.
    pub start: u32,
    /// One past the last position.
    pub end: u32,
}

/// A state of the automaton.
#[derive(Debug, Clone)]
pub(super) enum State {
    /// Consume one token satisfying `preds[pred]`, go to `next`; the token's position is
    /// label `label`'s (none: `usize::MAX`).
    Token {
        pred: usize,
        next: usize,
        label: usize,
    },
    /// Go to `next` if the structural tag `tags[tag]` holds between the two tokens here.
    Assert { tag: usize, next: usize },
    /// Cross the whole region of `tags[tag]` starting here, go to `next` at its end.
    Region { tag: usize, next: usize },
    /// Go to both.
    Split(usize, usize),
    /// A hit ends here.
    Accept,
    /// Placeholder while an unbounded loop is built.
    Hole,
}

/// A structural tag or a whole region of a query, resolved against the index.
pub(super) struct TagCheck {
    pub(super) region: usize,
    pub(super) close: bool,
    /// Which regions' attributes pass the tag's tests (None: all).
    pub(super) allowed: Option<Vec<bool>>,
}

impl TagCheck {
    /// Whether the tag holds between the tokens `pos - 1` and `pos`.
    pub(super) fn holds<C>(&self, index: &Index<C>, pos: u32) -> bool {
        let regions = &index.regions[self.region];
        if self.close {
            let Some(last) = pos.checked_sub(1) else {
                return false;
            };
            return regions.find(last).is_some_and(|i| regions.ends[i] == pos);
        }
        regions
            .find(pos)
            .is_some_and(|i| regions.starts[i] == pos && self.allowed.as_ref().is_none_or(|a| a[i]))
    }

    /// The end of the (allowed) region starting at `pos`, if one does.
    pub(super) fn region_from<C>(&self, index: &Index<C>, pos: u32) -> Option<u32> {
        let regions = &index.regions[self.region];
        let i = regions.find(pos)?;
        (regions.starts[i] == pos && self.allowed.as_ref().is_none_or(|a| a[i]))
            .then(|| regions.ends[i])
    }
}

/// What a walk reads: the compiled query without its planning.
pub struct Automaton<'i, C> {
    pub(super) index: &'i Index<C>,
    pub(super) preds: Vec<Pred>,
    pub(super) states: Vec<State>,
    pub(super) start: usize,
    /// The structural tags and whole regions of the sequence.
    pub(super) tags: Vec<TagCheck>,
    /// The label names (a label's number is its place here).
    pub(super) labels: Vec<String>,
    /// The global constraint, compiled.
    pub(super) global: Option<Global>,
    /// The `containing` clauses: (negated, the clause's automaton).
    pub(super) containing: Vec<(bool, Automaton<'i, C>)>,
    /// Label positions are carried by the walk (a constraint, or `Search::run_labelled`).
    pub(super) track_labels: bool,
    /// No constraint, clause or whole region (see [`Automaton::plain`]).
    pub(super) plain: bool,
    /// The most tokens a hit may span.
    pub(super) longest: u32,
    /// The `within` region and which of its regions pass its tests.
    pub(super) within: Option<(usize, Option<Vec<bool>>)>,
    /// The `text` regions (documents), if the index has them.
    pub(super) text: Option<usize>,
    /// The attributes the value tests read.
    pub(super) attrs: Vec<usize>,
    pub(super) interrupt: Option<Interrupt>,
}

impl<C: Columns> Automaton<'_, C> {
    /// Whether matches carry nothing but their automaton states (no labels to track, no whole
    /// region to jump, no clause to check): the walk's fast path.
    pub(super) fn plain(&self) -> bool {
        self.plain && !self.track_labels
    }

    /// Whether the walk carries label positions.
    pub(super) fn tracked(&self) -> bool {
        self.track_labels || self.global.is_some()
    }

    /// Whether the caller's interrupt says stop.
    pub(super) fn stopped(&self) -> bool {
        self.interrupt.as_ref().is_some_and(|stop| stop())
    }

    /// Where a hit starting at `start` must end at the latest (its document, its `within`
    /// region, the longest hit the query allows); None when it cannot start there.
    /// `hints` are the regions (document, `within`) found for the start before, tried first.
    pub(super) fn limit_at(&self, start: u32, hints: &mut [usize; 2]) -> Option<u32> {
        let mut limit = self.index.n_tokens.min(start.saturating_add(self.longest));
        if let Some(t) = self.text {
            let i = self.index.regions[t].find_near(start, &mut hints[0])?;
            limit = limit.min(self.index.regions[t].ends[i]);
        }
        if let Some((r, allowed)) = &self.within {
            let regions = &self.index.regions[*r];
            match regions.find_near(start, &mut hints[1]) {
                Some(i) if allowed.as_ref().is_none_or(|a| a[i]) => {
                    limit = limit.min(regions.ends[i]);
                }
                _ => return None,
            }
        }
        Some(limit)
    }

    /// Whether a one-token hit at `pos` lies in a document and in an allowed `within` region.
    pub(super) fn in_regions(&self, pos: u32) -> bool {
        if let Some(t) = self.text
            && self.index.regions[t].find(pos).is_none()
        {
            return false;
        }
        match &self.within {
            Some((r, allowed)) => self.index.regions[*r]
                .find(pos)
                .is_some_and(|i| allowed.as_ref().is_none_or(|a| a[i])),
            None => true,
        }
    }
}

/// The region of `within` (`doc` is `text`) and, with attribute tests, which of its regions
/// pass them.
pub(super) fn within_region<C: Columns>(
    index: &Index<C>,
    w: &Within,
) -> Result<(usize, Option<Vec<bool>>), QueryError> {
    let have = || {
        index
            .regions
            .iter()
            .map(|r| r.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = if w.region == "doc" { "text" } else { &w.region };
    let r = index
        .regions
        .iter()
        .position(|r| r.name == name)
        .ok_or_else(|| QueryError::Region {
            name: w.region.clone(),
            have: have(),
        })?;
    let allowed = if w.attrs.is_empty() {
        None
    } else {
        let regions = &index.regions[r];
        let mut ok = vec![true; regions.len()];
        for t in &w.attrs {
            let values = regions
                .attrs
                .iter()
                .find(|(n, _)| *n == t.attr)
                .map(|(_, v)| v)
                .ok_or_else(|| QueryError::Attribute {
                    name: format!("{}.{}", w.region, t.attr),
                    have: regions
                        .attrs
                        .iter()
                        .map(|(n, _)| format!("{}.{n}", w.region))
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            let m = Matcher::new(t)?;
            for (flag, v) in ok.iter_mut().zip(values) {
                *flag &= m.is_match(v) != t.negated;
            }
        }
        Some(ok)
    };
    Ok((r, allowed))
}
