//! The digests a change test compares: the body's MD5, the clean text's MD5, and the MD5 of
//! the clean text without diacritics and case (a page that only fixes its accents or its
//! capitals is told apart from one whose words changed).
//!
//! **In:** a page's body, content type and URL, or its stored WARC record. **Out:**
//! [`Digests`].
//!
//! **Invariants:** the clean text is the one the extract stage starts from for the page alone
//! (decoded, cleaned by [`stages::page::extract`], kept blocks joined by blank lines), before
//! any cross-page step (host boilerplate, duplicates): a page's digest does not move when its
//! neighbours change. Pure CPU work, safe on the analysis threads.

use md5::{Digest, Md5};
use stages::page::extract::ExtractOptions;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::store::Digests;
use crate::topic::Topic;

/// The extraction settings of a topic (as the extract stage reads them).
pub fn options(topic: &Topic) -> ExtractOptions {
    ExtractOptions {
        keep_everything: topic.file.output.keep_everything,
        max_links: topic.file.crawl.max_links_per_page,
        max_attributes: topic.file.crawl.max_attributes_per_element,
        javascript_links: topic.file.discovery.javascript,
        ..ExtractOptions::default()
    }
}

/// MD5 in lower-case hex.
pub fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The digests of one version of a page.
pub fn digests(
    url: &url::Url,
    content_type: Option<&str>,
    body: &[u8],
    options: &ExtractOptions,
) -> Digests {
    let decoded = stages::page::decode::decode(body, content_type, url.host_str());
    let plain_text =
        content_type.is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/plain"));
    let extracted = if plain_text {
        stages::page::extract::extract_plain(&decoded.text)
    } else {
        stages::page::extract::extract_html(&decoded.text, url, options)
    };
    let text: String = extracted.clean_text().nfc().collect();
    Digests {
        body: Some(md5_hex(body)),
        text: Some(md5_hex(text.as_bytes())),
        plain: Some(md5_hex(folded(&text).as_bytes())),
    }
}

/// The text without diacritics, lower-cased.
fn folded(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The digests of a stored response record.
pub fn of_record(
    path: &std::path::Path,
    offset: u64,
    length: u64,
    url: &url::Url,
    options: &ExtractOptions,
) -> anyhow::Result<Digests> {
    let record = crate::warc::read_record_at(path, offset, length)?;
    let http = stages::web::warc::parse_http_response(&record.block)
        .map_err(|e| anyhow::anyhow!("the record at offset {offset} of {}: {e}", path.display()))?;
    Ok(digests(
        url,
        http.header("content-type"),
        &http.body,
        options,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Digests {
        let url = url::Url::parse("http://a.test/").unwrap();
        digests(
            &url,
            Some("text/html"),
            html.as_bytes(),
            &ExtractOptions::default(),
        )
    }

    #[test]
    fn markup_that_changes_leaves_the_text_digest_alone() {
        let text = "<p>Un graphe est un ensemble de sommets reliés par des arêtes, et \
                    ce paragraphe est assez long pour être gardé comme texte.</p>";
        let a = page(&format!("<html><body><!-- 10:01 -->{text}</body></html>"));
        let b = page(&format!(
            "<html><body><!-- 10:02 --><script>var t=2</script>{text}</body></html>"
        ));
        assert_ne!(a.body, b.body);
        assert_eq!(a.text, b.text);
        let c = page(&format!(
            "<html><body>{}</body></html>",
            text.replace("sommets", "nœuds")
        ));
        assert_ne!(a.text, c.text);
    }

    #[test]
    fn accents_and_case_change_the_text_not_the_folded_text() {
        let a = page(
            "<html><body><p>Les arêtes relient les sommets du graphe entre eux, \
                      comme on le voit sur la figure suivante du chapitre.</p></body></html>",
        );
        let b = page(
            "<html><body><p>Les aretes relient les Sommets du graphe entre eux, \
                      comme on le voit sur la figure suivante du chapitre.</p></body></html>",
        );
        assert_ne!(a.text, b.text);
        assert_eq!(a.plain, b.plain);
    }
}
