//! Seeds: where a crawl starts.
//!
//! **In:** the topic's seed terms, explicit queries, the formula's excluded terms and the
//! `[domains]` lists; saved search-engine result pages (decoded HTML).
//! **Out:** the queries to send to each search API ([`queries`]), the seed URLs found on
//! result pages ([`serp`]), and the user's review of the seeds ([`review`]).
//! **Invariants:** pure and deterministic (the random tuples come from a seeded generator);
//! never panics on any result page; uses no other group.
//!
//! Modules, in data-flow order: [`queries`] → [`serp`] → [`review`].

pub mod queries;
pub mod review;
pub mod serp;
