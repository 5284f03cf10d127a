//! Tests of the keyword formula: the language (lexing, parsing, precedence, errors), folding,
//! counting and evaluation on prepared texts, and the round trip through `Display`.

use super::*;

#[test]
fn token_counts_are_the_folded_tokens_counted() {
    for options in [
        FormulaOptions::default(),
        FormulaOptions {
            case_sensitive: true,
            keep_diacritics: true,
        },
    ] {
        let text = "Les Calques, les calques et l'ÉTÉ : œuvre 2024 -- calques";
        let mut expected: std::collections::BTreeMap<String, u32> = Default::default();
        for token in folded_tokens(text, options) {
            *expected.entry(token).or_insert(0) += 1;
        }
        let prepared = PreparedText::new(text, options);
        let got: Vec<(String, u32)> = prepared
            .token_counts()
            .map(|(t, n)| (t.to_string(), n))
            .collect();
        assert_eq!(got, expected.into_iter().collect::<Vec<_>>());
    }
    assert_eq!(
        PreparedText::new("", FormulaOptions::default())
            .token_counts()
            .count(),
        0
    );
}

fn f(src: &str) -> Formula {
    match Formula::parse(src) {
        Ok(formula) => formula,
        Err(e) => panic!("{src:?} should parse: {e}"),
    }
}

fn err(src: &str) -> FormulaError {
    match Formula::parse(src) {
        Ok(formula) => panic!("{src:?} should not parse, got {formula}"),
        Err(e) => e,
    }
}

fn sat(src: &str, text: &str) -> bool {
    f(src).evaluate(text).satisfied
}

#[test]
fn excluded_terms_are_only_the_top_level_negations() {
    let ex = |src: &str| f(src).excluded_terms();
    assert_eq!(
        ex(r#"(NON "graffiti") ET ("graphe" OU "graphes")"#),
        vec!["graffiti"]
    );
    assert_eq!(ex(r#"graphe -tag -"art mural""#), vec!["tag", "art mural"]);
    assert_eq!(
        ex(r#"graphe AND NOT (tag OR graff*)"#),
        vec!["tag", "graff*"]
    );
    assert_eq!(ex("NOT tag"), vec!["tag"]);
    // Negations that do not exclude a term from every accepted page.
    assert!(ex("graphe AND NOT (tag AND mur)").is_empty());
    assert!(ex("graphe OR NOT tag").is_empty());
    assert!(ex("graphe AND NOT (tag NEAR/3 mur)").is_empty());
    assert!(ex("graphe AND NOT NOT tag").is_empty());
}

#[test]
fn seed_formula_in_french_english_and_symbols_is_one_tree() {
    let seed = f(r#"(NON "graffiti") ET ("graphe" OU "graphes")"#);
    assert_eq!(
        seed.to_string(),
        r#"(NOT "graffiti") AND ("graphe" OR "graphes")"#
    );
    for variant in [
        r#"(NOT "graffiti") AND ("graphe" OR "graphes")"#,
        "(NOT graffiti) AND (graphe OR graphes)",
        "-graffiti & (graphe | graphes)",
        "-graffiti (graphe || graphes)",
        "NON graffiti && (graphe OU graphes)",
        "NON « graffiti » ET (“graphe” OU graphes)",
    ] {
        assert_eq!(f(variant), seed, "{variant}");
    }
    assert!(seed.evaluate("La théorie des graphes.").satisfied);
    assert!(seed.evaluate("Un GRAPHE orienté").satisfied);
    assert!(!seed.evaluate("Des graphes et des GRAFFITI").satisfied);
    // Whole words only: the plural is another word.
    assert!(seed.evaluate("Des graphes et des graffitis").satisfied);
    assert!(!seed.evaluate("Des graphes et un graffiti").satisfied);
    assert!(!seed.evaluate("Un graphique").satisfied);
}

#[test]
fn precedence_not_near_and_or() {
    assert_eq!(f("a OR b AND c").to_string(), r#""a" OR ("b" AND "c")"#);
    assert_eq!(f("a AND b OR c").to_string(), r#"("a" AND "b") OR "c""#);
    assert_eq!(f("NOT a AND b").to_string(), r#"(NOT "a") AND "b""#);
    assert_eq!(f("NOT a OR b").to_string(), r#"(NOT "a") OR "b""#);
    assert_eq!(
        f("a NEAR/3 b AND c").to_string(),
        r#"("a" NEAR/3 "b") AND "c""#
    );
    assert_eq!(
        f("a OR b NEAR c").to_string(),
        r#""a" OR ("b" NEAR/10 "c")"#
    );
    assert_eq!(
        f("a b OR c d").to_string(),
        r#"("a" AND "b") OR ("c" AND "d")"#
    );
    assert_eq!(f("(a OR b) c").to_string(), r#"("a" OR "b") AND "c""#);
    assert_eq!(f("NOT NOT a").to_string(), r#"NOT (NOT "a")"#);
    assert_eq!(f("--a").to_string(), r#"NOT (NOT "a")"#);
    assert_eq!(f("NOT (a OR b)").to_string(), r#"NOT ("a" OR "b")"#);
    // Same-operator groups are flattened.
    assert_eq!(
        f("(a AND b) AND (c AND d)").to_string(),
        r#""a" AND "b" AND "c" AND "d""#
    );
    assert_eq!(f("((a))").to_string(), r#""a""#);
    // Semantics agree with the precedence.
    assert!(sat("a OR b AND c", "a"));
    assert!(!sat("a OR b AND c", "b"));
    assert!(sat("NOT a OR b", "zzz"));
    assert!(!sat("NOT a AND b", "a b"));
    assert!(sat("NOT (a AND b)", "a"));
}

#[test]
fn operator_words_only_in_upper_case() {
    let formula = f("chat et chien");
    assert_eq!(formula.to_string(), r#""chat" AND "et" AND "chien""#);
    assert!(!formula.evaluate("chat, chien").satisfied);
    assert!(formula.evaluate("le chat et le chien").satisfied);
    assert_eq!(f("vrai ou faux").positive_terms(), ["vrai", "ou", "faux"]);
    assert_eq!(f("non").positive_terms(), ["non"]);
    assert_eq!(f(r#""ET""#).positive_terms(), ["ET"]);
    assert!(sat(r#""ET""#, "Et alors ?"));
    assert_eq!(
        f("Et Ou Non Near").positive_terms(),
        ["Et", "Ou", "Non", "Near"]
    );
    assert_eq!(f("near/5").to_string(), r#""near/5""#);
}

#[test]
fn phrases_and_token_boundaries() {
    let phrase = f(r#""théorie des graphes""#);
    assert!(phrase.evaluate("La Théorie des Graphes, enfin.").satisfied);
    assert!(!phrase.evaluate("des graphes de la théorie").satisfied);
    assert!(!phrase.evaluate("théorie, graphes").satisfied);
    // Apostrophes (straight and curly) and hyphens separate tokens, in text and terms.
    assert!(sat("l'image", "Ouvrez l’image."));
    assert!(sat("image", "Ouvrez l'image."));
    assert!(!sat("limage", "Ouvrez l'image."));
    assert!(sat("porte-monnaie", "un porte monnaie"));
    assert!(sat(r#""porte monnaie""#, "un porte-monnaie"));
    assert!(sat("monnaie", "un porte-monnaie"));
    // A word only matches whole tokens.
    assert!(!sat("graphe", "paragraphe"));
    assert!(!sat("graph", "graphe"));
    assert!(sat("gdm3", "use gdm3 as a display manager"));
    assert!(!sat("gdm", "use gdm3 as a display manager"));
    // Typographic quotes work as quotes; quote characters inside do not matter.
    assert_eq!(f("« théorie des graphes »"), phrase);
    assert_eq!(f("“théorie des graphes”"), phrase);
    assert_eq!(f(r#"«dit "bonjour"»"#).to_string(), r#""dit bonjour""#);
    // Counting: every occurrence of the phrase.
    assert_eq!(f(r#""a b""#).evaluate("a b a b x a b").hits, 3);
    assert_eq!(f(r#""a a""#).evaluate("a a a").hits, 2);
}

#[test]
fn wildcards() {
    let graph = f("graph*");
    assert!(graph.evaluate("les graphes").satisfied);
    assert!(graph.evaluate("Graphique").satisfied);
    assert!(graph.evaluate("graph").satisfied);
    assert!(!graph.evaluate("paragraphe").satisfied);
    assert!(!graph.evaluate("grap").satisfied);
    assert_eq!(
        graph.evaluate("graphe, graphes, grapheur, geographie").hits,
        3
    );
    assert_eq!(f(r#""graph*""#), graph);
    assert_eq!(graph.to_string(), r#""graph*""#);
    assert_eq!(graph.positive_terms(), ["graph*"]);
    // Inside phrases, each word may end with `*`.
    let phrase = f(r#""théorie des graph*""#);
    assert!(phrase.evaluate("la théorie des graphes orientés").satisfied);
    assert!(!phrase.evaluate("la théorie des ensembles").satisfied);
    assert!(sat(r#""th* des graphes""#, "la théorie des graphes"));
    // Folding applies to the prefix too.
    assert!(sat("élé*", "ELEPHANT"));
    assert!(sat("ele*", "Éléphant"));
    // Hits of a wildcard term with phrase anchor on a multi-id range are counted once each.
    assert_eq!(f(r#""x*""#).evaluate("xa xb xa y xc").hits, 4);
    assert_eq!(f(r#""a x*""#).evaluate("a xb a xa a y a xc").hits, 3);
}

#[test]
fn near() {
    let near2 = f(r#""graphe" NEAR/2 "sommet""#);
    assert!(near2.evaluate("graphe sommet").satisfied);
    assert!(near2.evaluate("graphe à sommet").satisfied);
    assert!(!near2.evaluate("graphe à un sommet").satisfied);
    assert!(near2.evaluate("sommet du graphe").satisfied);
    assert!(!near2.evaluate("sommet de ce graphe").satisfied);
    assert!(!near2.evaluate("graphe").satisfied);
    assert!(!near2.evaluate("").satisfied);
    // Default distance is 10 tokens.
    let near = f("graphe NEAR sommet");
    assert_eq!(near.to_string(), r#""graphe" NEAR/10 "sommet""#);
    assert!(near.evaluate("graphe 1 2 3 4 5 6 7 8 9 sommet").satisfied);
    assert!(
        !near
            .evaluate("graphe 1 2 3 4 5 6 7 8 9 10 sommet")
            .satisfied
    );
    // Phrases: distance from the end of one to the start of the other.
    let phrases = f(r#""théorie des graphes" NEAR/1 "orientés*""#);
    assert!(phrases.evaluate("théorie des graphes orientés").satisfied);
    assert!(
        !phrases
            .evaluate("théorie des graphes non orientés")
            .satisfied
    );
    let before = f(r#""a b" NEAR/2 "c d""#);
    assert!(before.evaluate("c d x a b").satisfied);
    assert!(!before.evaluate("c d x y a b").satisfied);
    // Overlapping occurrences do not count: a term near itself needs two occurrences.
    let twice = f("graphe NEAR/3 graphe");
    assert!(!twice.evaluate("un graphe").satisfied);
    assert!(twice.evaluate("graphe et graphe").satisfied);
    assert!(!sat(r#""a b" NEAR/5 b"#, "a b"));
    // Hits: occurrences of the left operand that have a partner.
    assert_eq!(near2.evaluate("graphe sommet graphe x x x graphe").hits, 2);
    assert_eq!(
        near2.evaluate("graphe sommet").matched,
        [r#""graphe" NEAR/2 "sommet""#]
    );
    // NEAR binds tighter than AND, looser than nothing else but NOT.
    assert!(sat("a NEAR/1 b c", "c x a b"));
    assert!(!sat("a NEAR/1 b c", "a b"));
    assert!(sat("NOT (a NEAR/1 b)", "a x b"));
    assert!(!sat("NOT (a NEAR/1 b)", "b a"));
}

#[test]
fn folding_default_and_options() {
    assert!(sat("élève", "ELEVE"));
    assert!(sat("ELEVE", "élève"));
    assert!(sat("cœur", "COEUR"));
    assert!(sat("coeur", "Cœur"));
    assert!(sat("Œuvre", "oeuvre"));
    assert!(sat("ex aequo", "ex æquo"));
    assert!(sat("straße", "STRASSE"));
    assert!(sat("strasse", "Straße"));
    // A decomposed accent neither splits the word nor defeats the match.
    assert!(sat("élève", "e\u{301}le\u{300}ve"));
    assert!(sat("e\u{301}le\u{300}ve", "élève"));
    assert_eq!(
        PreparedText::new("e\u{301}le\u{300}ve", FormulaOptions::default()).token_count(),
        1
    );

    let case = FormulaOptions {
        case_sensitive: true,
        keep_diacritics: false,
    };
    let calc = Formula::parse_with("Calc", case).ok();
    assert!(
        calc.as_ref()
            .is_some_and(|c| c.evaluate("LibreOffice Calc").satisfied)
    );
    assert!(calc.as_ref().is_some_and(|c| !c.evaluate("calc").satisfied));
    assert!(calc.as_ref().is_some_and(|c| c.evaluate("Cälc").satisfied));
    assert_eq!(calc.map(|c| c.options()), Some(case));

    let accents = FormulaOptions {
        case_sensitive: false,
        keep_diacritics: true,
    };
    let cote = Formula::parse_with("côte", accents).ok();
    assert!(
        cote.as_ref()
            .is_some_and(|c| c.evaluate("la CÔTE").satisfied)
    );
    assert!(
        cote.as_ref()
            .is_some_and(|c| c.evaluate("la co\u{302}te").satisfied)
    );
    assert!(
        cote.as_ref()
            .is_some_and(|c| !c.evaluate("la cote").satisfied)
    );
    let coeur = Formula::parse_with("cœur", accents).ok();
    assert!(
        coeur
            .as_ref()
            .is_some_and(|c| !c.evaluate("coeur").satisfied)
    );
    assert!(coeur.as_ref().is_some_and(|c| c.evaluate("CŒUR").satisfied));

    let exact = FormulaOptions {
        case_sensitive: true,
        keep_diacritics: true,
    };
    let both = Formula::parse_with("Élève", exact).ok();
    assert!(both.as_ref().is_some_and(|c| c.evaluate("Élève").satisfied));
    assert!(
        both.as_ref()
            .is_some_and(|c| !c.evaluate("élève").satisfied)
    );
    assert!(
        both.as_ref()
            .is_some_and(|c| !c.evaluate("Eleve").satisfied)
    );
}

#[test]
fn prepared_text_serves_formulas_with_other_options() {
    let text = PreparedText::new("LibreOffice Calc, la côte", FormulaOptions::default());
    assert_eq!(text.token_count(), 4);
    let insensitive = f("calc AND cote");
    assert!(insensitive.evaluate_prepared(&text).satisfied);
    let exact = FormulaOptions {
        case_sensitive: true,
        keep_diacritics: true,
    };
    let strict_lower = Formula::parse_with("calc", exact).ok();
    assert!(strict_lower.is_some_and(|c| !c.evaluate_prepared(&text).satisfied));
    let strict = Formula::parse_with("Calc AND côte", exact).ok();
    assert!(strict.is_some_and(|c| c.evaluate_prepared(&text).satisfied));
    // The default index is still the one used by default formulas.
    assert!(insensitive.evaluate_prepared(&text).satisfied);
}

#[test]
fn matched_hits_and_term_lists() {
    let formula = f(
        r#"graphe* OR (sommet AND -graffiti) OR Graphe* OR "arête" NEAR/3 sommet OR NOT NOT arc"#,
    );
    let verdict = formula.evaluate("Un graphe, deux graphes, un sommet, une arête et un arc.");
    assert!(verdict.satisfied);
    // `Graphe*` is the same search as `graphe*`: listed and counted once.
    assert_eq!(
        verdict.matched,
        [
            r#""graphe*""#,
            r#""sommet""#,
            r#""arête" NEAR/3 "sommet""#,
            r#""arc""#
        ]
    );
    // graphe* 2 + sommet 1 + NEAR 1 + arc 1 (double negation is positive); graffiti is not
    // counted, being negated.
    assert_eq!(verdict.hits, 5);
    assert_eq!(
        formula.positive_terms(),
        ["graphe*", "sommet", "Graphe*", "arête", "arc"]
    );
    assert_eq!(formula.negative_terms(), ["graffiti"]);
    let with_graffiti = formula.evaluate("graffiti");
    assert_eq!(with_graffiti.matched, [r#""graffiti""#]);
    assert_eq!(with_graffiti.hits, 0);
    assert!(!with_graffiti.satisfied);
    // A clause both negated and not is counted.
    let both = f("chat OR NOT chat");
    assert_eq!(both.evaluate("chat chat").hits, 2);
    assert_eq!(both.positive_terms(), ["chat"]);
    assert_eq!(both.negative_terms(), ["chat"]);
    // NEAR operands are terms.
    assert_eq!(f("-(a NEAR b)").negative_terms(), ["a", "b"]);
}

#[test]
fn verdict_serialises() {
    let verdict = f("graphe").evaluate("un graphe");
    let json = serde_json::to_string(&verdict).ok();
    assert_eq!(
        json.as_deref(),
        Some(r#"{"satisfied":true,"matched":["\"graphe\""],"hits":1}"#)
    );
    let options = FormulaOptions {
        case_sensitive: true,
        keep_diacritics: false,
    };
    let json = serde_json::to_string(&options).unwrap_or_default();
    let back: Option<FormulaOptions> = serde_json::from_str(&json).ok();
    assert_eq!(back, Some(options));
}

#[test]
fn error_columns_and_messages() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "empty"),
        ("   ", 1, "empty"),
        ("(graphe", 1, "never closed"),
        ("a AND (b OR (c)", 7, "never closed"),
        ("graphe)", 7, "no matching ("),
        ("(a) b)", 6, "no matching ("),
        ("()", 1, "empty parentheses"),
        ("a ()", 3, "empty parentheses"),
        (r#"a "graphe"#, 3, "unterminated quote"),
        ("« graphe", 1, "unterminated quote"),
        ("graphe »", 8, "closing quote"),
        (r#""""#, 1, "empty quotes"),
        (r#"a "  ""#, 3, "empty quotes"),
        ("AND a", 1, "no operand on its left"),
        ("a AND", 3, "no operand on its right"),
        ("a OU", 3, "`OU` has no operand on its right"),
        ("a ET OU b", 6, "a term is missing"),
        ("(a OR) b", 4, "no operand on its right"),
        ("a &", 3, "no operand on its right"),
        ("| a", 1, "no operand on its left"),
        ("NOT", 1, "no operand on its right"),
        ("a -", 3, "`-` (NOT) has no operand"),
        ("gr*phe", 3, "end of a word"),
        (r#"a "théorie des gr*phes""#, 18, "end of a word"),
        ("*", 1, "right after"),
        ("graph**", 7, "right after"),
        ("a * b", 3, "right after"),
        ("a NEAR/0 b", 3, "bad NEAR distance"),
        ("a NEAR/x b", 3, "bad NEAR distance"),
        ("a NEAR/ b", 3, "bad NEAR distance"),
        ("a NEAR/1001 b", 3, "bad NEAR distance"),
        ("a NEAR/99999999999 b", 3, "bad NEAR distance"),
        ("a NEAR/+5 b", 3, "bad NEAR distance"),
        ("a NEAR", 3, "no operand on its right"),
        ("NEAR b", 1, "no operand on its left"),
        ("(a OR b) NEAR c", 10, "on its left"),
        ("a NEAR (b c)", 3, "on its right"),
        ("NOT a NEAR b", 7, "NOT (a NEAR b)"),
        ("a NEAR b NEAR c", 10, "cannot be chained"),
        ("...", 1, "no letter or digit"),
        (r#"a "' - '""#, 3, "no letter or digit"),
        ("éé ... b", 4, "no letter or digit"),
    ];
    for &(src, column, fragment) in cases {
        let e = err(src);
        assert_eq!(e.column, column, "{src:?}: {e}");
        assert!(
            e.message.contains(fragment),
            "{src:?}: {e} lacks {fragment:?}"
        );
        assert!(e.to_string().starts_with(&format!("column {column}: ")));
    }
}

#[test]
fn display_round_trips() {
    let sources = [
        r#"(NON "graffiti") ET ("graphe" OU "graphes")"#,
        "a OR b AND c NEAR/3 d",
        "--a -(b | c) & d*",
        r#""théorie des graph*" NEAR "sommet" OR « l'arête »"#,
        "porte-monnaie ((x OR y) AND (z OR (w AND v)))",
        r#"«dit "bonjour"» (a) NOT (b NEAR/1 c)"#,
        "A a Â â",
        "NOT NOT NOT x OR y",
        "a AND (b AND (c OR (d OR e)))",
    ];
    for options in [
        FormulaOptions::default(),
        FormulaOptions {
            case_sensitive: true,
            keep_diacritics: true,
        },
    ] {
        for src in sources {
            let Ok(first) = Formula::parse_with(src, options) else {
                panic!("{src:?} should parse");
            };
            let shown = first.to_string();
            let again = Formula::parse_with(&shown, options);
            assert_eq!(again.as_ref(), Ok(&first), "{src:?} shown as {shown}");
            assert_eq!(again.map(|g| g.to_string()), Ok(shown));
        }
    }
    assert_eq!(
        "graphe OU graphes".parse::<Formula>(),
        Formula::parse("graphe OR graphes")
    );
}

#[test]
fn hostile_inputs_give_errors_not_crashes() {
    let deep_open = "(".repeat(10_000);
    assert_eq!(err(&deep_open).column, MAX_DEPTH + 1);
    let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&deep).message.contains("nested too deeply"));
    let nots = format!("{}a", "NOT ".repeat(10_000));
    assert!(err(&nots).message.contains("nested too deeply"));
    let dashes = format!("{}a", "-".repeat(10_000));
    assert_eq!(err(&dashes).column, MAX_DEPTH + 1);
    assert!(err(&")".repeat(10_000)).message.contains("no matching"));
    // Exactly at the limit is accepted.
    let at_limit = format!("{}a{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(sat(&at_limit, "a"));
    // Wide formulas are fine.
    let wide = (0..10_000)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" OR ");
    let wide = f(&wide);
    assert!(wide.evaluate("x w9999 y").satisfied);
    assert_eq!(wide.positive_terms().len(), 10_000);
    // Odd characters in formula and text.
    for src in [
        "a\u{0}b",
        "\u{FEFF}graphe",
        "a\u{301}",
        "\u{301}a",
        "x\tOR\ny",
        "🦀 OR a",
    ] {
        let _ = Formula::parse(src).map(|g| g.evaluate("\u{0}\u{301}🦀 a\u{FFFD}"));
    }
    // Pseudo-random formulas over the special characters: parse or fail, never panic, and
    // whatever parses round-trips.
    let alphabet: Vec<char> = "ab é*()\"«»“”&|-NOTANDORETNEAR/5 \u{301}'"
        .chars()
        .collect();
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..5_000 {
        let mut src = String::new();
        for _ in 0..(state % 17) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            src.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if let Ok(formula) = Formula::parse(&src) {
            let _ = formula.evaluate("a b é aé ab");
            let again = Formula::parse(&formula.to_string());
            assert_eq!(again.as_ref(), Ok(&formula), "{src:?}");
        } else if let Err(e) = Formula::parse(&src) {
            assert!(
                e.column >= 1 && e.column <= src.chars().count().max(1),
                "{src:?}: {e}"
            );
        }
    }
}

#[test]
fn empty_and_symbol_only_texts() {
    let text = PreparedText::new("", FormulaOptions::default());
    assert_eq!(text.token_count(), 0);
    assert!(f("NOT a").evaluate_prepared(&text).satisfied);
    assert!(!f("a*").evaluate_prepared(&text).satisfied);
    assert!(!f(r#""a b" NEAR c"#).evaluate_prepared(&text).satisfied);
    let symbols = PreparedText::new("... — « » ’ - * ( )", FormulaOptions::default());
    assert_eq!(symbols.token_count(), 0);
    assert_eq!(
        PreparedText::new("l'an 2000 n'a", FormulaOptions::default()).token_count(),
        5
    );
}

#[test]
fn everything_is_satisfied_by_any_text_with_no_hits() {
    let f = Formula::everything(FormulaOptions::default());
    for text in ["", "graphe", "n'importe quoi, vraiment"] {
        let v = f.evaluate(text);
        assert!(v.satisfied, "{text:?}");
        assert_eq!((v.hits, v.matched.len()), (0, 0));
    }
    assert!(f.excluded_terms().is_empty());
    assert!(!Formula::parse("graphe").unwrap().accepts_everything());
}
