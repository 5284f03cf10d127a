//! The topic file's sections as written by the user, with their defaults: `[seeds]`,
//! `[search]`, `[formula]`, `[domains]`, `[crawl]`, `[focus]`, `[politeness]`, `[urls]`,
//! `[traps]`, `[output]`, `[text]`, `[matrix]`, `[similarity]`, `[monitor]` (`[annotate]` and
//! `[parse]` are in `annotate.rs`).
//!
//! **In:** TOML. **Out:** [`TopicFile`]. **Invariants:** every table rejects unknown fields;
//! every default is stated here once (`validate.rs` checks the ranges, `mod.rs` resolves).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The topic file as written by the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicFile {
    /// Short name of the corpus (letters, digits, `-`, `_`); used in file names and reports.
    pub name: String,
    /// Free text describing the corpus, copied into the report.
    #[serde(default)]
    pub description: String,
    /// Target languages as ISO 639-1 codes (`["fr"]`); documents in other languages are
    /// dropped with the reason `language`. Empty: any language.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Where the crawl starts.
    #[serde(default)]
    pub seeds: Seeds,
    /// Seeds from a search API, queried with the seed terms (BootCaT's method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchSection>,
    /// The keyword formula `F` (absent: every page is on topic).
    #[serde(default)]
    pub formula: FormulaSection,
    /// The domain restriction `D`.
    #[serde(default)]
    pub domains: Domains,
    /// Crawl limits and strategy.
    #[serde(default)]
    pub crawl: Crawl,
    /// Focused-crawl settings: tunnelling, hold-back, PageRank period.
    #[serde(default)]
    pub focus: Focus,
    /// Weights of the topic score `S(p)` and of the link priority.
    #[serde(default)]
    pub score: stages::focus::score::Weights,
    /// Politeness towards the servers.
    pub politeness: Politeness,
    /// Crawler-trap defences.
    #[serde(default)]
    pub traps: Traps,
    /// Where URLs come from besides HTML links: sitemaps, feeds, JavaScript.
    #[serde(default)]
    pub discovery: Discovery,
    /// URL canonicalisation: parameters dropped, per-script parameter rules.
    #[serde(default)]
    pub urls: Urls,
    /// What to write and how.
    #[serde(default)]
    pub output: Output,
    /// Cross-page text clean-up: repeated paragraphs, paragraph language, duplicates.
    #[serde(default)]
    pub text: TextSection,
    /// The document × word matrix.
    #[serde(default)]
    pub matrix: MatrixSection,
    /// The document similarity graph.
    #[serde(default)]
    pub similarity: SimilaritySection,
    /// How `glaneur monitor` schedules its revisits.
    #[serde(default)]
    pub monitor: MonitorSection,
    /// The tagging stage between extract and export (absent: no tagging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotate: Option<super::AnnotateSection>,
    /// Syntex and Upery run on the tagged corpus after the export (absent: neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse: Option<super::ParseSection>,
    /// Crawl this recorded web (a WARC file, relative to the topic folder) instead of the live
    /// one: for demos, teaching, and comparing crawl settings on exactly the same web.
    /// `--replay` on the command line overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<PathBuf>,
}

/// `[seeds]`: the starting set `G0`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seeds {
    /// Seed terms `C`: `[search]` sends random tuples of them to a search API.
    #[serde(default)]
    pub terms: Vec<String>,
    /// Seed URLs.
    #[serde(default)]
    pub urls: Vec<String>,
    /// Search-engine result pages saved from a browser (HTML files), relative to the topic
    /// folder; their organic result URLs become seeds.
    #[serde(default)]
    pub result_pages: Vec<PathBuf>,
    /// Plain URL lists (one URL per line, `#` comments), relative to the topic folder.
    #[serde(default)]
    pub url_lists: Vec<PathBuf>,
}

/// `[search]`: querying a search API for seeds. Keys come from the environment only (see
/// `seeds/apis.rs`), never from the topic file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSection {
    /// Which API: `brave`, `mojeek`, `searxng`, `google`, or without a key `mediawiki` and
    /// `commoncrawl`.
    pub backend: stages::seeds::queries::Backend,
    /// The API's URL (for SearXNG: the instance's URL, `/search` is added); default: the
    /// provider's public endpoint (MediaWiki: the Wikipedia of the topic's first language;
    /// Common Crawl: the latest collection glaneur knows). `GLANEUR_SEARCH_ENDPOINT` in the
    /// environment overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// `commoncrawl`: the host names or URL prefixes whose captures become seeds
    /// (`example.org`, `example.org/blog/`, `*.example.org`); default: the host names of
    /// `[domains] allow`, each with its subdomains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<String>,
    /// `mediawiki`: an article's URL with `$1` for its title, when the wiki's articles are not
    /// where the endpoint suggests (`…/w/api.php` → `…/wiki/$1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article_path: Option<String>,
    /// Queries sent as written (before the random tuples).
    #[serde(default)]
    pub queries: Vec<String>,
    /// Terms per random tuple.
    #[serde(default = "default_tuple_size")]
    pub tuple_size: usize,
    /// Random tuples of `[seeds] terms` to send; default 10 when there are terms, else 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuples: Option<usize>,
    /// Seed of the tuple generator (SplitMix64): the same seed gives the same tuples.
    #[serde(default = "default_random_seed")]
    pub random_seed: u64,
    /// Results wanted per query (result pages are requested until this many arrive).
    #[serde(default = "default_results_per_query")]
    pub results_per_query: u32,
    /// Requests sent at most over the whole run folder (retries count); then searching stops
    /// with a message and the crawl goes on with the seeds found.
    #[serde(default = "default_max_requests")]
    pub max_requests: u64,
    /// ISO 639-1 language asked of the API; default: the topic's language when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 country asked of the API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Seconds between the end of one API response and the next request.
    #[serde(default = "default_delay")]
    pub delay_seconds: f64,
    /// Send the API requests through `--proxy` too. Off by default: the proxy is for the crawl,
    /// and the requests carry the API key.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub use_proxy: bool,
}

fn default_tuple_size() -> usize {
    3
}

fn default_random_seed() -> u64 {
    1
}

fn default_results_per_query() -> u32 {
    20
}

fn default_max_requests() -> u64 {
    100
}

impl SearchSection {
    /// Random tuples to draw.
    pub fn tuple_count(&self, terms: &[String]) -> usize {
        self.tuples.unwrap_or(if terms.is_empty() { 0 } else { 10 })
    }
}

/// The queries of `[search]`, each compiled for its backend.
#[derive(Debug, Clone)]
pub struct SearchPlan {
    /// The backend.
    pub backend: stages::seeds::queries::Backend,
    /// Every query in sending order, with its compiled form.
    pub queries: Vec<(
        stages::seeds::queries::Query,
        stages::seeds::queries::CompiledQuery,
    )>,
}

/// `[formula]`: the propositional formula over words.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormulaSection {
    /// The formula, e.g. `(NON "graffiti") ET ("graphe" OU "graphes")`; empty (or no
    /// `[formula]` table): no filter, every page is on topic.
    #[serde(default)]
    pub expression: String,
    /// Match case exactly (default: no).
    #[serde(default)]
    pub case_sensitive: bool,
    /// Distinguish `é` from `e` (default: no).
    #[serde(default)]
    pub keep_diacritics: bool,
}

/// `[domains]`: which hosts may be crawled.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domains {
    /// Host suffixes or TLDs (`.fr`, `inria.fr`); empty: every host.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Host suffixes never crawled (wins over `allow`).
    #[serde(default)]
    pub deny: Vec<String>,
    /// Crawl hosts whose address is loopback, private, link-local or otherwise not on the
    /// public internet (an intranet, a test web on this machine). Off by default: a crawl run
    /// from a university server must not read its intranet because a page linked to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_private_addresses: bool,
}

/// `[crawl]`: limits and strategy.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Crawl {
    /// Stop after this many pages fetched (robots.txt not counted).
    pub max_pages: u64,
    /// Do not follow links beyond this depth (seeds are depth 0).
    pub max_depth: u32,
    /// At most this many pages from one server.
    pub max_pages_per_host: u64,
    /// Order of the frontier.
    pub strategy: Strategy,
    /// Requests in flight at once, over all servers (per server: `[politeness]
    /// connections_per_host`).
    pub concurrency: usize,
    /// Bodies longer than this are cut (the record says so).
    pub max_body_bytes: u64,
    /// Memory that pages downloaded and waiting for their analysis (decode, skim, scores,
    /// WARC compression) may hold; while it is full no request starts. Separate from
    /// `concurrency`, so that a burst of large pages, which the CPU takes a few seconds to
    /// read, does not stop the requests to every other server meanwhile.
    pub backlog_bytes: u64,
    /// Give up on a request after this many seconds.
    pub timeout_seconds: f64,
    /// Queued URLs kept in memory (about 44 bytes each); beyond, new URLs wait in `crawl.sqlite`
    /// only and are read back, best first, when their server's in-memory queue runs dry.
    pub frontier_in_memory: usize,
    /// Links whose file name ends in an extension of a format glaneur does not keep (`.pdf`,
    /// `.png`, `.zip`…) are recorded as `file-type` without being fetched.
    pub skip_file_extensions: bool,
    /// Links read from one page (the first ones, in document order); a page with more is
    /// recorded with `links_cut` in its detail. Heritrix reads 6,000.
    pub max_links_per_page: usize,
    /// Attributes read on one element (the first ones); the rest are ignored before parsing,
    /// so that a page built to make parsers slow (hundreds of thousands of attributes on one
    /// tag) costs no more than an ordinary one.
    pub max_attributes_per_element: usize,
}

/// Default `[crawl] backlog_bytes`, sized to the machine: 64 MiB per core, at least 64 MiB, at
/// most 1 GiB and at most an eighth of the memory.
///
/// The backlog only has to cover the few seconds in which the analyses catch up with a burst:
/// the crawl gets through about 24 MB of HTML per CPU-second (B1's Debian manuals, fetch and
/// storage included), so 64 MiB is under 3 s of one core's work; beyond, pages that wait for a
/// busy CPU only hold memory. With a fixed 1 GiB, a crawl sharing its two cores with two busy
/// processes peaked at about 500 MB; with this default, about 320 MB (docs/BENCHMARKS.md).
pub fn default_backlog_bytes() -> u64 {
    const MIB: u64 = 1024 * 1024;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let bytes = cores.saturating_mul(64 * MIB).clamp(64 * MIB, 1024 * MIB);
    match total_memory_bytes() {
        Some(total) => bytes.min(total / 8).max(16 * MIB),
        None => bytes,
    }
}

/// `MemTotal` of `/proc/meminfo` (Linux); `None` elsewhere or when unreadable.
fn total_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

impl Default for Crawl {
    fn default() -> Crawl {
        Crawl {
            max_pages: 500,
            max_depth: 5,
            max_pages_per_host: 1000,
            strategy: Strategy::BestFirst,
            concurrency: 16,
            max_body_bytes: 5 * 1024 * 1024,
            backlog_bytes: default_backlog_bytes(),
            timeout_seconds: 30.0,
            frontier_in_memory: 1_000_000,
            skip_file_extensions: true,
            max_links_per_page: 10_000,
            max_attributes_per_element: 1_000,
        }
    }
}

/// Frontier order (the strategies and their keys are in `stages::focus::strategy`).
pub use stages::focus::strategy::Strategy;

/// `[focus]`: how a focused crawl spends a limited budget.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Focus {
    /// Tunnelling limit: the links of a page are followed only while at most this many
    /// off-topic pages in a row lead to it (the page included); URLs not queued because of it
    /// are recorded as `tunnel-limit`.
    pub tunnel: u32,
    /// `best-first` hold-back margin: with more URLs waiting than pages left in the budget, a
    /// server whose best URL is more than this below the best URL waiting anywhere gets no
    /// request.
    pub margin: f64,
    /// `pagerank`: recompute the partial PageRank after this many pages.
    pub pagerank_every: u64,
    /// `best-first`: a server competes for a request slot (and in the hold-back rule, relative
    /// to the best candidate server's yield) with its best URL's priority times its yield so
    /// far, the share of its fetched pages that satisfy the formula (with a uniform prior: ½
    /// before any page).
    pub host_yield: bool,
}

impl Default for Focus {
    fn default() -> Focus {
        Focus {
            tunnel: 3,
            margin: 0.2,
            pagerank_every: 100,
            host_yield: true,
        }
    }
}

/// `[politeness]`: how the crawler treats servers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Politeness {
    /// A URL or e-mail address where site owners can reach you; it goes into the
    /// `User-Agent` (`glaneur/VERSION (+CONTACT)`). Required.
    pub contact: String,
    /// Seconds between the end of one response and the next request to the same server.
    #[serde(default = "default_delay")]
    pub delay_seconds: f64,
    /// Longest robots.txt `Crawl-delay` honoured, in seconds (a longer one is capped).
    #[serde(default = "default_max_crawl_delay")]
    pub max_crawl_delay_seconds: f64,
    /// Requests in flight at once to one server. 1 (the default) is the polite setting; more
    /// is for servers you own or have permission to load (benchmarks, intranets).
    #[serde(default = "default_connections_per_host")]
    pub connections_per_host: u32,
    /// The delay also grows to this many times the server's last response time (Mercator and
    /// Heritrix do the same): a slow server is a busy server. 0 turns it off.
    #[serde(default = "default_response_time_factor")]
    pub response_time_factor: f64,
    /// First pause after a server error (5xx, timeout, refused connection) or a `429`/`503`
    /// without `Retry-After`; it doubles with every further failure in a row.
    #[serde(default = "default_backoff")]
    pub backoff_seconds: f64,
    /// Give up on a server after this many failures in a row (its waiting URLs are recorded
    /// with the reason `server-gave-up`).
    #[serde(default = "default_give_up_after")]
    pub give_up_after: u32,
    /// Longest `Retry-After` waited for, in seconds; a server asking for more is given up.
    #[serde(default = "default_max_retry_after")]
    pub max_retry_after_seconds: f64,
    /// How often one URL is tried again after a server error or a timeout.
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Re-read a server's robots.txt when the copy is older than this (RFC 9309: at most 24 h).
    #[serde(default = "default_robots_ttl")]
    pub robots_ttl_seconds: f64,
}

fn default_delay() -> f64 {
    1.0
}

fn default_max_crawl_delay() -> f64 {
    30.0
}

fn default_connections_per_host() -> u32 {
    1
}

fn default_response_time_factor() -> f64 {
    2.0
}

fn default_backoff() -> f64 {
    10.0
}

fn default_give_up_after() -> u32 {
    5
}

fn default_max_retry_after() -> f64 {
    3600.0
}

fn default_retries() -> u32 {
    2
}

fn default_robots_ttl() -> f64 {
    24.0 * 3600.0
}

/// `[urls]`: how URLs become seen-set keys (on top of the fixed rules of `stages::web::urlnorm`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Urls {
    /// Query parameters dropped everywhere (`*` at the end: any suffix). Replaces the default
    /// list of session and tracking parameters when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_params: Option<Vec<String>>,
    /// Seed 004's per-script rules for dynamic pages.
    #[serde(default, rename = "script", skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<ScriptRule>,
}

/// `[[urls.script]]`: which query parameters of one script decide the content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptRule {
    /// Host name (`www.example.com`).
    pub host: String,
    /// Path of the script (`/tisk.php`).
    pub path: String,
    /// Parameters that must be present (else the URL is recorded as `url-rule`).
    #[serde(default)]
    pub required: Vec<String>,
    /// Parameters that must be present with one of the listed values.
    #[serde(default)]
    pub enumerated: std::collections::BTreeMap<String, Vec<String>>,
    /// Parameters kept when present.
    #[serde(default)]
    pub optional: Vec<String>,
    /// Optional parameters added with this value when absent.
    #[serde(default)]
    pub defaults: std::collections::BTreeMap<String, String>,
}

impl Urls {
    /// The canonicaliser: the default drop list unless `drop_params` replaces it, and the
    /// topic's one URL length limit (`[traps] max_url_length`, given here).
    pub fn canonicalizer(&self, max_url_length: usize) -> stages::web::urlnorm::Canonicalizer {
        match &self.drop_params {
            Some(list) => stages::web::urlnorm::Canonicalizer::with_drop_params(list),
            None => stages::web::urlnorm::Canonicalizer::default(),
        }
        .with_max_url_length(max_url_length)
    }

    /// The per-script rules, for `stages::web::urlnorm`.
    pub fn rules(&self) -> Vec<stages::web::urlnorm::ParamRule> {
        self.scripts
            .iter()
            .map(|s| stages::web::urlnorm::ParamRule {
                host: s.host.to_ascii_lowercase(),
                path: s.path.clone(),
                required: s.required.clone(),
                enumerated: s.enumerated.clone().into_iter().collect(),
                optional: s.optional.clone(),
                defaults: s.defaults.clone().into_iter().collect(),
            })
            .collect()
    }
}

/// `[traps]`: URL shapes that generate endless pages, each refused with its own reason.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Traps {
    /// Longest canonical URL followed, in bytes (reason `trap-url-length`).
    pub max_url_length: usize,
    /// Most path segments (`/a/b/c` has 3; reason `trap-path-depth`).
    pub max_path_depth: usize,
    /// A segment or a run of up to three segments repeated more than this many times in a row
    /// (`/a/b/a/b/a/b`; reason `trap-repeated-segments`).
    pub max_repeats: usize,
    /// Distinct query strings followed for one path on one server (reason
    /// `trap-query-variants`).
    pub max_query_variants: u32,
    /// Calendar-like URLs (dates or year/month/day parameters) followed per server (reason
    /// `trap-calendar`).
    pub max_calendar_pages: u32,
}

impl Default for Traps {
    fn default() -> Traps {
        let limits = stages::web::traps::TrapLimits::default();
        Traps {
            max_url_length: limits.max_url_length,
            max_path_depth: limits.max_path_depth,
            max_repeats: limits.max_repeats,
            max_query_variants: limits.max_query_variants,
            max_calendar_pages: limits.max_calendar_pages,
        }
    }
}

/// `[discovery]`: the sources of URLs besides a page's HTML links. Each can be switched off.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Discovery {
    /// Read the sitemaps a server's robots.txt names (`Sitemap:` lines) and the sitemaps they
    /// index; their URLs are queued with `via = 'sitemap'`.
    pub sitemaps: bool,
    /// When robots.txt names no sitemap, ask for `/sitemap.xml` (when robots.txt allows it):
    /// one request more per server, so off unless asked for.
    pub guess_sitemap: bool,
    /// Sitemap files read per server (indexes included); the others are skipped with the
    /// reason `sitemap-limit`.
    pub max_sitemaps_per_host: u32,
    /// Read feeds (RSS, Atom) announced by `<link rel="alternate">` or given as seeds; their
    /// entries are queued with `via = 'feed'`.
    pub feeds: bool,
    /// Follow links written in JavaScript (`javascript:` URLs, `onclick`, `data-url`, inline
    /// scripts' navigation calls), queued with `via = 'javascript'`.
    pub javascript: bool,
}

impl Default for Discovery {
    fn default() -> Discovery {
        Discovery {
            sitemaps: true,
            guess_sitemap: false,
            max_sitemaps_per_host: 100,
            feeds: true,
            javascript: true,
        }
    }
}

impl Traps {
    /// The limits of the `stages` trap rules.
    pub fn limits(&self) -> stages::web::traps::TrapLimits {
        stages::web::traps::TrapLimits {
            max_url_length: self.max_url_length,
            max_path_depth: self.max_path_depth,
            max_repeats: self.max_repeats,
            max_query_variants: self.max_query_variants,
            max_calendar_pages: self.max_calendar_pages,
        }
    }
}

/// `[output]`: exports.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// `per-corpus` (one `corpus.tt` file) or `per-document` (one file per document).
    pub treetagger: TreeTaggerLayout,
    /// Keep every text block of a page instead of removing boilerplate.
    pub keep_everything: bool,
    /// The token formats to write, by name (all of `stages::export::formats::TOKEN_FORMATS` by
    /// default; a corpus of a million pages takes 41 KB per page in every format, CoNLL-U
    /// alone 11 KB). `vrt` is always among them: the query index is built from it.
    pub formats: Vec<String>,
}

impl Default for Output {
    fn default() -> Output {
        Output {
            treetagger: TreeTaggerLayout::PerCorpus,
            keep_everything: false,
            formats: stages::export::formats::names()
                .into_iter()
                .map(String::from)
                .collect(),
        }
    }
}

impl Output {
    /// Whether the format named `format` is written.
    pub fn writes(&self, format: &str) -> bool {
        self.formats.iter().any(|f| f == format)
    }
}

/// `[text]`: clean-up of the text across pages (the extract stage).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TextSection {
    /// Keep only the paragraphs whose language is one of `languages` (short paragraphs
    /// inherit the language of their neighbours); off: documents are kept or dropped whole.
    pub paragraph_language: bool,
    /// Drop documents that are near copies of a kept one (exact copies are always dropped).
    pub near_duplicates: bool,
    /// Jaccard resemblance of word 5-shingles from which two documents are near copies.
    pub near_duplicate_threshold: f64,
    /// A paragraph repeated on at least this many pages of a host…
    pub boilerplate_min_pages: usize,
    /// …and on at least this share of the host's pages is removed as host boilerplate.
    pub boilerplate_min_share: f64,
}

impl Default for TextSection {
    fn default() -> TextSection {
        TextSection {
            paragraph_language: false,
            near_duplicates: true,
            near_duplicate_threshold: stages::corpus::dedup::DEFAULT_NEAR_THRESHOLD,
            boilerplate_min_pages: stages::corpus::host_boilerplate::DEFAULT_MIN_PAGES,
            boilerplate_min_share: stages::corpus::host_boilerplate::DEFAULT_MIN_SHARE,
        }
    }
}

/// `[matrix]`: which words are the columns of the document × word matrix.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatrixSection {
    /// Lower-case words before counting.
    pub lowercase: bool,
    /// Remove the function words of these languages (`"fr"`, or `"fr,en"`); none by default.
    pub stoplist: Option<String>,
    /// Keep words found in at least this many documents.
    pub min_df: u32,
    /// Keep words found in at most this share of the documents (1.0 keeps all).
    pub max_df_ratio: f64,
    /// Keep only this many words, the most widespread first.
    pub max_vocabulary: Option<usize>,
}

impl Default for MatrixSection {
    fn default() -> MatrixSection {
        MatrixSection {
            lowercase: true,
            stoplist: None,
            min_df: 1,
            max_df_ratio: 1.0,
            max_vocabulary: None,
        }
    }
}

impl MatrixSection {
    /// The options of the `stages` matrix.
    pub fn options(&self) -> stages::export::matrix::MatrixOptions {
        stages::export::matrix::MatrixOptions {
            lowercase: self.lowercase,
            stoplist: self.stoplist.clone(),
            min_df: self.min_df,
            max_df_ratio: self.max_df_ratio,
            max_vocabulary: self.max_vocabulary,
        }
    }
}

/// `[similarity]`: the "logical" web next to the hyperlink graph (seed 001).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimilaritySection {
    /// Link two documents when the cosine of their TF-IDF vectors is at least this.
    pub threshold: f64,
    /// Instead of (or on top of) the threshold, link each document to its k most similar ones.
    pub top_k: Option<usize>,
    /// The graph is computed for corpora of at most this many documents: its cost and size
    /// grow with the square of the documents that share words (26 million edges for 100,000
    /// pages in two languages without a stop list).
    pub max_documents: u64,
}

/// Default `[similarity] max_documents`.
pub const SIMILARITY_MAX_DOCUMENTS: u64 = 50_000;

impl Default for SimilaritySection {
    fn default() -> SimilaritySection {
        SimilaritySection {
            threshold: 0.5,
            top_k: None,
            max_documents: SIMILARITY_MAX_DOCUMENTS,
        }
    }
}

/// Layout of the TreeTagger files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeTaggerLayout {
    /// One file `treetagger/corpus.tt` with every document.
    PerCorpus,
    /// One file `treetagger/<doc id>.tt` per document.
    PerDocument,
}

/// `[monitor]`: how `glaneur monitor` schedules its revisits of the stored pages (its
/// `--policy`, `--interval`, `--min-interval` and `--max-interval` override these).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MonitorSection {
    /// `adaptive` (about `c/λ̂` for each page's estimated rate) or `poisson` (exponential
    /// intervals of mean `interval_seconds`).
    pub policy: PolicyName,
    /// Poisson: the mean interval between two visits of a page; adaptive: the first one.
    pub interval_seconds: f64,
    /// The shortest interval between two visits of a page (adaptive).
    pub min_interval_seconds: f64,
    /// The longest interval between two visits of a page (adaptive).
    pub max_interval_seconds: f64,
}

impl Default for MonitorSection {
    fn default() -> MonitorSection {
        MonitorSection {
            policy: PolicyName::Adaptive,
            interval_seconds: 86_400.0,
            min_interval_seconds: 3_600.0,
            max_interval_seconds: 60.0 * 86_400.0,
        }
    }
}

/// Which schedule the monitor follows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum PolicyName {
    /// Exponential intervals of mean `--interval`: visits form a Poisson process, unbiased
    /// whatever the pages' own rhythms.
    Poisson,
    /// About `c/λ̂` for each page's current rate estimate, within `--min-interval` and
    /// `--max-interval`: pages that change often are visited often.
    Adaptive,
}

impl PolicyName {
    /// Its name, as `--policy` and `[monitor] policy` take it.
    pub fn name(self) -> &'static str {
        match self {
            PolicyName::Poisson => "poisson",
            PolicyName::Adaptive => "adaptive",
        }
    }
}
