//! The annotate and parse stages: one `glaneur run` gives a tagged corpus (spaCy's French
//! model, from the test environment's Python), equal to the manual path's; a stopped run (even
//! `kill -9`) resumes to the same tags; a failing, garbling or missing tagger leaves the
//! documents untagged with a reason and the corpus usable; TreeTagger gets its flags and the
//! language's parameter file; Syntex and Upery commands run after the export. The demo's recorded web, replayed: no network.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{assert_exit, db, glaneur, repo};

/// A copy of the demo topic in `dir`, crawling `max_pages` pages, with `extra` appended.
fn demo_topic(dir: &Path, max_pages: u64, extra: &str) -> PathBuf {
    let topic = dir.join("topic");
    std::fs::create_dir_all(&topic).unwrap();
    std::fs::copy(
        repo().join("corpora/demo/web.warc.gz"),
        topic.join("web.warc.gz"),
    )
    .unwrap();
    let text = std::fs::read_to_string(repo().join("corpora/demo/topic.toml"))
        .unwrap()
        .replace("max_pages = 300", &format!("max_pages = {max_pages}"));
    std::fs::write(topic.join("topic.toml"), format!("{text}\n{extra}")).unwrap();
    topic
}

/// `glaneur run TOPIC --out OUT --quiet EXTRA…`, to its end.
fn run(topic: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    glaneur()
        .arg("run")
        .arg(topic)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap()
}

/// The Python of the tests' environment (`scripts/test` puts its `bin/` first on PATH).
fn python() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .expect("python3 on PATH")
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

/// The token lines of the `.vrt` (markup left out).
fn vrt_tokens(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("vrt/corpus.vrt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('<'))
        .map(str::to_string)
        .collect()
}

fn fake_tagger() -> String {
    repo().join("tests/fake_tagger.py").display().to_string()
}

#[test]
fn one_run_gives_a_tagged_corpus_with_the_manual_paths_tags() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[annotate]\ntagger = \"spacy\"\npython = \"{}\"\nbatch_tokens = 4000\n",
        python().display()
    );
    let topic = demo_topic(dir.path(), 60, &extra);
    let out = dir.path().join("run");
    let output = run(&topic, &out, &[]);
    assert_exit(&output, 0);
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("documents tagged by spacy"), "{summary}");
    let first = report(&out);
    let annotate = &first["annotate"];
    let documents = annotate["documents"].as_u64().unwrap();
    assert!(documents > 10, "{annotate}");
    assert_eq!(annotate["tagged"], documents, "{annotate}");
    assert_eq!(annotate["untagged"], serde_json::json!({}), "{annotate}");

    // Every token line of the .vrt is word, pos, lemma.
    let tokens = vrt_tokens(&out);
    assert!(tokens.len() > 5_000, "{}", tokens.len());
    for line in &tokens {
        let columns: Vec<&str> = line.split('\t').collect();
        assert_eq!(columns.len(), 3, "{line}");
        assert!(columns.iter().all(|c| !c.is_empty() && *c != "_"), "{line}");
    }
    // CoNLL-U: LEMMA and UPOS on every token line.
    let conllu = std::fs::read_to_string(out.join("conllu/corpus.conllu")).unwrap();
    for line in conllu
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let columns: Vec<&str> = line.split('\t').collect();
        assert_eq!(columns.len(), 10, "{line}");
        assert!(columns[2] != "_" && columns[3] != "_", "{line}");
    }
    // The query index answers lemmas as a count over the .vrt does.
    let by_hand = tokens
        .iter()
        .filter(|l| l.split('\t').nth(2) == Some("calque"))
        .count();
    assert!(by_hand > 10, "{by_hand}");
    let kwic = glaneur()
        .args(["kwic", "--count"])
        .arg(&out)
        .arg("[lemma=\"calque\"]")
        .output()
        .unwrap();
    assert_exit(&kwic, 0);
    let counted = String::from_utf8_lossy(&kwic.stdout);
    assert!(
        counted.split_whitespace().any(|w| w == by_hand.to_string()),
        "{counted} / {by_hand}"
    );
    let lemmas = std::fs::read_to_string(out.join("matrix/lemma-counts.mtx")).unwrap();
    let size = lemmas.lines().find(|l| !l.starts_with('%')).unwrap();
    let nonzeros: u64 = size.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(nonzeros > 1_000, "{size}");
    assert!(out.join("tagged/corpus.tagged").is_file());

    // Run again: nothing is tagged twice.
    let again = run(&topic, &out, &["--from", "extract"]);
    assert_exit(&again, 0);
    let annotate = &report(&out)["annotate"];
    assert_eq!(annotate["tagged"], 0, "{annotate}");
    assert_eq!(annotate["kept"], documents, "{annotate}");
    assert_eq!(vrt_tokens(&out), tokens);

    // The manual path on the same documents: scripts/tag-fallback, then --from export.
    let manual = dir.path().join("manual");
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::copy(topic.join("web.warc.gz"), plain.join("web.warc.gz")).unwrap();
    let text = std::fs::read_to_string(topic.join("topic.toml")).unwrap();
    std::fs::write(
        plain.join("topic.toml"),
        &text[..text.find("[annotate]").unwrap()],
    )
    .unwrap();
    assert_exit(&run(&plain, &manual, &["--to", "export"]), 0);
    let tagger = Command::new(python())
        .arg(repo().join("scripts/tag-fallback"))
        .arg(&manual)
        .output()
        .unwrap();
    assert!(
        tagger.status.success(),
        "{}",
        String::from_utf8_lossy(&tagger.stderr)
    );
    assert_exit(&run(&plain, &manual, &["--from", "export"]), 0);
    let by_stage = tokens;
    let by_hand = vrt_tokens(&manual);
    assert_eq!(by_stage.len(), by_hand.len());
    let same = by_stage
        .iter()
        .zip(&by_hand)
        .filter(|(a, b)| a == b)
        .count();
    println!(
        "stage and manual path agree on {same} of {} tokens",
        by_hand.len()
    );
    assert!(
        same * 100 >= by_hand.len() * 99,
        "{same} of {}",
        by_hand.len()
    );
}

#[test]
fn a_tagger_that_fails_or_garbles_leaves_those_documents_untagged_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[annotate]\ntagger = \"command\"\ncommand = [\"{}\", \"--lang\", \"{{lang}}\", \
         \"--crash-on\", \"transparents\", \"--garble-on\", \"pixels\"]\nbatch_tokens = 2000\n",
        fake_tagger()
    );
    let topic = demo_topic(dir.path(), 60, &extra);
    let out = dir.path().join("run");
    let output = run(&topic, &out, &[]);
    assert_exit(&output, 0);
    let conn = db(&out);
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let failed = count("SELECT COUNT(*) FROM tags WHERE reason = 'tagger-failed'");
    let garbled = count("SELECT COUNT(*) FROM tags WHERE reason = 'malformed-output'");
    let tagged = count("SELECT COUNT(*) FROM tags WHERE state = 'tagged'");
    assert!(
        failed >= 1 && garbled >= 1 && tagged >= 10,
        "{failed} {garbled} {tagged}"
    );
    // Only the documents at fault: each failed one holds the word it fails on.
    let docs = crate::support::docs(&out);
    let text_of = |id: i64| -> String {
        docs.iter()
            .find(|d| d["url_id"] == id)
            .map(|d| d["paragraphs"].to_string())
            .unwrap()
    };
    let mut stmt = conn
        .prepare("SELECT url_id, reason, detail FROM tags WHERE state = 'untagged'")
        .unwrap();
    let rows: Vec<(i64, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (id, reason, detail) in &rows {
        let text = text_of(*id);
        match reason.as_str() {
            "tagger-failed" => {
                assert!(text.contains("transparents"), "{id}");
                assert!(detail.contains("cannot tag 'transparents'"), "{detail}");
            }
            "malformed-output" => assert!(text.contains("pixels"), "{id}: {detail}"),
            other => panic!("{other}: {detail}"),
        }
    }
    // The untagged documents have `_` in the .vrt, the others their tags; the summary says why.
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("`tagger-failed`"), "{summary}");
    assert!(summary.contains("`malformed-output`"), "{summary}");
    let vrt = std::fs::read_to_string(out.join("vrt/corpus.vrt")).unwrap();
    assert!(vrt.contains("\t_\t_\n"));
    assert!(vrt.contains("\tNOUN\t"));

    // A changed setting tags everything again, and says so.
    let text = std::fs::read_to_string(topic.join("topic.toml")).unwrap();
    let text = text.replace(", \"--garble-on\", \"pixels\"", "");
    std::fs::write(topic.join("topic.toml"), text).unwrap();
    let output = glaneur()
        .arg("run")
        .arg(&topic)
        .arg("--out")
        .arg(&out)
        .args(["--from", "annotate"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("settings changed"), "{said}");
    assert_eq!(
        count("SELECT COUNT(*) FROM tags WHERE reason = 'malformed-output'"),
        0
    );
}

#[test]
fn a_missing_tagger_or_model_is_named_and_the_corpus_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let topic = demo_topic(
        dir.path(),
        40,
        "[annotate]\ntagger = \"command\"\ncommand = [\"no-such-tagger\", \"{lang}\"]\n",
    );
    let check = glaneur().arg("check").arg(&topic).output().unwrap();
    assert_exit(&check, 0);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.contains("tagging: command is NOT available"), "{said}");
    let out = dir.path().join("run");
    let output = run(&topic, &out, &[]);
    assert_exit(&output, 0);
    let annotate = &report(&out)["annotate"];
    assert_eq!(
        annotate["untagged"]["tagger-unavailable"], annotate["documents"],
        "{annotate}"
    );
    // No tag at all: the corpus is exported as without a tagger, and says where lemmas come from.
    assert!(vrt_tokens(&out).iter().all(|l| !l.contains('\t')));
    let kwic = glaneur()
        .arg("kwic")
        .arg(&out)
        .arg("[lemma=\"calque\"]")
        .output()
        .unwrap();
    assert_exit(&kwic, 2);
    assert!(String::from_utf8_lossy(&kwic.stderr).contains("no attribute `lemma`"));
    let plain = glaneur()
        .args(["kwic", "--count"])
        .arg(&out)
        .arg("[lc=\"calque\"]")
        .output()
        .unwrap();
    assert_exit(&plain, 0);

    // spaCy without the model a language names: `no-model`, and `check` says what to install.
    let topic = demo_topic(
        &dir.path().join("b"),
        40,
        &format!(
            "[annotate]\ntagger = \"spacy\"\npython = \"{}\"\nmodels = {{ fr = \"fr_no_such_model\" }}\n",
            python().display()
        ),
    );
    let check = glaneur().arg("check").arg(&topic).output().unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(
        said.contains("fr: fr_no_such_model is NOT installed"),
        "{said}"
    );
    let out = dir.path().join("b/run");
    assert_exit(&run(&topic, &out, &[]), 0);
    let annotate = &report(&out)["annotate"];
    assert_eq!(
        annotate["untagged"]["no-model"], annotate["documents"],
        "{annotate}"
    );
    assert!(
        annotate["languages"]["fr"]
            .as_str()
            .unwrap()
            .contains("fr_no_such_model"),
        "{annotate}"
    );
}

#[test]
fn treetagger_is_called_with_its_flags_and_the_parameter_file_of_the_language() {
    // A stand-in for TreeTagger (not installable here): the test tagger, which checks
    // TreeTagger's flags and opens the parameter file as TreeTagger does.
    let dir = tempfile::tempdir().unwrap();
    let table = format!(
        "[annotate]\ntagger = \"treetagger\"\ntreetagger = \"{}\"\nmodels = {{ fr = \"french.par\" }}\n",
        fake_tagger()
    );
    let topic = demo_topic(dir.path(), 30, &table);
    std::fs::write(topic.join("french.par"), b"parameters").unwrap();
    let check = glaneur().arg("check").arg(&topic).output().unwrap();
    assert_exit(&check, 0);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.contains("french.par"), "{said}");
    let out = dir.path().join("run");
    assert_exit(&run(&topic, &out, &[]), 0);
    let annotate = &report(&out)["annotate"];
    assert_eq!(annotate["tagger"], "treetagger", "{annotate}");
    assert_eq!(annotate["tagged"], annotate["documents"], "{annotate}");
    assert!(vrt_tokens(&out).iter().all(|l| l.split('\t').count() == 3));

    // The parameter file missing: named by `check`, no batch sent, every document `no-model`.
    std::fs::remove_file(topic.join("french.par")).unwrap();
    let check = glaneur().arg("check").arg(&topic).output().unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.contains("french.par is missing"), "{said}");
    let out = dir.path().join("run2");
    assert_exit(&run(&topic, &out, &[]), 0);
    let annotate = &report(&out)["annotate"];
    assert_eq!(
        annotate["untagged"]["no-model"], annotate["documents"],
        "{annotate}"
    );
    // The tagger was never started on the missing file.
    for entry in std::fs::read_dir(out.join("annotate"))
        .into_iter()
        .flatten()
    {
        let log = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        assert!(!log.contains("Can't open"), "{log}");
    }
}

#[test]
fn a_run_killed_while_tagging_resumes_to_the_uninterrupted_tags() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[annotate]\ntagger = \"command\"\ncommand = [\"{}\", \"--sleep\", \"0.2\"]\n\
         batch_tokens = 600\nprocesses = 2\n",
        fake_tagger()
    );
    let topic = demo_topic(dir.path(), 60, &extra);
    let whole = dir.path().join("whole");
    assert_exit(&run(&topic, &whole, &[]), 0);

    let cut = dir.path().join("cut");
    let mut child = glaneur()
        .arg("run")
        .arg(&topic)
        .arg("--out")
        .arg(&cut)
        .arg("--quiet")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once a few batches are stored, well before the last.
    let started = Instant::now();
    let batches = || {
        std::fs::read_dir(cut.join("annotate"))
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".tagged"))
                    .count()
            })
            .unwrap_or(0)
    };
    while batches() < 4 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no batch stored"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stored: i64 = db(&cut)
        .query_row("SELECT COUNT(*) FROM tags", [], |r| r.get(0))
        .unwrap();
    let documents = report(&whole)["annotate"]["documents"].as_i64().unwrap();
    assert!(stored > 0 && stored < documents, "{stored} of {documents}");

    let resumed = run(&topic, &cut, &[]);
    assert_exit(&resumed, 0);
    let annotate = &report(&cut)["annotate"];
    assert!(annotate["kept"].as_i64().unwrap() > 0, "{annotate}");
    assert_eq!(vrt_tokens(&cut), vrt_tokens(&whole));
    assert_eq!(
        std::fs::read_to_string(cut.join("conllu/corpus.conllu")).unwrap(),
        std::fs::read_to_string(whole.join("conllu/corpus.conllu")).unwrap()
    );
}

#[test]
fn syntex_and_upery_run_after_the_export_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[annotate]\ntagger = \"command\"\ncommand = [\"{}\"]\n\n[parse]\n\
         syntex = \"cat {{in}} | grep -c NOUN > {{out}}/nouns.txt\"\n\
         upery = \"ls {{in}} > {{out}}/read.txt\"\n",
        fake_tagger()
    );
    let topic = demo_topic(dir.path(), 30, &extra);
    let out = dir.path().join("run");
    let output = run(&topic, &out, &[]);
    assert_exit(&output, 0);
    let parse = &report(&out)["parse"];
    assert_eq!(parse["syntex"]["files"], 1, "{parse}");
    assert_eq!(parse["upery"]["files"], 1, "{parse}");
    let nouns: u64 = std::fs::read_to_string(out.join("syntex/nouns.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(nouns > 100, "{nouns}");
    assert_eq!(
        std::fs::read_to_string(out.join("upery/read.txt")).unwrap(),
        "nouns.txt\n"
    );
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("syntex"), "{summary}");
    // Run again: inputs unchanged, not run again.
    let again = run(&topic, &out, &["--from", "export"]);
    assert_exit(&again, 0);
    assert_eq!(report(&out)["parse"]["syntex"]["reused"], true);
    // A command that fails is reported, the corpus stays.
    let text = std::fs::read_to_string(topic.join("topic.toml"))
        .unwrap()
        .replace("grep -c NOUN", "false &&");
    std::fs::write(topic.join("topic.toml"), text).unwrap();
    let failed = run(&topic, &out, &["--from", "export"]);
    assert_exit(&failed, 0);
    let problem = report(&out)["parse"]["syntex"]["problem"].clone();
    assert!(problem.as_str().unwrap().contains("failed"), "{problem}");
    assert!(String::from_utf8_lossy(&failed.stdout).contains("WARNING"));
    assert!(out.join("vrt/corpus.vrt").is_file());
}
