//! The crawl's reading of a page, on an analysis thread: decode, skim, formula, topic score,
//! scored links, and the seed pages' term counts.
//!
//! **In:** a response, the topic and the shared focus state. **Out:** an [`Analysis`] (topic
//! facts, links with their scores, the seen-set keys of their targets).
//!
//! **Invariants:** pure CPU work with no access to the store or the frontier (it runs off the
//! loop); the page is judged by all its visible text (the skim), not by the clean text the
//! extract stage keeps.

use stages::focus::formula::PreparedText;
use stages::focus::score::{self, PageEvidence};
use stages::page::extract::LinkKind;

use super::FocusShared;
use super::Target;
use super::focus;
use crate::store::PageFacts;
use crate::topic::Topic;
use crate::warc::Response;

/// What the crawl learns from a page (computed on the blocking pool).
#[derive(Debug, Default)]
pub struct Analysis {
    /// Topic facts.
    pub facts: PageFacts,
    /// Out-links, one per distinct URL (first occurrence's kind and anchor text, best anchor
    /// score, URL score, occurrences).
    pub links: Vec<focus::ScoredLink>,
    /// The page's term counts, while the seed centroid is not learned yet (seeds teach it).
    pub terms: Option<stages::focus::centroid::TermCounts>,
    /// `<meta name=robots>` nofollow.
    pub nofollow: bool,
    /// The links' targets, in the order of `links` (None: not an http(s) URL); filled by
    /// [`super::CrawlContext::resolve_links`].
    pub targets: Vec<Option<Target>>,
    /// Links past `[crawl] max_links_per_page`, not followed.
    pub links_cut: usize,
    /// A revisited page's body and clean-text digests (the change test's).
    pub digests: Option<crate::store::Digests>,
    /// Tokens of the text the formula judged (title and all visible text).
    pub judged_tokens: u64,
    /// A sitemap or feed (its entries are `links`), or XML that is not a page.
    pub listing: Option<super::listing::ListingRead>,
}

impl Analysis {
    /// About the bytes this analysis holds in memory (a page's out-links dominate).
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let links: usize = self
            .links
            .iter()
            .map(|(raw, _, anchor, ..)| raw.capacity() + anchor.capacity())
            .sum();
        let targets: usize = self
            .targets
            .iter()
            .flatten()
            .map(|t| t.url.as_str().len() + t.host.capacity())
            .sum();
        // A B-tree entry: the word, its count and the node's share.
        let terms = self
            .terms
            .as_ref()
            .map_or(0, |t| t.keys().map(|w| w.capacity() + 32).sum());
        let facts = self
            .facts
            .matched
            .iter()
            .map(String::capacity)
            .sum::<usize>()
            + self.facts.title.as_ref().map_or(0, String::capacity);
        size_of::<Analysis>()
            + self.links.capacity() * size_of::<focus::ScoredLink>()
            + self.targets.capacity() * size_of::<Option<Target>>()
            + links
            + targets
            + terms
            + facts
    }
}

/// Decodes, extracts and scores a page: the crawl's view of it.
pub fn analyze(
    topic: &Topic,
    focus: &FocusShared,
    url: &url::Url,
    response: &Response,
) -> Analysis {
    if let Some((read, entries)) = super::listing::read(topic, url, response) {
        return super::listing::analysis(topic, focus, read, &entries);
    }
    let content_type = response.header("content-type");
    // The host's TLD hints the charset detector (`decode` takes the whole host).
    let decoded = stages::page::decode::decode(response.body(), content_type, url.host_str());
    let is_plain = content_type
        .map(|ct| ct.to_ascii_lowercase().starts_with("text/plain"))
        .unwrap_or(false);
    // The crawl judges a page by *all* its visible text, boilerplate included: a table of
    // contents about the topic is exactly where a focused crawl should go on from, even though
    // the extract stage will not keep it as a document (that decision uses the clean text). So
    // it skims the page (no tree, no block classification: see stages/src/skim.rs), and the
    // extract stage reads the stored page again with the full extractor.
    let skimmed = if is_plain {
        stages::page::skim::skim_plain(&decoded.text)
    } else {
        stages::page::skim::skim_html_opts(
            &decoded.text,
            url,
            &stages::page::skim::SkimOptions {
                max_links: topic.file.crawl.max_links_per_page,
                max_attributes: topic.file.crawl.max_attributes_per_element,
                javascript_links: topic.file.discovery.javascript,
            },
        )
    };
    let mut text = skimmed.title.clone().unwrap_or_default();
    text.push_str("\n\n");
    text.push_str(&skimmed.text);
    let prepared = PreparedText::new(&text, topic.formula.options());
    let verdict = topic.formula.evaluate_prepared(&prepared);
    let language = skimmed.language.clone();
    let languages = &topic.file.languages;
    let language_ok = languages.is_empty()
        || language
            .as_ref()
            .is_some_and(|l| languages.contains(&l.code));
    // The formula's tokens serve the centroid too (one tokenisation of the page).
    let centroid = focus.centroid.get();
    let tokens = prepared.token_count();
    let similarity = centroid.map(|c| focus.similarity(c, &prepared, &text));
    let score = score::topic_score(
        &PageEvidence {
            verdict: &verdict,
            tokens,
            language_ok,
            language_confidence: language.as_ref().map_or(0.0, |l| l.confidence),
        },
        similarity,
        &focus.weights,
    );
    let links = if topic.file.discovery.feeds {
        focus.score_links(&topic.formula, &skimmed.links)
    } else {
        // Feeds off: their announcements are not followed either.
        let pages: Vec<_> = skimmed
            .links
            .iter()
            .filter(|l| l.kind != LinkKind::Feed)
            .cloned()
            .collect();
        focus.score_links(&topic.formula, &pages)
    };
    // Seed pages teach the centroid their term counts (it is not learned yet).
    let terms = centroid.is_none().then(|| {
        if prepared.options() == focus.counter.options() {
            focus.counter.count_prepared(&prepared)
        } else {
            focus.counter.count(&text)
        }
    });
    Analysis {
        links_cut: skimmed.links_cut,
        facts: PageFacts {
            score,
            verdict: verdict.satisfied,
            matched: verdict.matched,
            language: language.map(|l| l.code),
            title: skimmed.title,
        },
        links,
        nofollow: skimmed.meta_robots.nofollow,
        terms,
        targets: Vec::new(),
        digests: None,
        judged_tokens: tokens as u64,
        listing: None,
    }
}

/// Whether a link's URL names a language the topic does not want (never when the topic names
/// no language).
pub(super) fn other_language(target: &url::Url, languages: &[String]) -> bool {
    !languages.is_empty()
        && stages::page::lang::url_language(target)
            .is_some_and(|code| !languages.iter().any(|l| l == code))
}

pub(super) fn link_kind_name(kind: LinkKind) -> &'static str {
    kind.name()
}
