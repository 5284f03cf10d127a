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

/// The JavaScript links of a page, with their anchor text; checked against the extractor.
fn javascript_links(html: &str) -> Vec<(String, String)> {
    agrees_with_extractor(html);
    skim(html)
        .links
        .into_iter()
        .filter(|l| l.kind == LinkKind::Javascript)
        .map(|l| (l.url, l.anchor))
        .collect()
}

fn urls(links: &[(String, String)]) -> Vec<&str> {
    links.iter().map(|(url, _)| url.as_str()).collect()
}

#[test]
fn navigation_calls_in_scripts_handlers_and_javascript_urls_are_links() {
    let page = r#"<html><head><script>
        function go() { location = '/a1'; }
        if (x) { location.href = "/a2" }
        window.location = 'a3.html'; window.location.href='https://other.example/a4';
        document.location.href = "//cdn.example/a5"; top.location = '../a6.php?x=1';
        self.location.replace("./a7"); location.assign(`/a8`); parent.location = '/a9'
        window.open('/a10', 'popup', 'width=300');
        </script><script type="module">location.href = '/a11';</script>
        <script type="text/javascript; charset=utf-8">window.top.location = 'dir/a12.html'</script>
        </head><body>
        <p>Voir <a href="javascript:location.href='/b1'">la suite</a> et
        <a href="JavaScript:void(0)" onclick="window.open('/b2'); return false" title="t">le détail</a>.</p>
        <div onmousedown="location.href='/b3';">bloc</div>
        <a onclick="location='/b4'">sans href</a>
        <map><area href="javascript:window.location='/b5'" alt="Zone"></map>
        <button data-url="/c1" data-href=" c2.html " data-link="https://other.example/c3"
            data-target-url="?page=2">bouton</button>
        </body></html>"#;
    let links = javascript_links(page);
    let base = "https://site.example";
    let expected: Vec<String> = [
        "/a1",
        "/a2",
        "/dir/a3.html",
        "https://other.example/a4",
        "https://cdn.example/a5",
        "/a6.php?x=1",
        "/dir/a7",
        "/a8",
        "/a9",
        "/a10",
        "/a11",
        "/dir/dir/a12.html",
        "/b1",
        "/b2",
        "/b3",
        "/b4",
        "/b5",
        // In the order of the attributes' names.
        "/dir/c2.html",
        "https://other.example/c3",
        "/dir/page.html?page=2",
        "/c1",
    ]
    .iter()
    .map(|u| {
        if u.starts_with('/') {
            format!("{base}{u}")
        } else {
            (*u).to_owned()
        }
    })
    .collect();
    assert_eq!(urls(&links), expected);
    // The links of an `<a href>` or `<area href>` take the element's text; others have none.
    let anchor = |url: &str| {
        let url = format!("{base}{url}");
        links
            .iter()
            .find(|(u, _)| *u == url)
            .map(|(_, a)| a.as_str())
    };
    assert_eq!(anchor("/b1"), Some("la suite"));
    assert_eq!(anchor("/b2"), Some("le détail"));
    assert_eq!(anchor("/b5"), Some("Zone"));
    assert_eq!(anchor("/b3"), Some(""));
    assert_eq!(anchor("/b4"), Some(""));
    // The element's own link comes right after its JavaScript links, with the same context.
    let s = skim(page);
    let b2 = s.links.iter().position(|l| l.url.ends_with("/b2")).unwrap();
    assert_eq!(s.links[b2].context, "Voir la suite et le détail.");
}

#[test]
fn literals_are_unescaped_and_resolved_against_base_href() {
    let page = r#"<base href="https://base.example/sub/"><script>
        location.href = '\/esc\/a1.html'; location = "/a2?q=l\'\u00e9t\u00E9";
        window.open("\x2Fa3", '_blank'); location = '/a4/\uD83D\uDE00';
        location = '/n\nope'; location = '/n\x3Cope'; location = '/n\u{41}';
        location = "/a5\\"; location = '/it\'s.html';
        </script><a onclick="location.href=&quot;/a6&quot;">x</a>"#;
    assert_eq!(
        urls(&javascript_links(page)),
        [
            "https://base.example/esc/a1.html",
            "https://base.example/a2?q=l%27%C3%A9t%C3%A9",
            "https://base.example/a3",
            "https://base.example/a4/%F0%9F%98%80",
            "https://base.example/it's.html",
            "https://base.example/a6",
        ]
    );
}

#[test]
fn what_is_not_a_navigation_call_is_not_a_link() {
    let page = r##"<html><head>
        <script>
        location.href = base + '/x1'; location.href = '/x2' + query; window.location = url;
        fetch('/api/data'); $.get('/x3'); var u = '/not-a-nav'; console.log("/path");
        var mime = "text/html", pair = "a/b", page = 'page2.html';
        location = '#top'; location.href = 'mailto:a@b.example'; location = 'javascript:void(0)';
        location = "data:text/html,x"; location = ''; location.href = `/t/${id}`;
        location.href == '/x4'; if (location.href === "/x5") {} location.href += '#x6';
        var location = '/x7'; data.location = '/x8'; mylocation = '/x9'; window.opener('/x10');
        xhr.open('GET', '/x11'); location.href.indexOf('/x12'); location = 'mot';
        location = '/a b'; location = '/item/{id}'; location.hash = '/x13'; open('/x14');
        location.replace('/x15', 1); obj.window.open('/x16');
        </script>
        <script type="application/ld+json">{"url": "https://site.example/ld", "location": "/ld2",
            "x": "location = '/ld3'"}</script>
        <script type="text/template"><a onclick="location='/tpl'">t</a></script>
        <script src="/lib.js">location = '/src-body';</script>
        </head><body>
        <img data-src="/lazy.jpg" src="/i.png"><div data-url="un mot"></div><div data-url="#m"></div>
        <div data-href="mailto:x@y.example"></div><div data-link="true"></div><div data-url="v1.2"></div>
        <a href="javascript:void(0)">rien</a><a href="#" onclick="toggle('/x17')">t</a>
        <p title="location = '/x18'">location = '/x19'</p>
        <noscript><a onclick="location='/ns'">ns</a></noscript>
        </body></html>"##;
    assert_eq!(urls(&javascript_links(page)), Vec::<&str>::new());
}

#[test]
fn javascript_links_can_be_switched_off() {
    let page = "<a href=\"javascript:location='/a'\" onclick=\"location='/b'\">a</a>\
                <div data-url=/c></div><script>location = '/d'</script><a href=/e>e</a>";
    let url = Url::parse("https://site.example/").unwrap();
    let kinds = |links: &[Link]| -> Vec<LinkKind> { links.iter().map(|l| l.kind).collect() };
    let on = skim_html(page, &url);
    assert_eq!(on.links.len(), 5, "{:?}", on.links);
    let options = SkimOptions {
        javascript_links: false,
        ..SkimOptions::default()
    };
    let off = skim_html_opts(page, &url, &options);
    assert_eq!(kinds(&off.links), [LinkKind::Anchor]);
    let extract_off = crate::page::extract::ExtractOptions {
        javascript_links: false,
        ..Default::default()
    };
    let extracted = crate::page::extract::extract_html(page, &url, &extract_off);
    assert_eq!(kinds(&extracted.links), [LinkKind::Anchor]);
    // The old entry point reads them.
    assert_eq!(skim_html_with(page, &url, 100, 100).links.len(), 5);
}

#[test]
fn megabytes_of_script_cost_linear_time_and_give_a_bounded_number_of_links() {
    use crate::page::script_links::MAX_JAVASCRIPT_LINKS;
    let url = Url::parse("https://site.example/").unwrap();
    // Thousands of `location` words, a few hundred of them real navigation calls.
    let mut script = String::new();
    let mut i = 0;
    while script.len() < 5 << 20 {
        if i % 500 == 0 {
            script.push_str(&format!("location.href = '/p{i}';\n"));
        } else {
            script.push_str("var n = location.pathname; if (x) location.reload();\n");
        }
        i += 1;
    }
    // Literals that never close, and `location=` over and over.
    let hostile = [
        format!("location = '{}", "a".repeat(5 << 20)),
        "location='".repeat(500_000),
        "location.href=`location`".repeat(200_000),
        "window.open('".repeat(400_000),
        format!("location = {}'/x'", " ".repeat(5 << 20)),
    ];
    for code in std::iter::once(&script).chain(&hostile) {
        let page = format!("<script>{code}</script><a href=/fin>fin</a>");
        let started = std::time::Instant::now();
        let s = skim_html(&page, &url);
        let extracted = crate::page::extract::extract_html(
            &page,
            &url,
            &crate::page::extract::ExtractOptions::default(),
        );
        let elapsed = started.elapsed();
        assert!(elapsed.as_secs() < 20, "{elapsed:?} for {}", &code[..40]);
        let js = |links: &[Link]| {
            links
                .iter()
                .filter(|l| l.kind == LinkKind::Javascript)
                .count()
        };
        assert!(js(&s.links) <= MAX_JAVASCRIPT_LINKS);
        assert_eq!(js(&s.links), js(&extracted.links));
        assert!(s.links.iter().any(|l| l.url == "https://site.example/fin"));
    }
    let s = skim_html(&format!("<script>{script}</script>"), &url);
    assert_eq!(s.links.len(), MAX_JAVASCRIPT_LINKS);
    assert_eq!(s.links[1].url, "https://site.example/p500");
}

#[test]
fn feeds_are_announced_by_link_rel_alternate_with_a_feed_type() {
    let page = r#"<html><head>
        <link rel="alternate" type="application/rss+xml" title="Le  fil RSS" href="/rss.xml">
        <link rel="alternate" type="application/atom+xml" href="atom.xml">
        <link rel="ALTERNATE" type="Application/RDF+XML; charset=utf-8" href="rdf">
        <link rel="feed alternate nofollow" type="application/rss+xml" href="/nf.xml">
        <link rel="alternate" hreflang="en" href="/en/">
        <link rel="alternate" type="application/feed+json" href="/feed.json">
        <link rel="feed" type="application/rss+xml" href="/pas-alternate.xml">
        <link rel="alternate" type="application/rss+xml">
        <link rel="alternate" type="text/html" href="/autre.html">
        </head><body><p>texte</p></body></html>"#;
    agrees_with_extractor(page);
    let s = skim(page);
    let feeds: Vec<(&str, &str, bool)> = s
        .links
        .iter()
        .filter(|l| l.kind == LinkKind::Feed)
        .map(|l| (l.url.as_str(), l.anchor.as_str(), l.nofollow))
        .collect();
    assert_eq!(
        feeds,
        [
            ("https://site.example/rss.xml", "Le fil RSS", false),
            ("https://site.example/dir/atom.xml", "", false),
            ("https://site.example/dir/rdf", "", false),
            ("https://site.example/nf.xml", "", true),
        ]
    );
    assert_eq!(s.links.len(), 4, "{:?}", s.links);
}

#[test]
fn url_like_keeps_urls_and_paths_only() {
    use crate::page::script_links::url_like;
    for yes in [
        "http://a.example/x",
        "HTTPS://a.example",
        "//cdn.example/x",
        "/",
        "/a/b?c=d#e",
        "./a",
        "../a",
        "?p=2",
        "a/b",
        "dir/page.php?x=1",
        "page2.html",
        "Page.HTM",
        "l'été.html",
    ] {
        assert!(url_like(yes), "{yes}");
    }
    for no in [
        "",
        "#top",
        "mailto:a@b.example",
        "javascript:void(0)",
        "data:text/html,x",
        "tel:+33",
        "host:8080/x",
        "http://",
        "mot",
        "v1.2",
        "example.com",
        "/a b",
        "/a<b",
        "/a\"b",
        "/a\\b",
        "/{id}",
        "/a\u{0}",
        "/a\u{FFFD}",
        "text",
        ".html",
    ] {
        assert!(!url_like(no), "{no}");
    }
    assert!(url_like(&format!("/{}", "a".repeat(2082))));
    assert!(!url_like(&format!("/{}", "a".repeat(2083))));
}
