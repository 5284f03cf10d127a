//! The `dedup` scenario: exact, diacritic-free and near copies of real GIMP manual pages, a
//! cookie notice repeated on every page of a host, and pages with untranslated English
//! paragraphs (see `tests/web/dedup/README.md`).

use std::collections::HashMap;

use crate::server::TestWeb;
use crate::support::*;

#[test]
fn copies_point_to_their_original_and_text_is_cleaned_across_pages() {
    let web = TestWeb::start(&scenario("dedup"));
    let out = tempfile::tempdir().unwrap();
    let output = run_topic(
        &scenario("dedup").join("topic.toml"),
        out.path(),
        &web.proxy(),
        &[],
    );
    assert_exit(&output, 0);
    let docs = docs(out.path());
    let by_url: HashMap<&str, &serde_json::Value> = docs
        .iter()
        .map(|d| (d["url"].as_str().unwrap(), d))
        .collect();
    let gimp = |page: &str| format!("http://docs.gimp.test/fr/{page}");
    let id_of = |url: &str| {
        by_url
            .get(url)
            .unwrap_or_else(|| panic!("{url} not kept: {:?}", reason_of(out.path(), url)))["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let groups = gimp("gimp-layer-groups.html");
    let undo = gimp("gimp-concepts-undo.html");

    // Every copy is dropped with the id and URL of the document it copies, in crawl.sqlite.
    let conn = db(out.path());
    let copy = |url: &str| -> (String, String, String) {
        conn.query_row(
            "SELECT reason, detail, duplicate_of FROM urls WHERE url = ?1",
            [url],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap_or_else(|e| panic!("{url}: {e}"))
    };
    let (reason, detail, of) = copy("http://miroir.test/gimp/groupes.html");
    assert_eq!(
        (reason.as_str(), of.as_str()),
        ("duplicate", id_of(&groups).as_str())
    );
    assert!(detail.contains(&groups), "{detail}");
    // The diacritic-free copy was fetched first, yet the version with diacritics is kept.
    let (reason, detail, of) = copy("http://sansaccents.test/annuler.html");
    assert_eq!(
        (reason.as_str(), of.as_str()),
        ("duplicate", id_of(&undo).as_str())
    );
    assert!(
        detail.contains("diacritics") && detail.contains(&undo),
        "{detail}"
    );
    let (reason, detail, of) = copy("http://ancien.test/groupes.html");
    assert_eq!(
        (reason.as_str(), of.as_str()),
        ("near-duplicate", id_of(&groups).as_str())
    );
    assert!(
        detail.contains("Jaccard") && detail.contains(&groups),
        "{detail}"
    );
    // The original lists its copies in docs.jsonl.
    let copies: Vec<(&str, &str)> = by_url[groups.as_str()]["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["url"].as_str().unwrap(), c["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        copies,
        vec![
            ("http://miroir.test/gimp/groupes.html", "exact"),
            ("http://ancien.test/groupes.html", "near")
        ]
    );

    // The cookie notice is gone from every kept page, and audited where it was removed (on
    // the six French pages; on the pages with English the per-page cleaner already drops it).
    let audit = std::fs::read_to_string(out.path().join("removed-paragraphs.csv")).unwrap();
    let mut cleaned = 0;
    for doc in &docs {
        let text = doc["paragraphs"].to_string();
        assert!(
            !text.contains("Nous utilisons des cookies"),
            "{}",
            doc["url"]
        );
        if doc["removed"]["host_boilerplate"] == 1 {
            cleaned += 1;
            let id = doc["id"].as_str().unwrap();
            assert!(
                audit.lines().any(|l| l.starts_with(id)
                    && l.contains(",host-boilerplate,on 6 of 9 pages of docs.gimp.test,")
                    && l.contains("Nous utilisons des cookies")),
                "{id}\n{audit}"
            );
        }
    }
    assert_eq!(cleaned, 6, "{audit}");

    // Untranslated English paragraphs are taken out of French pages, and only those; pages
    // that are mostly English are dropped whole.
    let groups_doc = by_url[groups.as_str()];
    assert_eq!(groups_doc["removed"]["language"], 1, "{groups_doc}");
    for p in groups_doc["paragraphs"].as_array().unwrap() {
        assert_ne!(p["lang"], "en", "{p}");
    }
    assert!(
        audit.contains(",language,en (detected),paragraph,A thin horizontal line marks where"),
        "{audit}"
    );
    for page in [
        "gimp-using-getting-unstuck.html",
        "gimp-stuck-layer-mask.html",
    ] {
        let (reason, detail) = reason_of(out.path(), &gimp(page)).unwrap();
        assert_eq!(reason, "language", "{page}: {detail}");
    }
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("paragraphs removed"), "{summary}");
    assert!(summary.contains("near-duplicate"), "{summary}");
}
