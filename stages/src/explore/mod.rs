//! Querying a corpus: the positional index, CQL concordances, frequency lists, collocations
//! and keywords — the engine behind `glaneur kwic`, `freq`, `colloc` and `keywords`, and what
//! the web interface calls — and the figures that compare corpora (`glaneur compare`).
//!
//! **In:** a CWB vertical file (the export's `vrt/corpus.vrt`, word only or `word pos lemma`
//! after tagging), read line by line by [`build`]; queries in CQL ([`cql`]).
//!
//! **Out:** an [`index::Index`] (lexicons, forward index, postings, regions), hits of a query
//! ([`query`]), concordance lines ([`concord`]), statistics ([`stats`], [`dispersion`], [`breakdown`]), comparisons of corpora
//! ([`compare`]).
//!
//! **Invariants:** pure: the large arrays are read through [`index::Columns`], which the
//! pipeline implements over files; the same query on the same corpus gives the same hits
//! whatever the index's storage (the tests compare the index with a brute-force scan of the
//! token stream).

mod automaton;
pub mod breakdown;
pub mod build;
pub mod compare;
pub mod concord;
mod constraint;
pub mod cql;
pub mod dispersion;
pub mod index;
mod limits;
mod pred;
pub mod query;
pub mod sketch;
pub mod stats;
pub mod strategy;
mod walk;

#[cfg(test)]
mod tests;
