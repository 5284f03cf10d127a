//! The `harvest` scenario: best-first's harvest on topics, on a development web and on an
//! unseen one, both replayed from committed recordings, so no server is needed.
//!
//! - Development: the demo web (`corpora/demo/web.warc.gz`: GIMP, LibreOffice, LilyPond, the
//!   Debian handbook, Apache httpd; start page `portail.test`), with the focused-crawl
//!   benchmark's five formulas.
//! - Unseen: `tests/data/harvest/unseen-web.warc.gz` (Scilab, TeXworks, aptitude, the Debian
//!   installation guide, Grisbi; start page `accueil.test`), whose formulas were written before
//!   any crawl of it and never edited (`scripts/bench-harvest`, which built it).
//!
//! One topic per manual, the manual being its ground truth; the start page is the only seed;
//! the budget is the manual's pages (counted by one crawl of the whole recording), at most
//! 200, so that a perfect order's harvest is about 1. Printed with `--nocapture`: harvest by
//! ground truth (pages of the manual ÷ HTML pages fetched) and by the formula's verdict. The
//! crawls run at concurrency 1, where a crawl has one possible order, so the figures are the
//! same at every run; the benchmark's (concurrency 8, three rounds) are in docs/BENCHMARKS.md.

use std::collections::HashMap;
use std::path::Path;

use crate::support::*;

/// A topic: its name, its manual's host, its formula.
type Topic = (&'static str, &'static str, &'static str);

const DEVELOPMENT: [Topic; 5] = [
    (
        "gimp",
        "docs.gimp.test",
        r#"("gimp" OU "calque*" OU "pixel*") ET NON "partition*""#,
    ),
    (
        "lilypond",
        "lilypond.test",
        r#"("lilypond" OU "partition*" OU "portée*" OU "musique*") ET NON "calque*""#,
    ),
    (
        "libreoffice",
        "help.libreoffice.test",
        r#""libreoffice" OU "tableur*" OU "classeur*" OU "cellule*" OU "writer" OU "impress""#,
    ),
    (
        "apache",
        "httpd.apache.test",
        r#""apache" OU "httpd" OU "directive*" OU "virtualhost""#,
    ),
    (
        "debian",
        "debian-handbook.test",
        r#""debian" OU "paquet*" OU "dpkg" OU "apt""#,
    ),
];

const UNSEEN: [Topic; 5] = [
    (
        "scilab",
        "help.scilab.test",
        r#""scilab" OU "matrice*" OU "matriciel*" OU "polynôme*" OU "xcos" OU "scicos""#,
    ),
    (
        "texworks",
        "texworks.test",
        r#""texworks" OU "latex" OU "pdflatex" OU "xelatex" OU "tex" OU "synctex""#,
    ),
    (
        "aptitude",
        "aptitude.test",
        r#""aptitude" OU ("paquet*" ET "dépendance*")"#,
    ),
    (
        "installation",
        "installation.debian.test",
        r#""installateur" OU "partitionnement" OU "amorçage" OU "uefi" OU "bios" OU ("installation" ET "debian")"#,
    ),
    (
        "grisbi",
        "grisbi.test",
        r#""grisbi" OU "rapprochement*" OU "échéancier*" OU "budgétaire*" OU ("compte*" ET "bancaire*")"#,
    ),
];

/// What one crawl gave: HTML pages fetched, of the manual, satisfying the formula.
struct Harvest {
    pages: u32,
    truth: f64,
    verdict: f64,
}

fn topic_text(start: &str, formula: &str, strategy: &str, pages: u32, tunnel: u32) -> String {
    format!(
        r#"name = "harvest"
description = "harvest on a recorded web of five manuals"
languages = ["fr"]

[seeds]
urls = ["http://{start}/"]

[formula]
expression = '{formula}'

[domains]
allow = [".test"]

[crawl]
max_pages = {pages}
max_depth = 30
max_pages_per_host = {pages}
strategy = "{strategy}"
concurrency = 1

[focus]
tunnel = {tunnel}

[politeness]
delay_seconds = 0.0
contact = "mailto:test@example.org"
"#
    )
}

/// Runs one crawl of `web` and returns the HTML pages fetched as (host, verdict).
fn crawl(web: &Path, text: &str) -> Vec<(String, bool)> {
    let dir = tempfile::tempdir().unwrap();
    let topic = dir.path().join("topic.toml");
    std::fs::write(&topic, text).unwrap();
    let out = dir.path().join("run");
    let output = glaneur()
        .arg("run")
        .arg(&topic)
        .arg("--replay")
        .arg(web)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("run glaneur");
    // 0: a corpus; 1: an empty one (never expected here, but not a crash).
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let conn = db(&out);
    let mut stmt = conn
        .prepare(
            "SELECT host, COALESCE(verdict, 0) FROM urls WHERE state = 'fetched' \
             AND content_type LIKE 'text/html%'",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? == 1))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The politeness key's host part (`http://docs.gimp.test:80` → `docs.gimp.test`).
fn host_of(key: &str) -> &str {
    let rest = key.split_once("://").map_or(key, |(_, r)| r);
    rest.split(':').next().unwrap_or(rest)
}

/// The HTML pages of each manual reachable from the start page (one breadth-first crawl of
/// the whole recording, robots.txt obeyed).
fn manual_pages(web: &Path, start: &str) -> HashMap<String, u32> {
    let text = topic_text(start, r#""le" OU "la""#, "breadth-first", 100_000, 65_535);
    let mut pages: HashMap<String, u32> = HashMap::new();
    for (host, _) in crawl(web, &text) {
        *pages.entry(host_of(&host).to_string()).or_default() += 1;
    }
    pages
}

/// Best-first on every topic of a web: prints the table, returns the figures by topic.
fn harvest_of(set: &str, web: &Path, start: &str, topics: &[Topic]) -> Vec<(String, Harvest)> {
    let manuals = manual_pages(web, start);
    println!(
        "\n{set} ({}): best-first, concurrency 1, tunnel 3",
        web.display()
    );
    println!(
        "| topic | manual's pages | budget | HTML pages fetched | ground truth | formula verdict |"
    );
    println!("|---|---|---|---|---|---|");
    let mut out = Vec::new();
    for (name, host, formula) in topics {
        let manual = manuals.get(*host).copied().unwrap_or(0);
        assert!(manual > 10, "{set}: {host} has {manual} reachable pages");
        let budget = manual.min(200);
        let rows = crawl(web, &topic_text(start, formula, "best-first", budget, 3));
        let pages = rows.len() as u32;
        let on_manual = rows.iter().filter(|(h, _)| host_of(h) == *host).count();
        let on_topic = rows.iter().filter(|(_, v)| *v).count();
        let share = |n: usize| n as f64 / f64::from(pages.max(1));
        let h = Harvest {
            pages,
            truth: share(on_manual),
            verdict: share(on_topic),
        };
        println!(
            "| {name} | {manual} | {budget} | {} | {:.3} | {:.3} |",
            h.pages, h.truth, h.verdict
        );
        out.push((name.to_string(), h));
    }
    out
}

/// Every topic reaches 0.9 by ground truth, on both webs. The hardest is the unseen web's
/// TeXworks, whose formula takes 28 % of its own manual (its footnotes and index entries, of a
/// few words, name no topic word): 0.911 here, 0.800 before a failing page's weight in its
/// server's yield depended on its length.
#[test]
fn best_first_harvest_on_a_development_web_and_an_unseen_one() {
    let sets: [(&str, &str, &str, &[Topic]); 2] = [
        (
            "development",
            "corpora/demo/web.warc.gz",
            "portail.test",
            &DEVELOPMENT,
        ),
        (
            "unseen",
            "tests/data/harvest/unseen-web.warc.gz",
            "accueil.test",
            &UNSEEN,
        ),
    ];
    for (set, web, hub, topics) in sets {
        for (name, h) in harvest_of(set, &repo().join(web), hub, topics) {
            assert!(h.truth >= 0.9, "{set}, {name}: {:.3}", h.truth);
        }
    }
}
