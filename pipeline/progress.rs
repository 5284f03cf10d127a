//! Progress bars on stderr: the crawl (pages fetched, on topic, dropped, pages per second) and
//! one bar per later stage.
//!
//! **Invariants:** nothing is drawn when stderr is not a terminal (logs and CI stay clean);
//! counters are atomics, so fetch tasks could update them without locks.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The crawl's live counters and bar.
pub struct Progress {
    bar: ProgressBar,
    visible: bool,
    started: Instant,
    fetched: AtomicU64,
    on_topic: AtomicU64,
    dropped: AtomicU64,
}

impl Progress {
    /// A crawl bar (hidden when stderr is not a terminal, or when `quiet`).
    pub fn new(quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = if visible {
            let bar = ProgressBar::new_spinner();
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} crawl  {msg}  [{elapsed}]")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            visible,
            started: Instant::now(),
            fetched: AtomicU64::new(0),
            on_topic: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// One page request finished; `on_topic` when its text satisfies the formula.
    pub fn fetched(&self, on_topic: bool) {
        self.fetched.fetch_add(1, Ordering::Relaxed);
        if on_topic {
            self.on_topic.fetch_add(1, Ordering::Relaxed);
        }
        self.redraw();
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
        let fetched = self.fetched.load(Ordering::Relaxed);
        let rate = fetched as f64 / self.started.elapsed().as_secs_f64().max(0.001);
        self.bar.set_message(format!(
            "fetched {fetched} · on topic {} · dropped {} · {rate:.1} pages/s",
            self.on_topic.load(Ordering::Relaxed),
            self.dropped.load(Ordering::Relaxed),
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
        let template = format!("{name:<8} {{bar:30}} {{pos}}/{{len}} {{per_sec}} [{{elapsed}}]");
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    }
}
