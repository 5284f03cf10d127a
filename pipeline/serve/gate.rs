//! What every query page of the browser shares: the gate that lets one query per core run, off
//! the async threads and within [`QUERY_SECONDS`]; the page's parameters read as the command
//! line's flags (by clap, with the command line's checks and messages); links that keep a
//! page's parameters; errors and downloads.
//!
//! **In:** the server's state, a page's query parameters. **Out:** the explorer's arguments, a
//! query's result or the page saying why there is none (busy, malformed, stopped).
//!
//! **Invariants:** at most one query per core at a time (the others wait up to
//! [`QUERY_SECONDS`], then a 503 page); a query runs in `spawn_blocking`, so a panic in it is an
//! error page, not a dead server; parameters reach the explorer only through clap's parser, as
//! on the command line (after `--`, a value is never read as a flag); every value shown is
//! escaped.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::OwnedSemaphorePermit;

use super::App;
use super::html::{error_page, escape, status_page};

/// Longest time a query (concordance, statistic, search) may run in the browser before it is
/// stopped with a message, and longest wait for a free query slot.
pub(crate) const QUERY_SECONDS: u64 = 10;

/// A place among the query slots, waited for at most [`QUERY_SECONDS`]: else the busy page.
pub(crate) async fn permit(app: &App) -> Result<OwnedSemaphorePermit, Response> {
    let wait = std::time::Duration::from_secs(QUERY_SECONDS);
    match tokio::time::timeout(wait, app.queries.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(status_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Busy",
            &format!(
                "Other searches and concordances kept every core busy for {QUERY_SECONDS} s: \
                 try again in a moment."
            ),
        )),
    }
}

/// `work` run on a blocking thread once a query slot is free; its result, or the page saying
/// why there is none.
pub(crate) async fn bounded<T, F>(app: &App, work: F) -> Result<T, Response>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let permit = permit(app).await?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
    .await
    .map_err(|_| error_page("the query failed unexpectedly; the server goes on serving"))
}

/// The explorer's arguments of `command` from command-line words (flags first, then `--` and
/// the positional values), parsed by clap as `glaneur COMMAND` parses them; clap's message
/// without its usage lines when they are refused.
pub(crate) fn cli_args<A>(command: &'static str, words: Vec<String>) -> anyhow::Result<A>
where
    A: clap::Args + clap::FromArgMatches,
{
    let parser = A::augment_args(clap::Command::new(command).no_binary_name(true));
    let matches = parser.try_get_matches_from(words).map_err(|e| {
        let text = e.render().to_string();
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("invalid parameters");
        anyhow::anyhow!("{}", first.trim_start_matches("error: "))
    })?;
    A::from_arg_matches(&matches).map_err(|e| anyhow::anyhow!("{e}"))
}

/// A parameter's value, trimmed, or None when it is empty.
pub(crate) fn given(value: Option<&String>) -> Option<&str> {
    value.map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// Whether a checkbox parameter is on.
pub(crate) fn ticked(value: Option<&String>) -> bool {
    given(value).is_some_and(|v| matches!(v, "1" | "on" | "true" | "yes"))
}

/// `--NAME=VALUE` for a given parameter (`sort_by` is `--sort-by`).
pub(crate) fn flag(words: &mut Vec<String>, name: &str, value: Option<&String>) {
    if let Some(v) = given(value) {
        words.push(format!("--{}={v}", name.replace('_', "-")));
    }
}

/// A link to `path` with `params` (empty values left out), escaped for an attribute.
pub(crate) fn link(path: &str, params: &[(&str, String)]) -> String {
    let query: Vec<String> = params
        .iter()
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(k, v)| {
            format!(
                "{k}={}",
                url::form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()
            )
        })
        .collect();
    if query.is_empty() {
        escape(path)
    } else {
        escape(&format!("{path}?{}", query.join("&")))
    }
}

/// `text` as one segment of a URL path.
pub(crate) fn path_segment(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A query's failure as a paragraph and the page's status: 503 when its time limit stopped
/// it, 400 for what was asked (a malformed query names its position).
pub(crate) fn failure(error: &anyhow::Error) -> (String, StatusCode) {
    let stopped = error
        .downcast_ref::<crate::explore::QueryStopped>()
        .is_some();
    let status = if stopped {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::BAD_REQUEST
    };
    (
        format!(
            "<p class=\"error\" id=\"query-error\" style=\"white-space:pre-wrap\">{}</p>\n",
            escape(&format!("{error:#}"))
        ),
        status,
    )
}

/// The format a download is asked in (`format=csv` or `tsv`), or None for the page.
pub(crate) fn download_format(value: Option<&String>) -> Option<crate::explore::Format> {
    match given(value)? {
        "csv" => Some(crate::explore::Format::Csv),
        "tsv" => Some(crate::explore::Format::Tsv),
        _ => None,
    }
}

/// A file to save: CSV or TSV, named `file`.
pub(crate) fn download(bytes: Vec<u8>, format: crate::explore::Format, file: &str) -> Response {
    let (kind, ext) = match format {
        crate::explore::Format::Csv => ("text/csv; charset=utf-8", "csv"),
        _ => ("text/tab-separated-values; charset=utf-8", "tsv"),
    };
    let safe: String = file
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    (
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{safe}.{ext}\""),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// The value of a page's `Result`, or the page its `Err` holds, answered at once: the prologue
/// every query page shares ([`run_folder`]'s refusal is the handler's response).
macro_rules! or_answer {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(page) => return *page,
        }
    };
}
pub(crate) use or_answer;

/// The run folder of topic `name` if `ready` (the page's own check: an index, a vertical
/// file…) finds nothing missing, else the page to answer: no such topic, or what `ready`
/// says.
pub(crate) fn run_folder(
    app: &super::App,
    name: &str,
    ready: impl FnOnce(&str, &std::path::Path) -> Option<Response>,
) -> Result<std::path::PathBuf, Box<Response>> {
    let Some(dir) = app.topic_dir(name) else {
        return Err(Box::new(super::html::no_such_topic(name)));
    };
    let run = super::run_dir(&dir);
    match ready(name, &run) {
        Some(page) => Err(Box::new(page)),
        None => Ok(run),
    }
}

/// The page a query page shows when the run has no index yet.
pub(crate) fn no_index(name: &str, run: &std::path::Path, what: &str) -> Option<Response> {
    if run.join("index/index.json").is_file() {
        return None;
    }
    let n = escape(name);
    Some(
        (
            StatusCode::NOT_FOUND,
            axum::response::Html(super::html::page(
                &format!("{what} of {name}"),
                &format!(
                    "<h1>{} of <a href=\"/runs/{n}\">{n}</a></h1>\n<p class=\"empty\">No index yet: \
                     {} reads the corpus index, which the export stage writes in \
                     <code>index/</code> at the end of <code>glaneur run</code>. Start or follow \
                     the run on <a href=\"/runs/{n}\">its monitor</a>; this page works once it \
                     has finished (or run <code>glaneur run … --from export</code> on a run \
                     made before the index existed).</p>",
                    escape(what),
                    escape(&what.to_lowercase())
                ),
            )),
        )
            .into_response(),
    )
}

/// Whether the run's index has what a word sketch reads (lemma and pos).
pub(crate) fn tagged(run: &std::path::Path) -> bool {
    let (tokens, _) = crate::index::corpus::names(run).unwrap_or_default();
    ["lemma", "pos"]
        .iter()
        .all(|a| tokens.iter().any(|t| t == a))
}

/// Whether subcorpora can be cut from the run (its index and its vertical file).
pub(crate) fn cuttable(run: &std::path::Path) -> bool {
    run.join("index/index.json").is_file() && run.join("vrt/corpus.vrt").is_file()
}

/// The links between the query pages of a run, `here` marked; those that cannot work on this
/// run (a word sketch of an untagged corpus) left out; the query pages keep `subcorpus`.
pub(crate) fn workbench_nav(
    name: &str,
    run: &std::path::Path,
    here: &str,
    subcorpus: Option<&str>,
) -> String {
    let (tagged, cuttable) = (tagged(run), cuttable(run));
    let mut out = String::from("<nav class=\"workbench\" id=\"workbench\">");
    for (path, label) in [
        ("corpus", "corpus"),
        ("kwic", "concordance"),
        ("freq", "word list and breakdowns"),
        ("colloc", "collocations"),
        ("keywords", "keywords"),
        ("sketch", "word sketch"),
        ("subcorpora", "subcorpora"),
    ] {
        if (path == "sketch" && !tagged) || (path == "subcorpora" && !cuttable) {
            continue;
        }
        if path == here {
            out.push_str(&format!("<b>{label}</b> "));
            continue;
        }
        let keep = match path {
            "corpus" | "subcorpora" => String::new(),
            _ => subcorpus.unwrap_or_default().to_string(),
        };
        let href = link(&format!("/runs/{name}/{path}"), &[("subcorpus", keep)]);
        out.push_str(&format!("<a href=\"{href}\">{label}</a> "));
    }
    out.push_str("</nav>\n");
    out
}
