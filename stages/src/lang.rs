//! Language identification of extracted text (whatlang underneath).
//!
//! **In**: a text, typically the clean text of a page.
//! **Out**: a [`LangGuess`] with an ISO 639-1 code where one exists (`fr`), else the ISO 639-3
//! code whatlang gives (`cmn` is mapped to `zh`, `pes` to `fa`).
//! **Invariants**: `None` for text with fewer than [`MIN_LETTERS`] letters, because whatlang
//! guesses wildly on a few words ("merci" comes out Indonesian). `reliable` needs both
//! whatlang's own reliability and at least [`RELIABLE_LETTERS`] letters. Only the first
//! [`MAX_SAMPLE_BYTES`] bytes are examined, which keeps detection cheap on huge pages.

use serde::Serialize;

/// Below this many letters, [`detect`] answers `None`.
pub const MIN_LETTERS: usize = 15;

/// Below this many letters, a guess is never marked reliable.
pub const RELIABLE_LETTERS: usize = 40;

/// Only this many leading bytes of the text are examined.
pub const MAX_SAMPLE_BYTES: usize = 16 * 1024;

/// A language guess.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
