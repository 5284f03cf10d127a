//! A running glaneur's state for other processes: `RUN/live.json`, rewritten once a second
//! while the crawl runs and at each stage change, and `RUN/.glaneur.stop`, the file that asks
//! a running crawl to stop as Ctrl-C would (the web interface's stop button).
//!
//! **In:** the crawl's counters and servers, the stage. **Out:** `live.json` (written beside and
//! renamed in, so a reader never sees half a file); the stop request, checked once a second.
//!
//! **Invariants:** a reader needs nothing but the file (no lock, no database); writing it costs
//! the crawl one small file a second; a stop request is removed when it is honoured, so the
//! next run of the folder is not stopped by an old one.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file name of the live state in a run folder.
pub const LIVE_FILE: &str = "live.json";

/// The file whose presence asks the run working in the folder to stop (gracefully, resumable).
pub const STOP_FILE: &str = ".glaneur.stop";

/// Servers by what they are doing, at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostStates {
    /// With URLs queued and free to be asked now (waiting for a request slot).
    pub ready: u64,
    /// A request in flight.
    pub in_flight: u64,
    /// With URLs queued, waiting for their delay since the last answer (politeness).
    pub waiting_delay: u64,
    /// Resting after failures (server errors, timeouts, 429/503).
    pub backing_off: u64,
    /// Given up in this run.
    pub given_up: u64,
    /// Nothing queued.
    pub idle: u64,
}

/// A page the crawl read recently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatestPage {
    /// URL.
    pub url: String,
    /// Topic score.
    pub score: f64,
    /// The formula accepts the page as the crawl read it.
    pub on_topic: bool,
}

/// What `live.json` holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Live {
    /// The process writing the run folder.
    pub pid: u32,
    /// When this was written (seconds since 1970).
    pub at: f64,
    /// When this run (the process) started.
    pub started_at: f64,
    /// `crawl`, `extract`, `export`, `finished`, `stopped` (the crawl stopped on request or by
    /// a signal: resumable), `failed`.
    pub stage: String,
    /// Page requests settled in this run.
    pub requests: u64,
    /// Page requests made, all runs (what `[crawl] max_pages` counts).
    pub requests_total: u64,
    /// `[crawl] max_pages`.
    pub budget: u64,
    /// HTML/text pages read in this run.
    pub pages: u64,
    /// Of those, accepted by the formula as the crawl read them.
    pub on_topic: u64,
    /// Requests without a usable answer in this run.
    pub errors: u64,
    /// URLs settled without a request in this run.
    pub dropped: u64,
    /// URLs queued.
    pub queued: u64,
    /// Servers by state.
    pub hosts: HostStates,
    /// The largest queues: server, URLs queued.
    pub largest_queues: Vec<(String, u64)>,
    /// The last pages read, newest first.
    pub latest: Vec<LatestPage>,
    /// The tagging stage's progress, while it runs (and as it ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotate: Option<AnnotateLive>,
}

/// How far the tagging stage is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnnotateLive {
    /// Documents of the corpus.
    pub documents: u64,
    /// Of those, done (tagged now or before, or recorded as untagged).
    pub done: u64,
    /// Tokens tagged in this run.
    pub tokens: u64,
    /// Tokens tagged per second in this run.
    pub tokens_per_second: f64,
    /// Seconds left at that pace (None: not known yet).
    pub eta_seconds: Option<f64>,
}

/// Writes `live` as `RUN/live.json` (beside, then renamed in).
pub fn write(run_dir: &Path, live: &Live) -> anyhow::Result<()> {
    let path = run_dir.join(LIVE_FILE);
    let part = run_dir.join(".live.json.part");
    std::fs::write(&part, serde_json::to_vec(live)?)
        .and_then(|()| std::fs::rename(&part, &path))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Reads `RUN/live.json`, if there is one to read.
pub fn read(run_dir: &Path) -> Option<Live> {
    let bytes = std::fs::read(run_dir.join(LIVE_FILE)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The stop request's path in `run_dir`.
pub fn stop_file(run_dir: &Path) -> PathBuf {
    run_dir.join(STOP_FILE)
}

/// True when a stop was asked for `run_dir`; the request is removed (it is honoured once).
pub fn take_stop_request(run_dir: &Path) -> bool {
    let path = stop_file(run_dir);
    if path.exists() {
        let _ = std::fs::remove_file(&path);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_state_round_trips_and_a_stop_is_taken_once() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let live = Live {
            pid: 7,
            stage: "crawl".into(),
            requests: 12,
            largest_queues: vec![("http://a.test:80".into(), 40)],
            latest: vec![LatestPage {
                url: "http://a.test/".into(),
                score: 0.5,
                on_topic: true,
            }],
            ..Live::default()
        };
        write(dir.path(), &live).unwrap();
        assert_eq!(read(dir.path()), Some(live));
        assert!(!take_stop_request(dir.path()));
        std::fs::write(stop_file(dir.path()), b"").unwrap();
        assert!(take_stop_request(dir.path()));
        assert!(!take_stop_request(dir.path()));
    }
}
