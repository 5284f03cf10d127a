//! Collocations, breakdowns and dispersion on small corpora counted by hand and on generated
//! corpora counted by brute force.

use super::*;

/// The collocates (by word, no filter, every f_xy ≥ 1) of `query` in a small vertical text.
fn small_collocations(vrt: &str, query: &str, window: (u32, u32)) -> Vec<stats::Collocate> {
    let index = build_from_str(vrt, &["word"]).expect("indexes");
    let q = cql::parse(query).expect("parses");
    let (hits, _) = Search::new(&index, &q)
        .expect("compiles")
        .hits(10)
        .expect("runs");
    let word = index.attribute("word").expect("word");
    stats::collocations(
        &index,
        &hits,
        word,
        &stats::CollocOptions {
            window,
            within: None,
            measure: stats::Measure::LogDice,
            min_together: 1,
            min_frequency: 0,
            filter: None,
        },
    )
    .expect("runs")
}

#[test]
fn a_collocate_that_is_itself_a_hit_counts_on_both_sides() {
    // calque@1 and calque@3, ±2: the windows' union is 0..5; each calque lies in the other's
    // window (and outside its own hit), so calque–calque f_xy = 2 and W = 5.
    let vrt = "<text>\na\ncalque\nb\ncalque\nc\n</text>\n";
    let rows = small_collocations(vrt, "\"calque\"", (2, 2));
    let got: Vec<(&str, u64)> = rows
        .iter()
        .map(|c| (c.value.as_str(), c.together))
        .collect();
    assert_eq!(got.iter().find(|r| r.0 == "calque"), Some(&("calque", 2)));
    assert_eq!(got.iter().map(|r| r.1).sum::<u64>(), 5);
    // logDice by hand: 14 + log2(2 · 2 / (2 + 2)) = 14.
    let calque = rows.iter().find(|c| c.value == "calque").unwrap();
    assert!((calque.logdice - 14.0).abs() < 1e-9, "{}", calque.logdice);
}

#[test]
fn collocation_counts_equal_the_union_of_windows_by_brute_force() {
    for seed in 1..=20u64 {
        let g = generate(&mut Rng(0xc011_0000 + seed), 8);
        let index = index_of(&g);
        let word = index.attribute("word").expect("word");
        for (query, window) in [
            ("[lemma=\"graphe\"]", 5),
            ("[pos=\"ADJ\"]", 3),
            ("[] [pos=\"NOUN\"]", 2),
        ] {
            let q = cql::parse(query).expect("parses");
            let (hits, _) = Search::new(&index, &q)
                .expect("compiles")
                .hits(1_000_000)
                .expect("runs");
            // Brute force: a position counts once if some hit's window (same document) holds
            // it outside that hit.
            let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
            for p in 0..g.tokens.len() as u32 {
                let (ts, te, _) = g.texts.iter().find(|t| t.0 <= p && p < t.1).unwrap();
                let covered = hits.iter().any(|h| {
                    let inside = h.start <= p && p < h.end;
                    let lo = h.start.saturating_sub(window).max(*ts);
                    let hi = (h.end + window).min(*te);
                    h.start >= *ts && h.start < *te && lo <= p && p < hi && !inside
                });
                if covered {
                    *counts.entry(g.tokens[p as usize].0.clone()).or_default() += 1;
                }
            }
            let rows = stats::collocations(
                &index,
                &hits,
                word,
                &stats::CollocOptions {
                    window: (window, window),
                    within: None,
                    measure: stats::Measure::LogDice,
                    min_together: 1,
                    min_frequency: 0,
                    filter: None,
                },
            )
            .expect("runs");
            let got: std::collections::BTreeMap<String, u64> =
                rows.iter().map(|c| (c.value.clone(), c.together)).collect();
            assert_eq!(got, counts, "seed {seed}, {query} ±{window}");
        }
    }
}

#[test]
fn a_collocate_filter_counts_only_the_tokens_it_keeps_on_both_sides() {
    for seed in 1..=10u64 {
        let g = generate(&mut Rng(0xf11e_0000 + seed), 10);
        let index = index_of(&g);
        let lemma = index.attribute("lemma").expect("lemma");
        let q = cql::parse("[lemma=\"graphe\"]").expect("parses");
        let (hits, _) = Search::new(&index, &q)
            .expect("compiles")
            .hits(1_000_000)
            .expect("runs");
        for (filter, keep) in [
            (
                "[pos=\"ADJ\"]",
                &(|p: &str| p == "ADJ") as &dyn Fn(&str) -> bool,
            ),
            ("[!pos=\"NOUN|PUNCT\"]", &|p: &str| {
                p != "NOUN" && p != "PUNCT"
            }),
        ] {
            let f = Search::new(&index, &cql::parse(filter).expect("parses")).expect("compiles");
            let rows = stats::collocations(
                &index,
                &hits,
                lemma,
                &stats::CollocOptions {
                    window: (4, 4),
                    within: None,
                    measure: stats::Measure::LogDice,
                    min_together: 1,
                    min_frequency: 0,
                    filter: Some(&f),
                },
            )
            .expect("runs");
            let mut together: std::collections::BTreeMap<String, u64> = Default::default();
            for p in 0..g.tokens.len() as u32 {
                let (ts, te, _) = g.texts.iter().find(|t| t.0 <= p && p < t.1).unwrap();
                let covered = hits.iter().any(|h| {
                    h.start >= *ts
                        && h.start < *te
                        && h.start.saturating_sub(4).max(*ts) <= p
                        && p < (h.end + 4).min(*te)
                        && !(h.start <= p && p < h.end)
                });
                if covered && keep(&g.tokens[p as usize].1) {
                    *together.entry(g.tokens[p as usize].2.clone()).or_default() += 1;
                }
            }
            let got: std::collections::BTreeMap<String, u64> =
                rows.iter().map(|c| (c.value.clone(), c.together)).collect();
            assert_eq!(got, together, "seed {seed} {filter}");
            for c in &rows {
                let f_y = g
                    .tokens
                    .iter()
                    .filter(|t| t.2 == c.value && keep(&t.1))
                    .count() as u64;
                assert_eq!(c.frequency, f_y, "seed {seed} {filter} {}", c.value);
            }
        }
    }
    // A filter that is not one token pattern is refused with a message.
    let g = generate(&mut Rng(7), 4);
    let index = index_of(&g);
    let hits = [crate::explore::query::Hit { start: 0, end: 1 }];
    let seq = Search::new(&index, &cql::parse("[pos=\"ADJ\"] []").unwrap()).unwrap();
    let err = stats::collocations(
        &index,
        &hits,
        0,
        &stats::CollocOptions {
            window: (2, 2),
            within: None,
            measure: stats::Measure::LogDice,
            min_together: 1,
            min_frequency: 0,
            filter: Some(&seq),
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("one token pattern"), "{err}");
}

#[test]
fn breakdowns_by_position_and_by_document_equal_brute_force() {
    use crate::explore::breakdown::{self, Position};
    for seed in 1..=15u64 {
        let g = generate(&mut Rng(0xb4ea_0000 + seed), 12);
        let index = index_of(&g);
        let lemma = index.attribute("lemma").expect("lemma");
        for query in ["[pos=\"NOUN\"]", "[pos=\"ADJ\"] []", "[lemma=\"graphe\"]"] {
            let q = cql::parse(query).expect("parses");
            let (hits, _) = Search::new(&index, &q)
                .expect("compiles")
                .hits(1_000_000)
                .expect("runs");
            let doc_of = |p: u32| g.texts.iter().position(|t| t.0 <= p && p < t.1).unwrap();
            for at in ["L1", "L3", "R1", "R2", "node"] {
                let position = Position::parse(at).expect("a position");
                let (rows, outside) =
                    breakdown::at_position(&index, &hits, lemma, position).expect("runs");
                let mut want: std::collections::BTreeMap<String, u64> = Default::default();
                let mut want_outside = 0;
                for h in &hits {
                    let d = doc_of(h.start);
                    let (lo, hi) = (g.texts[d].0 as i64, g.texts[d].1 as i64);
                    let range = match position {
                        Position::Node => (h.start as i64, h.end as i64),
                        Position::Left(k) => {
                            (h.start as i64 - k as i64, h.start as i64 - k as i64 + 1)
                        }
                        Position::Right(k) => {
                            (h.end as i64 + k as i64 - 1, h.end as i64 + k as i64)
                        }
                    };
                    if range.0 < lo || range.1 > hi {
                        want_outside += 1;
                        continue;
                    }
                    let value: Vec<&str> = (range.0..range.1)
                        .map(|p| g.tokens[p as usize].2.as_str())
                        .collect();
                    *want.entry(value.join(" ")).or_default() += 1;
                }
                let got: std::collections::BTreeMap<String, u64> = rows.into_iter().collect();
                assert_eq!(got, want, "seed {seed} {query} at {at}");
                assert_eq!(outside, want_outside, "seed {seed} {query} at {at}");
            }
            // By host: hits, tokens, documents and documents with hits per host.
            let rows = breakdown::by_document(&index, "host", Some(&hits)).expect("host");
            for row in &rows {
                let docs: Vec<usize> = (0..g.texts.len())
                    .filter(|&d| g.texts[d].2 == row.value)
                    .collect();
                let hits_in = hits
                    .iter()
                    .filter(|h| docs.contains(&doc_of(h.start)))
                    .count() as u64;
                let with: std::collections::BTreeSet<usize> = hits
                    .iter()
                    .map(|h| doc_of(h.start))
                    .filter(|d| docs.contains(d))
                    .collect();
                let tokens: u64 = docs
                    .iter()
                    .map(|&d| u64::from(g.texts[d].1 - g.texts[d].0))
                    .sum();
                assert_eq!(
                    (row.count, row.tokens, row.documents, row.with_hits),
                    (hits_in, tokens, docs.len() as u64, with.len() as u64),
                    "seed {seed} {query} {}",
                    row.value
                );
            }
            assert_eq!(rows.iter().map(|r| r.count).sum::<u64>(), hits.len() as u64);
        }
        // Without a query: tokens per host, every token counted once.
        let rows = breakdown::by_document(&index, "host", None).expect("host");
        assert_eq!(
            rows.iter().map(|r| r.count).sum::<u64>(),
            g.tokens.len() as u64
        );
        assert!(breakdown::by_document(&index, "nothing", None).is_none());
    }
    for bad in ["L0", "R51", "x1", "L", ""] {
        assert_eq!(Position::parse(bad), None, "{bad}");
    }
}

#[test]
fn dispersion_over_the_index_equals_dispersion_over_the_token_stream() {
    use crate::explore::breakdown;
    use crate::explore::dispersion::Dispersions;
    let g = generate(&mut Rng(0xd15e_0001), 40);
    let index = index_of(&g);
    let lemma = index.attribute("lemma").expect("lemma");
    let got = breakdown::dispersion(&index, lemma).expect("runs");
    let a = &index.attributes[lemma];
    let freq: Vec<u64> = (0..a.lexicon.len() as u32)
        .map(|id| a.frequency(id))
        .collect();
    let parts: Vec<(u32, u32)> = g.texts.iter().map(|t| (t.0, t.1)).collect();
    let mut d = Dispersions::new(g.tokens.len() as u64, &parts, &freq);
    for (pos, t) in g.tokens.iter().enumerate() {
        d.add(
            a.lexicon.find(&t.2).expect("in the lexicon") as usize,
            pos as u32,
        );
    }
    assert_eq!(got, d.finish());
    assert!(
        got.iter()
            .all(|x| x.dp.is_finite() && (0.0..=1.0).contains(&x.juilland_d))
    );
}

#[test]
fn collocations_count_the_window_inside_the_document() {
    let vrt = "<text>\na\nb\nx\nc\nx\nb\n</text>\n<text>\nb\nb\n</text>\n";
    let rows = small_collocations(vrt, "\"x\"", (1, 1));
    // The second document's b's are out of reach.
    let got: Vec<(&str, u64, u64)> = rows
        .iter()
        .map(|c| (c.value.as_str(), c.together, c.frequency))
        .collect();
    // x@2 → b@1, c@3; x@4 → c@3 already counted, b@5: a position counts once.
    assert_eq!(got, [("b", 2, 4), ("c", 1, 1)]);
    let index = build_from_str(vrt, &["word"]).expect("indexes");
    let freq = stats::frequencies(&index, index.attribute("word").expect("word"));
    assert_eq!(freq[0], ("b".to_string(), 4));
}

#[test]
fn ngrams_within_sentences_equal_brute_force() {
    use crate::explore::breakdown;
    for seed in 1..=10u64 {
        let g = generate(&mut Rng(0x9a3a_0000 + seed), 15);
        let index = index_of(&g);
        let lemma = index.attribute("lemma").expect("lemma");
        for n in 2..=4usize {
            let rows = breakdown::ngrams(&index, lemma, n, "s").expect("counts");
            let lexicon = &index.attributes[lemma].lexicon;
            let got: std::collections::BTreeMap<String, u64> = rows
                .rows
                .iter()
                .map(|&(key, f)| {
                    let words: Vec<&str> =
                        rows.ids(key).iter().map(|&id| lexicon.get(id)).collect();
                    (words.join(" "), f)
                })
                .collect();
            let mut want: std::collections::BTreeMap<String, u64> = Default::default();
            for &(s, e) in &g.ss {
                for i in s..e {
                    if i + n as u32 <= e {
                        let words: Vec<&str> = (i..i + n as u32)
                            .map(|p| g.tokens[p as usize].2.as_str())
                            .collect();
                        *want.entry(words.join(" ")).or_default() += 1;
                    }
                }
            }
            assert_eq!(got, want, "seed {seed} n {n}");
            assert!(rows.rows.windows(2).all(|w| w[0].1 >= w[1].1));
        }
    }
}
