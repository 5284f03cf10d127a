//! `glaneur kwic`: the concordance of a CQL query, in corpus order or sorted, as text, TSV or
//! JSON, or the count of its hits and documents.
//!
//! **In:** a run or index folder, a query, the flags. **Out:** the lines on the writer, the
//! notice (hits, shown, time) on the other.
//!
//! **Invariants:** at most [`MAX_HELD_TOKENS`] tokens of lines are held at once (a sorted
//! concordance keeps the first `--limit` lines of its order while it reads every hit; `--sort
//! position --format tsv` writes each line as it is found and holds none); `--timeout` stops
//! the query with [`QueryStopped`]'s message.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use stages::explore::concord::{self, SortBy};
use stages::explore::index::Index;
use stages::explore::query::{Hit, Search};

#[cfg(doc)]
use super::QueryStopped;
use anyhow::bail;

use super::near::Hits;
use super::{
    CSV_BOM, MAX_HELD_TOKENS, attribute, csv_line, interrupt, parse, query_error, regions, tsv,
};
use super::{Format, KwicArgs, Sort};
use crate::index::corpus::{self, FileColumns};

/// `glaneur kwic`.
pub fn kwic(args: &KwicArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    // `--sentence` with the default context: room for a whole sentence.
    let sentence_args;
    let args = if args.sentence && args.context == 8 {
        sentence_args = KwicArgs {
            context: 200,
            ..args.clone()
        };
        &sentence_args
    } else {
        args
    };
    let parsed = parse(&args.query)?;
    let streams =
        args.sort == Sort::Position && args.format == Format::Tsv && args.sample.is_none();
    let mut needed = parsed.attributes();
    for filter in args.near.iter().chain(&args.not_near) {
        needed.extend(parse(filter)?.attributes());
    }
    if !args.count {
        needed.extend(args.show.iter().cloned());
        needed.extend(args.sort_by.iter().cloned());
    }
    // Document attributes: those `within <doc …/>` tests; shown lines read `id` and `url` apart.
    let doc_attrs: Vec<String> = parsed
        .within
        .iter()
        .flat_map(|w| w.attrs.iter().map(|t| t.attr.clone()))
        .collect();
    let index = corpus::open_with(
        &args.run,
        Some(&needed),
        Some(&regions(&parsed, args.sentence.then_some("s"))),
        Some(&doc_attrs),
    )?;
    let search = Search::with_interrupt(&index, &parsed, interrupt(args.timeout)?)
        .map_err(|e| query_error(e, args.timeout))?;
    let search = Hits::new(&index, &search, args)?;
    if args.count {
        return count_hits(&index, &search, args, out, notice, started);
    }
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
    let docs = DocNames::load(&args.run)?;
    if streams {
        writeln!(out, "doc\turl\tstart\tend\tleft\thit\tright")?;
        let mut shown = 0usize;
        let mut failed = None;
        let mut more = false;
        search.run(|hit| {
            if shown == args.limit {
                more = true;
                return false;
            }
            let written = concord::lines_within(&index, &[hit], &show, args.context, bound(args))
                .map_err(anyhow::Error::from)
                .and_then(|lines| lines.iter().try_for_each(|l| write_tsv_line(out, l, &docs)));
            shown += 1;
            match written {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let total = (!more).then_some(shown);
        return kwic_notice(notice, total, shown, args.limit, started);
    }
    let (hits, total) = match args.sample {
        Some(n) => sampled_hits(&search, args, n)?,
        None => kept_hits(&index, &search, args, &show, sort_attr)?,
    };
    let hits = ordered(&index, hits, args, &show, sort_attr)?;
    let lines = concord::lines_within(&index, &hits, &show, args.context, bound(args))?;
    write_lines(out, args, &lines, &docs, total)?;
    if args.sample.is_some() {
        writeln!(
            notice,
            "a random sample of {} of {} hits (seed {}: the same seed gives the same lines) \
             ({:.1} ms)",
            lines.len(),
            total.unwrap_or(0),
            args.seed,
            started.elapsed().as_secs_f64() * 1000.0
        )?;
        return Ok(());
    }
    kwic_notice(notice, total, lines.len(), args.limit, started)
}

/// `--sample N`: N hits drawn uniformly from all of them (reservoir sampling with the
/// SplitMix64 generator the seed queries use, written out in `stages`: a seed gives the same
/// sample on every machine and version), in corpus order.
fn sampled_hits(
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
fn bound(args: &KwicArgs) -> Option<&'static str> {
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
fn ordered(
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

/// `kwic --count`: hits and the documents that hold them.
fn count_hits(
    index: &Index<FileColumns>,
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
    started: Instant,
) -> anyhow::Result<()> {
    let mut hits = 0u64;
    let mut docs = 0u64;
    let mut last_doc = None;
    let text = index.region("text");
    // Hits come in corpus order: the document cursor only moves forward.
    let mut cursor = 0usize;
    search.run(|h| {
        hits += 1;
        let doc = text.and_then(|t| {
            while cursor < t.len() && t.ends[cursor] <= h.start {
                cursor += 1;
            }
            (cursor < t.len() && t.starts[cursor] <= h.start).then_some(cursor)
        });
        if doc != last_doc {
            docs += 1;
            last_doc = doc;
        }
        true
    })?;
    match args.format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::json!({"hits": hits, "documents": docs})
        )?,
        Format::Tsv => writeln!(out, "hits\tdocuments\n{hits}\t{docs}")?,
        Format::Csv => writeln!(out, "{CSV_BOM}hits,documents\n{hits},{docs}")?,
        Format::Text => writeln!(out, "{hits}")?,
    }
    writeln!(
        notice,
        "{hits} hits in {docs} documents ({:.1} ms)",
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// The hits whose lines are shown: the first `--limit` in corpus order, or the first `--limit`
/// of the asked order (only their sort keys held while every hit is read); the number of hits
/// when it is known.
fn kept_hits(
    index: &Index<FileColumns>,
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    show: &[usize],
    sort_attr: Option<usize>,
) -> anyhow::Result<(Vec<Hit>, Option<usize>)> {
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
    if args.sort == Sort::Position {
        let (hits, more) = search.first(args.limit.min(most))?;
        if more && args.limit > most {
            return Err(too_many());
        }
        let total = (!more).then_some(hits.len());
        return Ok((hits, total));
    }
    let by = sort_by(args.sort);
    let (key_attrs, key_context) = key_source(args, show, sort_attr);
    let mut overflow = false;
    let mut best: std::collections::BinaryHeap<(String, u32, u32)> =
        std::collections::BinaryHeap::new();
    let mut total = 0usize;
    let mut failed = None;
    search.run(|hit| {
        total += 1;
        if args.limit == 0 {
            return true;
        }
        match concord::lines_within(index, &[hit], &key_attrs, key_context, bound(args)) {
            Ok(lines) => {
                for l in &lines {
                    if best.len() == most && args.limit > most {
                        overflow = true;
                        return false;
                    }
                    let entry = (concord::sort_key(l, by), l.start, l.end);
                    if best.len() < args.limit {
                        best.push(entry);
                    } else if best.peek().is_some_and(|worst| entry < *worst) {
                        best.pop();
                        best.push(entry);
                    }
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

/// The documents' `id` and `url`, for the lines.
struct DocNames {
    ids: Option<corpus::RegionValues>,
    urls: Option<corpus::RegionValues>,
}

impl DocNames {
    fn load(run: &Path) -> anyhow::Result<DocNames> {
        Ok(DocNames {
            ids: corpus::RegionValues::load(run, "text", "id")?,
            urls: corpus::RegionValues::load(run, "text", "url")?,
        })
    }

    fn get(&self, line: &concord::Line, name: &str) -> String {
        let values = if name == "id" { &self.ids } else { &self.urls };
        match (values, line.doc) {
            (Some(v), Some(d)) => v.get(d).to_string(),
            // A document without an `id` is named by its number.
            (None, Some(d)) if name == "id" => (d + 1).to_string(),
            _ => String::new(),
        }
    }
}

fn write_tsv_line(out: &mut dyn Write, l: &concord::Line, docs: &DocNames) -> anyhow::Result<()> {
    writeln!(
        out,
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        tsv(&docs.get(l, "id")),
        tsv(&docs.get(l, "url")),
        l.start,
        l.end,
        tsv(&l.left.join(" ")),
        tsv(&l.hit.join(" ")),
        tsv(&l.right.join(" "))
    )?;
    Ok(())
}

fn write_lines(
    out: &mut dyn Write,
    args: &KwicArgs,
    lines: &[concord::Line],
    docs: &DocNames,
    total: Option<usize>,
) -> anyhow::Result<()> {
    match args.format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = lines
                .iter()
                .map(|l| {
                    serde_json::json!({
                        "doc": docs.get(l, "id"), "url": docs.get(l, "url"),
                        "start": l.start, "end": l.end,
                        "left": l.left, "hit": l.hit, "right": l.right,
                    })
                })
                .collect();
            let doc = serde_json::json!({
                "query": args.query, "hits": total, "shown": lines.len(),
                "truncated": total.is_none_or(|t| t > lines.len()), "lines": rows,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Tsv => {
            writeln!(out, "doc\turl\tstart\tend\tleft\thit\tright")?;
            for l in lines {
                write_tsv_line(out, l, docs)?;
            }
        }
        Format::Csv => {
            writeln!(
                out,
                "{CSV_BOM}{}",
                csv_line(&["doc", "url", "start", "end", "left", "hit", "right"])
            )?;
            for l in lines {
                let (start, end) = (l.start.to_string(), l.end.to_string());
                let (left, hit, right) = (l.left.join(" "), l.hit.join(" "), l.right.join(" "));
                let (id, url) = (docs.get(l, "id"), docs.get(l, "url"));
                writeln!(
                    out,
                    "{}",
                    csv_line(&[&id, &url, &start, &end, &left, &hit, &right])
                )?;
            }
        }
        Format::Text => {
            let width = lines
                .iter()
                .map(|l| l.left.join(" ").chars().count())
                .max()
                .unwrap_or(0);
            let id_width = lines
                .iter()
                .map(|l| docs.get(l, "id").chars().count())
                .max()
                .unwrap_or(0);
            for l in lines {
                let left = l.left.join(" ");
                let pad = width - left.chars().count();
                writeln!(
                    out,
                    "{:<id_width$}  {}{left} [{}] {}",
                    docs.get(l, "id"),
                    " ".repeat(pad),
                    l.hit.join(" "),
                    l.right.join(" ")
                )?;
            }
        }
    }
    Ok(())
}

fn kwic_notice(
    notice: &mut dyn Write,
    total: Option<usize>,
    shown: usize,
    limit: usize,
    started: Instant,
) -> anyhow::Result<()> {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match total {
        Some(t) if t > shown => writeln!(
            notice,
            "{t} hits, {shown} shown (--limit {limit}) ({ms:.1} ms)"
        )?,
        Some(t) => writeln!(notice, "{t} hits ({ms:.1} ms)")?,
        None => writeln!(
            notice,
            "the first {shown} hits shown; there are more (--limit to see more, --count for the total) ({ms:.1} ms)"
        )?,
    }
    Ok(())
}
