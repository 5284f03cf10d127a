//! `[annotate]` (the tagging stage: which tagger, which model per language) and `[parse]` (the
//! Syntex and Upery commands run on the tagged corpus), as written in the topic file.
//!
//! **In:** TOML. **Out:** [`AnnotateSection`], [`ParseSection`]; the model a language gets.
//!
//! **Invariants:** every table rejects unknown fields; a language's spaCy model is the one the
//! topic names, else the spaCy project's small model for that language ([`SPACY_MODELS`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The tagger of the annotate stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaggerName {
    /// spaCy, one named model per language, in a Python virtual environment.
    Spacy,
    /// The user's TreeTagger installation, one parameter file per language.
    Treetagger,
    /// Any command that reads TreeTagger-ready tokens and writes `word<TAB>pos<TAB>lemma`.
    Command,
}

impl TaggerName {
    /// Its name in the topic file.
    pub fn name(self) -> &'static str {
        match self {
            TaggerName::Spacy => "spacy",
            TaggerName::Treetagger => "treetagger",
            TaggerName::Command => "command",
        }
    }
}

/// `[annotate]`: tag the documents between extract and export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotateSection {
    /// `spacy`, `treetagger` or `command`.
    pub tagger: TaggerName,
    /// Per language (ISO 639-1): the spaCy model's name, TreeTagger's parameter file, or what
    /// `{model}` becomes in `command`. Languages left out: spaCy's small model of the language;
    /// TreeTagger's `LANGUAGE-utf8.par` or `LANGUAGE.par` in `$TREETAGGER_HOME/lib`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, String>,
    /// spaCy: the Python to run it with (a virtual environment's `bin/python`). Absent:
    /// glaneur's own virtual environment, made on first use (`~/.cache/glaneur/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PathBuf>,
    /// TreeTagger: its `tree-tagger` binary. Absent: `$TREETAGGER_HOME/bin/tree-tagger`, else
    /// `tree-tagger` on `PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub treetagger: Option<PathBuf>,
    /// `command`: the program and its arguments; `{lang}` and `{model}` are replaced by the
    /// batch's language and its `models` entry. It reads TreeTagger-ready text on its standard
    /// input and writes the same lines with each token line as `word<TAB>pos<TAB>lemma`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// Tagger processes at once (absent: one per core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<u64>,
    /// Tokens sent to the tagger at a time (a batch is also what a stopped run keeps).
    #[serde(default = "default_batch_tokens")]
    pub batch_tokens: u64,
}

fn default_batch_tokens() -> u64 {
    20_000
}

/// spaCy's small pipelines (3.8), by language: the model a language gets when `[annotate]
/// models` does not name one.
pub const SPACY_MODELS: &[(&str, &str)] = &[
    ("ca", "ca_core_news_sm"),
    ("da", "da_core_news_sm"),
    ("de", "de_core_news_sm"),
    ("el", "el_core_news_sm"),
    ("en", "en_core_web_sm"),
    ("es", "es_core_news_sm"),
    ("fi", "fi_core_news_sm"),
    ("fr", "fr_core_news_sm"),
    ("hr", "hr_core_news_sm"),
    ("it", "it_core_news_sm"),
    ("ja", "ja_core_news_sm"),
    ("ko", "ko_core_news_sm"),
    ("lt", "lt_core_news_sm"),
    ("mk", "mk_core_news_sm"),
    ("nb", "nb_core_news_sm"),
    ("nl", "nl_core_news_sm"),
    ("pl", "pl_core_news_sm"),
    ("pt", "pt_core_news_sm"),
    ("ro", "ro_core_news_sm"),
    ("ru", "ru_core_news_sm"),
    ("sl", "sl_core_news_sm"),
    ("sv", "sv_core_news_sm"),
    ("uk", "uk_core_news_sm"),
    ("zh", "zh_core_web_sm"),
];

/// TreeTagger's name of a language's parameter file (`fr` → `french`).
pub const TREETAGGER_LANGUAGES: &[(&str, &str)] = &[
    ("bg", "bulgarian"),
    ("ca", "catalan"),
    ("cs", "czech"),
    ("da", "danish"),
    ("de", "german"),
    ("el", "greek"),
    ("en", "english"),
    ("es", "spanish"),
    ("et", "estonian"),
    ("fi", "finnish"),
    ("fr", "french"),
    ("gl", "galician"),
    ("it", "italian"),
    ("la", "latin"),
    ("nl", "dutch"),
    ("pl", "polish"),
    ("pt", "portuguese"),
    ("ro", "romanian"),
    ("ru", "russian"),
    ("sk", "slovak"),
    ("sl", "slovenian"),
    ("sv", "swedish"),
];

impl AnnotateSection {
    /// What the topic names for `lang` in `models`, else spaCy's default model (None: nothing
    /// named; TreeTagger then looks in its installation).
    pub fn model_for(&self, lang: &str) -> Option<String> {
        if let Some(model) = self.models.get(lang) {
            return Some(model.clone());
        }
        match self.tagger {
            TaggerName::Spacy => SPACY_MODELS
                .iter()
                .find(|(code, _)| *code == lang)
                .map(|(_, model)| (*model).to_string()),
            TaggerName::Treetagger | TaggerName::Command => None,
        }
    }

    /// Problems with the table, each naming its field.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (lang, model) in &self.models {
            if lang.len() != 2 || !lang.chars().all(|c| c.is_ascii_lowercase()) {
                problems.push(format!(
                    "[annotate] models: `{lang}` is not a two-letter ISO 639-1 code such as \"fr\""
                ));
            }
            let package_name = model
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if self.tagger == TaggerName::Spacy && (model.is_empty() || !package_name) {
                problems.push(format!(
                    "[annotate] models: {lang} = {model:?} is not a spaCy model's name (such \
                     as \"fr_core_news_sm\")"
                ));
            }
        }
        let only = |field: &str, set: bool, tagger: TaggerName| {
            (set && self.tagger != tagger).then(|| {
                format!(
                    "[annotate] `{field}` is for tagger = \"{}\", not \"{}\"",
                    tagger.name(),
                    self.tagger.name()
                )
            })
        };
        problems.extend(only("python", self.python.is_some(), TaggerName::Spacy));
        problems.extend(only(
            "treetagger",
            self.treetagger.is_some(),
            TaggerName::Treetagger,
        ));
        problems.extend(only(
            "command",
            !self.command.is_empty(),
            TaggerName::Command,
        ));
        if self.tagger == TaggerName::Command && self.command.first().is_none_or(String::is_empty) {
            problems.push(
                "[annotate] tagger = \"command\" needs `command`, the program and its \
                 arguments (for example [\"my-tagger\", \"--lang\", \"{lang}\"])"
                    .into(),
            );
        }
        problems
    }
}

/// `[parse]`: Syntex and Upery run on the tagged corpus after the export, each with its
/// command line; `{in}` and `{out}` become its input and output (see docs/guide/text.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParseSection {
    /// Syntex's command line; `{in}`: the tagged files (`tagged/*.tagged`), `{out}`: `syntex/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syntex: Option<String>,
    /// Upery's command line; `{in}`: `syntex/`, `{out}`: `upery/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upery: Option<String>,
}

impl ParseSection {
    /// Problems with the table, each naming its field.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (field, command) in [("syntex", &self.syntex), ("upery", &self.upery)] {
            if command.as_deref().is_some_and(|c| c.trim().is_empty()) {
                problems.push(format!(
                    "[parse] `{field}` is empty: give its command line, or leave it out"
                ));
            }
        }
        if self.upery.is_some() && self.syntex.is_none() {
            problems.push("[parse] `upery` reads Syntex's analyses: give `syntex` too".into());
        }
        problems
    }
}
