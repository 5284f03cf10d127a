//! The topic file `corpora/<topic>/topic.toml`: what corpus to build.
//!
//! **In:** a TOML file (or the embedded default). **Out:** a validated [`Topic`] with every
//! default filled in and every path resolved against the topic's folder.
//!
//! **Invariants:** unknown fields are rejected (the TOML error names the field, its line and
//! column); a topic that validates can be crawled without further checks (the formula parses,
//! the seed URLs parse, the contact is present); nothing here touches the network.
//!
//! What belongs here and what is a flag: settings that decide *which corpus* is built live in
//! the topic file (so a corpus is reproducible from it); settings about *this run* (output
//! folder, proxy, replay file, resume stage) are command-line flags.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use stages::focus::formula::{Formula, FormulaOptions};

mod annotate;
mod file;
pub mod template;
mod validate;
pub use annotate::{AnnotateSection, ParseSection, SPACY_MODELS, TREETAGGER_LANGUAGES, TaggerName};
pub use file::*;
pub use validate::{LIMITS, Limit, check_files, warnings};

/// `x` seconds as a [`std::time::Duration`], saturating: NaN and negative values are 0, values too large
/// for a `Duration` its maximum. Topic values are range-checked before they get here; server
/// values (`Crawl-delay`) are capped first. Saturation keeps a bug from becoming a panic.
pub fn seconds(x: f64) -> std::time::Duration {
    if x.is_nan() || x <= 0.0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::try_from_secs_f64(x).unwrap_or(std::time::Duration::MAX)
}

/// `d × factor`, saturating as [`seconds`].
pub fn scaled(d: std::time::Duration, factor: f64) -> std::time::Duration {
    seconds(d.as_secs_f64() * factor)
}

/// The embedded default topic (`corpora/demo/topic.toml`), used when `glaneur run` is given no
/// topic.
pub const DEMO_TOPIC: &str = include_str!("../../corpora/demo/topic.toml");

/// A validated topic.
#[derive(Debug, Clone)]
pub struct Topic {
    /// The file as written, defaults filled in.
    pub file: TopicFile,
    /// Folder the topic's relative paths are resolved against (and the default run folder's
    /// parent).
    pub dir: PathBuf,
    /// Where the topic came from (a path, or `embedded default`).
    pub origin: String,
    /// The parsed formula.
    pub formula: Formula,
    /// The seed URLs, parsed.
    pub seed_urls: Vec<url::Url>,
    /// The `[search]` queries, compiled.
    pub search: Option<SearchPlan>,
}

impl Topic {
    /// Reads and validates a topic file. `path` may name the file or its folder.
    pub fn load(path: &Path) -> anyhow::Result<Topic> {
        let file_path = if path.is_dir() {
            path.join("topic.toml")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&file_path)
            .with_context(|| format!("cannot read the topic file {}", file_path.display()))?;
        let dir = file_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        Topic::from_str(&text, dir, file_path.display().to_string())
    }

    /// The embedded default topic; its relative paths resolve against `dir`.
    pub fn demo(dir: PathBuf) -> anyhow::Result<Topic> {
        Topic::from_str(
            DEMO_TOPIC,
            dir,
            "embedded default (corpora/demo/topic.toml)".into(),
        )
    }

    /// Parses and validates topic text.
    pub fn from_str(text: &str, dir: PathBuf, origin: String) -> anyhow::Result<Topic> {
        let file: TopicFile =
            toml::from_str(text).with_context(|| format!("invalid topic file {origin}"))?;
        let options = FormulaOptions {
            case_sensitive: file.formula.case_sensitive,
            keep_diacritics: file.formula.keep_diacritics,
        };
        // No formula is a choice (a crawl of whole sites, a general corpus), not a mistake to
        // report: the page score then rests on the seed centroid and the language.
        let formula = if file.formula.expression.trim().is_empty() {
            Formula::everything(options)
        } else {
            Formula::parse_with(&file.formula.expression, options).with_context(|| {
                format!(
                    "invalid [formula] expression in {origin}: `{}`",
                    file.formula.expression
                )
            })?
        };
        validate::validate(&file).with_context(|| format!("invalid topic file {origin}"))?;
        let mut seed_urls = Vec::new();
        for raw in &file.seeds.urls {
            let parsed = url::Url::parse(raw.trim())
                .with_context(|| format!("[seeds] urls: `{raw}` in {origin} is not a URL"))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                bail!("[seeds] urls: `{raw}` in {origin} is not an http or https URL");
            }
            seed_urls.push(parsed);
        }
        let search = match &file.search {
            Some(section) => Some(
                search_plan(&file, section, &formula)
                    .with_context(|| format!("invalid [search] in {origin}"))?,
            ),
            None => None,
        };
        Ok(Topic {
            file,
            dir,
            origin,
            formula,
            seed_urls,
            search,
        })
    }

    /// The `User-Agent` every request carries.
    pub fn user_agent(&self) -> String {
        format!(
            "glaneur/{} (+{})",
            env!("CARGO_PKG_VERSION"),
            self.file.politeness.contact.trim()
        )
    }

    /// A path of the topic resolved against the topic folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        }
    }

    /// The resolved topic as TOML (what `glaneur check` prints).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.file).unwrap_or_else(|e| format!("# cannot print: {e}\n"))
    }
}

/// The queries of `[search]`: explicit ones, then the random tuples; restricted by the
/// formula's excluded terms, `[domains] allow`, the language and the country.
fn search_plan(
    file: &TopicFile,
    section: &SearchSection,
    formula: &Formula,
) -> anyhow::Result<SearchPlan> {
    use stages::seeds::queries::{Restrictions, compile, topic_queries};
    let language = section
        .language
        .clone()
        .or_else(|| match file.languages.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        });
    if let Some(l) = &language
        && (l.len() != 2 || !l.chars().all(|c| c.is_ascii_alphabetic()))
    {
        bail!("`language = \"{l}\"` is not a two-letter ISO 639-1 code such as \"fr\"");
    }
    if let Some(c) = &section.country
        && (c.len() != 2 || !c.chars().all(|c| c.is_ascii_alphabetic()))
    {
        bail!("`country = \"{c}\"` is not a two-letter ISO 3166-1 code such as \"FR\"");
    }
    if !(section.delay_seconds.is_finite() && section.delay_seconds >= 0.0) {
        bail!("`delay_seconds` must be a number of seconds ≥ 0");
    }
    if section.results_per_query == 0 {
        bail!("`results_per_query` must be at least 1");
    }
    check_backend_fields(section)?;
    let queries = if section.backend.takes_prefixes() {
        prefix_queries(file, section)?
    } else {
        topic_queries(
            &file.seeds.terms,
            &section.queries,
            section.tuple_size,
            section.tuple_count(&file.seeds.terms),
            section.random_seed,
        )?
    };
    if queries.is_empty() {
        bail!("no query to send: give `[seeds] terms` (for random tuples) or `queries`");
    }
    let restrictions = Restrictions {
        exclude: formula.excluded_terms(),
        sites: file.domains.allow.clone(),
        language,
        country: section.country.clone(),
    };
    let mut compiled = Vec::new();
    for query in queries {
        let c = compile(section.backend, &query, &restrictions).with_context(|| {
            match section.backend.takes_prefixes() && !section.urls.is_empty() {
                true => "`urls`",
                false => "a query",
            }
        })?;
        compiled.push((query, c));
    }
    Ok(SearchPlan {
        backend: section.backend,
        queries: compiled,
    })
}

/// The fields that belong to one backend only, refused on the others (a field that would be
/// silently ignored is a mistake left in the topic).
fn check_backend_fields(section: &SearchSection) -> anyhow::Result<()> {
    use stages::seeds::queries::Backend;
    let name = section.backend.name();
    if !section.urls.is_empty() && section.backend != Backend::Commoncrawl {
        bail!(
            "`urls` lists host names for backend = \"commoncrawl\"; backend = \"{name}\" sends              keyword queries (`queries`, `[seeds] terms`); seed URLs go in [seeds] urls"
        );
    }
    if section.article_path.is_some() && section.backend != Backend::Mediawiki {
        bail!("`article_path` is for backend = \"mediawiki\" only");
    }
    if section.backend == Backend::Mediawiki
        && (section.endpoint.is_some() || section.article_path.is_some())
    {
        // The articles' URLs must be known before anything is asked (the default endpoint, a
        // Wikipedia's, gives them).
        let endpoint = section
            .endpoint
            .as_deref()
            .unwrap_or("https://en.wikipedia.org/w/api.php");
        stages::seeds::queries::wiki_article_template(endpoint, section.article_path.as_deref())?;
    }
    if section.backend.takes_prefixes() {
        if !section.queries.is_empty() {
            bail!(
                "`queries`: backend = \"commoncrawl\" lists the pages captured under host names                  or URL prefixes, it takes no keywords: give `urls = [\"example.org\"]` instead"
            );
        }
        if section.tuples.is_some_and(|n| n > 0) {
            bail!("`tuples`: backend = \"commoncrawl\" sends no keyword tuples: remove it");
        }
    }
    Ok(())
}

/// Common Crawl's queries: `urls`, else each host name of `[domains] allow` with its subdomains
/// (`inria.fr` → `*.inria.fr`: the allow list matches subdomains too).
fn prefix_queries(
    file: &TopicFile,
    section: &SearchSection,
) -> anyhow::Result<Vec<stages::seeds::queries::Query>> {
    use stages::seeds::queries::Query;
    if !section.urls.is_empty() {
        return Ok(section
            .urls
            .iter()
            .map(|u| Query::Explicit(u.clone()))
            .collect());
    }
    let hosts: Vec<Query> = file
        .domains
        .allow
        .iter()
        .map(|p| p.trim().to_ascii_lowercase())
        .filter(|p| !p.starts_with('.') && p.contains('.') && !p.contains('/'))
        .map(|p| Query::Explicit(format!("*.{p}")))
        .collect();
    if hosts.is_empty() {
        bail!(
            "`urls` is missing: backend = \"commoncrawl\" lists the pages captured under host              names or URL prefixes; give them, e.g. `urls = [\"example.org\", \"example.org/blog/\"]`,              or name host names (not only TLDs) in [domains] allow"
        );
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
name = "graphes"
languages = ["fr"]
[seeds]
urls = ["http://a.test/"]
[formula]
expression = '(NON "graffiti") ET ("graphe" OU "graphes")'
[politeness]
contact = "mailto:linguiste@example.org"
"#;

    fn parse(text: &str) -> anyhow::Result<Topic> {
        Topic::from_str(text, PathBuf::from("."), "test".into())
    }

    #[test]
    fn the_default_backlog_follows_the_cores_within_its_bounds_and_passes_validation() {
        const MIB: u64 = 1024 * 1024;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        let bytes = default_backlog_bytes();
        assert!((16 * MIB..=1024 * MIB).contains(&bytes), "{bytes}");
        assert!(
            bytes <= (cores * 64 * MIB).max(64 * MIB),
            "{bytes} for {cores} cores"
        );
        let topic = parse(MINIMAL).unwrap();
        assert_eq!(topic.file.crawl.backlog_bytes, bytes);
    }

    #[test]
    fn minimal_topic_gets_defaults() {
        let topic = parse(MINIMAL).unwrap();
        assert_eq!(topic.file.crawl.max_pages, 500);
        assert_eq!(topic.file.crawl.strategy, Strategy::BestFirst);
        assert_eq!(topic.file.politeness.delay_seconds, 1.0);
        assert_eq!(topic.seed_urls.len(), 1);
        assert!(topic.user_agent().starts_with("glaneur/"));
        assert!(
            topic
                .user_agent()
                .ends_with("(+mailto:linguiste@example.org)")
        );
    }

    #[test]
    fn unknown_field_is_named_with_its_line() {
        let text = MINIMAL.replace("[politeness]", "[politeness]\ndelai = 3");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("delai"), "{err}");
        assert!(err.contains("line"), "{err}");
    }

    #[test]
    fn formula_error_points_at_the_column() {
        let text = MINIMAL.replace(
            r#"'(NON "graffiti") ET ("graphe" OU "graphes")'"#,
            r#"'("graphe" OU'"#,
        );
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("column"), "{err}");
    }

    #[test]
    fn no_formula_means_every_page_is_on_topic() {
        let without = MINIMAL.replace(
            "[formula]\nexpression = '(NON \"graffiti\") ET (\"graphe\" OU \"graphes\")'\n",
            "",
        );
        assert!(!without.contains("[formula]"));
        let empty = MINIMAL.replace(
            r#"'(NON "graffiti") ET ("graphe" OU "graphes")'"#,
            r#""  ""#,
        );
        for text in [without, empty] {
            let topic = parse(&text).unwrap();
            assert!(topic.formula.accepts_everything());
            assert!(topic.formula.evaluate("graffiti").satisfied);
        }
    }

    #[test]
    fn a_malformed_network_is_named() {
        let text = MINIMAL.replace(
            "[politeness]",
            "[domains]\nallow = [\"10.0.0.0/40\"]\n[politeness]",
        );
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(
            err.contains("[domains] allow") && err.contains("10.0.0.0/40"),
            "{err}"
        );
    }

    #[test]
    fn the_other_language_factor_is_between_0_and_1() {
        let with = |v: &str| {
            MINIMAL.replace(
                "[politeness]",
                &format!("[score]\nother_language = {v}\n[politeness]"),
            )
        };
        assert_eq!(parse(&with("1")).unwrap().file.score.other_language, 1.0);
        assert_eq!(parse(MINIMAL).unwrap().file.score.other_language, 0.2);
        for bad in ["1.5", "-0.1", "nan"] {
            let err = format!("{:#}", parse(&with(bad)).unwrap_err());
            assert!(err.contains("other_language"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_host_yield_is_on_by_default_and_can_be_turned_off() {
        assert!(parse(MINIMAL).unwrap().file.focus.host_yield);
        let off = MINIMAL.replace("[politeness]", "[focus]\nhost_yield = false\n[politeness]");
        let topic = parse(&off).unwrap();
        assert!(!topic.file.focus.host_yield);
        let bad = MINIMAL.replace("[politeness]", "[focus]\nhost_yield = 0.5\n[politeness]");
        let err = format!("{:#}", parse(&bad).unwrap_err());
        assert!(err.contains("host_yield"), "{err}");
    }

    #[test]
    fn contact_is_required() {
        let text = MINIMAL.replace("mailto:linguiste@example.org", "me");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("contact"), "{err}");
    }

    const SEARCH: &str = r#"
name = "graphes"
languages = ["fr"]
[seeds]
terms = ["graphe", "sommet", "arête", "théorie des graphes"]
[search]
backend = "brave"
tuple_size = 2
tuples = 3
queries = ["graphe planaire"]
[formula]
expression = '(NON "graffiti") ET ("graphe" OU "graphes")'
[domains]
allow = [".fr"]
[politeness]
contact = "mailto:linguiste@example.org"
"#;

    #[test]
    fn search_table_compiles_its_queries() {
        let topic = parse(SEARCH).unwrap();
        let plan = topic.search.unwrap();
        assert_eq!(plan.queries.len(), 4);
        let (first, compiled) = &plan.queries[0];
        assert_eq!(
            first,
            &stages::seeds::queries::Query::Explicit("graphe planaire".into())
        );
        assert_eq!(compiled.q, "graphe planaire -graffiti site:fr");
        assert!(
            compiled
                .params
                .contains(&("search_lang".to_string(), "fr".to_string()))
        );
        // Same topic, same tuples.
        let again = parse(SEARCH).unwrap().search.unwrap();
        assert_eq!(plan.queries, again.queries);
    }

    #[test]
    fn search_errors_name_the_table() {
        let text = SEARCH.replace("tuples = 3", "tuples = 7");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("[search]"), "{err}");
        assert!(err.contains("only 6 different tuples"), "{err}");
        let text = SEARCH.replace("backend = \"brave\"", "backend = \"bing\"");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("bing"), "{err}");
        let text = SEARCH.replace("tuple_size = 2", "tuple_size = 2\napi_key = \"x\"");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("api_key"), "{err}");
    }

    #[test]
    fn embedded_demo_topic_is_valid() {
        let topic = Topic::demo(PathBuf::from("corpora/demo")).unwrap();
        assert_eq!(topic.file.name, "demo");
        assert!(!topic.seed_urls.is_empty());
    }

    #[test]
    fn commoncrawl_takes_host_names_and_says_which_field_is_missing() {
        let cc = |search: &str, allow: &str| {
            let text = SEARCH
                .replace(
                    "backend = \"brave\"\ntuple_size = 2\ntuples = 3\nqueries = [\"graphe planaire\"]",
                    search,
                )
                .replace("allow = [\".fr\"]", allow);
            parse(&text)
        };
        let sent = |topic: Topic| -> Vec<String> {
            let plan = topic.search.unwrap();
            plan.queries.into_iter().map(|(_, c)| c.q).collect()
        };
        // From [domains] allow: host names with their subdomains; TLDs are no prefix.
        let topic = cc(
            "backend = \"commoncrawl\"",
            "allow = [\".fr\", \"inria.fr\", \"Graphes.Example.ORG\"]",
        )
        .unwrap();
        assert_eq!(sent(topic), ["*.inria.fr", "*.graphes.example.org"]);
        // Explicit prefixes win.
        let topic = cc(
            "backend = \"commoncrawl\"\nurls = [\"a.fr\", \"b.fr/blog/\"]",
            "allow = [\".fr\"]",
        )
        .unwrap();
        assert_eq!(sent(topic), ["a.fr/*", "b.fr/blog/*"]);
        for (search, allow, field) in [
            (
                "backend = \"commoncrawl\"",
                "allow = [\".fr\"]",
                "`urls` is missing",
            ),
            (
                "backend = \"commoncrawl\"\nurls = [\"two words\"]",
                "allow = []",
                "`urls`: `two words` is not a host name",
            ),
            (
                "backend = \"commoncrawl\"\nqueries = [\"graphe\"]",
                "allow = [\"a.fr\"]",
                "`queries`",
            ),
            (
                "backend = \"mediawiki\"\nurls = [\"a.fr\"]",
                "allow = []",
                "`urls` lists host names for backend = \"commoncrawl\"",
            ),
            (
                "backend = \"brave\"\narticle_path = \"https://w.example/$1\"",
                "allow = []",
                "`article_path` is for backend = \"mediawiki\"",
            ),
            (
                "backend = \"mediawiki\"\narticle_path = \"/wiki/\"",
                "allow = []",
                "`article_path = \"/wiki/\"` must be the http(s) URL of an article with $1",
            ),
            (
                "backend = \"mediawiki\"\nendpoint = \"https://wiki.example.org/search\"",
                "allow = []",
                "is not a wiki's api.php",
            ),
        ] {
            let err = format!("{:#}", cc(search, allow).unwrap_err());
            assert!(
                err.contains("[search]") && err.contains(field),
                "{search}: {err}"
            );
        }
    }

    #[test]
    fn mediawiki_sends_words_without_sites() {
        let text = SEARCH.replace("backend = \"brave\"", "backend = \"mediawiki\"");
        let plan = parse(&text).unwrap().search.unwrap();
        let (_, first) = &plan.queries[0];
        assert_eq!(first.q, "graphe planaire -graffiti");
        assert!(first.params.is_empty(), "{:?}", first.params);
    }
}
