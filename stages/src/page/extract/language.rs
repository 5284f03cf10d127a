//! The language whose stop words measure the blocks, and stop-word look-ups.
//!
//! **In:** the raw blocks, their boilerplate mask and the declared language. **Out:** the stop-word
//! language (or none when the language has no list), with the detection sample and whatlang's guess
//! on it (reused when the kept text starts with the same sample).
//!
//! **Invariants:** a detection is used only when reliable; else the best-covering list, the
//! declared language, then [`FALLBACK_LANGUAGE`]; look-ups lower-case without allocating a new
//! string per word.

use crate::page::lang::{self, LangGuess};
use crate::page::stopwords;

use super::block::RawBlock;
use super::{
    FALLBACK_LANGUAGE, LENGTH_LOW, MIN_GUESS_DENSITY, MIN_GUESS_WORDS, sample_text, words,
};

/// The language whose stop words measure the blocks. In order: a reliable detection on the
/// page's longer, non-boilerplate blocks; else the list that covers most of that sample's
/// words, when it covers enough of them (whatlang's confidence is low on mixed or short pages
/// that function words still identify well); else the declared language; else
/// [`FALLBACK_LANGUAGE`]. `None` when the language is known but has no list: stop words are
/// then not used, as in jusText's language-independent mode. Also returns the sample and
/// whatlang's guess on it.
pub(super) fn stopword_language(
    blocks: &[RawBlock],
    boiler: &[bool],
    lang_attr: Option<&str>,
) -> (Option<&'static str>, (String, Option<LangGuess>)) {
    let mut sample = sample_text(
        blocks
            .iter()
            .zip(boiler)
            .filter(|(b, boiler)| {
                !**boiler && b.text.len() >= LENGTH_LOW && b.link_chars * 2 < b.text.len()
            })
            .map(|(b, _)| b.text.as_str()),
    );
    if sample.len() < 200 {
        sample = sample_text(blocks.iter().map(|b| b.text.as_str()));
    }
    let with_list = |code: &str| stopwords::LANGUAGES.iter().copied().find(|l| *l == code);
    let guess = lang::detect(&sample);
    let code = match &guess {
        Some(guess) if guess.reliable => with_list(&guess.code),
        _ => match best_stopword_list(&sample) {
            Some(code) => Some(code),
            None => match lang_attr.and_then(lang::primary_language) {
                Some(code) => with_list(&code),
                None => Some(FALLBACK_LANGUAGE),
            },
        },
    };
    (code, (sample, guess))
}

/// The list covering the largest share of `sample`'s words, if that share reaches
/// [`MIN_GUESS_DENSITY`] over at least [`MIN_GUESS_WORDS`] words.
fn best_stopword_list(sample: &str) -> Option<&'static str> {
    let lists: Vec<&[&str]> = stopwords::LANGUAGES
        .iter()
        .map(|code| stopwords::stopwords(code).unwrap_or_default())
        .collect();
    let mut total = 0usize;
    let mut hits = vec![0usize; lists.len()];
    let mut lower = String::new();
    for word in words(sample) {
        total += 1;
        for (hit, list) in hits.iter_mut().zip(&lists) {
            *hit += usize::from(on_list(list, word, &mut lower));
        }
    }
    let (best, &count) = hits.iter().enumerate().max_by_key(|(_, count)| **count)?;
    let enough = total >= MIN_GUESS_WORDS && count as f64 >= MIN_GUESS_DENSITY * total as f64;
    enough
        .then(|| stopwords::LANGUAGES.get(best).copied())
        .flatten()
}

/// Whether `word`, lower-cased (in `scratch` when needed), is on the sorted `list`.
pub(super) fn on_list(list: &[&str], word: &str, scratch: &mut String) -> bool {
    if word.is_ascii() {
        // Most words: ASCII lower-casing, byte by byte.
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return list.binary_search(&word).is_ok();
        }
        scratch.clear();
        scratch.push_str(word);
        scratch.make_ascii_lowercase();
        return list.binary_search(&scratch.as_str()).is_ok();
    }
    if word.chars().any(char::is_uppercase) {
        scratch.clear();
        scratch.extend(word.chars().flat_map(char::to_lowercase));
        list.binary_search(&scratch.as_str()).is_ok()
    } else {
        list.binary_search(&word).is_ok()
    }
}

/// A word list as a hash set: one hash per word instead of a binary search of string
/// comparisons (the stop-word test runs on every word of the page).
pub(super) type WordSet = std::collections::HashSet<&'static str>;

/// The stop words of `lang` as a set, built once per language.
pub(super) fn stopword_set(lang: &str) -> Option<&'static WordSet> {
    static SETS: std::sync::LazyLock<Vec<(&'static str, WordSet)>> =
        std::sync::LazyLock::new(|| {
            stopwords::LANGUAGES
                .iter()
                .map(|code| {
                    let words = stopwords::stopwords(code).unwrap_or_default();
                    (*code, words.iter().copied().collect())
                })
                .collect()
        });
    SETS.iter()
        .find(|(code, _)| *code == lang)
        .map(|(_, set)| set)
}

/// [`on_list`] for a [`WordSet`].
pub(super) fn in_set(set: &WordSet, word: &str, scratch: &mut String) -> bool {
    if word.is_ascii() {
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return set.contains(word);
        }
        scratch.clear();
        scratch.push_str(word);
        scratch.make_ascii_lowercase();
        return set.contains(scratch.as_str());
    }
    if word.chars().any(char::is_uppercase) {
        scratch.clear();
        scratch.extend(word.chars().flat_map(char::to_lowercase));
        set.contains(scratch.as_str())
    } else {
        set.contains(word)
    }
}
