//! `glaneur subcorpus RUN NAME --where host=… --query CQL`: a named subcorpus of a run — the
//! documents whose attributes match, or that hold a hit of a query — kept as a folder every
//! explorer command reads with `--subcorpus NAME` (or given as its run folder).
//!
//! **In:** a run folder (its `index/` and `vrt/corpus.vrt`), a name, conditions on document
//! attributes (`lang`, `host`, `date`, `score`, `url`, `title`, `id`) and/or a CQL query.
//!
//! **Out:** `RUN/subcorpora/NAME/` with `vrt/corpus.vrt` (the chosen documents, as they are in
//! the run's vertical file), `index/` (built from it: statistics such as f_y, N and keywords are
//! the subcorpus's own), and `subcorpus.json` (the definition, sizes, and the signature of the
//! run's index it was made from).
//!
//! **Invariants:** a name is letters, digits, `-`, `_`; a subcorpus made from an earlier index
//! of the run is made again from its stored definition before it is read, with a notice;
//! the folder is written aside and renamed into place, so a stopped build leaves the old one.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use stages::explore::cql::Test;
use stages::explore::query::{Matcher, Search};

use super::{interrupt, parse, query_error, regions};
use crate::index::corpus;

/// Flags of `glaneur subcorpus`.
#[derive(Debug, Clone, clap::Args)]
pub struct SubcorpusArgs {
    /// Run folder (with its `index/` and `vrt/`).
    pub run: PathBuf,
    /// The subcorpus's name (letters, digits, - and _); none: list the run's subcorpora.
    pub name: Option<String>,
    /// A condition on a document attribute, `ATTR=REGEX` or `ATTR!=REGEX` (the expression
    /// matches the whole value, as in CQL); several are all required. E.g. host=docs\.gimp.*
    #[arg(long = "where", value_name = "ATTR=REGEX")]
    pub conditions: Vec<String>,
    /// Keep only the documents holding a hit of this CQL query.
    #[arg(long, value_name = "CQL")]
    pub query: Option<String>,
    /// Remove the subcorpus.
    #[arg(long, conflicts_with_all = ["conditions", "query"])]
    pub delete: bool,
    /// Stop the query's search after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// A subcorpus of a run, as `glaneur subcorpus RUN` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name.
    pub name: String,
    /// The `--where` conditions it was made with.
    pub conditions: Vec<String>,
    /// The `--query` it was made with.
    pub query: Option<String>,
    /// Documents it holds.
    pub documents: u64,
    /// Tokens it holds.
    pub tokens: u64,
    /// Whether it was made from the run's current index (else it is made again before use).
    pub current: bool,
}

impl Listed {
    /// Its conditions and query as one line (`host=… lang=fr query [lemma="x"]`).
    pub fn definition(&self) -> String {
        let mut what = self.conditions.join(" ");
        if let Some(q) = &self.query {
            what.push_str(&format!(" query {q}"));
        }
        what.trim().to_string()
    }
}

/// What `subcorpus.json` holds.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Definition {
    name: String,
    conditions: Vec<String>,
    query: Option<String>,
    documents: u64,
    tokens: u64,
    /// Of the run's `index/index.json` when the subcorpus was made.
    index_signature: String,
}

const DEFINITION: &str = "subcorpus.json";

/// `glaneur subcorpus`.
pub fn subcorpus(args: &SubcorpusArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let Some(name) = &args.name else {
        return list(&args.run, out);
    };
    check_name(name)?;
    let dir = folder(&args.run, name);
    if args.delete {
        if !dir.join(DEFINITION).is_file() {
            bail!("no subcorpus `{name}` in {}", args.run.display());
        }
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("cannot remove {}", dir.display()))?;
        writeln!(out, "removed the subcorpus {name}")?;
        return Ok(());
    }
    if args.conditions.is_empty() && args.query.is_none() {
        bail!(
            "say which documents: --where ATTR=REGEX (lang, host, date, score, url, title, id) \
             and/or --query CQL"
        );
    }
    let made = make(
        &args.run,
        name,
        &args.conditions,
        args.query.as_deref(),
        args.timeout,
    )?;
    writeln!(
        out,
        "subcorpus {name}: {}, {} in {} (read it with --subcorpus {name})",
        super::counted(made.documents, "document", "documents"),
        super::counted(made.tokens, "token", "tokens"),
        dir.display()
    )?;
    Ok(())
}

/// The folder of `run`'s subcorpus `name`, made again first when the run's index changed; the
/// run itself when no name is given.
pub fn resolve(run: &Path, name: Option<&str>, notice: &mut dyn Write) -> anyhow::Result<PathBuf> {
    let Some(name) = name else {
        return Ok(run.to_path_buf());
    };
    let (dir, def) = stored_definition(run, name)?;
    if def.index_signature != signature(run)? {
        let made = make(run, name, &def.conditions, def.query.as_deref(), None)?;
        writeln!(
            notice,
            "subcorpus {name}: the run's index changed since it was made; made again from its \
             definition ({}, {})",
            super::counted(made.documents, "document", "documents"),
            super::counted(made.tokens, "token", "tokens")
        )?;
    }
    Ok(dir)
}

/// The folder of `run`'s subcorpus `name` as it is, without making it again, and whether it
/// was made from the run's current index.
pub fn stored(run: &Path, name: &str) -> anyhow::Result<(PathBuf, bool)> {
    let (dir, def) = stored_definition(run, name)?;
    let current = def.index_signature == signature(run)?;
    Ok((dir, current))
}

/// The run's subcorpora by name.
pub fn listed(run: &Path) -> Vec<Listed> {
    let signature = signature(run).ok();
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(run.join("subcorpora")) {
        for e in entries.flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path().join(DEFINITION))
                && let Ok(d) = serde_json::from_str::<Definition>(&text)
            {
                found.push(Listed {
                    current: signature.as_deref() == Some(d.index_signature.as_str()),
                    name: d.name,
                    conditions: d.conditions,
                    query: d.query,
                    documents: d.documents,
                    tokens: d.tokens,
                });
            }
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// The folder of the subcorpus `name` and its stored definition; a message naming what to do
/// when there is none.
fn stored_definition(run: &Path, name: &str) -> anyhow::Result<(PathBuf, Definition)> {
    check_name(name)?;
    let dir = folder(run, name);
    let text = std::fs::read_to_string(dir.join(DEFINITION)).with_context(|| {
        format!(
            "no subcorpus `{name}` in {}: make it with `glaneur subcorpus {} {name} --where …` \
             (`glaneur subcorpus {}` lists those there are)",
            run.display(),
            run.display(),
            run.display()
        )
    })?;
    let def: Definition = serde_json::from_str(&text)
        .with_context(|| format!("{} is damaged: make the subcorpus again", dir.display()))?;
    Ok((dir, def))
}

fn check_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !ok {
        bail!("a subcorpus name is 1 to 64 letters, digits, - or _ (not `{name}`)");
    }
    Ok(())
}

fn folder(run: &Path, name: &str) -> PathBuf {
    run.join("subcorpora").join(name)
}

/// A digest of the run's index manifest: it changes whenever the index is built again.
fn signature(run: &Path) -> anyhow::Result<String> {
    let index = corpus::locate(run)?;
    let mut signature = String::new();
    for file in ["index.json", "SHA256SUMS"] {
        // An index from before checksums has no SHA256SUMS: its manifest alone signs it.
        if let Ok(d) = crate::ground::checksums::digest(&index.join(file)) {
            signature.push_str(&d);
        }
    }
    Ok(signature)
}

fn list(run: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let found = listed(run);
    if found.is_empty() {
        writeln!(
            out,
            "no subcorpus in {}: `glaneur subcorpus {} NAME --where lang=fr` makes one",
            run.display(),
            run.display()
        )?;
    }
    for d in found {
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            d.name,
            super::counted(d.documents, "document", "documents"),
            super::counted(d.tokens, "token", "tokens"),
            d.definition()
        )?;
    }
    Ok(())
}

/// Chooses the documents and writes the subcorpus's folder.
fn make(
    run: &Path,
    name: &str,
    conditions: &[String],
    query: Option<&str>,
    timeout: Option<f64>,
) -> anyhow::Result<Definition> {
    let keep = chosen(run, conditions, query, timeout)?;
    let documents = keep.iter().filter(|k| **k).count() as u64;
    if documents == 0 {
        bail!(
            "no document of {} passes those conditions: nothing to keep",
            run.display()
        );
    }
    let vrt = run.join("vrt").join("corpus.vrt");
    let index_dir = corpus::locate(run)?;
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(index_dir.join("index.json"))
            .with_context(|| format!("cannot read {}", index_dir.join("index.json").display()))?,
    )?;
    let columns: Vec<String> = manifest["attributes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|a| a != "lc")
        .collect();
    let dir = folder(run, name);
    let staging = run.join("subcorpora").join(format!(".{name}.partial"));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .with_context(|| format!("cannot clear {}", staging.display()))?;
    }
    std::fs::create_dir_all(staging.join("vrt"))
        .with_context(|| format!("cannot create {}", staging.display()))?;
    let sub_vrt = staging.join("vrt").join("corpus.vrt");
    copy_documents(&vrt, &sub_vrt, &keep)?;
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let built = corpus::build(&sub_vrt, &names, &staging.join("index"))?;
    let def = Definition {
        name: name.to_string(),
        conditions: conditions.to_vec(),
        query: query.map(String::from),
        documents,
        tokens: built.tokens,
        index_signature: signature(run)?,
    };
    std::fs::write(
        staging.join(DEFINITION),
        serde_json::to_string_pretty(&def)?,
    )
    .with_context(|| format!("cannot write {}", staging.join(DEFINITION).display()))?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("cannot replace {}", dir.display()))?;
    }
    std::fs::rename(&staging, &dir)
        .with_context(|| format!("cannot move {} into place", staging.display()))?;
    Ok(def)
}

/// Per document of the run (its `text` regions, in order), whether it is kept.
fn chosen(
    run: &Path,
    conditions: &[String],
    query: Option<&str>,
    timeout: Option<f64>,
) -> anyhow::Result<Vec<bool>> {
    let parsed = query.map(parse).transpose()?;
    let attrs = parsed.as_ref().map(|q| q.attributes());
    let wanted = parsed.as_ref().map(|q| regions(q, None));
    let index = corpus::open_attributes(run, attrs.as_deref(), wanted.as_deref())?;
    let texts = index
        .region("text")
        .context("the index has no documents (`text` regions)")?;
    let mut keep = vec![true; texts.len()];
    for c in conditions {
        let (attr, negated, pattern) = match c.split_once("!=") {
            Some((a, p)) => (a, true, p),
            None => match c.split_once('=') {
                Some((a, p)) => (a, false, p),
                None => bail!("--where {c}: write ATTR=REGEX or ATTR!=REGEX, e.g. host=docs\\..*"),
            },
        };
        let attr = attr.trim();
        let Some((_, values)) = texts.attrs.iter().find(|(n, _)| n == attr) else {
            let have: Vec<&str> = texts.attrs.iter().map(|(n, _)| n.as_str()).collect();
            bail!(
                "--where {c}: documents have no `{attr}` (they have: {})",
                have.join(", ")
            );
        };
        let test = Test {
            attr: attr.to_string(),
            pattern: pattern.to_string(),
            ignore_case: false,
            ignore_diacritics: false,
            negated,
        };
        let m = Matcher::new(&test).map_err(|e| anyhow::anyhow!("--where {c}: {e}"))?;
        for (k, v) in keep.iter_mut().zip(values) {
            *k &= m.is_match(v) != negated;
        }
    }
    if let Some(q) = &parsed {
        let mut holds = vec![false; texts.len()];
        let search = Search::with_interrupt(&index, q, interrupt(timeout)?)
            .map_err(|e| query_error(e, timeout))?;
        search
            .run(|hit| {
                if let Some(d) = texts.find(hit.start) {
                    holds[d] = true;
                }
                true
            })
            .map_err(|e| query_error(e, timeout))?;
        for (k, h) in keep.iter_mut().zip(holds) {
            *k &= h;
        }
    }
    Ok(keep)
}

/// Copies the kept `<text>` blocks of `from` (the k-th block is kept when `keep[k]`) and every
/// line outside them to `to`.
fn copy_documents(from: &Path, to: &Path, keep: &[bool]) -> anyhow::Result<()> {
    let input = std::fs::File::open(from).with_context(|| {
        format!(
            "cannot read {} (a subcorpus is cut from the run's vertical file)",
            from.display()
        )
    })?;
    let output =
        std::fs::File::create(to).with_context(|| format!("cannot write {}", to.display()))?;
    let mut w = BufWriter::new(output);
    let (mut k, mut inside, mut copying) = (0usize, false, true);
    for line in std::io::BufReader::new(input).lines() {
        let line = line.with_context(|| format!("cannot read {}", from.display()))?;
        if !inside && (line.starts_with("<text ") || line == "<text>") {
            inside = true;
            copying = keep.get(k).copied().unwrap_or(false);
            k += 1;
        }
        if copying || !inside {
            writeln!(w, "{line}")?;
        }
        if inside && line == "</text>" {
            inside = false;
        }
    }
    if k != keep.len() {
        bail!(
            "{} holds {k} documents where the index has {}: the run's index is not of this \
             vertical file (`glaneur run … --from export` builds both again)",
            from.display(),
            keep.len()
        );
    }
    w.flush()?;
    Ok(())
}
