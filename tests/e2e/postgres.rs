//! A throw-away PostgreSQL server for the tests of `glaneur worker`: `initdb` in a temporary
//! folder, `pg_ctl start` listening on a Unix socket only, stopped and removed on drop.
//!
//! The binaries are found through `GLANEUR_PG_BIN`, then `pg_config --bindir`, then Debian's
//! `/usr/lib/postgresql/VERSION/bin` (the newest); `scripts/test` installs Debian's
//! `postgresql` package when none is there. PostgreSQL refuses to run as root: as root, the
//! server runs as the `postgres` user the package creates.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    root: bool,
}

impl PgServer {
    /// Starts a server; panics with what to install when PostgreSQL is missing.
    pub fn start() -> PgServer {
        let bin = bindir().expect(
            "PostgreSQL's server binaries (initdb, pg_ctl) were not found: install Debian's \
             `postgresql` package (scripts/test does) or set GLANEUR_PG_BIN",
        );
        // The socket's path must stay under 107 bytes: a short temporary folder.
        let dir = tempfile::Builder::new()
            .prefix("glpg")
            .tempdir_in("/tmp")
            .unwrap();
        let root = is_root();
        if root {
            let status = Command::new("chown")
                .arg("postgres")
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown postgres {}", dir.path().display());
        }
        let data = dir.path().join("data");
        let out = as_server_user(root, &bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "glaneur", "--no-sync", "-E", "UTF8"])
            .arg("--locale=C.UTF-8")
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb: {out:?}");
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off",
            dir.path().display()
        );
        let out = as_server_user(root, &bin.join("pg_ctl"))
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.path().join("log"))
            .arg("-o")
            .arg(options)
            .args(["-w", "start"])
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_ctl start: {out:?}");
        PgServer { dir, bin, root }
    }

    /// The connection string for glaneur's `--store`.
    pub fn url(&self) -> String {
        format!(
            "host={} user=glaneur dbname=postgres",
            self.dir.path().display()
        )
    }

    /// Runs SQL with `psql` and returns its unaligned output.
    pub fn sql(&self, query: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-h"])
            .arg(self.dir.path())
            .args(["-U", "glaneur", "-d", "postgres", "-At", "-c", query])
            .output()
            .unwrap();
        assert!(out.status.success(), "psql {query}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = as_server_user(self.root, &self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

fn as_server_user(root: bool, program: &Path) -> Command {
    if root {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn bindir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GLANEUR_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let has_initdb = |dir: &Path| dir.join("initdb").is_file();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if has_initdb(&dir) {
            return Some(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| has_initdb(dir))
        .collect();
    versions.sort();
    versions.pop().map(|(_, dir)| dir)
}
