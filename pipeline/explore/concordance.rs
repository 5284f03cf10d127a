//! A concordance as data: the lines `glaneur kwic` prints and `glaneur serve` shows as a table,
//! each token with the values of every shown attribute, and one hit's wider context.
//!
//! **In:** the flags of `glaneur kwic` ([`KwicArgs`]: query, filters, order, sample, page by
//! `--offset`/`--limit`, `--sentence`); a position in the corpus.
//!
//! **Out:** [`Concordance`]: the lines of the page asked, the number of hits (always, when asked
//! to count them all), the attributes shown.
//!
//! **Invariants:** the hits, their order and their sample are those of `glaneur kwic` (the same
//! functions choose them); at most `--offset` + `--limit` lines' keys and at most `--limit`
//! lines are held (a sample holds its hits); `--timeout` stops the query with
//! [`super::QueryStopped`]'s message; nothing panics on a position past the corpus.

use std::path::Path;

use anyhow::bail;
use stages::explore::concord::{self, SortBy};
use stages::explore::index::{Columns, Index};
use stages::explore::query::{Hit, Search};

use super::near::Hits;
use super::{KwicArgs, MAX_HELD_TOKENS, Sort, attribute, interrupt, parse, query_error, regions};
use crate::index::corpus::{self, FileColumns};

/// One token: the values of the shown attributes, in their order.
pub type Token = Vec<String>;

/// One concordance line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KwicLine {
    /// The document's `id` (its number when it has none).
    pub doc: String,
    /// The document's URL ("" when unknown).
    pub url: String,
    /// First token of the hit.
    pub start: u32,
    /// One past its last token.
    pub end: u32,
    /// Tokens before the hit, in text order.
    pub left: Vec<Token>,
    /// The hit's tokens.
    pub hit: Vec<Token>,
    /// Tokens after the hit.
    pub right: Vec<Token>,
}

/// `tokens` as `glaneur kwic` prints them: attributes joined by `/`, tokens by a space.
pub fn joined(tokens: &[Token]) -> Vec<String> {
    tokens.iter().map(|t| t.join("/")).collect()
}

/// The lines of one page of a concordance.
#[derive(Debug, Clone)]
pub struct Concordance {
    /// The attributes each token shows (`--show`).
    pub attributes: Vec<String>,
    /// The lines from `--offset`, at most `--limit`.
    pub lines: Vec<KwicLine>,
    /// The number of hits (after the filters), when known: always for a sorted concordance or
    /// a sample, and in corpus order when every hit was counted or there were no more.
    pub total: Option<usize>,
}

/// The page of the concordance `args` asks for; `count_all` reads every hit in corpus order
/// too, so that [`Concordance::total`] is known.
pub fn concordance(args: &KwicArgs, count_all: bool) -> anyhow::Result<Concordance> {
    let widened = sentence_context(args);
    let args: &KwicArgs = &widened;
    let index = open(args)?;
    let parsed = parse(&args.query)?;
    let search = Search::with_interrupt(&index, &parsed, interrupt(args.timeout)?)
        .map_err(|e| query_error(e, args.timeout))?
        .with_strategy(args.strategy.into());
    let search = Hits::new(&index, &search, args)?;
    let show: Vec<usize> = args
        .show
        .iter()
        .map(|s| attribute(&index, s))
        .collect::<anyhow::Result<_>>()?;
    let sort_attr = args
        .sort_by
        .as_deref()
        .map(|a| attribute(&index, a))
        .transpose()?;
    // A sample is drawn in corpus order and sorted here; the kept hits come in their order.
    let (hits, total) = match args.sample {
        Some(n) => {
            let (drawn, total) = sampled_hits(&search, args, n)?;
            (ordered(&index, drawn, args, &show, sort_attr)?, total)
        }
        None => kept_hits(&index, &search, args, &show, sort_attr, count_all)?,
    };
    let hits: Vec<Hit> = hits
        .into_iter()
        .skip(args.offset)
        .take(args.limit)
        .collect();
    let docs = DocNames::load(&args.run)?;
    Ok(Concordance {
        attributes: args.show.clone(),
        lines: lines(&index, &hits, &show, args.context, bound(args), &docs)?,
        total,
    })
}

/// The index a concordance reads: the attributes of the query, its filters, what is shown and
/// sorted by; the regions of its `within`, and sentences for `--sentence`.
pub(super) fn open(args: &KwicArgs) -> anyhow::Result<Index<FileColumns>> {
    let parsed = parse(&args.query)?;
    let mut needed = parsed.attributes();
    for filter in args.near.iter().chain(&args.not_near) {
        needed.extend(parse(filter)?.attributes());
    }
    if !args.count {
        needed.extend(args.show.iter().cloned());
        needed.extend(args.sort_by.iter().cloned());
    }
    // Region attributes: those the query tests (`within <doc host=…/>`, `<text host=…>`,
    // `:: match.text_host = …`); shown lines read `id` and `url` apart.
    let doc_attrs = parsed.region_attributes();
    corpus::open_with(
        &args.run,
        Some(&needed),
        Some(&regions(&parsed, args.sentence.then_some("s"))),
        Some(&doc_attrs),
    )
}

/// The lines of `hits`, each token with the values of every attribute of `show`.
fn lines(
    index: &Index<FileColumns>,
    hits: &[Hit],
    show: &[usize],
    context: u32,
    bound: Option<&str>,
    docs: &DocNames,
) -> anyhow::Result<Vec<KwicLine>> {
    // One pass per attribute: the same positions, so the same number of tokens in each.
    let per_attr: Vec<Vec<concord::Line>> = show
        .iter()
        .map(|&a| concord::lines_within(index, hits, &[a], context, bound))
        .collect::<Result<_, _>>()?;
    let Some(first) = per_attr.first() else {
        bail!("no attribute to show");
    };
    let tokens = |i: usize, part: fn(&concord::Line) -> &Vec<String>| -> Vec<Token> {
        let n = part(&first[i]).len();
        (0..n)
            .map(|j| {
                per_attr
                    .iter()
                    .map(|lines| {
                        lines
                            .get(i)
                            .and_then(|l| part(l).get(j))
                            .cloned()
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect()
    };
    Ok(first
        .iter()
        .enumerate()
        .map(|(i, l)| KwicLine {
            doc: docs.get(l, "id"),
            url: docs.get(l, "url"),
            start: l.start,
            end: l.end,
            left: tokens(i, |l| &l.left),
            hit: tokens(i, |l| &l.hit),
            right: tokens(i, |l| &l.right),
        })
        .collect())
}

/// The tokens `start..end` with `width` tokens on each side, inside their document (the wider
/// context of a hit), each with the values of `show`.
pub fn context_at(
    run: &Path,
    start: u32,
    end: u32,
    width: u32,
    show: &[String],
) -> anyhow::Result<KwicLine> {
    let index = corpus::open_with(run, Some(show), Some(&["text".to_string()]), Some(&[]))?;
    if start >= end || end > index.n_tokens {
        bail!(
            "no tokens {start}..{end} in this corpus (it has {} tokens)",
            index.n_tokens
        );
    }
    let show: Vec<usize> = show
        .iter()
        .map(|s| attribute(&index, s))
        .collect::<anyhow::Result<_>>()?;
    let docs = DocNames::load(run)?;
    let mut found = lines(&index, &[Hit { start, end }], &show, width, None, &docs)?;
    found
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no tokens {start}..{end} in this corpus"))
}

/// `--sentence` with the default context: room for a whole sentence (200 tokens).
pub(super) fn sentence_context(args: &KwicArgs) -> std::borrow::Cow<'_, KwicArgs> {
    if args.sentence && args.context == 8 {
        std::borrow::Cow::Owned(KwicArgs {
            context: 200,
            ..args.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(args)
    }
}

/// `--sample N`: N hits drawn uniformly from all of them (reservoir sampling with the
/// SplitMix64 generator the seed queries use, written out in `stages`: a seed gives the same
/// sample on every machine and version), in corpus order.
pub(super) fn sampled_hits(
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    n: usize,
) -> anyhow::Result<(Vec<Hit>, Option<usize>)> {
    let most =
        usize::try_from(MAX_HELD_TOKENS / (2 * u64::from(args.context) + 1)).unwrap_or(usize::MAX);
    if n > most {
        bail!(
            "--sample {n}: at most {most} lines of {} tokens each are held at once: ask fewer \
             or lower --context",
            2 * args.context + 1
        );
    }
    let mut rng = stages::seeds::queries::SplitMix64::new(args.seed);
    let mut sample: Vec<Hit> = Vec::with_capacity(n.min(1 << 20));
    let mut seen = 0u64;
    search.run(|hit| {
        if sample.len() < n {
            sample.push(hit);
        } else if let Some(slot) = usize::try_from(rng.below(seen + 1))
            .ok()
            .and_then(|j| sample.get_mut(j))
        {
            *slot = hit;
        }
        seen += 1;
        true
    })?;
    sample.sort_unstable();
    Ok((sample, usize::try_from(seen).ok()))
}

/// The region a line's context stays in besides its document: the sentence with `--sentence`.
pub(super) fn bound(args: &KwicArgs) -> Option<&'static str> {
    args.sentence.then_some("s")
}

fn sort_by(sort: Sort) -> SortBy {
    match sort {
        Sort::Position => SortBy::Position,
        Sort::Left => SortBy::Left,
        Sort::Hit => SortBy::Hit,
        Sort::Right => SortBy::Right,
        Sort::At(k) => SortBy::At(k),
    }
}

/// What sort keys are read from: the `--sort-by` attribute (else the shown ones), over enough
/// context to hold the token `L k` or `R k` names.
fn key_source(args: &KwicArgs, show: &[usize], sort_attr: Option<usize>) -> (Vec<usize>, u32) {
    let attrs = sort_attr.map_or_else(|| show.to_vec(), |a| vec![a]);
    let context = match args.sort {
        Sort::At(k) => args.context.max(k.unsigned_abs()),
        _ => args.context,
    };
    (attrs, context)
}

/// `hits` in the order asked (keys read as [`key_source`] says; ties in corpus order).
pub(super) fn ordered(
    index: &Index<FileColumns>,
    hits: Vec<Hit>,
    args: &KwicArgs,
    show: &[usize],
    sort_attr: Option<usize>,
) -> anyhow::Result<Vec<Hit>> {
    if args.sort == Sort::Position {
        return Ok(hits);
    }
    let (attrs, context) = key_source(args, show, sort_attr);
    let mut keyed: Vec<(String, u32, u32)> =
        concord::lines_within(index, &hits, &attrs, context, bound(args))?
            .iter()
            .map(|l| (concord::sort_key(l, sort_by(args.sort)), l.start, l.end))
            .collect();
    keyed.sort();
    Ok(keyed
        .into_iter()
        .map(|(_, start, end)| Hit { start, end })
        .collect())
}

/// The hits whose lines are shown, with the `--offset` lines before them: the first
/// `--offset` + `--limit` in corpus order, or of the asked order (only their sort keys held
/// while every hit is read); the number of hits when it is known (in corpus order, when
/// `count_all` reads every hit, or when there are no more).
pub(super) fn kept_hits(
    index: &Index<FileColumns>,
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    show: &[usize],
    sort_attr: Option<usize>,
    count_all: bool,
) -> anyhow::Result<(Vec<Hit>, Option<usize>)> {
    let wanted = args.offset.saturating_add(args.limit);
    // Lines held at once: `--limit` of them, unless their tokens would pass the bound.
    let most =
        usize::try_from(MAX_HELD_TOKENS / (2 * u64::from(args.context) + 1)).unwrap_or(usize::MAX);
    let too_many = || {
        anyhow::anyhow!(
            "more than {most} lines of {} tokens each to hold in memory at once (at most \
             {MAX_HELD_TOKENS} tokens): lower --limit (or --context), or write every line with \
             --sort position --format tsv, which holds none",
            2 * args.context + 1
        )
    };
    if args.sort == Sort::Position && count_all {
        let (mut hits, mut total) = (Vec::new(), 0usize);
        search.run(|hit| {
            total += 1;
            if hits.len() < wanted.min(most) {
                hits.push(hit);
            }
            true
        })?;
        if total > hits.len() && wanted > most {
            return Err(too_many());
        }
        return Ok((hits, Some(total)));
    }
    if args.sort == Sort::Position {
        let (hits, more) = search.first(wanted.min(most))?;
        if more && wanted > most {
            return Err(too_many());
        }
        let total = (!more).then_some(hits.len());
        return Ok((hits, total));
    }
    let by = sort_by(args.sort);
    let (key_attrs, key_context) = key_source(args, show, sort_attr);
    if let (Sort::At(k), [attr]) = (args.sort, key_attrs.as_slice()) {
        return kept_by_token(index, search, args, *attr, k, most);
    }
    let mut overflow = false;
    let mut best: std::collections::BinaryHeap<(String, u32, u32)> =
        std::collections::BinaryHeap::new();
    let mut total = 0usize;
    let mut failed = None;
    search.run(|hit| {
        total += 1;
        if wanted == 0 {
            return true;
        }
        match concord::lines_within(index, &[hit], &key_attrs, key_context, bound(args)) {
            Ok(lines) => {
                for l in &lines {
                    if best.len() == most && wanted > most {
                        overflow = true;
                        return false;
                    }
                    keep_best(
                        &mut best,
                        (concord::sort_key(l, by), l.start, l.end),
                        wanted,
                    );
                }
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    if overflow {
        return Err(too_many());
    }
    let hits = best
        .into_sorted_vec()
        .into_iter()
        .map(|(_, start, end)| Hit { start, end })
        .collect();
    Ok((hits, Some(total)))
}

/// Keeps `entry` among the `wanted` smallest of `best` (a max-heap: its top is the worst kept).
fn keep_best<K: Ord>(best: &mut std::collections::BinaryHeap<K>, entry: K, wanted: usize) {
    if best.len() < wanted {
        best.push(entry);
    } else if best.peek().is_some_and(|worst| entry < *worst) {
        best.pop();
        best.push(entry);
    }
}

/// [`kept_hits`] sorted by one token (`L1`…, `R1`…) of one attribute: each hit's key is the
/// value at that position, read alone (not its line), and made once per distinct value.
fn kept_by_token(
    index: &Index<FileColumns>,
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    attr: usize,
    k: i32,
    most: usize,
) -> anyhow::Result<(Vec<Hit>, Option<usize>)> {
    use std::rc::Rc;
    let wanted = args.offset.saturating_add(args.limit);
    let lexicon = &index.attributes[attr].lexicon;
    let mut keys: std::collections::HashMap<u32, Rc<str>> = std::collections::HashMap::new();
    let absent: Rc<str> = Rc::from("");
    let mut best: std::collections::BinaryHeap<(Rc<str>, u32, u32)> =
        std::collections::BinaryHeap::new();
    let (mut total, mut overflow, mut failed) = (0usize, false, None);
    let mut id = [0u32];
    search.run(|hit| {
        total += 1;
        if wanted == 0 {
            return true;
        }
        let (_, lo, hi) = concord::line_bounds(index, hit, bound(args));
        let key = match concord::at_position(hit, k, lo, hi) {
            None => absent.clone(),
            Some(p) => {
                if let Err(e) = index.columns.ids(attr, p, &mut id) {
                    failed = Some(e);
                    return false;
                }
                let made = || Rc::from(concord::token_key(lexicon.get(id[0])));
                keys.entry(id[0]).or_insert_with(made).clone()
            }
        };
        if best.len() == most && wanted > most {
            overflow = true;
            return false;
        }
        keep_best(&mut best, (key, hit.start, hit.end), wanted);
        true
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    if overflow {
        anyhow::bail!(
            "more than {most} lines to hold in memory at once: lower --limit (or --context)"
        );
    }
    let hits = best
        .into_sorted_vec()
        .into_iter()
        .map(|(_, start, end)| Hit { start, end })
        .collect();
    Ok((hits, Some(total)))
}

/// The documents' `id` and `url`, for the lines.
pub(super) struct DocNames {
    ids: Option<corpus::RegionValues>,
    urls: Option<corpus::RegionValues>,
}

impl DocNames {
    pub(super) fn load(run: &Path) -> anyhow::Result<DocNames> {
        Ok(DocNames {
            ids: corpus::RegionValues::load(run, "text", "id")?,
            urls: corpus::RegionValues::load(run, "text", "url")?,
        })
    }

    pub(super) fn get(&self, line: &concord::Line, name: &str) -> String {
        let values = if name == "id" { &self.ids } else { &self.urls };
        match (values, line.doc) {
            (Some(v), Some(d)) => v.get(d).to_string(),
            // A document without an `id` is named by its number.
            (None, Some(d)) if name == "id" => (d + 1).to_string(),
            _ => String::new(),
        }
    }
}
