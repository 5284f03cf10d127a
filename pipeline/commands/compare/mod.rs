//! `glaneur compare RUN…`: a table that compares finished corpora — per corpus its size, harvest,
//! vocabulary, sources and languages; per pair the overlap of their documents, fetched URLs and
//! hosts, how alike their words are (Kilgarriff's χ²) and the keywords of each against the other.
//!
//! **In:** run folders (or topic folders and topic files, whose `run/` is used), each with
//! `crawl.sqlite`, `docs.jsonl` and the query index `index/` the export wrote.
//!
//! **Out:** in the output folder, `compare.csv` (one row per corpus), `compare-pairs.csv` (one
//! row per pair), `keywords.csv` (the top keywords of every corpus against every other, and
//! against all the others joined when there are more than two), `compare.json` (all of it) and
//! `compare.html` (the tables and heat maps, one self-contained page).
//!
//! **Invariants:** only reads the runs (the store is opened read-only); the figures of a pair
//! do not depend on the order the runs are given in (a pair is listed once, first-named first);
//! words are the index's `lc` values with a letter or a digit, the matrices' definition of a
//! word; the formulas are `stages::explore::compare`'s and `stages::explore::stats`'s.

mod html;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use stages::explore::compare::{Similarity, concentration, jaccard, kilgarriff, overlap, sttr};
use stages::explore::stats;

use crate::ground::outcome::Reason;
use crate::index::corpus;
use crate::store::Store;

/// What `glaneur compare` is asked.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Run folders, topic folders or topic files.
    pub runs: Vec<PathBuf>,
    /// Folder the tables are written to.
    pub out: PathBuf,
    /// Words compared by Kilgarriff's χ² (the most frequent of each pair joined).
    pub words: usize,
    /// Keywords listed per pair and direction.
    pub keywords: usize,
    /// Simple maths' smoothing constant.
    pub n: f64,
    /// Least frequency of a keyword in its corpus.
    pub min_freq: u64,
    /// Segment length of the standardised type/token ratio, in words.
    pub segment: usize,
}

/// One corpus's row of `compare.csv`.
#[derive(Debug, Clone, Serialize)]
pub struct Corpus {
    /// Topic name (made unique among the runs compared).
    pub topic: String,
    /// Run folder.
    pub run: String,
    /// Seed URLs.
    pub seeds: u64,
    /// URLs fetched (any answer).
    pub fetched: u64,
    /// Requests made, failed ones included.
    pub requests: u64,
    /// HTML and text pages fetched with a 200 (the harvest rate's denominator).
    pub pages: u64,
    /// Pages whose clean text satisfied the formula.
    pub on_topic: u64,
    /// Harvest rate: on-topic pages ÷ pages.
    pub harvest_rate: f64,
    /// Documents in the corpus (`docs.jsonl`).
    pub documents: u64,
    /// Requests per document (none for an empty corpus).
    pub fetches_per_document: Option<f64>,
    /// Pages dropped as exact or near duplicates of a kept one.
    pub duplicates: u64,
    /// Tokens in the index, punctuation included.
    pub tokens: u64,
    /// Words (tokens with a letter or a digit).
    pub words: u64,
    /// Distinct lower-cased words.
    pub types: u64,
    /// Standardised type/token ratio over segments of `segment` words.
    pub sttr: Option<f64>,
    /// Hosts of the documents.
    pub hosts: u64,
    /// The host with the most documents.
    pub top_host: Option<String>,
    /// Its share of the documents.
    pub top_host_share: f64,
    /// Herfindahl–Hirschman index of documents per host.
    pub host_hhi: f64,
    /// 1 / HHI: the number of equally large hosts that would be as concentrated.
    pub effective_hosts: f64,
    /// Share of the documents per detected language, largest first.
    pub languages: Vec<(String, f64)>,
}

/// One pair's row of `compare-pairs.csv`.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    /// First corpus's topic.
    pub a: String,
    /// Second corpus's topic.
    pub b: String,
    /// Jaccard index of the documents' URLs.
    pub documents_jaccard: f64,
    /// Documents in both corpora.
    pub documents_shared: u64,
    /// Jaccard index of the URLs fetched.
    pub fetched_jaccard: f64,
    /// Jaccard index of the documents' hosts.
    pub hosts_jaccard: f64,
    /// Kilgarriff's χ² on the most frequent words.
    pub similarity: Similarity,
}

/// One keyword of `keywords.csv`.
#[derive(Debug, Clone, Serialize)]
pub struct KeywordRow {
    /// The corpus the word is a keyword of.
    pub focus: String,
    /// The corpus it is compared with (`others`: all the other corpora joined).
    pub reference: String,
    /// Rank by simple maths, from 1.
    pub rank: usize,
    /// The word (lower-cased).
    pub word: String,
    /// Its frequency in the focus corpus.
    pub focus_freq: u64,
    /// Its frequency in the reference.
    pub reference_freq: u64,
    /// Simple maths score.
    pub simple_maths: f64,
    /// Log-likelihood (G²).
    pub ll: f64,
    /// Log Ratio.
    pub log_ratio: f64,
}

/// Everything `glaneur compare` writes.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The settings the figures depend on.
    pub settings: Settings,
    /// One entry per corpus, in the order given.
    pub corpora: Vec<Corpus>,
    /// One entry per pair.
    pub pairs: Vec<Pair>,
    /// Keywords, per focus and reference.
    pub keywords: Vec<KeywordRow>,
}

/// The settings recorded beside the figures.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    /// Words compared by χ².
    pub similarity_words: usize,
    /// Simple maths' n.
    pub simple_maths_n: f64,
    /// Least keyword frequency.
    pub min_freq: u64,
    /// STTR segment.
    pub sttr_segment: usize,
}

/// A corpus read, with what the pairs need.
struct Loaded {
    corpus: Corpus,
    frequencies: Vec<(String, u64)>,
    documents: FxHashSet<String>,
    fetched: FxHashSet<String>,
    hosts: FxHashSet<String>,
}

/// `glaneur compare`: reads the runs, writes the tables, returns the comparison.
pub fn compare(options: &CompareOptions) -> anyhow::Result<Comparison> {
    if options.runs.len() < 2 {
        bail!("give at least two runs to compare");
    }
    check(options)?;
    let mut loaded = Vec::new();
    for path in &options.runs {
        loaded.push(load(&run_folder(path)?, options.segment)?);
    }
    unique_names(&mut loaded);
    let mut pairs = Vec::new();
    for (i, a) in loaded.iter().enumerate() {
        for b in &loaded[i + 1..] {
            let (documents_shared, documents_jaccard) = overlap(&a.documents, &b.documents);
            pairs.push(Pair {
                a: a.corpus.topic.clone(),
                b: b.corpus.topic.clone(),
                documents_jaccard,
                documents_shared: documents_shared as u64,
                fetched_jaccard: jaccard(&a.fetched, &b.fetched),
                hosts_jaccard: jaccard(&a.hosts, &b.hosts),
                similarity: kilgarriff(
                    &a.frequencies,
                    a.corpus.words,
                    &b.frequencies,
                    b.corpus.words,
                    options.words,
                ),
            });
        }
    }
    let keywords = keywords(&loaded, options);
    let comparison = Comparison {
        settings: Settings {
            similarity_words: options.words,
            simple_maths_n: options.n,
            min_freq: options.min_freq,
            sttr_segment: options.segment,
        },
        corpora: loaded.into_iter().map(|l| l.corpus).collect(),
        pairs,
        keywords,
    };
    write(&comparison, &options.out)?;
    Ok(comparison)
}

/// Checks the settings (not the runs): what `glaneur batch` checks before it crawls.
pub fn check(options: &CompareOptions) -> anyhow::Result<()> {
    if options.words < 2 {
        bail!("--words must be at least 2 (Kilgarriff used 320 to 500)");
    }
    if options.segment == 0 {
        bail!("--segment must be at least 1 word (WordSmith uses 1,000)");
    }
    if !(options.n.is_finite() && options.n > 0.0) {
        bail!(
            "--n must be a positive number (1, 10, 100…), not {}",
            options.n
        );
    }
    Ok(())
}

/// The run folder a path names: a run folder itself (it holds `crawl.sqlite`), else the `run/`
/// of a topic folder or of a topic file's folder.
fn run_folder(path: &Path) -> anyhow::Result<PathBuf> {
    if path.join("crawl.sqlite").is_file() {
        return Ok(path.to_path_buf());
    }
    let topic_dir = if path.is_file() {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    };
    let inside = topic_dir.join("run");
    if inside.join("crawl.sqlite").is_file() {
        return Ok(inside);
    }
    if !path.exists() {
        bail!("{}: no such run folder or topic", path.display());
    }
    bail!(
        "{} is not a run folder (no crawl.sqlite in it nor in {}): give the folder a run wrote \
         (`glaneur run TOPIC --out FOLDER`)",
        path.display(),
        inside.display()
    )
}

fn load(run: &Path, segment: usize) -> anyhow::Result<Loaded> {
    let store = Store::open_read_only(&run.join("crawl.sqlite"))?;
    let topic = store
        .meta("topic")?
        .and_then(|toml| toml.parse::<toml::Table>().ok())
        .and_then(|t| t.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .unwrap_or_else(|| folder_name(run));
    let seeds = store.seed_outcomes()?.len() as u64;
    let fetched: FxHashSet<String> = store
        .fetched_lengths()?
        .into_iter()
        .map(|(u, _)| u)
        .collect();
    let judged = store.judged_in_fetch_order()?;
    let pages = judged.len() as u64;
    let on_topic = judged.iter().filter(|p| p.on_topic).count() as u64;
    let requests = store.requests_made()?;
    let duplicates = store
        .reason_counts()?
        .into_iter()
        .filter(|(_, r, _)| matches!(r, Some(Reason::Duplicate | Reason::NearDuplicate)))
        .map(|(_, _, n)| n)
        .sum();
    drop(store);

    let mut documents = FxHashSet::default();
    let mut per_host: FxHashMap<String, u64> = FxHashMap::default();
    let mut per_language: BTreeMap<String, u64> = BTreeMap::new();
    for doc in crate::extract::documents(&run.join("docs.jsonl"))? {
        let (doc, _) = doc?;
        documents.insert(doc.url);
        *per_host.entry(doc.host).or_default() += 1;
        *per_language.entry(doc.language).or_default() += 1;
    }
    let n_docs = documents.len() as u64;
    let (tokens, words, frequencies, sttr) = vocabulary(run, segment)?;
    let types = frequencies.len() as u64;
    let top_host = per_host
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(h, n)| (h.clone(), *n));
    let hhi = concentration(per_host.values().copied());
    let mut languages: Vec<(String, f64)> = per_language
        .into_iter()
        .map(|(l, n)| (l, n as f64 / n_docs.max(1) as f64))
        .collect();
    languages.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let hosts: FxHashSet<String> = per_host.into_keys().collect();
    Ok(Loaded {
        corpus: Corpus {
            topic,
            run: run.display().to_string(),
            seeds,
            fetched: fetched.len() as u64,
            requests,
            pages,
            on_topic,
            harvest_rate: crate::ground::outcome::harvest_rate(on_topic, pages),
            documents: n_docs,
            fetches_per_document: (n_docs > 0).then(|| requests as f64 / n_docs as f64),
            duplicates,
            tokens,
            words,
            types,
            sttr,
            hosts: hosts.len() as u64,
            top_host_share: top_host
                .as_ref()
                .map_or(0.0, |(_, n)| *n as f64 / n_docs.max(1) as f64),
            top_host: top_host.map(|(h, _)| h),
            host_hhi: hhi,
            effective_hosts: if hhi > 0.0 { 1.0 / hhi } else { 0.0 },
            languages,
        },
        frequencies,
        documents,
        fetched,
        hosts,
    })
}

/// Tokens, words, the words' frequency list and the STTR, read from the index's `lc` column in
/// corpus order.
#[allow(clippy::type_complexity)]
fn vocabulary(
    run: &Path,
    segment: usize,
) -> anyhow::Result<(u64, u64, Vec<(String, u64)>, Option<f64>)> {
    let index =
        corpus::open_attributes(run, Some(&["lc".to_string()]), Some(&[])).with_context(|| {
            format!(
                "{}: the corpus's words are read from its index",
                run.display()
            )
        })?;
    let attr = index
        .attribute("lc")
        .with_context(|| format!("{}: the index has no `lc` attribute", run.display()))?;
    let lexicon = &index.attributes[attr].lexicon;
    let is_word: Vec<bool> = lexicon
        .iter()
        .map(|(_, v)| v.chars().any(char::is_alphanumeric))
        .collect();
    let frequencies: Vec<(String, u64)> = lexicon
        .iter()
        .filter(|(id, _)| is_word[*id as usize])
        .map(|(id, v)| (v.to_string(), index.attributes[attr].frequency(id)))
        .filter(|(_, f)| *f > 0)
        .collect();
    let words: u64 = frequencies.iter().map(|(_, f)| f).sum();
    // The running words, read in blocks so that a large corpus streams.
    const BLOCK: u32 = 1 << 20;
    let mut ids = Vec::new();
    let mut start = 0u32;
    let n = index.n_tokens;
    let mut stream: Vec<u32> = Vec::with_capacity(segment);
    let (mut sum, mut segments) = (0.0f64, 0u64);
    while start < n {
        let end = start.saturating_add(BLOCK).min(n);
        ids.clear();
        ids.extend(
            index
                .ids(attr, start..end)
                .map_err(|e| anyhow::anyhow!("{}: {e}", run.display()))?,
        );
        for &id in &ids {
            if is_word.get(id as usize).copied().unwrap_or(false) {
                stream.push(id);
                if stream.len() == segment
                    && let Some(ttr) = sttr(stream.drain(..), segment)
                {
                    sum += ttr;
                    segments += 1;
                }
            }
        }
        start = end;
    }
    let sttr = (segments > 0).then(|| sum / segments as f64);
    Ok((u64::from(n), words, frequencies, sttr))
}

fn folder_name(run: &Path) -> String {
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match named(run).as_deref() {
        Some("run") | None => run
            .parent()
            .and_then(named)
            .unwrap_or_else(|| "corpus".into()),
        Some(name) => name.to_string(),
    }
}

/// Two runs of the same topic get their folders' names after the topic's (and so does a topic
/// named like the reference of all the others, [`OTHERS`]).
fn unique_names(loaded: &mut [Loaded]) {
    let mut seen: FxHashMap<String, usize> = FxHashMap::default();
    for l in loaded.iter() {
        *seen.entry(l.corpus.topic.clone()).or_default() += 1;
    }
    seen.entry(OTHERS.to_string()).and_modify(|n| *n += 1);
    let mut used: FxHashSet<String> = FxHashSet::default();
    for l in loaded.iter_mut() {
        if seen[&l.corpus.topic] > 1 {
            let mut name = format!("{} ({})", l.corpus.topic, l.corpus.run);
            let mut k = 2;
            while used.contains(&name) {
                name = format!("{} ({}) {k}", l.corpus.topic, l.corpus.run);
                k += 1;
            }
            l.corpus.topic = name;
        }
        used.insert(l.corpus.topic.clone());
    }
}

/// The keywords of every corpus against every other, and against all others joined.
fn keywords(loaded: &[Loaded], options: &CompareOptions) -> Vec<KeywordRow> {
    let as_map = |l: &Loaded| -> FxHashMap<String, u64> { l.frequencies.iter().cloned().collect() };
    let mut rows = Vec::new();
    let mut push = |focus: &Loaded, reference: &str, map: &FxHashMap<String, u64>, n_ref: u64| {
        let list = stats::keywords(
            &focus.frequencies,
            focus.corpus.words,
            map,
            n_ref,
            options.n,
            options.min_freq,
        );
        rows.extend(
            list.into_iter()
                .take(options.keywords)
                .enumerate()
                .map(|(i, k)| KeywordRow {
                    focus: focus.corpus.topic.clone(),
                    reference: reference.to_string(),
                    rank: i + 1,
                    word: k.value,
                    focus_freq: k.focus,
                    reference_freq: k.reference,
                    simple_maths: k.score,
                    ll: k.ll,
                    log_ratio: k.log_ratio,
                }),
        );
    };
    let maps: Vec<FxHashMap<String, u64>> = loaded.iter().map(as_map).collect();
    for (i, focus) in loaded.iter().enumerate() {
        for (j, other) in loaded.iter().enumerate() {
            if i != j {
                push(focus, &other.corpus.topic, &maps[j], other.corpus.words);
            }
        }
        if loaded.len() > 2 {
            let mut others: FxHashMap<String, u64> = FxHashMap::default();
            let mut n_others = 0;
            for (j, other) in loaded.iter().enumerate() {
                if i != j {
                    n_others += other.corpus.words;
                    for (w, f) in &other.frequencies {
                        *others.entry(w.clone()).or_default() += f;
                    }
                }
            }
            push(focus, OTHERS, &others, n_others);
        }
    }
    rows
}

/// The reference name of the keywords against all the other corpora joined.
pub const OTHERS: &str = "(others)";

/// A table: its header and rows.
type Table = (Vec<&'static str>, Vec<Vec<String>>);

fn write(c: &Comparison, out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (name, (header, rows)) in [
        ("compare.csv", corpora_table(c)),
        ("compare-pairs.csv", pairs_table(c)),
        ("keywords.csv", keywords_table(c)),
    ] {
        let path = out.join(name);
        let mut w = csv::Writer::from_path(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        w.write_record(&header)?;
        for row in rows {
            w.write_record(row)?;
        }
        w.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let json = out.join("compare.json");
    std::fs::write(&json, serde_json::to_string_pretty(c)?)
        .with_context(|| format!("cannot write {}", json.display()))?;
    let page = out.join("compare.html");
    std::fs::write(&page, html::page(c))
        .with_context(|| format!("cannot write {}", page.display()))?;
    Ok(())
}

/// `compare.csv`: one row per corpus.
fn corpora_table(c: &Comparison) -> Table {
    let f = |x: f64| format!("{x:.4}");
    let opt = |x: Option<f64>| x.map(f).unwrap_or_default();
    (
        vec![
            "topic",
            "run",
            "seeds",
            "fetched",
            "requests",
            "pages",
            "on_topic",
            "harvest_rate",
            "documents",
            "fetches_per_document",
            "duplicates",
            "tokens",
            "words",
            "types",
            "sttr",
            "hosts",
            "top_host",
            "top_host_share",
            "host_hhi",
            "effective_hosts",
            "languages",
        ],
        c.corpora
            .iter()
            .map(|k| {
                vec![
                    k.topic.clone(),
                    k.run.clone(),
                    k.seeds.to_string(),
                    k.fetched.to_string(),
                    k.requests.to_string(),
                    k.pages.to_string(),
                    k.on_topic.to_string(),
                    f(k.harvest_rate),
                    k.documents.to_string(),
                    opt(k.fetches_per_document),
                    k.duplicates.to_string(),
                    k.tokens.to_string(),
                    k.words.to_string(),
                    k.types.to_string(),
                    opt(k.sttr),
                    k.hosts.to_string(),
                    k.top_host.clone().unwrap_or_default(),
                    f(k.top_host_share),
                    f(k.host_hhi),
                    f(k.effective_hosts),
                    languages(&k.languages),
                ]
            })
            .collect(),
    )
}

/// `compare-pairs.csv`: one row per pair of corpora.
fn pairs_table(c: &Comparison) -> Table {
    let f = |x: f64| format!("{x:.4}");
    (
        vec![
            "a",
            "b",
            "documents_jaccard",
            "documents_shared",
            "fetched_jaccard",
            "hosts_jaccard",
            "chi2",
            "df",
            "chi2_per_df",
            "words_compared",
        ],
        c.pairs
            .iter()
            .map(|p| {
                vec![
                    p.a.clone(),
                    p.b.clone(),
                    f(p.documents_jaccard),
                    p.documents_shared.to_string(),
                    f(p.fetched_jaccard),
                    f(p.hosts_jaccard),
                    format!("{:.2}", p.similarity.chi2),
                    p.similarity.df.to_string(),
                    f(p.similarity.chi2_per_df),
                    p.similarity.words.to_string(),
                ]
            })
            .collect(),
    )
}

/// `keywords.csv`: each corpus's keywords against each reference.
fn keywords_table(c: &Comparison) -> Table {
    let f = |x: f64| format!("{x:.4}");
    (
        vec![
            "focus",
            "reference",
            "rank",
            "word",
            "focus_freq",
            "reference_freq",
            "simple_maths",
            "ll",
            "log_ratio",
        ],
        c.keywords
            .iter()
            .map(|k| {
                vec![
                    k.focus.clone(),
                    k.reference.clone(),
                    k.rank.to_string(),
                    k.word.clone(),
                    k.focus_freq.to_string(),
                    k.reference_freq.to_string(),
                    f(k.simple_maths),
                    format!("{:.2}", k.ll),
                    format!("{:.3}", k.log_ratio),
                ]
            })
            .collect(),
    )
}

/// `fr=0.950;en=0.050`.
fn languages(shares: &[(String, f64)]) -> String {
    shares
        .iter()
        .map(|(l, s)| format!("{l}={s:.3}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// The summary printed after the files are written.
pub fn summary(c: &Comparison, out: &Path) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let width = c
        .corpora
        .iter()
        .map(|k| k.topic.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        s,
        "{:width$}  {:>7} {:>7} {:>7} {:>9} {:>8} {:>6} {:>6}",
        "topic", "fetched", "docs", "harvest", "words", "types", "STTR", "hosts"
    );
    for k in &c.corpora {
        let _ = writeln!(
            s,
            "{:width$}  {:>7} {:>7} {:>7.3} {:>9} {:>8} {:>6} {:>6}",
            k.topic,
            k.fetched,
            k.documents,
            k.harvest_rate,
            k.words,
            k.types,
            k.sttr.map_or("-".to_string(), |x| format!("{x:.3}")),
            k.hosts
        );
    }
    let _ = writeln!(
        s,
        "\npairs (χ²/df on {} words: 0 = same proportions; larger = less alike)",
        c.settings.similarity_words
    );
    for p in &c.pairs {
        let _ = writeln!(
            s,
            "  {} ~ {}: χ²/df {:.2}, documents Jaccard {:.3}, hosts Jaccard {:.3}",
            p.a, p.b, p.similarity.chi2_per_df, p.documents_jaccard, p.hosts_jaccard
        );
    }
    let _ = writeln!(
        s,
        "\nwritten: {0}/compare.csv, compare-pairs.csv, keywords.csv, compare.json, compare.html",
        out.display()
    );
    s
}
