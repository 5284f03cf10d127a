//! The concordance in the browser (`/runs/NAME/kwic`): a table of left context, hit and right
//! context, the number of hits, pages of [`PAGE_LINES`] through all of them, the command line's
//! sorts, random sample, positive and negative filters, sentence view and token attributes,
//! each line's wider context (`/runs/NAME/context`) and the hits as CSV or TSV.
//!
//! **In:** the page's parameters (`cql`, `page`, `sort`, `sort_by`, `sample`, `seed`, `near`,
//! `not_near`, `near_window`, `sentence`, `attrs`, `context`, `subcorpus`, `format`), the
//! run's `index/` or its subcorpus's.
//! **Out:** HTML, or a file with the hits (`format=csv|tsv`, made by `glaneur kwic --format`).
//!
//! **Invariants:** the hits, their order, sample and filters are `glaneur kwic`'s: the
//! parameters go through its flags' parser and its functions ([`crate::explore::concordance`],
//! [`crate::explore::kwic`]); every query waits for a slot and stops at
//! [`QUERY_SECONDS`]; a download holds at most [`DOWNLOAD_LINES`] lines; every value is
//! escaped.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::App;
use super::gate::{
    QUERY_SECONDS, bounded, cli_args, download, download_format, failure, flag, given, link,
    no_index, or_answer, path_segment, run_folder, ticked, workbench_nav,
};
use super::html::{escape, page};
use crate::explore::{Concordance, Format, KwicArgs, KwicLine, Token};

/// Lines on a page of the concordance.
pub(crate) const PAGE_LINES: usize = 50;

/// Lines of a downloaded concordance at most.
pub(crate) const DOWNLOAD_LINES: usize = 100_000;

/// Tokens on each side of a hit in its wider context.
const WIDER: u32 = 50;

/// The parameters that make a concordance (all but `page` and `format`).
const KEPT: [&str; 12] = [
    "cql",
    "sort",
    "sort_by",
    "sample",
    "seed",
    "near",
    "not_near",
    "near_window",
    "sentence",
    "attrs",
    "context",
    "subcorpus",
];

/// `GET /runs/NAME/kwic`.
pub(crate) async fn kwic(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, |n, r| no_index(
        n,
        r,
        "Concordance"
    )));
    if let Some(format) = download_format(q.get("format")) {
        let file = format!("{name}-concordance");
        let made = bounded(&app, move || kwic_file(&run, &q, format)).await;
        return match made {
            Ok(Ok(bytes)) => download(bytes, format, &file),
            Ok(Err(e)) => {
                let (message, status) = failure(&e);
                (status, Html(page("Concordance", &message))).into_response()
            }
            Err(page) => page,
        };
    }
    let title = format!("Concordance of {name}");
    let made = if given(q.get("cql")).is_some() {
        bounded(&app, move || kwic_body(&run, &name, &q)).await
    } else {
        Ok((
            kwic_form(&name, &run, &q, &attributes(&run)),
            StatusCode::OK,
        ))
    };
    match made {
        Ok((body, status)) => (status, Html(page(&title, &body))).into_response(),
        Err(page) => page,
    }
}

/// The corpus's token attributes, word first (what `attrs=1` shows).
fn attributes(run: &Path) -> Vec<String> {
    let mut names = crate::index::corpus::names(run)
        .map(|(tokens, _)| tokens)
        .unwrap_or_default();
    names.sort_by_key(|n| n != "word");
    names
}

/// `glaneur kwic`'s arguments from the page's parameters, through its flags' parser, reading
/// the subcorpus when one is chosen.
fn kwic_args(run: &Path, q: &HashMap<String, String>) -> anyhow::Result<KwicArgs> {
    let mut words = Vec::new();
    for name in [
        "sort",
        "sort_by",
        "sample",
        "seed",
        "near",
        "not_near",
        "near_window",
        "context",
        "subcorpus",
    ] {
        flag(&mut words, name, q.get(name));
    }
    if ticked(q.get("sentence")) {
        words.push("--sentence".to_string());
    }
    if ticked(q.get("attrs")) {
        words.push(format!("--show={}", attributes(run).join(",")));
    }
    let page: usize = match given(q.get("page")) {
        None => 1,
        Some(p) => p
            .parse()
            .ok()
            .filter(|p| *p >= 1)
            .ok_or_else(|| anyhow::anyhow!("page {p}: a page is a number from 1"))?,
    };
    words.push(format!("--limit={PAGE_LINES}"));
    words.push(format!(
        "--offset={}",
        (page - 1).saturating_mul(PAGE_LINES)
    ));
    words.push(format!("--timeout={QUERY_SECONDS}"));
    words.push("--".to_string());
    words.push(run.display().to_string());
    words.push(given(q.get("cql")).unwrap_or_default().to_string());
    let mut args: KwicArgs = cli_args("kwic", words)?;
    args.run = super::subcorpora::folder(run, args.subcorpus.as_deref())?;
    Ok(args)
}

/// The hits as `glaneur kwic --format csv|tsv` writes them, all of them up to
/// [`DOWNLOAD_LINES`], in the page's order (or its sample).
fn kwic_file(run: &Path, q: &HashMap<String, String>, format: Format) -> anyhow::Result<Vec<u8>> {
    let mut args = kwic_args(run, q)?;
    args.format = format;
    args.offset = 0;
    args.limit = DOWNLOAD_LINES;
    let (mut out, mut notice) = (Vec::new(), Vec::new());
    crate::explore::kwic(&args, &mut out, &mut notice)?;
    Ok(out)
}

/// The concordance page's body and status.
fn kwic_body(run: &Path, name: &str, q: &HashMap<String, String>) -> (String, StatusCode) {
    let attrs = attributes(run);
    let mut body = kwic_form(name, run, q, &attrs);
    let found = kwic_args(run, q).and_then(|args| {
        let found = crate::explore::concordance(&args, true)?;
        Ok((args, found))
    });
    match found {
        Err(e) => {
            let (message, status) = failure(&e);
            body.push_str(&message);
            (body, status)
        }
        Ok((args, found)) => {
            body.push_str(&kwic_results(name, q, &args, &found, &attrs));
            (body, StatusCode::OK)
        }
    }
}

/// The form, filled with the page's parameters.
fn kwic_form(name: &str, run: &Path, q: &HashMap<String, String>, attrs: &[String]) -> String {
    let n = escape(name);
    let sub = given(q.get("subcorpus"));
    let (select, active) = super::subcorpora::chooser(name, run, sub);
    let value = |k: &str| escape(q.get(k).map_or("", String::as_str));
    let checked = |k: &str| if ticked(q.get(k)) { " checked" } else { "" };
    let mut sorts = String::new();
    let chosen = q.get("sort").map_or("position", String::as_str);
    let positions = (1..=5)
        .rev()
        .map(|k| format!("L{k}"))
        .chain((1..=5).map(|k| format!("R{k}")));
    for s in ["position", "left", "hit", "right"]
        .into_iter()
        .map(String::from)
        .chain(positions)
    {
        let sel = if s.eq_ignore_ascii_case(chosen) {
            " selected"
        } else {
            ""
        };
        sorts.push_str(&format!("<option{sel}>{s}</option>"));
    }
    let mut by = String::from("<option value=\"\">shown</option>");
    for a in attrs {
        let sel = if q.get("sort_by") == Some(a) {
            " selected"
        } else {
            ""
        };
        by.push_str(&format!("<option{sel}>{}</option>", escape(a)));
    }
    let tagged = attrs.iter().any(|a| a == "pos" || a == "lemma");
    format!(
        "<h1>Concordance of <a href=\"/runs/{n}\">{n}</a></h1>\n{}{active}\
         <form method=\"get\" id=\"kwic-form\" action=\"/runs/{n}/kwic\">\
         <p><label>CQL <input name=\"cql\" value=\"{}\" size=\"50\" placeholder='[lc=\"graphe.*\"]'></label> \
         {select}<button>Concordance</button></p>\
         <p><label>sort <select name=\"sort\">{sorts}</select></label> \
         <label>by <select name=\"sort_by\">{by}</select></label> \
         <label>context <input name=\"context\" value=\"{}\" size=\"3\" placeholder=\"8\"></label> \
         <label><input type=\"checkbox\" name=\"sentence\" value=\"1\"{}> each hit in its sentence</label> \
         <label><input type=\"checkbox\" name=\"attrs\" value=\"1\"{}> all attributes ({})</label></p>\
         <p><label>near <input name=\"near\" value=\"{}\" size=\"18\" placeholder='[lemma=\"x\"]'></label> \
         <label>not near <input name=\"not_near\" value=\"{}\" size=\"18\"></label> \
         <label>within <input name=\"near_window\" value=\"{}\" size=\"2\" placeholder=\"5\"> tokens</label> · \
         <label>random sample of <input name=\"sample\" value=\"{}\" size=\"4\"> hits</label> \
         <label>seed <input name=\"seed\" value=\"{}\" size=\"4\" placeholder=\"1\"></label></p>\
         </form>\n{}",
        workbench_nav(name, run, "kwic", sub),
        value("cql"),
        value("context"),
        checked("sentence"),
        checked("attrs"),
        escape(&attrs.join("/")),
        value("near"),
        value("not_near"),
        value("near_window"),
        value("sample"),
        value("seed"),
        if tagged {
            ""
        } else {
            "<p class=\"muted\">This corpus has no parts of speech or lemmas: tag it (<code>annotate.tagger</code> in the topic, docs/guide/text.md) to query and show them.</p>\n"
        }
    ) + if given(q.get("cql")).is_none() {
        "<p class=\"empty\" id=\"kwic-empty\">Type a CQL query above: <code>[lc=\"graphe.*\"]</code> for every word starting with graphe, \
         <code>[lc=\"graphe\"] [lc=\"orienté\"]</code> for the two words in a row, <code>[lc=\"sommet\"] within s</code> inside sentences \
         (the query language: docs/guide/querying.md).</p>\n"
    } else {
        ""
    }
}

/// The page's parameters that make the concordance, with `extra` ones.
fn kept(
    q: &HashMap<String, String>,
    extra: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let mut params: Vec<(&'static str, String)> = KEPT
        .iter()
        .filter_map(|k| Some((*k, given(q.get(*k))?.to_string())))
        .collect();
    params.extend(extra.iter().cloned());
    params
}

/// The count, the pages, the downloads, the table.
fn kwic_results(
    name: &str,
    q: &HashMap<String, String>,
    args: &KwicArgs,
    found: &Concordance,
    attrs: &[String],
) -> String {
    let n = escape(name);
    let total = found.total.unwrap_or(0);
    let lines = args.sample.map_or(total, |s| s.min(total));
    let page = args.offset / PAGE_LINES + 1;
    let pages = lines.div_ceil(PAGE_LINES).max(1);
    let base = format!("/runs/{name}/kwic");
    let sub = given(q.get("subcorpus")).unwrap_or_default().to_string();
    let mut out = String::new();
    let what = match args.sample {
        Some(_) => format!(
            "a random sample of <b id=\"kwic-sample\">{lines}</b> of <b id=\"kwic-total\">{total}</b> hits (seed {}: the same seed gives the same lines)",
            args.seed
        ),
        None => format!("<b id=\"kwic-total\">{total}</b> hits"),
    };
    if found.lines.is_empty() {
        out.push_str(&format!(
            "<p class=\"empty\" id=\"kwic-none\">{what}{}. Try a broader query: a regular expression (<code>[lc=\"graphe.*\"]</code>), \
             <code>%c</code> to ignore case, fewer filters.</p>\n",
            if total > 0 { ", none on this page" } else { "" }
        ));
        return out;
    }
    out.push_str(&format!(
        "<p id=\"kwic-summary\">{what}; lines {}–{} (page {page} of {pages}). \
         Download every line{}: <a id=\"kwic-csv\" href=\"{}\">CSV</a> (Excel) · <a id=\"kwic-tsv\" href=\"{}\">TSV</a>. \
         Break the hits down: <a href=\"{}\">by host</a> · <a href=\"{}\">by the word before (L1)</a> · <a href=\"{}\">by the word after (R1)</a> · \
         <a href=\"{}\">their collocations</a>.</p>\n",
        args.offset + 1,
        args.offset + found.lines.len(),
        if lines > DOWNLOAD_LINES {
            format!(" (the first {DOWNLOAD_LINES})")
        } else {
            String::new()
        },
        link(&base, &kept(q, &[("format", "csv".into())])),
        link(&base, &kept(q, &[("format", "tsv".into())])),
        link(&format!("/runs/{name}/freq"), &[("query", args.query.clone()), ("by", "host".into()), ("subcorpus", sub.clone())]),
        link(&format!("/runs/{name}/freq"), &[("query", args.query.clone()), ("by", "word".into()), ("at", "L1".into()), ("subcorpus", sub.clone())]),
        link(&format!("/runs/{name}/freq"), &[("query", args.query.clone()), ("by", "word".into()), ("at", "R1".into()), ("subcorpus", sub.clone())]),
        link(&format!("/runs/{name}/colloc"), &[("cql", args.query.clone()), ("subcorpus", sub.clone())]),
    ));
    out.push_str(&pager(&base, q, page, pages));
    out.push_str(&kwic_table(
        &n,
        found,
        q,
        attrs.len() > 1 && ticked(q.get("attrs")),
    ));
    out.push_str(&pager(&base, q, page, pages));
    out
}

/// Links to the first, previous, next and last pages.
fn pager(base: &str, q: &HashMap<String, String>, page: usize, pages: usize) -> String {
    let to = |p: usize| link(base, &kept(q, &[("page", p.to_string())]));
    let mut out = String::from("<p class=\"pager\">");
    if page > 1 {
        out.push_str(&format!(
            "<a href=\"{}\">first</a> <a class=\"kwic-prev\" href=\"{}\">previous</a> ",
            to(1),
            to(page - 1)
        ));
    }
    out.push_str(&format!("page {page} of {pages}"));
    if page < pages {
        out.push_str(&format!(
            " <a class=\"kwic-next\" href=\"{}\">next</a> <a href=\"{}\">last</a>",
            to(page + 1),
            to(pages)
        ));
    }
    out.push_str("</p>\n");
    out
}

/// Tokens as HTML: words, or each token's attributes stacked under it.
fn tokens_html(tokens: &[Token], stacked: bool) -> String {
    tokens
        .iter()
        .map(|t| {
            if stacked {
                let mut cell = String::from("<span class=\"tok\">");
                for (i, v) in t.iter().enumerate() {
                    if i == 0 {
                        cell.push_str(&format!("<span>{}</span>", escape(v)));
                    } else {
                        // The space is not drawn (flex items) but kept in copied text.
                        cell.push_str(&format!(" <small>{}</small>", escape(v)));
                    }
                }
                cell.push_str("</span>");
                cell
            } else {
                escape(&t.join("/"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The lines as a table: document, left context, hit, right context, wider context.
fn kwic_table(n: &str, found: &Concordance, q: &HashMap<String, String>, stacked: bool) -> String {
    let attrs = if ticked(q.get("attrs")) { "1" } else { "" };
    let sub = given(q.get("subcorpus")).unwrap_or_default();
    let mut out = String::from(
        "<table id=\"kwic\" class=\"kwic\"><colgroup><col style=\"width:9%\"><col style=\"width:38%\">\
         <col style=\"width:14%\"><col style=\"width:35%\"><col style=\"width:4%\"></colgroup>\n\
         <tr><th>document</th><th class=\"l\">left context</th><th class=\"h\">hit</th><th>right context</th><th></th></tr>\n",
    );
    for l in &found.lines {
        out.push_str(&kwic_row(n, l, (attrs, sub), stacked));
    }
    out.push_str("</table>\n");
    out
}

/// A line of the concordance; `keep` the page's `attrs` and `subcorpus`, for its context.
fn kwic_row(n: &str, l: &KwicLine, keep: (&str, &str), stacked: bool) -> String {
    let (attrs, sub) = keep;
    let wider = link(
        &format!("/runs/{n}/context"),
        &[
            ("start", l.start.to_string()),
            ("end", l.end.to_string()),
            ("attrs", attrs.to_string()),
            ("subcorpus", sub.to_string()),
        ],
    );
    format!(
        "<tr data-start=\"{}\" data-end=\"{}\"><td class=\"doc\"><a href=\"/runs/{n}/doc/{}\" title=\"{}\">{}</a></td>\
         <td class=\"l\"><div><span>{}</span></div></td><td class=\"h\">{}</td><td class=\"r\"><div>{}</div></td>\
         <td><a class=\"wider\" href=\"{wider}\" title=\"{WIDER} tokens on each side\">more</a></td></tr>\n",
        l.start,
        l.end,
        escape(&path_segment(&l.doc)),
        escape(&l.url),
        escape(&l.doc),
        tokens_html(&l.left, stacked),
        tokens_html(&l.hit, stacked),
        tokens_html(&l.right, stacked),
    )
}

/// `GET /runs/NAME/context?start=S&end=E`: a hit with [`WIDER`] tokens on each side.
pub(crate) async fn context(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let run = or_answer!(run_folder(&app, &name, |n, r| no_index(n, r, "Context")));
    let position = |k: &str| given(q.get(k)).and_then(|v| v.parse::<u32>().ok());
    let (Some(start), Some(end)) = (position("start"), position("end")) else {
        return super::html::status_page(
            StatusCode::BAD_REQUEST,
            "No such position",
            "A hit's context needs its start and end (the links of the concordance give them).",
        );
    };
    let stacked = ticked(q.get("attrs"));
    let n = escape(&name);
    let chosen = given(q.get("subcorpus")).map(str::to_string);
    let (_, active) = super::subcorpora::chooser(&name, &run, chosen.as_deref());
    let nav = workbench_nav(&name, &run, "", chosen.as_deref());
    let made = bounded(&app, move || {
        let show = if stacked {
            attributes(&run)
        } else {
            vec!["word".to_string()]
        };
        let folder = super::subcorpora::folder(&run, chosen.as_deref())?;
        crate::explore::context_at(&folder, start, end, WIDER, &show)
    })
    .await;
    let body = match made {
        Err(page) => return page,
        Ok(Err(e)) => {
            let (message, status) = failure(&e);
            return (status, Html(page("Context", &message))).into_response();
        }
        Ok(Ok(l)) => format!(
            "<h1>A hit in its context</h1>\n{nav}{active}<p>Document <a href=\"/runs/{n}/doc/{}\">{}</a> <span class=\"muted\">{}</span>, tokens {start}–{end}, {WIDER} tokens on each side (within the document).</p>\n\
             <p id=\"context\" class=\"context\">{} <mark>{}</mark> {}</p>\n",
            escape(&path_segment(&l.doc)),
            escape(&l.doc),
            escape(&l.url),
            tokens_html(&l.left, stacked),
            tokens_html(&l.hit, stacked),
            tokens_html(&l.right, stacked),
        ),
    };
    Html(page(&format!("Context · {name}"), &body)).into_response()
}
