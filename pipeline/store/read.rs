//! What the stages after the crawl read from `crawl.sqlite`: the hyperlink graph and titles
//! (export), the seeds with their sightings and redirects (`seeds.csv`), the harvest curve and
//! per-host sizes (report), and the token counts the export writes back.
//!
//! **In:** tables `urls`, `links`, `seeds`, `seed_hits`. **Out:** typed rows (states and
//! reasons as [`State`] and [`Reason`]), in a stable order.
//!
//! **Invariants:** read-only except [`Store::set_tokens`]; every query of these stages lives
//! here, so another store only has to answer the same calls.

use std::path::Path;

use anyhow::Context;
use rusqlite::{OptionalExtension, params};
use stages::export::graph::{LinkGraph, LinkGraphBuilder, PageNode};

use super::{NOT_PAGES, Reason, State, Store, Via};

/// A URL's crawl outcome, as `seeds.csv` reports it.
#[derive(Debug, Clone)]
pub struct UrlOutcome {
    /// Row id.
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// Final state.
    pub state: State,
    /// Final reason (none for a URL still queued and not reached).
    pub reason: Option<Reason>,
    /// HTTP status, when fetched.
    pub status: Option<i64>,
}

/// A seed URL and whether its page satisfied the formula (any of its sightings).
#[derive(Debug, Clone)]
pub struct SeedOutcome {
    /// The seed's URL and crawl outcome.
    pub url: UrlOutcome,
    /// The formula verdict recorded for the seed (`G_F`), if it was judged.
    pub verdict: Option<bool>,
}

/// One sighting of a seed (`seed-hits.csv`).
#[derive(Debug, Clone)]
pub struct SeedSighting {
    /// `serp-file`, `search-api`, `urls`, `url-list`.
    pub source: String,
    /// Search engine, when known.
    pub engine: Option<String>,
    /// Query, when known.
    pub query: Option<String>,
    /// Result page number.
    pub page: Option<i64>,
    /// Rank on the page.
    pub rank: Option<i64>,
    /// When the result page was retrieved.
    pub retrieved_at: Option<String>,
    /// The URL as the result page gave it.
    pub result_url: String,
    /// Result title.
    pub title: Option<String>,
    /// Result snippet.
    pub snippet: Option<String>,
}

/// A page fetched with a 200 HTML or text answer, in fetch order (harvest curve).
#[derive(Debug, Clone)]
pub struct JudgedPage {
    /// Canonical URL.
    pub url: String,
    /// Whether its clean text satisfied the formula.
    pub on_topic: bool,
    /// Whether it is in the corpus.
    pub kept: bool,
}

fn url_outcome(r: &rusqlite::Row<'_>) -> rusqlite::Result<UrlOutcome> {
    Ok(UrlOutcome {
        id: r.get(0)?,
        url: r.get(1)?,
        state: r.get(2)?,
        reason: r.get(3)?,
        status: r.get(4)?,
    })
}

impl Store {
    /// The priority a URL was queued with and its depth (None for an unknown id).
    pub fn priority_depth(&self, id: i64) -> anyhow::Result<Option<(f64, u32)>> {
        Ok(self
            .conn
            .prepare_cached("SELECT COALESCE(priority, 0), depth FROM urls WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u32)))
            .optional()?)
    }

    /// Whether a sitemap was named by its server's robots.txt, or listed by an index that was:
    /// such a sitemap may list any page of its server (the sitemap protocol).
    pub fn via_robots(&self, id: i64) -> anyhow::Result<bool> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT via, parent_id FROM urls WHERE id = ?1")?;
        let mut id = id;
        // An index is not listed by another index (the protocol): two steps at most.
        for _ in 0..2 {
            let row: Option<(Via, Option<i64>)> = stmt
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            match row {
                Some((Via::Robots, _)) => return Ok(true),
                Some((Via::Sitemap, Some(parent))) => id = parent,
                _ => return Ok(false),
            }
        }
        Ok(false)
    }

    /// Every seed URL with its crawl outcome, in id order.
    pub fn seed_outcomes(&self) -> anyhow::Result<Vec<SeedOutcome>> {
        let mut stmt = self.conn.prepare(
            "SELECT u.id, u.url, u.state, NULLIF(u.reason, ''), u.status, s.verdict
             FROM urls u JOIN (SELECT url_id, MAX(verdict) AS verdict FROM seeds GROUP BY url_id) s
               ON s.url_id = u.id
             ORDER BY u.id",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok(SeedOutcome {
                    url: url_outcome(r)?,
                    verdict: r.get::<_, Option<i64>>(5)?.map(|v| v != 0),
                })
            })?
            .collect::<Result<_, _>>()
            .context("crawl.sqlite: reading the seeds")?;
        Ok(rows)
    }

    /// The URL a redirect from `id` led to, if the crawl recorded one.
    pub fn redirect_target(&self, id: i64) -> anyhow::Result<Option<UrlOutcome>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id, url, state, NULLIF(reason, ''), status FROM urls
                 WHERE parent_id = ?1 AND via = ?2 ORDER BY id LIMIT 1",
            )?
            .query_row(params![id, Via::Redirect], url_outcome)
            .optional()?)
    }

    /// Every sighting of a seed, oldest first.
    pub fn seed_sightings(&self, url_id: i64) -> anyhow::Result<Vec<SeedSighting>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT source, engine, query, page, rank, retrieved_at, result_url, title, snippet
             FROM seed_hits WHERE url_id = ?1
             ORDER BY COALESCE(retrieved_at, ''), source, query, page, rank",
        )?;
        let rows = stmt
            .query_map([url_id], |r| {
                Ok(SeedSighting {
                    source: r.get(0)?,
                    engine: r.get(1)?,
                    query: r.get(2)?,
                    page: r.get(3)?,
                    rank: r.get(4)?,
                    retrieved_at: r.get(5)?,
                    result_url: r.get(6)?,
                    title: r.get(7)?,
                    snippet: r.get(8)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// HTML and text pages fetched with a 200, in fetch order, with the extract stage's
    /// verdicts.
    pub fn judged_in_fetch_order(&self) -> anyhow::Result<Vec<JudgedPage>> {
        let mut pages = Vec::new();
        self.each_judged_in_fetch_order(|url, on_topic, kept| {
            pages.push(JudgedPage {
                url: url.to_string(),
                on_topic,
                kept,
            });
        })?;
        Ok(pages)
    }

    /// The pages of [`Store::judged_in_fetch_order`] one at a time (URL, on topic, kept),
    /// none held: a million pages' URLs are about 70 MB.
    pub fn each_judged_in_fetch_order(
        &self,
        mut f: impl FnMut(&str, bool, bool),
    ) -> anyhow::Result<()> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT url, COALESCE(verdict, 0), COALESCE(reason, '') = ?1
             FROM urls WHERE state = 'fetched' AND status = 200 AND reason NOT IN {NOT_PAGES}
             ORDER BY fetched_at, id"
        ))?;
        let mut rows = stmt.query(params![Reason::Kept])?;
        while let Some(r) = rows.next()? {
            let url = r.get_ref(0)?.as_str()?;
            f(url, r.get::<_, i64>(1)? != 0, r.get(2)?);
        }
        Ok(())
    }

    /// Bytes downloaded per fetched URL (any status).
    pub fn fetched_lengths(&self) -> anyhow::Result<Vec<(String, u64)>> {
        let mut lengths = Vec::new();
        self.each_fetched_length(|url, length| lengths.push((url.to_string(), length)))?;
        Ok(lengths)
    }

    /// The URLs and lengths of [`Store::fetched_lengths`] one at a time, none held.
    pub fn each_fetched_length(&self, mut f: impl FnMut(&str, u64)) -> anyhow::Result<()> {
        let mut stmt = self
            .conn
            .prepare("SELECT url, COALESCE(length, 0) FROM urls WHERE state = 'fetched'")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let url = r.get_ref(0)?.as_str()?;
            f(url, r.get::<_, i64>(1)?.max(0) as u64);
        }
        Ok(())
    }

    /// Records a document's token count (export stage).
    pub fn set_tokens(&mut self, url_id: i64, tokens: u64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("UPDATE urls SET tokens = ?2 WHERE id = ?1")?
            .execute(params![url_id, tokens as i64])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The title of URL `id`, when its page had one.
    pub fn title(&self, id: i64) -> anyhow::Result<Option<String>> {
        use rusqlite::OptionalExtension as _;
        Ok(self
            .conn
            .prepare_cached("SELECT title FROM urls WHERE id = ?1")?
            .query_row([id], |r| r.get::<_, Option<String>>(0))
            .optional()?
            .flatten())
    }

    /// The hyperlink graph: every URL seen as a node (its reason, or its state when it has
    /// none), every link between them as an edge. Nodes and links go from the tables into the
    /// graph's columns one row at a time, each anchor borrowed from its row: no list of every
    /// URL or link is ever made. The anchors and link counts go to a scratch file in
    /// `scratch_dir`, the links' targets to another (both deleted with the graph), and are read
    /// back from them as the graph's files are written: in memory they were three quarters of
    /// a million-page graph.
    pub fn link_graph(&self, scratch_dir: &Path) -> anyhow::Result<LinkGraph> {
        let links: i64 = self
            .conn
            .query_row("SELECT count(*) FROM links", [], |r| r.get(0))
            .context("crawl.sqlite: counting the links for the graph")?;
        let (anchors, anchors_sink) = scratch_file(scratch_dir, "anchors")?;
        let (targets, targets_sink) = scratch_file(scratch_dir, "targets")?;
        let mut graph = LinkGraphBuilder::outside(
            usize::try_from(links).unwrap_or(0),
            Box::new(anchors_sink),
            Box::new(targets_sink),
        );
        let mut stmt = self.conn.prepare(
            "SELECT id, url, host, depth, status, language, score, verdict, tokens, state,
                    NULLIF(reason, '')
             FROM urls ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        let mut read_nodes = || -> rusqlite::Result<()> {
            while let Some(r) = rows.next()? {
                let url: String = r.get(1)?;
                let host = url::Url::parse(&url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_string))
                    .unwrap_or_else(|| r.get::<_, String>(2).unwrap_or_default());
                let state: State = r.get(9)?;
                let reason: Option<Reason> = r.get(10)?;
                graph.node(&PageNode {
                    id: r.get(0)?,
                    url,
                    host: host.into(),
                    depth: r.get(3)?,
                    status: r.get(4)?,
                    language: r.get::<_, Option<String>>(5)?.map(Into::into),
                    score: r.get(6)?,
                    verdict: r.get::<_, Option<i64>>(7)?.map(|v| v != 0),
                    tokens: r.get(8)?,
                    kept: reason == Some(Reason::Kept),
                    reach: crate::ground::outcome::reach(state, reason),
                    reason: reason
                        .map_or_else(|| state.name().to_string(), |r| r.to_string())
                        .into(),
                });
            }
            Ok(())
        };
        read_nodes().context("crawl.sqlite: reading the URLs for the graph")?;
        let mut stmt = self
            .conn
            .prepare("SELECT src, dst, anchor, count FROM links ORDER BY src, dst")?;
        let mut rows = stmt.query([])?;
        let mut read_links = || -> rusqlite::Result<()> {
            while let Some(r) = rows.next()? {
                let anchor = r.get_ref(2)?;
                let anchor = anchor.as_str().unwrap_or_default();
                graph.edge(r.get(0)?, r.get(1)?, anchor, r.get(3)?);
            }
            Ok(())
        };
        read_links().context("crawl.sqlite: reading the links for the graph")?;
        graph
            .finish_outside(
                Box::new(ScratchFile(anchors)),
                Box::new(ScratchFile(targets)),
            )
            .with_context(|| {
                format!(
                    "cannot write the links' anchors and targets to scratch files in {}",
                    scratch_dir.display()
                )
            })
    }
}

/// A scratch file for what the graph keeps outside memory (`what`: its links' anchors or
/// targets), deleted when closed, and a second handle to write it.
fn scratch_file(scratch_dir: &Path, what: &str) -> anyhow::Result<(std::fs::File, std::fs::File)> {
    let file = tempfile::tempfile_in(scratch_dir).with_context(|| {
        format!(
            "cannot create a scratch file for the links' {what} in {}",
            scratch_dir.display()
        )
    })?;
    let sink = file.try_clone().with_context(|| {
        format!(
            "cannot reopen the links' {what} scratch file in {}",
            scratch_dir.display()
        )
    })?;
    Ok((file, sink))
}

/// What the graph keeps outside memory, read back from its scratch file.
struct ScratchFile(std::fs::File);

impl stages::export::graph::ScratchStore for ScratchFile {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.0, buf, offset)
    }
}
