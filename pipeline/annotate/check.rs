//! What `glaneur check` says of the tagging: the tagger each language of the topic gets, and
//! whether it is there (what to install when it is not).
//!
//! **In:** `[annotate]` of a topic. **Out:** lines for people.
//!
//! **Invariants:** nothing is installed, fetched or written: glaneur's own Python environment
//! is only looked at (the first `glaneur run` makes it).

use std::path::{Path, PathBuf};

use super::tagger::{self, SPACY_WORKER};
use super::venv;
use crate::topic::{TaggerName, Topic};

/// One line per language of the topic (its first language for documents whose language is
/// not detected; "every language" when the topic names none), after a line on the tagger.
pub fn describe(topic: &Topic) -> Vec<String> {
    let Some(annotate) = &topic.file.annotate else {
        return vec!["tagging: none ([annotate] absent: the corpus has word and lc only)".into()];
    };
    let resolve = |p: &Path| topic.resolve(p);
    let languages: Vec<String> = if topic.file.languages.is_empty() {
        annotate.models.keys().cloned().collect()
    } else {
        topic.file.languages.clone()
    };
    let mut lines = Vec::new();
    match annotate.tagger {
        TaggerName::Spacy => {
            let python = annotate.python.as_ref().map(|p| resolve(p)).or_else(|| {
                venv::own_environment()
                    .map(|d| d.join("bin").join("python"))
                    .filter(|p| p.is_file())
            });
            let models: Vec<(String, String)> = languages
                .iter()
                .filter_map(|lang| annotate.model_for(lang).map(|m| (lang.clone(), m)))
                .collect();
            match python {
                Some(python) => {
                    lines.push(format!("tagging: spaCy with {}", python.display()));
                    lines.extend(spacy_models(&python, &models));
                }
                None => {
                    let dir = venv::own_environment()
                        .unwrap_or_else(|| PathBuf::from("~/.cache/glaneur/spacy-3.8"));
                    lines.push(format!(
                        "tagging: spaCy; the first run makes its Python environment in {} (pip \
                         installs spaCy 3.8 and the models below: PyPI must be reachable)",
                        dir.display()
                    ));
                    for (lang, model) in &models {
                        lines.push(format!("  {lang}: {model} (to be installed)"));
                    }
                }
            }
            for lang in languages.iter().filter(|l| annotate.model_for(l).is_none()) {
                lines.push(format!(
                    "  {lang}: no spaCy model: name one in [annotate] models, or its documents \
                     stay untagged (no-model)"
                ));
            }
        }
        TaggerName::Treetagger | TaggerName::Command => {
            let program = if annotate.tagger == TaggerName::Treetagger {
                tagger::treetagger_binary(annotate, &resolve)
            } else {
                let first = annotate.command.first().map_or("", String::as_str);
                tagger::find_program(first, &resolve)
                    .ok_or_else(|| format!("{first:?} is not found (not a file, not on PATH)"))
            };
            match program {
                Ok(program) => lines.push(format!(
                    "tagging: {} with {}",
                    annotate.tagger.name(),
                    program.display()
                )),
                Err(why) => lines.push(format!(
                    "tagging: {} is NOT available: {why}; the corpus is exported without tags",
                    annotate.tagger.name()
                )),
            }
            for lang in &languages {
                let model = tagger::model_of(annotate, lang, &resolve);
                let needs = annotate.tagger == TaggerName::Treetagger
                    || annotate.command.iter().any(|a| a.contains("{model}"));
                lines.push(match model {
                    Some(model)
                        if annotate.tagger == TaggerName::Treetagger
                            && !Path::new(&model).is_file() =>
                    {
                        format!(
                            "  {lang}: the parameter file {model} is missing (TreeTagger's page \
                             has one per language); its documents stay untagged (no-model)"
                        )
                    }
                    Some(model) => format!("  {lang}: {model}"),
                    None if needs => format!(
                        "  {lang}: no model: name it in [annotate] models, or its documents stay \
                         untagged (no-model)"
                    ),
                    None => format!("  {lang}: the command, as it is"),
                });
            }
        }
    }
    lines
}

/// Whether each model loads in `python` (spaCy imported once, nothing written).
fn spacy_models(python: &Path, models: &[(String, String)]) -> Vec<String> {
    let output = std::process::Command::new(python)
        .arg("-c")
        .arg(SPACY_WORKER)
        .arg("check")
        .args(models.iter().map(|(lang, model)| format!("{lang}={model}")))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let text = match output {
        Ok(output) => String::from_utf8_lossy(&output.stdout).into_owned(),
        Err(e) => {
            return vec![format!(
                "  NOT available: cannot run {} ({e})",
                python.display()
            )];
        }
    };
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("nospacy ")) {
        return vec![format!(
            "  NOT available: spaCy cannot be imported ({why}): pip install spacy in that \
             environment"
        )];
    }
    let mut lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("spacy "))
        .map(|v| format!("  spaCy {v}"))
        .collect();
    for (lang, model) in models {
        let ok = text.lines().any(|l| l == format!("ok {lang}"));
        lines.push(if ok {
            format!("  {lang}: {model} (installed)")
        } else {
            format!(
                "  {lang}: {model} is NOT installed: {} -m spacy download {model} (else its \
                 documents stay untagged, no-model)",
                python.display()
            )
        });
    }
    lines
}
