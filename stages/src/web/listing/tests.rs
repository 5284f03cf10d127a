//! Tests of the listing reader: real-shaped sitemaps and feeds, then hostile and broken bodies.

use std::io::Write;
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;
use rand::{RngCore, SeedableRng};

use super::*;

fn read(body: &str) -> Listing {
    read_listing(body.as_bytes(), &Limits::default()).unwrap()
}

fn urls(listing: &Listing) -> Vec<&str> {
    listing.entries.iter().map(|e| e.url.as_str()).collect()
}

/// One line per entry, `url | lastmod | title`, `-` for none.
fn lines(listing: &Listing) -> String {
    let mut out = String::new();
    for e in &listing.entries {
        let (lastmod, title) = (e.lastmod.as_deref(), e.title.as_deref());
        out += &format!(
            "{} | {} | {}\n",
            e.url,
            lastmod.unwrap_or("-"),
            title.unwrap_or("-")
        );
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// The example of sitemaps.org, with the image and xhtml extensions Google documents.
const SITEMAP: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
   <url>
      <loc>http://www.example.com/</loc>
      <lastmod>2005-01-01</lastmod>
      <changefreq>monthly</changefreq>
      <priority>0.8</priority>
   </url>
   <url>
      <image:image><image:loc>http://www.example.com/photo.jpg</image:loc></image:image>
      <loc>
        http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii
      </loc>
      <xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/de/"/>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=73&amp;desc=vacation_new_zealand</loc>
      <lastmod>2004-12-23T18:00:15+00:00</lastmod>
   </url>
   <url><loc>   </loc></url>
   <url/>
</urlset>
"#;

#[test]
fn sitemaps_org_urlset_gives_locs_and_lastmods() {
    let listing = read(SITEMAP);
    assert_eq!(listing.kind, ListingKind::UrlSet);
    assert_eq!(
        lines(&listing),
        "http://www.example.com/ | 2005-01-01 | -
http://www.example.com/catalog?item=12&desc=vacation_hawaii | - | -
http://www.example.com/catalog?item=73&desc=vacation_new_zealand | 2004-12-23T18:00:15+00:00 | -
"
    );
    assert_eq!((listing.over_limit, listing.too_long), (0, 0));
    assert_eq!((listing.problem, listing.base), (None, None));
}

#[test]
fn prefixed_sitemap_elements_are_matched_by_local_name() {
    let body = r#"<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sm:url><sm:loc>https://example.org/a</sm:loc><sm:lastmod>2024-05-01</sm:lastmod></sm:url>
        <sm:url><sm:loc>https://example.org/b</sm:loc><sm:loc>https://example.org/c</sm:loc></sm:url>
    </sm:urlset>"#;
    assert_eq!(
        lines(&read(body)),
        "https://example.org/a | 2024-05-01 | -\nhttps://example.org/b | - | -\n"
    );
}

#[test]
fn sitemap_index_lists_sitemaps() {
    let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap>
    <loc>https://www.example.com/sitemap1.xml.gz</loc>
    <lastmod>2024-10-01T18:23:17+00:00</lastmod>
  </sitemap>
  <sitemap>
    <loc>https://www.example.com/sitemap2.xml.gz</loc>
  </sitemap>
</sitemapindex>"#;
    let listing = read(body);
    assert_eq!(listing.kind, ListingKind::SitemapIndex);
    assert_eq!(
        lines(&listing),
        "https://www.example.com/sitemap1.xml.gz | 2024-10-01T18:23:17+00:00 | -
https://www.example.com/sitemap2.xml.gz | - | -
"
    );
}

#[test]
fn gzipped_sitemap_is_inflated() {
    let body = gzip(SITEMAP.as_bytes());
    assert!(is_gzip(&body));
    assert!(!is_gzip(SITEMAP.as_bytes()));
    assert_eq!(sniff(&body), Some(ListingKind::UrlSet));
    let listing = read_listing(&body, &Limits::default()).unwrap();
    assert_eq!(listing, read(SITEMAP));
}

#[test]
fn cut_gzip_stream_keeps_what_inflated() {
    let mut body = String::from("<urlset>");
    for i in 0..2000 {
        body.push_str(&format!(
            "<url><loc>https://example.org/page/{i}/{}</loc></url>",
            i * 7919
        ));
    }
    body.push_str("</urlset>");
    let compressed = gzip(body.as_bytes());
    let cut = &compressed[..compressed.len() / 2];
    let listing = read_listing(cut, &Limits::default()).unwrap();
    assert!(listing.entries.len() > 100, "{}", listing.entries.len());
    assert!(listing.entries.len() < 2000);
    assert!(matches!(listing.problem, Some(ListingError::Gzip(_))));

    let corrupt = [
        0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0xff, 0xff,
    ];
    let error = read_listing(&corrupt, &Limits::default()).unwrap_err();
    assert!(matches!(error, ListingError::Gzip(_)), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("the gzip data does not decompress")
    );
}

/// The shape of a WordPress feed (`/feed/`).
const WORDPRESS_RSS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"
	xmlns:content="http://purl.org/rss/1.0/modules/content/"
	xmlns:dc="http://purl.org/dc/elements/1.1/"
	xmlns:atom="http://www.w3.org/2005/Atom"
	xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel>
	<title>Langues &#38; Linguistique</title>
	<atom:link href="https://blog.example.fr/feed/" rel="self" type="application/rss+xml" />
	<link>https://blog.example.fr</link>
	<description>Un carnet de recherche</description>
	<lastBuildDate>Mon, 03 Mar 2025 09:12:44 +0000</lastBuildDate>
	<image>
		<url>https://blog.example.fr/wp-content/uploads/cropped-logo-32x32.png</url>
		<title>Langues &#38; Linguistique</title>
		<link>https://blog.example.fr</link>
	</image>
	<item>
		<title><![CDATA[L’accord du participe passé : état des lieux]]></title>
		<link>https://blog.example.fr/2025/03/accord-participe/?utm_source=rss&#038;utm_medium=rss</link>
		<comments>https://blog.example.fr/2025/03/accord-participe/#respond</comments>
		<dc:creator><![CDATA[Marie]]></dc:creator>
		<pubDate>Mon, 03 Mar 2025 09:12:44 +0000</pubDate>
		<category><![CDATA[Grammaire]]></category>
		<guid isPermaLink="false">https://blog.example.fr/?p=1234</guid>
		<description><![CDATA[<p>Résumé…</p>]]></description>
	</item>
	<item>
		<title>Corpus &amp;amp; concordances : &lt;em&gt;outils&lt;/em&gt;</title>
		<link>https://blog.example.fr/2025/02/corpus-concordances/?a=1&amp;b=2</link>
		<pubDate>Fri, 14 Feb 2025 16:00:00 +0000</pubDate>
		<guid isPermaLink="false">https://blog.example.fr/?p=1200</guid>
	</item>
</channel>
</rss>
"#;

#[test]
fn wordpress_rss_gives_item_links_titles_and_dates() {
    let listing = read(WORDPRESS_RSS);
    assert_eq!(listing.kind, ListingKind::Rss);
    assert_eq!(
        lines(&listing),
        "https://blog.example.fr/2025/03/accord-participe/?utm_source=rss&utm_medium=rss \
         | Mon, 03 Mar 2025 09:12:44 +0000 | L’accord du participe passé : état des lieux
https://blog.example.fr/2025/02/corpus-concordances/?a=1&b=2 \
         | Fri, 14 Feb 2025 16:00:00 +0000 | Corpus & concordances : outils
"
    );
    assert_eq!(listing.base, None);
}

#[test]
fn rss_guid_is_the_url_only_when_it_is_a_permalink() {
    let body = r#"<rss version="2.0"><channel><link>https://example.org/</link>
        <item><title>Permalink</title><guid>https://example.org/p/1</guid></item>
        <item><guid isPermaLink="true">  HTTPS://example.org/p/2 </guid></item>
        <item><guid isPermaLink="false">https://example.org/?p=3</guid></item>
        <item><guid>tag:example.org,2024:4</guid></item>
        <item><link></link><guid>http://example.org/p/5</guid></item>
        <item><title>No URL at all</title></item>
    </channel></rss>"#;
    assert_eq!(
        lines(&read(body)),
        "https://example.org/p/1 | - | Permalink
HTTPS://example.org/p/2 | - | -
http://example.org/p/5 | - | -
"
    );
}

/// The shape of a Blogger feed: each entry has replies, edit and self links besides its
/// alternate one; the feed has an `xml:base`.
const BLOGGER_ATOM: &str = r#"<?xml version='1.0' encoding='UTF-8'?><?xml-stylesheet href="http://www.blogger.com/styles/atom.css" type="text/css"?>
<feed xmlns='http://www.w3.org/2005/Atom' xmlns:openSearch='http://a9.com/-/spec/opensearchrss/1.0/' xml:base='https://lingblog.example.com/'>
<id>tag:blogger.com,1999:blog-123</id><updated>2025-01-20T10:00:00.000+01:00</updated>
<title type='text'>Ling Blog</title>
<link rel='http://schemas.google.com/g/2005#feed' type='application/atom+xml' href='https://lingblog.example.com/feeds/posts/default'/>
<link rel='self' type='application/atom+xml' href='https://www.blogger.com/feeds/123/posts/default'/>
<link rel='alternate' type='text/html' href='https://lingblog.example.com/'/>
<author><name>Anne</name><uri>https://www.blogger.com/profile/1</uri></author>
<entry>
  <id>tag:blogger.com,1999:blog-123.post-9</id>
  <published>2025-01-20T09:00:00.000+01:00</published>
  <updated>2025-01-20T10:00:00.000+01:00</updated>
  <title type='text'>Vowel   harmony
     in Finnish</title>
  <content type='html'>&lt;p&gt;Body&lt;/p&gt;</content>
  <link rel='replies' type='text/html' href='https://lingblog.example.com/2025/01/vowel-harmony.html#comment-form' title='2 Comments'/>
  <link rel='edit' type='application/atom+xml' href='https://www.blogger.com/feeds/123/posts/default/9'/>
  <link rel='self' type='application/atom+xml' href='https://www.blogger.com/feeds/123/posts/default/9'/>
  <link rel='alternate' type='application/atom+xml' href='https://lingblog.example.com/feeds/9'/>
  <link rel='alternate' type='text/html' href='https://lingblog.example.com/2025/01/vowel-harmony.html' title='Vowel harmony in Finnish'/>
  <source><link rel='alternate' href='https://elsewhere.example/'/></source>
</entry>
<entry>
  <published>2024-12-02T08:00:00.000+01:00</published>
  <title type='html'>&lt;b&gt;Tom &amp;amp; Jerry&lt;/b&gt; in a corpus</title>
  <link rel='replies' type='application/atom+xml' href='https://lingblog.example.com/feeds/8/comments/default'/>
  <link href='2024/12/tom-and-jerry.html'/>
</entry>
</feed>"#;

#[test]
fn blogger_atom_gives_alternate_links_and_base() {
    let listing = read(BLOGGER_ATOM);
    assert_eq!(listing.kind, ListingKind::Atom);
    assert_eq!(
        listing.base.as_deref(),
        Some("https://lingblog.example.com/")
    );
    assert_eq!(
        lines(&listing),
        "https://lingblog.example.com/2025/01/vowel-harmony.html \
         | 2025-01-20T10:00:00.000+01:00 | Vowel harmony in Finnish
2024/12/tom-and-jerry.html | 2024-12-02T08:00:00.000+01:00 | Tom & Jerry in a corpus
"
    );
}

#[test]
fn github_atom_gives_links_without_rel() {
    let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en-US">
  <id>tag:github.com,2008:https://github.com/example/tool/releases</id>
  <link type="text/html" rel="alternate" href="https://github.com/example/tool/releases"/>
  <link type="application/atom+xml" rel="self" href="https://github.com/example/tool/releases.atom"/>
  <title>Release notes from tool</title>
  <entry>
    <id>tag:github.com,2008:Repository/1/v1.2.0</id>
    <updated>2025-02-01T12:00:00Z</updated>
    <link rel="alternate" type="text/html" href="https://github.com/example/tool/releases/tag/v1.2.0"/>
    <title>v1.2.0</title>
    <content type="html">&lt;p&gt;Fixes&lt;/p&gt;</content>
  </entry>
  <entry>
    <link href="https://github.com/example/tool/releases/tag/v1.1.0"></link>
    <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">v1.1.0 <em>stable</em></div></title>
  </entry>
  <entry><link rel="self" href="https://github.com/self-only"/></entry>
</feed>"#;
    let listing = read(body);
    assert_eq!(
        urls(&listing),
        [
            "https://github.com/example/tool/releases/tag/v1.2.0",
            "https://github.com/example/tool/releases/tag/v1.1.0"
        ]
    );
    assert_eq!(listing.entries[1].title.as_deref(), Some("v1.1.0 stable"));
    assert_eq!(listing.entries[1].lastmod, None);
    assert_eq!(listing.base, None);
}

#[test]
fn rdf_rss_1_0_gives_links_or_about() {
    let body = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="http://www.example.org/news.rdf">
    <title>Example News</title>
    <link>http://www.example.org/</link>
    <items><rdf:Seq><rdf:li resource="http://www.example.org/n/1"/></rdf:Seq></items>
  </channel>
  <item rdf:about="http://www.example.org/n/1?from=rdf">
    <title>First</title>
    <link>http://www.example.org/n/1</link>
    <dc:date>2002-09-01T12:00:00+00:00</dc:date>
  </item>
  <item rdf:about="http://www.example.org/n/2">
    <title>Second</title>
  </item>
</rdf:RDF>"#;
    let listing = read(body);
    assert_eq!(listing.kind, ListingKind::Rss);
    assert_eq!(
        lines(&listing),
        "http://www.example.org/n/1 | 2002-09-01T12:00:00+00:00 | First
http://www.example.org/n/2 | - | Second
"
    );
}

#[test]
fn sniff_finds_the_root_element_and_kinds_have_names() {
    let long_root = format!(
        "<?xml version=\"1.0\"?><urlset {}>",
        (0..40)
            .map(|i| format!("xmlns:ns{i}=\"http://example.org/schemas/{i}\""))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let cases: [(&[u8], Option<ListingKind>); 16] = [
        (SITEMAP.as_bytes(), Some(ListingKind::UrlSet)),
        (b"<sitemapindex><sitemap/></sitemapindex>", Some(ListingKind::SitemapIndex)),
        (WORDPRESS_RSS.as_bytes(), Some(ListingKind::Rss)),
        (BLOGGER_ATOM.as_bytes(), Some(ListingKind::Atom)),
        (b"<rdf:RDF xmlns:rdf='x'>", Some(ListingKind::Rss)),
        (
            b"\xEF\xBB\xBF<?xml version='1.0'?>\n<!-- generated by Yoast -->\n<?xml-stylesheet type='text/xsl' href='/sitemap.xsl'?>\n<urlset>",
            Some(ListingKind::UrlSet),
        ),
        (
            b"<!DOCTYPE feed [<!ENTITY a 'b'>]>\n<feed xmlns='http://www.w3.org/2005/Atom'>",
            Some(ListingKind::Atom),
        ),
        (long_root.as_bytes(), Some(ListingKind::UrlSet)),
        (b"<!DOCTYPE html>\n<html lang=\"fr\"><head>", None),
        (b"<!doctype html><html><body><rss>", None),
        (b"<html><head><title>404</title>", None),
        (b"<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>", None),
        (b"{\"urlset\": []}", None),
        (b"", None),
        (b"\x1f\x8b", None),
        (b"<URLSET>", None),
    ];
    for (body, kind) in cases {
        assert_eq!(sniff(body), kind, "{}", String::from_utf8_lossy(body));
    }
    assert_eq!(
        sniff(&gzip(BLOGGER_ATOM.as_bytes())),
        Some(ListingKind::Atom)
    );
    assert_eq!(sniff(&gzip(b"<html></html>")), None);
    // A root beyond the first KiB is not looked for.
    let late = format!("<!--{}--><urlset>", " ".repeat(2000));
    assert_eq!(sniff(late.as_bytes()), None);
    assert_eq!(read(&late).kind, ListingKind::UrlSet);
    let kinds = [
        ListingKind::UrlSet,
        ListingKind::SitemapIndex,
        ListingKind::Rss,
        ListingKind::Atom,
    ];
    assert_eq!(
        kinds.map(ListingKind::name),
        ["sitemap", "sitemap-index", "rss", "atom"]
    );
}

#[test]
fn other_documents_are_not_listings() {
    let limits = Limits::default();
    let html = "an HTML page";
    let cases = [
        ("<!DOCTYPE html><html><body>Not found</body></html>", html),
        ("<!doctype html>\n<HTML><BODY><P>oops", html),
        ("<svg xmlns='x'/>", "the root element is <svg>"),
        ("", "the body is empty"),
        ("  \n ", "the body is empty"),
        ("User-agent: *\nDisallow:", "the body holds no XML element"),
    ];
    for (body, found) in cases {
        let error = read_listing(body.as_bytes(), &limits).unwrap_err();
        let expected = ListingError::NotAListing {
            found: found.into(),
        };
        assert_eq!(error, expected, "{body}");
    }
    let error = read_listing(b"<svg/>", &limits).unwrap_err();
    assert_eq!(
        error.to_string(),
        "not a sitemap or a feed: the root element is <svg> (a listing's root element is \
         <urlset>, <sitemapindex>, <rss>, <rdf:RDF> or <feed>)"
    );
    let long = format!("<{}/>", "a".repeat(10_000));
    let message = read_listing(long.as_bytes(), &limits)
        .unwrap_err()
        .to_string();
    assert!(message.len() < 300, "{message}");
    // Text before the root (a PHP warning) does not hide the sitemap.
    let warned = "Warning: Undefined variable $x in /var/www/sitemap.php on line 3\n<?xml version=\"1.0\"?><urlset><url><loc>https://example.org/</loc></url></urlset>";
    assert_eq!(urls(&read(warned)), ["https://example.org/"]);
    // An empty root is an empty listing.
    assert_eq!(read("<urlset/>").entries, []);
}

#[test]
fn malformed_tail_keeps_earlier_entries() {
    let head = "<urlset><url><loc>https://example.org/1</loc></url><url><loc>https://example.org/2</loc></url>";
    let tails = [
        "<url><loc>https://example.org/3</lo",
        "<url><loc>https://example.org/3</loc></urlset>",
        "<url><loc>https://example.org/3</loc>",
        "<<<>>> garbage ]]>",
        "</url></urlset>",
    ];
    for tail in tails {
        let listing = read(&format!("{head}{tail}"));
        assert_eq!(
            urls(&listing),
            ["https://example.org/1", "https://example.org/2"],
            "{tail}"
        );
        let Some(ListingError::Malformed { offset, detail }) = &listing.problem else {
            panic!("{tail}: {:?}", listing.problem);
        };
        assert!(
            *offset >= 90 && *offset <= head.len() + tail.len(),
            "{tail}: {offset}"
        );
        assert!(!detail.is_empty());
    }
    let cut = read(&format!("{head}<url><loc>https://example.org/3</loc>"));
    assert_eq!(
        cut.problem.unwrap().to_string(),
        "malformed XML at byte 131: the document ends with 2 element(s) still open, the root \
         among them: was the download cut short?"
    );
    // Anything after the root's end tag is not read.
    let trailing = read(&format!("{head}</urlset><html>garbage"));
    assert_eq!((trailing.entries.len(), trailing.problem), (2, None));
    // Broken before the root is known: nothing to keep.
    let error = read_listing(b"<?xml version='1.0'?><!-- unclosed", &Limits::default());
    assert!(
        matches!(error, Err(ListingError::Malformed { .. })),
        "{error:?}"
    );
}

/// 1 GiB of zeros as 64 gzip members of 16 MiB each (one stream, RFC 1952): about 1 MB, and
/// 16 MiB to compress instead of 1 GiB.
fn gzip_bomb() -> Vec<u8> {
    let zeros = vec![0u8; 1024 * 1024];
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    for _ in 0..16 {
        encoder.write_all(&zeros).unwrap();
    }
    let member = encoder.finish().unwrap();
    member.repeat(64)
}

#[test]
fn gzip_bomb_is_too_large_and_stops_at_the_limit() {
    let bomb = gzip_bomb();
    assert!(bomb.len() < 2 * 1024 * 1024, "{}", bomb.len());
    let start = Instant::now();
    let error = read_listing(&bomb, &Limits::default()).unwrap_err();
    assert_eq!(
        error,
        ListingError::TooLarge {
            limit: 50 * 1024 * 1024
        }
    );
    assert_eq!(
        error.to_string(),
        "more than 52428800 bytes once uncompressed (the sitemap protocol's limit is 50 MiB)"
    );
    // With a small limit the cost is the limit's: inflating all of it would take seconds.
    let small = Limits {
        max_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let small_start = Instant::now();
    assert_eq!(
        read_listing(&bomb, &small).unwrap_err(),
        ListingError::TooLarge { limit: 1024 * 1024 }
    );
    assert!(small_start.elapsed() < Duration::from_secs(1));
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(sniff(&bomb), None);
}

#[test]
fn plain_body_over_the_byte_limit_is_too_large() {
    let limits = Limits {
        max_bytes: 100,
        ..Limits::default()
    };
    let body = format!("<urlset>{}</urlset>", " ".repeat(100));
    assert_eq!(
        read_listing(body.as_bytes(), &limits),
        Err(ListingError::TooLarge { limit: 100 })
    );
    let exact = format!("<urlset>{}</urlset>", " ".repeat(100 - 17));
    assert!(read_listing(exact.as_bytes(), &limits).is_ok());
    assert!(read_listing(&gzip(exact.as_bytes()), &limits).is_ok());
    assert_eq!(
        read_listing(&gzip(body.as_bytes()), &limits),
        Err(ListingError::TooLarge { limit: 100 })
    );
}

fn index_body(entries: usize) -> String {
    let mut body = String::with_capacity(entries * 24 + 100);
    body.push_str("<?xml version=\"1.0\"?>\n<sitemapindex>");
    for i in 0..entries {
        body.push_str("<sitemap><loc>s");
        body.push_str(&i.to_string());
        body.push_str("</loc></sitemap>");
    }
    body.push_str("</sitemapindex>");
    body
}

#[test]
fn entries_past_the_limit_are_counted_not_kept() {
    let listing = read(&index_body(60_000));
    assert_eq!(listing.entries.len(), 50_000);
    assert_eq!(listing.over_limit, 10_000);
    assert_eq!(listing.entries[49_999].url, "s49999");
    assert_eq!(listing.problem, None);
}

#[test]
fn huge_index_stops_scanning_at_the_bound() {
    // Two million entries in 52 MB: the scanning bound, not the size, ends the work.
    let body = index_body(2_000_000);
    let limits = Limits {
        max_bytes: usize::MAX,
        ..Limits::default()
    };
    let start = Instant::now();
    let listing = read_listing(body.as_bytes(), &limits).unwrap();
    assert_eq!(listing.entries.len(), 50_000);
    assert_eq!(listing.over_limit, (SCAN_FACTOR - 1) * 50_000);
    assert_eq!(listing.problem, None);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );

    let small = Limits {
        max_entries: 1000,
        max_bytes: usize::MAX,
        ..Limits::default()
    };
    let listing = read_listing(body.as_bytes(), &small).unwrap();
    assert_eq!((listing.entries.len(), listing.over_limit), (1000, 9000));
    // Within the default 50 MiB, the same body is refused before any parsing.
    assert!(matches!(
        read_listing(body.as_bytes(), &Limits::default()),
        Err(ListingError::TooLarge { .. })
    ));
}

#[test]
fn billion_laughs_is_not_expanded() {
    let mut body =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n<!ENTITY lol \"lol\">\n");
    for level in 1..=9 {
        let previous = if level == 1 {
            "lol".to_owned()
        } else {
            format!("lol{}", level - 1)
        };
        body.push_str(&format!(
            "<!ENTITY lol{level} \"{}\">\n",
            format!("&{previous};").repeat(10)
        ));
    }
    body.push_str("]>\n<urlset><url><loc>&lol9;</loc></url><url><loc>https://example.org/?q=&lol9;&amp;x</loc><lastmod>&lol9;</lastmod></url></urlset>");
    let start = Instant::now();
    let listing = read(&body);
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(
        urls(&listing),
        ["&lol9;", "https://example.org/?q=&lol9;&x"]
    );
    assert_eq!(listing.entries[1].lastmod.as_deref(), Some("&lol9;"));
    assert_eq!(listing.problem, None);
}

#[test]
fn references_and_cdata_are_decoded() {
    let body = "<rss><channel><item>\
        <title>Caf&#233; &#x2014; &quot;l&apos;&#xE9;t&#233;&quot; &unknown; &#0; &#xD800; &#12345678901;</title>\
        <link><![CDATA[https://example.org/?a=1&b=2]]></link></item>\
        <item><link>https://example.org/?a=1&b=2&amp;c=&lt;3&gt;</link>\
        <title><![CDATA[  Two\n\n  lines &amp; a <br/> tag  ]]></title></item></channel></rss>";
    assert_eq!(
        lines(&read(body)),
        "https://example.org/?a=1&b=2 | - | Café — \"l'été\" &unknown; &#0; &#xD800; &#12345678901;
https://example.org/?a=1&b=2&c=<3> | - | Two lines & a tag
"
    );
    // Attributes: predefined and numeric references, others as written.
    let atom = "<feed xml:base='https://example.org/a&amp;b/'><entry>\
        <link href=' https://example.org/?x=1&amp;y=&#50;&z;&amp '/></entry></feed>";
    let listing = read(atom);
    assert_eq!(urls(&listing), ["https://example.org/?x=1&y=2&z;&amp"]);
    assert_eq!(listing.base.as_deref(), Some("https://example.org/a&b/"));
}

#[test]
fn titles_are_capped() {
    let long = "mot ".repeat(10_000);
    let body = format!(
        "<rss><channel><item><link>https://example.org/</link><title>{long}</title></item></channel></rss>"
    );
    let title = read(&body).entries[0].title.clone().unwrap();
    // Cut at a word's end: the space that would be the 300th character is not kept.
    assert_eq!(title.chars().count(), MAX_TITLE_CHARS - 1);
    assert!(title.starts_with("mot mot") && title.ends_with(" mot"));
    let body = format!(
        "<feed><entry><link href='u'/><title>{}</title></entry></feed>",
        "é".repeat(10_000)
    );
    let title = read(&body).entries[0].title.clone().unwrap();
    assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
    let date = "9".repeat(MAX_DATE_BYTES + 1);
    let body = format!("<urlset><url><loc>u</loc><lastmod>{date}</lastmod></url></urlset>");
    assert_eq!(read(&body).entries[0].lastmod, None);
}

#[test]
fn urls_over_the_length_limit_are_counted_and_dropped() {
    let limits = Limits {
        max_url_length: 30,
        ..Limits::default()
    };
    let exact = format!("https://example.org/{}", "a".repeat(10));
    assert_eq!(exact.len(), 30);
    let body = format!(
        "<urlset>\
         <url><loc>{exact}</loc></url>\
         <url><loc>\n   {exact}{spaces}\n</loc></url>\
         <url><loc>{exact}b</loc></url>\
         <url><loc>{exact}{spaces}b</loc></url>\
         <url><loc>https://example.org/{huge}</loc><lastmod>2024</lastmod></url>\
         <url><loc>https://example.org/é{e_acute}</loc></url>\
         </urlset>",
        spaces = " ".repeat(100),
        huge = "x".repeat(1_000_000),
        e_acute = "é".repeat(10),
    );
    let listing = read_listing(body.as_bytes(), &limits).unwrap();
    assert_eq!(urls(&listing), [exact.as_str(), exact.as_str()]);
    assert_eq!(listing.too_long, 4);
    // Atom hrefs too.
    let atom = format!(
        "<feed><entry><link href='{exact}/x'/></entry><entry><link href='{exact}'/></entry></feed>"
    );
    let listing = read_listing(atom.as_bytes(), &limits).unwrap();
    assert_eq!(
        (lines(&listing), listing.too_long),
        (format!("{exact} | - | -\n"), 1)
    );
}

#[test]
fn latin1_feed_is_decoded() {
    let mut body =
        b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><item><title>".to_vec();
    body.extend_from_slice(b"\xC9t\xE9 \xE0 Qu\xE9bec");
    body.extend_from_slice(
        b"</title><link>https://example.ca/\xE9t\xE9</link></item></channel></rss>",
    );
    let listing = read_listing(&body, &Limits::default()).unwrap();
    assert_eq!(listing.entries[0].title.as_deref(), Some("Été à Québec"));
    assert_eq!(listing.entries[0].url, "https://example.ca/été");
    // Undeclared invalid bytes are replaced, not fatal.
    let body = b"<urlset><url><loc>https://example.org/\xFF</loc></url><url><loc>https://example.org/2</loc></url></urlset>";
    let listing = read_listing(body, &Limits::default()).unwrap();
    assert_eq!(
        urls(&listing),
        ["https://example.org/\u{FFFD}", "https://example.org/2"]
    );
    // UTF-16 with a byte order mark.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "<feed><entry><link href='https://example.org/ü'/></entry></feed>"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    assert_eq!(
        urls(&read_listing(&utf16, &Limits::default()).unwrap()),
        ["https://example.org/ü"]
    );
    assert_eq!(sniff(&utf16), Some(ListingKind::Atom));
}

#[test]
fn every_prefix_of_a_sitemap_is_read_without_panic() {
    let limits = Limits::default();
    let full = SITEMAP.as_bytes();
    let mut last_count = 0;
    for len in 0..=full.len() {
        let prefix = &full[..len];
        let _ = sniff(prefix);
        if let Ok(listing) = read_listing(prefix, &limits) {
            assert!(listing.entries.len() >= last_count, "prefix {len}");
            last_count = listing.entries.len();
            assert!(
                listing.problem.is_some() || len >= full.len() - 1,
                "prefix {len}"
            );
        }
        let compressed = gzip(prefix);
        let _ = read_listing(&compressed[..compressed.len() / 2], &limits);
        let _ = sniff(&compressed[..compressed.len() / 2]);
    }
    assert_eq!(last_count, 3);
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed);
    let limits = Limits {
        max_entries: 3,
        max_url_length: 16,
        ..Limits::default()
    };
    let alphabet =
        b"<>/?!&#;:=\"' \n[]-xabcdlinkurlsetlocfeedentryrssitemCDATA\x1f\x8b\xEF\xBB\xBF\xFF";
    let roots = [
        "",
        "<urlset>",
        "<feed>",
        "<rss><channel><item>",
        "<rdf:RDF><item>",
    ];
    for round in 0..3000 {
        let mut body = roots[round % roots.len()].as_bytes().to_vec();
        let len = (rng.next_u32() % 200) as usize;
        for _ in 0..len {
            let r = rng.next_u32() as usize;
            body.push(if round % 3 == 0 {
                r as u8
            } else {
                alphabet[r % alphabet.len()]
            });
        }
        let _ = sniff(&body);
        if let Ok(listing) = read_listing(&body, &limits) {
            assert!(listing.entries.len() <= 3);
            assert!(
                listing
                    .entries
                    .iter()
                    .all(|e| e.url.len() <= 16 && !e.url.is_empty())
            );
        }
    }
}
