//! The pre-parse scan: what the HTML parsers are handed, read once with a cheap tag scan that
//! follows the tokenizer that will read the page.
//!
//! **In:** a decoded page. **Out:** the page with three kinds of cuts (nesting bombs, the
//! content of scripts and style sheets, attributes past a limit), or the page itself, borrowed,
//! when nothing needs cutting; the number of attributes cut.
//!
//! **Invariants:** the scan sees the tags the tokenizer will see (comments, bogus comments,
//! raw text, CDATA, self-closing slashes, quoted values as the tokenizer reads them, each per
//! [`Tokenizer`]): an attribute bomb it missed would reach the tokenizer whole. Cuts never
//! overlap, come in increasing order, and keep every tag's `>`.

use std::borrow::Cow;

/// Deepest element nesting handed to the parser; deeper start tags (and their end tags) are
/// removed from the input, keeping their text.
pub const MAX_NESTING: usize = 1024;

/// What the parser is handed: the page, with two cuts made by one cheap tag scan.
///
/// Nesting bombs: html5ever checks element scopes by walking the stack of open elements, so n
/// nested `<div>`s cost O(n²) (8,000 take seconds, 100,000 take minutes). The scan estimates
/// the depth (void elements, elements whose end tag is optional and `<a>`, which the parser
/// closes itself, are not counted; raw-text elements are skipped) and, past [`MAX_NESTING`],
/// leaves the excess tags out. Real pages stay far below the limit.
///
/// Scripts and style sheets: their content is half the bytes of a news page and never text
/// (the walk skips both elements), yet the tokenizer reads it character by character. The
/// content between `<script …>` or `<style …>` and its end tag is left out, the tags kept, so
/// the tree is the same; a script keeps only its navigation calls, rewritten
/// (`crate::page::script_links::digest`), for the walk's JavaScript links. The scan follows
/// the tokenizer where it matters: tag names and ends (quoted attribute values), comments
/// (`-->`, `--!>`, `<!-->`), bogus comments, and the end of script text (whose
/// `<!--`…`<script>` escapes can hide a `</script>`); it does not cut inside SVG/MathML (where
/// `<script>` holds markup) or after `<frameset>` (which ignores a `<script>` tag).
///
/// Attribute bombs: html5ever checks each new attribute of a tag against the tag's others, so
/// n attributes on one element cost O(n²). Past `max_attributes` on one start tag, the rest of
/// its attributes are left out (their number is added to `attributes_cut`).
pub(crate) fn prepare<'a>(
    html: &'a str,
    max_attributes: usize,
    attributes_cut: &mut usize,
) -> Cow<'a, str> {
    scan_and_cut(html, Tokenizer::Tree, max_attributes, attributes_cut)
}

/// Only the attribute cut of [`prepare`], for the crawl's skim: html5gum reads attributes with
/// one nested call each, so tens of thousands of them on one tag overflow a thread's stack.
/// Nothing is copied unless a tag has too many.
pub(crate) fn cap_attributes<'a>(
    html: &'a str,
    max_attributes: usize,
    attributes_cut: &mut usize,
) -> Cow<'a, str> {
    scan_and_cut(html, Tokenizer::Skim, max_attributes, attributes_cut)
}

/// Whose reading of the page a scan follows: it must see the tags that tokenizer will see
/// (an attribute bomb the scan misses reaches the tokenizer whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tokenizer {
    /// html5ever with its tree builder (the extractor): `<noscript>` is raw text (scripting
    /// on), nothing is raw text inside SVG or MathML, where `<![CDATA[` opens a CDATA section.
    Tree,
    /// html5gum with the skim's emitter: the raw-text elements of `skim::raw_text`, switched
    /// by name wherever they are unless self-closing, and `<![CDATA[` is a bogus comment.
    Skim,
}

/// Elements the skim's tokenizer reads as raw text (its `raw_text`).
const SKIM_RAW_TEXT_ELEMENTS: &[&str] = &[
    "iframe", "noembed", "noframes", "script", "style", "textarea", "title", "xmp",
];

/// The scan of [`prepare`] and [`cap_attributes`]: with `Tokenizer::Tree`, also the nesting
/// and raw-text cuts.
fn scan_and_cut<'a>(
    html: &'a str,
    reader: Tokenizer,
    max_attributes: usize,
    attributes_cut: &mut usize,
) -> Cow<'a, str> {
    let structure = reader == Tokenizer::Tree;
    let bytes = html.as_bytes();
    let mut nesting = Nesting::default();
    let mut copy = Copied::new(html);
    let mut i = 0;
    while let Some(offset) = bytes.get(i..).and_then(|rest| memchr::memchr(b'<', rest)) {
        let lt = i + offset;
        if let Some(next) = skip_markup(bytes, lt, structure && nesting.foreign > 0) {
            i = next;
            continue;
        }
        let is_end = bytes.get(lt + 1) == Some(&b'/');
        let name_start = lt + 1 + usize::from(is_end);
        // The tokenizer's tag name runs up to whitespace, `/` or `>`.
        let name_len = bytes
            .get(name_start..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| !matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'))
            .count();
        let name = bytes
            .get(name_start..name_start + name_len)
            .unwrap_or_default();
        // An end tag's attributes are read by both tokenizers and ignored: all of them go.
        let allowed = if is_end { 0 } else { max_attributes };
        let tag = tag_end_counting(bytes, name_start + name_len, allowed);
        i = tag.end;
        // Raw-text element names start with one of these letters: most tags are told apart
        // by one byte instead of nine comparisons.
        let first = name.first().map_or(0, u8::to_ascii_lowercase);
        let raw = !is_end
            && matches!(first, b'i' | b'n' | b's' | b't' | b'x')
            && match reader {
                Tokenizer::Tree => nesting.foreign == 0 && is_one_of(name, RAW_TEXT_ELEMENTS),
                Tokenizer::Skim => !tag.self_closing && is_one_of(name, SKIM_RAW_TEXT_ELEMENTS),
            };
        if raw {
            let strip = structure && !nesting.frameset;
            match raw_text(&mut copy, bytes, &tag, name, strip) {
                Some(next) => {
                    i = next;
                    continue;
                }
                // No end tag: the element's text runs to the end of the page.
                None => break,
            }
        }
        if !is_end && name.eq_ignore_ascii_case(b"plaintext") {
            copy.cut_attributes(&tag);
            break;
        }
        if !is_end && name.eq_ignore_ascii_case(b"frameset") {
            nesting.frameset = true;
        }
        if nesting.too_deep(name, first, is_end, tag.self_closing, structure) {
            // The whole tag goes, its attributes with it.
            copy.attributes_cut += tag.excess.map_or(0, |(_, _, n)| n);
            copy.cut(lt, tag.end);
        } else {
            copy.cut_attributes(&tag);
        }
    }
    *attributes_cut += copy.attributes_cut;
    copy.finish()
}

/// Where the scan goes on when the `<` at `lt` opens no tag: after a comment, a CDATA section
/// (inside SVG or MathML, `foreign`), a bogus comment (`<!…>`, `<?…>`, `</` without a name), or
/// just after a `<` that no letter follows; None for a tag.
fn skip_markup(bytes: &[u8], lt: usize, foreign: bool) -> Option<usize> {
    let after = bytes.get(lt + 1..).unwrap_or_default();
    if after.starts_with(b"!--") {
        return Some(comment_end(bytes, lt + 4));
    }
    if foreign && after.starts_with(b"![CDATA[") {
        return Some(find(bytes, lt + 9, b"]]>").map_or(bytes.len(), |end| end + 3));
    }
    let is_end = after.first() == Some(&b'/');
    let name_start = lt + 1 + usize::from(is_end);
    if matches!(after.first(), Some(b'!' | b'?'))
        || (is_end && !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic))
    {
        // Markup declarations, processing instructions and `</` without a name are bogus
        // comments up to the next `>` (`</>` included).
        return Some(find(bytes, lt + 1, b">").map_or(bytes.len(), |end| end + 1));
    }
    (!bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic)).then_some(lt + 1)
}

/// A raw-text element (`tag` opened it): its text skipped (and cut for a script or a style
/// when `strip`), its end tag's attributes cut; where the scan goes on, None when the element
/// has no end tag.
fn raw_text(
    copy: &mut Copied<'_>,
    bytes: &[u8],
    tag: &TagEnd,
    name: &[u8],
    strip: bool,
) -> Option<usize> {
    copy.cut_attributes(tag);
    let is_script = name.eq_ignore_ascii_case(b"script");
    let end = if is_script {
        script_end(bytes, tag.end)
    } else {
        raw_text_end(bytes, tag.end, name)
    }?;
    let strippable = is_script || name.eq_ignore_ascii_case(b"style");
    if strip && end > tag.end && strippable {
        copy.cut(tag.end, end);
        if is_script {
            let code = copy.html.get(tag.end..end).unwrap_or_default();
            copy.write(&crate::page::script_links::digest(code));
        }
    }
    let closing = tag_end_counting(bytes, end + 2 + name.len(), 0);
    copy.cut_attributes(&closing);
    Some(closing.end)
}

/// The page copied with parts left out, lazily: nothing is copied until the first cut.
struct Copied<'a> {
    html: &'a str,
    out: Option<String>,
    /// Bytes of `html` copied (or left out) so far.
    copied: usize,
    /// Attributes left out.
    attributes_cut: usize,
}

impl<'a> Copied<'a> {
    fn new(html: &'a str) -> Copied<'a> {
        Copied {
            html,
            out: None,
            copied: 0,
            attributes_cut: 0,
        }
    }

    /// Leaves `html[from..to]` out of the copy (cuts come in increasing order).
    fn cut(&mut self, from: usize, to: usize) {
        let html = self.html;
        let buffer = self
            .out
            .get_or_insert_with(|| String::with_capacity(html.len()));
        buffer.push_str(html.get(self.copied..from).unwrap_or_default());
        self.copied = to;
    }

    /// Writes `text` at the point the copy has reached (after a cut, which starts the copy).
    fn write(&mut self, text: &str) {
        if let Some(buffer) = &mut self.out {
            buffer.push_str(text);
        }
    }

    /// Leaves out a tag's excess attributes, if it has any.
    fn cut_attributes(&mut self, tag: &TagEnd) {
        if let Some((from, to, count)) = tag.excess {
            self.cut(from, to);
            self.attributes_cut += count;
        }
    }

    /// The page, as it was when nothing was cut.
    fn finish(self) -> Cow<'a, str> {
        match self.out {
            Some(mut buffer) => {
                buffer.push_str(self.html.get(self.copied..).unwrap_or_default());
                Cow::Owned(buffer)
            }
            None => Cow::Borrowed(self.html),
        }
    }
}

/// The open elements the nesting cut counts, and whether the scan is inside SVG or MathML or
/// a frameset.
#[derive(Default)]
struct Nesting {
    depth: usize,
    foreign: usize,
    frameset: bool,
}

impl Nesting {
    /// Counts the tag `name` (`first` its lower-cased first byte); whether it is nested past
    /// [`MAX_NESTING`] (only when `structure`: the depth is only needed for that cut).
    fn too_deep(
        &mut self,
        name: &[u8],
        first: u8,
        is_end: bool,
        self_closing: bool,
        structure: bool,
    ) -> bool {
        // `<path/>` closes itself inside SVG or MathML; in HTML the parser ignores the slash.
        let svg_or_math = matches!(first, b's' | b'm') && is_one_of(name, &["svg", "math"]);
        if svg_or_math && !self_closing {
            if is_end {
                self.foreign = self.foreign.saturating_sub(1);
            } else {
                self.foreign += 1;
            }
        }
        let counted = structure
            && !is_one_of(name, UNCOUNTED_ELEMENTS)
            && !(!is_end && self_closing && (self.foreign > 0 || svg_or_math));
        counted
            && if is_end {
                let excess = self.depth > MAX_NESTING;
                self.depth = self.depth.saturating_sub(1);
                excess
            } else {
                self.depth += 1;
                self.depth > MAX_NESTING
            }
    }
}

/// Elements whose content is text up to their end tag.
const RAW_TEXT_ELEMENTS: &[&str] = &[
    "iframe", "noembed", "noframes", "noscript", "script", "style", "textarea", "title", "xmp",
];

/// Elements that never deepen the tree: void elements, elements whose end tag is optional,
/// `<a>` (a new one closes the open one) and the document skeleton.
const UNCOUNTED_ELEMENTS: &[&str] = &[
    "a", "area", "base", "body", "br", "caption", "col", "colgroup", "dd", "dt", "embed", "head",
    "hr", "html", "img", "input", "keygen", "li", "link", "meta", "optgroup", "option", "p",
    "param", "rb", "rp", "rt", "rtc", "source", "tbody", "td", "tfoot", "th", "thead", "tr",
    "track", "wbr",
];

fn is_one_of(name: &[u8], list: &[&str]) -> bool {
    list.iter()
        .any(|item| name.eq_ignore_ascii_case(item.as_bytes()))
}

/// Byte offset of the first `needle` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|p| from + p)
}

/// Where a tag ends, read as the tokenizer reads it, and what its attributes make of it.
#[derive(Debug, Clone, Copy)]
struct TagEnd {
    /// Offset just after its `>` (the end of the input if none).
    end: usize,
    /// Past `max_attributes`: the byte range of the excess attributes (up to the `/` or `>`
    /// that ends the tag) and how many they are.
    excess: Option<(usize, usize, usize)>,
    /// It ends with `/>` read outside an attribute value (the tokenizer's self-closing flag).
    self_closing: bool,
}

/// Where the tag whose attributes start at `from` ends, read as the HTML tokenizer reads
/// attributes: a value is quoted only when a quote opens it after an attribute name's `=`
/// (spaces allowed); a `>` anywhere else ends the tag (the end of the input if none does).
/// Its attributes are counted against `max_attributes`.
fn tag_end_counting(bytes: &[u8], from: usize, max_attributes: usize) -> TagEnd {
    /// The tokenizer's attribute states (after a quoted value and `/` act as `Before`).
    #[derive(Clone, Copy)]
    enum State {
        Before,
        Name,
        AfterName,
        BeforeValue,
        Quoted(u8),
        Unquoted,
    }
    let mut state = State::Before;
    let mut attributes = 0usize;
    let mut excess_from = None;
    // The previous byte was a `/` read between attributes.
    let mut slash = false;
    let excess = |excess_from: Option<usize>, gt: usize, attributes: usize| {
        excess_from.map(|start| {
            // A `/` just before the `>` stays: it closes the tag in SVG and MathML.
            let end = if gt > start && bytes.get(gt - 1) == Some(&b'/') {
                gt - 1
            } else {
                gt
            };
            (start, end.max(start), attributes - max_attributes)
        })
    };
    let mut k = from;
    while let Some(&b) = bytes.get(k) {
        if let State::Quoted(q) = state {
            // A quoted value ends at its quote, and nothing in it matters: jump there.
            match bytes.get(k..).and_then(|rest| memchr::memchr(q, rest)) {
                Some(p) => {
                    k += p + 1;
                    state = State::Before;
                    slash = false;
                    continue;
                }
                None => break,
            }
        }
        let space = matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
        let before = state;
        let was_slash = std::mem::take(&mut slash);
        state = match state {
            State::Quoted(q) => State::Quoted(q),
            _ if b == b'>' => {
                return TagEnd {
                    end: k + 1,
                    excess: excess(excess_from, k, attributes),
                    self_closing: was_slash,
                };
            }
            State::BeforeValue if space => State::BeforeValue,
            State::BeforeValue if matches!(b, b'"' | b'\'') => State::Quoted(b),
            State::BeforeValue => State::Unquoted,
            State::Unquoted if space => State::Before,
            State::Unquoted => State::Unquoted,
            _ if b == b'/' => {
                slash = true;
                State::Before
            }
            State::Name | State::AfterName if b == b'=' => State::BeforeValue,
            State::Name | State::AfterName if space => State::AfterName,
            State::Before if space => State::Before,
            // Any other character starts or continues a name (an `=` starting one included).
            _ => State::Name,
        };
        // A name starts after a blank, a quoted value or a `/`: one more attribute.
        if matches!(state, State::Name) && matches!(before, State::Before | State::AfterName) {
            attributes += 1;
            if attributes == max_attributes.saturating_add(1) {
                excess_from = Some(k);
            }
        }
        k += 1;
    }
    TagEnd {
        end: bytes.len(),
        excess: None,
        self_closing: false,
    }
}

/// Offset just after the comment whose text starts at `from` (after `<!--`): `<!-->` and
/// `<!--->` end at once, otherwise the first `-->` or `--!>` ends it.
fn comment_end(bytes: &[u8], from: usize) -> usize {
    match bytes.get(from..) {
        Some([b'>', ..]) => return from + 1,
        Some([b'-', b'>', ..]) => return from + 2,
        _ => {}
    }
    let mut k = from;
    while let Some(p) = find(bytes, k, b"--") {
        let mut q = p + 2;
        while bytes.get(q) == Some(&b'-') {
            q += 1;
        }
        match bytes.get(q..) {
            Some([b'>', ..]) => return q + 1,
            Some([b'!', b'>', ..]) => return q + 2,
            _ => k = q,
        }
    }
    bytes.len()
}

/// Whether `bytes[at..]` is the end tag `</name` (any case) followed by whitespace, `/` or
/// `>`: the only end tag that ends raw text for the tokenizer.
fn is_end_tag_named(bytes: &[u8], at: usize, name: &[u8]) -> bool {
    let after = at + 2 + name.len();
    bytes.get(at..at + 2) == Some(b"</")
        && bytes
            .get(at + 2..after)
            .is_some_and(|candidate| candidate.eq_ignore_ascii_case(name))
        && matches!(
            bytes.get(after),
            Some(b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>')
        )
}

/// Offset of the end tag that ends the raw text or RCDATA of element `name` (`style`,
/// `title`…) whose text starts at `from`.
fn raw_text_end(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut k = from;
    while let Some(p) = find(bytes, k, b"</") {
        if is_end_tag_named(bytes, p, name) {
            return Some(p);
        }
        k = p + 2;
    }
    None
}

/// Offset of the `</script` that ends script text starting at `from`, as the tokenizer's
/// script data states find it: `<!--` starts escaped text, in which `<script` (then a space,
/// `/` or `>`) starts a double-escaped part where `</script` does not end the element but
/// returns to escaped text; `-->` returns to plain script text from either.
fn script_end(bytes: &[u8], from: usize) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Plain,
        Escaped,
        DoubleEscaped,
    }
    let named = |at: usize| {
        bytes
            .get(at..at + 6)
            .is_some_and(|n| n.eq_ignore_ascii_case(b"script"))
            && matches!(
                bytes.get(at + 6),
                Some(b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>')
            )
    };
    let mut state = State::Plain;
    // Dashes read in a row inside escaped text (`-->` needs two before the `>`).
    let mut dashes = 0usize;
    let mut i = from;
    loop {
        if state == State::Plain {
            i += memchr::memchr(b'<', bytes.get(i..)?)?;
            if is_end_tag_named(bytes, i, b"script") {
                return Some(i);
            }
            if bytes.get(i + 1..i + 4) == Some(b"!--") {
                state = State::Escaped;
                dashes = 2;
                i += 4;
            } else {
                i += 1;
            }
            continue;
        }
        match *bytes.get(i)? {
            b'-' => {
                dashes += 1;
                i += 1;
            }
            b'>' => {
                if dashes >= 2 {
                    state = State::Plain;
                }
                dashes = 0;
                i += 1;
            }
            b'<' => {
                dashes = 0;
                let slash = bytes.get(i + 1) == Some(&b'/');
                match state {
                    State::Escaped if slash && is_end_tag_named(bytes, i, b"script") => {
                        return Some(i);
                    }
                    State::Escaped if named(i + 1) => {
                        state = State::DoubleEscaped;
                        i += 7;
                    }
                    State::DoubleEscaped if slash && named(i + 2) => {
                        state = State::Escaped;
                        i += 8;
                    }
                    _ => i += 1,
                }
            }
            _ => {
                dashes = 0;
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::extract::tests::PARA_EN;
    use crate::page::extract::{ExtractOptions, extract_html};
    use scraper::Html;
    use url::Url;

    #[test]
    fn attributes_of_end_tags_and_inside_foreign_content_are_cut_for_the_tree_builder() {
        let bomb: String = (0..5_000).map(|i| format!(" a{i}")).collect();
        let mut cut = 0;
        // End tags: every attribute goes (the parser ignores them anyway).
        let page = format!("<p>un</p{bomb}><p>deux</p>");
        let prepared = prepare(&page, 10, &mut cut);
        assert_eq!(cut, 5_000);
        assert!(prepared.contains("<p>un</p ><p>deux</p>"), "{prepared}");
        // Inside SVG a `<style>` holds markup for the tree builder: its tags are scanned.
        cut = 0;
        let page = format!("<svg><style><g{bomb}/></style></svg><p>texte</p>");
        let _ = prepare(&page, 10, &mut cut);
        assert_eq!(cut, 4_990);
        // A tag past the nesting limit goes whole, its attributes with it, and what follows
        // keeps its own `>`.
        cut = 0;
        let deep = "<div>".repeat(MAX_NESTING) + &format!("<div{bomb}>x</div><p>y</p>");
        let prepared = prepare(&deep, 10, &mut cut);
        assert_eq!(cut, 4_990);
        assert!(
            prepared.ends_with("<div>x<p>y</p>"),
            "{}",
            &prepared[prepared.len() - 40..]
        );
    }
    #[test]
    fn attributes_past_the_limit_are_left_out_before_parsing() {
        let attrs: String = (0..50).map(|i| format!(" a{i}=\"v{i}\"")).collect();
        let page = format!(
            "<html><body><div id=\"d\"{attrs}>Un graphe.</div><p title='x>y' b c>z</p>\
             <svg><path d=\"M0\"{attrs}/></svg></body></html>"
        );
        let mut cut = 0;
        let prepared = prepare(&page, 10, &mut cut);
        // 41 of the div's and 41 of the path's 51 attributes.
        assert_eq!(cut, 82);
        let document = Html::parse_document(&prepared);
        let div = document
            .select(&scraper::Selector::parse("div").unwrap())
            .next()
            .unwrap();
        let names: Vec<&str> = div.value().attrs().map(|(k, _)| k).collect();
        assert_eq!(names.len(), 10);
        assert!(names.contains(&"id") && names.contains(&"a8") && !names.contains(&"a9"));
        // A quoted `>` does not end the tag; the tag's self-closing slash stays.
        assert!(prepared.contains("<p title='x>y' b c>z</p>"), "{prepared}");
        assert!(prepared.contains(" a8=\"v8\" /></svg>"), "{prepared}");
        // Under the limit nothing is copied.
        assert!(matches!(prepare(&page, 100, &mut cut), Cow::Borrowed(_)));
        let options = ExtractOptions {
            max_attributes: 10,
            ..ExtractOptions::default()
        };
        let ex = extract_html(&page, &Url::parse("http://a.test/").unwrap(), &options);
        assert_eq!(ex.attributes_cut, 82);
    }

    #[test]
    fn input_preparation_only_touches_nesting_bombs_and_raw_text() {
        let page = format!(
            "<!DOCTYPE html><html><!-- <div><div> --><script>'<div>'.repeat(9)</script>\
             <div title='a>b'><p>{PARA_EN}<li><td><br></div></html>"
        );
        assert_eq!(
            prepare(&page, usize::MAX, &mut 0),
            page.replace("'<div>'.repeat(9)", "")
        );
        let no_script = page.replace("'<div>'.repeat(9)", "");
        assert!(matches!(
            prepare(&no_script, usize::MAX, &mut 0),
            Cow::Borrowed(_)
        ));
        let icons =
            "<svg viewBox='0 0 9 9'><path d='M0 0'/><circle r='1'/></svg><svg/>".repeat(3000);
        assert!(matches!(
            prepare(&icons, usize::MAX, &mut 0),
            Cow::Borrowed(_)
        ));
        let unclosed = "<li><p>item<option>x<td>y".repeat(3000);
        assert!(matches!(
            prepare(&unclosed, usize::MAX, &mut 0),
            Cow::Borrowed(_)
        ));
        let deep = "<div class=\"x\">".repeat(MAX_NESTING + 10)
            + "text"
            + &"</div>".repeat(MAX_NESTING + 10);
        let limited = prepare(&deep, usize::MAX, &mut 0);
        assert!(matches!(limited, Cow::Owned(_)));
        assert_eq!(limited.matches("<div").count(), MAX_NESTING);
        assert_eq!(limited.matches("</div>").count(), MAX_NESTING);
        assert!(limited.contains(">text<"));
        // Unclosed tags in raw text or at the very end never panic.
        for input in [
            "<script><div>",
            "<div title='>",
            "<",
            "</",
            "<!--",
            "<a",
            "<plaintext><div>",
        ] {
            let _ = prepare(input, usize::MAX, &mut 0);
        }
    }

    #[test]
    fn script_and_style_content_is_left_out_only_where_the_parser_agrees() {
        let cut = |html: &str| prepare(html, usize::MAX, &mut 0).into_owned();
        assert_eq!(
            cut("<SCRIPT type=x>if (a</b) {}</Script ><style>p{}</style/><p>t"),
            "<SCRIPT type=x></Script ><style></style/><p>t"
        );
        // Not an end tag for the tokenizer: the content goes on to the real one.
        assert_eq!(cut("<style>a</styles>b</style>"), "<style></style>");
        // Escaped script text hides `</script>` after `<!--<script>` until `-->`.
        assert_eq!(
            cut("<script><!--<script></script>--></script><p>x"),
            "<script></script><p>x"
        );
        assert_eq!(cut("<script><!-- a </script>b"), "<script></script>b");
        // Quoted `>` in the start tag, and a quote that opens no value.
        assert_eq!(
            cut("<script data-x='a>b'>x</script><script a=b'>y</script>"),
            "<script data-x='a>b'></script><script a=b'></script>"
        );
        // Comments end where the tokenizer ends them.
        for (html, prepared) in [
            ("<!-- --!><script>x</script>", "<!-- --!><script></script>"),
            ("<!--><script>x</script>-->", "<!--><script></script>-->"),
            ("<!---><script>x</script>-->", "<!---><script></script>-->"),
            ("</ a><script>x</script>", "</ a><script></script>"),
        ] {
            assert_eq!(cut(html), prepared);
        }
        // Left alone: SVG scripts, after `<frameset>`, no end tag, and `<script>` inside a
        // comment, a bogus comment or a `<title>`.
        for kept in [
            "<svg><script><p>x</p></script></svg>",
            "<frameset><script><frame src=a></script>",
            "<script>x",
            "<!-- <script>x</script> -->",
            "</ <script>x</script> >",
            "<title><script>x</script></title>",
        ] {
            assert!(
                matches!(prepare(kept, usize::MAX, &mut 0), Cow::Borrowed(_)),
                "{kept}"
            );
        }
        // The tree, hence the extraction, is the same with and without the content.
        let page = format!(
            "<html><head><style>body{{}}</style><script>var s = '<p>no</p>';</script></head>\
             <body><p>{PARA_EN}</p><script>document.write('<a href=/x>x</a>')</script>\
             <p>{PARA_EN}</p></body></html>"
        );
        let url = Url::parse("http://example.com/").expect("valid");
        let whole = Html::parse_document(&page).root_element().html();
        let prepared = Html::parse_document(&prepare(&page, usize::MAX, &mut 0))
            .root_element()
            .html();
        assert_eq!(
            whole
                .replace("var s = '<p>no</p>';", "")
                .replace("document.write('<a href=/x>x</a>')", "")
                .replace("body{}", ""),
            prepared
        );
        let ex = extract_html(&page, &url, &ExtractOptions::default());
        assert_eq!(ex.kept().count(), 2);
        assert!(ex.links.is_empty());
    }
}
