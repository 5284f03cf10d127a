//! `glaneur collect`: the `crawl.sqlite` of each worker of a shared crawl merged into one.
//!
//! **In:** a worker's `crawl.sqlite` (attached read-only) and where its WARC bytes start in
//! the collected file. **Out:** this store's rows: URLs keyed by their text (the ids are this
//! store's), each with the most settled state any worker gave it, its responses' places moved
//! by the worker's offset, links, seeds, servers, visits and the judged tokens.
//!
//! **Invariants:** a URL fetched (or failed) by a worker wins over one another worker skipped
//! or left queued, and the first worker merged wins among equals (a URL fetched twice, around
//! a `kill -9`, keeps one response); what a worker committed is all that is read (its WARC
//! bytes after its committed length are not referenced).

use std::path::Path;

use anyhow::Context;
use rusqlite::params;

use super::Store;

/// What one worker's merge brought.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    /// URLs this worker settled that no earlier worker had.
    pub settled: u64,
    /// URLs it settled that an earlier worker had settled as well (kept from the earlier).
    pub duplicates: u64,
}

/// The columns a settled URL takes from the worker that settled it.
const SETTLED_COLUMNS: &str = "state, reason, detail, fetched_at, elapsed_ms, status, \
    content_type, length, last_modified, etag, server, location, warc_file, warc_offset, \
    warc_length, score, verdict, matched, language, title, doc_id, tokens, duplicate_of, \
    revisit, depth, priority";

impl Store {
    /// After every worker is merged: the URLs still queued with no reason — found by one
    /// worker, handed to the shared frontier, taken by none — get the reason a single process
    /// would have given them: `host-budget` on a server that gave `per_host` pages, else
    /// `page-budget` once the workers together made `max_pages` requests, else `interrupted`
    /// (the shared crawl ended first). Returns how many were explained.
    pub fn explain_collected(&mut self, per_host: u64, max_pages: u64) -> anyhow::Result<u64> {
        let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let requests: i64 =
            self.conn
                .query_row("SELECT COALESCE(SUM(fetched), 0) FROM hosts", [], |r| {
                    r.get(0)
                })?;
        let host_budget = self.conn.execute(
            "UPDATE urls SET reason = 'host-budget',
                 detail = 'the server already gave ' || ?1 || ' pages (crawl.max_pages_per_host)'
             WHERE state = 'queued' AND COALESCE(reason, '') = ''
               AND host IN (SELECT host FROM hosts WHERE fetched >= ?1)",
            params![clamp(per_host)],
        )?;
        let (reason, detail) = if requests >= clamp(max_pages) {
            (
                "page-budget",
                format!("{max_pages} page requests made (crawl.max_pages)"),
            )
        } else {
            (
                "interrupted",
                "the shared crawl ended before a worker took this URL".to_string(),
            )
        };
        let rest = self.conn.execute(
            "UPDATE urls SET reason = ?1, detail = ?2
             WHERE state = 'queued' AND COALESCE(reason, '') = ''",
            params![reason, detail],
        )?;
        self.uncommitted += 1;
        Ok((host_budget + rest) as u64)
    }

    /// Merges the worker store at `path`, whose WARC bytes start at `warc_base` in the
    /// collected WARC file.
    pub fn merge_worker(&mut self, path: &Path, warc_base: u64) -> anyhow::Result<Merged> {
        let base = i64::try_from(warc_base).context("a WARC file over 8 EiB")?;
        let uri = format!("file:{}?mode=ro", path.display());
        self.conn.execute_batch("COMMIT")?;
        let attached = self
            .conn
            .execute("ATTACH DATABASE ?1 AS w", params![uri])
            .with_context(|| format!("cannot open the worker's database {}", path.display()));
        if let Err(error) = attached {
            self.conn.execute_batch("BEGIN")?;
            return Err(error);
        }
        let result = self.merge_attached(base);
        let end = match &result {
            Ok(_) => self.conn.execute_batch("COMMIT"),
            Err(_) => self.conn.execute_batch("ROLLBACK"),
        };
        let detach = self.conn.execute_batch("DETACH DATABASE w; BEGIN");
        let merged = result.with_context(|| format!("cannot merge {}", path.display()))?;
        end?;
        detach?;
        Ok(merged)
    }

    fn merge_attached(&mut self, base: i64) -> anyhow::Result<Merged> {
        let c = &self.conn;
        c.execute_batch("BEGIN")?;
        c.execute_batch(
            "INSERT INTO main.urls (url, host, depth, via, priority, state, discovered_at)
             SELECT url, host, depth, via, priority, 'queued', discovered_at FROM w.urls
             WHERE url NOT IN (SELECT url FROM main.urls) ORDER BY id;
             DROP TABLE IF EXISTS temp.won;
             CREATE TEMP TABLE won (wid INTEGER PRIMARY KEY, mid INTEGER NOT NULL);
             INSERT INTO temp.won (wid, mid)
             SELECT wu.id, mu.id FROM w.urls wu JOIN main.urls mu ON mu.url = wu.url
             WHERE (wu.state IN ('fetched', 'failed') AND mu.state IN ('queued', 'skipped'))
                OR (wu.state = 'skipped' AND mu.state = 'queued');",
        )?;
        let duplicates: i64 = c.query_row(
            "SELECT count(*) FROM w.urls wu JOIN main.urls mu ON mu.url = wu.url
             WHERE wu.state IN ('fetched', 'failed') AND mu.state IN ('fetched', 'failed')",
            [],
            |r| r.get(0),
        )?;
        let settled = c.execute(
            &format!(
                "UPDATE main.urls SET ({SETTLED_COLUMNS}) = (
                     SELECT {SETTLED_COLUMNS} FROM w.urls wu WHERE wu.id = won.wid)
                 FROM temp.won WHERE main.urls.id = won.mid"
            ),
            [],
        )?;
        c.execute(
            "UPDATE main.urls SET warc_offset = warc_offset + ?1
             WHERE id IN (SELECT mid FROM temp.won) AND warc_offset IS NOT NULL",
            params![base],
        )?;
        c.execute_batch(
            "UPDATE main.urls SET parent_id = (
                 SELECT mp.id FROM w.urls wu JOIN w.urls wp ON wp.id = wu.parent_id
                 JOIN main.urls mp ON mp.url = wp.url WHERE wu.url = main.urls.url)
             WHERE parent_id IS NULL AND via <> 'seed'
               AND url IN (SELECT url FROM w.urls WHERE parent_id IS NOT NULL);
             INSERT OR IGNORE INTO main.links (src, dst, kind, anchor, count)
             SELECT ms.id, md.id, l.kind, l.anchor, l.count FROM w.links l
             JOIN w.urls ws ON ws.id = l.src JOIN w.urls wd ON wd.id = l.dst
             JOIN main.urls ms ON ms.url = ws.url JOIN main.urls md ON md.url = wd.url;
             INSERT OR IGNORE INTO main.seeds (url_id, source, engine, query, rank, verdict)
             SELECT mu.id, s.source, s.engine, s.query, s.rank, s.verdict FROM w.seeds s
             JOIN w.urls wu ON wu.id = s.url_id JOIN main.urls mu ON mu.url = wu.url;
             UPDATE main.seeds SET verdict = (
                 SELECT s.verdict FROM w.seeds s JOIN w.urls wu ON wu.id = s.url_id
                 JOIN main.urls mu ON mu.url = wu.url
                 WHERE mu.id = main.seeds.url_id AND s.verdict IS NOT NULL LIMIT 1)
             WHERE verdict IS NULL;
             INSERT OR IGNORE INTO main.seed_hits (url_id, source, engine, query, page, rank,
                 retrieved_at, result_url, title, snippet)
             SELECT mu.id, h.source, h.engine, h.query, h.page, h.rank, h.retrieved_at,
                 h.result_url, h.title, h.snippet FROM w.seed_hits h
             JOIN w.urls wu ON wu.id = h.url_id JOIN main.urls mu ON mu.url = wu.url;
             INSERT OR IGNORE INTO main.searches SELECT * FROM w.searches;
             INSERT INTO main.hosts (host, robots_status, robots_body, crawl_delay,
                 robots_fetched_at, fetched, failures, gave_up)
             SELECT host, robots_status, robots_body, crawl_delay, robots_fetched_at, fetched,
                 failures, gave_up FROM w.hosts WHERE true
             ON CONFLICT (host) DO UPDATE SET
                 fetched = fetched + excluded.fetched,
                 robots_status = coalesce(robots_status, excluded.robots_status),
                 robots_body = coalesce(robots_body, excluded.robots_body),
                 crawl_delay = coalesce(crawl_delay, excluded.crawl_delay),
                 robots_fetched_at = coalesce(robots_fetched_at, excluded.robots_fetched_at),
                 gave_up = coalesce(gave_up, excluded.gave_up);
             INSERT OR REPLACE INTO main.judged (url_id, tokens)
             SELECT won.mid, j.tokens FROM w.judged j JOIN temp.won ON won.wid = j.url_id;",
        )?;
        c.execute(
            "INSERT INTO main.visits (url_id, at, status, length, body_md5, text_md5, plain_md5,
                 last_modified, last_modified_raw, expires, expires_raw, etag, content_language,
                 server, change, detail, warc_file, warc_offset, warc_length)
             SELECT won.mid, v.at, v.status, v.length, v.body_md5, v.text_md5, v.plain_md5,
                 v.last_modified, v.last_modified_raw, v.expires, v.expires_raw, v.etag,
                 v.content_language, v.server, v.change, v.detail, v.warc_file,
                 v.warc_offset + ?1, v.warc_length
             FROM w.visits v JOIN temp.won ON won.wid = v.url_id ORDER BY v.id",
            params![base],
        )?;
        c.execute_batch("DROP TABLE temp.won")?;
        Ok(Merged {
            settled: u64::try_from(settled).unwrap_or(0),
            duplicates: u64::try_from(duplicates).unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{FetchRow, Reason, Via};

    fn fetched(store: &mut Store, url: &str, parent: Option<i64>, offset: u64) -> i64 {
        let (id, _) = store
            .insert_url(url, "http://a.test:80", 1, parent, Via::Link, 0.5, 0.0)
            .unwrap();
        let row = FetchRow {
            status: 200,
            content_type: Some("text/html".into()),
            length: 10,
            last_modified: None,
            etag: None,
            server: None,
            location: None,
            fetched_at: 1.0,
            elapsed_ms: 5,
            warc: Some(("glaneur-00000.warc.gz".into(), offset, 100)),
        };
        store.fetched(id, &row, Reason::Kept, "").unwrap();
        id
    }

    fn state_of(store: &Store, url: &str) -> (String, Option<i64>, Option<i64>) {
        store
            .conn
            .query_row(
                "SELECT state, warc_offset, parent_id FROM urls WHERE url = ?1",
                [url],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap()
    }

    #[test]
    fn a_fetch_wins_over_a_skip_and_the_first_fetch_over_a_second() {
        let dir = tempfile::tempdir().unwrap();
        // Worker 1 fetched the start page and /a, refused /b (found too deep), left /c queued.
        let mut w1 = Store::open(&dir.path().join("w1.sqlite")).unwrap();
        let root = fetched(&mut w1, "http://a.test/", None, 0);
        fetched(&mut w1, "http://a.test/a", Some(root), 100);
        let (b, _) = w1
            .insert_url(
                "http://a.test/b",
                "http://a.test:80",
                9,
                Some(root),
                Via::Link,
                0.1,
                0.0,
            )
            .unwrap();
        w1.skip(b, Reason::DepthLimit, "depth 9").unwrap();
        w1.insert_url(
            "http://a.test/c",
            "http://a.test:80",
            1,
            Some(root),
            Via::Link,
            0.1,
            0.0,
        )
        .unwrap();
        w1.link(root, b, "anchor", "b", 1).unwrap();
        w1.commit().unwrap();
        // Worker 2 fetched /a again (around a kill), /b and /c.
        let mut w2 = Store::open(&dir.path().join("w2.sqlite")).unwrap();
        fetched(&mut w2, "http://a.test/c", None, 0);
        fetched(&mut w2, "http://a.test/a", None, 100);
        fetched(&mut w2, "http://a.test/b", None, 200);
        w2.commit().unwrap();
        drop((w1, w2));

        let mut all = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
        let first = all.merge_worker(&dir.path().join("w1.sqlite"), 0).unwrap();
        let second = all
            .merge_worker(&dir.path().join("w2.sqlite"), 1000)
            .unwrap();
        assert_eq!(
            first,
            Merged {
                settled: 3,
                duplicates: 0
            }
        );
        // /c and /b from worker 2 (its offsets moved by 1000); /a kept from worker 1.
        assert_eq!(
            second,
            Merged {
                settled: 2,
                duplicates: 1
            }
        );
        let root_id = all.url_id("http://a.test/").unwrap();
        assert_eq!(
            state_of(&all, "http://a.test/a"),
            ("fetched".into(), Some(100), root_id)
        );
        assert_eq!(
            state_of(&all, "http://a.test/b"),
            ("fetched".into(), Some(1200), root_id)
        );
        assert_eq!(
            state_of(&all, "http://a.test/c"),
            ("fetched".into(), Some(1000), root_id)
        );
        let links: i64 = all
            .conn
            .query_row("SELECT count(*) FROM links", [], |r| r.get(0))
            .unwrap();
        assert_eq!(links, 1);
        // The store is usable afterwards (a transaction is open again).
        all.set_meta("x", "y").unwrap();
        all.commit().unwrap();
    }

    #[test]
    fn what_no_worker_took_gets_the_reason_a_single_process_gives() {
        let dir = tempfile::tempdir().unwrap();
        // Worker 1 fetched two pages of a.test and found /c there and /x on b.test; it handed
        // both to the shared frontier and no worker took them.
        let mut w1 = Store::open(&dir.path().join("w1.sqlite")).unwrap();
        let root = fetched(&mut w1, "http://a.test/", None, 0);
        fetched(&mut w1, "http://a.test/a", Some(root), 100);
        w1.host_fetched("http://a.test:80", false).unwrap();
        w1.host_fetched("http://a.test:80", false).unwrap();
        for (url, host) in [
            ("http://a.test/c", "http://a.test:80"),
            ("http://b.test/x", "http://b.test:80"),
        ] {
            w1.insert_url(url, host, 1, Some(root), Via::Link, 0.1, 0.0)
                .unwrap();
        }
        w1.commit().unwrap();
        drop(w1);
        let reasons = |per_host: u64, max_pages: u64| {
            let path = dir
                .path()
                .join(format!("all-{per_host}-{max_pages}.sqlite"));
            let mut all = Store::open(&path).unwrap();
            all.merge_worker(&dir.path().join("w1.sqlite"), 0).unwrap();
            assert_eq!(all.explain_collected(per_host, max_pages).unwrap(), 2);
            let reason = |url: &str| -> (String, String) {
                all.conn
                    .query_row(
                        "SELECT state || ' ' || reason, detail FROM urls WHERE url = ?1",
                        [url],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .unwrap()
            };
            (reason("http://a.test/c"), reason("http://b.test/x"))
        };
        // a.test gave its 2 pages: host-budget there; the 2 requests spent a budget of 2.
        let (c, x) = reasons(2, 2);
        assert_eq!(c.0, "queued host-budget");
        assert!(c.1.contains("gave 2 pages"), "{c:?}");
        assert_eq!(x.0, "queued page-budget");
        // Budgets not reached: the shared crawl ended first.
        let (c, x) = reasons(10, 100);
        assert_eq!(c.0, "queued interrupted");
        assert_eq!(x.0, "queued interrupted");
    }
}
