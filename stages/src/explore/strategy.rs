//! Matching strategies, as CQP's `set MatchingStrategy`: which of the matches a query allows
//! are hits.
//!
//! **In:** the match the automaton found from each start position, in ascending start order
//! (the earliest end, or the latest for `longest`). **Out:** the hits, in the same order.
//!
//! - `traditional` (glaneur's default; CQP has it by this name): from every start, the shortest
//!   match; hits may overlap and nest (`[pos="ADJ"]* [pos="NOUN"]` on *old green tree* gives
//!   *old green tree*, *green tree*, *tree*).
//! - `standard` (CQP's default): the shortest match from every start, but a hit that lies
//!   inside the hit before it is dropped: leading optional items are kept (*old green tree*).
//! - `shortest`: the shortest matches, and a hit that holds a later one is dropped: leading
//!   optional items are left out (*tree*).
//! - `longest`: the longest match from every start, a hit inside the one before dropped
//!   (*old green tree*; with trailing optional items, as many as match).
//!
//! **Invariants:** hits leave in ascending start order; a caller's stop is obeyed at once.

use std::collections::VecDeque;

use super::automaton::Hit;

/// CQP's matching strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Every start's shortest match, overlapping and nested hits kept.
    #[default]
    Traditional,
    /// Every start's shortest match, a hit inside the one before dropped.
    Standard,
    /// Shortest matches holding no other.
    Shortest,
    /// Every start's longest match, a hit inside the one before dropped.
    Longest,
}

impl Strategy {
    /// Every strategy's name, as CQP spells it.
    pub const NAMES: [&'static str; 4] = ["traditional", "standard", "shortest", "longest"];

    /// The strategy of a name.
    pub fn named(name: &str) -> Option<Strategy> {
        match name {
            "traditional" => Some(Strategy::Traditional),
            "standard" => Some(Strategy::Standard),
            "shortest" => Some(Strategy::Shortest),
            "longest" => Some(Strategy::Longest),
            _ => None,
        }
    }
}

/// Filters the matches of each start into hits.
pub(super) struct Emitter {
    strategy: Strategy,
    /// End of the last hit handed on (`standard`, `longest`).
    last_end: u32,
    /// Hits that a later one may still lie inside (`shortest`), ends ascending.
    pending: VecDeque<Hit>,
}

impl Emitter {
    pub(super) fn new(strategy: Strategy) -> Emitter {
        Emitter {
            strategy,
            last_end: 0,
            pending: VecDeque::new(),
        }
    }

    /// Takes the next start's match; false when `found` said stop.
    pub(super) fn push(&mut self, hit: Hit, found: &mut impl FnMut(Hit) -> bool) -> bool {
        match self.strategy {
            Strategy::Traditional => found(hit),
            Strategy::Standard | Strategy::Longest => {
                if hit.end <= self.last_end {
                    return true;
                }
                self.last_end = hit.end;
                found(hit)
            }
            Strategy::Shortest => {
                while self.pending.back().is_some_and(|p| p.end >= hit.end) {
                    self.pending.pop_back();
                }
                while let Some(&first) = self.pending.front() {
                    if first.end > hit.start {
                        break;
                    }
                    self.pending.pop_front();
                    if !found(first) {
                        return false;
                    }
                }
                self.pending.push_back(hit);
                true
            }
        }
    }

    /// Hands on what was held back once every start was seen.
    pub(super) fn finish(&mut self, found: &mut impl FnMut(Hit) -> bool) {
        while let Some(h) = self.pending.pop_front() {
            if !found(h) {
                return;
            }
        }
    }
}
