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

pub use super::automaton::Hit;
use super::automaton::{Automaton, State, TagCheck, within_region};
use super::constraint::Global;
use super::cql::{Atom, Cond, Item, Query, Sequence, Tag, Within};
use super::index::{Columns, Index};
use super::limits::ASK_EVERY;
pub use super::limits::{Interrupt, MAX_SET_BYTES, MAX_STATES, QueryError, UNBOUNDED_SPAN};
pub use super::pred::Matcher;
use super::pred::{Pred, fill_bits, join, simplified};
use super::strategy::Emitter;
pub use super::strategy::Strategy;
use super::walk::{Walk, Want};

/// A query ready to run on one index: its automaton and how to find candidate starts.
pub struct Search<'i, C> {
    /// What a walk from one start reads.
    auto: Automaton<'i, C>,
    strategy: Strategy,
    /// Top-level token patterns at a bounded distance from the hit start: (least, most, pred).
    anchors: Vec<(u32, u32, usize)>,
    /// Top-level token patterns every hit must contain (repeated at least once).
    required: Vec<usize>,
    /// Predicates of the automaton by their pattern's text.
    compiled: std::collections::HashMap<String, usize>,
    /// The query is one token pattern whose postings are exactly its hits (values tested
    /// without negation): no automaton needed.
    exact: bool,
    /// Every token lies in a document (`text` region), or there are no documents.
    covered: bool,
    /// Bytes of the id sets of the compiled predicates.
    set_bytes: usize,
}

impl<'i, C> std::ops::Deref for Search<'i, C> {
    type Target = Automaton<'i, C>;
    fn deref(&self) -> &Automaton<'i, C> {
        &self.auto
    }
}

impl<C> std::ops::DerefMut for Search<'_, C> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.auto
    }
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
        let mut s = Search {
            auto: Automaton {
                index,
                preds: Vec::new(),
                states: vec![State::Accept],
                start: 0,
                tags: Vec::new(),
                labels: query.labels(),
                global: None,
                containing: Vec::new(),
                track_labels: false,
                plain: false,
                longest: 0,
                within: None,
                text: index.regions.iter().position(|r| r.name == "text"),
                attrs: Vec::new(),
                interrupt,
            },
            strategy: Strategy::default(),
            anchors: Vec::new(),
            required: Vec::new(),
            compiled: std::collections::HashMap::new(),
            exact: false,
            covered: false,
            set_bytes: 0,
        };
        s.compile(query)?;
        Ok(s)
    }

    /// The strategy that picks the hits among the matches (CQP's `MatchingStrategy`).
    pub fn with_strategy(mut self, strategy: Strategy) -> Search<'i, C> {
        self.strategy = strategy;
        self
    }

    /// Each hit from every start (CQP's `traditional` strategy) with the positions of the
    /// query's labels (in the order of [`Query::labels`]; `u32::MAX` for a label whose optional
    /// token was not matched), until `found` returns false.
    pub fn run_labelled(
        mut self,
        mut found: impl FnMut(Hit, &[u32]) -> bool,
    ) -> Result<(), QueryError> {
        self.track_labels = true;
        if self.impossible() {
            return Ok(());
        }
        let mut walk = Walk::new(&self.auto);
        let starts: Box<dyn Iterator<Item = u32>> = match self.candidates(false)? {
            Some(starts) => Box::new(starts.into_iter()),
            None => Box::new(0..self.index.n_tokens),
        };
        for (i, start) in starts.enumerate() {
            if i % ASK_EVERY as usize == ASK_EVERY as usize - 1 && self.stopped() {
                return Err(QueryError::Interrupted);
            }
            if let Some(hit) = walk.check(start, None, Want::Earliest)?
                && !found(hit, &walk.found_labels)
            {
                return Ok(());
            }
        }
        Ok(())
    }

    fn compile(&mut self, query: &Query) -> Result<(), QueryError> {
        let index = self.index;
        let sequence = simplified(&query.sequence);
        self.start = self.sequence(&sequence, 0)?;
        if let Some(c) = &query.constraint {
            self.global = Some(Global::new(c, &self.labels, index)?);
        }
        for c in &query.containing {
            let inner = Search::with_interrupt(index, &c.query, self.interrupt.clone())?;
            self.containing.push((c.negated, inner.auto));
        }
        fn exact(c: &Cond) -> bool {
            match c {
                Cond::Test(t) => !t.negated,
                Cond::Or(all) => all.iter().all(exact),
                _ => false,
            }
        }
        self.covered = self.text.is_none_or(|t| {
            let r = &index.regions[t];
            r.starts
                .iter()
                .zip(&r.ends)
                .map(|(a, b)| u64::from(b.saturating_sub(*a)))
                .sum::<u64>()
                == u64::from(index.n_tokens)
        });
        self.exact = self.global.is_none()
            && self.containing.is_empty()
            && matches!(sequence.as_slice(),
            [Item { atom: Atom::Token(c), min: 1, max: Some(1), .. }] if exact(c));
        let unbounded = if max_len(&sequence).is_none() {
            UNBOUNDED_SPAN
        } else {
            0
        };
        self.longest = bounded_len(&sequence)
            .saturating_add(unbounded)
            .saturating_add(region_span(&sequence, index));
        self.plan_starts(&sequence)?;
        if let Some(w) = &query.within {
            self.within = Some(within_region(index, w)?);
        }
        let auto = &mut self.auto;
        for p in &auto.preds {
            p.attrs(&mut auto.attrs);
        }
        auto.plain = auto.global.is_none()
            && auto.containing.is_empty()
            && !auto
                .states
                .iter()
                .any(|st| matches!(st, State::Region { .. }));
        for (_, inner) in &auto.containing {
            for &a in &inner.attrs {
                if !auto.attrs.contains(&a) {
                    auto.attrs.push(a);
                }
            }
        }
        Ok(())
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
        // Each top-level token pattern with the least and most tokens before it: one whose
        // distance from the start varies little gives candidate starts too.
        let (mut least, mut most) = (0u32, Some(0u32));
        for item in sequence {
            if let (Atom::Token(cond), true, Some(most)) = (&item.atom, item.min >= 1, most)
                && most - least <= MAX_ANCHOR_SPREAD
            {
                let pred = self.pred(cond)?;
                self.anchors.push((least, most, pred));
            }
            least = least.saturating_add(min_len(item));
            let one = std::slice::from_ref(item);
            most = match has_region(one) {
                true => None,
                false => most.zip(max_len(one)).map(|(a, b)| a.saturating_add(b)),
            };
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
                    .ok_or_else(|| QueryError::unknown_attribute(self.index, &t.attr))?;
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

    /// A structural tag resolved against the index (its region, which regions pass its tests).
    fn tag(&mut self, t: &Tag) -> Result<usize, QueryError> {
        let (region, allowed) = within_region(
            self.index,
            &Within {
                region: t.region.clone(),
                attrs: t.attrs.clone(),
            },
        )?;
        self.tags.push(TagCheck {
            region,
            close: t.close,
            allowed,
        });
        Ok(self.tags.len() - 1)
    }

    fn atom(&mut self, atom: &Atom, label: usize, next: usize) -> Result<usize, QueryError> {
        match atom {
            Atom::Token(cond) => {
                let pred = self.pred(cond)?;
                Ok(self.push(State::Token { pred, next, label }))
            }
            Atom::Tag(t) => {
                let tag = self.tag(t)?;
                Ok(self.push(State::Assert { tag, next }))
            }
            Atom::Region(w) => {
                let tag = self.tag(&Tag {
                    region: w.region.clone(),
                    close: false,
                    attrs: w.attrs.clone(),
                })?;
                Ok(self.push(State::Region { tag, next }))
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
        let label = item
            .label
            .as_ref()
            .and_then(|l| self.labels.iter().position(|x| x == l))
            .unwrap_or(usize::MAX);
        if self.states.len() > MAX_STATES {
            return Err(QueryError::TooLarge);
        }
        let mut cur = match item.max {
            None => {
                // A loop: hole → Split(atom → hole, next).
                let hole = self.push(State::Hole);
                let body = self.atom(&item.atom, label, hole)?;
                self.states[hole] = State::Split(body, next);
                hole
            }
            Some(max) => {
                let mut cur = next;
                for _ in item.min..max {
                    if self.states.len() > MAX_STATES {
                        return Err(QueryError::TooLarge);
                    }
                    let body = self.atom(&item.atom, label, cur)?;
                    cur = self.push(State::Split(body, next));
                }
                cur
            }
        };
        for _ in 0..item.min {
            if self.states.len() > MAX_STATES {
                return Err(QueryError::TooLarge);
            }
            cur = self.atom(&item.atom, label, cur)?;
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
        let mut walk = Walk::new(&self.auto);
        match self.candidates(false)? {
            Some(starts) => self.scan(&mut walk, starts.into_iter(), &mut found),
            None => self.scan(&mut walk, 0..self.index.n_tokens, &mut found),
        }
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

    /// The automaton run from each of `starts`, hits handed to `found` (through the
    /// strategy's filter) until it says stop.
    fn scan(
        &self,
        walk: &mut Walk<'_, '_, C>,
        starts: impl Iterator<Item = u32>,
        found: &mut impl FnMut(Hit) -> bool,
    ) -> Result<(), QueryError> {
        let want = if self.strategy == Strategy::Longest {
            Want::Latest
        } else {
            Want::Earliest
        };
        let mut emitter = Emitter::new(self.strategy);
        for (i, start) in starts.enumerate() {
            if i % ASK_EVERY as usize == ASK_EVERY as usize - 1 && self.stopped() {
                return Err(QueryError::Interrupted);
            }
            if let Some(hit) = walk.check(start, None, want)?
                && !emitter.push(hit, found)
            {
                return Ok(());
            }
        }
        emitter.finish(found);
        Ok(())
    }

    /// Whether a top-level pattern every hit needs matches no value at all.
    fn impossible(&self) -> bool {
        self.required
            .iter()
            .any(|&p| matches!(self.preds[p].plan(self.index), Some((_, 0))))
    }

    /// Candidate starts from the cheapest anchor, ascending; None to try every position (unless
    /// `always`: then postings however many).
    fn candidates(&self, always: bool) -> Result<Option<Vec<u32>>, QueryError> {
        let best = self
            .anchors
            .iter()
            .filter_map(|&(least, most, p)| {
                let (lists, cost) = self.preds[p].plan(self.index)?;
                Some((
                    least,
                    most,
                    lists,
                    cost.saturating_mul(u64::from(most - least + 1)),
                ))
            })
            .min_by_key(|(_, _, _, cost)| *cost);
        let Some((least, most, lists, cost)) = best else {
            return Ok(None);
        };
        // Reading more postings than an eighth of the corpus costs more than a scan.
        if !always && cost > u64::from(self.index.n_tokens) / 8 + 1024 {
            return Ok(None);
        }
        let n = self.index.n_tokens;
        if let [(attr, id)] = lists.as_slice()
            && most == 0
        {
            let mut starts = self.index.postings(*attr, *id)?;
            // A damaged index may hold positions past the end: never hits.
            starts.retain(|&p| p < n);
            return Ok(Some(starts));
        }
        let mut starts = Vec::with_capacity(usize::try_from(cost).unwrap_or(0));
        for &(attr, id) in &lists {
            for p in self.index.postings(attr, id)? {
                if p < n {
                    starts.extend((least..=most).filter_map(|off| p.checked_sub(off)));
                }
            }
        }
        if lists.len() > 1 || most > least {
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
        let State::Token { pred, next, .. } = self.states[self.start] else {
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
            && let Some(&(0, 0, p)) = self.anchors.first()
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

/// The most a token pattern's distance from the hit's start may vary for its postings to
/// give candidate starts.
const MAX_ANCHOR_SPREAD: u32 = 16;

/// The fewest tokens an item takes (a whole region counted as one).
fn min_len(item: &Item) -> u32 {
    let one = match &item.atom {
        Atom::Token(_) | Atom::Region(_) => 1,
        Atom::Tag(_) => 0,
        Atom::Group(alts) => alts
            .iter()
            .map(|seq| seq.iter().map(min_len).fold(0u32, u32::saturating_add))
            .min()
            .unwrap_or(0),
    };
    one.saturating_mul(item.min)
}

/// Whether a sequence crosses a whole region somewhere (its length is the region's).
fn has_region(seq: &[Item]) -> bool {
    seq.iter().any(|item| match &item.atom {
        Atom::Region(_) => true,
        Atom::Group(alts) => alts.iter().any(|a| has_region(a)),
        Atom::Token(_) | Atom::Tag(_) => false,
    })
}

/// Longest hit a sequence can make with its unbounded repetitions taken at their minimum.
pub fn bounded_len(seq: &Sequence) -> u32 {
    let mut total = 0u32;
    for item in seq {
        let one = match &item.atom {
            Atom::Token(_) => 1,
            Atom::Tag(_) | Atom::Region(_) => 0,
            Atom::Group(alts) => alts.iter().map(bounded_len).max().unwrap_or(0),
        };
        total = total.saturating_add(one.saturating_mul(item.max.unwrap_or(item.min)));
    }
    total
}

/// Longest hit a sequence can make; None when unbounded.
fn max_len(seq: &[Item]) -> Option<u32> {
    let mut total = 0u32;
    for item in seq {
        let one = match &item.atom {
            Atom::Token(_) => 1,
            Atom::Tag(_) | Atom::Region(_) => 0,
            Atom::Group(alts) => alts
                .iter()
                .map(|a| max_len(a))
                .collect::<Option<Vec<u32>>>()?
                .into_iter()
                .max()?,
        };
        total = total.saturating_add(one.saturating_mul(item.max?));
    }
    Some(total)
}

/// Tokens the whole regions of a sequence (`<s/>`) may add to a hit: the longest region of
/// their kind, times their repetitions (unbounded ones taken at their minimum).
fn region_span<C: Columns>(seq: &Sequence, index: &Index<C>) -> u32 {
    let mut total = 0u32;
    for item in seq {
        let one = match &item.atom {
            Atom::Region(w) => {
                let name = if w.region == "doc" { "text" } else { &w.region };
                index.region(name).map_or(0, |r| {
                    r.starts
                        .iter()
                        .zip(&r.ends)
                        .map(|(a, b)| b.saturating_sub(*a))
                        .max()
                        .unwrap_or(0)
                })
            }
            Atom::Group(alts) => alts
                .iter()
                .map(|a| region_span(a, index))
                .max()
                .unwrap_or(0),
            Atom::Token(_) | Atom::Tag(_) => 0,
        };
        total = total.saturating_add(one.saturating_mul(item.max.unwrap_or(item.min.max(1))));
    }
    total
}
