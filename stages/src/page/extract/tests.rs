//! Tests of the extractor: whole pages through [`extract_html`] and [`extract_plain`], and the
//! steps one by one (cues, regions, language, classification, link contexts).

use super::classify::{DATELINE_WORDS, is_dateline};
use super::cues::{
    BOILERPLATE_NAMES, COMMENT_NAMES, CONTENT_NAMES, MAX_NAME_WORD, MODIFIER_NAMES, hides,
    names_boilerplate,
};
use super::links::{advance, floor_boundary, retreat};
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
    let got: Vec<(&str, LinkKind)> = ex.links.iter().map(|l| (l.url.as_str(), l.kind)).collect();
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
    let html =
        format!(r#"<article><p>{PARA_EN}</p></article><div id="comments"><p>{PARA_EN2}</p></div>"#);
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
    let ex = extract_plain("  First line\r\nstill first.\r\n\r\n \n\nSecond\tparagraph\rhere\n");
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

#[test]
fn feeds_and_javascript_links_join_the_link_list() {
    let html = r##"<html><head><base href="https://base.example/sub/">
        <link rel="alternate" type="application/atom+xml" title="Fil  Atom" href="atom.xml">
        <link rel="alternate" hreflang="en" href="/en/">
        <link rel="next alternate" type="APPLICATION/RSS+XML; charset=utf-8" href="p2.html">
        <script>if (done) { window.location.href = '/next.html'; }</script>
        <script type="application/ld+json">{"url": "/ld.html"}</script>
        <script src="/lib.js">location = '/src-body.html';</script>
        </head><body><p>Read <a href="#" onclick="location.href='/js.html'" rel="nofollow">the
        rest</a> or <a href="/plain.html">this</a>.</p>
        <div data-url="/data.html" data-src="/lazy.jpg" onclick="go('/no.html')">x</div>
        </body></html>"##;
    let got = |ex: &Extracted| -> Vec<(String, LinkKind, String, bool)> {
        ex.links
            .iter()
            .map(|l| (l.url.clone(), l.kind, l.anchor.clone(), l.nofollow))
            .collect()
    };
    let link = |url: &str, kind, anchor: &str, nofollow| {
        (
            format!("https://base.example{url}"),
            kind,
            anchor.to_owned(),
            nofollow,
        )
    };
    let ex = extract(html);
    assert_eq!(
        got(&ex),
        [
            link("/sub/atom.xml", LinkKind::Feed, "Fil Atom", false),
            link("/sub/p2.html", LinkKind::Feed, "", false),
            link("/sub/p2.html", LinkKind::LinkRel, "", false),
            link("/next.html", LinkKind::Javascript, "", false),
            link("/js.html", LinkKind::Javascript, "the rest", true),
            link("/plain.html", LinkKind::Anchor, "this", false),
            link("/data.html", LinkKind::Javascript, "", false),
        ]
    );
    // `href="#"` gives no link, but its text and context go to the JavaScript link.
    assert_eq!(ex.links[4].context, "Read the rest or this.");
    // Switched off: no JavaScript link, the feeds stay.
    let options = ExtractOptions {
        javascript_links: false,
        ..ExtractOptions::default()
    };
    let off = extract_html(html, &page_url(), &options);
    assert!(got(&off).iter().all(|l| l.1 != LinkKind::Javascript));
    assert_eq!(off.links.len(), 4);
    // The skim reads the same links.
    let skim = crate::page::skim::skim_html(html, &page_url());
    let skimmed: Vec<_> = skim
        .links
        .iter()
        .map(|l| (l.url.clone(), l.kind, l.anchor.clone(), l.nofollow))
        .collect();
    assert_eq!(skimmed, got(&ex));
}

#[test]
fn javascript_links_count_against_the_link_limit() {
    let options = ExtractOptions {
        max_links: 3,
        ..ExtractOptions::default()
    };
    let html = "<script>location = '/a'; location = '/b'</script><a href=/c onclick=\"location='/d'\">c</a>\
                <a href=/e>e</a>";
    let ex = extract_html(html, &page_url(), &options);
    let urls: Vec<&str> = ex.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://example.org/a",
            "https://example.org/b",
            "https://example.org/d"
        ]
    );
    assert_eq!(ex.links_cut, 2);
    // The anchor's own link was cut: its JavaScript link has no text to borrow.
    assert_eq!(ex.links[2].anchor, "");
}

#[test]
fn link_kind_names_are_stable() {
    for (kind, name) in [
        (LinkKind::Anchor, "anchor"),
        (LinkKind::Area, "area"),
        (LinkKind::Frame, "frame"),
        (LinkKind::Iframe, "iframe"),
        (LinkKind::LinkRel, "link-rel"),
        (LinkKind::MetaRefresh, "meta-refresh"),
        (LinkKind::Feed, "feed"),
        (LinkKind::Javascript, "javascript"),
    ] {
        assert_eq!(kind.name(), name);
        assert_eq!(serde_json::to_value(kind).expect("serialisable"), name);
    }
    let options: ExtractOptions = serde_json::from_str("{}").expect("defaults");
    assert!(options.javascript_links);
}
