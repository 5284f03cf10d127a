//! `glaneur sketch LEMMA`: a word sketch of a run's tagged corpus — the lemma's collocates by
//! grammatical relation, scored by logDice (`stages::explore::sketch`).
//!
//! **In:** a run folder (its `index/`, with `lemma` and `pos`), a lemma, a sketch grammar (the
//! one shipped for the corpus's language, or a file). **Out:** one table per relation (text), or
//! one row per relation and collocate (TSV, CSV, JSON) with the `glaneur kwic` query of its hits.
//!
//! **Invariants:** a grammar error names the file and line; the corpus's language picks the
//! grammar only when glaneur ships one for it, else the message says to pass `--grammar`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use stages::explore::sketch::{self, Grammar, Options, Table};

use super::{Format, interrupt, query_error, write_rows};
use crate::index::corpus;

/// Flags of `glaneur sketch`.
#[derive(Debug, Clone, clap::Args)]
pub struct SketchArgs {
    /// Run folder (with its `index/`) or index folder.
    pub run: PathBuf,
    /// The lemma sketched, e.g. graphe.
    pub lemma: String,
    /// Read the run's subcorpus of this name (`glaneur subcorpus`) instead of the whole corpus.
    #[arg(long, value_name = "NAME")]
    pub subcorpus: Option<String>,
    /// A sketch grammar file (Sketch Engine's format: `=relation`, patterns with `1:` the
    /// keyword and `2:` the collocate, `*DUAL`, `*SYMMETRIC`, `*STRUCTLIMIT`). Default: the
    /// grammar glaneur ships for the corpus's language (fr, en).
    #[arg(long, value_name = "FILE")]
    pub grammar: Option<PathBuf>,
    /// The shipped grammar of this language instead of the corpus's (fr or en).
    #[arg(long, value_name = "LANG", conflicts_with = "grammar")]
    pub lang: Option<String>,
    /// Print the shipped grammar of `--lang` (or of the corpus's language) and stop: a start
    /// for one's own.
    #[arg(long)]
    pub print_grammar: bool,
    /// Only this relation (e.g. object_of).
    #[arg(long, value_name = "NAME")]
    pub relation: Option<String>,
    /// Least number of hits a collocate needs in a relation.
    #[arg(long, default_value_t = 2)]
    pub min_freq: u64,
    /// Collocates shown per relation at most.
    #[arg(long, default_value_t = 15)]
    pub limit: usize,
    /// Output format: text, tsv, csv or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Stop after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// A word sketch as data: its tables (only `--relation`'s when given), where its grammar
/// comes from.
#[derive(Debug, Clone)]
pub struct Sketch {
    /// One table per relation, in the grammar's order.
    pub tables: Vec<Table>,
    /// The grammar's file, or "the shipped fr grammar".
    pub origin: String,
}

/// `glaneur sketch`.
pub fn sketch(
    args: &SketchArgs,
    out: &mut dyn Write,
    notice: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = Instant::now();
    if args.print_grammar {
        let (text, _) = grammar_text(args, &open(args)?)?;
        out.write_all(text.as_bytes())?;
        return Ok(());
    }
    let made = sketch_tables(args)?;
    let tables: Vec<&Table> = made.tables.iter().collect();
    write_tables(out, args.format, &tables)?;
    writeln!(
        notice,
        "{}: {} from {}, {} with the keyword, in {:.0} ms (--format tsv \
         gives each collocate's `glaneur kwic` query)",
        args.lemma,
        super::counted(tables.len() as u64, "relation", "relations"),
        made.origin,
        super::counted(
            tables.iter().map(|t| t.keyword_hits).sum::<u64>(),
            "hit",
            "hits"
        ),
        started.elapsed().as_secs_f64() * 1000.0
    )?;
    Ok(())
}

/// The word sketch `glaneur sketch` prints (what `serve` shows), as data.
pub fn sketch_tables(args: &SketchArgs) -> anyhow::Result<Sketch> {
    let index = open(args)?;
    let (text, origin) = grammar_text(args, &index)?;
    let grammar = Grammar::parse(&text).with_context(|| format!("in {origin}"))?;
    if let Some(r) = &args.relation
        && !grammar
            .relations
            .iter()
            .any(|x| &x.name == r || x.dual.as_ref() == Some(r))
    {
        bail!("no relation `{r}` in {origin}");
    }
    let options = Options {
        lemma_attr: "lemma".into(),
        min_freq: args.min_freq,
        top: args.limit,
    };
    let tables = sketch::sketch(
        &index,
        &grammar,
        &args.lemma,
        &options,
        interrupt(args.timeout)?,
    )
    .map_err(|e| query_error(e, args.timeout))?
    .into_iter()
    .filter(|t| args.relation.as_ref().is_none_or(|r| &t.relation == r))
    .collect();
    Ok(Sketch { tables, origin })
}

/// The run's index with what a sketch reads.
fn open(args: &SketchArgs) -> anyhow::Result<stages::explore::index::Index<corpus::FileColumns>> {
    corpus::open_attributes(
        &args.run,
        Some(&["lemma".to_string(), "pos".to_string(), "word".to_string()]),
        Some(&["text".to_string(), "s".to_string()]),
    )
    .context("a word sketch needs a tagged corpus (lemma and pos): docs/guide/text.md")
}

/// The grammar's text and where it comes from: the file, `--lang`, or the corpus's language.
fn grammar_text(
    args: &SketchArgs,
    index: &stages::explore::index::Index<corpus::FileColumns>,
) -> anyhow::Result<(String, String)> {
    if let Some(path) = &args.grammar {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the sketch grammar {}", path.display()))?;
        return Ok((text, path.display().to_string()));
    }
    let language = match &args.lang {
        Some(l) => l.clone(),
        None => main_language(index).with_context(|| {
            "the corpus's documents name no language: pass --lang fr, --lang en or --grammar FILE"
        })?,
    };
    let text = sketch::shipped(&language).with_context(|| {
        format!(
            "glaneur ships sketch grammars for fr and en, not {language}: write one \
             (`glaneur sketch RUN x --lang fr --print-grammar` is a start) and pass --grammar FILE"
        )
    })?;
    Ok((text.to_string(), format!("the shipped {language} grammar")))
}

/// The language of most documents (`lang` of the `text` regions).
fn main_language<C>(index: &stages::explore::index::Index<C>) -> Option<String> {
    let texts = index.regions.iter().find(|r| r.name == "text")?;
    let (_, values) = texts.attrs.iter().find(|(n, _)| n == "lang")?;
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for v in values {
        *counts.entry(v.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|(l, _)| l.to_string())
}

fn write_tables(out: &mut dyn Write, format: Format, tables: &[&Table]) -> anyhow::Result<()> {
    if format == Format::Text {
        for t in tables {
            let hits = super::counted(t.keyword_hits, "hit", "hits");
            writeln!(out, "{} ({hits})", t.relation)?;
            if t.rows.is_empty() && t.keyword_hits > 0 {
                writeln!(out, "  (no collocate as frequent as --min-freq)")?;
            }
            let width = t
                .rows
                .iter()
                .map(|r| r.lemma.chars().count())
                .max()
                .unwrap_or(0);
            for r in &t.rows {
                writeln!(
                    out,
                    "  {:<width$}  {:>6.2}  {:>6}",
                    r.lemma, r.log_dice, r.f_xy
                )?;
            }
            writeln!(out)?;
        }
        return Ok(());
    }
    let rows: Vec<Vec<String>> = tables
        .iter()
        .flat_map(|t| {
            t.rows.iter().map(move |r| {
                vec![
                    t.relation.clone(),
                    r.lemma.clone(),
                    r.f_xy.to_string(),
                    t.keyword_hits.to_string(),
                    r.f_y.to_string(),
                    format!("{:.3}", r.log_dice),
                    r.query.clone(),
                ]
            })
        })
        .collect();
    write_rows(
        out,
        format,
        &[
            "relation",
            "collocate",
            "f_xy",
            "f_x",
            "f_y",
            "logdice",
            "query",
        ],
        &rows,
    )
}
