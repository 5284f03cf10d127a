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
//! carries the token printed at start (query `?token=` once, then a cookie); a topic name from
//! a URL is only ever one of the folder's topics, never a path; a run is stopped the way Ctrl-C
//! stops it (`RUN/.glaneur.stop`, resumable); the server never writes a run folder otherwise,
//! and writes a topic folder only through the form (`topic.toml`, `serp/`);
//! every asset is embedded in the binary (no network needed by the pages).
//!
//! **Files:** this file (options, state, routes, token), `runs.rs` (run status, start, stop,
//! snapshots), `pages.rs` (the HTML pages), `topics.rs` (the topic form and the formula's live
//! check), `corpus.rs` (documents, search, concordance, site maps, host graph).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

mod corpus;
mod pages;
mod runs;
mod topics;

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
}

/// The server's shared state.
pub(crate) struct App {
    corpora: PathBuf,
    proxy: Option<String>,
    /// Required on every request when the server listens beyond this machine.
    token: Option<String>,
    /// The glaneur binary the runs are started with.
    exe: PathBuf,
    /// Runs started here: the process, by topic name.
    children: Mutex<HashMap<String, std::process::Child>>,
    /// How the last run started here ended, by topic name (exit code).
    exits: Mutex<HashMap<String, Option<i32>>>,
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
    let app = Arc::new(App {
        corpora: options.corpora.clone(),
        proxy: options.proxy.clone(),
        token: token.clone(),
        exe: std::env::current_exe().context("cannot find the glaneur binary to start runs")?,
        children: Mutex::new(HashMap::new()),
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
                 machines; Ctrl-C stops the server, not the runs)",
                bound.port()
            ),
            None => println!(
                "glaneur serve: http://{host}:{}/ (Ctrl-C stops the server, not the runs)",
                bound.port()
            ),
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
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
        .route("/runs/{name}/sitemaps/{file}", get(corpus::sitemap))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// The token check (when there is a token): `?token=` sets a cookie, the cookie is checked.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let Some(token) = &app.token else {
        return next.run(request).await;
    };
    let in_query = request
        .uri()
        .query()
        .is_some_and(|q| q.split('&').any(|kv| kv == format!("token={token}")));
    let in_cookie = request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|kv| kv.trim() == format!("glaneur_token={token}"));
    if in_cookie {
        return next.run(request).await;
    }
    if in_query {
        let mut response = next.run(request).await;
        if let Ok(cookie) =
            format!("glaneur_token={token}; Path=/; HttpOnly; SameSite=Strict").parse()
        {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        return response;
    }
    (
        StatusCode::FORBIDDEN,
        "glaneur serve: open the address with the token printed when the server started\n",
    )
        .into_response()
}

/// The run folder of a topic folder (`glaneur run`'s default).
pub(crate) fn run_dir(topic_dir: &Path) -> PathBuf {
    topic_dir.join("run")
}

/// A page for an unknown topic.
pub(crate) fn no_such_topic(name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::response::Html(pages::page(
            "No such topic",
            &format!(
                "<p>There is no topic <code>{}</code> in this folder. <a href=\"/\">All topics</a></p>",
                pages::escape(name)
            ),
        )),
    )
        .into_response()
}
