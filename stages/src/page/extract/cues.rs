//! Class cues: what an element's tag and attributes say about it, read once per element.
//!
//! **In:** an element's attributes ([`Attrs`], gathered in one pass) and its class and id words.
//! **Out:** whether the names say boilerplate, content or reader comments ([`ClassNames`]), whether
//! an inline style hides the element ([`hides`]), `rel` tokens ([`has_rel`]).
//!
//! **Invariants:** names are compared as whole words (split at non-alphanumerics, camelCase humps
//! and letter/digit changes); a word longer than [`MAX_NAME_WORD`] is no name.

use html5ever::local_name;

/// Class or id words that name boilerplate widgets (compared with whole words of the
/// attribute, split at non-alphanumerics, camelCase humps and letter/digit changes).
pub(super) const BOILERPLATE_NAMES: &[&str] = &[
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
pub(super) const CONTENT_NAMES: &[&str] = &[
    "article", "body", "content", "entry", "post", "story", "text",
];

/// Class words that turn the next word into a layout state of a wrapper (`has-sidebar`,
/// `and-w-sidebar`, `no-comments`) rather than the name of a widget.
pub(super) const MODIFIER_NAMES: &[&str] = &[
    "and", "has", "hide", "is", "no", "show", "toggle", "w", "with", "without",
];

/// Class or id words that name reader comments (boilerplate only with
/// [`ExtractOptions::drop_comments`](super::ExtractOptions::drop_comments)).
pub(super) const COMMENT_NAMES: &[&str] = &["comment", "commentlist", "comments", "disqus"];

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
pub(super) struct ClassNames {
    /// A word names a boilerplate widget (or reader comments, when they are dropped), not
    /// after a modifier, and no word names main content.
    pub(super) boilerplate: bool,
    /// One token names content (`article-body`, `postContent`) and neither boilerplate,
    /// comments nor a state (`related-content`, `comment-text`, `has-content`).
    pub(super) content: bool,
    /// A word names reader comments, not after a modifier (`comment-list`, not `no-comments`).
    pub(super) comments: bool,
}

impl ClassNames {
    pub(super) fn of(class: Option<&str>, id: Option<&str>, drop_comments: bool) -> ClassNames {
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
pub(super) fn names_boilerplate(class: Option<&str>, id: Option<&str>, comments: bool) -> bool {
    ClassNames::of(class, id, comments).boilerplate
}

/// At least the longest word of the name lists above: a longer class word matches none.
pub(super) const MAX_NAME_WORD: usize = 16;

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
/// Whether an inline style hides the element (`display: none`, `visibility: hidden`): what a
/// reader never sees (schema.org copies of the article, templates, pop-ups) is not its text.
pub(super) fn hides(style: &str) -> bool {
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
pub(super) fn has_rel(rel: Option<&str>, token: &str) -> bool {
    rel.is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

/// The attributes the walk reads, gathered in one pass over an element's attributes (looking
/// each one up by name would intern the name and search the attribute list every time).
#[derive(Default)]
pub(super) struct Attrs<'a> {
    pub(super) class: Option<&'a str>,
    pub(super) id: Option<&'a str>,
    pub(super) href: Option<&'a str>,
    pub(super) src: Option<&'a str>,
    pub(super) title: Option<&'a str>,
    pub(super) alt: Option<&'a str>,
    pub(super) rel: Option<&'a str>,
    pub(super) style: Option<&'a str>,
    pub(super) role: Option<&'a str>,
    pub(super) aria_hidden: Option<&'a str>,
    pub(super) aria_label: Option<&'a str>,
    pub(super) itemprop: Option<&'a str>,
    pub(super) datetime: Option<&'a str>,
    pub(super) content: Option<&'a str>,
    pub(super) name: Option<&'a str>,
    pub(super) property: Option<&'a str>,
    pub(super) http_equiv: Option<&'a str>,
    /// The first non-blank `lang` or `xml:lang` value, trimmed.
    pub(super) lang: Option<&'a str>,
    pub(super) hidden: bool,
}

impl<'a> Attrs<'a> {
    pub(super) fn of(e: &'a scraper::node::Element) -> Attrs<'a> {
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
