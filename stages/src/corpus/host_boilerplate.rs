//! Cross-page boilerplate: paragraphs that a host repeats on many of its pages (cookie notices,
//! footers, "share this" lines, licence notices) and that slipped through the per-page cleaner.
//!
//! **In**: for every page of the run, its host and the paragraphs its cleaner kept.
//! **Out**: for every paragraph, `Some(`[`Repeated`]`)` when it is host boilerplate (with how
//! many of the host's pages carry it), else `None`.
//!
//! **Rule** (documented in the topic reference, docs/guide/topic-file.md): a paragraph is host boilerplate when
//! its key is found on at least `min_pages` pages of the host **and** on at least `min_share`
//! of the host's pages that have any paragraph. The key is the paragraph's words lower-cased,
//! every digit read as `0` (so `© 2023` and `© 2024`, or "mis à jour le 3 mai" on each page,
//! are one paragraph, as in CCNet's line deduplication), joined by single spaces. Paragraphs
//! without a word (`—`, `•••`) are never boilerplate. Both conditions are needed: the count
//! alone would strip a sentence a big manual quotes in many chapters, the share alone would
//! strip the two paragraphs that two pages of a tiny host happen to share.
//!
//! **Invariants**: pure and deterministic (counts do not depend on page order); a page counts
//! once per key however often it repeats the paragraph; never panics.

use std::collections::HashMap;

use serde::Serialize;

/// Default `min_pages`.
pub const DEFAULT_MIN_PAGES: usize = 5;
/// Default `min_share`.
pub const DEFAULT_MIN_SHARE: f64 = 0.5;

/// When a repeated paragraph counts as boilerplate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RepeatRule {
    /// On at least this many pages of the host.
    pub min_pages: usize,
    /// On at least this share (0 to 1) of the host's pages that have text.
    pub min_share: f64,
}

impl Default for RepeatRule {
    fn default() -> RepeatRule {
        RepeatRule {
            min_pages: DEFAULT_MIN_PAGES,
            min_share: DEFAULT_MIN_SHARE,
        }
    }
}

/// How widespread a boilerplate paragraph is on its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Repeated {
    /// Pages of the host that carry the paragraph.
    pub pages: usize,
    /// Pages of the host that have any paragraph.
    pub host_pages: usize,
}

/// One page: its host and its paragraphs' texts.
#[derive(Debug, Clone)]
pub struct PageParagraphs<'a> {
    /// Host name (pages are grouped by it).
    pub host: &'a str,
    /// The paragraphs, in order.
    pub paragraphs: Vec<&'a str>,
}

/// The comparison key of a paragraph (see the module rule), `None` when it has no word.
pub fn paragraph_key(text: &str) -> Option<String> {
    let key = crate::corpus::dedup::normalise(text);
    if key.is_empty() {
        return None;
    }
    if !key.chars().any(char::is_numeric) {
        return Some(key);
    }
    Some(
        key.chars()
            .map(|c| if c.is_numeric() { '0' } else { c })
            .collect(),
    )
}

/// Marks the host boilerplate paragraphs of every page (see the module rule).
pub fn find(pages: &[PageParagraphs<'_>], rule: RepeatRule) -> Vec<Vec<Option<Repeated>>> {
    let mut counter = RepeatCounter::default();
    for page in pages {
        counter.add(page);
    }
    pages.iter().map(|page| counter.marks(page, rule)).collect()
}

/// [`find`] in two passes over pages that need not stay in memory: [`RepeatCounter::add`]
/// every page, then ask each page's [`RepeatCounter::marks`]. It keeps a count per host and
/// distinct paragraph key, each key as a 64-bit hash (a collision between two paragraphs of
/// one host is as likely as 1 in 2⁶⁴ divided by the square of the host's paragraphs).
#[derive(Debug, Default)]
pub struct RepeatCounter {
    hosts: HashMap<String, u32>,
    /// Per host index, the pages that have any paragraph.
    host_pages: Vec<usize>,
    counts: HashMap<(u32, u64), u32, rustc_hash::FxBuildHasher>,
}

/// A paragraph key's hash (FxHash: the same in every run).
fn key_hash(key: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key)
}

/// The keys of a page's paragraphs as the counter stores them (hashed; `None` for a paragraph
/// without a word): computed once per page, on any thread, for [`RepeatCounter::add_keys`] and
/// [`RepeatCounter::marks_of_keys`].
pub fn paragraph_keys(paragraphs: &[&str]) -> Vec<Option<u64>> {
    paragraphs
        .iter()
        .map(|t| paragraph_key(t).map(|k| key_hash(&k)))
        .collect()
}

impl RepeatCounter {
    /// Counts one page (a page counts once per key however often it repeats a paragraph).
    pub fn add(&mut self, page: &PageParagraphs<'_>) {
        self.add_keys(page.host, &paragraph_keys(&page.paragraphs));
    }

    /// [`RepeatCounter::add`] from the page's [`paragraph_keys`].
    pub fn add_keys(&mut self, host: &str, keys: &[Option<u64>]) {
        if let Some((host, distinct)) = self.add_page(host, keys) {
            for key in distinct {
                *self.counts.entry((host, key)).or_default() += 1;
            }
        }
    }

    /// Counts one page for its host and gives back the host's number and the page's distinct
    /// keys, for a caller that counts the keys itself (on disk, for a corpus whose distinct
    /// paragraphs would not fit in memory) and hands the counts to
    /// [`RepeatCounter::keep_repeated`]. `None` for a page without paragraphs.
    pub fn add_page(&mut self, host: &str, keys: &[Option<u64>]) -> Option<(u32, Vec<u64>)> {
        if keys.is_empty() {
            return None;
        }
        let host = match self.hosts.get(host) {
            Some(&h) => h,
            None => {
                let h = self.host_pages.len() as u32;
                self.hosts.insert(host.to_string(), h);
                self.host_pages.push(0);
                h
            }
        };
        if let Some(n) = self.host_pages.get_mut(host as usize) {
            *n += 1;
        }
        let mut distinct: Vec<u64> = keys.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        Some((host, distinct))
    }

    /// Takes the pages per (host, key) that the caller counted from [`RepeatCounter::add_page`]
    /// and keeps only those that meet `rule`: the marks are then those of a counter that
    /// counted every key itself, and memory holds the boilerplate, not every paragraph.
    pub fn keep_repeated(
        &mut self,
        counts: impl IntoIterator<Item = ((u32, u64), u32)>,
        rule: RepeatRule,
    ) {
        for ((host, key), n) in counts {
            let total = self.host_pages.get(host as usize).copied().unwrap_or(0);
            if is_repeated(n as usize, total, rule) {
                self.counts.insert((host, key), n);
            }
        }
    }

    /// The marks of one page's paragraphs, once every page has been added.
    pub fn marks(&self, page: &PageParagraphs<'_>, rule: RepeatRule) -> Vec<Option<Repeated>> {
        self.marks_of_keys(page.host, &paragraph_keys(&page.paragraphs), rule)
    }

    /// [`RepeatCounter::marks`] from the page's [`paragraph_keys`].
    pub fn marks_of_keys(
        &self,
        host: &str,
        keys: &[Option<u64>],
        rule: RepeatRule,
    ) -> Vec<Option<Repeated>> {
        let host = self.hosts.get(host).copied();
        let total = host
            .and_then(|h| self.host_pages.get(h as usize))
            .copied()
            .unwrap_or(0);
        keys.iter()
            .map(|key| {
                let host = host?;
                let n = self.counts.get(&(host, (*key)?)).copied().unwrap_or(0) as usize;
                is_repeated(n, total, rule).then_some(Repeated {
                    pages: n,
                    host_pages: total,
                })
            })
            .collect()
    }
}

/// The rule: on `n` of the host's `total` pages with text.
fn is_repeated(n: usize, total: usize, rule: RepeatRule) -> bool {
    total > 0 && n >= rule.min_pages && n as f64 >= rule.min_share * total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraph_keys_of_ascii_words_are_those_of_the_general_rule() {
        let general = |text: &str| -> Option<String> {
            let mut key = String::new();
            for word in text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
            {
                if !key.is_empty() {
                    key.push(' ');
                }
                for c in word.chars().flat_map(char::to_lowercase) {
                    key.push(if c.is_numeric() { '0' } else { c });
                }
            }
            (!key.is_empty()).then_some(key)
        };
        for text in [
            "© 2024 Example Corp. All Rights Reserved — v3.14",
            "Posted on 12 March 2019 by ADMIN, 7 comments",
            "Publié le 3 août 2021 · Ⅻ chapitres · ½ page · İstanbul ΣΑΣ",
            "MiXeD cAsE 42abc ABC42 x²",
            "",
            "   ...   ",
        ] {
            assert_eq!(paragraph_key(text), general(text), "{text}");
        }
    }

    fn page<'a>(host: &'a str, paragraphs: &[&'a str]) -> PageParagraphs<'a> {
        PageParagraphs {
            host,
            paragraphs: paragraphs.to_vec(),
        }
    }

    #[test]
    fn keys_ignore_case_punctuation_and_digits() {
        assert_eq!(
            paragraph_key("© 2023 Exemple SA. Tous droits réservés."),
            paragraph_key("© 2024  exemple sa — tous droits RÉSERVÉS")
        );
        assert_ne!(paragraph_key("réservés"), paragraph_key("reserves"));
        assert_eq!(paragraph_key("— • —"), None);
        assert_eq!(paragraph_key(""), None);
    }

    #[test]
    fn a_footer_on_most_pages_of_a_host_is_boilerplate() {
        let footer = "Ce site utilise des cookies. En poursuivant, vous acceptez.";
        let mut pages: Vec<PageParagraphs> = (0..6)
            .map(|i| {
                page(
                    "a.test",
                    &[
                        ["Premier texte.", "Deuxième.", "Troisième.", "4", "5", "6"][i],
                        footer,
                        footer,
                    ],
                )
            })
            .collect();
        pages.push(page("a.test", &["Une page sans le pied de page."]));
        // The same footer on another host, on 1 page: not boilerplate there.
        pages.push(page("b.test", &["Autre hôte.", footer]));
        let marks = find(&pages, RepeatRule::default());
        for marks in &marks[..6] {
            assert_eq!(marks[0], None);
            let expected = Some(Repeated {
                pages: 6,
                host_pages: 7,
            });
            assert_eq!(marks[1], expected);
            assert_eq!(marks[2], expected);
        }
        assert_eq!(marks[6], vec![None]);
        assert_eq!(marks[7], vec![None, None]);
    }

    #[test]
    fn both_conditions_are_needed() {
        // On 5 of 20 pages: enough pages, too small a share.
        let quote = "Une citation reprise dans plusieurs chapitres du manuel.";
        let mut pages: Vec<PageParagraphs> = (0..5).map(|_| page("m.test", &[quote])).collect();
        pages.extend((0..15).map(|_| page("m.test", &["Autre chose."])));
        let marks = find(&pages, RepeatRule::default());
        assert!(marks[..5].iter().all(|m| m[0].is_none()));
        // Other paragraphs: "Autre chose." is on 15 of 20 pages, 75 %: boilerplate.
        assert!(marks[5..].iter().all(|m| m[0].is_some()));
        // On 2 of 2 pages: the share is there, not the count.
        let tiny = [page("t.test", &[quote]), page("t.test", &[quote])];
        assert!(
            find(&tiny, RepeatRule::default())
                .iter()
                .all(|m| m[0].is_none())
        );
        // Pages without paragraphs do not count in the share.
        let mut pages: Vec<PageParagraphs> = (0..5).map(|_| page("e.test", &[quote])).collect();
        pages.extend((0..10).map(|_| page("e.test", &[])));
        assert!(
            find(&pages, RepeatRule::default())[..5]
                .iter()
                .all(|m| m[0].is_some())
        );
    }

    #[test]
    fn counts_kept_by_the_caller_give_the_same_marks() {
        let footer = "Tous droits réservés.";
        let quote = "Une citation reprise dans plusieurs chapitres du manuel.";
        let mut pages: Vec<PageParagraphs> = Vec::new();
        for i in 0..40 {
            let host = ["a.test", "b.test", "c.test"][i % 3];
            let own = ["Un.", "Deux.", "Trois.", "Quatre.", "Cinq."][i % 5];
            let paragraphs: Vec<&str> = match i % 4 {
                0 => vec![own, footer, footer],
                1 => vec![own, quote],
                2 => vec![footer],
                _ => vec![],
            };
            pages.push(page(host, &paragraphs));
        }
        for rule in [
            RepeatRule::default(),
            RepeatRule {
                min_pages: 2,
                min_share: 0.1,
            },
        ] {
            let mut outside = RepeatCounter::default();
            let mut counts: std::collections::BTreeMap<(u32, u64), u32> = Default::default();
            for p in &pages {
                if let Some((host, keys)) = outside.add_page(p.host, &paragraph_keys(&p.paragraphs))
                {
                    for key in keys {
                        *counts.entry((host, key)).or_default() += 1;
                    }
                }
            }
            outside.keep_repeated(counts.clone(), rule);
            assert!(
                outside.counts.len() < counts.len(),
                "only the repeated keys stay"
            );
            let got: Vec<_> = pages.iter().map(|p| outside.marks(p, rule)).collect();
            let expected = find(&pages, rule);
            assert_eq!(got, expected);
            assert!(expected.iter().flatten().any(Option::is_some));
        }
    }

    #[test]
    fn empty_input() {
        assert!(find(&[], RepeatRule::default()).is_empty());
        let marks = find(&[page("x.test", &["…"])], RepeatRule::default());
        assert_eq!(marks, vec![vec![None]]);
    }
}
