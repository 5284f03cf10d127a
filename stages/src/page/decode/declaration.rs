//! In-document declarations: the WHATWG `<meta>` pre-scan of the first 1024 bytes, the `<?xml …
//! encoding=…?>` declaration, and a `<meta>` found later in the detection window.
//!
//! **In:** the body bytes and what the `Content-Type` says the document is. **Out:** the declared
//! encoding (with the label as written), or `None`.
//!
//! **Invariants:** only supported labels count (the `replacement` family is unknown); the pre-scan
//! reads at most [`PRESCAN_LIMIT`] bytes and never panics.

use encoding_rs::{Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

use super::{DETECT_PREFIX, DocKind, PRESCAN_LIMIT};

/// An in-document declaration found by [`in_document_declaration`].
pub(super) struct DocDeclaration {
    pub(super) encoding: &'static Encoding,
    pub(super) label: String,
    pub(super) late: bool,
}

pub(super) fn in_document_declaration(body: &[u8], kind: DocKind) -> Option<DocDeclaration> {
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
