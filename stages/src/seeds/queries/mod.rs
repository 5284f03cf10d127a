//! Search-engine queries from the topic's seed terms: BootCaT-style random tuples, explicit
//! queries, and their compilation into each search API's syntax; for the Common Crawl index,
//! URL prefixes instead of words.
//!
//! **In:** the seed terms `C`, tuple size, count and random seed; explicit queries; the
//! formula's excluded terms and the `[domains] allow` list; language and country; for Common
//! Crawl, host names or URL prefixes.
//! **Out:** [`Query`] values, and for each backend a [`CompiledQuery`]: the `q` text exactly as
//! sent plus the backend's own parameters (language, country, site, excluded words), and the
//! paging parameters of a result page; a wiki article's URL from its title ([`wiki_article_url`]).
//!
//! **Invariants:**
//! - tuples are reproducible: the same terms, size, count and seed give the same tuples on
//!   every platform and every glaneur version, because the generator is [`SplitMix64`],
//!   written out here (not a crate whose stream could change with an update);
//! - a tuple is a set: its terms are distinct, in the order of the term list (no
//!   permutations), and no tuple is drawn twice; asking for more tuples than the terms can
//!   make is an error that says how many they can make;
//! - compiling only *narrows* what the engine returns with operators the backend documents
//!   (`"phrase"`, `-word`, `site:`, language and country parameters); it never widens it, and
//!   the caller re-checks every result against `[domains]` and, once fetched, the formula.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The search APIs glaneur can query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Brave Search API (`/res/v1/web/search`).
    Brave,
    /// Mojeek Search API (`/search?fmt=json`).
    Mojeek,
    /// A SearXNG instance (`/search?format=json`), usually self-hosted.
    Searxng,
    /// Google Custom Search JSON API (`/customsearch/v1`; legacy keys only).
    Google,
    /// The search API of a MediaWiki (`api.php?action=query&list=search`), Wikipedia by
    /// default; no key.
    Mediawiki,
    /// The Common Crawl URL index (`CC-MAIN-…-index?url=…&output=json`): the pages a crawl
    /// captured under a host or URL prefix; no key, no keywords.
    Commoncrawl,
}

impl Backend {
    /// The name used in the topic file and in the provenance records.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Brave => "brave",
            Backend::Mojeek => "mojeek",
            Backend::Searxng => "searxng",
            Backend::Google => "google",
            Backend::Mediawiki => "mediawiki",
            Backend::Commoncrawl => "commoncrawl",
        }
    }

    /// Whether the backend's queries are URL prefixes rather than words (Common Crawl).
    pub fn takes_prefixes(self) -> bool {
        self == Backend::Commoncrawl
    }

    /// Results per request glaneur asks for (the most the API documents; SearXNG has no such
    /// parameter and returns what its engines give, about 10–20; MediaWiki allows 500, 50 is
    /// a page a wiki serves without strain). Common Crawl's `limit` is set by the sender from
    /// the results wanted (one request per prefix).
    pub fn page_size(self) -> u32 {
        match self {
            Backend::Brave => 20,
            Backend::Mojeek => 10,
            Backend::Searxng => 10,
            Backend::Google => 10,
            Backend::Mediawiki => 50,
            Backend::Commoncrawl => 1,
        }
    }

    /// Deepest result page the API serves (Brave: `offset` ≤ 9; Google: `start` + `num` ≤
    /// 100; Mojeek, SearXNG and MediaWiki document no limit that low, 10 pages is glaneur's own
    /// bound). Common Crawl: one request per prefix (its `page` parameter counts blocks of the
    /// index, not results).
    pub fn max_pages(self) -> u32 {
        match self {
            Backend::Commoncrawl => 1,
            _ => 10,
        }
    }

    /// Longest `q` the API accepts (Brave: 400 characters; Google: 2048; Wikipedia's
    /// CirrusSearch: 300; others: a conservative 1000).
    pub fn max_query_chars(self) -> usize {
        match self {
            Backend::Brave => 400,
            Backend::Google | Backend::Commoncrawl => 2048,
            Backend::Mediawiki => 300,
            Backend::Mojeek | Backend::Searxng => 1000,
        }
    }
}

/// A query before compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// A random tuple of seed terms (each term one word or a phrase).
    Tuple(Vec<String>),
    /// A query written by the user, sent as written (plus the restrictions).
    Explicit(String),
}

impl Query {
    /// The query text before restrictions: tuple terms separated by spaces, a term of
    /// several words in double quotes (a phrase, as BootCaT sends it).
    pub fn text(&self) -> String {
        match self {
            Query::Tuple(terms) => terms
                .iter()
                .map(|t| quote_if_phrase(t))
                .collect::<Vec<_>>()
                .join(" "),
            Query::Explicit(text) => text.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }
}

/// Why queries cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Tuple size 0.
    #[error("`tuple_size` must be at least 1")]
    ZeroSize,
    /// Fewer distinct terms than the tuple size.
    #[error(
        "{terms} distinct seed terms cannot make tuples of {size}: add terms or lower `tuple_size`"
    )]
    TooFewTerms {
        /// Distinct terms given.
        terms: usize,
        /// Tuple size asked.
        size: usize,
    },
    /// More tuples asked than there are combinations.
    #[error(
        "{terms} distinct seed terms make only {possible} different tuples of {size}, and {requested} were asked: lower `tuples` or add terms"
    )]
    NotEnoughTuples {
        /// Distinct terms given.
        terms: usize,
        /// Tuple size asked.
        size: usize,
        /// Tuples asked.
        requested: usize,
        /// Combinations available.
        possible: u128,
    },
    /// The compiled query is longer than the API accepts.
    #[error(
        "the query `{query}` is {chars} characters long with its restrictions; {backend} accepts at most {max}"
    )]
    TooLong {
        /// The compiled `q`.
        query: String,
        /// Its length in characters.
        chars: usize,
        /// Backend name.
        backend: &'static str,
        /// The limit.
        max: usize,
    },
    /// An `article_path` without `$1`, or not an http(s) URL.
    #[error(
        "`article_path = \"{0}\"` must be the http(s) URL of an article with $1 where the title goes, such as \"https://wiki.example.org/wiki/$1\""
    )]
    ArticlePath(String),
    /// A MediaWiki endpoint from which the articles' URLs cannot be told.
    #[error(
        "`endpoint = \"{0}\"` is not a wiki's api.php, so the articles' URLs are unknown: give the api.php URL (https://wiki.example.org/w/api.php), or `article_path = \"https://wiki.example.org/wiki/$1\"`"
    )]
    NoArticlePath(String),
    /// A Common Crawl query that is not a host name or URL prefix.
    #[error(
        "`{0}` is not a host name or URL prefix (such as \"example.org\", \"example.org/blog/\" or \"*.example.org\")"
    )]
    NotAPrefix(String),
}

/// SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of `java.util.SplittableRandom`
/// and of xoshiro): a 64-bit state advanced by the golden-ratio constant and mixed. Written
/// out here so that a topic's `random_seed` gives the same tuples forever.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n` ≥ 1), without modulo bias: draws that fall in the
    /// incomplete last block of `n` values are rejected and drawn again.
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// Number of `k`-subsets of `n` items, saturating at `u128::MAX`.
pub fn combinations(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // c * (n - i) / (i + 1) is exact at every step (it is C(n, i + 1)).
        match c.checked_mul((n - i) as u128) {
            Some(v) => c = v / (i as u128 + 1),
            None => return u128::MAX,
        }
    }
    c
}

/// The distinct terms in first-seen order: trimmed, inner white space collapsed, double
/// quotes removed (a term is one word or a phrase; quoting is the compiler's job), empty
/// terms dropped, and duplicates (ignoring case) dropped.
pub fn distinct_terms(terms: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for term in terms {
        let clean = term
            .replace('"', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !clean.is_empty() && seen.insert(clean.to_lowercase()) {
            out.push(clean);
        }
    }
    out
}

/// BootCaT's query generation: `count` distinct random `size`-tuples of the distinct
/// `terms` (see [`distinct_terms`]), drawn with [`SplitMix64`] seeded with `seed`. Each
/// tuple lists its terms in the order of the term list. When the tuples asked are a large
/// share of all possible ones (or there are few), every combination is listed and a random
/// selection taken; otherwise tuples are drawn and repeats rejected.
pub fn random_tuples(
    terms: &[String],
    size: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<Vec<String>>, QueryError> {
    let terms = distinct_terms(terms);
    if size == 0 {
        return Err(QueryError::ZeroSize);
    }
    let n = terms.len();
    if n < size {
        return Err(QueryError::TooFewTerms { terms: n, size });
    }
    let possible = combinations(n, size);
    if count as u128 > possible {
        return Err(QueryError::NotEnoughTuples {
            terms: n,
            size,
            requested: count,
            possible,
        });
    }
    let mut rng = SplitMix64::new(seed);
    let picks: Vec<Vec<usize>> = if possible <= 10_000 || possible <= 4 * count as u128 {
        // Enumerate (few enough: `possible` ≤ max(10 000, 4·count)) and take the first
        // `count` of a partial Fisher–Yates shuffle.
        let mut all = Vec::new();
        let mut combo: Vec<usize> = (0..size).collect();
        loop {
            all.push(combo.clone());
            if !next_combination(&mut combo, n) {
                break;
            }
        }
        for i in 0..count.min(all.len()) {
            let j = i + rng.below((all.len() - i) as u64) as usize;
            all.swap(i, j);
        }
        all.truncate(count);
        all
    } else {
        // Rejection: at least three quarters of the draws are new, so this ends quickly.
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let mut pool: Vec<usize> = (0..n).collect();
            for i in 0..size {
                let j = i + rng.below((n - i) as u64) as usize;
                pool.swap(i, j);
            }
            let mut tuple = pool[..size].to_vec();
            tuple.sort_unstable();
            if seen.insert(tuple.clone()) {
                out.push(tuple);
            }
        }
        out
    };
    Ok(picks
        .into_iter()
        .map(|idx| {
            idx.into_iter()
                .filter_map(|i| terms.get(i).cloned())
                .collect()
        })
        .collect())
}

/// Advances `combo` (strictly increasing indices below `n`) to the next combination in
/// lexicographic order; false after the last one.
fn next_combination(combo: &mut [usize], n: usize) -> bool {
    let k = combo.len();
    let mut i = k;
    while i > 0 {
        i -= 1;
        if combo[i] < n - k + i {
            combo[i] += 1;
            for j in i + 1..k {
                combo[j] = combo[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// What narrows every query of a topic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restrictions {
    /// Words or phrases no result may contain: the formula's excluded terms
    /// (`stages::formula::Formula::excluded_terms`).
    pub exclude: Vec<String>,
    /// `[domains] allow` patterns (`.fr`, `inria.fr`).
    pub sites: Vec<String>,
    /// ISO 639-1 language of the results wanted (`fr`).
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 country the results should come from (`FR`).
    pub country: Option<String>,
}

/// A query ready to send: `q` and the backend's other parameters (paging, key and engine id
/// are added by the sender).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledQuery {
    /// The `q` parameter exactly as sent (also the query recorded in the provenance).
    pub q: String,
    /// Other parameters, in a fixed order.
    pub params: Vec<(String, String)>,
}

impl fmt::Display for CompiledQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.q)?;
        for (k, v) in &self.params {
            write!(f, " [{k}={v}]")?;
        }
        Ok(())
    }
}

/// `"word"` → `word`; `"two words"` → `"two words"`.
fn quote_if_phrase(term: &str) -> String {
    let term = term.replace('"', " ");
    let words: Vec<&str> = term.split_whitespace().collect();
    if words.len() > 1 {
        format!("\"{}\"", words.join(" "))
    } else {
        words.concat()
    }
}

/// A `[domains] allow` pattern as a `site:` value: `.fr` → `fr`, `inria.fr` → `inria.fr`.
/// Only a host name is one: a name with a dot in it, or a TLD in its documented form with a
/// leading dot. A bare word (`francophone`, which stands for a list of TLDs, or a word taken
/// for a keyword), a network or a malformed name gives None.
fn site_value(pattern: &str) -> Option<String> {
    let pattern = pattern.trim().to_ascii_lowercase();
    let value = pattern.strip_prefix('.').unwrap_or(&pattern);
    let named = pattern.starts_with('.') || value.contains('.');
    let ok = named
        && value.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && url::Host::parse(value).is_ok();
    ok.then(|| value.to_owned())
}

/// The `site:` values of the whole allow list, or none: the list is a union, so restricting
/// the search to some of its entries would leave the others' pages out.
fn site_values(patterns: &[String]) -> Vec<String> {
    patterns
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| site_value(p))
        .collect::<Option<Vec<String>>>()
        .unwrap_or_default()
}

/// Compiles `query` for `backend`:
///
/// | | excluded terms | `[domains] allow` | language | country |
/// |---|---|---|---|---|
/// | Brave | `-word`, `-"a phrase"` in `q` | `site:` in `q` (one domain only) | `search_lang` | `country` |
/// | Google | `-word`, `-"a phrase"` in `q` | `siteSearch` + `siteSearchFilter=i` (one); `site:a OR site:b` in `q` (several) | `lr=lang_xx`, `hl` | `gl` |
/// | Mojeek | `qm` (single words; phrases only re-checked) | `site` parameter (one domain only) | `lb` (+ `lbb=100`) | `rb` (+ `rbb=10`) |
/// | SearXNG | `-word`, `-"a phrase"` in `q` (passed to its engines) | `site:` in `q` (one domain only) | `language` | — |
///
/// Where a row says "one domain only", several allowed domains are not compiled (the
/// backend has no documented OR of sites) and the results are only re-checked; so are they
/// when an allowed entry is not a host name (`francophone`, a network): no `site:` at all. Wildcard
/// terms (`graph*`) are never compiled: no backend documents them.
pub fn compile(
    backend: Backend,
    query: &Query,
    restrictions: &Restrictions,
) -> Result<CompiledQuery, QueryError> {
    if backend.takes_prefixes() {
        let text = query.text();
        let q = url_pattern(&text).ok_or(QueryError::NotAPrefix(text))?;
        return Ok(CompiledQuery {
            q,
            params: Vec::new(),
        });
    }
    let mut q = query.text();
    let mut params: Vec<(String, String)> = Vec::new();
    let excluded: Vec<&String> = restrictions
        .exclude
        .iter()
        .filter(|t| !t.contains('*') && !t.trim().is_empty())
        .collect();
    let sites = site_values(&restrictions.sites);
    let language = restrictions
        .language
        .as_deref()
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| !l.is_empty());
    let country = restrictions
        .country
        .as_deref()
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty());
    exclude_terms(backend, &excluded, &mut q, &mut params);
    restrict_sites(backend, &sites, &mut q, &mut params);
    params.extend(language_and_country(
        backend,
        language.as_deref(),
        country.as_deref(),
    ));
    let chars = q.chars().count();
    if chars > backend.max_query_chars() {
        return Err(QueryError::TooLong {
            query: q,
            chars,
            backend: backend.name(),
            max: backend.max_query_chars(),
        });
    }
    Ok(CompiledQuery { q, params })
}

/// The excluded terms: `-term` in the query, or Mojeek's `qm` (single words only).
fn exclude_terms(
    backend: Backend,
    excluded: &[&String],
    q: &mut String,
    params: &mut Vec<(String, String)>,
) {
    match backend {
        Backend::Brave | Backend::Searxng | Backend::Google | Backend::Mediawiki => {
            for term in excluded {
                q.push_str(" -");
                q.push_str(&quote_if_phrase(term));
            }
        }
        Backend::Mojeek => {
            let words: Vec<String> = excluded
                .iter()
                .filter(|t| !t.trim().contains(char::is_whitespace))
                .map(|t| t.trim().replace('"', ""))
                .collect();
            if !words.is_empty() {
                params.push(("qm".into(), words.join(" ")));
            }
        }
        Backend::Commoncrawl => {}
    }
}

/// The allowed domains, where the backend can say them (several only for Google).
fn restrict_sites(
    backend: Backend,
    sites: &[String],
    q: &mut String,
    params: &mut Vec<(String, String)>,
) {
    match (backend, sites) {
        (_, []) => {}
        (Backend::Google, [one]) => {
            params.push(("siteSearch".into(), one.clone()));
            params.push(("siteSearchFilter".into(), "i".into()));
        }
        (Backend::Google, several) => {
            let ors: Vec<String> = several.iter().map(|s| format!("site:{s}")).collect();
            q.push(' ');
            q.push_str(&ors.join(" OR "));
        }
        (Backend::Mojeek, [one]) => params.push(("site".into(), one.clone())),
        (Backend::Brave | Backend::Searxng, [one]) => {
            q.push_str(" site:");
            q.push_str(one);
        }
        (_, _) => {}
    }
}

/// The language and country parameters of `backend`.
fn language_and_country(
    backend: Backend,
    language: Option<&str>,
    country: Option<&str>,
) -> Vec<(String, String)> {
    let mut params: Vec<(String, String)> = Vec::new();
    match backend {
        Backend::Brave => {
            if let Some(l) = language {
                params.push(("search_lang".into(), l.to_string()));
            }
            if let Some(c) = country {
                params.push(("country".into(), c.to_string()));
            }
        }
        Backend::Google => {
            if let Some(l) = language {
                params.push(("lr".into(), format!("lang_{l}")));
                params.push(("hl".into(), l.to_string()));
            }
            if let Some(c) = country {
                params.push(("gl".into(), c.to_ascii_lowercase()));
            }
        }
        Backend::Mojeek => {
            if let Some(l) = language {
                params.push(("lb".into(), l.to_ascii_uppercase()));
                params.push(("lbb".into(), "100".into()));
            }
            if let Some(c) = country {
                params.push(("rb".into(), c.to_string()));
                params.push(("rbb".into(), "10".into()));
            }
        }
        Backend::Searxng => {
            if let Some(l) = language {
                params.push(("language".into(), l.to_string()));
            }
        }
        // The language chooses the wiki (its endpoint), not a parameter.
        Backend::Mediawiki | Backend::Commoncrawl => {}
    }
    params
}

/// The paging parameters of result page `page` (1 = first), or `None` beyond the deepest
/// page the backend serves. Brave: `count`, `offset` (in pages, 0–9); Google: `num`, `start`
/// (1-based result index, `start + num` ≤ 100 … here ≤ 91 + 10); Mojeek: `t`, `s` (1-based
/// result index); SearXNG: `pageno`; MediaWiki: `srlimit`, `sroffset` (0-based result index,
/// what the answer's `continue.sroffset` gives for the next page); Common Crawl: none (its
/// `limit` comes from the results wanted).
pub fn paging(backend: Backend, page: u32) -> Option<Vec<(String, String)>> {
    if page == 0 || page > backend.max_pages() {
        return None;
    }
    let size = backend.page_size();
    let first = (page - 1) * size + 1;
    Some(match backend {
        Backend::Brave => vec![
            ("count".into(), size.to_string()),
            ("offset".into(), (page - 1).to_string()),
        ],
        Backend::Google => vec![
            ("num".into(), size.to_string()),
            ("start".into(), first.to_string()),
        ],
        Backend::Mojeek => vec![
            ("s".into(), first.to_string()),
            ("t".into(), size.to_string()),
        ],
        Backend::Searxng => vec![("pageno".into(), page.to_string())],
        Backend::Mediawiki => vec![
            ("srlimit".into(), size.to_string()),
            ("sroffset".into(), (first - 1).to_string()),
        ],
        Backend::Commoncrawl => Vec::new(),
    })
}

/// A host name or URL prefix as the Common Crawl index (pywb's CDX server) takes it in `url`:
/// `example.org` → `example.org/*` (every page of the host), `example.org/blog/` →
/// `example.org/blog/*`, `*.example.org` (the host and its subdomains) and any pattern that
/// already ends in `*` as written; a scheme (`https://`) may be given. None for an empty
/// value, white space, or no host name before the path.
pub fn url_pattern(prefix: &str) -> Option<String> {
    let p = prefix.trim();
    if p.is_empty() || p.contains(char::is_whitespace) {
        return None;
    }
    let bare = p
        .strip_prefix("https://")
        .or_else(|| p.strip_prefix("http://"))
        .unwrap_or(p);
    let bare_host = bare.strip_prefix("*.").unwrap_or(bare);
    let host = bare_host
        .split(['/', '?', '#'])
        .next()
        .unwrap_or("")
        .trim_end_matches('*');
    let host_ok = !host.is_empty()
        && url::Url::parse(&format!("http://{host}/")).is_ok_and(|u| u.host_str().is_some());
    if !host_ok {
        return None;
    }
    Some(if p.ends_with('*') || bare.starts_with("*.") {
        p.to_string()
    } else if bare.contains('/') {
        format!("{p}*")
    } else {
        format!("{p}/*")
    })
}

/// A wiki article's URL: `template` with `$1` replaced by the title as MediaWiki writes it in
/// links (`wfUrlencode`): spaces as `_`, every byte percent-encoded except letters, digits,
/// `-_.` and `;@$!*(),/~:`. `https://fr.wikipedia.org/wiki/$1` and `Théorie des graphes`
/// give `https://fr.wikipedia.org/wiki/Th%C3%A9orie_des_graphes`.
pub fn wiki_article_url(template: &str, title: &str) -> String {
    let title = title.trim().replace(' ', "_");
    let mut encoded = String::with_capacity(title.len() * 3);
    for byte in title.bytes() {
        let kept = byte.is_ascii_alphanumeric() || b"-_.;@$!*(),/~:".contains(&byte);
        if kept {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    template.replace("$1", &encoded)
}

/// Where a wiki's articles are, as a template for [`wiki_article_url`]: `article_path` as given
/// (`$1` stands for the title), else drawn from the API's address — `…/w/api.php` →
/// `…/wiki/$1` (Wikipedia and most wikis), `…/api.php` → `…/index.php?title=$1` (what every
/// MediaWiki answers).
pub fn wiki_article_template(
    endpoint: &str,
    article_path: Option<&str>,
) -> Result<String, QueryError> {
    if let Some(path) = article_path {
        let path = path.trim();
        let parsed = url::Url::parse(&path.replace("$1", "Title"));
        if !path.contains("$1") || !parsed.is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
            return Err(QueryError::ArticlePath(path.to_string()));
        }
        return Ok(path.to_string());
    }
    let base = endpoint.trim();
    let base = base.split(['?', '#']).next().unwrap_or(base);
    if let Some(root) = base.strip_suffix("/w/api.php") {
        return Ok(format!("{root}/wiki/$1"));
    }
    if let Some(root) = base.strip_suffix("api.php") {
        return Ok(format!("{root}index.php?title=$1"));
    }
    Err(QueryError::NoArticlePath(base.to_string()))
}

/// Every query of a topic in the order they are sent: the explicit queries first, then the
/// random tuples.
pub fn topic_queries(
    terms: &[String],
    explicit: &[String],
    size: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<Query>, QueryError> {
    let mut out: Vec<Query> = explicit
        .iter()
        .filter(|q| !q.trim().is_empty())
        .map(|q| Query::Explicit(q.clone()))
        .collect();
    if count > 0 {
        out.extend(
            random_tuples(terms, size, count, seed)?
                .into_iter()
                .map(Query::Tuple),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
