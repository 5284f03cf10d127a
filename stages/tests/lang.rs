//! Fixture test of the language detector underneath `stages::page::lang`: glaneur builds whatlang from
//! its own copy (`vendor/whatlang`, faster scoring), which must give the published crate's
//! answers. `fixtures/whatlang-0.18.0-answers.tsv` holds the answers of whatlang 0.18.0 as
//! published on 620 samples of the chardet project's labelled web texts (CulturaX snippets,
//! LGPL), one per line: file, first and end byte, language, script, confidence's bits. It is
//! written by `scripts/whatlang-check answers` (which also compares the two crates directly on
//! any folder of pages).

use crate::common;

use std::collections::{BTreeSet, HashMap};

#[test]
fn whatlang_copy_gives_the_published_answers() {
    let root = common::test_data().join("encoding").join("labelled-text");
    let expected = include_str!("fixtures/whatlang-0.18.0-answers.tsv");
    let mut texts: HashMap<&str, String> = HashMap::new();
    let mut differing = Vec::new();
    let mut languages = BTreeSet::new();
    let mut samples = 0;
    for line in expected.lines() {
        let fields: Vec<&str> = line.splitn(4, '\t').collect();
        let [name, start, end, published] = fields[..] else {
            panic!("malformed line {line:?}");
        };
        let text = texts.entry(name).or_insert_with(|| {
            let path = root.join(name);
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        });
        let (start, end): (usize, usize) = (start.parse().unwrap(), end.parse().unwrap());
        let sample = text
            .get(start..end)
            .unwrap_or_else(|| panic!("{name}: no text at bytes {start}..{end}"));
        let answer = match whatlang::detect(sample) {
            Some(info) => format!(
                "{}\t{:?}\t{:016x}",
                info.lang().code(),
                info.script(),
                info.confidence().to_bits()
            ),
            None => "-".to_string(),
        };
        if answer != published {
            differing.push(format!(
                "{name} {start}..{end}: {answer:?}, published {published:?}"
            ));
        }
        languages.insert(published.split('\t').next().unwrap_or("-"));
        samples += 1;
    }
    assert!(
        differing.is_empty(),
        "{} of {samples} answers differ from the published whatlang's, e.g. {}",
        differing.len(),
        differing[0]
    );
    // Many samples, in many languages and scripts, not only English.
    assert!(samples >= 600, "{samples} samples");
    assert!(languages.len() >= 20, "{languages:?}");
}
