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
//!
//! **Files**, in data-flow order: `scan` (the pre-parse scan) → `walk` (the tree walk, reading
//! each element with `cues` and `region`, its links with `links`) → `language` (the stop-word
//! language) → `classify` (jusText per block, the main region applied, context smoothing); this file holds the
//! types, the options and the two entry points; `tests.rs` the tests.

use scraper::Html;
use serde::{Deserialize, Serialize};
use url::Url;

use crate::page::lang::{self, LangGuess};

mod block;
mod scan;
pub use scan::MAX_NESTING;
pub(crate) use scan::cap_attributes;
use scan::prepare;

mod walk;
use walk::Walker;

mod cues;
mod links;
mod region;
pub(crate) use links::{RawLink, context_around, is_feed, read_robots, refresh_url, resolve_links};

mod language;

mod classify;

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
    /// Read JavaScript links ([`LinkKind::Javascript`]): navigation calls with one string
    /// literal in inline scripts, event handlers and `javascript:` URLs, and URL-named data
    /// attributes; at most 100 a page (they also count against `max_links`).
    pub javascript_links: bool,
}

impl Default for ExtractOptions {
    fn default() -> ExtractOptions {
        ExtractOptions {
            keep_everything: false,
            drop_comments: false,
            max_links: DEFAULT_MAX_LINKS,
            max_attributes: DEFAULT_MAX_ATTRIBUTES,
            javascript_links: true,
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `<link rel=alternate type=application/rss+xml|atom+xml|rdf+xml href>`: a feed.
    Feed,
    /// A string literal in a navigation call (`location.href = '…'`, `window.open('…')`…) of
    /// an inline script, an event handler or a `javascript:` URL, or the value of `data-url`,
    /// `data-href`, `data-link`, `data-target-url` (see [`ExtractOptions::javascript_links`]).
    Javascript,
}

impl LinkKind {
    /// The kind's name, as serialised and stored (databases hold these: they never change).
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Anchor => "anchor",
            LinkKind::Area => "area",
            LinkKind::Frame => "frame",
            LinkKind::Iframe => "iframe",
            LinkKind::LinkRel => "link-rel",
            LinkKind::MetaRefresh => "meta-refresh",
            LinkKind::Feed => "feed",
            LinkKind::Javascript => "javascript",
        }
    }
}

/// Extract blocks, links and metadata from an HTML page.
pub fn extract_html(html: &str, page_url: &Url, options: &ExtractOptions) -> Extracted {
    let mut attributes_cut = 0;
    let document =
        Html::parse_document(&prepare(html, options.max_attributes, &mut attributes_cut));
    let mut walker = Walker::new(options);
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

#[cfg(test)]
mod tests;
