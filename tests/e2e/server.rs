//! A local multi-host test web: one HTTP/1.1 server on `127.0.0.1:0` that answers for many
//! `*.test` hosts and logs every request.
//!
//! The crawler reaches it as a proxy (`--proxy http://127.0.0.1:PORT`): requests arrive in
//! absolute form (`GET http://a.test/page HTTP/1.1`), so one port serves every host, and
//! `.test` names cannot leak onto the internet. Files are served from
//! `tests/web/<scenario>/<host>/<path>` (raw bytes, real encodings); `_routes.toml` in the
//! scenario folder adds statuses, headers and delays. Unknown hosts and paths get a 404.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server saw it.
#[derive(Debug, Clone)]
#[allow(dead_code)] // every field is shown in assertion messages; not every test reads each one
pub struct Hit {
    /// Host the request was for.
    pub host: String,
    /// Path and query.
    pub path: String,
    /// When the request head was read.
    pub start: Instant,
    /// When the server started writing the response. The client cannot have the response
    /// before this instant, so `next.start - end >= delay` is what politeness guarantees (a
    /// timestamp taken after the write could be late by however long this thread waited for a
    /// core, which on a loaded machine makes polite gaps look short).
    pub end: Instant,
    /// Status sent.
    pub status: u16,
    /// User-Agent header.
    pub user_agent: String,
}

/// A special answer for one (host, path).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Host name.
    pub host: String,
    /// Path (and query) exactly as requested; `*` matches every path of the host.
    pub path: String,
    /// Status to send (default 200).
    #[serde(default)]
    pub status: Option<u16>,
    /// Extra headers.
    #[serde(default)]
    pub headers: HashMap<String, String>,
    /// Body (default: the file, if any).
    #[serde(default)]
    pub body: Option<String>,
    /// Wait this long before answering.
    #[serde(default)]
    pub delay_ms: u64,
    /// Answer this way only the first `times` matching requests, then as if the route did not
    /// exist (a server that recovers).
    #[serde(default)]
    pub times: Option<u32>,
    /// Generate the page instead of reading a file: `trap` makes an endless calendar, an
    /// endless paged list and an endlessly nesting path, each page on topic; `large` makes a
    /// page of about 2 MiB that links to `/p0.html` … `/p4.html` of its host; `attributes` a
    /// page with an element of 100,000 attributes; `links` a page of 20,000 links.
    #[serde(default)]
    pub generate: Option<String>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Routes {
    #[serde(default)]
    route: Vec<Route>,
    /// Delay before every answer, in milliseconds.
    #[serde(default)]
    delay_ms: u64,
}

/// A web computed on the fly: `(host, path)` → `(status, headers, body)`, or None for the
/// files of the scenario (a simulated web whose pages change with a virtual clock).
pub type Dynamic = Arc<dyn Fn(&str, &str) -> Option<Answer> + Send + Sync>;

/// Status, headers and body of a computed answer.
pub type Answer = (u16, Vec<(String, String)>, Vec<u8>);

/// A running test web.
pub struct TestWeb {
    /// Where it listens.
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<Hit>>>,
    _runtime: tokio::runtime::Runtime,
}

impl TestWeb {
    /// Serves `root` (a scenario folder) until dropped.
    pub fn start(root: &Path) -> TestWeb {
        TestWeb::start_with(root, None)
    }

    /// Serves what `dynamic` computes, and `root`'s files for what it leaves, until dropped.
    pub fn start_with(root: &Path, dynamic: Option<Dynamic>) -> TestWeb {
        let routes: Routes = match std::fs::read_to_string(root.join("_routes.toml")) {
            Ok(text) => toml::from_str(&text).expect("valid _routes.toml"),
            Err(_) => Routes::default(),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("test server runtime");
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::new(State {
            root: root.to_path_buf(),
            routes,
            log: log.clone(),
            used: Mutex::new(HashMap::new()),
            dynamic,
        });
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = state.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, state).await;
                });
            }
        });
        TestWeb {
            addr,
            log,
            _runtime: runtime,
        }
    }

    /// The proxy URL to give the crawler.
    pub fn proxy(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn log(&self) -> Vec<Hit> {
        let mut log = self.log.lock().expect("log lock").clone();
        log.sort_by_key(|h| h.start);
        log
    }
}

struct State {
    root: PathBuf,
    routes: Routes,
    log: Arc<Mutex<Vec<Hit>>>,
    /// Requests answered by each route (index in `routes.route`).
    used: Mutex<HashMap<usize, u32>>,
    /// Pages computed on the fly.
    dynamic: Option<Dynamic>,
}

async fn serve(mut stream: TcpStream, state: Arc<State>) -> std::io::Result<()> {
    let mut buffer = Vec::new();
    loop {
        // Read one request head (GET requests have no body).
        let head_end = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buffer.extend_from_slice(&chunk[..n]);
        };
        let start = Instant::now();
        let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        buffer.drain(..head_end);
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or("");
        let mut parts = request_line.split(' ');
        let _method = parts.next();
        let target = parts.next().unwrap_or("/").to_string();
        let mut headers = HashMap::new();
        for line in lines {
            if let Some((k, v)) = line.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let (host, path) = match target.strip_prefix("http://") {
            Some(rest) => match rest.find('/') {
                Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
                None => (rest.to_string(), "/".to_string()),
            },
            None => (
                headers.get("host").cloned().unwrap_or_default(),
                target.clone(),
            ),
        };
        let host = host.split(':').next().unwrap_or("").to_ascii_lowercase();
        let computed = state.dynamic.as_ref().and_then(|f| f(&host, &path));
        let (mut status, mut extra, mut body, delay) = match computed {
            Some((status, headers, body)) => (status, headers, body, 0),
            None => answer(&state, &host, &path),
        };
        // Conditional requests (RFC 9110 §13): the validators the page was served with.
        let validator = |name: &str| {
            extra
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let etag_matches = headers
            .get("if-none-match")
            .is_some_and(|sent| Some(sent) == validator("etag").as_ref());
        let date_matches = !headers.contains_key("if-none-match")
            && headers
                .get("if-modified-since")
                .is_some_and(|sent| Some(sent) == validator("last-modified").as_ref());
        if status == 200 && (etag_matches || date_matches) {
            status = 304;
            extra.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
            body = Vec::new();
        }
        let delay = delay + state.routes.delay_ms;
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let reason = match status {
            200 => "OK",
            301 => "Moved Permanently",
            302 => "Found",
            304 => "Not Modified",
            404 => "Not Found",
            429 => "Too Many Requests",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Status",
        };
        let mut response = format!("HTTP/1.1 {status} {reason}\r\n");
        for (k, v) in &extra {
            response.push_str(&format!("{k}: {v}\r\n"));
        }
        response.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let end = Instant::now();
        // Logged before writing: a client that gave up (timeout) still made the request.
        state.log.lock().expect("log lock").push(Hit {
            host,
            path,
            start,
            end,
            status,
            user_agent: headers.get("user-agent").cloned().unwrap_or_default(),
        });
        stream.write_all(response.as_bytes()).await?;
        stream.write_all(&body).await?;
        stream.flush().await?;
        if headers
            .get("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
        {
            return Ok(());
        }
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") | Some("htm") => "text/html",
        Some("txt") => "text/plain; charset=utf-8",
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn answer(state: &State, host: &str, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>, u64) {
    let file = file_for(&state.root, host, path);
    let route = {
        let mut used = state.used.lock().expect("route counter lock");
        state
            .routes
            .route
            .iter()
            .enumerate()
            .find(|(i, r)| {
                r.host == host
                    && (r.path == path || r.path == "*")
                    && r.times
                        .is_none_or(|t| used.get(i).copied().unwrap_or(0) < t)
            })
            .map(|(i, r)| {
                *used.entry(i).or_insert(0) += 1;
                r
            })
    };
    if let Some(kind) = route.and_then(|r| r.generate.as_deref()) {
        return (
            200,
            vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            generate(kind, path),
            0,
        );
    }
    let mut headers = Vec::new();
    let mut body = None;
    if let Some(file) = &file {
        body = std::fs::read(file).ok();
        headers.push(("Content-Type".to_string(), content_type(file).to_string()));
    }
    match route {
        Some(route) => {
            for (k, v) in &route.headers {
                headers.retain(|(name, _)| !name.eq_ignore_ascii_case(k));
                headers.push((k.clone(), v.clone()));
            }
            let body = route
                .body
                .clone()
                .map(String::into_bytes)
                .or(body)
                .unwrap_or_default();
            (route.status.unwrap_or(200), headers, body, route.delay_ms)
        }
        None => match body {
            Some(body) => (200, headers, body, 0),
            None => (
                404,
                vec![("Content-Type".into(), "text/html".into())],
                b"<html><body><p>Not found</p></body></html>".to_vec(),
                0,
            ),
        },
    }
}

/// `root/host/path`, with `index.html` for folders; never outside `root/host`.
fn file_for(root: &Path, host: &str, path: &str) -> Option<PathBuf> {
    if host.is_empty() || host.contains("..") || host.contains('/') {
        return None;
    }
    let path = path.split('?').next().unwrap_or("/");
    let mut file = root.join(host);
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if segment == ".." || segment == "." {
            return None;
        }
        file.push(segment);
    }
    if path.ends_with('/') {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

/// A generated page (see [`Route::generate`]).
fn generate(kind: &str, path: &str) -> Vec<u8> {
    match kind {
        "trap" => trap_page(path),
        "large" => large_page(path),
        "attributes" => attributes_page(),
        "links" => links_page(),
        "frontier" => frontier_page(path),
        _ => panic!("unknown generator `{kind}`"),
    }
}

/// A page on graphs whose `<div>` has 100,000 attributes (parsers slow to a crawl or run out
/// of stack on such tags).
fn attributes_page() -> Vec<u8> {
    let attrs: String = (0..100_000).map(|i| format!(" data-a{i}=\"v\"")).collect();
    format!(
        "<!DOCTYPE html><html lang=\"fr\"><head><title>Attributs</title></head><body>\
         <div{attrs}><p>Un graphe est un ensemble de sommets reliés par des arêtes ; cette page \
         en parle assez longuement pour être gardée comme un document du corpus.</p></div>\
         <a href=\"/apres.html\">la suite sur les graphes</a></body></html>"
    )
    .into_bytes()
}

/// Leaves of the generated frontier web (see [`frontier_page`]).
pub const FRONTIER_LEAVES: u64 = 40;

/// The frontier web: `/` links to `/hub.html`, then to `/a.html`; the hub, off topic, links to
/// the leaves `/b1.html` … (low priorities); `/a.html`, on topic, links again to `/b1.html`,
/// which raises that URL's priority while it waits in memory: its old queue entry goes stale.
/// With two URLs allowed in memory, the other leaves wait in the database.
fn frontier_page(path: &str) -> Vec<u8> {
    let on_topic = "<p>Un graphe relie des sommets par des arêtes. Les graphes orientés ont des \
        arcs ; un sommet a un degré ; un graphe connexe relie tous ses sommets.</p>";
    let (text, links) = match path {
        "/" => (
            on_topic,
            "<a href=\"/hub.html\">le plan du site</a>\n\
             <a href=\"/a.html\">graphes et sommets</a>\n"
                .to_string(),
        ),
        "/hub.html" => (
            "<p>Cette page présente le site, son équipe, ses horaires, ses tarifs, son adresse, \
             ses partenaires et les manifestations de la saison.</p>",
            (1..=FRONTIER_LEAVES)
                .map(|b| format!("<a href=\"/b{b}.html\">page {b}</a>\n"))
                .collect(),
        ),
        "/a.html" => (
            on_topic,
            "<a href=\"/b1.html\">graphes orientés</a>\n".to_string(),
        ),
        _ => (on_topic, String::new()),
    };
    format!(
        "<!DOCTYPE html><html lang=\"fr\"><head><title>Page {path}</title></head><body>\
         <h1>Le site</h1>{text}{links}</body></html>"
    )
    .into_bytes()
}

/// A page of 20,000 links to pages of its host.
fn links_page() -> Vec<u8> {
    let links: String = (0..20_000)
        .map(|i| format!("<a href=\"/l{i}.html\">graphe {i}</a>\n"))
        .collect();
    format!(
        "<!DOCTYPE html><html lang=\"fr\"><head><title>Liens</title></head><body>\
         <p>Tous les graphes du site, avec leurs sommets et leurs arêtes.</p>{links}</body></html>"
    )
    .into_bytes()
}

/// About 2 MiB of paragraphs on graphs, each with a link to one of five pages of the host.
fn large_page(path: &str) -> Vec<u8> {
    let mut page = format!(
        "<!DOCTYPE html><html lang=\"fr\"><head><title>Grand recueil sur les graphes ({path})</title>\
         </head><body><h1>Grand recueil sur les graphes</h1>"
    );
    for i in 0..12_000 {
        page.push_str(&format!(
            "<p>Un graphe relie des sommets par des arêtes ; ce paragraphe {i} en décrit un \
             exemple, <a href=\"/p{}.html\">lire la suite</a>.</p>\n",
            i % 5
        ));
    }
    page.push_str("</body></html>");
    page.into_bytes()
}

/// One page of the endless agenda (see [`Route::generate`]).
fn trap_page(path: &str) -> Vec<u8> {
    let n: u64 = path
        .rsplit('=')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    format!(
        "<!DOCTYPE html><html lang=\"fr\"><head><title>Agenda des graphes</title></head><body>\
         <h1>Agenda des graphes, page {n}</h1>\
         <p>Un graphe est un ensemble de sommets reliés par des arêtes. Cette page présente les \
         rencontres consacrées aux graphes et à leurs usages en linguistique de corpus, avec le \
         programme de la semaine et les salles où elles ont lieu.</p>\
         <p><a href=\"/agenda?mois={next}\">Mois suivant</a> \
         <a href=\"/liste?page={next}\">Page suivante</a> \
         <a href=\"sous/\">Plus de détails sur les graphes</a></p></body></html>",
        next = n + 1
    )
    .into_bytes()
}
