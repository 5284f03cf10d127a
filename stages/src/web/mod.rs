//! The web as the crawl meets it: the rules applied to a URL before it is fetched, and the
//! WARC codec that stores and replays what was fetched.
//!
//! **In:** URLs found in pages or seed lists; a server's `/robots.txt`; the topic's
//! `[traps]` limits; HTTP responses to store, WARC files to read back.
//! **Out:** one canonical URL per resource and its politeness key ([`urlnorm`]); may this URL
//! be fetched ([`robots`], [`traps`]); the URLs a sitemap or a feed lists ([`listing`]); WARC
//! records and the HTTP messages inside them ([`warc`]).
//! **Invariants:** pure (the caller fetches, stores and keeps the counts); total on hostile
//! input: nothing here panics; uses [`crate::seeds`] at most, never a group downstream.
//!
//! Modules, in data-flow order: [`urlnorm`] → [`robots`] → [`listing`] → [`traps`] → [`warc`].

pub mod urlnorm;

pub mod robots;

pub mod traps;

pub mod warc;

pub mod listing;
