//! glaneur: topic corpora from the web for linguists.
//!
//! This crate is the part of glaneur that touches the world: the command line, the topic file,
//! HTTP and replayed fetching, the crawl loop, the run folder (SQLite, WARC, JSON Lines) and the
//! exports. The pure transforms it calls live in the `stages` crate.
//!
//! # Layout
//!
//! - [`cli`] flags; [`run`] the stages in order; [`topic`] the topic file (and [`topic::template`],
//!   `glaneur init`);
//! - [`seeds`] → [`crawl`] (with [`fetch`], [`store`], [`warcfile`], [`guard`]) → [`extract`] →
//!   [`export`];
//! - [`outcome`] every decision's state and reason; [`report`] `report.json` and the summary;
//!   [`progress`] progress bars; [`clock`] the wall clock;
//! - [`verify`] `glaneur verify`; [`runlock`] one process per run folder; [`inspect`]
//!   `glaneur formula`, `extract`, `tokenize`: one stage on local files.
//!
//! Data flows one way; the only loop is inside [`crawl`] (page → score → new links), which
//! calls `stages::page::{decode, extract}` and `stages::focus::{formula, score}`. Every stage
//! stores its output in the run folder, so `--from STAGE` re-runs what follows without
//! fetching again.

pub mod batch;
pub mod checksums;
pub mod cli;
pub mod clock;
pub mod compare;
pub mod corpus_index;
pub mod crawl;
pub mod doc_search;
pub mod explore;
pub mod export;
pub mod extract;
pub mod fetch;
pub mod guard;
pub mod inspect;
pub mod live;
pub mod monitor;
pub mod outcome;
pub mod parallel;
pub mod progress;
pub mod report;
pub mod run;
pub mod runlock;
pub mod search;
pub mod secrets;
pub mod seeds;
pub mod serve;
pub mod store;
pub mod topic;
pub mod verify;
pub mod warcfile;
pub mod workers;

use std::path::Path;

/// `glaneur check`: the resolved topic as text, or why it is invalid.
pub fn check(path: Option<&Path>) -> anyhow::Result<String> {
    let topic = match path {
        Some(p) => topic::Topic::load(p)?,
        None => topic::Topic::demo(Path::new("corpora").join("demo"))?,
    };
    // The embedded demo topic falls back on its compiled-in recording.
    topic::check_files(&topic, path.is_none())?;
    let mut out = String::new();
    out.push_str(&format!("# topic: {} (valid)\n", topic.origin));
    for warning in topic::warnings(&topic) {
        out.push_str(&format!("# warning: {warning}\n"));
    }
    out.push_str(&format!("# formula, normalised: {}\n", topic.formula));
    out.push_str(&format!("# User-Agent: {}\n", topic.user_agent()));
    out.push_str(&format!(
        "# seeds: {} URLs, {} saved result pages, {} URL lists\n",
        topic.seed_urls.len(),
        topic.file.seeds.result_pages.len(),
        topic.file.seeds.url_lists.len()
    ));
    if let Some(plan) = &topic.search {
        let (key, id) = search::key_variables(plan.backend);
        let vars: Vec<&str> = [key, id].into_iter().flatten().collect();
        let keys = if vars.is_empty() {
            "no key".to_string()
        } else {
            format!("key from {}", vars.join(" + "))
        };
        out.push_str(&format!(
            "# search: {} queries on {} ({keys}), as they will be sent:\n",
            plan.queries.len(),
            plan.backend.name(),
        ));
        for (_, compiled) in &plan.queries {
            out.push_str(&format!("#   {compiled}\n"));
        }
    }
    out.push_str(&topic.to_toml());
    Ok(out)
}
