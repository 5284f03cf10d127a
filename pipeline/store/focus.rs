//! The focused crawl's own state in `crawl.sqlite`: tunnelling hops, the seed centroid and the
//! term counts of the `G_F` seed pages, so that a resumed crawl scores and expands exactly as
//! the interrupted one would have.
//!
//! **In:** what `crawl::focus` computes. **Out:** table `tunnel` and `meta` keys
//! `focus_centroid` (JSON of `stages::centroid::Centroid`) and `focus_seed_terms:ID`; read
//! back: links, fetch order, seeds, and the verdicts of fetched pages (servers' yields).
//!
//! **Invariants:** the table is created with the rest of the schema ([`SCHEMA`], run by
//! `Store::open`); writes go into the store's open transaction like every other write.

use rusqlite::{OptionalExtension, params};

use super::Store;

/// The focus table: off-topic pages in a row before each URL (tunnelling).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tunnel (
    url_id INTEGER PRIMARY KEY REFERENCES urls(id),
    hops   INTEGER NOT NULL   -- off-topic pages in a row between the last on-topic page and this URL
);
";

impl Store {
    /// Records the tunnelling hops of a URL entering the frontier.
    pub fn set_hops(&mut self, url_id: i64, hops: u32) -> anyhow::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO tunnel(url_id, hops) VALUES (?1, ?2)
                 ON CONFLICT(url_id) DO UPDATE SET hops = excluded.hops",
            )?
            .execute(params![url_id, hops])?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Tunnelling hops of every URL that has them.
    pub fn hops(&self) -> anyhow::Result<std::collections::HashMap<i64, u32>> {
        let mut stmt = self.conn.prepare("SELECT url_id, hops FROM tunnel")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?.clamp(0, i64::from(u32::MAX)) as u32,
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Tunnelling hops of some URLs (those without a row have none).
    pub fn hops_of(&self, ids: &[i64]) -> anyhow::Result<std::collections::HashMap<i64, u32>> {
        let mut out = std::collections::HashMap::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT hops FROM tunnel WHERE url_id = ?1")?;
        for &id in ids {
            if let Some(h) = stmt.query_row([id], |r| r.get::<_, i64>(0)).optional()? {
                out.insert(id, h.clamp(0, i64::from(u32::MAX)) as u32);
            }
        }
        Ok(out)
    }

    /// Every link `(src, dst)` in the order it was first recorded (to rebuild the known graph).
    pub fn link_pairs(&self) -> anyhow::Result<Vec<(i64, i64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT src, dst FROM links ORDER BY rowid")?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Fetched pages in fetch order (to replay OPIC's cash distribution on resume).
    pub fn fetch_order(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM urls WHERE state = 'fetched' ORDER BY fetched_at, id")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// (politeness key, verdict) of every page judged by the formula, in id order: the
    /// servers' yields of a resumed crawl. The verdict is the crawl's (all visible text) until
    /// the extract stage replaces it with the clean text's.
    pub fn judged_pages(&self) -> anyhow::Result<Vec<(String, bool)>> {
        let mut stmt = self.conn.prepare(
            "SELECT host, verdict FROM urls
             WHERE state = 'fetched' AND verdict IS NOT NULL ORDER BY id",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? != 0)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// URL ids of the seeds (the `seeds` table).
    pub fn seed_ids(&self) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT url_id FROM seeds ORDER BY url_id")?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The stored term counts of the `G_F` seed pages, as JSON texts, in id order.
    pub fn seed_terms(&self) -> anyhow::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT value FROM meta WHERE key LIKE 'focus_seed_terms:%'
             ORDER BY CAST(substr(key, 18) AS INTEGER)",
        )?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::super::PageFacts;
    use super::*;

    #[test]
    fn judged_pages_are_the_fetched_pages_with_a_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
        let id = |store: &mut Store, url: &str, host: &str| {
            store
                .insert_url(url, host, 1, None, "link", 0.5, 0.0)
                .unwrap()
                .0
        };
        let on = id(&mut store, "http://a.test/on", "http://a.test:80");
        let off = id(&mut store, "http://b.test/off", "http://b.test:80");
        let missing = id(&mut store, "http://a.test/404", "http://a.test:80");
        let waiting = id(&mut store, "http://a.test/later", "http://a.test:80");
        let facts = |verdict| PageFacts {
            score: 0.0,
            verdict,
            matched: Vec::new(),
            language: None,
            title: None,
        };
        store.page_facts(on, &facts(true)).unwrap();
        store.page_facts(off, &facts(false)).unwrap();
        for fetched in [on, off, missing] {
            store
                .connection()
                .execute("UPDATE urls SET state = 'fetched' WHERE id = ?1", [fetched])
                .unwrap();
        }
        // Never fetched: its verdict (there is none in a real crawl) would not count.
        store.page_facts(waiting, &facts(true)).unwrap();
        assert_eq!(
            store.judged_pages().unwrap(),
            [
                ("http://a.test:80".to_string(), true),
                ("http://b.test:80".to_string(), false)
            ]
        );
    }
}
