//! The language of each paragraph of a document, for mixed-language pages (a French manual
//! with untranslated English sections).
//!
//! **In**: a document's paragraphs in order (text, and whether to detect on it at all) and the
//! document's own language. The two halves can run apart: [`own_languages`] (detection, the
//! costly part) once per page, [`inherit`] again on what is left after paragraphs are removed.
//! **Out**: one [`ParagraphLang`] per paragraph: a language code (or none), and whether it was
//! detected on the paragraph itself or inherited.
//!
//! **Rule**: a paragraph gets its *own* language when [`lang::detect`] is reliable on it — at
//! least [`lang::RELIABLE_LETTERS`] (40) letters and whatlang's own reliability test — and it is
//! not preformatted (code, commands and file listings are not prose in any language). Other
//! paragraphs (short headings, labels, `Ctrl+Shift`, unsure guesses) *inherit*: the language
//! of the nearest own-language paragraphs before and after it when they agree, or of the only
//! one there is; when the two differ, or there is none, the document's language. When that
//! inherited language differs from the document's (or, if they agree, from the caller's
//! preferred language, the corpus language), the short text itself arbitrates between just
//! those two (whatlang restricted to them, on any text with at least
//! [`MIN_ARBITRATION_LETTERS`] letters): in a French manual, a translated heading `Lumière
//! douce` inside an untranslated English section stays French, `Linear light` goes with its
//! English neighbours. A short line between a French and an English paragraph follows the
//! document.
//!
//! **Invariants**: one output per input, in order; never panics; deterministic.

use serde::Serialize;

use crate::page::lang;

/// Letters a short paragraph needs before it arbitrates between its neighbours' language and
/// the document's (below, it follows the neighbours).
pub const MIN_ARBITRATION_LETTERS: usize = 4;

/// A paragraph handed to [`paragraph_languages`].
#[derive(Debug, Clone, Copy)]
pub struct ParagraphText<'a> {
    /// The text.
    pub text: &'a str,
    /// Detect on this paragraph (false for preformatted text: it inherits).
    pub detect: bool,
}

/// The language of one paragraph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParagraphLang {
    /// ISO 639-1 code (or whatlang's 639-3 code), `None` when unknown.
    pub code: Option<String>,
    /// Detected on the paragraph itself (`false`: inherited, see the module rule).
    pub own: bool,
}

/// The language of each paragraph (see the module rule): [`own_languages`], then
/// [`inherit`].
pub fn paragraph_languages(
    paragraphs: &[ParagraphText<'_>],
    document: Option<&str>,
) -> Vec<ParagraphLang> {
    let texts: Vec<&str> = paragraphs.iter().map(|p| p.text).collect();
    inherit(&own_languages(paragraphs), &texts, document, None)
}

/// Which of two languages (ISO 639-1 codes) a short text is closer to, by whatlang restricted
/// to the two; `None` when whatlang knows neither code or finds nothing.
fn closer_of(text: &str, a: &str, b: &str) -> Option<String> {
    let to_lang = |code: &str| {
        whatlang::Lang::all()
            .iter()
            .copied()
            .find(|l| lang::primary_language(l.code()).as_deref() == Some(code))
    };
    let (la, lb) = (to_lang(a)?, to_lang(b)?);
    let info = whatlang::Detector::with_allowlist(vec![la, lb]).detect(text)?;
    Some(if info.lang() == la { a } else { b }.to_owned())
}

/// The language each paragraph shows on its own (`None`: too short, unsure, or not to be
/// detected). This is the costly half; [`inherit`] can then be run again on a subset (after
/// other paragraphs were removed) without detecting anew.
pub fn own_languages(paragraphs: &[ParagraphText<'_>]) -> Vec<Option<String>> {
    paragraphs
        .iter()
        .map(|p| {
            // Below the reliable length whatlang's answer is never used: skip the work.
            if !p.detect
                || p.text.chars().filter(|c| c.is_alphabetic()).count() < lang::RELIABLE_LETTERS
            {
                return None;
            }
            lang::detect(p.text).filter(|g| g.reliable).map(|g| g.code)
        })
        .collect()
}

/// Fills in the paragraphs without an own language from their neighbours or the document
/// (see the module rule). `texts[i]` is the text of paragraph `i` (for arbitration; missing
/// texts follow the neighbours); `preferred` is the language a short text may be claimed for
/// when neighbours and document agree on another one.
pub fn inherit(
    own: &[Option<String>],
    texts: &[&str],
    document: Option<&str>,
    preferred: Option<&str>,
) -> Vec<ParagraphLang> {
    // The nearest own language at or before each index, and at or after it.
    let mut before: Vec<Option<&str>> = Vec::with_capacity(own.len());
    let mut last = None;
    for code in own {
        if let Some(code) = code {
            last = Some(code.as_str());
        }
        before.push(last);
    }
    let mut after: Vec<Option<&str>> = vec![None; own.len()];
    let mut next = None;
    for (i, code) in own.iter().enumerate().rev() {
        if let Some(code) = code {
            next = Some(code.as_str());
        }
        after[i] = next;
    }
    own.iter()
        .enumerate()
        .map(|(i, code)| {
            if let Some(code) = code {
                return ParagraphLang {
                    code: Some(code.clone()),
                    own: true,
                };
            }
            let neighbours = match (before[i], after[i]) {
                (Some(a), Some(b)) if a == b => Some(a),
                (Some(a), None) | (None, Some(a)) => Some(a),
                _ => None,
            };
            let Some(inherited) = neighbours.or(document) else {
                return ParagraphLang {
                    code: None,
                    own: false,
                };
            };
            let rival = [document, preferred]
                .into_iter()
                .flatten()
                .find(|r| *r != inherited);
            let code = match rival {
                Some(rival) => texts
                    .get(i)
                    .filter(|t| {
                        t.chars().filter(|c| c.is_alphabetic()).count() >= MIN_ARBITRATION_LETTERS
                    })
                    .and_then(|t| closer_of(t, inherited, rival))
                    .unwrap_or_else(|| inherited.to_owned()),
                None => inherited.to_owned(),
            };
            ParagraphLang {
                code: Some(code),
                own: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FR: &str = "Le calque est une feuille transparente posée sur l’image : on peut \
        peindre dessus sans toucher aux autres calques, puis changer son opacité.";
    const EN: &str = "A layer is a transparent sheet laid over the image: you can paint on \
        it without touching the other layers, then change its opacity.";

    fn p(text: &str) -> ParagraphText<'_> {
        ParagraphText { text, detect: true }
    }

    fn codes(out: &[ParagraphLang]) -> Vec<Option<&str>> {
        out.iter().map(|l| l.code.as_deref()).collect()
    }

    #[test]
    fn long_paragraphs_get_their_own_language() {
        let out = paragraph_languages(&[p(FR), p(EN)], Some("fr"));
        assert_eq!(codes(&out), vec![Some("fr"), Some("en")]);
        assert!(out.iter().all(|l| l.own));
    }

    #[test]
    fn short_paragraphs_inherit_from_agreeing_neighbours_else_the_document() {
        // Labels of fewer than four letters: no arbitration, the neighbours decide.
        let out = paragraph_languages(
            &[
                p("F1"),
                p(EN),
                p("GPL"),
                p(EN),
                p("Ctrl"),
                p(FR),
                p("Astuce"),
            ],
            Some("fr"),
        );
        assert_eq!(
            codes(&out),
            vec![
                Some("en"), // only a neighbour after: English
                Some("en"),
                Some("en"), // between two English paragraphs
                Some("en"),
                Some("fr"), // between English and French: the document
                Some("fr"),
                Some("fr"), // only a neighbour before: French
            ]
        );
        assert!(!out[0].own && !out[2].own && !out[4].own);
    }

    #[test]
    fn short_translated_headings_in_an_english_section_stay_french() {
        // From the French GIMP manual (`layer-mode-group-contrast.html`): translated headings
        // and captions between untranslated English paragraphs.
        let en2 = "Soft light is not related to Hard light in anything but the name, but it \
            does tend to make the edges softer and the colors not so bright.";
        for (short, expected) in [
            ("Lumière douce", "fr"),
            (
                "Figure 8.25. Exemple pour le mode de calque « Superposer »",
                "fr",
            ),
            ("Extraction de grain", "fr"),
            ("Linear light", "en"),
            ("Top layer at 100% opacity using « Soft Light » mode.", "en"),
            ("Figure 8.28. Example for layer mode « Vivid light »", "en"),
        ] {
            let out = paragraph_languages(&[p(EN), p(short), p(en2)], Some("fr"));
            assert_eq!(out[1].code.as_deref(), Some(expected), "{short}");
            // In a page that is English as a whole, the corpus language can claim them too.
            let own = own_languages(&[p(EN), p(short), p(en2)]);
            let out = inherit(&own, &[EN, short, en2], Some("en"), Some("fr"));
            assert_eq!(out[1].code.as_deref(), Some(expected), "{short}");
        }
    }

    #[test]
    fn preformatted_text_inherits() {
        let code = ParagraphText {
            text: "apt-get install gimp gimp-help-fr gimp-data-extras --no-install-recommends",
            detect: false,
        };
        let out = paragraph_languages(&[p(FR), code, p(FR)], Some("fr"));
        assert_eq!(out[1].code.as_deref(), Some("fr"));
        assert!(!out[1].own);
    }

    #[test]
    fn nothing_detected_falls_back_to_the_document_or_none() {
        let out = paragraph_languages(&[p("OK"), p("12")], Some("fr"));
        assert_eq!(codes(&out), vec![Some("fr"), Some("fr")]);
        let out = paragraph_languages(&[p("OK")], None);
        assert_eq!(codes(&out), vec![None]);
        assert!(paragraph_languages(&[], Some("fr")).is_empty());
    }

    #[test]
    fn inheritance_can_be_redone_on_a_subset() {
        let own = own_languages(&[p(EN), p("OK"), p(FR)]);
        assert_eq!(own, vec![Some("en".into()), None, Some("fr".into())]);
        let texts = [EN, "OK", FR];
        assert_eq!(
            inherit(&own, &texts, Some("fr"), None)[1].code.as_deref(),
            Some("fr")
        );
        // Without the French paragraph (removed as boilerplate, say), it follows English.
        let out = inherit(&own[..2], &texts[..2], Some("fr"), None);
        assert_eq!(out[1].code.as_deref(), Some("en"));
    }
}
