//! The visit history (`visits`): one row per request made for a page, first fetch and every
//! revisit, with what the change test found.
//!
//! **In:** the crawl's settled requests (first fetches, `--revisit`, `glaneur monitor`).
//! **Out:** rows never updated except to add digests computed later (a first fetch's body
//! and clean-text digests are computed when a revisit first needs them); the pages' watch
//! schedule (`watch`) for `glaneur monitor`.
//!
//! **Invariants:** a visit row is never overwritten or deleted; its `change` is one of
//! [`Change`]'s names; times are seconds since 1970 on the clock the visit was made by (the
//! wall clock, or a monitor's virtual clock).

use rusqlite::{OptionalExtension, params};

use super::Store;

/// The tables, created with the rest of the schema.
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS visits (   -- one row per request for a page, never overwritten
    id                INTEGER PRIMARY KEY,
    url_id            INTEGER NOT NULL REFERENCES urls(id),
    at                REAL NOT NULL,  -- seconds since 1970 (a monitor's virtual clock in simulations)
    status            INTEGER,        -- NULL: no answer (see detail)
    length            INTEGER,        -- body bytes
    body_md5          TEXT,           -- MD5 of the body as received
    text_md5          TEXT,           -- MD5 of the clean text (NFC)
    plain_md5         TEXT,           -- MD5 of the clean text without diacritics, lower-cased
    last_modified     REAL,           -- Last-Modified as seconds since 1970
    last_modified_raw TEXT,
    expires           REAL,           -- Expires as seconds since 1970
    expires_raw       TEXT,
    etag              TEXT,
    content_language  TEXT,
    server            TEXT,
    change            TEXT NOT NULL,  -- first | not-modified | same-bytes | same-text | changed | failed
    detail            TEXT,
    warc_file         TEXT,           -- the record of this visit (response or revisit)
    warc_offset       INTEGER,
    warc_length       INTEGER
);
CREATE INDEX IF NOT EXISTS visits_url ON visits(url_id, at);
CREATE TABLE IF NOT EXISTS watch (    -- glaneur monitor: when each page is due next
    url_id   INTEGER PRIMARY KEY REFERENCES urls(id),
    next_at  REAL NOT NULL,
    interval REAL NOT NULL           -- the interval that set next_at
);
";

/// What a visit found, compared with the visit before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The first fetch of the page.
    First,
    /// The server answered 304 Not Modified to a conditional request.
    NotModified,
    /// The body is byte for byte the one of the last visit that had a body.
    SameBytes,
    /// The bytes differ, the clean text does not (ads, dates, tokens in the markup).
    SameText,
    /// The clean text changed (or the status did).
    Changed,
    /// No answer, or an answer that says nothing of the page (server error, timeout).
    Failed,
}

impl Change {
    /// The name stored in `visits.change`.
    pub fn name(self) -> &'static str {
        match self {
            Change::First => "first",
            Change::NotModified => "not-modified",
            Change::SameBytes => "same-bytes",
            Change::SameText => "same-text",
            Change::Changed => "changed",
            Change::Failed => "failed",
        }
    }

    /// Whether the page counts as changed since the last visit (for the estimators).
    pub fn is_change(self) -> Option<bool> {
        match self {
            Change::NotModified | Change::SameBytes | Change::SameText => Some(false),
            Change::Changed => Some(true),
            Change::First | Change::Failed => None,
        }
    }

    /// Reads a stored name.
    pub fn from_name(name: &str) -> Option<Change> {
        [
            Change::First,
            Change::NotModified,
            Change::SameBytes,
            Change::SameText,
            Change::Changed,
            Change::Failed,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

/// The body and clean-text digests of one version of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digests {
    /// MD5 of the body.
    pub body: Option<String>,
    /// MD5 of the clean text.
    pub text: Option<String>,
    /// MD5 of the clean text without diacritics.
    pub plain: Option<String>,
}

/// One visit to record.
#[derive(Debug, Clone)]
pub struct VisitRow {
    /// The page.
    pub url_id: i64,
    /// When (seconds since 1970).
    pub at: f64,
    /// HTTP status (None: no answer).
    pub status: Option<u16>,
    /// Body bytes.
    pub length: Option<u64>,
    /// Digests of what came back.
    pub digests: Digests,
    /// `Last-Modified`, raw and as seconds since 1970.
    pub last_modified: Option<String>,
    /// `Expires`, raw.
    pub expires: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// `Content-Language`.
    pub content_language: Option<String>,
    /// `Server`.
    pub server: Option<String>,
    /// What the change test found.
    pub change: Change,
    /// Why, when it is not obvious.
    pub detail: Option<String>,
    /// The WARC record of this visit (file, offset, length).
    pub warc: Option<(String, u64, u64)>,
}

/// The version a revisit is compared with: the last visit that brought a body.
#[derive(Debug, Clone)]
pub struct LastVersion {
    /// Its visit row.
    pub visit_id: i64,
    /// When it was fetched.
    pub at: f64,
    /// Its digests (None where not computed yet).
    pub digests: Digests,
    /// Its WARC record (the full response).
    pub warc: Option<(String, u64, u64)>,
    /// Its HTTP status.
    pub status: Option<u16>,
}

/// One visit as read back (for `changes.csv` and the estimators).
#[derive(Debug, Clone)]
pub struct VisitRecord {
    /// The page.
    pub url_id: i64,
    /// Its URL.
    pub url: String,
    /// Its host.
    pub host: String,
    /// When.
    pub at: f64,
    /// Status.
    pub status: Option<u16>,
    /// Body bytes.
    pub length: Option<u64>,
    /// Digests.
    pub digests: Digests,
    /// `Last-Modified` as seconds since 1970, and raw.
    pub last_modified: (Option<f64>, Option<String>),
    /// `Expires` as seconds since 1970, and raw.
    pub expires: (Option<f64>, Option<String>),
    /// `ETag`.
    pub etag: Option<String>,
    /// `Content-Language`.
    pub content_language: Option<String>,
    /// `Server`.
    pub server: Option<String>,
    /// Change test.
    pub change: String,
    /// Detail.
    pub detail: Option<String>,
}

/// An HTTP date as seconds since 1970 (None for a date that does not parse, such as the
/// `Expires: 0` or `-1` servers send for "already expired").
pub fn http_epoch(raw: Option<&str>) -> Option<f64> {
    let t = httpdate::parse_http_date(raw?.trim()).ok()?;
    t.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs_f64())
}

impl Store {
    /// Records one visit.
    pub fn visit(&mut self, v: &VisitRow) -> anyhow::Result<()> {
        let (file, offset, length) = match &v.warc {
            Some((f, o, l)) => (Some(f.as_str()), Some(*o as i64), Some(*l as i64)),
            None => (None, None, None),
        };
        self.conn
            .prepare_cached(
                "INSERT INTO visits(url_id, at, status, length, body_md5, text_md5, plain_md5,
                   last_modified, last_modified_raw, expires, expires_raw, etag,
                   content_language, server, change, detail, warc_file, warc_offset, warc_length)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                   ?17, ?18, ?19)",
            )?
            .execute(params![
                v.url_id,
                v.at,
                v.status,
                v.length.map(|l| l as i64),
                v.digests.body,
                v.digests.text,
                v.digests.plain,
                http_epoch(v.last_modified.as_deref()),
                v.last_modified,
                http_epoch(v.expires.as_deref()),
                v.expires,
                v.etag,
                v.content_language,
                v.server,
                v.change.name(),
                v.detail,
                file,
                offset,
                length,
            ])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The last visit of a page that brought a body (what a revisit is compared with). A page
    /// fetched before visits were recorded gets its first row from `urls` here.
    pub fn last_version(&mut self, url_id: i64) -> anyhow::Result<Option<LastVersion>> {
        let found = self
            .conn
            .prepare_cached(
                "SELECT id, at, body_md5, text_md5, plain_md5, warc_file, warc_offset,
                        warc_length, status
                 FROM visits WHERE url_id = ?1 AND status = 200
                   AND change IN ('first', 'same-text', 'changed')
                 ORDER BY at DESC, id DESC LIMIT 1",
            )?
            .query_row([url_id], |r| {
                Ok(LastVersion {
                    visit_id: r.get(0)?,
                    at: r.get(1)?,
                    digests: Digests {
                        body: r.get(2)?,
                        text: r.get(3)?,
                        plain: r.get(4)?,
                    },
                    warc: warc_of(r.get(5)?, r.get(6)?, r.get(7)?),
                    status: r.get(8)?,
                })
            })
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
        // A run folder from before the visit history: the stored copy is the first visit.
        type Stored = (
            f64,
            Option<u16>,
            Option<i64>,
            Option<String>,
            Option<String>,
        );
        type Located = (Stored, Option<(String, u64, u64)>);
        let stored: Option<Located> = self
            .conn
            .prepare_cached(
                "SELECT fetched_at, status, length, last_modified, etag, server, warc_file,
                        warc_offset, warc_length
                 FROM urls WHERE id = ?1 AND state = 'fetched' AND warc_file IS NOT NULL
                   AND fetched_at IS NOT NULL",
            )?
            .query_row([url_id], |r| {
                Ok((
                    (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                    warc_of(r.get(6)?, r.get(7)?, r.get(8)?),
                ))
            })
            .optional()?;
        let Some(((at, status, length, last_modified, etag), warc)) = stored else {
            return Ok(None);
        };
        self.visit(&VisitRow {
            url_id,
            at,
            status,
            length: length.map(|l| l.max(0) as u64),
            digests: Digests::default(),
            last_modified,
            expires: None,
            etag,
            content_language: None,
            server: None,
            change: Change::First,
            detail: Some("recorded before the visit history".to_string()),
            warc: warc.clone(),
        })?;
        Ok(Some(LastVersion {
            visit_id: self.conn.last_insert_rowid(),
            at,
            digests: Digests::default(),
            warc,
            status,
        }))
    }

    /// Adds the digests computed later for a version's visit row.
    pub fn set_digests(&mut self, visit_id: i64, d: &Digests) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE visits SET body_md5 = COALESCE(body_md5, ?2),
                   text_md5 = COALESCE(text_md5, ?3), plain_md5 = COALESCE(plain_md5, ?4)
                 WHERE id = ?1",
            )?
            .execute(params![visit_id, d.body, d.text, d.plain])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Every visit, page by page in time order (for `changes.csv` and the estimates).
    pub fn visits(&self) -> anyhow::Result<Vec<VisitRecord>> {
        self.visits_where("1 = ?1", 1)
    }

    /// The visits of one page, in time order.
    pub fn visits_of(&self, url_id: i64) -> anyhow::Result<Vec<VisitRecord>> {
        self.visits_where("v.url_id = ?1", url_id)
    }

    fn visits_where(&self, filter: &str, value: i64) -> anyhow::Result<Vec<VisitRecord>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT v.url_id, u.url, u.host, v.at, v.status, v.length, v.body_md5, v.text_md5,
                    v.plain_md5, v.last_modified, v.last_modified_raw, v.expires, v.expires_raw,
                    v.etag, v.content_language, v.server, v.change, v.detail
             FROM visits v JOIN urls u ON u.id = v.url_id
             WHERE {filter}
             ORDER BY v.url_id, v.at, v.id"
        ))?;
        let rows = stmt
            .query_map([value], |r| {
                Ok(VisitRecord {
                    url_id: r.get(0)?,
                    url: r.get(1)?,
                    host: r.get(2)?,
                    at: r.get(3)?,
                    status: r.get(4)?,
                    length: r.get::<_, Option<i64>>(5)?.map(|l| l.max(0) as u64),
                    digests: Digests {
                        body: r.get(6)?,
                        text: r.get(7)?,
                        plain: r.get(8)?,
                    },
                    last_modified: (r.get(9)?, r.get(10)?),
                    expires: (r.get(11)?, r.get(12)?),
                    etag: r.get(13)?,
                    content_language: r.get(14)?,
                    server: r.get(15)?,
                    change: r.get(16)?,
                    detail: r.get(17)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The host of each of these pages.
    pub fn hosts_of(&self, ids: &[i64]) -> anyhow::Result<std::collections::HashMap<i64, String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT host FROM urls WHERE id = ?1")?;
        let mut out = std::collections::HashMap::with_capacity(ids.len());
        for &id in ids {
            if let Some(host) = stmt.query_row([id], |r| r.get::<_, String>(0)).optional()? {
                out.insert(id, host);
            }
        }
        Ok(out)
    }

    /// The visits after visit `after` that found a new version (`changed`).
    pub fn changed_since(&self, after: i64) -> anyhow::Result<u64> {
        Ok(self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM visits WHERE id > ?1 AND change = ?2",
                rusqlite::params![after, Change::Changed.name()],
                |r| r.get::<_, i64>(0),
            )?
            .max(0) as u64)
    }

    /// The id of the last visit recorded (0 when none).
    pub fn last_visit(&self) -> anyhow::Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT COALESCE(MAX(id), 0) FROM visits", [], |r| r.get(0))?)
    }

    /// How many visits are recorded.
    pub fn visit_count(&self) -> anyhow::Result<u64> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM visits", [], |r| r.get::<_, i64>(0))?
            .max(0) as u64)
    }

    /// The pages a monitor watches (fetched with 200 and stored), with when each is due;
    /// `None` for a page not scheduled yet.
    pub fn watched(&self) -> anyhow::Result<Vec<(i64, Option<f64>)>> {
        let mut stmt = self.conn.prepare(
            "SELECT u.id, w.next_at FROM urls u LEFT JOIN watch w ON w.url_id = u.id
             WHERE u.state = 'fetched' AND u.status = 200 AND u.warc_file IS NOT NULL
             ORDER BY u.id",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Sets when a page is due next.
    pub fn schedule(&mut self, url_id: i64, next_at: f64, interval: f64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO watch(url_id, next_at, interval) VALUES (?1, ?2, ?3)
                 ON CONFLICT(url_id) DO UPDATE SET next_at = excluded.next_at,
                   interval = excluded.interval",
            )?
            .execute(params![url_id, next_at, interval])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Marks these pages for a conditional re-fetch (one monitor round).
    pub fn mark_due(&mut self, ids: &[i64]) -> anyhow::Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("UPDATE urls SET revisit = ?2 WHERE id = ?1 AND state = 'fetched'")?;
        for id in ids {
            stmt.execute(params![id, super::Revisit::Pending.name()])?;
        }
        self.uncommitted += 1;
        Ok(())
    }
}

fn warc_of(
    file: Option<String>,
    offset: Option<i64>,
    length: Option<i64>,
) -> Option<(String, u64, u64)> {
    Some((file?, offset?.max(0) as u64, length?.max(0) as u64))
}
