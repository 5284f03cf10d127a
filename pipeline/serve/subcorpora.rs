//! Named subcorpora in the browser: the page that lists a run's subcorpora and makes or deletes
//! one (`/runs/NAME/subcorpora`, `glaneur subcorpus`), and what every query page shows of the
//! subcorpus it reads (`subcorpus=NAME`: which one, a selector of the others).
//!
//! **In:** the run's `subcorpora/*/subcorpus.json`, `index/` and `vrt/corpus.vrt`; the make
//! form (`name`, `where`: one `ATTR=REGEX` a line, `query`: CQL) and the delete button, both
//! POST. **Out:** HTML; `RUN/subcorpora/NAME/` written or removed by `glaneur subcorpus`'s own
//! function, then a redirect to the list (303), or the form again with the reason.
//!
//! **Invariants:** a subcorpus is made or deleted only by a POST, which `access.rs` refuses from
//! another site; its name and conditions reach the explorer only through `glaneur subcorpus`'s
//! flags' parser (the name after `--`, checked there: letters, digits, `-`, `_`), never as a
//! path; one change at a time (`App::subcorpora`), none while a run works in the folder, each
//! on a blocking thread through the query gate, the query's search stopped at
//! [`QUERY_SECONDS`]; a query page reads a subcorpus as it is (a GET never makes one again: a
//! subcorpus made from an earlier index says so and is made again from this page); every value
//! is escaped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use super::App;
use super::gate::{
    QUERY_SECONDS, bounded, cli_args, cuttable, failure, flag, given, link, or_answer, run_folder,
};
use super::html::{escape, page};

/// The folder a query page reads: the run, or its subcorpus `name` as it was made; an error
/// that says what to do when there is none or it was made from an earlier index.
pub(crate) fn folder(run: &Path, name: Option<&str>) -> anyhow::Result<PathBuf> {
    let Some(name) = name else {
        return Ok(run.to_path_buf());
    };
    if !crate::explore::subcorpora(run)
        .iter()
        .any(|s| s.name == name)
    {
        anyhow::bail!(
            "no subcorpus `{name}` in this run: its subcorpora page lists those there are and \
             makes new ones"
        );
    }
    let (dir, current) = crate::explore::stored_subcorpus(run, name)?;
    if !current {
        anyhow::bail!(
            "the subcorpus `{name}` was made from an earlier index of this run: make it again \
             on the run's subcorpora page (its button `make again`; a page that only reads \
             does not write it)"
        );
    }
    Ok(dir)
}

/// What a query page shows of its subcorpus: the selector for its form (empty when the run
/// has none and none is asked), and the line saying which one is read (empty for the whole
/// corpus, or a subcorpus the run does not have).
pub(crate) fn chooser(name: &str, run: &Path, chosen: Option<&str>) -> (String, String) {
    let all = crate::explore::subcorpora(run);
    let mut select = String::new();
    if !all.is_empty() || chosen.is_some() {
        let mut options = String::from("<option value=\"\">the whole corpus</option>");
        let mut listed = false;
        for s in &all {
            let sel = if chosen == Some(s.name.as_str()) {
                listed = true;
                " selected"
            } else {
                ""
            };
            options.push_str(&format!(
                "<option value=\"{0}\"{sel}>{0} ({1} documents)</option>",
                escape(&s.name),
                s.documents
            ));
        }
        if let Some(c) = chosen.filter(|_| !listed) {
            options.push_str(&format!(
                "<option value=\"{0}\" selected>{0}</option>",
                escape(c)
            ));
        }
        select = format!(
            "<label>in <select name=\"subcorpus\" id=\"subcorpus-select\">{options}</select></label> "
        );
    }
    let Some(c) = chosen else {
        return (select, String::new());
    };
    let n = escape(name);
    let line = match all.iter().find(|s| s.name == c) {
        Some(s) => format!(
            "<p id=\"subcorpus-active\" class=\"subcorpus\">In the subcorpus <b>{}</b>: {} \
             documents, {} tokens (<code>{}</code>); its counts and frequencies are its own. \
             <a href=\"/runs/{n}/subcorpora\">All subcorpora</a></p>\n",
            escape(&s.name),
            s.documents,
            s.tokens,
            escape(&s.definition())
        ),
        // The page's error says so.
        None => String::new(),
    };
    (select, line)
}

/// `GET /runs/NAME/subcorpora`.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, not_cuttable));
    let done = match (given(q.get("made")), given(q.get("deleted"))) {
        (Some(made), _) => format!(
            "<p id=\"subcorpora-done\" class=\"kept\">Made the subcorpus <b>{}</b>: every query \
             page reads it when it is chosen in its form.</p>\n",
            escape(made)
        ),
        (None, Some(gone)) => format!(
            "<p id=\"subcorpora-done\" class=\"kept\">Deleted the subcorpus <b>{}</b>.</p>\n",
            escape(gone)
        ),
        _ => String::new(),
    };
    let body = body(&name, &run, &done, &HashMap::new());
    Html(page(&format!("Subcorpora of {name}"), &body)).into_response()
}

/// `POST /runs/NAME/subcorpora`: makes (or makes again) a subcorpus from the form.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    axum::Form(form): axum::Form<HashMap<String, String>>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, not_cuttable));
    let sub = given(form.get("name")).unwrap_or_default().to_string();
    let made = if sub.is_empty() {
        Err(anyhow::anyhow!(
            "give the subcorpus a name: 1 to 64 letters, digits, - or _"
        ))
    } else if let Some(holder) = crate::ground::runlock::RunLock::holder(&run) {
        Err(anyhow::anyhow!(
            "the run is at work ({holder}): make subcorpora once it has finished, from the \
             index it ends with"
        ))
    } else {
        let (shared, folder, fields) = (app.clone(), run.clone(), form.clone());
        match bounded(&app, move || make(&shared, &folder, &fields)).await {
            Ok(made) => made,
            Err(page) => return page,
        }
    };
    match made {
        Ok(()) => Redirect::to(&format!(
            "/runs/{}/subcorpora?made={}",
            super::gate::path_segment(&name),
            url::form_urlencoded::byte_serialize(sub.as_bytes()).collect::<String>()
        ))
        .into_response(),
        Err(e) => refused(&name, &run, &e, &form),
    }
}

/// `POST /runs/NAME/subcorpora/SUB/delete`.
pub(crate) async fn delete(
    State(app): State<Arc<App>>,
    UrlPath((name, sub)): UrlPath<(String, String)>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, not_cuttable));
    let (shared, folder, gone) = (app.clone(), run.clone(), sub.clone());
    let done = bounded(&app, move || {
        let words = vec![
            "--delete".to_string(),
            "--".to_string(),
            folder.display().to_string(),
            gone,
        ];
        let args: crate::explore::SubcorpusArgs = cli_args("subcorpus", words)?;
        let _one = shared.subcorpora.lock().unwrap_or_else(|p| p.into_inner());
        crate::explore::subcorpus(&args, &mut Vec::new())
    })
    .await;
    match done {
        Ok(Ok(())) => Redirect::to(&format!(
            "/runs/{}/subcorpora?deleted={}",
            super::gate::path_segment(&name),
            url::form_urlencoded::byte_serialize(sub.as_bytes()).collect::<String>()
        ))
        .into_response(),
        Ok(Err(e)) => refused(&name, &run, &e, &HashMap::new()),
        Err(page) => page,
    }
}

/// `glaneur subcorpus RUN NAME --where … --query …` from the form's fields, one change at a
/// time.
fn make(app: &App, run: &Path, form: &HashMap<String, String>) -> anyhow::Result<()> {
    let mut words = Vec::new();
    for condition in form.get("where").map_or("", String::as_str).lines() {
        let condition = condition.trim();
        if !condition.is_empty() {
            words.push(format!("--where={condition}"));
        }
    }
    flag(&mut words, "query", form.get("query"));
    words.push(format!("--timeout={QUERY_SECONDS}"));
    words.push("--".to_string());
    words.push(run.display().to_string());
    words.push(given(form.get("name")).unwrap_or_default().to_string());
    let args: crate::explore::SubcorpusArgs = cli_args("subcorpus", words)?;
    let _one = app.subcorpora.lock().unwrap_or_else(|p| p.into_inner());
    crate::explore::subcorpus(&args, &mut Vec::new())
}

/// The page again, with why the change was refused and the form as it was sent.
fn refused(
    name: &str,
    run: &Path,
    error: &anyhow::Error,
    form: &HashMap<String, String>,
) -> Response {
    let (message, status) = failure(error);
    let body = body(name, run, &message, form);
    (status, Html(page(&format!("Subcorpora of {name}"), &body))).into_response()
}

/// The page a run without an index or vertical file shows.
fn not_cuttable(name: &str, run: &Path) -> Option<Response> {
    if cuttable(run) {
        return None;
    }
    let n = escape(name);
    Some(
        (
            StatusCode::NOT_FOUND,
            Html(page(
                &format!("Subcorpora of {name}"),
                &format!(
                    "<h1>Subcorpora of <a href=\"/runs/{n}\">{n}</a></h1>\n<p class=\"empty\" \
                     id=\"subcorpora-none\">No corpus to cut yet: a subcorpus is cut from the \
                     run's vertical file (<code>vrt/corpus.vrt</code>) and its index, which the \
                     export stage writes at the end of <code>glaneur run</code>. Start or follow \
                     the run on <a href=\"/runs/{n}\">its monitor</a>.</p>"
                ),
            )),
        )
            .into_response(),
    )
}

/// The list, `notice` (what was done, or why not), the form (filled with `form`).
fn body(name: &str, run: &Path, notice: &str, form: &HashMap<String, String>) -> String {
    let n = escape(name);
    let mut out = format!(
        "<h1>Subcorpora of <a href=\"/runs/{n}\">{n}</a></h1>\n{}{notice}",
        super::gate::workbench_nav(name, run, "subcorpora", None)
    );
    let all = crate::explore::subcorpora(run);
    if all.is_empty() {
        out.push_str(
            "<p class=\"empty\" id=\"subcorpora-empty\">No subcorpus yet. Make one below: the \
             documents of one host, of a language, those holding a hit of a query… Every query \
             page (concordance, word list, collocations, keywords, word sketch) can then read it \
             alone, with its own frequencies.</p>\n",
        );
    } else {
        out.push_str(
            "<table id=\"subcorpora-table\"><tr><th>name</th><th class=\"n\">documents</th>\
             <th class=\"n\">tokens</th><th>definition</th><th></th></tr>\n",
        );
        for s in &all {
            out.push_str(&row(name, s));
        }
        out.push_str("</table>\n");
    }
    out.push_str(&make_form(name, run, form));
    out
}

/// A subcorpus's row: its name (to its concordance page), sizes, definition, buttons.
fn row(name: &str, s: &crate::explore::ListedSubcorpus) -> String {
    let n = escape(name);
    let sub = escape(&super::gate::path_segment(&s.name));
    let again = if s.current {
        String::new()
    } else {
        format!(
            "<form method=\"post\" class=\"inline\" action=\"/runs/{n}/subcorpora\">\
             <input type=\"hidden\" name=\"name\" value=\"{}\">\
             <input type=\"hidden\" name=\"where\" value=\"{}\">\
             <input type=\"hidden\" name=\"query\" value=\"{}\">\
             <button title=\"the run's index changed since it was made\">make again</button></form> ",
            escape(&s.name),
            escape(&s.conditions.join("\n")),
            escape(s.query.as_deref().unwrap_or_default())
        )
    };
    format!(
        "<tr data-name=\"{}\"><td><a href=\"{}\">{}</a></td><td class=\"n\">{}</td>\
         <td class=\"n\">{}</td><td><code>{}</code>{}</td><td>{again}\
         <form method=\"post\" class=\"inline\" action=\"/runs/{n}/subcorpora/{sub}/delete\">\
         <button class=\"delete\">delete</button></form></td></tr>\n",
        escape(&s.name),
        link(
            &format!("/runs/{name}/kwic"),
            &[("subcorpus", s.name.clone())]
        ),
        escape(&s.name),
        s.documents,
        s.tokens,
        escape(&s.definition()),
        if s.current {
            ""
        } else {
            " <span class=\"error\">made from an earlier index: make it again</span>"
        },
    )
}

/// The form that makes a subcorpus.
fn make_form(name: &str, run: &Path, form: &HashMap<String, String>) -> String {
    let value = |k: &str| escape(form.get(k).map_or("", String::as_str));
    let (_, documents) = crate::index::corpus::names(run).unwrap_or_default();
    format!(
        "<h2>Make a subcorpus</h2>\n<form method=\"post\" id=\"subcorpus-form\" class=\"topic\" \
         action=\"/runs/{}/subcorpora\">\
         <label>name (letters, digits, - and _) <input name=\"name\" value=\"{}\" size=\"24\" \
         placeholder=\"debian\"></label>\
         <label>documents whose attributes match, one <code>ATTR=REGEX</code> (or \
         <code>ATTR!=REGEX</code>) a line, all required; the expression matches the whole value \
         (attributes: {})<textarea name=\"where\" rows=\"3\" placeholder=\"host=.*debian.*\">{}\
         </textarea></label>\
         <label>and holding a hit of the CQL query <input name=\"query\" value=\"{}\" size=\"40\" \
         placeholder='[lemma=\"partition\"]'></label>\
         <p><button id=\"subcorpus-make\">Make the subcorpus</button> <span class=\"muted\">(as \
         <code>glaneur subcorpus RUN NAME --where ATTR=REGEX --query CQL</code>; a name already \
         there is replaced)</span></p></form>\n",
        escape(name),
        value("name"),
        escape(&documents.join(", ")),
        value("where"),
        value("query"),
    )
}
