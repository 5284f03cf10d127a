//! `glaneur serve`: a local web application over a folder of topics — write topics, start, stop
//! and resume their runs, follow a crawl live, read its decision log, its report and its corpus.
//!
//! **In:** `CORPORA_DIR` (each `NAME/topic.toml` is a topic, its run folder `NAME/run/`), the
//! run folders' `live.json`, `report.json`, `report.html` and `crawl.sqlite` (read-only).
//! **Out:** HTML pages, a server-sent event stream per run (`/runs/NAME/events`, one snapshot a
//! second), `glaneur run` processes started and stopped on request, topic files written from a
//! form once they validate.
//!
//! **Invariants:** bound to a loopback address unless asked otherwise, and then every request
//! carries the token printed at start (query `?token=` once, then a cookie); only requests for
//! this server's own names, and no state change from another site, get through (`access.rs`);
//! no client holds the server with slow or idle connections (`listen.rs`), no request is
//! answered later than [`REQUEST_SECONDS`] (503), a query stops at [`gate::QUERY_SECONDS`];
//! a topic name from a URL is only
//! ever one of the folder's topics, never a path; one run per topic, started once, in its own
//! process group (a Ctrl-C in serve's terminal does not reach it), reaped when it ends; a run is
//! stopped the way Ctrl-C stops it (`RUN/.glaneur.stop`, resumable); the server never writes a
//! run folder otherwise but for its subcorpora (`RUN/subcorpora/`, made and deleted by a POST
//! of the subcorpora page) and the `keep` column of its seed review (`RUN/seeds-review.tsv`, by a
//! POST of the seed review page, never while a run works in the folder), and writes a topic folder only through the form (`topic.toml`,
//! `serp/`); every asset is embedded in the binary (no network needed by the pages).
//!
//! **Files:** this file (options, state, routes), `access.rs` (Host, cross-site and token
//! checks), `listen.rs` (connections and their time limits), `runs.rs` (run status, start,
//! stop, snapshots), `pages.rs` (the HTML pages), `topics.rs` (the topic form and the formula's
//! live check), `save.rs` (a topic written from the form, or nothing), `corpus.rs` (documents,
//! search, site maps, host graph), the query pages: `gate.rs` (one query per core, flags
//! parsed as the command line's, links, downloads), `workbench.rs` (the concordance and a
//! hit's wider context), `tables.rs` (word lists and breakdowns, collocations, keywords),
//! `sketch.rs` (word sketches), `subcorpora.rs` (a run's subcorpora: listed, made, deleted;
//! the subcorpus a query page reads), `seeds.rs` (the seed review: which seeds a run crawls).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};

mod access;
mod corpus;
mod form;
mod gate;
mod html;
mod listen;
mod pages;
mod runs;
mod save;
mod seeds;
mod sketch;
mod subcorpora;
mod tables;
mod topics;
mod workbench;

/// Longest time a request may take before it is answered 503 (its body read included).
pub(crate) const REQUEST_SECONDS: u64 = 60;

/// Largest request body: the topic form with its uploaded result pages.
pub(crate) const MAX_BODY_BYTES: usize = 32 << 20;

/// What `glaneur serve` was asked.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The folder of topics.
    pub corpora: PathBuf,
    /// Address to listen on.
    pub bind: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// HTTP proxy handed to the runs it starts (`glaneur run --proxy`).
    pub proxy: Option<String>,
    /// Host names the server answers to besides localhost and its addresses (`--allow-host`).
    pub allow_hosts: Vec<String>,
}

/// The server's shared state.
pub(crate) struct App {
    corpora: PathBuf,
    proxy: Option<String>,
    /// Who may send requests (names, sites, token).
    access: access::AccessRules,
    /// The glaneur binary the runs are started with.
    exe: PathBuf,
    /// Runs started here: the process, by topic name. Held while a run is started, so that
    /// two requests never start two.
    children: Mutex<HashMap<String, std::process::Child>>,
    /// Held while a topic is saved from the form.
    saving: Mutex<()>,
    /// Held while a subcorpus is made or deleted.
    subcorpora: Mutex<()>,
    /// Queries (concordance, search) running now, at most one per core.
    queries: Arc<tokio::sync::Semaphore>,
    /// How the last run started here ended, by topic name.
    exits: Mutex<HashMap<String, runs::Exit>>,
    /// URL counts by state and reason, by topic name, with when they were read.
    reasons: Mutex<HashMap<String, runs::CachedReasons>>,
}

impl App {
    /// The folder of the topic `name`, when `name` is one of the folder's topics.
    pub(crate) fn topic_dir(&self, name: &str) -> Option<PathBuf> {
        let plain = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
        let dir = self.corpora.join(name);
        (plain && dir.join("topic.toml").is_file()).then_some(dir)
    }

    /// The topics of the folder, by name.
    pub(crate) fn topic_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.corpora)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|name| self.topic_dir(name).is_some())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

/// Starts the server and serves until Ctrl-C.
pub fn serve(options: &ServeOptions) -> anyhow::Result<()> {
    if !options.corpora.is_dir() {
        anyhow::bail!(
            "{} is not a folder of topics (each topic in NAME/topic.toml; `glaneur init \
             corpora/NAME` writes one)",
            options.corpora.display()
        );
    }
    let token = (!options.bind.is_loopback()).then(|| uuid::Uuid::new_v4().simple().to_string());
    let mut hosts = Vec::new();
    for name in &options.allow_hosts {
        let clean = name.trim().trim_end_matches('.').to_ascii_lowercase();
        let plain = !clean.is_empty()
            && clean
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
        if !plain {
            anyhow::bail!(
                "--allow-host `{name}`: give a host name alone (letters, digits, `-`, `.`), \
                 without scheme or port"
            );
        }
        hosts.push(clean);
    }
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let app = Arc::new(App {
        corpora: options.corpora.clone(),
        proxy: options.proxy.clone(),
        access: access::AccessRules {
            bound: options.bind,
            hosts,
            token: token.clone(),
        },
        exe: std::env::current_exe().context("cannot find the glaneur binary to start runs")?,
        children: Mutex::new(HashMap::new()),
        saving: Mutex::new(()),
        subcorpora: Mutex::new(()),
        queries: Arc::new(tokio::sync::Semaphore::new(cores)),
        exits: Mutex::new(HashMap::new()),
        reasons: Mutex::new(HashMap::new()),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let address = SocketAddr::new(options.bind, options.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let bound = listener.local_addr()?;
        let host = match bound.ip() {
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        match &token {
            Some(token) => println!(
                "glaneur serve: http://{host}:{}/?token={token} (the token is needed from other \
                 machines, which reach it by this machine's IP address, or by a name given with \
                 --allow-host; Ctrl-C stops the server, not the runs)",
                bound.port()
            ),
            None => println!(
                "glaneur serve: http://{host}:{}/ (Ctrl-C stops the server, not the runs)",
                bound.port()
            ),
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        tokio::spawn(runs::reap_every_second(app.clone()));
        listen::serve(listener, router(app), async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the web server stopped")
    })
}

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(pages::topics))
        .route("/assets/uplot.js", get(pages::uplot_js))
        .route("/assets/uplot.css", get(pages::uplot_css))
        .route("/topics/new", get(topics::new_form).post(topics::create))
        .route(
            "/topics/{name}/edit",
            get(topics::edit_form).post(topics::update),
        )
        .route("/formula/check", post(topics::check_formula))
        .route("/runs/{name}", get(pages::monitor))
        .route("/runs/{name}/start", post(runs::start))
        .route("/runs/{name}/stop", post(runs::stop))
        .route("/runs/{name}/events", get(runs::events))
        .route("/runs/{name}/snapshot.json", get(runs::snapshot_json))
        .route("/runs/{name}/report", get(pages::report))
        .route("/runs/{name}/decisions", get(pages::decisions))
        .route("/runs/{name}/url/{id}", get(pages::url))
        .route("/runs/{name}/corpus", get(corpus::corpus))
        .route("/runs/{name}/doc/{id}", get(corpus::document))
        .route("/runs/{name}/kwic", get(workbench::kwic))
        .route("/runs/{name}/context", get(workbench::context))
        .route("/runs/{name}/freq", get(tables::freq))
        .route("/runs/{name}/colloc", get(tables::colloc))
        .route("/runs/{name}/keywords", get(tables::keywords))
        .route("/runs/{name}/sketch", get(sketch::sketch))
        .route(
            "/runs/{name}/subcorpora",
            get(subcorpora::list).post(subcorpora::create),
        )
        .route(
            "/runs/{name}/subcorpora/{sub}/delete",
            post(subcorpora::delete),
        )
        .route("/runs/{name}/sitemaps/{file}", get(corpus::sitemap))
        .route("/runs/{name}/seeds", get(seeds::review).post(seeds::save))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(deadline))
        .layer(middleware::from_fn_with_state(app.clone(), access::check))
        .with_state(app)
}

/// Answers 503 to a request that takes longer than [`REQUEST_SECONDS`] (a stream's events come
/// after its answer, and are not counted).
async fn deadline(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    match tokio::time::timeout(Duration::from_secs(REQUEST_SECONDS), next.run(request)).await {
        Ok(response) => response,
        Err(_) => html::status_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too slow",
            &format!(
                "{path} took longer than {REQUEST_SECONDS} s to answer and was given up; the \
                 server goes on serving"
            ),
        ),
    }
}

/// The run folder of a topic folder (`glaneur run`'s default).
pub(crate) fn run_dir(topic_dir: &Path) -> PathBuf {
    topic_dir.join("run")
}
