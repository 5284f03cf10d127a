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
//!
//! A run folder made by `glaneur collect` borrows its workers' caches (each worker reads its
//! own pages when its crawl ends): a worker's line serves the collected page of the same URL
//! when the worker's stamp is this extraction's but for the store (same build, same reading
//! options) and the line's content type is the page's; the line is given the collected page's
//! row, and the record read back must still have the line's `WARC-Record-ID` (a URL two
//! workers fetched keeps the first worker's response: the other's line is not used).

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
        self.same_copy(page) && self.seed_source == page.seed_source
    }

    /// The same stored copy: URL id, URL, content type and WARC record's place.
    fn same_copy(&self, page: &StoredPage) -> bool {
        self.id == page.id
            && self.url == page.url
            && self.content_type == page.content_type
            && self.warc == page.warc
    }
}

#[derive(Deserialize)]
struct Head {
    page: Copy,
}

/// The previous extraction's lines, walked alongside the stored pages; in a collected run
/// folder, the workers' lines too, looked up by URL.
pub(super) struct Cache {
    lines: Option<spill::Reader>,
    ahead: Option<(Copy, String)>,
    followed: Option<Followed>,
    borrowed: Option<Borrowed>,
}

/// The lines read while the crawl ran (see `follow`): each page's last line, by URL id.
struct Followed {
    file: std::io::BufReader<std::fs::File>,
    /// (URL id, offset), sorted by id, one per id.
    index: Vec<(i64, u64)>,
}

/// The workers' caches of a collected run: each file, and where each URL's line is.
struct Borrowed {
    files: Vec<std::io::BufReader<std::fs::File>>,
    /// URL → (file, offset), the first worker's line for a URL two of them read.
    index: std::collections::HashMap<String, (usize, u64)>,
}

/// The URL of a worker's cached line (its index key).
#[derive(Deserialize)]
struct TypeOf {
    page: UrlOf,
}

#[derive(Deserialize)]
struct UrlOf {
    url: String,
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
            followed: None,
            borrowed: None,
        }
    }

    /// Also the lines the reader that followed the crawl wrote to `path`, when its stamp is
    /// `stamp` (a missing or unreadable file serves nothing).
    pub(super) fn follow(&mut self, path: &Path, stamp: &str) {
        let Ok(lines) = spill::Reader::open(path) else {
            return;
        };
        let Some(index) = index_followed(lines, stamp) else {
            return;
        };
        if let Ok(file) = std::fs::File::open(path) {
            self.followed = (!index.is_empty()).then(|| Followed {
                file: std::io::BufReader::new(file),
                index,
            });
        }
    }

    /// A collected run folder without a cache of its own: the caches of the workers named
    /// (their folders in `run_dir/workers/`, in the order they were collected) whose stamp is
    /// `stamp` but for the store. A worker's cache that is missing or unreadable serves nothing.
    pub(super) fn borrow_workers(&mut self, run_dir: &Path, workers: &[&str], stamp: &str) {
        if self.lines.is_some() {
            return;
        }
        let mut borrowed = Borrowed {
            files: Vec::new(),
            index: std::collections::HashMap::new(),
        };
        for name in workers {
            let path = path(&run_dir.join("workers").join(name));
            let Ok(lines) = spill::Reader::open(&path) else {
                continue;
            };
            let file = borrowed.files.len();
            if index_worker(lines, stamp, file, &mut borrowed.index) {
                match std::fs::File::open(&path) {
                    Ok(f) => borrowed.files.push(std::io::BufReader::new(f)),
                    Err(_) => borrowed.index.retain(|_, (i, _)| *i != file),
                }
            }
        }
        self.borrowed = (!borrowed.index.is_empty()).then_some(borrowed);
    }

    /// The cached line for `page`, if it was read from the page's current stored copy. Pages
    /// must be asked for in increasing URL id.
    /// The line comes with whether the reader that followed the crawl wrote it.
    pub(super) fn take(&mut self, page: &StoredPage) -> Option<(String, bool)> {
        if let Some(line) = self.take_own(page) {
            return Some((line, false));
        }
        if let Some(line) = self.followed.as_mut().and_then(|f| f.take(page)) {
            return Some((line, true));
        }
        Some((self.borrowed.as_mut()?.take(page)?, false))
    }

    fn take_own(&mut self, page: &StoredPage) -> Option<String> {
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

/// The reader's lines by URL id (the last one of each id), when its stamp is `stamp`.
fn index_followed(mut lines: spill::Reader, stamp: &str) -> Option<Vec<(i64, u64)>> {
    let (first, first_len) = lines.next()?.ok()?;
    if first.trim_end() != stamp {
        return None;
    }
    let mut index = Vec::new();
    let mut offset = first_len as u64;
    for line in lines {
        let Ok((line, n)) = line else {
            break;
        };
        // A torn last line (a run stopped as it was written) is not a page.
        if line.ends_with('\n')
            && let Some(id) = line_id(&line)
        {
            index.push((id, offset));
        }
        offset += n as u64;
    }
    // The last line of an id is its latest reading: the largest offset first, then kept.
    index.sort_unstable_by_key(|&(id, at)| (id, std::cmp::Reverse(at)));
    index.dedup_by_key(|&mut (id, _)| id);
    Some(index)
}

/// The URL id of a pass-1 line, read from its start (`{"page":{"id":N,…`) without parsing
/// the whole line; else parsed.
fn line_id(line: &str) -> Option<i64> {
    if let Some(rest) = line.strip_prefix("{\"page\":{\"id\":") {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .map_or(rest, |end| &rest[..end]);
        if let Ok(id) = digits.parse() {
            return Some(id);
        }
    }
    serde_json::from_str::<Head>(line).ok().map(|h| h.page.id)
}

impl Followed {
    /// The reader's line for `page` when it was read from the page's current stored copy.
    fn take(&mut self, page: &StoredPage) -> Option<String> {
        let at = self
            .index
            .binary_search_by_key(&page.id, |&(id, _)| id)
            .ok()?;
        let line = line_at(&mut self.file, self.index.get(at)?.1)?;
        let head = serde_json::from_str::<Head>(&line).ok()?;
        // The seed source is not compared: it is the page's row, not what reading it gave,
        // and the stage gives the line the page's current row.
        head.page.same_copy(page).then_some(line)
    }
}

/// Indexes a worker's cache file by URL when its stamp is `stamp` but for the store (lines
/// already indexed from an earlier worker stay). Whether it serves.
fn index_worker(
    mut lines: spill::Reader,
    stamp: &str,
    file: usize,
    index: &mut std::collections::HashMap<String, (usize, u64)>,
) -> bool {
    let Some(Ok((first, first_len))) = lines.next() else {
        return false;
    };
    if !same_but_store(first.trim_end(), stamp) {
        return false;
    }
    let mut offset = first_len as u64;
    for line in lines {
        let Ok((line, n)) = line else {
            break;
        };
        if let Ok(head) = serde_json::from_str::<TypeOf>(&line) {
            index.entry(head.page.url).or_insert((file, offset));
        }
        offset += n as u64;
    }
    true
}

/// Two stamps equal but for the crawl store they name.
fn same_but_store(theirs: &str, ours: &str) -> bool {
    let parse = |s: &str| {
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(s)
            .ok()
            .map(|mut m| {
                m.remove("store");
                m
            })
    };
    matches!((parse(theirs), parse(ours)), (Some(a), Some(b)) if a == b)
}

impl Borrowed {
    /// A worker's line for the page's URL, given the page's collected row.
    fn take(&mut self, page: &StoredPage) -> Option<String> {
        let (file, offset) = *self.index.get(&page.url)?;
        let line = line_at(self.files.get_mut(file)?, offset)?;
        let mut value: serde_json::Value = serde_json::from_str(&line).ok()?;
        let theirs = value.get("page")?;
        if theirs.get("url")?.as_str()? != page.url
            || theirs.get("content_type")?.as_str() != page.content_type.as_deref()
        {
            return None;
        }
        *value.get_mut("page")? = serde_json::to_value(page).ok()?;
        Some(value.to_string())
    }
}

/// The file of the reader that follows the crawl (see `follow`), in the run folder.
pub(super) const FOLLOWED_FILE: &str = "extract-follow.jsonl";

/// Where the reader that follows the crawl writes in `run_dir`.
pub(super) fn followed_path(run_dir: &Path) -> PathBuf {
    run_dir.join(FOLLOWED_FILE)
}

/// The line of a cache file at `offset` (None when it cannot be read: the page is read again).
fn line_at(file: &mut std::io::BufReader<std::fs::File>, offset: u64) -> Option<String> {
    use std::io::{BufRead, Seek};
    let mut line = String::new();
    file.seek(std::io::SeekFrom::Start(offset)).ok()?;
    file.read_line(&mut line).ok()?;
    Some(line)
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

    /// A worker's cache file with these pages, under `run/workers/NAME/`.
    fn worker_cache(run: &Path, name: &str, stamp: &str, pages: &[StoredPage]) {
        let dir = run.join("workers").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!("{stamp}\n");
        for p in pages {
            text.push_str(&line(p));
            text.push('\n');
        }
        std::fs::write(path(&dir), text).unwrap();
    }

    #[test]
    fn a_collected_run_borrows_its_workers_lines_by_url() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let options = ExtractOptions::default();
        let ours = stamp("collected", &options, false, "glaneur");
        // Worker w1 read pages 1 and 2 (its ids and WARC places); w2 read page 2 again (a
        // URL fetched twice around a kill) and page 3, as text/plain; w3 with other options.
        let at = |id: i64, worker_id: i64, offset: u64| {
            let mut p = page(id, offset);
            p.id = worker_id;
            p
        };
        worker_cache(
            run,
            "w1",
            &stamp("s1", &options, false, "glaneur"),
            &[at(1, 7, 0), at(2, 8, 50)],
        );
        let mut plain = at(3, 2, 90);
        plain.content_type = Some("text/plain".into());
        worker_cache(
            run,
            "w2",
            &stamp("s2", &options, false, "glaneur"),
            &[at(2, 1, 10), plain],
        );
        worker_cache(
            run,
            "w3",
            &stamp("s3", &options, true, "glaneur"),
            &[at(4, 1, 0)],
        );
        let mut cache = Cache::open(&path(run), &ours);
        cache.borrow_workers(run, &["w1", "w2", "w3", "gone"], &ours);

        // Page 1: w1's line, given the collected row.
        let collected = page(1, 1000);
        let (line, followed) = cache.take(&collected).unwrap();
        assert!(!followed);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["page"], serde_json::to_value(&collected).unwrap());
        assert_eq!(value["outcome"], serde_json::json!({"Err": "x"}));
        // Page 2: the first worker collected (w1) serves it.
        let value: serde_json::Value =
            serde_json::from_str(&cache.take(&page(2, 2000)).unwrap().0).unwrap();
        assert_eq!(value["page"]["warc"][1], 2000);
        // Page 3: w2 read it as text/plain; the collected row says text/html: not served.
        assert!(cache.take(&page(3, 3000)).is_none());
        // Page 4: w3 read with other options: never served.
        assert!(cache.take(&page(4, 4000)).is_none());
        // A run folder with a cache of its own does not borrow.
        let mut own = Cache::open(
            &path(run.join("workers/w1").as_path()),
            &stamp("s1", &options, false, "glaneur"),
        );
        own.borrow_workers(run, &["w2"], &ours);
        assert!(own.borrowed.is_none());
    }

    #[test]
    fn stamps_compare_without_their_store() {
        let options = ExtractOptions::default();
        let a = stamp("a", &options, false, "glaneur");
        assert!(same_but_store(&stamp("b", &options, false, "glaneur"), &a));
        assert!(!same_but_store(&stamp("b", &options, true, "glaneur"), &a));
        assert!(!same_but_store(&stamp("b", &options, false, "other"), &a));
        assert!(!same_but_store("not json", &a));
    }

    #[test]
    fn the_lines_read_while_the_crawl_ran_serve_their_stored_copy_only() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let options = ExtractOptions::default();
        let ours = stamp("s", &options, false, "glaneur");
        // In the order read: page 5, page 2, page 5 again (a newer copy), a torn line.
        let followed = run.join("extract-follow.jsonl");
        let torn = line(&page(7, 700));
        let text = [
            ours.clone(),
            line(&page(5, 100)),
            line(&page(2, 200)),
            line(&page(5, 500)),
            torn[..torn.len() / 2].to_string(),
        ]
        .join("\n");
        std::fs::write(&followed, text).unwrap();
        let mut cache = Cache::open(&path(run), &ours);
        cache.follow(&followed, &ours);
        assert_eq!(cache.take(&page(1, 0)), None);
        let (served, from_reader) = cache.take(&page(2, 200)).unwrap();
        assert!(from_reader);
        assert_eq!(served.trim_end(), line(&page(2, 200)));
        // Page 5's stored copy is the newer one; page 7's line was torn.
        assert!(cache.take(&page(5, 100)).is_none());
        assert!(cache.take(&page(5, 500)).is_some());
        assert!(cache.take(&page(7, 700)).is_none());
        // Another build's or reading's file serves nothing.
        let mut other = Cache::open(&path(run), &ours);
        other.follow(&followed, &stamp("s", &options, true, "glaneur"));
        assert!(other.take(&page(2, 200)).is_none());
    }
}
