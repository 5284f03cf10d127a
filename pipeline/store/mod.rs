//! `crawl.sqlite`: the crawl state and decision log of one run.
//!
//! **In:** what the crawl and the extract stage learn about URLs, hosts and links.
//! **Out:** one SQLite file a linguist can query with `sqlite3` (schema in docs/guide/exports.md, "The run folder").
//!
//! **Invariants:**
//! - every URL ever seen has exactly one row, keyed by its canonical form, with a `state`
//!   (`queued`, `fetched`, `skipped`, `failed`) and, once settled, a `reason`;
//! - writes are batched in one open transaction that [`Store::commit`] closes; the crawl commits
//!   at least every second, so a crash loses at most the last second of *state*, never a page
//!   (pages are in the WARC file first, and the crawl recovers them from there on resume);
//! - the schema is created by this module only, and `meta.format_version` says which schema a
//!   file has, so later versions can read or refuse old runs.
//!
//! The store sits behind this narrow type so that a shared PostgreSQL store for multi-machine
//! crawls can replace it without touching the crawl loop.

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Context, bail};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, ToSql, params};

mod annotate;
mod checkpoint;
mod decisions;
mod focus;
mod follow;
mod hosts;
mod merge;
mod overview;
pub mod pgtls;
pub mod postgres;
mod read;
mod retry;
mod revisit;
mod rows;
mod schema;
mod seeds;
mod visits;
mod warc;
mod worker;
pub use annotate::TagRow;
use checkpoint::{Checkpointer, LOG_RESTART_PAGES};
pub use decisions::{Decision, DecisionFilter};
pub use merge::Merged;
pub use overview::{KeptRow, UrlFacts};
pub use read::{JudgedPage, SeedOutcome, SeedSighting, UrlOutcome};
pub use rows::{FetchRow, PageFacts, QueuedUrl, StoredPage, Via};
use schema::SCHEMA;

/// [`NOT_PAGES`] as a literal, for the listings written with `concat!`.
macro_rules! not_pages {
    () => {
        "('content-type', 'sitemap', 'feed', 'bad-listing')"
    };
}

/// The reasons of a 200 response that is not a page (SQL list): a type glaneur does not
/// harvest, and the sitemaps and feeds read for their URLs. No stage reads them as documents.
pub(crate) const NOT_PAGES: &str = not_pages!();
pub use seeds::{SeedHitRow, SeedSources};
pub use visits::{Change, Digests, LastVersion, VisitRecord, VisitRow, http_epoch};
pub use warc::StoredRecord;

pub use crate::ground::outcome::{Reason, Revisit, State};

/// The stored pages' listing (a page of [`stored_page_row`] per row): status 200, an HTML or
/// text body in the WARC file, not a sitemap or feed.
const STORED_PAGES: &str = concat!(
    "SELECT u.id, u.url, u.depth, EXISTS(SELECT 1 FROM seeds s WHERE s.url_id = u.id),
            u.content_type, u.last_modified, u.fetched_at, u.warc_file, u.warc_offset,
            u.warc_length
     FROM urls u
     WHERE u.state = 'fetched' AND u.status = 200 AND u.warc_file IS NOT NULL
       AND COALESCE(u.reason, '') NOT IN ",
    not_pages!()
);

/// Version of the schema below.
pub const FORMAT_VERSION: i64 = 2;

/// The open `crawl.sqlite` of a run, with one write transaction always open.
pub struct Store {
    conn: Connection,
    uncommitted: usize,
    /// Copies the write-ahead log into the database (None: SQLite does it on commit).
    checkpointer: Option<Checkpointer>,
    /// [`LOG_RESTART_PAGES`] (smaller in tests).
    log_restart_pages: i64,
    /// Who is told of the pages stored (see [`Store::listen_stored`]).
    listener: Option<follow::Listener>,
    /// URLs settled since the last [`Store::take_settled`], when a worker keeps count (see
    /// `glaneur worker`: the shared frontier learns which URLs are done).
    settled: Option<Vec<i64>>,
}

impl Store {
    /// Opens an existing store to read it only (`glaneur verify` without `--refetch`): nothing
    /// is created or changed, and a folder one may not write to can still be checked.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Store> {
        use rusqlite::OpenFlags;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open the crawl database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .with_context(|| format!("cannot configure {}", path.display()))?;
        let version: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'format_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .with_context(|| format!("{} is not a glaneur crawl database", path.display()))?;
        if version.as_deref() != Some(FORMAT_VERSION.to_string().as_str()) {
            bail!(
                "{} was written by a glaneur with storage format {}; this one reads format \
                 {FORMAT_VERSION}",
                path.display(),
                version.as_deref().unwrap_or("(none)")
            );
        }
        Ok(Store {
            conn,
            uncommitted: 0,
            checkpointer: None,
            log_restart_pages: LOG_RESTART_PAGES,
            settled: None,
            listener: None,
        })
    }

    /// Opens the store of a crawl that must already be in it (`--from extract`, a resumed
    /// crawl): an empty file, or a database glaneur did not write, is an error naming the file,
    /// and is left as it is.
    pub fn open_crawled(path: &Path) -> anyhow::Result<Store> {
        let empty = std::fs::metadata(path).is_ok_and(|m| m.len() == 0);
        let glaneur = !empty
            && Connection::open(path)
                .and_then(|conn| {
                    conn.busy_timeout(std::time::Duration::from_secs(10))?;
                    conn.query_row(
                        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                        [],
                        |r| r.get::<_, i64>(0),
                    )
                })
                .with_context(|| {
                    format!(
                        "{} is damaged: it cannot be read as a database",
                        path.display()
                    )
                })?
                == 1;
        if !glaneur {
            bail!(
                "{} is {}: it does not hold the crawl this run folder needs (`glaneur verify` \
                 says what is left; the WARC file still holds every response: `glaneur run \
                 TOPIC --replay RUN/warc/glaneur-00000.warc.gz --out NEW_FOLDER` crawls them \
                 again offline)",
                path.display(),
                if empty {
                    "empty (0 bytes)"
                } else {
                    "not a glaneur crawl database"
                }
            );
        }
        Store::open(path)
    }

    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open the crawl database {}", path.display()))?;
        // WAL + NORMAL: a crash (even power loss) never corrupts the file; it can only lose
        // the last commits, which the WARC recovery on resume makes up for.
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| conn.pragma_update(None, "synchronous", "NORMAL"))
            .and_then(|_| conn.busy_timeout(std::time::Duration::from_secs(10)))
            .with_context(|| format!("cannot configure {}", path.display()))?;
        conn.execute_batch(SCHEMA)
            .and_then(|_| conn.execute_batch(focus::SCHEMA))
            .and_then(|_| conn.execute_batch(visits::SCHEMA))
            .and_then(|_| conn.execute_batch(annotate::SCHEMA))
            .with_context(|| format!("cannot create the tables of {}", path.display()))?;
        let version: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'format_version'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        match version {
            None => {
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('format_version', ?1)",
                    [FORMAT_VERSION.to_string()],
                )?;
            }
            Some(v) if v == FORMAT_VERSION.to_string() => {}
            Some(v) => bail!(
                "{} was written by a glaneur with storage format {v}; this one reads format {FORMAT_VERSION}. Use another --out folder",
                path.display()
            ),
        }
        // The checkpoints move to a thread of their own when it can be started (else SQLite
        // keeps doing them on commit).
        let checkpointer = Connection::open(path)
            .ok()
            .filter(|c| c.busy_timeout(std::time::Duration::from_secs(10)).is_ok())
            .and_then(Checkpointer::start);
        if checkpointer.is_some() {
            // The log file is cut back to 16 MiB when it starts over.
            conn.pragma_update(None, "wal_autocheckpoint", 0)
                .and_then(|_| conn.pragma_update(None, "journal_size_limit", 16 << 20))
                .with_context(|| format!("cannot configure {}", path.display()))?;
        }
        conn.execute_batch("BEGIN")?;
        Ok(Store {
            conn,
            uncommitted: 0,
            checkpointer,
            log_restart_pages: LOG_RESTART_PAGES,
            settled: None,
            listener: None,
        })
    }

    /// Commits the open transaction and opens the next one.
    pub fn commit(&mut self) -> anyhow::Result<()> {
        self.conn
            .execute_batch("COMMIT")
            .context("cannot commit to crawl.sqlite")?;
        let long_log = self.checkpointer.as_ref().is_some_and(|c| {
            c.log_pages.load(std::sync::atomic::Ordering::Relaxed) > self.log_restart_pages
        });
        if long_log {
            // No transaction open: this checkpoint can copy the whole log, and the next write
            // starts it over. Busy (the thread is at it) or failed: the next commit tries again.
            let done = self
                .conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                });
            // All copied (not busy: then the counts are -1): the log starts over with the
            // next write, and the thread reports its new length within a second.
            if let (Ok((0, log, copied)), Some(c)) = (done, &self.checkpointer)
                && copied == log
            {
                c.log_pages.store(0, std::sync::atomic::Ordering::Relaxed);
            }
        }
        self.conn
            .execute_batch("BEGIN")
            .context("cannot begin a transaction in crawl.sqlite")?;
        self.uncommitted = 0;
        self.announce_stored();
        Ok(())
    }

    /// Number of writes since the last commit.
    pub fn uncommitted(&self) -> usize {
        self.uncommitted
    }

    /// Reads a `meta` value.
    pub fn meta(&self, key: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// Sets a `meta` value.
    pub fn set_meta(&mut self, key: &str, value: &str) -> anyhow::Result<()> {
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The id of a known URL.
    pub fn url_id(&self, url: &str) -> anyhow::Result<Option<i64>> {
        Ok(self
            .conn
            .prepare_cached("SELECT id FROM urls WHERE url = ?1")?
            .query_row([url], |r| r.get(0))
            .optional()?)
    }

    /// URLs queued now (the frontier, in memory or not); read through the `urls_state` index.
    pub fn queued_count(&self) -> anyhow::Result<u64> {
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM urls WHERE state = 'queued'")?
            .query_row([], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// Records a newly seen URL; returns its id and whether it is new.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_url(
        &mut self,
        url: &str,
        host: &str,
        depth: u32,
        parent: Option<i64>,
        via: Via,
        priority: f64,
        now: f64,
    ) -> anyhow::Result<(i64, bool)> {
        if let Some(id) = self.url_id(url)? {
            return Ok((id, false));
        }
        self.conn
            .prepare_cached(
                "INSERT INTO urls(url, host, depth, parent_id, via, priority, state, discovered_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7)",
            )?
            .execute(params![url, host, depth, parent, via, priority, now])?;
        self.uncommitted += 1;
        Ok((self.conn.last_insert_rowid(), true))
    }

    /// Settles a URL that will not be fetched.
    pub fn skip(&mut self, id: i64, reason: Reason, detail: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET state = 'skipped', reason = ?2, detail = ?3 WHERE id = ?1",
            )?
            .execute(params![id, reason, detail])?;
        self.note_settled(id);
        self.uncommitted += 1;
        Ok(())
    }

    /// Changes the reason of a URL already settled (a response read as a sitemap or a feed).
    pub fn set_reason(&mut self, id: i64, reason: Reason, detail: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached("UPDATE urls SET reason = ?2, detail = ?3 WHERE id = ?1")?
            .execute(params![id, reason, detail])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Gives a URL that stays queued the reason it was not fetched in this run.
    pub fn waiting(&mut self, id: i64, reason: Reason, detail: &str) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET reason = ?2, detail = ?3 WHERE id = ?1 AND state = 'queued'",
            )?
            .execute(params![id, reason, detail])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Records a fetch that produced no usable response (timeout, network error).
    pub fn fail(&mut self, id: i64, reason: Reason, detail: &str, now: f64) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET state = 'failed', reason = ?2, detail = ?3, fetched_at = ?4 WHERE id = ?1",
            )?
            .execute(params![id, reason, detail, now])?;
        self.note_settled(id);
        self.uncommitted += 1;
        Ok(())
    }

    /// Records a response.
    pub fn fetched(
        &mut self,
        id: i64,
        row: &FetchRow,
        reason: Reason,
        detail: &str,
    ) -> anyhow::Result<()> {
        let (warc_file, warc_offset, warc_length) = match &row.warc {
            Some((f, o, l)) => (Some(f.as_str()), Some(*o as i64), Some(*l as i64)),
            None => (None, None, None),
        };
        self.conn
            .prepare_cached(
                "UPDATE urls SET state = 'fetched', reason = ?2, detail = ?3, status = ?4,
                   content_type = ?5, length = ?6, last_modified = ?7, etag = ?8, server = ?9,
                   location = ?10, fetched_at = ?11, elapsed_ms = ?12,
                   warc_file = ?13, warc_offset = ?14, warc_length = ?15
                 WHERE id = ?1",
            )?
            .execute(params![
                id,
                reason,
                detail,
                row.status,
                row.content_type,
                row.length as i64,
                row.last_modified,
                row.etag,
                row.server,
                row.location,
                row.fetched_at,
                row.elapsed_ms as i64,
                warc_file,
                warc_offset,
                warc_length
            ])?;
        self.note_settled(id);
        if row.status == 200 && row.warc.is_some() && reason == Reason::Fetched {
            self.note_stored(id);
        }
        self.uncommitted += 1;
        Ok(())
    }

    /// Records the topic facts of a page.
    pub fn page_facts(&mut self, id: i64, facts: &PageFacts) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET score = ?2, verdict = ?3, matched = ?4, language = ?5, title = ?6 WHERE id = ?1",
            )?
            .execute(params![
                id,
                facts.score,
                facts.verdict,
                facts.matched.join(" | "),
                facts.language,
                facts.title
            ])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Records the corpus decision of the extract stage.
    pub fn decision(
        &mut self,
        id: i64,
        reason: Reason,
        detail: &str,
        doc_id: Option<&str>,
        tokens: Option<u64>,
        duplicate_of: Option<&str>,
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE urls SET reason = ?2, detail = ?3, doc_id = ?4, tokens = ?5, duplicate_of = ?6 WHERE id = ?1",
            )?
            .execute(params![
                id,
                reason,
                detail,
                doc_id,
                tokens.map(|t| t as i64),
                duplicate_of
            ])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Records `count` links from `src` to `dst` (added to those already recorded).
    pub fn link(
        &mut self,
        src: i64,
        dst: i64,
        kind: &str,
        anchor: &str,
        count: u32,
    ) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO links(src, dst, kind, anchor, count) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(src, dst) DO UPDATE SET count = count + excluded.count",
            )?
            .execute(params![src, dst, kind, anchor, count])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The canonical URL of a row.
    pub fn url_of(&self, id: i64) -> anyhow::Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT url FROM urls WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }

    /// The frontier: every URL still queued.
    pub fn queued(&self) -> anyhow::Result<Vec<QueuedUrl>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, host, depth, priority, via FROM urls WHERE state = 'queued' ORDER BY id",
        )?;
        let rows = stmt
            .query_map([], QueuedUrl::from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The best queued URLs of one server (highest priority, then oldest), leaving out `exclude`.
    pub fn queued_of_host(
        &self,
        host: &str,
        exclude: &[i64],
        limit: usize,
    ) -> anyhow::Result<Vec<QueuedUrl>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, host, depth, priority, via FROM urls WHERE host = ?1 AND state = 'queued'
             ORDER BY priority DESC, id LIMIT ?2",
        )?;
        let rows = stmt
            .query_map(
                params![host, (limit + exclude.len()) as i64],
                QueuedUrl::from_row,
            )?
            .filter(|row| row.as_ref().map_or(true, |q| !exclude.contains(&q.id)))
            .take(limit)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Number of page requests made so far (robots.txt excluded).
    pub fn requests_made(&self) -> anyhow::Result<u64> {
        Ok(self.conn.query_row(
            "SELECT COUNT(*) FROM urls WHERE state IN ('fetched', 'failed')",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64)
    }

    /// Number of redirects that led to this URL, and the URL the chain started from.
    pub fn redirect_chain(&self, id: i64) -> anyhow::Result<(u32, i64)> {
        let mut hops = 0;
        let mut current = id;
        loop {
            let row: Option<(Via, Option<i64>)> = self
                .conn
                .prepare_cached("SELECT via, parent_id FROM urls WHERE id = ?1")?
                .query_row([current], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            match row {
                Some((Via::Redirect, Some(parent))) if hops < 64 => {
                    hops += 1;
                    current = parent;
                }
                _ => return Ok((hops, current)),
            }
        }
    }

    /// Every fetched page with a stored HTML or text body, in id order (input of extract).
    pub fn stored_pages(&self) -> anyhow::Result<Vec<StoredPage>> {
        self.stored_pages_after(i64::MIN, i64::MAX)
    }

    /// How many pages [`Store::stored_pages`] gives.
    pub fn count_stored_pages(&self) -> anyhow::Result<u64> {
        let n: i64 = self.conn.query_row(
            &format!(
                "SELECT COUNT(*) FROM urls u
                 WHERE u.state = 'fetched' AND u.status = 200 AND u.warc_file IS NOT NULL
                   AND COALESCE(u.reason, '') NOT IN {NOT_PAGES}"
            ),
            [],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The next `limit` pages of [`Store::stored_pages`] whose id is above `after` (a long
    /// list is read a slice at a time).
    pub fn stored_pages_after(&self, after: i64, limit: i64) -> anyhow::Result<Vec<StoredPage>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "{STORED_PAGES} AND u.id > ?1 ORDER BY u.id LIMIT ?2"
        ))?;
        let rows = stmt
            .query_map(rusqlite::params![after, limit], stored_page_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Per way of discovery (`via`): URLs found, pages fetched (200, HTML or text) and kept.
    pub fn via_counts(&self) -> anyhow::Result<Vec<(Via, u64, u64, u64)>> {
        let mut stmt = self.conn.prepare(&format!(
            // COALESCE: a group whose rows all compare as NULL (URLs queued with no
            // status nor reason yet) sums to NULL, not 0.
            "SELECT via, COUNT(*),
                    COALESCE(SUM(state = 'fetched' AND status = 200
                                 AND COALESCE(reason, '') NOT IN {NOT_PAGES}), 0),
                    COALESCE(SUM(reason = 'kept'), 0)
             FROM urls GROUP BY via ORDER BY COUNT(*) DESC"
        ))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, i64>(1)?.max(0) as u64,
                    r.get::<_, i64>(2)?.max(0) as u64,
                    r.get::<_, i64>(3)?.max(0) as u64,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()
            .context("crawl.sqlite: counting the URLs by way of discovery")?;
        Ok(rows)
    }

    /// Counts of URLs per (state, reason), for the report; a queued URL may have no reason yet.
    pub fn reason_counts(&self) -> anyhow::Result<Vec<(State, Option<Reason>, u64)>> {
        let mut stmt = self.conn.prepare(
            "SELECT state, NULLIF(reason, ''), COUNT(*) FROM urls GROUP BY 1, 2
             ORDER BY COUNT(*) DESC",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
            })?
            .collect::<Result<Vec<_>, _>>()
            .context("crawl.sqlite: counting the URLs by state and reason")?;
        Ok(rows)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // Best effort: an error here has nowhere to go, and the next run recovers from the WARC.
        let _ = self.conn.execute_batch("COMMIT");
    }
}

/// What went wrong in the database, as far as the user can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The disk is full.
    DiskFull,
    /// Another program holds the database.
    Busy,
    /// The file is damaged or not a database.
    Damaged,
    /// Any other database error.
    Other,
}

/// The database fault behind an error, if the error came from the store.
pub fn fault_of(error: &anyhow::Error) -> Option<Fault> {
    use rusqlite::ErrorCode;
    error.chain().find_map(|cause| match cause.downcast_ref() {
        Some(rusqlite::Error::SqliteFailure(e, _)) => Some(match e.code {
            ErrorCode::DiskFull => Fault::DiskFull,
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => Fault::Busy,
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Fault::Damaged,
            _ => Fault::Other,
        }),
        _ => None,
    })
}

/// Reasons and states are stored by name (the names users query).
impl ToSql for Reason {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        // Borrowed for every named reason: no allocation on the crawl's writes.
        Ok(match self.name() {
            Cow::Borrowed(name) => ToSqlOutput::Borrowed(ValueRef::Text(name.as_bytes())),
            Cow::Owned(name) => ToSqlOutput::from(name),
        })
    }
}

/// A stored name no version of glaneur writes: the database was changed by hand or damaged.
pub(super) fn unknown(what: &str, value: ValueRef<'_>) -> FromSqlError {
    let shown = value.as_str().unwrap_or("(not text)");
    FromSqlError::Other(format!("crawl.sqlite holds an unknown {what} '{shown}'").into())
}

impl FromSql for Reason {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Reason> {
        Reason::parse(value.as_str()?).ok_or_else(|| unknown("reason", value))
    }
}

impl FromSql for State {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<State> {
        State::parse(value.as_str()?).ok_or_else(|| unknown("state", value))
    }
}

impl ToSql for State {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(
            self.name().as_bytes(),
        )))
    }
}

/// A row of the stored pages' listing (see [`Store::stored_pages_after`]) as a page.
fn stored_page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredPage> {
    Ok(StoredPage {
        id: r.get(0)?,
        url: r.get(1)?,
        depth: r.get::<_, i64>(2)? as u32,
        seed: r.get(3)?,
        content_type: r.get(4)?,
        last_modified: r.get(5)?,
        fetched_at: r.get::<_, Option<f64>>(6)?.unwrap_or(0.0),
        warc: (
            r.get(7)?,
            r.get::<_, i64>(8)? as u64,
            r.get::<_, i64>(9)? as u64,
        ),
        seed_source: None,
    })
}

#[cfg(test)]
pub(crate) mod tests;
