//! Progress on stderr: the crawl's bar toward `[crawl] max_pages` (time left, frontier, harvest
//! rate, errors, pages per second over the last seconds and overall) and one bar per later stage.
//!
//! **In:** the crawl's events (a request settled, a URL dropped) and, once a second, the number
//! of URLs queued in the store. **Out:** lines on stderr; the counters (for `live.json`); and
//! [`counted`], the "1 hit" / "2 hits" of every count a person reads.
//!
//! **Invariants:** nothing is drawn when stderr is not a terminal (logs and CI stay clean); the
//! counters are kept either way; the harvest rate is the ratio of `report.json`
//! ([`crate::ground::outcome::harvest_rate`]: pages the formula accepts ÷ HTML/text pages fetched), on
//! the crawl's reading of each page (its whole visible text) where the report reads the clean
//! text, so it says so.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How a page request ended, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetched {
    /// An HTML/text page the crawl read; whether the topic formula accepts it.
    Page {
        /// The topic formula accepts the page.
        on_topic: bool,
    },
    /// A redirect, a `304`, a file that is not HTML or text: no page, no error.
    Other,
    /// No usable answer: an HTTP error status, a timeout, a network failure.
    Error,
}

/// The window of the "last seconds" rate.
const WINDOW: Duration = Duration::from_secs(10);

/// The crawl's live counters and bar.
pub struct Progress {
    bar: ProgressBar,
    visible: bool,
    quiet: bool,
    started: Instant,
    requests: AtomicU64,
    pages: AtomicU64,
    on_topic: AtomicU64,
    errors: AtomicU64,
    dropped: AtomicU64,
    /// URLs queued in the store at the last count (`u64::MAX`: not counted yet).
    frontier: AtomicU64,
    /// (when, requests) once a second, for the rate over the last [`WINDOW`].
    samples: Mutex<std::collections::VecDeque<(Instant, u64)>>,
}

impl Progress {
    /// A crawl bar (hidden when stderr is not a terminal, or when `quiet`).
    pub fn new(quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = if visible {
            let bar = ProgressBar::new(0);
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "crawl  {bar:24} {pos}/{len} requests · {msg} · {elapsed} (~{eta} left)",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            visible,
            quiet,
            started: Instant::now(),
            requests: AtomicU64::new(0),
            pages: AtomicU64::new(0),
            on_topic: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            frontier: AtomicU64::new(u64::MAX),
            samples: Mutex::new(Default::default()),
        }
    }

    /// The crawl starts with `done` page requests already made (earlier runs) toward `budget`.
    pub fn start_crawl(&self, done: u64, budget: u64) {
        self.bar.set_length(budget);
        self.bar.set_position(done.min(budget));
        // The time left is estimated from this run's pace only.
        self.bar.reset_eta();
    }

    /// URLs queued in the store now.
    pub fn frontier(&self, queued: u64) {
        self.frontier.store(queued, Ordering::Relaxed);
        self.redraw();
    }

    /// One page request finished.
    pub fn fetched(&self, how: Fetched) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        match how {
            Fetched::Page { on_topic } => {
                self.pages.fetch_add(1, Ordering::Relaxed);
                if on_topic {
                    self.on_topic.fetch_add(1, Ordering::Relaxed);
                }
            }
            Fetched::Error => {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
            Fetched::Other => {}
        }
        self.bar.inc(1);
        self.redraw();
    }

    /// The counters now: (requests, pages, on topic, errors, dropped).
    pub fn counts(&self) -> [u64; 5] {
        [
            &self.requests,
            &self.pages,
            &self.on_topic,
            &self.errors,
            &self.dropped,
        ]
        .map(|c| c.load(Ordering::Relaxed))
    }

    /// One URL settled without a request (robots, budget, ...).
    pub fn dropped(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
        self.redraw();
    }

    fn redraw(&self) {
        if !self.visible {
            return;
        }
        let requests = self.requests.load(Ordering::Relaxed);
        let now = Instant::now();
        let recent = match self.samples.lock() {
            Ok(mut samples) => window_rate(&mut samples, now, requests),
            Err(_) => None,
        };
        let overall = requests as f64 / self.started.elapsed().as_secs_f64().max(0.001);
        let pages = self.pages.load(Ordering::Relaxed);
        let on_topic = self.on_topic.load(Ordering::Relaxed);
        let frontier = match self.frontier.load(Ordering::Relaxed) {
            u64::MAX => String::new(),
            n => format!("{} queued · ", HumanCount(n)),
        };
        let harvest = match pages {
            0 => "harvest -".to_string(),
            _ => format!("harvest {:.0} %", 100.0 * on_topic as f64 / pages as f64),
        };
        let rate = match recent {
            Some(r) => format!("{}/s now, {}/s overall", per_second(r), per_second(overall)),
            None => format!("{}/s", per_second(overall)),
        };
        self.bar.set_message(format!(
            "{frontier}{harvest} ({on_topic} of {pages} pages, whole-page reading) · {} errors · {} dropped · {rate}",
            HumanCount(self.errors.load(Ordering::Relaxed)),
            HumanCount(self.dropped.load(Ordering::Relaxed)),
        ));
    }

    /// A message above the bar (or on stderr when there is no bar).
    pub fn note(&self, message: &str) {
        if self.visible {
            self.bar.println(message);
        } else {
            eprintln!("glaneur: {message}");
        }
    }

    /// Whether a stage without a bar says how it stands in lines (stderr is not a terminal and
    /// `--quiet` was not given): a log or a pipe learns how far a long stage is.
    pub fn says_lines(&self) -> bool {
        !self.quiet && !self.visible
    }

    /// Removes the crawl bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// A bar for a later stage with `total` items.
    pub fn stage(&self, name: &str, total: u64) -> ProgressBar {
        if !self.visible {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(total);
        bar.set_draw_target(ProgressDrawTarget::stderr());
        let template = format!("{name:<8} {{bar:30}} {{pos}}/{{len}} {{rate}} [{{elapsed}}]");
        bar.set_style(
            ProgressStyle::with_template(&template)
                .map(|style| {
                    style.with_key(
                        "rate",
                        |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = write!(w, "{}/s", per_second(state.per_sec()));
                        },
                    )
                })
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    }
}

/// Requests per second over the last [`WINDOW`], from samples taken at most once a second
/// (`None` until a second has passed).
fn window_rate(
    samples: &mut std::collections::VecDeque<(Instant, u64)>,
    now: Instant,
    requests: u64,
) -> Option<f64> {
    if samples
        .back()
        .is_none_or(|&(at, _)| now.duration_since(at) >= Duration::from_secs(1))
    {
        samples.push_back((now, requests));
    }
    while samples
        .front()
        .is_some_and(|&(at, _)| now.duration_since(at) > WINDOW)
    {
        samples.pop_front();
    }
    let &(at, then) = samples.front()?;
    let span = now.duration_since(at).as_secs_f64();
    (span >= 1.0).then(|| requests.saturating_sub(then) as f64 / span)
}

/// A rate for people: no decimals from 100 on, one below, two below 1.
pub fn per_second(rate: f64) -> String {
    if !rate.is_finite() || rate <= 0.0 {
        "0".to_string()
    } else if rate >= 100.0 {
        format!("{rate:.0}")
    } else if rate >= 1.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.2}")
    }
}

/// `n` and the noun, in the singular for one: "1 hit", "2 hits" (every count a person reads).
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_formatted_for_people() {
        assert_eq!(per_second(345.1738), "345");
        assert_eq!(per_second(12.34), "12.3");
        assert_eq!(per_second(0.456), "0.46");
        assert_eq!(per_second(f64::NAN), "0");
    }

    #[test]
    fn the_recent_rate_counts_the_last_ten_seconds_only() {
        let mut samples = Default::default();
        let t0 = Instant::now();
        assert_eq!(window_rate(&mut samples, t0, 0), None);
        // 1,000 requests in the first 5 s, then 10 per second.
        let at = |s: u64| t0 + Duration::from_secs(s);
        window_rate(&mut samples, at(5), 1000);
        for s in 6..=20 {
            window_rate(&mut samples, at(s), 1000 + 10 * (s - 5));
        }
        let rate = window_rate(&mut samples, at(20), 1150).unwrap();
        assert!((rate - 10.0).abs() < 1e-9, "{rate}");
    }
}
