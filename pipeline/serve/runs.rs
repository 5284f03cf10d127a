//! Runs seen from the web interface: whether one is running, starting one (`glaneur run` as a
//! child process, its output appended to `NAME/serve-run.log`), asking it to stop, and the
//! snapshot the monitor shows, as JSON and as a server-sent event stream.
//!
//! **In:** the topic folder, its run folder's `live.json`, `report.json`, `crawl.sqlite`,
//! `.glaneur.lock`. **Out:** [`Snapshot`]s; processes started; `RUN/.glaneur.stop` written.
//!
//! **Invariants:** one run per topic at a time: a start is decided and made under one lock, and
//! refused (409) while a process works in the folder — one started here and not ended, one
//! holding the run folder's lock, or one whose `live.json` is less than [`FRESH_SECONDS`] old
//! or whose process is alive; a run started here is in its own process group (a Ctrl-C in
//! serve's terminal does not reach it) and is reaped within a second of its end, its exit code
//! kept; a run is "failed" only when the process started here ended with an error and no other
//! process works in the folder; the database is read at most once per [`REASONS_EVERY`] per
//! topic whatever the number of viewers, and for at most a twentieth of the time.

use std::convert::Infallible;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::collections::HashMap;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Serialize;

use super::html::no_such_topic;
use super::{App, run_dir};
use crate::ground::live::{self, Live};

/// A `live.json` younger than this belongs to a process still working.
const FRESH_SECONDS: f64 = 5.0;

/// How often the URL counts by state and reason are read from `crawl.sqlite`.
const REASONS_EVERY: Duration = Duration::from_secs(3);

/// What the monitor shows at one moment.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Snapshot {
    /// Topic name.
    pub name: String,
    /// A process works in the run folder now.
    pub running: bool,
    /// `never run`, `crawl`, `extract`, `export`, `finished`, `stopped`, `failed`, `ended`.
    pub stage: String,
    /// The crawl's last `live.json`.
    pub live: Option<Live>,
    /// Every URL by state and reason (`report.json`'s `urls` rows), read from `crawl.sqlite`.
    pub reasons: serde_json::Value,
    /// Requests by HTTP status class, read with the reasons.
    pub status_classes: serde_json::Value,
    /// Bytes of the crawl's files (WARC and database) in the run folder.
    pub disk_bytes: u64,
    /// `report.json` of the last finished run: harvest rate, kept rate, documents.
    pub report: Option<serde_json::Value>,
    /// The end of the run's output when it failed.
    pub log_tail: Option<String>,
    /// When the snapshot was taken (seconds since 1970).
    pub at: f64,
}

/// How a run started here ended: its exit code (None: killed by a signal) and process id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exit {
    code: Option<i32>,
    pid: u32,
}

/// Records the end of the runs started here that have ended (so that none stays a zombie).
fn reap(app: &App, children: &mut HashMap<String, std::process::Child>) {
    let mut ended = Vec::new();
    children.retain(|name, child| match child.try_wait() {
        Ok(None) => true,
        Ok(Some(status)) => {
            ended.push((
                name.clone(),
                Exit {
                    code: status.code(),
                    pid: child.id(),
                },
            ));
            false
        }
        Err(_) => {
            ended.push((
                name.clone(),
                Exit {
                    code: None,
                    pid: child.id(),
                },
            ));
            false
        }
    });
    if !ended.is_empty() {
        let mut exits = app.exits.lock().unwrap_or_else(|p| p.into_inner());
        exits.extend(ended);
    }
}

/// Reaps the runs started here once a second, whether anyone looks at them or not.
pub(crate) async fn reap_every_second(app: Arc<App>) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut children = app.children.lock().unwrap_or_else(|p| p.into_inner());
        reap(&app, &mut children);
    }
}

/// Whether a run works in `name`'s folder, and its stage.
fn status(app: &App, name: &str, run: &Path) -> (bool, String, Option<Live>) {
    let mut children = app.children.lock().unwrap_or_else(|p| p.into_inner());
    status_locked(app, &mut children, name, run)
}

/// [`status`], with the children already locked (a start decides and starts under one lock).
fn status_locked(
    app: &App,
    children: &mut HashMap<String, std::process::Child>,
    name: &str,
    run: &Path,
) -> (bool, String, Option<Live>) {
    reap(app, children);
    let live = live::read(run);
    if children.contains_key(name) {
        let stage = live
            .as_ref()
            .map_or_else(|| "starting".to_string(), |l| l.stage.clone());
        return (true, stage, live);
    }
    let exit = app
        .exits
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(name)
        .copied();
    let failed = exit.is_some_and(|e| !matches!(e.code, Some(0 | 1 | 130)));
    // A process other than the one started here that ended: still at work in the folder.
    let other_at_work = live.as_ref().is_some_and(|l| {
        exit.is_none_or(|e| e.pid != l.pid)
            && (crate::ground::clock::now_epoch() - l.at < FRESH_SECONDS || process_alive(l.pid))
    });
    match &live {
        Some(l) if matches!(l.stage.as_str(), "finished" | "stopped") => {
            (false, l.stage.clone(), live)
        }
        Some(l) if other_at_work => (true, l.stage.clone(), live),
        _ if failed => (false, "failed".to_string(), live),
        // A process that died without a word (kill -9, power loss): resumable.
        Some(_) => (false, "ended".to_string(), live),
        None if run.join("report.json").is_file() => (false, "finished".to_string(), None),
        None => (false, "never run".to_string(), None),
    }
}

/// Whether process `pid` is alive, where the system says so without asking it (`/proc` on
/// Linux); elsewhere only a fresh `live.json` tells (the extract and export stages write it at
/// their start only, so a long one started elsewhere then shows as ended).
fn process_alive(pid: u32) -> bool {
    pid != 0
        && std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmd| cmd.contains("glaneur"))
}

/// The snapshot of `name` now (the database read at most every [`REASONS_EVERY`]).
pub(crate) fn snapshot(app: &App, name: &str, topic_dir: &Path) -> Snapshot {
    let run = run_dir(topic_dir);
    let (running, stage, live) = status(app, name, &run);
    let counts = reasons(app, name, &run, running);
    let report = (!running)
        .then(|| std::fs::read(run.join("report.json")).ok())
        .flatten()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .map(|r| {
            serde_json::json!({
                "harvest_rate": r["harvest_rate"],
                "kept_rate": r["kept_rate"],
                "pages": r["harvest"]["pages"],
                "on_topic": r["harvest"]["on_topic"],
                "documents": r["export"]["documents"],
                "tokens": r["export"]["tokens"],
            })
        });
    let log_tail = (stage == "failed").then(|| {
        let log = std::fs::read_to_string(topic_dir.join("serve-run.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(12)..].join("\n")
    });
    Snapshot {
        name: name.to_string(),
        running,
        stage,
        live,
        reasons: counts["reasons"].clone(),
        status_classes: counts["status_classes"].clone(),
        disk_bytes: crawl_bytes(&run),
        report,
        log_tail,
        at: crate::ground::clock::now_epoch(),
    }
}

/// URL counts by state and reason and requests by status class, cached per topic. A run that works has them read again
/// every [`REASONS_EVERY`], or less often when a read takes long (at most a twentieth of the
/// time is spent reading: a million URLs take over a second); a run that does not, when its
/// database changed.
fn reasons(app: &App, name: &str, run: &Path, running: bool) -> serde_json::Value {
    let db = run.join("crawl.sqlite");
    let changed = modified(&db);
    let mut cache = app.reasons.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(cached) = cache.get(name) {
        let wait = REASONS_EVERY.max(cached.took * 20);
        let current = if running {
            cached.at.elapsed() < wait
        } else {
            cached.changed == changed
        };
        if current {
            return cached.value.clone();
        }
    }
    let started = Instant::now();
    let value = read_reasons(&db).unwrap_or(serde_json::Value::Null);
    cache.insert(
        name.to_string(),
        CachedReasons {
            at: Instant::now(),
            took: started.elapsed(),
            changed,
            value: value.clone(),
        },
    );
    value
}

/// The last change of a database (its file and its write-ahead log).
fn modified(db: &Path) -> Option<(std::time::SystemTime, std::time::SystemTime)> {
    let time = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let wal = db.with_extension("sqlite-wal");
    Some((time(db)?, time(&wal).unwrap_or(std::time::UNIX_EPOCH)))
}

/// URL counts read for one topic.
pub(crate) struct CachedReasons {
    at: Instant,
    took: Duration,
    changed: Option<(std::time::SystemTime, std::time::SystemTime)>,
    value: serde_json::Value,
}

fn read_reasons(db: &Path) -> Option<serde_json::Value> {
    if !db.is_file() {
        return None;
    }
    let store = crate::store::Store::open_read_only(db).ok()?;
    let rows: Vec<crate::report::ReasonCount> = store
        .reason_counts()
        .ok()?
        .into_iter()
        .map(|(state, reason, count)| crate::report::ReasonCount::new(state, reason, count))
        .collect();
    let classes = store.status_classes().ok()?;
    Some(serde_json::json!({"reasons": rows, "status_classes": classes}))
}

/// Bytes of `crawl.sqlite*` and `warc/` in the run folder.
fn crawl_bytes(run: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let db: u64 = ["crawl.sqlite", "crawl.sqlite-wal", "crawl.sqlite-shm"]
        .iter()
        .map(|f| size(&run.join(f)))
        .sum();
    let warc: u64 = std::fs::read_dir(run.join("warc"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| size(&e.path()))
                .sum()
        })
        .unwrap_or(0);
    db + warc
}

/// `POST /runs/NAME/start`: starts (or resumes) the topic's run; 409 when one works in the
/// folder already.
pub(crate) async fn start(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let run = run_dir(&dir);
    let busy = {
        let mut children = app.children.lock().unwrap_or_else(|p| p.into_inner());
        let (running, stage, _) = status_locked(&app, &mut children, &name, &run);
        let holder = crate::ground::runlock::RunLock::holder(&run);
        match (running, holder) {
            (true, _) => Some(format!("its run is already at work (stage {stage})")),
            (false, Some(holder)) => Some(format!(
                "another glaneur works in its run folder ({holder})"
            )),
            (false, None) => match spawn(&app, &name, &dir) {
                Ok(child) => {
                    children.insert(name.clone(), child);
                    None
                }
                Err(error) => return super::html::error_page(&format!("{error:#}")),
            },
        }
    };
    match busy {
        None => Redirect::to(&format!("/runs/{name}")).into_response(),
        Some(why) => super::html::status_page(
            StatusCode::CONFLICT,
            "Already running",
            &format!("The topic {name} was not started again: {why}. Its monitor: /runs/{name}"),
        ),
    }
}

/// Starts `glaneur run` on the topic, in its own process group, its output appended to
/// `NAME/serve-run.log` after a line that says when and how it was started.
fn spawn(app: &App, name: &str, dir: &Path) -> anyhow::Result<std::process::Child> {
    use anyhow::Context;
    use std::io::Write as _;
    let log_path = dir.join("serve-run.log");
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("cannot write {}", log_path.display()))?;
    let mut command = std::process::Command::new(&app.exe);
    command
        .arg("run")
        .arg(dir.join("topic.toml"))
        .arg("--quiet")
        .stdin(std::process::Stdio::null());
    if let Some(proxy) = &app.proxy {
        command.arg("--proxy").arg(proxy);
    }
    // Its own process group: a Ctrl-C typed in serve's terminal stops serve, not the run.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    writeln!(
        log,
        "--- {} glaneur serve starts: glaneur run {} --quiet{}",
        crate::ground::clock::now_iso(),
        dir.join("topic.toml").display(),
        if app.proxy.is_some() {
            " --proxy …"
        } else {
            ""
        }
    )
    .with_context(|| format!("cannot write {}", log_path.display()))?;
    command.stdout(log.try_clone()?).stderr(log);
    let child = command
        .spawn()
        .with_context(|| format!("cannot start {}", app.exe.display()))?;
    app.exits
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(name);
    Ok(child)
}

/// `POST /runs/NAME/stop`: asks the run to stop as Ctrl-C would (it finishes the requests in
/// flight, stores them, and can be resumed).
pub(crate) async fn stop(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let run = run_dir(&dir);
    let at_work =
        status(&app, &name, &run).0 || crate::ground::runlock::RunLock::holder(&run).is_some();
    if at_work
        && let Err(error) = std::fs::write(live::stop_file(&run), b"stop asked by glaneur serve\n")
    {
        return super::html::error_page(&format!(
            "cannot write {}: {error}",
            live::stop_file(&run).display()
        ));
    }
    Redirect::to(&format!("/runs/{name}")).into_response()
}

/// `GET /runs/NAME/snapshot.json`.
pub(crate) async fn snapshot_json(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let app2 = app.clone();
    match tokio::task::spawn_blocking(move || snapshot(&app2, &name, &dir)).await {
        Ok(s) => axum::Json(s).into_response(),
        Err(_) => super::html::error_page("the snapshot could not be read"),
    }
}

/// `GET /runs/NAME/events`: a snapshot at once, then one a second.
pub(crate) async fn events(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let stream = futures_util::stream::unfold(
        (app, name, dir, true),
        |(app, name, dir, first)| async move {
            if !first {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            let (a, n, d) = (app.clone(), name.clone(), dir.clone());
            let snap = tokio::task::spawn_blocking(move || snapshot(&a, &n, &d))
                .await
                .ok()?;
            let event = Event::default()
                .json_data(&snap)
                .unwrap_or_else(|_| Event::default().data("{}"));
            Some((Ok::<Event, Infallible>(event), (app, name, dir, false)))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
