//! The taggers: what runs for each language ([`Setup`]), and one tagger process per worker
//! ([`Tagger`]): spaCy as a long-lived process fed batch after batch, TreeTagger and any other
//! command run once per batch.
//!
//! **In:** `[annotate]`, a batch of TreeTagger-ready text in one language. **Out:** the
//! tagger's answer, or why there is none ([`RunError`]): the tagger cannot be run at all, or it
//! failed on this batch.
//!
//! **Invariants:** a tagger never holds the stage: every batch has a time limit, after which
//! its process is killed; taggers run in a process group of their own (a Ctrl-C in the
//! terminal stops glaneur's stage gracefully, not the batches in flight), with their standard
//! error appended to `annotate/tagger-N.log`; a spaCy process that died is started again for
//! the next batch.

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::topic::{AnnotateSection, TREETAGGER_LANGUAGES, TaggerName};

/// Why a batch has no tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RunError {
    /// The tagger cannot be run (not installed, not found): the same for every batch.
    Unavailable(String),
    /// The tagger ran and failed on this batch (crash, error, time limit).
    Failed(String),
}

/// How a language is tagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Plan {
    /// With this model (spaCy's name, TreeTagger's parameter file, `{model}` of a command).
    Tag(String),
    /// Not at all, and why: the reason's name and the words for the user.
    Untagged(&'static str, String),
}

/// What runs the batches, the same for every worker.
#[derive(Debug, Clone)]
pub(super) struct Setup {
    kind: Kind,
    /// The plan of each language seen so far.
    plans: BTreeMap<String, Plan>,
    /// The longest a batch may take.
    pub(super) timeout: Duration,
    /// `annotate/`: logs and the spaCy worker's script.
    dir: PathBuf,
}

#[derive(Debug, Clone)]
enum Kind {
    /// spaCy in a Python, models by language.
    Spacy {
        python: PathBuf,
        script: PathBuf,
        models: BTreeMap<String, String>,
    },
    /// A program run once per batch; `{lang}` and `{model}` in its arguments.
    PerBatch { program: PathBuf, args: Vec<String> },
    /// Nothing can run (the reason for every document).
    Unavailable(String),
}

/// The spaCy worker's script, written into `annotate/` for each run.
pub(super) const SPACY_WORKER: &str = include_str!("spacy_worker.py");

impl Setup {
    /// The taggers of `annotate`; `python` is the spaCy Python to use (see `venv.rs`), `dir`
    /// the run's `annotate/` folder, `resolve` makes a topic-relative path absolute.
    pub(super) fn new(
        annotate: &AnnotateSection,
        python: Result<PathBuf, String>,
        dir: &Path,
        resolve: &dyn Fn(&Path) -> PathBuf,
        languages: &[String],
    ) -> anyhow::Result<Setup> {
        let kind = match annotate.tagger {
            TaggerName::Spacy => match python {
                Ok(python) => {
                    let script = dir.join("spacy-worker.py");
                    std::fs::write(&script, SPACY_WORKER)
                        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", script.display()))?;
                    let mut models = BTreeMap::new();
                    for (lang, _) in crate::topic::SPACY_MODELS {
                        models.extend(annotate.model_for(lang).map(|m| (lang.to_string(), m)));
                    }
                    for (lang, model) in &annotate.models {
                        models.insert(lang.clone(), model.clone());
                    }
                    Kind::Spacy {
                        python,
                        script,
                        models,
                    }
                }
                Err(why) => Kind::Unavailable(why),
            },
            TaggerName::Treetagger => match treetagger_binary(annotate, resolve) {
                Ok(program) => Kind::PerBatch {
                    program,
                    args: ["-token", "-lemma", "-sgml", "-no-unknown", "{model}"]
                        .map(String::from)
                        .to_vec(),
                },
                Err(why) => Kind::Unavailable(why),
            },
            TaggerName::Command => {
                let first = annotate.command.first().map_or("", String::as_str);
                match find_program(first, resolve) {
                    Some(program) => Kind::PerBatch {
                        program,
                        args: annotate.command[1..].to_vec(),
                    },
                    None => Kind::Unavailable(format!(
                        "the command {first:?} of [annotate] command is not found (not a file, \
                         not on PATH)"
                    )),
                }
            }
        };
        let mut setup = Setup {
            kind,
            plans: BTreeMap::new(),
            timeout: Duration::from_secs(600),
            dir: dir.to_path_buf(),
        };
        setup.plan_languages(annotate, resolve, languages);
        Ok(setup)
    }

    /// The plan of `lang` (a language not planned yet is left untagged: the stage plans
    /// every language of the corpus first).
    pub(super) fn plan(&self, lang: &str) -> Plan {
        self.plans.get(lang).cloned().unwrap_or_else(|| {
            Plan::Untagged(
                "no-model",
                format!("no model planned for the language {lang:?}"),
            )
        })
    }

    /// The plans of every language, for the report and `glaneur check`.
    pub(super) fn plans(&self) -> &BTreeMap<String, Plan> {
        &self.plans
    }

    /// Decides how each language is tagged (spaCy: one check of its models, in one process).
    fn plan_languages(
        &mut self,
        annotate: &AnnotateSection,
        resolve: &dyn Fn(&Path) -> PathBuf,
        languages: &[String],
    ) {
        for lang in languages {
            let plan = match &self.kind {
                Kind::Unavailable(why) => Plan::Untagged("tagger-unavailable", why.clone()),
                Kind::Spacy { models, .. } => match models.get(lang) {
                    Some(model) => Plan::Tag(model.clone()),
                    None => Plan::Untagged(
                        "no-model",
                        format!(
                            "spaCy has no small model for {lang:?}: name one in [annotate] \
                             models ({lang} = \"…\")"
                        ),
                    ),
                },
                Kind::PerBatch { args, .. } => {
                    let needs_model = args.iter().any(|a| a.contains("{model}"));
                    match model_of(annotate, lang, resolve) {
                        // TreeTagger's parameter file must be there: otherwise every batch
                        // would fail and be split down to single documents.
                        Some(model)
                            if annotate.tagger == TaggerName::Treetagger
                                && !Path::new(&model).is_file() =>
                        {
                            Plan::Untagged(
                                "no-model",
                                format!(
                                    "TreeTagger's parameter file for {lang:?}, {model}, does                                      not exist (download it from TreeTagger's page and name it                                      in [annotate] models)"
                                ),
                            )
                        }
                        Some(model) => Plan::Tag(model),
                        None if !needs_model => Plan::Tag(String::new()),
                        None => Plan::Untagged(
                            "no-model",
                            format!(
                                "no {} for {lang:?}: name it in [annotate] models ({lang} = \
                                 \"…\")",
                                if annotate.tagger == TaggerName::Treetagger {
                                    "TreeTagger parameter file"
                                } else {
                                    "model"
                                }
                            ),
                        ),
                    }
                }
            };
            self.plans.insert(lang.clone(), plan);
        }
        if let Kind::Spacy { python, script, .. } = &self.kind {
            let wanted: Vec<(String, String)> = self
                .plans
                .iter()
                .filter_map(|(lang, plan)| match plan {
                    Plan::Tag(model) => Some((lang.clone(), model.clone())),
                    Plan::Untagged(..) => None,
                })
                .collect();
            let checked = check_spacy(python, script, &wanted, &self.dir);
            for (lang, outcome) in checked {
                if let Err((reason, why)) = outcome {
                    self.plans.insert(lang, Plan::Untagged(reason, why));
                }
            }
        }
    }

    /// The program and its arguments for a batch of `lang` (None: spaCy, fed by its process).
    fn command_for(&self, lang: &str) -> Option<(PathBuf, Vec<String>)> {
        let Kind::PerBatch { program, args } = &self.kind else {
            return None;
        };
        let model = match self.plan(lang) {
            Plan::Tag(model) => model,
            Plan::Untagged(..) => String::new(),
        };
        let args = args
            .iter()
            .map(|a| a.replace("{lang}", lang).replace("{model}", &model))
            .collect();
        Some((program.clone(), args))
    }
}

/// TreeTagger's binary: the topic's, else `$TREETAGGER_HOME/bin/tree-tagger`, else on `PATH`.
pub(super) fn treetagger_binary(
    annotate: &AnnotateSection,
    resolve: &dyn Fn(&Path) -> PathBuf,
) -> Result<PathBuf, String> {
    if let Some(path) = &annotate.treetagger {
        let path = resolve(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "[annotate] treetagger = {} is not a file",
                path.display()
            ))
        };
    }
    if let Some(home) = std::env::var_os("TREETAGGER_HOME") {
        let path = PathBuf::from(home).join("bin").join("tree-tagger");
        if path.is_file() {
            return Ok(path);
        }
    }
    find_program("tree-tagger", resolve).ok_or_else(|| {
        "TreeTagger is not installed: tree-tagger is neither in $TREETAGGER_HOME/bin nor on \
         PATH (install it from https://www.cis.uni-muenchen.de/~schmid/tools/TreeTagger/ and \
         name it in [annotate] treetagger, or use tagger = \"spacy\")"
            .to_string()
    })
}

/// The model of `lang` for a per-batch tagger: the topic's (a file path for TreeTagger,
/// resolved from the topic folder), else TreeTagger's parameter file in its installation.
pub(super) fn model_of(
    annotate: &AnnotateSection,
    lang: &str,
    resolve: &dyn Fn(&Path) -> PathBuf,
) -> Option<String> {
    if let Some(model) = annotate.models.get(lang) {
        return Some(match annotate.tagger {
            TaggerName::Treetagger => resolve(Path::new(model)).display().to_string(),
            _ => model.clone(),
        });
    }
    if annotate.tagger != TaggerName::Treetagger {
        return None;
    }
    let name = TREETAGGER_LANGUAGES
        .iter()
        .find(|(code, _)| *code == lang)
        .map(|(_, name)| *name)?;
    let home = std::env::var_os("TREETAGGER_HOME")?;
    let lib = PathBuf::from(home).join("lib");
    [format!("{name}-utf8.par"), format!("{name}.par")]
        .iter()
        .map(|file| lib.join(file))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}

/// A program: a path (relative ones from the topic folder) or a name on `PATH`.
pub(super) fn find_program(name: &str, resolve: &dyn Fn(&Path) -> PathBuf) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.contains('/') {
        let path = resolve(Path::new(name));
        return path.is_file().then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A language's model: it loads, or the reason (`Reason`-like name) and why not.
pub(super) type ModelCheck = (String, Result<(), (&'static str, String)>);

/// Which spaCy models load (one process loads them all once): per language, Ok or the
/// reason and why.
pub(super) fn check_spacy(
    python: &Path,
    script: &Path,
    wanted: &[(String, String)],
    dir: &Path,
) -> Vec<ModelCheck> {
    if wanted.is_empty() {
        return Vec::new();
    }
    let output = Command::new(python)
        .arg(script)
        .arg("check")
        .args(wanted.iter().map(|(lang, model)| format!("{lang}={model}")))
        .stdin(Stdio::null())
        .stderr(log_file(dir, 0).map_or_else(|_| Stdio::null(), Stdio::from))
        .output();
    let all = |reason: &'static str, why: String| {
        wanted
            .iter()
            .map(|(lang, _)| (lang.clone(), Err((reason, why.clone()))))
            .collect()
    };
    let output = match output {
        Ok(output) => output,
        Err(e) => {
            return all(
                "tagger-unavailable",
                format!("cannot run {} ({e})", python.display()),
            );
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("nospacy ")) {
        return all(
            "tagger-unavailable",
            format!(
                "spaCy cannot be imported by {} ({why}): install it there (pip install \
                 spacy), or leave [annotate] python out to let glaneur make its own environment",
                python.display()
            ),
        );
    }
    wanted
        .iter()
        .map(|(lang, model)| {
            let ok = text.lines().any(|l| l == format!("ok {lang}"));
            let why = text
                .lines()
                .find_map(|l| l.strip_prefix(&format!("missing {lang} ")))
                .unwrap_or("the check did not answer")
                .to_string();
            let outcome = if ok {
                Ok(())
            } else {
                Err((
                    "no-model",
                    format!(
                        "the spaCy model {model} cannot be loaded by {} ({why}); install it \
                         (python -m spacy download {model})",
                        python.display()
                    ),
                ))
            };
            (lang.clone(), outcome)
        })
        .collect()
}

/// Worker `n`'s log of its taggers' standard error, appended to.
fn log_file(dir: &Path, n: usize) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("tagger-{n}.log")))
}

/// The last words of a log, for a message.
fn log_tail(dir: &Path, n: usize) -> String {
    let text = std::fs::read(dir.join(format!("tagger-{n}.log"))).unwrap_or_default();
    let text = String::from_utf8_lossy(&text[text.len().saturating_sub(2000)..]).into_owned();
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().chars().take(300).collect())
        .unwrap_or_default()
}

/// One worker's tagger.
pub(super) struct Tagger {
    setup: std::sync::Arc<Setup>,
    /// The worker's number (its log).
    n: usize,
    spacy: Option<SpacyProcess>,
}

impl Tagger {
    pub(super) fn new(setup: std::sync::Arc<Setup>, n: usize) -> Tagger {
        Tagger {
            setup,
            n,
            spacy: None,
        }
    }

    /// Tags `input` (TreeTagger-ready documents of `lang`); returns the tagger's answer.
    pub(super) fn run(
        &mut self,
        lang: &str,
        input: &str,
        tokens: usize,
    ) -> Result<String, RunError> {
        // A batch of many tokens may take longer: the limit grows with it.
        let limit = self.setup.timeout + Duration::from_millis(tokens as u64 * 20);
        match &self.setup.kind {
            Kind::Unavailable(why) => Err(RunError::Unavailable(why.clone())),
            Kind::Spacy {
                python,
                script,
                models,
            } => {
                let process = match &mut self.spacy {
                    Some(process) => process,
                    none => none.insert(SpacyProcess::start(
                        python,
                        script,
                        models,
                        &self.setup.dir,
                        self.n,
                    )?),
                };
                let answer = process.tag(input, limit);
                if answer.is_err() {
                    // Dead or stuck: killed, and started again for the next batch.
                    if let Some(mut dead) = self.spacy.take() {
                        dead.kill();
                    }
                }
                answer.map_err(|why| {
                    let tail = log_tail(&self.setup.dir, self.n);
                    RunError::Failed(if tail.is_empty() {
                        why
                    } else {
                        format!("{why} ({tail})")
                    })
                })
            }
            Kind::PerBatch { .. } => {
                let Some((program, args)) = self.setup.command_for(lang) else {
                    return Err(RunError::Failed("no tagger command for this batch".into()));
                };
                run_once(&program, &args, input, &self.setup.dir, self.n, limit)
            }
        }
    }
}

impl Drop for Tagger {
    fn drop(&mut self) {
        if let Some(process) = self.spacy.take() {
            process.close();
        }
    }
}

/// Runs `program` once on `input`; its answer, or why not.
fn run_once(
    program: &Path,
    args: &[String],
    input: &str,
    dir: &Path,
    n: usize,
    limit: Duration,
) -> Result<String, RunError> {
    let input_path = dir.join(format!("batch-{n}.tt"));
    std::fs::write(&input_path, input)
        .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", input_path.display())))?;
    let stdin = std::fs::File::open(&input_path)
        .map_err(|e| RunError::Failed(format!("cannot read {}: {e}", input_path.display())))?;
    let stderr = log_file(dir, n)
        .map_err(|e| RunError::Failed(format!("cannot write the tagger's log: {e}")))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                RunError::Unavailable(format!("cannot run {} ({e})", program.display()))
            }
            _ => RunError::Failed(format!("cannot run {} ({e})", program.display())),
        })?;
    let Some(mut stdout) = child.stdout.take() else {
        let _ = child.kill();
        return Err(RunError::Failed(
            "the tagger's output could not be read".into(),
        ));
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.read_to_end(&mut bytes).map(|_| bytes);
        let _ = tx.send(read);
    });
    let name = program.file_name().map_or_else(
        || program.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = match rx.recv_timeout(limit) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::Failed(format!(
                "cannot read {name}'s answer: {e}"
            )));
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::Failed(format!(
                "{name} gave no answer in {} s (killed)",
                limit.as_secs()
            )));
        }
    };
    let status = child
        .wait()
        .map_err(|e| RunError::Failed(format!("{name}: {e}")))?;
    if !status.success() {
        let tail = log_tail(dir, n);
        return Err(RunError::Failed(format!(
            "{name} ended with {status}{}",
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            }
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| RunError::Failed(format!("{name} wrote text that is not UTF-8")))
}

/// A spaCy worker process, fed batch after batch.
struct SpacyProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Its answer's lines, read on a thread of their own (so that a time limit holds).
    lines: mpsc::Receiver<String>,
}

impl SpacyProcess {
    fn start(
        python: &Path,
        script: &Path,
        models: &BTreeMap<String, String>,
        dir: &Path,
        n: usize,
    ) -> Result<SpacyProcess, RunError> {
        let stderr = log_file(dir, n)
            .map_err(|e| RunError::Failed(format!("cannot write the tagger's log: {e}")))?;
        let mut child = Command::new(python)
            .arg(script)
            .arg("serve")
            .args(models.iter().map(|(lang, model)| format!("{lang}={model}")))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|e| RunError::Unavailable(format!("cannot run {} ({e})", python.display())))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            return Err(RunError::Unavailable(
                "spaCy's output could not be read".into(),
            ));
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(SpacyProcess {
            stdin: child.stdin.take(),
            child,
            lines,
        })
    }

    /// One batch: written whole, then its answer read until `</batch>`.
    fn tag(&mut self, input: &str, limit: Duration) -> Result<String, String> {
        let stdin = self.stdin.as_mut().ok_or("the spaCy process is closed")?;
        stdin
            .write_all(input.as_bytes())
            .and_then(|()| stdin.write_all(b"</batch>\n"))
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("the spaCy process stopped reading ({e})"))?;
        let deadline = Instant::now() + limit;
        let mut answer = String::with_capacity(input.len() * 2);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line == "</batch>" => return Ok(answer),
                Ok(line) => {
                    if let Some(why) = line.strip_prefix("!error: ") {
                        // The rest of the answer is `</batch>`: read it, the process goes on.
                        let _ = self.lines.recv_timeout(Duration::from_secs(5));
                        return Err(format!("spaCy failed: {why}"));
                    }
                    answer.push_str(&line);
                    answer.push('\n');
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("spaCy gave no answer in {} s", limit.as_secs()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    return Err(match status {
                        Some(status) => format!("the spaCy process ended ({status})"),
                        None => "the spaCy process closed its output".to_string(),
                    });
                }
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Ends the process: its input closes, it exits (killed if it does not within seconds).
    fn close(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}
