//! One fetched page read: bytes to text, then text and links.
//!
//! **In:** the body bytes of a response with its `Content-Type` and host; the page URL.
//! **Out:** UTF-8 text in NFC ([`decode`]); the crawl's quick reading of a page, text and
//! links ([`skim`]); the clean text blocks, metadata and out-links of the extract stage
//! ([`extract`]); the language of a text ([`lang`]); stop-word lists ([`stopwords`]); the
//! JavaScript links both readers find (`script_links`).
//! **Invariants:** never panics whatever the bytes; links are absolute `http`/`https` URLs
//! without fragment; uses only this group and the ones upstream ([`crate::seeds`],
//! [`crate::web`]).
//!
//! Modules, in data-flow order: [`decode`] → [`lang`], [`stopwords`], `script_links` (used by
//! the readers) → [`extract`] → [`skim`] (follows the extractor's link rules).

pub mod decode;

pub mod lang;
pub mod stopwords;

mod script_links;

pub mod extract;
pub mod skim;
