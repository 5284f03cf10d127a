//! Command-line flags (clap). Flags say how *this run* behaves; what corpus to build is in the
//! topic file (see `topic/`). [`dispatch`] runs a parsed command.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod dispatch;

use crate::commands::run::Stage;
pub use crate::explore::args::{CollocArgs, Format, FreqArgs, KeywordsArgs, KwicArgs, Sort};

/// glaneur builds topic corpora from the web for linguists: seeds, a keyword formula, a
/// polite best-first crawl, clean UTF-8 text, a hyperlink graph, a document × word matrix and
/// TreeTagger-ready files.
///
/// Exit codes: 0 corpus produced; 1 run finished but the corpus is empty (the summary says
/// why); 2 fatal error (bad topic, unwritable folder, damaged run); 130 interrupted (run the
/// same command again to resume).
#[derive(Debug, Parser)]
#[command(
    name = "glaneur",
    version,
    about,
    long_about = None,
    after_help = "Without a command: `glaneur run` on the embedded demo topic (offline).\n\n\
Exit codes: 0 corpus produced; 1 the run finished but the corpus is empty (the summary says why);\n\
2 fatal error (bad topic, unwritable folder, damaged run); 130 interrupted (run the same command\n\
again to resume). `glaneur seeds import`: 0 at least one result printed; 1 no result in any file\n\
(each page without results, and each file that cannot be read, is named on stderr with the reason).\n\
`glaneur seeds TOPIC`: 0 the review lists seeds to crawl; 1 none is kept; 2 fatal error."
)]
pub struct Cli {
    /// What to do; without a command, `run` on the embedded demo topic.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build (or resume) a corpus: seeds → crawl → extract → export.
    Run(RunArgs),
    /// Revisit a run's stored pages on a schedule, record every visit (not modified, same
    /// bytes, same text, changed) and estimate how often each page and server changes:
    /// `changes.csv`, `rates.csv`, `host-rates.csv` in the run folder. Exit codes: 0 done;
    /// 2 fatal error; 130 interrupted (the same command resumes).
    Monitor(MonitorArgs),
    /// Join a crawl shared by several processes or machines through PostgreSQL: this worker
    /// leases servers from the shared frontier, fetches them politely and stores what it
    /// fetched in RUN/workers/NAME/ (docs/guide/workers.md). Exit codes: 0 the
    /// crawl has nothing left; 2 fatal error; 130 interrupted (its servers go back to the
    /// others).
    Worker(WorkerArgs),
    /// Gather the workers' folders of a shared crawl (RUN/workers/*) into RUN, then extract
    /// and export there: RUN becomes an ordinary run folder. Exit codes as `glaneur run`.
    Collect {
        /// The crawl's run folder (the workers' `--out`).
        run: PathBuf,
        /// Topic file to extract and export with (default: the one the workers followed).
        #[arg(long, value_name = "FILE")]
        topic: Option<PathBuf>,
        /// No progress bars.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Validate a topic file and print it resolved, without fetching anything.
    Check {
        /// Topic file or folder (default: the embedded demo topic).
        topic: Option<PathBuf>,
    },
    /// Evaluate a keyword formula on local files (HTML: title + clean text) and show which
    /// clauses matched: tune a formula before crawling.
    Formula {
        /// The formula, e.g. '(NON "graffiti") ET ("graphe" OU "graphes")'.
        expression: String,
        /// Files to test it on.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Match case exactly.
        #[arg(long)]
        case_sensitive: bool,
        /// Distinguish letters with and without diacritics.
        #[arg(long)]
        keep_diacritics: bool,
    },
    /// Decode and clean saved pages and print them as JSON (encoding decision, title,
    /// language, blocks with their keep/drop labels, links): the pipeline's code path. One
    /// file: an indented JSON object; several: one JSON object per line, in the order given.
    Extract {
        /// HTML or text files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The URL the page came from (resolves its links; default http://localhost/FILE);
        /// one file only.
        #[arg(long)]
        url: Option<String>,
        /// Its Content-Type header, e.g. "text/html; charset=windows-1250".
        #[arg(long)]
        content_type: Option<String>,
        /// Also drop reader comments (kept by default: they are running text).
        #[arg(long)]
        drop_comments: bool,
        /// Print only the clean text (kept blocks, separated by blank lines), not JSON; several
        /// files are separated by a form feed line.
        #[arg(long)]
        text: bool,
    },
    /// Check a run folder: SQLite's integrity, every stored response read back where
    /// crawl.sqlite says it is, the WARC file from end to end. Changes nothing unless
    /// `--refetch` is given. Exit codes: 0 sound; 1 pages without a readable stored response
    /// (or a damaged crawl.sqlite); 2 the folder cannot be checked.
    Verify {
        /// The run folder (`--out` of the run).
        run: PathBuf,
        /// Put the pages whose stored response is damaged back in the frontier: the next
        /// `glaneur run` with the same topic and `--out` fetches them again.
        #[arg(long)]
        refetch: bool,
    },
    /// Seeds: gather a topic's seeds for review before the crawl (`glaneur seeds TOPIC`:
    /// RUN/seeds-review.tsv, whose `keep` column `glaneur run` obeys), or read saved
    /// search-engine result pages (`glaneur seeds import`).
    Seeds(SeedsArgs),
    /// Print the tokens of a plain-text file, one per line, exactly as they go into the
    /// TreeTagger files.
    Tokenize {
        /// Language (ISO 639-1): fr, en, de, it, es; others get language-neutral rules.
        #[arg(long, default_value = "fr")]
        lang: String,
        /// A plain-text file (any encoding; detected); `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Build the query index of a vertical file (any CWB `.vrt`); `glaneur run` builds
    /// RUN/index from its own `.vrt` by itself.
    Index {
        /// The vertical file: one token per line, TAB-separated columns, `<text>`, `<p>`, `<s>`.
        vrt: PathBuf,
        /// The index folder to write (replaced if it exists).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Names of the token columns, e.g. word,pos,lemma (default: word for one column,
        /// word,pos,lemma for three, as TreeTagger writes them).
        #[arg(long, value_delimiter = ',', value_name = "NAMES")]
        columns: Option<Vec<String>>,
    },
    /// Search the documents: ranked by relevance (a word in the title weighs more than in a
    /// heading, more than in the body), with a snippet; words are stemmed and accents folded.
    Search {
        /// Run folder (with its `search/`).
        run: PathBuf,
        /// Words, "a phrase", +required, -excluded, title:word.
        #[arg(allow_hyphen_values = true)]
        query: String,
        /// Documents to print at most.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Only documents from this host.
        #[arg(long)]
        host: Option<String>,
        /// Only documents in this language (e.g. fr).
        #[arg(long)]
        lang: Option<String>,
        /// One JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Concordance: the hits of a CQL query in context, e.g. '[lemma="graphe"] [pos="ADJ"]'.
    Kwic(KwicArgs),
    /// Frequency list of a run's words, lower-cased words, lemmas or parts of speech, over the
    /// whole corpus or over the hits of a query.
    Freq(FreqArgs),
    /// Collocations of the hits of a CQL query: logDice, MI, t-score or log-likelihood.
    Colloc(CollocArgs),
    /// Keywords of a run against a reference corpus (another run, or a frequency list).
    Keywords(KeywordsArgs),
    /// Word sketch of a lemma: its collocates by grammatical relation (object of, modifier,
    /// and/or…), scored by logDice, from a sketch grammar in CQL (French and English shipped).
    Sketch(crate::explore::SketchArgs),
    /// A named subcorpus of a run: the documents whose attributes match (`--where
    /// host=docs\.gimp.*`), or that hold a hit of a query; every explorer command reads it with
    /// `--subcorpus NAME`. Without a name, the run's subcorpora.
    Subcorpus(crate::explore::SubcorpusArgs),
    /// Compare finished corpora: sizes, harvest, vocabulary, hosts and languages side by side;
    /// per pair the overlap of documents and hosts, Kilgarriff's χ² similarity and the keywords
    /// of each against the other (compare.csv, compare-pairs.csv, keywords.csv, compare.json,
    /// compare.html).
    Compare(CompareArgs),
    /// Several topics crawled together in one process — each URL requested once for all of
    /// them, each server asked by one topic at a time with the largest delay of the topics that
    /// may ask it — each into its own run folder; then their corpora compared
    /// (batch/compare.csv, …).
    Batch(BatchArgs),
    /// A local web interface over a folder of topics: start, stop and resume runs, follow a
    /// crawl live, read the decision log and the report (http://127.0.0.1:PORT/).
    Serve {
        /// The folder of topics (each in NAME/topic.toml).
        #[arg(default_value = "corpora")]
        dir: PathBuf,
        /// Port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 8040)]
        port: u16,
        /// Address to listen on; anything but a loopback address requires the token printed
        /// at start.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// HTTP proxy for the runs started from the interface (as `glaneur run --proxy`).
        #[arg(long)]
        proxy: Option<String>,
        /// A host name this server may be reached by, besides localhost and its IP addresses
        /// (repeat for several): requests for any other name are refused, so that no web page
        /// can reach it through a name of its own.
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_hosts: Vec<String>,
    },
    /// Start a topic: write DIR/topic.toml, a commented template that `glaneur check`
    /// accepts, to edit (never overwrites an existing topic).
    Init {
        /// The topic's folder, e.g. corpora/graphes (its last part names the topic).
        dir: PathBuf,
    },
}

/// `glaneur seeds TOPIC [--fetch]`, or `glaneur seeds import FILE…`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SeedsArgs {
    /// `import`: read saved result pages.
    #[command(subcommand)]
    pub command: Option<SeedsCommand>,
    /// Topic file or folder whose seeds are gathered (as `glaneur run` gathers them: nothing
    /// is asked twice) and listed in RUN/seeds-review.tsv, with `keep` yes for the seeds in
    /// scope and no for the others; an existing review keeps its choices, new seeds are added.
    #[arg(required = true)]
    pub topic: Option<PathBuf>,
    /// Run folder (default: `run/` beside the topic file), as for `glaneur run`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Send every request through this HTTP proxy.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Also request the page of each seed the review keeps, once (robots.txt obeyed, the
    /// topic's politeness delay between requests to a server): the review shows its title and
    /// whether the formula accepts it.
    #[arg(long)]
    pub fetch: bool,
    /// No progress lines.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `glaneur seeds …`.
#[derive(Debug, Subcommand)]
pub enum SeedsCommand {
    /// Print the organic results of saved result pages (HTML saved from a browser, or WARC
    /// files) as JSON lines: engine, query, page, rank, url, title, snippet, file,
    /// retrieved_at. The same parser feeds `glaneur run` (`[seeds] result_pages`).
    Import {
        /// HTML or WARC (`.warc`, `.warc.gz`) files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The engine, when detection from the page is wrong: google, bing, yahoo, qwant,
        /// ecosia, brave, ask, duckduckgo, baidu, yandex.
        #[arg(long, value_parser = parse_engine)]
        engine: Option<stages::seeds::serp::Engine>,
    },
}

fn parse_engine(s: &str) -> Result<stages::seeds::serp::Engine, String> {
    stages::seeds::serp::Engine::from_name(s).ok_or_else(|| {
        format!(
            "unknown engine `{s}`: one of {}",
            stages::seeds::serp::Engine::ALL
                .map(|e| e.name())
                .join(", ")
        )
    })
}

/// Flags of `glaneur run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunArgs {
    /// Topic file (`corpora/NAME/topic.toml`) or its folder. Default: the embedded demo topic,
    /// which replays the recorded web in `corpora/demo/web.warc.gz` (no network needed).
    pub topic: Option<PathBuf>,
    /// Run folder (default: `run/` beside the topic file). An existing run folder is resumed.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Start at this stage and reuse what the earlier stages stored (`--from extract` rebuilds
    /// the documents and everything after them without fetching).
    #[arg(long, value_enum, value_name = "STAGE", default_value = "seeds")]
    pub from: Stage,
    /// Stop after this stage (default: parse, the last). `--to crawl` fetches only; a later
    /// `--from extract` goes on from what it stored.
    #[arg(long, value_enum, value_name = "STAGE")]
    pub to: Option<Stage>,
    /// Send every request through this HTTP proxy (e.g. `http://127.0.0.1:3128`).
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Crawl a recorded web from this WARC file instead of the network (no politeness delays:
    /// no server is contacted).
    #[arg(long, value_name = "FILE.warc.gz")]
    pub replay: Option<PathBuf>,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
    /// Fetch every stored page again, conditionally (`If-None-Match` / `If-Modified-Since` from
    /// its stored `ETag` / `Last-Modified`): unchanged pages answer `304` and keep their stored
    /// copy, changed ones replace it; new links are followed as usual.
    #[arg(long)]
    pub revisit: bool,
    /// Date every visit by the time held in FILE (seconds since 1970) instead of the wall
    /// clock: simulations against a simulated web that reads the same file
    /// (docs/guide/monitor.md, "Simulations").
    #[arg(long, value_name = "FILE")]
    pub virtual_clock: Option<PathBuf>,
    /// Keep the crawl's frontier in this PostgreSQL database (connection string) instead of
    /// crawl.sqlite: this process is one worker of the shared crawl (see `glaneur worker`),
    /// and when the crawl has nothing left its folder is collected, extracted and exported.
    #[arg(long, value_name = "POSTGRES")]
    pub store: Option<String>,
}

/// Flags of `glaneur worker`.
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// Topic file or folder (every worker of a crawl uses the same file).
    pub topic: PathBuf,
    /// The shared frontier: a PostgreSQL connection string, e.g.
    /// `postgres://glaneur@db.lab.example/corpora` or `host=/run/postgresql dbname=corpora`.
    #[arg(long, value_name = "POSTGRES")]
    pub store: String,
    /// Crawl id in the database (default: the topic's name): workers with the same id share
    /// one crawl.
    #[arg(long, value_name = "ID")]
    pub crawl: Option<String>,
    /// The crawl's run folder (default: `run/` beside the topic file); this worker writes in
    /// `workers/NAME/` inside it.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// This worker's name (default: the machine's name and the process id).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Seconds a server stays leased to a worker that stopped renewing it (killed, cut off)
    /// before another worker may take it over.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::commands::workers::DEFAULT_LEASE_SECONDS)]
    pub lease_seconds: f64,
    /// Send every request through this HTTP proxy.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Leave the reading of this worker's pages to `glaneur collect` (by default the worker
    /// reads them when the crawl ends, on its own machine, and collect reuses that reading).
    #[arg(long)]
    pub no_extract: bool,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Flags of `glaneur monitor`.
#[derive(Debug, clap::Args)]
pub struct MonitorArgs {
    /// Topic file or folder whose run folder holds the pages to watch.
    pub topic: Option<PathBuf>,
    /// Run folder (default: `run/` beside the topic file).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How long to watch: 30d, 12h, 90m, 2w… Run the command again later to extend the history.
    #[arg(long = "for", value_name = "DURATION", default_value = "1d", value_parser = crate::commands::monitor::parse_duration)]
    pub duration: f64,
    /// poisson: exponential intervals of mean --interval (the unbiased sample of seed 000);
    /// adaptive: about 1.6/λ̂ for each page's estimated rate λ̂ (3/λ̂ when its Last-Modified
    /// dates can be trusted), within the bounds below. Default: the topic's [monitor] policy,
    /// else adaptive.
    #[arg(long, value_enum)]
    pub policy: Option<crate::topic::PolicyName>,
    /// Poisson: the mean interval between two visits of a page; adaptive: the first interval.
    /// Default: [monitor] interval_seconds, else 1d.
    #[arg(long, value_name = "DURATION", value_parser = crate::commands::monitor::parse_duration)]
    pub interval: Option<f64>,
    /// The shortest interval between two visits of a page. Default: [monitor]
    /// min_interval_seconds, else 1h.
    #[arg(long, value_name = "DURATION", value_parser = crate::commands::monitor::parse_duration)]
    pub min_interval: Option<f64>,
    /// The longest interval between two visits of a page. Default: [monitor]
    /// max_interval_seconds, else 60d.
    #[arg(long, value_name = "DURATION", value_parser = crate::commands::monitor::parse_duration)]
    pub max_interval: Option<f64>,
    /// Send every request through this HTTP proxy.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Read and move the monitor's clock in FILE (seconds since 1970) instead of waiting on the
    /// wall clock: a month of revisits of a simulated web in seconds.
    #[arg(long, value_name = "FILE")]
    pub virtual_clock: Option<PathBuf>,
    /// Leave a page once its history holds this many revisits (the monitor ends when every
    /// page has them, or at the end of --for).
    #[arg(long, value_name = "N")]
    pub visits: Option<usize>,
    /// Leave the corpus as it is at the end: by default, when a page's text changed and the
    /// run folder has a corpus, the extract and export stages run again (only the changed
    /// pages are read again).
    #[arg(long)]
    pub no_refresh: bool,
    /// No progress lines.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Flags of `glaneur batch`.
#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// Topic files or folders; a folder without topic.toml stands for its sub-folders' topics
    /// (`glaneur batch corpora/`). Two or more topics.
    #[arg(required = true)]
    pub topics: Vec<PathBuf>,
    /// Folder of the batch's own files: batch.json and the comparison.
    #[arg(long, default_value = "batch")]
    pub out: PathBuf,
    /// Put each topic's run folder here, under the topic's name (default: the topic's run/).
    #[arg(long)]
    pub runs: Option<PathBuf>,
    /// HTTP proxy for every request.
    #[arg(long)]
    pub proxy: Option<String>,
    /// Megabytes of responses kept in memory for the other topics; past it the oldest are
    /// forgotten, and fetched again if another topic asks for them.
    #[arg(long, default_value_t = 1024)]
    pub cache_mb: usize,
    /// The comparison of the corpora at the end.
    #[command(flatten)]
    pub comparison: ComparisonArgs,
}

/// Flags of `glaneur compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Run folders (or topic folders and topic files, whose `run/` is read): two or more.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Folder the tables and the page are written to.
    #[arg(long, default_value = "compare")]
    pub out: PathBuf,
    /// The comparison's settings.
    #[command(flatten)]
    pub comparison: ComparisonArgs,
}

/// The settings of a comparison of corpora (`glaneur compare`, and the end of `glaneur batch`).
#[derive(Debug, Clone, clap::Args)]
pub struct ComparisonArgs {
    /// Words compared by Kilgarriff's χ²: the most frequent of each pair joined.
    #[arg(long, default_value_t = 500)]
    pub words: usize,
    /// Keywords listed per corpus and reference.
    #[arg(long, default_value_t = 20)]
    pub keywords: usize,
    /// Simple maths' smoothing constant n (1 favours rare words, 100 or 1000 frequent ones).
    #[arg(long, default_value_t = 1.0)]
    pub n: f64,
    /// Least frequency of a keyword in its corpus.
    #[arg(long, default_value_t = 3)]
    pub min_freq: u64,
    /// Segment of the standardised type/token ratio, in words.
    #[arg(long, default_value_t = 1000)]
    pub segment: usize,
}

impl ComparisonArgs {
    /// The comparison of `runs`, written to `out`, with these settings.
    pub fn options(
        &self,
        runs: Vec<PathBuf>,
        out: PathBuf,
    ) -> crate::commands::compare::CompareOptions {
        crate::commands::compare::CompareOptions {
            runs,
            out,
            words: self.words,
            keywords: self.keywords,
            n: self.n,
            min_freq: self.min_freq,
            segment: self.segment,
        }
    }
}
