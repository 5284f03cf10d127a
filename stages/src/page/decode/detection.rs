//! Detection, and the checks that overrule a declaration: BOM-less UTF-16 by its byte pattern, then
//! chardetng (UTF-8 allowed, TLD hint), then a second opinion among the Latin (Mac Roman and
//! Baltic included; letters checked against the text's language; Latin guesses whose letters
//! are mostly non-ASCII read again as Cyrillic) or the Cyrillic (Mac Cyrillic included)
//! single-byte encodings; and whether the bytes contradict a declared encoding.
//!
//! **In:** a bounded prefix of the body and the top-level domain if known. **Out:** an encoding
//! (never `replacement`), or whether a declaration is contradicted.
//!
//! **Invariants:** reads at most [`DETECT_MAX`] bytes whatever the body size; deterministic.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{
    Encoding, IBM866, ISO_8859_2, ISO_8859_4, ISO_8859_5, ISO_8859_13, ISO_8859_15, ISO_8859_16,
    KOI8_R, KOI8_U, MACINTOSH, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1250, WINDOWS_1251, WINDOWS_1252,
    WINDOWS_1257, X_MAC_CYRILLIC,
};

use super::{DETECT_MAX, DETECT_PREFIX, ENOUGH_NON_ASCII, alphabet};

/// Non-ASCII UTF-8 sequences needed before valid UTF-8 outweighs a multi-byte legacy
/// declaration: short runs of legacy CJK text can be valid UTF-8 by chance (about one chance
/// in ten per character), eight in a row cannot.
const MULTIBYTE_EVIDENCE: usize = 8;

/// Whether the bytes contradict a declared `encoding` (see the module docs).
pub(super) fn contradicted(encoding: &'static Encoding, prefix: &[u8]) -> bool {
    let stats = utf8_stats(prefix);
    if encoding == UTF_8 {
        // A stray bad byte in a UTF-8 page must not turn its real UTF-8 into mojibake: the
        // declaration is wrong only when invalid sequences outnumber valid non-ASCII ones.
        stats.errors > stats.valid_non_ascii
    } else if encoding == UTF_16LE || encoding == UTF_16BE {
        stats.errors == 0 && !prefix.contains(&0)
    } else if encoding.is_single_byte() {
        stats.errors == 0 && stats.valid_non_ascii > 0
    } else {
        stats.errors == 0 && stats.valid_non_ascii >= MULTIBYTE_EVIDENCE
    }
}

struct Utf8Stats {
    /// Maximal invalid subparts (each would become one U+FFFD).
    errors: usize,
    /// Valid multi-byte sequences.
    valid_non_ascii: usize,
}

/// Counts valid multi-byte sequences and errors. A sequence cut by the end of `bytes` is not
/// an error: the bytes may be a prefix, or the fetcher may have capped the body there.
fn utf8_stats(mut bytes: &[u8]) -> Utf8Stats {
    let mut stats = Utf8Stats {
        errors: 0,
        valid_non_ascii: 0,
    };
    loop {
        // encoding_rs' validator is several times faster than `str::from_utf8` on non-ASCII.
        let valid = Encoding::utf8_valid_up_to(bytes);
        stats.valid_non_ascii += count_lead_bytes(&bytes[..valid]);
        if valid == bytes.len() {
            return stats;
        }
        // The first sequence after `valid` is bad or cut; four bytes are enough to tell which.
        let window = &bytes[valid..bytes.len().min(valid + 4)];
        match std::str::from_utf8(window) {
            Err(e) if e.valid_up_to() == 0 => match e.error_len() {
                Some(len) => {
                    stats.errors += 1;
                    bytes = &bytes[valid + len..];
                }
                None => return stats,
            },
            // Unreachable in practice (both validators agree); counting it keeps the loop finite.
            _ => {
                stats.errors += 1;
                bytes = &bytes[valid + 1..];
            }
        }
    }
}

/// Characters of valid UTF-8 that are not ASCII, counted by their lead bytes.
fn count_lead_bytes(valid: &[u8]) -> usize {
    valid.iter().filter(|b| **b >= 0xC0).count()
}
/// Guesses the encoding of `body` from a bounded prefix: BOM-less UTF-16 first (chardetng
/// does not consider UTF-16), then chardetng with UTF-8 allowed and ISO-2022-JP allowed.
///
/// `tld` may be a TLD or a host; it is passed to chardetng only when [`tld_hint`] accepts it.
/// ISO-2022-JP is allowed because a crawler runs no scripts, so its security concern for
/// browsers does not apply, and old Japanese pages still use it.
pub fn detect(body: &[u8], tld: Option<&str>) -> &'static Encoding {
    let prefix = &body[..body.len().min(DETECT_PREFIX)];
    if let Some(utf16) = sniff_utf16(prefix) {
        return utf16;
    }
    // With UTF-8 allowed, chardetng answers UTF-8 whenever all it was fed is valid UTF-8
    // (ISO-2022-JP aside, which needs an ESC byte in pure ASCII). Checking that first gives
    // the same answer for most undeclared pages at a small fraction of the detector's cost.
    let window = &body[..body.len().min(DETECT_MAX)];
    let valid_utf8 = match std::str::from_utf8(window) {
        Ok(_) => true,
        // A sequence cut by the window's end is not an error: the detector is not told
        // that the stream ends there either.
        Err(e) => e.error_len().is_none() && window.len() < body.len(),
    };
    if valid_utf8 && (!window.is_ascii() || !window.contains(&0x1B)) {
        return UTF_8;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    let mut fed = 0;
    let mut evidence = 0;
    loop {
        let end = body.len().min(fed + DETECT_PREFIX).min(DETECT_MAX);
        let chunk = &body[fed..end];
        evidence += chunk.iter().filter(|b| **b >= 0x80 || **b == 0x1B).count();
        let last = end == body.len();
        detector.feed(chunk, last);
        fed = end;
        if last || fed >= DETECT_MAX || evidence >= ENOUGH_NON_ASCII {
            break;
        }
    }
    let hint = tld.and_then(tld_hint);
    let guess = detector.guess(hint.as_deref().map(str::as_bytes), Utf8Detection::Allow);
    refine(guess, prefix)
}

/// The Latin single-byte encodings chardetng conflates (the Baltic pages with the Western
/// ones, among others) or never returns (ISO-8859-15, ISO-8859-16 and Mac Roman are WHATWG
/// encodings it has no model for), most common first: on a tie the earlier one wins.
const LATIN_SIBLINGS: [&Encoding; 9] = [
    WINDOWS_1252,
    ISO_8859_15,
    WINDOWS_1250,
    ISO_8859_2,
    ISO_8859_16,
    MACINTOSH,
    WINDOWS_1257,
    ISO_8859_13,
    ISO_8859_4,
];

/// The Cyrillic pair chardetng never tells apart (it does not return Mac Cyrillic): the same
/// lower-case letters, the capitals and `я` elsewhere.
const CYRILLIC_SIBLINGS: [&Encoding; 2] = [WINDOWS_1251, X_MAC_CYRILLIC];

/// Second opinion on a Latin or Cyrillic guess of chardetng. When decoding with the guess
/// produces characters real text does not have (see [`implausible`]), or, for Latin text,
/// letters outside the alphabet of the language it is written in ([`alphabet`]), and a sibling
/// encoding produces strictly fewer, the sibling wins: `c½ur` is not French but `cœur` is
/// (ISO-8859-15), nor is `by˘a` Polish, `fŸr` German (Mac Roman), `моЯ` Russian (Mac
/// Cyrillic), `ðiff` Estonian (windows-1257) or `Ącuvânt` Romanian (ISO-8859-16). chardetng
/// scores letter pairs of a few language families, so it cannot see these errors.
///
/// Where two encodings give a language's text the same letters but for a variant (Romanian
/// `ș` in ISO-8859-16, `ş` in windows-1250 and ISO-8859-2: the same bytes), nothing in the
/// bytes tells them apart and the guess stays.
fn refine(guess: &'static Encoding, prefix: &[u8]) -> &'static Encoding {
    let latin = LATIN_SIBLINGS.contains(&guess);
    let siblings: &[&'static Encoding] = if latin {
        &LATIN_SIBLINGS
    } else if CYRILLIC_SIBLINGS.contains(&guess) {
        &CYRILLIC_SIBLINGS
    } else {
        return guess;
    };
    if prefix.is_ascii() {
        return guess;
    }
    let letters = if latin {
        let text = guess.decode_without_bom_handling(prefix).0;
        // In every language written in Latin letters most letters are ASCII: text whose
        // letters mostly are not is another script read with the wrong code page. Counted on
        // the text a reader sees (tag names are ASCII letters too).
        let sample = alphabet::text_sample(&text);
        let other = sample
            .chars()
            .filter(|c| c.is_alphabetic() && !c.is_ascii());
        if other.count() * 2 > sample.chars().filter(|c| c.is_alphabetic()).count()
            && let Some(cyrillic) = cyrillic_reading(prefix)
        {
            return cyrillic;
        }
        alphabet::language_of(&sample).and_then(|(lang, _)| alphabet::of_language(lang))
    } else {
        None
    };
    let score = |encoding| implausible(encoding, prefix, letters);
    let mut best = guess;
    let mut best_score = score(guess);
    if best_score == 0 {
        return guess;
    }
    for &sibling in siblings {
        if sibling == guess {
            continue;
        }
        let score = score(sibling);
        if score < best_score {
            best = sibling;
            best_score = score;
        }
    }
    best
}

/// The single-byte Cyrillic code pages, most common first.
const CYRILLIC_CODE_PAGES: [&Encoding; 6] = [
    WINDOWS_1251,
    KOI8_R,
    KOI8_U,
    IBM866,
    ISO_8859_5,
    X_MAC_CYRILLIC,
];

/// A Cyrillic code page in which `bytes` read as a language the identifier is sure of, written
/// in Cyrillic (the most plausible such reading, see [`implausible`]), for text that chardetng
/// took for Latin but that no Latin reading makes a language of: Mac Cyrillic text, whose
/// capitals sit where windows-1251 has symbols, is the case seen. (Read as Latin, such text
/// can fool the identifier itself: whatlang calls Mac Cyrillic read as windows-1252 Welsh.)
fn cyrillic_reading(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut best: Option<(&'static Encoding, usize)> = None;
    for &encoding in &CYRILLIC_CODE_PAGES {
        let sample = alphabet::text_sample(&encoding.decode_without_bom_handling(bytes).0);
        if !matches!(
            alphabet::language_of(&sample),
            Some((_, whatlang::Script::Cyrillic))
        ) {
            continue;
        }
        // Running text is mostly lower case; the KOI8 pages swap the cases of the others.
        let (upper, lower) = sample.chars().fold((0usize, 0usize), |(u, l), c| {
            (
                u + usize::from(c.is_uppercase()),
                l + usize::from(c.is_lowercase()),
            )
        });
        if upper > lower {
            continue;
        }
        let score = implausible(encoding, bytes, None);
        if best.is_none_or(|(_, s)| score < s) {
            best = Some((encoding, score));
        }
    }
    best.map(|(encoding, _)| encoding)
}

/// Number of characters that real text does not contain, when `bytes` are decoded with the
/// single-byte `encoding`: control or unmapped characters (weight 2); a non-ASCII symbol
/// between two letters (`by³a`, except apostrophes, dashes and the middle dot); a non-ASCII
/// letter standing alone between non-letters (`Ł825`, `Home ť Black`); a non-ASCII capital
/// right after a lower-case letter (`fŸr`, `perchÈ`, `моЯ`: words do not go on with a capital,
/// Irish `hÉireann` aside);
/// and the spacing diacritics and `¤` that legacy text uses only as misread letters or euro
/// signs. When the `alphabet` of the text's language is known, a letter outside it counts too,
/// and a lone letter inside it does not: it is a word (Italian `è`, French `à`, Swedish `ö`).
fn implausible(encoding: &'static Encoding, bytes: &[u8], alphabet: Option<&str>) -> usize {
    let table = single_byte_table(encoding);
    let char_at = |i: usize| bytes.get(i).map(|b| table[usize::from(*b)]);
    let mut score = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b < 0x80 {
            continue;
        }
        let c = table[usize::from(*b)];
        if c.is_control() || c == '\u{FFFD}' {
            score += 2;
            continue;
        }
        if matches!(
            c,
            '¤' | '¨' | '¸' | '¯' | '˘' | '˙' | '˛' | '˝' | 'ˇ' | 'ˆ' | '˜'
        ) {
            score += 1;
            continue;
        }
        let letter_before = i > 0 && char_at(i - 1).is_some_and(char::is_alphabetic);
        let letter_after = char_at(i + 1).is_some_and(char::is_alphabetic);
        if c.is_alphabetic() {
            let lower = |c: Option<char>| c.is_some_and(char::is_lowercase);
            let foreign = alphabet.map(|a| alphabet::foreign(c, a));
            if foreign == Some(true) {
                score += 1;
                continue;
            }
            let alone = !letter_before && !letter_after && foreign.is_none();
            let capital_after_lower = c.is_uppercase() && lower(char_at(i.wrapping_sub(1)));
            if alone || capital_after_lower {
                score += 1;
            }
        } else if letter_before
            && letter_after
            && !matches!(c, '’' | '‘' | '´' | '·' | '–' | '—' | '\u{AD}')
        {
            score += 1;
        }
    }
    score
}

/// The character of every byte in a single-byte `encoding` (U+FFFD where it has none).
fn single_byte_table(encoding: &'static Encoding) -> [char; 256] {
    let mut table = ['\u{FFFD}'; 256];
    let all: Vec<u8> = (0..=255).collect();
    let decoded = encoding.decode_without_bom_handling(&all).0;
    for (slot, c) in table.iter_mut().zip(decoded.chars()) {
        *slot = c;
    }
    table
}

/// The lower-cased rightmost DNS label of a TLD or host, in the form chardetng accepts, or
/// `None` when there is no usable TLD: an IP address (v4 or v6), an empty or non-ASCII label
/// (an internationalised TLD must be given in Punycode), or characters a DNS label cannot have.
pub fn tld_hint(tld_or_host: &str) -> Option<String> {
    let host = tld_or_host.trim().trim_end_matches('.');
    if host.contains(':') || host.starts_with('[') {
        return None;
    }
    let label = host.rsplit('.').next()?;
    let valid = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !label.bytes().all(|b| b.is_ascii_digit());
    valid.then(|| label.to_ascii_lowercase())
}

/// Share of C0 control bytes (other than TAB, LF, FF, CR, ESC) from which bytes cannot be text
/// in an ASCII-compatible encoding: UTF-16 of Latin text is about half NULs, of CJK text about
/// one byte in twenty is such a control.
const UTF16_MIN_CONTROLS_PER_MILLE: usize = 20;

/// Share of code units that must be ordinary text for a UTF-16 reading to be accepted.
const UTF16_MIN_TEXT_PER_MILLE: usize = 970;

/// BOM-less UTF-16, recognised by its bytes: many control bytes that ASCII-compatible text
/// never has, and one byte order reading as ordinary text (letters, CJK, punctuation) with
/// no unpaired surrogates. Zero bytes on one side decide the byte order for alphabetic text;
/// for CJK text (few zeros) the better-reading order wins, and must win clearly.
pub(super) fn sniff_utf16(prefix: &[u8]) -> Option<&'static Encoding> {
    let even = &prefix[..prefix.len() & !1];
    if even.len() < 8 {
        return None;
    }
    let controls = even
        .iter()
        .filter(|b| **b < 0x20 && !matches!(**b, b'\t' | b'\n' | b'\x0C' | b'\r' | 0x1B))
        .count();
    if controls < 4 || controls * 1000 < even.len() * UTF16_MIN_CONTROLS_PER_MILLE {
        return None;
    }
    let zeros_even = even.iter().step_by(2).filter(|b| **b == 0).count();
    let zeros_odd = even.iter().skip(1).step_by(2).filter(|b| **b == 0).count();
    let units = even.len() / 2;
    let le = text_per_mille(even, false);
    let be = text_per_mille(even, true);
    let (candidate, score) = if zeros_odd >= units / 8 && zeros_odd > 4 * zeros_even {
        (UTF_16LE, le)
    } else if zeros_even >= units / 8 && zeros_even > 4 * zeros_odd {
        (UTF_16BE, be)
    } else if le > be + 100 {
        (UTF_16LE, le)
    } else if be > le + 100 {
        (UTF_16BE, be)
    } else {
        return None;
    };
    (score >= UTF16_MIN_TEXT_PER_MILLE).then_some(candidate)
}

/// Per mille of the code units of `bytes` read as UTF-16 that belong to ordinary text.
fn text_per_mille(bytes: &[u8], big_endian: bool) -> usize {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|p| {
            if big_endian {
                u16::from_be_bytes([p[0], p[1]])
            } else {
                u16::from_le_bytes([p[0], p[1]])
            }
        })
        .collect();
    let mut good = 0;
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        if (0xD800..0xDC00).contains(&u) {
            if units
                .get(i + 1)
                .is_some_and(|n| (0xDC00..0xE000).contains(n))
            {
                good += 2;
                i += 2;
                continue;
            }
        } else if is_text_unit(u) {
            good += 1;
        }
        i += 1;
    }
    good * 1000 / units.len().max(1)
}

/// Code units of ordinary text: the blocks real documents are written in.
fn is_text_unit(u: u16) -> bool {
    matches!(u,
        0x09 | 0x0A | 0x0D | 0x20..=0x7E
        | 0xA0..=0x052F      // Latin-1, Latin extended, IPA, Greek, Cyrillic
        | 0x0590..=0x06FF    // Hebrew, Arabic
        | 0x0900..=0x0E7F    // Indic scripts, Thai
        | 0x1E00..=0x1FFF    // Latin extended additional, Greek extended
        | 0x2000..=0x205F    // general punctuation
        | 0x20A0..=0x22FF    // currency, letterlike, arrows, maths
        | 0x2500..=0x27BF    // box drawing, shapes, symbols, dingbats
        | 0x3000..=0x33FF    // CJK punctuation, kana, bopomofo, compatibility
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7A3    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFE30..=0xFE4F    // CJK compatibility forms
        | 0xFF00..=0xFFEF    // half-width and full-width forms
    )
}
