//! The letters a language is written with, for the detector's second opinion among Latin code
//! pages: a decoding that puts letters outside the text's own alphabet (`ð` in Estonian, `Ą` in
//! Romanian, `ė` in Dutch) is less plausible than one that does not.
//!
//! **In:** a sample of decoded text (markup allowed). **Out:** the non-ASCII lower-case letters
//! of its language, or `None` when the language is unknown or unreliable. The Western European
//! languages share one alphabet, the letters they borrow from each other.
//!
//! **Invariants:** each alphabet also holds the letters of the languages the language
//! identifier most often confuses it with (Czech and Slovak, the Scandinavian languages,
//! Estonian and Finnish, the Serbo-Croatian standards), so a confusion there costs nothing;
//! deterministic; keeps at most [`SAMPLE_BYTES`] bytes of text.

use whatlang::{Lang, Script};

/// Bytes of text (outside `<…>`) given to the language identifier: enough to name the
/// language of a page, bounded whatever the page.
const SAMPLE_BYTES: usize = 4_000;

/// The language `sample` is written in and its script, when the identifier is sure of it.
pub(super) fn language_of(sample: &str) -> Option<(Lang, Script)> {
    let text = outside_tags(sample);
    let info = whatlang::detect(&text)?;
    info.is_reliable().then(|| (info.lang(), info.script()))
}

/// The non-ASCII lower-case letters of the language `sample` is written in, if known.
#[cfg(test)]
fn of_text(sample: &str) -> Option<&'static str> {
    language_of(sample).and_then(|(lang, _)| of_language(lang))
}

/// Whether `c`, a letter, is outside `alphabet` (compared in lower case).
pub(super) fn foreign(c: char, alphabet: &str) -> bool {
    !c.is_ascii() && c.is_alphabetic() && !c.to_lowercase().all(|l| alphabet.contains(l))
}

/// The text of `sample` outside tags, at most [`SAMPLE_BYTES`] bytes.
fn outside_tags(sample: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in sample.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
        if text.len() >= SAMPLE_BYTES {
            break;
        }
    }
    text
}

/// The letters of the Western European languages, which borrow each other's words and names
/// freely (`José`, `Muñoz`, `café`, `Ångström`); Icelandic `ð` and `þ` are not among them.
const WESTERN: &str = "áàâäãåçéèêëíìîïñóòôöõúùûüýÿæœøßĳ";

/// Letters per language (lower case, non-ASCII only).
pub(super) fn of_language(lang: Lang) -> Option<&'static str> {
    Some(match lang {
        Lang::Eng
        | Lang::Fra
        | Lang::Deu
        | Lang::Nld
        | Lang::Spa
        | Lang::Por
        | Lang::Ita
        | Lang::Cat
        | Lang::Afr
        | Lang::Swe
        | Lang::Dan
        | Lang::Nob => WESTERN,
        Lang::Fin | Lang::Est => "äöõüåšž",
        Lang::Lav => "āčēģīķļņōŗšūž",
        Lang::Lit => "ąčęėįšųūž",
        Lang::Pol => "ąćęłńóśźż",
        Lang::Ces | Lang::Slk => "áäčďéěíĺľňóôŕřšťúůýž",
        Lang::Slv | Lang::Hrv | Lang::Srp => "čćđšž",
        Lang::Hun => "áéíóöőúüű",
        // Romanian's comma-below letters and the cedilla forms legacy code pages give them.
        Lang::Ron => "ăâîșțşţ",
        Lang::Tur => "çğıöşüâîû",
        Lang::Aze => "çəğıöşü",
        Lang::Epo => "ĉĝĥĵŝŭ",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_alphabet_of_text_and_skips_markup() {
        let estonian = "<p class=\"x\">Käivitab programmi, mis kasutab ühte või mitut \
            faili. Kui faili ei leita, väljastatakse veateade ja programm lõpetab töö.</p>";
        let alphabet = of_text(estonian).expect("Estonian is reliable here");
        assert!(alphabet.contains('õ') && alphabet.contains('š'));
        assert!(foreign('ð', alphabet));
        assert!(!foreign('Š', alphabet));
        assert!(!foreign('k', alphabet));
    }

    #[test]
    fn western_text_borrows_and_short_text_has_no_alphabet() {
        let english = "The program reads every file given on the command line and prints \
            the lines that match the pattern, with their numbers, as José Muñoz wrote.";
        let alphabet = of_text(english).expect("English is reliable here");
        assert!(!foreign('ñ', alphabet) && !foreign('É', alphabet));
        assert!(foreign('ð', alphabet) && foreign('ė', alphabet));
        assert_eq!(of_text("ok"), None);
        assert_eq!(of_text(""), None);
    }
}
