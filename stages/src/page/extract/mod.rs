//! Clean text and out-links from an HTML page, for corpus building.
//!
//! **In**: a decoded HTML page (`&str`) and its URL, or a `text/plain` body.
//! **Out**: an [`Extracted`]: title, `lang` attribute, canonical URL, `<meta name=robots>`, every
//! text block in document order with the keep/drop decision and its reason, the http(s)
//! out-links with anchor text and context, and the language of the kept text.
//!
//! **Method**: one html5ever parse (scraper) and one iterative pass over the tree (no recursion,
//! so hostile nesting depth cannot overflow the stack; nesting bombs are flattened and the
//! content of `<script>`/`<style>` is left out before parsing, see [`MAX_NESTING`]). Block-level elements and double `<br>` cut the text into
//! blocks; `script`, `style`, `noscript`, `template`, `svg`, media and iframe content never
//! become text. Blocks are then classified as in jusText (Pomikálek 2011): link density,
//! length, stop-word density in the page language, then context smoothing, so a short block
//! between good blocks is kept and a near-good block between bad ones is dropped. Three
//! additions to jusText, each measured on the fixtures: a run of adjacent short/near-good
//! blocks is also judged as one paragraph (news stories in one-sentence paragraphs, lists);
//! short link-only blocks ("Read more", menu entries) are dropped but do not count as bad
//! neighbours; a page with no good block takes its stop-word-rich near-good blocks as anchors.
//!
//! Structural cues come first: text inside `nav`, `aside`, `menu`, form controls, page-level
//! `header`/`footer`, landmark roles (`navigation`, `banner`, `contentinfo`…), `hidden` or
//! `aria-hidden` elements, and block elements whose class or id names boilerplate (`menu`,
//! `cookie`, `share`, `breadcrumb`, `sidebar`…, plus `comment` with
//! [`ExtractOptions::drop_comments`]) is dropped as [`BlockReason::BoilerplateElement`].
//! Names are read with care (`has-sidebar` is a layout state; `post-share`, naming content
//! too, is left to the text rules), and a cue that covers half the page's words or more is
//! ignored, because then it names a page wrapper, not a widget.
//!
//! A main-content region comes next, as trafilatura's content paths do: the heaviest
//! `itemprop=articleBody`, else `article`, else `main`/content-named container holding at least
//! [`MAIN_REGION_SHARE`] of the page's text, narrowed to its innermost candidate that keeps
//! most of that text. Inside it, short and stop-word-poor lines (score lines, one-sentence
//! paragraphs) and lightly linked paragraphs are kept ([`BlockReason::MainContent`]), except
//! datelines, one-or-two-word fragments and text repeated on the page; outside it, text is
//! dropped ([`BlockReason::OutsideMain`]) unless it is a reader comment that is kept or a long
//! paragraph just above the region (a lead). Inline `display:none`/`visibility:hidden` is
//! boilerplate. Without such a container, the jusText classification stands alone.
//!
//! **Invariants**: never panics, whatever the input; blocks are never empty and their text is
//! whitespace-collapsed (single spaces, `\n` only where `<br>` or a `<pre>` line break was);
//! every link is an absolute `http`/`https` URL without fragment; with
//! [`ExtractOptions::keep_everything`] every block is kept and still carries its label.

use html5ever::{LocalName, local_name};
use scraper::{ElementRef, Html, Node};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::page::lang::{self, LangGuess};
use crate::page::stopwords;

mod scan;
pub use scan::MAX_NESTING;
pub(crate) use scan::cap_attributes;
use scan::prepare;

/// Blocks shorter than this many characters are "short" (jusText `length_low`).
pub const LENGTH_LOW: usize = 70;
/// Blocks longer than this many characters with enough stop words are good outright
/// (jusText `length_high`).
pub const LENGTH_HIGH: usize = 200;
/// Stop-word density below which a block is bad (jusText `stopwords_low`).
pub const STOPWORDS_LOW: f32 = 0.25;
/// Stop-word density from which a long block is good (jusText `stopwords_high`).
pub const STOPWORDS_HIGH: f32 = 0.30;
/// Link density (characters inside `<a href>` / all characters) above which a block is bad.
pub const MAX_LINK_DENSITY: f32 = 0.2;
/// A short heading is kept when a good block starts within this many characters after it.
pub const MAX_HEADING_DISTANCE: usize = 200;
/// A structural cue covering at least this share of the page's words is ignored.
pub const MAX_REGION_SHARE: f64 = 0.5;
/// Bytes of text handed to language detection (twice per page: whole page, kept text);
/// a few kilobytes identify a language as well as the whole text, at a fraction of the cost.
pub const LANG_SAMPLE_BYTES: usize = 4 * 1024;
/// Target length, in characters, of [`Link::context`].
pub const CONTEXT_CHARS: usize = 120;
/// Stop-word density from which the best list names the page language when whatlang is unsure.
pub const MIN_GUESS_DENSITY: f64 = 0.2;
/// Words needed before stop-word densities name the page language.
pub const MIN_GUESS_WORDS: usize = 30;
/// Stop-word language when neither detection nor the page declares one.
pub const FALLBACK_LANGUAGE: &str = "fr";

/// A main-content candidate (`article`, `main`, `itemprop=articleBody`, class `entry-content`…)
/// becomes the page's main region when it holds at least this share of the page's text weight
/// (the characters of its non-boilerplate, non-link blocks, short and stop-word-poor ones at
/// half weight). Below it the cue is not trusted (a teaser `<article>`, a page whose text is
/// spread over several boxes) and classification is jusText's alone.
pub const MAIN_REGION_SHARE: f64 = 0.25;
/// Among nested candidates the innermost one holding at least this share of the heaviest
/// candidate's weight is the region, so `article > div.article-body` narrows to the body.
pub const MAIN_REGION_NARROWING: f64 = 0.7;

/// Inside the main-content region, a block of at least [`LENGTH_LOW`] characters is text up to
/// this link density (news digests, paragraphs citing several sources).
pub const MAIN_REGION_LINK_DENSITY: f32 = 0.7;

/// Inside the main-content region, a short block other than a heading needs this many words
/// to be kept for its place alone ("Close", "Caption", "Photo: AP" are not sentences).
pub const MIN_PROMOTED_WORDS: usize = 3;

/// Links read from one page by default (Heritrix reads 6,000).
pub const DEFAULT_MAX_LINKS: usize = 10_000;

/// Attributes read on one element by default; real pages stay below a hundred.
pub const DEFAULT_MAX_ATTRIBUTES: usize = 1_000;

/// Options of [`extract_html`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ExtractOptions {
    /// Keep every text block (each still labelled with the classifier's reason).
    pub keep_everything: bool,
    /// Also treat reader comments (class or id `comment`, `comments`, `disqus`…) as
    /// boilerplate. Off by default: comments are running text, and the CleanEval gold, made
    /// for linguistic corpora, keeps them.
    pub drop_comments: bool,
    /// Links kept from one page, the first ones in document order ([`Extracted::links_cut`]
    /// counts the others).
    pub max_links: usize,
    /// Attributes handed to the parser on one element, the first ones: the HTML parser checks
    /// every new attribute against the element's others, so n attributes cost n² (300,000 on
    /// one tag take minutes). [`Extracted::attributes_cut`] counts the others.
    pub max_attributes: usize,
}

impl Default for ExtractOptions {
    fn default() -> ExtractOptions {
        ExtractOptions {
            keep_everything: false,
            drop_comments: false,
            max_links: DEFAULT_MAX_LINKS,
            max_attributes: DEFAULT_MAX_ATTRIBUTES,
        }
    }
}

/// What [`extract_html`] or [`extract_plain`] found in a page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Extracted {
    /// Text of the first `<title>`, whitespace-collapsed.
    pub title: Option<String>,
    /// `<html lang>`, else the first `lang`/`xml:lang` attribute, else
    /// `<meta http-equiv=content-language>`; as written in the page.
    pub lang_attr: Option<String>,
    /// Absolute URL of the first `<link rel=canonical>` (fragment removed).
    pub canonical: Option<String>,
    /// Publication and modification dates the page declares, as written.
    pub dates: PageDates,
    /// Directives of `<meta name="robots">` (all such tags combined).
    pub meta_robots: MetaRobots,
    /// Every text block in document order, kept or not.
    pub blocks: Vec<Block>,
    /// Out-links in document order.
    pub links: Vec<Link>,
    /// Language detected on the kept text.
    pub language: Option<LangGuess>,
    /// The stop-word list the classifier used (ISO 639-1), `None` when the page language has
    /// no list and stop words were not used.
    pub stopword_lang: Option<String>,
    /// Links past [`ExtractOptions::max_links`], left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub links_cut: usize,
    /// Attributes past [`ExtractOptions::max_attributes`] on one element, left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub attributes_cut: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Extracted {
    /// The kept blocks, in document order.
    pub fn kept(&self) -> impl Iterator<Item = &Block> {
        self.blocks.iter().filter(|b| b.keep)
    }

    /// The kept blocks' text joined by blank lines (`"\n\n"`).
    pub fn clean_text(&self) -> String {
        let mut out = String::new();
        for block in self.kept() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&block.text);
        }
        out
    }
}

/// Dates a page declares about itself, as written (trimmed, at most [`MAX_DATE_CHARS`]
/// characters, and only values with a digit). The first of each wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageDates {
    /// Publication date: `<meta>` `article:published_time`, `og:published_time`,
    /// `datePublished`, `dc.date`, `dc.date.issued`, `dc.date.created`, `dcterms.date`,
    /// `dcterms.issued`, `dcterms.created`, `date`, `pubdate`, `publish-date`,
    /// `citation_publication_date` (by `name`, `property` or `itemprop`); an element with
    /// `itemprop=datePublished`; else the first `<time datetime>`.
    pub published: Option<String>,
    /// Modification date: `<meta>` `article:modified_time`, `og:updated_time`, `dateModified`,
    /// `dc.date.modified`, `dcterms.modified`, `last-modified`, `revised` (or
    /// `http-equiv=last-modified`); an element with `itemprop=dateModified`.
    pub modified: Option<String>,
}

/// Longest date value kept in [`PageDates`].
pub const MAX_DATE_CHARS: usize = 64;

/// Names (lower-case) of `<meta>` tags that give the publication date.
const PUBLISHED_NAMES: &[&str] = &[
    "article:published_time",
    "og:published_time",
    "datepublished",
    "dc.date",
    "dc.date.issued",
    "dc.date.created",
    "dcterms.date",
    "dcterms.issued",
    "dcterms.created",
    "date",
    "pubdate",
    "publish-date",
    "publish_date",
    "citation_publication_date",
];

/// Names (lower-case) of `<meta>` tags that give the modification date.
const MODIFIED_NAMES: &[&str] = &[
    "article:modified_time",
    "og:updated_time",
    "datemodified",
    "dc.date.modified",
    "dcterms.modified",
    "last-modified",
    "revised",
];

/// A date value worth keeping: trimmed, not empty, with a digit, not too long.
fn date_value(raw: &str) -> Option<String> {
    let value = raw.trim();
    (value.chars().any(|c| c.is_ascii_digit()) && value.chars().count() <= MAX_DATE_CHARS)
        .then(|| value.to_owned())
}

/// `<meta name="robots">` directives (`none` sets both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MetaRobots {
    /// `noindex`: the page asks not to be indexed.
    pub noindex: bool,
    /// `nofollow`: the page asks that its links not be followed.
    pub nofollow: bool,
}

/// One block of text (a paragraph, heading, list item, cell…).
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    /// Structural kind, from the innermost enclosing block element.
    pub kind: BlockKind,
    /// The text, whitespace collapsed; `\n` separates lines broken by `<br>` or in `<pre>`.
    pub text: String,
    /// Whether the block belongs to the clean text.
    pub keep: bool,
    /// Why it was kept or dropped (the classifier's label, also under `keep_everything`).
    pub reason: BlockReason,
    /// Characters inside links / all characters.
    pub link_density: f32,
    /// Number of words (maximal runs of letters and digits).
    pub words: usize,
}

/// Structural kind of a [`Block`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockKind {
    /// Inside `h1`…`h6`.
    Heading,
    /// `p`, `div`, `blockquote`, `section`… or loose text in `body`.
    Paragraph,
    /// `li`, `dt`, `dd`.
    ListItem,
    /// `pre`.
    Preformatted,
    /// `td`, `th`.
    TableCell,
    /// Anything else (forms, buttons, captions…).
    Other,
}

/// The label behind a [`Block`]'s keep decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockReason {
    /// Long enough, few links, enough stop words.
    Good,
    /// Kept by context: a short or near-good block (or heading) next to good ones.
    NearGood,
    /// Too short to judge, and its neighbours were not good.
    Short,
    /// Too much of its text is link text.
    LinkDense,
    /// Too few stop words for running text in the page language.
    FewStopwords,
    /// Inside navigation, header/footer, sidebar, cookie/share widget, form control….
    BoilerplateElement,
    /// Contains a copyright sign (jusText's footer cue).
    Copyright,
    /// Kept without classification ([`extract_plain`]).
    KeepEverything,
    /// Short or stop-word-poor, but inside the page's main-content region (see
    /// [`MAIN_REGION_SHARE`]) and not link text: kept.
    MainContent,
    /// Outside the page's main-content region: dropped, whatever its text.
    OutsideMain,
}

/// An out-link.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    /// Absolute http(s) URL, resolved against `<base href>` or the page URL, fragment removed.
    pub url: String,
    /// Anchor text, whitespace-collapsed (image `alt`, then `title`/`aria-label` when the
    /// anchor has no text; `alt` for `<area>`, `title` for frames).
    pub anchor: String,
    /// About [`CONTEXT_CHARS`] characters of the block text around the link (empty when the
    /// link is not inside a text block).
    pub context: String,
    /// Which element the link comes from.
    pub kind: LinkKind,
    /// `rel` contains `nofollow` (the page-wide `<meta name=robots>` is in
    /// [`Extracted::meta_robots`]).
    pub nofollow: bool,
}

/// The element a [`Link`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// `<a href>`.
    Anchor,
    /// `<area href>`.
    Area,
    /// `<frame src>`.
    Frame,
    /// `<iframe src>`.
    Iframe,
    /// `<link rel=next|prev href>`.
    LinkRel,
    /// `<meta http-equiv=refresh content="N; url=…">`.
    MetaRefresh,
}

/// Extract blocks, links and metadata from an HTML page.
pub fn extract_html(html: &str, page_url: &Url, options: &ExtractOptions) -> Extracted {
    let mut attributes_cut = 0;
    let document =
        Html::parse_document(&prepare(html, options.max_attributes, &mut attributes_cut));
    let mut walker = Walker {
        drop_comments: options.drop_comments,
        max_links: options.max_links,
        ..Walker::default()
    };
    walker.walk(&document);
    drop(document);
    let mut extracted = walker.finish(page_url, options);
    extracted.attributes_cut = attributes_cut;
    extracted
}

/// Split a `text/plain` body into paragraphs at blank lines; every paragraph is kept (reason
/// [`BlockReason::KeepEverything`]), there are no links.
pub fn extract_plain(text: &str) -> Extracted {
    let mut blocks = Vec::new();
    let mut para = String::new();
    let mut pending_space = false;
    let lines = text
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'));
    for line in lines {
        if line.trim().is_empty() {
            push_plain_block(&mut blocks, &mut para);
            pending_space = false;
            continue;
        }
        pending_space |= !para.is_empty();
        push_collapsed(&mut para, line, &mut pending_space);
    }
    push_plain_block(&mut blocks, &mut para);
    let mut extracted = Extracted {
        blocks,
        ..Extracted::default()
    };
    extracted.language = lang::detect(&sample_text(extracted.kept().map(|b| b.text.as_str())));
    extracted
}

fn push_plain_block(blocks: &mut Vec<Block>, para: &mut String) {
    if para.is_empty() {
        return;
    }
    let text = std::mem::take(para);
    blocks.push(Block {
        kind: BlockKind::Paragraph,
        words: count_words(&text),
        text,
        keep: true,
        reason: BlockReason::KeepEverything,
        link_density: 0.0,
    });
}

/// Append `text` to `dst`, collapsing whitespace runs to one space; a space is only written
/// before the next visible character, so `dst` never starts or ends with one.
pub(crate) fn push_collapsed(dst: &mut String, text: &str, pending_space: &mut bool) {
    for ch in text.chars() {
        if ch.is_whitespace() {
            *pending_space = true;
        } else {
            if *pending_space && !dst.is_empty() && !dst.ends_with('\n') {
                dst.push(' ');
            }
            *pending_space = false;
            dst.push(ch);
        }
    }
}

/// Words are maximal runs of letters and digits: `l'homme` is `l` + `homme`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

fn count_words(text: &str) -> usize {
    words(text).count()
}

/// Concatenation of texts up to the language detector's sample size.
fn sample_text<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    let mut sample = String::new();
    for text in texts {
        if sample.len() >= LANG_SAMPLE_BYTES {
            break;
        }
        if !sample.is_empty() {
            sample.push('\n');
        }
        sample.push_str(text);
    }
    sample
}

// ---------------------------------------------------------------------------------------------
// Tree walk
// ---------------------------------------------------------------------------------------------

/// A block as collected during the walk, before classification.
struct RawBlock {
    kind: BlockKind,
    text: String,
    link_chars: usize,
}

/// A link as found in the page, before URL resolution.
pub(crate) struct RawLink {
    pub(crate) href: String,
    pub(crate) anchor: String,
    /// Alt text of the first image inside the anchor: the anchor when it has no text.
    pub(crate) alt: String,
    /// `title` or `aria-label`: the anchor when it has neither text nor image alt.
    pub(crate) fallback: String,
    pub(crate) context: String,
    pub(crate) kind: LinkKind,
    pub(crate) nofollow: bool,
}

impl RawLink {
    /// A link as read from an element, before its text is known.
    pub(crate) fn new(href: &str, kind: LinkKind, nofollow: bool) -> RawLink {
        RawLink {
            href: href.to_owned(),
            anchor: String::new(),
            alt: String::new(),
            fallback: String::new(),
            context: String::new(),
            kind,
            nofollow,
        }
    }
}

/// The links as the page means them: resolved against `base` (non-http(s) and same-page links
/// dropped), with the anchor text, else the image `alt`, else the fallback attribute.
pub(crate) fn resolve_links(base: &Url, raw: Vec<RawLink>) -> Vec<Link> {
    raw.into_iter()
        .filter_map(|raw| {
            let url = resolve(base, &raw.href)?;
            let anchor = [raw.anchor, raw.alt, raw.fallback]
                .into_iter()
                .find(|a| !a.is_empty())
                .unwrap_or_default();
            Some(Link {
                url,
                anchor,
                context: raw.context,
                kind: raw.kind,
                nofollow: raw.nofollow,
            })
        })
        .collect()
}

/// Adds the directives of a `<meta name=robots>` content (`none` sets both).
pub(crate) fn read_robots(robots: &mut MetaRobots, content: &str) {
    for token in content.split([',', ' ', '\t', '\n', '\r', ';']) {
        let token = token.trim();
        if token.eq_ignore_ascii_case("noindex") {
            robots.noindex = true;
        } else if token.eq_ignore_ascii_case("nofollow") {
            robots.nofollow = true;
        } else if token.eq_ignore_ascii_case("none") {
            robots.noindex = true;
            robots.nofollow = true;
        }
    }
}

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
struct Walker {
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
}

impl Walker {
    /// Depth-first walk with open/close events, iterative.
    fn walk(&mut self, document: &Html) {
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
            | local_name!("canvas") => return None,
            local_name!("iframe") | local_name!("frame") => {
                if let Some(src) = a.src {
                    let kind = if *tag == local_name!("iframe") {
                        LinkKind::Iframe
                    } else {
                        LinkKind::Frame
                    };
                    self.push_link(src, a.title.unwrap_or_default(), kind, false);
                }
                return None;
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
                return None;
            }
            local_name!("base") => {
                if self.base_href.is_none()
                    && let Some(href) = a.href
                {
                    self.base_href = Some(href.to_owned());
                }
                return None;
            }
            local_name!("meta") => {
                self.meta(&a);
                return None;
            }
            local_name!("link") => {
                self.link_element(&a);
                return None;
            }
            local_name!("area") => {
                if let Some(href) = a.href {
                    let anchor = a.alt.unwrap_or_default();
                    self.push_link(href, anchor, LinkKind::Area, has_rel(a.rel, "nofollow"));
                }
                return None;
            }
            local_name!("br") => {
                self.line_break();
                return None;
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
                return None;
            }
            _ => {}
        }

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
        let region = self.is_region(tag, &a, kind.is_some(), names.boilerplate);
        let container = content_cue(tag, &a, names.content);
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
        Some(frame)
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
    fn finish(self, page_url: &Url, options: &ExtractOptions) -> Extracted {
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

/// Class or id words that name boilerplate widgets (compared with whole words of the
/// attribute, split at non-alphanumerics, camelCase humps and letter/digit changes).
const BOILERPLATE_NAMES: &[&str] = &[
    "ad",
    "addthis",
    "ads",
    "advert",
    "advertisement",
    "advertising",
    "adverts",
    "banner",
    "breadcrumb",
    "breadcrumbs",
    "consent",
    "cookie",
    "cookies",
    "copyright",
    "footer",
    "gdpr",
    "login",
    "masthead",
    "menu",
    "menubar",
    "menus",
    "nav",
    "navbar",
    "navi",
    "navigation",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    "popup",
    "promo",
    "related",
    "share",
    "sharebar",
    "sharethis",
    "sharing",
    "sidebar",
    "sidenav",
    "signup",
    "skiplink",
    "social",
    "sponsor",
    "sponsored",
    "submenu",
    "subnav",
    "subscribe",
    "taboola",
    "tagcloud",
    "toolbar",
    "topnav",
];

/// Class or id words that name the main content: an element named both ways
/// (`post-share`, `sidebar-content`) is left to the text rules.
const CONTENT_NAMES: &[&str] = &[
    "article", "body", "content", "entry", "post", "story", "text",
];

/// Class words that turn the next word into a layout state of a wrapper (`has-sidebar`,
/// `and-w-sidebar`, `no-comments`) rather than the name of a widget.
const MODIFIER_NAMES: &[&str] = &[
    "and", "has", "hide", "is", "no", "show", "toggle", "w", "with", "without",
];

/// Class or id words that name reader comments (boilerplate only with
/// [`ExtractOptions::drop_comments`]).
const COMMENT_NAMES: &[&str] = &["comment", "commentlist", "comments", "disqus"];

/// [`name_lists`] bit: the word is in [`CONTENT_NAMES`].
const NAME_CONTENT: u8 = 1;
/// [`name_lists`] bit: the word is in [`BOILERPLATE_NAMES`].
const NAME_BOILERPLATE: u8 = 2;
/// [`name_lists`] bit: the word is in [`COMMENT_NAMES`].
const NAME_COMMENT: u8 = 4;
/// [`name_lists`] bit: the word is in [`MODIFIER_NAMES`].
const NAME_MODIFIER: u8 = 8;

/// Which class-word lists `word` is on (a bit set), by one hash look-up.
fn name_lists(word: &str) -> u8 {
    static LISTS: std::sync::LazyLock<std::collections::HashMap<&'static str, u8>> =
        std::sync::LazyLock::new(|| {
            let mut map = std::collections::HashMap::new();
            for (list, bit) in [
                (CONTENT_NAMES, NAME_CONTENT),
                (BOILERPLATE_NAMES, NAME_BOILERPLATE),
                (COMMENT_NAMES, NAME_COMMENT),
                (MODIFIER_NAMES, NAME_MODIFIER),
            ] {
                for word in list {
                    *map.entry(*word).or_insert(0) |= bit;
                }
            }
            map
        });
    LISTS.get(word).copied().unwrap_or(0)
}

/// What the class and id words of a block element say, read in one pass.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct ClassNames {
    /// A word names a boilerplate widget (or reader comments, when they are dropped), not
    /// after a modifier, and no word names main content.
    boilerplate: bool,
    /// One token names content (`article-body`, `postContent`) and neither boilerplate,
    /// comments nor a state (`related-content`, `comment-text`, `has-content`).
    content: bool,
    /// A word names reader comments, not after a modifier (`comment-list`, not `no-comments`).
    comments: bool,
}

impl ClassNames {
    fn of(class: Option<&str>, id: Option<&str>, drop_comments: bool) -> ClassNames {
        let (mut boiler, mut content_word) = (false, false);
        let mut names = ClassNames::default();
        for value in [class, id].into_iter().flatten() {
            for token in value.split_ascii_whitespace() {
                let mut after_modifier = false;
                let (mut token_content, mut token_other) = (false, false);
                for_each_name_word(token, |word| {
                    let lists = name_lists(word);
                    let is_content = lists & NAME_CONTENT != 0;
                    let is_boiler = lists & NAME_BOILERPLATE != 0;
                    let is_comment = lists & NAME_COMMENT != 0;
                    let is_modifier = lists & NAME_MODIFIER != 0;
                    if is_content {
                        content_word = true;
                        token_content = true;
                    } else if !after_modifier && (is_boiler || (drop_comments && is_comment)) {
                        boiler = true;
                    }
                    token_other |= is_boiler || is_comment || is_modifier;
                    names.comments |= !after_modifier && is_comment;
                    after_modifier = is_modifier;
                });
                names.content |= token_content && !token_other;
            }
        }
        names.boilerplate = boiler && !content_word;
        names
    }
}

/// Whether the class and id attributes name a boilerplate widget and no main content.
#[cfg(test)]
fn names_boilerplate(class: Option<&str>, id: Option<&str>, comments: bool) -> bool {
    ClassNames::of(class, id, comments).boilerplate
}

/// At least the longest word of the name lists above: a longer class word matches none.
const MAX_NAME_WORD: usize = 16;

/// Calls `f` with each lower-cased word of a class name, split at non-alphanumerics,
/// camelCase humps and letter/digit changes (`mainNav2` gives `main`, `nav`, `2`). A word too
/// long to be on any name list is passed as `""`, which is on none either.
fn for_each_name_word(name: &str, mut f: impl FnMut(&str)) {
    if !name.is_ascii() {
        return for_each_name_word_unicode(name, f);
    }
    // ASCII names (nearly all) are split in a stack buffer: no allocation per element.
    let mut word = [0u8; MAX_NAME_WORD];
    let mut len = 0;
    let mut long = false;
    let mut prev: Option<u8> = None;
    let mut emit = |word: &[u8], long: bool| {
        f(if long {
            ""
        } else {
            std::str::from_utf8(word).unwrap_or_default()
        });
    };
    for &b in name.as_bytes() {
        let alnum = b.is_ascii_alphanumeric();
        let boundary = !alnum
            || prev.is_some_and(|p| {
                (p.is_ascii_lowercase() && b.is_ascii_uppercase())
                    || (p.is_ascii_alphabetic() != b.is_ascii_alphabetic())
            });
        if boundary && (len > 0 || long) {
            emit(&word[..len], long);
            len = 0;
            long = false;
        }
        if alnum {
            match word.get_mut(len) {
                Some(slot) if !long => {
                    *slot = b.to_ascii_lowercase();
                    len += 1;
                }
                _ => long = true,
            }
        }
        prev = Some(b);
    }
    if len > 0 || long {
        emit(&word[..len], long);
    }
}

/// [`for_each_name_word`] for names with non-ASCII characters.
fn for_each_name_word_unicode(name: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut prev: Option<char> = None;
    for ch in name.chars() {
        let boundary = !ch.is_alphanumeric()
            || prev.is_some_and(|p| {
                (p.is_lowercase() && ch.is_uppercase()) || (p.is_alphabetic() != ch.is_alphabetic())
            });
        if boundary && !word.is_empty() {
            f(&word);
            word.clear();
        }
        if ch.is_alphanumeric() {
            word.extend(ch.to_lowercase());
        }
        prev = Some(ch);
    }
    if !word.is_empty() {
        f(&word);
    }
}

/// How an element announces main content, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    /// `itemprop=articleBody` (schema.org).
    ArticleBody,
    /// `<article>`, `role=article`.
    Article,
    /// `<main>`, `role=main`, `itemprop=text`, a content class or id name.
    Other,
}

/// A main-content candidate: its block index range and cue.
#[derive(Debug, Clone, Copy)]
struct Container {
    start: usize,
    end: usize,
    cue: Cue,
}

/// Whether an element is a candidate for the page's main-content region, and how strongly:
/// `itemprop=articleBody`; `article`, `role=article`; `main`, `role=main`, `itemprop=text`, or
/// a block whose class or id names content (`article-body`, `entry-content`, `story`…) and no
/// boilerplate (`names_content`, [`ClassNames::content`], is only set on blocks).
fn content_cue(tag: &LocalName, a: &Attrs<'_>, names_content: bool) -> Option<Cue> {
    // The page itself is no region (`<body class="ArticlePage-body">` names a page type).
    if matches!(*tag, local_name!("html") | local_name!("body")) {
        return None;
    }
    let any_token = |value: Option<&str>, wanted: &str| {
        value.is_some_and(|value| {
            value
                .split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case(wanted))
        })
    };
    if any_token(a.itemprop, "articleBody") {
        return Some(Cue::ArticleBody);
    }
    if *tag == local_name!("article") || any_token(a.role, "article") {
        return Some(Cue::Article);
    }
    let other = *tag == local_name!("main")
        || any_token(a.role, "main")
        || any_token(a.itemprop, "text")
        || names_content;
    other.then_some(Cue::Other)
}

/// Whether an inline style hides the element (`display: none`, `visibility: hidden`): what a
/// reader never sees (schema.org copies of the article, templates, pop-ups) is not its text.
fn hides(style: &str) -> bool {
    style.split(';').any(|declaration| {
        let Some((property, value)) = declaration.split_once(':') else {
            return false;
        };
        let (property, value) = (property.trim(), value.trim());
        let value = value.strip_suffix("!important").unwrap_or(value).trim();
        (property.eq_ignore_ascii_case("display") && value.eq_ignore_ascii_case("none"))
            || (property.eq_ignore_ascii_case("visibility") && value.eq_ignore_ascii_case("hidden"))
    })
}

/// Whether a `rel` attribute value contains `token`.
fn has_rel(rel: Option<&str>, token: &str) -> bool {
    rel.is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

/// The attributes the walk reads, gathered in one pass over an element's attributes (looking
/// each one up by name would intern the name and search the attribute list every time).
#[derive(Default)]
struct Attrs<'a> {
    class: Option<&'a str>,
    id: Option<&'a str>,
    href: Option<&'a str>,
    src: Option<&'a str>,
    title: Option<&'a str>,
    alt: Option<&'a str>,
    rel: Option<&'a str>,
    style: Option<&'a str>,
    role: Option<&'a str>,
    aria_hidden: Option<&'a str>,
    aria_label: Option<&'a str>,
    itemprop: Option<&'a str>,
    datetime: Option<&'a str>,
    content: Option<&'a str>,
    name: Option<&'a str>,
    property: Option<&'a str>,
    http_equiv: Option<&'a str>,
    /// The first non-blank `lang` or `xml:lang` value, trimmed.
    lang: Option<&'a str>,
    hidden: bool,
}

impl<'a> Attrs<'a> {
    fn of(e: &'a scraper::node::Element) -> Attrs<'a> {
        let mut a = Attrs::default();
        // By interned name (an integer comparison), in the element's attribute order.
        for (key, value) in e.attrs.iter() {
            let value: &str = value;
            let slot = match key.local {
                local_name!("class") => &mut a.class,
                local_name!("id") => &mut a.id,
                local_name!("href") => &mut a.href,
                local_name!("src") => &mut a.src,
                local_name!("title") => &mut a.title,
                local_name!("alt") => &mut a.alt,
                local_name!("rel") => &mut a.rel,
                local_name!("style") => &mut a.style,
                local_name!("role") => &mut a.role,
                local_name!("aria-hidden") => &mut a.aria_hidden,
                local_name!("aria-label") => &mut a.aria_label,
                local_name!("itemprop") => &mut a.itemprop,
                local_name!("datetime") => &mut a.datetime,
                local_name!("content") => &mut a.content,
                local_name!("name") => &mut a.name,
                local_name!("property") => &mut a.property,
                local_name!("http-equiv") => &mut a.http_equiv,
                local_name!("hidden") => {
                    a.hidden = true;
                    continue;
                }
                local_name!("lang") | local_name!("xml:lang") => {
                    if a.lang.is_none() && !value.trim().is_empty() {
                        a.lang = Some(value.trim());
                    }
                    continue;
                }
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        a
    }
}

/// Absolute http(s) URL without fragment; `None` for same-document references (`#top`, ``)
/// and other schemes (`mailto:`, `javascript:`, `data:`, `tel:`, `ftp:`…).
pub(crate) fn resolve(base: &Url, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url.into())
}

/// The URL of a `<meta http-equiv=refresh>` content (`"5; url=page.html"`), following the
/// HTML standard's parsing loosely; `None` when it only reloads the page.
pub(crate) fn refresh_url(content: &str) -> Option<&str> {
    let rest = content
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim_start();
    let rest = rest.strip_prefix([';', ',']).unwrap_or(rest).trim_start();
    let rest = match rest.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("url") => {
            let after = rest.get(3..).unwrap_or_default().trim_start();
            match after.strip_prefix('=') {
                Some(value) => value.trim_start(),
                None => rest,
            }
        }
        _ => rest,
    };
    let url = match rest.chars().next() {
        Some(quote @ ('"' | '\'')) => {
            let inner = &rest[quote.len_utf8()..];
            inner.split(quote).next().unwrap_or(inner)
        }
        _ => rest,
    }
    .trim();
    (!url.is_empty()).then_some(url)
}

/// About [`CONTEXT_CHARS`] characters of `text` around bytes `start..end`, cut at spaces.
pub(crate) fn context_around(text: &str, start: usize, end: usize) -> String {
    let start = floor_boundary(text, start.min(text.len()));
    let end = floor_boundary(text, end.clamp(start, text.len()));
    // Every count stops at what can matter (about CONTEXT_CHARS characters): a block holding
    // a hundred thousand links must cost a hundred thousand short looks, not as many walks
    // over the whole block.
    let short = text.chars().nth(CONTEXT_CHARS).is_none();
    let (from, to) = if short {
        (0, text.len())
    } else {
        let span = text[start..end].chars().take(CONTEXT_CHARS).count();
        if span >= CONTEXT_CHARS {
            (start, advance(text, start, CONTEXT_CHARS))
        } else {
            let budget = CONTEXT_CHARS - span;
            // The room on each side, counted up to the budget (more changes nothing below).
            let left_room = text[..start].chars().rev().take(budget).count();
            let right_room = text[end..].chars().take(budget).count();
            let mut left = budget / 2;
            let mut right = budget - left;
            if left > left_room {
                right += left - left_room;
                left = left_room;
            }
            if right > right_room {
                left = (left + right - right_room).min(left_room);
                right = right_room;
            }
            let mut from = retreat(text, start, left);
            let mut to = advance(text, end, right);
            // Do not show half words at the cut edges.
            if from > 0
                && let Some(space) = text[from..start].find(' ')
            {
                from += space + 1;
            }
            if to < text.len()
                && let Some(space) = text[end..to].rfind(' ')
            {
                to = end + space;
            }
            (from, to)
        }
    };
    text.get(from..to)
        .unwrap_or_default()
        .trim()
        .replace('\n', " ")
}

fn floor_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Byte offset `n` characters after `from`.
fn advance(text: &str, from: usize, n: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| from + i)
}

/// Byte offset `n` characters before `from`.
fn retreat(text: &str, from: usize, n: usize) -> usize {
    if n == 0 {
        return from;
    }
    text[..from]
        .char_indices()
        .rev()
        .nth(n - 1)
        .map_or(0, |(i, _)| i)
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

/// For each of `n` blocks, whether it lies inside one of the block index ranges.
fn region_mask_all(n: usize, ranges: &[(usize, usize)]) -> Vec<bool> {
    let mut delta = vec![0i64; n + 1];
    for &(start, end) in ranges {
        let (start, end) = (start.min(n), end.min(n));
        if start < end {
            delta[start] += 1;
            delta[end] -= 1;
        }
    }
    covered(&delta, n)
}

/// Positions `0..n` covered by at least one range of a difference array (`+1` at each start,
/// `-1` at each end).
fn covered(delta: &[i64], n: usize) -> Vec<bool> {
    let mut depth = 0i64;
    delta
        .iter()
        .take(n)
        .map(|d| {
            depth += d;
            depth > 0
        })
        .collect()
}

/// For each block, whether it lies inside a structural cue that is not a page wrapper.
fn region_mask(blocks: &[RawBlock], regions: &[(usize, usize)]) -> Vec<bool> {
    let n = blocks.len();
    let mut prefix_words = Vec::with_capacity(n + 1);
    prefix_words.push(0usize);
    for block in blocks {
        let last = prefix_words.last().copied().unwrap_or(0);
        prefix_words.push(last + count_words(&block.text));
    }
    let total = prefix_words.last().copied().unwrap_or(0);
    let mut delta = vec![0i64; n + 1];
    for &(start, end) in regions {
        let (start, end) = (start.min(n), end.min(n));
        if start >= end {
            continue;
        }
        let words = prefix_words[end] - prefix_words[start];
        if total > 0 && words as f64 >= MAX_REGION_SHARE * total as f64 {
            continue;
        }
        delta[start] += 1;
        delta[end] -= 1;
    }
    covered(&delta, n)
}

/// The language whose stop words measure the blocks. In order: a reliable detection on the
/// page's longer, non-boilerplate blocks; else the list that covers most of that sample's
/// words, when it covers enough of them (whatlang's confidence is low on mixed or short pages
/// that function words still identify well); else the declared language; else
/// [`FALLBACK_LANGUAGE`]. `None` when the language is known but has no list: stop words are
/// then not used, as in jusText's language-independent mode. Also returns the sample and
/// whatlang's guess on it.
fn stopword_language(
    blocks: &[RawBlock],
    boiler: &[bool],
    lang_attr: Option<&str>,
) -> (Option<&'static str>, (String, Option<LangGuess>)) {
    let mut sample = sample_text(
        blocks
            .iter()
            .zip(boiler)
            .filter(|(b, boiler)| {
                !**boiler && b.text.len() >= LENGTH_LOW && b.link_chars * 2 < b.text.len()
            })
            .map(|(b, _)| b.text.as_str()),
    );
    if sample.len() < 200 {
        sample = sample_text(blocks.iter().map(|b| b.text.as_str()));
    }
    let with_list = |code: &str| stopwords::LANGUAGES.iter().copied().find(|l| *l == code);
    let guess = lang::detect(&sample);
    let code = match &guess {
        Some(guess) if guess.reliable => with_list(&guess.code),
        _ => match best_stopword_list(&sample) {
            Some(code) => Some(code),
            None => match lang_attr.and_then(lang::primary_language) {
                Some(code) => with_list(&code),
                None => Some(FALLBACK_LANGUAGE),
            },
        },
    };
    (code, (sample, guess))
}

/// The list covering the largest share of `sample`'s words, if that share reaches
/// [`MIN_GUESS_DENSITY`] over at least [`MIN_GUESS_WORDS`] words.
fn best_stopword_list(sample: &str) -> Option<&'static str> {
    let lists: Vec<&[&str]> = stopwords::LANGUAGES
        .iter()
        .map(|code| stopwords::stopwords(code).unwrap_or_default())
        .collect();
    let mut total = 0usize;
    let mut hits = vec![0usize; lists.len()];
    let mut lower = String::new();
    for word in words(sample) {
        total += 1;
        for (hit, list) in hits.iter_mut().zip(&lists) {
            *hit += usize::from(on_list(list, word, &mut lower));
        }
    }
    let (best, &count) = hits.iter().enumerate().max_by_key(|(_, count)| **count)?;
    let enough = total >= MIN_GUESS_WORDS && count as f64 >= MIN_GUESS_DENSITY * total as f64;
    enough
        .then(|| stopwords::LANGUAGES.get(best).copied())
        .flatten()
}

/// Whether `word`, lower-cased (in `scratch` when needed), is on the sorted `list`.
fn on_list(list: &[&str], word: &str, scratch: &mut String) -> bool {
    if word.is_ascii() {
        // Most words: ASCII lower-casing, byte by byte.
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return list.binary_search(&word).is_ok();
        }
        scratch.clear();
        scratch.push_str(word);
        scratch.make_ascii_lowercase();
        return list.binary_search(&scratch.as_str()).is_ok();
    }
    if word.chars().any(char::is_uppercase) {
        scratch.clear();
        scratch.extend(word.chars().flat_map(char::to_lowercase));
        list.binary_search(&scratch.as_str()).is_ok()
    } else {
        list.binary_search(&word).is_ok()
    }
}

/// A word list as a hash set: one hash per word instead of a binary search of string
/// comparisons (the stop-word test runs on every word of the page).
type WordSet = std::collections::HashSet<&'static str>;

/// The stop words of `lang` as a set, built once per language.
fn stopword_set(lang: &str) -> Option<&'static WordSet> {
    static SETS: std::sync::LazyLock<Vec<(&'static str, WordSet)>> =
        std::sync::LazyLock::new(|| {
            stopwords::LANGUAGES
                .iter()
                .map(|code| {
                    let words = stopwords::stopwords(code).unwrap_or_default();
                    (*code, words.iter().copied().collect())
                })
                .collect()
        });
    SETS.iter()
        .find(|(code, _)| *code == lang)
        .map(|(_, set)| set)
}

/// [`on_list`] for a [`WordSet`].
fn in_set(set: &WordSet, word: &str, scratch: &mut String) -> bool {
    if word.is_ascii() {
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return set.contains(word);
        }
        scratch.clear();
        scratch.push_str(word);
        scratch.make_ascii_lowercase();
        return set.contains(scratch.as_str());
    }
    if word.chars().any(char::is_uppercase) {
        scratch.clear();
        scratch.extend(word.chars().flat_map(char::to_lowercase));
        set.contains(scratch.as_str())
    } else {
        set.contains(word)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Good,
    NearGood,
    Short,
    Bad,
    /// A short block of link text ("Read more", a menu entry): dropped, but transparent to
    /// the context rules, so that it does not cut a page's text apart.
    Link,
}

/// What the classifier needs to know about a block (or a run of short blocks).
#[derive(Clone, Copy, Default)]
struct Stats {
    chars: usize,
    link_chars: usize,
    words: usize,
    stopwords: usize,
    boiler: bool,
    copyright: bool,
}

impl Stats {
    fn of(text: &str, link_chars: usize, boiler: bool, list: Option<&WordSet>) -> Stats {
        let mut stats = Stats {
            chars: text.chars().count(),
            link_chars,
            boiler,
            copyright: text.contains('©'),
            ..Stats::default()
        };
        let mut lower = String::new();
        for word in words(text) {
            stats.words += 1;
            if let Some(list) = list {
                stats.stopwords += usize::from(in_set(list, word, &mut lower));
            }
        }
        stats
    }

    /// The statistics of `self` and `other` read as one paragraph.
    fn join(self, other: Stats) -> Stats {
        Stats {
            chars: self.chars + 1 + other.chars,
            link_chars: self.link_chars + other.link_chars,
            words: self.words + other.words,
            stopwords: self.stopwords + other.stopwords,
            boiler: self.boiler || other.boiler,
            copyright: self.copyright || other.copyright,
        }
    }
}

/// jusText's context-free classification of one block: (class, reason if later dropped).
/// Without a stop-word list, the stop-word tests pass (jusText's language-independent mode).
fn classify_one(stats: &Stats, has_list: bool) -> (Class, BlockReason) {
    if stats.boiler {
        return (Class::Bad, BlockReason::BoilerplateElement);
    }
    if link_density(stats.link_chars, stats.chars) > MAX_LINK_DENSITY {
        let class = if stats.chars < LENGTH_LOW {
            Class::Link
        } else {
            Class::Bad
        };
        return (class, BlockReason::LinkDense);
    }
    if stats.copyright {
        return (Class::Bad, BlockReason::Copyright);
    }
    if stats.chars < LENGTH_LOW {
        return if stats.link_chars > 0 {
            (Class::Link, BlockReason::LinkDense)
        } else {
            (Class::Short, BlockReason::Short)
        };
    }
    let density = if stats.words == 0 {
        0.0
    } else {
        stats.stopwords as f32 / stats.words as f32
    };
    let (low, high) = if has_list {
        (STOPWORDS_LOW, STOPWORDS_HIGH)
    } else {
        (0.0, 0.0)
    };
    if density >= high {
        if stats.chars > LENGTH_HIGH {
            (Class::Good, BlockReason::Good)
        } else {
            (Class::NearGood, BlockReason::Short)
        }
    } else if density >= low {
        (Class::NearGood, BlockReason::FewStopwords)
    } else {
        (Class::Bad, BlockReason::FewStopwords)
    }
}

/// Words of date, time and byline lines ("Published 2:16 AM EST Nov 20, 2019", "By Jane Doe |
/// Updated Tuesday"), in the languages with stop-word lists, sorted.
const DATELINE_WORDS: &[&str] = &[
    "am",
    "août",
    "apr",
    "april",
    "aug",
    "august",
    "avril",
    "by",
    "cest",
    "cet",
    "de",
    "dec",
    "december",
    "décembre",
    "edt",
    "est",
    "feb",
    "february",
    "friday",
    "février",
    "gmt",
    "jan",
    "january",
    "janvier",
    "jeudi",
    "juillet",
    "juin",
    "jul",
    "july",
    "jun",
    "june",
    "lundi",
    "mai",
    "mar",
    "march",
    "mardi",
    "mars",
    "may",
    "mercredi",
    "min",
    "minutes",
    "mis",
    "monday",
    "nov",
    "november",
    "novembre",
    "oct",
    "october",
    "octobre",
    "on",
    "par",
    "pm",
    "posted",
    "pst",
    "published",
    "publié",
    "read",
    "samedi",
    "saturday",
    "sep",
    "sept",
    "september",
    "septembre",
    "sunday",
    "thursday",
    "tuesday",
    "updated",
    "utc",
    "vendredi",
    "wednesday",
    "à",
];

/// Whether a short block is a date, time or byline line: most of its words are numbers or
/// [`DATELINE_WORDS`], one at least of the latter. Such lines sit inside article containers
/// but are not the article.
fn is_dateline(text: &str) -> bool {
    if text.len() >= LENGTH_LOW {
        return false;
    }
    let (mut all, mut numbers, mut named) = (0usize, 0usize, 0usize);
    let mut lower = String::new();
    for word in words(text) {
        all += 1;
        if word.chars().all(|c| c.is_ascii_digit()) {
            numbers += 1;
        } else if on_list(DATELINE_WORDS, word, &mut lower) {
            named += 1;
        }
    }
    // A named word is required: a line of scores ("Palm Bay 18 22 13 17") is all numbers.
    named > 0 && (numbers + named) * 5 >= all * 3
}

fn link_density(link_chars: usize, chars: usize) -> f32 {
    if chars == 0 {
        0.0
    } else {
        link_chars.min(chars) as f32 / chars as f32
    }
}

/// What the tree says about each block, beyond its own text.
struct Structure<'a> {
    /// Inside a structural boilerplate cue.
    boiler: &'a [bool],
    /// Main-content candidates.
    containers: &'a [Container],
    /// Inside reader comments that are to be kept (empty with `drop_comments`).
    comments: &'a [bool],
}

/// Text weight of a block for the main-region choice.
fn region_weight(class: Class, reason: BlockReason, chars: usize) -> usize {
    match (class, reason) {
        (Class::Good | Class::NearGood, _) => chars,
        (Class::Short, _) | (Class::Bad, BlockReason::FewStopwords) => chars / 2,
        _ => 0,
    }
}

/// The page's main-content region (a block index range), if a candidate is heavy enough.
///
/// Explicit cues are trusted in order of strength, as trafilatura's content XPaths are: the
/// heaviest `itemprop=articleBody` first, then the heaviest `article`, then `main` and content
/// class names, each only if it holds [`MAIN_REGION_SHARE`] of the page's weight (a teaser
/// `<article>` does not). The region is then the innermost candidate inside it that still
/// holds [`MAIN_REGION_NARROWING`] of its weight.
fn main_region(containers: &[Container], weights: &[usize]) -> Option<(usize, usize)> {
    let n = weights.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0usize);
    for w in weights {
        prefix.push(prefix.last().copied().unwrap_or(0) + w);
    }
    let total = prefix.last().copied().unwrap_or(0);
    let weight = |c: &Container| {
        let (start, end) = (c.start.min(n), c.end.min(n));
        prefix[end.max(start)] - prefix[start]
    };
    if total == 0 {
        return None;
    }
    let outer = [Cue::ArticleBody, Cue::Article, Cue::Other]
        .into_iter()
        .find_map(|cue| {
            containers
                .iter()
                .filter(|c| c.cue == cue)
                .max_by_key(|c| (weight(c), std::cmp::Reverse(c.start)))
                .filter(|c| weight(c) as f64 >= MAIN_REGION_SHARE * total as f64)
        })?;
    let floor = MAIN_REGION_NARROWING * weight(outer) as f64;
    containers
        .iter()
        .filter(|c| c.start >= outer.start && c.end <= outer.end && weight(c) as f64 >= floor)
        .min_by_key(|c| (c.end.saturating_sub(c.start), c.start))
        .map(|c| (c.start, c.end))
}

fn classify(
    raw: Vec<RawBlock>,
    structure: &Structure<'_>,
    stop_lang: Option<&str>,
    keep_everything: bool,
) -> Vec<Block> {
    let boiler = structure.boiler;
    let list = stop_lang.and_then(stopword_set);
    let stats: Vec<Stats> = raw
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let boiler = boiler.get(i).copied().unwrap_or(false);
            Stats::of(&b.text, b.link_chars, boiler, list)
        })
        .collect();
    let has_list = list.is_some();
    let (mut initial, reasons): (Vec<Class>, Vec<BlockReason>) =
        stats.iter().map(|s| classify_one(s, has_list)).unzip();

    // A run of adjacent short or near-good blocks (a list, lines cut by <br><br>, a news
    // story in one-sentence paragraphs) is judged as one paragraph too: fragmentation alone
    // does not make text boilerplate. Link blocks and bad blocks end a run, so teaser lists
    // (title link, summary, title link…) are not joined.
    let joinable = |c: Class| matches!(c, Class::Short | Class::NearGood);
    let mut i = 0;
    while i < initial.len() {
        if !joinable(initial[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut run = stats[i];
        i += 1;
        while i < initial.len() && joinable(initial[i]) {
            run = run.join(stats[i]);
            i += 1;
        }
        if i - start < 2 {
            continue;
        }
        match classify_one(&run, has_list).0 {
            Class::Good => initial[start..i].fill(Class::Good),
            Class::NearGood => {
                for class in &mut initial[start..i] {
                    if *class == Class::Short {
                        *class = Class::NearGood;
                    }
                }
            }
            _ => {}
        }
    }

    // Inside the main-content region, short and stop-word-poor text (score lines, one-line
    // paragraphs, list items) is part of the article; link text and boilerplate cues are not.
    let weights: Vec<usize> = initial
        .iter()
        .zip(&reasons)
        .zip(&stats)
        .map(|((c, r), s)| region_weight(*c, *r, s.chars))
        .collect();
    let region = main_region(structure.containers, &weights);
    let mut promoted = vec![false; initial.len()];
    if let Some((start, end)) = region {
        // Text that appears twice on the page (gallery captions, "Close", repeated credits)
        // is page furniture, not article text.
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for block in raw.get(start..end).unwrap_or_default() {
            *seen.entry(block.text.as_str()).or_default() += 1;
        }
        for i in start..end.min(initial.len()) {
            let eligible = match initial[i] {
                Class::Short | Class::NearGood => true,
                // A digest paragraph with a few links in it is text; a list of titles is not.
                Class::Bad if reasons[i] == BlockReason::LinkDense => {
                    !boiler[i]
                        && link_density(stats[i].link_chars, stats[i].chars)
                            <= MAIN_REGION_LINK_DENSITY
                }
                Class::Bad => reasons[i] == BlockReason::FewStopwords,
                _ => false,
            };
            let block = &raw[i];
            if matches!(initial[i], Class::Short | Class::NearGood) && is_dateline(&block.text) {
                // Not article text, and not to be revived by its neighbours either.
                initial[i] = Class::Bad;
                continue;
            }
            let fragment = block.kind != BlockKind::Heading && stats[i].words < MIN_PROMOTED_WORDS;
            if eligible
                && block.kind != BlockKind::Other
                && !fragment
                && seen.get(block.text.as_str()).copied().unwrap_or(0) < 2
            {
                initial[i] = Class::Good;
                promoted[i] = true;
            }
        }
    }

    // A page without a single long paragraph (lists, short notes) would lose everything:
    // jusText needs a good block to anchor the context. Its stop-word-rich near-good blocks
    // become the anchors instead.
    let mut anchored = initial.clone();
    if !anchored.contains(&Class::Good) {
        for (class, reason) in anchored.iter_mut().zip(&reasons) {
            if *class == Class::NearGood && *reason == BlockReason::Short {
                *class = Class::Good;
            }
        }
    }
    let headings: Vec<bool> = raw.iter().map(|b| b.kind == BlockKind::Heading).collect();
    let lengths: Vec<usize> = stats.iter().map(|s| s.chars).collect();
    let mut fin = revise(&anchored, &headings, &lengths);
    let mut outside = vec![false; fin.len()];
    if let Some((region_start, end)) = region {
        // A lead paragraph often sits just above the article body's container: long good
        // paragraphs before the region, up to the first bad text or a gap of other text, are
        // part of it.
        let mut start = region_start.min(fin.len());
        let mut gap = 0;
        for i in (0..start).rev() {
            if fin[i] == Class::Good && reasons[i] == BlockReason::Good {
                start = i;
                gap = 0;
            } else if initial[i] == Class::Bad && !boiler[i] {
                break;
            } else {
                gap += lengths[i];
                if gap > MAX_HEADING_DISTANCE {
                    break;
                }
            }
        }
        for (i, class) in fin.iter_mut().enumerate() {
            let kept_comment = structure.comments.get(i).copied().unwrap_or(false);
            if (i < start || i >= end) && *class == Class::Good && !kept_comment {
                *class = Class::Bad;
                outside[i] = true;
            }
        }
    }

    raw.into_iter()
        .enumerate()
        .map(|(i, block)| {
            let good = fin[i] == Class::Good;
            let reason = match (good, reasons[i]) {
                _ if outside[i] => BlockReason::OutsideMain,
                (true, BlockReason::Good) => BlockReason::Good,
                (true, _) if promoted[i] => BlockReason::MainContent,
                (true, _) => BlockReason::NearGood,
                (false, reason) => reason,
            };
            Block {
                kind: block.kind,
                link_density: link_density(block.link_chars, lengths[i]),
                words: stats[i].words,
                text: block.text,
                keep: good || keep_everything,
                reason,
            }
        })
        .collect()
}

/// jusText's context-sensitive revision; every block ends Good or Bad. Linear time: the
/// neighbour look-ups are precomputed instead of rescanned for every block.
fn revise(initial: &[Class], heading: &[bool], lengths: &[usize]) -> Vec<Class> {
    let n = initial.len();
    let mut class = initial.to_vec();

    // Short headings shortly before a good block become near-good.
    for i in 0..n {
        if heading[i] && class[i] == Class::Short && good_follows(&class, lengths, i) {
            class[i] = Class::NearGood;
        }
    }

    // Short blocks take their class from the nearest good/bad neighbours (the page edges
    // count as bad); between a good and a bad one, a near-good block on the bad side tips
    // the balance.
    let (prev_gb, prev_any) = neighbours(&class, (0..n).collect::<Vec<_>>());
    let (next_gb, next_any) = neighbours(&class, (0..n).rev().collect::<Vec<_>>());
    let mut revised = class.clone();
    for i in 0..n {
        if class[i] != Class::Short {
            continue;
        }
        revised[i] = match (prev_gb[i], next_gb[i]) {
            (Class::Good, Class::Good) => Class::Good,
            (Class::Bad, Class::Bad) => Class::Bad,
            (prev, next) => {
                if (prev == Class::Bad && prev_any[i] == Class::NearGood)
                    || (next == Class::Bad && next_any[i] == Class::NearGood)
                {
                    Class::Good
                } else {
                    Class::Bad
                }
            }
        };
    }
    class = revised;

    // Near-good blocks are kept unless both good/bad neighbours are bad. Revised blocks
    // count as neighbours for the following ones, as in jusText's in-place loop.
    let original = class.clone();
    let mut next_gb = vec![Class::Bad; n];
    let mut next = Class::Bad;
    for i in (0..n).rev() {
        next_gb[i] = next;
        if matches!(original[i], Class::Good | Class::Bad) {
            next = original[i];
        }
    }
    let mut prev = Class::Bad;
    for i in 0..n {
        if class[i] == Class::NearGood {
            class[i] = if prev == Class::Bad && next_gb[i] == Class::Bad {
                Class::Bad
            } else {
                Class::Good
            };
        }
        if matches!(class[i], Class::Good | Class::Bad) {
            prev = class[i];
        }
    }
    for c in &mut class {
        if *c == Class::Link {
            *c = Class::Bad;
        }
    }

    // Headings dropped only by context are kept when a good block follows closely.
    for i in 0..n {
        if heading[i]
            && class[i] == Class::Bad
            && !matches!(initial[i], Class::Bad | Class::Link)
            && good_follows(&class, lengths, i)
        {
            class[i] = Class::Good;
        }
    }
    class
}

/// Whether a good block starts within [`MAX_HEADING_DISTANCE`] characters after block `i`.
fn good_follows(class: &[Class], lengths: &[usize], i: usize) -> bool {
    let mut distance = 0;
    for j in i + 1..class.len() {
        if distance > MAX_HEADING_DISTANCE {
            return false;
        }
        if class[j] == Class::Good {
            return true;
        }
        distance += lengths[j];
    }
    false
}

/// For each block, in the order given, the class of the nearest earlier block that is good or
/// bad, and of the nearest earlier one that is good, bad or near-good (short blocks are
/// skipped; the edge counts as bad).
fn neighbours(class: &[Class], order: Vec<usize>) -> (Vec<Class>, Vec<Class>) {
    let n = class.len();
    let mut good_bad = vec![Class::Bad; n];
    let mut any = vec![Class::Bad; n];
    let (mut last_gb, mut last_any) = (Class::Bad, Class::Bad);
    for i in order {
        good_bad[i] = last_gb;
        any[i] = last_any;
        match class[i] {
            Class::Good | Class::Bad => {
                last_gb = class[i];
                last_any = class[i];
            }
            Class::NearGood => last_any = Class::NearGood,
            Class::Short | Class::Link => {}
        }
    }
    (good_bad, any)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_url() -> Url {
        Url::parse("https://example.org/dir/page.html").expect("static URL")
    }

    fn extract(html: &str) -> Extracted {
        extract_html(html, &page_url(), &ExtractOptions::default())
    }

    /// Real running text, long and rich in stop words.
    pub(super) const PARA_EN: &str = "The committee met on Tuesday to discuss the future of the old railway \
        line, which has been closed for more than ten years. Most of the members agreed that the \
        track should be restored, but they could not decide who would pay for the work, and the \
        question was left for the next meeting in the spring.";
    const PARA_EN2: &str = "I went to the meeting myself and I have to say that I was surprised \
        by how many people came along. If the council had listened to them years ago, we would not \
        be in this situation now, and the trains would still be running to our village.";
    const PARA_FR: &str = "Le conseil municipal s'est réuni mardi pour discuter de l'avenir de \
        l'ancienne ligne de chemin de fer, qui est fermée depuis plus de dix ans. La plupart des \
        membres étaient d'accord pour qu'elle soit rouverte, mais ils n'ont pas su dire qui \
        paierait les travaux, et la question a été renvoyée à la prochaine séance.";

    #[test]
    fn main_region_keeps_its_short_lines_and_drops_teasers_around_it() {
        let html = format!(
            "<html><body><div><p>{PARA_EN2}</p><p>Another story teaser that runs long enough to \
             be judged on its own words, with a few of the usual stop words in it.</p></div>\
             <p><a href=\"/a\">Another headline that is only a link</a> \
             <a href=\"/b\">and one more headline link here, about the railway line</a></p><article><h1>Results</h1><p>Published 2:16 AM EST Nov 20, 2019</p>\
             <p>{PARA_EN}</p><p>Palm Bay 18 22 13 17 — 70</p><p>Rockledge 14 11 6 15 — 44</p>\
             <p>{PARA_EN}</p><figure><figcaption>Close</figcaption></figure></article></body></html>"
        );
        let ex = extract(&html);
        let reason = |start: &str| {
            let block = ex
                .blocks
                .iter()
                .find(|b| b.text.starts_with(start))
                .unwrap_or_else(|| panic!("no block {start}: {:#?}", ex.blocks));
            (block.keep, block.reason)
        };
        assert_eq!(reason("Palm Bay"), (true, BlockReason::MainContent));
        assert_eq!(reason("Rockledge"), (true, BlockReason::MainContent));
        assert!(!reason("Published").0, "a dateline is not article text");
        assert_eq!(reason("I went"), (false, BlockReason::OutsideMain));
        assert!(!reason("Close").0);
        assert!(reason("Results").0, "the article heading stays");
    }

    #[test]
    fn without_a_heavy_container_classification_is_jus_text_alone() {
        // The only <article> is a small teaser: it does not become the main region.
        let html = format!(
            "<html><body><p>{PARA_EN}</p><p>{PARA_EN2}</p>\
             <article><p>Short teaser line here</p></article></body></html>"
        );
        let ex = extract(&html);
        assert!(
            ex.blocks
                .iter()
                .all(|b| b.reason != BlockReason::OutsideMain)
        );
        assert!(ex.kept().count() >= 2);
    }

    #[test]
    fn inline_hidden_elements_are_boilerplate() {
        let html = format!(
            "<html><body><p>{PARA_EN}</p><div style=\"display: none !important\"><p>{PARA_EN2}</p>\
             </div><div style=\"color:red; visibility:hidden\"><p>{PARA_FR}</p></div></body></html>"
        );
        let ex = extract(&html);
        let kept: Vec<&str> = ex.kept().map(|b| b.text.as_str()).collect();
        assert_eq!(kept, [PARA_EN]);
        assert!(!hides("display: block"));
    }

    #[test]
    fn datelines_are_recognised() {
        assert!(is_dateline("Published 2:16 AM EST Nov 20, 2019"));
        assert!(is_dateline("| November 18, 2019 12:26 PM"));
        assert!(is_dateline("Publié le mardi 3 mars 2020 à 14 h"));
        assert!(!is_dateline(
            "Palm Bay 18 22 13 17 — 70 points for the home team"
        ));
        assert!(!is_dateline("The committee met on Tuesday"));
        for pair in DATELINE_WORDS.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
    }

    fn link<'a>(ex: &'a Extracted, url: &str) -> &'a Link {
        ex.links
            .iter()
            .find(|l| l.url == url)
            .unwrap_or_else(|| panic!("no link {url} in {:#?}", ex.links))
    }

    #[test]
    fn links_resolve_against_base_href_without_fragments() {
        let ex = extract(
            r##"<html><head><base href="https://base.example/sub/">
            <link rel="next" href="page3.html"><link rel="prev" href="/page1.html">
            <link rel="stylesheet" href="style.css">
            <meta http-equiv="Refresh" content="5; URL='https://elsewhere.example/landing#top'">
            </head><body>
            <p>Read <a href="rel/doc.html#section-2">the document</a> or
            <a href="//cdn.example/x?a=1&amp;b=2">the mirror</a>.</p>
            <a href="mailto:someone@example.org">mail</a>
            <a href="javascript:void(0)">js</a>
            <a href="tel:+331234">phone</a>
            <a href="ftp://ftp.example/file">ftp</a>
            <a href="data:text/html,hi">data</a>
            <a href="#top">top</a>
            <a href="">self</a>
            <a href="nofollowed.html" rel="external NoFollow">sponsored</a>
            <a href="img.html" title="Go"><img src="x.png" alt="A  picture"></a>
            <a href="titled.html" aria-label="Labelled"></a>
            <map><area href="area.html" alt="Region"></map>
            <iframe src="frame/inner.html" title="Inner">fallback text</iframe>
            </body></html>"##,
        );
        let urls: Vec<&str> = ex.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://base.example/sub/page3.html",
                "https://base.example/page1.html",
                "https://elsewhere.example/landing",
                "https://base.example/sub/rel/doc.html",
                "https://cdn.example/x?a=1&b=2",
                "https://base.example/sub/nofollowed.html",
                "https://base.example/sub/img.html",
                "https://base.example/sub/titled.html",
                "https://base.example/sub/area.html",
                "https://base.example/sub/frame/inner.html",
            ]
        );
        let doc = link(&ex, "https://base.example/sub/rel/doc.html");
        assert_eq!(doc.anchor, "the document");
        assert_eq!(doc.kind, LinkKind::Anchor);
        assert!(doc.context.contains("Read the document or the mirror"));
        assert!(!doc.nofollow);
        assert!(link(&ex, "https://base.example/sub/nofollowed.html").nofollow);
        assert_eq!(
            link(&ex, "https://base.example/sub/img.html").anchor,
            "A picture"
        );
        assert_eq!(
            link(&ex, "https://base.example/sub/titled.html").anchor,
            "Labelled"
        );
        let area = link(&ex, "https://base.example/sub/area.html");
        assert_eq!(
            (area.kind, area.anchor.as_str()),
            (LinkKind::Area, "Region")
        );
        let frame = link(&ex, "https://base.example/sub/frame/inner.html");
        assert_eq!(
            (frame.kind, frame.anchor.as_str()),
            (LinkKind::Iframe, "Inner")
        );
        let next = link(&ex, "https://base.example/sub/page3.html");
        assert_eq!(next.kind, LinkKind::LinkRel);
        let refresh = link(&ex, "https://elsewhere.example/landing");
        assert_eq!(refresh.kind, LinkKind::MetaRefresh);
        assert!(ex.blocks.iter().all(|b| !b.text.contains("fallback text")));
    }

    #[test]
    fn links_resolve_against_page_url_and_frames() {
        let ex = extract(
            r#"<html><frameset><frame src="left.html"><frame src="/right.html"></frameset></html>"#,
        );
        let got: Vec<(&str, LinkKind)> =
            ex.links.iter().map(|l| (l.url.as_str(), l.kind)).collect();
        assert_eq!(
            got,
            [
                ("https://example.org/dir/left.html", LinkKind::Frame),
                ("https://example.org/right.html", LinkKind::Frame),
            ]
        );
        // A broken base href falls back to the page URL.
        let ex = extract(r#"<base href="http://[::1"><a href="a.html">a</a>"#);
        assert_eq!(ex.links[0].url, "https://example.org/dir/a.html");
    }

    #[test]
    fn refresh_content_forms() {
        assert_eq!(refresh_url("5; url=a.html"), Some("a.html"));
        assert_eq!(refresh_url("0;URL = 'b.html'"), Some("b.html"));
        assert_eq!(refresh_url("3, \"c.html\" "), Some("c.html"));
        assert_eq!(
            refresh_url("0 https://d.example/"),
            Some("https://d.example/")
        );
        assert_eq!(refresh_url("1.5;url=urlpage.html"), Some("urlpage.html"));
        assert_eq!(refresh_url("10"), None);
        assert_eq!(refresh_url(""), None);
        assert_eq!(refresh_url("5; url="), None);
    }

    #[test]
    fn meta_robots_title_canonical_and_lang() {
        let ex = extract(
            r#"<html lang="fr-FR"><head><title>  Un   titre
            sur deux lignes </title>
            <meta name="ROBOTS" content="NoIndex, follow">
            <link rel="canonical" href="/canon#x"></head><body><p>x</p></body></html>"#,
        );
        assert_eq!(ex.title.as_deref(), Some("Un titre sur deux lignes"));
        assert_eq!(
            ex.meta_robots,
            MetaRobots {
                noindex: true,
                nofollow: false
            }
        );
        assert_eq!(ex.canonical.as_deref(), Some("https://example.org/canon"));
        assert_eq!(ex.lang_attr.as_deref(), Some("fr-FR"));

        let ex = extract(r#"<meta name="robots" content="none"><p lang="de">x</p>"#);
        assert!(ex.meta_robots.noindex && ex.meta_robots.nofollow);
        assert_eq!(ex.lang_attr.as_deref(), Some("de"));
        assert_eq!(ex.title, None);

        let ex = extract(
            r#"<meta name="robots" content="nofollow"><meta name="googlebot" content="noindex">
            <meta http-equiv="content-language" content="cs, en">"#,
        );
        assert_eq!(
            ex.meta_robots,
            MetaRobots {
                noindex: false,
                nofollow: true
            }
        );
        assert_eq!(ex.lang_attr.as_deref(), Some("cs"));
    }

    #[test]
    fn declared_dates() {
        let ex = extract(
            r#"<head><meta property="article:published_time" content=" 2024-03-05T10:00:00+01:00 ">
            <meta property="og:updated_time" content="2024-04-01">
            <meta name="DC.date" content="1999-01-01"></head>
            <body><time datetime="2020-01-01">1er janvier</time><p>x</p></body>"#,
        );
        assert_eq!(
            ex.dates,
            PageDates {
                published: Some("2024-03-05T10:00:00+01:00".into()),
                modified: Some("2024-04-01".into()),
            }
        );
        // Microdata, then `<time>` as the last resort for the publication date.
        let ex = extract(
            r#"<p>Publié le <time datetime="2021-06-07">7 juin</time></p>
            <span itemprop="dateModified" content="2021-06-09"></span>
            <meta http-equiv="last-modified" content="2001-01-01">"#,
        );
        assert_eq!(ex.dates.published.as_deref(), Some("2021-06-07"));
        assert_eq!(ex.dates.modified.as_deref(), Some("2021-06-09"));
        // Values without a digit, or absurdly long, are not dates.
        let long = "1".repeat(MAX_DATE_CHARS + 1);
        let ex = extract(&format!(
            r#"<meta name="date" content="hier"><meta name="revised" content="{long}"><p>x</p>"#
        ));
        assert_eq!(ex.dates, PageDates::default());
    }

    #[test]
    fn script_style_and_hidden_code_never_become_text() {
        let ex = extract(&format!(
            r#"<html><head><style>p {{ color: red }}</style>
            <script>var secret = "SCRIPTTEXT";</script></head><body>
            <p>{PARA_EN}<script>document.write("INLINESCRIPT")</script></p>
            <noscript>NOSCRIPTTEXT</noscript><template><p>TEMPLATETEXT</p></template>
            <svg><text>SVGTEXT</text><title>SVGTITLE</title></svg>
            <script type="application/ld+json">{{"headline": "JSONTEXT"}}</script>
            </body></html>"#
        ));
        let all: String = ex.blocks.iter().map(|b| b.text.as_str()).collect();
        for needle in [
            "SCRIPTTEXT",
            "INLINESCRIPT",
            "NOSCRIPTTEXT",
            "TEMPLATETEXT",
            "SVGTEXT",
            "SVGTITLE",
            "JSONTEXT",
            "color",
        ] {
            assert!(!all.contains(needle), "{needle} leaked into {all}");
        }
        assert_eq!(ex.title, None);
        assert_eq!(ex.kept().count(), 1);
    }

    #[test]
    fn navigation_dropped_and_real_paragraph_kept() {
        let html = format!(
            r#"<html lang="en"><body>
            <div id="top-menu"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>
            <li><a href="/sport">Sport</a></li><li><a href="/contact">Contact</a></li></ul></div>
            <nav><p>Browse the whole archive of the committee and all of its past meetings here today</p></nav>
            <div class="breadcrumb">Home &gt; Transport &gt; Railways</div>
            <h1>Railway line to reopen?</h1>
            <p>{PARA_EN}</p>
            <p>{PARA_EN}</p>
            <div class="cookie-banner"><p>We use cookies to give you the best experience on our site and to show you relevant adverts.</p></div>
            <footer><p>Contact us at the town hall, which is open on every weekday from nine to five.</p></footer>
            </body></html>"#
        );
        let ex = extract(&html);
        let kept: Vec<&str> = ex.kept().map(|b| b.text.as_str()).collect();
        assert_eq!(kept, ["Railway line to reopen?", PARA_EN, PARA_EN]);
        assert_eq!(ex.clean_text(), kept.join("\n\n"));
        let reason = |needle: &str| {
            ex.blocks
                .iter()
                .find(|b| b.text.contains(needle))
                .map(|b| b.reason)
                .unwrap_or_else(|| panic!("no block with {needle}"))
        };
        assert_eq!(reason("Home"), BlockReason::BoilerplateElement);
        assert_eq!(
            reason("Browse the whole archive"),
            BlockReason::BoilerplateElement
        );
        assert_eq!(reason("Transport"), BlockReason::BoilerplateElement);
        assert_eq!(reason("cookies"), BlockReason::BoilerplateElement);
        assert_eq!(reason("town hall"), BlockReason::BoilerplateElement);
        assert_eq!(reason("Railway line"), BlockReason::NearGood);
        assert_eq!(reason(PARA_EN), BlockReason::Good);
        let heading = ex
            .blocks
            .iter()
            .find(|b| b.text.starts_with("Railway"))
            .expect("present");
        assert_eq!(heading.kind, BlockKind::Heading);
        assert_eq!(ex.stopword_lang.as_deref(), Some("en"));
        assert_eq!(ex.language.as_ref().map(|l| l.code.as_str()), Some("en"));
    }

    #[test]
    fn link_lists_without_structure_are_dropped_by_link_density() {
        let menu: String = (0..12)
            .map(|i| format!(r#"<a href="/section/{i}">Section number {i} of the site</a> | "#))
            .collect();
        let ex = extract(&format!(
            "<div>{menu}</div><p>{PARA_FR}</p><p>{PARA_FR}</p>"
        ));
        let menu_block = &ex.blocks[0];
        assert!(!menu_block.keep);
        assert_eq!(menu_block.reason, BlockReason::LinkDense);
        assert!(menu_block.link_density > 0.8);
        assert_eq!(ex.kept().count(), 2);
        assert_eq!(ex.stopword_lang.as_deref(), Some("fr"));
        assert_eq!(ex.links.len(), 12);
        assert!(ex.links[3].context.contains("Section number 3 of the site"));
        assert!(ex.links[3].context.chars().count() <= CONTEXT_CHARS + 1);
    }

    #[test]
    fn keep_everything_keeps_and_labels() {
        let html = format!(
            r#"<nav><a href="/">Home</a> <a href="/a">About</a></nav><p>{PARA_EN}</p><p>short one</p>"#
        );
        let normal = extract(&html);
        let all = extract_html(
            &html,
            &page_url(),
            &ExtractOptions {
                keep_everything: true,
                ..ExtractOptions::default()
            },
        );
        assert_eq!(normal.blocks.len(), all.blocks.len());
        assert!(all.blocks.iter().all(|b| b.keep));
        assert!(normal.blocks.iter().any(|b| !b.keep));
        for (a, b) in normal.blocks.iter().zip(&all.blocks) {
            assert_eq!(a.reason, b.reason);
            assert_eq!(a.text, b.text);
        }
        assert_eq!(all.blocks[0].reason, BlockReason::BoilerplateElement);
        assert!(all.clean_text().starts_with("Home About"));
    }

    #[test]
    fn blocks_kinds_lines_and_whitespace() {
        let ex = extract(
            "<body>loose text<div>in div<p>para\n  one\u{a0}two</p>tail</div>\
             <ul><li>item <b>bold</b></li></ul><table><tr><td>cell</td><th>head</th></tr></table>\
             <pre>line 1\n   line 2</pre><h3>Title <span>here</span></h3>\
             <p>first<br>second<br> <br>third</p><dl><dt>term</dt><dd>def</dd></dl></body>",
        );
        let got: Vec<(BlockKind, &str)> = ex
            .blocks
            .iter()
            .map(|b| (b.kind, b.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (BlockKind::Paragraph, "loose text"),
                (BlockKind::Paragraph, "in div"),
                (BlockKind::Paragraph, "para one two"),
                (BlockKind::Paragraph, "tail"),
                (BlockKind::ListItem, "item bold"),
                (BlockKind::TableCell, "cell"),
                (BlockKind::TableCell, "head"),
                (BlockKind::Preformatted, "line 1\nline 2"),
                (BlockKind::Heading, "Title here"),
                (BlockKind::Paragraph, "first\nsecond"),
                (BlockKind::Paragraph, "third"),
                (BlockKind::ListItem, "term"),
                (BlockKind::ListItem, "def"),
            ]
        );
        assert_eq!(ex.blocks[2].words, 3);
    }

    #[test]
    fn class_names_are_read_with_care() {
        assert!(names_boilerplate(Some("site-footer"), None, false));
        assert!(names_boilerplate(Some("x"), Some("mainNav"), false));
        assert!(names_boilerplate(Some("share-buttons"), None, false));
        assert!(!names_boilerplate(Some("has-sidebar layout"), None, false));
        assert!(!names_boilerplate(
            Some("main-white and-w-sidebar"),
            None,
            false
        ));
        assert!(!names_boilerplate(
            Some("sidebar"),
            Some("page-content"),
            false
        ));
        assert!(!names_boilerplate(Some("canvas navigator"), None, false));
        assert!(!names_boilerplate(Some("comments"), None, false));
        assert!(names_boilerplate(Some("comments"), None, true));
        assert!(!names_boilerplate(None, None, true));
        // Every listed word is found (the lists were read by binary search once, which
        // missed the two entries out of order).
        assert!(names_boilerplate(Some("site-navigation"), None, false));
        assert!(names_boilerplate(Some("subnav"), None, false));
        for list in [
            BOILERPLATE_NAMES,
            CONTENT_NAMES,
            COMMENT_NAMES,
            MODIFIER_NAMES,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?} sorted");
            assert!(list.iter().all(|w| w.len() <= MAX_NAME_WORD));
        }
    }

    #[test]
    fn a_cue_covering_most_of_the_page_is_a_wrapper() {
        let html = format!(
            r#"<div class="page sidebar-left"><p>{PARA_EN}</p><p>{PARA_EN}</p></div>
            <div class="sidebar"><p>Small widget</p></div>"#
        );
        let ex = extract(&html);
        assert_eq!(ex.kept().count(), 2);
        assert_eq!(ex.blocks[2].reason, BlockReason::BoilerplateElement);
    }

    #[test]
    fn comments_kept_unless_asked() {
        let html = format!(
            r#"<article><p>{PARA_EN}</p></article><div id="comments"><p>{PARA_EN2}</p></div>"#
        );
        assert_eq!(extract(&html).kept().count(), 2);
        let options = ExtractOptions {
            drop_comments: true,
            ..ExtractOptions::default()
        };
        let ex = extract_html(&html, &page_url(), &options);
        assert_eq!(ex.kept().count(), 1);
        assert_eq!(ex.blocks[1].reason, BlockReason::BoilerplateElement);
    }

    #[test]
    fn short_blocks_between_good_ones_are_kept_by_context() {
        let html = format!("<p>{PARA_EN}</p><p>It rained.</p><p>{PARA_EN}</p>");
        let ex = extract(&html);
        assert_eq!(ex.kept().count(), 3);
        assert_eq!(ex.blocks[1].reason, BlockReason::NearGood);
        let lone = extract("<p>It rained.</p><div><a href='/x'>Next page</a></div>");
        assert_eq!(lone.kept().count(), 0);
        assert_eq!(lone.blocks[0].reason, BlockReason::Short);
    }

    #[test]
    fn copyright_lines_are_dropped() {
        let html = format!(
            "<p>{PARA_EN}</p><p>© 2024 The Railway Society. All rights reserved. Reproduction of \
             this page in any form is forbidden without written permission.</p>"
        );
        let ex = extract(&html);
        assert_eq!(ex.blocks[1].reason, BlockReason::Copyright);
        assert!(!ex.blocks[1].keep);
    }

    #[test]
    fn stopword_language_falls_back_to_declared_then_french() {
        let ex = extract(r#"<html lang="de"><p>Kurz.</p></html>"#);
        assert_eq!(ex.stopword_lang.as_deref(), Some("de"));
        let ex = extract("<p>Kurz.</p>");
        assert_eq!(ex.stopword_lang.as_deref(), Some(FALLBACK_LANGUAGE));
        let ex = extract(r#"<html lang="ja"><p>短い。</p></html>"#);
        assert_eq!(ex.stopword_lang, None);
    }

    #[test]
    fn plain_text_paragraphs() {
        let ex =
            extract_plain("  First line\r\nstill first.\r\n\r\n \n\nSecond\tparagraph\rhere\n");
        let texts: Vec<&str> = ex.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["First line still first.", "Second paragraph here"]);
        assert!(
            ex.blocks
                .iter()
                .all(|b| b.keep && b.reason == BlockReason::KeepEverything)
        );
        assert!(ex.links.is_empty());
        assert_eq!(ex.blocks[0].words, 4);
        let ex = extract_plain(&format!("{PARA_FR}\n\n{PARA_FR}"));
        assert_eq!(ex.language.map(|l| l.code).as_deref(), Some("fr"));
        assert!(extract_plain("").blocks.is_empty());
    }

    #[test]
    fn context_is_cut_around_the_link() {
        let text = format!("{PARA_EN} Ééé link text here. {PARA_EN}");
        let start = text.find("link text").expect("present");
        let ctx = context_around(&text, start, start + "link text".len());
        assert!(ctx.contains("link text here"), "{ctx}");
        assert!(ctx.chars().count() <= CONTEXT_CHARS, "{ctx}");
        assert!(!ctx.starts_with(' ') && !ctx.ends_with(' '));
        // Offsets past the end or inside a character never panic.
        let _ = context_around("é", 1, 99);
        let _ = context_around(&text, text.len() + 5, text.len() + 9);
        let long_anchor = context_around(&text, 0, text.len());
        assert_eq!(long_anchor.chars().count(), CONTEXT_CHARS);
    }

    #[test]
    fn serialises_for_audit_and_reads_options() {
        let ex = extract(&format!(
            r#"<nav><ul><li><a href="/a">A</a></li></ul></nav><p>{PARA_EN}</p>"#
        ));
        let json = serde_json::to_value(&ex).expect("serialisable");
        assert_eq!(json["blocks"][0]["kind"], "list-item");
        assert_eq!(json["blocks"][0]["reason"], "boilerplate-element");
        assert_eq!(json["links"][0]["kind"], "anchor");
        let options: ExtractOptions = serde_json::from_str("{}").expect("defaults");
        assert!(!options.keep_everything && !options.drop_comments);
        let options: ExtractOptions =
            serde_json::from_str(r#"{"drop_comments": true}"#).expect("partial");
        assert!(options.drop_comments);
    }

    #[test]
    fn hostile_input_does_not_panic() {
        // Nesting bombs: html5ever alone would take minutes on these.
        let deep = "<div>".repeat(100_000) + "deep text" + &"</div>".repeat(10);
        let started = std::time::Instant::now();
        let ex = extract(&deep);
        assert_eq!(ex.blocks.len(), 1);
        assert_eq!(ex.blocks[0].text, "deep text");
        let spans = "<span><b>".repeat(50_000) + "x";
        assert_eq!(extract(&spans).blocks.len(), 1);
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
        let anchors = "<a href='/x'>".repeat(500) + "text";
        assert_eq!(extract(&anchors).links.len(), 500);
        for input in [
            "",
            "<",
            "<<<>>>",
            "\u{0}\u{feff}<p>\u{0}</p>",
            "<a href='http://[bad'>x</a>",
            "<meta http-equiv=refresh content='0;url=http://%%%'>",
            "<html><html lang=''><body lang=' '><p></p>",
            "<table><td><table><td><p>x<li>y</table>",
            "<br><br><br>",
            "<pre>\n\n\n</pre>",
        ] {
            let ex = extract(input);
            assert!(ex.blocks.iter().all(|b| !b.text.is_empty()), "{input:?}");
        }
    }

    #[test]
    fn links_past_the_limit_are_counted_not_kept_and_their_text_still_reads_as_links() {
        let links: String = (0..30)
            .map(|i| format!("<a href=\"/p{i}\">lien {i}</a> "))
            .collect();
        let page = format!("<html><body><p>{links}</p></body></html>");
        let url = Url::parse("http://a.test/").unwrap();
        let options = ExtractOptions {
            max_links: 12,
            ..ExtractOptions::default()
        };
        let capped = extract_html(&page, &url, &options);
        let whole = extract_html(&page, &url, &ExtractOptions::default());
        assert_eq!(capped.links.len(), 12);
        assert_eq!(capped.links_cut, 18);
        assert_eq!(capped.links[11].url, "http://a.test/p11");
        assert_eq!(whole.links.len(), 30);
        // The block is a list of links either way: the cut changes no text decision.
        let keep = |ex: &Extracted| ex.blocks.iter().map(|b| b.keep).collect::<Vec<_>>();
        assert_eq!(keep(&capped), keep(&whole));
    }

    /// The context as it was computed before the counts were bounded: every count over the
    /// whole block.
    fn context_around_reference(text: &str, start: usize, end: usize) -> String {
        let start = floor_boundary(text, start.min(text.len()));
        let end = floor_boundary(text, end.clamp(start, text.len()));
        let total = text.chars().count();
        let (from, to) = if total <= CONTEXT_CHARS {
            (0, text.len())
        } else {
            let span = text[start..end].chars().count();
            if span >= CONTEXT_CHARS {
                (start, advance(text, start, CONTEXT_CHARS))
            } else {
                let budget = CONTEXT_CHARS - span;
                let left_room = text[..start].chars().count();
                let right_room = total - left_room - span;
                let mut left = budget / 2;
                let mut right = budget - left;
                if left > left_room {
                    right += left - left_room;
                    left = left_room;
                }
                if right > right_room {
                    left = (left + right - right_room).min(left_room);
                    right = right_room;
                }
                let mut from = retreat(text, start, left);
                let mut to = advance(text, end, right);
                if from > 0
                    && let Some(space) = text[from..start].find(' ')
                {
                    from += space + 1;
                }
                if to < text.len()
                    && let Some(space) = text[end..to].rfind(' ')
                {
                    to = end + space;
                }
                (from, to)
            }
        };
        text.get(from..to)
            .unwrap_or_default()
            .trim()
            .replace('\n', " ")
    }

    #[test]
    fn bounded_link_contexts_are_the_contexts_of_the_whole_block() {
        let words = ["graphe", "é", "sommet", "arête", "x", "chemin", "ü", "a"];
        for n in [1usize, 5, 17, 30, 60, 200] {
            let text: String = (0..n)
                .map(|i| words[i % words.len()])
                .collect::<Vec<_>>()
                .join(" ");
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            for (k, &start) in bounds.iter().enumerate().step_by(7) {
                for &end in bounds[k..].iter().step_by(11).take(6) {
                    assert_eq!(
                        context_around(&text, start, end),
                        context_around_reference(&text, start, end),
                        "{n} words, {start}..{end}"
                    );
                }
            }
        }
    }
}
