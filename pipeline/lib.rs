//! glaneur: topic corpora from the web for linguists.
//!
//! This crate is the part of glaneur that touches the world: the command line, the topic file,
//! HTTP and replayed fetching, the crawl loop, the run folder (SQLite, WARC, JSON Lines) and the
//! exports. The pure transforms it calls live in the `stages` crate.
//!
//! # Layout
//!
//! Folders by role, each importing only those listed before it (`tests/e2e/tidy.rs` checks the
//! order, and that no file imports another that imports it back):
//!
//! 1. [`ground`]: what every layer uses — the clock, outcomes and reasons, secrets' redaction,
//!    checksums, the network guard, the run folder's lock and `live.json`, progress bars, the
//!    thread pool;
//! 2. [`topic`]: the topic file, its validation and template;
//! 3. [`warc`]: the run's WARC file and the response it archives;
//! 4. [`store`]: `crawl.sqlite` (and the shared PostgreSQL frontier): every decision, behind
//!    methods;
//! 5. [`fetch`]: HTTP and replayed fetching, and the hub that shares requests between topics;
//! 6. [`seeds`]: search APIs, saved result pages and URL lists into the frontier;
//! 7. [`crawl`]: the polite, focused crawl loop (page → score → new links), page digests;
//! 8. [`extract`]: clean text, decisions, `docs.jsonl`;
//! 9. [`annotate`]: tagging (`[annotate]`): each document's tags, per language, stored;
//! 10. [`index`]: the corpus's positional index (CQL) and the document search index;
//! 11. [`export`]: graphs, matrices, tagger files, the indexes built;
//! 12. [`parse`]: Syntex and Upery on the tagged corpus (`[parse]`);
//! 13. [`report`]: `report.json`, `report.html`, the summary;
//! 14. [`explore`]: `glaneur kwic`, `freq`, `colloc`, `keywords`, `search` on a finished run;
//! 15. [`commands`]: the other commands — `run` (the stages in order), `check`, `verify`,
//!     `formula`/`extract`/`tokenize`, `monitor`, `batch`, `worker`/`collect`, `compare`;
//! 16. [`serve`]: the web interface over all of it;
//! 17. [`cli`]: the flags, parsed by `main.rs`, which dispatches.
//!
//! Data flows one way: seeds → crawl → extract → annotate → export → parse → report. Every stage stores its
//! output in the run folder, so `--from STAGE` re-runs what follows without fetching again.

pub mod annotate;
pub mod cli;
pub mod commands;
pub mod crawl;
pub mod explore;
pub mod export;
pub mod extract;
pub mod fetch;
pub mod ground;
pub mod index;
pub mod parse;
pub mod report;
pub mod seeds;
pub mod serve;
pub mod store;
pub mod topic;
pub mod warc;
