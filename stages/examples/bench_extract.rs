//! Benchmark driver for `scripts/bench-extract` (not a user tool): main-text extraction speed
//! on pages preloaded in memory, the basis on which the Python extractors are timed.
//!
//! **In:** `[--drop-comments] [--predecoded] [--texts] [--repeat N] FILE…` (HTML files).
//! **Out:** one JSON object on stdout: `pages`, `cpu` (CPU seconds of the extraction loop,
//! user + sys, `CLOCK_PROCESS_CPUTIME_ID` as Python's `time.process_time()`), `pages_per_cpu_s`
//! and, with `--texts`, `texts`: each page's kept blocks joined by newlines (what the script
//! scores). `--repeat N` runs the loop N times (for profiling; `cpu` is then the total).
//! **Invariants:** every file is read before the clock starts; the loop does per page exactly
//! what `glaneur extract FILE` does minus I/O and JSON: [`stages::page::decode::decode`] of the
//! bytes as `text/html` at `http://localhost/NAME`, then [`stages::page::extract::extract_html`];
//! one thread. With `--predecoded` the pages are decoded (the same way) before the clock starts
//! and only the extraction is timed: the Python extractors' basis, as the script hands them
//! `str` it decoded itself.
//!
//! `cargo run --release -p stages --example bench_extract -- FILE…`

use std::time::Duration;

use rustix::time::{ClockId, clock_gettime};
use stages::page::extract::{ExtractOptions, Extracted, extract_html};

/// CPU time used by the whole process so far (user + sys).
fn process_cpu() -> Duration {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = ExtractOptions::default();
    let mut texts = false;
    let mut predecoded = false;
    let mut repeat = 1usize;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--drop-comments" => options.drop_comments = true,
            "--texts" => texts = true,
            "--predecoded" => predecoded = true,
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--repeat needs a number")?;
            }
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: bench_extract [--drop-comments] [--predecoded] [--texts] [--repeat N] FILE…"
                .into(),
        );
    }
    // The page address `glaneur extract FILE` gives a local file, and its top-level domain
    // (charset detection uses it).
    let base = url::Url::parse("http://localhost/")?;
    let mut pages = Vec::with_capacity(files.len());
    for file in &files {
        let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let name = std::path::Path::new(file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        pages.push((bytes, base.join(name)?));
    }

    let decode = |bytes: &[u8]| {
        stages::page::decode::decode(bytes, Some("text/html"), Some("localhost")).text
    };
    let decoded: Vec<String> = if predecoded {
        pages.iter().map(|(bytes, _)| decode(bytes)).collect()
    } else {
        Vec::new()
    };
    let mut results: Vec<Extracted> = Vec::with_capacity(pages.len());
    let start = process_cpu();
    for round in 0..repeat {
        for (i, (bytes, url)) in pages.iter().enumerate() {
            let extracted = match decoded.get(i) {
                Some(text) => extract_html(text, url, &options),
                None => extract_html(&decode(bytes), url, &options),
            };
            if round == 0 {
                results.push(extracted);
            }
        }
    }
    let cpu = (process_cpu() - start).as_secs_f64();

    let n = pages.len() * repeat;
    let mut out = serde_json::json!({
        "pages": n,
        "cpu": cpu,
        "pages_per_cpu_s": if cpu > 0.0 { n as f64 / cpu } else { 0.0 },
    });
    if texts {
        let texts: Vec<String> = results
            .iter()
            .map(|e| {
                e.kept()
                    .map(|b| b.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        out["texts"] = serde_json::json!(texts);
    }
    println!("{out}");
    Ok(())
}
