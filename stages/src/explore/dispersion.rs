//! Dispersion: how evenly a value's occurrences spread over the corpus, beside its frequency.
//!
//! **In:** the corpus size N, its parts (the documents: `text` regions), each value's frequency
//! f, then every occurrence (value, position) in corpus order.
//!
//! **Out:** per value, three measures:
//! - **DP** (Gries 2008, "deviation of proportions"): `0.5 · Σ_i |v_i / f − s_i|` over the
//!   parts, v_i the value's occurrences in part i, s_i the part's share of the corpus's tokens;
//!   0 when the value is spread exactly as the text is, towards 1 when it sits in one small part;
//! - **ARF** (Savický & Hlaváčová 2002, average reduced frequency): `(1/v) · Σ_j min(d_j, v)`
//!   with v = N / f and d_j the distances between consecutive occurrences, the corpus read as a
//!   circle (the last occurrence to the first); f when the value is evenly spaced, towards 1
//!   when its occurrences are bunched;
//! - **Juilland's D** (1964), with parts of unequal size: p_i = v_i / size_i, `1 − (σ / μ) /
//!   √(n − 1)` with μ and σ the mean and (population) standard deviation of the p_i over the n
//!   parts; 1 when even, 0 when in one part (1 when the corpus is one part).
//!
//! **Invariants:** one pass in corpus order, memory per value constant (five numbers); never
//! NaN: a value that never occurs gets DP 1, ARF 0, D 0.

use rustc_hash::FxHashMap;

/// The dispersion of one value.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Dispersion {
    /// Gries' deviation of proportions.
    pub dp: f64,
    /// Average reduced frequency.
    pub arf: f64,
    /// Juilland's D.
    pub juilland_d: f64,
}

/// Running sums of one value.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    seen: u64,
    first: u32,
    last: u32,
    reduced: f64,
    dp_deviation: f64,
    dp_share: f64,
    p: f64,
    p2: f64,
}

/// The dispersions of values 0..freq.len(), fed their occurrences in corpus order.
pub struct Dispersions<'a> {
    n_tokens: u64,
    parts: &'a [(u32, u32)],
    freq: &'a [u64],
    sums: Vec<Sums>,
    part: usize,
    in_part: FxHashMap<usize, u64>,
    /// Tokens inside the parts.
    covered: f64,
}

impl<'a> Dispersions<'a> {
    /// `parts`: the documents (start, end), in order, not overlapping; `freq[k]`: how many
    /// occurrences of value k will be fed.
    pub fn new(n_tokens: u64, parts: &'a [(u32, u32)], freq: &'a [u64]) -> Dispersions<'a> {
        Dispersions {
            n_tokens,
            parts,
            freq,
            sums: vec![Sums::default(); freq.len()],
            part: 0,
            in_part: FxHashMap::default(),
            covered: parts
                .iter()
                .map(|&(a, b)| f64::from(b.saturating_sub(a)))
                .sum(),
        }
    }

    /// One occurrence of `value` at `pos` (positions never go back).
    pub fn add(&mut self, value: usize, pos: u32) {
        let Some(f) = self.freq.get(value).copied().filter(|&f| f > 0) else {
            return;
        };
        let spacing = self.n_tokens as f64 / f as f64;
        let s = &mut self.sums[value];
        if s.seen == 0 {
            s.first = pos;
        } else {
            s.reduced += f64::from(pos - s.last).min(spacing);
        }
        s.seen += 1;
        s.last = pos;
        while self
            .parts
            .get(self.part)
            .is_some_and(|&(_, end)| pos >= end)
        {
            self.close_part();
            self.part += 1;
        }
        if self
            .parts
            .get(self.part)
            .is_some_and(|&(start, _)| pos >= start)
        {
            *self.in_part.entry(value).or_default() += 1;
        }
    }

    /// Folds the current part's counts into the sums.
    fn close_part(&mut self) {
        let Some(&(start, end)) = self.parts.get(self.part) else {
            return;
        };
        let size = f64::from(end.saturating_sub(start));
        let share = size / self.covered.max(1.0);
        for (value, count) in self.in_part.drain() {
            let f = self.freq[value] as f64;
            let s = &mut self.sums[value];
            let count = count as f64;
            s.dp_deviation += (count / f - share).abs();
            s.dp_share += share;
            if size > 0.0 {
                s.p += count / size;
                s.p2 += (count / size).powi(2);
            }
        }
    }

    /// The dispersion of every value.
    pub fn finish(mut self) -> Vec<Dispersion> {
        self.close_part();
        let n_parts = self.parts.iter().filter(|(a, b)| b > a).count() as f64;
        let n = self.n_tokens as f64;
        self.sums
            .iter()
            .zip(self.freq)
            .map(|(s, &f)| {
                if s.seen == 0 || f == 0 {
                    return Dispersion {
                        dp: 1.0,
                        arf: 0.0,
                        juilland_d: 0.0,
                    };
                }
                let spacing = n / f as f64;
                // The circle closes: from the last occurrence round to the first.
                let wrap = n - f64::from(s.last) + f64::from(s.first);
                let arf = (s.reduced + wrap.min(spacing)) / spacing;
                // Parts without the value add their share to the deviation.
                let dp = 0.5 * (s.dp_deviation + (1.0 - s.dp_share).max(0.0));
                let juilland_d = if n_parts <= 1.0 {
                    1.0
                } else {
                    let mean = s.p / n_parts;
                    let sd = (s.p2 / n_parts - mean * mean).max(0.0).sqrt();
                    if mean > 0.0 {
                        (1.0 - (sd / mean) / (n_parts - 1.0).sqrt()).clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                };
                Dispersion {
                    dp: dp.clamp(0.0, 1.0),
                    arf,
                    juilland_d,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three documents: "a b a c" (4 tokens), "b b" (2), "a d c d" (4); N = 10.
    fn corpus() -> (Vec<(u32, u32)>, Vec<usize>) {
        // a = 0, b = 1, c = 2, d = 3
        (
            vec![(0, 4), (4, 6), (6, 10)],
            vec![0, 1, 0, 2, 1, 1, 0, 3, 2, 3],
        )
    }

    fn measure() -> Vec<Dispersion> {
        let (parts, tokens) = corpus();
        let mut freq = vec![0u64; 4];
        for &t in &tokens {
            freq[t] += 1;
        }
        let mut d = Dispersions::new(10, &parts, &freq);
        for (pos, &t) in tokens.iter().enumerate() {
            d.add(t, pos as u32);
        }
        d.finish()
    }

    #[test]
    fn dp_arf_and_d_equal_their_values_computed_by_hand() {
        let m = measure();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // a: f = 3 at 0, 2, 6; v_i = (2, 0, 1), s_i = (0.4, 0.2, 0.4).
        // DP = 0.5 (|2/3 − 0.4| + |0 − 0.2| + |1/3 − 0.4|) = 0.5 · 0.5333… = 0.2666…
        assert!(close(
            m[0].dp,
            0.5 * (2.0 / 3.0 - 0.4 + 0.2 + (0.4 - 1.0 / 3.0))
        ));
        // ARF: v = 10/3; distances 2, 4 and round the circle 10 − 6 + 0 = 4:
        // (2 + 10/3 + 10/3) / (10/3) = 2.6.
        assert!(close(m[0].arf, 2.6), "{}", m[0].arf);
        // D: p = (2/4, 0, 1/4), μ = 0.25, σ = √((0.0625 + 0.0625 + 0) / 3), D = 1 − (σ/μ)/√2.
        let sd = (0.125f64 / 3.0).sqrt();
        assert!(close(m[0].juilland_d, 1.0 - (sd / 0.25) / 2f64.sqrt()));
        // b: at 1, 4, 5 (v = (1, 2, 0)); d: only in the last document, at 7 and 9.
        // DP(d) = 0.5 (|0 − 0.4| + |0 − 0.2| + |1 − 0.4|) = 0.6.
        assert!(close(m[3].dp, 0.6), "{}", m[3].dp);
        // ARF(d): v = 5, distances 2 and 10 − 9 + 7 = 8 → (2 + 5) / 5 = 1.4.
        assert!(close(m[3].arf, 1.4), "{}", m[3].arf);
        // D(d): p = (0, 0, 0.5): μ = 1/6, σ = √(0.25/3 − 1/36), V = σ/μ = √2 → D = 0.
        assert!(close(m[3].juilland_d, 0.0), "{}", m[3].juilland_d);
    }

    #[test]
    fn an_evenly_spread_value_scores_even_and_one_part_is_even() {
        // x at every other position of two equal parts: DP 0, ARF = f, D 1.
        let parts = [(0, 4), (4, 8)];
        let freq = [4u64, 4];
        let mut d = Dispersions::new(8, &parts, &freq);
        for pos in 0..8u32 {
            d.add((pos % 2) as usize, pos);
        }
        let m = d.finish();
        assert!(m[0].dp.abs() < 1e-9 && (m[0].arf - 4.0).abs() < 1e-9);
        assert!((m[0].juilland_d - 1.0).abs() < 1e-9);
        // One part: D is 1, DP 0 (nothing to be uneven across).
        let parts = [(0, 8)];
        let mut d = Dispersions::new(8, &parts, &freq);
        for pos in 0..8u32 {
            d.add((pos % 2) as usize, pos);
        }
        let m = d.finish();
        assert_eq!((m[1].dp, m[1].juilland_d), (0.0, 1.0));
        // A value never fed: no NaN.
        let d = Dispersions::new(8, &parts, &[0]);
        assert_eq!(
            d.finish()[0],
            Dispersion {
                dp: 1.0,
                arf: 0.0,
                juilland_d: 0.0
            }
        );
    }
}
