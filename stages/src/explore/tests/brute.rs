//! The brute-force scan the engine is checked against: strings and recursion over the query's
//! tree, every match from every start enumerated with its labels; no lexicon, no postings, no
//! automaton, no shared code with the engine but the value matcher.

use std::collections::{BTreeMap, BTreeSet};

use super::super::cql::{Atom, Cond, Constraint, Item, Operand, Query, Reference, Test};
use super::super::query::{Hit, Matcher, Strategy, UNBOUNDED_SPAN};
use super::Generated;

type Labels = BTreeMap<String, u32>;
type Matches = BTreeSet<(u32, Labels)>;

fn value<'a>(g: &'a Generated, attr: &str, pos: u32) -> std::borrow::Cow<'a, str> {
    let t = &g.tokens[pos as usize];
    match attr {
        "word" => t.0.as_str().into(),
        "pos" => t.1.as_str().into(),
        "lemma" => t.2.as_str().into(),
        "lc" => t.0.to_lowercase().into(),
        "text_host" | "doc_host" => g
            .texts
            .iter()
            .find(|(a, b, _)| *a <= pos && pos < *b)
            .map(|t| t.2.clone())
            .unwrap_or_default()
            .into(),
        other => panic!("no attribute {other}"),
    }
}

thread_local! {
    /// Compiled patterns of the scan, by pattern and flags (compiling one per token is slow).
    static MATCHERS: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Matcher>>> =
        Default::default();
}

pub(super) fn matcher(t: &Test) -> std::rc::Rc<Matcher> {
    let key = format!("{}{}{}", t.pattern, t.ignore_case, t.ignore_diacritics);
    MATCHERS.with(|m| {
        m.borrow_mut()
            .entry(key)
            .or_insert_with(|| {
                std::rc::Rc::new(Matcher::new(t).expect("generated patterns compile"))
            })
            .clone()
    })
}

fn test_holds(g: &Generated, t: &Test, pos: u32) -> bool {
    matcher(t).is_match(&value(g, &t.attr, pos)) != t.negated
}

fn cond_holds(g: &Generated, c: &Cond, pos: u32) -> bool {
    match c {
        Cond::Any => true,
        Cond::Test(t) => test_holds(g, t, pos),
        Cond::And(all) => all.iter().all(|c| cond_holds(g, c, pos)),
        Cond::Or(all) => all.iter().any(|c| cond_holds(g, c, pos)),
        Cond::Not(a) => !cond_holds(g, a, pos),
    }
}

/// The spans of a region name, each with whether its attributes pass `attrs`.
fn spans(g: &Generated, region: &str, attrs: &[Test]) -> Vec<(u32, u32, bool)> {
    match region {
        "s" => {
            g.ss.iter()
                .map(|&(a, b)| (a, b, attrs.is_empty()))
                .collect()
        }
        "p" => {
            g.ps.iter()
                .map(|&(a, b)| (a, b, attrs.is_empty()))
                .collect()
        }
        _ => g
            .texts
            .iter()
            .map(|(a, b, host)| {
                let ok = attrs
                    .iter()
                    .all(|t| t.attr == "host" && matcher(t).is_match(host) != t.negated);
                (*a, *b, ok)
            })
            .collect(),
    }
}

fn seq_matches(g: &Generated, seq: &[Item], pos: u32, limit: u32, labels: &Labels) -> Matches {
    let Some((first, rest)) = seq.split_first() else {
        return BTreeSet::from([(pos, labels.clone())]);
    };
    let mut out = BTreeSet::new();
    for (e, l) in item_matches(g, first, pos, limit, labels) {
        out.extend(seq_matches(g, rest, e, limit, &l));
    }
    out
}

fn atom_matches(g: &Generated, item: &Item, pos: u32, limit: u32, labels: &Labels) -> Matches {
    match &item.atom {
        Atom::Token(c) => {
            if pos < limit && cond_holds(g, c, pos) {
                let mut l = labels.clone();
                if let Some(name) = &item.label {
                    l.insert(name.clone(), pos);
                }
                BTreeSet::from([(pos + 1, l)])
            } else {
                BTreeSet::new()
            }
        }
        Atom::Group(alts) => alts
            .iter()
            .flat_map(|alt| seq_matches(g, alt, pos, limit, labels))
            .collect(),
        Atom::Tag(t) => {
            let holds = spans(g, &t.region, &t.attrs)
                .iter()
                .any(|&(a, b, ok)| a < b && if t.close { b == pos } else { a == pos && ok });
            if holds {
                BTreeSet::from([(pos, labels.clone())])
            } else {
                BTreeSet::new()
            }
        }
        Atom::Region(w) => spans(g, &w.region, &w.attrs)
            .iter()
            .filter(|&&(a, b, ok)| a == pos && a < b && ok && b <= limit)
            .map(|&(_, b, _)| (b, labels.clone()))
            .collect(),
    }
}

fn item_matches(g: &Generated, item: &Item, pos: u32, limit: u32, labels: &Labels) -> Matches {
    let mut out = BTreeSet::new();
    if item.min == 0 {
        out.insert((pos, labels.clone()));
    }
    let mut frontier = BTreeSet::from([(pos, labels.clone())]);
    let most = item.max.unwrap_or(limit - pos + 1);
    for k in 1..=most {
        frontier = frontier
            .iter()
            .flat_map(|(f, l)| atom_matches(g, item, *f, limit, l))
            .collect();
        if frontier.is_empty() {
            break;
        }
        if k >= item.min {
            out.extend(frontier.iter().cloned());
        }
    }
    out
}

fn unbounded(seq: &[Item]) -> bool {
    seq.iter().any(|i| {
        i.max.is_none() || matches!(&i.atom, Atom::Group(alts) if alts.iter().any(|a| unbounded(a)))
    })
}

/// The longest hit with unbounded repetitions at their minimum; whole regions count their
/// longest span of the corpus.
fn longest(g: &Generated, seq: &[Item]) -> u32 {
    seq.iter()
        .map(|i| {
            let one = match &i.atom {
                Atom::Token(_) => 1,
                Atom::Tag(_) => 0,
                Atom::Region(w) => spans(g, &w.region, &[])
                    .iter()
                    .map(|(a, b, _)| b - a)
                    .max()
                    .unwrap_or(0),
                Atom::Group(alts) => alts.iter().map(|a| longest(g, a)).max().unwrap_or(0),
            };
            one * i
                .max
                .unwrap_or(i.min.max(u32::from(matches!(i.atom, Atom::Region(_)))))
        })
        .sum()
}

fn constraint_holds(g: &Generated, c: &Constraint, l: &Labels, start: u32, end: u32) -> bool {
    let read = |r: &Reference| -> Option<String> {
        let pos = match r.label.as_str() {
            "match" => start,
            "matchend" => end - 1,
            name => *l.get(name)?,
        };
        Some(value(g, &r.attr, pos).into_owned())
    };
    match c {
        Constraint::Set(name) => l.contains_key(name),
        Constraint::And(all) => all.iter().all(|c| constraint_holds(g, c, l, start, end)),
        Constraint::Or(all) => all.iter().any(|c| constraint_holds(g, c, l, start, end)),
        Constraint::Not(a) => !constraint_holds(g, a, l, start, end),
        Constraint::Compare(cmp) => {
            let Some(left) = read(&cmp.left) else {
                return false;
            };
            let same = match &cmp.right {
                Operand::Pattern(t) => matcher(t).is_match(&left),
                Operand::Reference(r) => match read(r) {
                    Some(right) => right == left,
                    None => return false,
                },
            };
            same != cmp.negated
        }
    }
}

/// The limit of a hit from `start`: its document, the query's longest span, its `within`.
fn limit_of(g: &Generated, q: &Query, start: u32) -> Option<u32> {
    let span = longest(g, &q.sequence)
        + if unbounded(&q.sequence) {
            UNBOUNDED_SPAN
        } else {
            0
        };
    let text = g.texts.iter().position(|t| t.0 <= start && start < t.1)?;
    let mut limit = g.texts[text].1.min(start + span);
    if let Some(w) = &q.within {
        match spans(g, &w.region, &w.attrs)
            .iter()
            .find(|(a, b, _)| *a <= start && start < *b)
        {
            Some(&(_, b, true)) => limit = limit.min(b),
            _ => return None,
        }
    }
    Some(limit)
}

/// The ends of the matches from `start` (not beyond `cap`) that pass the constraint and the
/// `containing` clauses.
fn ends_from(g: &Generated, q: &Query, start: u32, cap: u32) -> BTreeSet<u32> {
    let Some(limit) = limit_of(g, q, start) else {
        return BTreeSet::new();
    };
    let limit = limit.min(cap);
    seq_matches(g, &q.sequence, start, limit, &Labels::new())
        .into_iter()
        .filter(|(end, l)| {
            *end > start
                && q.constraint
                    .as_ref()
                    .is_none_or(|c| constraint_holds(g, c, l, start, *end))
                && q.containing.iter().all(|c| {
                    let inside = (start..*end).any(|s| !ends_from(g, &c.query, s, *end).is_empty());
                    inside != c.negated
                })
        })
        .map(|(end, _)| end)
        .collect()
}

/// The hits of `q` by the scan, with CQP's matching strategy.
pub(super) fn brute_force_with(g: &Generated, q: &Query, strategy: Strategy) -> Vec<Hit> {
    let mut per_start = Vec::new();
    for start in 0..g.tokens.len() as u32 {
        let ends = ends_from(g, q, start, u32::MAX);
        let end = if strategy == Strategy::Longest {
            ends.last()
        } else {
            ends.first()
        };
        if let Some(&end) = end {
            per_start.push(Hit { start, end });
        }
    }
    match strategy {
        Strategy::Traditional => per_start,
        Strategy::Standard | Strategy::Longest => {
            let mut kept: Vec<Hit> = Vec::new();
            for h in per_start {
                if kept.last().is_none_or(|k| h.end > k.end) {
                    kept.push(h);
                }
            }
            kept
        }
        Strategy::Shortest => per_start
            .iter()
            .filter(|h| {
                !per_start
                    .iter()
                    .any(|o| o.start > h.start && o.end <= h.end)
            })
            .copied()
            .collect(),
    }
}

/// The hits of `q` by the scan (glaneur's default strategy).
pub(super) fn brute_force(g: &Generated, q: &Query) -> Vec<Hit> {
    brute_force_with(g, q, Strategy::Traditional)
}
