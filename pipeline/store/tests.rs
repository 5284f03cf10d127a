//! Tests of the store: one row per URL, the write-ahead log, redirect chains, faults.

use super::*;

/// The error SQLite gives when another program holds the database.
pub(crate) fn busy_error() -> anyhow::Error {
    anyhow::Error::new(rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(5),
        None,
    ))
}

#[test]
fn urls_are_unique_and_settle_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
    let (a, new_a) = store
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
    let (a2, new_a2) = store
        .insert_url(
            "http://a.test/",
            "http://a.test:80",
            3,
            None,
            Via::Link,
            0.1,
            0.0,
        )
        .unwrap();
    assert!(new_a && !new_a2 && a == a2);
    let (b, _) = store
        .insert_url(
            "http://a.test/x",
            "http://a.test:80",
            1,
            Some(a),
            Via::Link,
            0.5,
            0.0,
        )
        .unwrap();
    store
        .skip(b, Reason::Robots, "disallowed by robots.txt")
        .unwrap();
    assert_eq!(store.queued().unwrap().len(), 1);
    store.commit().unwrap();
    drop(store);
    let store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
    let counts = store.reason_counts().unwrap();
    assert!(counts.contains(&(State::Skipped, Some(Reason::Robots), 1)));
    assert!(counts.contains(&(State::Queued, None, 1)));
}

#[test]
fn the_write_ahead_log_starts_over_while_the_crawl_writes_without_pause() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.sqlite");
    let wal = dir.path().join("crawl.sqlite-wal");
    let mut store = Store::open(&path).unwrap();
    assert!(store.checkpointer.is_some());
    store.log_restart_pages = 50;
    // Cut the file right back when the log starts over, so that the start shows.
    store
        .conn
        .pragma_update(None, "journal_size_limit", 0)
        .unwrap();
    let (mut largest, mut shrank, mut n) = (0, false, 0u32);
    let began = std::time::Instant::now();
    // A crawl loop writes all the time and commits about once a second (faster here):
    // the checkpoint thread never catches up with a commit before the next write.
    while began.elapsed() < std::time::Duration::from_secs(4) {
        for _ in 0..500 {
            n += 1;
            let url = format!("http://h{}.test/a/rather/long/path/to/page/{n}", n % 97);
            store
                .insert_url(&url, "http://h.test:80", 1, None, Via::Link, 0.5, 0.0)
                .unwrap();
        }
        store.commit().unwrap();
        let len = std::fs::metadata(&wal).map_or(0, |m| m.len());
        shrank |= len < largest;
        largest = largest.max(len);
    }
    assert!(
        shrank,
        "the log grew to {largest} bytes and never started over"
    );
    drop(store);
    let store = Store::open(&path).unwrap();
    let counts = store.reason_counts().unwrap();
    assert!(
        counts.contains(&(State::Queued, None, u64::from(n))),
        "{counts:?}"
    );
}

#[test]
fn redirect_hops_follow_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("c.sqlite")).unwrap();
    let (a, _) = store
        .insert_url("http://a.test/1", "h", 0, None, Via::Seed, 1.0, 0.0)
        .unwrap();
    let (b, _) = store
        .insert_url("http://a.test/2", "h", 0, Some(a), Via::Redirect, 1.0, 0.0)
        .unwrap();
    let (c, _) = store
        .insert_url("http://a.test/3", "h", 0, Some(b), Via::Redirect, 1.0, 0.0)
        .unwrap();
    assert_eq!(store.redirect_chain(c).unwrap(), (2, a));
    assert_eq!(store.redirect_chain(a).unwrap(), (0, a));
}

#[test]
fn every_url_knows_the_sources_of_the_seed_its_path_starts_from() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("c.sqlite")).unwrap();
    fn add(store: &mut Store, url: &str, parent: Option<i64>, via: Via) -> i64 {
        store
            .insert_url(url, "h", 0, parent, via, 1.0, 0.0)
            .unwrap()
            .0
    }
    let a = add(&mut store, "http://a.test/", None, Via::Seed);
    let b = add(&mut store, "http://b.test/", None, Via::Seed);
    let c = add(&mut store, "http://a.test/c", Some(a), Via::Link);
    let d = add(&mut store, "http://a.test/d", Some(c), Via::Link);
    let e = add(&mut store, "http://b.test/e", Some(b), Via::Redirect);
    let lost = add(&mut store, "http://x.test/", None, Via::Link);
    let late = add(&mut store, "http://a.test/late", None, Via::Link);
    store.seed(a, "topic", None, None, None).unwrap();
    store
        .seed(b, "search:bing", Some("bing"), Some("q"), Some(1))
        .unwrap();
    store.seed(b, "topic", None, None, None).unwrap();
    // A parent listed after its child (as a merge of workers' stores may leave them).
    let parent = add(&mut store, "http://a.test/p", Some(d), Via::Link);
    store
        .conn
        .execute(
            "UPDATE urls SET parent_id = ?1 WHERE id = ?2",
            [parent, late],
        )
        .unwrap();
    let sources = store.seed_sources().unwrap();
    assert_eq!(sources.of(a), Some("topic"));
    assert_eq!(sources.of(c), Some("topic"));
    assert_eq!(sources.of(d), Some("topic"));
    assert_eq!(sources.of(b), Some("search:bing + topic"));
    assert_eq!(sources.of(e), Some("search:bing + topic"));
    assert_eq!(sources.of(late), Some("topic"));
    assert_eq!(sources.of(lost), None);
    assert_eq!(sources.of(9999), None);
}

#[test]
fn not_pages_names_reasons_that_exist() {
    let list = super::NOT_PAGES.trim_matches(|c| c == '(' || c == ')');
    for name in list.split(',') {
        let name = name.trim().trim_matches('\'');
        assert!(
            crate::ground::outcome::Reason::parse(name).is_some(),
            "{name} is not a reason"
        );
    }
}

#[test]
fn discovery_counts_a_way_whose_urls_are_all_still_queued() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("crawl.sqlite")).unwrap();
    // A seed never fetched (another worker took it, or the budget ran out): no status, no
    // reason; its group sums to nothing, not to an error.
    store
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
    store.commit().unwrap();
    let counts = store.via_counts().unwrap();
    assert_eq!(counts.len(), 1);
    assert_eq!(counts[0].0, Via::Seed);
    assert_eq!((counts[0].1, counts[0].2, counts[0].3), (1, 0, 0));
}
