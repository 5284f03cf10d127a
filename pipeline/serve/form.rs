//! The topic form's model: the fields a linguist changes most, read from a topic file and put
//! back into it as a TOML document (comments, order and every other setting kept).
//!
//! **In:** a topic file's text, the form's values. **Out:** [`TopicForm`], or the file's text
//! with the values in, or the problem with its field.
//!
//! **Invariants:** editing changes only the form's fields; a value that is not a number where a
//! number goes is a problem naming its field, never a panic.

use toml_edit::{Array, DocumentMut, Item, value};

use super::App;

/// The form's values.
#[derive(Debug, Default, Clone)]
pub(crate) struct TopicForm {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) languages: String,
    /// `replay`: a recorded web to crawl (empty: the live web; None: the form did not say).
    pub(super) replay: Option<String>,
    pub(super) seed_urls: String,
    pub(super) seed_terms: String,
    /// `[search] queries`, when the topic has a `[search]` section (`None`: it has none).
    pub(super) queries: Option<String>,
    pub(super) result_pages: Vec<String>,
    pub(super) formula: String,
    pub(super) allow: String,
    pub(super) deny: String,
    pub(super) max_pages: String,
    pub(super) max_depth: String,
    pub(super) max_pages_per_host: String,
    pub(super) strategy: String,
    pub(super) delay_seconds: String,
    pub(super) contact: String,
    /// `[annotate] tagger` (`none`: no tagging); None when the form did not say.
    pub(super) tagger: Option<String>,
}

fn strings(item: Option<&Item>) -> Vec<String> {
    item.and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn scalar(item: Option<&Item>) -> String {
    match item.and_then(Item::as_value) {
        Some(v) if v.as_str().is_some() => v.as_str().unwrap_or_default().to_string(),
        Some(v) => v.to_string().trim().to_string(),
        None => String::new(),
    }
}

impl TopicForm {
    /// The form filled from a topic file's text.
    pub(super) fn from_text(name: &str, text: &str) -> TopicForm {
        let doc: DocumentMut = text.parse().unwrap_or_default();
        let get = |section: &str, key: &str| doc.get(section).and_then(|s| s.get(key));
        TopicForm {
            name: name.to_string(),
            description: scalar(doc.get("description")),
            languages: strings(doc.get("languages")).join(", "),
            replay: Some(scalar(doc.get("replay"))),
            seed_urls: strings(get("seeds", "urls")).join("\n"),
            seed_terms: strings(get("seeds", "terms")).join(", "),
            queries: doc
                .get("search")
                .map(|_| strings(get("search", "queries")).join("\n")),
            result_pages: strings(get("seeds", "result_pages")),
            formula: scalar(get("formula", "expression")),
            allow: strings(get("domains", "allow")).join("\n"),
            deny: strings(get("domains", "deny")).join("\n"),
            max_pages: scalar(get("crawl", "max_pages")),
            max_depth: scalar(get("crawl", "max_depth")),
            max_pages_per_host: scalar(get("crawl", "max_pages_per_host")),
            strategy: scalar(get("crawl", "strategy")),
            delay_seconds: scalar(get("politeness", "delay_seconds")),
            contact: scalar(get("politeness", "contact")),
            tagger: Some(match get("annotate", "tagger") {
                Some(tagger) => scalar(Some(tagger)),
                None => "none".to_string(),
            }),
        }
    }

    /// `text` (the file being edited) with the form's values put in; a problem names its field.
    pub(super) fn apply(&self, text: &str) -> Result<String, String> {
        let mut doc: DocumentMut = text
            .parse()
            .map_err(|e| format!("the topic file does not parse as TOML: {e}"))?;
        let list = |text: &str, by: &[char]| -> Array {
            text.split(by)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect()
        };
        let root = doc.as_table_mut();
        put(root, "name", value(self.name.as_str()));
        put(root, "description", value(self.description.as_str()));
        put(
            root,
            "languages",
            value(list(&self.languages, &[',', ' ', '\n'])),
        );
        match self.replay.as_deref().map(str::trim) {
            None => {}
            Some("") => {
                root.remove("replay");
            }
            Some(file) => put(root, "replay", value(file)),
        }
        set(
            &mut doc,
            "seeds",
            "urls",
            value(list(&self.seed_urls, &['\n', ' '])),
        )?;
        set(
            &mut doc,
            "seeds",
            "terms",
            value(list(&self.seed_terms, &[',', '\n'])),
        )?;
        if !self.result_pages.is_empty() {
            let pages: Array = self.result_pages.iter().map(String::as_str).collect();
            set(&mut doc, "seeds", "result_pages", value(pages))?;
        }
        if let Some(queries) = &self.queries
            && doc.get("search").is_some()
        {
            set(&mut doc, "search", "queries", value(list(queries, &['\n'])))?;
        }
        set(
            &mut doc,
            "formula",
            "expression",
            value(self.formula.as_str()),
        )?;
        set(
            &mut doc,
            "domains",
            "allow",
            value(list(&self.allow, &['\n', ' ', ','])),
        )?;
        let deny = list(&self.deny, &['\n', ' ', ',']);
        if deny.is_empty() {
            if let Some(domains) = doc.get_mut("domains").and_then(Item::as_table_like_mut) {
                domains.remove("deny");
            }
        } else {
            set(&mut doc, "domains", "deny", value(deny))?;
        }
        for (key, text) in [
            ("max_pages", &self.max_pages),
            ("max_depth", &self.max_depth),
            ("max_pages_per_host", &self.max_pages_per_host),
        ] {
            let n: i64 = text
                .trim()
                .parse()
                .map_err(|_| format!("[crawl] {key}: `{text}` is not a whole number"))?;
            set(&mut doc, "crawl", key, value(n))?;
        }
        if !self.strategy.trim().is_empty() {
            set(&mut doc, "crawl", "strategy", value(self.strategy.trim()))?;
        }
        let delay: f64 = self.delay_seconds.trim().parse().map_err(|_| {
            format!(
                "[politeness] delay_seconds: `{}` is not a number of seconds",
                self.delay_seconds
            )
        })?;
        set(&mut doc, "politeness", "delay_seconds", value(delay))?;
        set(
            &mut doc,
            "politeness",
            "contact",
            value(self.contact.trim()),
        )?;
        match self.tagger.as_deref().map(str::trim) {
            None => {}
            Some("none" | "") => {
                doc.as_table_mut().remove("annotate");
            }
            Some(tagger) => set(&mut doc, "annotate", "tagger", value(tagger))?,
        }
        Ok(doc.to_string())
    }
}

/// Sets `[section] key` in `doc`, making the section when the file has none; a `section` the
/// file holds as something else than a table is a problem named, not a panic.
fn set(doc: &mut DocumentMut, section: &str, key: &str, item: Item) -> Result<(), String> {
    let table = doc
        .as_table_mut()
        .entry(section)
        .or_insert(toml_edit::table())
        .as_table_like_mut()
        .ok_or_else(|| {
            format!("[{section}] in the topic file is not a table: fix it in the file")
        })?;
    put(table, key, item);
    Ok(())
}

/// Puts `item` under `key`, in place when the key is there (its comments stay with it).
fn put(table: &mut dyn toml_edit::TableLike, key: &str, item: Item) {
    match table.get_mut(key) {
        Some(slot) => *slot = item,
        None => {
            table.insert(key, item);
        }
    }
}

/// A topic's name as a folder name: 1 to 100 letters, digits, `-`, `_`.
pub(super) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The topic's own template for a new topic (what `glaneur init` writes).
pub(super) fn new_topic_text(app: &App, name: &str) -> String {
    crate::topic::template::render(name, &app.corpora.join(name).display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editing_keeps_comments_and_other_settings_and_names_a_bad_number() {
        let text = "# my notes\nname = \"t\"\n[seeds]\nurls = [\"http://a.test/\"]\n[formula]\n\
                    expression = 'a'\ncase_sensitive = true\n[domains]\nallow = [\"a.test\"]\n\
                    [crawl]\nmax_pages = 5\nmax_depth = 2\nmax_pages_per_host = 5\n\
                    # keep me\nconcurrency = 3\n[politeness]\ndelay_seconds = 1.0\ncontact = \"x@y.z\"\n";
        let mut form = TopicForm::from_text("t", text);
        assert_eq!(form.seed_urls, "http://a.test/");
        assert_eq!(form.max_pages, "5");
        form.formula = "graphe* ET sommet".into();
        form.seed_terms = "graphe, sommet".into();
        form.max_pages = "50".into();
        let out = form.apply(text).unwrap();
        assert!(
            out.contains("# my notes") && out.contains("# keep me"),
            "{out}"
        );
        assert!(
            out.contains("concurrency = 3") && out.contains("case_sensitive = true"),
            "{out}"
        );
        assert!(out.contains("expression = \"graphe* ET sommet\""), "{out}");
        assert!(out.contains("terms = [\"graphe\", \"sommet\"]"), "{out}");
        assert!(out.contains("max_pages = 50"), "{out}");
        assert_eq!(form.queries, None, "no [search] section, no queries field");
        let with_search = format!("{text}[search]\nbackend = \"brave\"\nqueries = [\"a b\"]\n");
        let mut searching = TopicForm::from_text("t", &with_search);
        assert_eq!(searching.queries.as_deref(), Some("a b"));
        searching.queries = Some("graphes orientés\nthéorie des graphes".into());
        let out = searching.apply(&with_search).unwrap();
        assert!(
            out.contains("queries = [\"graphes orientés\", \"théorie des graphes\"]"),
            "{out}"
        );
        // `politeness = 3` at the top: a value where the section should be.
        let odd = format!(
            "politeness = 3\n{}",
            text.replace(
                "[politeness]\ndelay_seconds = 1.0\ncontact = \"x@y.z\"\n",
                ""
            )
        );
        assert_eq!(
            form.apply(&odd).unwrap_err(),
            "[politeness] in the topic file is not a table: fix it in the file"
        );
        // A file without a section gets it.
        let bare = text.replace(
            "[politeness]\ndelay_seconds = 1.0\ncontact = \"x@y.z\"\n",
            "",
        );
        let out = form.apply(&bare).unwrap();
        assert!(
            out.contains("[politeness]") && out.contains("delay_seconds = 1.0"),
            "{out}"
        );
        form.max_depth = "deux".into();
        assert_eq!(
            form.apply(text).unwrap_err(),
            "[crawl] max_depth: `deux` is not a whole number"
        );
    }
}
