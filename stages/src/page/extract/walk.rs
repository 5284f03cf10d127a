//! The tree walk: one iterative pass over the parsed page that cuts its text into raw blocks and
//! collects links, metadata and the structural cues of each block.
//!
//! **In:** the html5ever tree of a prepared page (see `scan`). **Out:** a [`Walker`] holding the
//! raw blocks in document order, the boilerplate regions, the main-content candidates, the
//! reader-comment ranges, the raw links and the page metadata; [`Walker::finish`] turns it into an
//! [`Extracted`].
//!
//! **Invariants:** no recursion (hostile nesting depth cannot overflow the stack); blocks are never
//! empty and their text is whitespace-collapsed; at most `max_links` links are kept, the others
//! counted.

use html5ever::{LocalName, local_name};
use scraper::{ElementRef, Html, Node};
use url::Url;

use crate::page::lang;

use super::block::RawBlock;
use super::classify::{Structure, classify};
use super::cues::{Attrs, ClassNames, has_rel, hides};
use super::language::stopword_language;
use super::links::{
    PageLinks, RawLink, context_around, read_robots, refresh_url, resolve, resolve_links,
};
use super::region::{Container, Cue, content_cue, region_mask, region_mask_all};
use super::{
    BlockKind, ExtractOptions, Extracted, LinkKind, MODIFIED_NAMES, MetaRobots, PUBLISHED_NAMES,
    PageDates, date_value, push_collapsed, sample_text,
};

/// What opening an element changed, undone when it closes.
#[derive(Default)]
struct Frame {
    block: bool,
    region_start: Option<usize>,
    /// Block index where a main-content candidate (see [`content_cue`]) opened, and its cue.
    container_start: Option<(usize, Cue)>,
    /// Block index where a reader-comment container opened.
    comment_start: Option<usize>,
    heading: bool,
    pre: bool,
    sectioning: bool,
    /// Index of the `<a href>` link this element opened.
    anchor: Option<usize>,
}

#[derive(Default)]
pub(super) struct Walker {
    blocks: Vec<RawBlock>,
    /// Text of the block being built.
    buf: String,
    buf_link_chars: usize,
    pending_space: bool,
    /// `buf` ends with a `<br>` line break and nothing visible came after it.
    after_br: bool,
    kinds: Vec<BlockKind>,
    heading_depth: usize,
    pre_depth: usize,
    sectioning_depth: usize,
    /// Block index ranges of structural boilerplate cues.
    regions: Vec<(usize, usize)>,
    /// Main-content candidates.
    containers: Vec<Container>,
    /// Block index ranges of reader-comment containers.
    comments: Vec<(usize, usize)>,
    links: Vec<RawLink>,
    /// The `<a href>` whose text is being read.
    open_anchor: Option<usize>,
    anchor_pending_space: bool,
    /// Byte offset in `buf` where the open anchor starts; `None` once its context is set.
    open_anchor_start: Option<usize>,
    /// Links of the current block: (link index, start, end) byte offsets in `buf`.
    block_links: Vec<(usize, usize, usize)>,
    title: Option<String>,
    base_href: Option<String>,
    canonical: Option<String>,
    dates: PageDates,
    /// `datetime` of the first `<time>` element (publication date when no tag names one).
    first_time: Option<String>,
    html_lang: Option<String>,
    first_lang: Option<String>,
    meta_lang: Option<String>,
    robots: MetaRobots,
    drop_comments: bool,
    /// [`ExtractOptions::max_links`].
    max_links: usize,
    /// Links past `max_links`, not kept.
    links_cut: usize,
    /// Feeds and JavaScript links, read before each element's own link.
    page_links: PageLinks,
}

impl Walker {
    /// A walker for one page, with the options the walk itself reads.
    pub(super) fn new(options: &ExtractOptions) -> Walker {
        Walker {
            drop_comments: options.drop_comments,
            max_links: options.max_links,
            page_links: PageLinks::new(options),
            ..Walker::default()
        }
    }

    /// Depth-first walk with open/close events, iterative.
    pub(super) fn walk(&mut self, document: &Html) {
        let root = document.tree.root();
        let mut frames: Vec<Frame> = Vec::new();
        let Some(mut node) = root.first_child() else {
            return;
        };
        loop {
            let mut descend = false;
            match node.value() {
                Node::Text(text) => self.text(&text.text),
                Node::Element(_) => {
                    if let Some(el) = ElementRef::wrap(node)
                        && let Some(frame) = self.open(el)
                    {
                        if node.has_children() {
                            frames.push(frame);
                            descend = true;
                        } else {
                            self.close(frame);
                        }
                    }
                }
                _ => {}
            }
            if descend && let Some(child) = node.first_child() {
                node = child;
                continue;
            }
            loop {
                if let Some(sibling) = node.next_sibling() {
                    node = sibling;
                    break;
                }
                match node.parent() {
                    Some(parent) if parent != root => {
                        node = parent;
                        if let Some(frame) = frames.pop() {
                            self.close(frame);
                        }
                    }
                    _ => {
                        while let Some(frame) = frames.pop() {
                            self.close(frame);
                        }
                        self.flush();
                        return;
                    }
                }
            }
        }
    }

    /// Handle an opening tag; `None` means "skip the element and its content".
    fn open(&mut self, el: ElementRef<'_>) -> Option<Frame> {
        let e = el.value();
        // Tag names are interned atoms: comparing them is comparing integers.
        let tag = &e.name.local;
        let a = Attrs::of(e);
        self.note_lang(tag, &a);
        self.note_dates(tag, &a);
        self.page_links
            .read(el, &mut self.links, self.max_links, &mut self.links_cut);
        if self.read_whole(tag, el, &a) {
            return None;
        }
        let mut frame = self.open_block(tag, &a);
        self.mark_depths(tag, &mut frame);
        self.open_link(tag, &a, &mut frame);
        Some(frame)
    }

    /// The elements read (or skipped) whole, their content never walked: scripts, embedded
    /// media, frames, `title`, `base`, `meta`, `link`, `area`, `br`, `img`. True for them.
    fn read_whole(&mut self, tag: &LocalName, el: ElementRef<'_>, a: &Attrs<'_>) -> bool {
        match *tag {
            local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("svg")
            | local_name!("math")
            | local_name!("object")
            | local_name!("embed")
            | local_name!("video")
            | local_name!("audio")
            | local_name!("canvas") => return true,
            local_name!("iframe") | local_name!("frame") => {
                if let Some(src) = a.src {
                    let kind = if *tag == local_name!("iframe") {
                        LinkKind::Iframe
                    } else {
                        LinkKind::Frame
                    };
                    self.push_link(src, a.title.unwrap_or_default(), kind, false);
                }
                return true;
            }
            local_name!("title") => {
                if self.title.is_none() {
                    let mut title = String::new();
                    let mut pending = false;
                    for text in el.text() {
                        push_collapsed(&mut title, text, &mut pending);
                    }
                    if !title.is_empty() {
                        self.title = Some(title);
                    }
                }
                return true;
            }
            local_name!("base") => {
                if self.base_href.is_none()
                    && let Some(href) = a.href
                {
                    self.base_href = Some(href.to_owned());
                }
                return true;
            }
            local_name!("meta") => {
                self.meta(a);
                return true;
            }
            local_name!("link") => {
                self.link_element(a);
                return true;
            }
            local_name!("area") => {
                if let Some(href) = a.href {
                    let anchor = a.alt.unwrap_or_default();
                    self.push_link(href, anchor, LinkKind::Area, has_rel(a.rel, "nofollow"));
                }
                return true;
            }
            local_name!("br") => {
                self.line_break();
                return true;
            }
            local_name!("img") => {
                if let Some(i) = self.open_anchor
                    && let Some(alt) = a.alt
                    && let Some(link) = self.links.get_mut(i)
                    && link.alt.is_empty()
                {
                    let mut pending = false;
                    push_collapsed(&mut link.alt, alt, &mut pending);
                }
                return true;
            }
            _ => {}
        }
        false
    }

    /// What opening a block, a boilerplate region, a main-content candidate or a reader-comment
    /// container starts.
    fn open_block(&mut self, tag: &LocalName, a: &Attrs<'_>) -> Frame {
        let mut frame = Frame::default();
        let kind = block_kind(tag);
        // Class and id words are read on block elements only (inline `span class="share"`
        // inside a paragraph is not a widget), in one pass for the three questions.
        let names = match kind {
            Some(_) if a.class.is_some() || a.id.is_some() => {
                ClassNames::of(a.class, a.id, self.drop_comments)
            }
            _ => ClassNames::default(),
        };
        let region = self.is_region(tag, a, kind.is_some(), names.boilerplate);
        let container = content_cue(tag, a, names.content);
        let comment = names.comments;
        if kind.is_some() || region || container.is_some() || comment {
            self.flush();
        }
        if let Some(cue) = container {
            frame.container_start = Some((self.blocks.len(), cue));
        }
        if comment {
            frame.comment_start = Some(self.blocks.len());
        }
        if let Some(kind) = kind {
            frame.block = true;
            self.kinds.push(kind);
        }
        if region {
            frame.region_start = Some(self.blocks.len());
        }
        frame
    }

    /// Headings, preformatted text and sectioning elements: their depths.
    fn mark_depths(&mut self, tag: &LocalName, frame: &mut Frame) {
        match *tag {
            local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6") => {
                frame.heading = true;
                self.heading_depth += 1;
            }
            local_name!("pre")
            | local_name!("listing")
            | local_name!("xmp")
            | local_name!("plaintext")
            | local_name!("textarea") => {
                frame.pre = true;
                self.pre_depth += 1;
            }
            local_name!("article")
            | local_name!("section")
            | local_name!("main")
            | local_name!("aside")
            | local_name!("nav") => {
                frame.sectioning = true;
                self.sectioning_depth += 1;
            }
            _ => {}
        }
    }

    /// An `<a href>`: its link, whose anchor text the walk gathers until it closes.
    fn open_link(&mut self, tag: &LocalName, a: &Attrs<'_>, frame: &mut Frame) {
        if *tag == local_name!("a")
            && let Some(href) = a.href
        {
            self.finish_anchor();
            let fallback = a.title.or(a.aria_label).unwrap_or_default();
            let index = self.push_link(href, "", LinkKind::Anchor, has_rel(a.rel, "nofollow"));
            if let Some(link) = self.links.get_mut(index) {
                let mut pending = false;
                push_collapsed(&mut link.fallback, fallback, &mut pending);
            }
            frame.anchor = Some(index);
            self.open_anchor = Some(index);
            self.anchor_pending_space = false;
            self.open_anchor_start = Some(self.buf.len());
        }
    }

    fn close(&mut self, frame: Frame) {
        if frame.anchor.is_some() && frame.anchor == self.open_anchor {
            self.finish_anchor();
        }
        if frame.block
            || frame.region_start.is_some()
            || frame.container_start.is_some()
            || frame.comment_start.is_some()
        {
            self.flush();
        }
        if let Some((start, cue)) = frame.container_start {
            self.containers.push(Container {
                start,
                end: self.blocks.len(),
                cue,
            });
        }
        if let Some(start) = frame.comment_start {
            self.comments.push((start, self.blocks.len()));
        }
        if frame.block {
            self.kinds.pop();
        }
        if let Some(start) = frame.region_start {
            self.regions.push((start, self.blocks.len()));
        }
        if frame.heading {
            self.heading_depth = self.heading_depth.saturating_sub(1);
        }
        if frame.pre {
            self.pre_depth = self.pre_depth.saturating_sub(1);
        }
        if frame.sectioning {
            self.sectioning_depth = self.sectioning_depth.saturating_sub(1);
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre_depth == 0 {
            self.flowing_text(text);
        } else {
            self.preformatted_text(text);
        }
        if let Some(i) = self.open_anchor
            && let Some(link) = self.links.get_mut(i)
        {
            push_collapsed(&mut link.anchor, text, &mut self.anchor_pending_space);
        }
    }

    /// Text outside `<pre>`: whitespace runs collapse to one space, words are copied whole.
    fn flowing_text(&mut self, text: &str) {
        let in_link = usize::from(self.open_anchor.is_some());
        for (k, word) in text.split(char::is_whitespace).enumerate() {
            // Every piece after the first follows a whitespace character.
            if k > 0 {
                self.pending_space = true;
            }
            if word.is_empty() {
                continue;
            }
            if self.pending_space && !self.buf.is_empty() && !self.buf.ends_with('\n') {
                self.buf.push(' ');
                self.buf_link_chars += in_link;
            }
            self.pending_space = false;
            self.after_br = false;
            self.buf.push_str(word);
            if in_link > 0 {
                self.buf_link_chars += word.chars().count();
            }
        }
    }

    /// Text inside `<pre>`: line breaks are kept.
    fn preformatted_text(&mut self, text: &str) {
        for ch in text.chars() {
            if ch == '\n' && self.pre_depth > 0 {
                self.pending_space = false;
                if !self.buf.is_empty() && !self.buf.ends_with('\n') {
                    self.buf.push('\n');
                }
            } else if ch.is_whitespace() {
                self.pending_space = true;
            } else {
                let in_link = self.open_anchor.is_some();
                if self.pending_space && !self.buf.is_empty() && !self.buf.ends_with('\n') {
                    self.buf.push(' ');
                    self.buf_link_chars += usize::from(in_link);
                }
                self.pending_space = false;
                self.after_br = false;
                self.buf.push(ch);
                self.buf_link_chars += usize::from(in_link);
            }
        }
    }

    /// `<br>`: a line break inside the block; two in a row end the block, as old pages
    /// separate paragraphs that way.
    fn line_break(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        if self.after_br {
            self.flush();
            return;
        }
        if !self.buf.ends_with('\n') {
            self.buf.push('\n');
        }
        self.pending_space = false;
        self.after_br = true;
    }

    /// End the current block.
    fn flush(&mut self) {
        self.after_br = false;
        self.pending_space = false;
        while self.buf.ends_with(['\n', ' ']) {
            self.buf.pop();
        }
        if self.buf.is_empty() {
            self.block_links.clear();
            self.buf_link_chars = 0;
            // An anchor opened before this empty block keeps reading in the next one.
            if self.open_anchor_start.is_some() {
                self.open_anchor_start = Some(0);
            }
            return;
        }
        let text = std::mem::take(&mut self.buf);
        for (index, start, end) in self.block_links.drain(..) {
            if let Some(link) = self.links.get_mut(index) {
                link.context = context_around(&text, start, end);
            }
        }
        if let (Some(index), Some(start)) = (self.open_anchor, self.open_anchor_start) {
            if start < text.len() {
                if let Some(link) = self.links.get_mut(index) {
                    link.context = context_around(&text, start, text.len());
                }
                self.open_anchor_start = None;
            } else {
                self.open_anchor_start = Some(0);
            }
        }
        let kind = if self.heading_depth > 0 {
            BlockKind::Heading
        } else {
            self.kinds.last().copied().unwrap_or(BlockKind::Other)
        };
        self.blocks.push(RawBlock {
            kind,
            text,
            link_chars: std::mem::take(&mut self.buf_link_chars),
        });
    }

    /// Close the open `<a href>`: remember where its text lies in the current block.
    fn finish_anchor(&mut self) {
        let Some(index) = self.open_anchor.take() else {
            return;
        };
        if let Some(start) = self.open_anchor_start.take() {
            self.block_links.push((index, start, self.buf.len()));
        }
    }

    /// Records a link; returns its index (`usize::MAX`, which no link has, for a link past
    /// `max_links`: its text is still read as link text, the link itself is not kept).
    fn push_link(&mut self, href: &str, anchor: &str, kind: LinkKind, nofollow: bool) -> usize {
        if self.links.len() >= self.max_links {
            self.links_cut += 1;
            return usize::MAX;
        }
        let mut collapsed = String::new();
        let mut pending = false;
        push_collapsed(&mut collapsed, anchor, &mut pending);
        self.links.push(RawLink {
            anchor: collapsed,
            ..RawLink::new(href, kind, nofollow)
        });
        self.links.len() - 1
    }

    fn note_lang(&mut self, tag: &LocalName, a: &Attrs<'_>) {
        let is_html = *tag == local_name!("html");
        if self.html_lang.is_some() || (self.first_lang.is_some() && !is_html) {
            return;
        }
        if let Some(value) = a.lang {
            if is_html {
                self.html_lang = Some(value.to_owned());
            } else {
                self.first_lang = Some(value.to_owned());
            }
        }
    }

    /// `itemprop=datePublished|dateModified` on any element, and `<time datetime>`.
    fn note_dates(&mut self, tag: &LocalName, a: &Attrs<'_>) {
        if *tag == local_name!("meta") {
            return;
        }
        let value = || a.datetime.or(a.content);
        if let Some(prop) = a.itemprop {
            let prop = prop.trim();
            if prop.eq_ignore_ascii_case("datePublished") && self.dates.published.is_none() {
                self.dates.published = value().and_then(date_value);
            } else if prop.eq_ignore_ascii_case("dateModified") && self.dates.modified.is_none() {
                self.dates.modified = value().and_then(date_value);
            }
        }
        if *tag == local_name!("time") && self.first_time.is_none() {
            self.first_time = a.datetime.and_then(date_value);
        }
    }

    fn meta(&mut self, a: &Attrs<'_>) {
        let content = a.content.unwrap_or_default();
        for key in [a.name, a.property, a.itemprop].into_iter().flatten() {
            let key = key.trim().to_ascii_lowercase();
            if PUBLISHED_NAMES.contains(&key.as_str()) && self.dates.published.is_none() {
                self.dates.published = date_value(content);
            } else if MODIFIED_NAMES.contains(&key.as_str()) && self.dates.modified.is_none() {
                self.dates.modified = date_value(content);
            }
        }
        if let Some(name) = a.name
            && name.trim().eq_ignore_ascii_case("robots")
        {
            read_robots(&mut self.robots, content);
        }
        if let Some(equiv) = a.http_equiv {
            let equiv = equiv.trim();
            if equiv.eq_ignore_ascii_case("refresh") {
                if let Some(target) = refresh_url(content) {
                    self.push_link(target, "", LinkKind::MetaRefresh, false);
                }
            } else if equiv.eq_ignore_ascii_case("last-modified") && self.dates.modified.is_none() {
                self.dates.modified = date_value(content);
            } else if equiv.eq_ignore_ascii_case("content-language") && self.meta_lang.is_none() {
                let first = content.split(',').next().unwrap_or_default().trim();
                if !first.is_empty() {
                    self.meta_lang = Some(first.to_owned());
                }
            }
        }
    }

    fn link_element(&mut self, a: &Attrs<'_>) {
        let Some(href) = a.href else {
            return;
        };
        if self.canonical.is_none() && has_rel(a.rel, "canonical") {
            self.canonical = Some(href.to_owned());
        }
        if has_rel(a.rel, "next") || has_rel(a.rel, "prev") || has_rel(a.rel, "previous") {
            self.push_link(href, "", LinkKind::LinkRel, has_rel(a.rel, "nofollow"));
        }
    }

    /// Whether the element opens a structural boilerplate region; `names_boilerplate` is
    /// [`ClassNames::boilerplate`] of its class and id.
    fn is_region(
        &self,
        tag: &LocalName,
        a: &Attrs<'_>,
        is_block: bool,
        names_boilerplate: bool,
    ) -> bool {
        let by_element = match *tag {
            local_name!("nav")
            | local_name!("aside")
            | local_name!("menu")
            | local_name!("select")
            | local_name!("button")
            | local_name!("textarea")
            | local_name!("datalist")
            | local_name!("dialog") => true,
            local_name!("header") | local_name!("footer") => self.sectioning_depth == 0,
            _ => false,
        };
        if by_element
            || a.hidden
            || a.style.is_some_and(hides)
            || a.aria_hidden
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            return true;
        }
        if let Some(role) = a.role
            && role.split_ascii_whitespace().any(|r| {
                [
                    "navigation",
                    "banner",
                    "contentinfo",
                    "complementary",
                    "menu",
                    "menubar",
                    "search",
                    "toolbar",
                    "dialog",
                    "alertdialog",
                ]
                .iter()
                .any(|landmark| r.eq_ignore_ascii_case(landmark))
            })
        {
            return true;
        }
        // Page wrappers often carry state classes ("has-sidebar", "comments-open"), so names
        // are only read on ordinary block containers.
        is_block
            && !matches!(
                *tag,
                local_name!("html")
                    | local_name!("body")
                    | local_name!("main")
                    | local_name!("article")
            )
            && names_boilerplate
    }

    /// Classify, resolve links and detect the language.
    pub(super) fn finish(self, page_url: &Url, options: &ExtractOptions) -> Extracted {
        let base = self
            .base_href
            .as_deref()
            .and_then(|href| page_url.join(href.trim()).ok())
            .unwrap_or_else(|| page_url.clone());
        let links = resolve_links(&base, self.links);
        let canonical = self
            .canonical
            .as_deref()
            .and_then(|href| resolve(&base, href));
        let lang_attr = self.html_lang.or(self.first_lang).or(self.meta_lang);

        let boiler = region_mask(&self.blocks, &self.regions);
        let (stop_lang, detected) = stopword_language(&self.blocks, &boiler, lang_attr.as_deref());
        let comments = region_mask_all(self.blocks.len(), &self.comments);
        let blocks = classify(
            self.blocks,
            &Structure {
                boiler: &boiler,
                containers: &self.containers,
                comments: if options.drop_comments {
                    &[]
                } else {
                    &comments
                },
            },
            stop_lang,
            options.keep_everything,
        );
        // The kept text often begins with the very sample the stop-word language was
        // detected on: the same text gives the same guess, so it is not detected twice.
        let kept_sample = sample_text(blocks.iter().filter(|b| b.keep).map(|b| b.text.as_str()));
        let language = match detected {
            (sample, guess) if sample == kept_sample => guess,
            _ => lang::detect(&kept_sample),
        };
        let mut dates = self.dates;
        if dates.published.is_none() {
            dates.published = self.first_time;
        }
        Extracted {
            title: self.title,
            lang_attr,
            canonical,
            dates,
            meta_robots: self.robots,
            blocks,
            links,
            language,
            stopword_lang: stop_lang.map(str::to_owned),
            links_cut: self.links_cut,
            attributes_cut: 0,
        }
    }
}

/// Block kind of a block-level element, `None` for inline elements.
fn block_kind(tag: &LocalName) -> Option<BlockKind> {
    Some(match *tag {
        local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6") => BlockKind::Heading,
        local_name!("p")
        | local_name!("div")
        | local_name!("blockquote")
        | local_name!("section")
        | local_name!("article")
        | local_name!("main")
        | local_name!("body")
        | local_name!("center")
        | local_name!("address")
        | local_name!("header")
        | local_name!("footer")
        | local_name!("aside")
        | local_name!("nav")
        | local_name!("hgroup")
        | local_name!("html") => BlockKind::Paragraph,
        local_name!("li") | local_name!("dt") | local_name!("dd") => BlockKind::ListItem,
        local_name!("pre")
        | local_name!("listing")
        | local_name!("xmp")
        | local_name!("plaintext") => BlockKind::Preformatted,
        local_name!("td") | local_name!("th") => BlockKind::TableCell,
        local_name!("ul")
        | local_name!("ol")
        | local_name!("dl")
        | local_name!("dir")
        | local_name!("menu")
        | local_name!("table")
        | local_name!("thead")
        | local_name!("tbody")
        | local_name!("tfoot")
        | local_name!("tr")
        | local_name!("form")
        | local_name!("fieldset")
        | local_name!("legend")
        | local_name!("figure")
        | local_name!("details")
        | local_name!("summary")
        | local_name!("dialog")
        | local_name!("hr")
        | local_name!("select")
        | local_name!("option")
        | local_name!("optgroup")
        | local_name!("datalist")
        | local_name!("button")
        | local_name!("textarea")
        | local_name!("label")
        | local_name!("frameset")
        | local_name!("noframes")
        | local_name!("marquee")
        | local_name!("colgroup")
        | local_name!("figcaption")
        | local_name!("caption") => BlockKind::Other,
        _ => return None,
    })
}
