//! `glaneur worker` across a network: the workers and PostgreSQL in separate network
//! namespaces joined by a virtual link, with latency and loss, and that link cut mid-crawl.
//!
//! ```text
//!  root namespace                                         namespace glpg-PID-K
//!  worker w1 ─┐                                 veth pair
//!  worker w2 ─┼─ 127.0.0.1:R relay ── 10.231.x.1 ═══════ 10.231.x.2:5432 PostgreSQL
//!  worker w3 ─┘   (delay, loss)                (cut: link down, then up)
//!     │
//!     └── --proxy 127.0.0.1:W the test web (server.rs)
//! ```
//!
//! PostgreSQL runs in a network namespace of its own (`ip netns add`), reached from the root
//! namespace through a veth pair on a /30 chosen per test; the workers stay in the root
//! namespace, where the test web listens on loopback. Root (`CAP_NET_ADMIN`) is needed: without
//! it the tests say `skipped: …` and pass. The namespace and the link are removed on drop, even
//! after a failed assertion.
//!
//! **Latency and loss are simulated in user space**, not by the kernel: this kernel has no
//! `netem` queueing discipline (`tc qdisc add … netem`: "Specified qdisc kind is unknown") and
//! no iptables. The workers connect to a relay on loopback, which connects to PostgreSQL across
//! the veth link and forwards each chunk it reads after a one-way delay, in order per direction
//! (a chunk leaves at `max(arrival + delay, previous chunk's departure)`); a lost segment is
//! simulated as TCP would repair it: with probability `loss` per chunk (seeded ChaCha8), the
//! chunk is held an extra 200 ms (a retransmission timeout), and everything behind it waits.
//! **The link cut is the kernel's**: the PostgreSQL end of the veth pair is set down (the
//! workers' end loses its carrier; packets sent to it are dropped) and up again; the relay's
//! TCP connections to PostgreSQL live through it by retransmitting.
//!
//! The web and topic are those of `workers.rs` (ten servers × 12 French pages, politeness
//! 0.25 s), crawled by three workers with leases of 10 s. Checked, from the test web's access
//! log and the folders: the crawl completes, without a stall of 15 s, and every worker ends
//! well; every page is asked exactly once (nobody is killed; only a cut longer than the
//! leases may cost a second request, as a kill does, of a page asked before the link came
//! back, at most one per server); never two requests in flight to one server and every gap
//! ≥ the delay, across workers and across the cut; the shared frontier has nothing left and
//! no live lease; the collected corpus equals a single process's, every URL settled with a
//! reason. Printed (`--nocapture`): wall time and pages per worker at 0 ms and at 20 ms / 1 %
//! loss, and what the workers did around a cut.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::postgres::PgServer;
use crate::server::{Hit, TestWeb};
use crate::support::*;
use crate::workers::{
    DELAY, HOSTS, PAGES, assert_polite, collect_checked, corpus, pages_served, spawn_worker_leased,
    write_web,
};

/// PostgreSQL's port inside its namespace (a namespace has its own ports).
const PG_PORT: u16 = 5432;
/// Leases long enough to outlive a short cut (the workers exchange every 0.2 s).
const LEASE_SECONDS: f64 = 10.0;
/// The simulated retransmission timeout of a lost chunk.
const RETRANSMISSION: Duration = Duration::from_millis(200);
/// The workers of each shared crawl.
const WORKERS: [&str; 3] = ["w1", "w2", "w3"];

/// Namespaces made by this process so far: with the process id, unique names and subnets.
static LINKS: AtomicU32 = AtomicU32::new(0);

/// Runs `ip ARGS…`; Err(stderr) when it fails.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().unwrap_or_else(|e| {
        panic!("cannot run `ip` ({e}): install Debian's iproute2 (scripts/test does)")
    });
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A network namespace joined to the root namespace by a veth pair; both removed on drop.
struct Link {
    netns: String,
    /// The end in the root namespace (the workers' side).
    outer: String,
    /// The end in the namespace (PostgreSQL's side), and its address, where PostgreSQL
    /// listens.
    inner: String,
    inner_ip: String,
}

impl Link {
    /// Makes the namespace and the link; `None` (after saying so) when this process may not.
    fn make() -> Option<Link> {
        let uid = Command::new("id").arg("-u").output().unwrap();
        if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
            eprintln!("skipped: network namespaces need root (CAP_NET_ADMIN)");
            return None;
        }
        let pid = std::process::id();
        let k = LINKS.fetch_add(1, Ordering::SeqCst);
        let netns = format!("glpg-{pid}-{k}");
        // Interface names: 15 bytes at most.
        let outer = format!("glv{pid}x{k}");
        let inner = format!("glp{pid}x{k}");
        if let Err(error) = ip(&["netns", "add", &netns]) {
            if error.contains("Permission denied") || error.contains("Operation not permitted") {
                eprintln!("skipped: network namespaces need root (CAP_NET_ADMIN): {error}");
                return None;
            }
            panic!("ip netns add {netns}: {error}");
        }
        // From here the guard removes what was made.
        let mut link = Link {
            netns,
            outer,
            inner,
            inner_ip: String::new(),
        };
        // A /30 in 10.231.0.0/16 that no interface here uses (another test process's).
        let used = Command::new("ip")
            .args(["-o", "-4", "addr", "show"])
            .output()
            .unwrap();
        let used = String::from_utf8_lossy(&used.stdout).into_owned();
        let slots = 1 << 14;
        let first = (pid * 8 + k) % slots;
        let (outer_ip, inner_ip) = (0..slots)
            .map(|i| (first + i) % slots)
            .map(|slot| {
                let (c, d) = (slot / 64, (slot % 64) * 4);
                (
                    format!("10.231.{c}.{}", d + 1),
                    format!("10.231.{c}.{}", d + 2),
                )
            })
            .find(|(o, i)| !used.contains(&format!(" {o}/")) && !used.contains(&format!(" {i}/")))
            .expect("a free /30 in 10.231.0.0/16");
        link.inner_ip = inner_ip.clone();
        let outer_cidr = format!("{outer_ip}/30");
        let inner_cidr = format!("{inner_ip}/30");
        let steps: [&[&str]; 6] = [
            &[
                "link",
                "add",
                &link.outer,
                "type",
                "veth",
                "peer",
                "name",
                &link.inner,
                "netns",
                &link.netns,
            ],
            &["addr", "add", &outer_cidr, "dev", &link.outer],
            &["link", "set", &link.outer, "up"],
            &[
                "-n",
                &link.netns,
                "addr",
                "add",
                &inner_cidr,
                "dev",
                &link.inner,
            ],
            &["-n", &link.netns, "link", "set", &link.inner, "up"],
            &["-n", &link.netns, "link", "set", "lo", "up"],
        ];
        for step in steps {
            ip(step).unwrap_or_else(|e| panic!("ip {}: {e}", step.join(" ")));
        }
        Some(link)
    }

    /// Cuts the link: PostgreSQL's end goes down (the workers' end loses its carrier).
    fn cut(&self) {
        ip(&["-n", &self.netns, "link", "set", &self.inner, "down"]).unwrap();
    }

    /// Restores the link.
    fn restore(&self) {
        ip(&["-n", &self.netns, "link", "set", &self.inner, "up"]).unwrap();
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Deleting one end deletes the pair at once (a namespace's own devices go when the
        // kernel gets round to it, after `ip netns del`).
        let _ = ip(&["link", "del", &self.outer]);
        let _ = ip(&["netns", "del", &self.netns]);
    }
}

/// What a relay did.
#[derive(Default)]
struct RelayStats {
    connections: AtomicU64,
    chunks: AtomicU64,
    retransmitted: AtomicU64,
}

/// A TCP relay on loopback to `upstream` that delays what it forwards and simulates losses
/// (see the module's doc); stops on drop.
struct Relay {
    port: u16,
    stop: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
    stats: Arc<RelayStats>,
}

impl Relay {
    fn start(upstream: SocketAddr, delay: Duration, loss: f64, seed: u64) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let streams = Arc::new(Mutex::new(Vec::new()));
        let stats = Arc::new(RelayStats::default());
        let (stop2, streams2, stats2) = (stop.clone(), streams.clone(), stats.clone());
        std::thread::spawn(move || {
            for (n, client) in listener.incoming().enumerate() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect_timeout(&upstream, Duration::from_secs(30))
                else {
                    continue;
                };
                stats2.connections.fetch_add(1, Ordering::SeqCst);
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                {
                    let mut open = streams2.lock().unwrap();
                    open.push(client.try_clone().unwrap());
                    open.push(server.try_clone().unwrap());
                }
                let seed = seed ^ ((n as u64) << 1);
                let link = (delay, loss, stats2.clone());
                pump(&client, &server, link.clone(), seed);
                pump(&server, &client, link, seed | 1);
            }
        });
        Relay {
            port,
            stop,
            streams,
            stats,
        }
    }

    /// The `--store` connection string through this relay, to the database `dbname`.
    fn store(&self, dbname: &str) -> String {
        format!(
            "host=127.0.0.1 port={} user=glaneur dbname={dbname}",
            self.port
        )
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        for stream in self.streams.lock().unwrap().iter() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// One direction of a relayed connection: a reader that stamps each chunk with its departure
/// time, a writer that sends it then.
fn pump(from: &TcpStream, to: &TcpStream, link: (Duration, f64, Arc<RelayStats>), seed: u64) {
    let (delay, loss, stats) = link;
    let (tx, rx) = mpsc::channel::<Option<(Instant, Vec<u8>)>>();
    let mut reader = from.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut previous = Instant::now();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut leaves = Instant::now() + delay;
            stats.chunks.fetch_add(1, Ordering::Relaxed);
            if loss > 0.0 && rng.random_bool(loss) {
                stats.retransmitted.fetch_add(1, Ordering::Relaxed);
                leaves += RETRANSMISSION;
            }
            previous = previous.max(leaves);
            if tx.send(Some((previous, buf[..n].to_vec()))).is_err() {
                break;
            }
        }
        let _ = tx.send(None);
    });
    let mut writer = to.try_clone().unwrap();
    let source = from.try_clone().unwrap();
    std::thread::spawn(move || {
        while let Ok(Some((leaves, chunk))) = rx.recv() {
            std::thread::sleep(leaves.saturating_duration_since(Instant::now()));
            if writer.write_all(&chunk).is_err() {
                // The other side is gone: so is this direction's source.
                let _ = source.shutdown(Shutdown::Both);
                return;
            }
        }
        let _ = writer.shutdown(Shutdown::Write);
    });
}

/// The workers of a crawl, killed on drop if still running (a failed test leaves none).
struct Crew {
    workers: Vec<(String, Child)>,
    /// When the crawl must be over.
    deadline: Instant,
    /// Pages served at the last change, and when.
    served: usize,
    progress: Instant,
    /// The workers that ended with an error, and how.
    failed: Vec<(String, std::process::ExitStatus)>,
}

impl Crew {
    /// Starts the workers of the crawl `dbname` (its folder in the test's folder), through
    /// `relay`, on `web`.
    fn start(setup: &Setup, relay: &Relay, dbname: &str, web: &TestWeb) -> Crew {
        let dir = setup.dir.path();
        let workers = WORKERS
            .iter()
            .map(|name| {
                let child = spawn_worker_leased(
                    &dir.join("topic.toml"),
                    &dir.join(dbname),
                    &relay.store(dbname),
                    name,
                    &web.proxy(),
                    &LEASE_SECONDS.to_string(),
                );
                ((*name).to_string(), child)
            })
            .collect();
        Crew {
            workers,
            deadline: Instant::now() + Duration::from_secs(120),
            served: 0,
            progress: Instant::now(),
            failed: Vec::new(),
        }
    }

    /// Watches the crawl until `until` holds of the web's log or every worker has ended;
    /// fails as soon as the crawl stalls (no page asked of `web` for `stall`; `state` says the
    /// shared frontier's state in the message) or runs past the deadline. A worker that
    /// fails is told at once and recorded in `failed` (the crawl's checks still run).
    fn watch(
        &mut self,
        web: &TestWeb,
        stall: Duration,
        state: &dyn Fn() -> String,
        until: &dyn Fn(&[Hit]) -> bool,
    ) {
        loop {
            let mut running = 0;
            for (name, child) in &mut self.workers {
                match child.try_wait().unwrap() {
                    None => running += 1,
                    Some(status) if status.success() => {}
                    Some(status) => {
                        if !self.failed.iter().any(|(n, _)| n == name) {
                            eprintln!("worker {name} failed: {status:?} (its error above)");
                            self.failed.push((name.clone(), status));
                        }
                    }
                }
            }
            let log = web.log();
            if running == 0 || until(&log) {
                return;
            }
            let served = log.iter().filter(|h| h.path != "/robots.txt").count();
            if served != self.served {
                (self.served, self.progress) = (served, Instant::now());
            }
            assert!(
                self.progress.elapsed() < stall,
                "the crawl stalled: no page asked for {stall:?}, {served} of {} served, \
                 {running} workers running; shared frontier: {}",
                HOSTS * PAGES,
                state()
            );
            assert!(
                Instant::now() < self.deadline,
                "the crawl is not over after 120 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for (_, child) in &mut self.workers {
            if child.try_wait().ok().flatten().is_none() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// A cut of the link once `at` of the pages are served, for `length`.
#[derive(Clone, Copy)]
struct Cut {
    at: f64,
    length: Duration,
}

/// What the test prints of a shared crawl.
struct Figures {
    wall: Duration,
    /// Pages each worker fetched.
    pages: Vec<(String, i64)>,
    chunks: u64,
    retransmitted: u64,
    /// Pages asked twice (a cut longer than the leases only).
    twice: usize,
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pages: Vec<String> = self.pages.iter().map(|(w, n)| format!("{w} {n}")).collect();
        write!(
            f,
            "{:.1} s, pages per worker: {}{} ({} chunks relayed, {} held as retransmitted)",
            self.wall.as_secs_f64(),
            pages.join(", "),
            if self.twice > 0 {
                format!(" (pages asked twice: {})", self.twice)
            } else {
                String::new()
            },
            self.chunks,
            self.retransmitted
        )
    }
}

/// The web, its topic and the single process's corpus (the reference).
struct Setup {
    dir: tempfile::TempDir,
    expected: BTreeSet<(String, String)>,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    write_web(dir.path());
    let web = TestWeb::start(dir.path());
    let started = Instant::now();
    let single = dir.path().join("single");
    assert_exit(
        &run_topic(&dir.path().join("topic.toml"), &single, &web.proxy(), &[]),
        0,
    );
    eprintln!(
        "single process: {:.1} s, {} pages",
        started.elapsed().as_secs_f64(),
        pages_served(&web)
    );
    let expected = corpus(&single);
    assert_eq!(expected.len(), HOSTS * PAGES, "the single run's corpus");
    Setup { dir, expected }
}

/// The shared frontier's URLs by state and worker, for a failure's message.
fn frontier_state(pg: &PgServer, dbname: &str) -> String {
    pg.sql_in(
        dbname,
        "SELECT string_agg(n, ', ') FROM (
             SELECT count(*) || ' URLs ' || state::text || coalesce(' by ' || worker, '') AS n
             FROM glaneur.urls GROUP BY state, worker ORDER BY state, worker) t",
    )
}

/// Cuts the link once `cut.at` of the pages are served, restores it after `cut.length`, and
/// says what the workers did meanwhile. Returns when the link came back.
fn cut_mid_crawl(
    crew: &mut Crew,
    web: &TestWeb,
    link: &Link,
    cut: Cut,
    state: &dyn Fn() -> String,
) -> Instant {
    let threshold = (cut.at * (HOSTS * PAGES) as f64) as usize;
    let enough = |log: &[Hit]| log.iter().filter(|h| h.path != "/robots.txt").count() >= threshold;
    crew.watch(web, Duration::from_secs(15), state, &enough);
    let before = pages_served(web);
    assert!(before >= threshold, "the crawl ended before the cut");
    link.cut();
    let cut_at = Instant::now();
    std::thread::sleep(cut.length);
    link.restore();
    let restored_at = Instant::now();
    let log = web.log();
    let during = log
        .iter()
        .filter(|h| h.start > cut_at && h.path != "/robots.txt")
        .count();
    // A worker stops asking once its exchange with the frontier hangs (every 0.2 s): what it
    // asks later than that would be asked blind.
    let late: Vec<String> = log
        .iter()
        .filter(|h| h.start > cut_at + Duration::from_millis(500))
        .map(|h| format!("{}{}", h.host, h.path))
        .collect();
    // TCP's retransmissions back off during the cut: the next may come a while after.
    crew.progress = restored_at;
    let stall = Duration::from_secs(15) + cut.length;
    crew.watch(web, stall, state, &|log| {
        log.iter().any(|h| h.start > restored_at)
    });
    let resumed = web
        .log()
        .iter()
        .find(|h| h.start > restored_at)
        .map(|h| h.start - restored_at);
    eprintln!(
        "link cut for {:.1} s after {before} pages: {during} pages asked during the cut ({} \
         later than 0.5 s into it: {late:?}); the first request {:.2} s after the link came back",
        cut.length.as_secs_f64(),
        late.len(),
        resumed.map_or(f64::NAN, |d| d.as_secs_f64()),
    );
    restored_at
}

/// A crawl shared by three workers through a relay of `delay` and `loss` to the PostgreSQL
/// server across `link`, in the database `dbname` (made here); with `cut`, the link is cut
/// mid-crawl. Checks it (see the module's doc) and returns its figures.
fn shared_crawl(
    setup: &Setup,
    pg: &PgServer,
    link: &Link,
    dbname: &str,
    (delay, loss): (Duration, f64),
    cut: Option<Cut>,
) -> Figures {
    pg.sql(&format!("CREATE DATABASE {dbname}"));
    let upstream: SocketAddr = format!("{}:{PG_PORT}", link.inner_ip).parse().unwrap();
    // The same sequence of loss draws in every run ("glaneur" in ASCII).
    let relay = Relay::start(upstream, delay, loss, 0x0067_6c61_6e65_7572);
    let web = TestWeb::start(setup.dir.path());
    let out = setup.dir.path().join(dbname);
    let started = Instant::now();
    let mut crew = Crew::start(setup, &relay, dbname, &web);
    let state = || frontier_state(pg, dbname);
    let restored_at = cut.map(|cut| cut_mid_crawl(&mut crew, &web, link, cut, &state));
    let stall = Duration::from_secs(15) + cut.map_or(Duration::ZERO, |c| c.length);
    crew.watch(&web, stall, &state, &|_| false);
    let wall = started.elapsed();
    let log = web.log();

    // Politeness across the workers (and the cut), from the web's own log.
    assert_polite(&log);
    // Every page asked, and once: nobody was killed. Only a cut longer than a lease may cost
    // second requests, as a kill does: of pages asked before the link came back (in flight,
    // or settled and not yet reported when the exchanges hung), at most one per server.
    let mut asked: BTreeMap<(&str, &str), Vec<Instant>> = BTreeMap::new();
    for hit in log.iter().filter(|h| h.path != "/robots.txt") {
        asked
            .entry((&hit.host, &hit.path))
            .or_default()
            .push(hit.start);
    }
    let twice: Vec<_> = asked.iter().filter(|(_, hits)| hits.len() > 1).collect();
    let lease_lapsed = cut.is_some_and(|c| c.length.as_secs_f64() > LEASE_SECONDS);
    if lease_lapsed && let Some(restored_at) = restored_at {
        for ((host, path), hits) in &twice {
            assert_eq!(hits.len(), 2, "{host}{path} asked {} times", hits.len());
            assert!(
                hits[0] < restored_at,
                "{host}{path} asked twice, first after the cut"
            );
        }
        assert!(twice.len() <= HOSTS, "pages asked twice: {twice:?}");
    } else {
        assert!(twice.is_empty(), "pages asked more than once: {twice:?}");
    }
    assert_eq!(asked.len(), HOSTS * PAGES, "every page asked");
    // The shared frontier: nothing left, no lease held.
    assert_eq!(
        pg.sql_in(
            dbname,
            "SELECT count(*) FROM glaneur.urls WHERE state <> 'd'"
        ),
        "0"
    );
    assert_eq!(
        pg.sql_in(
            dbname,
            "SELECT count(*) FROM glaneur.hosts WHERE owner IS NOT NULL AND lease_until > now()"
        ),
        "0"
    );
    let pages: Vec<(String, i64)> = WORKERS
        .iter()
        .map(|name| {
            let db = rusqlite::Connection::open_with_flags(
                out.join("workers").join(name).join("crawl.sqlite"),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .unwrap();
            let n = db
                .query_row(
                    "SELECT count(*) FROM urls WHERE state = 'fetched'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            ((*name).to_string(), n)
        })
        .collect();
    // Collected: the single process's corpus, every URL settled with a reason.
    collect_checked(&out, &setup.expected);
    assert_eq!(
        relay.stats.connections.load(Ordering::SeqCst),
        WORKERS.len() as u64,
        "one connection per worker, kept through the crawl"
    );
    let figures = Figures {
        wall,
        pages,
        chunks: relay.stats.chunks.load(Ordering::SeqCst),
        retransmitted: relay.stats.retransmitted.load(Ordering::SeqCst),
        twice: twice.len(),
    };
    eprintln!(
        "{dbname}: {} ms one way, {} % loss: {figures}",
        delay.as_millis(),
        loss * 100.0
    );
    // The crawl is whole; yet a worker must end well.
    assert!(
        crew.failed.is_empty(),
        "workers failed (their errors above): {:?}",
        crew.failed
    );
    figures
}

#[test]
fn workers_across_a_slow_lossy_link_give_the_single_process_corpus() {
    let Some(link) = Link::make() else {
        return;
    };
    let pg = PgServer::start_in(&link.netns, &link.inner_ip, PG_PORT);
    let setup = setup();
    let fast = shared_crawl(&setup, &pg, &link, "fast", (Duration::ZERO, 0.0), None);
    let slow = shared_crawl(
        &setup,
        &pg,
        &link,
        "slow",
        (Duration::from_millis(20), 0.01),
        None,
    );
    eprintln!(
        "figures per worker against latency (politeness {DELAY} s, leases {LEASE_SECONDS} s):\n  \
         0 ms, 0 %:   {fast}\n  20 ms, 1 %:  {slow}"
    );
    assert!(slow.retransmitted > 0, "no loss simulated");
}

#[test]
fn a_link_cut_mid_crawl_and_restored_loses_nothing() {
    let Some(link) = Link::make() else {
        return;
    };
    let pg = PgServer::start_in(&link.netns, &link.inner_ip, PG_PORT);
    let setup = setup();
    let cut = Cut {
        at: 0.3,
        length: Duration::from_secs(3),
    };
    let slow = (Duration::from_millis(20), 0.01);
    shared_crawl(&setup, &pg, &link, "cut", slow, Some(cut));
}

/// A cut longer than the leases: they lapse while every worker waits for its exchange; when
/// the link comes back, the first worker to get through may lease the servers of the others,
/// which are told so and drop their URLs. No latency: this checks the leases, not the speed.
#[test]
fn a_link_cut_longer_than_the_leases_loses_nothing() {
    let Some(link) = Link::make() else {
        return;
    };
    let pg = PgServer::start_in(&link.netns, &link.inner_ip, PG_PORT);
    let setup = setup();
    let cut = Cut {
        at: 0.3,
        length: Duration::from_secs_f64(LEASE_SECONDS + 3.0),
    };
    shared_crawl(
        &setup,
        &pg,
        &link,
        "long",
        (Duration::ZERO, 0.01),
        Some(cut),
    );
}
