//! Focus: what is on topic, and what the crawl fetches next.
//!
//! **In:** the topic's keyword formula and weights; a page's text ([`crate::page`]); the links
//! found and the crawl's events (URLs queued, fetched, judged).
//! **Out:** a formula verdict per text ([`formula`]); a page score, a link priority and the
//! domain scope ([`score`]); the seed pages' term weights and a page's similarity to them
//! ([`centroid`]); PageRank over a link graph ([`pagerank`]); the frontier's sort keys under
//! each crawl strategy ([`strategy`]).
//! **Invariants:** pure, total and deterministic: the same inputs and events give the same
//! scores and keys, every number finite, so two crawls of the same recorded web take the same
//! order; uses only this group and the ones upstream.
//!
//! Modules, in data-flow order: [`formula`] → [`score`], [`centroid`] → [`pagerank`] →
//! [`strategy`].

pub mod formula;

pub mod centroid;
pub mod score;

pub mod pagerank;

pub mod strategy;
