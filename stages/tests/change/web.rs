//! The Done-when simulation: a web of 10,000 pages whose changes are Poisson processes of
//! known rates, drawn log-uniformly from one change an hour to one every 60 days. A third of
//! the servers send a correct Last-Modified date, a third none, a third lie (the date is the
//! visit time, every visit). A virtual clock; each page is visited once, then 20 more times
//! as a policy schedules; the monitor sees what a server would show: whether the content
//! changed since the previous visit, and the header. `choose()` then estimates each page.
//!
//! Targets (adaptive policy, both seeds): Spearman's rank correlation between estimated and
//! true rates ≥ 0.9, median relative error `|λ̂ − λ|/λ` ≤ 20 %. The naive estimate is printed
//! beside, per Last-Modified class. Seed A was used to choose the settings; seed B is a second,
//! unseen run of the whole simulation checked against the same thresholds.
//!
//! What n = 20 allows: with change/no-change data (no date, or a lying one) the best schedule
//! (`λI ≈ 1.594`) leaves a relative standard deviation of `√(1.544/20) ≈ 28 %`, i.e. a median
//! relative error near `0.674 · 28 % ≈ 19 %` *after* the schedule has found the page's rate;
//! the visits spent finding it cost a little more. Those two classes therefore sit at about
//! 20 % (asserted ≤ 23 % per class), and the overall median meets the target thanks to the
//! dated third (relative standard deviation `1/√(20 (1 − e^{−3}))` ≈ 23 %, median error
//! ≈ 16 %). The Poisson policy (one mean, a day, for every page) sees fast pages change at
//! every visit and slow ones never (rate 0, error 100 %): its median error is about 35 %,
//! printed, not asserted; its rank correlation does reach 0.9 and is asserted. Each table also
//! gives the naive estimator's figures, how many pages were dated (`choose()` took the
//! Last-Modified estimator: every honest server, no lying one), how many estimates are
//! saturated, and the median time the 21 visits took.

use super::rng::ChaCha20;
use stages::change::estimate::{
    Estimate, Interval, Method, Observation, choose, last_modified_plausible, naive,
};
use stages::change::schedule::{Policy, next_interval};
use stages::change::spearman;

const PAGES: usize = 10_000;
const VISITS: usize = 20;
const MINUTE: f64 = 60.0;
const HOUR: f64 = 3600.0;
const DAY: f64 = 86_400.0;
/// The virtual clock starts here (2023-11-14, epoch seconds): dates are whole seconds.
const START: f64 = 1_700_000_000.0;

const SEED_A: u64 = 0x00C0_FFEE;
const SEED_B: u64 = 0x5EED_0B0B;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// Last-Modified is the time of the last change.
    Honest,
    /// No Last-Modified.
    Silent,
    /// Last-Modified is the visit time.
    Now,
}

const SERVERS: [Server; 3] = [Server::Honest, Server::Silent, Server::Now];

struct Page {
    truth: f64,
    server: Server,
    chosen: Estimate,
    naive: Estimate,
    /// Seconds from the first visit to the last.
    span: f64,
}

fn header(server: Server, at: f64, last_change: f64) -> Option<f64> {
    match server {
        Server::Honest => Some(last_change.floor()),
        Server::Silent => None,
        Server::Now => Some(at.floor()),
    }
}

/// The whole web under one policy.
fn simulate(seed: u64, policy: &Policy) -> Vec<Page> {
    let mut rng = ChaCha20::seed(seed);
    let (slow, fast) = ((1.0 / (60.0 * DAY)).ln(), (1.0 / HOUR).ln());
    (0..PAGES)
        .map(|p| {
            let truth = (slow + (fast - slow) * rng.uniform()).exp();
            let server = SERVERS[p % 3];
            // The process is memoryless: the last change before the first visit is an
            // exponential time back, the next one an exponential time ahead.
            let mut last_change = START - rng.exponential(truth);
            let mut next_change = START + rng.exponential(truth);
            let mut at = START;
            let mut obs = vec![Observation {
                at,
                changed: None,
                last_modified: header(server, at, last_change),
            }];
            let mut history: Vec<Interval> = Vec::with_capacity(VISITS);
            let mut plausible = last_modified_plausible(&obs);
            for _ in 0..VISITS {
                let wait = next_interval(policy, &history, plausible, rng.positive());
                at += wait;
                let changed = next_change <= at;
                while next_change <= at {
                    last_change = next_change;
                    next_change += rng.exponential(truth);
                }
                let last_modified = header(server, at, last_change);
                obs.push(Observation {
                    at,
                    changed: Some(changed),
                    last_modified,
                });
                history.push(Interval {
                    length: wait,
                    changed,
                    last_modified_age: last_modified.map(|lm| at - lm),
                });
                plausible = last_modified_plausible(&obs);
            }
            Page {
                truth,
                server,
                chosen: choose(&history, plausible),
                naive: naive(&history),
                span: at - START,
            }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Rank correlation, median relative error and median signed relative error.
#[derive(Debug, Clone, Copy)]
struct Figures {
    spearman: f64,
    error: f64,
    bias: f64,
}

fn figures(pages: &[&Page], rate: impl Fn(&Page) -> f64) -> Figures {
    let truth: Vec<f64> = pages.iter().map(|p| p.truth).collect();
    let estimated: Vec<f64> = pages.iter().map(|p| rate(p)).collect();
    let relative: Vec<f64> = pages
        .iter()
        .map(|p| (rate(p) - p.truth) / p.truth)
        .collect();
    Figures {
        spearman: spearman(&estimated, &truth),
        error: median(relative.iter().map(|r| r.abs()).collect()),
        bias: median(relative),
    }
}

/// One class's figures (`None`: all pages): the chosen estimates', the naive ones'.
type Row = (Option<Server>, Figures, Figures);

/// Prints one run's table and returns its rows, each class then all pages.
fn report(name: &str, pages: &[Page]) -> Vec<Row> {
    // One eprint per table: the tests run in parallel and would interleave lines.
    let mut table = format!("\n{name}\n");
    table += &format!(
        "  {:<8} {:>5}  {:>8} {:>7} {:>7}   {:>8} {:>7} {:>7}   {:>5} {:>5} {:>9}",
        "server",
        "pages",
        "spearman",
        "error",
        "bias",
        "naive ρ",
        "error",
        "bias",
        "dated",
        "sat.",
        "span(d)"
    );
    table += "\n";
    let mut classes = Vec::new();
    let mut all = None;
    for class in [
        None,
        Some(Server::Honest),
        Some(Server::Silent),
        Some(Server::Now),
    ] {
        let subset: Vec<&Page> = pages
            .iter()
            .filter(|p| class.is_none_or(|c| p.server == c))
            .collect();
        let chosen = figures(&subset, |p| p.chosen.rate);
        let nv = figures(&subset, |p| p.naive.rate);
        let dated = subset
            .iter()
            .filter(|p| p.chosen.method == Method::LastModified)
            .count();
        let saturated = subset.iter().filter(|p| p.chosen.saturated).count();
        let span = median(subset.iter().map(|p| p.span / DAY).collect());
        table += &format!(
            "  {:<8} {:>5}  {:>8.3} {:>6.1}% {:>+6.1}%   {:>8.3} {:>6.1}% {:>+6.1}%   {:>5} {:>5} {:>9.1}",
            class.map_or("all".to_string(), |c| format!("{c:?}").to_lowercase()),
            subset.len(),
            chosen.spearman,
            100.0 * chosen.error,
            100.0 * chosen.bias,
            nv.spearman,
            100.0 * nv.error,
            100.0 * nv.bias,
            dated,
            saturated,
            span
        );
        table += "\n";
        match class {
            None => all = Some((chosen, nv)),
            Some(_) => classes.push((class, chosen, nv)),
        }
    }
    eprint!("{table}");
    let nan = Figures {
        spearman: f64::NAN,
        error: f64::NAN,
        bias: f64::NAN,
    };
    let (all, all_naive) = all.unwrap_or((nan, nan));
    classes.push((None, all, all_naive));
    classes
}

/// The adaptive policy of the test: visits between one minute and 180 days apart (the slowest
/// page, one change in 60 days, wants `3/λ` = 180 days with a dated page), one day after the
/// first visit.
fn adaptive() -> Policy {
    Policy::adaptive(MINUTE, 180.0 * DAY, DAY)
}

/// `choose()` dated exactly the pages of honest servers: the plausibility test rejected every
/// server that sends "now" and no honest one.
#[track_caller]
fn dated_exactly_the_honest(pages: &[Page]) {
    for p in pages {
        let dated = p.chosen.method == Method::LastModified;
        assert_eq!(dated, p.server == Server::Honest, "{:?}", p.chosen);
    }
}

/// The seed's Poisson process: one mean for every page, one day.
fn poisson() -> Policy {
    Policy::Poisson { mean: DAY }
}

#[test]
fn adaptive_schedule_estimates_a_simulated_web() {
    for (seed, name) in [(SEED_A, "seed A"), (SEED_B, "seed B (unseen)")] {
        let pages = simulate(seed, &adaptive());
        dated_exactly_the_honest(&pages);
        for (class, chosen, nv) in report(&format!("adaptive policy, {name}"), &pages) {
            assert!(chosen.spearman >= 0.9, "{name}, {class:?}: {chosen:?}");
            assert!(
                chosen.error < nv.error,
                "{name}, {class:?}: {chosen:?} {nv:?}"
            );
            if class.is_none() {
                // The Done-when target: all pages together. The undated classes alone sit at
                // the ≈ 20 % that n = 20 change/no-change visits allow (module doc).
                assert!(chosen.error <= 0.20, "{name}: {chosen:?}");
            } else {
                assert!(chosen.error <= 0.23, "{name}, {class:?}: {chosen:?}");
            }
        }
    }
}

#[test]
fn poisson_schedule_estimates_a_simulated_web() {
    // Spearman holds (the fast pages' saturated estimates still rank above the slow pages'),
    // the median error does not: about 35 %, from the pages one mean cannot suit (module doc).
    for (seed, name) in [(SEED_A, "seed A"), (SEED_B, "seed B (unseen)")] {
        let pages = simulate(seed, &poisson());
        dated_exactly_the_honest(&pages);
        for (class, chosen, nv) in report(&format!("Poisson policy, mean 1 day, {name}"), &pages) {
            assert!(chosen.spearman >= 0.9, "{name}, {class:?}: {chosen:?}");
            assert!(
                chosen.error < nv.error,
                "{name}, {class:?}: {chosen:?} {nv:?}"
            );
        }
    }
}
