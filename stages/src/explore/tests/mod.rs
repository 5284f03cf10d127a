//! The index against a brute-force scan of the token stream, on generated corpora and random
//! queries; the parser; the statistics against hand-computed values.

use super::build::build_from_str;
use super::cql::{self, Atom, Cond, Item, Query, Test, Within};
use super::index::{Index, MemColumns};
use super::query::Search;
use super::stats::{self, Counts};

mod brute;
mod build;
mod cqp;
mod statistics;

use brute::brute_force;

/// A deterministic generator (xorshift64*).
pub(super) struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

pub(super) const WORDS: &[(&str, &str, &str)] = &[
    ("graphe", "NOUN", "graphe"),
    ("Graphe", "NOUN", "graphe"),
    ("graphes", "NOUN", "graphe"),
    ("nœud", "NOUN", "nœud"),
    ("noeuds", "NOUN", "nœud"),
    ("été", "NOUN", "été"),
    ("Été", "NOUN", "été"),
    ("ete", "VERB", "eter"),
    ("orienté", "ADJ", "orienté"),
    ("orientés", "ADJ", "orienté"),
    ("connexe", "ADJ", "connexe"),
    ("grand", "ADJ", "grand"),
    ("le", "DET", "le"),
    ("Le", "DET", "le"),
    ("la", "DET", "le"),
    ("des", "DET", "un"),
    ("de", "ADP", "de"),
    ("un", "DET", "un"),
    ("est", "AUX", "être"),
    ("relie", "VERB", "relier"),
    ("&", "CCONJ", "&"),
    ("<b>", "X", "<b>"),
    (",", "PUNCT", ","),
    (".", "PUNCT", "."),
];

/// A generated corpus: its tokens (word, pos, lemma), documents with a host, paragraphs and
/// sentences as spans, and the same as vertical text.
pub(super) struct Generated {
    tokens: Vec<(String, String, String)>,
    texts: Vec<(u32, u32, String)>,
    ps: Vec<(u32, u32)>,
    ss: Vec<(u32, u32)>,
    vrt: String,
}

fn escape(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(super) fn generate(rng: &mut Rng, docs: usize) -> Generated {
    let mut g = Generated {
        tokens: Vec::new(),
        texts: Vec::new(),
        ps: Vec::new(),
        ss: Vec::new(),
        vrt: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
    };
    for d in 0..docs {
        let host = format!("h{}.test", rng.below(3));
        let start = g.tokens.len() as u32;
        g.vrt.push_str(&format!(
            "<text id=\"d{d}\" host=\"{host}\" title=\"a &amp; b\">\n"
        ));
        // Some documents are empty: regions of length 0 must not hold hits.
        for _ in 0..rng.below(4) {
            let p_start = g.tokens.len() as u32;
            g.vrt.push_str("<p>\n");
            for _ in 0..1 + rng.below(3) {
                let s_start = g.tokens.len() as u32;
                g.vrt.push_str("<s>\n");
                for i in 0..1 + rng.below(9) {
                    let (w, p, l) = *rng.pick(WORDS);
                    if i > 0 && rng.below(5) == 0 {
                        g.vrt.push_str("<g/>\n");
                    }
                    g.vrt
                        .push_str(&format!("{}\t{}\t{}\n", escape(w), p, escape(l)));
                    g.tokens.push((w.into(), p.into(), l.into()));
                }
                g.vrt.push_str("</s>\n");
                g.ss.push((s_start, g.tokens.len() as u32));
            }
            g.vrt.push_str("</p>\n");
            g.ps.push((p_start, g.tokens.len() as u32));
        }
        g.vrt.push_str("</text>\n");
        g.texts.push((start, g.tokens.len() as u32, host));
    }
    g
}

pub(super) fn index_of(g: &Generated) -> Index<MemColumns> {
    build_from_str(&g.vrt, &["word", "pos", "lemma"]).expect("generated vrt indexes")
}

// ---- random queries ----

pub(super) fn random_test(rng: &mut Rng) -> Test {
    let (attr, pattern) = match rng.below(6) {
        0 => ("word", rng.pick(WORDS).0.to_string()),
        1 => ("lemma", rng.pick(WORDS).2.to_string()),
        2 => (
            "pos",
            rng.pick(&["NOUN", "ADJ", "DET", "PUNCT", "N.*", "A.+"])
                .to_string(),
        ),
        3 => ("lc", rng.pick(&["graphe", "été", "le"]).to_string()),
        4 => (
            "word",
            rng.pick(&["gra.*", "[lL]e", "no?e.*", ".", "[^a-z].*", "\\."])
                .to_string(),
        ),
        _ => (
            "lemma",
            rng.pick(&["grap.*", "ê.*", "orient(é|e)", "<.*"])
                .to_string(),
        ),
    };
    Test {
        attr: attr.to_string(),
        pattern,
        ignore_case: rng.below(4) == 0,
        ignore_diacritics: rng.below(5) == 0,
        negated: rng.below(6) == 0,
    }
}

pub(super) fn random_cond(rng: &mut Rng, depth: u32) -> Cond {
    match if depth > 1 { 0 } else { rng.below(6) } {
        0..=2 => Cond::Test(random_test(rng)),
        3 => Cond::And(
            (0..2 + rng.below(3))
                .map(|_| random_cond(rng, depth + 1))
                .collect(),
        ),
        4 => Cond::Or(
            (0..2 + rng.below(3))
                .map(|_| random_cond(rng, depth + 1))
                .collect(),
        ),
        _ => Cond::Not(Box::new(random_cond(rng, depth + 1))),
    }
}

pub(super) fn random_item(rng: &mut Rng, depth: u32) -> Item {
    let atom = match rng.below(if depth > 0 { 8 } else { 10 }) {
        0 => Atom::Token(Cond::Any),
        1..=7 => Atom::Token(random_cond(rng, 0)),
        _ => Atom::Group(
            (0..2 + rng.below(2))
                .map(|_| {
                    (0..1 + rng.below(2))
                        .map(|_| random_item(rng, depth + 1))
                        .collect()
                })
                .collect(),
        ),
    };
    // Unbounded repetitions of groups make the brute-force scan too slow to run often.
    let (min, max) = match rng.below(9) {
        0 => (0, Some(1)),
        1 if depth == 0 && matches!(atom, Atom::Token(_)) => (0, None),
        2 if depth == 0 && matches!(atom, Atom::Token(_)) => (1, None),
        3 => (0, Some(3)),
        4 => (2, Some(2)),
        _ => (1, Some(1)),
    };
    Item {
        atom,
        min,
        max,
        label: None,
    }
}

pub(super) fn random_query(rng: &mut Rng) -> Query {
    let sequence = (0..1 + rng.below(3)).map(|_| random_item(rng, 0)).collect();
    let within = match rng.below(6) {
        0 => Some(Within {
            region: "s".into(),
            attrs: vec![],
        }),
        1 => Some(Within {
            region: "p".into(),
            attrs: vec![],
        }),
        2 => Some(Within {
            region: "doc".into(),
            attrs: vec![Test {
                attr: "host".into(),
                pattern: "h[01].*".into(),
                ignore_case: false,
                ignore_diacritics: false,
                negated: rng.below(2) == 0,
            }],
        }),
        _ => None,
    };
    Query {
        within,
        ..Query::of_sequence(sequence)
    }
}

#[test]
fn the_index_returns_exactly_what_a_scan_of_the_tokens_returns() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut nonempty = 0;
    for corpus in 0..6 {
        let g = generate(&mut rng, 30 + corpus * 10);
        let index = index_of(&g);
        assert_eq!(index.n_tokens as usize, g.tokens.len());
        for _ in 0..120 {
            let q = random_query(&mut rng);
            // The printed query reads back to the same query.
            let text = q.to_string();
            assert_eq!(cql::parse(&text).as_ref(), Ok(&q), "{text}");
            let search = Search::new(&index, &q).expect(&text);
            let (hits, more) = search.hits(usize::MAX).expect(&text);
            assert!(!more);
            assert_eq!(hits, brute_force(&g, &q), "{text}");
            assert_eq!(search.count().expect(&text), hits.len() as u64, "{text}");
            // A limit gives the first hits and says more exist.
            if hits.len() > 2 {
                let (first, more) = search.hits(2).expect(&text);
                assert_eq!(first, hits[..2], "{text}");
                assert!(more, "{text}");
            }
            nonempty += usize::from(!hits.is_empty());
        }
    }
    // The generated queries are not all trivially empty.
    assert!(nonempty > 250, "{nonempty}");
}

#[test]
fn typical_queries_find_what_a_linguist_expects() {
    let vrt = "<text id=\"a\" host=\"x.test\">\n<p>\n<s>\nLe\tDET\tle\ngraphe\tNOUN\tgraphe\n\
               orienté\tADJ\torienté\n.\tPUNCT\t.\n</s>\n<s>\nDes\tDET\tun\ngraphes\tNOUN\tgraphe\n\
               </s>\n</p>\n</text>\n<text id=\"b\" host=\"y.test\">\n<p>\n<s>\ngraphes\tNOUN\tgraphe\n\
               connexes\tADJ\tconnexe\n</s>\n</p>\n</text>\n";
    let index = build_from_str(vrt, &["word", "pos", "lemma"]).expect("indexes");
    let hits = |q: &str| {
        let query = cql::parse(q).expect(q);
        let (h, _) = Search::new(&index, &query).expect(q).hits(100).expect(q);
        h.iter().map(|h| (h.start, h.end)).collect::<Vec<_>>()
    };
    assert_eq!(hits("[lemma=\"graphe\"][pos=\"ADJ\"]"), [(1, 3), (6, 8)]);
    assert_eq!(hits("[word=\"graphe.*\"%c]"), [(1, 2), (5, 6), (6, 7)]);
    // `graphes` ends document a and starts document b: never one hit across them.
    assert_eq!(hits("[pos=\"NOUN\"][pos=\"NOUN\"]"), []);
    assert_eq!(hits("[pos=\"NOUN\"] []{0,3} [pos=\"NOUN\"]"), [(1, 6)]);
    assert_eq!(hits("[pos=\"NOUN\"] []{0,3} [pos=\"NOUN\"] within s"), []);
    assert_eq!(
        hits("[lemma=\"graphe\"] within <doc host=\"y.*\"/>"),
        [(6, 7)]
    );
    assert_eq!(hits("[word=\"des\"]"), []);
    assert_eq!(hits("\"des\"%c"), [(4, 5)]);
    assert_eq!(hits("[lc=\"des\"]"), [(4, 5)]);
    assert_eq!(hits("[word=\"oriente\"%d]"), [(2, 3)]);
    assert_eq!(
        hits("[pos!=\"NOUN|DET\" & word!=\"\\.\"]"),
        [(2, 3), (7, 8)]
    );
}

#[test]
fn mistakes_in_queries_are_named() {
    let index = build_from_str("<text>\nx\n</text>\n", &["word"]).expect("indexes");
    let err = |q: &str| match cql::parse(q) {
        Err(e) => e.to_string(),
        Ok(query) => match Search::new(&index, &query) {
            Err(e) => e.to_string(),
            Ok(_) => String::from("accepted"),
        },
    };
    assert!(
        err("[lemma=\"x\"]").contains("no attribute `lemma` in this corpus (it has: word, lc)")
    );
    assert!(err("[word=\"(\"]").contains("not a valid regular expression"));
    assert!(err("[word=\"x\"").contains("expected `]`"));
    assert!(err("[word=\"x\"] within q").contains("no region `q`"));
    assert!(err("[word=\"x\"%z]").contains("unknown flag %z"));
    assert!(err("[]{3,1}").contains("maximum is below the minimum"));
    assert!(err("").contains("expected a token pattern"));
    assert!(err("[word=\"x\"] junk").contains("unexpected `j`"));
    assert!(err("([]{0,1000}){0,1000}").contains("too large"));
    assert!(err(&format!("[{}word=\"a\"]", "!".repeat(20_000))).contains("nested more than 100"));
    assert!(err("[word=\"x\"] within").contains("expected a region after within"));
    assert!(err("[]{4294967295}").contains("too large"));
}

#[test]
fn unbounded_repetitions_extend_long_patterns_and_impossible_ones_stop_at_once() {
    let mut vrt = String::from("\u{feff}<text>\n");
    for i in 0..130 {
        vrt.push_str(&format!("w{i}\n"));
    }
    vrt.push_str("</text>\n");
    // A byte-order mark before the first line is not a token.
    let index = build_from_str(&vrt, &["word"]).expect("indexes");
    assert_eq!(index.n_tokens, 130);
    let count = |q: &str| {
        let query = cql::parse(q).expect(q);
        Search::new(&index, &query).expect(q).count().expect(q)
    };
    assert_eq!(count("[]{120} []"), 10);
    assert_eq!(count("[]{120} []+"), 10);
    assert_eq!(count("[]{120,}"), 11);
    assert_eq!(count("([]?){500} \"zz\""), 0);
}

#[test]
fn vertical_files_that_cannot_be_indexed_say_where() {
    let err = |vrt: &str| {
        build_from_str(vrt, &["word", "pos"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        err("<s>\na\tX\tY\n</s>\n"),
        "line 2: 3 column(s), expected 2 (word pos)"
    );
    assert_eq!(err("</s>\n"), "line 1: </s> closes no open <s>");
    assert_eq!(
        err("<s>\n<s>\n"),
        "line 2: <s> inside the <s> opened on line 1: elements of one name cannot nest"
    );
    assert_eq!(err("<s>\na\tX\n"), "line 1: <s> is never closed");
    assert_eq!(err("<s a=b>\n"), "line 1: the value of `a` is not quoted");
    assert_eq!(
        err("<text>\n<p>\na\tX\n</text>\n</p>\n"),
        "line 4: </text> closes <text> while <p> inside it is still open"
    );
    // Entities are decoded in tokens and attributes; glue and comments are no tokens.
    let index = build_from_str(
        "<!-- c -->\n<text t=\"a &amp; b\">\n&lt;b&gt;\tX\n<g/>\n&#233;t&#xE9;\tY\n</text>\n",
        &["word", "pos"],
    )
    .expect("indexes");
    assert_eq!(index.n_tokens, 2);
    assert_eq!(index.values(0, 0..2).expect("reads"), ["<b>", "été"]);
    assert_eq!(
        index.region("doc").and_then(|r| r.attr("t", 0)),
        Some("a & b")
    );
}

#[test]
fn association_measures_match_hand_computed_values() {
    // f_xy = 10, f_x = 20, f_y = 50, W = 200 slots, N = 10,000:
    // E = 50 · 200 / 10,000 = 1; logDice = 14 + log2(20 / 70); MI = log2(10);
    // t = (10 − 1) / √10; G² over [[10, 190], [40, 9760]] with E = [[1, 199], [49, 9751]].
    let c = Counts {
        together: 10,
        node: 20,
        frequency: 50,
        window: 200,
        corpus: 10_000,
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(c.logdice(), 14.0 + (20.0f64 / 70.0).log2()));
    assert!(close(c.logdice(), 12.192_645_077_942_396));
    assert!(close(c.mi(), 10f64.log2()));
    assert!(close(c.t(), 9.0 / 10f64.sqrt()));
    let g2 = 2.0
        * (10.0 * (10.0f64).ln()
            + 190.0 * (190.0f64 / 199.0).ln()
            + 40.0 * (40.0f64 / 49.0).ln()
            + 9760.0 * (9760.0f64 / 9751.0).ln());
    assert!(close(c.ll(), g2), "{} {g2}", c.ll());
    assert!(close(c.ll(), 30.238_052_651_637_993), "{}", c.ll());
}

#[test]
fn keywords_follow_simple_maths_and_log_ratio() {
    // Focus: 1,000,000 tokens, `graphe` 100 times (100 per million); reference: 2,000,000
    // tokens, 20 times (10 per million). Simple maths, n = 1: 101 / 11.
    let focus = vec![("graphe".to_string(), 100), ("le".to_string(), 50_000)];
    let reference: rustc_hash::FxHashMap<String, u64> =
        [("graphe".to_string(), 20), ("le".to_string(), 100_000)]
            .into_iter()
            .collect();
    let rows = stats::keywords(&focus, 1_000_000, &reference, 2_000_000, 1.0, 1);
    assert_eq!(rows[0].value, "graphe");
    assert!((rows[0].score - 101.0 / 11.0).abs() < 1e-9);
    assert!((rows[0].log_ratio - 10f64.log2()).abs() < 1e-9);
    assert!((rows[1].score - 1.0).abs() < 1e-9);
    assert!(
        rows[1].ll.abs() < 1e-6,
        "equal relative frequencies: {}",
        rows[1].ll
    );
    // A word absent from the reference: Log Ratio with 0.5 in its place.
    let rows = stats::keywords(&focus, 1_000_000, &Default::default(), 2_000_000, 1.0, 1);
    assert!((rows[1].log_ratio - (100.0f64 / 0.25).log2()).abs() < 1e-9);
}

/// Ids taken in chunks, renumbered with the sorted lexicons' ranks, and postings filled a
/// range of ids at a time: the same index as the one built in memory.
#[test]
fn a_value_pattern_matches_whole_values_whatever_it_holds() {
    let vrt = "<text>\nle\nla\nles\ncela\nlequel\nl\n</text>\n";
    let index = build_from_str(vrt, &["word"]).expect("indexes");
    let run = |q: &str| -> Result<Vec<u32>, String> {
        let query = cql::parse(q).map_err(|e| e.to_string())?;
        let search = Search::new(&index, &query).map_err(|e| e.to_string())?;
        let (hits, _) = search.hits(100).map_err(|e| e.to_string())?;
        Ok(hits.iter().map(|h| h.start).collect())
    };
    assert_eq!(run("[word=\"le|la\"]"), Ok(vec![0, 1]));
    assert_eq!(run("[word=\"(le)|(la)\"]"), Ok(vec![0, 1]));
    // Each of these would escape `^(?:…)$` once wrapped: they are refused, never widened.
    for escape in ["le)|(la", "le)|(.*", "x)|(?:.*", "(?:x)|(y", ")(", "a)(b"] {
        let got = run(&format!("[word=\"{escape}\"]"));
        assert!(
            got.as_ref()
                .is_err_and(|e| e.contains("not a valid regular expression")),
            "{escape}: {got:?}"
        );
    }
}

#[test]
fn an_alternation_of_words_is_one_value_test_with_the_same_hits() {
    let g = generate(&mut Rng(0xa17e_0001), 60);
    let index = index_of(&g);
    let words: Vec<&str> = WORDS.iter().map(|w| w.0).filter(|w| *w != ".").collect();
    // Thousands of alternatives, most of them absent from the corpus.
    let mut alternatives: Vec<String> = (0..3000).map(|i| format!("absent{i}")).collect();
    alternatives.extend(words.iter().map(|w| (*w).to_string()));
    let quoted: Vec<String> = alternatives
        .iter()
        .map(|w| format!("\"{}\"", cql_escape(&regex_syntax::escape(w))))
        .collect();
    let in_token = format!(
        "[{}]",
        quoted
            .iter()
            .map(|q| format!("word={q}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let as_group = format!("({})", quoted.join(" | "));
    let as_regex = format!(
        "[word=\"{}\"]",
        alternatives
            .iter()
            .map(|w| regex_syntax::escape(w))
            .collect::<Vec<_>>()
            .join("|")
    );
    let expected = {
        let q = cql::parse(&as_regex).expect("regex form");
        Search::new(&index, &q)
            .expect("regex form")
            .hits(usize::MAX)
            .expect("runs")
            .0
    };
    assert!(!expected.is_empty());
    for text in [&in_token, &as_group] {
        let q = cql::parse(text).expect("parses");
        assert_eq!(brute_force(&g, &q), expected);
        let search = Search::new(&index, &q).expect("compiles");
        assert_eq!(
            search.predicates(),
            1,
            "one value test for the whole alternation"
        );
        assert_eq!(search.hits(usize::MAX).expect("runs").0, expected);
        assert_eq!(search.count().expect("counts"), expected.len() as u64);
    }
    // Joined by `&`: one test too, the intersection.
    let q = cql::parse(
        "[word=\"graphe|graphes|le\" & word=\"le|la|graphe\" & word!=\"x\" & word!=\"le\"]",
    )
    .expect("parses");
    let search = Search::new(&index, &q).expect("compiles");
    assert_eq!(search.predicates(), 1);
    assert_eq!(
        search.hits(usize::MAX).expect("runs").0,
        brute_force(&g, &q)
    );
}

/// `w` inside a CQL double-quoted value: a quote escaped.
fn cql_escape(w: &str) -> String {
    w.replace('"', "\\\"")
}

#[test]
fn an_interrupt_stops_a_query_while_it_compiles_and_while_it_runs() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let g = generate(&mut Rng(0x1e7e_0002), 2000);
    let index = index_of(&g);
    // A query that scans every position.
    let q = cql::parse("[word!=\"zzz\"] []{0,20} [pos=\"NOUN\"]").expect("parses");
    let asked = Arc::new(AtomicU32::new(0));
    let counter = asked.clone();
    let stop: super::query::Interrupt =
        Arc::new(move || counter.fetch_add(1, Ordering::Relaxed) >= 2);
    let search = Search::with_interrupt(&index, &q, Some(stop)).expect("compiles");
    assert_eq!(search.count(), Err(super::query::QueryError::Interrupted));
    assert!(asked.load(Ordering::Relaxed) >= 3);
    // Never asked to stop: the same hits as without an interrupt.
    let never: super::query::Interrupt = Arc::new(|| false);
    let with = Search::with_interrupt(&index, &q, Some(never)).expect("compiles");
    assert_eq!(
        with.count(),
        Search::new(&index, &q).expect("compiles").count()
    );
}

#[test]
fn single_quotes_and_the_literal_flag_read_as_in_cqp() {
    let vrt = "<text>\nthe\na.b\naxb\n(\nThe\na\\b\n</text>\n";
    let index = build_from_str(vrt, &["word"]).expect("indexes");
    let hits = |q: &str| -> Result<Vec<u32>, String> {
        let query = cql::parse(q).map_err(|e| e.to_string())?;
        let search = Search::new(&index, &query).map_err(|e| e.to_string())?;
        Ok(search
            .hits(100)
            .map_err(|e| e.to_string())?
            .0
            .iter()
            .map(|h| h.start)
            .collect())
    };
    // A single-quoted word alone is a word pattern, as a double-quoted one.
    assert_eq!(cql::parse("'the'"), cql::parse("\"the\""));
    assert_eq!(hits("'the'"), Ok(vec![0]));
    assert_eq!(hits("'the'%c 'a.b'"), Ok(vec![0, 4]));
    assert_eq!(hits("'the'%c 'a.b'%l"), Ok(vec![0]));
    assert_eq!(hits("'the'%c"), Ok(vec![0, 4]));
    // %l: the characters themselves.
    assert_eq!(hits("\"a.b\""), Ok(vec![1, 2, 5]));
    assert_eq!(hits("\"a.b\"%l"), Ok(vec![1]));
    assert_eq!(hits("[word=\"(\"%l]"), Ok(vec![3]));
    assert_eq!(hits("\"THE\"%lc"), Ok(vec![0, 4]));
    assert_eq!(hits("'a\\\\b'%l"), Ok(vec![5]));
    assert!(hits("\"(\"").is_err());
    let err = cql::parse("\"a\"%x").unwrap_err().to_string();
    assert!(err.contains("%l"), "{err}");
}
