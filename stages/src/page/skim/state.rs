//! The skim's state: text blocks, links with their anchor text and context, base URL, title,
//! `<meta>` robots and refresh, updated as the emitter hands over whole tags and runs of text; then
//! the finished [`Skim`].
//!
//! **In:** start tags ([`Tag`]), end tags and text from the emitter. **Out:** a `Skim` with the
//! links resolved and the language detected on the longest blocks.
//!
//! **Invariants:** at most `max_links` links kept, the others counted; text inside skipped elements
//! never reaches a block; feeds and JavaScript links come in the extractor's order (an element's
//! JavaScript links, its feed, then its own link; a script's after its end tag).

use std::borrow::Cow;

use html5gum::State as Mode;
use url::Url;

use crate::page::extract::{self, LinkKind, MetaRobots, RawLink, push_collapsed};
use crate::page::lang;
use crate::page::script_links::{element_urls, navigation_urls, runs_javascript};

use super::Skim;
use super::tags::{breaks_block, raw_text, reads_attributes, skips_content};

/// A start tag as the emitter collected it.
pub(super) struct Tag<'a> {
    /// Lower-cased name.
    pub(super) name: &'a [u8],
    pub(super) self_closing: bool,
    /// Attribute names and values, one after the other.
    pub(super) bytes: &'a [u8],
    /// Per attribute: where its name starts, where it ends (and the value starts), where the
    /// value ends, in `bytes`.
    pub(super) attrs: &'a [(usize, usize, usize)],
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

    /// Every attribute kept, name and value, in the page's order.
    fn pairs(&self) -> impl Iterator<Item = (Cow<'a, str>, Cow<'a, str>)> {
        let bytes = self.bytes;
        self.attrs.iter().map(move |&(from, to, end)| {
            let piece = |range| String::from_utf8_lossy(bytes.get(range).unwrap_or_default());
            (piece(from..to), piece(to..end))
        })
    }

    fn has_rel(&self, token: &str) -> bool {
        self.attr("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case(token))
        })
    }
}

/// Which attributes of a start tag the emitter keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    Nothing,
    /// All of them: an element the skim reads.
    All,
    /// Those that may hold a JavaScript link (`on…`, `data-url`…), judged by name.
    Scripted,
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
pub(super) struct State {
    pub(super) text: String,
    pub(super) block: String,
    pub(super) pending_space: bool,
    /// Names of the open elements whose content is skipped (innermost last).
    pub(super) skipping: Vec<&'static [u8]>,
    /// The raw-text element the tokenizer is in, and whether its text is the title.
    pub(super) raw: Option<(&'static [u8], bool)>,
    pub(super) title: Option<String>,
    /// Whitespace seen in the title and not written yet (the title comes in pieces).
    pub(super) title_pending: bool,
    pub(super) base_href: Option<String>,
    pub(super) robots: MetaRobots,
    pub(super) links: Vec<RawLink>,
    /// The open `<a>`: its link index and pending space state.
    pub(super) anchor: Option<(usize, bool)>,
    /// Links whose text sits in the current block: (link, start, end) byte offsets.
    pub(super) spans: Vec<(usize, usize, Option<usize>)>,
    /// Where each block is in `text`: (start, length).
    pub(super) blocks: Vec<(usize, usize)>,
    /// Links kept at most.
    pub(super) max_links: usize,
    /// Attributes read on one tag at most.
    pub(super) max_attributes: usize,
    /// Links past `max_links`.
    pub(super) links_cut: usize,
    /// JavaScript links still to find on the page (none when they are not read).
    pub(super) javascript_left: usize,
    /// The bytes of the inline script being read, for its JavaScript links.
    pub(super) script: Option<Vec<u8>>,
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

    /// The bytes of an inline script, as the tokenizer hands them: no conversion to text (the
    /// JavaScript reader works on bytes). False when no script is being read.
    pub(super) fn script_bytes(&mut self, bytes: &[u8]) -> bool {
        match (&mut self.script, self.raw) {
            (Some(script), Some((_, false))) => {
                script.extend_from_slice(bytes);
                true
            }
            _ => false,
        }
    }

    /// Whether the tokenizer's text is read (the title's, an inline script's, or visible text).
    pub(super) fn wants_text(&self) -> bool {
        match self.raw {
            Some((_, is_title)) => is_title || self.script.is_some(),
            None => self.skipping.is_empty(),
        }
    }

    /// A run of text (never cut inside a character: the emitter hands it whole).
    pub(super) fn characters(&mut self, text: &str) {
        match self.raw_kind() {
            Raw::Title => {
                if let Some(title) = &mut self.title {
                    push_collapsed(title, text, &mut self.title_pending);
                }
            }
            Raw::Hidden => {
                if let Some(script) = &mut self.script {
                    script.extend_from_slice(text.as_bytes());
                }
            }
            Raw::No => {
                if self.skipping.is_empty() {
                    self.push_text(text);
                }
            }
        }
    }

    /// Which attributes of the start tag `name` matter.
    pub(super) fn attributes_of(&self, name: &[u8]) -> Keep {
        if !self.skipping.is_empty() {
            Keep::Nothing
        } else if reads_attributes(name) {
            Keep::All
        } else if self.javascript_left > 0 {
            Keep::Scripted
        } else {
            Keep::Nothing
        }
    }

    /// Reads a start tag; returns the state the tokenizer switches to, if any.
    pub(super) fn start_tag(&mut self, tag: &Tag) -> Option<Mode> {
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
        if self.javascript_left > 0 {
            self.javascript_links(tag);
        }
        match name {
            b"a" => self.open_anchor(tag),
            b"area" => self.link_with_text(tag, "href", LinkKind::Area, "alt"),
            b"iframe" => self.link_with_text(tag, "src", LinkKind::Iframe, "title"),
            b"frame" => self.link_with_text(tag, "src", LinkKind::Frame, "title"),
            b"base" => {
                if self.base_href.is_none()
                    && let Some(href) = tag.attr("href")
                {
                    self.base_href = Some(href.into_owned());
                }
            }
            b"meta" => self.meta(tag),
            b"link" => self.link_element(tag),
            b"img" => self.image_alt(tag),
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
        if name == b"script"
            && self.javascript_left > 0
            && tag.attr("src").is_none()
            && runs_javascript(tag.attr("type").as_deref())
        {
            self.script = Some(Vec::new());
        }
        let is_title = name == b"title" && self.title.is_none();
        if is_title {
            self.title = Some(String::new());
        }
        self.raw = Some((raw_name, is_title));
        Some(mode)
    }

    /// The JavaScript links in the attributes of a start tag; those of an `<a href>` or an
    /// `<area href>` take the texts of the element's own link, pushed next.
    fn javascript_links(&mut self, tag: &Tag) {
        let mut urls = Vec::new();
        element_urls(tag.name, tag.pairs(), &mut self.javascript_left, &mut urls);
        let own = matches!(tag.name, b"a" | b"area");
        let nofollow = own && tag.has_rel("nofollow");
        let borrows = own && tag.attr("href").is_some();
        for url in urls {
            let index = self.push_link(&url, LinkKind::Javascript, nofollow);
            if let Some(link) = self.links.get_mut(index) {
                link.text_from_next = borrows;
            }
        }
    }

    /// The end of an inline script: the navigation calls in its text.
    fn end_script(&mut self) {
        if let Some(code) = self.script.take() {
            let mut urls = Vec::new();
            navigation_urls(&code, &mut self.javascript_left, &mut urls);
            for url in urls {
                self.push_link(&url, LinkKind::Javascript, false);
            }
        }
    }

    /// A `<link>`: a feed (its `title` the anchor text), then `rel=next|prev|previous`.
    fn link_element(&mut self, tag: &Tag) {
        let Some(href) = tag.attr("href") else {
            return;
        };
        let nofollow = tag.has_rel("nofollow");
        if extract::is_feed(tag.attr("rel").as_deref(), tag.attr("type").as_deref()) {
            let index = self.push_link(&href, LinkKind::Feed, nofollow);
            if let Some(link) = self.links.get_mut(index) {
                push_collapsed(
                    &mut link.anchor,
                    &tag.attr("title").unwrap_or_default(),
                    &mut false,
                );
            }
        }
        if tag.has_rel("next") || tag.has_rel("prev") || tag.has_rel("previous") {
            self.push_link(&href, LinkKind::LinkRel, nofollow);
        }
    }

    /// An `<a>`: the open anchor closed, and with an `href`, a link whose anchor text the
    /// following text makes.
    fn open_anchor(&mut self, tag: &Tag) {
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
            // The anchor's text starts after the space that may separate it from what comes
            // before.
            let start = self.block.len() + usize::from(self.pending_space);
            self.spans.push((index, start, None));
            self.anchor = Some((index, false));
        }
    }

    /// A link in the attribute `url` whose anchor text is the attribute `text` (`<area alt>`,
    /// `<iframe title>`, `<frame title>`).
    fn link_with_text(&mut self, tag: &Tag, url: &str, kind: LinkKind, text: &str) {
        let nofollow = kind == LinkKind::Area && tag.has_rel("nofollow");
        if let Some(target) = tag.attr(url) {
            let index = self.push_link(&target, kind, nofollow);
            if let Some(link) = self.links.get_mut(index) {
                push_collapsed(
                    &mut link.anchor,
                    &tag.attr(text).unwrap_or_default(),
                    &mut false,
                );
            }
        }
    }

    /// An image inside an open anchor: its `alt` is the link's alternative text.
    fn image_alt(&mut self, tag: &Tag) {
        if let Some((index, _)) = self.anchor
            && let Some(alt) = tag.attr("alt")
            && let Some(link) = self.links.get_mut(index)
            && link.alt.is_empty()
        {
            push_collapsed(&mut link.alt, &alt, &mut false);
        }
    }

    pub(super) fn end_tag(&mut self, name: &[u8]) {
        if let Some((open, _)) = self.raw {
            if open == name {
                self.end_script();
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

    pub(super) fn finish(mut self, page_url: &Url) -> Skim {
        // A script without its end tag runs to the end of the page.
        self.end_script();
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
