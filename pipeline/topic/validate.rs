//! Validation of a topic file: every number in its range, every name well formed, every file
//! and endpoint usable — one set of rules for `glaneur check` and `glaneur run`.
//!
//! **In:** a parsed [`TopicFile`] (and, for [`check_files`] and [`warnings`], the resolved
//! [`Topic`]). **Out:** every problem at once, each naming its table, field, the value given
//! and what is allowed; warnings for what is valid but probably not what the user meant.
//!
//! **Invariants:** a topic that passes [`validate`] and [`check_files`] cannot make the crawl
//! panic or overflow (every duration fits a `Duration` and an `Instant`, every count fits what
//! it is stored in); the ranges are in one table ([`LIMITS`]), which the guide's topic
//! reference quotes.

use std::fmt::Write as _;

use super::{Topic, TopicFile};

/// The allowed range of one number of the topic file.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    /// `[table] field`.
    pub field: &'static str,
    /// Smallest value allowed.
    pub min: f64,
    /// Whether `min` itself is excluded (the value must be greater).
    pub above_min: bool,
    /// Largest value allowed.
    pub max: f64,
    /// What the number is ("seconds", "a whole number", "a share"…).
    pub unit: &'static str,
    /// The number in a topic file (None: an optional one, absent).
    value: Get,
}

/// How a [`Limit`] reads its number in a topic file.
type Get = fn(&TopicFile) -> Option<Number>;

const fn limit(field: &'static str, min: f64, max: f64, unit: &'static str, value: Get) -> Limit {
    Limit {
        field,
        min,
        above_min: false,
        max,
        unit,
        value,
    }
}

const fn above(field: &'static str, min: f64, max: f64, unit: &'static str, value: Get) -> Limit {
    Limit {
        field,
        min,
        above_min: true,
        max,
        unit,
        value,
    }
}

const DAY: f64 = 86_400.0;
const WHOLE: &str = "a whole number";
const SECONDS: &str = "a number of seconds";
const SHARE: &str = "a number";
const WEIGHT: &str = "a weight";

/// Every number of the topic file and its range. The upper bounds are far above any sensible
/// setting; they exist so that an absurd value is an error with a message instead of an
/// overflow in the middle of a crawl.
pub const LIMITS: &[Limit] = &[
    limit("[crawl] max_pages", 1.0, 1e12, WHOLE, |f| {
        Some(whole(f.crawl.max_pages))
    }),
    limit("[crawl] max_depth", 0.0, 65_535.0, WHOLE, |f| {
        Some(whole(f.crawl.max_depth))
    }),
    limit("[crawl] max_pages_per_host", 1.0, 1e12, WHOLE, |f| {
        Some(whole(f.crawl.max_pages_per_host))
    }),
    limit("[crawl] concurrency", 1.0, 10_000.0, WHOLE, |f| {
        Some(whole(f.crawl.concurrency))
    }),
    limit(
        "[crawl] max_body_bytes",
        1024.0,
        256.0 * 1024.0 * 1024.0,
        "a number of bytes",
        |f| Some(whole(f.crawl.max_body_bytes)),
    ),
    limit(
        "[crawl] backlog_bytes",
        1024.0 * 1024.0,
        1024.0 * 1024.0 * 1024.0 * 1024.0,
        "a number of bytes",
        |f| Some(whole(f.crawl.backlog_bytes)),
    ),
    // A request needs time to cross the network: below half a second every server times out.
    limit("[crawl] timeout_seconds", 0.5, DAY, SECONDS, |f| {
        Some(Number::Real(f.crawl.timeout_seconds))
    }),
    limit("[crawl] frontier_in_memory", 0.0, 1e10, WHOLE, |f| {
        Some(whole(f.crawl.frontier_in_memory))
    }),
    limit(
        "[crawl] max_links_per_page",
        1.0,
        10_000_000.0,
        WHOLE,
        |f| Some(whole(f.crawl.max_links_per_page)),
    ),
    limit(
        "[crawl] max_attributes_per_element",
        1.0,
        10_000.0,
        WHOLE,
        |f| Some(whole(f.crawl.max_attributes_per_element)),
    ),
    limit("[focus] tunnel", 0.0, 65_535.0, WHOLE, |f| {
        Some(whole(f.focus.tunnel))
    }),
    limit("[focus] margin", 0.0, 1.0, SHARE, |f| {
        Some(Number::Real(f.focus.margin))
    }),
    limit("[focus] pagerank_every", 1.0, 1e12, WHOLE, |f| {
        Some(whole(f.focus.pagerank_every))
    }),
    limit("[politeness] delay_seconds", 0.0, DAY, SECONDS, |f| {
        Some(Number::Real(f.politeness.delay_seconds))
    }),
    limit(
        "[politeness] max_crawl_delay_seconds",
        0.0,
        DAY,
        SECONDS,
        |f| Some(Number::Real(f.politeness.max_crawl_delay_seconds)),
    ),
    limit(
        "[politeness] connections_per_host",
        1.0,
        1000.0,
        WHOLE,
        |f| Some(whole(f.politeness.connections_per_host)),
    ),
    limit(
        "[politeness] response_time_factor",
        0.0,
        100.0,
        SHARE,
        |f| Some(Number::Real(f.politeness.response_time_factor)),
    ),
    limit("[politeness] backoff_seconds", 0.0, DAY, SECONDS, |f| {
        Some(Number::Real(f.politeness.backoff_seconds))
    }),
    limit("[politeness] give_up_after", 1.0, 1000.0, WHOLE, |f| {
        Some(whole(f.politeness.give_up_after))
    }),
    limit(
        "[politeness] max_retry_after_seconds",
        0.0,
        7.0 * DAY,
        SECONDS,
        |f| Some(Number::Real(f.politeness.max_retry_after_seconds)),
    ),
    limit("[politeness] retries", 0.0, 100.0, WHOLE, |f| {
        Some(whole(f.politeness.retries))
    }),
    // robots.txt is never asked for twice within a minute (RFC 9309 suggests keeping it a day).
    limit(
        "[politeness] robots_ttl_seconds",
        60.0,
        365.0 * DAY,
        SECONDS,
        |f| Some(Number::Real(f.politeness.robots_ttl_seconds)),
    ),
    limit("[search] tuple_size", 1.0, 100.0, WHOLE, |f| {
        f.search.as_ref().map(|s| whole(s.tuple_size))
    }),
    limit("[search] tuples", 0.0, 100_000.0, WHOLE, |f| {
        f.search.as_ref().and_then(|s| s.tuples).map(whole)
    }),
    limit("[search] results_per_query", 1.0, 1000.0, WHOLE, |f| {
        f.search.as_ref().map(|s| whole(s.results_per_query))
    }),
    limit("[search] max_requests", 1.0, 1e9, WHOLE, |f| {
        f.search.as_ref().map(|s| whole(s.max_requests))
    }),
    // Any seed will do: a whole number that fits 64 bits.
    limit("[search] random_seed", 0.0, u64::MAX as f64, WHOLE, |f| {
        f.search.as_ref().map(|s| whole(s.random_seed))
    }),
    limit("[search] delay_seconds", 0.0, 3600.0, SECONDS, |f| {
        f.search.as_ref().map(|s| Number::Real(s.delay_seconds))
    }),
    limit(
        "[traps] max_url_length",
        16.0,
        1_000_000.0,
        "a number of bytes",
        |f| Some(whole(f.traps.max_url_length)),
    ),
    limit("[traps] max_path_depth", 1.0, 100_000.0, WHOLE, |f| {
        Some(whole(f.traps.max_path_depth))
    }),
    limit("[traps] max_repeats", 1.0, 100_000.0, WHOLE, |f| {
        Some(whole(f.traps.max_repeats))
    }),
    limit("[traps] max_query_variants", 0.0, 1e9, WHOLE, |f| {
        Some(whole(f.traps.max_query_variants))
    }),
    limit("[traps] max_calendar_pages", 0.0, 1e9, WHOLE, |f| {
        Some(whole(f.traps.max_calendar_pages))
    }),
    limit("[discovery] max_sitemaps_per_host", 0.0, 1e6, WHOLE, |f| {
        Some(whole(f.discovery.max_sitemaps_per_host))
    }),
    above("[text] near_duplicate_threshold", 0.0, 1.0, SHARE, |f| {
        Some(Number::Real(f.text.near_duplicate_threshold))
    }),
    limit("[text] boilerplate_min_pages", 2.0, 1e9, WHOLE, |f| {
        Some(whole(f.text.boilerplate_min_pages))
    }),
    limit("[text] boilerplate_min_share", 0.0, 1.0, SHARE, |f| {
        Some(Number::Real(f.text.boilerplate_min_share))
    }),
    limit("[matrix] min_df", 0.0, 1e9, WHOLE, |f| {
        Some(whole(f.matrix.min_df))
    }),
    above("[matrix] max_df_ratio", 0.0, 1.0, SHARE, |f| {
        Some(Number::Real(f.matrix.max_df_ratio))
    }),
    limit("[matrix] max_vocabulary", 1.0, 1e9, WHOLE, |f| {
        f.matrix.max_vocabulary.map(whole)
    }),
    limit("[similarity] threshold", 0.0, 1.0, SHARE, |f| {
        Some(Number::Real(f.similarity.threshold))
    }),
    limit("[similarity] top_k", 1.0, 100_000.0, WHOLE, |f| {
        f.similarity.top_k.map(whole)
    }),
    limit("[similarity] max_documents", 1.0, 1e12, WHOLE, |f| {
        Some(whole(f.similarity.max_documents))
    }),
    limit("[score] density", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.density))
    }),
    limit("[score] similarity", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.similarity))
    }),
    limit("[score] language", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.language))
    }),
    limit("[score] parent", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.parent))
    }),
    limit("[score] anchor", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.anchor))
    }),
    limit("[score] url", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.url))
    }),
    limit("[score] depth", 0.0, 1000.0, WEIGHT, |f| {
        Some(Number::Real(f.score.depth))
    }),
    limit("[score] other_language", 0.0, 1.0, "a factor", |f| {
        Some(Number::Real(f.score.other_language))
    }),
    // A page is never visited more than once a second.
    limit(
        "[monitor] interval_seconds",
        1.0,
        3650.0 * DAY,
        SECONDS,
        |f| Some(Number::Real(f.monitor.interval_seconds)),
    ),
    limit(
        "[monitor] min_interval_seconds",
        1.0,
        3650.0 * DAY,
        SECONDS,
        |f| Some(Number::Real(f.monitor.min_interval_seconds)),
    ),
    limit(
        "[monitor] max_interval_seconds",
        1.0,
        3650.0 * DAY,
        SECONDS,
        |f| Some(Number::Real(f.monitor.max_interval_seconds)),
    ),
    limit("[annotate] processes", 1.0, 64.0, WHOLE, |f| {
        f.annotate.as_ref()?.processes.map(whole)
    }),
    limit("[annotate] batch_tokens", 100.0, 10_000_000.0, WHOLE, |f| {
        f.annotate.as_ref().map(|a| whole(a.batch_tokens))
    }),
];

/// The ranges of [`LIMITS`] as the guide's table shows them (`docs/guide/topic-file.md`) (a test keeps the two equal).
#[cfg(test)]
fn limits_markdown() -> String {
    let number = |x: f64| -> String {
        if x >= 1e9 && (x.log10().fract() == 0.0) {
            format!("10^{}", x.log10() as i64)
        } else if x.fract() == 0.0 {
            let digits = format!("{}", x as u64);
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            grouped
        } else {
            format!("{x}")
        }
    };
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for limit in LIMITS {
        let (table, field) = limit.field.split_once(' ').unwrap_or(("", limit.field));
        let low = if limit.above_min {
            format!("> {}", number(limit.min))
        } else {
            number(limit.min)
        };
        let cell = format!("`{field}` {low} – {}", number(limit.max));
        match rows.iter_mut().find(|(t, _)| t == table) {
            Some((_, cells)) => cells.push(cell),
            None => rows.push((table.to_string(), vec![cell])),
        }
    }
    let mut out = String::from("| table | allowed values |\n|---|---|\n");
    for (table, cells) in rows {
        out.push_str(&format!("| `{table}` | {} |\n", cells.join(", ")));
    }
    out
}

/// A number as written in the file.
#[derive(Debug, Clone, Copy)]
enum Number {
    Whole(u64),
    Real(f64),
}

impl Number {
    fn value(self) -> f64 {
        match self {
            Number::Whole(n) => n as f64,
            Number::Real(x) => x,
        }
    }

    fn shown(self) -> String {
        match self {
            Number::Whole(n) => n.to_string(),
            // Debug keeps `1e300`, `inf` and `NaN` as the user wrote them.
            Number::Real(x) => format!("{x:?}"),
        }
    }
}

fn whole(n: impl TryInto<u64>) -> Number {
    Number::Whole(n.try_into().unwrap_or(u64::MAX))
}

/// Where a number falls outside its [`Limit`]: the message.
fn out_of_range(limit: &Limit, number: Number) -> Option<String> {
    let v = number.value();
    let low_ok = if limit.above_min {
        v > limit.min
    } else {
        v >= limit.min
    };
    if low_ok && v <= limit.max {
        return None;
    }
    let (table, field) = limit.field.split_once(' ').unwrap_or(("", limit.field));
    let range = if limit.above_min {
        format!("greater than {} and at most {}", limit.min, limit.max)
    } else {
        format!("from {} to {}", limit.min, limit.max)
    };
    Some(format!(
        "{table} `{field} = {}` is out of range: give {} {range}",
        number.shown(),
        limit.unit
    ))
}

/// Checks every rule of the topic file; the error lists every problem found, one per line.
pub(super) fn validate(file: &TopicFile) -> anyhow::Result<()> {
    let mut problems: Vec<String> = Vec::new();
    for limit in LIMITS {
        if let Some(number) = (limit.value)(file) {
            problems.extend(out_of_range(limit, number));
        }
    }
    check_identity(file, &mut problems);
    check_politeness(file, &mut problems);
    check_output(file, &mut problems);
    check_tables(file, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("{}", problems.join("\n"))
    }
}

/// `name`, `languages`, `[domains]`.
fn check_identity(file: &TopicFile, problems: &mut Vec<String>) {
    if file.name.is_empty()
        || file.name.len() > 100
        || !file
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        problems.push(format!(
            "`name = \"{}\"`: use 1 to 100 letters, digits, `-` or `_` (it names files)",
            file.name
        ));
    }
    for lang in &file.languages {
        if lang.len() != 2 || !lang.chars().all(|c| c.is_ascii_lowercase()) {
            problems.push(format!(
                "`languages`: `{lang}` is not a two-letter ISO 639-1 code such as \"fr\""
            ));
        }
    }
    for (list, patterns) in [("allow", &file.domains.allow), ("deny", &file.domains.deny)] {
        for pattern in patterns {
            if let Some(Err(why)) = stages::focus::score::Network::parse(pattern) {
                problems.push(format!("[domains] {list}: {why}"));
            }
        }
    }
}

/// `[politeness] contact`: it goes into every request's User-Agent.
fn check_politeness(file: &TopicFile, problems: &mut Vec<String>) {
    let contact = file.politeness.contact.trim();
    if !(contact.contains("http://") || contact.contains("https://") || contact.contains('@')) {
        problems.push(format!(
            "[politeness] `contact = \"{contact}\"`: give a URL or an e-mail address where site \
             owners can reach you; it goes into the User-Agent"
        ));
    }
    if contact
        .chars()
        .any(|c| c.is_control() || c == '(' || c == ')')
        || contact.len() > 500
    {
        problems.push(
            "[politeness] `contact` must be one line of at most 500 bytes, without parentheses"
                .into(),
        );
    }
}

/// `[output] formats`, `[text]`, `[matrix]`.
fn check_output(file: &TopicFile, problems: &mut Vec<String>) {
    let known = stages::export::formats::names();
    for name in &file.output.formats {
        if stages::export::formats::named(name).is_none() {
            problems.push(format!(
                "[output] `formats` names {name:?}, which glaneur does not write: choose among \
                 {}",
                known.join(", ")
            ));
        }
    }
    if !file.output.writes("vrt") {
        problems.push(
            "[output] `formats` must include \"vrt\": the query index (`glaneur kwic`, `freq`, \
             `colloc`) is built from it"
                .into(),
        );
    }
    if file.text.paragraph_language && file.languages.is_empty() {
        problems.push(
            "[text] `paragraph_language = true` needs `languages` (which paragraphs to keep)"
                .into(),
        );
    }
    if let Err(e) = file.matrix.options().validate() {
        let field = match e {
            stages::export::matrix::MatrixError::UnknownStoplist(_) => "stoplist",
            _ => "max_df_ratio",
        };
        problems.push(format!("[matrix] `{field}`: {e}"));
    }
}

/// `[search] endpoint`, `[monitor]`, `[seeds]`, `[annotate]`, `[parse]`.
fn check_tables(file: &TopicFile, problems: &mut Vec<String>) {
    if let Some(annotate) = &file.annotate {
        problems.extend(annotate.problems());
    }
    if let Some(parse) = &file.parse {
        problems.extend(parse.problems());
    }
    if let Some(search) = &file.search
        && let Some(endpoint) = &search.endpoint
    {
        match url::Url::parse(endpoint) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            Ok(_) => problems.push(format!(
                "[search] `endpoint = \"{endpoint}\"` is not an http or https URL"
            )),
            Err(e) => problems.push(format!(
                "[search] `endpoint = \"{endpoint}\"` is not a URL ({e})"
            )),
        }
    }
    let m = &file.monitor;
    if m.min_interval_seconds > m.max_interval_seconds {
        problems.push(format!(
            "[monitor] `min_interval_seconds = {:?}` is above `max_interval_seconds = {:?}`: the \
             shortest interval between two visits must be at most the longest",
            m.min_interval_seconds, m.max_interval_seconds
        ));
    }
    if file.seeds.urls.is_empty()
        && file.seeds.result_pages.is_empty()
        && file.seeds.url_lists.is_empty()
        && file.search.is_none()
    {
        problems.push(
            "[seeds] gives no seed: add `urls`, `result_pages` or `url_lists`, or a [search] \
             table"
                .into(),
        );
    }
}

/// Checks the files the topic names: result pages and URL lists must be readable files, and
/// a `replay` recording must be a readable file (the embedded demo topic, run from elsewhere,
/// falls back on its compiled-in recording: `embedded_fallback`).
pub fn check_files(topic: &Topic, embedded_fallback: bool) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    let seeds = &topic.file.seeds;
    for (what, list) in [
        ("result_pages", &seeds.result_pages),
        ("url_lists", &seeds.url_lists),
    ] {
        for path in list {
            problems.extend(file_problem(
                &format!("[seeds] {what}"),
                &topic.resolve(path),
            ));
        }
    }
    if let Some(replay) = &topic.file.replay
        && !embedded_fallback
    {
        problems.extend(file_problem("`replay`", &topic.resolve(replay)));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("{}", problems.join("\n"))
    }
}

fn file_problem(what: &str, path: &std::path::Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => match std::fs::File::open(path) {
            Ok(_) => None,
            Err(e) => Some(format!("{what}: cannot read {} ({e})", path.display())),
        },
        Ok(_) => Some(format!(
            "{what}: {} is a folder, not a file",
            path.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some(format!("{what}: {} does not exist", path.display()))
        }
        Err(e) => Some(format!("{what}: cannot read {} ({e})", path.display())),
    }
}

/// What is valid but probably not what the user meant: seeds that `[domains]` excludes (the
/// crawl would record them `off-domain` and fetch nothing from them), and formula words that
/// no seed term or query contains (search results may then rarely satisfy the formula).
pub fn warnings(topic: &Topic) -> Vec<String> {
    let mut out = Vec::new();
    let scope =
        stages::focus::score::Scope::new(&topic.file.domains.allow, &topic.file.domains.deny);
    let outside: Vec<&str> = topic
        .seed_urls
        .iter()
        .filter(|u| scope.check(u.host_str().unwrap_or("")).is_err())
        .map(url::Url::as_str)
        .collect();
    if !outside.is_empty() {
        let mut line = format!(
            "{} of the {} seed URLs are outside [domains] (allow {:?}, deny {:?}): they will \
             not be fetched:",
            outside.len(),
            topic.seed_urls.len(),
            topic.file.domains.allow,
            topic.file.domains.deny
        );
        for url in outside.iter().take(5) {
            let _ = write!(line, " {url}");
        }
        if outside.len() > 5 {
            let _ = write!(line, " …");
        }
        out.push(line);
    }
    let mut texts: Vec<String> = topic.file.seeds.terms.clone();
    if let Some(search) = &topic.file.search {
        texts.extend(search.queries.iter().cloned());
    }
    if !texts.is_empty() && !topic.formula.accepts_everything() {
        let joined = texts.join("\n");
        let options = topic.formula.options();
        let prepared = stages::focus::formula::PreparedText::new(&joined, options);
        // Each positive word alone, as the formula reads it (folding, `*` prefixes).
        let missing: Vec<String> = topic
            .formula
            .positive_terms()
            .into_iter()
            .filter(|term| {
                stages::focus::formula::Formula::parse_with(&format!("\"{term}\""), options)
                    .is_ok_and(|alone| alone.evaluate_prepared(&prepared).hits == 0)
            })
            .collect();
        if !missing.is_empty() {
            out.push(format!(
                "no seed term or query contains the formula words {}: the pages a search \
                 returns may rarely satisfy [formula]",
                missing
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    out.extend(placeholders(topic));
    out
}

/// The template's placeholders left in a topic (`glaneur init`'s contact and description).
fn placeholders(topic: &Topic) -> Vec<String> {
    let mut out = Vec::new();
    let contact = &topic.file.politeness.contact;
    if contact.contains("prenom.nom") || contact.ends_with("univ.example") {
        out.push(format!(
            "[politeness] contact is the template's `{contact}`: put your e-mail or web page, \
             which every request's User-Agent carries so that site owners can reach you"
        ));
    }
    if topic.file.description == crate::topic::template::DESCRIPTION {
        out.push(
            "description is the template's: say in one sentence what this corpus is about (it \
             is written in the report and the exports' metadata)"
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
