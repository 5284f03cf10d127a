//! The seed review: `RUN/seeds-review.tsv`, written by `glaneur seeds TOPIC` with a `keep`
//! column the user edits, and applied by `glaneur run` before the crawl (WebBootCaT's review
//! of the seed URLs).
//!
//! **In:** the seeds stored in `crawl.sqlite` (URL, sightings, state), the topic's `[domains]`,
//! what `glaneur seeds --fetch` learnt of each page; the review file as the user left it.
//! **Out:** the file written, or brought up to date ([`write`]); before the crawl, every seed
//! the file does not keep settled `skipped / seed-dropped`, and one it keeps again put back in
//! the frontier ([`apply`]), with a [`ReviewReport`].
//!
//! **Invariants:**
//! - without a review file nothing changes: every seed in scope is crawled;
//! - an existing file is the user's: its lines keep their order and their `keep`; only the
//!   information columns are brought up to date, and seeds found since it was written are
//!   appended (`yes` in scope, `no` off-domain); a line the user deleted is not added back
//!   (`crawl.sqlite` remembers which seeds the file was offered);
//! - a malformed file is an error naming the file and the line, before any request of the
//!   crawl; a seed already fetched cannot be taken back (the report says so).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::focus::score::{OutOfScope, Scope};
use stages::seeds::review::{Choice, Review, Row};

use crate::store::{Reason, SeedSighting, State, Store};

/// The review file, in the run folder.
pub const REVIEW_FILE: &str = "seeds-review.tsv";

/// `meta` key: the ids of the seeds the review file was offered (a JSON array), so that a line
/// the user deleted is told from a seed found since.
const OFFERED: &str = "seeds_review_offered";

/// What `glaneur seeds --fetch` (or an earlier crawl) learnt of a seed's page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    /// The page's title.
    pub title: String,
    /// `satisfied`, `not satisfied`, or why there is no verdict (`not fetched: …`).
    pub verdict: String,
}

/// A seed as the review shows it.
#[derive(Debug, Clone)]
pub struct SeedLine {
    /// URL id.
    pub id: i64,
    /// Canonical URL.
    pub url: String,
    /// Sources (`topic`, `search:brave`…), engines and queries, each distinct, ` | `-joined.
    pub sources: String,
    /// Search engines or APIs.
    pub engines: String,
    /// Queries.
    pub queries: String,
    /// Best rank among its sightings.
    pub rank: Option<i64>,
    /// Inside `[domains]`.
    pub in_scope: bool,
    /// `in scope`, or why not.
    pub scope: String,
    /// Where the crawl left it.
    pub state: State,
    /// What an earlier crawl learnt of its page.
    pub known: Option<Preview>,
}

/// The seeds in the store, in id order, with their sightings merged and their scope.
pub fn seed_lines(store: &Store, scope: &Scope) -> anyhow::Result<Vec<SeedLine>> {
    let mut lines = Vec::new();
    for seed in store.seed_outcomes()? {
        let hits = store.seed_sightings(seed.url.id)?;
        let host = url::Url::parse(&seed.url.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let (in_scope, scope_text) = match scope.check(&host) {
            Ok(()) => (true, "in scope".to_string()),
            Err(OutOfScope::NotAllowed) => (false, "off-domain: not in [domains] allow".into()),
            Err(OutOfScope::Denied) => (false, "off-domain: in [domains] deny".into()),
        };
        let known = match (seed.url.state, seed.verdict) {
            (State::Fetched, Some(verdict)) => Some(Preview {
                title: store.title(seed.url.id)?.unwrap_or_default(),
                verdict: if verdict {
                    "satisfied"
                } else {
                    "not satisfied"
                }
                .into(),
            }),
            _ => None,
        };
        lines.push(SeedLine {
            id: seed.url.id,
            url: seed.url.url.clone(),
            sources: distinct(&hits, |h| Some(h.source.clone())),
            engines: distinct(&hits, |h| h.engine.clone()),
            queries: distinct(&hits, |h| h.query.clone()),
            rank: hits.iter().filter_map(|h| h.rank).min(),
            in_scope,
            scope: scope_text,
            state: seed.url.state,
            known,
        });
    }
    Ok(lines)
}

/// The distinct non-empty values of a field, in the order of their first sighting.
fn distinct(hits: &[SeedSighting], field: impl Fn(&SeedSighting) -> Option<String>) -> String {
    let mut seen = HashSet::new();
    hits.iter()
        .filter_map(&field)
        .filter(|v| !v.is_empty() && seen.insert(v.clone()))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// A seed's row of the file.
fn row(line: &SeedLine, keep: bool, preview: Option<&Preview>) -> Row {
    let mut info = HashMap::new();
    info.insert("sources", line.sources.clone());
    info.insert("engines", line.engines.clone());
    info.insert("queries", line.queries.clone());
    info.insert("rank", line.rank.map(|r| r.to_string()).unwrap_or_default());
    info.insert("scope", line.scope.clone());
    if let Some(p) = preview.or(line.known.as_ref()) {
        info.insert("title", p.title.clone());
        info.insert("verdict", p.verdict.clone());
    }
    Row {
        keep,
        url: line.url.clone(),
        info,
    }
}

/// Reads the review file; a problem names the file and its line.
pub fn read(path: &Path) -> anyhow::Result<Review> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the seed review {}", path.display()))?;
    Review::parse(&text).with_context(|| {
        format!(
            "the seed review {} cannot be read, so nothing was crawled; correct it (or delete it \
             to crawl every seed)",
            path.display()
        )
    })
}

/// The review file after [`write`]: each seed's answer (`None`: its line was deleted).
#[derive(Debug)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// It was there before (the user's choices were kept).
    pub existed: bool,
    /// Seeds added at its end.
    pub appended: usize,
    /// Per seed id, `keep` as the file says it.
    pub keep: HashMap<i64, Option<bool>>,
}

/// Writes the review file of `lines`, or brings an existing one up to date (information
/// columns, `previews`, new seeds appended); remembers which seeds it was offered.
pub fn write(
    store: &mut Store,
    run_dir: &Path,
    lines: &[SeedLine],
    previews: &HashMap<i64, Preview>,
) -> anyhow::Result<Written> {
    let path = run_dir.join(REVIEW_FILE);
    let existed = path.exists();
    let mut offered = offered(store)?;
    let (mut review, before) = if existed {
        let review = read(&path)?;
        let text = review.to_text();
        (review, Some(text))
    } else {
        (Review::new(&[]), None)
    };
    let choices: HashMap<String, Choice> = review
        .choices()
        .with_context(|| format!("the seed review {}", path.display()))?
        .into_iter()
        .map(|c| (c.url.clone(), c))
        .collect();
    let mut keep = HashMap::new();
    let mut appended = 0;
    for line in lines {
        let preview = previews.get(&line.id);
        match choices.get(&line.url) {
            Some(choice) => {
                let fresh = row(line, choice.keep, preview);
                for (column, value) in &fresh.info {
                    review.set(&line.url, column, value);
                }
                keep.insert(line.id, Some(choice.keep));
            }
            None if existed && offered.contains(&line.id) => {
                keep.insert(line.id, None);
            }
            None => {
                review.append(&row(line, line.in_scope, preview));
                keep.insert(line.id, Some(line.in_scope));
                appended += 1;
            }
        }
        offered.insert(line.id);
    }
    let text = review.to_text();
    if before.as_deref() != Some(text.as_str()) {
        save(&path, &text)?;
    }
    let mut ids: Vec<i64> = offered.into_iter().collect();
    ids.sort_unstable();
    store.set_meta(OFFERED, &serde_json::to_string(&ids)?)?;
    store.commit()?;
    Ok(Written {
        path,
        existed,
        appended,
        keep,
    })
}

/// Writes the review file beside and renames it: an interruption never leaves half a file.
fn save(path: &Path, text: &str) -> anyhow::Result<()> {
    let partial = path.with_extension("tsv.partial");
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, path))
        .with_context(|| format!("cannot write the seed review {}", path.display()))
}

/// Sets `keep` of the URLs answered (`glaneur serve`'s review page), leaving every other line
/// as it is; returns how many lines changed.
pub fn set_keep(run_dir: &Path, answers: &[(String, bool)]) -> anyhow::Result<usize> {
    let path = run_dir.join(REVIEW_FILE);
    let mut review = read(&path)?;
    let before = review.to_text();
    let now: HashMap<String, bool> = review
        .choices()
        .with_context(|| format!("the seed review {}", path.display()))?
        .into_iter()
        .map(|c| (c.url, c.keep))
        .collect();
    for (url, keep) in answers {
        // A line already saying so keeps its spelling (`Y`, `no`…).
        if now.get(url).is_some_and(|k| k != keep) {
            review.set(url, "keep", if *keep { "yes" } else { "no" });
        }
    }
    let text = review.to_text();
    let changed = before
        .lines()
        .zip(text.lines())
        .filter(|(a, b)| a != b)
        .count();
    if changed > 0 {
        save(&path, &text)?;
    }
    Ok(changed)
}

/// The seeds the review file was offered.
fn offered(store: &Store) -> anyhow::Result<HashSet<i64>> {
    Ok(store
        .meta(OFFERED)?
        .and_then(|text| serde_json::from_str::<Vec<i64>>(&text).ok())
        .unwrap_or_default()
        .into_iter()
        .collect())
}

/// What the review did to a run (`report.json`, the summary).
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct ReviewReport {
    /// The review file.
    pub file: String,
    /// Seeds in scope the review keeps.
    pub kept: u64,
    /// Seeds in scope settled `seed-dropped` (this run or an earlier one).
    pub dropped: u64,
    /// Of those, seeds without a line in the file (found after the review, or deleted).
    pub not_in_file: u64,
    /// Seeds the file drops that an earlier crawl had already fetched (they stay).
    pub already_fetched: u64,
    /// Seeds kept again after an earlier run dropped them.
    pub requeued: u64,
    /// What the user may want to know (a `yes` on an off-domain seed, a line that is no seed).
    pub notes: Vec<String>,
}

/// Applies the review file of `run_dir`, if there is one, to the seeds in `store` (before the
/// crawl): a seed in scope whose line says `no`, or that has no line, is settled `skipped /
/// seed-dropped`; one that says `yes` after an earlier `no` is queued again.
pub fn apply(store: &mut Store, run_dir: &Path) -> anyhow::Result<Option<ReviewReport>> {
    let path = run_dir.join(REVIEW_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let review = read(&path)?;
    let mut choices: BTreeMap<String, Choice> = review
        .choices()
        .with_context(|| format!("the seed review {}", path.display()))?
        .into_iter()
        .map(|c| (c.url.clone(), c))
        .collect();
    let offered = offered(store)?;
    let mut report = ReviewReport {
        file: path.display().to_string(),
        ..ReviewReport::default()
    };
    for seed in store.seed_outcomes()? {
        let (id, state, reason) = (seed.url.id, seed.url.state, seed.url.reason);
        let choice = choices.remove(&seed.url.url);
        if reason == Some(Reason::OffDomain) {
            if let Some(c) = choice.filter(|c| c.keep) {
                report.notes.push(format!(
                    "line {}: {} is outside [domains], so `yes` cannot crawl it: widen [domains] \
                     allow to crawl it",
                    c.line, seed.url.url
                ));
            }
            continue;
        }
        let detail = match &choice {
            Some(c) if c.keep => {
                report.kept += 1;
                if store.requeue_dropped_seed(id)? {
                    report.requeued += 1;
                }
                continue;
            }
            Some(c) => format!("{REVIEW_FILE} line {}: keep = no", c.line),
            None if offered.contains(&id) => format!("deleted from {REVIEW_FILE}"),
            None => format!(
                "found after the review: not in {REVIEW_FILE} (`glaneur seeds` adds it for review)"
            ),
        };
        match (state, reason) {
            (State::Queued, _) => store.skip(id, Reason::SeedDropped, &detail)?,
            (State::Skipped, Some(Reason::SeedDropped)) => {}
            (State::Fetched | State::Failed, _) => {
                report.already_fetched += 1;
                continue;
            }
            (State::Skipped, _) => continue,
        }
        report.dropped += 1;
        if choice.is_none() {
            report.not_in_file += 1;
        }
    }
    let mut strangers: Vec<Choice> = choices.into_values().collect();
    strangers.sort_by_key(|c| c.line);
    for Choice { url, line, .. } in strangers.into_iter().take(5) {
        report.notes.push(format!(
            "line {line}: {url} is not a seed of this run folder: ignored (seeds come from the \
             topic's [seeds] and [search])"
        ));
    }
    store.commit()?;
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{SeedHitRow, Via};

    /// A store with `urls` as seeds of the topic; those outside `a.test` are off-domain.
    fn store(dir: &Path, urls: &[&str]) -> Store {
        let mut store = Store::open(&dir.join("crawl.sqlite")).unwrap();
        add(&mut store, urls);
        store
    }

    fn add(store: &mut Store, urls: &[&str]) {
        for url in urls {
            let (id, _) = store
                .insert_url(url, "http://x:80", 0, None, Via::Seed, 1.0, 0.0)
                .unwrap();
            store.seed(id, "topic", None, None, None).unwrap();
            let hit = SeedHitRow {
                source: "topic",
                result_url: url,
                ..SeedHitRow::default()
            };
            store.seed_hit(id, &hit).unwrap();
            if !url.contains("a.test") {
                store
                    .skip(id, Reason::OffDomain, "seed outside [domains]")
                    .unwrap();
            }
        }
        store.commit().unwrap();
    }

    fn scope() -> Scope {
        Scope::new(&["a.test".to_string()], &[])
    }

    /// (state, reason, detail) of each seed, by URL.
    fn states(store: &Store) -> BTreeMap<String, (State, Option<Reason>)> {
        store
            .seed_outcomes()
            .unwrap()
            .into_iter()
            .map(|s| (s.url.url, (s.url.state, s.url.reason)))
            .collect()
    }

    fn rewrite(path: &Path, from: &str, to: &str) {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(from), "{text}");
        std::fs::write(path, text.replace(from, to)).unwrap();
    }

    #[test]
    fn the_review_is_written_edited_and_applied() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let mut store = store(
            run,
            &["http://a.test/1", "http://a.test/2", "http://out.example/"],
        );
        assert!(
            apply(&mut store, run).unwrap().is_none(),
            "no file: nothing changes"
        );
        let lines = seed_lines(&store, &scope()).unwrap();
        let written = write(&mut store, run, &lines, &HashMap::new()).unwrap();
        assert!(!written.existed);
        let path = run.join(REVIEW_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let keeps: Vec<&str> = text.lines().skip(1).map(|l| &l[..3]).collect();
        assert_eq!(keeps, ["yes", "yes", "no\t"]);
        assert!(
            text.contains("off-domain: not in [domains] allow"),
            "{text}"
        );

        // The user drops one seed; a seed found since is not in the file.
        rewrite(&path, "yes\thttp://a.test/2", "no\thttp://a.test/2");
        add(&mut store, &["http://a.test/3"]);
        let report = apply(&mut store, run).unwrap().unwrap();
        assert_eq!((report.kept, report.dropped, report.not_in_file), (1, 2, 1));
        let now = states(&store);
        assert_eq!(now["http://a.test/1"], (State::Queued, None));
        assert_eq!(
            now["http://a.test/2"],
            (State::Skipped, Some(Reason::SeedDropped))
        );
        assert_eq!(
            now["http://a.test/3"],
            (State::Skipped, Some(Reason::SeedDropped))
        );
        assert_eq!(now["http://out.example/"].1, Some(Reason::OffDomain));

        // Reviewed again: the new seed is appended with yes, the user's `no` stays, and the
        // information columns are filled.
        let lines = seed_lines(&store, &scope()).unwrap();
        let mut previews = HashMap::new();
        let id1 = lines.iter().find(|l| l.url.ends_with("/1")).unwrap().id;
        previews.insert(
            id1,
            Preview {
                title: "Un".into(),
                verdict: "satisfied".into(),
            },
        );
        let written = write(&mut store, run, &lines, &previews).unwrap();
        assert!(written.existed);
        assert_eq!(written.appended, 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("no\thttp://a.test/2\t"), "{text}");
        assert!(
            text.ends_with("yes\thttp://a.test/3\ttopic\t\t\t\tin scope\t\t\n"),
            "{text}"
        );
        assert!(text.contains("\tUn\tsatisfied\n"), "{text}");

        // A deleted line drops its seed and is not added back; a `yes` again requeues.
        rewrite(&path, "no\thttp://a.test/2", "yes\thttp://a.test/2");
        let text = std::fs::read_to_string(&path).unwrap();
        let without: Vec<&str> = text.lines().filter(|l| !l.contains("a.test/1")).collect();
        std::fs::write(&path, without.join("\n")).unwrap();
        let report = apply(&mut store, run).unwrap().unwrap();
        assert_eq!((report.kept, report.dropped, report.requeued), (2, 1, 2));
        let now = states(&store);
        assert_eq!(now["http://a.test/1"].1, Some(Reason::SeedDropped));
        assert_eq!(now["http://a.test/2"], (State::Queued, None));
        let lines = seed_lines(&store, &scope()).unwrap();
        let written = write(&mut store, run, &lines, &HashMap::new()).unwrap();
        assert_eq!(written.appended, 0);
        assert_eq!(written.keep[&id1], None);
        assert!(!std::fs::read_to_string(&path).unwrap().contains("a.test/1"));
    }

    #[test]
    fn a_malformed_review_names_the_file_and_line_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let mut store = store(run, &["http://a.test/1", "http://a.test/2"]);
        let lines = seed_lines(&store, &scope()).unwrap();
        write(&mut store, run, &lines, &HashMap::new()).unwrap();
        let path = run.join(REVIEW_FILE);
        rewrite(&path, "yes\thttp://a.test/2", "peut-être\thttp://a.test/2");
        let err = format!("{:#}", apply(&mut store, run).unwrap_err());
        assert!(
            err.contains("seeds-review.tsv") && err.contains("line 3: `keep` is `peut-être`"),
            "{err}"
        );
        assert!(states(&store).values().all(|s| s.0 == State::Queued));
        // A line that names no seed is a note, not an error.
        rewrite(
            &path,
            "peut-être\thttp://a.test/2",
            "yes\thttp://a.test/2\nno\thttp://b.test/",
        );
        let report = apply(&mut store, run).unwrap().unwrap();
        assert!(
            report.notes[0].starts_with("line 4: http://b.test/ is not a seed"),
            "{report:?}"
        );
    }
}
