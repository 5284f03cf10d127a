//! `glaneur seeds TOPIC`: the seeds gathered as `glaneur run` gathers them, shown for review
//! and written to `RUN/seeds-review.tsv`, whose `keep` column the next `glaneur run` obeys.
//!
//! **In:** a topic, its run folder (`--out`), `--proxy`, `--fetch`. **Out:** the seeds in
//! `crawl.sqlite` (the seeds stage itself: a later `glaneur run` sends no search request
//! again), the review file (`crate::seeds::review`), a table on stdout.
//!
//! **Invariants:** the run folder is locked as by `glaneur run`; the review file the user
//! edited keeps every choice (new seeds are appended); without `--fetch` no page is requested,
//! with it one request per seed the review keeps, polite (`fetch.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stages::focus::score::Scope;

use crate::commands::run;
use crate::ground::progress::Progress;
use crate::ground::runlock::RunLock;
use crate::seeds::review::{self, Preview, SeedLine, Written};
use crate::store::Store;
use crate::topic::{self, Topic};

mod fetch;

/// What `glaneur seeds TOPIC` was asked.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Topic file or folder.
    pub topic: PathBuf,
    /// Run folder; default: `run/` beside the topic file.
    pub out: Option<PathBuf>,
    /// HTTP proxy for every request.
    pub proxy: Option<String>,
    /// Fetch each seed's page for its title and the formula's verdict.
    pub fetch: bool,
    /// No progress lines.
    pub quiet: bool,
}

/// Gathers the seeds, writes or updates the review file and prints the table; returns whether
/// any seed would be crawled.
pub fn review(options: &ReviewOptions) -> anyhow::Result<bool> {
    let topic = Topic::load(&options.topic)?;
    topic::check_files(&topic, false)?;
    for warning in topic::warnings(&topic) {
        eprintln!("glaneur: warning: {warning}");
    }
    let run_dir = options.out.clone().unwrap_or_else(|| topic.dir.join("run"));
    std::fs::create_dir_all(&run_dir)
        .map_err(|e| anyhow::anyhow!("cannot create the run folder {}: {e}", run_dir.display()))?;
    let lock = RunLock::acquire(&run_dir)?;
    let outcome = review_locked(options, &topic, &run_dir)
        .map_err(|error| run::name_the_cause(error, &run_dir));
    drop(lock);
    outcome
}

/// [`review`], with the run folder locked.
fn review_locked(options: &ReviewOptions, topic: &Topic, run_dir: &Path) -> anyhow::Result<bool> {
    let db = run_dir.join("crawl.sqlite");
    // A folder a crawl already archived into must have its database, as for `glaneur run`.
    let archived = std::fs::metadata(run_dir.join("warc").join(crate::warc::WARC_NAME))
        .is_ok_and(|m| m.len() > 0);
    let mut store = if archived && db.exists() {
        Store::open_crawled(&db)?
    } else {
        Store::open(&db)?
    };
    store.set_meta("topic", &topic.to_toml())?;
    store.set_meta("topic_name", &topic.file.name)?;
    let runtime = run::crawl_runtime()?;
    let progress = Progress::new(options.quiet);
    let gathered = run::gather_seeds(
        topic,
        &mut store,
        &runtime,
        options.proxy.as_deref(),
        &progress,
    )?;
    store.commit()?;
    let scope = Scope::new(&topic.file.domains.allow, &topic.file.domains.deny);
    let lines = review::seed_lines(&store, &scope)?;
    let mut written = review::write(&mut store, run_dir, &lines, &HashMap::new())?;
    let mut previews = HashMap::new();
    if options.fetch {
        // Only the seeds the review keeps: a `no` is not worth a request.
        let kept: Vec<SeedLine> = lines
            .iter()
            .filter(|l| written.keep.get(&l.id).copied().flatten() == Some(true))
            .cloned()
            .collect();
        let fetcher = fetch::fetcher(topic, options.proxy.as_deref())?;
        previews = runtime.block_on(fetch::previews(topic, &mut store, &fetcher, &kept))?;
        let again = review::write(&mut store, run_dir, &lines, &previews)?;
        written.keep = again.keep;
    }
    let mut out = String::new();
    table(&lines, &written, &previews, options.fetch, &mut out);
    footer(options, &written, &mut out);
    for problem in &gathered.problems {
        out.push_str(&format!("  note: {problem}\n"));
    }
    use std::io::Write;
    // A reader that went away (`glaneur seeds … | head`) is not an error.
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(lines
        .iter()
        .any(|l| l.in_scope && written.keep.get(&l.id).copied().flatten() == Some(true)))
}

/// At most `max` characters of `text`, cut with `…`.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The seeds as a table: keep, url, sources, engines, query, rank, scope (and with `--fetch`,
/// title and verdict), columns as wide as their longest cell within a cap.
fn table(
    lines: &[SeedLine],
    written: &Written,
    previews: &HashMap<i64, Preview>,
    fetched: bool,
    out: &mut String,
) {
    let mut header = vec![
        "keep", "url", "sources", "engines", "queries", "rank", "scope",
    ];
    let mut caps = vec![14, 70, 28, 14, 34, 4, 36];
    if fetched {
        header.extend(["title", "verdict"]);
        caps.extend([40, 40]);
    }
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let keep = match written.keep.get(&l.id).copied().flatten() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "no (deleted)",
            };
            let mut row = vec![
                keep.to_string(),
                l.url.clone(),
                l.sources.clone(),
                l.engines.clone(),
                l.queries.clone(),
                l.rank.map(|r| r.to_string()).unwrap_or_default(),
                l.scope.clone(),
            ];
            if fetched {
                let p = previews.get(&l.id).or(l.known.as_ref());
                let (title, verdict) = match p {
                    Some(p) => (p.title.clone(), p.verdict.clone()),
                    None if !l.in_scope => (String::new(), "not fetched: off-domain".into()),
                    None => (String::new(), "not fetched: keep = no".into()),
                };
                row.extend([title, verdict]);
            }
            row.into_iter()
                .zip(&caps)
                .map(|(cell, &cap)| cut(&cell, cap))
                .collect()
        })
        .collect();
    let widths = crate::explore::column_widths(&header, &rows);
    let mut line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!("{c}{}", " ".repeat(w.saturating_sub(c.chars().count()))))
            .collect();
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(header.iter().map(|h| h.to_string()).collect());
    for row in rows {
        line(row);
    }
}

/// What was written and what to do next.
fn footer(options: &ReviewOptions, written: &Written, out: &mut String) {
    let yes = written.keep.values().filter(|k| **k == Some(true)).count();
    let no = written.keep.len() - yes;
    let path = written.path.display();
    out.push('\n');
    if written.existed {
        out.push_str(&format!(
            "kept your choices in {path}: {yes} to crawl, {no} dropped (no, or line deleted)"
        ));
        if written.appended > 0 {
            out.push_str(&format!(
                "; {} seeds found since were added at its end",
                written.appended
            ));
        }
        out.push('\n');
    } else {
        out.push_str(&format!(
            "wrote {path}: {yes} seeds to crawl, {no} off-domain (keep = no)\n"
        ));
    }
    let mut next = format!("glaneur run {}", options.topic.display());
    if let Some(dir) = &options.out {
        next.push_str(&format!(" --out {}", dir.display()));
    }
    out.push_str(&format!(
        "edit its `keep` column (yes or no; a deleted line is a no), then `{next}`: it crawls \
         only the seeds kept (docs/guide/seeds.md)\n"
    ));
}
