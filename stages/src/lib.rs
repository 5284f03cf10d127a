//! Pure stage transforms of glaneur.
//!
//! Every module here is a pure function of its input: no network, no disk, no clock, no async
//! runtime (`tests/tidy.rs` at the workspace root fails if this crate's manifest ever gains
//! such a dependency). The `pipeline` (root package) does the I/O and calls these.
//!
//! Stages, in data-flow order: [`queries`] (search-engine queries from the seed terms) →
//! [`serp`] (seeds from saved result pages) → [`formula`] (the
//! keyword formula) → [`robots`], [`urlnorm`] (crawl rules and the seen-set key) → [`decode`]
//! (bytes to UTF-8) → [`extract`] (clean text, links; with [`lang`] and [`stopwords`]) →
//! [`score`] (topic score, link priority, domain scope; with [`centroid`], the seed term weights,
//! and [`strategy`], the frontier's priority functions) → [`host_boilerplate`], [`paralang`],
//! [`dedup`] (cross-page clean-up: repeated paragraphs, paragraph language, duplicates) →
//! [`tokenize`] → exports: [`graph`],
//! [`matrix`], [`treetagger`]. [`warc`] is the WARC/1.1 codec used to store and replay
//! responses.

pub mod centroid;
pub mod decode;
pub mod dedup;
pub mod extract;
pub mod formula;
pub mod graph;
pub mod graphio;
pub mod host_boilerplate;
pub mod lang;
pub mod matrix;
pub mod pagerank;
pub mod paralang;
pub mod queries;
pub mod robots;
pub mod score;
pub mod serp;
pub mod similarity;
pub mod sitemap;
pub mod skim;
pub mod stopwords;
pub mod strategy;
pub mod tagged;
pub mod tokenize;
pub mod traps;
pub mod treetagger;
pub mod urlnorm;
pub mod vertical;
pub mod warc;
