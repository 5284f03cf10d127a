//! The rows the store hands out and takes in: a queued URL, a fetch, a page's topic facts, a
//! stored page to read back.
//!
//! **Invariants:** plain data; the URL text of a queued URL stays in the database (read back
//! when its request starts), so that a frontier of millions of URLs fits in memory.

/// A URL waiting in the frontier (loaded on resume). The URL text stays in the database.
#[derive(Debug, Clone)]
pub struct QueuedUrl {
    /// Row id.
    pub id: i64,
    /// Politeness key.
    pub host: String,
    /// Depth.
    pub depth: u32,
    /// Frontier priority.
    pub priority: f64,
    /// How it was found.
    pub via: Via,
}

/// How a URL was found (column `via`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A seed (any source).
    Seed,
    /// A link of a fetched page.
    Link,
    /// The target of a redirect (its parent is the URL that redirected).
    Redirect,
    /// A sitemap named by its server's robots.txt (or `/sitemap.xml` asked for when robots.txt
    /// names none); no parent.
    Robots,
    /// An entry of a sitemap or sitemap index (its parent is the sitemap).
    Sitemap,
    /// An entry of a feed (its parent is the feed).
    Feed,
    /// A link written in a page's JavaScript (its parent is the page).
    Javascript,
}

impl Via {
    /// The name stored in `crawl.sqlite`.
    pub fn name(self) -> &'static str {
        match self {
            Via::Seed => "seed",
            Via::Link => "link",
            Via::Redirect => "redirect",
            Via::Robots => "robots",
            Via::Sitemap => "sitemap",
            Via::Feed => "feed",
            Via::Javascript => "javascript",
        }
    }

    /// The value with this stored name.
    pub fn parse(name: &str) -> Option<Via> {
        [
            Via::Seed,
            Via::Link,
            Via::Redirect,
            Via::Robots,
            Via::Sitemap,
            Via::Feed,
            Via::Javascript,
        ]
        .into_iter()
        .find(|v| v.name() == name)
    }
}

impl rusqlite::ToSql for Via {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::from(self.name()))
    }
}

impl rusqlite::types::FromSql for Via {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Via> {
        Via::parse(value.as_str()?).ok_or_else(|| super::unknown("`via` value", value))
    }
}

impl QueuedUrl {
    /// A row of `SELECT id, host, depth, priority, via FROM urls …`.
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<QueuedUrl> {
        Ok(QueuedUrl {
            id: r.get(0)?,
            host: r.get(1)?,
            depth: r.get::<_, i64>(2)? as u32,
            priority: r.get(3)?,
            via: r.get(4)?,
        })
    }
}

/// What a fetch taught us about a URL.
#[derive(Debug, Clone, Default)]
pub struct FetchRow {
    /// HTTP status (0 when no response).
    pub status: u16,
    /// `Content-Type` header.
    pub content_type: Option<String>,
    /// Body length as stored.
    pub length: u64,
    /// `Last-Modified` header, raw.
    pub last_modified: Option<String>,
    /// `ETag` header.
    pub etag: Option<String>,
    /// `Server` header.
    pub server: Option<String>,
    /// `Location` header of a redirect.
    pub location: Option<String>,
    /// Seconds since 1970 at the end of the fetch.
    pub fetched_at: f64,
    /// Response time in milliseconds.
    pub elapsed_ms: u64,
    /// WARC file name (relative to `warc/`), offset and length of the response record.
    pub warc: Option<(String, u64, u64)>,
}

/// Topic facts of a fetched page, as the crawl or the extract stage computed them.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// Topic score.
    pub score: f64,
    /// Formula satisfied.
    pub verdict: bool,
    /// Matched clauses.
    pub matched: Vec<String>,
    /// Detected language.
    pub language: Option<String>,
    /// Title.
    pub title: Option<String>,
}

/// A fetched page to (re)extract.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StoredPage {
    /// Row id.
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// Depth.
    pub depth: u32,
    /// Whether the page was a seed.
    pub seed: bool,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
    /// Fetch time.
    pub fetched_at: f64,
    /// WARC file, offset, length.
    pub warc: (String, u64, u64),
    /// The sources of the seed its crawl path starts from (filled by the extract stage).
    #[serde(default)]
    pub seed_source: Option<String>,
}
