//! Pure stage transforms of glaneur.
//!
//! Every module here is a pure function of its input: no network, no disk, no clock, no async
//! runtime (`tests/e2e/tidy.rs` at the workspace root fails if this crate's manifest ever gains
//! such a dependency). The `pipeline` (root package) does the I/O and calls these.
//!
//! The modules are grouped by data flow, one folder per group, in this order:
//!
//! 1. [`seeds`]: search-engine queries from the seed terms, seed URLs from result pages;
//! 2. [`web`]: the crawl's rules for a URL (canonical form, robots.txt, traps) and the WARC
//!    codec that stores and replays responses;
//! 3. [`page`]: one fetched page read: bytes to text, the crawl's skim, clean text and links,
//!    language, stop words;
//! 4. [`focus`]: what is on topic and what to fetch next: the keyword formula, page and link
//!    scores, the seed centroid, PageRank, the frontier's strategies;
//! 5. [`corpus`]: across pages: repeated paragraphs, paragraph language, duplicates, tokens;
//! 6. [`export`]: the files a run writes: link graphs, site maps, matrices, similarity,
//!    TreeTagger and vertical formats, tagger output read back;
//! 7. [`explore`]: querying the corpus: the positional index, CQL concordances, frequencies,
//!    collocations, keywords;
//! 8. [`change`]: how often pages change: change-rate estimators and revisit schedules (uses no
//!    other group).
//!
//! Arrows point downstream only: a module uses modules of its own group or of groups above it,
//! never of a group below. [`pool`] (distinct strings in one buffer) is a utility any group
//! may use.

pub mod pool;

pub mod seeds;

pub mod web;

pub mod page;

pub mod focus;

pub mod corpus;

pub mod export;

pub mod explore;

pub mod change;
