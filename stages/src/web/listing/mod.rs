//! Sitemaps and feeds read as lists of URLs: sitemaps.org `<urlset>` and `<sitemapindex>`,
//! RSS 2.0, RSS 1.0 (`rdf:RDF`) and Atom.
//!
//! **In:** the body of a response that may be a sitemap or a feed, gzipped or not (a
//! `sitemap.xml.gz` arrives as gzip bytes; an HTTP `Content-Encoding` is the caller's to undo);
//! the [`Limits`].
//!
//! **Out:** [`sniff`]: which kind of listing a body looks like, from its first KiB;
//! [`read_listing`]: a [`Listing`] of [`Entry`]s, each URL as written (neither resolved nor
//! canonicalised: the caller resolves it against the listing's own URL, or [`Listing::base`],
//! then canonicalises it as any other link), with its date and title when the format has them;
//! plus how many entries were left out and why, and the malformed tail if there is one.
//!
//! **Invariants:** pure; total on hostile input: nothing here panics, and a malformed tail
//! keeps the entries read before it (a cut download of a 40,000-URL sitemap still yields its
//! first 39,000 URLs). The cost is bounded whatever the body claims:
//!
//! * at most [`Limits::max_bytes`] bytes are inflated from gzip, so a gzip bomb costs that
//!   much time and memory and no more, then fails with [`ListingError::TooLarge`];
//! * DTD entities are never expanded (only the five predefined ones and numeric character
//!   references are decoded; any other `&name;` stays as written), so "billion laughs" costs
//!   what its bytes cost;
//! * time is linear in the (capped) body; memory is the body, once decoded, plus the entries
//!   kept: each URL at most [`Limits::max_url_length`] bytes, each date at most
//!   [`MAX_DATE_BYTES`], each title at most [`MAX_TITLE_CHARS`] characters;
//! * scanning stops once [`SCAN_FACTOR`] × `max_entries` entries have been seen, so
//!   [`Listing::over_limit`] is exact below `(SCAN_FACTOR − 1) × max_entries` and a lower bound
//!   when it equals that. Within the default 50 MiB no body holds much more than two million
//!   entries anyway; the factor bounds the work when the caller raises `max_bytes`.
//!
//! What is an entry, by format (elements matched by local name, so `<sm:loc>` is a `<loc>`;
//! only direct children of an entry count, so the `<image:loc>` of a `<url>` is not its URL):
//!
//! * `<urlset>`: each `<url>`'s first `<loc>`, with `<lastmod>`;
//! * `<sitemapindex>`: each `<sitemap>`'s first `<loc>`, with `<lastmod>`;
//! * RSS 2.0 and 1.0: each `<item>`'s first non-empty `<link>`, else its `rdf:about`, else its
//!   `<guid>` when that is an http(s) URL not marked `isPermaLink="false"`; `<pubDate>` (or
//!   `<dc:date>`), `<title>`;
//! * Atom: each `<entry>`'s `<link>` with no `rel` or `rel="alternate"` (the `text/html` one when
//!   there are several), `<updated>` (or `<published>`), `<title>`.
//!
//! A feed's own `<link>`s (channel, image, `rel="self"`) are not entries. An entry without a URL
//! is skipped silently; an entry cut by the end of the body is not kept, since its URL may be
//! cut too. Reading stops at the end of the root element: whatever follows it is ignored.

mod scan;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::io::Read;

use flate2::read::MultiGzDecoder;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// How many entries are looked at, as a multiple of [`Limits::max_entries`], before scanning
/// stops (see the module's invariants).
pub const SCAN_FACTOR: usize = 10;

/// Longest date kept, in bytes: longer "dates" are junk and are dropped.
pub const MAX_DATE_BYTES: usize = 100;

/// Longest title kept, in characters (after tags are stripped and whitespace collapsed).
pub const MAX_TITLE_CHARS: usize = 300;

/// How many bytes of a body [`sniff`] looks at (after inflating, for gzip).
const SNIFF_BYTES: usize = 1024;

/// How many characters of an element name an error message quotes.
const QUOTED_NAME_CHARS: usize = 60;

/// The formats read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListingKind {
    /// A sitemaps.org `<urlset>`: pages.
    UrlSet,
    /// A sitemaps.org `<sitemapindex>`: more sitemaps.
    SitemapIndex,
    /// RSS 2.0 (`<rss>`) or RSS 1.0 (`<rdf:RDF>`).
    Rss,
    /// Atom (`<feed>`).
    Atom,
}

impl ListingKind {
    /// A stable name for logs and the crawl database.
    pub fn name(self) -> &'static str {
        match self {
            ListingKind::UrlSet => "sitemap",
            ListingKind::SitemapIndex => "sitemap-index",
            ListingKind::Rss => "rss",
            ListingKind::Atom => "atom",
        }
    }

    /// The kind whose root element has this local name (case-sensitive, as XML).
    fn from_root(qualified: &str) -> Option<ListingKind> {
        match local_name(qualified) {
            "urlset" => Some(ListingKind::UrlSet),
            "sitemapindex" => Some(ListingKind::SitemapIndex),
            "rss" | "RDF" => Some(ListingKind::Rss),
            "feed" => Some(ListingKind::Atom),
            _ => None,
        }
    }
}

/// What a listing may cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Entries kept; later ones are only counted. Default 50,000, the sitemap protocol's limit.
    pub max_entries: usize,
    /// Largest body, once uncompressed. Default 50 MiB, the sitemap protocol's limit.
    pub max_bytes: usize,
    /// Longest URL kept, in bytes; longer ones are counted and dropped. Default
    /// [`MAX_URL_BYTES`](super::urlnorm::MAX_URL_BYTES), the crawl's own limit.
    pub max_url_length: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entries: 50_000,
            max_bytes: 50 * 1024 * 1024,
            max_url_length: super::urlnorm::MAX_URL_BYTES,
        }
    }
}

/// One URL of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// As written: trimmed and with character references decoded, but not resolved.
    pub url: String,
    /// Sitemap `<lastmod>`, RSS `<pubDate>`, Atom `<updated>` or `<published>`, as written
    /// (trimmed); not parsed, since each format and each site spells dates its own way.
    pub lastmod: Option<String>,
    /// A feed item's title: text only, whitespace collapsed, at most [`MAX_TITLE_CHARS`].
    pub title: Option<String>,
}

/// What [`read_listing`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// The format.
    pub kind: ListingKind,
    /// The entries kept, in document order.
    pub entries: Vec<Entry>,
    /// Entries past [`Limits::max_entries`], counted and not kept (a lower bound once it
    /// reaches `(SCAN_FACTOR − 1) × max_entries`).
    pub over_limit: usize,
    /// Entries whose URL is longer than [`Limits::max_url_length`], dropped.
    pub too_long: usize,
    /// Why reading stopped early (a malformed or cut tail, a cut gzip stream); the entries
    /// read before it are kept.
    pub problem: Option<ListingError>,
    /// The `xml:base` of the root element (Atom feeds use it), to resolve entries against
    /// instead of the listing's URL.
    pub base: Option<String>,
}

/// Why a body is not read as a listing (or, in [`Listing::problem`], why reading stopped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    /// The body is XML (or HTML) but neither a sitemap nor a feed.
    #[error(
        "not a sitemap or a feed: {found} (a listing's root element is <urlset>, \
         <sitemapindex>, <rss>, <rdf:RDF> or <feed>)"
    )]
    NotAListing {
        /// What the body is instead, in words.
        found: String,
    },
    /// The XML breaks off or goes wrong at `offset` (a byte offset in the document once
    /// uncompressed and, for the rare non-UTF-8 body, converted to UTF-8).
    #[error("malformed XML at byte {offset}: {detail}")]
    Malformed {
        /// Where.
        offset: usize,
        /// What, in the XML reader's words.
        detail: String,
    },
    /// The body, once uncompressed, is larger than [`Limits::max_bytes`].
    #[error("more than {limit} bytes once uncompressed (the sitemap protocol's limit is 50 MiB)")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The body starts like gzip but does not decompress.
    #[error("the gzip data does not decompress: {0}")]
    Gzip(String),
}

/// Does the body start with the gzip magic number (`1f 8b`)?
pub fn is_gzip(body: &[u8]) -> bool {
    body.starts_with(&[0x1f, 0x8b])
}

/// The kind of listing the body looks like, from its first KiB (inflated first if gzip): the
/// root element after any byte order mark, XML declaration, comments, processing instructions
/// and DOCTYPE. `None` for HTML and anything else.
///
/// Cheap enough to run on every response whose type is ambiguous (`text/xml`,
/// `application/octet-stream`) before deciding to read it with [`read_listing`].
pub fn sniff(body: &[u8]) -> Option<ListingKind> {
    let head: Cow<'_, [u8]> = if is_gzip(body) {
        let mut out = Vec::with_capacity(SNIFF_BYTES);
        // A stream cut short or corrupt further on may still show its root element: what
        // inflated before the error is looked at all the same.
        let _ = MultiGzDecoder::new(body)
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut out);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(body.get(..SNIFF_BYTES).unwrap_or(body))
    };
    let text = to_text(&head);
    let mut reader = xml_reader(&text);
    match find_root(&mut reader) {
        Ok(Some((root, _))) => ListingKind::from_root(root.name().as_ref()),
        Ok(None) => None,
        // The window may end inside a long root tag (many namespace declarations): its name
        // is already there.
        Err(_) => {
            let rest = text.get(offset(reader.error_position())..)?;
            ListingKind::from_root(tag_name(rest.strip_prefix('<')?))
        }
    }
}

/// Reads a sitemap or feed body (gzipped or not) into its entries.
///
/// `Err` when nothing can be read: the body is too large or not gzip after all, or its root
/// element is not a listing's. Once the root element is known the answer is `Ok`, and a
/// malformed or cut tail is reported in [`Listing::problem`].
pub fn read_listing(body: &[u8], limits: &Limits) -> Result<Listing, ListingError> {
    let (bytes, gzip_problem) = uncompressed(body, limits.max_bytes)?;
    let text = to_text(&bytes);
    let mut reader = xml_reader(&text);
    let (root, empty) = match find_root(&mut reader) {
        Ok(Some(root)) => root,
        Ok(None) => return Err(gzip_problem.unwrap_or_else(|| not_a_listing(&text, None))),
        Err(error) => {
            let problem = if looks_like_html(&text) {
                not_a_listing(&text, None)
            } else {
                malformed(reader.error_position(), &error)
            };
            return Err(gzip_problem.unwrap_or(problem));
        }
    };
    let name = root.name();
    let Some(kind) = ListingKind::from_root(name.as_ref()) else {
        return Err(not_a_listing(&text, Some(name.as_ref())));
    };
    let mut listing = scan::scan(&mut reader, kind, &root, empty, limits);
    // A cut gzip stream explains a malformed tail better than the XML reader's complaint.
    if gzip_problem.is_some() {
        listing.problem = gzip_problem;
    }
    Ok(listing)
}

/// The body, inflated if gzip, and the reason a gzip stream stopped early (what inflated
/// before the damage is still read).
fn uncompressed(
    body: &[u8],
    max_bytes: usize,
) -> Result<(Cow<'_, [u8]>, Option<ListingError>), ListingError> {
    let too_large = ListingError::TooLarge { limit: max_bytes };
    if !is_gzip(body) {
        return if body.len() > max_bytes {
            Err(too_large)
        } else {
            Ok((Cow::Borrowed(body), None))
        };
    }
    // One byte past the limit tells "too large" from "exactly the limit" without inflating
    // any further: a gzip bomb stops here. Several members in a row are one stream (RFC 1952).
    let cap = u64::try_from(max_bytes.saturating_add(1)).unwrap_or(u64::MAX);
    let mut out = Vec::new();
    let result = MultiGzDecoder::new(body).take(cap).read_to_end(&mut out);
    if out.len() > max_bytes {
        return Err(too_large);
    }
    match result {
        Ok(_) => Ok((Cow::Owned(out), None)),
        Err(error) if out.is_empty() => Err(ListingError::Gzip(error.to_string())),
        Err(error) => Ok((Cow::Owned(out), Some(ListingError::Gzip(error.to_string())))),
    }
}

/// The body as UTF-8 text: as it is when it is UTF-8 (the sitemap protocol requires it), else
/// decoded from its byte order mark or declared encoding (old feeds in ISO-8859-1 or
/// windows-1252), else with invalid bytes replaced. A single undecodable byte must not stop
/// the reader: it would lose every entry after it.
fn to_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Some((encoding, bom_len)) = encoding_rs::Encoding::for_bom(bytes)
        && encoding != encoding_rs::UTF_8
    {
        let rest = bytes.get(bom_len..).unwrap_or_default();
        return encoding.decode_without_bom_handling(rest).0;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    match declared_encoding(bytes) {
        Some(encoding) if encoding != encoding_rs::UTF_8 => {
            encoding.decode_without_bom_handling(bytes).0
        }
        _ => String::from_utf8_lossy(bytes),
    }
}

/// The `encoding` of the XML declaration at the start of the body, if it names one that
/// `encoding_rs` knows.
fn declared_encoding(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = bytes.get(..200).unwrap_or(bytes);
    let declaration = head.strip_prefix(b"<?xml")?;
    let end = memchr::memmem::find(declaration, b"?>")?;
    let declaration = declaration.get(..end)?;
    let at = memchr::memmem::find(declaration, b"encoding")?;
    let rest = declaration.get(at + b"encoding".len()..)?;
    let rest = rest
        .trim_ascii_start()
        .strip_prefix(b"=")?
        .trim_ascii_start();
    let (&quote, rest) = rest.split_first()?;
    let label = rest.get(..memchr::memchr(quote, rest)?)?;
    encoding_rs::Encoding::for_label(label)
}

/// The XML reader, set up for the web's listings.
fn xml_reader(text: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    // A mismatched end tag means the structure can no longer be trusted: the tail is reported
    // and the entries before it kept.
    config.check_end_names = true;
    // `?a=1&b=2` written unescaped is the commonest error in generated sitemaps: a lone `&`
    // stays text instead of ending the listing.
    config.allow_dangling_amp = true;
    reader
}

/// The root element (and whether it is empty, `<urlset/>`), or `None` if the body ends first.
fn find_root<'a>(
    reader: &mut Reader<&'a [u8]>,
) -> Result<Option<(BytesStart<'a>, bool)>, quick_xml::Error> {
    loop {
        match reader.read_event()? {
            Event::Start(root) => return Ok(Some((root, false))),
            Event::Empty(root) => return Ok(Some((root, true))),
            Event::Eof => return Ok(None),
            // Declaration, comments, processing instructions, DOCTYPE (never expanded), and
            // text: a PHP warning printed ahead of a generated sitemap must not hide it.
            _ => {}
        }
    }
}

/// [`ListingError::NotAListing`], saying what the body is instead.
fn not_a_listing(text: &str, root: Option<&str>) -> ListingError {
    let found = match root {
        _ if looks_like_html(text) => "an HTML page".to_owned(),
        Some(name) => format!("the root element is <{}>", quoted_name(name)),
        None if text.trim().is_empty() => "the body is empty".to_owned(),
        None => "the body holds no XML element".to_owned(),
    };
    ListingError::NotAListing { found }
}

/// Does an `<html` tag (any case) appear in the first KiB? Error pages served in place of a
/// sitemap are the usual case.
fn looks_like_html(text: &str) -> bool {
    let head = text
        .as_bytes()
        .get(..SNIFF_BYTES)
        .unwrap_or(text.as_bytes());
    head.windows(5)
        .any(|window| window.eq_ignore_ascii_case(b"<html"))
}

/// [`ListingError::Malformed`] from the XML reader's error.
fn malformed(position: u64, error: &quick_xml::Error) -> ListingError {
    ListingError::Malformed {
        offset: offset(position),
        detail: error.to_string(),
    }
}

/// A reader position as an offset.
fn offset(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX)
}

/// The part of a qualified name after its prefix: `sm:loc` → `loc`.
fn local_name(qualified: &str) -> &str {
    qualified
        .rsplit_once(':')
        .map_or(qualified, |(_, local)| local)
}

/// The element name at the start of a tag's text (after its `<`).
fn tag_name(tag: &str) -> &str {
    let end = tag
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
        .unwrap_or(tag.len());
    tag.get(..end).unwrap_or_default()
}

/// An element name short enough to quote in a message.
fn quoted_name(name: &str) -> Cow<'_, str> {
    match name.char_indices().nth(QUOTED_NAME_CHARS) {
        Some((end, _)) => Cow::Owned(format!("{}…", name.get(..end).unwrap_or_default())),
        None => Cow::Borrowed(name),
    }
}
