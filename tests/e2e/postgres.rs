//! A throw-away PostgreSQL server for the tests of `glaneur worker`: `initdb` in a temporary
//! folder, `pg_ctl start` listening on a Unix socket only, stopped and removed on drop.
//! [`PgServer::start_in`] starts one inside a network namespace that listens on TCP too, on
//! an address of that namespace (`network.rs`); its Unix socket still serves [`PgServer::sql`]
//! (a socket file is reached from any network namespace).
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
    /// The TCP address and port it listens on, if any (else the Unix socket only).
    tcp: Option<(String, u16)>,
}

impl PgServer {
    /// Starts a server; panics with what to install when PostgreSQL is missing.
    pub fn start() -> PgServer {
        PgServer::launch(None, None, None)
    }

    /// Starts a server on 127.0.0.1 (a free port) that accepts TLS connections only
    /// (`hostssl`), with this certificate and key (PEM); its Unix socket serves [`PgServer::sql`].
    pub fn start_tls(cert: &str, key: &str) -> PgServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        PgServer::launch(
            None,
            Some(("127.0.0.1".to_string(), port)),
            Some((cert, key)),
        )
    }

    /// The TCP port it listens on (0: the Unix socket only).
    pub fn port(&self) -> u16 {
        self.tcp.as_ref().map_or(0, |(_, port)| *port)
    }

    /// Starts a server in the network namespace `netns` (run as root) that listens on TCP on
    /// `listen:port` (an address of that namespace) and accepts any client there without a
    /// password, as on its Unix socket.
    pub fn start_in(netns: &str, listen: &str, port: u16) -> PgServer {
        PgServer::launch(Some(netns), Some((listen.to_string(), port)), None)
    }

    fn launch(
        netns: Option<&str>,
        tcp: Option<(String, u16)>,
        tls: Option<(&str, &str)>,
    ) -> PgServer {
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
        let listen = match (&tcp, tls) {
            (Some((address, port)), Some((cert, key))) => {
                // TLS or nothing: no `host` line, only `hostssl`.
                std::fs::write(
                    data.join("pg_hba.conf"),
                    "local all all trust\nhostssl all all 127.0.0.1/32 trust\n",
                )
                .unwrap();
                for (name, text) in [("server.crt", cert), ("server.key", key)] {
                    let path = data.join(name);
                    std::fs::write(&path, text).unwrap();
                    std::fs::set_permissions(
                        &path,
                        std::os::unix::fs::PermissionsExt::from_mode(0o600),
                    )
                    .unwrap();
                    if root {
                        let status = Command::new("chown")
                            .arg("postgres")
                            .arg(&path)
                            .status()
                            .unwrap();
                        assert!(status.success(), "chown postgres {}", path.display());
                    }
                }
                format!("-c listen_addresses='{address}' -p {port} -c ssl=on")
            }
            (Some((address, port)), None) => {
                // initdb trusts 127.0.0.1 only: the clients come from the other end of a link.
                let hba = data.join("pg_hba.conf");
                let mut lines = std::fs::read_to_string(&hba).unwrap();
                lines.push_str("host all all 0.0.0.0/0 trust\n");
                std::fs::write(&hba, lines).unwrap();
                format!("-c listen_addresses='{address}' -p {port}")
            }
            (None, _) => "-c listen_addresses=''".to_string(),
        };
        let options = format!(
            "-k {} {listen} -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            dir.path().display()
        );
        let mut pg_ctl = as_server_user(root, &bin.join("pg_ctl"));
        if let Some(netns) = netns {
            // `ip netns exec NS runuser -u postgres -- pg_ctl …`: the server (a child of
            // pg_ctl) lives in the namespace.
            let inner = pg_ctl;
            pg_ctl = Command::new("ip");
            pg_ctl
                .args(["netns", "exec", netns])
                .arg(inner.get_program())
                .args(inner.get_args());
        }
        let out = pg_ctl
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.path().join("log"))
            .arg("-o")
            .arg(options)
            .args(["-w", "start"])
            .output()
            .unwrap();
        if !out.status.success() {
            let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
            panic!("pg_ctl start: {out:?}\n--- server log\n{log}");
        }
        PgServer {
            dir,
            bin,
            root,
            tcp,
        }
    }

    /// The connection string for glaneur's `--store`: the Unix socket, or the TCP address
    /// of a server started with [`PgServer::start_in`].
    pub fn url(&self) -> String {
        match &self.tcp {
            Some((address, port)) => {
                format!("host={address} port={port} user=glaneur dbname=postgres")
            }
            None => format!(
                "host={} user=glaneur dbname=postgres",
                self.dir.path().display()
            ),
        }
    }

    /// Runs SQL with `psql` and returns its unaligned output.
    pub fn sql(&self, query: &str) -> String {
        self.sql_in("postgres", query)
    }

    /// Runs SQL in the database `dbname` of the server (through its Unix socket).
    pub fn sql_in(&self, dbname: &str, query: &str) -> String {
        let port = self.tcp.as_ref().map(|(_, port)| port.to_string());
        let out = Command::new(self.bin.join("psql"))
            .args(["-h"])
            .arg(self.dir.path())
            .args(port.iter().flat_map(|p| ["-p", p.as_str()]))
            .args(["-U", "glaneur", "-d", dbname, "-At", "-c", query])
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
