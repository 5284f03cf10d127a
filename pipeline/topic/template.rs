//! `glaneur init DIR`: a commented topic file to start from.
//!
//! **In:** a folder path; its last component names the topic. **Out:** `DIR/topic.toml`, a
//! topic that `glaneur check` accepts as written, every section commented with what to change.
//! **Invariants:** never overwrites an existing topic file; the template goes through the same
//! validation as any topic before it is written (a test also checks it).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The template's description, which `glaneur check` asks to replace.
pub(crate) const DESCRIPTION: &str = "What this corpus is about, in one sentence";

/// The template, with `{name}` for the topic's name.
const TEMPLATE: &str = r#"# A glaneur topic: what to gather and how. Change what is marked, then
#   glaneur check {dir}                    # the topic resolved, or every problem with its field
#   glaneur formula 'EXPR' saved-page.html  # try the formula on pages you know
#   glaneur run {dir}                      # the corpus, in {dir}/run/
# Every field and its allowed range: docs/guide/topic-file.md.

name = "{name}"
description = "{description}"
# Target languages (ISO 639-1); pages in other languages are not kept.
languages = ["fr"]
# Crawl a recorded web instead of the network (a WARC file, relative to this folder: a run's
# run/warc/*.warc.gz, or the demo's web.warc.gz); `glaneur run --replay FILE` does the same.
# replay = "recorded.warc.gz"

[seeds]
# Where the crawl starts: pages you know are on topic (a search engine's results for the
# terms below are good seeds; save result pages and list them in `result_pages`).
urls = [
    "https://fr.wikipedia.org/wiki/Th%C3%A9orie_des_graphes",
]
# Words of the topic, for a search API (`[search]`, docs/guide/seeds.md): it sends random tuples
# of them and takes the results as seeds. They do not score pages or links: the formula and the
# seed pages' own words do.
terms = ["graphe", "graphes", "sommet", "arête"]
# result_pages = ["serp/google-graphes.html"]   # saved search-engine result pages
# url_lists = ["seeds.txt"]                      # one URL per line
# Seeds from a search API too (`glaneur seeds` lists them for review before the crawl):
# [search]
# backend = "mediawiki"   # Wikipedia's search, no key; or commoncrawl; brave, mojeek, google need one

[formula]
# A page is kept when its clean text satisfies this. Operators in UPPER CASE: ET/AND,
# OU/OR, NON/NOT, NEAR/n; "quoted phrases"; a trailing * for prefixes.
expression = '("graphe" OU "graphes") ET NON "graffiti"'

[domains]
# Hosts the crawl may visit: a name, or a suffix starting with a dot.
allow = ["fr.wikipedia.org"]
# deny = ["commons.wikimedia.org"]

[crawl]
# Stop after this many page requests; resume by running the same command again.
max_pages = 200
max_depth = 3
max_pages_per_host = 200
strategy = "best-first"

[politeness]
# Sent in the User-Agent so that site owners can reach you: your e-mail or web page.
contact = "mailto:prenom.nom@univ.example"
# Seconds between two requests to the same server (robots.txt's Crawl-delay wins if longer).
delay_seconds = 1.0

# Besides a page's HTML links the crawl reads the sitemaps a server's robots.txt names, the
# feeds a page announces (or a feed URL among the seeds) and links written in JavaScript; each
# can be switched off (docs/guide/crawl.md).
# [discovery]
# sitemaps = true
# feeds = true
# javascript = true

# Tag the corpus (part of speech, lemma) between extraction and export: take the two lines
# below out of their comment. spaCy's small model of each language is used; the first run
# makes a Python environment for it in ~/.cache/glaneur (pip, about 350 MB). Other taggers
# (TreeTagger, any command) and models: docs/guide/text.md.
# [annotate]
# tagger = "spacy"
"#;

/// Writes `dir/topic.toml` from the template; returns its path.
pub fn init(dir: &Path) -> anyhow::Result<PathBuf> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty()
        || name.len() > 100
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!(
            "`{}`: a topic folder's name is the topic's name: use 1 to 100 letters, digits, `-` \
             or `_` (e.g. corpora/graphes)",
            dir.display()
        );
    }
    let path = dir.join("topic.toml");
    if path.exists() {
        bail!(
            "{} exists already: glaneur init never overwrites a topic (check it with `glaneur \
             check {}`)",
            path.display(),
            dir.display()
        );
    }
    let text = render(&name, &dir.display().to_string());
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The template for topic `name` in folder `dir` (also the web interface's new topic).
pub(crate) fn render(name: &str, dir: &str) -> String {
    TEMPLATE
        .replace("{name}", name)
        .replace("{dir}", dir)
        .replace("{description}", DESCRIPTION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_is_a_valid_topic_and_is_never_written_over() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("graphes");
        let path = init(&dir).unwrap();
        let topic = crate::topic::Topic::load(&dir).unwrap();
        assert_eq!(topic.file.name, "graphes");
        crate::topic::check_files(&topic, false).unwrap();
        // `check` passes it, and says which placeholders are left: the contact, the description.
        let warnings = crate::topic::warnings(&topic);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("[politeness] contact"), "{warnings:?}");
        assert!(warnings[1].starts_with("description"), "{warnings:?}");
        let before = std::fs::read_to_string(&path).unwrap();
        let again = init(&dir).unwrap_err().to_string();
        assert!(again.contains("exists already"), "{again}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        let bad = init(&tmp.path().join("deux mots")).unwrap_err().to_string();
        assert!(bad.contains("letters, digits"), "{bad}");
    }
}
