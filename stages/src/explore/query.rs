//! Runs a parsed CQL [`Query`] on an [`Index`]: the hits, in corpus order.
//!
//! **In:** a [`Query`] and an index.
//!
//! **Out:** [`Hit`]s (`start..end` token positions), found by [`Search::run`] in ascending
//! start order, as many as the caller asks for.
//!
//! How: every token condition becomes, per attribute it tests, the set of lexicon ids whose
//! value matches (a literal is looked up, a regular expression is run on each distinct value
//! once, never on each token). Among the top-level token patterns at a fixed distance from the
//! start of a hit, the one with the fewest postings gives the candidate starts; without such a
//! pattern every position is a candidate. Each candidate is then checked with a Thompson
//! automaton over the forward index, read in blocks.
//!
//! **Semantics** (the brute-force scan in the tests implements the same independently):
//! - one hit per start position: the *shortest* match starting there (CQP's `shortest`
//!   strategy); hits may overlap; a hit holds at least one token;
//! - a hit never crosses a `text` boundary (a document), and with `within R` lies inside one
//!   region `R` (with `<R a="x"/>`, one whose attributes match);
//! - unbounded repetitions (`*`, `+`, `{n,}`) add at most [`UNBOUNDED_SPAN`] tokens to the
//!   longest hit the rest of the query allows.
//!
//! **Cost:** the value tests of one attribute joined by `|` (or `&`), and a group of one-token
//! alternatives (`("a" | "b" | …)`), become one set of lexicon ids, so an alternation of
//! thousands of words costs one test per token, as one regular expression would; the sets a
//! query holds are bounded by [`MAX_SET_BYTES`]; a caller's [`Interrupt`] is asked every few
//! thousand positions and values, and stops the query with [`QueryError::Interrupted`].
//!
//! **Invariants:** never panics on any query or index; unknown attributes, regions and invalid
//! regular expressions are [`QueryError`]s that name them and list what exists; a value's
//! regular expression is checked on its own before it is anchored, so it matches whole values
//! whatever it holds (`le)|(la` is an error, never `^(?:le)|(la)$`).

use super::cql::{Atom, Cond, Item, Query, Sequence};
use super::index::{ColumnError, Columns, Index};
use super::limits::ASK_EVERY;
pub use super::limits::{Interrupt, MAX_SET_BYTES, MAX_STATES, QueryError, UNBOUNDED_SPAN};
pub use super::pred::Matcher;
use super::pred::{Pred, fill_bits, join, simplified};

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
enum State {
    /// Consume one token satisfying `preds[pred]`, go to `next`.
    Token { pred: usize, next: usize },
    /// Go to both.
    Split(usize, usize),
    /// A hit ends here.
    Accept,
    /// Placeholder while an unbounded loop is built.
    Hole,
}

/// A query ready to run on one index.
pub struct Search<'i, C> {
    index: &'i Index<C>,
    preds: Vec<Pred>,
    states: Vec<State>,
    start: usize,
    /// Top-level token patterns at a fixed offset from the hit start: (offset, pred).
    anchors: Vec<(u32, usize)>,
    /// Top-level token patterns every hit must contain (repeated at least once).
    required: Vec<usize>,
    /// Predicates of the automaton by their pattern's text.
    compiled: std::collections::HashMap<String, usize>,
    /// The query is one token pattern whose postings are exactly its hits (values tested
    /// without negation): no automaton needed.
    exact: bool,
    /// Every token lies in a document (`text` region), or there are no documents.
    covered: bool,
    longest: u32,
    within: Option<(usize, Option<Vec<bool>>)>,
    text: Option<usize>,
    attrs: Vec<usize>,
    /// Bytes of the id sets of the compiled predicates.
    set_bytes: usize,
    interrupt: Option<Interrupt>,
}

impl<'i, C: Columns> Search<'i, C> {
    /// Compiles `query` against `index`.
    pub fn new(index: &'i Index<C>, query: &Query) -> Result<Search<'i, C>, QueryError> {
        Search::with_interrupt(index, query, None)
    }

    /// Compiles `query` against `index`; `interrupt` is asked now and then, while the value
    /// tests are compiled and while the query runs, and stops both when it says so.
    pub fn with_interrupt(
        index: &'i Index<C>,
        query: &Query,
        interrupt: Option<Interrupt>,
    ) -> Result<Search<'i, C>, QueryError> {
        let query = &Query {
            sequence: simplified(&query.sequence),
            within: query.within.clone(),
        };
        let mut s = Search {
            index,
            preds: Vec::new(),
            states: vec![State::Accept],
            start: 0,
            anchors: Vec::new(),
            required: Vec::new(),
            compiled: std::collections::HashMap::new(),
            exact: false,
            covered: false,
            longest: 0,
            within: None,
            text: index.regions.iter().position(|r| r.name == "text"),
            attrs: Vec::new(),
            set_bytes: 0,
            interrupt,
        };
        s.start = s.sequence(&query.sequence, 0)?;
        fn exact(c: &Cond) -> bool {
            match c {
                Cond::Test(t) => !t.negated,
                Cond::Or(all) => all.iter().all(exact),
                _ => false,
            }
        }
        s.covered = s.text.is_none_or(|t| {
            let r = &index.regions[t];
            r.starts
                .iter()
                .zip(&r.ends)
                .map(|(a, b)| u64::from(b.saturating_sub(*a)))
                .sum::<u64>()
                == u64::from(index.n_tokens)
        });
        s.exact = matches!(query.sequence.as_slice(),
            [Item { atom: Atom::Token(c), min: 1, max: Some(1) }] if exact(c));
        let unbounded = if max_len(&query.sequence).is_none() {
            UNBOUNDED_SPAN
        } else {
            0
        };
        s.longest = bounded_len(&query.sequence).saturating_add(unbounded);
        s.plan_starts(&query.sequence)?;
        if let Some(w) = &query.within {
            s.within = Some(within_region(index, w)?);
        }
        for p in &s.preds {
            p.attrs(&mut s.attrs);
        }
        Ok(s)
    }

    /// The top-level token patterns every hit must contain, and those at a fixed distance
    /// from the hit's start (the candidates' sources).
    fn plan_starts(&mut self, sequence: &Sequence) -> Result<(), QueryError> {
        for item in sequence {
            if let (Atom::Token(cond), true) = (&item.atom, item.min >= 1) {
                let pred = self.pred(cond)?;
                self.required.push(pred);
            }
        }
        let mut offset = 0u32;
        for item in sequence {
            if let (Atom::Token(cond), 1, Some(1)) = (&item.atom, item.min, item.max) {
                let pred = self.pred(cond)?;
                self.anchors.push((offset, pred));
            }
            match fixed_len(item) {
                Some(n) => offset += n,
                None => break,
            }
        }
        Ok(())
    }

    /// The number of a pattern's predicate: each distinct pattern is compiled once, for the
    /// automaton, the candidate starts and the required patterns alike (its lexicon scan may
    /// be long).
    fn pred(&mut self, cond: &Cond) -> Result<usize, QueryError> {
        let key = cond.to_string();
        if let Some(&p) = self.compiled.get(&key) {
            return Ok(p);
        }
        let mut pred = self.cond(cond)?;
        fill_bits(&mut pred, self.index);
        self.set_bytes = self.set_bytes.saturating_add(pred.set_bytes());
        if self.set_bytes > MAX_SET_BYTES {
            return Err(QueryError::TooManyValues);
        }
        self.preds.push(pred);
        self.compiled.insert(key, self.preds.len() - 1);
        Ok(self.preds.len() - 1)
    }

    fn cond(&self, cond: &Cond) -> Result<Pred, QueryError> {
        Ok(match cond {
            Cond::Any => Pred::Any,
            Cond::Test(t) => {
                let attr = self
                    .index
                    .attribute(&t.attr)
                    .ok_or_else(|| QueryError::Attribute {
                        name: t.attr.clone(),
                        have: self
                            .index
                            .attributes
                            .iter()
                            .map(|a| a.name.clone())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?;
                let lexicon = &self.index.attributes[attr].lexicon;
                let ids = Matcher::new(t)?.ids(lexicon, self.interrupt.as_ref())?;
                // The bits are filled once the whole condition is compiled ([`fill_bits`]):
                // tests merged on the way never hold a set of their own.
                Pred::In {
                    attr,
                    bits: Vec::new(),
                    ids,
                    negated: t.negated,
                }
            }
            Cond::And(all) | Cond::Or(all) => {
                let and = matches!(cond, Cond::And(_));
                let mut members = Vec::new();
                let mut held = 0isize;
                for c in all {
                    let p = self.cond(c)?;
                    held = held.saturating_add(join(&mut members, p, and));
                    if self
                        .set_bytes
                        .saturating_add(usize::try_from(held).unwrap_or(0))
                        > MAX_SET_BYTES
                    {
                        return Err(QueryError::TooManyValues);
                    }
                }
                match members.len() {
                    1 => members.remove(0),
                    _ if and => Pred::And(members),
                    _ => Pred::Or(members),
                }
            }
            Cond::Not(a) => Pred::Not(Box::new(self.cond(a)?)),
        })
    }

    fn push(&mut self, state: State) -> usize {
        self.states.push(state);
        self.states.len() - 1
    }

    /// Compiles a sequence whose end continues at `next`; returns its entry state.
    fn sequence(&mut self, seq: &Sequence, next: usize) -> Result<usize, QueryError> {
        let mut cur = next;
        for item in seq.iter().rev() {
            cur = self.item(item, cur)?;
        }
        Ok(cur)
    }

    fn atom(&mut self, atom: &Atom, next: usize) -> Result<usize, QueryError> {
        match atom {
            Atom::Token(cond) => {
                let pred = self.pred(cond)?;
                Ok(self.push(State::Token { pred, next }))
            }
            Atom::Group(alternatives) => {
                let mut entry: Option<usize> = None;
                for alt in alternatives.iter().rev() {
                    let e = self.sequence(alt, next)?;
                    entry = Some(match entry {
                        None => e,
                        Some(rest) => self.push(State::Split(e, rest)),
                    });
                }
                Ok(entry.unwrap_or(next))
            }
        }
    }

    fn item(&mut self, item: &Item, next: usize) -> Result<usize, QueryError> {
        if self.states.len() > MAX_STATES {
            return Err(QueryError::TooLarge);
        }
        let mut cur = match item.max {
            None => {
                // A loop: hole → Split(atom → hole, next).
                let hole = self.push(State::Hole);
                let body = self.atom(&item.atom, hole)?;
                self.states[hole] = State::Split(body, next);
                hole
            }
            Some(max) => {
                let mut cur = next;
                for _ in item.min..max {
                    if self.states.len() > MAX_STATES {
                        return Err(QueryError::TooLarge);
                    }
                    let body = self.atom(&item.atom, cur)?;
                    cur = self.push(State::Split(body, next));
                }
                cur
            }
        };
        for _ in 0..item.min {
            if self.states.len() > MAX_STATES {
                return Err(QueryError::TooLarge);
            }
            cur = self.atom(&item.atom, cur)?;
        }
        Ok(cur)
    }

    /// Calls `found` with each hit in ascending start order until it returns false.
    pub fn run(&self, mut found: impl FnMut(Hit) -> bool) -> Result<(), QueryError> {
        // A required token pattern that matches no value: no hit, without scanning anything.
        if self.impossible() {
            return Ok(());
        }
        if self.exact
            && let Some(starts) = self.candidates(true)?
        {
            return self.run_exact(starts, &mut found);
        }
        let mut walk = Walk::new(self);
        match self.candidates(false)? {
            Some(starts) => self.scan(&mut walk, starts.into_iter(), &mut found),
            None => self.scan(&mut walk, 0..self.index.n_tokens, &mut found),
        }
    }

    /// Whether the caller's interrupt says stop.
    fn stopped(&self) -> bool {
        self.interrupt.as_ref().is_some_and(|stop| stop())
    }

    /// A one-token query whose postings are its hits: each start in a document (and region)
    /// is a hit.
    fn run_exact(
        &self,
        starts: Vec<u32>,
        found: &mut impl FnMut(Hit) -> bool,
    ) -> Result<(), QueryError> {
        let everywhere = self.within.is_none() && self.covered;
        for (i, start) in starts.into_iter().enumerate() {
            if i % ASK_EVERY as usize == ASK_EVERY as usize - 1 && self.stopped() {
                return Err(QueryError::Interrupted);
            }
            if (everywhere || self.in_regions(start))
                && !found(Hit {
                    start,
                    end: start + 1,
                })
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The automaton run from each of `starts`, hits handed to `found` until it says stop.
    fn scan(
        &self,
        walk: &mut Walk<'_, 'i, C>,
        starts: impl Iterator<Item = u32>,
        found: &mut impl FnMut(Hit) -> bool,
    ) -> Result<(), QueryError> {
        for (i, start) in starts.enumerate() {
            if i % ASK_EVERY as usize == ASK_EVERY as usize - 1 && self.stopped() {
                return Err(QueryError::Interrupted);
            }
            if let Some(hit) = walk.check(start)?
                && !found(hit)
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Where a hit starting at `start` must end at the latest (its document, its `within`
    /// region, the longest hit the query allows); None when it cannot start there.
    fn limit_at(&self, start: u32) -> Option<u32> {
        let mut limit = self.index.n_tokens.min(start.saturating_add(self.longest));
        if let Some(t) = self.text {
            let i = self.index.regions[t].find(start)?;
            limit = limit.min(self.index.regions[t].ends[i]);
        }
        if let Some((r, allowed)) = &self.within {
            let regions = &self.index.regions[*r];
            match regions.find(start) {
                Some(i) if allowed.as_ref().is_none_or(|a| a[i]) => {
                    limit = limit.min(regions.ends[i]);
                }
                _ => return None,
            }
        }
        Some(limit)
    }

    /// Whether a top-level pattern every hit needs matches no value at all.
    fn impossible(&self) -> bool {
        self.required
            .iter()
            .any(|&p| matches!(self.preds[p].plan(self.index), Some((_, 0))))
    }

    /// Whether a one-token hit at `pos` lies in a document and in an allowed `within` region.
    fn in_regions(&self, pos: u32) -> bool {
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

    /// Candidate starts from the cheapest anchor, ascending; None to try every position (unless
    /// `always`: then postings however many).
    fn candidates(&self, always: bool) -> Result<Option<Vec<u32>>, QueryError> {
        let best = self
            .anchors
            .iter()
            .filter_map(|&(offset, p)| Some((offset, self.preds[p].plan(self.index)?)))
            .min_by_key(|(_, (_, cost))| *cost);
        let Some((offset, (lists, cost))) = best else {
            return Ok(None);
        };
        // Reading more postings than an eighth of the corpus costs more than a scan.
        if !always && cost > u64::from(self.index.n_tokens) / 8 + 1024 {
            return Ok(None);
        }
        if let [(attr, id)] = lists.as_slice()
            && offset == 0
        {
            let n = self.index.n_tokens;
            let mut starts = self.index.postings(*attr, *id)?;
            // A damaged index may hold positions past the end: never hits.
            starts.retain(|&p| p < n);
            return Ok(Some(starts));
        }
        let mut starts = Vec::with_capacity(cost as usize);
        for &(attr, id) in &lists {
            starts.extend(
                self.index
                    .postings(attr, id)?
                    .into_iter()
                    .filter(|&p| p < self.index.n_tokens)
                    .filter_map(|p| p.checked_sub(offset)),
            );
        }
        if lists.len() > 1 {
            starts.sort_unstable();
            starts.dedup();
        }
        Ok(Some(starts))
    }

    /// Every hit (up to `limit`), and whether more exist.
    pub fn hits(&self, limit: usize) -> Result<(Vec<Hit>, bool), QueryError> {
        let mut hits = Vec::new();
        let mut more = false;
        self.run(|h| {
            if hits.len() == limit {
                more = true;
                return false;
            }
            hits.push(h);
            true
        })?;
        Ok((hits, more))
    }

    /// For a query that is one token pattern (`[pos="NOUN"]`: no sequence, no repetition, no
    /// `within`), whether each position of `range` satisfies it — a filter on tokens (the
    /// collocates of `glaneur colloc --filter`); None for any other query.
    pub fn holds_over(&self, range: std::ops::Range<u32>) -> Option<Result<Vec<bool>, QueryError>> {
        if self.within.is_some() || self.anchors.len() != 1 || self.longest != 1 {
            return None;
        }
        let State::Token { pred, next } = self.states[self.start] else {
            return None;
        };
        if !matches!(self.states[next], State::Accept) {
            return None;
        }
        let end = range.end.min(self.index.n_tokens);
        let start = range.start.min(end);
        let mut ids = vec![Vec::new(); self.index.attributes.len()];
        for &a in &self.attrs {
            match self.index.ids(a, start..end) {
                Ok(v) => ids[a] = v,
                Err(e) => return Some(Err(e.into())),
            }
        }
        Some(Ok((0..(end - start) as usize)
            .map(|k| self.preds[pred].holds(&|a| ids[a].get(k).copied().unwrap_or(u32::MAX)))
            .collect()))
    }

    /// The number of value tests the query compiled to (a test joined to another of the same
    /// attribute by `|` or `&` is merged into it).
    pub fn predicates(&self) -> usize {
        self.preds.len()
    }

    /// The number of hits.
    pub fn count(&self) -> Result<u64, QueryError> {
        // One value test over a corpus whose documents hold every token: the postings' lengths.
        if self.exact
            && self.within.is_none()
            && self.covered
            && let Some(&(0, p)) = self.anchors.first()
            && let Some((lists, cost)) = self.preds[p].plan(self.index)
        {
            // Disjoint lists only: distinct values of one attribute.
            let distinct: std::collections::HashSet<_> = lists.iter().collect();
            if distinct.len() == lists.len() && lists.iter().all(|l| l.0 == lists[0].0) {
                return Ok(cost);
            }
        }
        let mut n = 0u64;
        self.run(|_| {
            n += 1;
            true
        })?;
        Ok(n)
    }
}

/// The region of `within` (`doc` is `text`) and, with attribute tests, which of its regions
/// pass them.
fn within_region<C: Columns>(
    index: &Index<C>,
    w: &super::cql::Within,
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

/// The automaton's run over the forward index: the states alive, the index blocks read.
struct Walk<'s, 'i, C> {
    search: &'s Search<'i, C>,
    reader: BlockReader<'i, C>,
    current: Vec<usize>,
    next: Vec<usize>,
    /// The step at which each state was last added (a state is added once per step).
    seen: Vec<u64>,
    step: u64,
    /// Automaton steps since the interrupt was last asked.
    work: u64,
}

impl<'s, 'i, C: Columns> Walk<'s, 'i, C> {
    fn new(search: &'s Search<'i, C>) -> Walk<'s, 'i, C> {
        Walk {
            search,
            reader: BlockReader::new(search.index, &search.attrs),
            current: Vec::new(),
            next: Vec::new(),
            seen: vec![u64::MAX; search.states.len()],
            step: 0,
            work: 0,
        }
    }

    /// The shortest hit starting at `start`, if one does.
    fn check(&mut self, start: u32) -> Result<Option<Hit>, QueryError> {
        let s = self.search;
        let Some(limit) = s.limit_at(start) else {
            return Ok(None);
        };
        self.current.clear();
        self.step = self.step.wrapping_add(1);
        add(
            &s.states,
            s.start,
            &mut self.current,
            &mut self.seen,
            self.step,
        );
        let mut pos = start;
        while pos < limit && !self.current.is_empty() {
            self.work += self.current.len() as u64 + 1;
            if self.work >= u64::from(ASK_EVERY) * 16 {
                self.work = 0;
                if s.stopped() {
                    return Err(QueryError::Interrupted);
                }
            }
            self.reader.load(pos)?;
            let reader = &self.reader;
            let at = |attr: usize| reader.id(attr, pos);
            self.next.clear();
            self.step = self.step.wrapping_add(1);
            let mut accepted = false;
            for &state in &self.current {
                if let State::Token { pred, next: to } = s.states[state]
                    && s.preds[pred].holds(&at)
                {
                    accepted |= add(&s.states, to, &mut self.next, &mut self.seen, self.step);
                }
            }
            pos += 1;
            if accepted {
                return Ok(Some(Hit { start, end: pos }));
            }
            std::mem::swap(&mut self.current, &mut self.next);
        }
        Ok(None)
    }
}

/// Adds `s` and what it reaches without consuming a token; true when that includes Accept.
fn add(states: &[State], s: usize, into: &mut Vec<usize>, seen: &mut [u64], step: u64) -> bool {
    if seen[s] == step {
        return false;
    }
    seen[s] = step;
    match states[s] {
        State::Split(a, b) => {
            let x = add(states, a, into, seen, step);
            let y = add(states, b, into, seen, step);
            x | y
        }
        State::Accept => true,
        State::Token { .. } => {
            into.push(s);
            false
        }
        State::Hole => false,
    }
}

/// Length of an item when fixed.
fn fixed_len(item: &Item) -> Option<u32> {
    let one = match &item.atom {
        Atom::Token(_) => 1,
        Atom::Group(alts) => {
            let lens: Vec<Option<u32>> = alts
                .iter()
                .map(|seq| seq.iter().map(fixed_len).sum())
                .collect();
            let first = lens.first().copied().flatten()?;
            if lens.iter().all(|l| *l == Some(first)) {
                first
            } else {
                return None;
            }
        }
    };
    (item.max == Some(item.min)).then(|| one * item.min)
}

/// Longest hit a sequence can make with its unbounded repetitions taken at their minimum.
pub fn bounded_len(seq: &Sequence) -> u32 {
    let mut total = 0u32;
    for item in seq {
        let one = match &item.atom {
            Atom::Token(_) => 1,
            Atom::Group(alts) => alts.iter().map(bounded_len).max().unwrap_or(0),
        };
        total = total.saturating_add(one.saturating_mul(item.max.unwrap_or(item.min)));
    }
    total
}

/// Longest hit a sequence can make; None when unbounded.
fn max_len(seq: &Sequence) -> Option<u32> {
    let mut total = 0u32;
    for item in seq {
        let one = match &item.atom {
            Atom::Token(_) => 1,
            Atom::Group(alts) => alts
                .iter()
                .map(max_len)
                .collect::<Option<Vec<u32>>>()?
                .into_iter()
                .max()?,
        };
        total = total.saturating_add(one.saturating_mul(item.max?));
    }
    Some(total)
}

/// Forward-index ids of the attributes a query tests, read a block at a time.
struct BlockReader<'i, C> {
    index: &'i Index<C>,
    attrs: Vec<usize>,
    block_start: u32,
    /// Per attribute number, the block's ids (empty for attributes not tested).
    blocks: Vec<Vec<u32>>,
}

const BLOCK: u32 = 1024;

impl<'i, C: Columns> BlockReader<'i, C> {
    fn new(index: &'i Index<C>, attrs: &[usize]) -> BlockReader<'i, C> {
        BlockReader {
            index,
            attrs: attrs.to_vec(),
            block_start: u32::MAX,
            blocks: vec![Vec::new(); index.attributes.len()],
        }
    }

    fn load(&mut self, pos: u32) -> Result<(), ColumnError> {
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

    fn id(&self, attr: usize, pos: u32) -> u32 {
        self.blocks[attr]
            .get((pos - self.block_start) as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }
}
