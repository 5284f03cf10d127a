//! Fetched bytes to UTF-8 text in NFC, choosing the encoding the way browsers do, plus the
//! checks a crawler needs because declarations on the web are often wrong.
//!
//! **In**: the raw body bytes of a response, its `Content-Type` header value if any, and the
//! top-level domain (or the whole host) it came from if known.
//!
//! **Out**: a [`Decoded`]: the text (UTF-8, NFC), the encoding used, why it was chosen
//! ([`Decision`]), the raw declarations found, and two quality signals: the number of U+FFFD
//! replacement characters and of mojibake signs (UTF-8 read as windows-1252) in the text.
//!
//! The order follows the WHATWG encoding sniffing algorithm:
//! 1. a byte order mark ([`Decision::Bom`]);
//! 2. the `charset` parameter of `Content-Type` ([`Decision::HttpHeader`]);
//! 3. for HTML, XML or an unknown type, the in-document declaration: the spec's `<meta>`
//!    pre-scan of the first 1024 bytes ([`prescan`]), then a `<?xml … encoding=…?>`
//!    declaration, then a `<meta>` found later in the detection window, as the HTML parser's
//!    "change the encoding" step would find it ([`Decision::MetaPrescan`]);
//! 4. detection over a bounded prefix of the body ([`detect`], [`Decision::Detected`]):
//!    BOM-less UTF-16 by its byte pattern, then chardetng (UTF-8 allowed, TLD hint), then a
//!    second opinion among the single-byte encodings chardetng conflates or cannot name
//!    (ISO-8859-15, ISO-8859-16, the Mac and Baltic code pages), based on characters real text
//!    does not contain and on the alphabet of the text's language, and a Latin guess whose
//!    letters are mostly non-ASCII read again in the Cyrillic code pages;
//! 5. windows-1252 when there is nothing to decide on (an empty body) ([`Decision::Fallback`]).
//!
//! A declaration (HTTP or in-document) that the bytes contradict — UTF-8 declared but the body
//! is mostly not UTF-8, a legacy encoding declared but the body is valid UTF-8 with non-ASCII
//! bytes, UTF-16 declared but the body is NUL-free valid UTF-8 — is not used: the next
//! declaration is tried, else the encoding is detected ([`Decision::DeclaredButWrong`]).
//!
//! **Invariants**: never panics, whatever the bytes, header or TLD; `text` is valid UTF-8 in
//! NFC; `encoding` is never `encoding_rs::REPLACEMENT` (that label family is treated as
//! unknown); detection reads at most [`DETECT_MAX`] bytes, so the cost of choosing an encoding
//! is bounded whatever the body size (decoding itself is linear in the body).
//!
//! **Files**, in data-flow order: this file (the order of decisions, `Content-Type`, NFC) →
//! `declaration` (in-document declarations) → `detection` (contradicted declarations, detection)
//! (with `alphabet`, a language's letters) → `mojibake` (the quality signal); `tests.rs` the tests.

use std::borrow::Cow;

use encoding_rs::{Encoding, REPLACEMENT, WINDOWS_1252};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

mod alphabet;
mod declaration;
pub use declaration::prescan;
use declaration::{DocDeclaration, in_document_declaration};

mod detection;
use detection::contradicted;
pub use detection::{detect, tld_hint};

mod mojibake;
pub use mojibake::count_mojibake;

/// Number of bytes the WHATWG `<meta>` pre-scan looks at.
pub const PRESCAN_LIMIT: usize = 1024;

/// Bytes fed to the detector in one step, and the window searched for a late `<meta>`.
pub const DETECT_PREFIX: usize = 64 * 1024;

/// Hard cap on the bytes fed to the detector: past [`DETECT_PREFIX`] the detector is fed more
/// only while it has seen too few non-ASCII bytes to judge (long ASCII-only heads are common).
pub const DETECT_MAX: usize = 1024 * 1024;

/// Non-ASCII bytes after which the detector has enough evidence and is fed no further.
const ENOUGH_NON_ASCII: usize = 256;

/// Why [`Decoded::encoding`] was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// A byte order mark at the start of the body (it beats every declaration).
    Bom,
    /// The `charset` parameter of the HTTP `Content-Type`.
    HttpHeader,
    /// An in-document declaration: `<meta>` (pre-scan, or late `<meta>`) or `<?xml encoding>`.
    MetaPrescan,
    /// Nothing was declared; the encoding was guessed from the bytes.
    Detected,
    /// A declaration was found but the bytes contradict it; the encoding was guessed instead.
    DeclaredButWrong,
    /// The body is empty: windows-1252, the WHATWG default for unlabelled documents.
    Fallback,
}

/// The result of [`decode`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct Decoded {
    /// The decoded text, UTF-8, in Unicode Normalization Form C, without a BOM.
    pub text: String,
    /// The encoding used to decode the body (serialised as its WHATWG name).
    #[serde(serialize_with = "serialize_encoding")]
    pub encoding: &'static Encoding,
    /// Why this encoding was chosen.
    pub decision: Decision,
    /// The `charset` label of the `Content-Type` header, as found, even if unknown or unused.
    pub declared_http: Option<String>,
    /// The in-document label (`<meta>` or `<?xml encoding>`), as found, if the content type
    /// allows one and it names a supported encoding; recorded even when a BOM or the header won.
    pub declared_meta: Option<String>,
    /// U+FFFD replacement characters in `text` (decoding errors, or present in the source).
    pub replacements: usize,
    /// Mojibake signs in `text`: sequences that are UTF-8 bytes read as windows-1252/latin-1
    /// (`Ã©`, `â€™`, `Ã¨`, `Â ` …), each counted once.
    pub mojibake: usize,
    /// True when a declaration (HTTP or in-document) was found but set aside because the bytes
    /// contradict it (also when a later declaration was then used).
    pub declaration_overridden: bool,
    /// True when the in-document declaration was a `<meta>` beyond the first 1024 bytes.
    pub late_meta: bool,
}

fn serialize_encoding<S: serde::Serializer>(
    encoding: &&'static Encoding,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(encoding.name())
}

/// Which declaration a candidate encoding came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Http,
    Document { late: bool },
}

/// Decodes `body` to NFC UTF-8 text, choosing the encoding as described in the module docs.
///
/// `content_type` is the raw `Content-Type` header value; `tld` is the top-level domain the
/// body came from (a whole host is accepted too; see [`tld_hint`]), `None` if unknown.
pub fn decode(body: &[u8], content_type: Option<&str>, tld: Option<&str>) -> Decoded {
    let http_label = content_type.and_then(charset_param);
    let declared_http = http_label.map(str::to_owned);
    let kind = content_type.map_or(DocKind::HtmlOrUnknown, doc_kind);
    let in_doc = in_document_declaration(body, kind);
    let declared_meta = in_doc.as_ref().map(|d| d.label.clone());

    let (encoding, decision, overridden, late_meta) = choose(body, http_label, in_doc, tld);
    let text = if decision == Decision::Bom {
        encoding.decode_with_bom_removal(body).0
    } else {
        encoding.decode_without_bom_handling(body).0
    };
    let text = to_nfc(text);
    let replacements = text.matches('\u{FFFD}').count();
    let mojibake = count_mojibake(&text);
    Decoded {
        text,
        encoding,
        decision,
        declared_http,
        declared_meta,
        replacements,
        mojibake,
        declaration_overridden: overridden,
        late_meta,
    }
}

/// The decision steps, without decoding: (encoding, decision, overridden, late meta).
fn choose(
    body: &[u8],
    http_label: Option<&str>,
    in_doc: Option<DocDeclaration>,
    tld: Option<&str>,
) -> (&'static Encoding, Decision, bool, bool) {
    if let Some((bom, _)) = Encoding::for_bom(body) {
        return (bom, Decision::Bom, false, false);
    }
    let http = http_label
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .filter(|e| *e != REPLACEMENT)
        .map(|e| (e, Source::Http));
    let document = in_doc.map(|d| (d.encoding, Source::Document { late: d.late }));

    let prefix = &body[..body.len().min(DETECT_PREFIX)];
    let mut overridden = false;
    for (encoding, source) in http.into_iter().chain(document) {
        if contradicted(encoding, prefix) {
            overridden = true;
            continue;
        }
        return match source {
            Source::Http => (encoding, Decision::HttpHeader, overridden, false),
            Source::Document { late } => (encoding, Decision::MetaPrescan, overridden, late),
        };
    }
    if body.is_empty() {
        return (WINDOWS_1252, Decision::Fallback, overridden, false);
    }
    let guessed = detect(body, tld);
    let decision = if overridden {
        Decision::DeclaredButWrong
    } else {
        Decision::Detected
    };
    (guessed, decision, overridden, false)
}

fn to_nfc(text: Cow<'_, str>) -> String {
    if is_nfc_fast(&text) {
        text.into_owned()
    } else {
        text.nfc().collect()
    }
}

/// Whether the NFC quick check says `text` is normalized, reading only its characters from
/// U+0300 up. Characters below U+0300 are all NFC-stable starters (canonical combining class
/// 0): the quick check's state starts afresh after each of them, so each run of characters
/// from U+0300 up can be checked alone, and the text is `Yes` when every run is. In UTF-8
/// these runs start at the bytes from 0xCC up (never a continuation byte), found at memory
/// speed; an English page with curly quotes checks a few one-character runs, not the page.
/// Offset of the first byte from 0xCC up at or after `from`: ASCII stretches are skipped a
/// block at a time (`is_ascii` reads a word at a time), only mixed blocks byte by byte.
fn next_lead_from_cc(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(block) = bytes.get(i..).filter(|rest| !rest.is_empty()) {
        let block = block.get(..64).unwrap_or(block);
        if !block.is_ascii()
            && let Some(p) = block.iter().position(|&b| b >= 0xCC)
        {
            return Some(i + p);
        }
        i += block.len();
    }
    None
}

fn is_nfc_fast(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(start) = next_lead_from_cc(bytes, i) {
        let rest = text.get(start..).unwrap_or_default();
        let len: usize = rest
            .chars()
            .take_while(|&c| u32::from(c) >= 0x300)
            .map(char::len_utf8)
            .sum();
        let run = rest.get(..len).unwrap_or_default();
        if is_nfc_quick(run.chars()) != IsNormalized::Yes {
            return false;
        }
        i = start + len.max(1);
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Content-Type

/// The raw `charset` label of a `Content-Type` value (`text/html; charset="UTF-8"` → `UTF-8`).
///
/// The first `charset` parameter wins, as in the WHATWG MIME parser. Parameter names are
/// matched case-insensitively with surrounding spaces ignored; a quoted value is taken between
/// its quotes (double, or single as some servers send); an unquoted value ends at `;`, `,` or
/// whitespace (a `,` appears when several header lines were joined). Empty values give `None`.
/// The label is returned as found: map it with `Encoding::for_label`.
pub fn charset_param(content_type: &str) -> Option<&str> {
    let mut rest = content_type.split_once(';')?.1;
    loop {
        let (name, after_name) = match rest.find(['=', ';']) {
            Some(i) if rest.as_bytes()[i] == b'=' => (&rest[..i], &rest[i + 1..]),
            Some(i) => {
                rest = &rest[i + 1..];
                continue;
            }
            None => return None,
        };
        let value = after_name.trim_start_matches(is_http_space);
        let (raw, remainder) = match value.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => {
                let inner = &value[1..];
                match inner.find(char::from(q)) {
                    Some(end) => (&inner[..end], &inner[end + 1..]),
                    None => (inner, ""),
                }
            }
            _ => {
                let end = value
                    .find(|c: char| c == ';' || c == ',' || is_http_space(c))
                    .unwrap_or(value.len());
                (&value[..end], &value[end..])
            }
        };
        if name
            .trim_matches(is_http_space)
            .eq_ignore_ascii_case("charset")
        {
            let raw = raw.trim_matches(is_http_space);
            return (!raw.is_empty()).then_some(raw);
        }
        rest = match remainder.find(';') {
            Some(i) => &remainder[i + 1..],
            None => return None,
        };
    }
}

fn is_http_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// What the content type says about in-document declarations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DocKind {
    /// HTML, or a type that does not say (missing, empty, `application/octet-stream`…):
    /// `<meta>` pre-scan, then an XML declaration.
    HtmlOrUnknown,
    /// An XML type: only the XML declaration.
    Xml,
    /// Any other type (`text/plain`, `text/css`…): no in-document declaration.
    Other,
}

fn doc_kind(content_type: &str) -> DocKind {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim_matches(is_http_space)
        .to_ascii_lowercase();
    match essence.as_str() {
        ""
        | "text/html"
        | "application/xhtml+xml"
        | "application/octet-stream"
        | "application/unknown"
        | "unknown/unknown"
        | "*/*" => DocKind::HtmlOrUnknown,
        e if e == "text/xml" || e == "application/xml" || e.ends_with("+xml") => DocKind::Xml,
        e if !e.contains('/') => DocKind::HtmlOrUnknown,
        _ => DocKind::Other,
    }
}

#[cfg(test)]
mod tests;
