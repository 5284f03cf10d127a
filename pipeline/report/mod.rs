//! `report.json` and the summary table printed at the end of a run.
//!
//! **In:** what each stage did, and the decision log of `crawl.sqlite`.
//! **Out:** `report.json` (machine-readable, stable keys) and a plain-text summary: counts per
//! stage and per drop reason, and, when the corpus is empty, the reason in one sentence.
//!
//! **Invariant:** "why is my corpus empty?" is never a mystery: every URL the run saw is counted
//! under exactly one (state, reason) pair, and those counts add up to the URLs in the database.

use std::fmt::Write as _;

use serde::Serialize;

use crate::annotate::AnnotateReport;
use crate::crawl::CrawlOutcome;
use crate::export::ExportReport;
use crate::extract::{ExtractReport, Harvest};
use crate::ground::outcome::{Reason, State};
use crate::parse::ParseReport;
use crate::seeds::SeedsReport;

pub mod html;

/// The whole report.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// glaneur version.
    pub glaneur: String,
    /// Topic name.
    pub topic: String,
    /// Where the topic came from.
    pub topic_origin: String,
    /// Run folder.
    pub run_dir: String,
    /// First stage run this time (`seeds`, `crawl`, `extract`, `annotate`, `export`, `parse`).
    pub from_stage: String,
    /// Responses came from a recording.
    pub replay: Option<String>,
    /// Start of this invocation (ISO 8601).
    pub started: String,
    /// Seconds this invocation took.
    pub seconds: f64,
    /// Seeds stage.
    pub seeds: Option<SeedsReport>,
    /// The seed review (`seeds-review.tsv`) applied before the crawl, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<crate::seeds::review::ReviewReport>,
    /// Crawl stage.
    pub crawl: Option<CrawlOutcome>,
    /// Extract stage.
    pub extract: Option<ExtractReport>,
    /// Annotate stage (the tagging), when the topic has `[annotate]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotate: Option<AnnotateReport>,
    /// Export stage.
    pub export: Option<ExportReport>,
    /// Parse stage (Syntex, Upery), when the topic has `[parse]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse: Option<ParseReport>,
    /// Every URL of the run by final state and reason.
    pub urls: Vec<ReasonCount>,
    /// Every URL of the run by the way it was found (`via`).
    pub discovery: Vec<ViaCount>,
    /// The harvest rate ([`crate::ground::outcome::harvest_rate`]): pages the topic formula accepts ÷ HTML/text pages
    /// fetched, read on the clean text.
    pub harvest_rate: Option<f64>,
    /// Documents kept ÷ HTML/text pages fetched (the corpus's share of the pages).
    pub kept_rate: Option<f64>,
    /// How the crawl's harvest evolved, and what each server yielded.
    pub harvest: Option<Harvest>,
    /// When the corpus is empty: why, in one sentence.
    pub empty_corpus: Option<String>,
}

/// URLs found one way (`via`: `seed`, `link`, `redirect`, `robots`, `sitemap`, `feed`,
/// `javascript`).
#[derive(Debug, Clone, Serialize)]
pub struct ViaCount {
    /// How they were found.
    pub via: String,
    /// URLs.
    pub urls: u64,
    /// Of them, HTML or text pages fetched with a 200.
    pub pages: u64,
    /// Of them, documents kept.
    pub kept: u64,
}

/// URLs in one (state, reason).
#[derive(Debug, Clone, Serialize)]
pub struct ReasonCount {
    /// `queued`, `fetched`, `skipped`, `failed`.
    pub state: String,
    /// Final reason (empty for a URL queued and not yet reached).
    pub reason: String,
    /// What the reason means, from the same table as the name (`ground/outcome.rs`).
    pub explanation: String,
    /// Number of URLs.
    pub count: u64,
}

impl ReasonCount {
    /// The row of one (state, reason) pair.
    pub fn new(state: State, reason: Option<Reason>, count: u64) -> ReasonCount {
        ReasonCount {
            state: state.name().to_string(),
            reason: reason.map(|r| r.to_string()).unwrap_or_default(),
            explanation: match reason {
                Some(reason) => reason.explain().into_owned(),
                None => "queued: not reached yet".to_string(),
            },
            count,
        }
    }
}

impl Report {
    /// The explanation of an empty corpus, from the counts.
    pub fn explain_empty(&self) -> String {
        let Some(seeds) = &self.seeds else {
            return "no seeds were gathered".into();
        };
        let nothing_fetched = self.urls.iter().all(|r| r.state != State::Fetched.name());
        if let Some(review) = &self.review
            && nothing_fetched
            && review.kept == 0
            && review.dropped > 0
        {
            return format!(
                "the seed review dropped all {} seeds in scope: set `keep` to yes for some in {}",
                review.dropped, review.file
            );
        }
        if seeds.in_scope == 0 && nothing_fetched {
            if seeds.off_domain > 0 {
                return format!(
                    "all {} seeds are outside [domains] allow/deny",
                    seeds.off_domain
                );
            }
            return "no usable seed URL: check [seeds] (and the problems listed under seeds)"
                .into();
        }
        let fetched_pages = self
            .urls
            .iter()
            .filter(|r| r.state == State::Fetched.name())
            .map(|r| r.count)
            .sum::<u64>();
        if fetched_pages == 0 {
            let top = self
                .urls
                .iter()
                .filter(|r| r.state != "queued")
                .max_by_key(|r| r.count);
            return match top {
                Some(r) => format!(
                    "no page could be fetched; most URLs ended as `{}` ({})",
                    r.reason, r.count
                ),
                None => "no page was fetched (the crawl did not start)".into(),
            };
        }
        match &self.extract {
            Some(extract) if extract.pages == 0 => {
                "pages were fetched but none was HTML or plain text with status 200".into()
            }
            Some(extract) => {
                let mut reasons: Vec<_> = extract.dropped.iter().collect();
                reasons.sort_by(|a, b| b.1.cmp(a.1));
                let list = reasons
                    .iter()
                    .map(|(r, n)| format!("{r}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "{} pages were fetched and none was kept ({list}); see `reason` in crawl.sqlite",
                    extract.pages
                )
            }
            None => "the extract stage did not run".into(),
        }
    }

    /// The summary table.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "glaneur: topic `{}` → {}", self.topic, self.run_dir);
        let _ = writeln!(out);
        let _ = writeln!(out, "  {:<8} {:>8}  what", "stage", "count");
        self.summary_seeds_crawl(&mut out);
        if let Some(extract) = &self.extract {
            self.summary_extract(extract, &mut out);
        }
        self.summary_annotate(&mut out);
        self.summary_export(&mut out);
        self.summary_parse(&mut out);
        self.summary_urls_harvest(&mut out);
        if let Some(why) = &self.empty_corpus {
            let _ = writeln!(out);
            let _ = writeln!(out, "  the corpus is empty: {why}");
        }
        out
    }

    /// The summary's seeds, search and crawl lines.
    fn summary_seeds_crawl(&self, out: &mut String) {
        if let Some(seeds) = &self.seeds {
            let sightings: u64 = seeds.by_source.values().sum();
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  seed URLs: {} in scope, {} off-domain (from {}; {} not a URL)",
                "seeds",
                seeds.in_scope + seeds.off_domain,
                seeds.in_scope,
                seeds.off_domain,
                crate::ground::progress::counted(sightings, "sighting", "sightings"),
                seeds.invalid
            );
            if seeds.queries > 0 {
                let _ = writeln!(
                    out,
                    "  {:<8} {:>8}  search requests this run ({} queries, {} result pages){}",
                    "search",
                    seeds.search_requests,
                    seeds.queries,
                    seeds.search_pages,
                    seeds
                        .search_stopped
                        .as_deref()
                        .map(|why| format!("; stopped: {why}"))
                        .unwrap_or_default()
                );
            }
        }
        if let Some(review) = &self.review {
            let mut also = Vec::new();
            if review.not_in_file > 0 {
                also.push(format!("{} not in the file", review.not_in_file));
            }
            if review.already_fetched > 0 {
                also.push(format!(
                    "{} already fetched by an earlier run, kept",
                    review.already_fetched
                ));
            }
            let also = also.iter().map(|a| format!("; {a}")).collect::<String>();
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  seeds dropped at the seed review ({} kept, seeds-review.tsv{also})",
                "review", review.dropped, review.kept
            );
            for note in &review.notes {
                let _ = writeln!(out, "  {:<8} {:>8}  {note}", "", "");
            }
        }
        if let Some(crawl) = &self.crawl {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  requests this run ({} robots.txt, {} recovered from WARC, {:.1} s){}{}",
                "crawl",
                crawl.requests,
                crawl.robots_requests,
                crawl.recovered,
                crawl.seconds,
                if crawl.budget_reached {
                    format!(
                        "; budgets reached, {} URLs left queued",
                        crawl.frontier_left
                    )
                } else {
                    String::new()
                },
                if crawl.interrupted {
                    "; interrupted"
                } else {
                    ""
                },
            );
        }
        self.summary_discovery(out);
    }

    /// The summary's line on the URLs found besides links and seeds, when there are any.
    fn summary_discovery(&self, out: &mut String) {
        let found: Vec<String> = self
            .discovery
            .iter()
            .filter(|v| matches!(v.via.as_str(), "sitemap" | "feed" | "javascript"))
            .map(|v| {
                format!(
                    "{} by {} ({} fetched, {} kept)",
                    v.urls, v.via, v.pages, v.kept
                )
            })
            .collect();
        if !found.is_empty() {
            let total: u64 = self.discovery.iter().map(|v| v.urls).sum();
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  URLs found: {}",
                "found",
                total,
                found.join(", ")
            );
        }
    }

    /// The summary's extract lines.
    fn summary_extract(&self, extract: &ExtractReport, out: &mut String) {
        let _ = writeln!(
            out,
            "  {:<8} {:>8}  pages → {} documents kept ({:.0} pages/s)",
            "extract", extract.pages, extract.kept, extract.pages_per_second
        );
        if extract.reused > 0 {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  pages unchanged since the last extraction, read from {} \
                 (the other {} decoded and cleaned again)",
                "",
                extract.reused,
                crate::extract::CACHE_FILE,
                extract.pages.saturating_sub(extract.reused)
            );
        }
        if extract.read_while_crawling > 0 {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  pages read while the crawl ran, not read again",
                "", extract.read_while_crawling
            );
        }
        if extract.pages_links_cut + extract.pages_attributes_cut > 0 {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  pages read only in part: {} with more links than [crawl] \
                 max_links_per_page, {} with an element of more attributes than \
                 max_attributes_per_element",
                "",
                extract.pages_links_cut.max(extract.pages_attributes_cut),
                extract.pages_links_cut,
                extract.pages_attributes_cut
            );
        }
        if let Some(n) = extract
            .dropped
            .get(Reason::Unreadable.name().as_ref())
            .filter(|n| **n > 0)
        {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  pages whose stored response cannot be read (damaged WARC \
                 records): `glaneur verify {}` names them, `--refetch` fetches them again",
                "WARNING", n, self.run_dir
            );
        }
        if !extract.paragraphs_removed.is_empty() {
            let list: Vec<String> = extract
                .paragraphs_removed
                .iter()
                .map(|(reason, n)| format!("{n} {reason}"))
                .collect();
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  paragraphs removed from kept documents ({}; removed-paragraphs.csv)",
                "",
                extract.paragraphs_removed.values().sum::<u64>(),
                list.join(", ")
            );
        }
    }

    /// The summary's lemma and export lines.
    fn summary_annotate(&self, out: &mut String) {
        let Some(a) = &self.annotate else { return };
        let untagged: u64 = a.untagged.values().sum();
        let _ = writeln!(
            out,
            "  {:<8} {:>8}  documents tagged by {} ({} this run, {} kept from before, {} without \
             tags; {} tokens at {} tokens/s on {} processes){}",
            "annotate",
            a.documents.saturating_sub(untagged),
            a.tagger,
            a.tagged,
            a.kept,
            untagged,
            a.tokens,
            crate::ground::progress::per_second(a.tokens_per_second),
            a.processes,
            if a.interrupted { "; interrupted" } else { "" }
        );
        for (reason, n) in &a.untagged {
            let why = a
                .languages
                .values()
                .find(|w| w.starts_with(&format!("{reason}:")))
                .map(|w| format!(": {}", &w[reason.len() + 1..].trim()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  documents without tags, `{reason}`{why} (the tags table of \
                 crawl.sqlite says which)",
                "", n
            );
        }
    }

    fn summary_parse(&self, out: &mut String) {
        let Some(parse) = &self.parse else { return };
        for (name, tool) in [("syntex", &parse.syntex), ("upery", &parse.upery)] {
            let Some(tool) = tool else { continue };
            let said = match &tool.problem {
                Some(problem) => format!("WARNING: {problem}"),
                None if tool.reused => {
                    format!("files in {} (inputs unchanged: not run again)", tool.folder)
                }
                None => format!("files in {} ({:.1} s)", tool.folder, tool.seconds),
            };
            let _ = writeln!(out, "  {:<8} {:>8}  {said}", name, tool.files);
        }
    }

    fn summary_export(&self, out: &mut String) {
        if let Some(export) = &self.export
            && let Some(lemmas) = export.lemma_vocabulary
        {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  lemmas from tagged/ ({} documents missing from the tagger output)",
                "lemmas",
                lemmas,
                export.tagged_documents_missing.unwrap_or(0)
            );
        }
        if let Some(export) = &self.export {
            let _ = writeln!(
                out,
                "  {:<8} {:>8}  documents: {} tokens, {} words × {} vocabulary, graph {} nodes / {} edges",
                "export",
                export.documents,
                export.tokens,
                export.words,
                export.vocabulary,
                export.graph_nodes,
                export.graph_edges
            );
            for why in [&export.similarity_skipped, &export.graph_compressed]
                .into_iter()
                .flatten()
            {
                let _ = writeln!(out, "  {:<8} {:>8}  {why}", "", "");
            }
        }
    }

    /// Every URL by state and reason, and the harvest.
    fn summary_urls_harvest(&self, out: &mut String) {
        let _ = writeln!(out);
        let _ = writeln!(out, "  every URL seen, by final state and reason:");
        for r in &self.urls {
            let reason = if r.reason.is_empty() { "-" } else { &r.reason };
            let _ = writeln!(
                out,
                "    {:<8} {:<22} {:>7}  {}",
                r.state, reason, r.count, r.explanation
            );
        }
        if let Some(harvest) = &self.harvest
            && harvest.pages > 0
        {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "  harvest rate: {:.1} % ({} of {} HTML/text pages fetched satisfy the topic formula)",
                harvest.rate() * 100.0,
                harvest.on_topic,
                harvest.pages
            );
            let _ = writeln!(out, "    {}", curve_line(&harvest.on_topic_per_100));
            let _ = writeln!(
                out,
                "  kept in the corpus: {} documents ({:.1} % of those pages; the others by reason above)",
                harvest.kept,
                harvest.kept_rate() * 100.0
            );
            let _ = writeln!(
                out,
                "  yield per host (clean text bytes / downloaded bytes):"
            );
            for host in harvest.hosts.iter().take(8) {
                let _ = writeln!(
                    out,
                    "    {:<28} {:>5} pages {:>5} kept  {:>6.2} %",
                    host.host,
                    host.pages,
                    host.kept,
                    host.yield_rate * 100.0
                );
            }
        }
    }
}

/// Most points of the harvest curve printed one by one; a longer curve is summarised by
/// tenths of the crawl (the full curve stays in `report.json`).
const CURVE_POINTS: usize = 12;

/// The summary's harvest-curve line.
fn curve_line(per_100: &[f64]) -> String {
    let percent = |r: f64| format!("{:.0} %", r * 100.0);
    if per_100.len() <= CURVE_POINTS {
        let curve: Vec<String> = per_100.iter().map(|&r| percent(r)).collect();
        return format!("per 100 pages in fetch order: {}", curve.join(", "));
    }
    let n = per_100.len();
    let tenths: Vec<String> = (0..10)
        .map(|t| {
            let part = &per_100[t * n / 10..(t + 1) * n / 10];
            percent(part.iter().sum::<f64>() / part.len().max(1) as f64)
        })
        .collect();
    format!(
        "per tenth of the pages in fetch order: {} (per 100 pages: report.json)",
        tenths.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_corpus_names_the_dominant_reason() {
        let mut extract = ExtractReport {
            pages: 10,
            ..ExtractReport::default()
        };
        extract.dropped.insert(Reason::OffTopic.to_string(), 8);
        extract.dropped.insert(Reason::Language.to_string(), 2);
        let report = Report {
            seeds: Some(SeedsReport {
                in_scope: 1,
                ..SeedsReport::default()
            }),
            urls: vec![ReasonCount::new(State::Fetched, Some(Reason::OffTopic), 8)],
            extract: Some(extract),
            ..Report::default()
        };
        let why = report.explain_empty();
        assert!(
            why.starts_with("10 pages were fetched and none was kept (off-topic: 8, language: 2)"),
            "{why}"
        );
    }

    #[test]
    fn empty_corpus_without_seeds_in_scope() {
        let report = Report {
            seeds: Some(SeedsReport {
                off_domain: 3,
                ..SeedsReport::default()
            }),
            ..Report::default()
        };
        assert!(report.explain_empty().contains("outside [domains]"));
    }

    #[test]
    fn a_long_harvest_curve_is_summarised_by_tenths() {
        assert_eq!(
            curve_line(&[0.68, 0.82]),
            "per 100 pages in fetch order: 68 %, 82 %"
        );
        // 2,387 blocks of 100 pages: ten numbers, whatever the crawl's size.
        let curve: Vec<f64> = (0..2387)
            .map(|i| if i < 1194 { 1.0 } else { 0.5 })
            .collect();
        let line = curve_line(&curve);
        assert_eq!(
            line,
            "per tenth of the pages in fetch order: 100 %, 100 %, 100 %, 100 %, 100 %, 50 %, \
             50 %, 50 %, 50 %, 50 % (per 100 pages: report.json)"
        );
    }

    #[test]
    fn the_review_has_its_line_and_explains_an_empty_corpus() {
        let review = crate::seeds::review::ReviewReport {
            file: "run/seeds-review.tsv".into(),
            dropped: 3,
            not_in_file: 1,
            ..Default::default()
        };
        let report = Report {
            seeds: Some(SeedsReport {
                in_scope: 3,
                ..SeedsReport::default()
            }),
            review: Some(review),
            ..Report::default()
        };
        let summary = report.summary();
        assert!(
            summary.contains(
                "  review          3  seeds dropped at the seed review (0 kept, \
                 seeds-review.tsv; 1 not in the file)"
            ),
            "{summary}"
        );
        assert_eq!(
            report.explain_empty(),
            "the seed review dropped all 3 seeds in scope: set `keep` to yes for some in \
             run/seeds-review.tsv"
        );
    }
}
