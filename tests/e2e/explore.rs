//! The corpus explorer through the binary: `glaneur kwic`, `freq`, `colloc`, `keywords` and
//! `index`, checked against the `.vrt` read here independently.

use std::path::Path;

use crate::support::*;

/// One token of the `.vrt`: word, pos, lemma, document number, sentence number.
struct Token {
    word: String,
    pos: String,
    lemma: String,
    doc: usize,
    sentence: usize,
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn read_vrt(path: &Path) -> Vec<Token> {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut doc, mut sentence) = (0, 0);
    let mut tokens = Vec::new();
    for line in text.lines() {
        if line.starts_with("<text") {
            doc += 1;
        } else if line == "<s>" {
            sentence += 1;
        } else if !line.starts_with('<') {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 3, "{line}");
            tokens.push(Token {
                word: unescape(f[0]),
                pos: unescape(f[1]),
                lemma: unescape(f[2]),
                doc,
                sentence,
            });
        }
    }
    tokens
}

/// `glaneur index VRT --out DIR` of a vertical file with `text`, in `dir`: the index folder.
fn index_of(dir: &Path, text: &str) -> std::path::PathBuf {
    let vrt = dir.join("c.vrt");
    std::fs::write(&vrt, text).unwrap();
    let index = dir.join("c.index");
    let out = glaneur()
        .arg("index")
        .arg(&vrt)
        .arg("--out")
        .arg(&index)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    index
}

/// `glaneur ARGS…`: exit code, stdout and stderr, whatever the outcome.
fn outcome(args: &[&str]) -> (Option<i32>, String, String) {
    let out = glaneur().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `glaneur COMMAND RUN ARGS…`: stdout and stderr of a successful run.
fn query(run: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec![args[0], run.to_str().unwrap()];
    all.extend(&args[1..]);
    let output = glaneur().args(&all).output().unwrap();
    assert_exit(&output, 0);
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// On the demo after the fallback tagger and `--from export`: queries on lemma and pos return
/// exactly the lines the `.vrt` holds.
pub fn queries_on_the_tagged_demo_find_what_the_vrt_holds(run: &Path) {
    let tokens = read_vrt(&run.join("vrt/corpus.vrt"));
    // The most frequent noun lemma, chosen from the corpus, not written in the test.
    let mut counts = std::collections::HashMap::<&str, usize>::new();
    for t in tokens.iter().filter(|t| t.pos == "NOUN") {
        *counts.entry(t.lemma.as_str()).or_default() += 1;
    }
    let (lemma, _) = counts
        .iter()
        .max_by_key(|(l, n)| (**n, std::cmp::Reverse(**l)))
        .map(|(l, n)| (l.to_string(), *n))
        .unwrap();
    let pairs: Vec<usize> = (0..tokens.len().saturating_sub(1))
        .filter(|&i| {
            tokens[i].lemma == lemma
                && tokens[i + 1].pos == "ADJ"
                && tokens[i].doc == tokens[i + 1].doc
        })
        .collect();
    let in_sentence = pairs
        .iter()
        .filter(|&&i| tokens[i].sentence == tokens[i + 1].sentence)
        .count();
    assert!(!pairs.is_empty(), "no {lemma} + ADJ in the demo");

    let q = format!("[lemma=\"{lemma}\"] [pos=\"ADJ\"]");
    let (count, notice) = query(run, &["kwic", &q, "--count"]);
    assert_eq!(count.trim(), pairs.len().to_string(), "{notice}");
    let (count, _) = query(run, &["kwic", &format!("{q} within s"), "--count"]);
    assert_eq!(count.trim(), in_sentence.to_string());

    // The lines: hit, left and right context as in the vrt, in corpus order.
    let (json, notice) = query(
        run,
        &[
            "kwic",
            &q,
            "--format",
            "json",
            "--show",
            "word,pos,lemma",
            "--limit",
            "100000",
            "--context",
            "2",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lines = doc["lines"].as_array().unwrap();
    assert_eq!(lines.len(), pairs.len(), "{notice}");
    assert_eq!(doc["truncated"], false);
    let shown = |t: &Token| format!("{}/{}/{}", t.word, t.pos, t.lemma);
    for (line, &i) in lines.iter().zip(&pairs) {
        let hit: Vec<String> = vec![shown(&tokens[i]), shown(&tokens[i + 1])];
        assert_eq!(line["hit"], serde_json::json!(hit));
        let left: Vec<String> = (i.saturating_sub(2)..i)
            .filter(|&k| tokens[k].doc == tokens[i].doc)
            .map(|k| shown(&tokens[k]))
            .collect();
        assert_eq!(line["left"], serde_json::json!(left));
    }
    // A random sample: hits of the query, in corpus order, the same for the same seed, all of
    // them when it asks for more than there are.
    let sample = |seed: &str, n: &str| -> Vec<String> {
        let (tsv, notice) = query(
            run,
            &[
                "kwic",
                &format!("[lemma=\"{lemma}\"]"),
                "--sample",
                n,
                "--seed",
                seed,
                "--format",
                "tsv",
            ],
        );
        assert!(notice.contains("random sample"), "{notice}");
        tsv.lines()
            .skip(1)
            .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    let (all, _) = query(
        run,
        &[
            "kwic",
            &format!("[lemma=\"{lemma}\"]"),
            "--format",
            "tsv",
            "--limit",
            "1000000",
        ],
    );
    let all: Vec<String> = all
        .lines()
        .skip(1)
        .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
        .collect();
    let five = sample("7", "5");
    assert_eq!(five.len(), 5.min(all.len()));
    assert!(five.iter().all(|l| all.contains(l)));
    let starts: Vec<u64> = five
        .iter()
        .map(|l| l.split('\t').nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    assert_eq!(sample("7", "5"), five);
    assert_eq!(sample("3", "1000000"), all);
    // Pages: `--offset N --limit M` are the lines N+1…N+M of the whole list, in corpus order
    // (streamed) and sorted (held), as the web interface's pages ask for them.
    let page = |sort: &str| -> Vec<String> {
        let (tsv, notice) = query(
            run,
            &[
                "kwic",
                &format!("[lemma=\"{lemma}\"]"),
                "--sort",
                sort,
                "--offset",
                "2",
                "--limit",
                "3",
                "--format",
                "tsv",
            ],
        );
        assert!(notice.contains("3–5") || all.len() < 5, "{notice}");
        tsv.lines()
            .skip(1)
            .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    assert_eq!(
        page("position"),
        all.iter().skip(2).take(3).cloned().collect::<Vec<_>>()
    );
    let (sorted, _) = query(
        run,
        &[
            "kwic",
            &format!("[lemma=\"{lemma}\"]"),
            "--sort",
            "left",
            "--format",
            "tsv",
            "--limit",
            "1000000",
        ],
    );
    let sorted: Vec<String> = sorted
        .lines()
        .skip(1)
        .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
        .collect();
    assert_eq!(
        page("left"),
        sorted.iter().skip(2).take(3).cloned().collect::<Vec<_>>()
    );

    // Sorted by the part of speech of the token after the hit (R1), words shown: the R1
    // values, read from the .vrt by position, never go down.
    let (json, _) = query(
        run,
        &[
            "kwic",
            &format!("[lemma=\"{lemma}\"]"),
            "--sort",
            "R1",
            "--sort-by",
            "pos",
            "--format",
            "json",
            "--limit",
            "100000",
            "--context",
            "0",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let r1: Vec<String> = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let end = l["end"].as_u64().unwrap() as usize;
            let start = l["start"].as_u64().unwrap() as usize;
            match tokens.get(end) {
                Some(t) if t.doc == tokens[start].doc => t.pos.to_lowercase(),
                _ => String::new(),
            }
        })
        .collect();
    assert_eq!(r1.len(), tokens.iter().filter(|t| t.lemma == lemma).count());
    assert!(r1.windows(2).all(|w| w[0] <= w[1]), "{r1:?}");

    // A limit says the list is cut.
    if pairs.len() > 1 {
        let (_, notice) = query(run, &["kwic", &q, "--limit", "1"]);
        assert!(notice.contains("there are more"), "{notice}");
    }

    // Frequency list of parts of speech: every token counted once.
    let (tsv, _) = query(
        run,
        &["freq", "--by", "pos", "--format", "tsv", "--limit", "1000"],
    );
    let mut total = 0usize;
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let n: usize = f[2].parse().unwrap();
        assert_eq!(n, tokens.iter().filter(|t| t.pos == f[1]).count(), "{row}");
        total += n;
    }
    assert_eq!(total, tokens.len());

    // Collocations of the lemma: the adjectives that follow it are among them.
    let (tsv, _) = query(
        run,
        &[
            "colloc",
            &format!("[lemma=\"{lemma}\"]"),
            "--by",
            "lemma",
            "--format",
            "tsv",
            "--limit",
            "100000",
            "--min-freq",
            "1",
        ],
    );
    let collocates: Vec<&str> = tsv
        .lines()
        .skip(1)
        .map(|r| r.split('\t').nth(1).unwrap())
        .collect();
    for &i in &pairs {
        assert!(
            collocates.contains(&tokens[i + 1].lemma.as_str()),
            "{}",
            tokens[i + 1].lemma
        );
    }

    // A collocate filter: only adjectives, each with its frequency as an adjective.
    let (tsv, _) = query(
        run,
        &[
            "colloc",
            &format!("[lemma=\"{lemma}\"]"),
            "--by",
            "lemma",
            "--filter",
            "[pos=\"ADJ\"]",
            "--format",
            "tsv",
            "--limit",
            "100000",
            "--min-freq",
            "1",
        ],
    );
    assert!(tsv.lines().count() > 1, "{tsv}");
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let as_adjective = tokens
            .iter()
            .filter(|t| t.lemma == f[1] && t.pos == "ADJ")
            .count();
        assert_eq!(f[3], as_adjective.to_string(), "{row}");
    }
    // Breakdowns: the token after each hit of the lemma (R1, inside its document), the hits
    // per host, and the stop list and dispersion of a frequency list.
    let single: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].lemma == lemma)
        .collect();
    let (tsv, _) = query(
        run,
        &[
            "freq",
            "--query",
            &format!("[lemma=\"{lemma}\"]"),
            "--by",
            "lemma",
            "--at",
            "R1",
            "--format",
            "tsv",
            "--limit",
            "100000",
        ],
    );
    let mut after = std::collections::HashMap::<&str, usize>::new();
    for &i in &single {
        if i + 1 < tokens.len() && tokens[i + 1].doc == tokens[i].doc {
            *after.entry(tokens[i + 1].lemma.as_str()).or_default() += 1;
        }
    }
    let got: std::collections::HashMap<String, usize> = tsv
        .lines()
        .skip(1)
        .map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            (f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(got.len(), after.len());
    for (k, v) in &after {
        assert_eq!(got.get(*k), Some(v), "{k}");
    }
    let (tsv, _) = query(
        run,
        &["freq", "--query", &q, "--by", "host", "--format", "tsv"],
    );
    let per_host: usize = tsv
        .lines()
        .skip(1)
        .map(|r| r.split('\t').nth(2).unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(per_host, pairs.len(), "{tsv}");
    let (tsv, notice) = query(
        run,
        &[
            "freq",
            "--by",
            "lc",
            "--stop",
            "fr",
            "--words-only",
            "--dispersion",
            "--format",
            "tsv",
        ],
    );
    assert!(notice.contains("stop list fr"), "{notice}");
    assert!(tsv.starts_with("rank\tvalue\tfrequency\tper_million\tdp\tarf\tjuilland_d\n"));
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        assert!(!["de", "la", "le", ".", ","].contains(&f[1]), "{row}");
        let dp: f64 = f[4].parse().unwrap();
        assert!((0.0..=1.0).contains(&dp), "{row}");
    }

    // Positive and negative filters: hits of the lemma with an adjective within 3 tokens (same
    // document), and the others; together every hit.
    let near: usize = (0..tokens.len())
        .filter(|&i| tokens[i].lemma == lemma)
        .filter(|&i| {
            (i.saturating_sub(3)..(i + 4).min(tokens.len()))
                .any(|k| k != i && tokens[k].doc == tokens[i].doc && tokens[k].pos == "ADJ")
        })
        .count();
    let all_hits = tokens.iter().filter(|t| t.lemma == lemma).count();
    let lemma_query = format!("[lemma=\"{lemma}\"]");
    let count_of = |extra: &[&str]| -> usize {
        let mut args = vec![
            "kwic",
            lemma_query.as_str(),
            "--count",
            "--near-window",
            "3",
        ];
        args.extend(extra);
        query(run, &args).0.trim().parse().unwrap()
    };
    assert_eq!(count_of(&["--near", "[pos=\"ADJ\"]"]), near);
    assert_eq!(count_of(&["--not-near", "[pos=\"ADJ\"]"]), all_hits - near);

    // The per-sentence view: each line is exactly its hit's sentence.
    let (json, _) = query(
        run,
        &[
            "kwic",
            &lemma_query,
            "--sentence",
            "--format",
            "json",
            "--limit",
            "100000",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lines = doc["lines"].as_array().unwrap();
    assert_eq!(lines.len(), all_hits);
    for line in lines {
        let start = line["start"].as_u64().unwrap() as usize;
        let sentence: Vec<&str> = tokens
            .iter()
            .filter(|t| t.sentence == tokens[start].sentence && t.doc == tokens[start].doc)
            .map(|t| t.word.as_str())
            .collect();
        let shown: Vec<String> = ["left", "hit", "right"]
            .iter()
            .flat_map(|k| line[*k].as_array().unwrap().iter())
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(shown, sentence, "{line}");
    }

    // The CSV of a list (for spreadsheets) holds what the TSV holds, after its byte-order mark.
    let (tsv, _) = query(
        run,
        &["freq", "--by", "word", "--format", "tsv", "--limit", "300"],
    );
    let (csv, _) = query(
        run,
        &["freq", "--by", "word", "--format", "csv", "--limit", "300"],
    );
    let body = csv.strip_prefix('\u{feff}').expect("a byte-order mark");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(body.as_bytes());
    let from_csv: Vec<Vec<String>> = reader
        .records()
        .map(|r| {
            r.unwrap()
                .iter()
                .map(|f| match f.strip_prefix('\'') {
                    // A value a spreadsheet would run as a formula carries a `'`.
                    Some(rest) if rest.starts_with(['=', '@', '+', '-']) => rest.to_string(),
                    _ => f.to_string(),
                })
                .collect()
        })
        .collect();
    let from_tsv: Vec<Vec<String>> = tsv
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    assert_eq!(from_csv, from_tsv);

    // Bigrams of parts of speech inside sentences: each counted as the .vrt gives them.
    let (tsv, _) = query(
        run,
        &[
            "freq", "--by", "pos", "--ngram", "2", "--format", "tsv", "--limit", "100000",
        ],
    );
    let mut bigrams = std::collections::HashMap::<String, usize>::new();
    for w in tokens.windows(2) {
        if w[0].sentence == w[1].sentence && w[0].doc == w[1].doc {
            *bigrams
                .entry(format!("{} {}", w[0].pos, w[1].pos))
                .or_default() += 1;
        }
    }
    let got: std::collections::HashMap<String, usize> = tsv
        .lines()
        .skip(1)
        .map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            (f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(got, bigrams);

    // Document search: the documents holding the lemma's most frequent form, best first.
    let output = glaneur()
        .args([
            "search",
            run.to_str().unwrap(),
            &lemma,
            "--json",
            "--limit",
            "1000",
        ])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let found: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let results = found["results"].as_array().unwrap();
    let holding: std::collections::HashSet<usize> = tokens
        .iter()
        .filter(|t| t.lemma == lemma)
        .map(|t| t.doc)
        .collect();
    assert!(!results.is_empty() && results.len() <= found["documents"].as_u64().unwrap() as usize);
    assert!(
        results.len() >= holding.len() / 2,
        "{} of {}",
        results.len(),
        holding.len()
    );
    let relevance: Vec<f64> = results
        .iter()
        .map(|r| r["relevance"].as_f64().unwrap())
        .collect();
    assert!(relevance.windows(2).all(|w| w[0] >= w[1]), "{relevance:?}");
    let output = glaneur()
        .args([
            "search",
            run.to_str().unwrap(),
            &lemma,
            "--host",
            "nowhere.test",
        ])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    assert!(String::from_utf8_lossy(&output.stderr).contains("0 documents match"));

    // Keywords against the corpus itself: nothing stands out (every score is 1).
    let (tsv, _) = query(
        run,
        &[
            "keywords",
            "--reference",
            run.to_str().unwrap(),
            "--format",
            "tsv",
            "--limit",
            "5",
        ],
    );
    for row in tsv.lines().skip(1) {
        let score: f64 = row.split('\t').nth(4).unwrap().parse().unwrap();
        assert!((score - 1.0).abs() < 1e-9, "{row}");
    }
}

#[test]
fn explorer_commands_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let vrt = dir.path().join("c.vrt");
    std::fs::write(
        &vrt,
        "<text id=\"a\" host=\"x.test\">\n<s>\nLe\tDET\tle\ngraphe\tNOUN\tgraphe\n</s>\n</text>\n",
    )
    .unwrap();
    let index = dir.path().join("c.index");
    let out = glaneur()
        .args([
            "index",
            vrt.to_str().unwrap(),
            "--out",
            index.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("indexed 2 tokens (word, pos, lemma)"),
        "{stdout}"
    );

    let run = |args: &[&str]| {
        let out = glaneur().args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let idx = index.to_str().unwrap();
    let (code, _, stdout) = run(&["kwic", idx, "[lemma=\"graphe\"]", "--format", "tsv"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        "doc\turl\tstart\tend\tleft\thit\tright\na\t\t1\t2\tLe\tgraphe\t\n"
    );
    let (code, err, _) = run(&["kwic", idx, "[lemma=\"graphe\""]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("query, at character 16: expected `]` at the end of the query"),
        "{err}"
    );
    let (code, err, _) = run(&["kwic", idx, "[tag=\"x\"]"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no attribute `tag` in this corpus (it has: word, pos, lemma, lc)"),
        "{err}"
    );
    let (code, err, _) = run(&["kwic", dir.path().to_str().unwrap(), "[]"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("neither a run folder with an index nor an index"),
        "{err}"
    );

    // A vertical file that cannot be indexed: the file and the line, and no index left behind.
    std::fs::write(&vrt, "<text>\nLe\tDET\n</text>\n").unwrap();
    let broken = dir.path().join("broken.index");
    let (code, err, _) = run(&[
        "index",
        vrt.to_str().unwrap(),
        "--out",
        broken.to_str().unwrap(),
        "--columns",
        "word,pos,lemma",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("c.vrt: line 2: 2 column(s), expected 3 (word pos lemma)"),
        "{err}"
    );
    assert!(!broken.exists());
}

#[test]
fn queries_stay_bounded_in_time_and_memory_and_counts_never_wrap() {
    let dir = tempfile::tempdir().unwrap();
    // 12,000 tokens in 30 documents.
    let words = [
        "le", "les", "la", "cela", "lequel", "graphe", "Graphe", "arête", ".", "Le",
    ];
    let mut vrt = String::new();
    for d in 0..30 {
        vrt.push_str(&format!("<text id=\"d{d}\">\n<s>\n"));
        for i in 0..400usize {
            vrt.push_str(words[(i * 7 + d * 3 + i / 9) % words.len()]);
            vrt.push('\n');
        }
        vrt.push_str("</s>\n</text>\n");
    }
    let index = index_of(dir.path(), &vrt);
    let run = outcome;
    let idx = index.to_str().unwrap();
    // A value's pattern cannot escape its anchors.
    let (code, _, err) = run(&["kwic", idx, "[word=\"le)|(la\"]", "--count"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a valid regular expression"), "{err}");
    let (_, count, _) = run(&["kwic", idx, "[word=\"le|la\"]", "--count"]);
    let (_, le, _) = run(&["kwic", idx, "[word=\"le\"]", "--count"]);
    let (_, la, _) = run(&["kwic", idx, "[word=\"la\"]", "--count"]);
    let n = |s: &str| s.trim().parse::<u64>().unwrap();
    assert_eq!(n(&count), n(&le) + n(&la));
    // Sorted: the first lines of the order are those of the whole concordance sorted.
    for sort in ["left", "hit", "right"] {
        let (_, all, _) = run(&[
            "kwic",
            idx,
            "[lc=\"graphe\"]",
            "--sort",
            sort,
            "--limit",
            "1000",
            "--format",
            "tsv",
        ]);
        let (_, first, _) = run(&[
            "kwic",
            idx,
            "[lc=\"graphe\"]",
            "--sort",
            sort,
            "--limit",
            "7",
            "--format",
            "tsv",
        ]);
        let all: Vec<&str> = all.lines().collect();
        let first: Vec<&str> = first.lines().collect();
        assert_eq!(first.len(), 8);
        assert_eq!(first, all[..8], "--sort {sort}");
    }
    // Too many lines held at once (12,000 lines of 2,001 tokens): refused with a message, in
    // corpus order as sorted; a limit that the hits do not reach is no problem; streaming
    // needs no such bound.
    for sort in ["position", "right"] {
        let (code, _, err) = run(&[
            "kwic",
            idx,
            "[]",
            "--sort",
            sort,
            "--context",
            "1000",
            "--limit",
            "1000000",
        ]);
        assert_eq!(code, Some(2), "{sort}");
        assert!(
            err.contains("lines of 2001 tokens") && err.contains("--format tsv"),
            "{err}"
        );
    }
    let (code, _, err) = run(&[
        "kwic",
        idx,
        "[lc=\"graphe\"]",
        "--sort",
        "right",
        "--context",
        "1000",
        "--limit",
        "1000000",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, _) = run(&["kwic", idx, "[]", "--context", "1001"]);
    assert_eq!(code, Some(2));
    let (code, tsv, _) = run(&[
        "kwic",
        idx,
        "[]",
        "--context",
        "1000",
        "--limit",
        "1000000",
        "--format",
        "tsv",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(tsv.lines().count(), 12_001);
    // A time limit stops a query with a message.
    let slow = vec!["[word!=\"zz\"]{0,99}"; 90].join(" ") + " [word=\".\" & lc=\"le\"]";
    let (code, _, err) = run(&["kwic", idx, &slow, "--timeout", "0.5"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("stopped after 0.5 s"), "{err}");
    // Reference counts that overflow 64 bits are refused, never wrapped.
    let reference = dir.path().join("ref.tsv");
    std::fs::write(&reference, format!("le\t{}\nla\t5\n", u64::MAX)).unwrap();
    let (code, _, err) = run(&["keywords", idx, "--reference", reference.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("ref.tsv line 2") && err.contains("add up to more than"),
        "{err}"
    );
}
