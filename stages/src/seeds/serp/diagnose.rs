//! Why a result page gave no hit, in words a linguist can act on: the engine found nothing, the
//! page needs JavaScript, a bot check was shown, a media search, an unknown layout.
//!
//! **In:** the parsed page, its engine and URL. **Out:** the `problem` text of a
//! [`SerpPage`](super::SerpPage) without hits.
//!
//! **Invariants:** called only when there is no hit, so `problem` is `Some` exactly when `hits` is
//! empty.

use std::sync::LazyLock;

use scraper::{Html, Selector};
use url::Url;

use super::engines::CompiledRules;
use super::{Engine, Lazy, css, select_all, text_of};

/// Phrases engines use to say they found nothing, in the languages of the corpus pages.
const NO_RESULT_PHRASES: &[&str] = &[
    "did not match any documents",
    "there are no results for",
    "no results found for",
    "no results for",
    "we did not find results for",
    "we did not find any results",
    "your search did not match",
    "no results found",
    "aucun résultat",
    "aucun document ne correspond",
    "keine ergebnisse",
    "es wurden keine",
    "no se han encontrado resultados",
    "no hay resultados",
    "nessun risultato",
    "нет результатов",
    "ничего не нашлось",
    "ничего не найдено",
    "没有找到",
    "未找到",
    "no hi ha cap resultat",
    "geen resultaten",
    "nenhum resultado",
];

const BOT_CHECK_PHRASES: &[&str] = &[
    "unusual traffic",
    "captcha",
    "are you a robot",
    "not a robot",
    "ip blocked",
    "verify you are human",
    "please solve the challenge",
    "automated queries",
    "access denied",
];

const NEEDS_JS_PHRASES: &[&str] = &[
    "enable javascript",
    "javascript is disabled",
    "javascript is required",
    "requires javascript",
    "turn on javascript",
    "you are being redirected to the non-javascript site",
    "javascript が無効",
    "включите javascript",
];

/// Why a page gave no hits, in words the user can act on.
pub(super) fn diagnose(
    doc: &Html,
    html: &str,
    engine: Engine,
    original_url: Option<&str>,
    rules: Option<&CompiledRules>,
) -> String {
    let name = engine.name();
    if html.trim().is_empty() {
        return "no results found: the page is empty".to_string();
    }
    let body_text = select_all(doc, &BODY)
        .next()
        .map(text_of)
        .unwrap_or_default()
        .to_lowercase();
    let has_element =
        |sel: &Option<Selector>| sel.as_ref().is_some_and(|s| doc.select(s).next().is_some());
    if BOT_CHECK_PHRASES.iter().any(|p| body_text.contains(p)) {
        return format!(
            "no results found: {name} showed a bot check or block page instead of results"
        );
    }
    // A media search page may well list items, just not web pages.
    if let Some(vertical) = original_url.and_then(|u| vertical_of(u, engine)) {
        return format!(
            "no results found: this is a {name} {vertical} search page, whose results are not \
             web pages this parser reads"
        );
    }
    if rules.is_some_and(|r| has_element(&r.no_results))
        || NO_RESULT_PHRASES.iter().any(|p| body_text.contains(p))
    {
        return format!("no results found: {name} reported no results for this query");
    }
    let lower_html = html.to_lowercase();
    let script_redirect = body_text.len() < 200
        && (lower_html.contains("location.replace")
            || lower_html.contains("location.href")
            || lower_html.contains("http-equiv=\"refresh\"")
            || lower_html.contains("http-equiv=refresh"));
    if NEEDS_JS_PHRASES
        .iter()
        .any(|p| body_text.contains(p) || lower_html.contains(p))
        || script_redirect
        || body_text.len() < 200
    {
        return format!(
            "no results found: the page needs JavaScript ({name} draws its results with scripts; \
             save the page after it has rendered)"
        );
    }
    format!("no results found: the {name} page layout was not recognised")
}

static BODY: Lazy = LazyLock::new(|| css("body"));

/// The kinds of search besides web search whose pages are read: image search gives the pages
/// the images come from, video, news and books search the pages of the videos, articles and
/// books.
pub(super) const READ_VERTICALS: [&str; 4] = ["image", "video", "news", "books"];

/// The kind of search a page URL asks for, when it is not plain web search: by the engine's
/// parameter (Google `tbm`, Qwant `t`), its path (`/images/search`) or its host
/// (`tv.yahoo.com`, `images.search.yahoo.com`).
pub(super) fn vertical_of(url: &str, engine: Engine) -> Option<&'static str> {
    let parsed = Url::parse(url).ok()?;
    let path = parsed.path().to_ascii_lowercase();
    let first_label = parsed
        .host_str()
        .and_then(|h| h.split('.').next())
        .map(str::to_ascii_lowercase);
    let by_host = match first_label.as_deref() {
        Some("images" | "image" | "img") => Some("image"),
        Some("video" | "videos") => Some("video"),
        Some("news") => Some("news"),
        Some("tv") => Some("TV"),
        Some("movies") => Some("film"),
        Some("music") => Some("music"),
        Some("shopping") => Some("shopping"),
        Some("books") => Some("books"),
        Some("maps") => Some("maps"),
        _ => None,
    };
    let param = |name: &str| {
        parsed
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    let by_tbm = match param("tbm").as_deref() {
        Some("isch") => Some("image"),
        Some("vid") => Some("video"),
        Some("nws") => Some("news"),
        Some("bks") => Some("books"),
        Some("shop") => Some("shopping"),
        _ => None,
    };
    let by_t = match param("t").as_deref() {
        Some("images") => Some("image"),
        Some("videos") => Some("video"),
        Some("news") => Some("news"),
        _ => None,
    };
    let by_path = if path.contains("/images") || path.contains("/isch") {
        Some("image")
    } else if path.contains("/video") {
        Some("video")
    } else if path.contains("/news") {
        Some("news")
    } else {
        None
    };
    match engine {
        Engine::Google => by_tbm.or(by_path).or(by_host),
        Engine::Qwant => by_t.or(by_path).or(by_host),
        _ => by_path.or(by_host),
    }
}
