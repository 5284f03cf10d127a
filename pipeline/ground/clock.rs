//! The wall clock, in the two forms the run folder stores: seconds since the epoch
//! (`crawl.sqlite`) and ISO 8601 UTC (WARC-Date, `report.json`, the run lock, search results).
//!
//! **Invariants:** the only place that reads the wall clock (`tests/e2e/tidy.rs` checks it;
//! delays and deadlines use the monotonic `Instant`); a clock before 1970 reads as 0 rather
//! than failing.

/// Now, as the system's time (to compare with an HTTP date).
pub fn now_system() -> std::time::SystemTime {
    std::time::SystemTime::now()
}

/// Now, in seconds since the Unix epoch.
pub fn now_epoch() -> f64 {
    now_system()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// A time in seconds since 1970 as ISO 8601 UTC with seconds (the WARC-Date form).
pub fn iso_of(epoch: f64) -> String {
    chrono::DateTime::from_timestamp(epoch.max(0.0) as i64, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Now as ISO 8601 UTC with seconds (the WARC-Date form).
pub fn now_iso() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Reads a virtual clock: a file holding seconds since 1970 as a decimal number. Simulations
/// (`glaneur monitor --virtual-clock`) date visits by it, and a simulated web reads the same
/// file to know which version of each page to serve.
pub fn read_virtual(path: &std::path::Path) -> anyhow::Result<f64> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the virtual clock {}", path.display()))?;
    let t: f64 = text.trim().parse().with_context(|| {
        format!(
            "the virtual clock {} should hold seconds since 1970, not {:?}",
            path.display(),
            text.trim()
        )
    })?;
    if !t.is_finite() || t < 0.0 {
        anyhow::bail!("the virtual clock {} holds {t}: not a time", path.display());
    }
    Ok(t)
}

/// Moves a virtual clock to `t` (written whole, then renamed: a reader never sees half a
/// number).
pub fn set_virtual(path: &std::path::Path, t: f64) -> anyhow::Result<()> {
    use anyhow::Context;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{t:.3}\n"))
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("cannot move the virtual clock {}", path.display()))
}
