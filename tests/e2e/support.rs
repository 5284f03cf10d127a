//! Helpers: run the binary, read the run folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::server::Hit;

/// The server's log split by host, each host's requests in arrival order.
pub fn per_host(log: &[Hit]) -> HashMap<String, Vec<Hit>> {
    let mut hosts: HashMap<String, Vec<Hit>> = HashMap::new();
    for hit in log {
        hosts.entry(hit.host.clone()).or_default().push(hit.clone());
    }
    hosts
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scenario folder under `tests/web/`.
pub fn scenario(name: &str) -> PathBuf {
    repo().join("tests").join("web").join(name)
}

/// A `glaneur` command with a clean environment: no ambient proxy can hijack the test web.
pub fn glaneur() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_glaneur"));
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The command `glaneur run TOPIC --out OUT --proxy PROXY --quiet EXTRA…`.
pub fn run_command(topic: &Path, out: &Path, proxy: &str, extra: &[&str]) -> Command {
    let mut cmd = glaneur();
    cmd.arg("run")
        .arg(topic)
        .arg("--out")
        .arg(out)
        .arg("--proxy")
        .arg(proxy)
        .arg("--quiet")
        .args(extra);
    cmd
}

/// Runs [`run_command`] to its end and returns its output.
pub fn run_topic(topic: &Path, out: &Path, proxy: &str, extra: &[&str]) -> Output {
    run_command(topic, out, proxy, extra)
        .output()
        .expect("run glaneur")
}

/// Panics with stdout and stderr when the exit code is not `code`.
pub fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The rows of a two-column text query on `crawl.sqlite` of a run folder.
pub fn text_pairs<C: FromIterator<(String, String)>>(out: &Path, sql: &str) -> C {
    let conn = db(out);
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Opens `crawl.sqlite` of a run folder.
pub fn db(out: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(out.join("crawl.sqlite")).expect("open crawl.sqlite")
}

/// (reason, detail) of a URL in `crawl.sqlite`.
pub fn reason_of(out: &Path, url: &str) -> Option<(String, String)> {
    db(out)
        .query_row(
            "SELECT COALESCE(reason, state), COALESCE(detail, '') FROM urls WHERE url = ?1",
            [url],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok()
}

/// The lines of `docs.jsonl` as JSON values.
pub fn docs(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("docs.jsonl"))
        .expect("docs.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Checks the structure of a TreeTagger file: `<doc>` and `<p>` balanced, one token per line,
/// no empty line; returns (documents, tokens).
pub fn check_treetagger(text: &str) -> (usize, usize) {
    let (mut docs, mut tokens, mut open_doc, mut open_p) = (0, 0, false, false);
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        assert!(!line.is_empty(), "empty line {n}");
        // Whitespace only in markup lines, or in a tag of the text kept whole by the tokenizer
        // and written escaped (`&lt;nom d’utilisateur&gt;`: stages::export::vertical).
        let escaped_tag = line.starts_with("&lt;") && line.ends_with("&gt;");
        assert!(
            !line.contains(char::is_whitespace) || line.starts_with('<') || escaped_tag,
            "line {n} `{line}` is not one token"
        );
        if line.starts_with("<doc ") {
            assert!(!open_doc, "nested <doc> at line {n}");
            assert!(line.ends_with('>'));
            open_doc = true;
            docs += 1;
        } else if line == "</doc>" {
            assert!(open_doc && !open_p, "stray </doc> at line {n}");
            open_doc = false;
        } else if line == "<p>" {
            assert!(open_doc && !open_p, "stray <p> at line {n}");
            open_p = true;
        } else if line == "</p>" {
            assert!(open_p, "stray </p> at line {n}");
            open_p = false;
        } else {
            assert!(open_p, "token outside <p> at line {n}: `{line}`");
            assert!(!line.starts_with('<'), "token line {n} starts with `<`");
            tokens += 1;
        }
    }
    assert!(!open_doc && !open_p, "unclosed <doc> or <p> at the end");
    (docs, tokens)
}

/// Checks `matrix/`: the Matrix Market size line agrees with `docs.tsv` and `vocab.tsv`, and
/// every entry is inside it. Returns (rows, columns, non-zeros).
pub fn check_matrix(out: &Path) -> (usize, usize, usize) {
    let mtx = std::fs::read_to_string(out.join("matrix/counts.mtx")).expect("counts.mtx");
    let mut lines = mtx.lines().filter(|l| !l.starts_with('%'));
    let size: Vec<usize> = lines
        .next()
        .expect("size line")
        .split(' ')
        .map(|x| x.parse().expect("number"))
        .collect();
    let (rows, cols, nnz) = (size[0], size[1], size[2]);
    let entries: Vec<Vec<usize>> = lines
        .map(|l| l.split(' ').map(|x| x.parse().expect("number")).collect())
        .collect();
    assert_eq!(entries.len(), nnz);
    assert!(entries.iter().all(|e| e[0] >= 1
        && e[0] <= rows
        && e[1] >= 1
        && e[1] <= cols
        && e[2] >= 1));
    let docs_tsv = std::fs::read_to_string(out.join("matrix/docs.tsv")).expect("docs.tsv");
    let vocab_tsv = std::fs::read_to_string(out.join("matrix/vocab.tsv")).expect("vocab.tsv");
    assert_eq!(
        docs_tsv.lines().count() - 1,
        rows,
        "docs.tsv rows = matrix rows"
    );
    assert_eq!(
        vocab_tsv.lines().count() - 1,
        cols,
        "vocab.tsv rows = matrix columns"
    );
    (rows, cols, nnz)
}
