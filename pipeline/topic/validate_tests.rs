//! Tests of the topic file's validation: every limit, every message naming its field.

use std::path::PathBuf;

use super::super::Topic;
use super::*;

const MINIMAL: &str = r#"
name = "graphes"
languages = ["fr"]
[seeds]
urls = ["http://a.test/"]
terms = ["graphe", "sommet"]
[formula]
expression = '(NON "graffiti") ET ("graphe*" OU "sommet")'
[domains]
allow = [".test"]
[politeness]
contact = "mailto:linguiste@example.org"
"#;

fn parse(text: &str) -> anyhow::Result<Topic> {
    Topic::from_str(text, PathBuf::from("."), "test".into())
}

fn with(table: &str, line: &str) -> String {
    if MINIMAL.contains(&format!("[{table}]\n")) {
        MINIMAL.replace(&format!("[{table}]\n"), &format!("[{table}]\n{line}\n"))
    } else {
        format!("{MINIMAL}[{table}]\n{line}\n")
    }
}

#[test]
fn every_number_of_the_topic_file_has_a_limit_and_every_limit_reads_its_number() {
    let mut file = parse(MINIMAL).unwrap().file;
    file.matrix.max_vocabulary = Some(10);
    file.similarity.top_k = Some(5);
    file.search = Some(toml::from_str("backend = \"brave\"\ntuples = 3").unwrap());
    file.annotate = Some(toml::from_str("tagger = \"spacy\"\nprocesses = 2").unwrap());
    // The numbers of the file as serde sees them, `[table] field` (a field added later
    // without a limit fails here).
    let json = serde_json::to_value(&file).unwrap();
    let mut numbers = Vec::new();
    for (table, value) in json.as_object().unwrap() {
        if let Some(fields) = value.as_object() {
            for (field, v) in fields {
                if let Some(n) = v.as_f64() {
                    numbers.push((format!("[{table}] {field}"), n));
                }
            }
        }
    }
    assert_eq!(numbers.len(), LIMITS.len(), "{numbers:?}");
    for (field, written) in numbers {
        let limit = LIMITS.iter().find(|l| l.field == field);
        let limit = limit.unwrap_or_else(|| panic!("{field} has no limit"));
        assert!(limit.min <= limit.max, "{field}");
        // The limit reads that very number.
        let read = (limit.value)(&file).map(Number::value);
        assert_eq!(read, Some(written), "{field}");
    }
}

#[test]
fn absurd_numbers_are_refused_naming_the_field_and_the_range() {
    for (table, line, field) in [
        (
            "crawl",
            "timeout_seconds = 1e300",
            "timeout_seconds = 1e300",
        ),
        (
            "politeness",
            "delay_seconds = 1e300",
            "delay_seconds = 1e300",
        ),
        (
            "politeness",
            "robots_ttl_seconds = 1e300",
            "robots_ttl_seconds",
        ),
        (
            "politeness",
            "response_time_factor = 1e300",
            "response_time_factor",
        ),
        (
            "politeness",
            "backoff_seconds = inf",
            "backoff_seconds = inf",
        ),
        ("politeness", "delay_seconds = nan", "delay_seconds = NaN"),
        ("politeness", "delay_seconds = -1", "delay_seconds = -1"),
        (
            "crawl",
            "concurrency = 18446744073709551615",
            "concurrency = 18446744073709551615",
        ),
        ("crawl", "max_body_bytes = 10", "max_body_bytes = 10"),
        ("crawl", "max_depth = 4000000000", "max_depth = 4000000000"),
        ("focus", "margin = 2", "margin = 2"),
        ("score", "parent = 1e308", "parent"),
        ("traps", "max_url_length = 0", "max_url_length = 0"),
        // Durations too short to make sense: robots.txt asked for again and again, every
        // request timing out, a page visited without pause.
        (
            "politeness",
            "robots_ttl_seconds = 0",
            "robots_ttl_seconds = 0",
        ),
        (
            "politeness",
            "robots_ttl_seconds = 1e-300",
            "robots_ttl_seconds = 1e-300",
        ),
        (
            "politeness",
            "robots_ttl_seconds = 59",
            "robots_ttl_seconds = 59",
        ),
        (
            "crawl",
            "timeout_seconds = 1e-300",
            "timeout_seconds = 1e-300",
        ),
        ("crawl", "timeout_seconds = 0.1", "timeout_seconds = 0.1"),
        (
            "monitor",
            "interval_seconds = 1e-300",
            "interval_seconds = 1e-300",
        ),
        (
            "monitor",
            "min_interval_seconds = 0.5",
            "min_interval_seconds = 0.5",
        ),
    ] {
        let err = format!("{:#}", parse(&with(table, line)).unwrap_err());
        assert!(
            err.contains(&format!("[{table}] `{field}")) && err.contains("out of range"),
            "{line}: {err}"
        );
        assert!(
            err.contains(" to ") || err.contains("at most"),
            "{line}: {err}"
        );
    }
    let search = format!("{MINIMAL}[search]\nbackend = \"brave\"\ndelay_seconds = 1e300\n");
    let err = format!("{:#}", parse(&search).unwrap_err());
    assert!(err.contains("[search] `delay_seconds = 1e300"), "{err}");
}

#[test]
fn the_guide_lists_the_ranges_checked() {
    let readme = include_str!("../../docs/guide/topic-file.md");
    let table = limits_markdown();
    assert!(
        readme.contains(&table),
        "the table of ranges in docs/guide/topic-file.md is not LIMITS; it should read:\n{table}"
    );
}

#[test]
fn all_problems_are_listed_at_once() {
    let text = with("crawl", "concurrency = 0\nmax_pages = 0");
    let err = format!("{:#}", parse(&text).unwrap_err());
    assert!(
        err.contains("concurrency = 0") && err.contains("max_pages = 0"),
        "{err}"
    );
}

#[test]
fn endpoints_must_be_http() {
    for endpoint in ["file:///etc/passwd", "gopher://a.test/", "not a url"] {
        let text = format!("{MINIMAL}[search]\nbackend = \"searxng\"\nendpoint = \"{endpoint}\"\n");
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(err.contains("[search] `endpoint"), "{endpoint}: {err}");
    }
}

#[test]
fn files_must_be_readable_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    let text = MINIMAL.replace(
        "terms =",
        "result_pages = [\"pages\"]\nurl_lists = [\"absent.txt\"]\nterms =",
    ) + "replay = \"pages\"\n";
    // `replay` is a top-level key: it must come before the first table.
    let text = format!(
        "replay = \"pages\"\n{}",
        text.replace("replay = \"pages\"\n", "")
    );
    let topic = Topic::from_str(&text, dir.path().to_path_buf(), "test".into()).unwrap();
    let err = format!("{:#}", check_files(&topic, false).unwrap_err());
    assert!(
        err.contains("[seeds] result_pages") && err.contains("is a folder"),
        "{err}"
    );
    assert!(
        err.contains("[seeds] url_lists") && err.contains("does not exist"),
        "{err}"
    );
    assert!(err.contains("`replay`"), "{err}");
}

#[test]
fn seeds_outside_the_domains_and_formula_words_no_seed_term_has_are_warned_about() {
    let topic = parse(MINIMAL).unwrap();
    assert!(warnings(&topic).is_empty(), "{:?}", warnings(&topic));
    let text = MINIMAL
        .replace("http://a.test/", "https://fr.wikipedia.org/wiki/Graphe")
        .replace("terms = [\"graphe\", \"sommet\"]", "terms = [\"graphes\"]");
    let found = warnings(&parse(&text).unwrap());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("https://fr.wikipedia.org/wiki/Graphe"),
        "{found:?}"
    );
    assert!(
        found[1].contains("`sommet`") && !found[1].contains("graphe"),
        "{found:?}"
    );
}

#[test]
fn annotate_and_parse_tables_name_the_field_at_fault() {
    for (table, expect) in [
        (
            "[annotate]\ntagger = \"spacy\"\nmodels = { french = \"fr_core_news_sm\" }",
            "`french` is not a two-letter",
        ),
        (
            "[annotate]\ntagger = \"spacy\"\nmodels = { fr = \"fr core\" }",
            "is not a spaCy model's name",
        ),
        ("[annotate]\ntagger = \"command\"", "needs `command`"),
        (
            "[annotate]\ntagger = \"treetagger\"\npython = \"/usr/bin/python3\"",
            "`python` is for tagger = \"spacy\"",
        ),
        (
            "[annotate]\ntagger = \"spacy\"\ncommand = [\"x\"]",
            "`command` is for tagger = \"command\"",
        ),
        ("[annotate]\ntagger = \"flair\"", "tagger"),
        (
            "[annotate]\ntagger = \"spacy\"\nprocesses = 0",
            "`processes",
        ),
        ("[parse]\nupery = \"upery {in} {out}\"", "give `syntex` too"),
        ("[parse]\nsyntex = \" \"", "`syntex` is empty"),
    ] {
        let err = format!("{:#}", parse(&format!("{MINIMAL}{table}\n")).unwrap_err());
        assert!(err.contains(expect), "{table}: {err}");
    }
    let fine = "[annotate]\ntagger = \"spacy\"\nmodels = { fr = \"fr_core_news_md\" }\n\
                [parse]\nsyntex = \"syntex {in} {out}\"\nupery = \"upery {in} {out}\"\n";
    let topic = parse(&format!("{MINIMAL}{fine}")).unwrap();
    let annotate = topic.file.annotate.unwrap();
    assert_eq!(annotate.model_for("fr").as_deref(), Some("fr_core_news_md"));
    // A language the table leaves out gets spaCy's small model of it, when spaCy has one.
    assert_eq!(annotate.model_for("de").as_deref(), Some("de_core_news_sm"));
}
