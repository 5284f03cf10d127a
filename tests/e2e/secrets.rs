//! Secrets through the binary: a PostgreSQL password in every spelling a connection string
//! allows never reaches stderr (nor the lock file), errors carry no colour codes when stderr is
//! not a terminal, and a worker that cannot reach its database leaves no folder behind. The
//! database is never reached: port 1 of loopback refuses, port 99999 does not exist.

use crate::support::*;

/// The basic scenario's topic (its web is never reached: the worker stops at the database).
fn topic() -> std::path::PathBuf {
    scenario("basic").join("topic.toml")
}

#[test]
fn a_database_password_is_never_printed_whatever_its_spelling() {
    let spellings = [
        "postgres://glaneur:Pa55word@127.0.0.1:99999/crawls",
        "postgres://glaneur:Pa55word@127.0.0.1:1/crawls",
        "postgres://glaneur:Pa5#5/w@rd@127.0.0.1:1/crawls",
        "postgresql://glaneur@127.0.0.1:1/crawls?password=Pa55word&sslmode=disable",
        "host=127.0.0.1 port=1 user=glaneur password=Pa55word dbname=crawls",
        "host=127.0.0.1 port=1 user=glaneur password = Pa55word dbname=crawls",
        "host=127.0.0.1 port=1 user=glaneur password='Pa55 word' dbname=crawls",
        "host=127.0.0.1 port=99999 user=glaneur password='Pa55word'",
        "host=127.0.0.1 port=1 password='Pa55word",
        // Malformed: a space in an unquoted value, a raw `&` in a URL's query.
        "host=127.0.0.1 port=1 password=Pa55 word dbname=crawls",
        "postgresql://glaneur@127.0.0.1:1/crawls?password=Pa55#w&rd&sslmode=disable",
        // An `@` that would send the password to another server (127.0.0.2 on port 5432):
        // refused before connecting.
        "postgres://glaneur:Pa55word@127.0.0.2/x@127.0.0.1:1/crawls",
    ];
    for store in spellings {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        for command in ["worker", "run"] {
            let output = glaneur()
                .arg(command)
                .arg(topic())
                .arg("--out")
                .arg(&out)
                .args(["--store", store, "--quiet"])
                .env("GLANEUR_LOG", "debug")
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{command} {store}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            let stdout = String::from_utf8_lossy(&output.stdout);
            for secret in ["Pa55", "55word", "w@rd", "Pa5#5", "5#w", "w&rd", " word"] {
                assert!(
                    !stderr.contains(secret) && !stdout.contains(secret),
                    "{command} --store {store}: the password is printed:\n{stderr}{stdout}"
                );
            }
            assert!(
                !stderr.contains('\u{1b}'),
                "colour codes on a stderr that is not a terminal:\n{stderr:?}"
            );
            assert!(
                stderr.contains("127.0.0.1")
                    || stderr.contains("invalid")
                    || stderr.contains("percent-encoded"),
                "the error names nothing: {stderr}"
            );
            if store.contains("127.0.0.2") {
                assert!(
                    stderr.contains("percent-encoded") && !stderr.contains("cannot connect"),
                    "{stderr}"
                );
            }
            // Nothing stored: no folder left, not even the run folder the worker would have
            // made.
            assert!(
                !out.exists(),
                "{command} --store {store} left {}",
                out.display()
            );
        }
    }
}

#[test]
fn a_worker_that_cannot_reach_its_database_leaves_an_existing_run_folder_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    std::fs::create_dir_all(out.join("workers/w0")).unwrap();
    std::fs::write(out.join("workers/w0/crawl.sqlite"), b"x").unwrap();
    let output = glaneur()
        .arg("worker")
        .arg(topic())
        .arg("--out")
        .arg(&out)
        .args([
            "--store",
            "postgres://u:Pa55word@127.0.0.1:1/db",
            "--name",
            "w1",
        ])
        .output()
        .unwrap();
    assert_exit(&output, 2);
    assert!(!out.join("workers/w1").exists());
    assert!(out.join("workers/w0/crawl.sqlite").is_file());
}
