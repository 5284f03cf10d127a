//! `glaneur index`, `kwic`, `freq`, `colloc`, `keywords`: the corpus explorer's commands, a thin
//! layer over `stages::explore` and the index on disk (`index::corpus`).
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
use stages::explore::cql;
use stages::explore::index::{Columns, Index};
use stages::explore::query::{Interrupt, QueryError, Search};

pub mod args;

pub use args::{CollocArgs, Format, FreqArgs, KeywordsArgs, KwicArgs, Sort, ValueFilters};

mod concordance;
mod filters;
mod kwic;
mod near;
mod sketch;
mod statistics;
mod subcorpus;
use crate::index::corpus::{self, FileColumns};
pub use concordance::{Concordance, KwicLine, Token, concordance, context_at, joined};
pub use kwic::kwic;
pub use sketch::{Sketch, SketchArgs, sketch, sketch_tables};
pub use statistics::{colloc, freq, keywords};
pub use subcorpus::{
    Listed as ListedSubcorpus, SubcorpusArgs, listed as subcorpora, resolve as resolve_subcorpus,
    stored as stored_subcorpus, subcorpus,
};

/// `glaneur index FILE.vrt --out DIR`.
pub fn index(vrt: &Path, out: &Path, columns: Option<&[String]>) -> anyhow::Result<String> {
    let columns: Vec<String> = match columns {
        Some(c) => c.to_vec(),
        None => guess_columns(vrt)?,
    };
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let started = Instant::now();
    let built = corpus::build(vrt, &names, out)?;
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

pub(crate) fn attribute(index: &Index<FileColumns>, name: &str) -> anyhow::Result<usize> {
    index.attribute(name).ok_or_else(|| {
        anyhow::anyhow!(
            "no attribute `{name}` in this corpus (it has: {}){}",
            names(index),
            if name == "lemma" || name == "pos" {
                "; lemmas and parts of speech come from a tagger: docs/guide/text.md, \"From corpus \
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

/// The run folder a path names for the explorer's commands: a topic file's or a topic folder's
/// `run/` (as `compare` and `batch` accept them), else the path itself (a run folder, an index
/// folder, a subcorpus).
pub fn run_of(path: &Path) -> std::path::PathBuf {
    let topic_dir = if path.is_file() && path.extension().is_some_and(|e| e == "toml") {
        path.parent().unwrap_or(Path::new("."))
    } else {
        path
    };
    let is_topic = topic_dir.join("topic.toml").is_file() || path.is_file();
    let run = topic_dir.join("run");
    if is_topic && !topic_dir.join("index").is_dir() && run.is_dir() {
        run
    } else {
        path.to_path_buf()
    }
}

pub(crate) use crate::ground::progress::counted;

pub(crate) fn parse(query: &str) -> anyhow::Result<cql::Query> {
    cql::parse(query).map_err(|e| anyhow::anyhow!("{e}\n  {query}"))
}

fn search<'i>(
    index: &'i Index<FileColumns>,
    query: &str,
    timeout: Option<f64>,
) -> anyhow::Result<Search<'i, FileColumns>> {
    Search::with_interrupt(index, &parse(query)?, interrupt(timeout)?)
        .map_err(|e| query_error(e, timeout))
}

/// Tokens that the lines of a concordance held in memory at once may show together.
pub const MAX_HELD_TOKENS: u64 = 20_000_000;

/// An interrupt that says stop once `timeout` seconds have passed.
pub fn interrupt(timeout: Option<f64>) -> anyhow::Result<Option<Interrupt>> {
    let Some(seconds) = timeout else {
        return Ok(None);
    };
    let Some(budget) = std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
    else {
        bail!("--timeout must be a positive number of seconds, not {seconds}");
    };
    let end = Instant::now().checked_add(budget);
    Ok(end.map(|end| -> Interrupt { std::sync::Arc::new(move || Instant::now() >= end) }))
}

/// A query stopped by its time limit.
#[derive(Debug, thiserror::Error)]
#[error(
    "the query was stopped after {seconds} s (its time limit): narrow it — a rarer first token, \
     fewer `[]` or repetitions, a `within` — or allow more time"
)]
pub struct QueryStopped {
    /// The limit.
    pub seconds: f64,
}

/// A query's error for a user: a stopped query says which limit stopped it ([`QueryStopped`]).
pub fn query_error(error: QueryError, timeout: Option<f64>) -> anyhow::Error {
    match (error, timeout) {
        (QueryError::Interrupted, Some(seconds)) => QueryStopped { seconds }.into(),
        (error, _) => anyhow::anyhow!("{error}"),
    }
}

/// The regions a command needs: documents, the query's `within`, and `more`.
pub(crate) fn regions(query: &cql::Query, more: Option<&str>) -> Vec<String> {
    let mut names = vec!["text".to_string()];
    // `doc` is Sketch Engine's name for `text`: the query's names come as `text` already.
    names.extend(query.regions());
    names.extend(more.map(|m| if m == "doc" { "text" } else { m }.to_string()));
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
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

/// Tabs and line breaks cannot be in a TSV field.
pub(crate) fn tsv(value: &str) -> String {
    value.replace(['\t', '\n', '\r'], " ")
}

/// The byte-order mark that starts a CSV file (Excel reads UTF-8 only after it).
pub(crate) const CSV_BOM: &str = "\u{feff}";

/// One CSV line of `fields` ([`Format::Csv`]): quoted as every table of glaneur is, and a value
/// that a spreadsheet would run as a formula (web text can hold `=HYPERLINK(…)`) made text by
/// a leading `'`.
pub(crate) fn csv_line(fields: &[&str]) -> String {
    let mut line = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        let formula = f.starts_with(['=', '@'])
            || (f.len() > 1 && f.starts_with(['+', '-']) && f.parse::<f64>().is_err());
        let value = if formula {
            format!("'{f}")
        } else {
            (*f).to_string()
        };
        stages::export::delimited::push_field(&mut line, &value, ',');
    }
    line
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
        Format::Csv => {
            write!(out, "{CSV_BOM}")?;
            writeln!(out, "{}", csv_line(header))?;
            for r in rows {
                let fields: Vec<&str> = r.iter().map(String::as_str).collect();
                writeln!(out, "{}", csv_line(&fields))?;
            }
        }
        Format::Text => {
            let widths = column_widths(header, rows);
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
    let (found, total) = crate::index::documents::search(run, query, limit, host, lang)?;
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
            writeln!(out, "     {}", crate::index::documents::marked(f))?;
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

/// Each column's width in characters: its longest cell or its header.
pub(crate) fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

#[cfg(test)]
mod csv_tests {
    use super::csv_line;

    #[test]
    fn csv_lines_quote_and_disarm_formulas() {
        assert_eq!(csv_line(&["a", "b,c", "d\"e"]), "a,\"b,c\",\"d\"\"e\"");
        assert_eq!(
            csv_line(&["=HYPERLINK(x)", "@x", "-1", "-", "-x", "+3.5"]),
            "\"'=HYPERLINK(x)\",\"'@x\",-1,-,\"'-x\",+3.5"
        );
    }
}
