//! The linguist's workbench through the binary on the tagged demo: CQP's labels, constraints,
//! tags, whole regions, `containing` and matching strategies, word sketches and named
//! subcorpora, each checked against the `.vrt` read here independently.

use std::collections::HashMap;
use std::path::Path;

use crate::support::*;

/// A token of the `.vrt`: word, pos, lemma, document number, sentence number.
struct Token {
    pos: String,
    lemma: String,
    doc: usize,
    sentence: usize,
}

/// The tokens and the documents' ids, in order.
fn read_vrt(path: &Path) -> (Vec<Token>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut doc, mut sentence) = (0, 0);
    let (mut tokens, mut ids) = (Vec::new(), Vec::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("<text id=\"") {
            doc += 1;
            ids.push(rest.split('"').next().unwrap().to_string());
        } else if line == "<s>" {
            sentence += 1;
        } else if !line.starts_with('<') {
            let f: Vec<&str> = line.split('\t').collect();
            tokens.push(Token {
                pos: f[1].to_string(),
                lemma: f[2].replace("&amp;", "&"),
                doc,
                sentence,
            });
        }
    }
    (tokens, ids)
}

fn run_ok(run: &Path, args: &[&str]) -> String {
    let mut all = vec![args[0], run.to_str().unwrap()];
    all.extend(&args[1..]);
    let output = glaneur().args(&all).output().unwrap();
    assert_exit(&output, 0);
    String::from_utf8(output.stdout).unwrap()
}

fn count(run: &Path, query: &str, more: &[&str]) -> usize {
    let mut args = vec!["kwic", query, "--count"];
    args.extend(more);
    let out = run_ok(run, &args);
    out.trim()
        .parse()
        .unwrap_or_else(|_| panic!("{query}: {out}"))
}

/// Called by the tagged-demo test in `demo.rs`, on its run folder.
pub fn cqp_sketches_and_subcorpora_on_the_tagged_demo(run: &Path) {
    let (tokens, ids) = read_vrt(&run.join("vrt/corpus.vrt"));
    let n = tokens.len();
    let mut nouns = HashMap::<&str, usize>::new();
    for t in tokens.iter().filter(|t| t.pos == "NOUN") {
        *nouns.entry(t.lemma.as_str()).or_default() += 1;
    }
    let (lemma, _) = nouns
        .iter()
        .max_by_key(|(l, n)| (**n, std::cmp::Reverse(**l)))
        .map(|(l, n)| (l.to_string(), *n))
        .unwrap();

    // A noun first in its sentence.
    let first = (0..n)
        .filter(|&i| {
            tokens[i].pos == "NOUN" && (i == 0 || tokens[i - 1].sentence != tokens[i].sentence)
        })
        .count();
    assert_eq!(count(run, "<s> [pos=\"NOUN\"]", &[]), first);
    // The same noun lemma twice, one token apart, in one document.
    let twice = (0..n.saturating_sub(2))
        .filter(|&i| {
            tokens[i].pos == "NOUN"
                && tokens[i + 2].pos == "NOUN"
                && tokens[i].lemma == tokens[i + 2].lemma
                && tokens[i].doc == tokens[i + 2].doc
        })
        .count();
    let q = "a:[pos=\"NOUN\"] [] b:[pos=\"NOUN\"] :: a.lemma = b.lemma";
    assert_eq!(count(run, q, &[]), twice);
    // Whole sentences holding the lemma.
    let mut with: Vec<usize> = tokens
        .iter()
        .filter(|t| t.lemma == lemma)
        .map(|t| t.sentence)
        .collect();
    with.dedup();
    let q = format!("<s/> containing [lemma=\"{lemma}\"]");
    assert_eq!(count(run, &q, &[]), with.len());

    // Matching strategies on ADJ* NOUN: every start's match, or one per noun.
    let q = "[pos=\"ADJ\"]* [pos=\"NOUN\"]";
    let mut traditional = 0;
    for i in (0..n).filter(|&i| tokens[i].pos == "NOUN") {
        let mut j = i;
        traditional += 1;
        while j > 0
            && tokens[j - 1].pos == "ADJ"
            && tokens[j - 1].doc == tokens[i].doc
            && i - j < 100
        {
            traditional += 1;
            j -= 1;
        }
    }
    let noun_tokens = tokens.iter().filter(|t| t.pos == "NOUN").count();
    assert_eq!(count(run, q, &[]), traditional);
    for s in ["standard", "shortest", "longest"] {
        assert_eq!(count(run, q, &["--strategy", s]), noun_tokens, "{s}");
    }

    // A word sketch: each collocate's query finds f_xy hits.
    let tsv = run_ok(
        run,
        &[
            "sketch",
            &lemma,
            "--format",
            "tsv",
            "--min-freq",
            "1",
            "--lang",
            "fr",
        ],
    );
    let rows: Vec<Vec<&str>> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert!(!rows.is_empty(), "no relation of {lemma}:\n{tsv}");
    for row in rows.iter().take(12) {
        assert_eq!(count(run, row[6], &[]).to_string(), row[2], "{row:?}");
    }

    // Tokens by the seed source of each document's crawl path: the demo's seeds are the topic's.
    let by_seed = run_ok(run, &["freq", "--by", "seed", "--format", "tsv"]);
    let rows: Vec<Vec<&str>> = by_seed
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 1, "{by_seed}");
    assert_eq!(rows[0][1], "topic", "{by_seed}");

    // A topic folder (or its topic file) names its run folder, as for `compare` and `batch`.
    let topic = tempfile::tempdir().unwrap();
    std::fs::write(topic.path().join("topic.toml"), "name = \"t\"\n").unwrap();
    std::os::unix::fs::symlink(run, topic.path().join("run")).unwrap();
    let all_nouns = tokens.iter().filter(|t| t.pos == "NOUN").count();
    assert_eq!(count(topic.path(), "[pos=\"NOUN\"]", &[]), all_nouns);
    assert_eq!(
        count(&topic.path().join("topic.toml"), "[pos=\"NOUN\"]", &[]),
        all_nouns
    );

    // A named subcorpus: the first document, read by kwic and freq as its own corpus.
    let id = &ids[0];
    run_ok(run, &["subcorpus", "first", "--where", &format!("id={id}")]);
    let in_first = tokens
        .iter()
        .filter(|t| t.doc == 1 && t.pos == "NOUN")
        .count();
    assert_eq!(
        count(run, "[pos=\"NOUN\"]", &["--subcorpus", "first"]),
        in_first
    );
    let listed = run_ok(run, &["subcorpus"]);
    let size = tokens.iter().filter(|t| t.doc == 1).count();
    assert!(
        listed.contains(&format!("first\t1 document\t{size} tokens")),
        "{listed}"
    );
    // Made again when the run's index changes (here: its manifest touched by a new export).
    let manifest = run.join("index/index.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n")).unwrap();
    let output = glaneur()
        .args([
            "kwic",
            run.to_str().unwrap(),
            "[pos=\"NOUN\"]",
            "--count",
            "--subcorpus",
            "first",
        ])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    assert!(String::from_utf8_lossy(&output.stderr).contains("made again"));
    // Mistakes are named.
    let output = glaneur()
        .args(["kwic", run.to_str().unwrap(), "[]", "--subcorpus", "nope"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("no subcorpus `nope`"));
    let output = glaneur()
        .args(["kwic", run.to_str().unwrap(), "a:[] :: b.lemma = \"x\""])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("at character 9") && err.contains("`b` is not defined"),
        "{err}"
    );
}
