//! The change-rate estimators and revisit schedules on simulated pages: the paper's bias
//! table ([`bias`]) and a simulated web of 10,000 pages monitored by both policies ([`web`]).
//! The generator is a seeded ChaCha20 ([`rng`]), so every figure printed is reproducible.

mod bias;
mod rng;
mod web;
