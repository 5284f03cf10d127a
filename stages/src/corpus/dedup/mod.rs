//! Duplicate documents: exact copies (two MD5 digests) and near copies (MinHash over word
//! shingles, verified by exact Jaccard).
//!
//! **In**: the clean text of each candidate document, as a [`Fingerprint`] (computed once per
//! document, on any thread) plus the text itself, in the caller's order (glaneur passes URL-id
//! order, i.e. discovery order).
//! **Out**: one [`Verdict`] per document: an original, or a copy of another document (its
//! index), with the kind of copy and, for near copies, the measured similarity.
//!
//! **Method.**
//! - *Exact* (seed 002): MD5 of the **normalised** text — the words (runs of letters and
//!   digits) lower-cased and joined by single spaces, so copies that differ only in spacing,
//!   case, punctuation or typographic quotes (`’` / `'`) match — and MD5 of the same text
//!   **with diacritics removed** (NFD, combining marks dropped), which catches a copy served
//!   without accents.
//! - *Near*: the set of word 5-shingles (five consecutive normalised, diacritic-free words; a
//!   text of fewer than five words is one shingle) and its Jaccard resemblance (Broder 1997).
//!   A [`NUM_HASHES`]-value MinHash signature, split into [`BANDS`] bands of [`ROWS`] values,
//!   finds candidate pairs (locality-sensitive hashing, as datasketch and text-dedup do); every
//!   candidate is then checked on the exact shingle sets, so the threshold is exact: two
//!   documents are near copies when they share at least `threshold` of their shingles
//!   ([`DEFAULT_NEAR_THRESHOLD`] = 0.8, Jaccard). With 20 × 5, a pair at Jaccard 0.8 becomes a
//!   candidate with probability 0.9996 (`1 − (1 − 0.8⁵)²⁰`), at 0.9 with probability > 0.999999.
//!
//! **Which copy wins** (deterministic, independent of threads): documents are visited in the
//! order (has diacritics first, then caller order), and each is compared with the originals
//! already kept. So of two copies the one with diacritics is kept, as seed 002 asks, and
//! otherwise the first in caller order. A near copy points at the most similar original
//! (ties: the earliest).
//!
//! **Invariants**: no randomness (hash seeds are constants); never panics; a document is never
//! a copy of itself, and the original it points to is always a [`Verdict::Original`].

use md5::{Digest, Md5};
use serde::Serialize;

mod signatures;

pub use signatures::{SIGNATURE_BYTES, Signature, SignatureSource, copies, deduplicate_signatures};

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 5;
/// Values in a MinHash signature.
pub const NUM_HASHES: usize = BANDS * ROWS;
/// LSH bands.
pub const BANDS: usize = 20;
/// Signature values per band.
pub const ROWS: usize = 5;
/// Default Jaccard resemblance (of word 5-shingles) from which two documents are near copies.
pub const DEFAULT_NEAR_THRESHOLD: f64 = 0.8;

/// What identifies a document's text, computed once per document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// MD5 of the normalised text.
    pub md5_normalised: [u8; 16],
    /// MD5 of the normalised text with diacritics removed.
    pub md5_plain: [u8; 16],
    /// The text has at least one diacritic (the plain form differs).
    pub has_diacritics: bool,
    /// MinHash signature of the word shingles ([`NUM_HASHES`] values; empty for a text
    /// without words).
    pub minhash: Vec<u64>,
}

impl Fingerprint {
    /// Fingerprint of a clean text.
    pub fn new(text: &str) -> Fingerprint {
        let normalised = normalise(text);
        let plain = strip_diacritics(&normalised);
        let shingles = shingle_set_of_plain(&plain);
        Fingerprint {
            md5_normalised: Md5::digest(normalised.as_bytes()).into(),
            md5_plain: Md5::digest(plain.as_bytes()).into(),
            has_diacritics: plain != normalised,
            minhash: minhash(&shingles),
        }
    }
}

/// The decision for one document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Verdict {
    /// Not a copy of an earlier original.
    Original,
    /// Same normalised text as document `of`.
    Exact {
        /// Index of the original.
        of: usize,
    },
    /// Same text as document `of` once diacritics are removed (one of the two lacks them).
    ExactWithoutDiacritics {
        /// Index of the original (the version with diacritics when one has them).
        of: usize,
    },
    /// Shares at least the threshold of its word shingles with document `of`.
    Near {
        /// Index of the original.
        of: usize,
        /// Jaccard resemblance of the two shingle sets, 0 to 1.
        jaccard: f64,
    },
}

impl Verdict {
    /// The original this document copies, if it is a copy.
    pub fn original(&self) -> Option<usize> {
        match *self {
            Verdict::Original => None,
            Verdict::Exact { of }
            | Verdict::ExactWithoutDiacritics { of }
            | Verdict::Near { of, .. } => Some(of),
        }
    }
}

/// Decides, for each document, whether it copies another one. `fingerprints[i]` must be the
/// fingerprint of `texts[i]`. `near_threshold`: Jaccard from which documents are near copies
/// (`None`: exact copies only). Lengths differing is not an error: extra items are ignored.
pub fn deduplicate(
    fingerprints: &[Fingerprint],
    texts: &[&str],
    near_threshold: Option<f64>,
) -> Vec<Verdict> {
    let n = fingerprints.len().min(texts.len());
    let signatures: Vec<Signature> = fingerprints[..n]
        .iter()
        .map(Fingerprint::signature)
        .collect();
    deduplicate_signatures(&signatures, near_threshold, |i| {
        texts.get(i).map(|t| shingle_set(t)).unwrap_or_default()
    })
}

/// The words of `text` (maximal runs of letters and digits), lower-cased, joined by single
/// spaces.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        if word.is_ascii() {
            // The same as `char::to_lowercase` on ASCII, without the per-character iterator.
            let start = out.len();
            out.push_str(word);
            out[start..].make_ascii_lowercase();
        } else {
            out.extend(word.chars().flat_map(char::to_lowercase));
        }
    }
    out
}

/// `text` without diacritics: NFD, then every combining mark dropped (`Été` → `Ete`; `œ` and
/// `ł` are letters, not marked letters, and stay).
pub fn strip_diacritics(text: &str) -> String {
    // Character by character, as the formula's folding does: canonical reordering only moves
    // marks among themselves, so decomposing each character and dropping every mark is NFD
    // then dropping the marks; ASCII has nothing to decompose.
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            unicode_normalization::char::decompose_canonical(c, |d| {
                if !unicode_normalization::char::is_combining_mark(d) {
                    out.push(d);
                }
            });
        }
    }
    out
}

/// The sorted, de-duplicated hashes of the word 5-shingles of a text.
pub fn shingle_set(text: &str) -> Vec<u64> {
    shingle_set_of_plain(&strip_diacritics(&normalise(text)))
}

/// Jaccard resemblance of two sorted, de-duplicated sets: |A ∩ B| / |A ∪ B| (1 for two empty
/// sets).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64
}

/// Shingles of an already normalised, diacritic-free text (words separated by single spaces).
fn shingle_set_of_plain(plain: &str) -> Vec<u64> {
    let words: Vec<&str> = plain.split(' ').filter(|w| !w.is_empty()).collect();
    let mut set: Vec<u64> = if words.is_empty() {
        Vec::new()
    } else if words.len() < SHINGLE_WORDS {
        vec![hash_words(&words)]
    } else {
        words.windows(SHINGLE_WORDS).map(hash_words).collect()
    };
    set.sort_unstable();
    set.dedup();
    set
}

/// FNV-1a over the words with a separator byte, then a 64-bit finaliser.
fn hash_words(words: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for &b in w.as_bytes().iter().chain(std::iter::once(&0x1f)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    mix64(h)
}

/// splitmix64's finaliser: a bijective mix of 64 bits.
pub(crate) fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The seed of the `k`-th MinHash function (constant, so signatures are reproducible).
fn seed(k: usize) -> u64 {
    mix64(0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(k as u64 + 1))
}

/// MinHash signature: for each of [`NUM_HASHES`] hash functions `h_k(x) = mix64(x ⊕ seed_k)`,
/// the minimum over the shingles. Empty for an empty set.
fn minhash(shingles: &[u64]) -> Vec<u64> {
    if shingles.is_empty() {
        return Vec::new();
    }
    let seeds: Vec<u64> = (0..NUM_HASHES).map(seed).collect();
    let mut sig = vec![u64::MAX; NUM_HASHES];
    for &s in shingles {
        for (slot, k) in sig.iter_mut().zip(&seeds) {
            let h = mix64(s ^ k);
            if h < *slot {
                *slot = h;
            }
        }
    }
    sig
}

/// One key per band of the signature (none for an empty signature).
fn band_keys(sig: &[u64]) -> Vec<u64> {
    if sig.len() != NUM_HASHES {
        return Vec::new();
    }
    sig.chunks(ROWS)
        .map(|band| band.iter().fold(0u64, |acc, v| mix64(acc ^ v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn run(texts: &[&str], threshold: Option<f64>) -> Vec<Verdict> {
        let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::new(t)).collect();
        deduplicate(&fps, texts, threshold)
    }

    const LONG: &str = "Le calque est une feuille transparente posée sur l’image. On peut \
        peindre sur un calque sans toucher aux autres, le déplacer, changer son opacité ou \
        son mode de fusion, et l’empiler avec d’autres calques pour composer une image \
        complexe à partir d’éléments simples que l’on retouche séparément.";

    #[test]
    fn normalisation_ignores_spacing_case_and_punctuation() {
        assert_eq!(normalise("  L’Été,\n  c'est  BEAU ! "), "l été c est beau");
        assert_eq!(normalise("— … —"), "");
        assert_eq!(strip_diacritics("Été à Brno, œuvre"), "Ete a Brno, œuvre");
        assert_eq!(
            Fingerprint::new("Un chat.  Deux chats !").md5_normalised,
            Fingerprint::new("un chat deux chats").md5_normalised
        );
    }

    #[test]
    fn exact_copies_point_to_the_first() {
        let v = run(&["Un texte.", "Autre chose ici.", "UN TEXTE"], Some(0.8));
        assert_eq!(v[0], Verdict::Original);
        assert_eq!(v[1], Verdict::Original);
        assert_eq!(v[2], Verdict::Exact { of: 0 });
    }

    #[test]
    fn the_version_with_diacritics_wins_whatever_the_order() {
        let plain = strip_diacritics(LONG);
        for texts in [[plain.as_str(), LONG], [LONG, plain.as_str()]] {
            let v = run(&texts, Some(0.8));
            let accented = texts.iter().position(|t| *t == LONG).unwrap_or(9);
            let other = 1 - accented;
            assert_eq!(v[accented], Verdict::Original);
            assert_eq!(v[other], Verdict::ExactWithoutDiacritics { of: accented });
        }
    }

    #[test]
    fn near_copies_are_found_and_measured() {
        let edited = LONG.replace("complexe", "riche");
        let appended = format!("{LONG} Voir aussi le chapitre suivant.");
        let other = "La balance des blancs corrige la dominante de couleur d’une photo prise \
            sous un éclairage artificiel ; on la règle avant toute autre retouche pour que les \
            teintes restent naturelles dans la suite du travail.";
        let v = run(&[LONG, &edited, other, &appended], Some(0.8));
        assert_eq!(v[0], Verdict::Original);
        assert_eq!(v[2], Verdict::Original);
        match v[1] {
            Verdict::Near { of: 0, jaccard } => assert!((0.8..1.0).contains(&jaccard)),
            ref other => panic!("{other:?}"),
        }
        assert!(matches!(v[3], Verdict::Near { of: 0, .. }), "{:?}", v[3]);
        // Exact only: near copies stay.
        let v = run(&[LONG, &edited], None);
        assert_eq!(v, vec![Verdict::Original, Verdict::Original]);
        // A stricter threshold than the real resemblance keeps both.
        let v = run(&[LONG, &edited], Some(0.99));
        assert_eq!(v, vec![Verdict::Original, Verdict::Original]);
    }

    #[test]
    fn a_copy_points_to_an_original_never_to_a_copy() {
        let a = LONG.to_string();
        let b = LONG.replace("complexe", "riche");
        let c = b.replace("simples", "variés");
        let v = run(&[&a, &b, &c], Some(0.7));
        for verdict in &v {
            if let Some(of) = verdict.original() {
                assert_eq!(v[of], Verdict::Original);
            }
        }
    }

    #[test]
    fn jaccard_and_shingles() {
        assert_eq!(jaccard(&[], &[]), 1.0);
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(shingle_set("a b c").len(), 1);
        assert_eq!(shingle_set("a b c d e f").len(), 2);
        assert!(shingle_set("").is_empty());
        // Diacritics and case do not change shingles.
        assert_eq!(shingle_set("Été chaud"), shingle_set("ete CHAUD"));
    }

    #[test]
    fn the_fast_paths_give_what_nfd_and_to_lowercase_give() {
        use unicode_normalization::UnicodeNormalization;
        let whole = |t: &str| -> String {
            t.nfd()
                .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
                .collect()
        };
        let lower = |t: &str| -> String {
            t.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| w.chars().flat_map(char::to_lowercase).collect::<String>())
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Precomposed and decomposed letters, marks in non-canonical order (reordered by
        // NFD), marks after ASCII letters, Latin-1 symbols at the U+00C0 boundary, Greek,
        // Vietnamese, Hangul (decomposed by NFD), a mark at the very start, ß and İ.
        let texts = [
            LONG,
            "Été, cœur, Łódź, ÀÉÎÕÜ ¿¡ «ça» ¨´¯ °±",
            "e\u{301}\u{327}a\u{316}\u{301}x\u{301}\u{316} n\u{303}",
            "\u{301}début Ἀθῆναι Tiếng Việt 한국어 Straße İstanbul",
            "ASCII only, NOTHING to do: 42 x 7",
            "",
        ];
        for t in texts {
            assert_eq!(strip_diacritics(t), whole(t), "{t}");
            assert_eq!(normalise(t), lower(t), "{t}");
        }
    }

    #[test]
    fn minhash_estimates_jaccard() {
        let a = shingle_set(LONG);
        let edited = LONG.replace("peindre", "dessiner");
        let b = shingle_set(&edited);
        let (sa, sb) = (minhash(&a), minhash(&b));
        let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count() as f64;
        let estimate = agree / NUM_HASHES as f64;
        assert!((estimate - jaccard(&a, &b)).abs() < 0.2, "{estimate}");
        assert_eq!(band_keys(&sa).len(), BANDS);
        assert!(band_keys(&[]).is_empty());
    }

    /// The straightforward method: every original's digests and band keys in hash maps.
    fn reference(fps: &[Fingerprint], texts: &[String], threshold: f64) -> Vec<Verdict> {
        let sigs: Vec<Signature> = fps.iter().map(Fingerprint::signature).collect();
        let mut order: Vec<usize> = (0..sigs.len()).collect();
        order.sort_by_key(|&i| (!sigs[i].has_diacritics, i));
        let mut verdicts = vec![Verdict::Original; sigs.len()];
        let mut by_md5: HashMap<[u8; 16], usize> = HashMap::new();
        let mut by_plain: HashMap<[u8; 16], usize> = HashMap::new();
        let mut buckets: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
        for &i in &order {
            let sig = &sigs[i];
            if let Some(&of) = by_md5.get(&sig.md5_normalised) {
                verdicts[i] = Verdict::Exact { of };
                continue;
            }
            if let Some(&of) = by_plain.get(&sig.md5_plain) {
                verdicts[i] = Verdict::ExactWithoutDiacritics { of };
                continue;
            }
            let keys: Vec<(usize, u32)> = sig
                .bands
                .map(|b| b.iter().copied().enumerate().collect())
                .unwrap_or_default();
            let mut candidates: Vec<usize> = keys
                .iter()
                .flat_map(|k| buckets.get(k).cloned().unwrap_or_default())
                .collect();
            candidates.sort_by_key(|&c| (!sigs[c].has_diacritics, c));
            candidates.dedup();
            let mine = shingle_set(&texts[i]);
            let mut best: Option<(usize, f64)> = None;
            for c in candidates {
                let j = jaccard(&mine, &shingle_set(&texts[c]));
                if j >= threshold && best.is_none_or(|(_, b)| j > b) {
                    best = Some((c, j));
                }
            }
            if let Some((of, jaccard)) = best {
                verdicts[i] = Verdict::Near { of, jaccard };
                continue;
            }
            by_md5.insert(sig.md5_normalised, i);
            by_plain.insert(sig.md5_plain, i);
            for k in keys {
                buckets.entry(k).or_default().push(i);
            }
        }
        verdicts
    }

    #[test]
    fn shared_key_tables_give_the_verdicts_of_full_hash_maps() {
        // Families of texts: an original, then copies with a few words changed, accents
        // removed, case changed, or exact repeats, mixed with unrelated texts, in a scrambled
        // order (a fixed pseudo-random sequence).
        let words: Vec<&str> = LONG.split_whitespace().collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: usize| {
            state = mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            (state % m as u64) as usize
        };
        let mut texts: Vec<String> = Vec::new();
        for family in 0..40 {
            let base: Vec<String> = (0..60)
                .map(|k| {
                    format!(
                        "{}{}",
                        words[(k * 7 + family * 13) % words.len()],
                        family % 7
                    )
                })
                .collect();
            for _ in 0..1 + next(6) {
                let mut copy = base.clone();
                for _ in 0..next(4) {
                    let at = next(copy.len());
                    copy[at] = words[next(words.len())].to_string();
                }
                let mut text = copy.join(" ");
                match next(4) {
                    0 => text = strip_diacritics(&text),
                    1 => text = text.to_uppercase(),
                    _ => {}
                }
                texts.push(text);
            }
        }
        texts.push(String::new());
        texts.push(String::new());
        texts.push("court".to_string());
        for i in (1..texts.len()).rev() {
            texts.swap(i, next(i + 1));
        }
        let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::new(t)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for threshold in [0.5, 0.8, 0.95] {
            let got = deduplicate(&fps, &refs, Some(threshold));
            assert_eq!(
                got,
                reference(&fps, &texts, threshold),
                "threshold {threshold}"
            );
            let kinds = |f: fn(&Verdict) -> bool| got.iter().filter(|v| f(v)).count();
            assert!(kinds(|v| matches!(v, Verdict::Near { .. })) > 5, "{got:?}");
            assert!(kinds(|v| matches!(v, Verdict::Exact { .. })) > 0, "{got:?}");
        }
    }

    #[test]
    fn empty_and_hostile_inputs_do_not_panic() {
        let v = run(&["", "", "…", "x"], Some(0.8));
        assert_eq!(v[0], Verdict::Original);
        assert_eq!(v[1], Verdict::Exact { of: 0 });
        assert_eq!(v[2], Verdict::Exact { of: 0 });
        assert!(deduplicate(&[], &[], Some(0.8)).is_empty());
        let fps = vec![Fingerprint::new("a")];
        assert_eq!(deduplicate(&fps, &[], None).len(), 0);
    }
}
