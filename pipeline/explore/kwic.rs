//! `glaneur kwic`: the concordance of a CQL query, in corpus order or sorted, as text, TSV,
//! CSV or JSON, or the count of its hits and documents; the lines are chosen by
//! `concordance.rs`, which the web interface calls too.
//!
//! **In:** a run or index folder, a query, the flags. **Out:** the lines on the writer, the
//! notice (hits, shown, time) on the other.
//!
//! **Invariants:** at most [`MAX_HELD_TOKENS`] tokens of lines are held at once (a sorted
//! concordance keeps the first `--limit` lines of its order while it reads every hit; `--sort
//! position --format tsv` writes each line as it is found and holds none); `--timeout` stops
//! the query with [`QueryStopped`]'s message.

use std::io::Write;
use std::time::Instant;

use stages::explore::concord;
use stages::explore::index::Index;
use stages::explore::query::Search;

#[cfg(doc)]
use super::{MAX_HELD_TOKENS, QueryStopped};

use super::concordance::{DocNames, KwicLine, bound, concordance, joined, open, sentence_context};
use super::near::Hits;
use super::{CSV_BOM, attribute, counted, csv_line, interrupt, parse, query_error, tsv};
use super::{Format, KwicArgs, Sort};
use crate::index::corpus::FileColumns;

/// `glaneur kwic`.
pub fn kwic(args: &KwicArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let widened = sentence_context(args);
    let args: &KwicArgs = &widened;
    let streams =
        args.sort == Sort::Position && args.format == Format::Tsv && args.sample.is_none();
    if args.count || streams {
        let index = open(args)?;
        let search = Search::with_interrupt(&index, &parse(&args.query)?, interrupt(args.timeout)?)
            .map_err(|e| query_error(e, args.timeout))?
            .with_strategy(args.strategy.into());
        let search = Hits::new(&index, &search, args)?;
        if args.count {
            return count_hits(&index, &search, args, out, notice, started);
        }
        return stream_tsv(&index, &search, args, out, notice, started);
    }
    // A sample shows all its lines from `--offset` (`--limit` is for the first hits).
    let paged;
    let args = match args.sample {
        Some(n) => {
            paged = KwicArgs {
                limit: n,
                ..args.clone()
            };
            &paged
        }
        None => args,
    };
    let found = concordance(args, false)?;
    write_lines(out, args, &found.lines, found.total)?;
    let shown = found.lines.len();
    if args.sample.is_some() {
        writeln!(
            notice,
            "a random sample of {shown} of {} (seed {}: the same seed gives the same lines) \
             ({:.1} ms)",
            counted(found.total.unwrap_or(0) as u64, "hit", "hits"),
            args.seed,
            started.elapsed().as_secs_f64() * 1000.0
        )?;
        return Ok(());
    }
    kwic_notice(notice, found.total, shown, args, started)
}

/// `--sort position --format tsv`: each line written as it is found, none held.
fn stream_tsv(
    index: &Index<FileColumns>,
    search: &Hits<'_, '_>,
    args: &KwicArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
    started: Instant,
) -> anyhow::Result<()> {
    let show: Vec<usize> = args
        .show
        .iter()
        .map(|s| attribute(index, s))
        .collect::<anyhow::Result<_>>()?;
    let docs = DocNames::load(&args.run)?;
    writeln!(out, "doc\turl\tstart\tend\tleft\thit\tright")?;
    let (mut seen, mut shown) = (0usize, 0usize);
    let mut failed = None;
    let mut more = false;
    search.run(|hit| {
        if shown == args.limit {
            more = true;
            return false;
        }
        seen += 1;
        if seen <= args.offset {
            return true;
        }
        let written = concord::lines_within(index, &[hit], &show, args.context, bound(args))
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
    let total = (!more).then_some(seen);
    kwic_notice(notice, total, shown, args, started)
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
        "{} in {} ({:.1} ms)",
        counted(hits, "hit", "hits"),
        counted(docs, "document", "documents"),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// One line of `kwic --format tsv` from its fields: doc, url, start, end, left, hit, right.
fn write_tsv_fields(out: &mut dyn Write, fields: [&str; 7]) -> anyhow::Result<()> {
    let fields: Vec<String> = fields.iter().map(|f| tsv(f)).collect();
    writeln!(out, "{}", fields.join("\t"))?;
    Ok(())
}

fn write_tsv_line(out: &mut dyn Write, l: &concord::Line, docs: &DocNames) -> anyhow::Result<()> {
    let (start, end) = (l.start.to_string(), l.end.to_string());
    write_tsv_fields(
        out,
        [
            &docs.get(l, "id"),
            &docs.get(l, "url"),
            &start,
            &end,
            &l.left.join(" "),
            &l.hit.join(" "),
            &l.right.join(" "),
        ],
    )
}

fn write_lines(
    out: &mut dyn Write,
    args: &KwicArgs,
    lines: &[KwicLine],
    total: Option<usize>,
) -> anyhow::Result<()> {
    let text = |tokens: &[super::concordance::Token]| joined(tokens).join(" ");
    match args.format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = lines
                .iter()
                .map(|l| {
                    serde_json::json!({
                        "doc": l.doc, "url": l.url,
                        "start": l.start, "end": l.end,
                        "left": joined(&l.left), "hit": joined(&l.hit), "right": joined(&l.right),
                    })
                })
                .collect();
            let doc = serde_json::json!({
                "query": args.query, "hits": total, "shown": lines.len(),
                "truncated": total.is_none_or(|t| t > lines.len()), "lines": rows,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Tsv | Format::Csv => {
            let csv = args.format == Format::Csv;
            let header = ["doc", "url", "start", "end", "left", "hit", "right"];
            if csv {
                writeln!(out, "{CSV_BOM}{}", csv_line(&header))?;
            } else {
                writeln!(out, "{}", header.join("\t"))?;
            }
            for l in lines {
                let (start, end) = (l.start.to_string(), l.end.to_string());
                let (left, hit, right) = (text(&l.left), text(&l.hit), text(&l.right));
                let fields =
                    [&l.doc, &l.url, &start, &end, &left, &hit, &right].map(String::as_str);
                if csv {
                    writeln!(out, "{}", csv_line(&fields))?;
                } else {
                    write_tsv_fields(out, fields)?;
                }
            }
        }
        Format::Text => {
            let width = lines
                .iter()
                .map(|l| text(&l.left).chars().count())
                .max()
                .unwrap_or(0);
            let id_width = lines
                .iter()
                .map(|l| l.doc.chars().count())
                .max()
                .unwrap_or(0);
            for l in lines {
                let left = text(&l.left);
                let pad = width - left.chars().count();
                writeln!(
                    out,
                    "{:<id_width$}  {}{left} [{}] {}",
                    l.doc,
                    " ".repeat(pad),
                    text(&l.hit),
                    text(&l.right)
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
    args: &KwicArgs,
    started: Instant,
) -> anyhow::Result<()> {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let limit = args.limit;
    let from = args.offset.saturating_add(1);
    let to = args.offset.saturating_add(shown);
    match total {
        Some(t) if args.offset > 0 => writeln!(
            notice,
            "{}, lines {from}–{to} shown (--offset {}, --limit {limit}) ({ms:.1} ms)",
            counted(t as u64, "hit", "hits"),
            args.offset
        )?,
        Some(t) if t > shown => writeln!(
            notice,
            "{}, {shown} shown (--limit {limit}) ({ms:.1} ms)",
            counted(t as u64, "hit", "hits")
        )?,
        Some(t) => writeln!(notice, "{} ({ms:.1} ms)", counted(t as u64, "hit", "hits"))?,
        None => writeln!(
            notice,
            "lines {from}–{to} shown; there are more (--limit or --offset to see more, --count for the total) ({ms:.1} ms)"
        )?,
    }
    Ok(())
}
