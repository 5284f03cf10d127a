//! Trust: a run folder is never destroyed by a second process, a damaged WARC record is named
//! and never silently cut, and `glaneur verify` says what is wrong and repairs what it can.
//!
//! The chain web of `resume.rs` (one host, 40 pages, each linking to the next, 40 ms per answer
//! and a 50 ms politeness delay) keeps a crawl busy for a few seconds.

use std::path::{Path, PathBuf};

use crate::resume::{assert_complete, chain_web, page_counts, spawn, wait_for_pages};
use crate::server::TestWeb;
use crate::support::*;

fn unreadable(out: &Path) -> i64 {
    db(out)
        .query_row(
            "SELECT COUNT(*) FROM urls WHERE reason = 'unreadable'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

/// The chain web (served without delays) crawled to its end in `dir/run`: the web, the topic
/// and the run folder.
fn finished_chain(dir: &Path) -> (TestWeb, PathBuf, PathBuf) {
    chain_web(dir);
    std::fs::write(dir.join("_routes.toml"), "").unwrap();
    let web = TestWeb::start(dir);
    let topic = dir.join("topic.toml");
    let out = dir.join("run");
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    (web, topic, out)
}

fn verify(out: &Path, extra: &[&str]) -> std::process::Output {
    glaneur()
        .arg("verify")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_second_run_on_a_busy_folder_is_refused_and_the_first_one_is_unharmed() {
    let dir = tempfile::tempdir().unwrap();
    chain_web(dir.path());
    let web = TestWeb::start(dir.path());
    let topic = dir.path().join("topic.toml");
    let out = dir.path().join("run");
    let first = spawn(&topic, &out, &web.proxy());
    wait_for_pages(&web, 3);
    // Started while the first one crawls: it must stop before touching anything.
    let second = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&second, 2);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains(&out.display().to_string()) && stderr.contains("in use by another glaneur"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("process {}", first.id())),
        "names the process holding the folder: {stderr}"
    );
    let first = first.wait_with_output().unwrap();
    assert_exit(&first, 0);
    assert_complete(&out);
    assert_eq!(unreadable(&out), 0);
    let counts = page_counts(&web);
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "fetched twice: {twice:?}");
    // An orderly end lets go of the folder: the next run starts without a word about it.
    let again = run_topic(&topic, &out, &web.proxy(), &["--from", "export"]);
    assert_exit(&again, 0);
    assert!(
        !String::from_utf8_lossy(&again.stderr).contains("taking over"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn a_killed_run_leaves_a_lock_the_next_run_takes_over() {
    let dir = tempfile::tempdir().unwrap();
    chain_web(dir.path());
    let web = TestWeb::start(dir.path());
    let topic = dir.path().join("topic.toml");
    let out = dir.path().join("run");
    let mut child = spawn(&topic, &out, &web.proxy());
    let pid = child.id();
    wait_for_pages(&web, 5);
    child.kill().unwrap();
    child.wait().unwrap();
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("process {pid}")) && stderr.contains("taking over"),
        "{stderr}"
    );
    assert_complete(&out);
}

#[test]
fn a_damaged_record_is_named_never_cut_and_fetched_again_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let (web, topic, out) = finished_chain(dir.path());
    let clean = verify(&out, &[]);
    assert_exit(&clean, 0);
    assert!(String::from_utf8_lossy(&clean.stdout).contains("result: sound"));

    // One flipped bit in the middle of a committed response record (page 20 of the chain).
    let target = "http://chaine.test/p20.html";
    let (offset, length): (i64, i64) = db(&out)
        .query_row(
            "SELECT warc_offset, warc_length FROM urls WHERE url = ?1",
            [target],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let warc = out.join("warc").join("glaneur-00000.warc.gz");
    let mut bytes = std::fs::read(&warc).unwrap();
    let size = bytes.len();
    bytes[(offset + length / 2) as usize] ^= 0x10;
    std::fs::write(&warc, &bytes).unwrap();

    // Resuming the finished run: nothing is cut, one page is unreadable and said so.
    let output = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&output, 0);
    assert_eq!(std::fs::metadata(&warc).unwrap().len() as usize, size);
    assert_eq!(unreadable(&out), 1);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("glaneur verify"), "{stdout}");
    let detail: String = db(&out)
        .query_row("SELECT detail FROM urls WHERE url = ?1", [target], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(
        detail.contains(&format!("offset {offset}")) && detail.contains("glaneur-00000.warc.gz"),
        "{detail}"
    );

    // verify names the page and the offset; --refetch queues it; the next run fetches it.
    let found = verify(&out, &[]);
    assert_exit(&found, 1);
    let report = String::from_utf8_lossy(&found.stdout);
    assert!(
        report.contains(target) && report.contains(&format!("offset {offset}")),
        "{report}"
    );
    assert_exit(&verify(&out, &["--refetch"]), 0);
    let before = page_counts(&web).get("/p20.html").copied().unwrap_or(0);
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    assert_eq!(
        page_counts(&web)["/p20.html"],
        before + 1,
        "fetched again once"
    );
    assert_eq!(unreadable(&out), 0);
    assert_complete(&out);
    let after = verify(&out, &[]);
    assert_exit(&after, 0);
    let report = String::from_utf8_lossy(&after.stdout);
    assert!(
        report.contains("result: sound") && report.contains("no page refers to them"),
        "{report}"
    );
}

#[test]
fn verify_refuses_what_is_not_a_run_folder() {
    let dir = tempfile::tempdir().unwrap();
    let output = verify(dir.path(), &[]);
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no crawl.sqlite"), "{stderr}");
}

#[test]
fn fatal_errors_name_the_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    // A damaged crawl database.
    let out = dir.path().join("run");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("crawl.sqlite"), vec![0x5a; 4096]).unwrap();
    let output = glaneur()
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&out.join("crawl.sqlite").display().to_string())
            && stderr.contains("damaged")
            && stderr.contains("glaneur verify"),
        "{stderr}"
    );
    // A damaged recorded web.
    let mut web = std::fs::read(repo().join("corpora/demo/web.warc.gz")).unwrap();
    let middle = web.len() / 2;
    web[middle] ^= 0xff;
    let replay = dir.path().join("abime.warc.gz");
    std::fs::write(&replay, web).unwrap();
    let output = glaneur()
        .args(["run", "--quiet", "--out"])
        .arg(dir.path().join("run2"))
        .arg("--replay")
        .arg(&replay)
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&replay.display().to_string()) && stderr.contains("damaged"),
        "{stderr}"
    );
}

#[test]
fn a_warc_file_cut_short_is_refused_then_repaired_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let (web, topic, out) = finished_chain(dir.path());
    // The file loses its last third (a copy gone wrong, a disk that lost its tail).
    let warc = out.join("warc").join("glaneur-00000.warc.gz");
    let size = std::fs::metadata(&warc).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&warc).unwrap();
    file.set_len(size * 2 / 3).unwrap();
    drop(file);
    // The crawl refuses to append after a cut it cannot account for, and names the file.
    let refused = run_topic(&topic, &out, &web.proxy(), &[]);
    assert_exit(&refused, 2);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&warc.display().to_string()) && stderr.contains("glaneur verify"),
        "{stderr}"
    );
    let found = verify(&out, &[]);
    assert_exit(&found, 1);
    assert!(
        String::from_utf8_lossy(&found.stdout).contains("its end was lost"),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );
    // --refetch: the pages whose records were lost go back to the frontier, and the crawl
    // goes on from what is left.
    assert_exit(&verify(&out, &["--refetch"]), 0);
    assert_exit(&run_topic(&topic, &out, &web.proxy(), &[]), 0);
    assert_complete(&out);
    let after = verify(&out, &[]);
    assert_exit(&after, 0);
}

#[test]
fn an_extraction_while_the_warc_was_away_is_not_remembered_once_it_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let (web, topic, out) = finished_chain(dir.path());
    let docs = std::fs::read_to_string(out.join("docs.jsonl")).unwrap();
    assert!(!docs.is_empty());
    // The WARC folder away (an archive copy under way, a disk not mounted): every page is
    // unreadable and the corpus empty.
    let (warc, away) = (out.join("warc"), dir.path().join("warc-away"));
    std::fs::rename(&warc, &away).unwrap();
    let output = run_topic(&topic, &out, &web.proxy(), &["--from", "extract"]);
    assert_exit(&output, 1);
    assert!(unreadable(&out) > 0);
    // Back: the extract stage's cache must not keep what it could not read.
    std::fs::rename(&away, &warc).unwrap();
    let output = run_topic(&topic, &out, &web.proxy(), &["--from", "extract"]);
    assert_exit(&output, 0);
    assert_eq!(unreadable(&out), 0);
    assert_eq!(
        std::fs::read_to_string(out.join("docs.jsonl")).unwrap(),
        docs
    );
}

#[test]
fn damaged_indexes_are_named_and_an_empty_database_never_makes_an_empty_export() {
    let dir = tempfile::tempdir().unwrap();
    let (_web, topic, out) = finished_chain(dir.path());
    let sound = verify(&out, &[]);
    assert_exit(&sound, 0);
    let text = String::from_utf8_lossy(&sound.stdout).into_owned();
    assert!(
        text.contains("index/:")
            && text.contains("search/:")
            && text.contains("match their checksums"),
        "{text}"
    );
    // One flipped byte in the query index: named, and the verdict says how to rebuild it.
    let ids = out.join("index/word.ids");
    let mut bytes = std::fs::read(&ids).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&ids, bytes).unwrap();
    let damaged = verify(&out, &[]);
    assert_exit(&damaged, 1);
    let text = String::from_utf8_lossy(&damaged.stdout).into_owned();
    assert!(text.contains("word.ids: changed"), "{text}");
    assert!(text.contains("--from export"), "{text}");
    assert_exit(
        &run_topic(&topic, &out, "http://127.0.0.1:9", &["--from", "export"]),
        0,
    );
    assert_exit(&verify(&out, &[]), 0);
    // A crawl database emptied (0 bytes): `--from` refuses, naming it, and leaves every
    // export as it was.
    let graph = std::fs::read(out.join("graph/links.graphml")).unwrap();
    std::fs::write(out.join("crawl.sqlite"), b"").unwrap();
    for wal in ["crawl.sqlite-wal", "crawl.sqlite-shm"] {
        let _ = std::fs::remove_file(out.join(wal));
    }
    for from in ["extract", "export"] {
        let output = run_topic(&topic, &out, "http://127.0.0.1:9", &["--from", from]);
        assert_exit(&output, 2);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("crawl.sqlite") && stderr.contains("empty (0 bytes)"),
            "{stderr}"
        );
    }
    assert_eq!(
        std::fs::read(out.join("graph/links.graphml")).unwrap(),
        graph
    );
    assert_eq!(
        std::fs::metadata(out.join("crawl.sqlite")).unwrap().len(),
        0
    );
    // Nor does a plain run start a new crawl over the archived one.
    let output = run_topic(&topic, &out, "http://127.0.0.1:9", &[]);
    assert_exit(&output, 2);
}
