//! Skim: what the crawl needs from an HTML page, read from the HTML tokenizer alone.
//!
//! **In:** decoded HTML and the page URL.
//! **Out:** [`Skim`]: the first `<title>`, all visible text (blocks separated by a blank line),
//! the out-links with their anchor text and the text around them, `<meta name=robots>`, and
//! the language of the text.
//!
//! **Invariants:**
//! - links follow the rules of [`crate::page::extract`]: `<a href>`, `<area href>`, `<frame src>`,
//!   `<iframe src>`, `<link rel=next|prev|previous>`, `<meta http-equiv=refresh>`, resolved
//!   against the first `<base href>` (wherever it is) or the page URL, fragment removed, only
//!   http(s); anchor text is the element's text, else an image's `alt`, else `title` /
//!   `aria-label` (`alt` for `<area>`, `title` for frames);
//! - the text leaves out `<script>`, `<style>`, `<noscript>`, `<template>`, SVG, MathML and
//!   embedded media, as the extractor does; unlike it, the skim does not drop `hidden` elements
//!   and keeps navigation and other boilerplate: the crawl judges a page by all its visible text;
//!   it also leaves out the raw text of `<textarea>`, `<xmp>` and `<noembed>` (a form field's
//!   content, obsolete or fallback markup), which the extractor keeps as text;
//! - never panics, whatever the input.
//!
//! Why a second reader next to [`crate::page::extract::extract_html`]: the crawl reads every page
//! it fetches, and the extractor builds a tree, walks it and classifies every block, which is most
//! of the crawl's CPU time. The crawl only needs the text and the links, so it skims with a
//! tokenizer, which follows the HTML standard and treats malformed markup exactly as browsers do at
//! that level; the extract stage reads the stored page again with the full extractor.
//!
//! The tokenizer is html5gum's rather than html5ever's (which the extractor uses): html5gum
//! hands its [`Emitter`] byte slices of the page, so the skim copies only the text it keeps
//! and the attributes of the few elements it reads, and runs of text (script content included)
//! are found with a vectorised byte search: 5× html5ever's tokenizer on the fixture pages
//! (`examples/bench_skim.rs`). Without a tree builder, the emitter itself switches the
//! tokenizer to the raw-text states after `<script>`, `<style>`, `<title>`, `<textarea>`…, as
//! the skim did with html5ever.

use std::borrow::Cow;
use std::convert::Infallible;

use html5gum::{Emitter, Error, State as Mode, Tokenizer};
use url::Url;

use crate::page::extract::{self, Link, LinkKind, MetaRobots, RawLink, push_collapsed};
use crate::page::lang::{self, LangGuess};

/// What the crawl learns from a page's HTML.
#[derive(Debug, Clone, Default)]
pub struct Skim {
    /// Text of the first `<title>`, whitespace-collapsed.
    pub title: Option<String>,
    /// Every visible text block, whitespace-collapsed, separated by `\n\n`.
    pub text: String,
    /// Out-links in document order.
    pub links: Vec<Link>,
    /// Directives of `<meta name="robots">`.
    pub meta_robots: MetaRobots,
    /// Language detected on the text.
    pub language: Option<LangGuess>,
    /// Links past the limit, left out.
    pub links_cut: usize,
    /// Attributes past the limit on one element, left out.
    pub attributes_cut: usize,
}

/// Stack a thread that skims pages should have. The tokenizer reads each attribute of a tag
/// with one more nested call (about 200 bytes of stack each, optimised; 4 KB in a debug build):
/// the skim leaves a tag at `max_attributes`, and this leaves room for the most a topic may
/// allow (10,000) in either build. Only the pages a thread touches are
/// committed, so a large reservation costs nothing.
pub const STACK_BYTES: usize = 64 << 20;

/// Skims `html` (already decoded) found at `page_url`.
pub fn skim_html(html: &str, page_url: &Url) -> Skim {
    skim_html_with(
        html,
        page_url,
        extract::DEFAULT_MAX_LINKS,
        extract::DEFAULT_MAX_ATTRIBUTES,
    )
}

/// [`skim_html`] keeping at most `max_links` links, the first ones in document order
/// ([`Skim::links_cut`] counts the others; a page of a hundred thousand links would cost the
/// crawl a hundred thousand rows, URL checks and priorities), and reading at most
/// `max_attributes` attributes on one element ([`Skim::attributes_cut`]).
pub fn skim_html_with(html: &str, page_url: &Url, max_links: usize, max_attributes: usize) -> Skim {
    // html5gum reads each attribute of a tag one call deeper: the reader counts them, and on
    // the first tag past `max_attributes` leaves the tokenizer by unwinding (its depth is then
    // bounded by the limit). Only such a page is scanned for tags to cut (`cap_attributes`)
    // and read again; the others cost a counter per attribute.
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        skim_once(html, page_url, max_links, max_attributes)
    }));
    match first {
        Ok(skim) => skim,
        Err(payload) if payload.is::<TooManyAttributes>() => {
            let mut attributes_cut = 0;
            let capped = extract::cap_attributes(html, max_attributes, &mut attributes_cut);
            let second = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                skim_once(&capped, page_url, max_links, max_attributes)
            }));
            match second {
                Ok(mut skim) => {
                    skim.attributes_cut = attributes_cut;
                    skim
                }
                // A tag the scan did not cut (it reads the page as the tokenizer does; this
                // would be a bug): the page gives no text and no links rather than a crash.
                Err(_) => Skim {
                    attributes_cut: attributes_cut.max(1),
                    ..Skim::default()
                },
            }
        }
        Err(other) => std::panic::resume_unwind(other),
    }
}

/// Unwinds the tokenizer out of a tag with too many attributes (see [`skim_html_with`]).
struct TooManyAttributes;

/// One reading of the page; unwinds with [`TooManyAttributes`] at a tag of more than
/// `max_attributes` attributes.
fn skim_once(html: &str, page_url: &Url, max_links: usize, max_attributes: usize) -> Skim {
    let mut state = State {
        max_links,
        max_attributes,
        ..State::default()
    };
    // The page is read as it is: the extractor's pre-scan (`extract::prepare`), which cuts the
    // content of scripts and style sheets, made the skim slower with html5gum, which crosses
    // that content by byte search and copies none of it (0.37 s against 0.50 s on the fixture
    // pages). Reading a `&str` cannot fail, and the emitter yields no tokens: the tokenizer's
    // work is all in the calls it makes to the emitter.
    let Ok(()) = Tokenizer::new_with_emitter(html, Reader::new(&mut state)).finish();
    state.finish(page_url)
}

/// Skims a `text/plain` page: all of it is text, it has no links, no title and no directives.
pub fn skim_plain(text: &str) -> Skim {
    let extracted = extract::extract_plain(text);
    let mut joined = String::new();
    for block in &extracted.blocks {
        if !joined.is_empty() {
            joined.push_str("\n\n");
        }
        joined.push_str(&block.text);
    }
    Skim {
        text: joined,
        language: extracted.language,
        ..Skim::default()
    }
}

/// Elements whose content is not text a reader sees (the name, for the stack of skipped
/// elements).
fn skips_content(name: &[u8]) -> Option<&'static [u8]> {
    Some(match name {
        b"noscript" => b"noscript",
        b"template" => b"template",
        b"svg" => b"svg",
        b"math" => b"math",
        b"object" => b"object",
        b"video" => b"video",
        b"audio" => b"audio",
        b"canvas" => b"canvas",
        _ => return None,
    })
}

/// Elements whose text the tokenizer reads as raw text up to their end tag: the state it
/// switches to, and the name (to recognise the end tag).
fn raw_text(name: &[u8]) -> Option<(Mode, &'static [u8])> {
    Some(match name {
        b"script" => (Mode::ScriptData, b"script"),
        b"style" => (Mode::RawText, b"style"),
        b"xmp" => (Mode::RawText, b"xmp"),
        b"iframe" => (Mode::RawText, b"iframe"),
        b"noembed" => (Mode::RawText, b"noembed"),
        b"noframes" => (Mode::RawText, b"noframes"),
        b"title" => (Mode::RcData, b"title"),
        b"textarea" => (Mode::RcData, b"textarea"),
        _ => return None,
    })
}

/// Elements whose attributes the skim reads.
fn reads_attributes(name: &[u8]) -> bool {
    matches!(
        name,
        b"a" | b"area" | b"iframe" | b"frame" | b"base" | b"meta" | b"link" | b"img"
    )
}

/// Elements that end a block of text (so that words on both sides are not glued together and
/// a link's surrounding text stays within its paragraph, list item or cell).
fn breaks_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"body"
            | b"caption"
            | b"center"
            | b"dd"
            | b"details"
            | b"dialog"
            | b"dir"
            | b"div"
            | b"dl"
            | b"dt"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"header"
            | b"hgroup"
            | b"hr"
            | b"html"
            | b"legend"
            | b"li"
            | b"listing"
            | b"main"
            | b"menu"
            | b"nav"
            | b"ol"
            | b"option"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"tr"
            | b"ul"
            | b"xmp"
    )
}

/// A start tag as the emitter collected it.
struct Tag<'a> {
    /// Lower-cased name.
    name: &'a [u8],
    self_closing: bool,
    /// Attribute names and values, one after the other.
    bytes: &'a [u8],
    /// Per attribute: where its name starts, where it ends (and the value starts), where the
    /// value ends, in `bytes`.
    attrs: &'a [(usize, usize, usize)],
}

impl<'a> Tag<'a> {
    /// The value of the first attribute named `name` (the tokenizer drops later duplicates).
    fn attr(&self, name: &str) -> Option<Cow<'a, str>> {
        let (_, start, end) = self
            .attrs
            .iter()
            .find(|(from, to, _)| self.bytes.get(*from..*to) == Some(name.as_bytes()))?;
        // The pieces come from a `&str` cut at ASCII bytes or from decoded character
        // references, so the value is UTF-8 and the lossy conversion borrows.
        Some(String::from_utf8_lossy(self.bytes.get(*start..*end)?))
    }

    fn has_rel(&self, token: &str) -> bool {
        self.attr("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case(token))
        })
    }
}

/// Where the tokenizer is inside a raw-text element.
#[derive(PartialEq)]
enum Raw {
    /// Not inside one.
    No,
    /// `<title>`: its text is the title.
    Title,
    /// `<script>`, `<style>`, `<textarea>`…: its text is not the page's.
    Hidden,
}

#[derive(Default)]
struct State {
    text: String,
    block: String,
    pending_space: bool,
    /// Names of the open elements whose content is skipped (innermost last).
    skipping: Vec<&'static [u8]>,
    /// The raw-text element the tokenizer is in, and whether its text is the title.
    raw: Option<(&'static [u8], bool)>,
    title: Option<String>,
    /// Whitespace seen in the title and not written yet (the title comes in pieces).
    title_pending: bool,
    base_href: Option<String>,
    robots: MetaRobots,
    links: Vec<RawLink>,
    /// The open `<a>`: its link index and pending space state.
    anchor: Option<(usize, bool)>,
    /// Links whose text sits in the current block: (link, start, end) byte offsets.
    spans: Vec<(usize, usize, Option<usize>)>,
    /// Where each block is in `text`: (start, length).
    blocks: Vec<(usize, usize)>,
    /// Links kept at most.
    max_links: usize,
    /// Attributes read on one tag at most.
    max_attributes: usize,
    /// Links past `max_links`.
    links_cut: usize,
}

impl State {
    fn raw_kind(&self) -> Raw {
        match &self.raw {
            None => Raw::No,
            Some((_, true)) => Raw::Title,
            Some((_, false)) => Raw::Hidden,
        }
    }

    fn push_text(&mut self, text: &str) {
        for ch in text.chars() {
            if ch.is_whitespace() {
                self.pending_space = true;
            } else {
                if self.pending_space && !self.block.is_empty() {
                    self.block.push(' ');
                }
                self.pending_space = false;
                self.block.push(ch);
            }
        }
        if let Some((index, pending)) = &mut self.anchor
            && let Some(link) = self.links.get_mut(*index)
        {
            push_collapsed(&mut link.anchor, text, pending);
        }
    }

    fn flush(&mut self) {
        for (index, start, end) in self.spans.drain(..) {
            let end = end.unwrap_or(self.block.len());
            if let Some(link) = self.links.get_mut(index) {
                link.context = extract::context_around(&self.block, start, end);
            }
        }
        if !self.block.is_empty() {
            if !self.text.is_empty() {
                self.text.push_str("\n\n");
            }
            self.blocks.push((self.text.len(), self.block.len()));
            self.text.push_str(&self.block);
            self.block.clear();
        }
        self.pending_space = false;
        // An anchor still open goes on in the next block: its context starts there.
        if let Some((index, _)) = self.anchor {
            self.spans.push((index, 0, None));
        }
    }

    /// Records a link; returns its index (`usize::MAX`, which no link has, past `max_links`:
    /// its text still reads as link text).
    fn push_link(&mut self, href: &str, kind: LinkKind, nofollow: bool) -> usize {
        if self.links.len() >= self.max_links {
            self.links_cut += 1;
            return usize::MAX;
        }
        self.links.push(RawLink::new(href, kind, nofollow));
        self.links.len() - 1
    }

    fn close_anchor(&mut self) {
        if let Some((index, _)) = self.anchor.take() {
            let end = self.block.len();
            for span in self.spans.iter_mut().rev() {
                if span.0 == index && span.2.is_none() {
                    span.2 = Some(end);
                    break;
                }
            }
        }
    }

    /// Whether the tokenizer's text is read (the title's, or visible text).
    fn wants_text(&self) -> bool {
        match self.raw {
            Some((_, is_title)) => is_title,
            None => self.skipping.is_empty(),
        }
    }

    /// A run of text (never cut inside a character: the emitter hands it whole).
    fn characters(&mut self, text: &str) {
        match self.raw_kind() {
            Raw::Title => {
                if let Some(title) = &mut self.title {
                    push_collapsed(title, text, &mut self.title_pending);
                }
            }
            Raw::Hidden => {}
            Raw::No => {
                if self.skipping.is_empty() {
                    self.push_text(text);
                }
            }
        }
    }

    /// Whether the attributes of the start tag `name` matter.
    fn reads_attributes_of(&self, name: &[u8]) -> bool {
        self.skipping.is_empty() && reads_attributes(name)
    }

    /// Reads a start tag; returns the state the tokenizer switches to, if any.
    fn start_tag(&mut self, tag: &Tag) -> Option<Mode> {
        let name = tag.name;
        // Raw-text elements switch the tokenizer even inside skipped content, so that their
        // text is never read as markup (a `</div>` inside a script string must stay text).
        let raw = raw_text(name).filter(|_| !tag.self_closing);
        if !self.skipping.is_empty() {
            if let Some(skipped) = skips_content(name)
                && !tag.self_closing
            {
                self.skipping.push(skipped);
            }
            let (mode, raw_name) = raw?;
            self.raw = Some((raw_name, false));
            return Some(mode);
        }
        match name {
            b"a" => {
                self.close_anchor();
                if let Some(href) = tag.attr("href") {
                    let index = self.push_link(&href, LinkKind::Anchor, tag.has_rel("nofollow"));
                    let fallback = tag
                        .attr("title")
                        .or_else(|| tag.attr("aria-label"))
                        .unwrap_or_default();
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(&mut link.fallback, &fallback, &mut false);
                    }
                    // The anchor's text starts after the space that may separate it from what
                    // comes before.
                    let start = self.block.len() + usize::from(self.pending_space);
                    self.spans.push((index, start, None));
                    self.anchor = Some((index, false));
                }
            }
            b"area" => {
                if let Some(href) = tag.attr("href") {
                    let index = self.push_link(&href, LinkKind::Area, tag.has_rel("nofollow"));
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(
                            &mut link.anchor,
                            &tag.attr("alt").unwrap_or_default(),
                            &mut false,
                        );
                    }
                }
            }
            b"iframe" | b"frame" => {
                if let Some(src) = tag.attr("src") {
                    let kind = if name == b"iframe" {
                        LinkKind::Iframe
                    } else {
                        LinkKind::Frame
                    };
                    let index = self.push_link(&src, kind, false);
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(
                            &mut link.anchor,
                            &tag.attr("title").unwrap_or_default(),
                            &mut false,
                        );
                    }
                }
            }
            b"base" => {
                if self.base_href.is_none()
                    && let Some(href) = tag.attr("href")
                {
                    self.base_href = Some(href.into_owned());
                }
            }
            b"meta" => self.meta(tag),
            b"link" => {
                if let Some(href) = tag.attr("href")
                    && (tag.has_rel("next") || tag.has_rel("prev") || tag.has_rel("previous"))
                {
                    self.push_link(&href, LinkKind::LinkRel, tag.has_rel("nofollow"));
                }
            }
            b"img" => {
                if let Some((index, _)) = self.anchor
                    && let Some(alt) = tag.attr("alt")
                    && let Some(link) = self.links.get_mut(index)
                    && link.alt.is_empty()
                {
                    push_collapsed(&mut link.alt, &alt, &mut false);
                }
            }
            b"br" => self.pending_space = true,
            b"plaintext" => {
                self.flush();
                return Some(Mode::PlainText);
            }
            _ => {
                if breaks_block(name) {
                    self.flush();
                }
                if let Some(skipped) = skips_content(name)
                    && !tag.self_closing
                {
                    self.skipping.push(skipped);
                }
            }
        }
        let (mode, raw_name) = raw?;
        let is_title = name == b"title" && self.title.is_none();
        if is_title {
            self.title = Some(String::new());
        }
        self.raw = Some((raw_name, is_title));
        Some(mode)
    }

    fn end_tag(&mut self, name: &[u8]) {
        if let Some((open, _)) = self.raw {
            if open == name {
                self.raw = None;
            }
            return;
        }
        if let Some(top) = self.skipping.last() {
            if *top == name {
                self.skipping.pop();
            }
            return;
        }
        if name == b"a" {
            self.close_anchor();
        } else if breaks_block(name) {
            self.flush();
        }
    }

    fn meta(&mut self, tag: &Tag) {
        let content = tag.attr("content").unwrap_or_default();
        if tag
            .attr("name")
            .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"))
        {
            extract::read_robots(&mut self.robots, &content);
        }
        if tag
            .attr("http-equiv")
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("refresh"))
            && let Some(target) = extract::refresh_url(&content)
        {
            self.push_link(target, LinkKind::MetaRefresh, false);
        }
    }

    fn finish(mut self, page_url: &Url) -> Skim {
        self.close_anchor();
        self.flush();
        let base = self
            .base_href
            .as_deref()
            .and_then(|href| page_url.join(href.trim()).ok())
            .unwrap_or_else(|| page_url.clone());
        let links = extract::resolve_links(&base, self.links);
        let language = lang::detect(&language_sample(&self.text, &self.blocks));
        Skim {
            title: self.title.filter(|t| !t.is_empty()),
            text: self.text,
            links,
            meta_robots: self.robots,
            language,
            links_cut: self.links_cut,
            attributes_cut: 0,
        }
    }
}

/// The longest blocks, in document order, up to the extractor's language sample size: running
/// text rather than the menus that open most pages, and a bounded cost on long pages.
fn language_sample(text: &str, blocks: &[(usize, usize)]) -> String {
    let mut by_length: Vec<usize> = (0..blocks.len()).collect();
    by_length.sort_by_key(|&i| std::cmp::Reverse(blocks[i].1));
    let mut chosen = Vec::new();
    let mut size = 0;
    for i in by_length {
        if size >= extract::LANG_SAMPLE_BYTES {
            break;
        }
        size += blocks[i].1 + 1;
        chosen.push(i);
    }
    chosen.sort_unstable();
    let mut sample = String::with_capacity(size);
    for i in chosen {
        let (start, len) = blocks[i];
        if let Some(block) = text.get(start..start + len) {
            sample.push_str(block);
            sample.push('\n');
        }
    }
    sample
}

/// The html5gum emitter: collects what a tag or a run of text is made of, in buffers kept
/// across tokens, and hands it whole to the [`State`].
struct Reader<'s> {
    state: &'s mut State,
    /// Text since the last tag, when the state reads it.
    chars: Vec<u8>,
    /// The current tag's name.
    name: Vec<u8>,
    /// The last start tag's name: the tokenizer leaves a raw-text state at its end tag only.
    last_start: Vec<u8>,
    is_end_tag: bool,
    self_closing: bool,
    /// Whether the current tag's attributes are kept.
    keep_attrs: bool,
    /// The current tag's attribute names and values, and where each is (see [`Tag`]).
    attr_bytes: Vec<u8>,
    attrs: Vec<(usize, usize, usize)>,
    /// Attributes of the current tag so far.
    attributes: usize,
}

impl<'s> Reader<'s> {
    fn new(state: &'s mut State) -> Self {
        Reader {
            state,
            chars: Vec::new(),
            name: Vec::new(),
            last_start: Vec::new(),
            is_end_tag: false,
            self_closing: false,
            keep_attrs: false,
            attr_bytes: Vec::new(),
            attrs: Vec::new(),
            attributes: 0,
        }
    }

    fn flush_chars(&mut self) {
        if self.chars.is_empty() {
            return;
        }
        // Text is cut at tags only, so the run is whole characters (UTF-8: the lossy
        // conversion borrows). NUL in text is a parse error that browsers drop; html5ever's
        // tokenizer sent it apart, as a token the skim ignored.
        let text = String::from_utf8_lossy(&self.chars);
        if memchr::memchr(0, text.as_bytes()).is_some() {
            self.state.characters(&text.replace('\0', ""));
        } else {
            self.state.characters(&text);
        }
        self.chars.clear();
    }

    fn init_tag(&mut self, is_end_tag: bool) {
        self.name.clear();
        self.is_end_tag = is_end_tag;
        self.self_closing = false;
        self.keep_attrs = false;
        self.attr_bytes.clear();
        self.attrs.clear();
        self.attributes = 0;
    }
}

impl Emitter for Reader<'_> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start.clear();
        self.last_start
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_chars();
    }

    fn emit_error(&mut self, _error: Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, c: &[u8]) {
        // Text the state does not read (scripts, style sheets, skipped elements) is not
        // copied: the state changes at tags only, and the buffer is flushed before each.
        if self.state.wants_text() {
            self.chars.extend_from_slice(c);
        }
    }

    fn init_start_tag(&mut self) {
        self.init_tag(false);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(true);
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<Mode> {
        self.flush_chars();
        if self.is_end_tag {
            self.state.end_tag(&self.name);
            return None;
        }
        let mode = self.state.start_tag(&Tag {
            name: &self.name,
            self_closing: self.self_closing,
            bytes: &self.attr_bytes,
            attrs: &self.attrs,
        });
        std::mem::swap(&mut self.last_start, &mut self.name);
        mode
    }

    fn emit_current_comment(&mut self) {}

    fn emit_current_doctype(&mut self) {}

    fn set_self_closing(&mut self) {
        self.self_closing = true;
    }

    fn set_force_quirks(&mut self) {}

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _s: &[u8]) {}

    fn push_doctype_name(&mut self, _s: &[u8]) {}

    fn init_doctype(&mut self) {}

    fn init_attribute(&mut self) {
        self.attributes += 1;
        if self.attributes > self.state.max_attributes {
            // Out of the tokenizer's nested calls before they exhaust the stack (see
            // `skim_html_with`); not a panic: no hook runs, no message is printed.
            std::panic::resume_unwind(Box::new(TooManyAttributes));
        }
        // The name is complete when the first attribute starts.
        self.keep_attrs = !self.is_end_tag && self.state.reads_attributes_of(&self.name);
        if self.keep_attrs {
            let at = self.attr_bytes.len();
            self.attrs.push((at, at, at));
        }
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        if self.keep_attrs {
            self.attr_bytes.extend_from_slice(s);
            let at = self.attr_bytes.len();
            if let Some(attr) = self.attrs.last_mut() {
                attr.1 = at;
                attr.2 = at;
            }
        }
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        if self.keep_attrs {
            self.attr_bytes.extend_from_slice(s);
            let at = self.attr_bytes.len();
            if let Some(attr) = self.attrs.last_mut() {
                attr.2 = at;
            }
        }
    }

    fn set_doctype_public_identifier(&mut self, _value: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _value: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _s: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _s: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.is_end_tag && !self.last_start.is_empty() && self.last_start == self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skim(html: &str) -> Skim {
        skim_html(
            html,
            &Url::parse("https://site.example/dir/page.html").unwrap(),
        )
    }

    #[test]
    fn reads_title_text_and_links_with_their_anchor_and_context() {
        let s = skim(
            r##"<html><head><title>  Le   titre </title>
            <meta name="robots" content="noindex, nofollow">
            <meta http-equiv="refresh" content="5; url=ailleurs.html">
            <link rel="next" href="p2.html"><script>var x = "<a href='no.html'>";</script>
            <style>a { color: red }</style></head>
            <body><p>Avant le lien <a href="cible.html#frag" title="t">le texte</a> et après.</p>
            <ul><li><a href="/img"><img alt="Une image"></a></li></ul>
            <noscript><a href="ns.html">pas vu</a> caché</noscript>
            <map><area href="zone.html" alt="Zone"></map><iframe src="cadre.html" title="Cadre"></iframe>
            <a href="mailto:x@example.org">courriel</a><a href="#haut">haut</a>
            <svg><title>pas un titre</title><a href="svg.html">svg</a></svg>
            <p>Fin</p></body></html>"##,
        );
        assert_eq!(s.title.as_deref(), Some("Le titre"));
        assert!(s.meta_robots.noindex && s.meta_robots.nofollow);
        assert_eq!(
            s.text,
            "Avant le lien le texte et après.\n\ncourrielhaut\n\nFin"
        );
        let links: Vec<(&str, LinkKind, &str)> = s
            .links
            .iter()
            .map(|l| (l.url.as_str(), l.kind, l.anchor.as_str()))
            .collect();
        assert_eq!(
            links,
            [
                (
                    "https://site.example/dir/ailleurs.html",
                    LinkKind::MetaRefresh,
                    ""
                ),
                ("https://site.example/dir/p2.html", LinkKind::LinkRel, ""),
                (
                    "https://site.example/dir/cible.html",
                    LinkKind::Anchor,
                    "le texte"
                ),
                ("https://site.example/img", LinkKind::Anchor, "Une image"),
                ("https://site.example/dir/zone.html", LinkKind::Area, "Zone"),
                (
                    "https://site.example/dir/cadre.html",
                    LinkKind::Iframe,
                    "Cadre"
                ),
            ]
        );
        assert_eq!(s.links[2].context, "Avant le lien le texte et après.");
    }

    #[test]
    fn base_href_applies_to_every_link() {
        let s = skim(
            r#"<a href="a.html">a</a><base href="https://autre.example/x/"><a href="b">b</a>"#,
        );
        let urls: Vec<&str> = s.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://autre.example/x/a.html",
                "https://autre.example/x/b"
            ]
        );
    }

    #[test]
    fn unclosed_and_nested_markup_never_panics_and_keeps_text() {
        for html in [
            "<a href=x>un<a href=y>deux",
            "<p>texte <a href=z>lien</p><p>suite",
            "<svg><script>",
            "<title>",
            "</a></a></p><a>",
            "<noscript><noscript></noscript>vu après",
            "<plaintext><a href=q>pas un lien",
            "\u{0}<a href='\u{0}'>\u{0}</a>",
        ] {
            let s = skim(html);
            assert!(s.text.len() <= html.len() * 2, "{html}");
        }
        let s = skim("<a href=x>un<a href=y>deux");
        let anchors: Vec<&str> = s.links.iter().map(|l| l.anchor.as_str()).collect();
        assert_eq!(anchors, ["un", "deux"]);
        assert!(skim("<plaintext><a href=q>pas un lien").links.is_empty());
        assert_eq!(
            skim("<p>texte <a href=z>lien</p><p>suite").text,
            "texte lien\n\nsuite"
        );
    }

    /// Title, links (URL, kind, anchor) and the words of the text, as the extractor reads them.
    fn agrees_with_extractor(html: &str) {
        use crate::page::extract::{ExtractOptions, extract_html};
        let url = Url::parse("https://site.example/dir/page.html").unwrap();
        let options = ExtractOptions {
            keep_everything: true,
            ..ExtractOptions::default()
        };
        let full = extract_html(html, &url, &options);
        let s = skim_html(html, &url);
        assert_eq!(s.title, full.title, "title of {html:?}");
        let links = |links: &[Link]| -> Vec<(String, LinkKind, String)> {
            links
                .iter()
                .map(|l| (l.url.clone(), l.kind, l.anchor.clone()))
                .collect()
        };
        assert_eq!(links(&s.links), links(&full.links), "links of {html:?}");
        let words =
            |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
        let full_text: Vec<&str> = full.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            words(&s.text),
            words(&full_text.join(" ")),
            "text of {html:?}"
        );
    }

    #[test]
    fn reads_raw_text_references_and_foreign_content_as_the_extractor_does() {
        for html in [
            // Markup inside the title is its text; references in it are decoded.
            "<title>Le <b>titre</b> &amp; co</title><p>texte</p>",
            "<title>Premier</title><title>Second</title>",
            "<svg><title>pas un titre</title></svg><title>Le vrai</title><p>t",
            // References in attribute values and text, legacy ones without `;` included,
            // and the ones the standard replaces.
            "<a href='a.html?x=1&amp;y=2&copy=3&notit;z'>entités &eacute;t&#233; &#x1F600;</a>",
            "<p>&lt;a href=x&gt; &notanentity; &amp &AMP; &#0; &#xD800; &#x110000;",
            // Everything after `<plaintext>` is text.
            "<p>a</p><plaintext><a href=q>pas un lien</a> &amp; <b>",
            // An unterminated comment runs to the end; `<!-->` and `<!--->` end at once.
            "<p>un <!-- commentaire <a href=c.html>x</a> sans fin",
            "<p>un <!-- commentaire --> deux <!--> trois <!---> quatre",
            // Script text is never markup, even with `<!--` escapes.
            "<p>x<script>document.write('<a href=s.html>s</a>')</script><a href=v.html>v</a>",
            "<p>x<script><!--<script>'</script>'</script>--></script><a href=e.html>e</a>",
            "<p>x<style>p{}</style>y",
            "<iframe src=f.html title=F><a href=in.html>in</a></iframe><p>après",
            // Foreign content and CDATA.
            "<svg><![CDATA[ </svg><a href=cd.html>cd</a> ]]></svg><p>fin",
            "<math><mi><a href=m.html>m</a></mi></math><p>fin",
            // NUL in text is dropped, in attributes replaced.
            "<p>a\u{0}b <a href=\"x\u{0}y.html\">c\u{0}d</a>",
            // Upper case names, `<base>` after the links, anchors from `title` and `alt`.
            "<A HREF=Up.html REL=NOFOLLOW>Up</A><BASE HREF=/b/>",
            "<a href=a.html title=T></a><a href=b.html><img alt=' I  '></a>",
            "<a href=x.html hréf=y.html>é<br>è</a><p\r\n>saut\r\nde ligne",
            "<table><tr><td>a<td>b<a href=t.html>lien</a> c</table>",
            "<noscript><p>ns <a href=ns.html>ns</a></p></noscript><p>vu",
        ] {
            agrees_with_extractor(html);
        }
    }

    #[test]
    fn form_fields_and_obsolete_raw_text_are_not_the_pages_text() {
        // The extractor keeps the text of `<textarea>`, `<xmp>` and `<noembed>`; the skim, as
        // before html5gum, reads them as raw text it leaves out (a form field's content or a
        // fallback is not the page's). Neither finds links in them.
        let s = skim(
            "<p>avant<textarea>dans <a href=t.html>pas</a></textarea> après</p>\
             <xmp><a href=x.html>x</a></xmp><noembed><a href=n.html>n</a></noembed>",
        );
        assert_eq!(s.text, "avant après");
        assert!(s.links.is_empty());
    }

    #[test]
    fn hostile_fragments_in_any_order_never_panic() {
        const PIECES: &[&str] = &[
            "<",
            "</",
            "<!",
            "<?",
            "<!--",
            "-->",
            "--!>",
            ">",
            "/>",
            "<a href=",
            "\"",
            "'",
            "=",
            "&",
            "&amp",
            "&#",
            "&#x",
            "1F600",
            ";",
            "<script>",
            "</script>",
            "<!--<script>",
            "<title>",
            "</title>",
            "<textarea>",
            "<plaintext>",
            "<svg>",
            "</svg>",
            "<![CDATA[",
            "]]>",
            "<math>",
            "<noscript>",
            "</noscript>",
            "<base href=",
            "<meta content=",
            "é",
            "😀",
            "\u{0}",
            "\r",
            "\n",
            " ",
            "texte",
            "<p>",
            "</p>",
            "<a>",
            "</a>",
            "<iframe src=",
            "<img alt=",
            "<br/>",
            "<é",
            "hréf",
            "<style>",
            "</style>",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut html = String::new();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                html.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let s = skim(&html);
            assert!(s.text.len() <= html.len() * 2, "{html:?}");
            assert!(
                s.links.iter().all(|l| l.url.starts_with("http")),
                "{html:?}"
            );
        }
    }

    /// `skim_html` of `page` (at `http://a.test/`) on a thread with the crawl's analysis stack.
    fn skim_on_an_analysis_stack(page: String) -> Skim {
        std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || skim_html(&page, &Url::parse("http://a.test/").unwrap()))
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn a_tag_of_a_hundred_thousand_attributes_is_read_without_exhausting_the_stack() {
        // html5gum reads each attribute with one more nested call: tens of thousands on one
        // tag overflowed the analysis thread's stack and aborted the whole crawl. The test
        // thread gets the stack the crawl's analysis threads have.
        let attrs: String = (0..100_000).map(|i| format!(" a{i}=\"v\"")).collect();
        let page = format!(
            "<html lang=fr><head><title>Graphes</title></head><body><div{attrs}>Un graphe \
             et ses sommets.</div><a href=\"/suite\">suite</a></body></html>"
        );
        let skim = skim_on_an_analysis_stack(page);
        assert_eq!(
            skim.attributes_cut,
            100_000 - extract::DEFAULT_MAX_ATTRIBUTES
        );
        assert!(
            skim.text.contains("Un graphe et ses sommets."),
            "{}",
            skim.text
        );
        assert_eq!(skim.links.len(), 1);
    }

    #[test]
    fn links_past_the_limit_are_counted_not_kept() {
        let links: String = (0..40)
            .map(|i| format!("<a href=\"/p{i}\">lien {i}</a> "))
            .collect();
        let page = format!("<html><body><p>{links}</p></body></html>");
        let url = Url::parse("http://a.test/").unwrap();
        let skim = skim_html_with(&page, &url, 25, 1000);
        assert_eq!((skim.links.len(), skim.links_cut), (25, 15));
        assert_eq!(skim.links[24].url, "http://a.test/p24");
        assert!(skim.text.contains("lien 39"));
    }

    #[test]
    fn attribute_bombs_in_end_tags_and_noscript_are_cut_too() {
        let bomb: String = (0..100_000).map(|_| " a=\"\"").collect();
        for page in [
            format!("<html><body><p>Un graphe.</p{bomb}><p>Des sommets.</p></body></html>"),
            format!(
                "<html><body><noscript><div{bomb}>caché</div></noscript><p>Un graphe.</p>\
                 </body></html>"
            ),
            format!(
                "<html><body><svg><title x{bomb}>t</title></svg><p>Un graphe.</p></body></html>"
            ),
        ] {
            let skim = skim_on_an_analysis_stack(page);
            assert!(skim.attributes_cut >= 99_000, "{}", skim.attributes_cut);
            assert!(skim.text.contains("Un graphe."), "{}", skim.text);
        }
    }
}
