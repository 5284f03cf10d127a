//! The Python that runs spaCy: the one the topic names, else glaneur's own virtual
//! environment, made on first use and reused by every later run.
//!
//! **In:** `[annotate] python`, the models the corpus's languages need. **Out:** a Python in
//! which spaCy imports, or why there is none (what to install).
//!
//! **Invariants:** glaneur's environment lives in `$GLANEUR_CACHE` (else
//! `$XDG_CACHE_HOME/glaneur`, else `~/.cache/glaneur`), in `spacy-3.8/`; it is made in a folder
//! beside and renamed into place, so a half-made environment is never used; two glaneur
//! processes make it one after the other (a lock file); what pip says goes to `venv.log`.
//! A Python the topic names is used as it is: glaneur installs nothing into it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::topic::AnnotateSection;

/// spaCy's version installed into glaneur's environment (the models' 3.8.0 go with it).
const SPACY: &str = "spacy==3.8.18";

/// The folder of glaneur's environment.
pub(super) fn own_environment() -> Option<PathBuf> {
    let cache = std::env::var_os("GLANEUR_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("glaneur")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/glaneur")))?;
    Some(cache.join("spacy-3.8"))
}

/// The Python of `[annotate] python`, or of glaneur's environment, made (with the `models`
/// the corpus needs) when it is not there yet; `say` tells the user what is being done.
pub(super) fn spacy_python(
    annotate: &AnnotateSection,
    resolve: &dyn Fn(&Path) -> PathBuf,
    models: &[String],
    say: &dyn Fn(&str),
) -> Result<PathBuf, String> {
    if let Some(python) = &annotate.python {
        let python = resolve(python);
        return if python.is_file() {
            Ok(python)
        } else {
            Err(format!(
                "[annotate] python = {} is not a file (give a virtual environment's \
                 bin/python, or leave it out to let glaneur make its own)",
                python.display()
            ))
        };
    }
    let dir = own_environment()
        .ok_or("no folder for glaneur's Python environment (set HOME or GLANEUR_CACHE)")?;
    let parent = dir.parent().unwrap_or(&dir).to_path_buf();
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock = std::fs::File::create(parent.join("spacy.lock"))
        .map_err(|e| format!("cannot create {}: {e}", parent.join("spacy.lock").display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", parent.join("spacy.lock").display()))?;
    let log = parent.join("venv.log");
    let python = dir.join("bin").join("python");
    if !python.is_file() {
        say(&format!(
            "making a Python environment for spaCy in {} (once for every run; pip downloads \
             spaCy and its models, about 100 MB; what it says goes to {})",
            dir.display(),
            log.display()
        ));
        make_environment(&dir, &log)?;
    }
    let missing: Vec<&String> = models.iter().filter(|m| !has_package(&python, m)).collect();
    for model in missing {
        say(&format!(
            "installing the spaCy model {model} into {}",
            dir.display()
        ));
        install_model(&python, model, &log)?;
    }
    Ok(python)
}

/// A new environment with spaCy, made beside `dir` and renamed into place.
fn make_environment(dir: &Path, log: &Path) -> Result<(), String> {
    let building = dir.with_extension("building");
    if building.exists() {
        std::fs::remove_dir_all(&building)
            .map_err(|e| format!("cannot clear {}: {e}", building.display()))?;
    }
    let system = super::tagger::find_program("python3", &|p| p.to_path_buf()).ok_or(
        "python3 is not on PATH: install Python 3 (and its venv module), or name a \
                Python with spaCy in [annotate] python",
    )?;
    run(
        Command::new(&system).arg("-m").arg("venv").arg(&building),
        log,
        "cannot make a virtual environment (on Debian and Ubuntu: apt-get install python3-venv)",
    )?;
    let python = building.join("bin").join("python");
    run(
        Command::new(&python).args(["-m", "pip", "install", "--quiet", SPACY]),
        log,
        "pip cannot install spaCy (is PyPI reachable?)",
    )?;
    std::fs::rename(&building, dir).map_err(|e| {
        format!(
            "cannot move {} to {}: {e}",
            building.display(),
            dir.display()
        )
    })?;
    Ok(())
}

/// Installs a model: from PyPI when it is published there, else with `spacy download`.
fn install_model(python: &Path, model: &str, log: &Path) -> Result<(), String> {
    let package = format!("{}==3.8.0", model.replace('_', "-"));
    let from_pypi = run(
        Command::new(python).args(["-m", "pip", "install", "--quiet", &package]),
        log,
        "",
    );
    if from_pypi.is_ok() {
        return Ok(());
    }
    run(
        Command::new(python).args(["-m", "spacy", "download", model]),
        log,
        &format!("cannot install the spaCy model {model} (neither on PyPI nor downloadable)"),
    )
}

/// Whether `python` can import the package `name`.
fn has_package(python: &Path, name: &str) -> bool {
    Command::new(python)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)",
            name,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `command` with its output appended to `log`; `failure` (and the log's last line) when
/// it fails.
fn run(command: &mut Command, log: &Path, failure: &str) -> Result<(), String> {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let status = command
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| format!("{failure} ({e})"))?;
    if status.success() {
        return Ok(());
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    Err(format!("{failure}: {last} (see {})", log.display()))
}
