//! Sitemaps and feeds as sources of URLs: the sitemaps a server's robots.txt names (or its
//! `/sitemap.xml`), the sitemaps an index lists, and the entries of sitemaps and feeds, offered
//! to the frontier like a page's links.
//!
//! **In:** a server's robots.txt once read; a response the analysis recognised as a sitemap,
//! a sitemap index or a feed (by its first bytes, whatever its URL: a feed given as a seed or
//! announced by `<link rel="alternate">` is read the same way). **Out:** URLs in
//! `crawl.sqlite` with `via` = `robots` (a sitemap named by robots.txt), `sitemap` (an entry
//! of a sitemap or index; its parent is that file) or `feed`; the listing itself settled as
//! `sitemap`, `feed` or `bad-listing` with what was read in its detail — never a document.
//!
//! **Invariants:**
//! - every entry gets a row with a state and a reason, like a link: off `[domains]` →
//!   `off-domain`; a sitemap's entry on another server, or outside the sitemap's directory
//!   when the sitemap was not named by robots.txt → `sitemap-off-site` (the sitemap protocol's
//!   rule; a robots.txt vouches for its whole server), never fetched;
//! - at most `[discovery] max_sitemaps_per_host` sitemap files are queued per server in a run,
//!   the others are `sitemap-limit`; a file holds at most 50,000 entries and 50 MB once
//!   uncompressed (the protocol's limits, `stages::web::listing`), the rest counted in the detail;
//! - a listing is not a page: it does not count as on- or off-topic for its server and does
//!   not lengthen a tunnel; a sitemap robots.txt names sits at the depth of the URL that had
//!   robots.txt read, an index's sitemaps at the index's, and entries one link below their
//!   listing (a breadth-first crawl reads a server's list as it would that page's links);
//! - a sitemap robots.txt names is ranked at half the priority of its server's best queued URL
//!   (an index's sitemaps at the index's): read after that page, so that the crawl learns
//!   first whether the server is on topic (its yield then ranks the sitemap with the rest of
//!   the server), never ahead of a better server's pages;
//! - entries are ranked like links from a page with a score of 0 — the URL's words and a
//!   feed entry's title are their only evidence — so they come after the links of on-topic
//!   pages.

use stages::focus::score::{self, LinkSignals};
use stages::page::extract::{Link, LinkKind};
use stages::web::listing::{self, Limits, ListingKind};
use stages::web::urlnorm;

use super::{Analysis, Crawler, FocusShared, Job, Target, other_language};
use crate::ground::outcome::Reason;
use crate::ground::progress::Fetched;
use crate::store::Via;
use crate::topic::Topic;
use crate::warc::Response;

/// The key of a server's count of sitemap files among its trap counters (stored, so that a
/// resumed crawl keeps to the budget; no path is without its leading `/`).
pub(super) const SITEMAP_COUNTER: &str = "sitemap files";

/// A sitemap robots.txt names is ranked at this share of its server's best queued URL.
const SITEMAP_SHARE: f64 = 0.5;

/// What the analysis found in a response that is not an HTML or text page.
#[derive(Debug)]
pub enum ListingRead {
    /// A sitemap, an index or a feed, read; its entries are the analysis's links.
    Read {
        kind: ListingKind,
        /// Entries past the protocol's 50,000 (counted, not queued).
        over_limit: usize,
        /// Entries whose URL is longer than `[traps] max_url_length`.
        too_long: usize,
        /// Entries that do not resolve to an http(s) URL.
        unresolvable: usize,
        /// A malformed tail (the entries before it are kept).
        problem: Option<String>,
    },
    /// A sitemap or feed that could not be read at all.
    Bad(String),
    /// Not read: XML that is no sitemap or feed, or a listing whose `[discovery]` switch is
    /// off (recorded as `content-type`, what it was before glaneur read listings).
    NotRead(String),
}

/// Reads a response as a sitemap or a feed when it is one (on the analysis thread): `None`
/// for an HTML or text page, which the page analysis reads.
pub fn read(
    topic: &Topic,
    url: &url::Url,
    response: &Response,
) -> Option<(ListingRead, Vec<Link>)> {
    let essence = response
        .header("content-type")
        .and_then(|ct| ct.split(';').next())
        .map(|e| e.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if matches!(essence.as_str(), "text/html" | "application/xhtml+xml") {
        return None;
    }
    let body = response.body();
    let Some(kind) = listing::sniff(body) else {
        return crate::fetch::is_listing_type(&essence).then(|| {
            let read = ListingRead::NotRead(format!(
                "{essence} is not harvested (HTML and plain text only), nor a sitemap or feed"
            ));
            (read, Vec::new())
        });
    };
    let discovery = &topic.file.discovery;
    let (on, switch) = match kind {
        ListingKind::UrlSet | ListingKind::SitemapIndex => (discovery.sitemaps, "sitemaps"),
        ListingKind::Rss | ListingKind::Atom => (discovery.feeds, "feeds"),
    };
    if !on {
        let read = ListingRead::NotRead(format!(
            "a {} not read ([discovery] {switch} = false)",
            kind.name()
        ));
        return Some((read, Vec::new()));
    }
    let limits = Limits {
        max_url_length: topic.file.traps.max_url_length,
        ..Limits::default()
    };
    let listed = match listing::read_listing(body, &limits) {
        Ok(listed) => listed,
        Err(e) => return Some((ListingRead::Bad(e.to_string()), Vec::new())),
    };
    // Atom's xml:base, itself relative to the feed's URL, is what entries resolve against.
    let base = listed
        .base
        .as_deref()
        .and_then(|b| url.join(b).ok())
        .unwrap_or_else(|| url.clone());
    let mut unresolvable = 0;
    let links: Vec<Link> = listed
        .entries
        .into_iter()
        .filter_map(|entry| match base.join(&entry.url) {
            Ok(target) if matches!(target.scheme(), "http" | "https") => Some(Link {
                url: target.into(),
                anchor: entry.title.unwrap_or_default(),
                context: String::new(),
                kind: LinkKind::Anchor,
                nofollow: false,
            }),
            _ => {
                unresolvable += 1;
                None
            }
        })
        .collect();
    let read = ListingRead::Read {
        kind,
        over_limit: listed.over_limit,
        too_long: listed.too_long,
        unresolvable,
        problem: listed.problem.map(|p| p.to_string()),
    };
    Some((read, links))
}

/// The analysis of a listing: its entries scored as links (the URL's words, a feed entry's
/// title as its anchor), no topic facts.
pub fn analysis(
    topic: &Topic,
    focus: &FocusShared,
    read: ListingRead,
    entries: &[Link],
) -> Analysis {
    Analysis {
        links: focus.score_links(&topic.formula, entries),
        listing: Some(read),
        ..Analysis::default()
    }
}

impl Crawler<'_> {
    /// A server's robots.txt was read: the sitemaps it names are queued, or its
    /// `/sitemap.xml` when it names none and allows that path.
    pub(super) fn robots_sitemaps(
        &mut self,
        host_key: &str,
        mut named: Vec<String>,
        sitemap_xml_allowed: bool,
    ) -> anyhow::Result<()> {
        let discovery = &self.ctx.topic.file.discovery;
        if !discovery.sitemaps || self.ctx.pass.monitor {
            return Ok(());
        }
        let Ok(base) = url::Url::parse(&format!("{host_key}/")) else {
            return Ok(());
        };
        if named.is_empty() && discovery.guess_sitemap && sitemap_xml_allowed {
            named.push(format!("{host_key}/sitemap.xml"));
        }
        // The server's best queued URL had its robots.txt read: the sitemaps rank and sit
        // with it.
        let top = self.hosts.get(host_key).and_then(|h| h.queue.peek());
        let (best, depth) = match top {
            Some(top) => self.store.priority_depth(top.id)?.unwrap_or((0.0, 0)),
            None => (0.0, 0),
        };
        for raw in named {
            self.offer_sitemap(None, &raw, &base, (SITEMAP_SHARE * best, depth))?;
        }
        Ok(())
    }

    /// A response read as a listing: its reason, then its entries offered to the frontier.
    pub(super) fn take_listing(
        &mut self,
        entry: &Job,
        url: &url::Url,
        mut analysis: Analysis,
    ) -> anyhow::Result<()> {
        let Some(read) = analysis.listing.take() else {
            return Ok(());
        };
        let queued = analysis.links.len();
        let (reason, detail) = listing_reason(&read, queued);
        self.store.set_reason(entry.id, reason, &detail)?;
        self.progress.fetched(Fetched::Other);
        self.seed_settled(entry.id, None)?;
        let ListingRead::Read { kind, .. } = read else {
            return Ok(());
        };
        if self.ctx.pass.monitor {
            return Ok(());
        }
        if analysis.targets.len() != analysis.links.len() {
            self.ctx.resolve_links(&mut analysis, url);
        }
        let links = std::mem::take(&mut analysis.links);
        let targets = std::mem::take(&mut analysis.targets);
        for ((raw, _, _, anchor_score, url_score, _), target) in links.iter().zip(targets) {
            match kind {
                ListingKind::SitemapIndex => {
                    self.offer_sitemap(Some(entry), raw, url, (entry.priority, entry.depth))?;
                }
                ListingKind::UrlSet | ListingKind::Rss | ListingKind::Atom => {
                    let Some(target) = target else { continue };
                    self.offer_entry(entry, url, kind, target, (*anchor_score, *url_score))?;
                }
            }
        }
        Ok(())
    }

    /// A sitemap file named by robots.txt (`index` None) or listed by a sitemap index, queued
    /// with a priority and at a depth within the server's budget of sitemap files.
    fn offer_sitemap(
        &mut self,
        index: Option<&Job>,
        raw: &str,
        base: &url::Url,
        (priority, depth): (f64, u32),
    ) -> anyhow::Result<()> {
        let Some((target, _)) = self.ctx.canonical(raw, base) else {
            return Ok(());
        };
        let host = urlnorm::host_key(&target);
        let hops = index.map_or(0, |i| i.hops);
        let via = if index.is_some() {
            Via::Sitemap
        } else {
            Via::Robots
        };
        let (id, new) = self.store.insert_url(
            target.as_str(),
            &host,
            depth,
            index.map(|i| i.id),
            via,
            priority,
            crate::ground::clock::now_epoch(),
        )?;
        if !new {
            return Ok(());
        }
        if index.is_some() && !same_site(base, &target, true) {
            return self.store.skip(id, Reason::SitemapOffSite, &off_site(base));
        }
        if let Err(why) = self.ctx.scope.check(target.host_str().unwrap_or("")) {
            return self.store.skip(id, Reason::OffDomain, scope_detail(why));
        }
        let max = self.ctx.topic.file.discovery.max_sitemaps_per_host;
        if self.host_mut(&host).sitemap_files >= max {
            return self.store.skip(
                id,
                Reason::SitemapLimit,
                &format!("{max} sitemap files queued for this server already"),
            );
        }
        if !self.admit_listed(id, &host, &target, true)? {
            return Ok(());
        }
        self.host_mut(&host).sitemap_files += 1;
        self.store.count_trap(&host, SITEMAP_COUNTER)?;
        self.queue_url(&host, id, depth, priority, hops);
        Ok(())
    }

    /// An entry of a sitemap or a feed, queued one link below the listing when it passes the
    /// rules a link passes (and, for a sitemap, the protocol's own).
    fn offer_entry(
        &mut self,
        listing: &Job,
        listing_url: &url::Url,
        kind: ListingKind,
        target: Target,
        (anchor, url_score): (f64, f64),
    ) -> anyhow::Result<()> {
        let depth = listing.depth + 1;
        let priority = score::link_priority_weighted(
            &LinkSignals {
                parent_score: 0.0,
                anchor,
                url: url_score,
                depth,
                other_language: other_language(&target.url, &self.ctx.topic.file.languages),
            },
            &self.ctx.focus.weights,
        );
        let via = if kind == ListingKind::UrlSet {
            Via::Sitemap
        } else {
            Via::Feed
        };
        let (id, new) = self.store.insert_url(
            target.url.as_str(),
            &target.host,
            depth,
            Some(listing.id),
            via,
            priority,
            crate::ground::clock::now_epoch(),
        )?;
        let raised = self.prio.link(listing.id, id, priority);
        if raised {
            self.store.raise_priority(id, priority)?;
        }
        if !new {
            return Ok(());
        }
        if let Some(violation) = target.violation {
            return self.store.skip(id, Reason::UrlRule, &violation.to_string());
        }
        // A robots.txt vouches for its whole server: a sitemap it named (or one of its index)
        // may list any page of that server; any other sitemap only its own directory.
        let vouched = self.store.via_robots(listing.id)?;
        if kind == ListingKind::UrlSet && !same_site(listing_url, &target.url, vouched) {
            return self
                .store
                .skip(id, Reason::SitemapOffSite, &off_site(listing_url));
        }
        if let Err(why) = self.ctx.scope.check(target.url.host_str().unwrap_or("")) {
            return self.store.skip(id, Reason::OffDomain, scope_detail(why));
        }
        if !self.admit_listed(id, &target.host, &target.url, false)? {
            return Ok(());
        }
        if listing.hops > 0 {
            self.store.set_hops(id, listing.hops)?;
        }
        self.queue_url(&target.host, id, depth, priority, listing.hops);
        Ok(())
    }
}

/// The listing's reason and detail: what it was and what was read.
fn listing_reason(read: &ListingRead, queued: usize) -> (Reason, String) {
    match read {
        ListingRead::Read {
            kind,
            over_limit,
            too_long,
            unresolvable,
            problem,
        } => {
            let reason = match kind {
                ListingKind::UrlSet | ListingKind::SitemapIndex => Reason::Sitemap,
                ListingKind::Rss | ListingKind::Atom => Reason::Feed,
            };
            let mut detail = format!("{}: {queued} URLs read", kind.name());
            for (n, what) in [
                (*over_limit, "past the protocol's 50,000 (not read)"),
                (*too_long, "longer than [traps] max_url_length"),
                (*unresolvable, "not http(s) URLs"),
            ] {
                if n > 0 {
                    detail.push_str(&format!("; {n} {what}"));
                }
            }
            if let Some(problem) = problem {
                detail.push_str(&format!("; then {problem}"));
            }
            (reason, detail)
        }
        ListingRead::Bad(why) => (Reason::BadListing, why.clone()),
        ListingRead::NotRead(why) => (Reason::ContentType, why.clone()),
    }
}

/// Whether a sitemap at `sitemap` may list `target`: the same server, and (unless `vouched`
/// by robots.txt) a path under the sitemap's directory.
fn same_site(sitemap: &url::Url, target: &url::Url, vouched: bool) -> bool {
    if urlnorm::host_key(sitemap) != urlnorm::host_key(target) {
        return false;
    }
    if vouched {
        return true;
    }
    let path = sitemap.path();
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    target.path().starts_with(dir)
}

fn off_site(sitemap: &url::Url) -> String {
    format!("listed by {sitemap}, which may only list its own server's pages under its directory")
}

/// The detail of an `off-domain` URL.
pub(super) fn scope_detail(why: score::OutOfScope) -> &'static str {
    match why {
        score::OutOfScope::NotAllowed => "host outside [domains] allow",
        score::OutOfScope::Denied => "host in [domains] deny",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> url::Url {
        url::Url::parse(s).unwrap()
    }

    #[test]
    fn a_sitemap_lists_its_own_directory_unless_robots_vouches() {
        let map = u("http://a.test/blog/sitemap.xml");
        assert!(same_site(&map, &u("http://a.test/blog/post-1"), false));
        assert!(!same_site(&map, &u("http://a.test/shop/item"), false));
        assert!(same_site(&map, &u("http://a.test/shop/item"), true));
        assert!(!same_site(&map, &u("http://b.test/blog/post-1"), true));
        assert!(!same_site(&map, &u("https://a.test/blog/post-1"), true));
    }

    #[test]
    fn the_detail_says_what_was_read_and_what_was_not() {
        let read = ListingRead::Read {
            kind: ListingKind::UrlSet,
            over_limit: 3,
            too_long: 0,
            unresolvable: 1,
            problem: Some("malformed XML at byte 90: unexpected end".into()),
        };
        let (reason, detail) = listing_reason(&read, 12);
        assert_eq!(reason, Reason::Sitemap);
        assert_eq!(
            detail,
            "sitemap: 12 URLs read; 3 past the protocol's 50,000 (not read); 1 not http(s) URLs; \
             then malformed XML at byte 90: unexpected end"
        );
        let (reason, _) = listing_reason(&ListingRead::Bad("gzip".into()), 0);
        assert_eq!(reason, Reason::BadListing);
    }
}
