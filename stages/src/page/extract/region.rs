//! The main-content region: the candidates the walk finds (`article`, `main`,
//! `itemprop=articleBody`, content class names), the region chosen among them, and which blocks lie
//! inside block index ranges.
//!
//! **In:** the elements' cues during the walk; after it, the candidates' block ranges and the
//! blocks' text weights. **Out:** a [`Cue`] per candidate element, the chosen region (a block index
//! range) or none, and per-block masks of ranges.
//!
//! **Invariants:** a candidate is trusted only if it holds [`MAIN_REGION_SHARE`] of the page's
//! weight; masks have one entry per block.

use html5ever::{LocalName, local_name};

use super::block::RawBlock;
use super::cues::Attrs;
use super::{MAIN_REGION_NARROWING, MAIN_REGION_SHARE, MAX_REGION_SHARE, count_words};

/// How an element announces main content, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cue {
    /// `itemprop=articleBody` (schema.org).
    ArticleBody,
    /// `<article>`, `role=article`.
    Article,
    /// `<main>`, `role=main`, `itemprop=text`, a content class or id name.
    Other,
}

/// A main-content candidate: its block index range and cue.
#[derive(Debug, Clone, Copy)]
pub(super) struct Container {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) cue: Cue,
}

/// Whether an element is a candidate for the page's main-content region, and how strongly:
/// `itemprop=articleBody`; `article`, `role=article`; `main`, `role=main`, `itemprop=text`, or
/// a block whose class or id names content (`article-body`, `entry-content`, `story`…) and no
/// boilerplate (`names_content`, [`ClassNames::content`](super::cues::ClassNames::content), is only
/// set on blocks).
pub(super) fn content_cue(tag: &LocalName, a: &Attrs<'_>, names_content: bool) -> Option<Cue> {
    // The page itself is no region (`<body class="ArticlePage-body">` names a page type).
    if matches!(*tag, local_name!("html") | local_name!("body")) {
        return None;
    }
    let any_token = |value: Option<&str>, wanted: &str| {
        value.is_some_and(|value| {
            value
                .split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case(wanted))
        })
    };
    if any_token(a.itemprop, "articleBody") {
        return Some(Cue::ArticleBody);
    }
    if *tag == local_name!("article") || any_token(a.role, "article") {
        return Some(Cue::Article);
    }
    let other = *tag == local_name!("main")
        || any_token(a.role, "main")
        || any_token(a.itemprop, "text")
        || names_content;
    other.then_some(Cue::Other)
}
/// For each of `n` blocks, whether it lies inside one of the block index ranges.
pub(super) fn region_mask_all(n: usize, ranges: &[(usize, usize)]) -> Vec<bool> {
    let mut delta = vec![0i64; n + 1];
    for &(start, end) in ranges {
        let (start, end) = (start.min(n), end.min(n));
        if start < end {
            delta[start] += 1;
            delta[end] -= 1;
        }
    }
    covered(&delta, n)
}

/// Positions `0..n` covered by at least one range of a difference array (`+1` at each start,
/// `-1` at each end).
fn covered(delta: &[i64], n: usize) -> Vec<bool> {
    let mut depth = 0i64;
    delta
        .iter()
        .take(n)
        .map(|d| {
            depth += d;
            depth > 0
        })
        .collect()
}

/// For each block, whether it lies inside a structural cue that is not a page wrapper.
pub(super) fn region_mask(blocks: &[RawBlock], regions: &[(usize, usize)]) -> Vec<bool> {
    let n = blocks.len();
    let mut prefix_words = Vec::with_capacity(n + 1);
    prefix_words.push(0usize);
    for block in blocks {
        let last = prefix_words.last().copied().unwrap_or(0);
        prefix_words.push(last + count_words(&block.text));
    }
    let total = prefix_words.last().copied().unwrap_or(0);
    let mut delta = vec![0i64; n + 1];
    for &(start, end) in regions {
        let (start, end) = (start.min(n), end.min(n));
        if start >= end {
            continue;
        }
        let words = prefix_words[end] - prefix_words[start];
        if total > 0 && words as f64 >= MAX_REGION_SHARE * total as f64 {
            continue;
        }
        delta[start] += 1;
        delta[end] -= 1;
    }
    covered(&delta, n)
}
/// The page's main-content region (a block index range), if a candidate is heavy enough.
///
/// Explicit cues are trusted in order of strength, as trafilatura's content XPaths are: the
/// heaviest `itemprop=articleBody` first, then the heaviest `article`, then `main` and content
/// class names, each only if it holds [`MAIN_REGION_SHARE`] of the page's weight (a teaser
/// `<article>` does not). The region is then the innermost candidate inside it that still
/// holds [`MAIN_REGION_NARROWING`] of its weight.
pub(super) fn main_region(containers: &[Container], weights: &[usize]) -> Option<(usize, usize)> {
    let n = weights.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0usize);
    for w in weights {
        prefix.push(prefix.last().copied().unwrap_or(0) + w);
    }
    let total = prefix.last().copied().unwrap_or(0);
    let weight = |c: &Container| {
        let (start, end) = (c.start.min(n), c.end.min(n));
        prefix[end.max(start)] - prefix[start]
    };
    if total == 0 {
        return None;
    }
    let outer = [Cue::ArticleBody, Cue::Article, Cue::Other]
        .into_iter()
        .find_map(|cue| {
            containers
                .iter()
                .filter(|c| c.cue == cue)
                .max_by_key(|c| (weight(c), std::cmp::Reverse(c.start)))
                .filter(|c| weight(c) as f64 >= MAIN_REGION_SHARE * total as f64)
        })?;
    let floor = MAIN_REGION_NARROWING * weight(outer) as f64;
    containers
        .iter()
        .filter(|c| c.start >= outer.start && c.end <= outer.end && weight(c) as f64 >= floor)
        .min_by_key(|c| (c.end.saturating_sub(c.start), c.start))
        .map(|c| (c.start, c.end))
}
