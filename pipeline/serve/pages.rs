//! The web interface's pages: topics with their runs, a run's live monitor, its decision log
//! and one URL's story, its report; the embedded chart library.
//!
//! **In:** the server's state, the run folders (read-only). **Out:** HTML (escaped), the
//! monitor's script reading `/runs/NAME/events`.
//!
//! **Invariants:** every value from a file or a URL is escaped; pages need no network; the
//! decision log shows at most [`LOG_ROWS`] rows a page.

use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::html::{error_page, escape, no_such_topic, page};
use super::{App, run_dir};
use crate::store::{DecisionFilter, Store};

/// Rows of a decision-log page.
const LOG_ROWS: u32 = 100;

const UPLOT_JS: &str = include_str!("../../vendor/uplot/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../../vendor/uplot/uPlot.min.css");
const MONITOR_JS: &str = include_str!("monitor.js");

pub(crate) async fn uplot_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        UPLOT_JS,
    )
        .into_response()
}

pub(crate) async fn uplot_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        UPLOT_CSS,
    )
        .into_response()
}

/// What the topics page was sent back with.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct TopicsQuery {
    saved: Option<String>,
}

/// `GET /`: every topic, what its run is doing, and what to do with it.
pub(crate) async fn topics(State(app): State<Arc<App>>, Query(q): Query<TopicsQuery>) -> Response {
    let app2 = app.clone();
    let rows = tokio::task::spawn_blocking(move || {
        app2.topic_names()
            .into_iter()
            .filter_map(|name| {
                let dir = app2.topic_dir(&name)?;
                let snap = super::runs::snapshot(&app2, &name, &dir);
                Some((name, dir, snap))
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    let mut body = format!(
        "<h1>Topics</h1>\n<p class=\"muted\">Topics in <code>{}</code> (each <code>NAME/topic.toml</code>; \
         <code>glaneur init {}/NAME</code> writes a new one).</p>\n",
        escape(&app.corpora.display().to_string()),
        escape(&app.corpora.display().to_string())
    );
    if let Some(saved) = &q.saved {
        body.push_str(&format!(
            "<p class=\"kept\" id=\"saved\">Saved {}: <code>glaneur check</code> accepts it.</p>\n",
            escape(saved)
        ));
    }
    body.push_str("<p><a href=\"/topics/new\" id=\"new-topic\">New topic</a></p>\n");
    if rows.is_empty() {
        body.push_str("<p>No topic here yet.</p>");
    } else {
        body.push_str(
            "<table id=\"topics\"><tr><th>topic</th><th>run</th><th class=\"n\">documents</th>\
             <th class=\"n\">harvest rate</th><th></th></tr>\n",
        );
        for (name, dir, snap) in &rows {
            let description = crate::topic::Topic::load(&dir.join("topic.toml"))
                .map(|t| t.file.description.clone())
                .unwrap_or_else(|e| format!("topic.toml does not load: {e:#}"));
            let documents = snap
                .report
                .as_ref()
                .and_then(|r| r["documents"].as_u64())
                .map_or("–".to_string(), |d| d.to_string());
            let harvest = snap
                .report
                .as_ref()
                .and_then(|r| r["harvest_rate"].as_f64())
                .map_or("–".to_string(), |r| format!("{:.1} %", r * 100.0));
            let n = escape(name);
            let action = if snap.running {
                format!(
                    "<form class=\"inline\" method=\"post\" action=\"/runs/{n}/stop\"><button>Stop</button></form>"
                )
            } else {
                let verb = if snap.stage == "never run" {
                    "Start"
                } else {
                    "Run again / resume"
                };
                format!(
                    "<form class=\"inline\" method=\"post\" action=\"/runs/{n}/start\"><button>{verb}</button></form>"
                )
            };
            // Only the pages that exist: a topic never run has no decisions, corpus or report.
            let mut links =
                format!("<a href=\"/runs/{n}\">monitor</a> <a href=\"/topics/{n}/edit\">edit</a>");
            if snap.stage != "never run" {
                links.push_str(&format!(" <a href=\"/runs/{n}/decisions\">decisions</a>"));
            }
            if snap.report.is_some() {
                links.push_str(&format!(
                    " <a href=\"/runs/{n}/corpus\">corpus</a> <a href=\"/runs/{n}/report\">report</a>"
                ));
            }
            body.push_str(&format!(
                "<tr data-topic=\"{n}\"><td><a href=\"/runs/{n}\"><b>{n}</b></a><br><span class=\"muted\">{}</span></td>\
                 <td class=\"stage\">{}</td><td class=\"n\">{documents}</td><td class=\"n\">{harvest}</td>\
                 <td>{action} {links}</td></tr>\n",
                escape(&description),
                escape(&snap.stage),
            ));
        }
        body.push_str("</table>");
    }
    Html(page("Topics", &body)).into_response()
}

/// `GET /runs/NAME`: the live monitor.
pub(crate) async fn monitor(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    if app.topic_dir(&name).is_none() {
        return no_such_topic(&name);
    }
    let n = escape(&name);
    let body = format!(
        "<link rel=\"stylesheet\" href=\"/assets/uplot.css\">\n\
<h1>Run of <span id=\"name\">{n}</span></h1>\n\
<p><span id=\"stage\" class=\"muted\">connecting…</span> \
<form class=\"inline\" method=\"post\" action=\"/runs/{n}/start\"><button id=\"start\">Start / resume</button></form> \
<form class=\"inline\" method=\"post\" action=\"/runs/{n}/stop\"><button id=\"stop\">Stop</button></form> \
<a href=\"/runs/{n}/seeds\" id=\"seeds-link\">seed review</a> <a href=\"/runs/{n}/decisions\">decision log</a> <a href=\"/runs/{n}/report\">report</a> <a href=\"/runs/{n}/corpus\" id=\"corpus-link\">corpus</a></p>\n\
<div class=\"bar\"><div id=\"budget\" style=\"width:0\"></div></div>\n\
<p class=\"muted\" id=\"eta\"></p>\n\
<p id=\"after\" hidden>This run has ended: <a href=\"/runs/{n}/report\">its report</a> has every chart and count, \
<a href=\"/runs/{n}/corpus\">the corpus</a> its documents and concordances.</p>\n\
<p class=\"muted\" id=\"annotate\"></p>\n\
<div class=\"cards\">\
<div class=\"card\"><b id=\"requests\">–</b><span>page requests (all runs) of <span id=\"max\">–</span></span></div>\
<div class=\"card\"><b id=\"rate-now\">–</b><span>requests/s, last 10 s</span></div>\
<div class=\"card\"><b id=\"rate-all\">–</b><span>requests/s, this run</span></div>\
<div class=\"card\"><b id=\"harvest\">–</b><span>harvest rate (<span id=\"harvest-of\">pages read whole</span>)</span></div>\
<div class=\"card\"><b id=\"queued\">–</b><span>URLs queued</span></div>\
<div class=\"card\"><b id=\"errors\">–</b><span>errors this run</span></div>\
<div class=\"card\"><b id=\"politeness\">–</b><span>of busy servers waiting for their delay</span></div>\
<div class=\"card\"><b id=\"disk\">–</b><span>WARC + database</span></div></div>\n\
<div id=\"charts\" hidden><h2>Requests per second</h2><div id=\"chart-rate\"></div>\n\
<h2>Harvest curve per request</h2><div id=\"chart-harvest\"></div></div>\n\
<h2>Servers</h2><table id=\"hosts\"></table>\n\
<h2>Largest queues</h2><table id=\"queues\"></table>\n\
<h2>Latest pages read</h2><table id=\"latest\"></table>\n\
<h2>Every URL, by final state and reason</h2><table id=\"reasons\"></table>\n\
<h2>Requests by HTTP status class</h2><table id=\"statuses\"></table>\n\
<pre id=\"log\" class=\"error\"></pre>\n\
<script src=\"/assets/uplot.js\"></script>\n<script>const RUN = \"{n}\";\n{MONITOR_JS}</script>"
    );
    Html(page(&format!("Run of {name}"), &body)).into_response()
}

/// `GET /runs/NAME/report`: the run's `report.html`.
pub(crate) async fn report(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    match std::fs::read_to_string(run_dir(&dir).join("report.html")) {
        Ok(html) => Html(html).into_response(),
        Err(_) => (
            StatusCode::NOT_FOUND,
            Html(page(
                "No report yet",
                &format!(
                    "<p>{} has no report yet: a run writes it when it ends. <a href=\"/runs/{}\">Monitor</a></p>",
                    escape(&name),
                    escape(&name)
                ),
            )),
        )
            .into_response(),
    }
}

/// The decision log's filters, from the query string.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct LogQuery {
    state: Option<String>,
    reason: Option<String>,
    url: Option<String>,
    page: Option<u64>,
}

/// Why a page about a run could not be made.
enum PageError {
    /// The topic has no crawl database yet.
    NoCrawl,
    /// Anything else, said in words.
    Failed(String),
}

impl PageError {
    fn response(self) -> Response {
        match self {
            PageError::NoCrawl => (
                StatusCode::NOT_FOUND,
                Html(page(
                    "No crawl yet",
                    "<p>This topic has not been crawled yet.</p>",
                )),
            )
                .into_response(),
            PageError::Failed(message) => error_page(&message),
        }
    }
}

fn open_store(dir: &std::path::Path) -> Result<Store, PageError> {
    let db = run_dir(dir).join("crawl.sqlite");
    if !db.is_file() {
        return Err(PageError::NoCrawl);
    }
    Store::open_read_only(&db).map_err(|e| PageError::Failed(format!("{e:#}")))
}

/// `GET /runs/NAME/decisions`: every URL with its state, reason, depth and score, filtered.
pub(crate) async fn decisions(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<LogQuery>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let nonempty = |s: &Option<String>| {
        s.as_ref()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let filter = DecisionFilter {
        state: nonempty(&q.state),
        reason: nonempty(&q.reason),
        url_contains: nonempty(&q.url),
    };
    let page_no = q.page.unwrap_or(0);
    let loaded = tokio::task::spawn_blocking(move || {
        let store = open_store(&dir)?;
        let rows = store
            .decisions(
                &filter,
                LOG_ROWS,
                page_no.saturating_mul(u64::from(LOG_ROWS)),
            )
            .map_err(|e| PageError::Failed(format!("{e:#}")))?;
        Ok::<_, PageError>((rows, filter))
    })
    .await;
    let ((rows, more), filter) = match loaded {
        Ok(Ok(v)) => v,
        Ok(Err(failure)) => return failure.response(),
        Err(_) => return error_page("the decision log could not be read"),
    };
    let n = escape(&name);
    let value = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
    let mut body = format!(
        "<h1>Decision log of <a href=\"/runs/{n}\">{n}</a></h1>\n\
         <form method=\"get\" id=\"filters\">state <input name=\"state\" value=\"{}\" size=\"8\" placeholder=\"fetched\"> \
         reason <input name=\"reason\" value=\"{}\" size=\"14\" placeholder=\"robots\"> \
         URL containing <input name=\"url\" value=\"{}\" size=\"30\"> <button>Show</button></form>\n\
         <table id=\"log\"><tr><th class=\"n\">id</th><th>URL</th><th>state</th><th>reason</th>\
         <th class=\"n\">depth</th><th class=\"n\">score</th></tr>\n",
        value(&filter.state),
        value(&filter.reason),
        value(&filter.url_contains)
    );
    for d in &rows {
        body.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td class=\"url\"><a href=\"/runs/{n}/url/{}\">{}</a></td><td>{}</td>\
             <td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
            d.id,
            d.id,
            escape(&d.url),
            escape(&d.state),
            escape(if d.reason.is_empty() { "–" } else { &d.reason }),
            d.depth,
            d.score.map_or("–".to_string(), |s| format!("{s:.3}"))
        ));
    }
    body.push_str("</table>\n");
    if rows.is_empty() {
        body.push_str("<p>No URL matches.</p>");
    }
    let link = |p: u64| {
        let mut query = vec![format!("page={p}")];
        for (k, v) in [
            ("state", &filter.state),
            ("reason", &filter.reason),
            ("url", &filter.url_contains),
        ] {
            if let Some(v) = v {
                query.push(format!(
                    "{k}={}",
                    url::form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()
                ));
            }
        }
        format!("/runs/{n}/decisions?{}", query.join("&amp;"))
    };
    if page_no > 0 {
        body.push_str(&format!("<a href=\"{}\">previous</a> ", link(page_no - 1)));
    }
    if more {
        body.push_str(&format!(
            "<a href=\"{}\" id=\"next\">next</a>",
            link(page_no.saturating_add(1))
        ));
    }
    Html(page(&format!("Decisions of {name}"), &body)).into_response()
}

/// `GET /runs/NAME/url/ID`: one URL's decision and the chain of pages that led to it.
pub(crate) async fn url(
    State(app): State<Arc<App>>,
    UrlPath((name, id)): UrlPath<(String, i64)>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let chain = tokio::task::spawn_blocking(move || {
        let store = open_store(&dir)?;
        store
            .decision_chain(id)
            .map_err(|e| PageError::Failed(format!("{e:#}")))
    })
    .await;
    let chain = match chain {
        Ok(Ok(chain)) => chain,
        Ok(Err(failure)) => return failure.response(),
        Err(_) => return error_page("the URL could not be read"),
    };
    let Some(this) = chain.first() else {
        return (
            StatusCode::NOT_FOUND,
            Html(page(
                "No such URL",
                "<p>No URL with this id in the crawl.</p>",
            )),
        )
            .into_response();
    };
    let n = escape(&name);
    let why = |reason: &str| match crate::ground::outcome::Reason::parse(reason) {
        Some(r) => r.explain().into_owned(),
        None if reason.is_empty() => "queued: not reached yet".to_string(),
        None => String::new(),
    };
    let mut body = format!(
        "<h1>URL {}</h1>\n<p class=\"url\"><a href=\"{}\">{}</a></p>\n\
         <table id=\"decision\">\
         <tr><th>state</th><td>{}</td></tr><tr><th>reason</th><td><b id=\"reason\">{}</b></td></tr>\
         <tr><th>why</th><td id=\"why\">{}</td></tr><tr><th>detail</th><td id=\"detail\">{}</td></tr>\
         <tr><th>found as</th><td>{} at depth {}, queued with priority {:.3}</td></tr>\
         <tr><th>HTTP status</th><td>{}</td></tr><tr><th>topic score</th><td>{}</td></tr>\
         <tr><th>formula clauses found</th><td>{}</td></tr></table>\n",
        this.id,
        escape(&this.url),
        escape(&this.url),
        escape(&this.state),
        escape(if this.reason.is_empty() {
            "–"
        } else {
            &this.reason
        }),
        escape(&why(&this.reason)),
        escape(&this.detail),
        escape(&this.via),
        this.depth,
        this.priority,
        this.status.map_or("–".to_string(), |s| s.to_string()),
        this.score.map_or("–".to_string(), |s| format!("{s:.3}")),
        escape(&this.matched),
    );
    body.push_str(
        "<h2>How the crawl got there</h2>\n<p class=\"muted\">From the seed to this URL: each page \
         and the decision taken on it.</p>\n<table id=\"chain\"><tr><th class=\"n\">depth</th><th>URL</th>\
         <th>found as</th><th>state</th><th>reason</th><th class=\"n\">score</th></tr>\n",
    );
    for d in chain.iter().rev() {
        body.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td class=\"url\"><a href=\"/runs/{n}/url/{}\">{}</a></td><td>{}</td>\
             <td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>\n",
            d.depth,
            d.id,
            escape(&d.url),
            escape(&d.via),
            escape(&d.state),
            escape(if d.reason.is_empty() { "–" } else { &d.reason }),
            d.score.map_or("–".to_string(), |s| format!("{s:.3}"))
        ));
    }
    body.push_str("</table>");
    Html(page(&format!("URL {id} of {name}"), &body)).into_response()
}
