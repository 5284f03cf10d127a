//! The event loop of [`read_listing`](super::read_listing): from the root element on, entries
//! are recognised by depth (an entry's fields are its direct children) and their text is
//! gathered into buffers that are capped as they fill, so a 10 MB `<loc>` costs its scan and
//! no more, and entries past the limit are counted without allocating.

use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use super::{
    Entry, Limits, Listing, ListingError, ListingKind, MAX_DATE_BYTES, MAX_TITLE_CHARS,
    SCAN_FACTOR, local_name, malformed, offset,
};

/// Raw title text gathered before tags are stripped and whitespace collapsed: room for
/// [`MAX_TITLE_CHARS`] characters of up to four bytes, and some markup.
const TITLE_RAW_BYTES: usize = 4 * MAX_TITLE_CHARS + 1024;

/// Reads the listing's elements after its root start tag.
pub(super) fn scan(
    reader: &mut Reader<&[u8]>,
    kind: ListingKind,
    root: &BytesStart<'_>,
    root_empty: bool,
    limits: &Limits,
) -> Listing {
    let mut scanner = Scanner::new(kind, limits);
    if !root_empty {
        scanner.run(reader);
    }
    let base = attribute(root, |key| key == "xml:base").and_then(|raw| {
        let mut base = Capped::new(limits.max_url_length);
        decode_refs(&raw, false, |piece| base.push_str(piece));
        (!base.overflow && !base.value().is_empty()).then(|| base.value().to_owned())
    });
    Listing {
        kind,
        entries: scanner.entries,
        over_limit: scanner.over_limit,
        too_long: scanner.too_long,
        problem: scanner.problem,
        base,
    }
}

/// What the text of the element being read goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// Sitemap `<loc>`, feed item `<link>`.
    Url,
    /// RSS `<guid>`.
    Guid,
    /// `<lastmod>`, `<pubDate>`, `<updated>`.
    Date,
    /// `<dc:date>`, `<published>`: used when the first is missing.
    OtherDate,
    /// Feed item `<title>`.
    Title,
}

/// The state of the loop.
struct Scanner<'l> {
    kind: ListingKind,
    limits: &'l Limits,
    /// Open elements, the root's included.
    depth: usize,
    /// The depth of the entry being read.
    entry_depth: Option<usize>,
    /// The field being read and its depth.
    field: Option<(Field, usize)>,
    pending: Pending,
    entries: Vec<Entry>,
    over_limit: usize,
    too_long: usize,
    problem: Option<ListingError>,
}

impl<'l> Scanner<'l> {
    fn new(kind: ListingKind, limits: &'l Limits) -> Scanner<'l> {
        Scanner {
            kind,
            limits,
            depth: 1,
            entry_depth: None,
            field: None,
            pending: Pending::new(limits.max_url_length),
            entries: Vec::new(),
            over_limit: 0,
            too_long: 0,
            problem: None,
        }
    }

    /// Reads events up to the root's end tag, the first error, the end of the body, or the
    /// scanning bound.
    fn run(&mut self, reader: &mut Reader<&[u8]>) {
        let seen_cap = self.limits.max_entries.max(1).saturating_mul(SCAN_FACTOR);
        loop {
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(error) => {
                    self.problem = Some(malformed(reader.error_position(), &error));
                    return;
                }
            };
            match event {
                Event::Start(element) => {
                    self.depth += 1;
                    self.open(&element);
                }
                Event::Empty(element) => {
                    self.depth += 1;
                    self.open(&element);
                    self.close();
                }
                Event::End(_) => {
                    self.close();
                    if self.depth == 0 {
                        return;
                    }
                }
                Event::Text(text) => self.text(&text),
                Event::CData(text) => self.text(&text),
                Event::GeneralRef(name) => self.reference(&name),
                Event::Eof => {
                    self.problem = Some(cut_short(reader.buffer_position(), self.depth));
                    return;
                }
                _ => {}
            }
            if self.entries.len() + self.over_limit >= seen_cap {
                return;
            }
        }
    }

    /// A start tag at `self.depth`.
    fn open(&mut self, element: &BytesStart<'_>) {
        let name = element.name();
        let name = local_name(name.as_ref());
        let Some(entry_depth) = self.entry_depth else {
            if name == entry_element(self.kind) {
                self.entry_depth = Some(self.depth);
                self.pending.clear();
                if self.kind == ListingKind::Rss {
                    // RSS 1.0: `<item rdf:about="…">`.
                    self.pending.set_about(element);
                }
            }
            return;
        };
        if self.depth != entry_depth + 1 || self.field.is_some() {
            return;
        }
        if self.kind == ListingKind::Atom && name == "link" {
            self.pending.atom_link(element);
            return;
        }
        let Some(field) = field_of(self.kind, name) else {
            return;
        };
        // The first of each field wins (a second `<loc>` is a mistake; an empty one is not a
        // first).
        if self.pending.buffer(field).is_set() {
            return;
        }
        match field {
            Field::Guid => self.pending.guid_permalink = !is_false(element, "isPermaLink"),
            Field::Title => self.pending.title_markup = markup_title(self.kind, element),
            _ => {}
        }
        self.field = Some((field, self.depth));
    }

    /// An end tag (or the end of an empty element) at `self.depth`.
    fn close(&mut self) {
        if self.field.is_some_and(|(_, depth)| depth == self.depth) {
            self.field = None;
        }
        if self.entry_depth == Some(self.depth) {
            self.entry_depth = None;
            self.finish_entry();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn text(&mut self, text: &str) {
        if let Some((field, _)) = self.field {
            self.pending.buffer(field).push_str(text);
        }
    }

    /// `&name;` in text: the predefined entities and character references are decoded, any
    /// other stays as written (DTD entities are never expanded).
    fn reference(&mut self, name: &str) {
        if let Some((field, _)) = self.field {
            let buffer = self.pending.buffer(field);
            match resolve_ref(name, false) {
                Some(c) => buffer.push_str(c.encode_utf8(&mut [0; 4])),
                None => {
                    buffer.push_str("&");
                    buffer.push_str(name);
                    buffer.push_str(";");
                }
            }
        }
    }

    /// The end of an entry: kept, counted over the limit, counted too long, or skipped (no
    /// URL).
    fn finish_entry(&mut self) {
        let Some(url) = self.pending.url(self.kind) else {
            return;
        };
        if url.overflow {
            self.too_long += 1;
            return;
        }
        if self.entries.len() >= self.limits.max_entries {
            self.over_limit += 1;
            return;
        }
        let url = url.value().to_owned();
        let pending = &self.pending;
        let lastmod = [&pending.date, &pending.other_date]
            .into_iter()
            .find(|date| date.is_set() && !date.overflow)
            .map(|date| date.value().to_owned());
        let title = clean_title(pending.title.value(), pending.title_markup);
        self.entries.push(Entry {
            url,
            lastmod,
            title,
        });
    }
}

/// The element that is one entry of a listing of this kind.
fn entry_element(kind: ListingKind) -> &'static str {
    match kind {
        ListingKind::UrlSet => "url",
        ListingKind::SitemapIndex => "sitemap",
        ListingKind::Rss => "item",
        ListingKind::Atom => "entry",
    }
}

/// The field an entry's child element (by local name) holds, Atom links aside.
fn field_of(kind: ListingKind, name: &str) -> Option<Field> {
    match (kind, name) {
        (ListingKind::UrlSet | ListingKind::SitemapIndex, "loc") => Some(Field::Url),
        (ListingKind::UrlSet | ListingKind::SitemapIndex, "lastmod") => Some(Field::Date),
        (ListingKind::Rss, "link") => Some(Field::Url),
        (ListingKind::Rss, "guid") => Some(Field::Guid),
        (ListingKind::Rss, "pubDate") | (ListingKind::Atom, "updated") => Some(Field::Date),
        (ListingKind::Rss, "date") | (ListingKind::Atom, "published") => Some(Field::OtherDate),
        (ListingKind::Rss | ListingKind::Atom, "title") => Some(Field::Title),
        _ => None,
    }
}

/// Is the title HTML to strip? Atom says so with `type="html"` (or `xhtml`, whose elements
/// arrive as elements); RSS titles are HTML in practice (entity-escaped markup is common).
fn markup_title(kind: ListingKind, element: &BytesStart<'_>) -> bool {
    match kind {
        ListingKind::Rss => true,
        ListingKind::Atom => {
            attribute(element, |key| local_name(key) == "type").is_some_and(|kind| {
                let kind = kind.trim();
                kind.eq_ignore_ascii_case("html") || kind.eq_ignore_ascii_case("xhtml")
            })
        }
        ListingKind::UrlSet | ListingKind::SitemapIndex => false,
    }
}

/// Is the attribute (by local name) `false`? (`<guid isPermaLink="false">`)
fn is_false(element: &BytesStart<'_>, name: &str) -> bool {
    attribute(element, |key| local_name(key) == name)
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("false"))
}

/// The raw value of the first attribute whose qualified name passes `wanted`. Attributes after
/// a malformed one are not looked at.
fn attribute<'a>(
    element: &'a BytesStart<'_>,
    wanted: impl Fn(&str) -> bool,
) -> Option<Cow<'a, str>> {
    let mut attributes = element.attributes();
    attributes.with_checks(false);
    attributes
        .map_while(Result::ok)
        .find(|attribute| wanted(attribute.key.as_ref()))
        .map(|attribute| attribute.value)
}

/// [`ListingError::Malformed`] for a body that ends inside the root element.
fn cut_short(position: u64, depth: usize) -> ListingError {
    ListingError::Malformed {
        offset: offset(position),
        detail: format!(
            "the document ends with {depth} element(s) still open, the root among them: \
             was the download cut short?"
        ),
    }
}

/// The fields of the entry being read. The buffers are reused from entry to entry, so that
/// scanning allocates only for the entries kept.
struct Pending {
    url: Capped,
    /// RSS 1.0 `rdf:about`.
    about: Capped,
    guid: Capped,
    guid_permalink: bool,
    /// Atom: the first alternate link of type `text/html`, and the first of any type.
    alternate_html: Capped,
    alternate: Capped,
    date: Capped,
    other_date: Capped,
    title: Capped,
    title_markup: bool,
}

impl Pending {
    fn new(max_url_length: usize) -> Pending {
        Pending {
            url: Capped::new(max_url_length),
            about: Capped::new(max_url_length),
            guid: Capped::new(max_url_length),
            guid_permalink: true,
            alternate_html: Capped::new(max_url_length),
            alternate: Capped::new(max_url_length),
            date: Capped::new(MAX_DATE_BYTES),
            other_date: Capped::new(MAX_DATE_BYTES),
            title: Capped::new(TITLE_RAW_BYTES),
            title_markup: false,
        }
    }

    fn clear(&mut self) {
        for buffer in [
            &mut self.url,
            &mut self.about,
            &mut self.guid,
            &mut self.alternate_html,
            &mut self.alternate,
            &mut self.date,
            &mut self.other_date,
            &mut self.title,
        ] {
            buffer.clear();
        }
        self.guid_permalink = true;
        self.title_markup = false;
    }

    fn buffer(&mut self, field: Field) -> &mut Capped {
        match field {
            Field::Url => &mut self.url,
            Field::Guid => &mut self.guid,
            Field::Date => &mut self.date,
            Field::OtherDate => &mut self.other_date,
            Field::Title => &mut self.title,
        }
    }

    /// RSS 1.0: the item's `rdf:about`, its URL when it has no `<link>`.
    fn set_about(&mut self, element: &BytesStart<'_>) {
        if let Some(raw) = attribute(element, |key| local_name(key) == "about") {
            decode_refs(&raw, false, |piece| self.about.push_str(piece));
        }
    }

    /// An Atom `<link>` of the entry: a candidate URL when it is the alternate version of
    /// the entry (no `rel`, or `rel="alternate"`); `replies`, `edit`, `self`, `enclosure` and
    /// the others are not the entry's page.
    fn atom_link(&mut self, element: &BytesStart<'_>) {
        let rel = attribute(element, |key| key == "rel");
        if rel.is_some_and(|rel| !rel.trim().eq_ignore_ascii_case("alternate")) {
            return;
        }
        let Some(href) = attribute(element, |key| key == "href") else {
            return;
        };
        // `text/html; charset=utf-8` is text/html too.
        let html = attribute(element, |key| key == "type").is_some_and(|kind| {
            let kind = kind.trim_start().as_bytes();
            kind.get(..9)
                .is_some_and(|t| t.eq_ignore_ascii_case(b"text/html"))
        });
        let buffer = if html && !self.alternate_html.is_set() {
            &mut self.alternate_html
        } else if !self.alternate.is_set() {
            &mut self.alternate
        } else {
            return;
        };
        decode_refs(&href, false, |piece| buffer.push_str(piece));
    }

    /// The entry's URL, by the format's order of preference.
    fn url(&self, kind: ListingKind) -> Option<&Capped> {
        let guid =
            (self.guid_permalink && looks_like_http(self.guid.value())).then_some(&self.guid);
        let candidates = match kind {
            ListingKind::UrlSet | ListingKind::SitemapIndex => [Some(&self.url), None, None],
            ListingKind::Rss => [Some(&self.url), Some(&self.about), guid],
            ListingKind::Atom => [Some(&self.alternate_html), Some(&self.alternate), None],
        };
        candidates
            .into_iter()
            .flatten()
            .find(|buffer| buffer.is_set())
    }
}

/// Does the text start with `http://` or `https://` (any case)? A `<guid>` is often a tag URI
/// or a bare number.
fn looks_like_http(text: &str) -> bool {
    let head = text.as_bytes().get(..8).unwrap_or(text.as_bytes());
    head.get(..7)
        .is_some_and(|h| h.eq_ignore_ascii_case(b"http://"))
        || head.eq_ignore_ascii_case(b"https://")
}

/// Text gathered up to a cap, trimmed: leading whitespace is never stored, trailing
/// whitespace is dropped when the cap is reached (it does not count against it), and text
/// past the cap sets [`Capped::overflow`] and is not stored.
#[derive(Debug)]
struct Capped {
    text: String,
    cap: usize,
    /// The trimmed text is longer than `cap`; `text` holds its first `cap` bytes at most.
    overflow: bool,
    /// Trailing whitespace was dropped at the cap: any more non-whitespace overflows.
    whitespace_dropped: bool,
}

impl Capped {
    fn new(cap: usize) -> Capped {
        Capped {
            text: String::new(),
            cap,
            overflow: false,
            whitespace_dropped: false,
        }
    }

    fn clear(&mut self) {
        self.text.clear();
        self.overflow = false;
        self.whitespace_dropped = false;
    }

    /// Has the field a value (possibly too long)?
    fn is_set(&self) -> bool {
        self.overflow || !self.text.is_empty()
    }

    /// The text, trimmed.
    fn value(&self) -> &str {
        self.text.trim_end()
    }

    fn push_str(&mut self, piece: &str) {
        if self.overflow {
            return;
        }
        let piece = if self.text.is_empty() {
            piece.trim_start()
        } else {
            piece
        };
        if piece.is_empty() {
            return;
        }
        if self.whitespace_dropped {
            self.overflow = !piece.trim_start().is_empty();
            return;
        }
        if self.text.len() + piece.len() <= self.cap {
            self.text.push_str(piece);
            return;
        }
        let kept = piece.trim_end();
        if self.text.len() + kept.len() <= self.cap {
            self.text.push_str(kept);
            self.whitespace_dropped = true;
        } else {
            let room = self.cap.saturating_sub(self.text.len());
            self.text
                .push_str(kept.get(..floor_boundary(kept, room)).unwrap_or_default());
            self.overflow = true;
        }
    }
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Decodes the character references of `raw` (an attribute value, or HTML text once the XML
/// is decoded), handing the text to `sink` piece by piece: the five predefined entities and
/// numeric references, plus `&nbsp;` when `html`; any other `&…` stays as written.
fn decode_refs(raw: &str, html: bool, mut sink: impl FnMut(&str)) {
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        sink(rest.get(..amp).unwrap_or_default());
        let after = rest.get(amp + 1..).unwrap_or_default();
        // Entity names are short: a `;` further on belongs to something else.
        let name_end = after.bytes().take(32).position(|b| b == b';');
        let resolved = name_end.and_then(|end| {
            resolve_ref(after.get(..end).unwrap_or_default(), html).map(|c| (c, end))
        });
        match resolved {
            Some((c, end)) => {
                sink(c.encode_utf8(&mut [0; 4]));
                rest = after.get(end + 1..).unwrap_or_default();
            }
            None => {
                sink("&");
                rest = after;
            }
        }
    }
    sink(rest);
}

/// The character of `&name;`: predefined entities and numeric references (and `nbsp` in
/// HTML); `None` for anything else, NUL and surrogates included.
fn resolve_ref(name: &str, html: bool) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        "nbsp" if html => Some('\u{a0}'),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) if hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                None if number.bytes().all(|b| b.is_ascii_digit()) => number.parse().ok()?,
                _ => return None,
            };
            char::from_u32(code).filter(|&c| c != '\0')
        }
    }
}

/// A title as text: markup stripped (crudely: anything from `<` + letter, `/` or `!` to the
/// next `>`), HTML references decoded, whitespace collapsed, cut at [`MAX_TITLE_CHARS`].
fn clean_title(raw: &str, markup: bool) -> Option<String> {
    let text: Cow<'_, str> = if markup {
        let mut decoded = String::with_capacity(raw.len());
        decode_refs(&strip_tags(raw), true, |piece| decoded.push_str(piece));
        Cow::Owned(decoded)
    } else {
        Cow::Borrowed(raw)
    };
    let mut title = String::new();
    let mut chars = 0;
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !title.is_empty();
            continue;
        }
        if chars + usize::from(space) + 1 > MAX_TITLE_CHARS {
            break;
        }
        if space {
            title.push(' ');
            chars += 1;
            space = false;
        }
        title.push(c);
        chars += 1;
    }
    (!title.is_empty()).then_some(title)
}

/// The text outside tags. A `<` that does not open a tag (`x < y`), or whose tag never
/// closes, is text.
fn strip_tags(raw: &str) -> Cow<'_, str> {
    if !raw.contains('<') {
        return Cow::Borrowed(raw);
    }
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(lt) = rest.find('<') {
        text.push_str(rest.get(..lt).unwrap_or_default());
        let tag = rest.get(lt..).unwrap_or_default();
        let opens_tag = tag
            .as_bytes()
            .get(1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'/' || b == b'!');
        match tag.find('>') {
            // Inline tags (`<em>`) are the usual ones in titles: `<i>N</i>-grams` is one word.
            Some(gt) if opens_tag => {
                rest = tag.get(gt + 1..).unwrap_or_default();
            }
            _ => {
                text.push('<');
                rest = tag.get(1..).unwrap_or_default();
            }
        }
    }
    text.push_str(rest);
    Cow::Owned(text)
}
