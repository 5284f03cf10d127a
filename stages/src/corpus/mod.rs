//! The corpus across pages: clean-up that needs more than one page, and the tokens every
//! export counts.
//!
//! **In:** the paragraphs each page's extractor kept ([`crate::page::extract`]), with their
//! host and the page language; the documents' clean text.
//! **Out:** paragraphs a host repeats on many pages ([`host_boilerplate`]); each paragraph's
//! language ([`paralang`]); exact and near duplicates ([`dedup`]); TreeTagger-exact tokens
//! ([`tokenize`]).
//! **Invariants:** pure and deterministic, independent of page order and thread scheduling
//! where the caller's order is given; one output per input; never panics; uses only this
//! group and the ones upstream.
//!
//! Modules, in data-flow order: [`host_boilerplate`] → [`paralang`] → [`dedup`] →
//! [`tokenize`].

pub mod host_boilerplate;

pub mod paralang;

pub mod dedup;

pub mod tokenize;
