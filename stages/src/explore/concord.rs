//! Concordance (KWIC) lines of hits: left context, the hit, right context, and the document.
//!
//! **In:** an index, hits, the attributes to show (`word`, or `word/pos/lemma`), the context
//! width in tokens.
//!
//! **Out:** one [`Line`] per hit; [`sort`] orders them by position, by the left context (nearest
//! token first, as concordancers do), by the hit, or by the right context.
//!
//! **Invariants:** the context never crosses the boundary of the hit's document (`text`
//! region); sorting compares lower-cased values and falls back on position, so it is total and
//! stable.

use super::index::{ColumnError, Columns, Index};
use super::query::Hit;

/// One concordance line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Line {
    /// First token of the hit.
    pub start: u32,
    /// One past its last token.
    pub end: u32,
    /// The document's number (its `text` region), if the corpus has documents.
    pub doc: Option<usize>,
    /// Tokens before the hit, in text order.
    pub left: Vec<String>,
    /// The hit's tokens.
    pub hit: Vec<String>,
    /// Tokens after the hit.
    pub right: Vec<String>,
}

/// How to order concordance lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    /// Corpus order.
    Position,
    /// By the token just before the hit, then the one before it, and so on.
    Left,
    /// By the hit's tokens, then the right context.
    Hit,
    /// By the token just after the hit, then the next one, and so on.
    Right,
}

/// The lines of `hits`, tokens shown as the values of `show` joined by `/`.
pub fn lines<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    show: &[usize],
    context: u32,
) -> Result<Vec<Line>, ColumnError> {
    let text = index.region("text");
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        let doc = text.and_then(|t| t.find(hit.start));
        let (lo, hi) = match (text, doc) {
            (Some(t), Some(d)) => (t.starts[d], t.ends[d]),
            _ => (0, index.n_tokens),
        };
        let from = hit.start.saturating_sub(context).max(lo);
        let to = hit.end.saturating_add(context).min(hi).max(hit.end);
        let shown = shown(index, show, from..to)?;
        // Clamped: a damaged index may name positions past the end.
        let a = ((hit.start - from) as usize).min(shown.len());
        let b = ((hit.end - from) as usize).clamp(a, shown.len());
        out.push(Line {
            start: hit.start,
            end: hit.end,
            doc,
            left: shown[..a].to_vec(),
            hit: shown[a..b].to_vec(),
            right: shown[b..].to_vec(),
        });
    }
    Ok(out)
}

fn shown<C: Columns>(
    index: &Index<C>,
    show: &[usize],
    range: std::ops::Range<u32>,
) -> Result<Vec<String>, ColumnError> {
    let columns: Vec<Vec<&str>> = show
        .iter()
        .map(|&a| index.values(a, range.clone()))
        .collect::<Result<_, _>>()?;
    let n = columns.first().map_or(0, Vec::len);
    Ok((0..n)
        .map(|i| columns.iter().map(|c| c[i]).collect::<Vec<_>>().join("/"))
        .collect())
}

/// Orders lines as asked.
pub fn sort(lines: &mut [Line], by: SortBy) {
    fn key(tokens: &[String]) -> Vec<String> {
        tokens.iter().map(|t| t.to_lowercase()).collect()
    }
    let tie = |a: &Line, b: &Line| (a.start, a.end).cmp(&(b.start, b.end));
    match by {
        SortBy::Position => lines.sort_by(tie),
        SortBy::Left => lines.sort_by_cached_key(|l| {
            let mut k = key(&l.left);
            k.reverse();
            (k, l.start, l.end)
        }),
        SortBy::Hit => lines.sort_by_cached_key(|l| (key(&l.hit), key(&l.right), l.start, l.end)),
        SortBy::Right => lines.sort_by_cached_key(|l| (key(&l.right), l.start, l.end)),
    }
}
