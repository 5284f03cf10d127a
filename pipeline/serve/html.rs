//! The frame of every page of the web interface: the page around a body, escaping, the pages
//! that say what went wrong.
//!
//! **In:** a title, a body or a message. **Out:** HTML, or an answer with its status.
//!
//! **Invariants:** every value from a file or a URL is escaped here or by the caller with
//! [`escape`]; the style is inline (no network needed by the pages).

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;color:#1d2327;max-width:1100px;\
margin:0 auto;padding:1.2rem}h1{font-size:1.45rem;margin:.2rem 0}h2{font-size:1.1rem;\
margin:1.6rem 0 .4rem;border-bottom:1px solid #d8dee2}table{border-collapse:collapse;width:100%;\
font-size:.9rem;margin:.3rem 0 1rem}th,td{text-align:left;padding:.2rem .45rem;border-bottom:\
1px solid #d8dee2;vertical-align:top}th{background:#f4f6f7}td.n,th.n{text-align:right;\
font-variant-numeric:tabular-nums}td.url{word-break:break-all}.muted{color:#5f6b73}\
nav a{margin-right:1rem}form.topic label{display:block;margin:.35rem 0}\
form.topic input,form.topic textarea,form.topic select{font:inherit;max-width:100%}form.topic textarea{width:100%}#formula-check{white-space:pre-wrap;font-size:.9rem}form.inline{display:inline}button{font:inherit;padding:.2rem .8rem}\
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:.6rem}\
.card{border:1px solid #d8dee2;border-radius:6px;padding:.45rem .7rem}.card b{display:block;\
font-size:1.3rem;font-variant-numeric:tabular-nums}.card span{color:#5f6b73;font-size:.85rem}\
.bar{height:10px;background:#e8ecef;border-radius:5px;overflow:hidden}.bar>div{height:100%;\
background:#2f6db5}.kept{color:#14663f}.error{color:#b0302c}\
table.kwic{table-layout:fixed}table.kwic td{white-space:nowrap;overflow:hidden}table.kwic td.l div\
{display:flex;justify-content:flex-end;overflow:hidden}table.kwic td.r div{overflow:hidden;\
text-overflow:ellipsis}table.kwic td.h{white-space:normal;text-align:center;font-weight:600}\
table.kwic th.h{text-align:center}table.kwic th.l{text-align:right}table.kwic td.doc{text-overflow:\
ellipsis}.tok{display:inline-flex;flex-direction:column;align-items:center;vertical-align:top;\
line-height:1.15}.tok small{color:#5f6b73;font-size:.75em}nav.workbench{margin:.4rem 0 .8rem}\
nav.workbench a,nav.workbench b{margin-right:1rem}.pager a{margin:0 .3rem}p.context{line-height:2}\
form.query label{margin-right:.6rem}.sketches{display:grid;grid-template-columns:\
repeat(auto-fill,minmax(250px,1fr));gap:0 1rem}table.sketch{margin:0 0 .8rem}\
p.subcorpus{background:#eef4fb;border-left:3px solid #2f6db5;padding:.3rem .6rem}";

/// A whole page around `body`.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" \
         content=\"width=device-width, initial-scale=1\">\n<title>{} · glaneur</title>\n<style>{STYLE}</style>\n\
         </head>\n<body>\n<nav><a href=\"/\">Topics</a></nav>\n{body}\n</body>\n</html>\n",
        escape(title)
    )
}

/// `text` safe in HTML text and attribute values (the exports' escaping: `&<>\"'`, and the
/// control characters no page should hold dropped).
pub(crate) fn escape(text: &str) -> String {
    stages::export::graph::xml_escape(text)
}

/// A page saying what went wrong.
pub(crate) fn error_page(message: &str) -> Response {
    status_page(StatusCode::INTERNAL_SERVER_ERROR, "Error", message)
}

/// A page with a status, a title and a message.
pub(crate) fn status_page(status: StatusCode, title: &str, message: &str) -> Response {
    (
        status,
        Html(page(
            title,
            &format!(
                "<h1>{}</h1><p class=\"error\">{}</p><p><a href=\"/\">All topics</a></p>",
                escape(title),
                escape(message)
            ),
        )),
    )
        .into_response()
}

/// A page for an unknown topic.
pub(crate) fn no_such_topic(name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::response::Html(page(
            "No such topic",
            &format!(
                "<p>There is no topic <code>{}</code> in this folder. <a href=\"/\">All topics</a></p>",
                escape(name)
            ),
        )),
    )
        .into_response()
}
