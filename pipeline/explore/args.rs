//! The flags of the explorer's commands (`glaneur kwic`, `freq`, `colloc`, `keywords`), which
//! the command line parses and the web interface fills in.
//!
//! **In:** clap. **Out:** the commands' arguments. **Invariants:** every value clap accepts is
//! one the commands can run with (ranges checked here or named by the command).

use std::path::PathBuf;

/// How query results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for reading.
    Text,
    /// Tab-separated values with a header (spreadsheets, R, pandas).
    Tsv,
    /// One JSON document.
    Json,
}

/// How concordance lines are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sort {
    /// Corpus order.
    Position,
    /// By the words before the hit, nearest first.
    Left,
    /// By the hit, then what follows.
    Hit,
    /// By the words after the hit.
    Right,
}

/// Flags of `glaneur kwic`.
#[derive(Debug, clap::Args)]
pub struct KwicArgs {
    /// Run folder (with its `index/`) or index folder.
    pub run: PathBuf,
    /// CQL query: `[word="graphe.*"%c]`, `[lemma="x" & pos="ADJ"]`, `[]{0,3}`, `within s`,
    /// `within <doc host="…"/>` (docs/guide/querying.md).
    pub query: String,
    /// Tokens of context on each side (at most 1000).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub context: u32,
    /// Lines to print at most (the notice on stderr says when there are more). The lines held
    /// in memory at once (all of them, but with `--sort position --format tsv`, which streams)
    /// may not hold more than 20 million tokens together: past that, a message.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Order of the lines (anything but `position` reads every hit first, and keeps the first
    /// `--limit` lines of the order).
    #[arg(long, value_enum, default_value = "position")]
    pub sort: Sort,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Attributes shown for each token, e.g. word,pos,lemma (joined by `/`).
    #[arg(long, value_delimiter = ',', default_value = "word")]
    pub show: Vec<String>,
    /// Print only the number of hits (and of documents holding them).
    #[arg(long)]
    pub count: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Flags of `glaneur freq`.
#[derive(Debug, clap::Args)]
pub struct FreqArgs {
    /// Run folder (with its `index/`) or index folder.
    pub run: PathBuf,
    /// Count the values of this attribute: word, lc, lemma, pos.
    #[arg(long, default_value = "word")]
    pub by: String,
    /// Count only over the hits of this CQL query.
    #[arg(long)]
    pub query: Option<String>,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Rows to print at most.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Flags of `glaneur colloc`.
#[derive(Debug, clap::Args)]
pub struct CollocArgs {
    /// Run folder (with its `index/`) or index folder.
    pub run: PathBuf,
    /// CQL query giving the node, e.g. '[lemma="graphe"]'.
    pub query: String,
    /// Tokens on each side of the node.
    #[arg(long, default_value_t = 5)]
    pub window: u32,
    /// Collocates as values of this attribute: word, lc, lemma, pos.
    #[arg(long, default_value = "lc")]
    pub by: String,
    /// Association measure: logdice, mi, t, ll (formulas in docs/guide/querying.md, "Statistics").
    #[arg(long, default_value = "logdice", value_parser = ["logdice", "mi", "t", "ll"])]
    pub measure: String,
    /// Keep the window inside this region too (e.g. s); it never crosses a document.
    #[arg(long)]
    pub within: Option<String>,
    /// Least co-occurrences for a collocate to be listed.
    #[arg(long, default_value_t = 2)]
    pub min_freq: u64,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Rows to print at most.
    #[arg(long, default_value_t = 30)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Flags of `glaneur keywords`.
#[derive(Debug, clap::Args)]
pub struct KeywordsArgs {
    /// Run folder (with its `index/`) or index folder: the focus corpus.
    pub run: PathBuf,
    /// The reference: another run or index folder, or a frequency list (`value<TAB>count`
    /// per line; a first line whose count is not a number is a header).
    #[arg(long)]
    pub reference: PathBuf,
    /// Compare values of this attribute: word, lc, lemma, pos.
    #[arg(long, default_value = "lc")]
    pub by: String,
    /// Simple maths' smoothing constant n (1 favours rare words, 100 or 1000 frequent ones).
    #[arg(long, default_value_t = 1.0)]
    pub n: f64,
    /// Least frequency in the focus corpus.
    #[arg(long, default_value_t = 3)]
    pub min_freq: u64,
    /// Rows to print at most.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}
