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
    /// By one token: `-k` the k-th before the hit (L k), `k` the k-th after it (R k); a line
    /// without that token (the document ends) comes first.
    At(i32),
}

/// The lines of `hits`, tokens shown as the values of `show` joined by `/`.
pub fn lines<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    show: &[usize],
    context: u32,
) -> Result<Vec<Line>, ColumnError> {
    lines_within(index, hits, show, context, None)
}

/// [`lines`] whose context also stops at the ends of the hit's region of kind `bound` (its
/// sentence, with `s`): the per-sentence view of a concordance.
pub fn lines_within<C: Columns>(
    index: &Index<C>,
    hits: &[Hit],
    show: &[usize],
    context: u32,
    bound: Option<&str>,
) -> Result<Vec<Line>, ColumnError> {
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        let (doc, lo, hi) = line_bounds(index, *hit, bound);
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

/// The document of a hit, and the positions its line's context may span: its document, and
/// its region of kind `bound` (its sentence, with `s`) when asked.
pub fn line_bounds<C: Columns>(
    index: &Index<C>,
    hit: Hit,
    bound: Option<&str>,
) -> (Option<usize>, u32, u32) {
    let text = index.region("text");
    let doc = text.and_then(|t| t.find(hit.start));
    let (mut lo, mut hi) = match (text, doc) {
        (Some(t), Some(d)) => (t.starts[d], t.ends[d]),
        _ => (0, index.n_tokens),
    };
    if let Some((b, i)) = bound
        .and_then(|b| index.region(b))
        .and_then(|b| b.find(hit.start).map(|i| (b, i)))
    {
        lo = lo.max(b.starts[i]);
        hi = hi.min(b.ends[i]);
    }
    (doc, lo, hi)
}

/// The position of the token a [`SortBy::At`]`(k)` key reads for `hit` (the k-th before it
/// for `k < 0`, after it for `k > 0`), if it lies within `lo..hi`.
pub fn at_position(hit: Hit, k: i32, lo: u32, hi: u32) -> Option<u32> {
    let p = if k < 0 {
        hit.start.checked_sub(k.unsigned_abs())?
    } else {
        hit.end
            .checked_add(u32::try_from(k).ok()?.checked_sub(1)?)?
    };
    (lo <= p && p < hi).then_some(p)
}

/// The key [`sort_key`] gives a line sorted by one token of value `token`.
pub fn token_key(token: &str) -> String {
    let mut key = String::new();
    push_token(&mut key, token);
    key
}

/// One token of a key: U+0001, then the token lower-cased, its U+0000 and U+0001 read as
/// U+0002 (the key's separators).
fn push_token(key: &mut String, token: &str) {
    key.push('\u{1}');
    key.extend(
        token
            .to_lowercase()
            .chars()
            .map(|c| if c < '\u{2}' { '\u{2}' } else { c }),
    );
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

/// The key lines are ordered by, as one string: the lower-cased tokens that `by` compares,
/// nearest first for the left context, joined so that comparing two keys compares the token
/// lists one token after the other (a list that is the start of another comes first).
/// [`SortBy::Position`] has an empty key (lines are ordered by position alone). A token's
/// U+0000 and U+0001 are compared as U+0002.
pub fn sort_key(line: &Line, by: SortBy) -> String {
    // Each token starts with U+0001 (so an empty list sorts before a list of one empty token),
    // and the hit's tokens end with U+0000, which sorts below it: `(hit, right)` is compared
    // as a pair.
    fn push(key: &mut String, tokens: &mut dyn Iterator<Item = &String>) {
        for t in tokens {
            push_token(key, t);
        }
    }
    let mut key = String::new();
    match by {
        SortBy::Position => {}
        SortBy::Left => push(&mut key, &mut line.left.iter().rev()),
        SortBy::Hit => {
            push(&mut key, &mut line.hit.iter());
            key.push('\u{0}');
            push(&mut key, &mut line.right.iter());
        }
        SortBy::Right => push(&mut key, &mut line.right.iter()),
        SortBy::At(k) => {
            let token = if k < 0 {
                let back = k.unsigned_abs() as usize;
                line.left
                    .len()
                    .checked_sub(back)
                    .and_then(|i| line.left.get(i))
            } else {
                usize::try_from(k)
                    .ok()
                    .and_then(|k| k.checked_sub(1))
                    .and_then(|i| line.right.get(i))
            };
            push(&mut key, &mut token.into_iter());
        }
    }
    key
}

/// Orders lines as asked.
pub fn sort(lines: &mut [Line], by: SortBy) {
    lines.sort_by_cached_key(|l| (sort_key(l, by), l.start, l.end));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(start: u32, left: &[&str], hit: &[&str], right: &[&str]) -> Line {
        let v = |t: &[&str]| t.iter().map(|s| (*s).to_string()).collect();
        Line {
            start,
            end: start + hit.len() as u32,
            doc: None,
            left: v(left),
            hit: v(hit),
            right: v(right),
        }
    }

    /// The order the keys must give: token lists compared as lists, lower-cased.
    fn by_lists(lines: &mut [Line], by: SortBy) {
        let low = |t: &[String]| t.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        match by {
            SortBy::Position => lines.sort_by_key(|l| (l.start, l.end)),
            SortBy::Left => lines.sort_by_key(|l| {
                let mut k = low(&l.left);
                k.reverse();
                (k, l.start, l.end)
            }),
            SortBy::Hit => lines.sort_by_key(|l| (low(&l.hit), low(&l.right), l.start, l.end)),
            SortBy::Right => lines.sort_by_key(|l| (low(&l.right), l.start, l.end)),
            SortBy::At(k) => lines.sort_by_key(|l| {
                let token = if k < 0 {
                    (l.left.len() as i32 + k)
                        .try_into()
                        .ok()
                        .and_then(|i: usize| l.left.get(i))
                } else {
                    l.right.get(k as usize - 1)
                };
                (
                    token.map(|t| vec![t.to_lowercase()]).unwrap_or_default(),
                    l.start,
                    l.end,
                )
            }),
        }
    }

    #[test]
    fn one_string_key_orders_lines_as_their_token_lists() {
        let words = ["a", "ab", "B", "b", "à", "", "a b", "Z", "zz", "é"];
        let mut lines = Vec::new();
        let mut n = 7u32;
        for i in 0..300u32 {
            // A small deterministic mix of lengths and words.
            let mut take = |len: u32| -> Vec<&str> {
                (0..len)
                    .map(|_| {
                        n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        words[(n >> 8) as usize % words.len()]
                    })
                    .collect()
            };
            let (l, h, r) = (take(i % 3), take(1 + i % 2), take((i / 3) % 3));
            lines.push(line(i * 10, &l, &h, &r));
        }
        for by in [
            SortBy::Position,
            SortBy::Left,
            SortBy::Hit,
            SortBy::Right,
            SortBy::At(-1),
            SortBy::At(-2),
            SortBy::At(1),
            SortBy::At(3),
        ] {
            let mut want = lines.clone();
            by_lists(&mut want, by);
            let mut got = lines.clone();
            sort(&mut got, by);
            assert_eq!(got, want, "{by:?}");
        }
    }
}
