//! Tests of the result-page parser: engine detection, redirect unwrapping, each engine's layouts,
//! queries and diagnoses.

use super::detect::MARKERS;
use super::engines::{COMPILED, RULES};
use super::urls::engine_for_host;
use super::urls::{base64_decode, percent_decode};
use super::*;

#[test]
fn result_page_numbers_follow_each_engine() {
    let n = |e, u| result_page_number(e, u);
    assert_eq!(
        n(Engine::Google, "https://www.google.com/search?q=x&start=20"),
        Some(3)
    );
    assert_eq!(
        n(Engine::Google, "https://www.google.com/search?q=x"),
        Some(1)
    );
    assert_eq!(
        n(Engine::Bing, "https://www.bing.com/search?q=x&first=11"),
        Some(2)
    );
    assert_eq!(
        n(Engine::Yahoo, "https://search.yahoo.com/search?p=x&b=21"),
        Some(3)
    );
    assert_eq!(
        n(Engine::Baidu, "https://www.baidu.com/s?wd=x&pn=10"),
        Some(2)
    );
    assert_eq!(
        n(
            Engine::Brave,
            "https://search.brave.com/search?q=x&offset=1"
        ),
        Some(2)
    );
    assert_eq!(
        n(Engine::Ecosia, "https://www.ecosia.org/search?q=x&p=2"),
        Some(3)
    );
    assert_eq!(
        n(Engine::Ask, "https://www.ask.com/web?q=x&page=4"),
        Some(4)
    );
    assert_eq!(n(Engine::Qwant, "https://www.qwant.com/?q=x&p=0"), Some(1));
    assert_eq!(n(Engine::Google, "not a url"), None);
    let page = parse_serp(
        "<!-- saved from url=(0050)https://www.google.com/search?q=graphe&start=10 --><html></html>",
        None,
        None,
    );
    assert_eq!(page.page, Some(2));
    assert_eq!(
        page.page_url.as_deref(),
        Some("https://www.google.com/search?q=graphe&start=10")
    );
}

#[test]
fn every_built_in_selector_compiles() {
    for rules in RULES {
        for l in rules.layouts {
            for s in [l.block, l.link, l.title, l.snippet, l.around] {
                assert!(
                    s.is_empty() || css(s).is_some(),
                    "{:?}: bad selector {s:?}",
                    rules.engine
                );
            }
        }
        assert!(
            css(rules.exclude).is_some(),
            "{:?}: bad exclude",
            rules.engine
        );
        assert!(
            css(rules.no_results).is_some(),
            "{:?}: bad no_results",
            rules.engine
        );
    }
    assert_eq!(MARKERS.len(), Engine::ALL.len());
    assert_eq!(
        COMPILED.iter().map(|r| r.layouts.len()).sum::<usize>(),
        RULES.iter().map(|r| r.layouts.len()).sum::<usize>()
    );
}

#[test]
fn names_round_trip() {
    for e in Engine::ALL {
        assert_eq!(Engine::from_name(e.name()), Some(e));
        assert_eq!(Engine::from_name(&e.name().to_uppercase()), Some(e));
        let json = serde_json::to_string(&e).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", e.name()));
    }
    assert_eq!(Engine::from_name("DuckDuckGo"), Some(Engine::DuckDuckGo));
    assert_eq!(Engine::from_name("Ask.com"), Some(Engine::Ask));
    assert_eq!(Engine::from_name("altavista"), None);
}

#[test]
fn hosts_map_to_engines() {
    assert_eq!(engine_for_host("www.google.co.uk"), Some(Engine::Google));
    assert_eq!(engine_for_host("scholar.google.com"), Some(Engine::Google));
    assert_eq!(engine_for_host("webcache.googleusercontent.com"), None);
    assert_eq!(engine_for_host("cn.bing.com"), Some(Engine::Bing));
    assert_eq!(engine_for_host("fr.search.yahoo.com"), Some(Engine::Yahoo));
    assert_eq!(engine_for_host("askmen.com"), None);
    assert_eq!(engine_for_host("www.ask.com"), Some(Engine::Ask));
    assert_eq!(
        engine_for_host("html.duckduckgo.com"),
        Some(Engine::DuckDuckGo)
    );
    assert_eq!(engine_for_host("yandex.com.tr"), Some(Engine::Yandex));
    assert_eq!(engine_for_host("notbing.com"), None);
}

#[test]
fn unwraps_known_redirects() {
    assert_eq!(
        unwrap_redirect("https://www.google.com/url?q=https://example.org/a%3Fb%3D1&sa=U&ved=x"),
        "https://example.org/a?b=1"
    );
    assert_eq!(
        unwrap_redirect("http://www.google.co.uk/url?url=http://example.org/&rct=j"),
        "http://example.org/"
    );
    assert_eq!(
        unwrap_redirect(
            "https://r.search.yahoo.com/_ylt=A0g;_ylu=Y29s/RV=2/RE=1619409856/RO=10/RU=https%3a%2f%2fwww.example.com%2fpage%3fx%3d1/RK=2/RS=abc-"
        ),
        "https://www.example.com/page?x=1"
    );
    assert_eq!(
        unwrap_redirect(
            "http://srd.yahoo.com/srst/865745/ashland+oregon+/1/63/T=1015427114/F=a5/*http://www.oregoncitylink.com/ashland"
        ),
        "http://www.oregoncitylink.com/ashland"
    );
    assert_eq!(
        unwrap_redirect(
            "http://rds.yahoo.com/_ylt=A0g/SIG=12/EXP=1/**http%3a//example.org/a%3fb=1"
        ),
        "http://example.org/a?b=1"
    );
    // base64url("https://example.org/x?y=1") without padding.
    assert_eq!(
        unwrap_redirect(
            "https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLm9yZy94P3k9MQ&ntb=1"
        ),
        "https://example.org/x?y=1"
    );
    assert_eq!(
        unwrap_redirect("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F&rut=abc"),
        "https://example.org/"
    );
    assert_eq!(
        unwrap_redirect(
            "https://web.archive.org/web/20210425234829id_/https://www.example.org/p?q=1"
        ),
        "https://www.example.org/p?q=1"
    );
    assert_eq!(
        unwrap_redirect(
            "https://web.archive.org/web/20070228001357/http://www.google.com/url?q=http://example.org/"
        ),
        "http://example.org/"
    );
    // Baidu's token cannot be resolved offline; plain URLs are unchanged.
    let baidu = "http://www.baidu.com/link?url=bXaYOx_nZgqVK51CEQc";
    assert_eq!(unwrap_redirect(baidu), baidu);
    assert_eq!(
        unwrap_redirect("https://example.org/2021/https-guide"),
        "https://example.org/2021/https-guide"
    );
    assert_eq!(unwrap_redirect("not a url"), "not a url");
    assert_eq!(unwrap_redirect(""), "");
}

#[test]
fn hostile_urls_do_not_panic() {
    for s in [
        "http://",
        "https://www.google.com/url?q=",
        "https://r.search.yahoo.com/RU=",
        "https://www.bing.com/ck/a?u=a1%%%",
        "http://srd.yahoo.com/*",
        "https://web.archive.org/web/2021/",
        "https://web.archive.org/web/20210101000000id_/http:",
        "//",
        "%",
        "http://[::1/",
        "https://www.bing.com/ck/a?u=a1////",
    ] {
        let _ = unwrap_redirect(s);
    }
    assert_eq!(percent_decode("%E2%82%AC%zz%"), "€%zz%");
    assert_eq!(base64_decode("aGk"), Some(b"hi".to_vec()));
    assert_eq!(base64_decode("a b"), None);
}

const GOOGLE_PAGE: &str = r#"<html><head><title>linguistique - Google Search</title></head><body>
        <form action="/search"><input name="q" value="linguistique"></form>
        <div id="tads"><div class="uEierd"><a href="https://ads.example.com/"><h3>An ad</h3></a></div></div>
        <div id="search"><div id="rso">
          <div class="g"><div class="yuRUbf"><a href="https://fr.wikipedia.org/wiki/Linguistique"><h3>Linguistique — Wikipédia</h3></a></div>
            <div class="VwiC3b">La linguistique est l'étude scientifique du langage.</div></div>
          <div class="related-question-pair"><div class="g"><a href="https://paa.example.com/"><h3>Question?</h3></a></div></div>
          <div class="g"><a href="/url?q=https://www.larousse.fr/linguistique&amp;sa=U"><h3>Larousse</h3></a>
            <a href="/search?q=related:larousse.fr"><h3>Similar</h3></a></div>
          <div class="g"><a href="https://fr.wikipedia.org/wiki/Linguistique"><h3>Duplicate</h3></a></div>
          <div class="g"><a href="ftp://files.example.com/"><h3>Not http</h3></a></div>
        </div></div></body></html>"#;

#[test]
fn reads_a_google_page() {
    let page = parse_serp(GOOGLE_PAGE, None, None);
    assert_eq!(page.engine, Some(Engine::Google));
    assert_eq!(page.query.as_deref(), Some("linguistique"));
    let urls: Vec<&str> = page.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://fr.wikipedia.org/wiki/Linguistique",
            "https://www.larousse.fr/linguistique"
        ]
    );
    assert_eq!(page.hits[0].rank, 1);
    assert_eq!(page.hits[1].rank, 2);
    assert_eq!(page.hits[0].title, "Linguistique — Wikipédia");
    assert_eq!(
        page.hits[0].snippet,
        "La linguistique est l'étude scientifique du langage."
    );
    assert!(page.problem.is_none());
}

#[test]
fn engine_override_and_url_detection() {
    let bing = r#"<ol id="b_results"><li class="b_algo"><h2><a href="https://example.org/">Ex</a></h2><div class="b_caption"><p>Snip</p></div></li>
            <li class="b_ad"><h2><a href="https://ad.example.org/">Ad</a></h2></li></ol>"#;
    assert_eq!(detect_engine(bing, None), Some(Engine::Bing));
    assert_eq!(
        detect_engine(bing, Some("https://www.qwant.com/?q=x")),
        Some(Engine::Qwant)
    );
    assert_eq!(
        detect_engine(
            "<p>hi</p>",
            Some("https://web.archive.org/web/2020id_/https://www.bing.com/search?q=x")
        ),
        Some(Engine::Bing)
    );
    let page = parse_serp(
        bing,
        Some("https://www.bing.com/search?q=linguistique+de+corpus"),
        None,
    );
    assert_eq!(page.query.as_deref(), Some("linguistique de corpus"));
    assert_eq!(page.hits.len(), 1);
    assert_eq!(page.hits[0].snippet, "Snip");
    // Forced to read it as Google, only the generic heading rule applies, and it does
    // not know Bing's ad markup: the override is obeyed, and the ad gets in.
    let forced = parse_serp(bing, None, Some(Engine::Google));
    assert_eq!(forced.engine, Some(Engine::Google));
    assert_eq!(forced.hits.len(), 2);
}

#[test]
fn saved_from_comment_gives_the_engine_and_query() {
    let html = "<!-- saved from url=(0044)https://search.yahoo.com/search?p=corpus -->\n<html><body><div class=\"algo-sr\"><h3 class=\"title\"><a href=\"https://r.search.yahoo.com/_ylt=x/RV=2/RU=https%3a%2f%2fexample.org%2f/RK=2\">T</a></h3></div></body></html>";
    let page = parse_serp(html, None, None);
    assert_eq!(page.engine, Some(Engine::Yahoo));
    assert_eq!(page.query.as_deref(), Some("corpus"));
    assert_eq!(
        page.hits.first().map(|h| h.url.as_str()),
        Some("https://example.org/")
    );
}

#[test]
fn duckduckgo_html_page() {
    let html = r#"<html><head><title>corpus at DuckDuckGo</title></head><body>
          <div class="result results_links result--ad"><h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Ad</a></h2></div>
          <div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
            <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fcorpus&amp;rut=x">Corpus</a></h2>
            <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fcorpus">A corpus is…</a></div></div>
        </body></html>"#;
    let page = parse_serp(html, None, None);
    assert_eq!(page.engine, Some(Engine::DuckDuckGo));
    assert_eq!(page.hits.len(), 1);
    assert_eq!(page.hits[0].url, "https://example.org/corpus");
    assert_eq!(page.hits[0].snippet, "A corpus is…");
}

#[test]
fn problems_are_reported() {
    let empty = parse_serp("", None, None);
    assert!(empty.hits.is_empty());
    assert!(
        empty
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("empty"))
    );

    let unknown = parse_serp("<html><body><p>Hello</p></body></html>", None, None);
    assert_eq!(unknown.engine, None);
    assert!(
        unknown
            .problem
            .as_deref()
            .is_some_and(|p| p.starts_with("engine not recognised"))
    );

    let js = parse_serp(
        "<html><head><title>x at DuckDuckGo</title></head><body><noscript>You are being redirected to the non-JavaScript site.</noscript></body></html>",
        Some("https://duckduckgo.com/?q=x"),
        None,
    );
    assert!(
        js.problem
            .as_deref()
            .is_some_and(|p| p.contains("needs JavaScript")),
        "{:?}",
        js.problem
    );

    let none = parse_serp(
        r#"<html><body><ol id="b_results"><li class="b_no"><h1>There are no results for <strong>zzz</strong></h1></li></ol></body></html>"#,
        Some("https://www.bing.com/search?q=zzz"),
        None,
    );
    assert!(
        none.problem
            .as_deref()
            .is_some_and(|p| p.contains("reported no results")),
        "{:?}",
        none.problem
    );

    let bot = parse_serp(
        "<html><body><p>Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot. Please solve the challenge below to continue searching, this text is long enough to not look empty at all.</p></body></html>",
        Some("https://www.google.com/search?q=x"),
        None,
    );
    assert!(
        bot.problem
            .as_deref()
            .is_some_and(|p| p.contains("bot check")),
        "{:?}",
        bot.problem
    );
}

#[test]
fn hostile_html_does_not_panic() {
    // Deep enough to break a recursive walk; html5ever itself is quadratic in nesting
    // depth, so the depth is kept affordable for a debug build.
    let deep = "<div>".repeat(3_000) + "<a href='/url?q=http://x.org/'><h3>t</h3></a>";
    let _ = parse_serp(&deep, Some("https://www.google.com/search?q=x"), None);
    let _ = parse_serp(
        "<a href='\u{0}'><h3>\u{fffd}</h3></a>",
        None,
        Some(Engine::Google),
    );
    let _ = parse_serp(
        "<html><base href='javascript:alert(1)'><a href='x'><h3>y</h3></a>",
        Some("::::"),
        Some(Engine::Google),
    );
    for engine in Engine::ALL {
        let _ = parse_serp(
            "<<<>>><a href=http://[::1]:99999/><h2><a href=//>",
            Some("http://"),
            Some(engine),
        );
    }
}

#[test]
fn listings_searches_are_reported_not_read() {
    // Yahoo TV search (2011): show pages, an adCenter ad and "search for … on" shortcuts.
    let html = r#"<html><body><div id="results">
        <h3><a href="/futurama/show/340">Futurama (Animation, Comedy)</a></h3>
        <h3><a href="http://1134691.r.msn.com/?ld=x">Watch futurama</a></h3>
        <div class="otherprops"><h3>Search for <strong>Futurama</strong> on:</h3>
        <ul><li><h3><a href="http://flickr.com/search/?q=Futurama">Flickr</a></h3></li></ul></div>
        </div></body></html>"#;
    let page = parse_serp(
        html,
        Some("http://tv.yahoo.com/search?p=Futurama"),
        Some(Engine::Yahoo),
    );
    assert!(page.hits.is_empty(), "{:?}", page.hits);
    let problem = page.problem.unwrap_or_default();
    assert!(problem.contains("TV search page"), "{problem}");
    // Without its URL the same page gives nothing either: the ad and the shortcuts are not
    // results, and the show page's relative link points back into the engine.
    let blind = parse_serp(html, None, Some(Engine::Yahoo));
    assert!(blind.hits.is_empty(), "{:?}", blind.hits);
    // The kinds of search, by host, path or parameter; image, video, news and books search
    // are still read.
    use super::diagnose::{READ_VERTICALS, vertical_of};
    for (url, engine, kind) in [
        (
            "http://video.search.yahoo.com/search?p=x",
            Engine::Yahoo,
            Some("video"),
        ),
        ("http://tv.yahoo.com/search?p=x", Engine::Yahoo, Some("TV")),
        (
            "http://movies.yahoo.com/mv/search?p=x",
            Engine::Yahoo,
            Some("film"),
        ),
        (
            "http://music.yahoo.com/search?p=x",
            Engine::Yahoo,
            Some("music"),
        ),
        (
            "http://shopping.yahoo.com/search?p=x",
            Engine::Yahoo,
            Some("shopping"),
        ),
        (
            "https://maps.google.com/maps?q=x",
            Engine::Google,
            Some("maps"),
        ),
        (
            "https://www.google.com/search?q=x&tbm=shop",
            Engine::Google,
            Some("shopping"),
        ),
        (
            "https://www.google.com/search?q=x&tbm=bks",
            Engine::Google,
            Some("books"),
        ),
        (
            "https://www.bing.com/images/search?q=x",
            Engine::Bing,
            Some("image"),
        ),
        ("https://search.yahoo.com/search?p=x", Engine::Yahoo, None),
    ] {
        assert_eq!(vertical_of(url, engine), kind, "{url}");
    }
    for read in ["image", "video", "news", "books"] {
        assert!(READ_VERTICALS.contains(&read));
    }
    // A Yahoo-hosted story whose name starts with "search" is a result; a search is not.
    let yahoo = r#"<html><body><div class="algo-sr"><h3 class="title">
        <a href="https://www.yahoo.com/news/search-for-missing-hiker-1.html">Story</a></h3></div>
        <div class="algo-sr"><h3 class="title"><a href="https://movies.yahoo.com/mv/search?p=x">Films</a></h3></div>
        </body></html>"#;
    let page = parse_serp(yahoo, Some("https://search.yahoo.com/search?p=x"), None);
    let urls: Vec<&str> = page.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(
        urls,
        ["https://www.yahoo.com/news/search-for-missing-hiker-1.html"]
    );
}

#[test]
fn baidu_layout_of_the_2000s() {
    let html = r#"<html><body>
        <table><tr><td class=f><a href="http://ma.baidu.com/ma/rcv/click.php?t=x">Ad</a></td></tr></table>
        <table><tr><td class=f><a href="http://cache.baidu.com/c?m=y">百度快照</a></td></tr></table>
        <table border="0" cellpadding="0" cellspacing="0"><tr><td class=f>
        <a onclick="return c('201e',this.innerHTML,this.href,1)" href="http://example.cn/" target="_blank"><font size="3">标题</font></a><br>
        <font size=-1>摘要 ...<br><font color=#008000>example.cn/ 2K 2008-4-21</font> -
        <a href="http://cache.baidu.com/c?m=x" target="_blank" class=m>百度快照</a></font>
        </td></tr></table></body></html>"#;
    let page = parse_serp(
        html,
        Some("http://www.baidu.com/s?wd=x"),
        Some(Engine::Baidu),
    );
    let urls: Vec<&str> = page.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, ["http://example.cn/"]);
    assert_eq!(page.hits[0].title, "标题");
}
