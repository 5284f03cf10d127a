//! Exports: the files a run writes for linguists' tools, and tagger output read back.
//!
//! **In:** the crawl's link graph (URL ids, statuses, links); the corpus documents as
//! metadata and token lists ([`crate::corpus::tokenize`]); tagged files.
//! **Out:** `String`s and row tables ready to write: GraphML and CSV ([`graph`]), GEXF, DOT,
//! Pajek, host graph and link reports ([`graphio`]), site maps ([`sitemap`]); the document ×
//! word matrix ([`matrix`]) and document similarity ([`similarity`]); TreeTagger files
//! ([`treetagger`]), `.vrt`, CoNLL-U, Talismane and TXM metadata ([`vertical`]); tagger output
//! parsed ([`tagged`]); the token formats in one table ([`formats`]).
//! **Invariants:** pure (the caller writes the files); every writer escapes for its format and
//! never writes a non-finite number; the CSV and TSV fields glaneur quotes itself follow one
//! rule ([`delimited`]), which the default readers of R and pandas read back whole; ids join
//! with `crawl.sqlite`; uses only this group and the ones upstream.
//!
//! Modules, in data-flow order: [`delimited`] (used by the table writers); [`graph`] →
//! [`graphio`] → [`sitemap`]; [`vocabulary`] → [`matrix`] → [`similarity`]; [`treetagger`], [`vertical`] →
//! [`tagged`] → [`formats`].

pub mod delimited;

pub mod graph;
pub mod graphio;
pub mod sitemap;

pub mod matrix;
pub mod similarity;
pub mod vocabulary;

pub mod treetagger;
pub mod vertical;

pub mod formats;

pub mod tagged;
