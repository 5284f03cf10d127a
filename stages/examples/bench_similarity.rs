//! Benchmark driver for `scripts/bench-similarity` (not a user tool).
//!
//! **In:** a file of documents, one per line, tokens separated by spaces; options as
//! `KEY=VALUE` arguments (`threshold`, `top_k`, `min_df`, `max_df`, `stoplist`, `out`).
//! **Out:** phase timings and peak memory on stdout (one `key value` per line); with `out=DIR`,
//! `DIR/threshold.csv` and `DIR/topk.csv` (the two similarity graphs) and `DIR/vocab.tsv`.
//! **Invariants:** the matrix and graphs are made by the library functions the pipeline uses,
//! in the same order (build, filter, similarity), so the timings are the pipeline's.

use std::collections::HashMap;
use std::time::Instant;

use stages::export::matrix::{MatrixBuilder, MatrixOptions};
use stages::export::similarity::{pairs_csv, similar_pairs};

fn peak_rss_kib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .ok_or("usage: bench_similarity DOCS.txt [key=value]...")?;
    let opts: HashMap<String, String> = args
        .filter_map(|a| {
            a.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let get = |k: &str, d: &str| opts.get(k).cloned().unwrap_or_else(|| d.to_string());
    let threshold: f64 = get("threshold", "0.5").parse()?;
    let top_k: usize = get("top_k", "10").parse()?;
    let stoplist = get("stoplist", "fr,en");
    let options = MatrixOptions {
        lowercase: true,
        stoplist: (!stoplist.is_empty()).then_some(stoplist),
        min_df: get("min_df", "2").parse()?,
        max_df_ratio: get("max_df", "0.5").parse()?,
        max_vocabulary: None,
    };

    let t = Instant::now();
    let text = std::fs::read_to_string(&input)?;
    println!("read_s {:.3}", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let mut builder = MatrixBuilder::with_options(options)?;
    for line in text.lines() {
        let tokens: Vec<&str> = line.split(' ').filter(|t| !t.is_empty()).collect();
        builder.add(&tokens);
    }
    drop(text);
    let matrix = builder.filtered();
    println!("matrix_s {:.3}", t.elapsed().as_secs_f64());
    println!("docs {}", matrix.n_rows());
    println!("raw_vocabulary {}", builder.vocabulary().len());
    println!("raw_nnz {}", builder.nnz());
    println!("vocabulary {}", matrix.n_cols());
    println!("nnz {}", matrix.nnz());
    drop(builder);

    let t = Instant::now();
    let by_threshold = similar_pairs(&matrix, threshold, None);
    println!("threshold_s {:.3}", t.elapsed().as_secs_f64());
    println!("threshold_pairs {}", by_threshold.len());

    let t = Instant::now();
    let by_top_k = similar_pairs(&matrix, threshold, Some(top_k));
    println!("topk_s {:.3}", t.elapsed().as_secs_f64());
    println!("topk_pairs {}", by_top_k.len());
    println!("peak_rss_kib {}", peak_rss_kib().trim_end_matches(" kB"));

    if let Some(dir) = opts.get("out") {
        std::fs::create_dir_all(dir)?;
        std::fs::write(format!("{dir}/threshold.csv"), pairs_csv(&by_threshold))?;
        std::fs::write(format!("{dir}/topk.csv"), pairs_csv(&by_top_k))?;
        std::fs::write(format!("{dir}/vocab.tsv"), matrix.vocabulary_tsv())?;
    }
    Ok(())
}
