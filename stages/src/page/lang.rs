//! Language identification of extracted text (whatlang underneath).
//!
//! **In**: a text, typically the clean text of a page.
//! **Out**: a [`LangGuess`] with an ISO 639-1 code where one exists (`fr`), else the ISO 639-3
//! code whatlang gives (`cmn` is mapped to `zh`, `pes` to `fa`).
//! **Invariants**: `None` for text with fewer than [`MIN_LETTERS`] letters, because whatlang
//! guesses wildly on a few words ("merci" comes out Indonesian). `reliable` needs both
//! whatlang's own reliability and at least [`RELIABLE_LETTERS`] letters. Only the first
//! [`MAX_SAMPLE_BYTES`] bytes are examined, which keeps detection cheap on huge pages.

use serde::{Deserialize, Serialize};

/// Below this many letters, [`detect`] answers `None`.
pub const MIN_LETTERS: usize = 15;

/// Below this many letters, a guess is never marked reliable.
pub const RELIABLE_LETTERS: usize = 40;

/// Only this many leading bytes of the text are examined.
pub const MAX_SAMPLE_BYTES: usize = 16 * 1024;

/// A language guess.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LangGuess {
    /// ISO 639-1 code where it exists ("fr"), else ISO 639-3 ("ceb").
    pub code: String,
    /// whatlang's confidence, 0.0 to 1.0.
    pub confidence: f64,
    /// Whether the guess can be trusted (see the module invariants).
    pub reliable: bool,
}

/// Guess the language of `text`; `None` on empty or too short text.
pub fn detect(text: &str) -> Option<LangGuess> {
    let sample = truncate_at_char_boundary(text, MAX_SAMPLE_BYTES);
    let letters = sample.chars().filter(|c| c.is_alphabetic()).count();
    if letters < MIN_LETTERS {
        return None;
    }
    let info = whatlang::detect(sample)?;
    let code = to_iso639_1(info.lang().code())
        .map(str::to_owned)
        .unwrap_or_else(|| info.lang().code().to_owned());
    Some(LangGuess {
        code,
        confidence: info.confidence(),
        reliable: info.is_reliable() && letters >= RELIABLE_LETTERS,
    })
}

/// The primary language of a language tag such as an HTML `lang` attribute: `"fr-FR"` gives
/// `"fr"`, `"FRE"` or `"fra"` give `"fr"`, `"x-klingon"`, `""` or `"12"` give `None`.
pub fn primary_language(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    if !(2..=3).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    if primary.len() == 3
        && let Some(two) = to_iso639_1(&primary)
    {
        return Some(two.to_owned());
    }
    Some(primary)
}

/// Languages a URL may name, by ISO 639-1 code: the common languages of the web. Codes that
/// are also common path words or abbreviations (`id`, `my`, `or`, `am`, `be`, `eu`, `ms`…) are
/// left out, because [`url_language`] reads bare path segments.
const URL_LANGUAGES: &[&str] = &[
    "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "en", "eo", "es", "et", "fa", "fi", "fr", "he",
    "hi", "hr", "hu", "hy", "it", "ja", "ka", "ko", "lt", "lv", "mk", "nb", "nl", "nn", "no", "pl",
    "pt", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh",
];

/// Query parameters whose value is the language of the page.
const LANGUAGE_PARAMETERS: &[&str] = &["lang", "language", "hl", "locale", "lng"];

/// The language a URL names, if it names one in one of the usual ways: the first path segment
/// (`/de/…`, `/pt-br/…`, `/zh_CN/…`), a language part in the file name next to the HTML
/// extension (`index.de.html`, Apache's `index.html.de`), or a `lang`, `language`, `hl`,
/// `locale` or `lng` query parameter. Region and script subtags are dropped (`pt-br` → `pt`).
///
/// Why: a multilingual site links every page to its versions in every other language, and
/// those links read like the page's own (same anchors, same words around them); a crawl that
/// wants one language can tell them apart only by the URL before fetching them.
pub fn url_language(url: &url::Url) -> Option<&'static str> {
    let known = |tag: &str| -> Option<&'static str> {
        let mut parts = tag.split(['-', '_']);
        let primary = parts.next()?;
        // A region (`br`, `CN`) or script (`Hans`) subtag at most.
        let rest: Vec<&str> = parts.collect();
        if rest.len() > 1 || rest.iter().any(|r| !(2..=4).contains(&r.len())) {
            return None;
        }
        if !rest
            .iter()
            .all(|r| r.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return None;
        }
        URL_LANGUAGES
            .iter()
            .find(|code| primary.eq_ignore_ascii_case(code))
            .copied()
    };
    let mut segments = url.path_segments().into_iter().flatten();
    let first = segments.next().unwrap_or_default();
    let last = url.path_segments().and_then(|mut s| s.next_back());
    // A bare first segment `/de/…` (never the file itself: `/de` alone may be anything).
    if url.path().len() > first.len() + 1
        && let Some(code) = known(first)
    {
        return Some(code);
    }
    if let Some(file) = last {
        let parts: Vec<&str> = file.split('.').collect();
        if parts.len() >= 3 {
            let n = parts.len();
            let html = |ext: &str| {
                ["html", "htm", "shtml", "xhtml", "php"]
                    .iter()
                    .any(|e| ext.eq_ignore_ascii_case(e))
            };
            if html(parts[n - 1])
                && let Some(code) = known(parts[n - 2])
            {
                return Some(code);
            }
            if html(parts[n - 2])
                && let Some(code) = known(parts[n - 1])
            {
                return Some(code);
            }
        }
    }
    url.query_pairs()
        .filter(|(k, _)| {
            LANGUAGE_PARAMETERS
                .iter()
                .any(|p| k.eq_ignore_ascii_case(p))
        })
        .find_map(|(_, v)| known(&v))
}

/// ISO 639-1 code of an ISO 639-3 (or 639-2/B) code, for the languages whatlang knows and a
/// few bibliographic variants met in `lang` attributes.
fn to_iso639_1(code3: &str) -> Option<&'static str> {
    Some(match code3 {
        "afr" => "af",
        "aka" => "ak",
        "amh" => "am",
        "ara" => "ar",
        "aze" => "az",
        "bel" => "be",
        "ben" => "bn",
        "bul" => "bg",
        "cat" => "ca",
        "ces" | "cze" => "cs",
        "cmn" | "zho" | "chi" => "zh",
        "cym" | "wel" => "cy",
        "dan" => "da",
        "deu" | "ger" => "de",
        "ell" | "gre" => "el",
        "eng" => "en",
        "epo" => "eo",
        "est" => "et",
        "fin" => "fi",
        "fra" | "fre" => "fr",
        "guj" => "gu",
        "heb" => "he",
        "hin" => "hi",
        "hrv" => "hr",
        "hun" => "hu",
        "hye" | "arm" => "hy",
        "ind" => "id",
        "ita" => "it",
        "jav" => "jv",
        "jpn" => "ja",
        "kan" => "kn",
        "kat" | "geo" => "ka",
        "khm" => "km",
        "kor" => "ko",
        "lat" => "la",
        "lav" => "lv",
        "lit" => "lt",
        "mal" => "ml",
        "mar" => "mr",
        "mkd" | "mac" => "mk",
        "mya" | "bur" => "my",
        "nep" => "ne",
        "nld" | "dut" => "nl",
        "nob" => "nb",
        "ori" => "or",
        "pan" => "pa",
        "pes" | "fas" | "per" => "fa",
        "pol" => "pl",
        "por" => "pt",
        "ron" | "rum" => "ro",
        "rus" => "ru",
        "sin" => "si",
        "slk" | "slo" => "sk",
        "slv" => "sl",
        "sna" => "sn",
        "spa" => "es",
        "srp" => "sr",
        "swe" => "sv",
        "tam" => "ta",
        "tel" => "te",
        "tgl" => "tl",
        "tha" => "th",
        "tuk" => "tk",
        "tur" => "tr",
        "ukr" => "uk",
        "urd" => "ur",
        "uzb" => "uz",
        "vie" => "vi",
        "yid" => "yi",
        "zul" => "zu",
        _ => return None,
    })
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn truncate_at_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {

    #[test]
    fn urls_name_their_language_in_the_usual_ways() {
        let lang = |u: &str| url_language(&url::Url::parse(u).expect("test URL"));
        assert_eq!(lang("http://a.test/de/handbuch/index.html"), Some("de"));
        assert_eq!(lang("http://a.test/pt-BR/docs/"), Some("pt"));
        assert_eq!(lang("http://a.test/zh_Hans/a"), Some("zh"));
        assert_eq!(
            lang("http://lilypond.test/Documentation/web/index.ca.html"),
            Some("ca")
        );
        assert_eq!(lang("http://a.test/manual/index.html.ja"), Some("ja"));
        assert_eq!(lang("http://a.test/page.php?id=3&lang=es"), Some("es"));
        assert_eq!(lang("http://a.test/search?hl=fr-CA&q=x"), Some("fr"));
        assert_eq!(lang("http://a.test/fr/index.html"), Some("fr"));
        // Not languages: a bare file named like a code, words that are also codes left out,
        // a file name with a code not next to the extension, an unknown code.
        assert_eq!(lang("http://a.test/de"), None);
        assert_eq!(lang("http://a.test/id/12345"), None);
        assert_eq!(lang("http://a.test/my/account"), None);
        assert_eq!(lang("http://a.test/v1.de.tar.gz"), None);
        assert_eq!(lang("http://a.test/index.xx.html"), None);
        assert_eq!(lang("http://a.test/de-berlin-mitte/x"), None);
        assert_eq!(lang("http://a.test/docs/index.html"), None);
        assert_eq!(lang("http://a.test/?lang=klingon"), None);
    }
    use super::*;

    #[test]
    fn french_paragraph_is_reliable_fr() {
        let text = "Le vent souffle fort sur la côte depuis ce matin et les pêcheurs sont restés \
                    au port en attendant que la tempête se calme.";
        let guess = detect(text).expect("present");
        assert_eq!(guess.code, "fr");
        assert!(guess.reliable);
        assert!(guess.confidence > 0.5);
    }

    #[test]
    fn other_languages_map_to_two_letter_codes() {
        let en = "The committee will publish its final report on the state of the railway \
                  network early next year, after a long public consultation.";
        assert_eq!(detect(en).expect("detected").code, "en");
        let cs = "Výbor zveřejní svou závěrečnou zprávu o stavu železniční sítě na začátku \
                  příštího roku, po dlouhé veřejné konzultaci.";
        assert_eq!(detect(cs).expect("detected").code, "cs");
        let de = "Der Ausschuss wird seinen Abschlussbericht über den Zustand des \
                  Schienennetzes Anfang nächsten Jahres nach einer langen Anhörung vorlegen.";
        assert_eq!(detect(de).expect("detected").code, "de");
    }

    #[test]
    fn too_short_or_empty_gives_none() {
        assert_eq!(detect(""), None);
        assert_eq!(detect("merci"), None);
        assert_eq!(detect("la maison"), None);
        assert_eq!(detect("1234 5678 9012 !!! ???"), None);
    }

    #[test]
    fn short_text_is_never_reliable() {
        if let Some(guess) = detect("bonjour tout le monde ici") {
            assert!(!guess.reliable);
        }
    }

    #[test]
    fn huge_text_is_sampled_without_panic() {
        let text = "é".repeat(MAX_SAMPLE_BYTES);
        let _ = detect(&text);
        assert_eq!(truncate_at_char_boundary("aé", 2), "a");
    }

    #[test]
    fn primary_language_of_tags() {
        assert_eq!(primary_language("fr-FR").as_deref(), Some("fr"));
        assert_eq!(primary_language(" EN_us ").as_deref(), Some("en"));
        assert_eq!(primary_language("fre").as_deref(), Some("fr"));
        assert_eq!(primary_language("ces").as_deref(), Some("cs"));
        assert_eq!(primary_language("haw").as_deref(), Some("haw"));
        assert_eq!(primary_language("x-klingon"), None);
        assert_eq!(primary_language(""), None);
        assert_eq!(primary_language("12"), None);
    }
}
