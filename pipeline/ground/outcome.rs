//! Every URL ends in one state with one reason: the two types, and the one table that names and
//! explains each reason.
//!
//! **In:** the crawl's, the fetcher's, the guard's and the extract stage's decisions.
//! **Out:** the `state` and `reason` columns of `crawl.sqlite` (the names below, which users
//! query), and the explanations the summary and `report.json` print beside each count.
//! **Invariants:** a reason's name is written only here ([`Reason::name`]) and read back only
//! through [`Reason::parse`]; `http-NNN` is the one family of names built from a number. A test
//! checks that every name is unique, parses back to itself, and is listed in `docs/guide/crawl.md`.

use std::borrow::Cow;
use std::fmt;

use stages::export::graph::Reach;

/// Where a URL stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum State {
    /// Waiting in the frontier (its `reason` says why it was not fetched in this run, if any).
    Queued,
    /// A response was received (any status).
    Fetched,
    /// Never fetched, by a rule.
    Skipped,
    /// Fetched without a usable response.
    Failed,
}

impl State {
    /// Every state, in the order a URL may go through them.
    pub const ALL: [State; 4] = [State::Queued, State::Fetched, State::Skipped, State::Failed];

    /// The name stored in `crawl.sqlite`.
    pub fn name(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Fetched => "fetched",
            State::Skipped => "skipped",
            State::Failed => "failed",
        }
    }

    /// The state with this stored name.
    pub fn parse(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! reasons {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $explain:literal;)*) => {
        /// Why a URL is where it is.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Reason {
            $($(#[$doc])* $variant,)*
            /// An HTTP status other than 200 and the redirects (`http-404`, `http-503`…).
            Http(u16),
        }

        impl Reason {
            /// Every reason but the `http-NNN` family: (reason, name, explanation).
            pub const TABLE: &[(Reason, &'static str, &'static str)] = &[
                $((Reason::$variant, $name, $explain),)*
            ];

            /// The name and explanation of a reason of the table (none for `http-NNN`).
            fn fixed(self) -> Option<(&'static str, &'static str)> {
                match self {
                    $(Reason::$variant => Some(($name, $explain)),)*
                    Reason::Http(_) => None,
                }
            }
        }
    };
}

reasons! {
    /// In the corpus.
    Kept = "kept", "in the corpus";
    /// Fails the topic formula.
    OffTopic = "off-topic", "the clean text does not satisfy the topic formula";
    /// Not in the topic's languages.
    Language = "language", "the page (or all its paragraphs) is not in the topic's languages";
    /// No clean text.
    Empty = "empty", "no clean text left after boilerplate removal";
    /// The page asked not to be indexed.
    Noindex = "noindex", "the page asks not to be indexed (robots meta tag or X-Robots-Tag)";
    /// Same text as a kept page.
    Duplicate = "duplicate", "the same clean text as a kept page (`duplicate_of`)";
    /// Nearly the same text as a kept page.
    NearDuplicate = "near-duplicate", "nearly the same clean text as a kept page (`duplicate_of`)";
    /// Its stored response cannot be read back.
    Unreadable = "unreadable", "its stored response cannot be read back from the WARC (`detail`: file and offset)";
    /// Disallowed by robots.txt.
    Robots = "robots", "disallowed by the server's robots.txt";
    /// robots.txt could not be read.
    RobotsUnavailable = "robots-unavailable", "the server's robots.txt could not be read, so nothing of it is fetched";
    /// The server failed too often.
    ServerGaveUp = "server-gave-up", "the server failed too often: the crawl stopped asking it";
    /// Outside `[domains]`.
    OffDomain = "off-domain", "outside the topic's [domains]";
    /// A private, loopback or link-local address.
    PrivateAddress = "private-address", "the host is not on the public internet (private, loopback or link-local address)";
    /// User name or password in the URL.
    Credentials = "credentials", "the URL carries a user name or password";
    /// Deeper than `max_depth`.
    DepthLimit = "depth-limit", "more links away from a seed than [crawl] max_depth";
    /// Too many off-topic pages in a row.
    TunnelLimit = "tunnel-limit", "more off-topic pages in a row than [focus] tunnel allows";
    /// The host's page budget is spent.
    HostBudget = "host-budget", "the host already gave [crawl] max_pages_per_host pages";
    /// Too many redirects in a row.
    RedirectChain = "redirect-chain", "too many redirects in a row";
    /// Not a URL glaneur can fetch.
    InvalidUrl = "invalid-url", "not an http(s) URL that can be parsed";
    /// Refused by a URL rule of the topic.
    UrlRule = "url-rule", "breaks its script's parameter rule ([[urls.script]])";
    /// A file type that is not harvested.
    FileType = "file-type", "a file type glaneur does not harvest (by the URL's extension)";
    /// URL too long (crawler trap).
    TrapUrlLength = "trap-url-length", "crawler trap: URL longer than [traps] max_url_length";
    /// Path too deep (crawler trap).
    TrapPathDepth = "trap-path-depth", "crawler trap: more path segments than [traps] max_path_depth";
    /// Repeated path segments (crawler trap).
    TrapRepeatedSegments = "trap-repeated-segments", "crawler trap: path segments repeated in a row";
    /// Too many query strings on one path (crawler trap).
    TrapQueryVariants = "trap-query-variants", "crawler trap: too many query strings on one path";
    /// Too many calendar pages (crawler trap).
    TrapCalendar = "trap-calendar", "crawler trap: too many calendar-like URLs on the server";
    /// A sitemap read (not a document).
    Sitemap = "sitemap", "a sitemap or sitemap index: its URLs were queued (it is not a document)";
    /// A feed read (not a document).
    Feed = "feed", "a feed (RSS or Atom): its entries were queued (it is not a document)";
    /// A sitemap or feed that could not be read.
    BadListing = "bad-listing", "a sitemap or feed that could not be read (malformed XML, over 50 MB uncompressed, broken gzip)";
    /// Listed by a sitemap that may not list it.
    SitemapOffSite = "sitemap-off-site", "listed by a sitemap of another server or directory, which the sitemap protocol does not allow";
    /// Past the server's sitemap budget.
    SitemapLimit = "sitemap-limit", "the server has more sitemap files than [discovery] max_sitemaps_per_host";
    /// A 200 response waiting for the extract stage's decision.
    Fetched = "fetched", "a 200 response the extract stage has not judged yet (run --from extract)";
    /// A redirect (the target is its own URL).
    Redirect = "redirect", "a redirect: the target is followed as its own URL";
    /// Not HTML or text.
    ContentType = "content-type", "the response is not HTML or plain text";
    /// A content coding glaneur did not offer.
    ContentEncoding = "content-encoding", "the body came in a content coding glaneur did not offer (such as br)";
    /// No answer in time.
    Timeout = "timeout", "no complete answer within [crawl] timeout_seconds";
    /// Connection or DNS failure.
    NetworkError = "network-error", "the connection failed (DNS, refused, reset, TLS)";
    /// Larger than `max_page_bytes`.
    TooLarge = "too-large", "the body is larger than [crawl] max_body_bytes";
    /// A compressed body that inflates without bound.
    DecompressionBomb = "decompression-bomb", "the compressed body inflates far beyond its size";
    /// A body labelled gzip or deflate that does not decompress.
    CorruptEncoding = "corrupt-encoding", "the body is labelled gzip or deflate (Content-Encoding) but does not decompress";
    /// A fault of glaneur itself.
    InternalError = "internal-error", "glaneur failed on this URL (a bug: please report it with the detail)";
    /// The run's page budget is spent.
    PageBudget = "page-budget", "the run stopped at [crawl] max_pages before reaching it";
    /// The run was interrupted.
    Interrupted = "interrupted", "the run was interrupted before reaching it (run the same command to resume)";
    /// Waiting after a server error.
    Retry = "retry", "waiting to be tried again after a server error";
    /// Queued again by `glaneur verify --refetch`.
    Refetch = "refetch", "its stored response was damaged: queued again by glaneur verify --refetch";
    /// Replay: the recorded web holds no answer for the URL.
    NotRecorded = "not-recorded", "replay: the recorded web holds no answer for this URL (a live crawl would request it)";
    /// A seed the user set to `no` in (or left out of) the seed review.
    SeedDropped = "seed-dropped", "dropped at the seed review (seeds-review.tsv)";
}

impl Reason {
    /// The name stored in `crawl.sqlite` and shown in reports.
    pub fn name(self) -> Cow<'static, str> {
        match (self, self.fixed()) {
            (_, Some((name, _))) => Cow::Borrowed(name),
            (Reason::Http(status), None) => Cow::Owned(format!("http-{status}")),
            (_, None) => Cow::Borrowed(""),
        }
    }

    /// One line for a user.
    pub fn explain(self) -> Cow<'static, str> {
        match (self, self.fixed()) {
            (_, Some((_, explain))) => Cow::Borrowed(explain),
            (Reason::Http(404), None) => Cow::Borrowed("the server answered 404 Not Found"),
            (Reason::Http(status), None) => {
                Cow::Owned(format!("the server answered HTTP {status}"))
            }
            (_, None) => Cow::Borrowed(""),
        }
    }

    /// The reason with this stored name.
    pub fn parse(name: &str) -> Option<Reason> {
        if let Some(status) = name.strip_prefix("http-") {
            return status
                .parse()
                .ok()
                .filter(|s| (100..1000).contains(s))
                .map(Reason::Http);
        }
        Reason::TABLE
            .iter()
            .find(|row| row.1 == name)
            .map(|row| row.0)
    }

    /// A fetch failure that is worth trying again later.
    pub fn is_transient(self) -> bool {
        matches!(self, Reason::Timeout | Reason::NetworkError)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What following a link to a URL gives, from its state and reason (the graph exports' broken
/// links and the site maps): an HTTP error, no answer or a URL that cannot be fetched is a dead
/// end; robots.txt's refusal is its own case; every other decision says nothing against it.
pub fn reach(state: State, reason: Option<Reason>) -> Reach {
    match reason {
        Some(Reason::Robots) => Reach::Disallowed,
        Some(
            Reason::Http(_)
            | Reason::Timeout
            | Reason::NetworkError
            | Reason::RedirectChain
            | Reason::InvalidUrl,
        ) => Reach::Broken,
        None if state == State::Failed => Reach::Broken,
        _ => Reach::Open,
    }
}

impl From<stages::web::traps::Trap> for Reason {
    fn from(trap: stages::web::traps::Trap) -> Reason {
        use stages::web::traps::Trap;
        match trap {
            Trap::UrlLength => Reason::TrapUrlLength,
            Trap::PathDepth => Reason::TrapPathDepth,
            Trap::RepeatedSegments => Reason::TrapRepeatedSegments,
            Trap::QueryVariants => Reason::TrapQueryVariants,
            Trap::Calendar => Reason::TrapCalendar,
        }
    }
}

/// Where a stored page stands in a revisit (`glaneur run --revisit`; column `revisit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revisit {
    /// Waiting for its conditional request.
    Pending,
    /// The server answered 304: the stored copy is current.
    NotModified,
    /// The server sent the page again: the new answer replaced the stored one.
    Refetched,
    /// The revisit failed: the stored copy stays.
    Failed,
    /// The server sent the page again with the same bytes or the same clean text: the
    /// stored copy stays (`visits` says which).
    Unchanged,
}

impl Revisit {
    /// The name stored in `crawl.sqlite`.
    pub fn name(self) -> &'static str {
        match self {
            Revisit::Pending => "pending",
            Revisit::NotModified => "not-modified",
            Revisit::Refetched => "refetched",
            Revisit::Failed => "failed",
            Revisit::Unchanged => "unchanged",
        }
    }
}

/// Why a paragraph was removed from a kept document (`removed-paragraphs.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Removal {
    /// Repeated on many pages of the same host.
    HostBoilerplate,
    /// Not in the topic's languages.
    Language,
}

impl Removal {
    /// The name written in `removed-paragraphs.csv` and `report.json`.
    pub fn name(self) -> &'static str {
        match self {
            Removal::HostBoilerplate => "host-boilerplate",
            Removal::Language => "language",
        }
    }
}

/// The harvest rate, the one definition the terminal, `report.json`, `report.html` and the
/// web interface share: pages the topic formula accepts ÷ HTML/text pages fetched (a `200`
/// answer the extract stage reads), the measure of focused crawling (Chakrabarti, van den Berg
/// & Dom 1999). Zero when no page was fetched.
pub fn harvest_rate(on_topic: u64, pages: u64) -> f64 {
    share(on_topic, pages)
}

/// `part / whole`, 0 when `whole` is 0.
pub fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// For `skip_serializing_if`: a count of zero is left out of `report.json`.
pub fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_unique_and_parses_back() {
        let mut seen = std::collections::HashSet::new();
        for &(reason, name, explain) in Reason::TABLE {
            assert!(seen.insert(name), "{name} twice");
            assert_eq!(reason.name(), name);
            assert_eq!(Reason::parse(name), Some(reason));
            assert!(!explain.is_empty() && !explain.contains('\n'), "{name}");
        }
        for status in [204, 404, 410, 503] {
            let reason = Reason::Http(status);
            assert_eq!(Reason::parse(&reason.name()), Some(reason));
        }
        assert_eq!(Reason::parse("http-"), None);
        assert_eq!(Reason::parse("http-99999"), None);
        assert_eq!(Reason::parse("no-such-reason"), None);
        for state in State::ALL {
            assert_eq!(State::parse(state.name()), Some(state));
        }
    }

    #[test]
    fn every_trap_has_its_reason() {
        use stages::web::traps::Trap;
        for (trap, name) in [
            (Trap::UrlLength, "trap-url-length"),
            (Trap::PathDepth, "trap-path-depth"),
            (Trap::RepeatedSegments, "trap-repeated-segments"),
            (Trap::QueryVariants, "trap-query-variants"),
            (Trap::Calendar, "trap-calendar"),
        ] {
            assert_eq!(Reason::from(trap).name(), name);
        }
    }

    /// The guide's list of reasons is the table: a reason added here must be documented there.
    #[test]
    fn the_guide_lists_every_reason() {
        let guide = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/crawl.md"),
        )
        .expect("docs/guide/crawl.md");
        for &(_, name, _) in Reason::TABLE {
            assert!(
                guide.contains(&format!("`{name}`")),
                "docs/guide/crawl.md does not list the reason `{name}`"
            );
        }
        assert!(guide.contains("`http-NNN`"));
    }
}
