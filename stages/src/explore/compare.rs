//! Comparing corpora: how alike two word distributions are, how much two sets overlap, how
//! varied a corpus's vocabulary is and how concentrated its sources — the figures of
//! `glaneur compare` and of a batch's cross-topic table.
//!
//! **In:** frequency lists (value, count) with their corpus sizes in words; sets of strings
//! (URLs, hosts); a stream of word ids in corpus order; counts per source.
//!
//! **Out:** numbers, with their formulas:
//! - **corpus similarity**, Kilgarriff's χ² ("Comparing Corpora", *International Journal of
//!   Corpus Linguistics* 6(1), 2001): the `n` most frequent words of the two corpora joined
//!   (ranked by the sum of their relative frequencies, so that the larger corpus does not
//!   choose them alone); each corpus's counts of those words scaled to the size of the smaller
//!   corpus (`o = f · m / N`, `m = min(N_A, N_B)`), so that a pair of large corpora and a pair
//!   of small ones with the same proportions score alike; `χ² = Σ (o_A − e)²/e + (o_B − e)²/e`
//!   with `e = (o_A + o_B)/2`; reported with `χ²/df` (df = n − 1), Kilgarriff's "CBDF". Zero
//!   for identical proportions; the larger, the less alike;
//! - **Jaccard** index `|A ∩ B| / |A ∪ B|` (0 when both are empty);
//! - **standardised type/token ratio** (STTR, as WordSmith Tools computes it): the mean of
//!   the type/token ratios of consecutive segments of `segment` running words, the last,
//!   incomplete segment left out; none when the corpus has no full segment;
//! - **concentration**, the Herfindahl–Hirschman index `Σ (c_i / C)²` of counts per source
//!   (1 when one source gave everything, `1/k` for `k` equal sources), with its inverse, the
//!   effective number of sources.
//!
//! **Invariants:** never panics and never returns NaN; the same inputs in any order give the
//! same figures (ties are broken by value).

use rustc_hash::FxHashSet;

/// Kilgarriff's χ² between two corpora.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Similarity {
    /// χ² over the words compared.
    pub chi2: f64,
    /// Degrees of freedom: words compared − 1.
    pub df: u64,
    /// `chi2 / df` (0 when fewer than two words were compared).
    pub chi2_per_df: f64,
    /// Words compared.
    pub words: usize,
}

/// Kilgarriff's χ² between corpus A (`a`: counts of its words, `n_a` words in all) and
/// corpus B, on the `top` most frequent words of the two joined (see the module's formula).
/// A word listed twice in one list counts once with the counts added.
pub fn kilgarriff(
    a: &[(String, u64)],
    n_a: u64,
    b: &[(String, u64)],
    n_b: u64,
    top: usize,
) -> Similarity {
    let empty = Similarity {
        chi2: 0.0,
        df: 0,
        chi2_per_df: 0.0,
        words: 0,
    };
    if n_a == 0 || n_b == 0 || top == 0 {
        return empty;
    }
    let mut joined: rustc_hash::FxHashMap<&str, (u64, u64)> = rustc_hash::FxHashMap::default();
    for (value, f) in a {
        joined.entry(value).or_default().0 += f;
    }
    for (value, f) in b {
        joined.entry(value).or_default().1 += f;
    }
    let (na, nb) = (n_a as f64, n_b as f64);
    let mut ranked: Vec<(&str, f64, f64)> = joined
        .into_iter()
        .map(|(value, (fa, fb))| (value, fa as f64, fb as f64))
        .collect();
    ranked.sort_by(|x, y| {
        (y.1 / na + y.2 / nb)
            .total_cmp(&(x.1 / na + x.2 / nb))
            .then_with(|| x.0.cmp(y.0))
    });
    ranked.truncate(top);
    let m = na.min(nb);
    let chi2: f64 = ranked
        .iter()
        .map(|&(_, fa, fb)| {
            let (oa, ob) = (fa * m / na, fb * m / nb);
            // (oa − e)²/e + (ob − e)²/e with e = (oa + ob)/2 is (oa − ob)²/(oa + ob).
            if oa + ob > 0.0 {
                (oa - ob).powi(2) / (oa + ob)
            } else {
                0.0
            }
        })
        .sum();
    let words = ranked.len();
    let df = words.saturating_sub(1) as u64;
    Similarity {
        chi2,
        df,
        chi2_per_df: if df > 0 { chi2 / df as f64 } else { 0.0 },
        words,
    }
}

/// The members two sets share, and their Jaccard index.
pub fn overlap(a: &FxHashSet<String>, b: &FxHashSet<String>) -> (usize, f64) {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let both = small.iter().filter(|x| large.contains(*x)).count();
    let either = a.len() + b.len() - both;
    let jaccard = if either == 0 {
        0.0
    } else {
        both as f64 / either as f64
    };
    (both, jaccard)
}

/// Jaccard index of two sets.
pub fn jaccard(a: &FxHashSet<String>, b: &FxHashSet<String>) -> f64 {
    overlap(a, b).1
}

/// Standardised type/token ratio of the running words `words` (any ids standing for word
/// types) over segments of `segment` words; `None` without one full segment.
pub fn sttr(words: impl IntoIterator<Item = u32>, segment: usize) -> Option<f64> {
    if segment == 0 {
        return None;
    }
    let mut seen: FxHashSet<u32> = FxHashSet::default();
    let (mut in_segment, mut segments, mut sum) = (0usize, 0u64, 0.0f64);
    for id in words {
        seen.insert(id);
        in_segment += 1;
        if in_segment == segment {
            sum += seen.len() as f64 / segment as f64;
            segments += 1;
            seen.clear();
            in_segment = 0;
        }
    }
    (segments > 0).then(|| sum / segments as f64)
}

/// Herfindahl–Hirschman index of counts per source (0 when there is nothing).
pub fn concentration(counts: impl IntoIterator<Item = u64>) -> f64 {
    let counts: Vec<u64> = counts.into_iter().collect();
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return 0.0;
    }
    counts
        .iter()
        .map(|&c| (c as f64 / total as f64).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(words: &[(&str, u64)]) -> Vec<(String, u64)> {
        words.iter().map(|(w, f)| (w.to_string(), *f)).collect()
    }

    #[test]
    fn identical_proportions_score_zero_whatever_the_sizes() {
        let a = list(&[("le", 50), ("chat", 30), ("dort", 20)]);
        let b = list(&[("le", 500), ("chat", 300), ("dort", 200)]);
        let s = kilgarriff(&a, 100, &b, 1000, 500);
        assert_eq!(s.words, 3);
        assert_eq!(s.df, 2);
        assert!(s.chi2.abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn chi2_by_hand() {
        // Equal sizes (100 words each): words x (40 vs 20) and y (10 vs 30).
        let a = list(&[("x", 40), ("y", 10)]);
        let b = list(&[("x", 20), ("y", 30)]);
        let s = kilgarriff(&a, 100, &b, 100, 10);
        // (40−20)²/60 + (10−30)²/40 = 6.667 + 10 = 16.667
        assert!((s.chi2 - 16.6667).abs() < 1e-3, "{s:?}");
        assert_eq!(s.df, 1);
        // Only the most frequent joined word: x.
        let one = kilgarriff(&a, 100, &b, 100, 1);
        assert_eq!(one.words, 1);
        assert!((one.chi2 - 400.0 / 60.0).abs() < 1e-9);
        assert_eq!(one.chi2_per_df, 0.0);
    }

    #[test]
    fn the_larger_corpus_does_not_pick_the_words_alone() {
        // "b-only" is frequent in absolute terms only because B is large.
        let a = list(&[("a-only", 60), ("both", 40)]);
        let b = list(&[("b-only", 200), ("both", 800)]);
        let s = kilgarriff(&a, 100, &b, 1000, 2);
        // Relative: a-only 0.6, both 0.4 + 0.8 = 1.2, b-only 0.2 → both and a-only.
        // m = 100: a-only 60 vs 0 → 60; both 40 vs 80 → 1600/120.
        assert!((s.chi2 - (60.0 + 1600.0 / 120.0)).abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn empty_corpora_and_empty_sets() {
        assert_eq!(kilgarriff(&[], 0, &[], 0, 10).words, 0);
        let none = FxHashSet::default();
        assert_eq!(jaccard(&none, &none), 0.0);
        assert_eq!(sttr([], 1000), None);
        assert_eq!(concentration([]), 0.0);
    }

    #[test]
    fn jaccard_counts_shared_members() {
        let set = |v: &[&str]| {
            v.iter()
                .map(|s| s.to_string())
                .collect::<FxHashSet<String>>()
        };
        assert!((jaccard(&set(&["a", "b", "c"]), &set(&["b", "c", "d"])) - 0.5).abs() < 1e-12);
        assert_eq!(jaccard(&set(&["a"]), &set(&["a"])), 1.0);
        assert_eq!(overlap(&set(&["a", "b", "c"]), &set(&["b", "c", "d"])).0, 2);
    }

    #[test]
    fn sttr_averages_full_segments_only() {
        // Segment 1: 1 2 1 2 → 2/4; segment 2: 3 4 5 6 → 4/4; the last two words are left out.
        let words = [1, 2, 1, 2, 3, 4, 5, 6, 7, 7];
        assert_eq!(sttr(words, 4), Some(0.75));
        assert_eq!(sttr(words, 11), None);
    }

    #[test]
    fn concentration_of_equal_and_single_sources() {
        assert!((concentration([5, 5, 5, 5]) - 0.25).abs() < 1e-12);
        assert_eq!(concentration([7]), 1.0);
        assert_eq!(concentration([0, 3]), 1.0);
    }
}
