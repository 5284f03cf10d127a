//! Word sketches against counts made by hand on a small tagged corpus, the shipped grammars
//! read, and grammar mistakes named with their line.

use super::super::build::build_from_str;
use super::super::cql;
use super::super::query::Search;
use super::{Grammar, Options, Table, log_dice, shipped, sketch};

const CORPUS: &str = "<text id=\"a\" host=\"x.test\">\n\
<s>\nle\tDET\tle\ngraphe\tNOUN\tgraphe\norienté\tADJ\torienté\nrelie\tVERB\trelier\n\
les\tDET\tle\nnœuds\tNOUN\tnœud\n.\tPUNCT\t.\n</s>\n\
<s>\nun\tDET\tun\ngrand\tADJ\tgrand\ngraphe\tNOUN\tgraphe\norienté\tADJ\torienté\n.\tPUNCT\t.\n</s>\n\
<s>\nle\tDET\tle\ngraphe\tNOUN\tgraphe\nconnexe\tADJ\tconnexe\ncontient\tVERB\tcontenir\n\
des\tDET\tun\narbres\tNOUN\tarbre\net\tCCONJ\tet\ndes\tDET\tun\nforêts\tNOUN\tforêt\n</s>\n\
<s>\norienté\tADJ\torienté\n</s>\n</text>\n";

fn options() -> Options {
    Options {
        lemma_attr: "lemma".into(),
        min_freq: 1,
        top: 20,
    }
}

fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables
        .iter()
        .find(|t| t.relation == name)
        .unwrap_or_else(|| panic!("no relation {name}"))
}

#[test]
fn a_sketch_counts_relations_as_counted_by_hand() {
    let index = build_from_str(CORPUS, &["word", "pos", "lemma"]).expect("indexes");
    let grammar = Grammar::parse(shipped("fr").expect("French grammar")).expect("reads");
    let tables = sketch(&index, &grammar, "graphe", &options(), None).expect("runs");
    // graphe orienté (twice), grand graphe, graphe connexe: f_x = 4.
    let m = table(&tables, "modifier");
    assert_eq!(m.keyword_hits, 4);
    let got: Vec<(&str, u64, u64)> = m
        .rows
        .iter()
        .map(|r| (r.lemma.as_str(), r.f_xy, r.f_y))
        .collect();
    assert_eq!(got, [("orienté", 2, 3), ("connexe", 1, 1), ("grand", 1, 1)]);
    assert!((m.rows[0].log_dice - (14.0 + (4.0f64 / 7.0).log2())).abs() < 1e-12);
    assert!((m.rows[1].log_dice - (14.0 + (2.0f64 / 5.0).log2())).abs() < 1e-12);
    assert_eq!(log_dice(2, 4, 3), m.rows[0].log_dice);
    // graphe as the adjective's side: nothing.
    assert_eq!(table(&tables, "modifies").keyword_hits, 0);
    // Each collocate's query finds exactly its f_xy hits (the concordance one click away).
    for t in &tables {
        for r in &t.rows {
            let q = cql::parse(&r.query).expect(&r.query);
            let n = Search::new(&index, &q)
                .expect(&r.query)
                .count()
                .expect("counts");
            assert_eq!(n, r.f_xy, "{} {}: {}", t.relation, r.lemma, r.query);
        }
    }
    // A symmetric relation: each noun is the other's collocate.
    for (a, b) in [("arbre", "forêt"), ("forêt", "arbre")] {
        let tables = sketch(&index, &grammar, a, &options(), None).expect("runs");
        let t = table(&tables, "et_ou");
        assert_eq!((t.keyword_hits, t.rows[0].lemma.as_str()), (1, b));
    }
    // A verb's object and its dual.
    let tables = sketch(&index, &grammar, "relier", &options(), None).expect("runs");
    assert_eq!(table(&tables, "object").rows[0].lemma, "nœud");
    let tables = sketch(&index, &grammar, "nœud", &options(), None).expect("runs");
    assert_eq!(table(&tables, "object_of").rows[0].lemma, "relier");
}

#[test]
fn both_shipped_grammars_read_and_mistakes_name_their_line() {
    for language in ["fr", "en"] {
        let g = Grammar::parse(shipped(language).expect("shipped")).expect(language);
        assert!(g.relations.len() >= 6, "{language}");
        assert!(g.relations.iter().all(|r| r.within.as_deref() == Some("s")));
    }
    let error = |text: &str| Grammar::parse(text).expect_err(text);
    let e = error("=x\n[pos=\"NOUN\"] 2:[]\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("no 1: here"), "{e}");
    let e = error("# c\n*DUAL\n=a\n1:[] 2:[]\n");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("a/b"), "{e}");
    assert_eq!(error("1:[] 2:[]\n").line, 1);
    let e = error("=x\n\n1:[pos=\"NOUN\" 2:[]\n");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("at character"), "{e}");
    let e = error("=x\n1:[] 2:[] within s\n");
    assert!(e.message.contains("STRUCTLIMIT"), "{e}");
    assert!(error("=x\n").message.contains("no pattern"));
    assert!(error("*TRINARY\n=x\n1:[] 2:[]\n").message.contains("*DUAL"));
}
