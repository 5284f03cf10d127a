//! The statistics in the browser, each an HTML table with its CSV and TSV: the word list and
//! the breakdowns of a query (`/runs/NAME/freq`, `glaneur freq`: a token attribute, n-grams,
//! dispersion, or the hits of a query by a position or a document attribute), collocations
//! (`/runs/NAME/colloc`, `glaneur colloc`) and keywords against another run of the folder
//! (`/runs/NAME/keywords`, `glaneur keywords`).
//!
//! **In:** the page's parameters, named as the command's flags (`by`, `query`, `at`,
//! `dispersion`, `ngram`, `window`, `measure`, `within`, `min_freq`, `min_collocate_freq`,
//! `filter`, `stop`, `words_only`, `n`, `min_reference_freq`, `reference`, `limit`,
//! `subcorpus`, `format`); the run's `index/` (or its subcorpus's), and the reference run's. **Out:** HTML, or the table as the command's
//! `--format csv|tsv` writes it.
//!
//! **Invariants:** the rows are the command's own (its function writes them as TSV, read back
//! into the table; a download is its CSV or TSV), its parameters parsed by its flags' parser;
//! a reference is only ever another topic of the folder, a stop list only a built-in language,
//! never a path from a URL; at most [`MAX_ROWS`] rows; every query waits for a slot and stops
//! at [`QUERY_SECONDS`] (keywords read two frequency lists, no query); every value is escaped.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::App;
use super::gate::{
    QUERY_SECONDS, bounded, cli_args, download, download_format, failure, flag, given, link,
    no_index, or_answer, run_folder, ticked, workbench_nav,
};
use super::html::{escape, page};
use super::subcorpora::folder;
use crate::explore::Format;

/// Rows of a table at most (page or download).
pub(crate) const MAX_ROWS: usize = 10_000;

/// Which statistic a page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Freq,
    Colloc,
    Keywords,
}

impl Kind {
    fn path(self) -> &'static str {
        match self {
            Kind::Freq => "freq",
            Kind::Colloc => "colloc",
            Kind::Keywords => "keywords",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Kind::Freq => "Word list",
            Kind::Colloc => "Collocations",
            Kind::Keywords => "Keywords",
        }
    }

    /// The parameters the page keeps in its links and passes as flags.
    fn params(self) -> &'static [&'static str] {
        match self {
            Kind::Freq => &[
                "by",
                "query",
                "at",
                "dispersion",
                "ngram",
                "stop",
                "words_only",
                "limit",
                "subcorpus",
            ],
            Kind::Colloc => &[
                "cql",
                "window",
                "by",
                "measure",
                "within",
                "min_freq",
                "min_collocate_freq",
                "filter",
                "stop",
                "words_only",
                "limit",
                "subcorpus",
            ],
            Kind::Keywords => &[
                "reference",
                "by",
                "n",
                "min_freq",
                "min_reference_freq",
                "filter",
                "stop",
                "words_only",
                "limit",
                "subcorpus",
            ],
        }
    }
}

/// `GET /runs/NAME/freq`.
pub(crate) async fn freq(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    table_page(app, name, q, Kind::Freq).await
}

/// `GET /runs/NAME/colloc`.
pub(crate) async fn colloc(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    table_page(app, name, q, Kind::Colloc).await
}

/// `GET /runs/NAME/keywords`.
pub(crate) async fn keywords(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    table_page(app, name, q, Kind::Keywords).await
}

/// What a page needs besides its parameters.
struct Context {
    name: String,
    run: PathBuf,
    /// The other topics of the folder whose run has an index (keywords' references).
    references: Vec<(String, PathBuf)>,
}

async fn table_page(
    app: Arc<App>,
    name: String,
    q: HashMap<String, String>,
    kind: Kind,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, |n, r| no_index(n, r, kind.title())));
    let references = if kind == Kind::Keywords {
        app.topic_names()
            .into_iter()
            .filter(|other| *other != name)
            .filter_map(|other| {
                let run = super::run_dir(&app.topic_dir(&other)?);
                run.join("index/index.json")
                    .is_file()
                    .then_some((other, run))
            })
            .collect()
    } else {
        Vec::new()
    };
    let context = Context {
        name,
        run,
        references,
    };
    if let Some(format) = download_format(q.get("format")) {
        let file = format!("{}-{}", context.name, kind.path());
        let made = bounded(&app, move || statistic(kind, &context, &q, format)).await;
        return match made {
            Ok(Ok((bytes, _))) => download(bytes, format, &file),
            Ok(Err(e)) => {
                let (message, status) = failure(&e);
                (status, Html(page(kind.title(), &message))).into_response()
            }
            Err(page) => page,
        };
    }
    let title = format!("{} of {}", kind.title(), context.name);
    match bounded(&app, move || table_body(kind, &context, &q)).await {
        Ok((body, status)) => (status, Html(page(&title, &body))).into_response(),
        Err(page) => page,
    }
}

/// The command's rows in `format` and its notice, from the page's parameters.
fn statistic(
    kind: Kind,
    context: &Context,
    q: &HashMap<String, String>,
    format: Format,
) -> anyhow::Result<(Vec<u8>, String)> {
    let mut words = Vec::new();
    for name in kind.params() {
        match *name {
            "dispersion" | "words_only" => {
                if ticked(q.get(*name)) {
                    words.push(format!("--{}", name.replace('_', "-")));
                }
            }
            "cql" | "reference" => {}
            "stop" => {
                if let Some(lang) = given(q.get("stop")) {
                    if !stages::page::stopwords::LANGUAGES.contains(&lang) {
                        anyhow::bail!(
                            "stop list `{lang}`: the browser offers the built-in lists ({}); a \
                             list of your own goes to the command line (`--stop FILE`)",
                            stages::page::stopwords::LANGUAGES.join(", ")
                        );
                    }
                    words.push(format!("--stop={lang}"));
                }
            }
            other => flag(&mut words, other, q.get(other)),
        }
    }
    if kind != Kind::Keywords {
        words.push(format!("--timeout={QUERY_SECONDS}"));
    }
    if kind == Kind::Keywords {
        let wanted = given(q.get("reference")).unwrap_or_default();
        let Some((_, run)) = context.references.iter().find(|(n, _)| n == wanted) else {
            anyhow::bail!(
                "choose a reference corpus: another topic of this folder with a finished run"
            );
        };
        words.push(format!("--reference={}", run.display()));
    }
    words.push("--".to_string());
    words.push(context.run.display().to_string());
    if kind == Kind::Colloc {
        let Some(cql) = given(q.get("cql")) else {
            anyhow::bail!("give the node: a CQL query, e.g. [lc=\"graphe\"]");
        };
        words.push(cql.to_string());
    }
    let (mut out, mut notice) = (Vec::new(), Vec::new());
    match kind {
        Kind::Freq => {
            let mut args: crate::explore::FreqArgs = cli_args("freq", words)?;
            (args.format, args.limit) = (format, args.limit.min(MAX_ROWS));
            args.run = folder(&args.run, args.subcorpus.as_deref())?;
            crate::explore::freq(&args, &mut out, &mut notice)?;
        }
        Kind::Colloc => {
            let mut args: crate::explore::CollocArgs = cli_args("colloc", words)?;
            (args.format, args.limit) = (format, args.limit.min(MAX_ROWS));
            args.run = folder(&args.run, args.subcorpus.as_deref())?;
            crate::explore::colloc(&args, &mut out, &mut notice)?;
        }
        Kind::Keywords => {
            let mut args: crate::explore::KeywordsArgs = cli_args("keywords", words)?;
            (args.format, args.limit) = (format, args.limit.min(MAX_ROWS));
            args.run = folder(&args.run, args.subcorpus.as_deref())?;
            crate::explore::keywords(&args, &mut out, &mut notice)?;
        }
    }
    Ok((out, String::from_utf8_lossy(&notice).trim().to_string()))
}

/// Whether the page has what it needs to compute its table.
fn ready(kind: Kind, context: &Context, q: &HashMap<String, String>) -> bool {
    match kind {
        Kind::Freq => true,
        Kind::Colloc => given(q.get("cql")).is_some(),
        Kind::Keywords => given(q.get("reference")).is_some() && !context.references.is_empty(),
    }
}

/// The page's body and status.
fn table_body(kind: Kind, context: &Context, q: &HashMap<String, String>) -> (String, StatusCode) {
    let (tokens, documents) = crate::index::corpus::names(&context.run).unwrap_or_default();
    let chosen = given(q.get("subcorpus"));
    let (_, active) = super::subcorpora::chooser(&context.name, &context.run, chosen);
    let mut body = format!(
        "<h1>{} of <a href=\"/runs/{n}\">{n}</a></h1>\n{}{active}",
        heading(kind, q),
        workbench_nav(&context.name, &context.run, kind.path(), chosen),
        n = escape(&context.name)
    );
    body.push_str(&form(kind, context, q, &tokens, &documents));
    if !ready(kind, context, q) {
        body.push_str(&empty_state(kind, context));
        return (body, StatusCode::OK);
    }
    match statistic(kind, context, q, Format::Tsv) {
        Err(e) => {
            let (message, status) = failure(&e);
            body.push_str(&message);
            (body, status)
        }
        Ok((tsv, notice)) => {
            let base = format!("/runs/{}/{}", context.name, kind.path());
            let keep = |format: &str| {
                let mut params: Vec<(&str, String)> = kind
                    .params()
                    .iter()
                    .filter_map(|k| Some((*k, given(q.get(*k))?.to_string())))
                    .collect();
                params.push(("format", format.to_string()));
                link(&base, &params)
            };
            body.push_str(&format!(
                "<p class=\"muted\" id=\"{0}-notice\">{1}</p>\n<p>Download this table: \
                 <a id=\"{0}-csv\" href=\"{2}\">CSV</a> (Excel) · <a id=\"{0}-tsv\" href=\"{3}\">TSV</a></p>\n",
                kind.path(),
                escape(&notice),
                keep("csv"),
                keep("tsv")
            ));
            body.push_str(&html_table(kind, &String::from_utf8_lossy(&tsv)));
            (body, StatusCode::OK)
        }
    }
}

fn heading(kind: Kind, q: &HashMap<String, String>) -> String {
    match (kind, given(q.get("query"))) {
        (Kind::Freq, Some(query)) => format!(
            "Breakdown of <code>{}</code> by {}",
            escape(query),
            escape(given(q.get("by")).unwrap_or("word"))
        ),
        _ => kind.title().to_string(),
    }
}

/// What to do when the page cannot compute its table yet.
fn empty_state(kind: Kind, context: &Context) -> String {
    let text = match kind {
        Kind::Freq => String::new(),
        Kind::Colloc => "Give the node above, a CQL query (<code>[lc=\"graphe\"]</code>, \
             <code>[lemma=\"calque\"]</code>): its collocates are the words seen within the window \
             around its hits, ranked by the measure (formulas in docs/guide/querying.md, \
             \"Statistics\")."
            .to_string(),
        Kind::Keywords if context.references.is_empty() => format!(
            "Keywords compare this corpus with a reference corpus, and no other topic of this \
             folder has a finished run with an index yet. Make one: write another topic \
             (<a href=\"/topics/new\">new topic</a>, a general or neighbouring domain) and run it; \
             it is then offered here. Or, on the command line, compare with a frequency list: \
             <code>glaneur keywords {} --reference FILE</code> (one <code>value&lt;TAB&gt;count</code> \
             a line, e.g. <code>glaneur freq OTHER_RUN --by lc --limit 100000 --format tsv</code>).",
            escape(&context.run.display().to_string())
        ),
        Kind::Keywords => "Choose the reference corpus above: the words of this corpus are \
             ranked by how much more frequent they are here than there (simple maths, with the \
             log-likelihood and log ratio beside)."
            .to_string(),
    };
    format!(
        "<p class=\"empty\" id=\"{}-empty\">{text}</p>\n",
        kind.path()
    )
}

/// The command's TSV as an HTML table (the value column as text, the others as numbers).
fn html_table(kind: Kind, tsv: &str) -> String {
    let mut lines = tsv.lines();
    let Some(header) = lines.next() else {
        return String::new();
    };
    let names: Vec<&str> = header.split('\t').collect();
    let numeric = |i: usize| names.get(i).is_none_or(|h| *h != "value");
    let mut out = format!("<table id=\"{}-table\"><tr>", kind.path());
    for (i, h) in names.iter().enumerate() {
        let class = if numeric(i) { " class=\"n\"" } else { "" };
        out.push_str(&format!("<th{class}>{}</th>", escape(&h.replace('_', " "))));
    }
    out.push_str("</tr>\n");
    let mut rows = 0usize;
    for line in lines.filter(|l| !l.is_empty()) {
        rows += 1;
        out.push_str("<tr>");
        for (i, cell) in line.split('\t').enumerate() {
            let class = if numeric(i) { " class=\"n\"" } else { "" };
            out.push_str(&format!("<td{class}>{}</td>", escape(cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if rows == 0 {
        out.push_str(&format!(
            "<p class=\"empty\" id=\"{}-none\">No row: loosen the filters (a lower least \
             frequency, no stop list, a wider window) or try a more frequent query.</p>\n",
            kind.path()
        ));
    }
    out
}

/// `<option>`s of `values`, `chosen` selected; a first empty one labelled `none` when given.
fn options(values: &[String], chosen: Option<&str>, none: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(label) = none {
        out.push_str(&format!("<option value=\"\">{}</option>", escape(label)));
    }
    for v in values {
        let sel = if chosen == Some(v.as_str()) {
            " selected"
        } else {
            ""
        };
        out.push_str(&format!("<option{sel}>{}</option>", escape(v)));
    }
    out
}

/// The page's form, filled with its parameters.
fn form(
    kind: Kind,
    context: &Context,
    q: &HashMap<String, String>,
    tokens: &[String],
    documents: &[String],
) -> String {
    let value = |k: &str| escape(q.get(k).map_or("", String::as_str));
    let checked = |k: &str| if ticked(q.get(k)) { " checked" } else { "" };
    let input = |k: &str, label: &str, size: usize, placeholder: &str| {
        format!(
            "<label>{label} <input name=\"{k}\" value=\"{}\" size=\"{size}\" placeholder=\"{}\"></label> ",
            value(k),
            escape(placeholder)
        )
    };
    let languages: Vec<String> = stages::page::stopwords::LANGUAGES
        .iter()
        .map(|l| (*l).to_string())
        .collect();
    let (select, _) =
        super::subcorpora::chooser(&context.name, &context.run, given(q.get("subcorpus")));
    let common = format!(
        "<label>stop list <select name=\"stop\">{}</select></label> \
         <label><input type=\"checkbox\" name=\"words_only\" value=\"1\"{}> words only</label> {}{select}",
        options(&languages, given(q.get("stop")), Some("none")),
        checked("words_only"),
        input("limit", "rows", 5, "50"),
    );
    let by_default = if kind == Kind::Freq { "word" } else { "lc" };
    let by = given(q.get("by")).unwrap_or(by_default);
    let fields = match kind {
        Kind::Freq => {
            let mut all = tokens.to_vec();
            all.extend(documents.iter().cloned());
            let positions: Vec<String> = std::iter::once("node".to_string())
                .chain((1..=5).rev().map(|k| format!("L{k}")))
                .chain((1..=5).map(|k| format!("R{k}")))
                .collect();
            let grams: Vec<String> = (2..=5).map(|k| k.to_string()).collect();
            format!(
                "<p><label>count <select name=\"by\">{}</select></label> \
                 <span class=\"muted\">(token attributes: {}; document attributes: {})</span></p>\
                 <p>{}<label>at <select name=\"at\">{}</select></label></p>\
                 <p><label>n-grams <select name=\"ngram\">{}</select></label> \
                 <label><input type=\"checkbox\" name=\"dispersion\" value=\"1\"{}> dispersion (DP, ARF, Juilland's D)</label></p>",
                options(&all, Some(by), None),
                escape(&tokens.join(", ")),
                escape(&documents.join(", ")),
                input("query", "over the hits of (CQL)", 36, "[lc=\"graphe.*\"]"),
                options(&positions, given(q.get("at")), None),
                options(&grams, given(q.get("ngram")), Some("single tokens")),
                checked("dispersion"),
            )
        }
        Kind::Colloc => {
            let measures: Vec<String> = ["logdice", "mi", "t", "ll"].map(String::from).to_vec();
            format!(
                "<p>{}<label>collocates as <select name=\"by\">{}</select></label> \
                 <label>measure <select name=\"measure\">{}</select></label></p>\
                 <p>{}{}{}{}{}</p>",
                input("cql", "node (CQL)", 36, "[lc=\"graphe\"]"),
                options(tokens, Some(by), None),
                options(&measures, given(q.get("measure")), None),
                input("window", "window", 2, "5"),
                input("within", "within region", 3, "s"),
                input(
                    "filter",
                    "only collocates matching",
                    22,
                    "[pos=\"NOUN|ADJ\"]"
                ),
                input("min_freq", "together at least", 3, "2"),
                input("min_collocate_freq", "corpus frequency at least", 3, "0"),
            )
        }
        Kind::Keywords => {
            let names: Vec<String> = context.references.iter().map(|(n, _)| n.clone()).collect();
            format!(
                "<p><label>reference corpus <select name=\"reference\">{}</select></label> \
                 <label>compare <select name=\"by\">{}</select></label> {}</p><p>{}{}{}</p>",
                options(&names, given(q.get("reference")), Some("choose…")),
                options(tokens, Some(by), None),
                input("n", "smoothing n", 4, "1"),
                input("filter", "only tokens matching", 22, "[pos=\"NOUN|ADJ\"]"),
                input("min_freq", "frequency here at least", 3, "3"),
                input("min_reference_freq", "in the reference at least", 3, "0"),
            )
        }
    };
    format!(
        "<form method=\"get\" id=\"{0}-form\" class=\"query\" action=\"/runs/{1}/{0}\">{fields}<p>{common}<button>Show</button></p></form>\n",
        kind.path(),
        escape(&context.name)
    )
}
