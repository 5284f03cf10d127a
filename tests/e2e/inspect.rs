//! `glaneur formula`, `glaneur extract` and `glaneur tokenize` on local files.

use std::path::PathBuf;

use crate::support::*;

/// The test material committed with the repository.
fn test_data() -> PathBuf {
    repo().join("tests").join("data")
}

#[test]
fn tokenize_prints_exactly_treetaggers_french_tokens() {
    let dir = test_data().join("treetagger/tokenizer-fr");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let output = glaneur()
                .args(["tokenize", "--lang", "fr"])
                .arg(&path)
                .output()
                .unwrap();
            assert_exit(&output, 0);
            let expected = std::fs::read_to_string(path.with_extension("tok")).unwrap();
            assert_eq!(
                String::from_utf8(output.stdout).unwrap(),
                expected,
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 20, "{n} files");
    // The same from standard input (`-` or no file).
    let path = dir.join("dev-handbook-01.txt");
    let mut child = glaneur()
        .args(["tokenize", "--lang", "fr", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_exit(&output, 0);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        std::fs::read_to_string(path.with_extension("tok")).unwrap()
    );
}

#[test]
fn formula_shows_verdicts_and_points_at_errors() {
    let dir = test_data().join("treetagger/tokenizer-fr");
    let output = glaneur()
        .args(["formula", r#"("Debian" OU "paquet*") ET NON "LibreOffice""#])
        .arg(dir.join("dev-handbook-01.txt"))
        .arg(dir.join("dev-libreoffice-01.txt"))
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8_lossy(&output.stdout);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(2)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][1], "TRUE", "{text}");
    assert!(rows[0][4].contains("\"Debian\""), "{text}");
    assert_eq!(rows[1][1], "false", "{text}");

    let output = glaneur()
        .args(["formula", r#"("graphe" OU"#])
        .arg(dir.join("dev-handbook-01.txt"))
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("column 11") && err.contains('^'), "{err}");
}

#[test]
fn extract_prints_the_encoding_decision_and_labelled_blocks() {
    let page = scenario("basic").join("c.test/doc.html");
    let output = glaneur()
        .arg("extract")
        .arg(&page)
        .args(["--url", "http://c.test/doc.html"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // `--text`: the kept blocks' text, the same as the JSON's.
    let text = glaneur()
        .arg("extract")
        .arg(&page)
        .args(["--url", "http://c.test/doc.html", "--text"])
        .output()
        .unwrap();
    assert_exit(&text, 0);
    let kept: Vec<&str> = json["document"]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["keep"] == true)
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert!(!kept.is_empty());
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        kept.join("\n\n") + "\n"
    );
    assert_eq!(json["encoding"]["name"], "windows-1252");
    assert_eq!(json["encoding"]["decision"], "meta-prescan");
    assert_eq!(json["document"]["title"], "Cours : sommets et graphes");
    let blocks = json["document"]["blocks"].as_array().unwrap();
    assert!(
        blocks.iter().any(
            |b| b["keep"] == true && b["text"].as_str().unwrap().contains("nombre chromatique")
        )
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn extract_of_several_files_prints_one_json_line_per_file_in_order() {
    let dir = scenario("basic");
    let (doc, index) = (dir.join("c.test/doc.html"), dir.join("a.test/index.html"));
    let output = glaneur()
        .arg("extract")
        .args([&doc, &index, &doc])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0]["file"], doc.display().to_string());
    assert_eq!(lines[1]["file"], index.display().to_string());
    assert_eq!(lines[0]["document"], lines[2]["document"]);
    assert_eq!(lines[0]["document"]["title"], "Cours : sommets et graphes");

    let output = glaneur()
        .arg("extract")
        .args([&doc, &index])
        .args(["--url", "http://c.test/doc.html"])
        .output()
        .unwrap();
    assert_exit(&output, 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("single file"));
}
