//! Corpus similarity on known-similarity corpora (Kilgarriff 2001): a reference made of half of
//! text A is compared with mixtures of the other half of A and of text B in steps of 10 %
//! (0 %, 10 %, …, 100 % of B); Kilgarriff's χ² must grow with the share of B (Spearman 1.0),
//! and, over every pair of mixtures, a pair further apart must score less alike than a pair
//! nested inside it (Kilgarriff's KSC test).
//!
//! Texts: TreeTagger's tokens of French Debian and LilyPond documentation
//! (`tests/data/treetagger/*/SOURCES.md`). The development set was looked at while choosing the
//! method; the unseen set (other manuals) only once, to report its figure.

use std::path::PathBuf;

use crate::common;
use stages::change::spearman;
use stages::explore::compare::kilgarriff;

/// The lower-cased words (tokens with a letter or digit) of the `.tok` files of `set` whose
/// names start with one of `prefixes`, in file-name order.
fn words(set: &str, prefixes: &[&str]) -> Vec<String> {
    let dir = common::test_data().join("treetagger").join(set);
    let files: Vec<PathBuf> = common::sorted_files(&dir, ".tok")
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| prefixes.iter().any(|x| n.starts_with(x)))
        })
        .collect();
    assert!(!files.is_empty(), "no .tok file for {prefixes:?} in {set}");
    files
        .iter()
        .flat_map(|f| {
            String::from_utf8_lossy(&common::read_file(f))
                .lines()
                .filter(|t| t.chars().any(char::is_alphanumeric))
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn counts(words: &[&str]) -> (Vec<(String, u64)>, u64) {
    let mut map: std::collections::BTreeMap<&str, u64> = Default::default();
    for w in words {
        *map.entry(w).or_default() += 1;
    }
    (
        map.into_iter().map(|(w, f)| (w.to_string(), f)).collect(),
        words.len() as u64,
    )
}

const CHUNK: usize = 50;
const TOP: usize = 500;

/// (Spearman of χ² against the share of B, share of KSC pairs in the right order).
fn known_similarity(a: &[String], b: &[String]) -> (f64, f64, Vec<f64>) {
    let chunks =
        |w: &[String]| -> Vec<Vec<String>> { w.chunks(CHUNK).map(<[String]>::to_vec).collect() };
    let (a, b) = (chunks(a), chunks(b));
    // Alternate chunks of A: one half is the reference, the other goes into the mixtures.
    let reference: Vec<&str> = a.iter().step_by(2).flatten().map(String::as_str).collect();
    let rest: Vec<&Vec<String>> = a.iter().skip(1).step_by(2).collect();
    let slots = rest.len().min(b.len());
    assert!(slots >= 20, "too little text: {slots} chunks");
    let mixture = |k: usize| -> Vec<&str> {
        (0..slots)
            .flat_map(|i| {
                let from_b = i * 10 < k * slots;
                if from_b { &b[i] } else { rest[i] }
                    .iter()
                    .map(String::as_str)
            })
            .collect()
    };
    let mixes: Vec<(Vec<(String, u64)>, u64)> = (0..=10).map(|k| counts(&mixture(k))).collect();
    let (r, nr) = counts(&reference);
    let chi: Vec<f64> = mixes
        .iter()
        .map(|(m, n)| kilgarriff(&r, nr, m, *n, TOP).chi2_per_df)
        .collect();
    let shares: Vec<f64> = (0..=10).map(|k| k as f64).collect();
    let rho = spearman(&shares, &chi);
    // KSC: for i < j < l, mixtures i and j are more alike than i and l (and j, l than i, l).
    let sim = |i: usize, j: usize| {
        kilgarriff(&mixes[i].0, mixes[i].1, &mixes[j].0, mixes[j].1, TOP).chi2_per_df
    };
    let (mut right, mut all) = (0u32, 0u32);
    for i in 0..=10 {
        for j in i + 1..=10 {
            for l in j + 1..=10 {
                all += 2;
                right += u32::from(sim(i, j) < sim(i, l));
                right += u32::from(sim(j, l) < sim(i, l));
            }
        }
    }
    (rho, f64::from(right) / f64::from(all), chi)
}

fn check(name: &str, a: &[String], b: &[String]) {
    let (rho, pairs, chi) = known_similarity(a, b);
    println!(
        "{name}: {} + {} words; χ²/df against the reference by share of B: {}; Spearman {rho:.3}; \
         KSC pairs in order {:.1} %",
        a.len(),
        b.len(),
        chi.iter()
            .map(|c| format!("{c:.2}"))
            .collect::<Vec<_>>()
            .join(" "),
        pairs * 100.0
    );
    assert!((rho - 1.0).abs() < 1e-12, "{name}: Spearman {rho}");
    assert!(
        (pairs - 1.0).abs() < 1e-12,
        "{name}: {:.1} % of KSC pairs in order",
        pairs * 100.0
    );
}

#[test]
fn development_lilypond_against_debian_packaging() {
    let a = words("tokenizer-fr-2", &["lilypond-"]);
    let b = words("tokenizer-fr-2", &["developers-reference-", "maint-guide-"]);
    check("development", &a, &b);
}

#[test]
fn unseen_gimp_against_securing_debian() {
    let a = words("tokenizer-fr-unseen", &["gimp-help-"]);
    let b = words("tokenizer-fr-unseen", &["harden-doc-"]);
    check("unseen", &a, &b);
}
