//! Tests of the tokenizer: TreeTagger's fixtures word by word, each language's elisions, clitics
//! and protected words, sentence ends, markup, and linear time on hostile input.

use super::*;

fn tok(text: &str, lang: &str) -> Vec<String> {
    tokenize(text, lang)
}

fn strs(tokens: &[String]) -> Vec<&str> {
    tokens.iter().map(String::as_str).collect()
}

#[test]
fn clitic_tables_are_consistent() {
    for language in [
        Language::French,
        Language::English,
        Language::German,
        Language::Italian,
        Language::Spanish,
        Language::Neutral,
    ] {
        let rules = language.rules();
        let longest = rules.suffix_clitics.iter().map(|c| c.chars().count()).max();
        assert_eq!(rules.suffix_longest, longest.unwrap_or(0), "{language:?}");
        let mut starts: Vec<char> = rules
            .suffix_clitics
            .iter()
            .filter_map(|c| c.chars().next())
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut declared = rules.suffix_starts.to_vec();
        declared.sort_unstable();
        assert_eq!(declared, starts, "{language:?}");
        let longest = rules.prefix_clitics.iter().map(|c| c.chars().count()).max();
        assert_eq!(rules.prefix_longest, longest.unwrap_or(0), "{language:?}");
        let lowercase = |c: &&str| c.chars().all(|ch| !ch.is_uppercase());
        assert!(rules.suffix_clitics.iter().all(lowercase), "{language:?}");
        assert!(rules.prefix_clitics.iter().all(lowercase), "{language:?}");
        assert!(
            rules.prefix_clitics.iter().all(|c| c.ends_with('\'')),
            "{language:?}"
        );
    }
}

#[test]
fn language_codes() {
    assert_eq!(Language::from_code("fr"), Language::French);
    assert_eq!(Language::from_code(" FR-ca "), Language::French);
    assert_eq!(Language::from_code("fra"), Language::French);
    assert_eq!(Language::from_code("en_GB"), Language::English);
    assert_eq!(Language::from_code("de"), Language::German);
    assert_eq!(Language::from_code("it"), Language::Italian);
    assert_eq!(Language::from_code("es"), Language::Spanish);
    assert_eq!(Language::from_code("nl"), Language::Neutral);
    assert_eq!(Language::from_code(""), Language::Neutral);
}

#[test]
fn french_elisions_and_clitics() {
    let t = tok("L'État a-t-il dit qu'aujourd'hui Jusqu'où lorsqu’il", "fr");
    assert_eq!(
        strs(&t),
        [
            "L'",
            "État",
            "a",
            "-t-il",
            "dit",
            "qu'",
            "aujourd'hui",
            "Jusqu'",
            "où",
            "lorsqu’",
            "il"
        ]
    );
    let t = tok("Donne-le-moi, prends-en. Celle-là ; VIENS-TU", "fr");
    assert_eq!(
        strs(&t),
        [
            "Donne", "-le", "-moi", ",", "prends", "-en", ".", "Celle", "-là", ";", "VIENS", "-TU"
        ]
    );
}

#[test]
fn french_listed_words() {
    let t = tok(
        "c'est-à-dire lui-même soi-même D'accord d'accord. jusqu'à",
        "fr",
    );
    assert_eq!(
        strs(&t),
        [
            "c'est-à-dire",
            "lui-même",
            "soi",
            "-même",
            "D'accord",
            "d'accord",
            ".",
            "jusqu'",
            "à"
        ]
    );
    // The list is TreeTagger's: singular `vous-même` is not in it, `Rendez-vous` is (in these
    // two case forms only), and an entry is looked up as written.
    let t = tok(
        "vous-même vous-mêmes Rendez-vous RENDEZ-VOUS Reportez-vous d'après d’après",
        "fr",
    );
    assert_eq!(
        strs(&t),
        [
            "vous",
            "-même",
            "vous-mêmes",
            "Rendez-vous",
            "RENDEZ",
            "-VOUS",
            "Reportez",
            "-vous",
            "d'après",
            "d’",
            "après"
        ]
    );
}

#[test]
fn periods_and_abbreviations() {
    let t = tok(
        "M. Dupont (cf. p. 12), etc. U.S.A. 13.2.1. 15/03/2006.",
        "fr",
    );
    assert_eq!(
        strs(&t),
        [
            "M.",
            "Dupont",
            "(",
            "cf",
            ".",
            "p.",
            "12",
            ")",
            ",",
            "etc",
            ".",
            "U.S.A.",
            "13.2.1",
            ".",
            "15/03/2006",
            "."
        ]
    );
    let t = tok("(Impress et Draw). fin.) x,. ..", "fr");
    assert_eq!(
        strs(&t),
        [
            "(", "Impress", "et", "Draw", ")", ".", "fin", ".", ")", "x", ",", ".", ".", "."
        ]
    );
}

#[test]
fn ellipsis_and_sentence_punctuation() {
    let t = tok("orientées... enfin?Oui;non !!", "fr");
    assert_eq!(
        strs(&t),
        [
            "orientées",
            "...",
            "enfin",
            "?",
            "Oui",
            ";",
            "non",
            "!",
            "!"
        ]
    );
}

#[test]
fn quotes_and_brackets() {
    let t = tok("«Oui», “non” [a] {b} 'c' ¿Qué? 12% x…", "fr");
    assert_eq!(
        strs(&t),
        [
            "«", "Oui", "»", ",", "“", "non", "”", "[", "a", "]", "{", "b", "}", "'", "c", "'",
            "¿", "Qué", "?", "12", "%", "x", "…"
        ]
    );
}

#[test]
fn sgml_tags_are_tokens() {
    let t = tok(
        "Team <deity@lists.debian.org> x<b>gras</b>y (<< 1.5) a\t<a\thref='x'>",
        "fr",
    );
    assert_eq!(
        strs(&t),
        [
            "Team",
            "<deity@lists.debian.org>",
            "x",
            "<b>",
            "gras",
            "</b>",
            "y",
            "(",
            "<<",
            "1.5",
            ")",
            "a",
            "<a href='x'>"
        ]
    );
    assert!(is_markup(&t[1]));
    assert!(!is_markup("<<"));
    assert!(!is_markup("<"));
}

#[test]
fn thorn_and_y_diaeresis_are_letters() {
    assert_eq!(
        strs(&tok("L'Haÿ-les-Roses þing", "fr")),
        ["L'", "Haÿ-les-Roses", "þing"]
    );
}

#[test]
fn english_clitics_and_abbreviations() {
    let t = tok(
        "Don't worry, John's cat can't; they'll go. I'm Mr. Smith's friend",
        "en",
    );
    assert_eq!(
        strs(&t),
        [
            "Do", "n't", "worry", ",", "John", "'s", "cat", "ca", "n't", ";", "they", "'ll", "go",
            ".", "I", "'m", "Mr.", "Smith", "'s", "friend"
        ]
    );
    let t = tok(
        "Dr. Who, e.g. at 5 p.m., vs. Acme Inc. and Ph.D. students, etc.",
        "en",
    );
    assert_eq!(
        strs(&t),
        [
            "Dr.", "Who", ",", "e.g.", "at", "5", "p.m.", ",", "vs.", "Acme", "Inc.", "and",
            "Ph.D.", "students", ",", "etc."
        ]
    );
    // French clitic rules do not apply to English and vice versa.
    assert_eq!(strs(&tok("package's", "fr")), ["package's"]);
    assert_eq!(strs(&tok("l'interface", "en")), ["l'interface"]);
}

#[test]
fn italian_elisions_and_abbreviations() {
    let t = tok(
        "L'Italia dell'anno, un'amica e quest'uomo ecc. Sig. Rossi c’è",
        "it",
    );
    assert_eq!(
        strs(&t),
        [
            "L'", "Italia", "dell'", "anno", ",", "un'", "amica", "e", "quest'", "uomo", "ecc.",
            "Sig.", "Rossi", "c’", "è"
        ]
    );
}

#[test]
fn german_abbreviations_and_ordinals() {
    let t = tok("z.B. am 3. Mai, usw. Hr. Müller o.ä. im Jahr 2000.", "de");
    assert_eq!(
        strs(&t),
        [
            "z.B.", "am", "3.", "Mai", ",", "usw.", "Hr.", "Müller", "o.ä.", "im", "Jahr", "2000."
        ]
    );
    // Only German keeps ordinals.
    assert_eq!(strs(&tok("3.", "fr")), ["3", "."]);
}

#[test]
fn spanish_abbreviations() {
    let t = tok(
        "¡Hola! El Sr. García y la Sra. Pérez, p.ej. en EE.UU. dámelo",
        "es",
    );
    assert_eq!(
        strs(&t),
        [
            "¡", "Hola", "!", "El", "Sr.", "García", "y", "la", "Sra.", "Pérez", ",", "p.ej.",
            "en", "EE.UU.", "dámelo"
        ]
    );
}

#[test]
fn neutral_language_has_no_list_nor_clitics() {
    let t = tok("Mr. l'a don't etc. A.B.", "nl");
    assert_eq!(strs(&t), ["Mr", ".", "l'a", "don't", "etc", ".", "A.B."]);
}

#[test]
fn tokenize_into_appends() {
    let mut out = vec!["avant".to_owned()];
    tokenize_into("deux mots", "fr", &mut out);
    tokenize_into("", "fr", &mut out);
    assert_eq!(strs(&out), ["avant", "deux", "mots"]);
}

#[test]
fn hostile_inputs_do_not_panic_and_keep_every_character() {
    let samples = [
        "",
        "   \n\t\r\n",
        "\u{FEFF}Début",
        "(",
        ")",
        "().",
        "(((a)))",
        "--x--",
        "-",
        "'''",
        "l'",
        "'l'",
        ".",
        "..",
        "....",
        "?!?!",
        "<",
        ">",
        "<>",
        "<<>>",
        "a<b",
        "\u{0}\u{7}é\u{301}",
        "İ-LÀ",
        "x-t-",
        "…….",
        "«»",
        "a\u{A0}b\u{2009}c\u{3000}d",
    ];
    for sample in samples {
        for lang in ["fr", "en", "de", "it", "es", "xx"] {
            let tokens = tok(sample, lang);
            assert!(
                tokens.iter().all(|t| !t.is_empty()),
                "{sample:?} {tokens:?}"
            );
            assert!(
                tokens
                    .iter()
                    .all(|t| is_markup(t) || !t.chars().any(char::is_whitespace)),
                "{sample:?} {tokens:?}"
            );
            let joined: String = tokens
                .concat()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let expected: String = sample
                .trim_start_matches('\u{FEFF}')
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            assert_eq!(joined, expected, "{sample:?} {tokens:?}");
            let _ = sentence_ends(&tokens, lang);
        }
    }
}

#[test]
fn pathological_words_stay_linear() {
    let started = std::time::Instant::now();
    let opening = "(".repeat(200_000) + "a";
    assert_eq!(tok(&opening, "fr").len(), 200_001);
    let closing = "a".to_owned() + &")".repeat(200_000);
    assert_eq!(tok(&closing, "fr").len(), 200_001);
    let quotes = "«".repeat(100_000) + "a" + &"»".repeat(100_000);
    assert_eq!(tok(&quotes, "fr").len(), 200_001);
    let dotted = "a.".repeat(200_000) + "-t-il";
    assert_eq!(tok(&dotted, "fr").len(), 2);
    let long = "x".repeat(1_000_000) + "...";
    assert_eq!(tok(&long, "fr").len(), 2);
    let tags = "<a<".repeat(100_000);
    assert_eq!(tok(&tags, "fr").len(), 1);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

fn ends(text: &str, lang: &str) -> Vec<String> {
    let tokens = tok(text, lang);
    sentence_ends(&tokens, lang)
        .into_iter()
        .map(|i| tokens[..=i].join(" "))
        .collect()
}

#[test]
fn sentence_ends_french() {
    let tokens = tok(
        concat!(
            "M. Dupont viendrait ? « Oui », dit-il. Voir (cf. Martin) la fig. 3 ",
            "et les arêtes... enfin. Fin !"
        ),
        "fr",
    );
    let found = sentence_ends(&tokens, "fr");
    let before: Vec<&str> = found.iter().map(|&i| tokens[i - 1].as_str()).collect();
    assert_eq!(
        before,
        ["viendrait", "-il", "enfin", "Fin"],
        "{tokens:?} {found:?}"
    );
    assert_eq!(found.last(), Some(&(tokens.len() - 1)));
}

#[test]
fn sentence_ends_include_closing_quotes() {
    let e = ends("Il dit « Non. » Puis il part (vraiment.) Ensuite", "fr");
    assert_eq!(e.len(), 2);
    assert!(e[0].ends_with("Non . »"));
    assert!(e[1].ends_with("vraiment . )"));
    assert!(ends("Pas de fin", "fr").is_empty());
    assert!(ends("", "fr").is_empty());
}

#[test]
fn sentence_ends_other_languages() {
    let e = ends("Mr. Smith left. He said \"why?\" later. Done!", "en");
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e[1].ends_with("later ."), "{e:?}");
    let e = ends("Am 3. Mai kam er. Im Jahr 2000.", "de");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[1].ends_with("2000."));
}
