//! Topics written from the browser: a form for the fields a linguist changes most (name,
//! description, languages, seeds and their terms, saved result pages, formula, domains, limits,
//! politeness), the formula checked live on a sample text, and the topic saved as
//! `NAME/topic.toml` only when `glaneur check`'s own validation accepts it.
//!
//! **In:** the form (multipart: fields and uploaded result pages), the topic file being edited
//! (or `glaneur init`'s template for a new one). **Out:** `NAME/topic.toml`, uploads in
//! `NAME/serp/`; or the form again with every problem named by its field.
//!
//! **Invariants:** editing changes only the form's fields: comments, order and every other
//! setting of the file stay as they were (the file is edited as a TOML document); nothing is
//! written unless the whole topic validates (written beside, then renamed in), and a save that
//! fails leaves nothing behind (its uploads removed or restored, its folders removed); an
//! uploaded file's name is reduced to letters, digits, `-`, `_`, `.` and never leaves
//! `NAME/serp/`, and a link in its place is replaced, not followed; a new topic needs a name
//! that nothing in the folder of topics has (not even a link); an edit writes the topic its URL
//! names, whatever the form says.

use std::sync::Arc;

use axum::extract::{Multipart, Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use toml_edit::DocumentMut;

use super::form::{TopicForm, new_topic_text};

use super::App;
use super::html::{escape, page};

/// The form page (`problem`: what stopped the last save).
fn form_page(form: &TopicForm, new: bool, problem: Option<&str>) -> String {
    let v = |s: &str| escape(s);
    let action = if new {
        "/topics/new".to_string()
    } else {
        format!("/topics/{}/edit", escape(&form.name))
    };
    let strategies: String = stages::focus::strategy::Strategy::ALL
        .iter()
        .map(|s| {
            let n = s.name();
            let selected = if form.strategy == n { " selected" } else { "" };
            format!("<option{selected}>{n}</option>")
        })
        .collect();
    let current = form.tagger.as_deref().unwrap_or("none");
    let taggers: String = ["none", "spacy", "treetagger", "command"]
        .iter()
        // A command is named in the file: offered only when the topic has one.
        .filter(|t| **t != "command" || current == "command")
        .map(|t| {
            let selected = if current == *t { " selected" } else { "" };
            format!("<option{selected}>{t}</option>")
        })
        .collect();
    let problem = problem.map_or(String::new(), |p| {
        format!("<pre class=\"error\" id=\"problem\">{}</pre>", escape(p))
    });
    let name_field = if new {
        format!(
            "<label>name (the folder's name too) <input name=\"name\" id=\"f-name\" value=\"{}\" required></label>",
            v(&form.name)
        )
    } else {
        format!(
            "<input type=\"hidden\" name=\"name\" value=\"{}\"><p>name: <b>{}</b></p>",
            v(&form.name),
            v(&form.name)
        )
    };
    let queries = match &form.queries {
        Some(q) => format!(
            "<label>search queries sent to the <code>[search]</code> API (one a line) <textarea name=\"queries\" rows=\"3\">{}</textarea></label>",
            v(q)
        ),
        None => "<p class=\"muted\">search queries: the topic has no <code>[search]</code> section (its API and key \
                 are set in the file: see the guide's topic reference)</p>"
            .to_string(),
    };
    let pages = if form.result_pages.is_empty() {
        "none".to_string()
    } else {
        escape(&form.result_pages.join(", "))
    };
    format!(
        "<h1>{}</h1>\n{problem}\n\
<form method=\"post\" action=\"{action}\" enctype=\"multipart/form-data\" id=\"topic-form\" class=\"topic\">\n\
{name_field}\n\
<label>description <input name=\"description\" value=\"{}\" size=\"80\"></label>\n\
<label>languages (ISO 639-1, comma-separated; empty: any) <input name=\"languages\" value=\"{}\"></label>\n\
<label>recorded web to crawl instead of the network (a WARC file in the topic folder, e.g. a run's <code>run/warc/…warc.gz</code>; empty: the live web) <input name=\"replay\" value=\"{}\" size=\"50\"></label>\n\
<h2>Seeds</h2>\n<label>seed URLs (one a line) <textarea name=\"seed_urls\" rows=\"4\">{}</textarea></label>\n\
<label>seed terms (comma-separated: what a search API is sent, in <code>[search]</code>; they do not score pages) <input name=\"seed_terms\" value=\"{}\" size=\"80\"></label>\n\
{queries}\n<p>saved result pages: {pages}</p>\n\
<label>add saved result pages (HTML or WARC, as saved from a browser) <input type=\"file\" name=\"result_page\" multiple></label>\n\
<h2>Formula</h2>\n<label>expression (ET/AND, OU/OR, NON/NOT, NEAR/n, \"phrases\", prefix*) <input name=\"formula\" id=\"f-formula\" value=\"{}\" size=\"90\"></label>\n\
<label>sample text to try it on (a page's text pasted here, or its HTML) <textarea id=\"f-sample\" rows=\"4\"></textarea></label>\n\
<pre id=\"formula-check\" class=\"muted\"></pre>\n\
<h2>Domains</h2>\n<label>allowed hosts (a name, or a suffix starting with a dot; one a line) <textarea name=\"allow\" rows=\"3\">{}</textarea></label>\n\
<label>denied hosts <textarea name=\"deny\" rows=\"2\">{}</textarea></label>\n\
<h2>Limits</h2>\n<label>max_pages <input name=\"max_pages\" value=\"{}\" size=\"8\"></label> \
<label>max_depth <input name=\"max_depth\" value=\"{}\" size=\"4\"></label> \
<label>max_pages_per_host <input name=\"max_pages_per_host\" value=\"{}\" size=\"8\"></label> \
<label>strategy <select name=\"strategy\">{strategies}</select></label>\n\
<h2>Tagging</h2>\n<label>tagger (part of speech and lemma of every token, between extraction and export) <select name=\"tagger\">{taggers}</select></label>\n\
<p class=\"muted\">spacy: each language's small model, in a Python environment glaneur makes on the first run; treetagger: your installation (its binary and parameter files from <code>$TREETAGGER_HOME</code>, or named in the file). Models and other settings: the guide's clean text page.</p>\n\
<h2>Politeness</h2>\n<label>contact (in the User-Agent: your e-mail or web page) <input name=\"contact\" value=\"{}\" size=\"40\"></label> \
<label>delay between two requests to a server, seconds <input name=\"delay_seconds\" value=\"{}\" size=\"5\"></label>\n\
<p><button id=\"save\">Check and save</button> <span class=\"muted\">saved only if <code>glaneur check</code> accepts it; every other setting of the file is kept</span></p>\n\
</form>\n<script>{}</script>",
        if new {
            "New topic".to_string()
        } else {
            format!("Topic {}", v(&form.name))
        },
        v(&form.description),
        v(&form.languages),
        v(form.replay.as_deref().unwrap_or("")),
        v(&form.seed_urls),
        v(&form.seed_terms),
        v(&form.formula),
        v(&form.allow),
        v(&form.deny),
        v(&form.max_pages),
        v(&form.max_depth),
        v(&form.max_pages_per_host),
        v(&form.contact),
        v(&form.delay_seconds),
        FORMULA_JS,
    )
}

/// Checks the formula as it is typed (`POST /formula/check`).
const FORMULA_JS: &str = r#"
(function () {
  const formula = document.getElementById("f-formula"), sample = document.getElementById("f-sample");
  const out = document.getElementById("formula-check");
  let timer = null;
  const check = () => {
    const body = new URLSearchParams({expression: formula.value, sample: sample.value});
    fetch("/formula/check", {method: "POST", body}).then((r) => r.json()).then((r) => {
      out.className = r.error ? "error" : "muted";
      out.textContent = r.error ? r.error : r.summary;
      out.dataset.column = r.column || "";
      document.body.dataset.formulaChecks = String(Number(document.body.dataset.formulaChecks || 0) + 1);
    });
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(check, 250); };
  formula.addEventListener("input", later);
  sample.addEventListener("input", later);
  check();
})();
"#;

/// `GET /topics/new`.
pub(crate) async fn new_form(State(app): State<Arc<App>>) -> Response {
    let mut form = TopicForm::from_text("", &new_topic_text(&app, "nouveau"));
    form.name.clear();
    Html(page("New topic", &form_page(&form, true, None))).into_response()
}

/// `GET /topics/NAME/edit`.
pub(crate) async fn edit_form(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return super::html::no_such_topic(&name);
    };
    let path = dir.join("topic.toml");
    let (text, problem) = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let problem = text.parse::<DocumentMut>().err().map(|e| {
                format!(
                    "{} does not parse as TOML, so the form cannot show it: {e}",
                    path.display()
                )
            });
            (text, problem)
        }
        Err(e) => (
            String::new(),
            Some(format!("cannot read {}: {e}", path.display())),
        ),
    };
    let form = TopicForm::from_text(&name, &text);
    Html(page(
        &format!("Topic {name}"),
        &form_page(&form, false, problem.as_deref()),
    ))
    .into_response()
}

/// Reads the multipart form: the fields, and the uploaded files (name, bytes).
async fn read_form(
    mut multipart: Multipart,
) -> Result<(TopicForm, Vec<(String, Vec<u8>)>), (StatusCode, String)> {
    // Too large a form (its files above all) is said so, with 413; anything else is a form
    // that did not arrive whole.
    let failed = |what: String, e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the form with its files is larger than {} MiB: upload fewer or smaller \
                     result pages at a time (or copy them into the topic's serp/ folder and \
                     list them in the topic file)",
                    super::MAX_BODY_BYTES >> 20
                ),
            )
        } else {
            (
                StatusCode::BAD_REQUEST,
                format!("{what} did not arrive whole: {e}"),
            )
        }
    };
    let mut form = TopicForm::default();
    let mut files = Vec::new();
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| failed("the form".to_string(), e))?
    {
        let key = field.name().unwrap_or_default().to_string();
        if key == "result_page" {
            let file_name = field.file_name().unwrap_or_default().to_string();
            let bytes = field
                .bytes()
                .await
                .map_err(|e| failed(format!("the file {file_name}"), e))?;
            if !file_name.is_empty() && !bytes.is_empty() {
                files.push((file_name, bytes.to_vec()));
            }
            continue;
        }
        let text = field
            .text()
            .await
            .map_err(|e| failed(format!("the field {key}"), e))?;
        let slot = match key.as_str() {
            "name" => &mut form.name,
            "description" => &mut form.description,
            "languages" => &mut form.languages,
            "replay" => form.replay.get_or_insert_with(String::new),
            "seed_urls" => &mut form.seed_urls,
            "seed_terms" => &mut form.seed_terms,
            "queries" => form.queries.get_or_insert_with(String::new),
            "formula" => &mut form.formula,
            "allow" => &mut form.allow,
            "deny" => &mut form.deny,
            "max_pages" => &mut form.max_pages,
            "max_depth" => &mut form.max_depth,
            "max_pages_per_host" => &mut form.max_pages_per_host,
            "strategy" => &mut form.strategy,
            "delay_seconds" => &mut form.delay_seconds,
            "contact" => &mut form.contact,
            "tagger" => form.tagger.get_or_insert_with(String::new),
            _ => continue,
        };
        *slot = text;
    }
    form.name = form.name.trim().to_string();
    Ok((form, files))
}

/// Saves the form: a new topic (`editing` None) or the topic `editing` names (the URL's, never
/// the form's: an edit cannot write another topic).
async fn post(app: Arc<App>, multipart: Multipart, editing: Option<&str>, title: &str) -> Response {
    let new = editing.is_none();
    let (mut form, files) = match read_form(multipart).await {
        Ok(read) => read,
        Err((status, problem)) => {
            return super::html::status_page(status, "The form was not saved", &problem);
        }
    };
    if let Some(name) = editing {
        form.name = name.to_string();
    }
    let app2 = app.clone();
    let mut form2 = form.clone();
    let saved = tokio::task::spawn_blocking(move || {
        // One save at a time: two forms for one new name, or an undo putting back what the
        // other save wrote, would otherwise race.
        let _saving = app2.saving.lock().unwrap_or_else(|p| p.into_inner());
        let result = super::save::save(&app2, new, &mut form2, &files);
        (result, form2)
    })
    .await;
    match saved {
        Ok((Ok(()), saved)) => Redirect::to(&format!("/?saved={}", saved.name)).into_response(),
        Ok((Err(problem), kept)) => {
            form = kept;
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Html(page(title, &form_page(&form, new, Some(&problem)))),
            )
                .into_response()
        }
        Err(_) => super::html::error_page("the topic could not be saved"),
    }
}

/// `POST /topics/new`.
pub(crate) async fn create(State(app): State<Arc<App>>, multipart: Multipart) -> Response {
    post(app, multipart, None, "New topic").await
}

/// `POST /topics/NAME/edit`.
pub(crate) async fn update(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    multipart: Multipart,
) -> Response {
    if app.topic_dir(&name).is_none() {
        return super::html::no_such_topic(&name);
    }
    post(app, multipart, Some(&name), &format!("Topic {name}")).await
}

/// The live check's request.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct FormulaCheck {
    expression: String,
    #[serde(default)]
    sample: String,
}

/// `POST /formula/check`: the formula parsed (or its error with the column) and, on the sample
/// text, its verdict and the clauses found — what `glaneur formula` says of a file.
pub(crate) async fn check_formula(axum::Form(q): axum::Form<FormulaCheck>) -> Response {
    // A formula or a sample of megabytes takes seconds: off the threads that serve requests.
    match tokio::task::spawn_blocking(move || formula_verdict(&q)).await {
        Ok(answer) => axum::Json(answer).into_response(),
        Err(_) => super::html::error_page("the formula could not be checked"),
    }
}

/// The live check's answer: the formula's error with its column, or its verdict on the sample.
fn formula_verdict(q: &FormulaCheck) -> serde_json::Value {
    use stages::focus::formula::{Formula, FormulaOptions, PreparedText};
    let options = FormulaOptions::default();
    match Formula::parse_with(&q.expression, options) {
        Err(e) => serde_json::json!({
            "error": crate::commands::inspect::formula_error(&q.expression, &e),
            "column": e.column,
        }),
        Ok(formula) if q.sample.trim().is_empty() => serde_json::json!({
            "summary": format!("valid: {formula} (paste a page's text below to try it)"),
        }),
        Ok(formula) => {
            let text = sample_text(&q.sample);
            let prepared = PreparedText::new(&text, options);
            let verdict = formula.evaluate_prepared(&prepared);
            serde_json::json!({
                "summary": format!(
                    "valid: {formula} — on the sample ({} word{}): {}{}",
                    prepared.token_count(),
                    if prepared.token_count() == 1 { "" } else { "s" },
                    if verdict.satisfied { "accepted" } else { "rejected" },
                    if verdict.matched.is_empty() {
                        String::new()
                    } else {
                        format!(", found {}", verdict.matched.join(" | "))
                    }
                ),
                "satisfied": verdict.satisfied,
            })
        }
    }
}

/// The text of a pasted sample: its title and clean text when it is HTML, as `glaneur formula`
/// reads an HTML file; else as it is.
fn sample_text(sample: &str) -> String {
    let looks_html = sample.trim_start().starts_with('<') && sample.contains('>');
    if !looks_html {
        return sample.to_string();
    }
    let Ok(url) = url::Url::parse("http://localhost/sample.html") else {
        return sample.to_string();
    };
    let extracted = stages::page::extract::extract_html(sample, &url, &Default::default());
    format!(
        "{}\n\n{}",
        extracted.title.clone().unwrap_or_default(),
        extracted.clean_text()
    )
}
