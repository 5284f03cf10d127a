//! The run's WARC file as the store sees it: the committed horizon (what a resume may never
//! cut), every stored record's place, SQLite's own check, and the repair `glaneur verify
//! --refetch` makes.
//!
//! **In:** `urls.warc_*` and `meta.warc_committed_len`. **Out:** the horizon, the records to
//! read back, and damaged pages put back in the frontier.
//!
//! **Invariants:** the horizon is the furthest of the recorded length and the end of the
//! furthest record a URL refers to; it is lowered only to the end of a file cut shorter than
//! it; a re-queued page forgets what its fetch recorded, its links included.

use rusqlite::params;

use super::{Reason, Store};

/// Where a URL's response is stored (`glaneur verify`).
#[derive(Debug, Clone)]
pub struct StoredRecord {
    /// Row id.
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// WARC file name, relative to `warc/`.
    pub file: String,
    /// Offset of the response record's gzip member.
    pub offset: u64,
    /// Its length.
    pub length: u64,
}

impl Store {
    /// The committed horizon of the run's WARC file: the end of the last record this store
    /// has committed a reference to (the crawl's last recorded length, or the end of the
    /// furthest record a URL points at, whichever is further). Bytes before it are never cut.
    pub fn warc_horizon(&self) -> anyhow::Result<u64> {
        let recorded: u64 = self
            .meta("warc_committed_len")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let referenced: i64 = self.conn.query_row(
            "SELECT COALESCE(MAX(warc_offset + warc_length), 0) FROM urls
             WHERE warc_file = ?1",
            [crate::warc::WARC_NAME],
            |r| r.get(0),
        )?;
        Ok(recorded.max(u64::try_from(referenced).unwrap_or(0)))
    }

    /// SQLite's integrity check: the problems it finds (none when the file is sound).
    pub fn integrity_check(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows.into_iter().filter(|r| r != "ok").collect())
    }

    /// Every URL with a stored response record, in file order.
    pub fn stored_records(&self) -> anyhow::Result<Vec<StoredRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, url, warc_file, warc_offset, warc_length FROM urls
             WHERE warc_file IS NOT NULL ORDER BY warc_offset",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok(StoredRecord {
                    id: r.get(0)?,
                    url: r.get(1)?,
                    file: r.get(2)?,
                    offset: r.get::<_, i64>(3)?.max(0) as u64,
                    length: r.get::<_, i64>(4)?.max(0) as u64,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Puts a fetched URL whose stored response is damaged back in the frontier (what the
    /// fetch recorded is forgotten, its links with it: the new fetch records them again), so
    /// that the next crawl fetches it again; its server's page count gives it back.
    pub fn requeue_damaged(&mut self, id: i64) -> anyhow::Result<()> {
        self.conn
            .execute("DELETE FROM links WHERE src = ?1", [id])?;
        self.conn
            .execute("DELETE FROM page_done WHERE url_id = ?1", [id])?;
        self.conn
            .execute("DELETE FROM judged WHERE url_id = ?1", [id])?;
        self.conn.execute(
            "UPDATE hosts SET fetched = MAX(fetched - 1, 0)
             WHERE host = (SELECT host FROM urls WHERE id = ?1 AND state != 'queued')",
            [id],
        )?;
        self.conn.execute(
            "UPDATE urls SET state = 'queued', reason = ?2,
                detail = 'its stored response was damaged (glaneur verify --refetch)',
                status = NULL, content_type = NULL, length = NULL, last_modified = NULL,
                etag = NULL, server = NULL, location = NULL, fetched_at = NULL,
                elapsed_ms = NULL, warc_file = NULL, warc_offset = NULL, warc_length = NULL,
                score = NULL, verdict = NULL, matched = NULL, language = NULL, title = NULL,
                doc_id = NULL, tokens = NULL, duplicate_of = NULL, revisit = NULL
             WHERE id = ?1",
            params![id, Reason::Refetch],
        )?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Lowers the WARC file's committed horizon to `limit` when it is past it (the file was cut
    /// shorter than what was committed, and the pages whose records were lost are queued
    /// again): the crawl can open the file again, and checks what follows `limit`.
    pub fn clamp_warc_horizon(&mut self, limit: u64) -> anyhow::Result<()> {
        let recorded: u64 = self
            .meta("warc_committed_len")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if recorded > limit {
            self.set_meta("warc_committed_len", &limit.to_string())?;
        }
        Ok(())
    }
}
