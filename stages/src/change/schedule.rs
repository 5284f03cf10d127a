//! Revisit schedules: when the monitor should next visit a page.
//!
//! **In:** a [`Policy`], the page's history so far (the [`Interval`]s between its visits),
//! whether its Last-Modified dates are plausible ([`super::estimate::last_modified_plausible`]),
//! and one uniform number `u ∈ (0, 1]` from the caller (this crate draws no random numbers).
//!
//! **Out:** the seconds to wait before the next visit ([`next_interval`]).
//!
//! **Invariants:** pure and total: the result is finite and non-negative for any input
//! (non-finite or negative settings are sanitised, see [`next_interval`]); the adaptive policy
//! is deterministic (it ignores `u`) and stays within `[min, max]`.
//!
//! # Policies
//!
//! * [`Policy::Poisson`]: the project's seed ("a second robot revisits the mapped pages on a
//!   Poisson process"): exponential intervals `−mean · ln u`. Memoryless, blind to the page:
//!   a page changing every hour and one changing every two months get the same visits, so the
//!   first is seen changed at every visit (its rate only bounded from below) and the second
//!   never (rate 0).
//! * [`Policy::Adaptive`]: the next interval is `c/λ̃`, clamped to `[min, max]`, where `λ̃` is
//!   the page's current rate estimate: each page is visited at the interval that teaches the
//!   most about its rate (like Nutch's AdaptiveFetchSchedule, which moves the interval by
//!   fixed factors; here the factor comes from the estimate).
//!
//! # The target `c = λI`
//!
//! For change/no-change data the Fisher information of one interval `I` is
//! `I²/(e^{λI} − 1)`, so after `n` visits at `x = λI` the relative variance of the estimate
//! is `(e^x − 1)/(n x²)` (Cho & Garcia-Molina 2003): too short an interval rarely sees a change, too long
//! one almost always does. It is smallest where `x e^x = 2(e^x − 1)`, at
//! `x = `[`DEFAULT_TARGET`]` ≈ 1.594` (relative standard deviation `√(1.544/n)`, 28 % at
//! `n = 20`, the best any schedule can do with change/no-change data).
//!
//! With plausible Last-Modified dates a changed interval dates its last change: the data are an
//! exponential time censored at `I`, whose information is `(1 − e^{−x})/λ²` per interval,
//! growing with `x` (relative variance `1/(n (1 − e^{−x}))`). Longer intervals only help, but
//! each costs time (the `n` visits take `n x/λ`): at [`LAST_MODIFIED_TARGET`]` = 3` the visits
//! carry 95 % of the most information possible (86 % at 2, 98 % at 4). A policy's `target`
//! is scaled by `LAST_MODIFIED_TARGET / DEFAULT_TARGET` for such pages, so a caller who asks
//! for more frequent visits gets proportionally more frequent ones on both kinds of page.
//!
//! # The rate estimate while history is short
//!
//! `λ̃` must be positive and finite from the first visit on, and must move fast when the
//! initial interval is far off (rates span three decades on the web):
//!
//! * no usable interval yet: wait `initial`;
//! * plausible Last-Modified dates: the data are a Poisson process observed over the
//!   exposure `T = Σ (changed ? age : I)`, with likelihood `λ^X e^{−λT}`; the posterior
//!   mean under Jeffreys' prior `λ^{−½}` is `λ̃ = (X + ½)/T` (finite and positive whatever
//!   `X`);
//! * no change seen yet (`X = 0`): "no change during `T`" has the likelihood `e^{−λT}`
//!   whatever the intervals, so the same posterior mean is `λ̃ = ½/T`, and the next interval
//!   is `2cT`: the exposure grows about fourfold per visit;
//! * a change at every visit (`X = n`): the likelihood rises towards `λ = ∞` and no proper
//!   estimate exists; a geometric search divides the shortest interval that still saw a change
//!   by [`SHRINK`]` = 4`, the same speed as the growth above (one change per hour seen from an
//!   initial day is reached in two visits);
//! * otherwise, the maximum-likelihood estimate ([`super::estimate::mle`]), which exists and
//!   stays valid although each interval depends on the previous answers.
//!
//! Nutch's rule (×1.4 after no change, ×0.8 after a change) needs 12 visits to grow the
//! interval fifty-fold and 18 to shrink it as much: most of the 20 a page gets here.

use super::estimate::{self, Interval};

/// The change/no-change target `λI` that minimises the estimate's variance (module doc).
pub const DEFAULT_TARGET: f64 = 1.593_624_260_040_040_3;

/// The target for pages with plausible Last-Modified dates (module doc).
pub const LAST_MODIFIED_TARGET: f64 = 3.0;

/// The geometric search's factor while every visit saw a change (module doc).
pub const SHRINK: f64 = 4.0;

/// The smallest `u` used: `−ln u` is at most about 36.7 mean intervals.
const MIN_UNIFORM: f64 = 1.0 / 9_007_199_254_740_992.0;

/// How the monitor chooses its revisits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// Exponential intervals of this mean (seconds): a Poisson process of visits.
    Poisson {
        /// The mean interval in seconds.
        mean: f64,
    },
    /// The interval `target/λ̃` for the page's current rate estimate `λ̃` (module doc).
    Adaptive {
        /// `c`, the aimed `λI` for change/no-change pages ([`DEFAULT_TARGET`] minimises the
        /// variance); scaled up for pages with plausible Last-Modified dates.
        target: f64,
        /// The shortest interval in seconds.
        min: f64,
        /// The longest interval in seconds.
        max: f64,
        /// The interval after the first visit, before anything is known.
        initial: f64,
    },
}

impl Policy {
    /// The adaptive policy with [`DEFAULT_TARGET`].
    pub fn adaptive(min: f64, max: f64, initial: f64) -> Self {
        Policy::Adaptive {
            target: DEFAULT_TARGET,
            min,
            max,
            initial,
        }
    }
}

/// `v` when finite and positive, else `fallback`.
fn positive_or(v: f64, fallback: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        fallback
    }
}

/// Seconds until the next visit of a page with this `history` (its intervals so far, in
/// order), given a uniform `u ∈ (0, 1]` (used by [`Policy::Poisson`] only).
///
/// Sanitising: `u` is clamped into `[2⁻⁵³, 1]` and a NaN `u` counts as ½ (the median); a
/// Poisson mean that is not finite and positive gives 0. For the adaptive policy a `min` that
/// is not finite and positive counts as 0, a `max` that is not finite or below `min` as
/// unbounded, a `target` that is not finite and positive as [`DEFAULT_TARGET`], and `initial`
/// is clamped into `[min, max]` like every other result (a non-finite one counts as `min`).
pub fn next_interval(
    policy: &Policy,
    history: &[Interval],
    last_modified_plausible: bool,
    u: f64,
) -> f64 {
    match *policy {
        Policy::Poisson { mean } => {
            let mean = positive_or(mean, 0.0);
            let u = if u.is_nan() {
                0.5
            } else {
                u.clamp(MIN_UNIFORM, 1.0)
            };
            // −ln 1 = 0 exactly, never −0.
            (-mean * u.ln()).max(0.0)
        }
        Policy::Adaptive {
            target,
            min,
            max,
            initial,
        } => {
            let min = positive_or(min, 0.0);
            // "Unbounded" is the largest finite number, so the result stays finite.
            let max = if max.is_finite() && max >= min {
                max
            } else {
                f64::MAX
            };
            let target = positive_or(target, DEFAULT_TARGET);
            let wanted = adaptive(target, initial, history, last_modified_plausible);
            let wanted = if wanted.is_nan() { min } else { wanted };
            wanted.max(min).min(max)
        }
    }
}

/// The adaptive interval before clamping (module doc, "while history is short").
fn adaptive(target: f64, initial: f64, history: &[Interval], lm_plausible: bool) -> f64 {
    let usable: Vec<&Interval> = history
        .iter()
        .filter(|i| i.length.is_finite() && i.length > 0.0)
        .collect();
    if usable.is_empty() {
        return initial;
    }
    let n = usable.len();
    let x = usable.iter().filter(|i| i.changed).count();
    let total: f64 = usable.iter().map(|i| i.length).sum();
    if lm_plausible && usable.iter().all(|i| estimate::age(i).is_some()) {
        let exposure: f64 = usable
            .iter()
            .map(|i| {
                if i.changed {
                    estimate::age(i).unwrap_or(i.length)
                } else {
                    i.length
                }
            })
            .sum();
        let c = target * LAST_MODIFIED_TARGET / DEFAULT_TARGET;
        // (X + ½)/T; T = 0 (every change dated "now") asks for the shortest interval.
        return c * exposure / (x as f64 + 0.5);
    }
    if x == 0 {
        return target * total / 0.5;
    }
    if x == n {
        let shortest = usable
            .iter()
            .map(|i| i.length)
            .fold(f64::INFINITY, f64::min);
        return shortest / SHRINK;
    }
    let owned: Vec<Interval> = usable.into_iter().copied().collect();
    let rate = estimate::mle(&owned).rate;
    if rate > 0.0 { target / rate } else { initial }
}
