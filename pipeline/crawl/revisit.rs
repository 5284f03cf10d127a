//! Revisits and the visit history: a stored page fetched again (`glaneur run --revisit`, a
//! round of `glaneur monitor`) is compared with its last version, and every settled request
//! for a page leaves a row in `visits`.
//!
//! **In:** a settled request for a page. **Out:** one `visits` row; for an answer that repeats
//! the stored version, a WARC `revisit` record instead of a second copy of the body.
//!
//! **Invariants:** the change test is, in this order: no answer → `failed`; 304 →
//! `not-modified`; another status than 200 → `changed`; the same body bytes (MD5) →
//! `same-bytes`; the same clean text (MD5, see `monitor::digest`) → `same-text`; else
//! `changed`. Only `changed` replaces the page's stored copy (and so its document); the
//! others keep it. A revisit written to the WARC is recorded in the same transaction as its
//! visit row.

use super::*;
use crate::crawl::digest;
use crate::ground::progress::Fetched;
use crate::store::{Change, Digests, VisitRow};
use crate::warc::RevisitProfile;

/// What kind of pass the crawl is, and which clock dates its visits.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pass {
    /// A round of `glaneur monitor`: stored pages revisited, no new URL followed, the crawl's
    /// frontier and resume state left alone.
    pub monitor: bool,
    /// The virtual clock's time for every visit of this pass (simulations, `--virtual-clock`);
    /// None: each visit is dated by the wall clock.
    pub at: Option<f64>,
}

impl CrawlContext {
    /// The time a visit is recorded at.
    pub(super) fn visit_time(&self) -> f64 {
        self.pass.at.unwrap_or_else(now_epoch)
    }
}

/// A revisit's answer: the URL, the response, the crawl's analysis of it, its WARC record.
type Answer<'a> = (
    &'a url::Url,
    &'a Response,
    Option<&'a Analysis>,
    &'a mut Archive,
);

/// The stored version a revisit compares with.
struct Stored<'a> {
    last: Option<&'a crate::store::LastVersion>,
    /// Its date, for a WARC revisit record's `WARC-Refers-To-Date`.
    refers_to: Option<&'a str>,
}

/// A visit row for an answer (or its absence).
fn row(
    url_id: i64,
    at: f64,
    response: Option<&Response>,
    digests: Digests,
    change: Change,
    detail: Option<String>,
    warc: Option<(u64, u64)>,
) -> VisitRow {
    let header = |name: &str| response.and_then(|r| r.header(name)).map(str::to_string);
    VisitRow {
        url_id,
        at,
        status: response.map(|r| r.status),
        length: response
            .filter(|r| !r.body_skipped && r.status != 304)
            .map(|r| r.body().len() as u64),
        digests,
        last_modified: header("last-modified"),
        expires: header("expires"),
        etag: header("etag"),
        content_language: header("content-language"),
        server: header("server"),
        change,
        detail,
        warc: warc.map(|(o, l)| (warc::WARC_NAME.to_string(), o, l)),
    }
}

impl Crawler<'_> {
    /// Records the first fetch of a page (an answer, or the failure that settled it).
    pub(super) fn first_visit(
        &mut self,
        id: i64,
        outcome: Result<&Response, &Failure>,
        warc: Option<(u64, u64)>,
    ) -> anyhow::Result<()> {
        let at = self.ctx.visit_time();
        let visit = match outcome {
            Ok(r) => row(
                id,
                at,
                Some(r),
                Digests::default(),
                Change::First,
                None,
                warc,
            ),
            Err(f) => row(
                id,
                at,
                None,
                Digests::default(),
                Change::Failed,
                Some(format!("{}: {}", f.reason, f.detail)),
                None,
            ),
        };
        self.store.visit(&visit)
    }

    /// Records a revisit the crawl gave up on (the server failed too often).
    pub(super) fn failed_visit(&mut self, id: i64, detail: &str) -> anyhow::Result<()> {
        let at = self.ctx.visit_time();
        let visit = row(
            id,
            at,
            None,
            Digests::default(),
            Change::Failed,
            Some(detail.to_string()),
            None,
        );
        self.store.visit(&visit)
    }

    /// A revisit not asked (robots.txt now disallows the page, or the network guard refuses
    /// its address): the stored copy stays, the visit is recorded as failed with the reason.
    pub(super) fn refuse_revisit(&mut self, id: i64, detail: &str) -> anyhow::Result<()> {
        self.revisits.remove(&id);
        self.failed_visit(id, &format!("not asked: {detail}"))?;
        self.store
            .revisited(id, Revisit::Failed, self.ctx.visit_time())
    }

    /// Ends a revisit whose answer leaves the stored copy in place: the server answered, the
    /// visit is recorded, the page's revisit state says why.
    fn stored_copy_stays(
        &mut self,
        host_key: &str,
        visit: &VisitRow,
        outcome: Revisit,
        fetched: Fetched,
        now: f64,
    ) -> anyhow::Result<()> {
        self.store.host_revisited(host_key, false)?;
        self.store.visit(visit)?;
        self.store.revisited(visit.url_id, outcome, now)?;
        self.progress.fetched(fetched);
        Ok(())
    }

    /// Settles a revisit's answer when it leaves the stored version in place; returns false
    /// when the answer is a new version, to be settled as a fetched page.
    pub(super) fn settle_revisit(
        &mut self,
        entry: &Job,
        host_key: &str,
        url: &url::Url,
        outcome: &Result<Response, Failure>,
        analysis: Option<&Analysis>,
        archive: &mut Archive,
    ) -> anyhow::Result<bool> {
        let (at, now) = (self.ctx.visit_time(), now_epoch());
        let response = match outcome {
            Err(f) => {
                let detail = Some(format!("{}: {}", f.reason, f.detail));
                let visit = row(
                    entry.id,
                    at,
                    None,
                    Digests::default(),
                    Change::Failed,
                    detail,
                    None,
                );
                self.store.visit(&visit)?;
                self.store.revisited(entry.id, Revisit::Failed, now)?;
                self.progress.fetched(Fetched::Error);
                return Ok(true);
            }
            Ok(r) => r,
        };
        let last = self.store.last_version(entry.id)?;
        let refers_to = last.as_ref().map(|l| crate::ground::clock::iso_of(l.at));
        if response.status == 304 {
            let at_warc = self.warc.revisit(
                url.as_str(),
                response,
                RevisitProfile::NotModified,
                refers_to.as_deref(),
            )?;
            let visit = row(
                entry.id,
                at,
                Some(response),
                Digests::default(),
                Change::NotModified,
                None,
                Some(at_warc),
            );
            self.stored_copy_stays(host_key, &visit, Revisit::NotModified, Fetched::Other, now)?;
            return Ok(true);
        }
        if response.status == 200 && !response.body_skipped {
            let stored = Stored {
                last: last.as_ref(),
                refers_to: refers_to.as_deref(),
            };
            let answer = (url, response, analysis, archive);
            return self.compare_with_stored((entry.id, host_key), answer, stored, (at, now));
        }
        let at_warc = self.archive(url, response, archive)?;
        let detail = Some(format!(
            "HTTP {} where the stored version had 200",
            response.status
        ));
        let visit = row(
            entry.id,
            at,
            Some(response),
            Digests::default(),
            Change::Changed,
            detail,
            Some(at_warc),
        );
        self.new_version(&visit, now)
    }

    /// A revisit answered 200 with a body: compared with the stored version, by its bytes
    /// then by its clean text; returns whether the stored copy stays.
    fn compare_with_stored(
        &mut self,
        (id, host_key): (i64, &str),
        (url, response, analysis, archive): Answer<'_>,
        stored: Stored<'_>,
        (at, now): (f64, f64),
    ) -> anyhow::Result<bool> {
        let options = digest::options(&self.ctx.topic);
        let digests = analysis.and_then(|a| a.digests.clone()).unwrap_or_else(|| {
            digest::digests(
                url,
                response.header("content-type"),
                response.body(),
                &options,
            )
        });
        let before = self.stored_digests(stored.last, url, &options)?;
        let verdict = analysis.is_some_and(|a| a.facts.verdict);
        // Same bytes: a WARC revisit record, not a second copy. Otherwise the response is
        // archived whole, and the stored copy still stays when its clean text is the same.
        let same_bytes = before.body.is_some() && digests.body == before.body;
        let at_warc = if same_bytes {
            self.warc.revisit(
                url.as_str(),
                response,
                RevisitProfile::IdenticalPayload,
                stored.refers_to,
            )?
        } else {
            self.archive(url, response, archive)?
        };
        let stays = if same_bytes {
            Some(Change::SameBytes)
        } else if before.text.is_some() && digests.text == before.text {
            Some(Change::SameText)
        } else {
            None
        };
        if let Some(change) = stays {
            let visit = row(id, at, Some(response), digests, change, None, Some(at_warc));
            let page = Fetched::Page { on_topic: verdict };
            self.stored_copy_stays(host_key, &visit, Revisit::Unchanged, page, now)?;
            return Ok(true);
        }
        let detail = before
            .text
            .is_none()
            .then(|| "no earlier text to compare with".to_string());
        let visit = row(
            id,
            at,
            Some(response),
            digests,
            Change::Changed,
            detail,
            Some(at_warc),
        );
        self.new_version(&visit, now)
    }

    /// Records a revisit whose answer is a new version, to be settled as a fetched page
    /// (returns false, as [`Self::settle_revisit`] does then).
    fn new_version(&mut self, visit: &VisitRow, now: f64) -> anyhow::Result<bool> {
        self.store.visit(visit)?;
        self.store
            .revisited(visit.url_id, Revisit::Refetched, now)?;
        Ok(false)
    }

    /// The digests of the stored version, to compare the answer with.
    fn stored_digests(
        &mut self,
        last: Option<&crate::store::LastVersion>,
        url: &url::Url,
        options: &stages::page::extract::ExtractOptions,
    ) -> anyhow::Result<Digests> {
        Ok(match last {
            Some(l) if l.digests.body.is_some() && l.digests.text.is_some() => l.digests.clone(),
            // A version fetched before it had to be compared: its digests, once, from its record.
            Some(l) => match &l.warc {
                Some((file, offset, length)) => {
                    let path = self.ctx.run_dir.join("warc").join(file);
                    let d = digest::of_record(&path, *offset, *length, url, options)
                        .unwrap_or_default();
                    self.store.set_digests(l.visit_id, &d)?;
                    d
                }
                None => Digests::default(),
            },
            None => Digests::default(),
        })
    }
}
