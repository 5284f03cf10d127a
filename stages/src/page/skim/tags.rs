//! What an element means to the skim, by its lower-cased name: content skipped, raw text,
//! attributes read, blocks broken.
//!
//! **In:** an element name. **Out:** its role for the skim.
//!
//! **Invariants:** the same elements as the extractor leaves out or cuts into blocks (script,
//! style, noscript, template, SVG, MathML, media; block-level elements).

use html5gum::State as Mode;

/// Elements whose content is not text a reader sees (the name, for the stack of skipped
/// elements).
pub(super) fn skips_content(name: &[u8]) -> Option<&'static [u8]> {
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
pub(super) fn raw_text(name: &[u8]) -> Option<(Mode, &'static [u8])> {
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
pub(super) fn reads_attributes(name: &[u8]) -> bool {
    matches!(
        name,
        b"a" | b"area" | b"iframe" | b"frame" | b"base" | b"meta" | b"link" | b"img" | b"script"
    )
}

/// Elements that end a block of text (so that words on both sides are not glued together and
/// a link's surrounding text stays within its paragraph, list item or cell).
pub(super) fn breaks_block(name: &[u8]) -> bool {
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
