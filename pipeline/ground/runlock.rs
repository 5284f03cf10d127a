//! The run folder's lock: one glaneur process at a time writes a run folder.
//!
//! **In:** a run folder. **Out:** `RUN/.glaneur.lock`, holding an exclusive advisory lock
//! (`flock` on Unix, `LockFileEx` on Windows) for as long as the [`RunLock`] lives, and naming
//! the process that holds it (PID, start time, command line).
//!
//! **Invariants:**
//! - two processes never write one run folder at once: the second one gets an error naming
//!   the folder and the holder, before it has opened or written anything in the folder;
//! - the lock belongs to the open file, so the operating system releases it however the holder
//!   ends (normal exit, error, Ctrl-C, `kill -9`, power loss): a lock left by a dead process
//!   is never in the way, and the file's stale content only serves to say whose it was;
//! - the lock file is never deleted (deleting it would let a third process lock a new file
//!   while the second still holds the old one).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// File name of the lock, inside the run folder.
pub const LOCK_NAME: &str = ".glaneur.lock";

/// A held lock on a run folder (released when dropped, or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    /// Kept open: closing the file releases the lock.
    _file: File,
    path: PathBuf,
    /// What the lock file said when this process took it over from a process that had ended
    /// without releasing it (killed, crashed): its first line. A process that ends normally
    /// empties the file when it lets the lock go.
    pub stale: Option<String>,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Best effort: a file left non-empty only makes the next run say it took over.
        let _ = self._file.set_len(0);
    }
}

impl RunLock {
    /// Takes the lock of `run_dir` (which must exist), or fails naming the process that holds
    /// it.
    pub fn acquire(run_dir: &Path) -> anyhow::Result<RunLock> {
        let path = run_dir.join(LOCK_NAME);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| {
                format!(
                    "cannot create the lock file {} (is the run folder writable?)",
                    path.display()
                )
            })?;
        // A holder that has not written its name yet is a process taking the lock this very
        // moment, or `glaneur serve` looking whether a run is at work (it lets go at once):
        // asked again for half a second before giving up.
        let mut tries = 0;
        let locked = loop {
            match file.try_lock() {
                Err(TryLockError::WouldBlock) if tries < 10 && read_holder(&mut file).is_none() => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                other => break other,
            }
        };
        match locked {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                anyhow::bail!(
                    "the run folder {} is in use by another glaneur ({}): wait for it to end, \
                     or stop it (Ctrl-C), or choose another --out folder",
                    run_dir.display(),
                    holder.unwrap_or_else(|| "a process that has not written its name yet".into())
                );
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        let stale = read_holder(&mut file);
        let me = format!(
            "process {} since {}: {}\n",
            std::process::id(),
            crate::ground::clock::now_iso(),
            command_line()
        );
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)).map(|_| ()))
            .and_then(|()| file.write_all(me.as_bytes()))
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write the lock file {}", path.display()))?;
        Ok(RunLock {
            _file: file,
            path,
            stale,
        })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a process holds the lock of `run_dir` now, and who (its line of the lock file).
    /// The lock is tried and let go at once, the file left as it is (a killed run's line stays
    /// for the next run to report).
    pub fn holder(run_dir: &Path) -> Option<String> {
        let mut file = File::open(run_dir.join(LOCK_NAME)).ok()?;
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(TryLockError::WouldBlock) => Some(
                read_holder(&mut file)
                    .unwrap_or_else(|| "a process that has not written its name yet".into()),
            ),
            Err(TryLockError::Error(_)) => None,
        }
    }
}

/// The holder's line as written in the lock file (None when empty or unreadable).
fn read_holder(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(4096).read_to_string(&mut text).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// This process's command line, one line, shortened, without passwords (`--store`'s).
fn command_line() -> String {
    let mut line = crate::ground::secrets::redact(&std::env::args().collect::<Vec<_>>().join(" "));
    line.retain(|c| !c.is_control());
    if line.chars().count() > 300 {
        line = line.chars().take(300).collect::<String>() + "…";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        assert!(first.stale.is_none());
        let err = format!("{:#}", RunLock::acquire(dir.path()).unwrap_err());
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(first);
        // Released, and emptied by an orderly end: the next one takes it without a word.
        let second = RunLock::acquire(dir.path()).unwrap();
        assert!(second.stale.is_none(), "{:?}", second.stale);
        assert!(second.path().ends_with(LOCK_NAME));
        drop(second);
        // A holder that ended without letting go (killed: its line is still there) is named.
        std::fs::write(
            dir.path().join(LOCK_NAME),
            "process 999999 since 2026-11-25T10:00:00Z: glaneur run\n",
        )
        .unwrap();
        let third = RunLock::acquire(dir.path()).unwrap();
        assert_eq!(
            third.stale.as_deref(),
            Some("process 999999 since 2026-11-25T10:00:00Z: glaneur run")
        );
    }
}
