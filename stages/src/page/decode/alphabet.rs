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
//! deterministic; keeps at most [`SAMPLE_BYTES`] bytes of text, never a script's.

use whatlang::{Lang, Script};

/// Bytes of text (outside `<…>`) given to the language identifier: enough to name the
/// language of a page, bounded whatever the page.
const SAMPLE_BYTES: usize = 4_000;

/// The language a [`text_sample`] is written in and its script, when the identifier is sure
/// of it.
pub(super) fn language_of(sample: &str) -> Option<(Lang, Script)> {
    let info = whatlang::detect(sample)?;
    info.is_reliable().then(|| (info.lang(), info.script()))
}

/// The non-ASCII lower-case letters of the language a page is written in, if known.
#[cfg(test)]
fn of_text(page: &str) -> Option<&'static str> {
    language_of(&text_sample(page)).and_then(|(lang, _)| of_language(lang))
}

/// Whether `c`, a letter, is outside `alphabet` (compared in lower case). The ordinal
/// indicators and the micro sign (`nº`, `1ª`, `µm`) are letters to Unicode but belong to
/// every Latin-script text.
pub(super) fn foreign(c: char, alphabet: &str) -> bool {
    !c.is_ascii()
        && c.is_alphabetic()
        && !matches!(c, 'ª' | 'º' | 'µ')
        && !c
            .to_lowercase()
            .all(|l| l.is_ascii() || l == '\u{307}' || alphabet.contains(l))
}

/// The text of `sample` outside tags, comments, scripts and style sheets, at most
/// [`SAMPLE_BYTES`] bytes: what a reader of the page sees, not its code.
pub(super) fn text_sample(sample: &str) -> String {
    let mut text = String::new();
    let mut rest = sample;
    while let Some(lt) = rest.find('<') {
        if !push_limited(&mut text, &rest[..lt]) {
            return text;
        }
        let tail = &rest[lt..];
        let head = tail.get(..7).unwrap_or(tail).to_ascii_lowercase();
        let end = if tail.starts_with("<!--") {
            tail.find("-->").map(|i| i + 3)
        } else if head.starts_with("<script") {
            element_end(tail, "</script")
        } else if head.starts_with("<style") {
            element_end(tail, "</style")
        } else {
            tail.find('>').map(|i| i + 1)
        };
        let Some(end) = end else {
            return text;
        };
        text.push(' ');
        rest = &tail[end..];
    }
    push_limited(&mut text, rest);
    text
}

/// The end of an element whose content is not text (`<script>…</script>`), past its closing
/// tag; `close` is in lower case.
fn element_end(tail: &str, close: &str) -> Option<usize> {
    // ASCII lower-casing keeps every byte offset.
    let at = tail.to_ascii_lowercase().find(close)?;
    tail[at..].find('>').map(|i| at + i + 1)
}

/// Appends `part` to `text` up to [`SAMPLE_BYTES`]; false once the sample is full.
fn push_limited(text: &mut String, part: &str) -> bool {
    for c in part.chars() {
        if text.len() + c.len_utf8() > SAMPLE_BYTES {
            return false;
        }
        text.push(c);
    }
    true
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
    fn the_sample_is_the_text_a_reader_sees() {
        let page = "<html><head><script type=\"text/javascript\">var menu = \"<b>x</b>\";\
            </SCRIPT><style>p { color: red }</style><!-- a <b>comment</b> --></head>\
            <body><p>Bonjour <i>à</i> tous</p></body></html>";
        assert_eq!(
            text_sample(page).split_whitespace().collect::<Vec<_>>(),
            ["Bonjour", "à", "tous"]
        );
        // An unclosed script: nothing after it is text.
        assert_eq!(text_sample("mot <script> var x = 1;").trim(), "mot");
        let long = "é".repeat(SAMPLE_BYTES);
        let sample = text_sample(&long);
        assert!(sample.len() <= SAMPLE_BYTES && sample.len() > SAMPLE_BYTES - 2);
        assert!(!foreign('º', "") && !foreign('µ', "") && !foreign('İ', "ı"));
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
