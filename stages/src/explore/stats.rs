//! Frequency lists, collocations and keywords: the counts and the association scores
//! concordancers report, with their formulas.
//!
//! **In:** an index and hits (or a whole attribute), and for keywords two frequency lists.
//!
//! **Out:** rows sorted by the score asked for, ties by value.
//!
//! Formulas (N corpus size in tokens; for a collocation, f_x the node's hits, f_y the
//! collocate's corpus frequency, f_xy its occurrences in the nodes' windows, W the number of
//! token slots in all windows):
//! - **logDice** (Rychlý 2008, Sketch Engine): `14 + log2(2 f_xy / (f_x + f_y))`;
//! - **MI**: `log2(f_xy / E)` with `E = f_y · W / N` (the expected count in W slots);
//! - **t-score**: `(f_xy − E) / √f_xy`;
//! - **log-likelihood** (Dunning 1993, G²): `2 Σ O ln(O / E)` over the 2 × 2 table
//!   window/outside × collocate/other (O11 = f_xy, O12 = W − f_xy, O21 = f_y − f_xy,
//!   O22 = N − W − O21; each E = row total × column total / N; empty cells add 0);
//! - keywords: **simple maths** (Kilgarriff 2009) `(fpm_focus + n) / (fpm_ref + n)` with fpm
//!   the frequency per million and `n` the smoothing constant (1 by default; larger favours
//!   frequent words), **log-likelihood** of the 2 × 2 table focus/reference × word/other, and
//!   **Log Ratio** (Hardie 2014) `log2((f_focus / N_focus) / (f_ref / N_ref))` with a zero
//!   frequency taken as 0.5.
//!
//! A corpus position counts once even when the windows of several hits cover it, so that
//! f_xy ≤ f_y and W ≤ N (the 2 × 2 table stays a table of positions); logDice can still exceed
//! 14 when a collocate occurs several times around the same hit (f_xy > f_x).
//!
//! **Invariants:** never panics, never returns NaN (a score that cannot be computed is 0 or
//! ±infinity only where the formula gives it: MI and Log Ratio are finite by construction).

use rustc_hash::FxHashMap;

use super::index::{ColumnError, Columns, Index};
use super::query::{Hit, QueryError, Search};

/// Occurrences of each value of an attribute, most frequent first (ties by value).
pub fn frequencies<C: Columns>(index: &Index<C>, attr: usize) -> Vec<(String, u64)> {
    let a = &index.attributes[attr];
    let mut rows: Vec<(String, u64)> = a
        .lexicon
        .iter()
        .map(|(id, v)| (v.to_string(), a.frequency(id)))
        .filter(|(_, f)| *f > 0)
        .collect();
    sort_rows(&mut rows);
    rows
}

/// Occurrences of each hit's values of `attr` (a multi-token hit's values joined by a space).
pub fn hit_frequencies<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    attr: usize,
) -> Result<Vec<(String, u64)>, ColumnError> {
    let mut counts: FxHashMap<String, u64> = FxHashMap::default();
    for h in hits {
        let value = index.values(attr, h.start..h.end)?.join(" ");
        *counts.entry(value).or_default() += 1;
    }
    let mut rows: Vec<(String, u64)> = counts.into_iter().collect();
    sort_rows(&mut rows);
    Ok(rows)
}

fn sort_rows(rows: &mut [(String, u64)]) {
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

/// An association measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// logDice.
    LogDice,
    /// Mutual information.
    Mi,
    /// t-score.
    T,
    /// Log-likelihood (G²).
    Ll,
}

impl Measure {
    /// By name: `logdice`, `mi`, `t`, `ll`.
    pub fn from_name(name: &str) -> Option<Measure> {
        Some(match name {
            "logdice" => Measure::LogDice,
            "mi" => Measure::Mi,
            "t" => Measure::T,
            "ll" => Measure::Ll,
            _ => return None,
        })
    }
}

/// One collocate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Collocate {
    /// Its value.
    pub value: String,
    /// f_xy: occurrences in the windows.
    pub together: u64,
    /// f_y: corpus frequency.
    pub frequency: u64,
    /// logDice.
    pub logdice: f64,
    /// MI.
    pub mi: f64,
    /// t-score.
    pub t: f64,
    /// Log-likelihood.
    pub ll: f64,
}

/// The counts behind every measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    /// f_xy.
    pub together: u64,
    /// f_x (hits of the node).
    pub node: u64,
    /// f_y.
    pub frequency: u64,
    /// W: token slots in all windows.
    pub window: u64,
    /// N.
    pub corpus: u64,
}

impl Counts {
    /// logDice.
    pub fn logdice(&self) -> f64 {
        14.0 + (2.0 * self.together as f64 / (self.node + self.frequency).max(1) as f64).log2()
    }

    fn expected(&self) -> f64 {
        self.frequency as f64 * self.window as f64 / self.corpus.max(1) as f64
    }

    /// MI.
    pub fn mi(&self) -> f64 {
        let e = self.expected();
        if self.together == 0 || e <= 0.0 {
            return 0.0;
        }
        (self.together as f64 / e).log2()
    }

    /// t-score.
    pub fn t(&self) -> f64 {
        if self.together == 0 {
            return 0.0;
        }
        (self.together as f64 - self.expected()) / (self.together as f64).sqrt()
    }

    /// Log-likelihood (G²).
    pub fn ll(&self) -> f64 {
        let n = self.corpus as f64;
        let o11 = self.together as f64;
        let o12 = (self.window as f64 - o11).max(0.0);
        let o21 = (self.frequency as f64 - o11).max(0.0);
        let o22 = (n - self.window as f64 - o21).max(0.0);
        g2(&[[o11, o12], [o21, o22]])
    }
}

/// G² of a 2 × 2 table.
fn g2(o: &[[f64; 2]; 2]) -> f64 {
    let n: f64 = o.iter().flatten().sum();
    if n <= 0.0 {
        return 0.0;
    }
    let rows = [o[0][0] + o[0][1], o[1][0] + o[1][1]];
    let cols = [o[0][0] + o[1][0], o[0][1] + o[1][1]];
    let mut sum = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            let e = rows[i] * cols[j] / n;
            if o[i][j] > 0.0 && e > 0.0 {
                sum += o[i][j] * (o[i][j] / e).ln();
            }
        }
    }
    2.0 * sum
}

/// What `collocations` counts and keeps.
pub struct CollocOptions<'q, 'i, C> {
    /// Tokens before and after each hit.
    pub window: (u32, u32),
    /// Keep the window inside the hit's region of this kind too (e.g. `s`).
    pub within: Option<&'q str>,
    /// The score rows are sorted by.
    pub measure: Measure,
    /// Least f_xy for a collocate to be listed.
    pub min_together: u64,
    /// Least f_y (its corpus frequency, among the tokens the filter keeps).
    pub min_frequency: u64,
    /// A one-token query ([`Search::holds_over`]) a window token must satisfy to count as a
    /// collocate (`[pos="NOUN|ADJ|VERB"]`); f_y then counts only the tokens it keeps.
    pub filter: Option<&'q Search<'i, C>>,
}

/// The collocates of `hits` on attribute `attr` within the window before and after each hit
/// (the hit itself excluded), inside the hit's `text` region (and inside the hit's region of
/// kind `within`, e.g. `s`, when given); sorted by the measure, best first.
pub fn collocations<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    attr: usize,
    options: &CollocOptions<'_, '_, C>,
) -> Result<Vec<Collocate>, QueryError> {
    let keeps = |range: std::ops::Range<u32>| -> Result<Vec<bool>, QueryError> {
        match options.filter {
            None => Ok(vec![true; range.len()]),
            Some(f) => f.holds_over(range).unwrap_or(Err(QueryError::NotOneToken)),
        }
    };
    let (together, window) = window_counts(index, hits, attr, options, &keeps)?;
    let a = &index.attributes[attr];
    let frequency = match options.filter {
        None => (0..a.lexicon.len() as u32)
            .map(|id| a.frequency(id))
            .collect(),
        Some(_) => kept_frequencies(index, attr, &keeps)?,
    };
    let mut rows: Vec<Collocate> = together
        .iter()
        .enumerate()
        .filter(|&(id, &f)| {
            f > 0 && f >= options.min_together && frequency[id] >= options.min_frequency
        })
        .map(|(id, &f)| {
            let c = Counts {
                together: f,
                node: hits.len() as u64,
                frequency: frequency[id],
                window,
                corpus: u64::from(index.n_tokens),
            };
            Collocate {
                value: a.lexicon.get(id as u32).to_string(),
                together: f,
                frequency: c.frequency,
                logdice: c.logdice(),
                mi: c.mi(),
                t: c.t(),
                ll: c.ll(),
            }
        })
        .collect();
    let score = |c: &Collocate| match options.measure {
        Measure::LogDice => c.logdice,
        Measure::Mi => c.mi,
        Measure::T => c.t,
        Measure::Ll => c.ll,
    };
    rows.sort_by(|a, b| {
        score(b)
            .total_cmp(&score(a))
            .then_with(|| a.value.cmp(&b.value))
    });
    Ok(rows)
}

/// f_xy of every value of `attr` and W: the window positions of `hits` counted once each
/// (those `keeps` keeps).
fn window_counts<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    attr: usize,
    options: &CollocOptions<'_, '_, C>,
    keeps: &dyn Fn(std::ops::Range<u32>) -> Result<Vec<bool>, QueryError>,
) -> Result<(Vec<u64>, u64), QueryError> {
    let (left, right) = options.window;
    let text = index.region("text");
    let bound = options.within.and_then(|w| index.region(w));
    let mut together = vec![0u64; index.attributes[attr].lexicon.len()];
    let mut window = 0u64;
    let mut count = |id: u32| {
        if let Some(slot) = together.get_mut(id as usize) {
            *slot += 1;
            window += 1;
        }
    };
    // Hits come in corpus order: positions before `counted` were in an earlier window. An
    // earlier hit's own positions were left out of its window, not counted: they wait in
    // `waiting` for a later hit whose window covers them (so a collocate that is itself a
    // hit counts on both sides of the node).
    let mut counted = 0u32;
    let mut waiting: Vec<u32> = Vec::new();
    let mut still: Vec<u32> = Vec::new();
    for h in hits {
        let mut lo = h.start.saturating_sub(left);
        let mut hi = h.end.saturating_add(right).min(index.n_tokens);
        for r in [text, bound].into_iter().flatten() {
            if let Some(i) = r.find(h.start) {
                lo = lo.max(r.starts[i]);
                hi = hi.min(r.ends[i]);
            }
        }
        let hi = hi.max(h.end);
        let lo = lo.min(hi);
        // The whole window read once: new positions and waiting ones both come from it.
        let ids = index.ids(attr, lo..hi)?;
        let kept = keeps(lo..hi)?;
        let outside_hit = |p: u32| p < h.start || p >= h.end;
        // Window starts never move back: a waiting position before this one's stays out.
        still.clear();
        for &p in &waiting {
            if p < lo {
                continue;
            }
            if p < hi && outside_hit(p) {
                if kept[(p - lo) as usize] {
                    count(ids[(p - lo) as usize]);
                }
            } else {
                still.push(p);
            }
        }
        std::mem::swap(&mut waiting, &mut still);
        for pos in lo.max(counted)..hi {
            let k = (pos - lo) as usize;
            if outside_hit(pos) {
                if kept[k] {
                    count(ids[k]);
                }
            } else {
                waiting.push(pos);
            }
        }
        counted = counted.max(hi);
    }
    Ok((together, window))
}

/// The frequency of each value of `attr` among the positions `keeps` keeps (one pass over
/// the corpus, a block at a time).
pub fn kept_frequencies<C: Columns>(
    index: &Index<C>,
    attr: usize,
    keeps: &dyn Fn(std::ops::Range<u32>) -> Result<Vec<bool>, QueryError>,
) -> Result<Vec<u64>, QueryError> {
    let mut frequency = vec![0u64; index.attributes[attr].lexicon.len()];
    const BLOCK: u32 = 1 << 16;
    let mut start = 0u32;
    while start < index.n_tokens {
        let end = start.saturating_add(BLOCK).min(index.n_tokens);
        let kept = keeps(start..end)?;
        for (id, keep) in index.ids(attr, start..end)?.into_iter().zip(kept) {
            if keep && let Some(f) = frequency.get_mut(id as usize) {
                *f += 1;
            }
        }
        start = end;
    }
    Ok(frequency)
}

/// One keyword of a focus corpus against a reference.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Keyword {
    /// The value.
    pub value: String,
    /// Frequency in the focus corpus.
    pub focus: u64,
    /// Frequency in the reference.
    pub reference: u64,
    /// Simple maths score.
    pub score: f64,
    /// Log-likelihood.
    pub ll: f64,
    /// Log Ratio (effect size, in binary orders of magnitude).
    pub log_ratio: f64,
}

/// The keywords of `focus` (value, frequency; `n_focus` tokens) against `reference`
/// (`n_reference` tokens), by simple maths with smoothing `n`, best first; values seen fewer
/// than `min_focus` times in the focus corpus are left out.
pub fn keywords(
    focus: &[(String, u64)],
    n_focus: u64,
    reference: &FxHashMap<String, u64>,
    n_reference: u64,
    n: f64,
    min_focus: u64,
) -> Vec<Keyword> {
    let (nf, nr) = (n_focus.max(1) as f64, n_reference.max(1) as f64);
    let mut rows: Vec<Keyword> = focus
        .iter()
        .filter(|(_, f)| *f >= min_focus.max(1))
        .map(|(value, f)| {
            let r = reference.get(value).copied().unwrap_or(0);
            let (a, b) = (*f as f64, r as f64);
            let score = (a / nf * 1e6 + n) / (b / nr * 1e6 + n);
            let ll = g2(&[[a, b], [(nf - a).max(0.0), (nr - b).max(0.0)]]);
            let log_ratio = ((a.max(0.5) / nf) / (b.max(0.5) / nr)).log2();
            Keyword {
                value: value.clone(),
                focus: *f,
                reference: r,
                score,
                ll,
                log_ratio,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.value.cmp(&b.value))
    });
    rows
}
