//! Tests of the skim: its text and links against the extractor's on the same pages, raw text and
//! skipped elements, limits, and hostile markup.

use crate::page::extract::LinkKind;

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
    let s =
        skim(r#"<a href="a.html">a</a><base href="https://autre.example/x/"><a href="b">b</a>"#);
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

/// Title, links (URL, kind, anchor) and the words of the text, as the extractor reads them.
fn agrees_with_extractor(html: &str) {
    use crate::page::extract::{ExtractOptions, extract_html};
    let url = Url::parse("https://site.example/dir/page.html").unwrap();
    let options = ExtractOptions {
        keep_everything: true,
        ..ExtractOptions::default()
    };
    let full = extract_html(html, &url, &options);
    let s = skim_html(html, &url);
    assert_eq!(s.title, full.title, "title of {html:?}");
    let links = |links: &[Link]| -> Vec<(String, LinkKind, String)> {
        links
            .iter()
            .map(|l| (l.url.clone(), l.kind, l.anchor.clone()))
            .collect()
    };
    assert_eq!(links(&s.links), links(&full.links), "links of {html:?}");
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    let full_text: Vec<&str> = full.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        words(&s.text),
        words(&full_text.join(" ")),
        "text of {html:?}"
    );
}

#[test]
fn reads_raw_text_references_and_foreign_content_as_the_extractor_does() {
    for html in [
        // Markup inside the title is its text; references in it are decoded.
        "<title>Le <b>titre</b> &amp; co</title><p>texte</p>",
        "<title>Premier</title><title>Second</title>",
        "<svg><title>pas un titre</title></svg><title>Le vrai</title><p>t",
        // References in attribute values and text, legacy ones without `;` included,
        // and the ones the standard replaces.
        "<a href='a.html?x=1&amp;y=2&copy=3&notit;z'>entités &eacute;t&#233; &#x1F600;</a>",
        "<p>&lt;a href=x&gt; &notanentity; &amp &AMP; &#0; &#xD800; &#x110000;",
        // Everything after `<plaintext>` is text.
        "<p>a</p><plaintext><a href=q>pas un lien</a> &amp; <b>",
        // An unterminated comment runs to the end; `<!-->` and `<!--->` end at once.
        "<p>un <!-- commentaire <a href=c.html>x</a> sans fin",
        "<p>un <!-- commentaire --> deux <!--> trois <!---> quatre",
        // Script text is never markup, even with `<!--` escapes.
        "<p>x<script>document.write('<a href=s.html>s</a>')</script><a href=v.html>v</a>",
        "<p>x<script><!--<script>'</script>'</script>--></script><a href=e.html>e</a>",
        "<p>x<style>p{}</style>y",
        "<iframe src=f.html title=F><a href=in.html>in</a></iframe><p>après",
        // Foreign content and CDATA.
        "<svg><![CDATA[ </svg><a href=cd.html>cd</a> ]]></svg><p>fin",
        "<math><mi><a href=m.html>m</a></mi></math><p>fin",
        // NUL in text is dropped, in attributes replaced.
        "<p>a\u{0}b <a href=\"x\u{0}y.html\">c\u{0}d</a>",
        // Upper case names, `<base>` after the links, anchors from `title` and `alt`.
        "<A HREF=Up.html REL=NOFOLLOW>Up</A><BASE HREF=/b/>",
        "<a href=a.html title=T></a><a href=b.html><img alt=' I  '></a>",
        "<a href=x.html hréf=y.html>é<br>è</a><p\r\n>saut\r\nde ligne",
        "<table><tr><td>a<td>b<a href=t.html>lien</a> c</table>",
        "<noscript><p>ns <a href=ns.html>ns</a></p></noscript><p>vu",
    ] {
        agrees_with_extractor(html);
    }
}

#[test]
fn form_fields_and_obsolete_raw_text_are_not_the_pages_text() {
    // The extractor keeps the text of `<textarea>`, `<xmp>` and `<noembed>`; the skim, as
    // before html5gum, reads them as raw text it leaves out (a form field's content or a
    // fallback is not the page's). Neither finds links in them.
    let s = skim(
        "<p>avant<textarea>dans <a href=t.html>pas</a></textarea> après</p>\
         <xmp><a href=x.html>x</a></xmp><noembed><a href=n.html>n</a></noembed>",
    );
    assert_eq!(s.text, "avant après");
    assert!(s.links.is_empty());
}

#[test]
fn hostile_fragments_in_any_order_never_panic() {
    const PIECES: &[&str] = &[
        "<",
        "</",
        "<!",
        "<?",
        "<!--",
        "-->",
        "--!>",
        ">",
        "/>",
        "<a href=",
        "\"",
        "'",
        "=",
        "&",
        "&amp",
        "&#",
        "&#x",
        "1F600",
        ";",
        "<script>",
        "</script>",
        "<!--<script>",
        "<title>",
        "</title>",
        "<textarea>",
        "<plaintext>",
        "<svg>",
        "</svg>",
        "<![CDATA[",
        "]]>",
        "<math>",
        "<noscript>",
        "</noscript>",
        "<base href=",
        "<meta content=",
        "é",
        "😀",
        "\u{0}",
        "\r",
        "\n",
        " ",
        "texte",
        "<p>",
        "</p>",
        "<a>",
        "</a>",
        "<iframe src=",
        "<img alt=",
        "<br/>",
        "<é",
        "hréf",
        "<style>",
        "</style>",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3000 {
        let mut html = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            html.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let s = skim(&html);
        assert!(s.text.len() <= html.len() * 2, "{html:?}");
        assert!(
            s.links.iter().all(|l| l.url.starts_with("http")),
            "{html:?}"
        );
    }
}

/// `skim_html` of `page` (at `http://a.test/`) on a thread with the crawl's analysis stack.
fn skim_on_an_analysis_stack(page: String) -> Skim {
    std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || skim_html(&page, &Url::parse("http://a.test/").unwrap()))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn a_tag_of_a_hundred_thousand_attributes_is_read_without_exhausting_the_stack() {
    // html5gum reads each attribute with one more nested call: tens of thousands on one
    // tag overflowed the analysis thread's stack and aborted the whole crawl. The test
    // thread gets the stack the crawl's analysis threads have.
    let attrs: String = (0..100_000).map(|i| format!(" a{i}=\"v\"")).collect();
    let page = format!(
        "<html lang=fr><head><title>Graphes</title></head><body><div{attrs}>Un graphe \
         et ses sommets.</div><a href=\"/suite\">suite</a></body></html>"
    );
    let skim = skim_on_an_analysis_stack(page);
    assert_eq!(
        skim.attributes_cut,
        100_000 - extract::DEFAULT_MAX_ATTRIBUTES
    );
    assert!(
        skim.text.contains("Un graphe et ses sommets."),
        "{}",
        skim.text
    );
    assert_eq!(skim.links.len(), 1);
}

#[test]
fn links_past_the_limit_are_counted_not_kept() {
    let links: String = (0..40)
        .map(|i| format!("<a href=\"/p{i}\">lien {i}</a> "))
        .collect();
    let page = format!("<html><body><p>{links}</p></body></html>");
    let url = Url::parse("http://a.test/").unwrap();
    let skim = skim_html_with(&page, &url, 25, 1000);
    assert_eq!((skim.links.len(), skim.links_cut), (25, 15));
    assert_eq!(skim.links[24].url, "http://a.test/p24");
    assert!(skim.text.contains("lien 39"));
}

#[test]
fn attribute_bombs_in_end_tags_and_noscript_are_cut_too() {
    let bomb: String = (0..100_000).map(|_| " a=\"\"").collect();
    for page in [
        format!("<html><body><p>Un graphe.</p{bomb}><p>Des sommets.</p></body></html>"),
        format!(
            "<html><body><noscript><div{bomb}>caché</div></noscript><p>Un graphe.</p>\
             </body></html>"
        ),
        format!("<html><body><svg><title x{bomb}>t</title></svg><p>Un graphe.</p></body></html>"),
    ] {
        let skim = skim_on_an_analysis_stack(page);
        assert!(skim.attributes_cut >= 99_000, "{}", skim.attributes_cut);
        assert!(skim.text.contains("Un graphe."), "{}", skim.text);
    }
}
