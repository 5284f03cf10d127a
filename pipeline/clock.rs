//! The wall clock, in the two forms the run folder stores: seconds since the epoch
//! (`crawl.sqlite`) and ISO 8601 UTC (WARC-Date, `report.json`, the run lock, search results).
//!
//! **Invariants:** the only place that reads the wall clock for a stored time; a clock before
//! 1970 reads as 0 rather than failing.

/// Now, in seconds since the Unix epoch.
pub fn now_epoch() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Now as ISO 8601 UTC with seconds (the WARC-Date form).
pub fn now_iso() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
