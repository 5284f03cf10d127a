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
    /// Comma-separated values for spreadsheets: UTF-8 with a byte-order mark (so that Excel
    /// keeps the accents), RFC 4180 quotes, and a `'` before a value Excel would run as a
    /// formula (`=…`, `@…`, `+…`, `-…` that is not a number).
    Csv,
}

/// CQP's matching strategies, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MatchStrategy {
    /// Every position's shortest match; hits may overlap and nest.
    #[default]
    Traditional,
    /// Every position's shortest match, a hit inside the one before dropped.
    Standard,
    /// Shortest matches holding no other.
    Shortest,
    /// Every position's longest match, a hit inside the one before dropped.
    Longest,
}

impl From<MatchStrategy> for stages::explore::strategy::Strategy {
    fn from(s: MatchStrategy) -> Self {
        use stages::explore::strategy::Strategy;
        match s {
            MatchStrategy::Traditional => Strategy::Traditional,
            MatchStrategy::Standard => Strategy::Standard,
            MatchStrategy::Shortest => Strategy::Shortest,
            MatchStrategy::Longest => Strategy::Longest,
        }
    }
}

/// How concordance lines are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Corpus order.
    Position,
    /// By the words before the hit, nearest first.
    Left,
    /// By the hit, then what follows.
    Hit,
    /// By the words after the hit.
    Right,
    /// By one token: `-k` the k-th before the hit (`L1` is the one just before), `k` the
    /// k-th after it (`R1`).
    At(i32),
}

impl std::str::FromStr for Sort {
    type Err = String;

    fn from_str(text: &str) -> Result<Sort, String> {
        let lower = text.trim().to_ascii_lowercase();
        Ok(match lower.as_str() {
            "position" => Sort::Position,
            "left" => Sort::Left,
            "hit" | "node" => Sort::Hit,
            "right" => Sort::Right,
            _ => {
                let k = lower
                    .get(1..)
                    .and_then(|k| k.parse::<i32>().ok())
                    .filter(|k| (1..=50).contains(k));
                match (lower.chars().next(), k) {
                    (Some('l'), Some(k)) => Sort::At(-k),
                    (Some('r'), Some(k)) => Sort::At(k),
                    _ => {
                        return Err(format!(
                            "`{text}`: position, left, hit, right, or one token: L1…L50, R1…R50"
                        ));
                    }
                }
            }
        })
    }
}

/// Which values a statistic lists (`freq`, `colloc`, `keywords`).
#[derive(Debug, Default, Clone, clap::Args)]
pub struct ValueFilters {
    /// Leave out a stop list: a language's built-in list of function words (`fr`, `en`, `de`,
    /// `es`, `it`, `pt`, `nl`…) or a file (one value a line, `#` starts a comment); compared
    /// in lower case.
    #[arg(long, value_name = "LANG|FILE")]
    pub stop: Option<String>,
    /// Keep only values holding a letter or a digit (leaves out punctuation and symbols).
    #[arg(long)]
    pub words_only: bool,
}

/// Flags of `glaneur kwic`.
#[derive(Debug, Clone, clap::Args)]
pub struct KwicArgs {
    /// Run folder (with its `index/`) or index folder.
    pub run: PathBuf,
    /// Read the run's subcorpus of this name (`glaneur subcorpus`) instead of the whole corpus.
    #[arg(long, value_name = "NAME")]
    pub subcorpus: Option<String>,
    /// CQL query: `[word="graphe.*"%c]`, `[lemma="x" & pos="ADJ"]`, `[]{0,3}`, `within s`,
    /// `within <doc host="…"/>` (docs/guide/querying.md).
    pub query: String,
    /// Tokens of context on each side (at most 1000).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub context: u32,
    /// Show each hit in its sentence: the context stops at the sentence's ends (and at
    /// `--context` tokens, which this raises to 200 when it is left at 8).
    #[arg(long)]
    pub sentence: bool,
    /// Lines to print at most (the notice on stderr says when there are more). The lines held
    /// in memory at once (all of them, but with `--sort position --format tsv`, which streams)
    /// may not hold more than 20 million tokens together: past that, a message.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Skip this many lines of the order first (of the sample with `--sample`): with
    /// `--limit`, one page of the concordance (`--offset 50 --limit 50` is the second page).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub offset: usize,
    /// Order of the lines: position, left, hit, right, or by one token, L1…L50 (before the
    /// hit) or R1…R50 (after it). Anything but `position` reads every hit first, and keeps
    /// the first `--limit` lines of the order.
    #[arg(long, default_value = "position", value_name = "ORDER")]
    pub sort: Sort,
    /// The attribute the lines are sorted by (default: the first of `--show`), e.g. lemma or
    /// pos while the words are shown.
    #[arg(long, value_name = "ATTRIBUTE")]
    pub sort_by: Option<String>,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Matching strategy, as CQP's `set MatchingStrategy`: traditional (every position's
    /// shortest match, overlapping), standard (CQP's default: a hit inside the one before
    /// dropped), shortest, longest (docs/guide/querying.md).
    #[arg(long, value_enum, default_value = "traditional")]
    pub strategy: MatchStrategy,
    /// Attributes shown for each token, e.g. word,pos,lemma (joined by `/`).
    #[arg(long, value_delimiter = ',', default_value = "word")]
    pub show: Vec<String>,
    /// Show a random sample of this many hits instead of the first ones (every hit is read;
    /// the sample is the same for the same corpus, query and `--seed`), in `--sort` order.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// The sample's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep only the hits with a token of this one-token pattern near them (a positive
    /// filter), e.g. '[lemma="fusion"]' or '[pos="VERB"]'.
    #[arg(long, value_name = "CQL")]
    pub near: Option<String>,
    /// Drop the hits with a token of this one-token pattern near them (a negative filter).
    #[arg(long, value_name = "CQL")]
    pub not_near: Option<String>,
    /// How many tokens on each side of the hit `--near` and `--not-near` look at (inside the
    /// hit's document).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub near_window: u32,
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
    /// Read the run's subcorpus of this name (`glaneur subcorpus`) instead of the whole corpus.
    #[arg(long, value_name = "NAME")]
    pub subcorpus: Option<String>,
    /// Count the values of this token attribute (word, lc, lemma, pos), or break the tokens
    /// (or the hits of `--query`) down by this document attribute (host, lang, date, title,
    /// url, id, score, seed: the seed source of the document's crawl path).
    #[arg(long, default_value = "word")]
    pub by: String,
    /// Count only over the hits of this CQL query.
    #[arg(long)]
    pub query: Option<String>,
    /// With `--query`: which token's value is counted — `node` (the hit), `L1`…`L50` (before
    /// the hit), `R1`…`R50` (after it), inside the hit's document.
    #[arg(long, default_value = "node", value_name = "POSITION")]
    pub at: String,
    /// Add each value's dispersion over the documents: Gries' DP, the average reduced
    /// frequency (ARF) and Juilland's D (a list of a token attribute, without `--query`).
    #[arg(long)]
    pub dispersion: bool,
    /// Count n-grams of the attribute, 2 to 5 tokens, inside sentences (documents when the
    /// corpus has no sentences); `--stop` leaves out those that start or end with a stop word,
    /// `--words-only` those holding a token without a letter or digit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=5))]
    pub ngram: Option<u8>,
    /// Stop list and words only.
    #[command(flatten)]
    pub filters: ValueFilters,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Matching strategy, as CQP's `set MatchingStrategy`: traditional (every position's
    /// shortest match, overlapping), standard (CQP's default: a hit inside the one before
    /// dropped), shortest, longest (docs/guide/querying.md).
    #[arg(long, value_enum, default_value = "traditional")]
    pub strategy: MatchStrategy,
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
    /// Read the run's subcorpus of this name (`glaneur subcorpus`) instead of the whole corpus.
    #[arg(long, value_name = "NAME")]
    pub subcorpus: Option<String>,
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
    /// Least corpus frequency of a collocate (of the tokens `--filter` keeps).
    #[arg(long, default_value_t = 0)]
    pub min_collocate_freq: u64,
    /// Count as collocates only the tokens of this one-token CQL pattern, e.g.
    /// '[pos="NOUN|ADJ|VERB"]' or '[!pos="PUNCT|DET|ADP"]'.
    #[arg(long, value_name = "CQL")]
    pub filter: Option<String>,
    /// Stop list and words only.
    #[command(flatten)]
    pub filters: ValueFilters,
    /// Stop the query after this many seconds, with a message (default: no limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Matching strategy, as CQP's `set MatchingStrategy`: traditional (every position's
    /// shortest match, overlapping), standard (CQP's default: a hit inside the one before
    /// dropped), shortest, longest (docs/guide/querying.md).
    #[arg(long, value_enum, default_value = "traditional")]
    pub strategy: MatchStrategy,
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
    /// Read the run's subcorpus of this name (`glaneur subcorpus`) instead of the whole corpus.
    #[arg(long, value_name = "NAME")]
    pub subcorpus: Option<String>,
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
    /// Least frequency in the reference.
    #[arg(long, default_value_t = 0)]
    pub min_reference_freq: u64,
    /// Count only the tokens of this one-token CQL pattern, in both corpora (the reference
    /// must then be a run or index folder), e.g. '[pos="NOUN|ADJ|VERB"]'.
    #[arg(long, value_name = "CQL")]
    pub filter: Option<String>,
    /// Stop list and words only.
    #[command(flatten)]
    pub filters: ValueFilters,
    /// Rows to print at most.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}
