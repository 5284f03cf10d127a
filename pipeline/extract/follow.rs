//! Extraction follows the crawl: while `glaneur run` fetches pages, a reader thread reads the
//! pages the crawl has committed (pass 1 of the extract stage: decoding, cleaning, paragraph
//! languages) with the CPU the crawl leaves idle, so the extract stage that follows finds them
//! read.
//!
//! **In:** the ids of the pages the crawl commits (see `Store::listen_stored`), the run
//! folder's WARC file, a read-only connection to its store. **Out:** `extract-follow.jsonl`:
//! the extract cache's stamp line, then one pass-1 line per page read, in the order read. The
//! extract stage takes a line for a page only on the conditions of its own cache (same stamp,
//! same stored copy, same `WARC-Record-ID` read back), then removes the file once its pass 1
//! has become the run's cache.
//!
//! **Invariants:** the crawl never waits for the reader (it runs only on idle CPU, and a
//! batch it has no room for is left to the extract stage); the lines are exactly what pass 1
//! computes from the same stored copies, so the extraction's outputs are those of a run in
//! turns; a run stopped at any point leaves whole lines (a torn last line is cut off when the
//! resumed crawl's reader reopens the file, or skipped by the stage); a file of another build
//! or reading is started over.

use std::io::{BufRead, Seek, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use anyhow::Context;

use super::cache::followed_path;
use super::stage::{Reading, Reused, cache_stamp, read_page};
use super::{Listed, Spilled};
use crate::store::Store;
use crate::topic::Topic;

/// Batches of committed pages waiting for the reader (a commit every second or so, and
/// batches the reader has no room for are read by the extract stage instead).
const WAITING_BATCHES: usize = 256;

/// The reader thread, started before the crawl.
pub struct Follower {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<anyhow::Result<u64>>,
}

/// Starts the reader of the run folder `run_dir` (whose store is `store`); the crawl sends it
/// the committed pages through the returned sender (see `Store::listen_stored`).
pub fn start(
    topic: &Topic,
    store: &mut Store,
    run_dir: &Path,
) -> anyhow::Result<(Follower, SyncSender<Vec<i64>>)> {
    // The stamp is taken here: it may create the store's id, which needs a writer.
    let stamp = cache_stamp(&Reading::new(topic, run_dir), store)?;
    let out = open(&followed_path(run_dir), &stamp)?;
    let db = run_dir.join("crawl.sqlite");
    let (to, from) = std::sync::mpsc::sync_channel(WAITING_BATCHES);
    let stop = Arc::new(AtomicBool::new(false));
    let (topic, run_dir, stopping) = (topic.clone(), run_dir.to_path_buf(), stop.clone());
    let thread = std::thread::Builder::new()
        .name("glaneur-reader".into())
        .spawn(move || {
            lowest_priority();
            let store = Store::open_read_only(&db)?;
            let reading = Reading::new(&topic, &run_dir);
            read_committed(
                &reading,
                &store,
                (out, &followed_path(&run_dir)),
                (from, &stopping),
            )
        })
        .context("cannot start the reader thread")?;
    Ok((Follower { stop, thread }, to))
}

impl Follower {
    /// Stops the reader after the page it is reading (the pages still waiting are the
    /// extract stage's); the pages it read.
    pub fn finish(self) -> anyhow::Result<u64> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.join() {
            Ok(read) => read,
            Err(_) => anyhow::bail!("the reader thread stopped on an internal error"),
        }
    }
}

/// The thread runs only on a core nothing else wants (Linux's `SCHED_IDLE`; elsewhere the
/// lowest priority), so the crawl never waits for it.
fn lowest_priority() {
    // A failure (a platform without priorities) leaves the thread as it is.
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
            set_thread_priority_and_policy, thread_native_id,
        };
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        if set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle).is_ok() {
            return;
        }
    }
    if let Ok(lowest) = thread_priority::ThreadPriorityValue::try_from(0u8) {
        let _ = thread_priority::set_current_thread_priority(
            thread_priority::ThreadPriority::Crossplatform(lowest),
        );
    }
}

/// The reader's loop: each committed page read and written, until told to stop or the crawl
/// is gone. The pages read.
fn read_committed(
    reading: &Reading<'_>,
    store: &Store,
    (mut out, path): (std::io::BufWriter<std::fs::File>, &Path),
    (from, stop): (Receiver<Vec<i64>>, &AtomicBool),
) -> anyhow::Result<u64> {
    let unused = Reused::default();
    let mut read = 0u64;
    let write_error = |e: std::io::Error| {
        anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
    };
    'batches: while !stop.load(Ordering::Relaxed) {
        let ids = match from.recv_timeout(Duration::from_millis(200)) {
            Ok(ids) => ids,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        for id in ids {
            if stop.load(Ordering::Relaxed) {
                break 'batches;
            }
            // A page the listing leaves out (a sitemap, a feed) is not read.
            let Some(page) = store.stored_page(id)? else {
                continue;
            };
            let spilled: Spilled = read_page(reading, Listed::Fresh(page), &unused)?;
            serde_json::to_writer(&mut out, &spilled)?;
            out.write_all(b"\n").map_err(write_error)?;
            read += 1;
        }
        // Whole lines reach the file batch by batch: a stopped run keeps what was read.
        out.flush().map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    Ok(read)
}

/// The reader's file opened for appending when it was written with `stamp` (its torn last
/// line cut off), else started over with the stamp line.
fn open(path: &Path, stamp: &str) -> anyhow::Result<std::io::BufWriter<std::fs::File>> {
    let context = || format!("cannot write {}", path.display());
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(context)?;
    let whole = whole_lines(&file, stamp).with_context(context)?;
    let end = match whole {
        Some(end) => end,
        None => {
            file.set_len(0)
                .and_then(|()| file.rewind())
                .with_context(context)?;
            file.write_all(stamp.as_bytes())
                .and_then(|()| file.write_all(b"\n"))
                .with_context(context)?;
            stamp.len() as u64 + 1
        }
    };
    file.set_len(end).with_context(context)?;
    file.seek(std::io::SeekFrom::Start(end))
        .with_context(context)?;
    Ok(std::io::BufWriter::with_capacity(1 << 20, file))
}

/// Where the file's whole lines end when its first line is `stamp`; `None` otherwise.
fn whole_lines(file: &std::fs::File, stamp: &str) -> std::io::Result<Option<u64>> {
    let mut lines = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    if lines.read_until(b'\n', &mut line)? == 0
        || line.strip_suffix(b"\n") != Some(stamp.as_bytes())
    {
        return Ok(None);
    }
    let mut end = line.len() as u64;
    loop {
        line.clear();
        let n = lines.read_until(b'\n', &mut line)?;
        if n == 0 || line.last() != Some(&b'\n') {
            return Ok(Some(end));
        }
        end += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_line_is_cut_and_another_stamp_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = followed_path(dir.path());
        std::fs::write(&path, "S\n{\"a\":1}\n{\"b\":").unwrap();
        let mut out = open(&path, "S").unwrap();
        out.write_all(b"{\"c\":3}\n").unwrap();
        drop(out);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "S\n{\"a\":1}\n{\"c\":3}\n"
        );
        drop(open(&path, "T").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "T\n");
        std::fs::write(&path, "").unwrap();
        drop(open(&path, "S").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "S\n");
    }
}
