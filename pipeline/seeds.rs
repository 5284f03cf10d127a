//! The seeds stage: the starting set `G0` from the topic's URLs, saved result pages and URL
//! lists, recorded with where each seed came from.
//!
//! **In:** `[seeds]` of the topic (files are read from the topic folder).
//! **Out:** the seed URLs in `crawl.sqlite` (`urls` with `via = 'seed'`, queued at depth 0, and
//! one `seeds` row per (URL, source) with engine, query and rank for result pages).
//!
//! **Invariants:** idempotent (running it again on the same run folder adds nothing new);
//! seeds outside `[domains]` are recorded as `skipped / off-domain`, never silently dropped; a
//! result page with no parseable result is reported as a problem, not ignored. The formula
//! filter `G0 → G_F` happens when the seeds are fetched: a seed page that does not satisfy the
//! formula is kept out of the corpus and its links are not followed.

use anyhow::Context;
use stages::score::Scope;
use stages::urlnorm::{self, Canonicalizer};

use crate::report::SeedsReport;
use crate::store::Store;
use crate::topic::Topic;

/// One seed before it is stored.
struct Found {
    url: String,
    source: String,
    engine: Option<String>,
    query: Option<String>,
    rank: Option<usize>,
}

/// Gathers and stores the seeds.
pub fn run(
    topic: &Topic,
    store: &mut Store,
    canonicalizer: &Canonicalizer,
    scope: &Scope,
) -> anyhow::Result<SeedsReport> {
    let mut report = SeedsReport::default();
    let mut found = Vec::new();
    for url in &topic.seed_urls {
        found.push(Found {
            url: url.to_string(),
            source: "topic".into(),
            engine: None,
            query: None,
            rank: None,
        });
    }
    for page in &topic.file.seeds.result_pages {
        let path = topic.resolve(page);
        let bytes = std::fs::read(&path)
            .with_context(|| format!("cannot read the saved result page {}", path.display()))?;
        let decoded = stages::decode::decode(&bytes, Some("text/html"), None);
        let serp = stages::serp::parse_serp(&decoded.text, None, None);
        let source = format!("result-page:{}", page.display());
        if serp.hits.is_empty() {
            report.problems.push(format!(
                "{}: {}",
                page.display(),
                serp.problem
                    .clone()
                    .unwrap_or_else(|| "no result found on the page".into())
            ));
        }
        for hit in serp.hits {
            found.push(Found {
                url: hit.url,
                source: source.clone(),
                engine: serp.engine.map(|e| e.name().to_string()),
                query: serp.query.clone(),
                rank: Some(hit.rank),
            });
        }
    }
    for list in &topic.file.seeds.url_lists {
        let path = topic.resolve(list);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the URL list {}", path.display()))?;
        let source = format!("url-list:{}", list.display());
        let before = found.len();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            found.push(Found {
                url: line.to_string(),
                source: source.clone(),
                engine: None,
                query: None,
                rank: None,
            });
        }
        if found.len() == before {
            report
                .problems
                .push(format!("{}: no URL in the list", list.display()));
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut in_scope = std::collections::HashSet::new();
    for seed in found {
        *report.by_source.entry(seed.source.clone()).or_default() += 1;
        let Ok(url) = canonicalizer.parse(&seed.url, None) else {
            report.invalid += 1;
            continue;
        };
        let host = urlnorm::host_key(&url);
        let (id, new) = store.insert_url(url.as_str(), &host, 0, None, "seed", 1.0, now)?;
        store.seed(
            id,
            &seed.source,
            seed.engine.as_deref(),
            seed.query.as_deref(),
            seed.rank,
        )?;
        match scope.check(url.host_str().unwrap_or("")) {
            Ok(()) => {
                in_scope.insert(id);
            }
            Err(_) => {
                if new {
                    store.skip(id, "off-domain", "seed outside [domains]")?;
                }
                report.off_domain += 1;
            }
        }
    }
    report.in_scope = in_scope.len() as u64;
    store.commit()?;
    Ok(report)
}
