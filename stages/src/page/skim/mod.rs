//! Skim: what the crawl needs from an HTML page, read from the HTML tokenizer alone.
//!
//! **In:** decoded HTML and the page URL.
//! **Out:** [`Skim`]: the first `<title>`, all visible text (blocks separated by a blank line),
//! the out-links with their anchor text and the text around them, `<meta name=robots>`, and
//! the language of the text.
//!
//! **Invariants:**
//! - links follow the rules of [`crate::page::extract`]: `<a href>`, `<area href>`, `<frame src>`,
//!   `<iframe src>`, `<link rel=next|prev|previous>`, `<meta http-equiv=refresh>`, feeds
//!   (`<link rel=alternate>` of an RSS, Atom or RDF type) and, unless switched off
//!   ([`SkimOptions::javascript_links`]), JavaScript links (navigation calls with one string
//!   literal in inline scripts, event handlers and `javascript:` URLs; URL-named data
//!   attributes), resolved against the first `<base href>` (wherever it is) or the page URL,
//!   fragment removed, only http(s); anchor text is the element's text, else an image's `alt`,
//!   else `title` / `aria-label` (`alt` for `<area>`, `title` for frames and feeds; a
//!   JavaScript link of an `<a href>` or `<area href>` has the element's);
//! - the text leaves out `<script>`, `<style>`, `<noscript>`, `<template>`, SVG, MathML and
//!   embedded media, as the extractor does; unlike it, the skim does not drop `hidden` elements
//!   and keeps navigation and other boilerplate: the crawl judges a page by all its visible text;
//!   it also leaves out the raw text of `<textarea>`, `<xmp>` and `<noembed>` (a form field's
//!   content, obsolete or fallback markup), which the extractor keeps as text;
//! - never panics, whatever the input.
//!
//! Why a second reader next to [`crate::page::extract::extract_html`]: the crawl reads every page
//! it fetches, and the extractor builds a tree, walks it and classifies every block, which is most
//! of the crawl's CPU time. The crawl only needs the text and the links, so it skims with a
//! tokenizer, which follows the HTML standard and treats malformed markup exactly as browsers do at
//! that level; the extract stage reads the stored page again with the full extractor.
//!
//! The tokenizer is html5gum's rather than html5ever's (which the extractor uses): html5gum
//! hands its [`Emitter`](html5gum::Emitter) byte slices of the page, so the skim copies only the
//! text it keeps and the attributes of the few elements it reads: 3× html5ever's tokenizer on the
//! fixture pages (`examples/bench_skim.rs`). It is built without its `jetscii` feature: a plain
//! loop finds the end of each run of text, where a vectorised search set up for each run cost
//! more on the short runs between tags of documentation pages (docs/BENCHMARKS.md, B1). Without
//! a tree builder, the emitter itself switches the tokenizer to the raw-text states after
//! `<script>`, `<style>`, `<title>`, `<textarea>`…, as the skim did with html5ever.
//!
//! **Files**, in data-flow order: `emitter` (html5gum's callbacks, whole tags and text) →
//! `state` (blocks, links, metadata; the finished skim), reading elements with `tags`; this file
//! holds the entry points; `tests.rs` the tests.

use html5gum::Tokenizer;
use url::Url;

use crate::page::extract::{self, Link, MetaRobots};
use crate::page::lang::LangGuess;
use crate::page::script_links;

mod tags;

mod state;
use state::State;

mod emitter;
use emitter::Reader;

/// What the crawl learns from a page's HTML.
#[derive(Debug, Clone, Default)]
pub struct Skim {
    /// Text of the first `<title>`, whitespace-collapsed.
    pub title: Option<String>,
    /// Every visible text block, whitespace-collapsed, separated by `\n\n`.
    pub text: String,
    /// Out-links in document order.
    pub links: Vec<Link>,
    /// Directives of `<meta name="robots">`.
    pub meta_robots: MetaRobots,
    /// Language detected on the text.
    pub language: Option<LangGuess>,
    /// Links past the limit, left out.
    pub links_cut: usize,
    /// Attributes past the limit on one element, left out.
    pub attributes_cut: usize,
}

/// Stack a thread that skims pages should have. The tokenizer reads each attribute of a tag
/// with one more nested call (about 200 bytes of stack each, optimised; 4 KB in a debug build):
/// the skim leaves a tag at `max_attributes`, and this leaves room for the most a topic may
/// allow (10,000) in either build. Only the pages a thread touches are
/// committed, so a large reservation costs nothing.
pub const STACK_BYTES: usize = 64 << 20;

/// How a page is skimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkimOptions {
    /// Links kept at most, the first ones in document order ([`Skim::links_cut`] counts the
    /// others; a page of a hundred thousand links would cost the crawl a hundred thousand rows,
    /// URL checks and priorities).
    pub max_links: usize,
    /// Attributes read on one element at most ([`Skim::attributes_cut`]).
    pub max_attributes: usize,
    /// Read JavaScript links ([`LinkKind::Javascript`](extract::LinkKind::Javascript)), as the
    /// extractor does with [`ExtractOptions::javascript_links`](extract::ExtractOptions).
    pub javascript_links: bool,
}

impl Default for SkimOptions {
    fn default() -> SkimOptions {
        SkimOptions {
            max_links: extract::DEFAULT_MAX_LINKS,
            max_attributes: extract::DEFAULT_MAX_ATTRIBUTES,
            javascript_links: true,
        }
    }
}

/// Skims `html` (already decoded) found at `page_url`.
pub fn skim_html(html: &str, page_url: &Url) -> Skim {
    skim_html_opts(html, page_url, &SkimOptions::default())
}

/// [`skim_html`] keeping at most `max_links` links and reading at most `max_attributes`
/// attributes on one element (see [`SkimOptions`]; JavaScript links are read).
pub fn skim_html_with(html: &str, page_url: &Url, max_links: usize, max_attributes: usize) -> Skim {
    let options = SkimOptions {
        max_links,
        max_attributes,
        javascript_links: true,
    };
    skim_html_opts(html, page_url, &options)
}

/// [`skim_html`] with `options`.
pub fn skim_html_opts(html: &str, page_url: &Url, options: &SkimOptions) -> Skim {
    // html5gum reads each attribute of a tag one call deeper: the reader counts them, and on
    // the first tag past `max_attributes` leaves the tokenizer by unwinding (its depth is then
    // bounded by the limit). Only such a page is scanned for tags to cut (`cap_attributes`)
    // and read again; the others cost a counter per attribute.
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        skim_once(html, page_url, options)
    }));
    match first {
        Ok(skim) => skim,
        Err(payload) if payload.is::<TooManyAttributes>() => {
            let mut attributes_cut = 0;
            let capped = extract::cap_attributes(html, options.max_attributes, &mut attributes_cut);
            let second = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                skim_once(&capped, page_url, options)
            }));
            match second {
                Ok(mut skim) => {
                    skim.attributes_cut = attributes_cut;
                    skim
                }
                // A tag the scan did not cut (it reads the page as the tokenizer does; this
                // would be a bug): the page gives no text and no links rather than a crash.
                Err(_) => Skim {
                    attributes_cut: attributes_cut.max(1),
                    ..Skim::default()
                },
            }
        }
        Err(other) => std::panic::resume_unwind(other),
    }
}

/// Unwinds the tokenizer out of a tag with too many attributes (see [`skim_html_opts`]).
struct TooManyAttributes;

/// One reading of the page; unwinds with [`TooManyAttributes`] at a tag of more than
/// `max_attributes` attributes.
fn skim_once(html: &str, page_url: &Url, options: &SkimOptions) -> Skim {
    let mut state = State {
        max_links: options.max_links,
        max_attributes: options.max_attributes,
        javascript_left: if options.javascript_links {
            script_links::MAX_JAVASCRIPT_LINKS
        } else {
            0
        },
        ..State::default()
    };
    // The page is read as it is: the extractor's pre-scan (`extract::prepare`), which cuts the
    // content of scripts and style sheets, made the skim slower with html5gum, which crosses
    // that content by byte search and copies none of it (0.37 s against 0.50 s on the fixture
    // pages). Reading a `&str` cannot fail, and the emitter yields no tokens: the tokenizer's
    // work is all in the calls it makes to the emitter.
    let Ok(()) = Tokenizer::new_with_emitter(html, Reader::new(&mut state)).finish();
    state.finish(page_url)
}

/// Skims a `text/plain` page: all of it is text, it has no links, no title and no directives.
pub fn skim_plain(text: &str) -> Skim {
    let extracted = extract::extract_plain(text);
    let mut joined = String::new();
    for block in &extracted.blocks {
        if !joined.is_empty() {
            joined.push_str("\n\n");
        }
        joined.push_str(&block.text);
    }
    Skim {
        text: joined,
        language: extracted.language,
        ..Skim::default()
    }
}

#[cfg(test)]
mod tests;
