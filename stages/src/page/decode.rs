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
//!    second opinion among the Latin single-byte encodings chardetng conflates or cannot name
//!    (ISO-8859-15, ISO-8859-16), based on characters real text does not contain;
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

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{
    Encoding, ISO_8859_2, ISO_8859_15, ISO_8859_16, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE,
    WINDOWS_1250, WINDOWS_1252, X_USER_DEFINED,
};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

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

// ---------------------------------------------------------------------------------------------
// In-document declarations

/// An in-document declaration found by [`in_document_declaration`].
struct DocDeclaration {
    encoding: &'static Encoding,
    label: String,
    late: bool,
}

fn in_document_declaration(body: &[u8], kind: DocKind) -> Option<DocDeclaration> {
    let window = &body[..body.len().min(PRESCAN_LIMIT)];
    if kind == DocKind::HtmlOrUnknown
        && let Some((encoding, label)) = prescan_labelled(window)
    {
        return Some(DocDeclaration {
            encoding,
            label,
            late: false,
        });
    }
    if kind != DocKind::Other
        && let Some((encoding, label)) = xml_declaration(window)
    {
        return Some(DocDeclaration {
            encoding,
            label,
            late: false,
        });
    }
    if kind == DocKind::HtmlOrUnknown && body.len() > PRESCAN_LIMIT {
        let window = &body[..body.len().min(DETECT_PREFIX)];
        if let Some((encoding, label)) = prescan_labelled(window) {
            return Some(DocDeclaration {
                encoding,
                label,
                late: true,
            });
        }
    }
    None
}

/// The WHATWG `<meta>` pre-scan of the first 1024 bytes of `bytes`, with the spec's fix-ups
/// (UTF-16 declared in a `<meta>` → UTF-8; x-user-defined → windows-1252).
///
/// Also implements the spec's first step, a UTF-16 `<?x` signature (returned as is, since it
/// describes the bytes themselves). A label that maps to `encoding_rs::REPLACEMENT` is treated
/// like an unknown label (the scan goes on), so the result is never REPLACEMENT. `None` means
/// the pre-scan failed (the caller goes on with the next sniffing step).
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    prescan_labelled(&bytes[..bytes.len().min(PRESCAN_LIMIT)]).map(|(e, _)| e)
}

/// The pre-scan over the whole of `window`, returning the encoding and the label as found.
fn prescan_labelled(window: &[u8]) -> Option<(&'static Encoding, String)> {
    if window.starts_with(b"<\0?\0x\0") {
        return Some((UTF_16LE, UTF_16LE.name().to_owned()));
    }
    if window.starts_with(b"\0<\0?\0x") {
        return Some((UTF_16BE, UTF_16BE.name().to_owned()));
    }
    let mut scanner = Scanner {
        bytes: window,
        pos: 0,
    };
    // Every `?` below is the spec's end of input: the pre-scan then fails as a whole.
    loop {
        let rest = scanner.rest();
        if rest.is_empty() {
            return None;
        }
        if rest.starts_with(b"<!--") {
            // The `-->` may share its dashes with `<!--`, hence the search from `<!` + 2.
            let from = scanner.pos + 2;
            let end = find(&window[from..], b"-->")?;
            scanner.pos = from + end + 2;
        } else if rest.len() >= 6
            && rest[1..5].eq_ignore_ascii_case(b"meta")
            && rest[0] == b'<'
            && is_space_or_slash(rest[5])
        {
            scanner.pos += 5;
            if let Some(found) = scanner.meta()? {
                return Some(found);
            }
        } else if rest[0] == b'<'
            && (rest.get(1).is_some_and(u8::is_ascii_alphabetic)
                || (rest.get(1) == Some(&b'/') && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            let name_end = rest.iter().position(|b| is_space(*b) || *b == b'>')?;
            scanner.pos += name_end;
            while scanner.attribute()?.is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            let end = rest.iter().position(|b| *b == b'>')?;
            scanner.pos += end;
        }
        scanner.pos += 1;
    }
}

/// Cursor over the pre-scan window.
struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// One attribute as the pre-scan sees it: lower-cased name, raw value.
type Attribute = (Vec<u8>, Vec<u8>);

impl Scanner<'_> {
    fn rest(&self) -> &[u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }

    fn byte(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The attributes of a `<meta` (position just after `meta`) and the spec's processing.
    /// Outer `None`: end of input; inner `None`: this `<meta>` declares nothing usable.
    fn meta(&mut self) -> Option<Option<(&'static Encoding, String)>> {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut got_pragma = false;
        let mut need_pragma: Option<bool> = None;
        // None: null; Some(None): failure; Some(Some(..)): an encoding and its label.
        let mut charset: Option<Option<(&'static Encoding, String)>> = None;
        while let Some((name, value)) = self.attribute()? {
            if seen.contains(&name) {
                continue;
            }
            match name.as_slice() {
                b"http-equiv" if value.eq_ignore_ascii_case(b"content-type") => {
                    got_pragma = true;
                }
                b"content" => {
                    if charset.is_none()
                        && let Some(label) = charset_from_content(&value)
                        && let Some(encoding) = supported_label(label)
                    {
                        charset = Some(Some((encoding, String::from_utf8_lossy(label).into())));
                        need_pragma = Some(true);
                    }
                }
                b"charset" => {
                    let label = String::from_utf8_lossy(&value).into_owned();
                    charset = Some(supported_label(&value).map(|e| (e, label)));
                    need_pragma = Some(false);
                }
                _ => {}
            }
            seen.push(name);
        }
        let found = match (need_pragma, charset) {
            (None, _) => None,
            (Some(true), _) if !got_pragma => None,
            (Some(_), Some(Some((encoding, label)))) => Some((meta_fixup(encoding), label)),
            (Some(_), _) => None,
        };
        Some(found)
    }

    /// The spec's "get an attribute". Outer `None`: end of input; inner `None`: no attribute.
    fn attribute(&mut self) -> Option<Option<Attribute>> {
        while is_space_or_slash(self.byte()?) {
            self.pos += 1;
        }
        if self.byte()? == b'>' {
            return Some(None);
        }
        let mut name = Vec::new();
        let mut value = Vec::new();
        loop {
            let b = self.byte()?;
            if b == b'=' && !name.is_empty() {
                self.pos += 1;
                break;
            }
            if is_space(b) {
                while is_space(self.byte()?) {
                    self.pos += 1;
                }
                if self.byte()? != b'=' {
                    return Some(Some((name, value)));
                }
                self.pos += 1;
                break;
            }
            if b == b'/' || b == b'>' {
                return Some(Some((name, value)));
            }
            name.push(b.to_ascii_lowercase());
            self.pos += 1;
        }
        while is_space(self.byte()?) {
            self.pos += 1;
        }
        let first = self.byte()?;
        if first == b'"' || first == b'\'' {
            loop {
                self.pos += 1;
                let b = self.byte()?;
                if b == first {
                    self.pos += 1;
                    return Some(Some((name, value)));
                }
                value.push(b);
            }
        }
        if first == b'>' {
            return Some(Some((name, value)));
        }
        value.push(first);
        self.pos += 1;
        loop {
            let b = self.byte()?;
            if is_space(b) || b == b'>' {
                return Some(Some((name, value)));
            }
            value.push(b);
            self.pos += 1;
        }
    }
}

/// The spec's "extracting a character encoding from a meta element" on a `content` value:
/// the raw label after `charset=`, or `None`.
fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let mut pos = 0;
    loop {
        let at = pos + find_ignore_case(&content[pos..], b"charset")?;
        pos = at + 7;
        while content.get(pos).is_some_and(|b| is_space(*b)) {
            pos += 1;
        }
        if content.get(pos) != Some(&b'=') {
            continue;
        }
        pos += 1;
        while content.get(pos).is_some_and(|b| is_space(*b)) {
            pos += 1;
        }
        let first = *content.get(pos)?;
        if first == b'"' || first == b'\'' {
            let inner = &content[pos + 1..];
            let end = inner.iter().position(|b| *b == first)?;
            return Some(&inner[..end]);
        }
        let rest = &content[pos..];
        let end = rest
            .iter()
            .position(|b| is_space(*b) || *b == b';')
            .unwrap_or(rest.len());
        return Some(&rest[..end]);
    }
}

/// `<?xml … encoding="…"?>` at the very start, as browsers read it in HTML (Firefox's
/// `xmldecl`, WHATWG html#1752): the label up to the first `>`, with the `<meta>` fix-ups.
fn xml_declaration(window: &[u8]) -> Option<(&'static Encoding, String)> {
    if !window.starts_with(b"<?xml") {
        return None;
    }
    let end = window.iter().position(|b| *b == b'>')?;
    let decl = &window[5..end];
    let at = find(decl, b"encoding")?;
    let mut pos = at + 8;
    while decl.get(pos).is_some_and(|b| is_space(*b)) {
        pos += 1;
    }
    if decl.get(pos) != Some(&b'=') {
        return None;
    }
    pos += 1;
    while decl.get(pos).is_some_and(|b| is_space(*b)) {
        pos += 1;
    }
    let quote = *decl.get(pos)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let inner = &decl[pos + 1..];
    let label = &inner[..inner.iter().position(|b| *b == quote)?];
    let encoding = supported_label(label)?;
    Some((
        meta_fixup(encoding),
        String::from_utf8_lossy(label).into_owned(),
    ))
}

/// `Encoding::for_label`, with REPLACEMENT treated as unknown.
fn supported_label(label: &[u8]) -> Option<&'static Encoding> {
    Encoding::for_label(label).filter(|e| *e != REPLACEMENT)
}

/// The spec's fix-ups for an in-document declaration: a document that could declare itself
/// in ASCII is not UTF-16, and x-user-defined is never meant in HTML.
fn meta_fixup(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16BE || encoding == UTF_16LE {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn is_space_or_slash(b: u8) -> bool {
    is_space(b) || b == b'/'
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

// ---------------------------------------------------------------------------------------------
// Contradicted declarations

/// Non-ASCII UTF-8 sequences needed before valid UTF-8 outweighs a multi-byte legacy
/// declaration: short runs of legacy CJK text can be valid UTF-8 by chance (about one chance
/// in ten per character), eight in a row cannot.
const MULTIBYTE_EVIDENCE: usize = 8;

/// Whether the bytes contradict a declared `encoding` (see the module docs).
fn contradicted(encoding: &'static Encoding, prefix: &[u8]) -> bool {
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

// ---------------------------------------------------------------------------------------------
// Detection

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
    refine_latin(guess, prefix)
}

/// The Latin single-byte encodings chardetng conflates or never returns (ISO-8859-15 and
/// ISO-8859-16 are WHATWG encodings it has no model for), most common first: on a tie the
/// earlier one wins.
const LATIN_SIBLINGS: [&Encoding; 5] = [
    WINDOWS_1252,
    ISO_8859_15,
    WINDOWS_1250,
    ISO_8859_2,
    ISO_8859_16,
];

/// Second opinion on a Latin guess of chardetng. When decoding with the guess produces
/// characters real text does not have (see [`implausible`]) and a sibling encoding produces
/// strictly fewer, the sibling wins: `c½ur` is not French but `cœur` is (ISO-8859-15), nor is
/// `by˘a` Polish. chardetng scores letter pairs, so it cannot see these shape errors.
fn refine_latin(guess: &'static Encoding, prefix: &[u8]) -> &'static Encoding {
    if !LATIN_SIBLINGS.contains(&guess) {
        return guess;
    }
    let mut best = guess;
    let mut best_score = implausible(guess, prefix);
    if best_score == 0 {
        return guess;
    }
    for sibling in LATIN_SIBLINGS {
        if sibling == guess {
            continue;
        }
        let score = implausible(sibling, prefix);
        if score < best_score {
            best = sibling;
            best_score = score;
        }
    }
    best
}

/// Number of characters that real text does not contain, when `bytes` are decoded with the
/// single-byte `encoding`: control or unmapped characters (weight 2); a non-ASCII symbol
/// between two letters (`by³a`, except apostrophes, dashes and the middle dot); a non-ASCII
/// letter standing alone between non-letters (`Ł825`, `Home ť Black`); and the spacing
/// diacritics and `¤` that legacy text uses only as misread letters or euro signs.
fn implausible(encoding: &'static Encoding, bytes: &[u8]) -> usize {
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
        if matches!(c, '¤' | '¨' | '¸' | '¯' | '˘' | '˙' | '˛' | '˝' | 'ˇ') {
            score += 1;
            continue;
        }
        let letter_before = i > 0 && char_at(i - 1).is_some_and(char::is_alphabetic);
        let letter_after = char_at(i + 1).is_some_and(char::is_alphabetic);
        if c.is_alphabetic() {
            if !letter_before && !letter_after {
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
fn sniff_utf16(prefix: &[u8]) -> Option<&'static Encoding> {
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

// ---------------------------------------------------------------------------------------------
// Mojibake

/// Counts mojibake signs: runs of characters whose windows-1252 (or latin-1) bytes form one
/// valid multi-byte UTF-8 sequence, as when UTF-8 was decoded as windows-1252 (`Ã©` for `é`,
/// `â€™` for `’`). Each run counts once. A lead character must be followed by exactly the
/// continuations its UTF-8 length needs, which keeps real text such as `é»` from counting.
pub fn count_mojibake(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut from = 0;
    // Every lead (U+00C2..U+00F4) is encoded as 0xC3 0x82..0xB4, so only those spots are read.
    while let Some(offset) = bytes.get(from..).and_then(|b| memchr::memchr(0xC3, b)) {
        let start = from + offset;
        let mut chars = text.get(start..).unwrap_or("").chars();
        let lead = chars.next().and_then(cp1252_byte);
        let needed = match lead {
            Some(0xC2..=0xDF) => 1,
            Some(0xE0..=0xEF) => 2,
            Some(0xF0..=0xF4) => 3,
            _ => 0,
        };
        // The lead is two bytes long in the text; skip it unless a whole sequence matches.
        from = start + 2;
        if needed == 0 {
            continue;
        }
        let mut seq = [lead.unwrap_or(0), 0, 0, 0];
        let mut consumed = 2;
        let mut ok = true;
        for slot in seq.iter_mut().skip(1).take(needed) {
            match chars.next() {
                Some(c) => match cp1252_byte(c) {
                    Some(b @ 0x80..=0xBF) => {
                        *slot = b;
                        consumed += c.len_utf8();
                    }
                    _ => ok = false,
                },
                None => ok = false,
            }
            if !ok {
                break;
            }
        }
        if ok && std::str::from_utf8(&seq[..=needed]).is_ok() {
            count += 1;
            from = start + consumed;
        }
    }
    count
}

/// The byte a character came from if the text was windows-1252 (or latin-1) decoded bytes.
fn cp1252_byte(c: char) -> Option<u8> {
    let u = u32::from(c);
    if u <= 0xFF {
        return u8::try_from(u).ok();
    }
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8A,
        '‹' => 0x8B,
        'Œ' => 0x8C,
        'Ž' => 0x8E,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9A,
        '›' => 0x9B,
        'œ' => 0x9C,
        'ž' => 0x9E,
        'Ÿ' => 0x9F,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{ISO_8859_2, SHIFT_JIS};

    const CZECH: &str =
        "Příliš žluťoučký kůň úpěl ďábelské ódy. Večerníček přišel, čeština je těžká.";

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
}
