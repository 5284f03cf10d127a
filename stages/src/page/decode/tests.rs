//! Tests of decoding: the order of decisions, each declaration and its contradictions, detection
//! (UTF-16, Latin siblings, TLD hints), NFC, mojibake, and hostile input.

use encoding_rs::{
    ISO_8859_2, ISO_8859_13, ISO_8859_15, ISO_8859_16, SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE,
    WINDOWS_1250, WINDOWS_1257, X_MAC_CYRILLIC,
};

use super::detection::sniff_utf16;
use super::*;

const CZECH: &str = "Příliš žluťoučký kůň úpěl ďábelské ódy. Večerníček přišel, čeština je těžká.";

fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(
        !unmappable,
        "test text must be encodable in {}",
        encoding.name()
    );
    bytes.into_owned()
}

fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn utf16be(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_be_bytes).collect()
}

/// Deterministic pseudo-random bytes (xorshift), so failures can be replayed.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.max(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[3]
        })
        .collect()
}

#[test]
fn bom_beats_http_and_meta() {
    let mut body = b"\xEF\xBB\xBF<meta charset=\"windows-1250\">".to_vec();
    body.extend_from_slice("café".as_bytes());
    let d = decode(&body, Some("text/html; charset=windows-1252"), None);
    assert_eq!(d.encoding, UTF_8);
    assert_eq!(d.decision, Decision::Bom);
    assert_eq!(d.declared_http.as_deref(), Some("windows-1252"));
    assert_eq!(d.declared_meta.as_deref(), Some("windows-1250"));
    assert_eq!(d.text, "<meta charset=\"windows-1250\">café");

    let mut body = vec![0xFF, 0xFE];
    body.extend(utf16le("Grüße"));
    let d = decode(&body, Some("text/html; charset=utf-8"), None);
    assert_eq!((d.encoding, d.decision), (UTF_16LE, Decision::Bom));
    assert_eq!(d.text, "Grüße");
}

#[test]
fn http_beats_meta() {
    let mut body = b"<meta charset=\"windows-1250\"><p>".to_vec();
    body.extend(encode(WINDOWS_1252, "Fête à Noël, “citation”"));
    let d = decode(&body, Some("text/html; charset=ISO-8859-1"), None);
    assert_eq!(d.encoding, WINDOWS_1252);
    assert_eq!(d.decision, Decision::HttpHeader);
    assert_eq!(d.declared_meta.as_deref(), Some("windows-1250"));
    assert!(d.text.ends_with("Fête à Noël, “citation”"));
    assert!(!d.declaration_overridden);
}

#[test]
fn meta_used_without_http_charset() {
    let mut body =
        b"<html><head><meta http-equiv=Content-Type content='text/html; charset=iso-8859-2'>"
            .to_vec();
    body.extend(encode(ISO_8859_2, CZECH));
    let d = decode(&body, Some("text/html"), None);
    assert_eq!(
        (d.encoding, d.decision),
        (ISO_8859_2, Decision::MetaPrescan)
    );
    assert!(d.text.ends_with(CZECH));
    assert!(!d.late_meta);
}

#[test]
fn declared_utf8_but_windows_1250_is_detected_and_corrected() {
    let body = encode(WINDOWS_1250, CZECH);
    let d = decode(&body, Some("text/html; charset=utf-8"), Some("cz"));
    assert_eq!(d.decision, Decision::DeclaredButWrong);
    assert_eq!(d.encoding, WINDOWS_1250);
    assert_eq!(d.text, CZECH);
    assert_eq!(d.replacements, 0);
    assert!(d.declaration_overridden);
    assert_eq!(d.declared_http.as_deref(), Some("utf-8"));
}

#[test]
fn wrong_http_charset_falls_back_to_a_credible_meta() {
    let mut body = b"<meta charset=windows-1250>".to_vec();
    body.extend(encode(WINDOWS_1250, CZECH));
    let d = decode(&body, Some("text/html; charset=UTF-8"), None);
    assert_eq!(
        (d.encoding, d.decision),
        (WINDOWS_1250, Decision::MetaPrescan)
    );
    assert!(d.declaration_overridden);
}

#[test]
fn legacy_declared_but_body_is_utf8() {
    let body = "Ceci est du texte : « déjà vu », l’été.".as_bytes();
    let d = decode(body, Some("text/plain; charset=iso-8859-1"), None);
    assert_eq!(
        (d.encoding, d.decision),
        (UTF_8, Decision::DeclaredButWrong)
    );
    assert_eq!(d.mojibake, 0);
    // Read as declared, the same bytes are full of mojibake signs.
    let wrong = WINDOWS_1252.decode_without_bom_handling(body).0;
    assert!(count_mojibake(&wrong) >= 5, "{wrong}");
}

#[test]
fn declared_utf16_over_http_but_body_is_ascii() {
    let d = decode(
        b"<p>plain ASCII page</p>",
        Some("text/html; charset=utf-16"),
        None,
    );
    assert_eq!(d.decision, Decision::DeclaredButWrong);
    assert_eq!(d.text, "<p>plain ASCII page</p>");
}

#[test]
fn stray_bad_byte_keeps_declared_utf8() {
    let mut body = "Déjà vu, naïve café, cœur, élève, ".as_bytes().to_vec();
    body.push(0xFF);
    body.extend_from_slice("où ça".as_bytes());
    let d = decode(&body, Some("text/html; charset=utf-8"), None);
    assert_eq!((d.encoding, d.decision), (UTF_8, Decision::HttpHeader));
    assert_eq!(d.replacements, 1);
}

#[test]
fn latin1_label_is_windows_1252() {
    assert_eq!(Encoding::for_label(b"latin1"), Some(WINDOWS_1252));
    let d = decode(
        &[0x80, b' ', 0xE9],
        Some("text/plain; charset=latin1"),
        None,
    );
    assert_eq!(
        (d.encoding, d.decision),
        (WINDOWS_1252, Decision::HttpHeader)
    );
    assert_eq!(d.text, "€ é");
}

#[test]
fn replacement_labels_are_unknown() {
    let body = encode(WINDOWS_1250, CZECH);
    let d = decode(&body, Some("text/html; charset=iso-2022-kr"), Some("cz"));
    assert_eq!((d.encoding, d.decision), (WINDOWS_1250, Decision::Detected));
    assert_eq!(d.declared_http.as_deref(), Some("iso-2022-kr"));
    assert_eq!(
        prescan(b"<meta charset=hz-gb-2312><meta charset=koi8-r>"),
        Some(encoding_rs::KOI8_R)
    );
}

#[test]
fn output_is_nfc() {
    let decomposed = "e\u{301}te\u{301} Cafe\u{301} A\u{30A}";
    let d = decode(
        decomposed.as_bytes(),
        Some("text/plain; charset=utf-8"),
        None,
    );
    assert_eq!(d.text, "été Café Å");
    assert!(unicode_normalization::is_nfc(&d.text));
}

#[test]
fn empty_body() {
    let d = decode(b"", None, None);
    assert_eq!((d.encoding, d.decision), (WINDOWS_1252, Decision::Fallback));
    assert_eq!(d.text, "");
    assert_eq!((d.replacements, d.mojibake), (0, 0));
    let d = decode(b"", Some("text/html; charset=utf-8"), Some("fr"));
    assert_eq!((d.encoding, d.decision), (UTF_8, Decision::HttpHeader));
}

#[test]
fn binary_garbage_and_hostile_hints_do_not_panic() {
    let tlds = [
        None,
        Some("CZ"),
        Some("co.uk"),
        Some("ü"),
        Some(""),
        Some("192.168.0.1"),
        Some("[::1]"),
        Some("xn--p1ai"),
        Some("..."),
    ];
    let types = [
        None,
        Some(""),
        Some(";;;=;charset"),
        Some("text/html; charset=\""),
        Some("text/html; charset=utf-16"),
        Some("application/xml"),
        Some("text/plain; charset=x-user-defined"),
    ];
    for (seed, len) in [(1, 0), (2, 1), (3, 7), (4, 1023), (5, 1025), (6, 70_000)] {
        let body = garbage(seed, len);
        for tld in tlds {
            for ct in types {
                let d = decode(&body, ct, tld);
                assert!(unicode_normalization::is_nfc(&d.text));
                assert_ne!(d.encoding, REPLACEMENT);
            }
        }
    }
    // Markup cut at every point of the pre-scan.
    let markup =
        b"<!-- c --><meta http-equiv=\"content-type\" content=\"text/html; charset='koi8-r'\">";
    for end in 0..markup.len() {
        let _ = prescan(&markup[..end]);
        let _ = decode(&markup[..end], None, None);
    }
    assert_eq!(prescan(markup), Some(encoding_rs::KOI8_R));
}

#[test]
fn huge_body_prefix_limits() {
    // A late <meta> is seen within the detection window, not beyond it.
    let mut body = vec![b' '; 5000];
    body.extend_from_slice(b"<meta charset=windows-1250>");
    body.extend(encode(WINDOWS_1250, CZECH));
    assert_eq!(prescan(&body), None);
    let d = decode(&body, None, None);
    assert_eq!(
        (d.encoding, d.decision, d.late_meta),
        (WINDOWS_1250, Decision::MetaPrescan, true)
    );
    let mut far = vec![b' '; DETECT_PREFIX];
    far.extend_from_slice(&body);
    assert_ne!(decode(&far, None, None).decision, Decision::MetaPrescan);

    // Past the first window the detector is fed more while it has seen no evidence…
    let mut body = vec![b'a'; DETECT_PREFIX * 3];
    body.extend(encode(WINDOWS_1250, &CZECH.repeat(20)));
    let d = decode(&body, None, Some("cz"));
    assert_eq!((d.encoding, d.decision), (WINDOWS_1250, Decision::Detected));

    // …but never past DETECT_MAX: bytes there cannot change the guess, so a huge body costs
    // the same to judge as a 1 MiB one.
    let mut body = vec![b'a'; DETECT_MAX];
    body.extend(encode(WINDOWS_1250, &CZECH.repeat(20)));
    let d = decode(&body, None, Some("cz"));
    assert_eq!((d.encoding, d.decision), (UTF_8, Decision::Detected));
    assert!(d.replacements > 0);
    assert_eq!(detect(&body, Some("cz")), UTF_8);
}

#[test]
fn charset_param_variants() {
    assert_eq!(charset_param("text/html; charset=UTF-8"), Some("UTF-8"));
    assert_eq!(charset_param("text/html;charset=\"utf-8\""), Some("utf-8"));
    assert_eq!(
        charset_param("text/html; CharSet = 'latin1' ; x=y"),
        Some("latin1")
    );
    assert_eq!(
        charset_param("text/html; q=\"a;charset=x\"; charset=koi8-r"),
        Some("koi8-r")
    );
    assert_eq!(
        charset_param("text/html; charset=utf-8, text/html"),
        Some("utf-8")
    );
    assert_eq!(charset_param("text/html; charset=a; charset=b"), Some("a"));
    assert_eq!(charset_param("text/html; charset="), None);
    assert_eq!(charset_param("text/html; charset=\"\""), None);
    assert_eq!(charset_param("text/html"), None);
    assert_eq!(charset_param("text/html; xcharset=utf-8"), None);
    assert_eq!(charset_param("garbage;;;"), None);
    // Junk labels are reported as found and ignored for decoding.
    let d = decode(b"abc", Some("text/plain; charset=nonsense"), None);
    assert_eq!(d.declared_http.as_deref(), Some("nonsense"));
    assert_eq!(d.decision, Decision::Detected);
}

#[test]
fn prescan_fixups_and_signatures() {
    assert_eq!(prescan(b"<meta charset=utf-16le>"), Some(UTF_8));
    assert_eq!(
        prescan(b"<meta charset=x-user-defined>"),
        Some(WINDOWS_1252)
    );
    assert_eq!(prescan(b"<\0?\0x\0m\0l\0"), Some(UTF_16LE));
    assert_eq!(prescan(b"\0<\0?\0x\0m\0l"), Some(UTF_16BE));
    assert_eq!(prescan(b"<!--><meta charset=shift_jis>"), Some(SHIFT_JIS));
    assert_eq!(
        prescan(b"</x charset=koi8-r><meta charset=euc-kr>"),
        Some(encoding_rs::EUC_KR)
    );
    assert_eq!(prescan(b"<?php echo '<meta charset=koi8-r'?>"), None);
    assert_eq!(prescan(b"<!-- <meta charset=koi8-r> -->"), None);
}

#[test]
fn content_type_decides_which_declarations_count() {
    let mut body = b"<meta charset=windows-1250>".to_vec();
    body.extend(encode(WINDOWS_1250, CZECH));
    let plain = decode(&body, Some("text/plain"), None);
    assert_eq!(plain.declared_meta, None);
    assert_ne!(plain.decision, Decision::MetaPrescan);

    let mut xml = b"<?xml version=\"1.0\" encoding=\"ISO-8859-2\"?><r>".to_vec();
    xml.extend(encode(ISO_8859_2, CZECH));
    for ct in [None, Some("application/rss+xml"), Some("text/html")] {
        let d = decode(&xml, ct, None);
        assert_eq!(
            (d.encoding, d.decision),
            (ISO_8859_2, Decision::MetaPrescan),
            "{ct:?}"
        );
        assert_eq!(d.declared_meta.as_deref(), Some("ISO-8859-2"));
    }
}

#[test]
fn bomless_utf16_is_recognised() {
    let d = decode(&utf16le(CZECH), None, None);
    assert_eq!((d.encoding, d.text.as_str()), (UTF_16LE, CZECH));
    let chinese = "中文信息处理是自然语言处理的一个分支，研究如何用计算机处理汉字和词语。";
    let d = decode(&utf16be(chinese), None, None);
    assert_eq!((d.encoding, d.text.as_str()), (UTF_16BE, chinese));
    // ASCII with a few NUL bytes is not UTF-16.
    let mut body = b"Plain English text with a stray NUL here ".repeat(20);
    body[100] = 0;
    assert_eq!(sniff_utf16(&body), None);
    // Nor is random binary.
    assert_eq!(sniff_utf16(&garbage(9, 4096)), None);
}

#[test]
fn latin_refinement_finds_what_chardetng_cannot_name() {
    let french = "Le cœur a ses raisons. Un œuf, une sœur, des vœux : 4 € le numéro.";
    let d = decode(&encode(ISO_8859_15, french), None, Some("fr"));
    assert_eq!((d.encoding, d.text.as_str()), (ISO_8859_15, french));
    let polish = "Zażółć gęślą jaźń. Była sobie świnka, która szła przez łąkę i śpiewała.";
    let d = decode(&encode(ISO_8859_16, polish), None, Some("pl"));
    assert_eq!(d.text, polish);
    // Text chardetng already gets right stays as it is.
    let d = decode(&encode(ISO_8859_2, CZECH), None, Some("cz"));
    assert_eq!(d.text, CZECH);
}

/// Letters outside the alphabet of the text's language tell code pages apart where the shape
/// of the text cannot: Estonian `š ž` are `ð þ` in windows-1252, letters too; Romanian `„ ”`
/// are `Ą µ` in windows-1250; and a lone `è` is an Italian word, not a misread.
#[test]
fn the_language_alphabet_decides_between_code_pages() {
    let estonian = "<html><body><p>Kui faili ei leita, väljastatakse veateade. Programm \
        kasutab vaikimisi šablooni, mille nimi on määratud seadistuses, ja lõpetab töö, \
        kui kasutaja katkestab selle. Võtmesõnad on tõstutundlikud.</p></body></html>";
    let d = decode(&encode(WINDOWS_1257, estonian), None, Some("ee"));
    assert_eq!(d.text, estonian);
    let d = decode(&encode(ISO_8859_13, estonian), None, None);
    assert_eq!(d.text, estonian);
    let romanian = "Fișierul „configurare” nu a fost găsit. Programul citește fișierele \
        date în linia de comandă și afișează „rândurile” care se potrivesc cu tiparul.";
    let d = decode(&encode(ISO_8859_16, romanian), None, Some("ro"));
    assert_eq!((d.encoding, d.text.as_str()), (ISO_8859_16, romanian));
    let italian = "Il file non è stato trovato. È necessario indicare il percorso: \
        l'unità non può essere usata, la modalità è disabilitata. È un errore.";
    let d = decode(&encode(WINDOWS_1252, italian), None, Some("it"));
    assert_eq!((d.encoding, d.text.as_str()), (WINDOWS_1252, italian));
}

/// Mac Cyrillic puts its capitals where windows-1251 has symbols, and chardetng, without a
/// TLD, can take such text for Latin; read as Latin, nearly all its letters are non-ASCII, which
/// no Latin-script language does, and the Cyrillic reading that is a language, in lower case
/// mostly (not KOI8's swapped cases), wins.
#[test]
fn cyrillic_read_as_latin_is_read_again_as_cyrillic() {
    // From grep's help in Debian's Russian man page (GPL-3+): the capitals make chardetng
    // reject windows-1251 for windows-1252.
    let russian = "Управление контекстом: -C, --context[=ЧИС] печатать ЧИСЛО строк контекста. \
        --exclude-from=ФАЙЛ пропустить файлы, подпадающие под маску файлов из ФАЙЛА \
        --exclude-dir=МАСКА пропустить каталоги, подпадающие под МАСКУ. -E, --extended-regexp \
        ШАБЛОНЫ — расширенные регулярные выражения -F, --fixed-regexp ШАБЛОНЫ — строки -G, \
        --basic-regexp ШАБЛОНЫ — простые регулярные выражения -P, --perl-regexp ШАБЛОНЫ — \
        регулярные выражения языка Perl.";
    let body = encode(X_MAC_CYRILLIC, russian);
    let d = decode(&body, None, None);
    assert_eq!((d.encoding, d.text.as_str()), (X_MAC_CYRILLIC, russian));
    // The same in a page whose markup holds more ASCII letters than the text has letters.
    let markup =
        "<div class=\"navigation-container sidebar-left\"><a href=\"/index.html\">i</a></div>";
    let page = format!(
        "<html><head><title>grep</title></head><body>{}<p>{russian}</p></body></html>",
        markup.repeat(20)
    );
    let d = decode(&encode(X_MAC_CYRILLIC, &page), None, None);
    assert_eq!(
        (d.encoding, d.text.as_str()),
        (X_MAC_CYRILLIC, page.as_str())
    );
}

#[test]
fn tld_hints() {
    assert_eq!(tld_hint("CZ").as_deref(), Some("cz"));
    assert_eq!(tld_hint("www.Example.co.UK.").as_deref(), Some("uk"));
    assert_eq!(tld_hint("xn--p1ai").as_deref(), Some("xn--p1ai"));
    assert_eq!(tld_hint("192.168.0.1"), None);
    assert_eq!(tld_hint("[2001:db8::1]"), None);
    assert_eq!(tld_hint("::1"), None);
    assert_eq!(tld_hint("пример.рф"), None);
    assert_eq!(tld_hint(""), None);
    assert_eq!(tld_hint("a_b"), None);
}

#[test]
fn mojibake_signs() {
    assert_eq!(count_mojibake("cafÃ© â€™ Ã¨re"), 3);
    // Every non-ASCII character of UTF-8 text read as windows-1252 is one sign.
    for text in [
        CZECH,
        "Zażółć gęślą jaźń “quoted” — 5 €",
        "日本語のテキスト",
    ] {
        let misread = WINDOWS_1252.decode_without_bom_handling(text.as_bytes()).0;
        let expected = text.chars().filter(|c| !c.is_ascii()).count();
        assert_eq!(count_mojibake(&misread), expected, "{misread}");
    }
    assert_eq!(count_mojibake("café « élan », Ångström, Über, ½"), 0);
    assert_eq!(count_mojibake("é»"), 0);
    assert_eq!(count_mojibake(""), 0);
    assert_eq!(count_mojibake("Ã"), 0);
}

#[test]
fn serialises_names_and_kebab_case() {
    let body = encode(WINDOWS_1250, CZECH);
    let d = decode(&body, Some("text/html; charset=utf-8"), Some("cz"));
    let json = serde_json::to_value(&d).expect("serialise");
    assert_eq!(json["encoding"], "windows-1250");
    assert_eq!(json["decision"], "declared-but-wrong");
    assert_eq!(json["declared_http"], "utf-8");
    assert_eq!(json["text"], CZECH);
}
