//! `glaneur freq`, `colloc` and `keywords`: frequency lists and their breakdowns, collocations
//! and keywords, with the filters that make them readable (a token pattern, a stop list, words
//! only, least frequencies on both sides).
//!
//! **In:** a run or index folder, flags. **Out:** rows on the writer (text, TSV, JSON), a notice
//! with the counts behind them.
//!
//! **Invariants:** a list cut by `--limit` or a filter says so in the notice; every name the
//! index lacks (attribute, document attribute, region) is an error that lists what exists.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use rustc_hash::FxHashMap;
use stages::explore::breakdown::{self, MAX_OFFSET, Position};
use stages::explore::stats;

use super::filters::Keep;

use super::{
    CollocArgs, FreqArgs, KeywordsArgs, attribute, counted, needed, parse, query_error, regions,
    search, write_rows,
};
use crate::index::corpus;

/// `glaneur freq`.
pub fn freq(args: &FreqArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let (attributes, document_attributes) = corpus::names(&args.run)?;
    if attributes.contains(&args.by) {
        if let Some(n) = args.ngram {
            return ngram_freq(args, usize::from(n), out, notice);
        }
        return token_freq(args, out, notice);
    }
    if args.ngram.is_some() {
        bail!(
            "--ngram counts a token attribute ({}), not `{}`",
            attributes.join(", "),
            args.by
        );
    }
    if document_attributes.contains(&args.by) {
        return document_freq(args, out, notice);
    }
    bail!(
        "no attribute `{}` in this corpus: its tokens have {}, its documents {}{}",
        args.by,
        attributes.join(", "),
        document_attributes.join(", "),
        if args.by == "lemma" || args.by == "pos" {
            "; lemmas and parts of speech come from a tagger: docs/guide/text.md"
        } else {
            ""
        }
    )
}

/// `freq --by` a token attribute: the corpus's list, or the hits' values at a position.
fn token_freq(args: &FreqArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let keep = Keep::new(&args.filters)?;
    let at = Position::parse(&args.at).with_context(|| {
        format!(
            "--at {}: a position is node, L1…L{MAX_OFFSET} or R1…R{MAX_OFFSET}",
            args.at
        )
    })?;
    if args.dispersion && args.query.is_some() {
        bail!("--dispersion lists a whole attribute: leave --query out");
    }
    let query_regions = match &args.query {
        Some(q) => regions(&parse(q)?, None),
        None => vec!["text".to_string()],
    };
    let index = corpus::open_attributes(
        &args.run,
        Some(&needed(args.query.as_deref(), &[&args.by])?),
        Some(&query_regions),
    )?;
    let attr = attribute(&index, &args.by)?;
    let mut outside = 0;
    let (rows, total) = match &args.query {
        Some(q) => {
            let (hits, _) = search(&index, q, args.timeout)?
                .with_strategy(args.strategy.into())
                .hits(usize::MAX)
                .map_err(|e| query_error(e, args.timeout))?;
            let n = hits.len() as u64;
            let (rows, out) = breakdown::at_position(&index, &hits, attr, at)?;
            outside = out;
            (rows, n)
        }
        None => (stats::frequencies(&index, attr), u64::from(index.n_tokens)),
    };
    let dispersion = if args.dispersion {
        Some(breakdown::dispersion(&index, attr)?)
    } else {
        None
    };
    let lexicon = &index.attributes[attr].lexicon;
    let listed: Vec<&(String, u64)> = rows.iter().filter(|(v, _)| keep.keeps(v)).collect();
    let per_million = 1e6 / f64::from(index.n_tokens.max(1));
    let table = ranked(&listed, args.limit, |(v, f)| {
        let mut row = vec![
            v.clone(),
            f.to_string(),
            format!("{:.2}", *f as f64 * per_million),
        ];
        if let Some(d) = lexicon
            .find(v)
            .and_then(|id| dispersion.as_ref()?.get(id as usize))
        {
            row.extend([
                format!("{:.3}", d.dp),
                format!("{:.1}", d.arf),
                format!("{:.3}", d.juilland_d),
            ]);
        }
        row
    });
    let mut header = vec!["rank", "value", "frequency", "per_million"];
    if dispersion.is_some() {
        header.extend(["dp", "arf", "juilland_d"]);
    }
    write_rows(out, args.format, &header, &table)?;
    let position = match at {
        Position::Node => String::new(),
        _ if args.query.is_some() => format!(
            " at {} ({} with no token there in their document)",
            args.at.to_uppercase(),
            counted(outside, "hit", "hits")
        ),
        _ => String::new(),
    };
    writeln!(
        notice,
        "{} distinct values of {}{position} over {total} {}{}, {} shown ({:.1} ms)",
        listed.len(),
        args.by,
        if args.query.is_some() {
            "hits"
        } else {
            "tokens"
        },
        keep.describe(),
        table.len(),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// `freq --ngram N`: the attribute's n-grams inside sentences.
fn ngram_freq(
    args: &FreqArgs,
    n: usize,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = Instant::now();
    if args.query.is_some() || args.dispersion || args.at != "node" {
        bail!("--ngram counts the whole corpus: leave --query, --at and --dispersion out");
    }
    let keep = Keep::new(&args.filters)?;
    let index = corpus::open_attributes(&args.run, Some(std::slice::from_ref(&args.by)), None)?;
    let attr = attribute(&index, &args.by)?;
    let within = if index.region("s").is_some() {
        "s"
    } else {
        "text"
    };
    let rows = breakdown::ngrams(&index, attr, n, within)?;
    let lexicon = &index.attributes[attr].lexicon;
    let mut listed = 0usize;
    let mut table: Vec<Vec<String>> = Vec::new();
    for &(key, f) in &rows.rows {
        let ids = rows.ids(key);
        let words: Vec<&str> = ids.iter().map(|&id| lexicon.get(id)).collect();
        if !keep.keeps_ngram(&words) {
            continue;
        }
        listed += 1;
        if table.len() < args.limit {
            table.push(vec![
                listed.to_string(),
                words.join(" "),
                f.to_string(),
                format!("{:.2}", f as f64 * 1e6 / f64::from(index.n_tokens.max(1))),
            ]);
        }
    }
    write_rows(
        out,
        args.format,
        &["rank", "value", "frequency", "per_million"],
        &table,
    )?;
    writeln!(
        notice,
        "{listed} distinct {n}-grams of {} inside {}{}, {} shown ({:.1} ms)",
        args.by,
        if within == "s" {
            "sentences"
        } else {
            "documents"
        },
        keep.describe(),
        table.len(),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// `freq --by` a document attribute: tokens (or hits) per value, with the documents.
fn document_freq(
    args: &FreqArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = Instant::now();
    if args.dispersion {
        bail!("--dispersion is for a token attribute (word, lc, lemma, pos)");
    }
    let keep = Keep::new(&args.filters)?;
    let query_regions = match &args.query {
        Some(q) => regions(&parse(q)?, None),
        None => vec!["text".to_string()],
    };
    let index = corpus::open_attributes(
        &args.run,
        Some(&needed(args.query.as_deref(), &[])?),
        Some(&query_regions),
    )?;
    let hits = match &args.query {
        Some(q) => Some(
            search(&index, q, args.timeout)?
                .with_strategy(args.strategy.into())
                .hits(usize::MAX)
                .map_err(|e| query_error(e, args.timeout))?
                .0,
        ),
        None => None,
    };
    let rows = breakdown::by_document(&index, &args.by, hits.as_deref())
        .with_context(|| format!("the documents have no attribute `{}`", args.by))?;
    let listed: Vec<_> = rows.iter().filter(|r| keep.keeps(&r.value)).collect();
    let table = ranked(&listed, args.limit, |r| match hits {
        Some(_) => vec![
            r.value.clone(),
            r.count.to_string(),
            format!("{:.2}", r.count as f64 * 1e6 / r.tokens.max(1) as f64),
            r.with_hits.to_string(),
            r.documents.to_string(),
            r.tokens.to_string(),
        ],
        None => vec![
            r.value.clone(),
            r.tokens.to_string(),
            format!(
                "{:.2}",
                r.tokens as f64 * 100.0 / f64::from(index.n_tokens.max(1))
            ),
            r.documents.to_string(),
        ],
    });
    let header: &[&str] = match hits {
        Some(_) => &[
            "rank",
            "value",
            "hits",
            "per_million",
            "documents_with_hits",
            "documents",
            "tokens",
        ],
        None => &["rank", "value", "tokens", "percent", "documents"],
    };
    write_rows(out, args.format, header, &table)?;
    writeln!(
        notice,
        "{} values of the documents' {} over {} {}{}, {} shown{} ({:.1} ms)",
        listed.len(),
        args.by,
        hits.as_ref()
            .map_or(u64::from(index.n_tokens), |h| h.len() as u64),
        if hits.is_some() { "hits" } else { "tokens" },
        keep.describe(),
        table.len(),
        if hits.is_some() {
            "; per_million: hits per million tokens of those documents"
        } else {
            ""
        },
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// `glaneur colloc`.
pub fn colloc(
    args: &CollocArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let keep = Keep::new(&args.filters)?;
    let mut wanted = needed(Some(&args.query), &[&args.by])?;
    wanted.extend(needed(args.filter.as_deref(), &[])?);
    let index = corpus::open_attributes(
        &args.run,
        Some(&wanted),
        Some(&regions(&parse(&args.query)?, args.within.as_deref())),
    )?;
    let attr = attribute(&index, &args.by)?;
    if let Some(w) = &args.within
        && index.region(w).is_none()
    {
        bail!("no region `{w}` in this corpus");
    }
    let measure = stats::Measure::from_name(&args.measure)
        .with_context(|| format!("unknown measure {}", args.measure))?;
    let (hits, _) = search(&index, &args.query, args.timeout)?
        .with_strategy(args.strategy.into())
        .hits(usize::MAX)
        .map_err(|e| query_error(e, args.timeout))?;
    let filter = match &args.filter {
        Some(f) => Some(search(&index, f, args.timeout).context("--filter")?),
        None => None,
    };
    let rows = stats::collocations(
        &index,
        &hits,
        attr,
        &stats::CollocOptions {
            window: (args.window, args.window),
            within: args.within.as_deref(),
            measure,
            min_together: args.min_freq,
            min_frequency: args.min_collocate_freq,
            filter: filter.as_ref(),
        },
    )
    .map_err(|e| query_error(e, args.timeout))?;
    let rows: Vec<_> = rows.into_iter().filter(|c| keep.keeps(&c.value)).collect();
    let table = ranked(&rows, args.limit, |c| {
        vec![
            c.value.clone(),
            c.together.to_string(),
            c.frequency.to_string(),
            format!("{:.3}", c.logdice),
            format!("{:.3}", c.mi),
            format!("{:.3}", c.t),
            format!("{:.3}", c.ll),
        ]
    });
    write_rows(
        out,
        args.format,
        &[
            "rank",
            "value",
            "together",
            "frequency",
            "logdice",
            "mi",
            "t",
            "ll",
        ],
        &table,
    )?;
    writeln!(
        notice,
        "{} of the node, {} collocates seen at least {} times{}{}{}, {} shown, by {} ({:.1} ms)",
        counted(hits.len() as u64, "hit", "hits"),
        rows.len(),
        args.min_freq,
        if args.min_collocate_freq > 0 {
            format!(" and {} in the corpus", args.min_collocate_freq)
        } else {
            String::new()
        },
        args.filter
            .as_ref()
            .map_or(String::new(), |f| format!(", only {f}")),
        keep.describe(),
        table.len(),
        args.measure,
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// The frequency list of `attr`, of the tokens `filter` (a one-token pattern) keeps.
fn list(
    index: &stages::explore::index::Index<corpus::FileColumns>,
    attr: usize,
    filter: Option<&str>,
) -> anyhow::Result<Vec<(String, u64)>> {
    let Some(filter) = filter else {
        return Ok(stats::frequencies(index, attr));
    };
    let test = search(index, filter, None).context("--filter")?;
    let keeps = |range: std::ops::Range<u32>| {
        test.holds_over(range)
            .unwrap_or(Err(stages::explore::query::QueryError::NotOneToken))
    };
    let counts = stats::kept_frequencies(index, attr, &keeps).map_err(|e| query_error(e, None))?;
    let lexicon = &index.attributes[attr].lexicon;
    let mut rows: Vec<(String, u64)> = counts
        .into_iter()
        .enumerate()
        .filter(|(_, f)| *f > 0)
        .map(|(id, f)| (lexicon.get(id as u32).to_string(), f))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(rows)
}

/// A reference frequency list: another index, or a `value<TAB>count` file.
fn reference(
    path: &Path,
    by: &str,
    filter: Option<&str>,
) -> anyhow::Result<(FxHashMap<String, u64>, u64)> {
    if path.is_dir() {
        let index = corpus::open_attributes(
            path,
            Some(&needed(filter, &[by])?),
            Some(&["text".to_string()]),
        )
        .with_context(|| format!("the reference {}", path.display()))?;
        let attr = attribute(&index, by)?;
        let rows = list(&index, attr, filter)?;
        return Ok((rows.into_iter().collect(), u64::from(index.n_tokens)));
    }
    if filter.is_some() {
        bail!(
            "--filter needs a reference corpus (a run or index folder): {} is a frequency list, \
             whose tokens cannot be tested",
            path.display()
        );
    }
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read the reference frequency list {}",
            path.display()
        )
    })?;
    let mut map = FxHashMap::default();
    let mut total = 0u64;
    // `glaneur freq --format tsv` writes `rank value frequency per_million`: read it by name.
    let (value_at, count_at) = text
        .lines()
        .next()
        .and_then(|header| {
            let names: Vec<&str> = header.split('\t').collect();
            let at = |n: &str| names.iter().position(|h| *h == n);
            Some((at("value")?, at("frequency")?))
        })
        .unwrap_or((0, 1));
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some(&value), Some(&count)) = (fields.get(value_at), fields.get(count_at)) else {
            bail!(
                "{} line {}: expected value<TAB>count",
                path.display(),
                i + 1
            );
        };
        match count.trim().parse::<u64>() {
            Ok(n) => {
                let entry = map.entry(value.to_string()).or_insert(0u64);
                match (entry.checked_add(n), total.checked_add(n)) {
                    (Some(e), Some(t)) => (*entry, total) = (e, t),
                    _ => bail!(
                        "{} line {}: the counts add up to more than {} (the largest total \
                         glaneur can hold): is this a frequency list?",
                        path.display(),
                        i + 1,
                        u64::MAX
                    ),
                }
            }
            Err(_) if i == 0 => {} // a header
            Err(_) => bail!(
                "{} line {}: `{count}` is not a count",
                path.display(),
                i + 1
            ),
        }
    }
    if total == 0 {
        bail!("{}: the reference frequency list is empty", path.display());
    }
    Ok((map, total))
}

/// `glaneur keywords`.
pub fn keywords(
    args: &KeywordsArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    if !(args.n.is_finite() && args.n > 0.0) {
        bail!(
            "--n must be a positive number (1, 10, 100…), not {}",
            args.n
        );
    }
    let keep = Keep::new(&args.filters)?;
    let filter = args.filter.as_deref();
    let index = corpus::open_attributes(
        &args.run,
        Some(&needed(filter, &[&args.by])?),
        Some(&["text".to_string()]),
    )?;
    let attr = attribute(&index, &args.by)?;
    let focus = list(&index, attr, filter)?;
    let (reference, n_reference) = reference(&args.reference, &args.by, filter)?;
    let rows: Vec<_> = stats::keywords(
        &focus,
        u64::from(index.n_tokens),
        &reference,
        n_reference,
        args.n,
        args.min_freq,
    )
    .into_iter()
    .filter(|k| k.reference >= args.min_reference_freq && keep.keeps(&k.value))
    .collect();
    let table = ranked(&rows, args.limit, |k| {
        vec![
            k.value.clone(),
            k.focus.to_string(),
            k.reference.to_string(),
            format!("{:.3}", k.score),
            format!("{:.2}", k.ll),
            format!("{:.2}", k.log_ratio),
        ]
    });
    write_rows(
        out,
        args.format,
        &[
            "rank",
            "value",
            "focus",
            "reference",
            "score",
            "ll",
            "log_ratio",
        ],
        &table,
    )?;
    writeln!(
        notice,
        "{} tokens against {} (simple maths, n = {}): {} candidates{}{}, {} shown",
        index.n_tokens,
        n_reference,
        args.n,
        rows.len(),
        filter.map_or(String::new(), |f| format!(", only {f}")),
        keep.describe(),
        table.len()
    )?;
    Ok(())
}

/// The first `limit` rows as table lines, each after its rank (1, 2, …).
fn ranked<T>(rows: &[T], limit: usize, cells: impl Fn(&T) -> Vec<String>) -> Vec<Vec<String>> {
    rows.iter()
        .take(limit)
        .enumerate()
        .map(|(i, row)| {
            let mut line = vec![(i + 1).to_string()];
            line.extend(cells(row));
            line
        })
        .collect()
}
