//! Term weights learned from the filtered seed pages `G_F`: a TF-IDF centroid, and the cosine
//! similarity of any page to it (one of the three parts of the topic score `S(p)`).
//!
//! **In:** texts (a page's title and visible text), the formula's folding options and the topic's
//! languages (whose stop words are not counted); for the centroid, the term counts of the seed
//! pages that satisfy the formula.
//!
//! **Out:** [`TermCounts`] of a text; a [`Centroid`] (at most [`MAX_TERMS`] weighted terms with
//! their IDF, serialisable so that a run stores it and a resumed crawl scores with the very same
//! weights); [`Centroid::similarity`] in `[0, 1]`.
//!
//! **Invariants:** pure and deterministic: the same seed texts give the same centroid (terms
//! ordered by weight then spelling, ties broken by spelling); tokens are folded exactly as the
//! formula folds them ([`crate::focus::formula::folded_tokens`]), so `Calques` and `calques` are
//! one term unless the topic keeps case; every similarity is finite and in `[0, 1]`.
//!
//! Weighting (as scikit-learn's `TfidfVectorizer(sublinear_tf=True)`): a term's weight in a
//! document is `(1 + ln tf) × idf`, with the smooth `idf = ln((1 + N) / (1 + df)) + 1` over the
//! `N` seed pages; each seed vector is L2-normalised, the centroid is their mean, cut to its
//! `MAX_TERMS` heaviest terms and normalised again. A page's vector uses the seed IDF for the
//! centroid's terms and the largest IDF (`df = 0`) for every other term, which only enters its
//! norm: a page full of words the seeds never use is far from them.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::focus::formula::{FormulaOptions, PreparedText, folded_tokens};

/// Most terms a centroid keeps: enough to describe a topic, few enough to explain it.
pub const MAX_TERMS: usize = 300;

/// Counts terms of texts: folded tokens of at least two characters, not only digits, not a stop
/// word of the topic's languages.
#[derive(Debug, Clone)]
pub struct TermCounter {
    options: FormulaOptions,
    stop: HashSet<String>,
}

/// Term → number of occurrences in one text, in term order.
pub type TermCounts = BTreeMap<String, u32>;

impl TermCounter {
    /// A counter with the formula's folding and the stop words of `languages` (ISO 639-1; a
    /// language without a list removes nothing).
    pub fn new(options: FormulaOptions, languages: &[String]) -> TermCounter {
        let mut stop = HashSet::new();
        for lang in languages {
            if let Some(list) = crate::page::stopwords::stopwords(lang) {
                for word in list {
                    // Folded as the text will be, so `à` and `été` are still recognised.
                    stop.extend(folded_tokens(word, options));
                }
            }
        }
        TermCounter { options, stop }
    }

    /// The term counts of `text`.
    pub fn count(&self, text: &str) -> TermCounts {
        let mut counts = TermCounts::new();
        for token in folded_tokens(text, self.options) {
            if self.keeps(&token) {
                *counts.entry(token).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The terms of a text already tokenised for the formula, in term order: the same counts
    /// as [`TermCounter::count`] when it was prepared with this counter's options, without a
    /// second tokenisation (each anchor, URL and page is scored by both).
    pub fn terms<'a>(
        &'a self,
        prepared: &'a PreparedText,
    ) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        prepared
            .token_counts()
            .filter(move |(token, _)| self.keeps(token))
    }

    /// [`TermCounter::terms`] as owned counts (what a seed page's centroid is learned from).
    pub fn count_prepared(&self, prepared: &PreparedText) -> TermCounts {
        self.terms(prepared)
            .map(|(token, n)| (token.to_string(), n))
            .collect()
    }

    /// The options texts must be prepared with for [`TermCounter::terms`].
    pub fn options(&self) -> FormulaOptions {
        self.options
    }

    /// Whether a folded token is a term: two characters or more, not only digits, not a stop
    /// word.
    fn keeps(&self, token: &str) -> bool {
        let mut chars = token.chars();
        let two = chars.next().is_some() && chars.next().is_some();
        two && !token.chars().all(char::is_numeric) && !self.stop.contains(token)
    }
}

/// One centroid term.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CentroidTerm {
    /// The folded term.
    pub term: String,
    /// Its weight in the L2-normalised centroid.
    pub weight: f64,
    /// Its IDF over the seed pages.
    pub idf: f64,
}

/// The TF-IDF centroid of the seed pages that satisfy the formula.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Centroid {
    /// Number of seed pages it was learned from.
    pub documents: usize,
    /// IDF of a term no seed page has.
    pub unseen_idf: f64,
    /// The terms, heaviest first (ties: by spelling).
    pub terms: Vec<CentroidTerm>,
    /// Term → position in `terms`, built on first use: [`Centroid::similarity`] runs for every
    /// page and every link of the crawl, and rebuilding it per call cost more than the rest.
    #[serde(skip)]
    index: std::sync::OnceLock<HashMap<String, usize>>,
}

impl PartialEq for Centroid {
    fn eq(&self, other: &Self) -> bool {
        self.documents == other.documents
            && self.unseen_idf.to_bits() == other.unseen_idf.to_bits()
            && self.terms == other.terms
    }
}

impl Centroid {
    /// Learns the centroid of `documents` (term counts of the `G_F` seed pages). `None` when
    /// there is nothing to learn from (no document, or no term in any).
    pub fn learn(documents: &[TermCounts]) -> Option<Centroid> {
        let n = documents.len();
        if n == 0 {
            return None;
        }
        let mut df: HashMap<&str, usize> = HashMap::new();
        for doc in documents {
            for term in doc.keys() {
                *df.entry(term.as_str()).or_insert(0) += 1;
            }
        }
        let idf = |df: usize| ((1.0 + n as f64) / (1.0 + df as f64)).ln() + 1.0;
        let mut sum: BTreeMap<&str, f64> = BTreeMap::new();
        for doc in documents {
            let weights: Vec<(&str, f64)> = doc
                .iter()
                .map(|(term, &tf)| {
                    let d = df.get(term.as_str()).copied().unwrap_or(1);
                    (term.as_str(), tf_weight(tf) * idf(d))
                })
                .collect();
            let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
            if norm > 0.0 {
                for (term, w) in weights {
                    *sum.entry(term).or_insert(0.0) += w / norm / n as f64;
                }
            }
        }
        let mut terms: Vec<CentroidTerm> = sum
            .into_iter()
            .filter(|(_, w)| *w > 0.0 && w.is_finite())
            .map(|(term, weight)| CentroidTerm {
                term: term.to_string(),
                weight,
                idf: idf(df.get(term).copied().unwrap_or(1)),
            })
            .collect();
        terms.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.term.cmp(&b.term)));
        terms.truncate(MAX_TERMS);
        let norm = terms
            .iter()
            .map(|t| t.weight * t.weight)
            .sum::<f64>()
            .sqrt();
        if terms.is_empty() || norm <= 0.0 {
            return None;
        }
        for t in &mut terms {
            t.weight /= norm;
        }
        Some(Centroid {
            documents: n,
            unseen_idf: idf(0),
            terms,
            index: std::sync::OnceLock::new(),
        })
    }

    /// Cosine similarity of a page's term counts to the centroid, in `[0, 1]`.
    pub fn similarity(&self, page: &TermCounts) -> f64 {
        self.similarity_of(page.iter().map(|(term, &tf)| (term.as_str(), tf)))
    }

    /// [`Centroid::similarity`] of term counts given in term order (as
    /// [`TermCounter::terms`] gives them; the order fixes the rounding of the sums).
    pub fn similarity_of<'a>(&self, page: impl IntoIterator<Item = (&'a str, u32)>) -> f64 {
        let index = self.index.get_or_init(|| {
            self.terms
                .iter()
                .enumerate()
                .map(|(i, t)| (t.term.clone(), i))
                .collect()
        });
        let mut dot = 0.0;
        let mut norm2 = 0.0;
        for (term, tf) in page {
            match index.get(term).and_then(|&i| self.terms.get(i)) {
                Some(t) => {
                    let w = tf_weight(tf) * t.idf;
                    dot += w * t.weight;
                    norm2 += w * w;
                }
                None => {
                    let w = tf_weight(tf) * self.unseen_idf;
                    norm2 += w * w;
                }
            }
        }
        if norm2 <= 0.0 {
            return 0.0;
        }
        let cos = dot / norm2.sqrt();
        if cos.is_finite() {
            cos.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Sublinear term frequency: `1 + ln tf` (0 for an absent term).
fn tf_weight(tf: u32) -> f64 {
    if tf == 0 {
        0.0
    } else {
        1.0 + f64::from(tf).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter() -> TermCounter {
        TermCounter::new(FormulaOptions::default(), &["fr".to_string()])
    }

    #[test]
    fn counts_fold_and_drop_stop_words_numbers_and_single_letters() {
        let c = counter().count("Les Calques et les calques de l'image : 2 calques, été 2024.");
        assert_eq!(c.get("calques"), Some(&3));
        assert_eq!(c.get("image"), Some(&1));
        assert!(!c.contains_key("les"));
        assert!(!c.contains_key("l"));
        assert!(!c.contains_key("2024"));
        // `été` is a French stop word; folded, it must still be recognised.
        assert!(!c.contains_key("ete"), "{c:?}");
    }

    #[test]
    fn pages_like_the_seeds_are_closer_than_unrelated_pages() {
        let k = counter();
        let seeds = [
            k.count(
                "Les calques de GIMP : créer un calque, fusionner les calques, masque de calque.",
            ),
            k.count("Retouche d'image avec GIMP : pixels, calques et sélection."),
        ];
        let centroid = Centroid::learn(&seeds).unwrap();
        assert_eq!(centroid.documents, 2);
        assert_eq!(centroid.terms[0].term, "calques");
        let near = centroid.similarity(&k.count("Dans GIMP, un calque contient des pixels."));
        let far = centroid
            .similarity(&k.count("Le serveur HTTP Apache lit son fichier de configuration."));
        assert!(near > 0.3, "{near}");
        assert_eq!(far, 0.0);
        assert!((0.0..=1.0).contains(&centroid.similarity(&seeds[0])));
        assert_eq!(centroid.similarity(&TermCounts::new()), 0.0);
    }

    #[test]
    fn prepared_texts_give_the_same_counts_and_similarity_to_the_bit() {
        let k = counter();
        let centroid = Centroid::learn(&[
            k.count("Les calques de GIMP : créer un calque, fusionner les calques."),
            k.count("Retouche d'image avec GIMP : pixels, calques et sélection 2024."),
        ])
        .unwrap();
        for text in [
            "Dans GIMP, un calque contient des pixels ; les Calques s'empilent. 12 a b",
            "Le serveur HTTP Apache",
            "",
        ] {
            let prepared = PreparedText::new(text, k.options());
            assert_eq!(k.count_prepared(&prepared), k.count(text));
            assert_eq!(
                centroid.similarity_of(k.terms(&prepared)).to_bits(),
                centroid.similarity(&k.count(text)).to_bits()
            );
        }
    }

    #[test]
    fn nothing_to_learn_from_gives_no_centroid() {
        assert_eq!(Centroid::learn(&[]), None);
        assert_eq!(Centroid::learn(&[TermCounts::new()]), None);
    }

    #[test]
    fn learning_is_deterministic_and_serialisable() {
        let k = counter();
        let seeds = [
            k.count("graphe sommet arête graphe"),
            k.count("sommet arbre"),
        ];
        let a = Centroid::learn(&seeds).unwrap();
        let b = Centroid::learn(&seeds).unwrap();
        assert_eq!(a, b);
        let json = serde_json::to_string(&a).unwrap();
        let back: Centroid = serde_json::from_str(&json).unwrap();
        assert_eq!(a, back);
        assert!(a.terms.len() <= MAX_TERMS);
    }
}
