//! The extract cache: what the last extraction read from each stored page, kept so that the
//! next one decodes and cleans again only the pages whose stored copy changed.
//!
//! **In:** `extract-cache.jsonl` in the run folder: a stamp line, then pass 1's lines (a page,
//! what reading it gave, its paragraph keys) in URL-id order, as the last completed extraction
//! wrote them to `extract.tmp/pages.jsonl`.
//! **Out:** for each stored page, listed in URL-id order, the cached line when it was read from
//! the page's current stored copy (same URL id, URL, content type and WARC record). The stage
//! still reads that record back (its gzip checksum checked), so a record damaged since is
//! named `unreadable` as in a full extraction.
//!
//! **Invariants:** a cache written by another glaneur build, with other reading options
//! (`[output] keep_everything`, `[text] paragraph_language`, the link and attribute caps, the
//! robots product token) or for another crawl store is ignored whole; a line is used only
//! when the record read back now has the `WARC-Record-ID` it was read from and reading it
//! had succeeded (an `unreadable` page is always read again); a cache that cannot be read or
//! holds a damaged line costs a re-reading, never an error; the cache is only ever
//! replaced by a completed extraction's pass 1 (the stage renames its scratch file), so its
//! lines are what a full extraction would compute from the same stored copies. Only pass 1 is
//! cached: host boilerplate, the decision and duplicates are corpus-wide and computed again
//! over every page, so a changed page can change another's fate, as in a full extraction.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use stages::page::extract::ExtractOptions;

use super::spill;
use crate::store::StoredPage;

/// The cache's file name in the run folder.
pub const FILE: &str = "extract-cache.jsonl";

/// Bumped when pass 1's line changes shape or meaning.
const FORMAT: u32 = 1;

/// The stamp line: the cache serves only an extraction with the same stamp.
pub(super) fn stamp(
    store_id: &str,
    options: &ExtractOptions,
    paragraph_language: bool,
    product_token: &str,
) -> String {
    let options = format!("{options:?}|{paragraph_language}|{product_token}");
    serde_json::json!({
        "format": FORMAT,
        "glaneur": env!("CARGO_PKG_VERSION"),
        "build": build(),
        "store": store_id,
        "options": crate::crawl::digest::md5_hex(options.as_bytes()),
    })
    .to_string()
}

/// This binary: its size and modification time. The reading code changes between builds
/// without the version number changing, so a cache serves only the build that wrote it (one
/// that cannot be identified serves nobody).
fn build() -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD
        .get_or_init(|| {
            std::env::current_exe()
                .and_then(std::fs::metadata)
                .and_then(|m| {
                    let since = m
                        .modified()?
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap_or_default();
                    Ok(format!("{}-{}", m.len(), since.as_nanos()))
                })
                .unwrap_or_else(|_| uuid::Uuid::new_v4().to_string())
        })
        .clone()
}

/// The part of a cached line that says which stored copy it was read from.
#[derive(Deserialize, PartialEq)]
struct Copy {
    id: i64,
    url: String,
    content_type: Option<String>,
    warc: (String, u64, u64),
    #[serde(default)]
    seed_source: Option<String>,
}

impl Copy {
    fn is(&self, page: &StoredPage) -> bool {
        self.id == page.id
            && self.url == page.url
            && self.content_type == page.content_type
            && self.warc == page.warc
            && self.seed_source == page.seed_source
    }
}

#[derive(Deserialize)]
struct Head {
    page: Copy,
}

/// The previous extraction's lines, walked alongside the stored pages.
pub(super) struct Cache {
    lines: Option<spill::Reader>,
    ahead: Option<(Copy, String)>,
}

impl Cache {
    /// The cache at `path` when its stamp is `stamp`; an empty cache otherwise (no file, other
    /// stamp, unreadable).
    pub(super) fn open(path: &Path, stamp: &str) -> Cache {
        let mut lines = spill::Reader::open(path).ok();
        let matches = match lines.as_mut().and_then(Iterator::next) {
            Some(Ok((first, _))) => first.trim_end() == stamp,
            _ => false,
        };
        Cache {
            lines: lines.filter(|_| matches),
            ahead: None,
        }
    }

    /// The cached line for `page`, if it was read from the page's current stored copy. Pages
    /// must be asked for in increasing URL id.
    pub(super) fn take(&mut self, page: &StoredPage) -> Option<String> {
        loop {
            if self.ahead.is_none() {
                let line = match self.lines.as_mut()?.next() {
                    Some(Ok((line, _))) => line,
                    // The end, or a read error: the remaining pages are read again.
                    _ => {
                        self.lines = None;
                        return None;
                    }
                };
                match serde_json::from_str::<Head>(&line) {
                    Ok(head) => self.ahead = Some((head.page, line)),
                    Err(_) => continue,
                }
            }
            let id = self.ahead.as_ref().map_or(i64::MAX, |(copy, _)| copy.id);
            if id < page.id {
                self.ahead = None;
                continue;
            }
            if id > page.id {
                return None;
            }
            let (copy, line) = self.ahead.take()?;
            return copy.is(page).then_some(line);
        }
    }
}

/// Where the cache lives in `run_dir`.
pub(super) fn path(run_dir: &Path) -> PathBuf {
    run_dir.join(FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(id: i64, offset: u64) -> StoredPage {
        StoredPage {
            id,
            url: format!("http://a.test/{id}"),
            depth: 1,
            seed: false,
            seed_source: None,
            content_type: Some("text/html".into()),
            last_modified: None,
            fetched_at: 1.0,
            warc: ("glaneur-00000.warc.gz".into(), offset, 100),
        }
    }

    fn line(p: &StoredPage) -> String {
        serde_json::json!({"page": p, "outcome": {"Err": "x"}, "keys": []}).to_string()
    }

    #[test]
    fn only_a_line_read_from_the_same_stored_copy_is_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let first = stamp("s1", &ExtractOptions::default(), false, "glaneur");
        let old = [page(1, 0), page(2, 100), page(4, 200), page(5, 300)];
        let mut text = format!("{first}\n");
        for p in &old {
            text.push_str(&line(p));
            text.push('\n');
        }
        text.push_str("{damaged\n");
        std::fs::write(&path, text).unwrap();

        let mut cache = Cache::open(&path, &first);
        // Page 1 unchanged; page 2 stored again elsewhere (a new version); page 3 new; page 4
        // gone from the list; page 5 unchanged but fetched again later (a 304: same copy).
        assert!(cache.take(&page(1, 0)).is_some());
        assert!(cache.take(&page(2, 900)).is_none());
        assert!(cache.take(&page(3, 400)).is_none());
        let mut later = page(5, 300);
        later.fetched_at = 99.0;
        assert!(cache.take(&later).is_some());
        assert!(cache.take(&page(6, 500)).is_none());

        // Another stamp (other options, another store): nothing is reused.
        let other = stamp("s2", &ExtractOptions::default(), false, "glaneur");
        let mut cache = Cache::open(&path, &other);
        assert!(cache.take(&page(1, 0)).is_none());
        let keep = ExtractOptions {
            keep_everything: true,
            ..ExtractOptions::default()
        };
        assert_ne!(stamp("s1", &keep, false, "glaneur"), first);
        assert_ne!(
            stamp("s1", &ExtractOptions::default(), true, "glaneur"),
            first
        );
        // No file at all: an empty cache.
        let mut none = Cache::open(&dir.path().join("none.jsonl"), &first);
        assert!(none.take(&page(1, 0)).is_none());
    }
}
