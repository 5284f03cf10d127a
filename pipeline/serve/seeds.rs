//! The seed review in the browser (`/runs/NAME/seeds`): the lines of the run's
//! `seeds-review.tsv` with a checkbox each, and their `keep` saved from the form.
//!
//! **In:** the review file `glaneur seeds TOPIC` wrote (and the user may have edited); the form
//! (`url`: every URL shown, `keep`: the URLs checked), by POST. **Out:** HTML; the file's `keep`
//! column changed for the URLs shown, through `crate::seeds::review::set_keep`, then a
//! redirect to the page (303).
//!
//! **Invariants:** the file is changed only by a POST, which `access.rs` refuses from another
//! site; never while a run works in the folder (its lock is held for the write); a URL the form
//! did not show is left as it is, and so is every other line, comment and column; gathering the
//! seeds is left to `glaneur seeds` (the page says so): a search that sends requests does not
//! start from a page; every value is escaped.

use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use super::App;
use super::html::{escape, no_such_topic, page};
use crate::ground::runlock::RunLock;
use crate::seeds::review::{REVIEW_FILE, read, set_keep};

/// The columns shown beside the checkbox.
const SHOWN: [&str; 6] = ["sources", "queries", "rank", "scope", "title", "verdict"];

/// `GET /runs/NAME/seeds`: the review, or how to make one.
pub(crate) async fn review(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let notice = match q.get("saved").map(String::as_str) {
        Some(n) => format!(
            "<p id=\"seeds-saved\" class=\"kept\">Saved: {} line(s) changed. The next run crawls \
             only the seeds checked.</p>\n",
            escape(n)
        ),
        None => String::new(),
    };
    body(&name, &dir, &notice, StatusCode::OK)
}

/// `POST /runs/NAME/seeds`: `keep` of every URL shown, yes when checked.
pub(crate) async fn save(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    axum::Form(form): axum::Form<Vec<(String, String)>>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let run = super::run_dir(&dir);
    let checked: HashSet<&str> = form
        .iter()
        .filter(|(k, _)| k == "keep")
        .map(|(_, v)| v.as_str())
        .collect();
    let answers: Vec<(String, bool)> = form
        .iter()
        .filter(|(k, _)| k == "url")
        .map(|(_, url)| (url.clone(), checked.contains(url.as_str())))
        .collect();
    let saved = match RunLock::holder(&run) {
        Some(holder) => Err(anyhow::anyhow!(
            "a run is at work in the folder ({holder}): change the review once it has stopped"
        )),
        None => tokio::task::spawn_blocking(move || {
            let _lock = RunLock::acquire(&run)?;
            set_keep(&run, &answers)
        })
        .await
        .unwrap_or_else(|e| Err(anyhow::anyhow!("the save stopped: {e}"))),
    };
    match saved {
        Ok(changed) => Redirect::to(&format!(
            "/runs/{}/seeds?saved={changed}",
            super::gate::path_segment(&name)
        ))
        .into_response(),
        Err(e) => body(
            &name,
            &dir,
            &format!(
                "<p id=\"seeds-error\" class=\"error\">Not saved: {}</p>\n",
                escape(&format!("{e:#}"))
            ),
            StatusCode::CONFLICT,
        ),
    }
}

/// The page: `notice`, then the review's lines as a form, or how to make the review.
fn body(name: &str, dir: &std::path::Path, notice: &str, status: StatusCode) -> Response {
    let n = escape(name);
    let run = super::run_dir(dir);
    let path = run.join(REVIEW_FILE);
    let mut out = format!("<h1>Seed review of <a href=\"/runs/{n}\">{n}</a></h1>\n{notice}");
    if !path.is_file() {
        out.push_str(&format!(
            "<p class=\"empty\" id=\"seeds-none\">No seed review yet. <code>glaneur seeds {}</code> \
             gathers the seeds as a run does (search results included) and writes <code>{}</code>; \
             add <code>--fetch</code> to see each page's title and whether the formula accepts it. \
             This page then lets you choose the seeds to crawl.</p>\n",
            escape(&dir.display().to_string()),
            escape(&path.display().to_string()),
        ));
        return (status, Html(page(&format!("Seed review of {name}"), &out))).into_response();
    }
    let review = match read(&path) {
        Ok(review) => review,
        Err(e) => {
            out.push_str(&format!(
                "<p class=\"error\" id=\"seeds-error\">{}</p>\n",
                escape(&format!("{e:#}"))
            ));
            return (
                StatusCode::CONFLICT,
                Html(page(&format!("Seed review of {name}"), &out)),
            )
                .into_response();
        }
    };
    out.push_str(&format!(
        "<p class=\"muted\">The lines of <code>{}</code>: a run crawls only the seeds checked \
         (the others are recorded as <code>seed-dropped</code>). Seeds outside the topic's \
         domains are not crawled even when checked.</p>\n<form method=\"post\" \
         action=\"/runs/{n}/seeds\" id=\"seeds-form\">\n<table id=\"seeds-table\"><tr><th>keep</th>\
         <th>url</th>",
        escape(&path.display().to_string())
    ));
    for column in SHOWN {
        out.push_str(&format!("<th>{column}</th>"));
    }
    out.push_str("</tr>\n");
    for (_, fields) in review.rows() {
        let url = fields.get("url").copied().unwrap_or("");
        let keep = fields
            .get("keep")
            .is_some_and(|k| matches!(k.trim().to_ascii_lowercase().as_str(), "yes" | "y"));
        let u = escape(url);
        out.push_str(&format!(
            "<tr><td><input type=\"checkbox\" name=\"keep\" value=\"{u}\"{}>\
             <input type=\"hidden\" name=\"url\" value=\"{u}\"></td><td class=\"url\">{u}</td>",
            if keep { " checked" } else { "" }
        ));
        for column in SHOWN {
            let value = fields.get(column).copied().unwrap_or("");
            out.push_str(&format!("<td>{}</td>", escape(value)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n<p><button id=\"seeds-save\">Save the choices</button></p></form>\n");
    (status, Html(page(&format!("Seed review of {name}"), &out))).into_response()
}
