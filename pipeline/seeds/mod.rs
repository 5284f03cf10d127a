//! The seeds stage: the starting set `G0` from the topic's URLs, saved result pages (HTML or
//! WARC), URL lists and search-API queries, recorded with where each seed came from.
//!
//! **In:** `[seeds]` and `[search]` of the topic (files are read from the topic folder; API
//! keys from the environment).
//! **Out:** the seed URLs in `crawl.sqlite` (`urls` with `via = 'seed'`, queued at depth 0;
//! one `seeds` row per (URL, source); one `seed_hits` row per sighting with engine, query,
//! result page, rank, retrieval time, title and snippet; `searches` for the API result pages
//! received); at the export stage, `seeds.csv` and `seed-hits.csv` ([`write_csv`]); the seed
//! review `seeds-review.tsv`, written by `glaneur seeds` and applied before the crawl
//! ([`review`]).
//!
//! **Invariants:** idempotent (running it again on the same run folder adds nothing new and
//! sends no API request already answered); every seed is stored as soon as it is found, so an
//! error or a stop never loses a result already paid for; seeds outside `[domains]` are
//! recorded as `skipped / off-domain`, never silently dropped; a result page with no parseable
//! result is reported as a problem, not ignored. The formula filter `G0 → G_F` happens when
//! the seeds are fetched: a seed page that does not satisfy the formula is kept out of the
//! corpus and its links are not followed.

pub mod apis;
pub mod review;

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::ground::outcome::Reason;
use stages::focus::score::Scope;
use stages::seeds::serp::{Engine, SerpPage};
use stages::web::urlnorm::{self, Canonicalizer};

use crate::store::{SeedHitRow, SeedSighting, Store, Via};
use crate::topic::{SearchPlan, Topic};
use apis::{PageOutcome, SearchConfig, Searcher};
use stages::seeds::queries::CompiledQuery;

/// One seed before it is stored, with its provenance.
#[derive(Debug, Default)]
struct Found {
    url: String,
    source: String,
    engine: Option<String>,
    query: Option<String>,
    page: Option<u32>,
    rank: Option<usize>,
    retrieved_at: Option<String>,
    title: Option<String>,
    snippet: Option<String>,
}

/// Stores seeds as they are found.
struct Sink<'a> {
    store: &'a mut Store,
    canonicalizer: &'a Canonicalizer,
    scope: &'a Scope,
    report: SeedsReport,
    in_scope: HashSet<i64>,
    /// Seed URLs outside `[domains]` (a URL found several times counts once).
    off_scope: HashSet<i64>,
    now: f64,
}

impl Sink<'_> {
    fn add(&mut self, seed: Found) -> anyhow::Result<()> {
        *self
            .report
            .by_source
            .entry(seed.source.clone())
            .or_default() += 1;
        let Ok(url) = self.canonicalizer.parse(&seed.url, None) else {
            self.report.invalid += 1;
            return Ok(());
        };
        // The result's URL as the engine gave it, but never with a user name or password.
        let result_url = if url.username().is_empty() {
            seed.url.clone()
        } else {
            url.to_string()
        };
        let host = urlnorm::host_key(&url);
        let (id, new) =
            self.store
                .insert_url(url.as_str(), &host, 0, None, Via::Seed, 1.0, self.now)?;
        self.store.seed(
            id,
            &seed.source,
            seed.engine.as_deref(),
            seed.query.as_deref(),
            seed.rank,
        )?;
        self.store.seed_hit(
            id,
            &SeedHitRow {
                source: &seed.source,
                engine: seed.engine.as_deref(),
                query: seed.query.as_deref(),
                page: seed.page,
                rank: seed.rank,
                retrieved_at: seed.retrieved_at.as_deref(),
                result_url: &result_url,
                title: seed.title.as_deref(),
                snippet: seed.snippet.as_deref(),
            },
        )?;
        match self.scope.check(url.host_str().unwrap_or("")) {
            Ok(()) => {
                self.in_scope.insert(id);
            }
            Err(_) => {
                if new {
                    self.store
                        .skip(id, Reason::OffDomain, "seed outside [domains]")?;
                }
                self.off_scope.insert(id);
            }
        }
        Ok(())
    }
}

/// Gathers and stores the seeds. Search APIs are queried on `runtime`, through `proxy` only
/// when `[search] use_proxy` says so.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    canonicalizer: &Canonicalizer,
    scope: &Scope,
    runtime: &tokio::runtime::Runtime,
    proxy: Option<&str>,
) -> anyhow::Result<SeedsReport> {
    let now = crate::ground::clock::now_epoch();
    let mut sink = Sink {
        store,
        canonicalizer,
        scope,
        report: SeedsReport::default(),
        in_scope: HashSet::new(),
        off_scope: HashSet::new(),
        now,
    };
    for url in &topic.seed_urls {
        sink.add(Found {
            url: url.to_string(),
            source: "topic".into(),
            ..Found::default()
        })?;
    }
    add_result_pages(&mut sink, topic)?;
    add_url_lists(&mut sink, topic)?;
    if let (Some(plan), Some(section)) = (&topic.search, &topic.file.search) {
        search(&mut sink, topic, (plan, section), runtime, proxy)?;
    }
    // The seeds an earlier run (or `glaneur seeds`) stored are this run's too: a resumed run
    // does not ask an answered search again, and its summary must not say it has no seed.
    for seed in sink.store.seed_outcomes()? {
        let id = seed.url.id;
        if !sink.in_scope.contains(&id) && !sink.off_scope.contains(&id) {
            match seed.url.reason {
                Some(Reason::OffDomain) => sink.off_scope.insert(id),
                _ => sink.in_scope.insert(id),
            };
        }
    }
    sink.report.in_scope = sink.in_scope.len() as u64;
    sink.report.off_domain = sink.off_scope.len() as u64;
    sink.store.commit()?;
    Ok(sink.report)
}

/// The results of `[seeds] result_pages`; a page without any is a problem of the report.
fn add_result_pages(sink: &mut Sink<'_>, topic: &Topic) -> anyhow::Result<()> {
    for page in &topic.file.seeds.result_pages {
        let path = topic.resolve(page);
        let source = format!("result-page:{}", page.display());
        for saved in read_result_pages(&path, None)? {
            if saved.serp.hits.is_empty() {
                sink.report.problems.push(format!(
                    "{}: {}",
                    saved.name,
                    saved
                        .serp
                        .problem
                        .clone()
                        .unwrap_or_else(|| "no result found on the page".into())
                ));
            }
            for hit in &saved.serp.hits {
                sink.add(Found {
                    url: hit.url.clone(),
                    source: source.clone(),
                    engine: saved.serp.engine.map(|e| e.name().to_string()),
                    query: saved.serp.query.clone(),
                    page: saved.serp.page,
                    rank: Some(hit.rank),
                    retrieved_at: saved.retrieved_at.clone(),
                    title: Some(hit.title.clone()),
                    snippet: Some(hit.snippet.clone()),
                })?;
            }
        }
    }
    Ok(())
}

/// The URLs of `[seeds] url_lists` (one per line, `#` starts a comment).
fn add_url_lists(sink: &mut Sink<'_>, topic: &Topic) -> anyhow::Result<()> {
    for list in &topic.file.seeds.url_lists {
        let path = topic.resolve(list);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the URL list {}", path.display()))?;
        let source = format!("url-list:{}", list.display());
        let mut any = false;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            any = true;
            sink.add(Found {
                url: line.to_string(),
                source: source.clone(),
                ..Found::default()
            })?;
        }
        if !any {
            sink.report
                .problems
                .push(format!("{}: no URL in the list", list.display()));
        }
    }
    Ok(())
}

/// The `[search]` queries' results, a result page at a time; a page answered in an earlier
/// run is not asked again.
fn search(
    sink: &mut Sink<'_>,
    topic: &Topic,
    (plan, section): (&SearchPlan, &crate::topic::SearchSection),
    runtime: &tokio::runtime::Runtime,
    proxy: Option<&str>,
) -> anyhow::Result<()> {
    // The wiki of a `mediawiki` backend without an endpoint: the topic's first language.
    let language = section
        .language
        .as_deref()
        .or(topic.file.languages.first().map(String::as_str));
    let config = SearchConfig::new(section, language, &|var| std::env::var(var).ok())?;
    // The proxy is the crawl's; the API requests carry the key, so they go direct unless the
    // topic asks otherwise.
    let client = crate::fetch::http_client(
        &topic.user_agent(),
        proxy.filter(|_| section.use_proxy),
        crate::topic::seconds(topic.file.crawl.timeout_seconds),
        1,
        // The endpoint is the user's own choice (a SearXNG instance on this machine).
        false,
    )?;
    let backend = plan.backend.name();
    let already = sink.store.search_requests(backend)?;
    let mut query = Query {
        searcher: Searcher::new(config, client, already),
        backend,
        max_pages: plan.backend.max_pages(),
        wanted: section.results_per_query as usize,
        source: format!("search:{backend}"),
    };
    sink.report.queries = plan.queries.len() as u64;
    let outcome: anyhow::Result<()> = runtime.block_on(async {
        for (_, compiled) in &plan.queries {
            if let Some(why) = query.ask(sink, compiled).await? {
                sink.report.search_stopped = Some(why);
                break;
            }
        }
        Ok(())
    });
    sink.report.search_requests = query.searcher.requests - already;
    sink.store.commit()?;
    outcome?;
    if let Some(why) = &sink.report.search_stopped {
        sink.report.problems.push(why.clone());
    }
    Ok(())
}

/// What asking one query needs.
struct Query {
    searcher: Searcher,
    backend: &'static str,
    max_pages: u32,
    /// Results wanted per query.
    wanted: usize,
    source: String,
}

impl Query {
    /// Asks `compiled` a result page at a time until enough results came; returns why the
    /// searching stops when the API refuses to go on.
    async fn ask(
        &mut self,
        sink: &mut Sink<'_>,
        compiled: &CompiledQuery,
    ) -> anyhow::Result<Option<String>> {
        let request = compiled.to_string();
        let mut received = 0usize;
        for page in 1..=self.max_pages {
            if received >= self.wanted {
                break;
            }
            if let Some((results, more)) = sink.store.search_page(self.backend, &request, page)? {
                received += results as usize;
                if !more || results == 0 {
                    break;
                }
                continue;
            }
            let result = match self.searcher.page(compiled, page).await? {
                PageOutcome::Page(result) => result,
                PageOutcome::Stop(why) => return Ok(Some(why)),
            };
            sink.report.search_pages += 1;
            sink.store.record_search(
                self.backend,
                &request,
                page,
                &result.retrieved_at,
                (result.attempts, result.hits.len() as u64, result.more),
            )?;
            for hit in &result.hits {
                let rank = received + hit.position;
                if rank > self.wanted {
                    break;
                }
                sink.add(Found {
                    url: hit.url.clone(),
                    source: self.source.clone(),
                    engine: Some(self.backend.to_string()),
                    query: Some(compiled.q.clone()),
                    page: Some(page),
                    rank: Some(rank),
                    retrieved_at: Some(result.retrieved_at.clone()),
                    title: Some(hit.title.clone()),
                    snippet: Some(hit.snippet.clone()),
                })?;
            }
            // Commit every page: a later error must not lose a result paid for.
            sink.store.commit()?;
            received += result.hits.len();
            if !result.more || result.hits.is_empty() {
                break;
            }
        }
        Ok(None)
    }
}

/// A result page read from a file.
#[derive(Debug, Clone)]
pub struct SavedPage {
    /// The file, and the record's URL for a WARC file (`FILE#URL`).
    pub name: String,
    /// When the page was retrieved: the WARC record's date, or the HTML file's modification
    /// time (the closest thing to when it was saved).
    pub retrieved_at: Option<String>,
    /// What the parser read.
    pub serp: SerpPage,
}

/// Whether `bytes` (read from `path`) are a WARC file: `WARC/` at the start, or gzip data in
/// a file whose name says `.warc`.
fn is_warc(path: &Path, bytes: &[u8]) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    bytes.starts_with(b"WARC/") || (bytes.starts_with(&[0x1f, 0x8b]) && name.contains(".warc"))
}

/// The result pages of a file: a saved HTML page, or every HTML `response` record of a WARC
/// file. `engine` overrides detection. The same parser (`stages::seeds::serp`) serves `glaneur run`
/// and `glaneur seeds import`.
pub fn read_result_pages(path: &Path, engine: Option<Engine>) -> anyhow::Result<Vec<SavedPage>> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the saved result page {}", path.display()))?;
    if !is_warc(path, &bytes) {
        let decoded = stages::page::decode::decode(&bytes, Some("text/html"), None);
        let retrieved_at = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string()
            });
        return Ok(vec![SavedPage {
            name: path.display().to_string(),
            retrieved_at,
            serp: stages::seeds::serp::parse_serp(&decoded.text, None, engine),
        }]);
    }
    let mut pages = Vec::new();
    for record in stages::web::warc::Reader::new(std::io::Cursor::new(&bytes)) {
        let record = record.with_context(|| format!("damaged WARC file {}", path.display()))?;
        if record.record_type() != Some("response") {
            continue;
        }
        let Ok(http) = stages::web::warc::parse_http_response(&record.block) else {
            continue;
        };
        let content_type = http.header("content-type").map(str::to_string);
        let html = content_type
            .as_deref()
            .is_none_or(|ct| ct.to_ascii_lowercase().contains("html"));
        if !html {
            continue;
        }
        let target = record.target_uri().map(str::to_string);
        let decoded = stages::page::decode::decode(&http.body, content_type.as_deref(), None);
        pages.push(SavedPage {
            name: format!(
                "{}#{}",
                path.display(),
                target.as_deref().unwrap_or("(no target URI)")
            ),
            retrieved_at: record.date().map(str::to_string),
            serp: stages::seeds::serp::parse_serp(&decoded.text, target.as_deref(), engine),
        });
    }
    if pages.is_empty() {
        anyhow::bail!(
            "{}: the WARC file holds no HTML response record",
            path.display()
        );
    }
    Ok(pages)
}

/// One line of `glaneur seeds import`.
#[derive(serde::Serialize)]
struct ImportLine<'a> {
    engine: Option<&'a str>,
    query: Option<&'a str>,
    page: Option<u32>,
    rank: usize,
    url: &'a str,
    title: &'a str,
    snippet: &'a str,
    file: &'a str,
    retrieved_at: Option<&'a str>,
}

/// `glaneur seeds import FILE…`: prints every hit as a JSON line on `out`, and on `err` a
/// line per page without results naming the file and the reason. Returns the number of hits
/// (the caller exits non-zero when it is 0).
pub fn import(
    files: &[PathBuf],
    engine: Option<Engine>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<usize> {
    let mut total = 0;
    for file in files {
        let pages = match read_result_pages(file, engine) {
            Ok(pages) => pages,
            Err(e) => {
                writeln!(err, "glaneur: {e:#}")?;
                continue;
            }
        };
        for page in pages {
            if page.serp.hits.is_empty() {
                writeln!(
                    err,
                    "glaneur: {}: {}",
                    page.name,
                    page.serp
                        .problem
                        .as_deref()
                        .unwrap_or("no result found on the page")
                )?;
            }
            for hit in &page.serp.hits {
                let line = ImportLine {
                    engine: page.serp.engine.map(Engine::name),
                    query: page.serp.query.as_deref(),
                    page: page.serp.page,
                    rank: hit.rank,
                    url: &hit.url,
                    title: &hit.title,
                    snippet: &hit.snippet,
                    file: &page.name,
                    retrieved_at: page.retrieved_at.as_deref(),
                };
                writeln!(out, "{}", serde_json::to_string(&line)?)?;
                total += 1;
            }
        }
    }
    Ok(total)
}

/// Writes `seeds.csv` (one row per seed URL, every sighting merged) and `seed-hits.csv` (one
/// row per sighting) in the run folder, with the redirect chain each seed led to in the crawl.
pub fn write_csv(store: &Store, run_dir: &Path) -> anyhow::Result<(u64, u64)> {
    let seeds = store.seed_outcomes()?;
    let seeds_path = run_dir.join("seeds.csv");
    let hits_path = run_dir.join("seed-hits.csv");
    let mut seeds_csv = csv::Writer::from_path(&seeds_path)
        .with_context(|| format!("cannot write {}", seeds_path.display()))?;
    let mut hits_csv = csv::Writer::from_path(&hits_path)
        .with_context(|| format!("cannot write {}", hits_path.display()))?;
    seeds_csv.write_record([
        "url_id",
        "url",
        "final_url",
        "redirect_chain",
        "state",
        "reason",
        "status",
        "formula",
        "sightings",
        "best_rank",
        "sources",
        "engines",
        "queries",
        "first_retrieved_at",
    ])?;
    hits_csv.write_record([
        "url_id",
        "url",
        "source",
        "engine",
        "query",
        "page",
        "rank",
        "retrieved_at",
        "result_url",
        "title",
        "snippet",
    ])?;
    let (mut n_seeds, mut n_hits) = (0u64, 0u64);
    for seed in seeds {
        let (id, url) = (seed.url.id, seed.url.url.clone());
        let hits = store.seed_sightings(id)?;
        seeds_csv.write_record(seed_row(store, seed, &hits)?)?;
        n_seeds += 1;
        for h in &hits {
            hits_csv.write_record([
                id.to_string(),
                url.clone(),
                h.source.clone(),
                h.engine.clone().unwrap_or_default(),
                h.query.clone().unwrap_or_default(),
                optional(h.page),
                optional(h.rank),
                h.retrieved_at.clone().unwrap_or_default(),
                h.result_url.clone(),
                h.title.clone().unwrap_or_default(),
                h.snippet.clone().unwrap_or_default(),
            ])?;
            n_hits += 1;
        }
    }
    seeds_csv
        .flush()
        .with_context(|| format!("cannot write {}", seeds_path.display()))?;
    hits_csv
        .flush()
        .with_context(|| format!("cannot write {}", hits_path.display()))?;
    Ok((n_seeds, n_hits))
}

/// A number of `seeds.csv`, empty when unknown.
fn optional(v: Option<i64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// A seed's row of `seeds.csv`: its sightings merged, and where the crawl's redirects led.
fn seed_row(
    store: &Store,
    seed: crate::store::SeedOutcome,
    hits: &[SeedSighting],
) -> anyhow::Result<[String; 14]> {
    let (id, url) = (seed.url.id, seed.url.url.clone());
    // Follow the redirects the crawl recorded, to the page that answered.
    let mut chain = vec![url.clone()];
    let mut last = seed.url;
    for _ in 0..64 {
        let Some(next) = store.redirect_target(last.id)? else {
            break;
        };
        chain.push(next.url.clone());
        last = next;
    }
    // The distinct values of a field, in the order of their first sighting.
    let distinct = |f: &dyn Fn(&SeedSighting) -> Option<String>| -> String {
        let mut seen = BTreeMap::new();
        for (i, h) in hits.iter().enumerate() {
            if let Some(v) = f(h).filter(|v| !v.is_empty()) {
                seen.entry(v).or_insert(i);
            }
        }
        let mut v: Vec<(usize, String)> = seen.into_iter().map(|(k, i)| (i, k)).collect();
        v.sort();
        v.into_iter()
            .map(|(_, k)| k)
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let best_rank = hits.iter().filter_map(|h| h.rank).min();
    let first_retrieved = hits.iter().filter_map(|h| h.retrieved_at.clone()).min();
    Ok([
        id.to_string(),
        url,
        chain.last().cloned().unwrap_or_default(),
        chain.join(" > "),
        last.state.name().to_string(),
        last.reason.map(|r| r.to_string()).unwrap_or_default(),
        optional(last.status),
        match seed.verdict {
            Some(true) => "satisfied".to_string(),
            Some(false) => "not satisfied".to_string(),
            None => String::new(),
        },
        hits.len().to_string(),
        optional(best_rank),
        distinct(&|h| Some(h.source.clone())),
        distinct(&|h| h.engine.clone()),
        distinct(&|h| h.query.clone()),
        first_retrieved.unwrap_or_default(),
    ])
}

/// Seeds stage figures.
#[derive(Debug, Default, serde::Serialize)]
pub struct SeedsReport {
    /// Seed sightings (a URL found by several sources or queries counts each time), per source.
    pub by_source: BTreeMap<String, u64>,
    /// Distinct seed URLs in scope (those stored by earlier runs included).
    pub in_scope: u64,
    /// Distinct seed URLs outside `[domains]` (those stored by earlier runs included).
    pub off_domain: u64,
    /// Lines or entries that were not usable URLs.
    pub invalid: u64,
    /// Result pages or lists that gave nothing, and why (and why searching stopped).
    pub problems: Vec<String>,
    /// `[search]` queries planned.
    pub queries: u64,
    /// Search API result pages received this run.
    pub search_pages: u64,
    /// Search API requests sent this run (retries included).
    pub search_requests: u64,
    /// Why searching stopped before the last query, if it did.
    pub search_stopped: Option<String>,
}
