//! `glaneur verify RUN`: checks a run folder and says what is wrong with it.
//!
//! **In:** a run folder (`crawl.sqlite`, `warc/`). **Out:** a report on stdout: SQLite's own
//! integrity check, every stored response read back at the offset `crawl.sqlite` keeps for it
//! (and checked to be the response of that URL), the WARC file read from end to end (every
//! damaged stretch, not only the first), and the bytes after the last committed record that the
//! next run will recover; the query index (`index/`) and the search index (`search/`) against
//! the checksums written with them (`SHA256SUMS`). With `--refetch`, the pages whose stored
//! response is damaged go back to the frontier, so that the next `glaneur run` fetches them
//! again (a damaged index is rebuilt by `glaneur run … --from export`).
//!
//! **Invariants:** without `--refetch` nothing the folder holds is changed (`crawl.sqlite` is
//! opened read-only; a folder one may not write to is checked without the lock); the folder is
//! locked like a run otherwise (a crawl in progress is not checked, it is named); the damaged
//! bytes themselves are never rewritten or cut (they stay in the WARC file, no longer referred
//! to), and the committed horizon is lowered only to the end of a file cut shorter than it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use crate::ground::runlock::RunLock;
use crate::store::Store;
use crate::warc::{self, WARC_NAME};

/// Problems shown in full before "… and N more".
const SHOWN: usize = 20;

/// What `glaneur verify` found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// The report, as printed.
    pub text: String,
    /// Pages whose stored response cannot be read (or is another URL's).
    pub damaged_pages: u64,
    /// Problems with crawl.sqlite itself.
    pub database_problems: u64,
    /// Damaged stretches of the WARC file (referred to by a page or not).
    pub damaged_stretches: u64,
    /// Pages put back in the frontier (`--refetch`).
    pub requeued: u64,
    /// Files of `index/` and `search/` missing, changed or not written with them.
    pub damaged_index_files: u64,
}

impl Verdict {
    /// Whether the folder holds everything its database says it does.
    pub fn sound(&self) -> bool {
        self.damaged_pages == 0 && self.database_problems == 0 && self.damaged_index_files == 0
    }

    /// Sound, or every damaged page queued to be fetched again (exit code 0).
    pub fn settled(&self) -> bool {
        self.database_problems == 0
            && self.damaged_pages == self.requeued
            && self.damaged_index_files == 0
    }
}

/// Checks `run_dir`; with `refetch`, queues the damaged pages to be fetched again.
pub fn verify(run_dir: &Path, refetch: bool) -> anyhow::Result<Verdict> {
    let db_path = run_dir.join("crawl.sqlite");
    if !db_path.is_file() {
        anyhow::bail!(
            "{} is not a run folder: it has no crawl.sqlite",
            run_dir.display()
        );
    }
    // A folder one may not write to (an archived run) is still checked, without the lock:
    // nothing can crawl in it either. `--refetch` writes, so it needs the lock.
    let _lock = match RunLock::acquire(run_dir) {
        Ok(lock) => Some(lock),
        Err(e) if !refetch && is_permission(&e) => None,
        Err(e) => return Err(e),
    };
    let mut v = Verdict::default();
    let mut out = String::new();
    let _ = writeln!(out, "glaneur verify {}", run_dir.display());

    let Some(mut store) = open_store(run_dir, refetch, &mut v, &mut out)? else {
        v.text = out;
        return Ok(v);
    };

    let warc_path = run_dir.join("warc").join(WARC_NAME);
    let stored = store.stored_records()?;
    let horizon = store.warc_horizon()?;
    let scan = if warc_path.is_file() {
        Some(warc::scan(&warc_path)?)
    } else {
        None
    };
    let Some(scan) = scan else {
        if stored.is_empty() {
            let _ = writeln!(
                out,
                "  no WARC file and no stored response: nothing fetched yet"
            );
        } else {
            v.damaged_pages = stored.len() as u64;
            let _ = writeln!(
                out,
                "  {} is missing: the {} stored responses are lost",
                warc_path.display(),
                stored.len()
            );
        }
        return finish(
            run_dir,
            v,
            out,
            &mut store,
            refetch,
            stored.iter().map(|r| r.id).collect(),
            None,
        );
    };

    // The WARC file from end to end.
    let size = scan.len;
    let _ = writeln!(
        out,
        "  {}: {} bytes, {} records{}",
        warc_path.display(),
        size,
        scan.records.len(),
        if scan.damaged.is_empty() {
            ", readable from end to end".to_string()
        } else {
            format!(", {} damaged stretches", scan.damaged.len())
        }
    );
    v.damaged_stretches = scan.damaged.len() as u64;
    // The file was cut shorter than what crawl.sqlite committed (a lost tail): the crawl
    // refuses to append to it until the horizon is brought back to what is there.
    let short = size < horizon;
    if short {
        v.database_problems += 1;
        let _ = writeln!(
            out,
            "  the file is {size} bytes long, but crawl.sqlite committed records up to byte \
             {horizon}: its end was lost (the pages concerned are listed below; --refetch \
             queues them and lets the crawl go on from what is left)"
        );
    }
    let bad = stored_responses(&scan, &stored, &mut out);
    v.damaged_pages = bad.len() as u64;
    damaged_stretches(&scan, &stored, horizon, &mut out);
    let ids = bad.iter().map(|(id, _)| *id).collect();
    // Where the last readable record ends: what the crawl may go on from.
    let readable_end = scan
        .records
        .last()
        .map_or(0, |r| r.offset + r.length)
        .min(size);
    finish(
        run_dir,
        v,
        out,
        &mut store,
        refetch,
        ids,
        short.then_some(readable_end),
    )
}

/// `crawl.sqlite` opened (read-only without `refetch`) and checked by SQLite; None when it
/// cannot be opened (said in `out`).
fn open_store(
    run_dir: &Path,
    refetch: bool,
    v: &mut Verdict,
    out: &mut String,
) -> anyhow::Result<Option<Store>> {
    let db_path = run_dir.join("crawl.sqlite");
    let opened = if refetch {
        Store::open(&db_path)
    } else {
        Store::open_read_only(&db_path)
    };
    let store = match opened {
        Ok(store) => store,
        Err(e) if format!("{e:#}").contains("storage format") => {
            anyhow::bail!("{e:#}: use the glaneur that wrote it to check it");
        }
        Err(e) => {
            v.database_problems += 1;
            let _ = writeln!(out, "  crawl.sqlite: cannot be opened: {e:#}");
            let _ = writeln!(
                out,
                "result: crawl.sqlite is damaged; the WARC file still holds every response \
                 (`glaneur run --replay {}` on a new --out folder crawls them again offline)",
                run_dir.join("warc").join(WARC_NAME).display()
            );
            return Ok(None);
        }
    };
    let problems = store.integrity_check()?;
    if problems.is_empty() {
        let _ = writeln!(out, "  crawl.sqlite: integrity check ok");
    } else {
        v.database_problems = problems.len() as u64;
        let _ = writeln!(
            out,
            "  crawl.sqlite: {} problems found by SQLite's integrity check:",
            problems.len()
        );
        for p in problems.iter().take(SHOWN) {
            let _ = writeln!(out, "    {p}");
        }
        more(out, problems.len());
    }
    Ok(Some(store))
}

/// Every stored response read back where crawl.sqlite says it is; returns the pages whose
/// response cannot be, with why.
fn stored_responses(
    scan: &warc::Scan,
    stored: &[crate::store::StoredRecord],
    out: &mut String,
) -> Vec<(i64, String)> {
    let by_offset: HashMap<u64, &warc::Scanned> =
        scan.records.iter().map(|r| (r.offset, r)).collect();

    // Every stored response, where crawl.sqlite says it is.
    let bad: Vec<(i64, String)> = stored
        .iter()
        .filter_map(|row| {
            let why = record_problem(row, scan, &by_offset)?;
            Some((row.id, format!("{} (url id {}): {why}", row.url, row.id)))
        })
        .collect();
    if bad.is_empty() {
        let _ = writeln!(
            out,
            "  stored responses: {} read back, each the response of its URL",
            stored.len()
        );
    } else {
        let _ = writeln!(
            out,
            "  stored responses: {} of {} cannot be read back:",
            bad.len(),
            stored.len()
        );
        for (_, line) in bad.iter().take(SHOWN) {
            let _ = writeln!(out, "    {line}");
        }
        more(out, bad.len());
    }
    bad
}

/// What is wrong with a stored response, where crawl.sqlite says it is (None: nothing).
fn record_problem(
    row: &crate::store::StoredRecord,
    scan: &warc::Scan,
    by_offset: &HashMap<u64, &warc::Scanned>,
) -> Option<String> {
    let size = scan.len;
    if row.file != WARC_NAME {
        Some(format!(
            "it is in {}, which glaneur did not write",
            row.file
        ))
    } else {
        match by_offset.get(&row.offset) {
            None => Some(
                match scan
                    .damaged
                    .iter()
                    .find(|d| (d.start..d.end.max(d.start + 1)).contains(&row.offset))
                {
                    Some(d) => {
                        format!("its record at offset {} is damaged ({})", row.offset, d.why)
                    }
                    None if row.offset >= size => format!(
                        "its record at offset {} is past the end of the file ({size} bytes)",
                        row.offset
                    ),
                    None => format!("no record starts at offset {}", row.offset),
                },
            ),
            Some(r) if r.record_type != "response" => Some(format!(
                "offset {} holds a {} record, not a response",
                row.offset, r.record_type
            )),
            Some(r) if !same_url(r.target_uri.as_deref(), &row.url) => Some(format!(
                "offset {} holds the response of {}",
                row.offset,
                r.target_uri.as_deref().unwrap_or("no URL")
            )),
            Some(r) if r.length != row.length => Some(format!(
                "the record at offset {} is {} bytes long, crawl.sqlite says {}",
                row.offset, r.length, row.length
            )),
            Some(_) => None,
        }
    }
}

/// The damaged stretches of the WARC file, and the bytes after the last committed record.
fn damaged_stretches(
    scan: &warc::Scan,
    stored: &[crate::store::StoredRecord],
    horizon: u64,
    out: &mut String,
) {
    let size = scan.len;
    let referred: std::collections::HashSet<u64> = stored.iter().map(|r| r.offset).collect();
    for d in &scan.damaged {
        let hit = referred.iter().any(|&o| o >= d.start && o < d.end);
        let _ = writeln!(
            out,
            "  damaged bytes {}..{} ({} bytes){}: {}",
            d.start,
            d.end,
            d.end - d.start,
            if d.start >= horizon {
                ", after the last committed record (the next run cuts them and fetches again)"
            } else if hit {
                ""
            } else {
                ", no page refers to them (left in place)"
            },
            d.why
        );
    }
    if horizon < size && scan.damaged.iter().all(|d| d.start < horizon) {
        let _ = writeln!(
            out,
            "  {} bytes after the last committed record: responses of a stopped crawl, which \
             the next run settles without fetching them again",
            size - horizon
        );
    }
}

/// `index/` and `search/` against their checksums.
fn check_indexes(run_dir: &Path, v: &mut Verdict, out: &mut String) -> anyhow::Result<()> {
    for name in ["index", "search"] {
        let dir = run_dir.join(name);
        if !dir.is_dir() {
            continue;
        }
        let found = crate::ground::checksums::check(&dir)?;
        if found.unlisted {
            let _ = writeln!(
                out,
                "  {name}/: no {} (written by an older glaneur): not checked; `--from export` \
                 writes it",
                crate::ground::checksums::SUMS
            );
        } else if found.problems.is_empty() {
            let _ = writeln!(
                out,
                "  {name}/: {} files match their checksums",
                found.intact
            );
        } else {
            v.damaged_index_files += found.problems.len() as u64;
            let _ = writeln!(
                out,
                "  {name}/: {} files do not match their checksums (queries on it may give \
                 wrong answers):",
                found.problems.len()
            );
            for p in found.problems.iter().take(SHOWN) {
                let _ = writeln!(out, "    {p}");
            }
            more(out, found.problems.len());
        }
    }
    Ok(())
}

/// The verdict line, and the re-queueing when asked.
fn finish(
    run_dir: &Path,
    mut v: Verdict,
    mut out: String,
    store: &mut Store,
    refetch: bool,
    damaged: Vec<i64>,
    lost_tail: Option<u64>,
) -> anyhow::Result<Verdict> {
    check_indexes(run_dir, &mut v, &mut out)?;
    if refetch && (!damaged.is_empty() || lost_tail.is_some()) {
        for &id in &damaged {
            store.requeue_damaged(id)?;
        }
        // Never lowered otherwise: committed records no page refers to (robots.txt, requests)
        // are not cut either.
        if let Some(end) = lost_tail {
            store.clamp_warc_horizon(end)?;
            v.database_problems = v.database_problems.saturating_sub(1);
            let _ = writeln!(
                out,
                "  --refetch: the crawl goes on from byte {end}, the end of the last readable \
                 record"
            );
        }
        store
            .commit()
            .context("cannot record the pages to fetch again")?;
        v.requeued = damaged.len() as u64;
        let _ = writeln!(
            out,
            "  --refetch: {} pages are back in the frontier; the next `glaneur run` (same topic, \
             same --out) fetches them again",
            damaged.len()
        );
    }
    let verdict = if v.sound() {
        "result: sound".to_string()
    } else if v.damaged_index_files > 0 && v.damaged_pages == 0 && v.database_problems == 0 {
        format!(
            "result: the indexes are damaged; `glaneur run TOPIC --out {} --from export` \
             rebuilds them from the stored documents",
            run_dir.display()
        )
    } else if v.requeued > 0 && v.database_problems == 0 {
        format!(
            "result: {} damaged pages queued again; run the crawl to fetch them",
            v.requeued
        )
    } else if v.damaged_pages > 0 {
        format!(
            "result: {} pages have no readable stored response; `glaneur verify --refetch` \
             queues them to be fetched again",
            v.damaged_pages
        )
    } else {
        "result: crawl.sqlite is damaged".to_string()
    };
    let _ = writeln!(out, "{verdict}");
    v.text = out;
    Ok(v)
}

/// Whether an error is that the folder may not be written to.
fn is_permission(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| {
            matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            )
        })
    })
}

fn more(out: &mut String, n: usize) {
    if n > SHOWN {
        let _ = writeln!(out, "    … and {} more", n - SHOWN);
    }
}

/// Whether a record's target URI is the page's URL (both parsed: the record holds the URL
/// as it was requested, the database its canonical form, which parse alike).
fn same_url(target: Option<&str>, url: &str) -> bool {
    let Some(target) = target else { return false };
    if target == url {
        return true;
    }
    match (url::Url::parse(target), url::Url::parse(url)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
