//! Topic score of a fetched page, priority of an unfetched link, and the domain scope.
//!
//! **In:** the formula verdict of a page (see [`crate::formula`]), its token count and detected
//! language; for a link, the score of the page that holds it, its anchor text verdict and its
//! depth; for the scope, a host name and the topic's allow/deny lists.
//!
//! **Out:** a page score `S(p)` in `[0, 1]`, a link priority in `[0, 1]` (higher is fetched
//! first by the best-first strategy), and an in-scope / out-of-scope answer with a reason.
//!
//! **Invariants:** pure and total: every input gives a finite number in `[0, 1]`; the same
//! input always gives the same output, so two runs over the same recorded web crawl in the
//! same order.
//!
//! The score is deliberately simple and documented in the README ("Topic score"): a page that
//! satisfies the formula scores at least [`ON_TOPIC_FLOOR`]; hit density and language
//! confidence decide where it sits above that floor. Learned term weights come later; what is
//! here must stay explainable to a linguist in one paragraph.

use crate::formula::Verdict;

/// The lowest score of a page that satisfies the formula; off-topic pages stay below it.
pub const ON_TOPIC_FLOOR: f64 = 0.5;

/// What the page score is computed from.
#[derive(Debug, Clone, Copy)]
pub struct PageEvidence<'a> {
    /// The formula's verdict on the page's clean text (title included).
    pub verdict: &'a Verdict,
    /// Number of tokens of the clean text.
    pub tokens: usize,
    /// Whether the detected language is one of the topic's languages (true when the topic
    /// names none).
    pub language_ok: bool,
    /// Confidence of the language guess in `[0, 1]` (0 when unknown).
    pub language_confidence: f64,
}

/// The topic score `S(p)` of a fetched page, in `[0, 1]`.
///
/// * formula satisfied: `0.5 + 0.3 × density + 0.2 × language`;
/// * not satisfied: `0.3 × density + 0.2 × language`, capped just below the on-topic floor,
///   so that a page full of the topic's words that fails a `NOT` clause still ranks above an
///   unrelated page but never above an on-topic one.
///
/// `density` is the share of hits among the tokens, saturating at 2 % (one topic word in
/// fifty is already a strongly on-topic page); `language` is the language confidence when the
/// language is a target language, else 0.
pub fn page_score(evidence: &PageEvidence<'_>) -> f64 {
    let density = if evidence.tokens == 0 {
        0.0
    } else {
        let share = evidence.verdict.hits as f64 / evidence.tokens as f64;
        (share / 0.02).min(1.0)
    };
    let language = if evidence.language_ok {
        evidence.language_confidence.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let raw = 0.3 * density + 0.2 * language;
    let score = if evidence.verdict.satisfied {
        ON_TOPIC_FLOOR + raw
    } else {
        raw.min(ON_TOPIC_FLOOR - 0.01)
    };
    if score.is_finite() {
        score.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// What a link's priority is computed from.
#[derive(Debug, Clone, Copy)]
pub struct LinkEvidence {
    /// Score of the page that holds the link.
    pub parent_score: f64,
    /// Whether the anchor text (and its surrounding words) contains a positive term of the
    /// formula.
    pub anchor_hit: bool,
    /// Depth the target would have (seeds are 0).
    pub depth: u32,
}

/// Priority of an unfetched URL for the best-first strategy, in `[0, 1]`.
///
/// `0.7 × parent score + 0.2 × anchor hit + 0.1 / (1 + depth)`: the parent's score dominates
/// (pages about the topic link to pages about the topic), an anchor that names the topic lifts
/// a link out of an off-topic page, and among equals shallower pages go first.
pub fn link_priority(evidence: &LinkEvidence) -> f64 {
    let anchor = if evidence.anchor_hit { 1.0 } else { 0.0 };
    let depth = 1.0 / (1.0 + f64::from(evidence.depth));
    let parent = if evidence.parent_score.is_finite() {
        evidence.parent_score.clamp(0.0, 1.0)
    } else {
        0.0
    };
    (0.7 * parent + 0.2 * anchor + 0.1 * depth).clamp(0.0, 1.0)
}

/// The topic's domain restriction `D`: which hosts may be crawled.
///
/// A pattern is a host suffix on label boundaries: `fr` or `.fr` matches every host under the
/// `.fr` TLD, `inria.fr` matches `inria.fr` and `www.inria.fr` but not `notinria.fr`. An empty
/// allow list allows every host; the deny list wins over the allow list.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    allow: Vec<String>,
    deny: Vec<String>,
}

/// Why a host is out of scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfScope {
    /// No allow pattern matches the host.
    NotAllowed,
    /// A deny pattern matches the host.
    Denied,
}

impl Scope {
    /// Builds a scope from the topic's lists (patterns are lower-cased, leading dots and
    /// surrounding spaces removed).
    pub fn new(allow: &[String], deny: &[String]) -> Scope {
        let clean = |patterns: &[String]| -> Vec<String> {
            patterns
                .iter()
                .map(|p| p.trim().trim_start_matches('.').to_lowercase())
                .filter(|p| !p.is_empty())
                .collect()
        };
        Scope {
            allow: clean(allow),
            deny: clean(deny),
        }
    }

    /// Whether `host` (already lower-cased, as the URL parser gives it) may be crawled.
    pub fn check(&self, host: &str) -> Result<(), OutOfScope> {
        let host = host.trim_end_matches('.');
        if self.deny.iter().any(|p| suffix_match(host, p)) {
            return Err(OutOfScope::Denied);
        }
        if self.allow.is_empty() || self.allow.iter().any(|p| suffix_match(host, p)) {
            Ok(())
        } else {
            Err(OutOfScope::NotAllowed)
        }
    }
}

fn suffix_match(host: &str, pattern: &str) -> bool {
    host == pattern
        || (host.len() > pattern.len()
            && host.ends_with(pattern)
            && host.as_bytes()[host.len() - pattern.len() - 1] == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(satisfied: bool, hits: usize) -> Verdict {
        Verdict {
            satisfied,
            matched: Vec::new(),
            hits,
        }
    }

    #[test]
    fn on_topic_pages_always_outrank_off_topic_ones() {
        let on = verdict(true, 0);
        let off = verdict(false, 500);
        let on_score = page_score(&PageEvidence {
            verdict: &on,
            tokens: 1000,
            language_ok: false,
            language_confidence: 0.0,
        });
        let off_score = page_score(&PageEvidence {
            verdict: &off,
            tokens: 1000,
            language_ok: true,
            language_confidence: 1.0,
        });
        assert!(on_score >= ON_TOPIC_FLOOR);
        assert!(off_score < ON_TOPIC_FLOOR);
        assert!(on_score > off_score);
    }

    #[test]
    fn density_and_language_raise_the_score() {
        let sparse = verdict(true, 1);
        let dense = verdict(true, 40);
        let base = PageEvidence {
            verdict: &sparse,
            tokens: 1000,
            language_ok: true,
            language_confidence: 1.0,
        };
        let low = page_score(&base);
        let high = page_score(&PageEvidence {
            verdict: &dense,
            ..base
        });
        let foreign = page_score(&PageEvidence {
            language_ok: false,
            ..base
        });
        assert!(high > low, "{high} > {low}");
        assert!(low > foreign, "{low} > {foreign}");
        assert!((0.0..=1.0).contains(&high));
        assert_eq!(high, 1.0);
    }

    #[test]
    fn empty_page_scores_zero_density() {
        let v = verdict(false, 0);
        let s = page_score(&PageEvidence {
            verdict: &v,
            tokens: 0,
            language_ok: false,
            language_confidence: f64::NAN,
        });
        assert_eq!(s, 0.0);
    }

    #[test]
    fn link_priority_prefers_on_topic_parents_anchors_and_shallow_links() {
        let base = LinkEvidence {
            parent_score: 0.8,
            anchor_hit: false,
            depth: 2,
        };
        let p = link_priority(&base);
        assert!(
            link_priority(&LinkEvidence {
                anchor_hit: true,
                ..base
            }) > p
        );
        assert!(
            link_priority(&LinkEvidence {
                parent_score: 0.1,
                ..base
            }) < p
        );
        assert!(link_priority(&LinkEvidence { depth: 5, ..base }) < p);
        assert!(
            link_priority(&LinkEvidence {
                parent_score: f64::INFINITY,
                anchor_hit: true,
                depth: 0
            }) <= 1.0
        );
    }

    #[test]
    fn scope_matches_on_label_boundaries() {
        let scope = Scope::new(
            &[".fr".into(), "inria.fr".into()],
            &["ads.example.fr".into()],
        );
        assert_eq!(scope.check("www.culture.fr"), Ok(()));
        assert_eq!(scope.check("fr"), Ok(()));
        assert_eq!(scope.check("example.com"), Err(OutOfScope::NotAllowed));
        assert_eq!(scope.check("notfr"), Err(OutOfScope::NotAllowed));
        assert_eq!(scope.check("x.ads.example.fr"), Err(OutOfScope::Denied));
        let narrow = Scope::new(&["inria.fr".into()], &[]);
        assert_eq!(narrow.check("team.inria.fr"), Ok(()));
        assert_eq!(narrow.check("notinria.fr"), Err(OutOfScope::NotAllowed));
        assert_eq!(Scope::new(&[], &[]).check("anything.org"), Ok(()));
    }
}
