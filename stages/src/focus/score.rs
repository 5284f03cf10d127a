//! Topic score of a fetched page, priority of an unfetched link, and the domain scope.
//!
//! **In:** the formula verdict of a page (see [`crate::focus::formula`]), its token count and
//! detected language; for a link, the score of the page that holds it, its anchor text verdict and
//! its depth; for the scope, a host name and the topic's allow/deny lists.
//!
//! **Out:** a page score `S(p)` in `[0, 1]`, a link priority in `[0, 1]` (higher is fetched
//! first by the best-first strategy), and an in-scope / out-of-scope answer with a reason.
//!
//! **Invariants:** pure and total: every input gives a finite number in `[0, 1]`; the same
//! input always gives the same output, so two runs over the same recorded web crawl in the
//! same order.
//!
//! The score is deliberately simple and documented in docs/guide/crawl.md ("Scores and priorities"): a page
//! that satisfies the formula scores at least [`ON_TOPIC_FLOOR`]; hit density, similarity to the
//! seed pages (term weights learned from `G_F`, see [`crate::focus::centroid`]) and language
//! confidence decide where it sits above that floor, with the topic's [`Weights`]. What is here
//! must stay explainable to a linguist in one paragraph.

use crate::focus::formula::Verdict;

/// The share of topic words among a page's tokens at which it counts as strongly on topic (one
/// in fifty): the page score's density saturates there, and a server's yield weighs a page that
/// fails the formula by the chance that a text this dense would have shown a topic word.
pub const STRONG_DENSITY: f64 = 0.02;

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
        (share / STRONG_DENSITY).min(1.0)
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

/// The weights of the topic score and of the link priority (topic table `[focus]`). Each
/// group is normalised by its sum, so only ratios matter; a negative or non-finite weight
/// counts as 0.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// Page score: formula hit density.
    pub density: f64,
    /// Page score: cosine similarity to the seed centroid (ignored until it is learned).
    pub similarity: f64,
    /// Page score: target-language confidence.
    pub language: f64,
    /// Link priority: score of the page holding the link.
    pub parent: f64,
    /// Link priority: anchor text and the words around it.
    pub anchor: f64,
    /// Link priority: the words of the URL itself.
    pub url: f64,
    /// Link priority: shallowness, `1 / (1 + depth)`.
    pub depth: f64,
    /// Link priority: the factor applied to a URL that names a language outside the topic's
    /// `languages` (`/de/…`, `index.de.html`, `?lang=de`; see [`crate::page::lang::url_language`]),
    /// in `[0, 1]`: such a URL is fetched once better ones are done; 1 turns this off.
    pub other_language: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            density: 0.3,
            similarity: 0.3,
            language: 0.2,
            parent: 0.6,
            anchor: 0.2,
            url: 0.1,
            depth: 0.1,
            other_language: 0.2,
        }
    }
}

fn weight(w: f64) -> f64 {
    if w.is_finite() && w > 0.0 { w } else { 0.0 }
}

fn unit(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The topic score `S(p)` with learned term weights, in `[0, 1]`.
///
/// `raw = (w_d·density + w_s·similarity + w_l·language) / (w_d + w_s + w_l)` (the similarity
/// term and its weight drop out while `similarity` is `None`, before the seed centroid is
/// learned); formula satisfied: `0.5 + 0.5·raw`; not satisfied: `0.5·raw`, capped at 0.49, so
/// that an on-topic page always outranks an off-topic one. With the default weights and no
/// centroid this is exactly [`page_score`].
pub fn topic_score(evidence: &PageEvidence<'_>, similarity: Option<f64>, w: &Weights) -> f64 {
    let density = if evidence.tokens == 0 {
        0.0
    } else {
        unit(evidence.verdict.hits as f64 / evidence.tokens as f64 / STRONG_DENSITY)
    };
    let language = if evidence.language_ok {
        unit(evidence.language_confidence)
    } else {
        0.0
    };
    let (wd, wl) = (weight(w.density), weight(w.language));
    let ws = if similarity.is_some() {
        weight(w.similarity)
    } else {
        0.0
    };
    let total = wd + ws + wl;
    let raw = if total > 0.0 {
        (wd * density + ws * unit(similarity.unwrap_or(0.0)) + wl * language) / total
    } else {
        0.0
    };
    let score = if evidence.verdict.satisfied {
        ON_TOPIC_FLOOR + 0.5 * raw
    } else {
        (0.5 * raw).min(ON_TOPIC_FLOOR - 0.01)
    };
    unit(score)
}

/// What a link's priority is computed from, with the topic's weights.
#[derive(Debug, Clone, Copy)]
pub struct LinkSignals {
    /// Score of the page that holds the link.
    pub parent_score: f64,
    /// Anchor text and the words around it, in `[0, 1]`: 1 when they contain a positive term
    /// of the formula, else their similarity to the seed centroid.
    pub anchor: f64,
    /// The URL's words (path and query split on punctuation), scored like the anchor.
    pub url: f64,
    /// Depth the target would have (seeds are 0).
    pub depth: u32,
    /// Whether the URL names a language outside the topic's languages.
    pub other_language: bool,
}

/// Link priority for the best-first strategy, in `[0, 1]`:
/// `(w_p·parent + w_a·anchor + w_u·url + w_d/(1 + depth)) / (w_p + w_a + w_u + w_d)`, times
/// `other_language` for a URL in another language.
pub fn link_priority_weighted(s: &LinkSignals, w: &Weights) -> f64 {
    let (wp, wa, wu, wd) = (
        weight(w.parent),
        weight(w.anchor),
        weight(w.url),
        weight(w.depth),
    );
    let total = wp + wa + wu + wd;
    if total <= 0.0 {
        return 0.0;
    }
    let depth = 1.0 / (1.0 + f64::from(s.depth));
    let priority = unit(
        (wp * unit(s.parent_score) + wa * unit(s.anchor) + wu * unit(s.url) + wd * depth) / total,
    );
    if s.other_language {
        // Not weight(): a hostile value must not lift a foreign URL above 1× either.
        priority * unit(w.other_language)
    } else {
        priority
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

/// The TLDs the `[domains]` pattern `"francophone"` stands for: the country-code TLDs of the
/// states and territories where French is an official language, of the Maghreb members of the
/// Organisation internationale de la Francophonie where French is the common second language,
/// and the French-speaking regional generic TLDs.
///
/// Sources: Wikipedia, "List of countries and territories where French is an official language"
/// (states and the French overseas collectivities), the OIF member list
/// (<https://www.francophonie.org/88-etats-et-gouvernements-125>, for `ma`, `tn`, `mr`, `lb`),
/// and IANA's root zone database (<https://www.iana.org/domains/root/db>) for the codes.
pub const FRANCOPHONE: &[&str] = &[
    // Europe
    "fr", "be", "ch", "lu", "mc", // North America and the Caribbean
    "ca", "ht", "gp", "mq", "bl", "mf", "pm", // South America
    "gf", // Africa, French an official language
    "bj", "bf", "bi", "cm", "cf", "td", "km", "cg", "cd", "ci", "dj", "gq", "ga", "gn", "mg", "ml",
    "ne", "rw", "sn", "sc", "tg",
    // Maghreb and Middle East (OIF members, French widely used)
    "dz", "ma", "tn", "mr", "lb",
    // Indian Ocean and Pacific (French overseas departments and collectivities, Vanuatu)
    "re", "yt", "tf", "nc", "pf", "wf", "vu", // French-speaking regional generic TLDs
    "paris", "quebec", "bzh", "alsace", "corsica",
];

/// The topic's domain restriction `D`: which hosts may be crawled.
///
/// A pattern is a host suffix on label boundaries: `fr` or `.fr` matches every host under the
/// `.fr` TLD, `inria.fr` matches `inria.fr` and `www.inria.fr` but not `notinria.fr`. An empty
/// allow list allows every host; the deny list wins over the allow list. The pattern
/// `francophone` stands for every TLD of [`FRANCOPHONE`]. An IP address matches only itself,
/// or a network written `127.0.0.0/8` / `2001:db8::/32` (CIDR).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    allow: Vec<String>,
    deny: Vec<String>,
    allow_nets: Vec<Network>,
    deny_nets: Vec<Network>,
}

/// An IP network: address and prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    addr: std::net::IpAddr,
    prefix: u8,
}

impl Network {
    /// Parses `addr/prefix`; None when `pattern` has no `/` (a host pattern), an error naming
    /// the problem when it has one but is not a network.
    pub fn parse(pattern: &str) -> Option<Result<Network, String>> {
        let (addr, prefix) = pattern.trim().split_once('/')?;
        let addr = addr.trim_start_matches('[').trim_end_matches(']');
        Some(
            match (addr.parse::<std::net::IpAddr>(), prefix.parse::<u8>()) {
                (Ok(addr), Ok(prefix)) if prefix <= if addr.is_ipv4() { 32 } else { 128 } => {
                    Ok(Network { addr, prefix })
                }
                (Ok(_), _) => Err(format!(
                    "`{pattern}`: the prefix length must be 0-32 (IPv4) or 0-128 (IPv6)"
                )),
                (Err(_), _) => Err(format!(
                    "`{pattern}`: not a network (write it as an address and a prefix length, e.g. 10.0.0.0/8)"
                )),
            },
        )
    }

    /// Whether `ip` is inside the network.
    pub fn contains(&self, ip: std::net::IpAddr) -> bool {
        use std::net::IpAddr;
        let (a, b, bits) = match (self.addr, ip) {
            (IpAddr::V4(a), IpAddr::V4(b)) => (
                u128::from(u32::from(a)) << 96,
                u128::from(u32::from(b)) << 96,
                self.prefix,
            ),
            (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), self.prefix),
            _ => return false,
        };
        let mask = if bits == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(bits))
        };
        a & mask == b & mask
    }
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
            let mut out = Vec::new();
            for p in patterns {
                let p = p.trim().trim_start_matches('.').to_lowercase();
                if p.contains('/') {
                    // A network (or a malformed one, which the topic check reports).
                } else if p == "francophone" {
                    out.extend(FRANCOPHONE.iter().map(|t| t.to_string()));
                } else if !p.is_empty() {
                    out.push(p);
                }
            }
            out
        };
        let nets = |patterns: &[String]| -> Vec<Network> {
            patterns
                .iter()
                .filter_map(|p| Network::parse(p)?.ok())
                .collect()
        };
        Scope {
            allow: clean(allow),
            deny: clean(deny),
            allow_nets: nets(allow),
            deny_nets: nets(deny),
        }
    }

    /// Whether `host` (already lower-cased, as the URL parser gives it) may be crawled.
    pub fn check(&self, host: &str) -> Result<(), OutOfScope> {
        let host = host.trim_end_matches('.');
        let ip = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .ok();
        let in_nets = |nets: &[Network]| ip.is_some_and(|ip| nets.iter().any(|n| n.contains(ip)));
        if self.deny.iter().any(|p| suffix_match(host, p)) || in_nets(&self.deny_nets) {
            return Err(OutOfScope::Denied);
        }
        let open = self.allow.is_empty() && self.allow_nets.is_empty();
        if open || self.allow.iter().any(|p| suffix_match(host, p)) || in_nets(&self.allow_nets) {
            Ok(())
        } else {
            Err(OutOfScope::NotAllowed)
        }
    }
}

fn suffix_match(host: &str, pattern: &str) -> bool {
    // An IP address has no parent domain: `0.2` must not allow 127.0.0.2 and 10.0.0.2.
    let is_ip = host.parse::<std::net::IpAddr>().is_ok()
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::Ipv6Addr>()
            .is_ok();
    host == pattern
        || (!is_ip
            && host.len() > pattern.len()
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
    fn topic_score_without_centroid_is_the_simple_score() {
        for (sat, hits, tokens, ok, conf) in [
            (true, 3, 400, true, 0.9),
            (false, 30, 400, true, 0.5),
            (true, 0, 0, false, 0.0),
            (false, 0, 10, true, 1.0),
        ] {
            let v = verdict(sat, hits);
            let e = PageEvidence {
                verdict: &v,
                tokens,
                language_ok: ok,
                language_confidence: conf,
            };
            let a = page_score(&e);
            let b = topic_score(&e, None, &Weights::default());
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn similarity_to_the_seeds_raises_the_score_within_its_band() {
        let on = verdict(true, 1);
        let off = verdict(false, 1);
        let w = Weights::default();
        let page = |v| PageEvidence {
            verdict: v,
            tokens: 500,
            language_ok: true,
            language_confidence: 0.8,
        };
        let near = topic_score(&page(&on), Some(0.9), &w);
        let far = topic_score(&page(&on), Some(0.0), &w);
        assert!(near > far && far >= ON_TOPIC_FLOOR, "{near} {far}");
        let off_near = topic_score(&page(&off), Some(1.0), &w);
        assert!(off_near < ON_TOPIC_FLOOR && off_near > topic_score(&page(&off), Some(0.0), &w));
        // Hostile weights never give a score outside [0, 1].
        let bad = Weights {
            density: f64::NAN,
            similarity: -3.0,
            language: f64::INFINITY,
            ..w
        };
        let s = topic_score(&page(&on), Some(f64::NAN), &bad);
        assert!((0.0..=1.0).contains(&s), "{s}");
    }

    #[test]
    fn weighted_link_priority_uses_every_signal() {
        let w = Weights::default();
        let base = LinkSignals {
            parent_score: 0.7,
            anchor: 0.0,
            url: 0.0,
            depth: 3,
            other_language: false,
        };
        let p = link_priority_weighted(&base, &w);
        let foreign = LinkSignals {
            other_language: true,
            ..base
        };
        assert!((link_priority_weighted(&foreign, &w) - 0.2 * p).abs() < 1e-12);
        let off = Weights {
            other_language: 1.0,
            ..w
        };
        assert_eq!(link_priority_weighted(&foreign, &off), p);
        let hostile = Weights {
            other_language: f64::INFINITY,
            ..w
        };
        assert_eq!(link_priority_weighted(&foreign, &hostile), 0.0);
        assert!(
            link_priority_weighted(
                &LinkSignals {
                    anchor: 1.0,
                    ..base
                },
                &w
            ) > p
        );
        assert!(link_priority_weighted(&LinkSignals { url: 1.0, ..base }, &w) > p);
        assert!(link_priority_weighted(&LinkSignals { depth: 0, ..base }, &w) > p);
        assert!(
            link_priority_weighted(
                &LinkSignals {
                    parent_score: 0.2,
                    ..base
                },
                &w
            ) < p
        );
        let zero = Weights {
            parent: 0.0,
            anchor: 0.0,
            url: 0.0,
            depth: 0.0,
            ..w
        };
        assert_eq!(link_priority_weighted(&base, &zero), 0.0);
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

    #[test]
    fn francophone_stands_for_the_french_speaking_tlds() {
        let scope = Scope::new(&["francophone".into()], &["pub.example.ca".into()]);
        for host in [
            "www.culture.fr",
            "www.rtbf.be",
            "www.admin.ch",
            "www.ledevoir.ca",
            "www.abidjan.ci",
            "www.univ-reunion.re",
            "www.ville.quebec",
        ] {
            assert_eq!(scope.check(host), Ok(()), "{host}");
        }
        for host in ["www.bbc.co.uk", "fr.wikipedia.org", "example.com"] {
            assert_eq!(scope.check(host), Err(OutOfScope::NotAllowed), "{host}");
        }
        assert_eq!(scope.check("x.pub.example.ca"), Err(OutOfScope::Denied));
        let mut sorted = FRANCOPHONE.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), FRANCOPHONE.len(), "duplicates in FRANCOPHONE");
    }

    #[test]
    fn ip_hosts_match_exactly() {
        let scope = Scope::new(&["127.0.0.2".to_string(), "0.3".to_string()], &[]);
        assert_eq!(scope.check("127.0.0.2"), Ok(()));
        assert_eq!(scope.check("10.0.0.2"), Err(OutOfScope::NotAllowed));
        // A suffix of octets is not a domain suffix.
        assert_eq!(scope.check("127.0.0.3"), Err(OutOfScope::NotAllowed));
        assert_eq!(scope.check("a.test.0.3"), Ok(()));
    }

    #[test]
    fn networks_match_addresses_inside_them_only() {
        let scope = Scope::new(
            &[
                "127.0.0.0/8".into(),
                "2001:db8::/32".into(),
                "inria.fr".into(),
            ],
            &["127.0.1.0/24".into()],
        );
        assert_eq!(scope.check("127.0.0.2"), Ok(()));
        assert_eq!(scope.check("127.255.0.9"), Ok(()));
        assert_eq!(scope.check("127.0.1.1"), Err(OutOfScope::Denied));
        assert_eq!(scope.check("128.0.0.1"), Err(OutOfScope::NotAllowed));
        assert_eq!(scope.check("[2001:db8::1]"), Ok(()));
        assert_eq!(scope.check("[2001:db9::1]"), Err(OutOfScope::NotAllowed));
        assert_eq!(scope.check("www.inria.fr"), Ok(()));
        // A name is not an address, whatever its digits.
        assert_eq!(
            scope.check("127.0.0.2.example"),
            Err(OutOfScope::NotAllowed)
        );
        let all = Network::parse("0.0.0.0/0").unwrap().unwrap();
        assert!(all.contains("8.8.8.8".parse().unwrap()));
        assert!(!all.contains("::1".parse().unwrap()));
    }

    #[test]
    fn malformed_networks_are_named() {
        assert!(Network::parse("inria.fr").is_none());
        assert!(Network::parse("10.0.0.0/33").unwrap().is_err());
        assert!(Network::parse("10.0.0/8").unwrap().is_err());
        assert!(Network::parse("::/129").unwrap().is_err());
    }
}
