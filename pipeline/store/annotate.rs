//! The annotate stage in the store (`tags`): per document, the digest of the tokens it was
//! tagged from, whether it was tagged or why not, and where its tags are in `annotate/`.
//!
//! **In:** the annotate stage's outcomes, a batch at a time. **Out:** the rows the stage reads
//! back to skip what is done, the export to find each document's tags, the report to count.
//!
//! **Invariants:** one row per document (`url_id`); a row is written only once its tags are in
//! their file (the file is renamed into place first), so a row never points at missing tags;
//! rows are read in `url_id` order, a page at a time, the order of `docs.jsonl`.

use rusqlite::{OptionalExtension, params};

use super::Store;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tags (
    url_id  INTEGER PRIMARY KEY,  -- the document (its id is d + url id)
    tokens  TEXT NOT NULL,        -- digest of the tokens it was tagged from
    state   TEXT NOT NULL,        -- tagged, untagged
    reason  TEXT,                 -- why untagged: no-model, tagger-unavailable, tagger-failed, malformed-output
    detail  TEXT,                 -- the tagger's words, or what was wrong with its output
    file    TEXT,                 -- the file of annotate/ holding its tags
    offset  INTEGER,              -- where its <doc> block starts in that file
    length  INTEGER,              -- its bytes
    ud      INTEGER               -- 1 when every tag is a Universal Dependencies tag
);
";

/// A document's row of `tags`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagRow {
    /// The document's URL id.
    pub url_id: i64,
    /// Digest of the tokens it was tagged from.
    pub tokens: String,
    /// Why it is not tagged (None: tagged).
    pub untagged: Option<(String, String)>,
    /// File, offset and length of its tags (None: untagged, or no token to tag).
    pub at: Option<(String, u64, u64)>,
    /// Every tag is a Universal Dependencies tag.
    pub ud: bool,
}

impl TagRow {
    fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TagRow> {
        let state: String = r.get(2)?;
        let file: Option<String> = r.get(5)?;
        Ok(TagRow {
            url_id: r.get(0)?,
            tokens: r.get(1)?,
            untagged: (state != "tagged").then(|| {
                (
                    r.get::<_, Option<String>>(3)
                        .ok()
                        .flatten()
                        .unwrap_or_default(),
                    r.get::<_, Option<String>>(4)
                        .ok()
                        .flatten()
                        .unwrap_or_default(),
                )
            }),
            at: match file {
                Some(file) => Some((file, r.get::<_, i64>(6)? as u64, r.get::<_, i64>(7)? as u64)),
                None => None,
            },
            ud: r.get::<_, Option<i64>>(8)?.unwrap_or(0) != 0,
        })
    }
}

impl Store {
    /// Rows of `tags` after `after`, in `url_id` order, at most `limit`.
    pub fn tag_rows_after(&self, after: i64, limit: i64) -> anyhow::Result<Vec<TagRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT url_id, tokens, state, reason, detail, file, offset, length, ud FROM tags
             WHERE url_id > ?1 ORDER BY url_id LIMIT ?2",
        )?;
        let rows = stmt
            .query_map(params![after, limit], TagRow::from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Writes (or replaces) a document's row.
    pub fn set_tag_row(&mut self, row: &TagRow) -> anyhow::Result<()> {
        let (state, reason, detail) = match &row.untagged {
            None => ("tagged", None, None),
            Some((reason, detail)) => ("untagged", Some(reason.as_str()), Some(detail.as_str())),
        };
        let (file, offset, length) = match &row.at {
            Some((file, offset, length)) => (
                Some(file.as_str()),
                Some(*offset as i64),
                Some(*length as i64),
            ),
            None => (None, None, None),
        };
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO tags
                 (url_id, tokens, state, reason, detail, file, offset, length, ud)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                row.url_id,
                row.tokens,
                state,
                reason,
                detail,
                file,
                offset,
                length,
                i64::from(row.ud)
            ])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Removes the rows of the documents `ids` (no longer in the corpus).
    pub fn forget_tag_rows(&mut self, ids: &[i64]) -> anyhow::Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("DELETE FROM tags WHERE url_id = ?1")?;
        for id in ids {
            stmt.execute([id])?;
        }
        self.uncommitted += ids.len();
        Ok(())
    }

    /// Removes every row (the tagger's settings changed).
    pub fn forget_all_tag_rows(&mut self) -> anyhow::Result<()> {
        self.conn.execute("DELETE FROM tags", [])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// The files of `annotate/` that rows point to.
    pub fn tag_files(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT file FROM tags WHERE file IS NOT NULL")?;
        let files = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(files)
    }

    /// Documents tagged; documents untagged by reason (most first).
    pub fn tag_counts(&self) -> anyhow::Result<(u64, Vec<(String, u64)>)> {
        let tagged = self.conn.query_row(
            "SELECT COUNT(*) FROM tags WHERE state = 'tagged'",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64;
        let mut stmt = self.conn.prepare(
            "SELECT reason, COUNT(*) FROM tags WHERE state = 'untagged'
             GROUP BY reason ORDER BY COUNT(*) DESC, reason",
        )?;
        let untagged = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    r.get::<_, i64>(1)? as u64,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((tagged, untagged))
    }

    /// Whether every tagged document's tags are Universal Dependencies tags (None: no
    /// document is tagged).
    pub fn tags_are_ud(&self) -> anyhow::Result<Option<bool>> {
        Ok(self
            .conn
            .query_row(
                "SELECT MIN(ud) FROM tags WHERE state = 'tagged' AND file IS NOT NULL",
                [],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()?
            .flatten()
            .map(|min| min != 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(url_id: i64, untagged: Option<&str>, ud: bool) -> TagRow {
        TagRow {
            url_id,
            tokens: format!("digest-{url_id}"),
            untagged: untagged.map(|r| (r.to_string(), format!("why {url_id}"))),
            at: untagged
                .is_none()
                .then(|| ("0-1.tagged".to_string(), 10 * url_id as u64, 7)),
            ud,
        }
    }

    #[test]
    fn rows_round_trip_in_document_order_and_count_by_reason() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
        assert_eq!(store.tags_are_ud().unwrap(), None);
        let rows = [
            row(9, None, true),
            row(3, Some("no-model"), false),
            row(5, None, false),
            row(7, Some("no-model"), false),
            row(8, Some("tagger-failed"), false),
        ];
        for r in &rows {
            store.set_tag_row(r).unwrap();
        }
        let back = store.tag_rows_after(0, 100).unwrap();
        let ids: Vec<i64> = back.iter().map(|r| r.url_id).collect();
        assert_eq!(ids, [3, 5, 7, 8, 9]);
        assert_eq!(back[0], rows[1]);
        assert_eq!(back[4], rows[0]);
        // Paging: strictly after the last id seen.
        let page: Vec<i64> = store
            .tag_rows_after(5, 2)
            .unwrap()
            .iter()
            .map(|r| r.url_id)
            .collect();
        assert_eq!(page, [7, 8]);
        let (tagged, untagged) = store.tag_counts().unwrap();
        assert_eq!(tagged, 2);
        assert_eq!(
            untagged,
            [
                ("no-model".to_string(), 2),
                ("tagger-failed".to_string(), 1)
            ]
        );
        // One document not UD makes the corpus's tags not UD.
        assert_eq!(store.tags_are_ud().unwrap(), Some(false));
        // A replaced row is replaced, not added.
        store.set_tag_row(&row(5, None, true)).unwrap();
        assert_eq!(store.tags_are_ud().unwrap(), Some(true));
        assert_eq!(store.tag_files().unwrap(), ["0-1.tagged"]);
        store.forget_tag_rows(&[3, 9]).unwrap();
        let ids: Vec<i64> = store
            .tag_rows_after(0, 100)
            .unwrap()
            .iter()
            .map(|r| r.url_id)
            .collect();
        assert_eq!(ids, [5, 7, 8]);
        store.forget_all_tag_rows().unwrap();
        assert!(store.tag_rows_after(0, 100).unwrap().is_empty());
    }
}
