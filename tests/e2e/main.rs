//! End-to-end tests: the real `glaneur` binary against a local multi-host test web.
//!
//! Every test starts its own server (`server.rs`) on `127.0.0.1:0` and points the crawler at it
//! with `--proxy`; politeness and robots rules are then checked from the server's access log,
//! not from what the crawler says about itself. Nothing here touches the internet.

// Test helpers may panic: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A test reads as one story (its setup, its checks): the length rule is for the code.
#![allow(clippy::too_many_lines)]

mod annotate;
mod batch;
mod browser;
mod compare;
mod crawl;
mod dedup;
mod demo;
mod discovery;
mod explore;
mod guard;
mod harvest;
mod hostile;
mod inspect;
mod monitor;
mod network;
mod pgtls;
mod postgres;
mod readers;
mod resume;
mod secrets;
mod seeds;
mod serve;
mod serve_trust;
mod server;
mod strategies;
mod support;
mod tidy;
mod topics;
mod trust;
mod workbench;
mod workers;
