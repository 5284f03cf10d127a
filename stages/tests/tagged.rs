//! Reading real TreeTagger output back.
//!
//! Material: `tests/data/treetagger/tagged-fr-sample/fracas_postags_lemmas_tt.tsv`, real French
//! TreeTagger output of FraCaS-fr (mskandalis/hybrid_nli_fr, BSD-2): `word<TAB>POS<TAB>lemma`,
//! a blank line between sentences, no `<doc>` line, ambiguous lemmas such as `être|sommer`.
//! The file is also re-wrapped in glaneur's `<doc>`/`<p>` lines, as `scripts/treetagger`
//! output of a `.tt` file looks, to check the grouping by document on real tagged lines.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use stages::export::tagged::{TaggedError, parse_tagged};

/// TreeTagger's French tagset (Achim Stein's parameter file), the only tags real output has.
const FRENCH_TAGSET: &[&str] = &[
    "ABR", "ADJ", "ADV", "DET:ART", "DET:POS", "INT", "KON", "NAM", "NOM", "NUM", "PRO", "PRO:DEM",
    "PRO:IND", "PRO:PER", "PRO:POS", "PRO:REL", "PRP", "PRP:det", "PUN", "PUN:cit", "SENT", "SYM",
    "VER:cond", "VER:futu", "VER:impe", "VER:impf", "VER:infi", "VER:pper", "VER:ppre", "VER:pres",
    "VER:simp", "VER:subi", "VER:subp",
];

fn sample() -> String {
    let path: PathBuf = common::test_data()
        .join("treetagger")
        .join("tagged-fr-sample")
        .join("fracas_postags_lemmas_tt.tsv");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The sample's sentences, each a list of its raw tagged lines (split independently of the
/// parser: blank lines separate sentences).
fn sentences(text: &str) -> Vec<Vec<&str>> {
    text.split("\n\n")
        .map(|block| block.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>())
        .filter(|block| !block.is_empty())
        .collect()
}

#[test]
fn real_treetagger_output_without_doc_lines_is_one_document() {
    let text = sample();
    let docs = parse_tagged(&text).unwrap();
    assert_eq!(docs.len(), 1, "no <doc> line: one document");
    assert_eq!(docs[0].id, "");

    let raw: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    let tokens = &docs[0].tokens;
    println!(
        "sample: {} sentences, {} tokens",
        sentences(&text).len(),
        tokens.len()
    );
    assert_eq!(tokens.len(), raw.len());
    assert!(tokens.len() > 8000, "{} tokens", tokens.len());

    let mut ambiguous = 0;
    for (token, columns) in tokens.iter().zip(&raw) {
        assert_eq!(token.word, columns[0]);
        assert_eq!(token.pos, columns[1]);
        if columns[2].contains('|') {
            ambiguous += 1;
            assert_eq!(Some(token.lemma.as_str()), columns[2].split('|').next());
        } else {
            assert_eq!(token.lemma, columns[2]);
        }
        assert!(!token.lemma.contains('|') && token.lemma != "<unknown>");
    }
    assert!(ambiguous > 0, "the sample has ambiguous lemmas");

    let tags: BTreeSet<&str> = tokens.iter().map(|t| t.pos.as_str()).collect();
    let unknown: Vec<&&str> = tags.iter().filter(|t| !FRENCH_TAGSET.contains(t)).collect();
    assert!(
        unknown.is_empty(),
        "tags outside the French tagset: {unknown:?}"
    );

    let sommes = tokens.iter().find(|t| t.word == "sommes").unwrap();
    assert_eq!(
        (sommes.pos.as_str(), sommes.lemma.as_str()),
        ("VER:pres", "être")
    );
}

#[test]
fn real_lines_wrapped_in_glaneur_doc_lines_group_by_document() {
    let text = sample();
    let sentences = sentences(&text);
    // Ten sentences a document, one sentence a paragraph, as a `.tt` run would be tagged.
    let mut wrapped = String::new();
    let mut expected = Vec::new();
    for (n, chunk) in sentences.chunks(10).enumerate() {
        let id = format!("d{n:06}");
        wrapped.push_str(&format!(
            "<doc id=\"{id}\" url=\"http://a.test/{n}?a=1&amp;b=2\" title=\"FraCaS &quot;{n}&quot;\" lang=\"fr\" score=\"1.000\">\n"
        ));
        let mut count = 0;
        for sentence in chunk {
            wrapped.push_str("<p>\n");
            for line in sentence {
                wrapped.push_str(line);
                wrapped.push('\n');
            }
            wrapped.push_str("</p>\n");
            count += sentence.len();
        }
        wrapped.push_str("</doc>\n");
        expected.push((id, count));
    }
    let docs = parse_tagged(&wrapped).unwrap();
    let got: Vec<(String, usize)> = docs
        .iter()
        .map(|d| (d.id.clone(), d.tokens.len()))
        .collect();
    assert_eq!(got, expected);
    println!("wrapped: {} documents", docs.len());

    // A truncated run (last `</doc>` lost) is reported at its opening line.
    let truncated = wrapped.trim_end().strip_suffix("</doc>").unwrap();
    let last_open = truncated
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("<doc "))
        .map(|(i, _)| i + 1)
        .last()
        .unwrap();
    assert_eq!(
        parse_tagged(truncated),
        Err(TaggedError::UnclosedDoc { line: last_open })
    );

    // A damaged line deep in the file is named by its number.
    let mut lines: Vec<String> = wrapped.lines().map(str::to_owned).collect();
    let victim = lines
        .iter()
        .enumerate()
        .skip(lines.len() / 2)
        .find(|(_, l)| l.contains('\t'))
        .map(|(i, _)| i)
        .unwrap();
    lines[victim] = lines[victim].replacen('\t', " ", 1);
    assert_eq!(
        parse_tagged(&lines.join("\n")),
        Err(TaggedError::Columns {
            line: victim + 1,
            found: 2
        })
    );
}
