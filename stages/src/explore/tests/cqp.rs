//! CQP's query language beyond token sequences — labels and global constraints, structural
//! tags, whole regions, `containing`, matching strategies — against the brute-force scan on
//! generated corpora, and on hand-checked examples.

use super::super::build::build_from_str;
use super::super::cql::{self, Atom, Compare, Constraint, Containing, Item, Operand, Query};
use super::super::cql::{Reference, Tag, Test, Within};
use super::super::query::{Hit, QueryError, Search, Strategy};
use super::brute::brute_force_with;
use super::{Rng, generate, index_of, random_cond, random_item, random_query};

fn reference(label: &str, attr: &str) -> Reference {
    Reference {
        label: label.into(),
        attr: attr.into(),
    }
}

fn random_constraint(rng: &mut Rng, labels: &[String], depth: u32) -> Constraint {
    let mut names: Vec<String> = labels.to_vec();
    names.extend(["match".to_string(), "matchend".to_string()]);
    let name = rng.pick(&names).clone();
    match if depth > 1 { 0 } else { rng.below(7) } {
        0 | 1 => {
            let attr = *rng.pick(&["lemma", "pos", "word"]);
            let other = rng.pick(&names).clone();
            Constraint::Compare(Compare {
                left: reference(&name, attr),
                right: Operand::Reference(reference(&other, attr)),
                negated: rng.below(3) == 0,
            })
        }
        2 => Constraint::Compare(Compare {
            left: reference(&name, "pos"),
            right: Operand::Pattern(Test {
                attr: String::new(),
                pattern: rng.pick(&["NOUN", "ADJ|DET", "N.*"]).to_string(),
                ignore_case: rng.below(3) == 0,
                ignore_diacritics: false,
                negated: false,
            }),
            negated: rng.below(3) == 0,
        }),
        3 => Constraint::Compare(Compare {
            left: reference(&name, "text_host"),
            right: Operand::Pattern(Test {
                attr: String::new(),
                pattern: "h[02].*".into(),
                ignore_case: false,
                ignore_diacritics: false,
                negated: false,
            }),
            negated: false,
        }),
        4 if !labels.is_empty() => Constraint::Set(rng.pick(labels).clone()),
        5 => Constraint::Not(Box::new(random_constraint(rng, labels, depth + 1))),
        _ => {
            let all = (0..2)
                .map(|_| random_constraint(rng, labels, depth + 1))
                .collect();
            if rng.below(2) == 0 {
                Constraint::And(all)
            } else {
                Constraint::Or(all)
            }
        }
    }
}

fn random_tag(rng: &mut Rng) -> Atom {
    let region = rng.pick(&["s", "p", "text"]).to_string();
    let close = rng.below(2) == 0;
    let attrs = if region == "text" && !close && rng.below(2) == 0 {
        vec![Test {
            attr: "host".into(),
            pattern: "h1.*".into(),
            ignore_case: false,
            ignore_diacritics: false,
            negated: false,
        }]
    } else {
        Vec::new()
    };
    Atom::Tag(Tag {
        region,
        close,
        attrs,
    })
}

/// A random query using labels, constraints, tags, whole regions and `containing`.
fn random_cqp_query(rng: &mut Rng) -> Query {
    let mut q = random_query(rng);
    let mut n = 0;
    for item in q.sequence.iter_mut() {
        if matches!(item.atom, Atom::Token(_)) && rng.below(2) == 0 && n < 2 {
            item.label = Some(["a", "b"][n].to_string());
            n += 1;
        }
    }
    if rng.below(3) == 0 {
        let at = rng.below(q.sequence.len() as u64 + 1) as usize;
        let one = |atom| Item {
            atom,
            min: 1,
            max: Some(1),
            label: None,
        };
        let atom = if rng.below(3) == 0 {
            Atom::Region(Within {
                region: rng.pick(&["s", "p"]).to_string(),
                attrs: Vec::new(),
            })
        } else {
            random_tag(rng)
        };
        q.sequence.insert(at, one(atom));
    }
    let labels = q.labels();
    if rng.below(2) == 0 {
        q.constraint = Some(random_constraint(rng, &labels, 0));
    }
    if rng.below(4) == 0 {
        let mut inner = Query::of_sequence(vec![random_item(rng, 1)]);
        if let Atom::Token(_) = inner.sequence[0].atom {
            inner.sequence[0].atom = Atom::Token(random_cond(rng, 0));
        }
        q.containing.push(Containing {
            negated: rng.below(2) == 0,
            query: Box::new(inner),
        });
    }
    q
}

#[test]
fn labels_constraints_tags_regions_and_strategies_match_the_scan() {
    let mut rng = Rng(0x00c9_f00d_2026_0047);
    let strategies = [
        Strategy::Traditional,
        Strategy::Standard,
        Strategy::Shortest,
        Strategy::Longest,
    ];
    let (mut nonempty, mut tried) = (0, 0);
    for corpus in 0..5 {
        let g = generate(&mut rng, 20 + corpus * 8);
        let index = index_of(&g);
        for _ in 0..100 {
            let q = random_cqp_query(&mut rng);
            let text = q.to_string();
            assert_eq!(cql::parse(&text).as_ref(), Ok(&q), "{text}");
            let strategy = *rng.pick(&strategies);
            let search = Search::new(&index, &q)
                .expect(&text)
                .with_strategy(strategy);
            let (hits, _) = search.hits(usize::MAX).expect(&text);
            assert_eq!(
                hits,
                brute_force_with(&g, &q, strategy),
                "{text} ({strategy:?})"
            );
            assert_eq!(search.count().expect(&text), hits.len() as u64, "{text}");
            tried += 1;
            nonempty += usize::from(!hits.is_empty());
        }
    }
    assert!(nonempty * 3 > tried, "{nonempty} of {tried}");
}

const TREE: &str = "<text id=\"a\" host=\"x.test\">\n<s>\nthe\tDET\tthe\nold\tADJ\told\n\
                    green\tADJ\tgreen\ntree\tNOUN\ttree\nfell\tVERB\tfall\n</s>\n<s>\n\
                    green\tADJ\tgreen\ntrees\tNOUN\ttree\ngrow\tVERB\tgrow\n</s>\n</text>\n\
                    <text id=\"b\" host=\"y.test\">\n<s>\ntree\tNOUN\ttree\nand\tCCONJ\tand\n\
                    tree\tNOUN\ttree\n</s>\n</text>\n";

fn hits_of(q: &str, strategy: Strategy) -> Result<Vec<(u32, u32)>, QueryError> {
    let index = build_from_str(TREE, &["word", "pos", "lemma"]).expect("indexes");
    let query = cql::parse(q)?;
    let search = Search::new(&index, &query)?.with_strategy(strategy);
    let (hits, _) = search.hits(100)?;
    Ok(hits
        .iter()
        .map(|&Hit { start, end }| (start, end))
        .collect())
}

#[test]
fn the_four_strategies_read_as_cqp_describes_them() {
    let q = "[pos=\"ADJ\"]* [pos=\"NOUN\"]";
    // old green tree / green tree / tree; green trees / trees; tree; tree.
    assert_eq!(
        hits_of(q, Strategy::Traditional).expect(q),
        [(1, 4), (2, 4), (3, 4), (5, 7), (6, 7), (8, 9), (10, 11)]
    );
    assert_eq!(
        hits_of(q, Strategy::Standard).expect(q),
        [(1, 4), (5, 7), (8, 9), (10, 11)]
    );
    assert_eq!(
        hits_of(q, Strategy::Shortest).expect(q),
        [(3, 4), (6, 7), (8, 9), (10, 11)]
    );
    let q = "[pos=\"NOUN\"] [pos=\"CCONJ|VERB\"]?";
    assert_eq!(
        hits_of(q, Strategy::Longest).expect(q),
        [(3, 5), (6, 8), (8, 10), (10, 11)]
    );
}

#[test]
fn labels_tags_regions_and_containing_find_what_a_linguist_expects() {
    let t = Strategy::Traditional;
    // The same lemma twice, two tokens apart.
    let q = "a:[] [] b:[] :: a.lemma = b.lemma";
    assert_eq!(hits_of(q, t).expect(q), [(8, 11)]);
    // A noun first in its sentence; a verb last in its sentence.
    let q = "<s> [pos=\"NOUN\"]";
    assert_eq!(hits_of(q, t).expect(q), [(8, 9)]);
    let q = "[pos=\"VERB\"] </s>";
    assert_eq!(hits_of(q, t).expect(q), [(4, 5), (7, 8)]);
    // CQP's `<text_host="y.*">` and BlackLab's `<text host="y.*">`.
    for q in ["<text_host=\"y.*\"> []", "<text host=\"y.*\"> []"] {
        assert_eq!(hits_of(q, t).expect(q), [(8, 9)]);
    }
    // Whole sentences holding (not holding) a verb.
    let q = "<s/> containing [pos=\"VERB\"]";
    assert_eq!(hits_of(q, t).expect(q), [(0, 5), (5, 8)]);
    let q = "<s/> not containing [pos=\"VERB\"]";
    assert_eq!(hits_of(q, t).expect(q), [(8, 11)]);
    // A document attribute of the hit.
    let q = "[lemma=\"tree\"] :: match.text_host = \"y.*\"";
    assert_eq!(hits_of(q, t).expect(q), [(8, 9), (10, 11)]);
    // `@` is the target label; an optional labelled token that matched.
    let q = "[pos=\"ADJ\"] @[pos=\"NOUN\"] :: target.word = \"trees\"";
    assert_eq!(hits_of(q, t).expect(q), [(5, 7)]);
    let q = "[pos=\"ADJ\"] a:[pos=\"ADJ\"]? [pos=\"NOUN\"] :: a";
    assert_eq!(hits_of(q, t).expect(q), [(1, 4)]);
}

#[test]
fn mistakes_in_cqp_queries_name_their_position() {
    let at = |q: &str| match cql::parse(q) {
        Err(e) => (e.at, e.message),
        Ok(parsed) => panic!("{q} parsed as {parsed}"),
    };
    let (pos, message) = at("a:[] [] :: b.lemma = a.lemma");
    assert_eq!(pos, 12);
    assert!(message.contains("`b` is not defined"), "{message}");
    let (pos, message) = at("<s>+ []");
    assert_eq!(pos, 4);
    assert!(message.contains("cannot be repeated"), "{message}");
    let (_, message) = at("<s> </s>");
    assert!(message.contains("needs a token pattern"), "{message}");
    let (_, message) = at("match:[] []");
    assert!(message.contains("set by the engine"), "{message}");
    let (_, message) = at("[] not [word=\"x\"]");
    assert!(message.contains("`containing` after `not`"), "{message}");
    let (pos, _) = at("a:[] :: a.lemma = ");
    assert_eq!(pos, 19);
    // Unknown attributes and regions are named with what exists.
    let err = |q: &str| hits_of(q, Strategy::Traditional).expect_err(q).to_string();
    assert!(err("a:[] :: a.colour = \"x\"").contains("a.colour"));
    assert!(err("a:[] :: a.text_colour = \"x\"").contains("text_host"));
    assert!(err("<chapter> []").contains("no region `chapter`"));
}

#[test]
fn labels_that_can_be_set_in_too_many_ways_are_refused_not_run_for_ever() {
    let vrt: String = std::iter::once("<text id=\"a\">\n<s>\n".to_string())
        .chain((0..60).map(|i| format!("w{i}\tX\tw\n")))
        .chain(std::iter::once("</s>\n</text>\n".to_string()))
        .collect();
    let index = build_from_str(&vrt, &["word", "pos", "lemma"]).expect("indexes");
    // Twenty optional labelled tokens: 2^20 ways to set them over the same tokens.
    let labels: Vec<String> = (0..20).map(|i| format!("l{i}:[]?")).collect();
    let q = format!("{} [] :: l0.lemma != l1.lemma", labels.join(" "));
    let query = cql::parse(&q).expect("parses");
    let search = Search::new(&index, &query).expect("compiles");
    assert_eq!(search.hits(10).map(|_| ()), Err(QueryError::TooManyPaths));
}
