//! Skim: what the crawl needs from an HTML page, read from the HTML tokenizer alone.
//!
//! **In:** decoded HTML and the page URL.
//! **Out:** [`Skim`]: the first `<title>`, all visible text (blocks separated by a blank line),
//! the out-links with their anchor text and the text around them, `<meta name=robots>`, and
//! the language of the text.
//!
//! **Invariants:**
//! - links follow the rules of [`crate::extract`]: `<a href>`, `<area href>`, `<frame src>`,
//!   `<iframe src>`, `<link rel=next|prev|previous>`, `<meta http-equiv=refresh>`, resolved
//!   against the first `<base href>` (wherever it is) or the page URL, fragment removed, only
//!   http(s); anchor text is the element's text, else an image's `alt`, else `title` /
//!   `aria-label` (`alt` for `<area>`, `title` for frames);
//! - the text leaves out `<script>`, `<style>`, `<noscript>`, `<template>`, SVG, MathML and
//!   embedded media, as the extractor does; unlike it, the skim does not drop `hidden` elements
//!   and keeps navigation and other boilerplate: the crawl judges a page by all its visible text;
//! - never panics, whatever the input.
//!
//! Why a second reader next to [`crate::extract::extract_html`]: the crawl reads every page it
//! fetches, and the extractor builds a tree, walks it and classifies every block, which is most
//! of the crawl's CPU time. The crawl only needs the text and the links, so it skims with the
//! tokenizer, which is the HTML standard's own and treats malformed markup exactly as browsers
//! do at that level; the extract stage reads the stored page again with the full extractor.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
};
use url::Url;

use crate::extract::{self, Link, LinkKind, MetaRobots, RawLink, push_collapsed};
use crate::lang::{self, LangGuess};

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
}

/// Skims `html` (already decoded) found at `page_url`.
pub fn skim_html(html: &str, page_url: &Url) -> Skim {
    let sink = Sink(RefCell::new(State::default()));
    let tokenizer = Tokenizer::new(sink, Default::default());
    let input = BufferQueue::default();
    // The extractor's cheap pre-scan leaves out the content of scripts and style sheets (half
    // the bytes of many pages), which the skim would read only to throw away.
    input.push_back(StrTendril::from_slice(&extract::prepare(html)));
    // The sink never asks the tokenizer to stop for a script, so one feed reads everything.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let state = tokenizer.sink.0.into_inner();
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

/// Elements whose content is not text a reader sees.
fn skips_content(name: &str) -> bool {
    matches!(
        name,
        "noscript" | "template" | "svg" | "math" | "object" | "video" | "audio" | "canvas"
    )
}

/// Elements that end a block of text (so that words on both sides are not glued together and
/// a link's surrounding text stays within its paragraph, list item or cell).
fn breaks_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "listing"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "option"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "xmp"
    )
}

fn attr<'a>(tag: &'a Tag, name: &str) -> Option<&'a str> {
    tag.attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

fn has_rel(tag: &Tag, token: &str) -> bool {
    attr(tag, "rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
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
    skipping: Vec<String>,
    raw: Option<(String, bool)>,
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

    fn push_link(&mut self, href: &str, kind: LinkKind, nofollow: bool) -> usize {
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

    fn start_tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name = &*tag.name;
        // Raw-text elements switch the tokenizer even inside skipped content, so that their
        // text is never read as markup (a `</div>` inside a script string must stay text).
        let raw = match name {
            "script" => Some(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
            "title" | "textarea" => Some(RawKind::Rcdata),
            _ => None,
        };
        if !self.skipping.is_empty() {
            if skips_content(name) && !tag.self_closing {
                self.skipping.push(name.to_owned());
            }
            return match raw {
                Some(kind) if !tag.self_closing => {
                    self.raw = Some((name.to_owned(), false));
                    TokenSinkResult::RawData(kind)
                }
                _ => TokenSinkResult::Continue,
            };
        }
        match name {
            "a" => {
                self.close_anchor();
                if let Some(href) = attr(tag, "href") {
                    let index = self.push_link(href, LinkKind::Anchor, has_rel(tag, "nofollow"));
                    let fallback = attr(tag, "title")
                        .or_else(|| attr(tag, "aria-label"))
                        .unwrap_or_default();
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(&mut link.fallback, fallback, &mut false);
                    }
                    // The anchor's text starts after the space that may separate it from what
                    // comes before.
                    let start = self.block.len() + usize::from(self.pending_space);
                    self.spans.push((index, start, None));
                    self.anchor = Some((index, false));
                }
            }
            "area" => {
                if let Some(href) = attr(tag, "href") {
                    let index = self.push_link(href, LinkKind::Area, has_rel(tag, "nofollow"));
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(
                            &mut link.anchor,
                            attr(tag, "alt").unwrap_or_default(),
                            &mut false,
                        );
                    }
                }
            }
            "iframe" | "frame" => {
                if let Some(src) = attr(tag, "src") {
                    let kind = if name == "iframe" {
                        LinkKind::Iframe
                    } else {
                        LinkKind::Frame
                    };
                    let index = self.push_link(src, kind, false);
                    if let Some(link) = self.links.get_mut(index) {
                        push_collapsed(
                            &mut link.anchor,
                            attr(tag, "title").unwrap_or_default(),
                            &mut false,
                        );
                    }
                }
            }
            "base" => {
                if self.base_href.is_none()
                    && let Some(href) = attr(tag, "href")
                {
                    self.base_href = Some(href.to_owned());
                }
            }
            "meta" => self.meta(tag),
            "link" => {
                if let Some(href) = attr(tag, "href")
                    && (has_rel(tag, "next") || has_rel(tag, "prev") || has_rel(tag, "previous"))
                {
                    self.push_link(href, LinkKind::LinkRel, has_rel(tag, "nofollow"));
                }
            }
            "img" => {
                if let Some((index, _)) = self.anchor
                    && let Some(alt) = attr(tag, "alt")
                    && let Some(link) = self.links.get_mut(index)
                    && link.alt.is_empty()
                {
                    push_collapsed(&mut link.alt, alt, &mut false);
                }
            }
            "br" => self.pending_space = true,
            "plaintext" => {
                self.flush();
                return TokenSinkResult::Plaintext;
            }
            _ => {
                if breaks_block(name) {
                    self.flush();
                }
                if skips_content(name) && !tag.self_closing {
                    self.skipping.push(name.to_owned());
                }
            }
        }
        match raw {
            Some(kind) if !tag.self_closing => {
                let is_title = name == "title" && self.title.is_none();
                if is_title {
                    self.title = Some(String::new());
                }
                self.raw = Some((name.to_owned(), is_title));
                TokenSinkResult::RawData(kind)
            }
            _ => TokenSinkResult::Continue,
        }
    }

    fn end_tag(&mut self, tag: &Tag) {
        let name = &*tag.name;
        if let Some((open, _)) = &self.raw {
            if open == name {
                self.raw = None;
            }
            return;
        }
        if let Some(top) = self.skipping.last() {
            if top == name {
                self.skipping.pop();
            }
            return;
        }
        if name == "a" {
            self.close_anchor();
        } else if breaks_block(name) {
            self.flush();
        }
    }

    fn meta(&mut self, tag: &Tag) {
        let content = attr(tag, "content").unwrap_or_default();
        if attr(tag, "name").is_some_and(|n| n.trim().eq_ignore_ascii_case("robots")) {
            extract::read_robots(&mut self.robots, content);
        }
        if attr(tag, "http-equiv").is_some_and(|e| e.trim().eq_ignore_ascii_case("refresh"))
            && let Some(target) = extract::refresh_url(content)
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

struct Sink(RefCell<State>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return state.start_tag(&tag),
                TagKind::EndTag => state.end_tag(&tag),
            },
            Token::CharacterTokens(text) => match state.raw_kind() {
                Raw::Title => {
                    let state = &mut *state;
                    if let Some(title) = &mut state.title {
                        push_collapsed(title, &text, &mut state.title_pending);
                    }
                }
                Raw::Hidden => {}
                Raw::No => {
                    if state.skipping.is_empty() {
                        state.push_text(&text);
                    }
                }
            },
            Token::EOFToken
            | Token::NullCharacterToken
            | Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
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
}
