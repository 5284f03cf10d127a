//! The estimators on hand-computed values and edge cases, the Last-Modified lies one by one,
//! the schedules' rules, Spearman's correlation. The simulations (the paper's bias table, a
//! simulated web) are in `tests/change/` at the root of the crate.

use super::estimate::{
    self, Estimate, Interval, Lie, Method, Observation, bias_reduced, choose, intervals,
    last_modified, last_modified_plausible, last_modified_verdict, mle, naive, pooled,
};
use super::schedule::{DEFAULT_TARGET, LAST_MODIFIED_TARGET, Policy, SHRINK, next_interval};
use super::spearman;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}

#[track_caller]
fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(
        close(a, b, tol),
        "{a} is not within {tol} (relative) of {b}"
    );
}

fn seen(length: f64, changed: bool) -> Interval {
    Interval {
        length,
        changed,
        last_modified_age: None,
    }
}

fn dated(length: f64, changed: bool, age: f64) -> Interval {
    Interval {
        length,
        changed,
        last_modified_age: Some(age),
    }
}

/// `n` intervals of `length`, the first `x` changed.
fn regular(n: usize, x: usize, length: f64) -> Vec<Interval> {
    (0..n).map(|i| seen(length, i < x)).collect()
}

#[track_caller]
fn assert_ordered(e: &Estimate) {
    assert!(
        e.rate.is_finite() && e.low.is_finite() && 0.0 <= e.low && e.low <= e.rate,
        "{e:?}"
    );
    assert!(e.rate <= e.high && !e.high.is_nan(), "{e:?}");
}

#[test]
fn method_names_for_csv() {
    let names: Vec<&str> = [
        Method::Naive,
        Method::BiasReduced,
        Method::MaximumLikelihood,
        Method::LastModified,
    ]
    .iter()
    .map(|m| m.name())
    .collect();
    assert_eq!(names, ["naive", "bias-reduced", "mle", "last-modified"]);
}

#[test]
fn naive_counts_changes_over_time() {
    let e = naive(&[seen(10.0, true), seen(10.0, false), seen(20.0, true)]);
    assert_eq!((e.method, e.visits, e.changes), (Method::Naive, 3, 2));
    assert_close(e.rate, 0.05, 1e-12);
    // The exact Poisson interval on 2 events: [0.2422, 7.2247] over T = 40.
    assert_close(e.low, 0.242_209 / 40.0, 1e-4);
    assert_close(e.high, 7.224_687 / 40.0, 1e-4);
}

#[test]
fn poisson_bounds_are_garwoods() {
    // Exact bounds (chi-square quantiles / 2), and Byar's above 100 events.
    for (x, lo, hi) in [
        (0, 0.0, 3.688_879),
        (1, 0.025_318, 5.571_643),
        (5, 1.623_486, 11.668_332),
        (20, 12.216_520, 30.888_378),
        (100, 81.363_991, 121.626_794),
        (200, 173.240_883, 229.721_982),
    ] {
        let (l, h) = estimate::poisson_bounds(x);
        assert!(
            close(l, lo, 2e-4) || (lo == 0.0 && l == 0.0),
            "{x}: {l} vs {lo}"
        );
        assert_close(h, hi, 2e-4);
    }
}

#[test]
fn wilson_interval_by_hand() {
    let (lo, hi) = estimate::wilson(10, 20);
    assert_close(lo, 0.299_298, 1e-5);
    assert_close(hi, 0.700_702, 1e-5);
    assert_eq!(estimate::wilson(0, 20).0, 0.0);
    assert_eq!(estimate::wilson(20, 20).1, 1.0);
}

#[test]
fn bias_reduced_by_hand() {
    let e = bias_reduced(&regular(20, 10, 1.0));
    assert_eq!(e.method, Method::BiasReduced);
    assert_close(e.rate, (20.5_f64 / 10.5).ln(), 1e-12);
    // Wilson's [0.2993, 0.7007] mapped through −ln(1 − p).
    assert_close(e.low, 0.355_672_601, 1e-7);
    assert_close(e.high, 1.206_315_519, 1e-7);
    assert!(!e.saturated);
    // X = n stays finite (ln(2n + 1)/I), saturated, without an upper bound.
    let all = bias_reduced(&regular(20, 20, 2.0));
    assert_close(all.rate, 41_f64.ln() / 2.0, 1e-12);
    assert!(all.saturated && all.high.is_infinite());
    assert_ordered(&all);
    // X = 0: rate 0 with an upper bound.
    let none = bias_reduced(&regular(20, 0, 2.0));
    assert_eq!((none.rate, none.low), (0.0, 0.0));
    assert!(none.high > 0.0 && none.high.is_finite());
}

#[test]
fn mle_on_regular_intervals_is_the_closed_form() {
    // The likelihood equation X/(e^{λI} − 1) = (n − X) I gives −ln(1 − X/n)/I.
    for (n, x, length) in [
        (20, 10, 1.0),
        (20, 1, 3600.0),
        (20, 19, 0.5),
        (3, 1, 86_400.0),
    ] {
        let e = mle(&regular(n, x, length));
        let expected = -(1.0 - x as f64 / n as f64).ln() / length;
        assert_eq!(e.method, Method::MaximumLikelihood);
        assert_close(e.rate, expected, 1e-10);
    }
}

#[test]
fn mle_on_irregular_intervals_by_hand() {
    // Changed 1 and 2, unchanged 3: 1/(y − 1) + 2/(y² − 1) = 3 with y = e^λ, so
    // 3y² − y − 6 = 0 and y = (1 + √73)/6.
    let e = mle(&[seen(1.0, true), seen(2.0, true), seen(3.0, false)]);
    assert_close(e.rate, ((1.0 + 73_f64.sqrt()) / 6.0).ln(), 1e-12);
    // exp(ln λ̂ ± 1.96/(λ̂ √J)).
    assert_close(e.low, 0.112_539_281_7, 1e-8);
    assert_close(e.high, 1.914_341_096, 1e-8);
    assert_eq!((e.visits, e.changes), (3, 2));
    // One changed and one unchanged interval of 1: λ = ln 2, J = 2.
    let e = mle(&[seen(1.0, true), seen(1.0, false)]);
    assert_close(e.rate, 2_f64.ln(), 1e-12);
    assert_close(e.low, 0.093_860_138, 1e-8);
    assert_close(e.high, 5.118_818_517, 1e-8);
}

#[test]
fn mle_edges() {
    // X = 0: 0, with the Wilson bound on the mean interval 1.5.
    let e = mle(&[seen(1.0, false), seen(2.0, false)]);
    assert_eq!(
        (e.rate, e.low, e.method),
        (0.0, 0.0, Method::MaximumLikelihood)
    );
    assert_close(e.high, 0.714_555_588_8, 1e-9);
    // X = n: no finite maximum; the bias-reduced value with the mean interval, flagged.
    let e = mle(&[seen(1.0, true), seen(2.0, true)]);
    assert_eq!(e.method, Method::BiasReduced);
    assert!(e.saturated && e.high.is_infinite());
    assert_close(e.rate, 5_f64.ln() / 1.5, 1e-12);
    // Lengths over fifteen decades: the solver stays finite and accurate.
    let wide = [
        seen(1e-6, true),
        seen(1e9, true),
        seen(1e-3, false),
        seen(3.0, true),
        seen(1e7, false),
    ];
    let e = mle(&wide);
    assert_ordered(&e);
    let side: f64 = [1e-6, 1e9, 3.0]
        .iter()
        .map(|&t: &f64| t / (e.rate * t).exp_m1())
        .sum();
    assert_close(side, 1e7 + 1e-3, 1e-9);
}

#[test]
fn solver_converges_from_any_bracket() {
    // The root of Σ t/(e^{λt} − 1) = rhs against a regular closed form, near both ends of
    // the bracket (X close to n and X small).
    for (x, u) in [(1usize, 1000.0), (19, 0.01), (5, 5.0), (1, 1e-9)] {
        let changed = vec![2.0; x];
        let rate = estimate::solve(&changed, u);
        // x·2/(e^{2λ} − 1) = u.
        let expected = (1.0 + 2.0 * x as f64 / u).ln() / 2.0;
        assert_close(rate, expected, 1e-10);
    }
}

#[test]
fn last_modified_by_hand() {
    let data = [
        dated(10.0, true, 3.0),
        dated(10.0, false, 13.0),
        dated(10.0, true, 5.0),
        dated(10.0, false, 15.0),
    ];
    let e = last_modified(&data);
    // T = 3 + 10 + 5 + 10; (X − 1 − X/(n ln(1 − X/n)))/T.
    assert_close(e.rate, (1.0 + 2.0 / (4.0 * 2_f64.ln())) / 28.0, 1e-12);
    assert_eq!((e.method, e.saturated), (Method::LastModified, false));
    assert_close(e.low, 0.242_209 / 28.0, 1e-4);
    assert_close(e.high, 7.224_687 / 28.0, 1e-4);
    // X = n: (X − 1)/T, bounded (the dates bound it).
    let e = last_modified(&[dated(10.0, true, 2.0), dated(10.0, true, 4.0)]);
    assert_close(e.rate, 1.0 / 6.0, 1e-12);
    assert!(e.high.is_finite() && !e.saturated);
    // X = 0: 0 over the whole time.
    let e = last_modified(&[dated(10.0, false, 30.0), dated(10.0, false, 40.0)]);
    assert_eq!(e.rate, 0.0);
    assert_close(e.high, 3.688_879_454 / 20.0, 1e-9);
    // One interval, one change: (X − 1)/T = 0, interval still around one event.
    let e = last_modified(&[dated(10.0, true, 2.0)]);
    assert_eq!(e.rate, 0.0);
    assert_ordered(&e);
}

#[test]
fn last_modified_ages_are_clamped_and_degenerate_dates_fall_back() {
    // An age beyond the interval counts as the interval, a negative one as 0.
    let clamped = last_modified(&[dated(10.0, true, 50.0), dated(10.0, true, -3.0)]);
    let expected = last_modified(&[dated(10.0, true, 10.0), dated(10.0, true, 0.0)]);
    assert_eq!(clamped, expected);
    assert_close(clamped.rate, 1.0 / 10.0, 1e-12);
    // Every change dated "now": T = 0, the change/no-change estimate instead.
    let e = last_modified(&[dated(10.0, true, 0.0), dated(10.0, true, 0.0)]);
    assert_eq!(e.method, Method::BiasReduced);
    assert_ordered(&e);
}

#[test]
fn unusable_input_is_skipped_without_panic() {
    let junk = [
        seen(0.0, true),
        seen(-3.0, true),
        seen(f64::NAN, true),
        seen(f64::INFINITY, true),
        seen(f64::NEG_INFINITY, false),
        dated(10.0, false, f64::NAN),
    ];
    for e in [
        naive(&junk),
        bias_reduced(&junk),
        mle(&junk),
        last_modified(&junk),
        choose(&junk, true),
        choose(&junk, false),
    ] {
        assert_eq!((e.visits, e.changes, e.rate), (1, 0, 0.0), "{e:?}");
        assert_ordered(&e);
    }
    // Nothing usable: rate 0, nothing bounded.
    for e in [naive(&[]), mle(&junk[..5]), choose(&[], true), pooled(&[])] {
        assert_eq!((e.visits, e.rate, e.low), (0, 0.0, 0.0));
        assert!(e.high.is_infinite() && !e.saturated);
    }
}

#[test]
fn one_interval() {
    let one = [seen(5.0, true)];
    assert_close(naive(&one).rate, 0.2, 1e-12);
    assert_close(bias_reduced(&one).rate, 3_f64.ln() / 5.0, 1e-12);
    assert_eq!(choose(&one, false).method, Method::BiasReduced);
    assert!(choose(&one, false).saturated);
}

#[test]
fn choose_fits_the_data() {
    let dated_data = [dated(10.0, true, 3.0), dated(20.0, false, 30.0)];
    assert_eq!(choose(&dated_data, true).method, Method::LastModified);
    // Implausible dates, or one interval without a date: change/no-change.
    assert_eq!(choose(&dated_data, false).method, Method::MaximumLikelihood);
    let partly = [dated(10.0, true, 3.0), seen(20.0, false)];
    assert_eq!(choose(&partly, true).method, Method::MaximumLikelihood);
    // Within 1 % of the mean: regular.
    let within = [seen(100.0, true), seen(100.9, false), seen(99.1, false)];
    assert_eq!(choose(&within, false).method, Method::BiasReduced);
    let beyond = [seen(100.0, true), seen(102.5, false), seen(97.5, false)];
    assert_eq!(choose(&beyond, false).method, Method::MaximumLikelihood);
}

#[test]
fn pooled_is_the_mle_over_all_pages() {
    let a = [seen(1.0, true), seen(2.0, true)];
    let b = [seen(3.0, false)];
    let host = pooled(&[&a, &b]);
    let alone = mle(&[seen(1.0, true), seen(2.0, true), seen(3.0, false)]);
    assert_eq!(host, alone);
    assert_eq!((host.visits, host.changes), (3, 2));
}

#[test]
fn estimates_are_ordered_on_random_input() {
    // A deterministic generator (xorshift64*), lengths over six decades, any mix of changes.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..2000 {
        let n = 1 + (next() * 25.0) as usize;
        let p = next();
        let data: Vec<Interval> = (0..n)
            .map(|_| {
                let length = 10_f64.powf(6.0 * next() - 1.0);
                dated(length, next() < p, length * next())
            })
            .collect();
        for e in [
            naive(&data),
            bias_reduced(&data),
            mle(&data),
            last_modified(&data),
            choose(&data, true),
        ] {
            assert_ordered(&e);
        }
    }
}

fn visit(at: f64, changed: Option<bool>, last_modified: Option<f64>) -> Observation {
    Observation {
        at,
        changed,
        last_modified,
    }
}

/// An honest server: the page changed at 500 and at 2500.
fn honest() -> Vec<Observation> {
    vec![
        visit(1000.0, None, Some(500.0)),
        visit(2000.0, Some(false), Some(500.0)),
        visit(3000.0, Some(true), Some(2500.0)),
        visit(4000.0, Some(false), Some(2500.0)),
    ]
}

#[test]
fn honest_dates_are_plausible() {
    assert_eq!(last_modified_verdict(&honest()), Ok(()));
    assert!(last_modified_plausible(&honest()));
    // A server clock up to a minute ahead is tolerated.
    let mut skewed = honest();
    skewed[2].last_modified = Some(3000.0 + 59.0);
    skewed[3].last_modified = Some(3059.0);
    assert!(last_modified_plausible(&skewed));
    // Two visits at the same time are no lie (a zero-length interval carries no information).
    let mut twice = honest();
    twice.insert(1, visit(1000.0, Some(false), Some(500.0)));
    assert!(last_modified_plausible(&twice));
}

#[test]
fn each_lie_is_caught() {
    let lie = |edit: &dyn Fn(&mut Vec<Observation>)| {
        let mut obs = honest();
        edit(&mut obs);
        last_modified_verdict(&obs)
    };
    assert_eq!(last_modified_verdict(&[]), Err(Lie::NoVisit));
    assert_eq!(lie(&|o| o[2].at = 1500.0), Err(Lie::Disordered));
    assert_eq!(lie(&|o| o[1].at = f64::NAN), Err(Lie::Disordered));
    assert_eq!(lie(&|o| o[3].last_modified = None), Err(Lie::Missing));
    assert_eq!(
        lie(&|o| o[0].last_modified = Some(f64::NAN)),
        Err(Lie::Missing)
    );
    assert_eq!(
        lie(&|o| o[0].last_modified = Some(1061.0)),
        Err(Lie::Future)
    );
    assert_eq!(
        lie(&|o| o[3].last_modified = Some(2400.0)),
        Err(Lie::Backwards)
    );
    // The date moved, the content did not.
    assert_eq!(
        lie(&|o| o[1].last_modified = Some(1800.0)),
        Err(Lie::MovedWithoutChange)
    );
    // The content changed, the date did not.
    assert_eq!(
        lie(&|o| {
            o[2].last_modified = Some(500.0);
            o[3].last_modified = Some(500.0);
        }),
        Err(Lie::StaleOnChange)
    );
    // The content changed, the date moved, but to before the previous visit.
    assert_eq!(
        lie(&|o| {
            o[2].last_modified = Some(1500.0);
            o[3].last_modified = Some(1500.0);
        }),
        Err(Lie::StaleOnChange)
    );
}

#[test]
fn a_server_that_sends_now_is_caught() {
    // "Now" while the content stays the same.
    let now: Vec<Observation> = (0..5)
        .map(|k| {
            let at = 1000.0 * (k + 1) as f64;
            visit(at, (k > 0).then_some(false), Some(at))
        })
        .collect();
    assert_eq!(last_modified_verdict(&now), Err(Lie::Now));
    // "Now" on a page that changes at every visit passes every other test, but its ages of
    // ≈ 0 would make the rate enormous.
    let changing: Vec<Observation> = (0..5)
        .map(|k| {
            let at = 1000.0 * (k + 1) as f64;
            visit(at, (k > 0).then_some(true), Some(at - 1.0))
        })
        .collect();
    assert_eq!(last_modified_verdict(&changing), Err(Lie::Now));
    // One visit right after a change is no lie.
    let mut once = honest();
    once[2].last_modified = Some(2999.0);
    once[3].last_modified = Some(2999.0);
    assert!(last_modified_plausible(&once));
}

#[test]
fn intervals_from_visits() {
    let mut obs = honest();
    obs.insert(2, visit(2500.0, None, Some(500.0)));
    let got = intervals(&obs);
    assert_eq!(
        got,
        [
            dated(1000.0, false, 1500.0),
            dated(500.0, true, 500.0),
            dated(1000.0, false, 1500.0),
        ]
    );
    assert!(intervals(&obs[..1]).is_empty());
}

#[test]
fn default_target_minimises_the_variance() {
    let relative_variance = |x: f64| x.exp_m1() / (x * x);
    let x = DEFAULT_TARGET;
    assert_close(x * x.exp(), 2.0 * x.exp_m1(), 1e-12);
    assert!(relative_variance(x) < relative_variance(x - 0.01));
    assert!(relative_variance(x) < relative_variance(x + 0.01));
    assert_close(relative_variance(x), 1.544_138_652, 1e-8);
}

#[test]
fn poisson_policy_draws_exponential_intervals() {
    let policy = Policy::Poisson { mean: 3600.0 };
    let next = |u| next_interval(&policy, &[], false, u);
    assert_eq!(next(1.0), 0.0);
    assert_close(next((-1.0_f64).exp()), 3600.0, 1e-12);
    assert_close(next(f64::NAN), 3600.0 * 2_f64.ln(), 1e-12);
    // u = 0 or below is clamped away from 0: finite, at most ≈ 36.7 means.
    for u in [0.0, -1.0, f64::NEG_INFINITY] {
        let t = next(u);
        assert!(t.is_finite() && t > 36.0 * 3600.0 && t < 37.0 * 3600.0);
    }
    assert_eq!(next(2.0), 0.0);
    for mean in [-5.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            next_interval(&Policy::Poisson { mean }, &[], false, 0.5),
            0.0
        );
    }
}

#[test]
fn adaptive_policy_rules() {
    let policy = Policy::adaptive(10.0, 1e6, 1000.0);
    let next = |history: &[Interval], lm: bool| next_interval(&policy, history, lm, 0.5);
    let c = DEFAULT_TARGET;
    // Nothing known yet: the initial interval.
    assert_eq!(next(&[], false), 1000.0);
    // No change in T = 1000: λ̃ = ½/T, the next interval 2cT.
    assert_close(next(&[seen(1000.0, false)], false), 2.0 * c * 1000.0, 1e-12);
    // A change at every visit: the shortest interval divided by SHRINK.
    let all = [seen(1000.0, true), seen(400.0, true)];
    assert_close(next(&all, false), 400.0 / SHRINK, 1e-12);
    // Both seen: c over the MLE (ln 2 for one of each at 1000 s).
    let both = [seen(1000.0, true), seen(1000.0, false)];
    assert_close(next(&both, false), c * 1000.0 / 2_f64.ln(), 1e-10);
    // Plausible dates: (X + ½)/T with T = 100 + 1000, and the Last-Modified target.
    let dates = [dated(1000.0, true, 100.0), dated(1000.0, false, 1100.0)];
    assert_close(
        next(&dates, true),
        LAST_MODIFIED_TARGET * 1100.0 / 1.5,
        1e-12,
    );
    // ... unless the dates are implausible.
    assert_close(next(&dates, false), c * 1000.0 / 2_f64.ln(), 1e-10);
    // Clamped into [min, max].
    assert_eq!(next(&[seen(1e6, false)], false), 1e6);
    assert_eq!(next(&[seen(20.0, true)], false), 10.0);
}

#[test]
fn adaptive_policy_survives_bad_settings() {
    let history = [seen(1000.0, true), seen(1000.0, false)];
    for (target, min, max, initial) in [
        (f64::NAN, f64::NAN, f64::NAN, f64::NAN),
        (-1.0, -5.0, -10.0, -3.0),
        (0.0, 100.0, 50.0, f64::INFINITY),
        (f64::INFINITY, 0.0, f64::INFINITY, 0.0),
    ] {
        let policy = Policy::Adaptive {
            target,
            min,
            max,
            initial,
        };
        for h in [&history[..], &[]] {
            let t = next_interval(&policy, h, false, 0.5);
            assert!(t.is_finite() && t >= 0.0, "{policy:?} {h:?}: {t}");
        }
    }
}

#[test]
fn spearman_by_hand() {
    assert_close(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 300.0]), 1.0, 1e-12);
    assert_close(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0, 1e-12);
    // Ties get their average rank (scipy.stats.spearmanr gives the same).
    assert_close(
        spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]),
        0.820_782_681_668_123_3,
        1e-12,
    );
    assert_close(
        spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]),
        4.5 / 22.5_f64.sqrt(),
        1e-12,
    );
    // A NaN pair is left out.
    assert_close(
        spearman(&[1.0, f64::NAN, 2.0, 3.0], &[1.0, 5.0, 2.0, 3.0]),
        1.0,
        1e-12,
    );
    assert!(spearman(&[1.0, 2.0], &[1.0]).is_nan());
    assert!(spearman(&[1.0], &[1.0]).is_nan());
    assert!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
}
