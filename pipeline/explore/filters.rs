//! The value filters of the statistics: a stop list (a language's built-in function words, or
//! a file) and "words only".
//!
//! **In:** `--stop LANG|FILE`, `--words-only`. **Out:** a test on a listed value, and a phrase
//! for the notice saying what was left out.
//!
//! **Invariants:** values are compared in lower case; a stop list that names neither a known
//! language nor a readable file is an error naming both possibilities.

use std::path::Path;

use anyhow::{Context, bail};
use rustc_hash::FxHashSet;

use super::ValueFilters;

/// The filters, ready to test values.
#[derive(Debug, Default)]
pub(super) struct Keep {
    stop: Option<(String, FxHashSet<String>)>,
    words_only: bool,
}

impl Keep {
    pub(super) fn new(filters: &ValueFilters) -> anyhow::Result<Keep> {
        let stop = match &filters.stop {
            None => None,
            Some(name) => Some((name.clone(), stop_list(name)?)),
        };
        Ok(Keep {
            stop,
            words_only: filters.words_only,
        })
    }

    /// Whether a value is listed.
    pub(super) fn keeps(&self, value: &str) -> bool {
        (!self.words_only || is_word(value)) && !self.is_stop(value)
    }

    /// Whether an n-gram's tokens are listed: none of them without a letter or digit
    /// (`--words-only`), neither the first nor the last on the stop list.
    pub(super) fn keeps_ngram(&self, tokens: &[&str]) -> bool {
        if self.words_only && !tokens.iter().all(|t| is_word(t)) {
            return false;
        }
        !(tokens.first().is_some_and(|t| self.is_stop(t))
            || tokens.last().is_some_and(|t| self.is_stop(t)))
    }

    /// Whether a value is on the stop list.
    fn is_stop(&self, value: &str) -> bool {
        let Some((_, list)) = &self.stop else {
            return false;
        };
        let lower = value.to_lowercase();
        // An elided form (`l’`, `d'`) is its word on the lists.
        let bare = lower.trim_end_matches(['\'', '’']);
        list.contains(&lower) || list.contains(bare)
    }

    /// What the filters leave out, for the notice ("" when nothing).
    pub(super) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some((name, list)) = &self.stop {
            parts.push(format!("stop list {name} ({} values)", list.len()));
        }
        if self.words_only {
            parts.push("words only".to_string());
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(", without {}", parts.join(" and "))
        }
    }
}

/// A value holding a letter or a digit.
fn is_word(value: &str) -> bool {
    value.chars().any(char::is_alphanumeric)
}

/// A language's built-in list, or a file's values.
fn stop_list(name: &str) -> anyhow::Result<FxHashSet<String>> {
    let path = Path::new(name);
    if !path.exists()
        && let Some(list) = stages::page::stopwords::stopwords(name)
    {
        return Ok(list.iter().map(|w| (*w).to_string()).collect());
    }
    if !path.is_file() {
        bail!(
            "--stop {name}: neither a language with a built-in stop list ({}) nor a file",
            stages::page::stopwords::LANGUAGES.join(", ")
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the stop list {}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_lists_come_from_a_language_or_a_file_and_words_only_drops_symbols() {
        let keep = Keep::new(&ValueFilters {
            stop: Some("fr".into()),
            words_only: true,
        })
        .unwrap();
        assert!(!keep.keeps("de") && !keep.keeps("Le") && keep.keeps("calque"));
        assert!(!keep.keeps("l’") && !keep.keeps("qu'") && keep.keeps("lui-même"));
        assert!(!keep.keeps("}") && !keep.keeps("‘") && keep.keeps("3D"));
        assert!(keep.describe().contains("stop list fr"));
        assert!(keep.keeps_ngram(&["calque", "de", "texte"]));
        assert!(!keep.keeps_ngram(&["le", "calque"]) && !keep.keeps_ngram(&["calque", "de"]));
        assert!(!keep.keeps_ngram(&["calque", ",", "texte"]));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("stop.txt");
        std::fs::write(&file, "# mine\nGIMP\ncalque  # a comment\n\n").unwrap();
        let keep = Keep::new(&ValueFilters {
            stop: Some(file.display().to_string()),
            words_only: false,
        })
        .unwrap();
        assert!(!keep.keeps("gimp") && !keep.keeps("calque") && keep.keeps("}"));
        let err = Keep::new(&ValueFilters {
            stop: Some("xx".into()),
            words_only: false,
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("--stop xx") && err.contains("fr"), "{err}");
    }
}
