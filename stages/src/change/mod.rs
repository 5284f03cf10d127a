//! How often pages change: change-rate estimators and revisit schedules, for the monitor that
//! revisits the pages of a crawl (Cho & Garcia-Molina, "Estimating frequency of change", ACM
//! TOIT 3(3), 2003; Nutch's AdaptiveFetchSchedule).
//!
//! **In:** what a monitor saw at each visit of a page (time, whether the content changed,
//! the Last-Modified header), and uniform numbers drawn by the caller for random schedules.
//!
//! **Out:** rate estimates with 95 % intervals ([`estimate`]), the next visit's delay
//! ([`schedule`]), and [`spearman`] to compare estimated with known rates.
//!
//! **Invariants:** pure (no clock: times are numbers the caller passes; no randomness source)
//! and total (no input panics). Uses no other group.

pub mod estimate;
pub mod schedule;

#[cfg(test)]
mod tests;

/// The ranks of `values` (1-based), tied values sharing their average rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Positions start..end hold ranks start+1..=end: their mean.
        let rank = (start + end + 1) as f64 / 2.0;
        for &k in &order[start..end] {
            ranks[k] = rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's rank correlation of the pairs `(a[i], b[i])`: the Pearson correlation of their
/// ranks, ties getting their average rank. Pairs with a NaN are left out. NaN when the slices
/// differ in length, fewer than two pairs remain, or one side is constant (no ranking to
/// compare).
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::NAN;
    }
    let (a, b): (Vec<f64>, Vec<f64>) = a
        .iter()
        .zip(b)
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .map(|(&x, &y)| (x, y))
        .unzip();
    if a.len() < 2 {
        return f64::NAN;
    }
    let (ra, rb) = (ranks(&a), ranks(&b));
    // Both rank vectors have the mean (n + 1)/2.
    let mean = (a.len() + 1) as f64 / 2.0;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        let (dx, dy) = (x - mean, y - mean);
        cov += dx * dy;
        va += dx * dx;
        vb += dy * dy;
    }
    if va == 0.0 || vb == 0.0 {
        return f64::NAN;
    }
    cov / (va * vb).sqrt()
}
