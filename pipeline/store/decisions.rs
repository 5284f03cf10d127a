//! The decision log as the web interface pages through it: URLs with their state, reason,
//! depth and score, filtered; one URL with the chain of pages that led to it.
//!
//! **In:** table `urls`. **Out:** [`Decision`] rows, a page at a time.
//!
//! **Invariants:** read-only; a page of the log is `LIMIT`ed; a chain stops at a seed, at a
//! URL already in it, or after [`MAX_CHAIN`] steps.

use rusqlite::{OptionalExtension, params};

use super::Store;

/// Steps of a chain followed at most (a seed is rarely more than `[crawl] max_depth` away).
pub const MAX_CHAIN: usize = 200;

/// One URL's decision.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Decision {
    /// URL id.
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// `queued`, `fetched`, `skipped`, `failed`.
    pub state: String,
    /// The reason's name (empty while queued and not reached).
    pub reason: String,
    /// The reason's detail, when the crawl wrote one.
    pub detail: String,
    /// Link depth from the nearest seed.
    pub depth: i64,
    /// How it was found: `seed`, `link`, `redirect`, `robots` (a sitemap robots.txt names),
    /// `sitemap`, `feed`, `javascript`.
    pub via: String,
    /// The page that led to it.
    pub parent: Option<i64>,
    /// HTTP status, when fetched.
    pub status: Option<i64>,
    /// Topic score, when read.
    pub score: Option<f64>,
    /// Priority it was queued with.
    pub priority: f64,
    /// Formula clauses found, when read.
    pub matched: String,
}

/// What the log shows: any of the fields may be left out.
#[derive(Debug, Clone, Default)]
pub struct DecisionFilter {
    /// Final state.
    pub state: Option<String>,
    /// Reason name.
    pub reason: Option<String>,
    /// A piece of the URL.
    pub url_contains: Option<String>,
}

const COLUMNS: &str = "id, url, state, COALESCE(reason, ''), COALESCE(detail, ''), depth, via,
    parent_id, status, score, priority, COALESCE(matched, '')";

fn decision(r: &rusqlite::Row<'_>) -> rusqlite::Result<Decision> {
    Ok(Decision {
        id: r.get(0)?,
        url: r.get(1)?,
        state: r.get(2)?,
        reason: r.get(3)?,
        detail: r.get(4)?,
        depth: r.get(5)?,
        via: r.get(6)?,
        parent: r.get(7)?,
        status: r.get(8)?,
        score: r.get(9)?,
        priority: r.get(10)?,
        matched: r.get(11)?,
    })
}

impl Store {
    /// URLs matching `filter` by id (the order they were found), `limit` from `offset`, and
    /// whether more follow.
    pub fn decisions(
        &self,
        filter: &DecisionFilter,
        limit: u32,
        offset: u64,
    ) -> anyhow::Result<(Vec<Decision>, bool)> {
        let like = filter.url_contains.as_ref().map(|s| {
            let escaped = s
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        });
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM urls
             WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR COALESCE(reason, '') = ?2)
               AND (?3 IS NULL OR url LIKE ?3 ESCAPE '\\')
             ORDER BY id LIMIT ?4 OFFSET ?5"
        ))?;
        let mut rows: Vec<Decision> = stmt
            .query_map(
                params![
                    filter.state,
                    filter.reason,
                    like,
                    i64::from(limit) + 1,
                    i64::try_from(offset).unwrap_or(i64::MAX)
                ],
                decision,
            )?
            .collect::<Result<_, _>>()?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        Ok((rows, more))
    }

    /// One URL's decision.
    pub fn decision_of(&self, id: i64) -> anyhow::Result<Option<Decision>> {
        Ok(self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM urls WHERE id = ?1"))?
            .query_row(params![id], decision)
            .optional()?)
    }

    /// The URL `id` and the pages that led to it, the URL first and its seed last.
    pub fn decision_chain(&self, id: i64) -> anyhow::Result<Vec<Decision>> {
        let mut chain: Vec<Decision> = Vec::new();
        let mut next = Some(id);
        while let Some(at) = next {
            if chain.len() >= MAX_CHAIN || chain.iter().any(|d| d.id == at) {
                break;
            }
            let Some(d) = self.decision_of(at)? else {
                break;
            };
            next = d.parent;
            chain.push(d);
        }
        Ok(chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Reason, Via};

    #[test]
    fn the_log_filters_pages_and_follows_a_url_back_to_its_seed() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
        let (seed, _) = store
            .insert_url(
                "http://a.test/",
                "http://a.test:80",
                0,
                None,
                Via::Seed,
                1.0,
                0.0,
            )
            .unwrap();
        let (page, _) = store
            .insert_url(
                "http://a.test/p_1%",
                "http://a.test:80",
                1,
                Some(seed),
                Via::Link,
                0.5,
                0.0,
            )
            .unwrap();
        let (barred, _) = store
            .insert_url(
                "http://a.test/private/x",
                "http://a.test:80",
                2,
                Some(page),
                Via::Link,
                0.4,
                0.0,
            )
            .unwrap();
        store
            .skip(barred, Reason::Robots, "Disallow: /private/")
            .unwrap();
        store.commit().unwrap();
        let all = store.decisions(&DecisionFilter::default(), 2, 0).unwrap();
        assert_eq!(all.0.len(), 2);
        assert!(all.1, "a third URL follows");
        let robots = DecisionFilter {
            reason: Some("robots".into()),
            ..DecisionFilter::default()
        };
        let (rows, more) = store.decisions(&robots, 10, 0).unwrap();
        assert_eq!((rows.len(), more), (1, false));
        assert_eq!(rows[0].detail, "Disallow: /private/");
        // `_` and `%` in the piece of URL are literal.
        let literal = DecisionFilter {
            url_contains: Some("p_1%".into()),
            ..DecisionFilter::default()
        };
        assert_eq!(store.decisions(&literal, 10, 0).unwrap().0.len(), 1);
        let wild = DecisionFilter {
            url_contains: Some("p_".into()),
            ..DecisionFilter::default()
        };
        assert_eq!(store.decisions(&wild, 10, 0).unwrap().0.len(), 1);
        let chain: Vec<i64> = store
            .decision_chain(barred)
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect();
        assert_eq!(chain, [barred, page, seed]);
        assert!(store.decision_of(9999).unwrap().is_none());
    }
}
