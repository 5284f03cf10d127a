//! The hits a concordance shows: the query's, kept or dropped by what is near them
//! (`kwic --near CQL`, `--not-near CQL`: the positive and negative filters of concordancers).
//!
//! **In:** a compiled query, the filters' one-token patterns, a window. **Out:** hits in corpus
//! order, through a callback as [`Search::run`] gives them.
//!
//! **Invariants:** "near" is within the window on either side of the hit, inside its document,
//! the hit's own tokens excluded; without filters every hit passes, in the same order.

use anyhow::bail;
use stages::explore::index::Index;
use stages::explore::query::{Hit, QueryError, Search};

use super::{KwicArgs, parse, query_error};
use crate::index::corpus::FileColumns;

/// A query's hits with the concordance's filters.
pub(super) struct Hits<'s, 'i> {
    index: &'i Index<FileColumns>,
    search: &'s Search<'i, FileColumns>,
    near: Option<Search<'i, FileColumns>>,
    not_near: Option<Search<'i, FileColumns>>,
    window: u32,
    timeout: Option<f64>,
}

impl<'s, 'i> Hits<'s, 'i> {
    pub(super) fn new(
        index: &'i Index<FileColumns>,
        search: &'s Search<'i, FileColumns>,
        args: &KwicArgs,
    ) -> anyhow::Result<Hits<'s, 'i>> {
        let compile = |cql: &Option<String>, flag: &str| -> anyhow::Result<_> {
            let Some(cql) = cql else {
                return Ok(None);
            };
            let test = Search::new(index, &parse(cql)?).map_err(|e| query_error(e, None))?;
            if test.holds_over(0..0).is_none() {
                bail!("{flag} {cql}: {}", QueryError::NotOneToken);
            }
            Ok(Some(test))
        };
        Ok(Hits {
            index,
            search,
            near: compile(&args.near, "--near")?,
            not_near: compile(&args.not_near, "--not-near")?,
            window: args.near_window,
            timeout: args.timeout,
        })
    }

    /// Every hit that passes the filters, in corpus order, until `found` says stop.
    pub(super) fn run(&self, mut found: impl FnMut(Hit) -> bool) -> anyhow::Result<()> {
        if self.near.is_none() && self.not_near.is_none() {
            return self
                .search
                .run(found)
                .map_err(|e| query_error(e, self.timeout));
        }
        let mut failed = None;
        self.search
            .run(|hit| match self.passes(hit) {
                Ok(true) => found(hit),
                Ok(false) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            })
            .map_err(|e| query_error(e, self.timeout))?;
        match failed {
            Some(e) => Err(query_error(e, self.timeout)),
            None => Ok(()),
        }
    }

    /// The first `n` hits that pass, and whether there are more.
    pub(super) fn first(&self, n: usize) -> anyhow::Result<(Vec<Hit>, bool)> {
        let mut hits = Vec::new();
        let mut more = false;
        self.run(|hit| {
            if hits.len() == n {
                more = true;
                return false;
            }
            hits.push(hit);
            true
        })?;
        Ok((hits, more))
    }

    fn passes(&self, hit: Hit) -> Result<bool, QueryError> {
        let (lo, hi) = match self
            .index
            .region("text")
            .and_then(|t| t.find(hit.start).map(|i| (t.starts[i], t.ends[i])))
        {
            Some(bounds) => bounds,
            None => (0, self.index.n_tokens),
        };
        let before = hit.start.saturating_sub(self.window).max(lo)..hit.start;
        let after = hit.end..hit.end.saturating_add(self.window).min(hi).max(hit.end);
        let seen = |test: &Search<'_, FileColumns>| -> Result<bool, QueryError> {
            for range in [before.clone(), after.clone()] {
                let holds = test
                    .holds_over(range)
                    .unwrap_or(Err(QueryError::NotOneToken))?;
                if holds.contains(&true) {
                    return Ok(true);
                }
            }
            Ok(false)
        };
        if let Some(test) = &self.near
            && !seen(test)?
        {
            return Ok(false);
        }
        if let Some(test) = &self.not_near
            && seen(test)?
        {
            return Ok(false);
        }
        Ok(true)
    }
}
