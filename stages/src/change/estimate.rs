//! Change-rate estimators: how often a page changes, from what a monitor saw on its visits
//! (Cho & Garcia-Molina, "Estimating frequency of change", ACM TOIT 3(3), 2003; "the paper").
//!
//! **In:** the intervals between consecutive visits of one page ([`Interval`]: length in
//! seconds, whether the content changed, and the age of the page's Last-Modified date at the
//! visit when the server gives one), or of all pages of a host ([`pooled`]).
//!
//! **Out:** an [`Estimate`]: a rate in changes per second, a 95 % interval, the [`Method`]
//! used, the counts behind it. [`choose`] picks the estimator that fits the data; [`naive`],
//! [`bias_reduced`], [`mle`] and [`last_modified`] can be called alone (to print the naive
//! estimate's bias beside the chosen one).
//!
//! **Invariants:** pure and total: never panics, whatever the input. An interval whose length
//! is not finite or not positive carries no information and is skipped (it counts in no `n`);
//! a Last-Modified age that is not finite counts as missing, and one outside `[0, length]` is
//! clamped into it (a change seen at a visit happened after the previous visit, so its age
//! cannot exceed the interval; a negative age is clock skew). Every estimate has
//! `0 ≤ low ≤ rate ≤ high`, with `rate` and `low` finite; `high` is `+∞` when the data bound
//! the rate only from below (no usable interval, or every interval saw a change).
//!
//! # Model and estimators
//!
//! A page changes as a Poisson process of rate λ. Over `n` intervals `I_i` (total
//! `T = Σ I_i`) the monitor saw `X` intervals with a change.
//!
//! * **Naive** (the paper's "naive estimator"): `λ̂ = X/T`. It counts at most one change per interval, so it
//!   underestimates: `E[λ̂]/λ = (1 − e^{−x})/x` at `x = λI` (−37 %, −57 %, −75 % at `x` = 1, 2,
//!   4). Interval: the Poisson count interval on `X` (below) over `T`, i.e. the interval of the
//!   naive model itself, which wrongly assumes every change was seen.
//! * **Bias-reduced** (the paper's improved estimator, regular intervals `I`): `λ̂ = −ln((n − X + ½)/(n + ½))/I`.
//!   The plain maximum-likelihood `−ln(1 − X/n)/I` is infinite at `X = n` and biased upwards;
//!   the half-counts keep it finite (`ln(2n + 1)/I` at `X = n`) and nearly unbiased while
//!   `x ≲ 2.5`; above, `X = n` becomes likely and the cap `ln(2n + 1)` pulls the mean down
//!   (−16 % at `x = 4`, `n = 20`): no change/no-change estimator can tell `x = 4` from
//!   `x = 40` at `n = 20`, which is why the scheduler aims at `x ≈ 1.6`. Interval: the Wilson
//!   score interval `[p₋, p₊]` on `p = X/n` (Wilson 1927), mapped through `λ = −ln(1 − p)/I`.
//! * **Maximum likelihood** (the paper's estimator for irregular access): the log-likelihood
//!   `ℓ(λ) = Σ_changed ln(1 − e^{−λ t_i}) − λ Σ_unchanged t_j` is concave, and the root of
//!   `ℓ'(λ) = 0`, `Σ_changed t_i/(e^{λ t_i} − 1) = Σ_unchanged t_j`, is unique, found by Newton's method in
//!   `ln λ` safeguarded by bisection inside the bracket
//!   `[X/(U + C/2), X/U]` (`U` the unchanged time, `C` the changed time; from
//!   `1/λ − t/2 ≤ t/(e^{λt} − 1) ≤ 1/λ`). `X = 0` gives 0. `X = n` has no finite maximum: the
//!   bias-reduced value with the mean interval is reported instead, with [`Method::BiasReduced`]
//!   and `saturated` set. The likelihood does not depend on how the visit times were chosen
//!   as long as each depends only on what was seen before, so the estimator stays valid under
//!   the adaptive schedule of [`super::schedule`]. Interval: from the observed Fisher
//!   information `J = Σ_changed t_i² e^{λ̂ t_i}/(e^{λ̂ t_i} − 1)²` on the log scale,
//!   `exp(ln λ̂ ± 1.96/(λ̂ √J))` (positive, and closer to the skewed truth than `λ̂ ± 1.96/√J`);
//!   at `λ̂ = 0`, `[0, −ln(1 − p₊)/Ī]` with the Wilson upper bound `p₊` for `X = 0` and the
//!   mean interval `Ī`.
//! * **Last-modified** (the paper's estimator with last-modified dates, bias-reduced form): when the server's Last-Modified date can
//!   be trusted, a changed interval tells when the last change happened: the time back from
//!   the visit to the last change is an exponential variable censored at the interval. With
//!   `T = Σ (changed ? age_i : I_i)`, `λ̂ = (X − 1 − X/(n ln(1 − X/n)))/T`; the last term tends
//!   to 0 at `X = n` (`λ̂ = (X − 1)/T`) and to `−1` at `X → 0` (`λ̂ = 0`), and `λ̂ ≥ X − 1 ≥ 0`
//!   since `p/(−ln(1 − p)) ∈ (0, 1]`. Nearly unbiased at any `x` (the simulation in the tests:
//!   within 1 % at `x` = 1, 2, 4), since every change is dated, not only detected. At `X = 1`,
//!   `n = 1` it gives 0 (`(X − 1)/T` is the unbiased estimate of a Poisson rate from one
//!   event). Interval: the Poisson count interval on `X` over `T` (exposure treated as fixed).
//!
//! The Poisson count interval on `X` is the exact (Garwood 1936) interval: the means `m` with
//! `P(K ≥ X | m) = 2.5 %` and `P(K ≤ X | m) = 2.5 %` (`[0, −ln 0.025]` at `X = 0`), found by
//! bisection on the Poisson distribution function up to `X = 100`; above, Byar's approximation
//! `[X (1 − 1/(9X) − z/(3√X))³, (X + 1)(1 − 1/(9(X + 1)) + z/(3√(X + 1)))³]` (Breslow & Day,
//! *Statistical methods in cancer research* II, 1987), within 0.01 % of it there (but 48 % off
//! the lower bound at `X = 1`, hence the exact bounds for small counts).

/// The standard normal quantile of a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Intervals are "regular" when every length is within this fraction of their mean: the
/// bias-reduced estimator assumes one common interval.
pub const REGULAR_TOLERANCE: f64 = 0.01;

/// One interval between two consecutive visits of a page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Seconds between the two visits `a_{i−1}` and `a_i`.
    pub length: f64,
    /// Whether the content seen at `a_i` differs from the content seen at `a_{i−1}`.
    pub changed: bool,
    /// `a_i − lm_i`: seconds from the page's Last-Modified date to the visit `a_i`, when the
    /// server sent one.
    pub last_modified_age: Option<f64>,
}

/// Which estimator produced an [`Estimate`] (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `X/T`.
    Naive,
    /// `−ln((n − X + ½)/(n + ½))/I`, regular intervals (or the mean interval when the
    /// maximum-likelihood estimate does not exist).
    BiasReduced,
    /// The maximum-likelihood estimate for irregular intervals.
    MaximumLikelihood,
    /// The bias-reduced Last-Modified estimator.
    LastModified,
}

impl Method {
    /// The name written in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Method::Naive => "naive",
            Method::BiasReduced => "bias-reduced",
            Method::MaximumLikelihood => "mle",
            Method::LastModified => "last-modified",
        }
    }
}

/// A change rate with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Changes per second.
    pub rate: f64,
    /// Lower bound of the 95 % interval (changes per second).
    pub low: f64,
    /// Upper bound of the 95 % interval; `+∞` when the data give no upper bound.
    pub high: f64,
    /// The estimator used.
    pub method: Method,
    /// `n`: usable intervals (visits after the first).
    pub visits: usize,
    /// `X`: intervals in which a change was seen.
    pub changes: usize,
    /// Every usable interval saw a change (`X = n > 0`) and the estimator knows only whether
    /// something changed: the data bound the rate from below only, and the page should be
    /// visited more often before its rate is trusted. Never set for [`Method::LastModified`].
    pub saturated: bool,
}

/// The usable intervals of `intervals` (finite, positive length).
fn usable(intervals: &[Interval]) -> impl Iterator<Item = &Interval> + Clone {
    intervals
        .iter()
        .filter(|i| i.length.is_finite() && i.length > 0.0)
}

/// The interval's Last-Modified age, clamped into `[0, length]`; `None` when missing or not
/// finite.
pub(crate) fn age(interval: &Interval) -> Option<f64> {
    interval
        .last_modified_age
        .filter(|a| a.is_finite())
        .map(|a| a.max(0.0).min(interval.length))
}

/// The sums every estimator starts from.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    /// Usable intervals.
    n: usize,
    /// Intervals with a change.
    x: usize,
    /// Their total length.
    total: f64,
    /// The total length of the unchanged intervals.
    unchanged: f64,
}

fn sums<'a>(intervals: impl Iterator<Item = &'a Interval>) -> Sums {
    let mut s = Sums::default();
    for i in intervals {
        s.n += 1;
        s.total += i.length;
        if i.changed {
            s.x += 1;
        } else {
            s.unchanged += i.length;
        }
    }
    s
}

impl Sums {
    fn mean(&self) -> f64 {
        self.total / self.n as f64
    }

    /// An estimate from these counts, with `low ≤ rate ≤ high` enforced (a bias correction
    /// may move the point slightly outside an interval built around the raw count).
    fn estimate(&self, method: Method, rate: f64, low: f64, high: f64) -> Estimate {
        let rate = if rate.is_finite() { rate.max(0.0) } else { 0.0 };
        let low = if low.is_finite() { low.max(0.0) } else { 0.0 };
        let high = if high.is_nan() { f64::INFINITY } else { high };
        Estimate {
            rate,
            low: low.min(rate),
            high: high.max(rate),
            method,
            visits: self.n,
            changes: self.x,
            saturated: self.n > 0 && self.x == self.n && method != Method::LastModified,
        }
    }

    /// No usable interval: nothing is known.
    fn empty(&self, method: Method) -> Estimate {
        self.estimate(method, 0.0, 0.0, f64::INFINITY)
    }
}

/// The Wilson score interval on a proportion `x/n` at 95 % (`n > 0`).
pub(crate) fn wilson(x: usize, n: usize) -> (f64, f64) {
    let n_f = n as f64;
    let p = x as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    // The exact ends at x = 0 and x = n (rounding would leave 1e-17 there).
    let low = if x == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if x >= n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// `−ln(1 − p)/interval`: the rate at which a change shows within `interval` with probability
/// `p` (`+∞` at `p = 1`).
fn rate_of(p: f64, interval: f64) -> f64 {
    if p >= 1.0 {
        f64::INFINITY
    } else {
        -(-p).ln_1p() / interval
    }
}

/// Counts up to this use the exact (Garwood) bounds; above, Byar's approximation is within
/// 0.01 % of them.
const EXACT_COUNTS: usize = 100;

/// `P(K ≤ k)` for `K` Poisson of mean `m` (`m ≤ ~700`, `k ≤ EXACT_COUNTS`: no term overflows).
fn poisson_cdf(k: usize, m: f64) -> f64 {
    let mut term = (-m).exp();
    let mut sum = term;
    for i in 1..=k {
        term *= m / i as f64;
        sum += term;
    }
    sum
}

/// The mean `m` in `[lo, hi]` where `f(m)` (increasing in `m`) crosses 0, by bisection.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The Poisson 95 % count interval on `x` events: exact (Garwood) up to [`EXACT_COUNTS`],
/// Byar's approximation above.
pub(crate) fn poisson_bounds(x: usize) -> (f64, f64) {
    if x == 0 {
        return (0.0, -(0.025_f64).ln());
    }
    let k = x as f64;
    if x > EXACT_COUNTS {
        let upper = k + 1.0;
        return (
            k * (1.0 - 1.0 / (9.0 * k) - Z95 / (3.0 * k.sqrt())).powi(3),
            upper * (1.0 - 1.0 / (9.0 * upper) + Z95 / (3.0 * upper.sqrt())).powi(3),
        );
    }
    // Lower: P(K ≥ x | m) = 2.5 %, a root below x; upper: P(K ≤ x | m) = 2.5 %, above x and
    // below x + 4√x + 8 (the normal bound plus a margin for the skew).
    let low = bisect(|m| (1.0 - poisson_cdf(x - 1, m)) - 0.025, 0.0, k);
    let high = bisect(|m| 0.025 - poisson_cdf(x, m), k, k + 4.0 * k.sqrt() + 8.0);
    (low, high)
}

/// Whether every length is within [`REGULAR_TOLERANCE`] of their mean (true when empty).
fn regular<'a>(intervals: impl Iterator<Item = &'a Interval> + Clone) -> bool {
    let s = sums(intervals.clone());
    if s.n == 0 {
        return true;
    }
    let mean = s.mean();
    intervals
        .into_iter()
        .all(|i| (i.length - mean).abs() <= REGULAR_TOLERANCE * mean)
}

/// The naive estimate `X/T` (see the module doc): biased down, shown beside the others.
pub fn naive(intervals: &[Interval]) -> Estimate {
    let s = sums(usable(intervals));
    if s.n == 0 {
        return s.empty(Method::Naive);
    }
    let (lo, hi) = poisson_bounds(s.x);
    s.estimate(
        Method::Naive,
        s.x as f64 / s.total,
        lo / s.total,
        hi / s.total,
    )
}

/// The bias-reduced estimate for regular intervals; irregular ones are treated as if every
/// interval had their mean length (use [`mle`] for them).
pub fn bias_reduced(intervals: &[Interval]) -> Estimate {
    from_counts(sums(usable(intervals)))
}

fn from_counts(s: Sums) -> Estimate {
    if s.n == 0 {
        return s.empty(Method::BiasReduced);
    }
    let mean = s.mean();
    let (n, x) = (s.n as f64, s.x as f64);
    let rate = ((n + 0.5) / (n - x + 0.5)).ln() / mean;
    let (p_lo, p_hi) = wilson(s.x, s.n);
    s.estimate(
        Method::BiasReduced,
        rate,
        rate_of(p_lo, mean),
        rate_of(p_hi, mean),
    )
}

/// `Σ_changed t/(e^{λt} − 1)`, the changed intervals' side of the likelihood equation.
fn changed_side(changed: &[f64], rate: f64) -> f64 {
    changed.iter().map(|&t| t / (rate * t).exp_m1()).sum()
}

/// The observed Fisher information `Σ_changed t² e^{λt}/(e^{λt} − 1)²`, written
/// `t²/(4 sinh²(λt/2))` so that neither factor overflows on its own.
fn information(changed: &[f64], rate: f64) -> f64 {
    changed
        .iter()
        .map(|&t| {
            let s = (0.5 * rate * t).sinh();
            t * t / (4.0 * s * s)
        })
        .sum()
}

/// The root in `λ` of `Σ_changed t/(e^{λt} − 1) = rhs` (`changed` non-empty with positive
/// lengths, `rhs > 0`): the left side falls from `+∞` to 0, so the root is unique.
pub(crate) fn solve(changed: &[f64], rhs: f64) -> f64 {
    let x = changed.len() as f64;
    let c: f64 = changed.iter().sum();
    // 1/λ − t/2 ≤ t/(e^{λt} − 1) ≤ 1/λ brackets the root.
    let (mut lo, mut hi) = ((x / (rhs + 0.5 * c)).ln(), (x / rhs).ln());
    let mut s = 0.5 * (lo + hi);
    for _ in 0..200 {
        let rate = s.exp();
        let g = changed_side(changed, rate) - rhs;
        if g == 0.0 {
            return rate;
        }
        // g falls as s grows: a positive g means the root lies above s.
        if g > 0.0 {
            lo = s;
        } else {
            hi = s;
        }
        // Newton in s = ln λ: dg/ds = −λ J(λ).
        let slope = rate * information(changed, rate);
        let newton = s + g / slope;
        let next = if slope > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let done = (next - s).abs() <= 1e-13 * s.abs().max(1.0) || hi - lo <= 1e-13;
        s = next;
        if done {
            break;
        }
    }
    s.exp()
}

/// The maximum-likelihood estimate for irregular intervals (see the module doc); at `X = n`
/// the bias-reduced value with the mean interval, `saturated`.
pub fn mle(intervals: &[Interval]) -> Estimate {
    let s = sums(usable(intervals));
    if s.n == 0 {
        return s.empty(Method::MaximumLikelihood);
    }
    if s.x == s.n {
        return from_counts(s);
    }
    if s.x == 0 {
        let (_, p_hi) = wilson(0, s.n);
        return s.estimate(Method::MaximumLikelihood, 0.0, 0.0, rate_of(p_hi, s.mean()));
    }
    let changed: Vec<f64> = usable(intervals)
        .filter(|i| i.changed)
        .map(|i| i.length)
        .collect();
    let rate = solve(&changed, s.unchanged);
    let spread = Z95 / (rate * information(&changed, rate).sqrt());
    s.estimate(
        Method::MaximumLikelihood,
        rate,
        rate * (-spread).exp(),
        rate * spread.exp(),
    )
}

/// The bias-reduced Last-Modified estimate (see the module doc). A changed interval without a
/// usable age counts its whole length (the oldest its last change could be), which biases the
/// rate down: [`choose`] calls this only when every interval has an age. When every change is
/// dated at age 0 (`T = 0`) the dates say nothing and the change/no-change estimate is
/// returned.
pub fn last_modified(intervals: &[Interval]) -> Estimate {
    let s = sums(usable(intervals));
    if s.n == 0 {
        return s.empty(Method::LastModified);
    }
    let exposure: f64 = usable(intervals)
        .map(|i| {
            if i.changed {
                age(i).unwrap_or(i.length)
            } else {
                i.length
            }
        })
        .sum();
    let (lo, hi) = poisson_bounds(s.x);
    if s.x == 0 {
        return s.estimate(Method::LastModified, 0.0, 0.0, hi / exposure);
    }
    if exposure <= 0.0 || !exposure.is_finite() {
        return change_only(intervals);
    }
    let (n, x) = (s.n as f64, s.x as f64);
    // p/ln(1 − p) → 0 at p = 1 (ln 0 = −∞ gives exactly that).
    let tail = x / (n * (-x / n).ln_1p());
    let tail = if tail.is_finite() { tail } else { 0.0 };
    s.estimate(
        Method::LastModified,
        (x - 1.0 - tail) / exposure,
        lo / exposure,
        hi / exposure,
    )
}

/// The change/no-change estimate that fits the lengths: bias-reduced when regular, else MLE.
fn change_only(intervals: &[Interval]) -> Estimate {
    if regular(usable(intervals)) {
        bias_reduced(intervals)
    } else {
        mle(intervals)
    }
}

/// The estimator that fits the data: [`last_modified`] when the server's dates are plausible
/// ([`last_modified_plausible`]) and every usable interval has an age; else [`bias_reduced`]
/// when the intervals are regular (each within 1 % of their mean); else [`mle`].
pub fn choose(intervals: &[Interval], last_modified_plausible: bool) -> Estimate {
    if last_modified_plausible && usable(intervals).all(|i| age(i).is_some()) {
        last_modified(intervals)
    } else {
        change_only(intervals)
    }
}

/// One rate for a host: the maximum-likelihood estimate over all its pages' intervals
/// together (pages of one site often change together, and the pooled estimate exists when
/// each page alone has too few visits).
pub fn pooled(pages: &[&[Interval]]) -> Estimate {
    let all: Vec<Interval> = pages.iter().flat_map(|p| p.iter().copied()).collect();
    mle(&all)
}

/// What a monitor saw at one visit of a page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// The visit time (epoch seconds).
    pub at: f64,
    /// Whether the content differs from the previous visit's; `None` at the first visit.
    pub changed: Option<bool>,
    /// The Last-Modified header (epoch seconds), if the server sent one.
    pub last_modified: Option<f64>,
}

/// Seconds a server's clock may run ahead of the monitor's.
pub const CLOCK_SKEW: f64 = 60.0;

/// A Last-Modified date within this many seconds of the visit is "now".
pub const NOW_WINDOW: f64 = 2.0;

/// Why a server's Last-Modified dates cannot be trusted ([`last_modified_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Lie {
    /// No visit at all.
    #[error("no visit")]
    NoVisit,
    /// Visit times not finite or going backwards: the history itself is broken.
    #[error("visit times are not finite and in order")]
    Disordered,
    /// A visit without the header (or with a date that is not finite).
    #[error("a visit has no Last-Modified date")]
    Missing,
    /// A date later than the visit (beyond [`CLOCK_SKEW`]).
    #[error("a Last-Modified date is in the future")]
    Future,
    /// The date is the visit time on most visits: the server sends "now".
    #[error("the Last-Modified date is the visit time")]
    Now,
    /// The date moved backwards between two visits.
    #[error("the Last-Modified date moved backwards")]
    Backwards,
    /// The date moved while the content stayed the same.
    #[error("the Last-Modified date moved while the content did not change")]
    MovedWithoutChange,
    /// The content changed but the date is not after the previous visit's date, or is older
    /// than the previous visit (the change happened after it).
    #[error("the content changed but the Last-Modified date did not follow")]
    StaleOnChange,
}

/// Whether the Last-Modified dates of these visits (in visit order) describe the content:
/// `Ok` when every visit has one, none is later than the visit (allowing [`CLOCK_SKEW`]), it
/// never moves backwards, it moves exactly when the content changed (same content ⇒ same date
/// to the second; changed ⇒ a date after the previous visit's date and not before the previous
/// visit), and it is not simply the visit time (within [`NOW_WINDOW`] on more than half of the
/// visits). The last test is broader than "now while the content did not change", which the
/// moved-without-change test already catches: it also catches a "now" server on a page that
/// changes at every visit, whose ages of ≈ 0 would make the rate look enormous.
pub fn last_modified_verdict(obs: &[Observation]) -> Result<(), Lie> {
    if obs.is_empty() {
        return Err(Lie::NoVisit);
    }
    if obs.iter().any(|o| !o.at.is_finite()) || obs.windows(2).any(|w| w[1].at < w[0].at) {
        return Err(Lie::Disordered);
    }
    let mut dates = Vec::with_capacity(obs.len());
    for o in obs {
        match o.last_modified {
            Some(lm) if lm.is_finite() => dates.push(lm),
            _ => return Err(Lie::Missing),
        }
    }
    if obs
        .iter()
        .zip(&dates)
        .any(|(o, &lm)| lm > o.at + CLOCK_SKEW)
    {
        return Err(Lie::Future);
    }
    let now = obs
        .iter()
        .zip(&dates)
        .filter(|(o, lm)| (o.at - **lm).abs() <= NOW_WINDOW)
        .count();
    if 2 * now > obs.len() {
        return Err(Lie::Now);
    }
    for (k, w) in dates.windows(2).enumerate() {
        let (before, after) = (w[0], w[1]);
        if after < before {
            return Err(Lie::Backwards);
        }
        // HTTP dates have a resolution of one second: a smaller move is rounding.
        let moved = after - before >= 0.5;
        match obs[k + 1].changed {
            Some(false) if moved => return Err(Lie::MovedWithoutChange),
            Some(true) if !moved || after < obs[k].at - CLOCK_SKEW => {
                return Err(Lie::StaleOnChange);
            }
            _ => {}
        }
    }
    Ok(())
}

/// [`last_modified_verdict`] as a yes/no.
pub fn last_modified_plausible(obs: &[Observation]) -> bool {
    last_modified_verdict(obs).is_ok()
}

/// The intervals between consecutive visits. A later visit whose `changed` is unknown
/// (`None`) cannot close an interval and is skipped: the next interval starts from it.
pub fn intervals(obs: &[Observation]) -> Vec<Interval> {
    obs.windows(2)
        .filter_map(|w| {
            let changed = w[1].changed?;
            Some(Interval {
                length: w[1].at - w[0].at,
                changed,
                last_modified_age: w[1].last_modified.map(|lm| w[1].at - lm),
            })
        })
        .collect()
}
