//! The word sketch in the browser (`/runs/NAME/sketch`, `glaneur sketch`): one table per
//! grammatical relation of a lemma — the relation, the keyword's hits in it (f_x), its
//! collocates with their logDice and joint frequency (f_xy), each collocate a link to the
//! concordance of the very hits it counts — and every row as CSV or TSV.
//!
//! **In:** the page's parameters, named as the command's flags (`lemma`, `lang`, `relation`,
//! `min_freq`, `limit`, `subcorpus`, `format`); the run's `index/` (with `lemma` and `pos`) or
//! its subcorpus's. **Out:** HTML, or the rows as `glaneur sketch --format csv|tsv` writes them.
//!
//! **Invariants:** the tables are `glaneur sketch`'s (its flags' parser, its function
//! [`crate::explore::sketch_tables`]; a download is its own output); the grammar is one glaneur
//! ships (the corpus's language or `lang`), never a file named by a URL; a collocate's link
//! is the CQL query whose hit count is its f_xy; at most [`MAX_COLLOCATES`] collocates per
//! relation; every query waits for a slot and stops at [`QUERY_SECONDS`]; an untagged corpus
//! says how to tag it; every value is escaped.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::App;
use super::gate::{
    QUERY_SECONDS, bounded, cli_args, download, download_format, failure, flag, given, link,
    no_index, or_answer, run_folder, tagged, workbench_nav,
};
use super::html::{escape, page};
use crate::explore::{Format, SketchArgs};

/// Collocates per relation at most (page or download).
pub(crate) const MAX_COLLOCATES: usize = 1_000;

/// The parameters the page keeps in its links and passes as flags.
const PARAMS: [&str; 5] = ["lang", "relation", "min_freq", "limit", "subcorpus"];

/// `GET /runs/NAME/sketch`.
pub(crate) async fn sketch(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, |n, r| no_index(
        n,
        r,
        "Word sketch"
    )));
    let title = format!("Word sketch · {name}");
    if !tagged(&run) {
        return Html(page(&title, &untagged(&name, &run))).into_response();
    }
    if let Some(format) = download_format(q.get("format")) {
        let file = format!(
            "{name}-sketch-{}",
            given(q.get("lemma")).unwrap_or_default()
        );
        let made = bounded(&app, move || sketch_file(&run, &q, format)).await;
        return match made {
            Ok(Ok(bytes)) => download(bytes, format, &file),
            Ok(Err(e)) => {
                let (message, status) = failure(&e);
                (status, Html(page("Word sketch", &message))).into_response()
            }
            Err(page) => page,
        };
    }
    match bounded(&app, move || sketch_body(&run, &name, &q)).await {
        Ok((body, status)) => (status, Html(page(&title, &body))).into_response(),
        Err(page) => page,
    }
}

/// `glaneur sketch`'s arguments from the page's parameters, through its flags' parser, reading
/// the subcorpus when one is chosen.
fn sketch_args(run: &Path, q: &HashMap<String, String>) -> anyhow::Result<SketchArgs> {
    let mut words = Vec::new();
    for name in PARAMS {
        flag(&mut words, name, q.get(name));
    }
    words.push(format!("--timeout={QUERY_SECONDS}"));
    words.push("--".to_string());
    words.push(run.display().to_string());
    words.push(given(q.get("lemma")).unwrap_or_default().to_string());
    let mut args: SketchArgs = cli_args("sketch", words)?;
    args.limit = args.limit.min(MAX_COLLOCATES);
    args.run = super::subcorpora::folder(run, args.subcorpus.as_deref())?;
    Ok(args)
}

/// Every row as `glaneur sketch --format csv|tsv` writes it.
fn sketch_file(run: &Path, q: &HashMap<String, String>, format: Format) -> anyhow::Result<Vec<u8>> {
    let mut args = sketch_args(run, q)?;
    args.format = format;
    let mut out = Vec::new();
    crate::explore::sketch(&args, &mut out, &mut Vec::new())?;
    Ok(out)
}

/// The page's body and status.
fn sketch_body(run: &Path, name: &str, q: &HashMap<String, String>) -> (String, StatusCode) {
    let mut body = form(name, run, q);
    if given(q.get("lemma")).is_none() {
        body.push_str(
            "<p class=\"empty\" id=\"sketch-empty\">Give a lemma above (<code>graphe</code>, \
             <code>relier</code>, as the tagger writes lemmas): its sketch shows, relation by \
             relation (its adjectives, the verbs it is the object of, its nouns with de…), the \
             words it goes with, ranked by logDice; each opens the concordance of those hits. \
             The relations are CQL patterns of the grammar glaneur ships for the corpus's \
             language (<code>glaneur sketch RUN x --print-grammar</code>; docs/guide/querying.md).</p>\n",
        );
        return (body, StatusCode::OK);
    }
    match sketch_args(run, q).and_then(|args| crate::explore::sketch_tables(&args)) {
        Err(e) => {
            let (message, status) = failure(&e);
            body.push_str(&message);
            if format!("{e:#}").contains("--grammar") {
                body.push_str(
                    "<p class=\"muted\">In the browser, choose the grammar's language above (fr \
                     or en); a grammar of your own goes to the command line: <code>glaneur \
                     sketch RUN LEMMA --grammar FILE</code>.</p>\n",
                );
            }
            (body, status)
        }
        Ok(made) => {
            body.push_str(&tables(name, q, &made));
            (body, StatusCode::OK)
        }
    }
}

/// The summary, the downloads, a table per relation with hits.
fn tables(name: &str, q: &HashMap<String, String>, made: &crate::explore::Sketch) -> String {
    let lemma = given(q.get("lemma")).unwrap_or_default();
    let hits: u64 = made.tables.iter().map(|t| t.keyword_hits).sum();
    if hits == 0 {
        return format!(
            "<p class=\"empty\" id=\"sketch-none\">No hit of <b>{}</b> in any relation of {}. \
             Is it a lemma of this corpus, spelt as the tagger writes it (lower case, no \
             plural)? Its concordance <a href=\"{}\">[lemma=\"{}\"]</a> says whether it is \
             there; a rare word may have no hit in the relations' patterns.</p>\n",
            escape(lemma),
            escape(&made.origin),
            link(
                &format!("/runs/{name}/kwic"),
                &[
                    ("cql", format!("[lemma=\"{}\"]", cql_quote(lemma))),
                    (
                        "subcorpus",
                        given(q.get("subcorpus")).unwrap_or_default().into()
                    ),
                ]
            ),
            escape(&cql_quote(lemma)),
        );
    }
    let base = format!("/runs/{name}/sketch");
    let keep = |format: &str| {
        let mut params: Vec<(&str, String)> = vec![("lemma", lemma.to_string())];
        params.extend(
            PARAMS
                .iter()
                .filter_map(|k| Some((*k, given(q.get(*k))?.to_string()))),
        );
        params.push(("format", format.to_string()));
        link(&base, &params)
    };
    let empty: Vec<&str> = made
        .tables
        .iter()
        .filter(|t| t.keyword_hits == 0)
        .map(|t| t.relation.as_str())
        .collect();
    let mut out = format!(
        "<p id=\"sketch-summary\">Relations of <b>{}</b> from {}: {} hits of the keyword in \
         {} relations. A collocate opens the concordance of its hits (f_xy of them). Download \
         every row: <a id=\"sketch-csv\" href=\"{}\">CSV</a> (Excel) · <a id=\"sketch-tsv\" \
         href=\"{}\">TSV</a> (with each row's query).</p>\n",
        escape(lemma),
        escape(&made.origin),
        hits,
        made.tables.len() - empty.len(),
        keep("csv"),
        keep("tsv"),
    );
    out.push_str("<div class=\"sketches\">\n");
    for t in made.tables.iter().filter(|t| t.keyword_hits > 0) {
        out.push_str(&relation(name, q, t));
    }
    out.push_str("</div>\n");
    if !empty.is_empty() {
        out.push_str(&format!(
            "<p class=\"muted\" id=\"sketch-no-hit\">No hit in: {}.</p>\n",
            escape(&empty.join(", "))
        ));
    }
    out
}

/// One relation's table.
fn relation(name: &str, q: &HashMap<String, String>, t: &stages::explore::sketch::Table) -> String {
    let sub = given(q.get("subcorpus")).unwrap_or_default().to_string();
    let hits = crate::ground::progress::counted(t.keyword_hits, "hit", "hits");
    let mut out = format!(
        "<table class=\"sketch\" data-relation=\"{0}\" data-hits=\"{1}\"><tr><th>{0} \
         <span class=\"muted\">({hits})</span></th><th class=\"n\">f_xy</th>\
         <th class=\"n\">logDice</th></tr>\n",
        escape(&t.relation),
        t.keyword_hits
    );
    for r in &t.rows {
        out.push_str(&format!(
            "<tr data-f-y=\"{}\"><td><a class=\"collocate\" href=\"{}\" title=\"{}\">{}</a></td>\
             <td class=\"n\">{}</td><td class=\"n\">{:.2}</td></tr>\n",
            r.f_y,
            link(
                &format!("/runs/{name}/kwic"),
                &[("cql", r.query.clone()), ("subcorpus", sub.clone())]
            ),
            escape(&r.query),
            escape(&r.lemma),
            r.f_xy,
            r.log_dice
        ));
    }
    if t.rows.is_empty() {
        out.push_str(
            "<tr><td colspan=\"3\" class=\"muted\">no collocate as frequent as the least \
             frequency</td></tr>\n",
        );
    }
    out.push_str("</table>\n");
    out
}

/// `text` inside a double-quoted CQL value.
fn cql_quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The form, filled with the page's parameters.
fn form(name: &str, run: &Path, q: &HashMap<String, String>) -> String {
    let n = escape(name);
    let value = |k: &str| escape(q.get(k).map_or("", String::as_str));
    let lang = given(q.get("lang"));
    let mut langs = String::from("<option value=\"\">the corpus's</option>");
    for l in ["fr", "en"] {
        let sel = if lang == Some(l) { " selected" } else { "" };
        langs.push_str(&format!("<option{sel}>{l}</option>"));
    }
    if let Some(other) = lang.filter(|l| !matches!(*l, "fr" | "en")) {
        langs.push_str(&format!("<option selected>{}</option>", escape(other)));
    }
    let chosen = given(q.get("subcorpus"));
    let (select, active) = super::subcorpora::chooser(name, run, chosen);
    format!(
        "<h1>Word sketch of <a href=\"/runs/{n}\">{n}</a></h1>\n{}{active}\
         <form method=\"get\" id=\"sketch-form\" class=\"query\" action=\"/runs/{n}/sketch\">\
         <p><label>lemma <input name=\"lemma\" value=\"{}\" size=\"20\" placeholder=\"graphe\"></label> \
         <label>grammar <select name=\"lang\">{langs}</select></label> \
         <label>only the relation <input name=\"relation\" value=\"{}\" size=\"12\" placeholder=\"object_of\"></label></p>\
         <p><label>together at least <input name=\"min_freq\" value=\"{}\" size=\"3\" placeholder=\"2\"></label> \
         <label>collocates per relation <input name=\"limit\" value=\"{}\" size=\"3\" placeholder=\"15\"></label> \
         {select}<button>Sketch</button></p></form>\n",
        workbench_nav(name, run, "sketch", chosen),
        value("lemma"),
        value("relation"),
        value("min_freq"),
        value("limit"),
    )
}

/// What an untagged corpus's sketch page says.
fn untagged(name: &str, run: &Path) -> String {
    let n = escape(name);
    format!(
        "<h1>Word sketch of <a href=\"/runs/{n}\">{n}</a></h1>\n{}<p class=\"empty\" \
         id=\"sketch-untagged\">This corpus is not tagged: a word sketch reads each token's \
         lemma and part of speech, and its index has neither. Tag it: add an \
         <code>[annotate]</code> table to the topic (<code>{n}/topic.toml</code>, a tagger such \
         as spaCy; docs/guide/text.md), then run it again from that stage (<code>glaneur run \
         TOPIC --from annotate</code>): the word sketch works once the new index is written.</p>\n",
        workbench_nav(name, run, "sketch", None)
    )
}
