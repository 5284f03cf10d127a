//! `glaneur index`, `kwic`, `freq`, `colloc`, `keywords`: the corpus explorer's commands, a thin
//! layer over `stages::explore` and the index on disk (`corpus_index`).
//!
//! **In:** a run folder (its `index/`) or an index folder, a CQL query, flags.
//!
//! **Out:** text, TSV or JSON on the writer given; a notice on stderr says how many hits there
//! are, how many are shown and how long the query took, so that a truncated list is never
//! mistaken for the whole.
//!
//! **Invariants:** never panics on a query or an index; errors name the query position, the
//! attribute or the folder.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use rustc_hash::FxHashMap;
use stages::explore::concord::{self, SortBy};
use stages::explore::index::{Columns, Index};
use stages::explore::query::{Hit, Search};
use stages::explore::{cql, stats};

use crate::cli::{CollocArgs, Format, FreqArgs, KeywordsArgs, KwicArgs, Sort};
use crate::corpus_index::{self, FileColumns};

/// `glaneur index FILE.vrt --out DIR`.
pub fn index(vrt: &Path, out: &Path, columns: Option<&[String]>) -> anyhow::Result<String> {
    let columns: Vec<String> = match columns {
        Some(c) => c.to_vec(),
        None => guess_columns(vrt)?,
    };
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let started = Instant::now();
    let built = corpus_index::build(vrt, &names, out)?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(format!(
        "indexed {} tokens ({}) in {seconds:.1} s ({:.2} M tokens/s): {} ({:.1} bytes per token)\n",
        built.tokens,
        columns.join(", "),
        built.tokens as f64 / seconds.max(1e-9) / 1e6,
        out.display(),
        built.bytes as f64 / built.tokens.max(1) as f64,
    ))
}

/// The column names of a vertical file from its first token line: one column is `word`, three
/// are TreeTagger's `word pos lemma`.
fn guess_columns(vrt: &Path) -> anyhow::Result<Vec<String>> {
    use std::io::BufRead;
    let file = std::fs::File::open(vrt)
        .with_context(|| format!("cannot read the vertical file {}", vrt.display()))?;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.with_context(|| format!("cannot read {}", vrt.display()))?;
        if line.trim().is_empty() || (line.starts_with('<') && !line.contains('\t')) {
            continue;
        }
        return Ok(match line.split('\t').count() {
            1 => vec!["word".into()],
            3 => vec!["word".into(), "pos".into(), "lemma".into()],
            n => bail!(
                "{}: token lines have {n} columns; name them with --columns (e.g. word,pos,lemma,...)",
                vrt.display()
            ),
        });
    }
    Ok(vec!["word".into()])
}

fn attribute(index: &Index<FileColumns>, name: &str) -> anyhow::Result<usize> {
    index.attribute(name).ok_or_else(|| {
        anyhow::anyhow!(
            "no attribute `{name}` in this corpus (it has: {}){}",
            names(index),
            if name == "lemma" || name == "pos" {
                "; lemmas and parts of speech come from a tagger: docs/GUIDE.md, \"From corpus \
                 to tagged and parsed text\""
            } else {
                ""
            }
        )
    })
}

fn names<C: Columns>(index: &Index<C>) -> String {
    index
        .attributes
        .iter()
        .map(|a| a.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse(query: &str) -> anyhow::Result<cql::Query> {
    cql::parse(query).map_err(|e| anyhow::anyhow!("{e}\n  {query}"))
}

fn search<'i>(
    index: &'i Index<FileColumns>,
    query: &str,
) -> anyhow::Result<Search<'i, FileColumns>> {
    Search::new(index, &parse(query)?).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The regions a command needs: documents, the query's `within`, and `more`.
fn regions(query: &cql::Query, more: Option<&str>) -> Vec<String> {
    let mut names = vec!["text".to_string()];
    // `doc` is Sketch Engine's name for `text`.
    names.extend(query.within.as_ref().map(|w| match w.region.as_str() {
        "doc" => "text".to_string(),
        other => other.to_string(),
    }));
    names.extend(more.map(|m| if m == "doc" { "text" } else { m }.to_string()));
    names
}

/// The attributes a command needs: the query's and the ones it counts or shows.
fn needed(query: Option<&str>, more: &[&str]) -> anyhow::Result<Vec<String>> {
    let mut names = match query {
        Some(q) => parse(q)?.attributes(),
        None => Vec::new(),
    };
    names.extend(more.iter().map(|s| (*s).to_string()));
    Ok(names)
}

/// `glaneur kwic`.
pub fn kwic(args: &KwicArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let parsed = parse(&args.query)?;
    let mut needed = parsed.attributes();
    if !args.count {
        needed.extend(args.show.iter().cloned());
    }
    // Document attributes: those `within <doc …/>` tests; shown lines read `id` and `url` apart.
    let doc_attrs: Vec<String> = parsed
        .within
        .iter()
        .flat_map(|w| w.attrs.iter().map(|t| t.attr.clone()))
        .collect();
    let index = corpus_index::open_with(
        &args.run,
        Some(&needed),
        Some(&regions(&parsed, None)),
        Some(&doc_attrs),
    )?;
    let search = Search::new(&index, &parsed).map_err(|e| anyhow::anyhow!("{e}"))?;
    if args.count {
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
            Format::Text => writeln!(out, "{hits}")?,
        }
        writeln!(
            notice,
            "{hits} hits in {docs} documents ({:.1} ms)",
            started.elapsed().as_secs_f64() * 1000.0
        )?;
        return Ok(());
    }
    let show: Vec<usize> = args
        .show
        .iter()
        .map(|s| attribute(&index, s))
        .collect::<anyhow::Result<_>>()?;
    let (hits, total): (Vec<Hit>, Option<usize>) = if args.sort == Sort::Position {
        let (hits, more) = search.hits(args.limit)?;
        let total = (!more).then_some(hits.len());
        (hits, total)
    } else {
        let (hits, _) = search.hits(usize::MAX)?;
        let n = hits.len();
        (hits, Some(n))
    };
    let mut lines = concord::lines(&index, &hits, &show, args.context)?;
    let by = match args.sort {
        Sort::Position => SortBy::Position,
        Sort::Left => SortBy::Left,
        Sort::Hit => SortBy::Hit,
        Sort::Right => SortBy::Right,
    };
    concord::sort(&mut lines, by);
    lines.truncate(args.limit);
    let ids = corpus_index::RegionValues::load(&args.run, "text", "id")?;
    let urls = corpus_index::RegionValues::load(&args.run, "text", "url")?;
    let doc_attr = |line: &concord::Line, name: &str| -> String {
        let values = if name == "id" { &ids } else { &urls };
        match (values, line.doc) {
            (Some(v), Some(d)) => v.get(d).to_string(),
            // A document without an `id` is named by its number.
            (None, Some(d)) if name == "id" => (d + 1).to_string(),
            _ => String::new(),
        }
    };
    match args.format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = lines
                .iter()
                .map(|l| {
                    serde_json::json!({
                        "doc": doc_attr(l, "id"), "url": doc_attr(l, "url"),
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
            for l in &lines {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    tsv(&doc_attr(l, "id")),
                    tsv(&doc_attr(l, "url")),
                    l.start,
                    l.end,
                    tsv(&l.left.join(" ")),
                    tsv(&l.hit.join(" ")),
                    tsv(&l.right.join(" "))
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
                .map(|l| doc_attr(l, "id").chars().count())
                .max()
                .unwrap_or(0);
            for l in &lines {
                let left = l.left.join(" ");
                let pad = width - left.chars().count();
                writeln!(
                    out,
                    "{:<id_width$}  {}{left} [{}] {}",
                    doc_attr(l, "id"),
                    " ".repeat(pad),
                    l.hit.join(" "),
                    l.right.join(" ")
                )?;
            }
        }
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match total {
        Some(t) if t > lines.len() => writeln!(
            notice,
            "{t} hits, {} shown (--limit {}) ({ms:.1} ms)",
            lines.len(),
            args.limit
        )?,
        Some(t) => writeln!(notice, "{t} hits ({ms:.1} ms)")?,
        None => writeln!(
            notice,
            "the first {} hits shown; there are more (--limit to see more, --count for the total) ({ms:.1} ms)",
            lines.len()
        )?,
    }
    Ok(())
}

/// Tabs and line breaks cannot be in a TSV field.
fn tsv(value: &str) -> String {
    value.replace(['\t', '\n', '\r'], " ")
}

fn write_rows(
    out: &mut dyn Write,
    format: Format,
    header: &[&str],
    rows: &[Vec<String>],
) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            let objects: Vec<serde_json::Map<String, serde_json::Value>> = rows
                .iter()
                .map(|r| {
                    header
                        .iter()
                        .zip(r)
                        .map(|(h, v)| {
                            let value = v
                                .parse::<f64>()
                                .ok()
                                .filter(|f| f.is_finite() && *h != "value")
                                .map_or_else(|| serde_json::json!(v), |f| serde_json::json!(f));
                            ((*h).to_string(), value)
                        })
                        .collect()
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&objects)?)?;
        }
        Format::Tsv => {
            writeln!(out, "{}", header.join("\t"))?;
            for r in rows {
                let fields: Vec<String> = r.iter().map(|f| tsv(f)).collect();
                writeln!(out, "{}", fields.join("\t"))?;
            }
        }
        Format::Text => {
            let widths: Vec<usize> = (0..header.len())
                .map(|i| {
                    rows.iter()
                        .map(|r| r[i].chars().count())
                        .chain([header[i].len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<&str>| {
                cells
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(i, (c, w))| {
                        if i == 1 {
                            format!("{c:<w$}")
                        } else {
                            format!("{c:>w$}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
            };
            writeln!(out, "{}", line(header.to_vec()))?;
            for r in rows {
                writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
            }
        }
    }
    Ok(())
}

/// `glaneur freq`.
pub fn freq(args: &FreqArgs, out: &mut dyn Write, notice: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let query_regions = match &args.query {
        Some(q) => regions(&parse(q)?, None),
        None => vec!["text".to_string()],
    };
    let index = corpus_index::open_attributes(
        &args.run,
        Some(&needed(args.query.as_deref(), &[&args.by])?),
        Some(&query_regions),
    )?;
    let attr = attribute(&index, &args.by)?;
    let (rows, total) = match &args.query {
        Some(q) => {
            let (hits, _) = search(&index, q)?.hits(usize::MAX)?;
            let n = hits.len() as u64;
            (stats::hit_frequencies(&index, &hits, attr)?, n)
        }
        None => (stats::frequencies(&index, attr), u64::from(index.n_tokens)),
    };
    let distinct = rows.len();
    let per_million = 1e6 / f64::from(index.n_tokens.max(1));
    let table: Vec<Vec<String>> = rows
        .iter()
        .take(args.limit)
        .enumerate()
        .map(|(i, (v, f))| {
            vec![
                (i + 1).to_string(),
                v.clone(),
                f.to_string(),
                format!("{:.2}", *f as f64 * per_million),
            ]
        })
        .collect();
    write_rows(
        out,
        args.format,
        &["rank", "value", "frequency", "per_million"],
        &table,
    )?;
    writeln!(
        notice,
        "{distinct} distinct values of {} over {total} {}, {} shown ({:.1} ms)",
        args.by,
        if args.query.is_some() {
            "hits"
        } else {
            "tokens"
        },
        table.len(),
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
    let index = corpus_index::open_attributes(
        &args.run,
        Some(&needed(Some(&args.query), &[&args.by])?),
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
    let (hits, _) = search(&index, &args.query)?.hits(usize::MAX)?;
    let rows = stats::collocations(
        &index,
        &hits,
        attr,
        (args.window, args.window),
        args.within.as_deref(),
        measure,
        args.min_freq,
    )?;
    let table: Vec<Vec<String>> = rows
        .iter()
        .take(args.limit)
        .enumerate()
        .map(|(i, c)| {
            vec![
                (i + 1).to_string(),
                c.value.clone(),
                c.together.to_string(),
                c.frequency.to_string(),
                format!("{:.3}", c.logdice),
                format!("{:.3}", c.mi),
                format!("{:.3}", c.t),
                format!("{:.3}", c.ll),
            ]
        })
        .collect();
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
        "{} hits of the node, {} collocates seen at least {} times, {} shown, by {} ({:.1} ms)",
        hits.len(),
        rows.len(),
        args.min_freq,
        table.len(),
        args.measure,
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// A reference frequency list: another index, or a `value<TAB>count` file.
fn reference(path: &Path, by: &str) -> anyhow::Result<(FxHashMap<String, u64>, u64)> {
    if path.is_dir() {
        let index = corpus_index::open_attributes(
            path,
            Some(&[by.to_string()]),
            Some(&["text".to_string()]),
        )?;
        let attr = attribute(&index, by)?;
        let rows = stats::frequencies(&index, attr);
        return Ok((rows.into_iter().collect(), u64::from(index.n_tokens)));
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
                *map.entry(value.to_string()).or_insert(0) += n;
                total += n;
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
    let index = corpus_index::open_attributes(
        &args.run,
        Some(&needed(None, &[&args.by])?),
        Some(&["text".to_string()]),
    )?;
    let attr = attribute(&index, &args.by)?;
    let focus = stats::frequencies(&index, attr);
    let (reference, n_reference) = reference(&args.reference, &args.by)?;
    let rows = stats::keywords(
        &focus,
        u64::from(index.n_tokens),
        &reference,
        n_reference,
        args.n,
        args.min_freq,
    );
    let table: Vec<Vec<String>> = rows
        .iter()
        .take(args.limit)
        .enumerate()
        .map(|(i, k)| {
            vec![
                (i + 1).to_string(),
                k.value.clone(),
                k.focus.to_string(),
                k.reference.to_string(),
                format!("{:.3}", k.score),
                format!("{:.2}", k.ll),
                format!("{:.2}", k.log_ratio),
            ]
        })
        .collect();
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
        "{} tokens against {} (simple maths, n = {}): {} candidates, {} shown",
        index.n_tokens,
        n_reference,
        args.n,
        rows.len(),
        table.len()
    )?;
    Ok(())
}

/// `glaneur search`.
#[allow(clippy::too_many_arguments)]
pub fn search_documents(
    run: &Path,
    query: &str,
    limit: usize,
    host: Option<&str>,
    lang: Option<&str>,
    json: bool,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let (found, total) = crate::doc_search::search(run, query, limit, host, lang)?;
    if json {
        let doc = serde_json::json!({"query": query, "documents": total, "shown": found.len(), "results": found});
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for f in &found {
            writeln!(
                out,
                "{:>3}. {}  ({}, {:.2})",
                f.rank, f.title, f.id, f.relevance
            )?;
            writeln!(out, "     {}", f.url)?;
            writeln!(out, "     {}", crate::doc_search::marked(f))?;
        }
    }
    writeln!(
        notice,
        "{total} documents match, {} shown ({:.1} ms)",
        found.len(),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}
