//! The automaton's run from one start position over the forward index: a Thompson simulation
//! (every live state advances one token at a time), with label positions carried by each
//! thread when the query has a global constraint.
//!
//! **In:** a compiled [`Search`] and a start position. **Out:** the hit from that start the
//! strategy asks for (the earliest end, or the latest), if one exists.
//!
//! **Invariants:** a hit holds at least one token and ends within [`Search::limit_at`]; a
//! structural tag is checked at the position between two tokens; a whole region (`<s/>`) is
//! crossed in one jump and never past its end; the number of threads is bounded
//! ([`MAX_THREADS`]); the caller's interrupt is asked every few thousand steps.

use std::collections::HashSet;

use super::automaton::{Automaton as Search, Hit, State};
use super::constraint::UNSET;
use super::index::{ColumnError, Columns, Index};
use super::limits::{ASK_EVERY, MAX_THREADS, QueryError};

/// Which end of the matches from one start is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    Earliest,
    Latest,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Thread {
    state: usize,
    /// Label positions (empty when the query has no constraint).
    labels: Vec<u32>,
}

/// The walk's working memory, kept from one start to the next.
pub(super) struct Walk<'s, 'i, C> {
    search: &'s Search<'i, C>,
    reader: BlockReader<'i, C>,
    current: Vec<Thread>,
    next: Vec<Thread>,
    /// The step at which each state was last added (untracked walks: a state once per step).
    seen: Vec<u64>,
    /// Threads added at this step (tracked walks: a state once per label positions).
    seen_threads: HashSet<Thread>,
    step: u64,
    /// Automaton steps since the interrupt was last asked.
    work: u64,
    /// Threads that crossed a whole region and arrive at its end: (position, thread).
    delayed: Vec<(u32, Thread)>,
    /// Label positions of the matches that reached the end at the current position.
    accepted: Vec<Vec<u32>>,
    /// The walks of the `containing` clauses' queries.
    inner: Vec<Walk<'s, 'i, C>>,
    /// The label positions of the last hit found (tracked walks).
    pub(super) found_labels: Vec<u32>,
    /// The states alive, for a walk with no labels, regions or clauses to carry.
    plain: Vec<usize>,
    plain_next: Vec<usize>,
    /// The document and `within` region of the last start (the next is often in them).
    hints: [usize; 2],
}

impl<'s, 'i, C: Columns> Walk<'s, 'i, C> {
    pub(super) fn new(search: &'s Search<'i, C>) -> Walk<'s, 'i, C> {
        Walk {
            search,
            reader: BlockReader::new(search.index, &search.attrs),
            current: Vec::new(),
            next: Vec::new(),
            seen: vec![u64::MAX; search.states.len()],
            seen_threads: HashSet::new(),
            step: 0,
            work: 0,
            delayed: Vec::new(),
            accepted: Vec::new(),
            inner: search
                .containing
                .iter()
                .map(|(_, s)| Walk::new(s))
                .collect(),
            found_labels: Vec::new(),
            plain: Vec::new(),
            plain_next: Vec::new(),
            hints: [0; 2],
        }
    }

    /// The hit starting at `start` (ending at `cap` at the latest), the earliest or latest end.
    pub(super) fn check(
        &mut self,
        start: u32,
        cap: Option<u32>,
        want: Want,
    ) -> Result<Option<Hit>, QueryError> {
        let s = self.search;
        let Some(mut limit) = s.limit_at(start, &mut self.hints) else {
            return Ok(None);
        };
        if let Some(cap) = cap {
            limit = limit.min(cap);
        }
        if s.plain() {
            return self.check_plain(start, limit, want);
        }
        self.current.clear();
        self.delayed.clear();
        self.step = self.step.wrapping_add(1);
        self.seen_threads.clear();
        let first = Thread {
            state: s.start,
            labels: if s.tracked() {
                vec![UNSET; s.labels.len()]
            } else {
                Vec::new()
            },
        };
        self.accepted.clear();
        self.add(first, start, limit)?;
        let mut best = None;
        let mut pos = start;
        loop {
            if pos > start && !self.accepted.is_empty() && self.passes(start, pos)? {
                best = Some(Hit { start, end: pos });
                if want == Want::Earliest {
                    return Ok(best);
                }
            }
            if pos >= limit || (self.current.is_empty() && self.delayed.is_empty()) {
                return Ok(best);
            }
            self.advance(pos, limit)?;
            pos += 1;
        }
    }

    /// [`Walk::check`] for a query whose matches carry nothing but their states: a Thompson
    /// simulation over state numbers, each state once per position.
    fn check_plain(
        &mut self,
        start: u32,
        limit: u32,
        want: Want,
    ) -> Result<Option<Hit>, QueryError> {
        let s = self.search;
        self.plain.clear();
        self.step = self.step.wrapping_add(1);
        let mut seen = std::mem::take(&mut self.seen);
        add_plain(s, s.start, start, &mut self.plain, &mut seen, self.step);
        let mut best = None;
        let mut pos = start;
        while pos < limit && !self.plain.is_empty() {
            self.work += self.plain.len() as u64 + 1;
            if self.work >= u64::from(ASK_EVERY) * 16 {
                self.work = 0;
                if s.stopped() {
                    self.seen = seen;
                    return Err(QueryError::Interrupted);
                }
            }
            if let Err(e) = self.reader.load(pos) {
                self.seen = seen;
                return Err(e.into());
            }
            let reader = &self.reader;
            let at = |attr: usize| reader.id(attr, pos);
            self.plain_next.clear();
            self.step = self.step.wrapping_add(1);
            let mut accepted = false;
            for &state in &self.plain {
                if let State::Token { pred, next, .. } = s.states[state]
                    && s.preds[pred].holds(&at)
                {
                    accepted |=
                        add_plain(s, next, pos + 1, &mut self.plain_next, &mut seen, self.step);
                }
            }
            pos += 1;
            std::mem::swap(&mut self.plain, &mut self.plain_next);
            if accepted {
                best = Some(Hit { start, end: pos });
                if want == Want::Earliest {
                    break;
                }
            }
        }
        self.seen = seen;
        Ok(best)
    }

    /// Moves every live thread over the token at `pos`, and brings in the threads arriving at
    /// `pos + 1` from a region jump.
    fn advance(&mut self, pos: u32, limit: u32) -> Result<(), QueryError> {
        let s = self.search;
        self.work += self.current.len() as u64 + 1;
        if self.work >= u64::from(ASK_EVERY) * 16 {
            self.work = 0;
            if s.stopped() {
                return Err(QueryError::Interrupted);
            }
        }
        self.reader.load(pos)?;
        self.next.clear();
        self.accepted.clear();
        self.step = self.step.wrapping_add(1);
        self.seen_threads.clear();
        let current = std::mem::take(&mut self.current);
        for thread in &current {
            if let State::Token { pred, next, label } = s.states[thread.state] {
                let reader = &self.reader;
                if s.preds[pred].holds(&|attr| reader.id(attr, pos)) {
                    let mut labels = thread.labels.clone();
                    if let Some(l) = labels.get_mut(label) {
                        *l = pos;
                    }
                    self.add_next(
                        Thread {
                            state: next,
                            labels,
                        },
                        pos + 1,
                        limit,
                    )?;
                }
            }
        }
        self.current = current;
        let mut k = 0;
        while k < self.delayed.len() {
            if self.delayed[k].0 == pos + 1 {
                let (_, thread) = self.delayed.swap_remove(k);
                self.add_next(thread, pos + 1, limit)?;
            } else {
                k += 1;
            }
        }
        std::mem::swap(&mut self.current, &mut self.next);
        Ok(())
    }

    /// `add` into the next position's threads.
    fn add_next(&mut self, thread: Thread, pos: u32, limit: u32) -> Result<(), QueryError> {
        std::mem::swap(&mut self.current, &mut self.next);
        let r = self.add(thread, pos, limit);
        std::mem::swap(&mut self.current, &mut self.next);
        r
    }

    /// Adds a thread and what it reaches at `pos` without consuming a token to the current
    /// threads; a thread reaching the end is recorded in `accepted`.
    fn add(&mut self, thread: Thread, pos: u32, limit: u32) -> Result<(), QueryError> {
        let s = self.search;
        let tracked = s.tracked();
        if tracked {
            if !self.seen_threads.insert(thread.clone()) {
                return Ok(());
            }
            if self.seen_threads.len() > MAX_THREADS {
                return Err(QueryError::TooManyPaths);
            }
        } else {
            if self.seen[thread.state] == self.step {
                return Ok(());
            }
            self.seen[thread.state] = self.step;
        }
        match s.states[thread.state] {
            State::Split(a, b) => {
                let other = Thread {
                    state: b,
                    labels: thread.labels.clone(),
                };
                self.add(Thread { state: a, ..thread }, pos, limit)?;
                self.add(other, pos, limit)?;
            }
            State::Accept => self.accepted.push(thread.labels),
            State::Token { .. } => self.current.push(thread),
            State::Assert { tag, next } => {
                if s.tags[tag].holds(s.index, pos) {
                    self.add(
                        Thread {
                            state: next,
                            ..thread
                        },
                        pos,
                        limit,
                    )?;
                }
            }
            State::Region { tag, next } => {
                if let Some(end) = s.tags[tag].region_from(s.index, pos)
                    && end <= limit
                {
                    self.delayed.push((
                        end,
                        Thread {
                            state: next,
                            ..thread
                        },
                    ));
                }
            }
            State::Hole => {}
        }
        Ok(())
    }

    /// Whether one of the matches ending at `end` satisfies the constraint and the
    /// `containing` clauses.
    fn passes(&mut self, start: u32, end: u32) -> Result<bool, QueryError> {
        let s = self.search;
        let constrained = match &s.global {
            None => self.accepted.first(),
            Some(g) => self
                .accepted
                .iter()
                .find(|at| g.holds(s.index, at, start, end)),
        };
        let Some(at) = constrained else {
            return Ok(false);
        };
        self.found_labels.clone_from(at);
        for (k, (negated, _)) in s.containing.iter().enumerate() {
            let mut holds = false;
            for from in start..end {
                if self.inner[k]
                    .check(from, Some(end), Want::Earliest)?
                    .is_some()
                {
                    holds = true;
                    break;
                }
            }
            if holds == *negated {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Adds `state` and what it reaches at `pos` without consuming a token (its splits, the tags
/// that hold there) to `into`; true when that includes the end of the query.
fn add_plain<C>(
    s: &Search<'_, C>,
    state: usize,
    pos: u32,
    into: &mut Vec<usize>,
    seen: &mut [u64],
    step: u64,
) -> bool {
    if seen[state] == step {
        return false;
    }
    seen[state] = step;
    match s.states[state] {
        State::Split(a, b) => {
            let x = add_plain(s, a, pos, into, seen, step);
            let y = add_plain(s, b, pos, into, seen, step);
            x | y
        }
        State::Accept => true,
        State::Token { .. } => {
            into.push(state);
            false
        }
        State::Assert { tag, next } => {
            s.tags[tag].holds(s.index, pos) && add_plain(s, next, pos, into, seen, step)
        }
        State::Region { .. } | State::Hole => false,
    }
}

/// Forward-index ids of the attributes a query tests, read a block at a time.
pub(super) struct BlockReader<'i, C> {
    index: &'i Index<C>,
    attrs: Vec<usize>,
    block_start: u32,
    /// Per attribute number, the block's ids (empty for attributes not tested).
    blocks: Vec<Vec<u32>>,
}

const BLOCK: u32 = 1024;

impl<'i, C: Columns> BlockReader<'i, C> {
    pub(super) fn new(index: &'i Index<C>, attrs: &[usize]) -> BlockReader<'i, C> {
        BlockReader {
            index,
            attrs: attrs.to_vec(),
            block_start: u32::MAX,
            blocks: vec![Vec::new(); index.attributes.len()],
        }
    }

    pub(super) fn load(&mut self, pos: u32) -> Result<(), ColumnError> {
        if self.block_start != u32::MAX
            && pos >= self.block_start
            && pos < self.block_start.saturating_add(BLOCK)
        {
            return Ok(());
        }
        let start = pos - pos % BLOCK;
        let end = start.saturating_add(BLOCK).min(self.index.n_tokens);
        for &a in &self.attrs {
            let block = &mut self.blocks[a];
            block.resize((end - start) as usize, 0);
            self.index.columns.ids(a, start, block)?;
        }
        self.block_start = start;
        Ok(())
    }

    pub(super) fn id(&self, attr: usize, pos: u32) -> u32 {
        self.blocks[attr]
            .get((pos - self.block_start) as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }
}
