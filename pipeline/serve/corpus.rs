//! A run's corpus in the browser: its documents (a page of `docs.jsonl` at a time) and one
//! document's clean text; ranked search (`glaneur search`) on it, and the links to its query
//! pages (`workbench.rs`, `tables.rs`: concordance, word list, collocations, keywords); its site maps (`graph/sitemaps/*.html`, which mark each page as kept, fetched or not
//! fetched); and a drawing of its host graph (`graph/hosts-*.csv`).
//!
//! **In:** the run folder's exports (read-only). **Out:** HTML pages.
//!
//! **Invariants:** the exports are read as written, by the same code as the command line;
//! the document list reads `docs.jsonl` a line at a time and holds one page of it; a site map
//! is served only by a file name of its folder; every value is escaped.

use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::html::no_such_topic;
use super::html::{error_page, escape, page};
use super::{App, run_dir};

/// Documents on a page of the list.
const DOCS_PER_PAGE: usize = 50;

/// Hosts drawn in the host graph (the largest by pages).
const HOSTS_DRAWN: usize = 40;

/// What the corpus page was asked.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct CorpusQuery {
    /// Words for the ranked search.
    q: Option<String>,
    /// A CQL query for the concordance (sent on to its page).
    cql: Option<String>,
    /// Page of the document list.
    page: Option<usize>,
}

/// A document of `docs.jsonl`, as the list shows it.
#[derive(Debug, serde::Deserialize)]
struct Listed {
    id: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    host: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    score: f64,
    #[serde(default)]
    paragraphs: Vec<Paragraph>,
}

#[derive(Debug, serde::Deserialize)]
struct Paragraph {
    #[serde(default)]
    text: String,
}

/// The documents of `docs.jsonl` from `skip`, at most `take`, and whether more follow; or the
/// one whose id is `only`.
fn read_docs(
    path: &Path,
    skip: usize,
    take: usize,
    only: Option<&str>,
) -> anyhow::Result<(Vec<Listed>, bool)> {
    use anyhow::Context;
    let file = std::fs::File::open(path).with_context(|| {
        format!(
            "cannot read {} (the extract stage writes it)",
            path.display()
        )
    })?;
    let mut out = Vec::new();
    let mut seen = 0usize;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(id) = only {
            // Cheap test before parsing: the id is near the start of the line.
            if !line.contains(&format!("\"id\":\"{id}\"")) {
                continue;
            }
        } else if seen < skip {
            seen += 1;
            continue;
        } else if out.len() == take {
            return Ok((out, true));
        }
        let doc: Listed = serde_json::from_str(&line).with_context(|| {
            format!("{} line {}: not a glaneur document", path.display(), n + 1)
        })?;
        if only.is_some_and(|id| doc.id != id) {
            continue;
        }
        out.push(doc);
        if only.is_some() {
            break;
        }
    }
    Ok((out, false))
}

/// `GET /runs/NAME/corpus`.
pub(crate) async fn corpus(
    State(app): State<Arc<App>>,
    UrlPath(name): UrlPath<String>,
    Query(q): Query<CorpusQuery>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let run = run_dir(&dir);
    let n = escape(&name);
    if !run.join("docs.jsonl").is_file() && !run.join("index/index.json").is_file() {
        // No corpus yet: say what makes one instead of an error about a missing file.
        return Html(page(
            &format!("Corpus of {name}"),
            &format!(
                "<h1>Corpus of {n}</h1>\n<p class=\"empty\">No corpus yet: a run makes one once it \
                 has crawled and extracted pages. Start or follow it on <a href=\"/runs/{n}\">its \
                 monitor</a>; documents, search and concordances appear here when its extract stage \
                 has run.</p>"
            ),
        ))
        .into_response();
    }
    let page_no = q.page.unwrap_or(0);
    let words = q.q.clone().filter(|s| !s.trim().is_empty());
    if let Some(cql) = q.cql.as_deref().filter(|s| !s.trim().is_empty()) {
        // The concordance has its own page now: an old link lands there.
        let to = format!(
            "/runs/{}/kwic?cql={}",
            super::gate::path_segment(&name),
            url::form_urlencoded::byte_serialize(cql.as_bytes()).collect::<String>()
        );
        return axum::response::Redirect::to(&to).into_response();
    }
    let n2 = n.clone();
    // Searches take a core each: one per core at a time, the others wait their turn a while.
    let permit = if words.is_some() {
        match super::gate::permit(&app).await {
            Ok(permit) => Some(permit),
            Err(busy) => return busy,
        }
    } else {
        None
    };
    let made = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let n = n2;
        let mut body = String::new();
        body.push_str(&workbench_section(&run, &n));
        body.push_str(&format!(
            "<form method=\"get\" id=\"search\"><label>search the documents <input name=\"q\" value=\"{}\" size=\"40\"></label> \
             <button>Search</button></form>\n",
            escape(words.as_deref().unwrap_or(""))
        ));
        if let Some(words) = &words {
            body.push_str(&search_section(&run, words));
        }
        body.push_str(&sitemaps_section(&run, &n));
        body.push_str(&host_graph_section(&run));
        body.push_str(&documents_section(&run, &n, page_no));
        body
    })
    .await;
    match made {
        Ok(body) => Html(page(
            &format!("Corpus of {name}"),
            &format!("<h1>Corpus of <a href=\"/runs/{n}\">{n}</a></h1>\n{body}"),
        ))
        .into_response(),
        Err(_) => error_page("the corpus could not be read"),
    }
}

fn search_section(run: &Path, words: &str) -> String {
    let mut out = String::from("<h2>Documents ranked for the words</h2>\n");
    match crate::index::documents::search(run, words, 20, None, None) {
        Err(e) => out.push_str(&format!(
            "<p class=\"error\">{}</p>",
            escape(&format!("{e:#}"))
        )),
        Ok((found, total)) => {
            out.push_str(&format!(
                "<p class=\"muted\" id=\"search-total\">{total} documents match; the first {} (BM25, a word in a title weighs more):</p>\n<ol id=\"results\">\n",
                found.len()
            ));
            for f in &found {
                let mut snippet = String::new();
                let mut from = 0;
                for &(a, b) in &f.highlighted {
                    if let (Some(before), Some(word)) =
                        (f.snippet.get(from..a), f.snippet.get(a..b))
                    {
                        snippet.push_str(&escape(before));
                        snippet.push_str(&format!("<mark>{}</mark>", escape(word)));
                        from = b;
                    }
                }
                snippet.push_str(&escape(f.snippet.get(from..).unwrap_or_default()));
                out.push_str(&format!(
                    "<li><a href=\"doc/{}\">{}</a> <span class=\"muted\">{}</span><br>{snippet}</li>\n",
                    escape(&f.id),
                    escape(&f.title),
                    escape(&f.url)
                ));
            }
            out.push_str("</ol>\n");
        }
    }
    out
}

/// The links to the query pages, with the concordance's form; or why there are none yet.
fn workbench_section(run: &Path, n: &str) -> String {
    if !run.join("index/index.json").is_file() {
        return "<p class=\"muted\" id=\"no-index\">Concordances, word lists, collocations and \
                keywords appear here once the export stage has written the corpus index \
                (<code>index/</code>, at the end of <code>glaneur run</code>).</p>\n"
            .to_string();
    }
    format!(
        "{}<form method=\"get\" id=\"kwic\" action=\"/runs/{n}/kwic\"><label>concordance (CQL, as \
         <code>glaneur kwic</code>) <input name=\"cql\" size=\"40\" placeholder='[lc=\"calque.*\"]'></label> \
         <button>Concordance</button></form>\n",
        super::gate::workbench_nav(n, run, "corpus", None)
    )
}

fn sitemaps_section(run: &Path, n: &str) -> String {
    let mut files: Vec<String> = std::fs::read_dir(run.join("graph/sitemaps"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|f| f.ends_with(".html"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("<h2>Site maps</h2>\n");
    if files.is_empty() {
        out.push_str("<p class=\"muted\">none yet (the export stage writes them)</p>\n");
        return out;
    }
    out.push_str("<p class=\"muted\">One per host: its pages from the home page, each marked as in the corpus, fetched but not kept, or never fetched.</p>\n<ul id=\"sitemaps\">\n");
    for f in &files {
        out.push_str(&format!(
            "<li><a href=\"/runs/{n}/sitemaps/{}\">{}</a></li>\n",
            escape(f),
            escape(f.trim_end_matches(".html"))
        ));
    }
    out.push_str("</ul>\n");
    out
}

/// The host graph as an SVG drawing: the largest hosts on a circle, a node's area its pages,
/// green its share kept, links between hosts as lines as thick as their count's logarithm.
fn host_graph_section(run: &Path) -> String {
    let mut out = String::from("<h2>Host graph</h2>\n");
    let read = |file: &str| -> Option<Vec<csv::StringRecord>> {
        let mut reader = csv::Reader::from_path(run.join("graph").join(file)).ok()?;
        reader.records().collect::<Result<Vec<_>, _>>().ok()
    };
    let (Some(nodes), Some(edges)) = (read("hosts-nodes.csv"), read("hosts-edges.csv")) else {
        out.push_str("<p class=\"muted\">none yet (the export stage writes it)</p>\n");
        return out;
    };
    let number = |r: &csv::StringRecord, i: usize| {
        r.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
    };
    let mut hosts: Vec<(String, f64, f64)> = nodes
        .iter()
        .map(|r| {
            (
                r.get(0).unwrap_or_default().to_string(),
                number(r, 1),
                number(r, 2),
            )
        })
        .collect();
    hosts.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hosts.truncate(HOSTS_DRAWN);
    let (size, radius) = (640.0f64, 250.0f64);
    let at = |i: usize| {
        let angle = std::f64::consts::TAU * i as f64 / hosts.len().max(1) as f64;
        (
            size / 2.0 + radius * angle.cos(),
            size / 2.0 + radius * angle.sin(),
        )
    };
    let index: std::collections::HashMap<&str, usize> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.0.as_str(), i))
        .collect();
    let most = hosts.iter().map(|h| h.1).fold(1.0f64, f64::max);
    let mut svg = format!(
        "<svg id=\"host-graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\" font-size=\"10\">\n"
    );
    for e in &edges {
        let (Some(&a), Some(&b)) = (
            e.get(0).and_then(|s| index.get(s)),
            e.get(1).and_then(|s| index.get(s)),
        ) else {
            continue;
        };
        let ((x1, y1), (x2, y2)) = (at(a), at(b));
        let width = 0.5 + number(e, 2).max(1.0).ln();
        svg.push_str(&format!(
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#8aa1b1\" stroke-opacity=\"0.6\" stroke-width=\"{width:.2}\"/>\n"
        ));
    }
    for (i, (host, pages, kept)) in hosts.iter().enumerate() {
        let (x, y) = at(i);
        let r = 3.0 + 22.0 * (pages / most).sqrt();
        let share = if *pages > 0.0 { kept / pages } else { 0.0 };
        let fill = format!("hsl({:.0}, 55%, 45%)", 10.0 + 120.0 * share);
        svg.push_str(&format!(
            "<g><title>{}: {pages} pages, {kept} kept</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" fill=\"{fill}\" fill-opacity=\"0.85\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g>\n",
            escape(host),
            y + r + 11.0,
            escape(host)
        ));
    }
    svg.push_str("</svg>\n");
    out.push_str(&format!(
        "<p class=\"muted\">The {} hosts with the most pages (of {}): a circle's area is its pages, green its share kept, red none; a line is a link between hosts, thicker for more links. The whole graph: <code>graph/hosts.gexf</code> (Gephi), <code>hosts.net</code> (Pajek).</p>\n{svg}",
        hosts.len(),
        nodes.len()
    ));
    out
}

fn documents_section(run: &Path, n: &str, page_no: usize) -> String {
    let mut out = String::from("<h2>Documents</h2>\n");
    match read_docs(
        &run.join("docs.jsonl"),
        page_no.saturating_mul(DOCS_PER_PAGE),
        DOCS_PER_PAGE,
        None,
    ) {
        Err(e) => out.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            escape(&format!("{e:#}"))
        )),
        Ok((docs, more)) => {
            out.push_str("<table id=\"docs\"><tr><th>document</th><th>host</th><th>language</th><th class=\"n\">score</th><th class=\"n\">paragraphs</th></tr>\n");
            for d in &docs {
                out.push_str(&format!(
                    "<tr><td><a href=\"/runs/{n}/doc/{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"n\">{:.3}</td><td class=\"n\">{}</td></tr>\n",
                    escape(&d.id),
                    escape(d.title.as_deref().filter(|t| !t.is_empty()).unwrap_or(&d.url)),
                    escape(&d.host),
                    escape(d.language.as_deref().unwrap_or("")),
                    d.score,
                    d.paragraphs.len()
                ));
            }
            out.push_str("</table>\n");
            if page_no > 0 {
                out.push_str(&format!(
                    "<a href=\"/runs/{n}/corpus?page={}\">previous</a> ",
                    page_no - 1
                ));
            }
            if more {
                out.push_str(&format!(
                    "<a href=\"/runs/{n}/corpus?page={}\" id=\"docs-next\">next</a>",
                    page_no.saturating_add(1)
                ));
            }
        }
    }
    out
}

/// `GET /runs/NAME/doc/ID`: one document's metadata and clean text.
pub(crate) async fn document(
    State(app): State<Arc<App>>,
    UrlPath((name, id)): UrlPath<(String, String)>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let path = run_dir(&dir).join("docs.jsonl");
    let wanted = id.clone();
    let found = tokio::task::spawn_blocking(move || read_docs(&path, 0, 1, Some(&wanted))).await;
    let doc = match found {
        Ok(Ok((mut docs, _))) if !docs.is_empty() => docs.remove(0),
        Ok(Ok(_)) => {
            return (
                StatusCode::NOT_FOUND,
                Html(page(
                    "No such document",
                    "<p>No document with this id in the corpus.</p>",
                )),
            )
                .into_response();
        }
        Ok(Err(e)) => return error_page(&format!("{e:#}")),
        Err(_) => return error_page("the document could not be read"),
    };
    let n = escape(&name);
    let mut body = format!(
        "<h1 id=\"doc-title\">{}</h1>\n<p><a href=\"{}\">{}</a> · {} · {} · score {:.3} · <a href=\"/runs/{n}/corpus\">corpus of {n}</a></p>\n<div id=\"doc-text\">\n",
        escape(doc.title.as_deref().unwrap_or(&doc.url)),
        escape(&doc.url),
        escape(&doc.url),
        escape(&doc.id),
        escape(doc.language.as_deref().unwrap_or("")),
        doc.score
    );
    for p in &doc.paragraphs {
        body.push_str(&format!("<p>{}</p>\n", escape(&p.text)));
    }
    body.push_str("</div>");
    Html(page(&format!("{} · {name}", doc.id), &body)).into_response()
}

/// `GET /runs/NAME/sitemaps/FILE`: one of the run's HTML site maps.
pub(crate) async fn sitemap(
    State(app): State<Arc<App>>,
    UrlPath((name, file)): UrlPath<(String, String)>,
) -> Response {
    let Some(dir) = app.topic_dir(&name) else {
        return no_such_topic(&name);
    };
    let plain = file.ends_with(".html") && !file.starts_with('.') && !file.contains(['/', '\\']);
    let path = run_dir(&dir).join("graph/sitemaps").join(&file);
    match std::fs::read_to_string(&path) {
        Ok(html) if plain => Html(html).into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            Html(page(
                "No such site map",
                "<p>No site map of this name in the run.</p>",
            )),
        )
            .into_response(),
    }
}
