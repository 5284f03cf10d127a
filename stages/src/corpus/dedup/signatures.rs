//! The duplicate decision on compact signatures, which a caller may keep on disk.
//!
//! **In:** one [`Signature`] per document, in the caller's order, read again as often as the
//! decision needs ([`SignatureSource`]: once to find the documents with diacritics, once per
//! key table, twice to decide), and the shingle set of a document when it is half of a
//! candidate pair.
//! **Out:** the copies only, each with its [`Verdict`] (an original is every document not
//! listed).
//!
//! **Invariants:** the verdicts are [`deduplicate`](super::deduplicate)'s whatever the source
//! (a slice in memory, a file read back); the memory held is one flag per document and one
//! entry per digest or band key that two documents or more share, so it grows with the copies,
//! not with the corpus (each table's keys are gathered, sorted and thinned one table at a
//! time: 16 bytes a document for the digests' tables, 4 for a band's, while it is built).

use std::collections::{BTreeMap, HashMap};

use super::{BANDS, Fingerprint, Verdict, band_keys, jaccard};

/// Bytes of a signature as [`Signature::to_bytes`] writes it: the two digests, a flag byte
/// (bit 0: diacritics, bit 1: band keys present) and the band keys (little-endian).
pub const SIGNATURE_BYTES: usize = 16 + 16 + 1 + 4 * BANDS;

/// What the decision keeps of a document: the two digests and one 32-bit key per LSH band,
/// about 120 bytes instead of a [`Fingerprint`]'s 840 ([`SIGNATURE_BYTES`] written out), so
/// that the texts stay on disk and the signatures can too ([`SignatureSource`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// MD5 of the normalised text.
    pub md5_normalised: [u8; 16],
    /// MD5 of the normalised text with diacritics removed.
    pub md5_plain: [u8; 16],
    /// The text has at least one diacritic.
    pub has_diacritics: bool,
    /// The band keys of the MinHash signature, folded to 32 bits (a text without words has
    /// none). Two bands that collide only by the folding make a candidate pair that the exact
    /// Jaccard check then rejects: folding costs checks, never a wrong verdict.
    pub bands: Option<[u32; BANDS]>,
}

impl Fingerprint {
    /// The compact signature of this fingerprint.
    pub fn signature(&self) -> Signature {
        let keys = band_keys(&self.minhash);
        let mut bands = [0u32; BANDS];
        let complete = keys.len() == BANDS;
        for (slot, key) in bands.iter_mut().zip(keys) {
            *slot = (key ^ (key >> 32)) as u32;
        }
        Signature {
            md5_normalised: self.md5_normalised,
            md5_plain: self.md5_plain,
            has_diacritics: self.has_diacritics,
            bands: complete.then_some(bands),
        }
    }
}

impl Signature {
    /// The signature as [`SIGNATURE_BYTES`] bytes, for a caller that keeps them on disk.
    pub fn to_bytes(&self) -> [u8; SIGNATURE_BYTES] {
        let mut out = [0u8; SIGNATURE_BYTES];
        out[..16].copy_from_slice(&self.md5_normalised);
        out[16..32].copy_from_slice(&self.md5_plain);
        out[32] = u8::from(self.has_diacritics) | (u8::from(self.bands.is_some()) << 1);
        if let Some(bands) = &self.bands {
            for (slot, key) in out[33..].chunks_exact_mut(4).zip(bands) {
                slot.copy_from_slice(&key.to_le_bytes());
            }
        }
        out
    }

    /// The signature [`Signature::to_bytes`] wrote (any bytes give a signature).
    pub fn from_bytes(bytes: &[u8; SIGNATURE_BYTES]) -> Signature {
        let mut md5_normalised = [0u8; 16];
        let mut md5_plain = [0u8; 16];
        md5_normalised.copy_from_slice(&bytes[..16]);
        md5_plain.copy_from_slice(&bytes[16..32]);
        let flags = bytes[32];
        let bands = (flags & 2 != 0).then(|| {
            let mut bands = [0u32; BANDS];
            for (key, b) in bands.iter_mut().zip(bytes[33..].chunks_exact(4)) {
                *key = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            bands
        });
        Signature {
            md5_normalised,
            md5_plain,
            has_diacritics: flags & 1 != 0,
            bands,
        }
    }
}

/// Signatures the decision reads as often as it needs (see the module's In).
pub trait SignatureSource {
    /// Number of documents.
    fn count(&self) -> usize;
    /// Every signature, in the caller's order. A run that ends early (a read error the
    /// source keeps for its caller) leaves the documents not read originals.
    fn each(&self) -> impl Iterator<Item = Signature> + '_;
}

impl SignatureSource for [Signature] {
    fn count(&self) -> usize {
        self.len()
    }

    fn each(&self) -> impl Iterator<Item = Signature> + '_ {
        self.iter().copied()
    }
}

/// [`deduplicate`](super::deduplicate) on compact signatures in memory, one verdict per
/// signature: `shingles(i)` gives the shingle set of document `i` ([`shingle_set`](super::shingle_set)
/// of its text), asked only for the two documents of a candidate pair, so the texts can be
/// read back from disk when needed.
pub fn deduplicate_signatures(
    signatures: &[Signature],
    near_threshold: Option<f64>,
    shingles: impl FnMut(usize) -> Vec<u64>,
) -> Vec<Verdict> {
    let mut verdicts = vec![Verdict::Original; signatures.len()];
    for (i, verdict) in copies(signatures, near_threshold, shingles) {
        if let Some(slot) = verdicts.get_mut(i) {
            *slot = verdict;
        }
    }
    verdicts
}

/// The copies among the documents of `source`, each with its verdict (see
/// [`deduplicate_signatures`]; every document not listed is an original). At most
/// `u32::MAX - 1` documents are compared; more are originals.
pub fn copies<S: SignatureSource + ?Sized>(
    source: &S,
    near_threshold: Option<f64>,
    mut shingles: impl FnMut(usize) -> Vec<u64>,
) -> BTreeMap<usize, Verdict> {
    let n = source.count().min(NONE as usize);
    let mut marked = vec![false; n];
    let mut any_bands = false;
    for (i, s) in source.each().take(n).enumerate() {
        marked[i] = s.has_diacritics;
        any_bands |= s.bands.is_some();
    }
    let near = near_threshold.filter(|_| any_bands);
    let mut tables = Tables {
        by_md5: Shared::of(source.each().take(n).map(|s| s.md5_normalised).collect()),
        by_plain: Shared::of(source.each().take(n).map(|s| s.md5_plain).collect()),
        // Per band, its shared keys with the first original holding each (a document without
        // words has no bands and takes part in no band).
        buckets: match near {
            Some(_) => (0..BANDS)
                .map(|band| {
                    let keys = source
                        .each()
                        .take(n)
                        .filter_map(|s| s.bands.map(|b| b[band]));
                    Shared::of(keys.collect())
                })
                .collect(),
            None => Vec::new(),
        },
    };
    let mut copies = BTreeMap::new();
    // Priority order: the documents with diacritics first, then the others, each in caller
    // order.
    for diacritics in [true, false] {
        for (i, sig) in source.each().take(n).enumerate() {
            if sig.has_diacritics != diacritics {
                continue;
            }
            if let Some(verdict) = tables.decide(i, &sig, near, &marked, &mut shingles) {
                copies.insert(i, verdict);
            }
        }
    }
    copies
}

/// The keys two documents or more share, with the originals holding them.
struct Tables {
    by_md5: Shared<[u8; 16]>,
    by_plain: Shared<[u8; 16]>,
    buckets: Vec<Shared<u32>>,
}

impl Tables {
    /// Document `i`'s verdict when it copies an original; else it becomes one (later
    /// documents with its digests or band keys are compared with it).
    fn decide(
        &mut self,
        i: usize,
        sig: &Signature,
        near: Option<f64>,
        marked: &[bool],
        shingles: &mut impl FnMut(usize) -> Vec<u64>,
    ) -> Option<Verdict> {
        let md5_slot = self.by_md5.slot(&sig.md5_normalised);
        let plain_slot = self.by_plain.slot(&sig.md5_plain);
        if let Some(of) = md5_slot.and_then(|s| self.by_md5.first(s)) {
            return Some(Verdict::Exact { of });
        }
        if let Some(of) = plain_slot.and_then(|s| self.by_plain.first(s)) {
            return Some(Verdict::ExactWithoutDiacritics { of });
        }
        // The shared band keys of this document.
        let slots: Vec<(usize, usize)> = match (near, &sig.bands) {
            (Some(_), Some(bands)) => bands
                .iter()
                .enumerate()
                .filter_map(|(band, key)| self.buckets[band].slot(key).map(|s| (band, s)))
                .collect(),
            _ => Vec::new(),
        };
        if let Some(threshold) = near {
            let mut candidates: Vec<usize> = Vec::new();
            for &(band, slot) in &slots {
                candidates.extend(self.buckets[band].originals(slot));
            }
            if !candidates.is_empty() {
                // Candidates are visited by priority rank so that ties go to the earliest.
                let has_diacritics = |c: usize| marked.get(c).copied().unwrap_or(false);
                candidates.sort_by_key(|&c| (!has_diacritics(c), c));
                candidates.dedup();
                let mine = shingles(i);
                let mut best: Option<(usize, f64)> = None;
                for c in candidates {
                    let j = jaccard(&mine, &shingles(c));
                    if j >= threshold && best.is_none_or(|(_, b)| j > b) {
                        best = Some((c, j));
                    }
                }
                if let Some((of, jaccard)) = best {
                    return Some(Verdict::Near { of, jaccard });
                }
            }
        }
        if let Some(s) = md5_slot {
            self.by_md5.add(s, i);
        }
        if let Some(s) = plain_slot {
            self.by_plain.add(s, i);
        }
        for (band, slot) in slots {
            self.buckets[band].add(slot, i);
        }
        None
    }
}

/// No original yet.
const NONE: u32 = u32::MAX;

/// The keys that at least two documents share, sorted, each with the originals that hold it.
struct Shared<K> {
    keys: Vec<K>,
    /// The first original holding each key ([`NONE`] while there is none).
    first: Vec<u32>,
    /// The later originals holding a key (rare: a document that shares a key with an original
    /// is compared with it and is usually its copy).
    more: HashMap<u32, Vec<u32>>,
}

impl<K: Ord + Copy> Shared<K> {
    /// From every document's key (consumed: sorted in place, then only the repeated keys kept).
    fn of(mut all: Vec<K>) -> Shared<K> {
        all.sort_unstable();
        let mut keys: Vec<K> = all
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() > 1)
            .map(|run| run[0])
            .collect();
        drop(all);
        keys.shrink_to_fit();
        Shared {
            first: vec![NONE; keys.len()],
            keys,
            more: HashMap::new(),
        }
    }

    /// Where `key` is, if two documents or more hold it.
    fn slot(&self, key: &K) -> Option<usize> {
        self.keys.binary_search(key).ok()
    }

    fn first(&self, slot: usize) -> Option<usize> {
        self.first
            .get(slot)
            .filter(|&&f| f != NONE)
            .map(|&f| f as usize)
    }

    /// The originals holding the key at `slot`, first first.
    fn originals(&self, slot: usize) -> impl Iterator<Item = usize> + '_ {
        let more = self.more.get(&(slot as u32)).map_or(&[][..], Vec::as_slice);
        self.first(slot)
            .into_iter()
            .chain(more.iter().map(|&m| m as usize))
    }

    fn add(&mut self, slot: usize, original: usize) {
        let Some(first) = self.first.get_mut(slot) else {
            return;
        };
        if *first == NONE {
            *first = original as u32;
        } else {
            self.more
                .entry(slot as u32)
                .or_default()
                .push(original as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Fingerprint, deduplicate, shingle_set};
    use super::*;

    /// Signatures kept as bytes, as a caller keeps them on disk; `count` may claim more than
    /// the bytes hold (a file cut short).
    struct Bytes {
        bytes: Vec<u8>,
        count: usize,
        runs: std::cell::Cell<usize>,
    }

    impl SignatureSource for Bytes {
        fn count(&self) -> usize {
            self.count
        }

        fn each(&self) -> impl Iterator<Item = Signature> + '_ {
            self.runs.set(self.runs.get() + 1);
            self.bytes
                .chunks_exact(SIGNATURE_BYTES)
                .filter_map(|b| b.try_into().ok().map(Signature::from_bytes))
        }
    }

    fn texts() -> Vec<String> {
        let base = "le peintre regarde la toile blanche et choisit une couleur pour le ciel \
                    du matin puis il attend que la lumière change sur la colline";
        vec![
            base.to_string(),
            "une page sans rapport avec la peinture ni avec le ciel".to_string(),
            base.replace("ciel", "champ"),
            super::super::strip_diacritics(base),
            String::new(),
            base.to_uppercase(),
            String::new(),
            "court".to_string(),
        ]
    }

    fn bytes_of(signatures: &[Signature]) -> Vec<u8> {
        signatures.iter().flat_map(Signature::to_bytes).collect()
    }

    #[test]
    fn signatures_come_back_from_their_bytes_and_any_bytes_decode() {
        let sigs: Vec<Signature> = texts()
            .iter()
            .map(|t| Fingerprint::new(t).signature())
            .collect();
        assert!(sigs.iter().any(|s| s.bands.is_none()) && sigs.iter().any(|s| s.has_diacritics));
        for s in &sigs {
            assert_eq!(Signature::from_bytes(&s.to_bytes()), *s);
        }
        let noise = Signature::from_bytes(&[0xa7; SIGNATURE_BYTES]);
        assert!(noise.has_diacritics && noise.bands.is_some());
    }

    #[test]
    fn copies_from_bytes_are_the_verdicts_of_the_slice() {
        let texts = texts();
        let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::new(t)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sigs: Vec<Signature> = fps.iter().map(Fingerprint::signature).collect();
        let source = Bytes {
            bytes: bytes_of(&sigs),
            count: sigs.len(),
            runs: std::cell::Cell::new(0),
        };
        for threshold in [None, Some(0.5), Some(0.8)] {
            let expected = deduplicate(&fps, &refs, threshold);
            let got = copies(&source, threshold, |i| shingle_set(&texts[i]));
            let mut dense = vec![Verdict::Original; texts.len()];
            for (&i, v) in &got {
                dense[i] = *v;
            }
            assert_eq!(dense, expected, "{threshold:?}");
            assert!(got.len() >= 3, "{got:?}");
        }
        // The diacritics, two digests, twenty bands and two decision passes.
        source.runs.set(0);
        copies(&source, Some(0.8), |i| shingle_set(&texts[i]));
        assert_eq!(source.runs.get(), 1 + 2 + BANDS + 2);
    }

    #[test]
    fn a_source_cut_short_leaves_the_rest_originals() {
        let texts = texts();
        let sigs: Vec<Signature> = texts
            .iter()
            .map(|t| Fingerprint::new(t).signature())
            .collect();
        // The first four, then a piece of a fifth: the exact copy without diacritics is found.
        let mut bytes = bytes_of(&sigs[..4]);
        bytes.extend_from_slice(&[1, 2, 3]);
        let source = Bytes {
            bytes,
            count: sigs.len() + 5,
            runs: std::cell::Cell::new(0),
        };
        let got = copies(&source, Some(0.5), |i| {
            texts.get(i).map(|t| shingle_set(t)).unwrap_or_default()
        });
        assert_eq!(
            got,
            copies(&sigs[..4], Some(0.5), |i| shingle_set(&texts[i]))
        );
        assert_eq!(
            got.get(&3),
            Some(&Verdict::ExactWithoutDiacritics { of: 0 })
        );
        assert!(got.keys().all(|&k| k < 4));
        let empty = Bytes {
            bytes: Vec::new(),
            count: 0,
            runs: std::cell::Cell::new(0),
        };
        assert!(copies(&empty, Some(0.8), |_| Vec::new()).is_empty());
    }
}
