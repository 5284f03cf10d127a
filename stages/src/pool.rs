//! A pool of distinct strings: each one stored once in a single buffer and known by a `u32` id.
//!
//! **In:** strings, one at a time ([`StrPool::intern`]).
//! **Out:** an id per string (the same id for the same text, ids numbered from 0 in order of
//! first appearance) and the text of an id ([`StrPool::get`]).
//!
//! **Invariants:** no allocation per string (one text buffer, one offset table, one hash table
//! of ids), so millions of distinct values (a crawl's anchor texts, a corpus lexicon) cost their
//! bytes plus about 13 bytes each; [`StrPool::freeze`] drops the hash table once no more strings
//! come, keeping the texts and their ids.

use std::hash::BuildHasher as _;

/// Distinct strings in one buffer, with a hash table from text to id while it is open.
#[derive(Debug, Clone, Default)]
pub struct StrPool {
    table: hashbrown::HashTable<u32>,
    text: String,
    /// Start of each string in `text`, and the end of the last one last (empty when no string).
    ends: Vec<usize>,
}

fn hash(value: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(value)
}

impl StrPool {
    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len().saturating_sub(1)
    }

    /// Whether the pool holds no string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of `id` (empty for an id the pool did not give).
    pub fn get(&self, id: u32) -> &str {
        let i = id as usize;
        match (self.ends.get(i), self.ends.get(i + 1)) {
            (Some(&from), Some(&to)) => self.text.get(from..to).unwrap_or(""),
            _ => "",
        }
    }

    /// The id of `value`, given the next free id when it is new. Past `u32::MAX` distinct
    /// strings every new one gets `u32::MAX` (a pool that large would hold 4 billion texts).
    pub fn intern(&mut self, value: &str) -> u32 {
        if self.ends.is_empty() {
            self.ends.push(0);
        }
        let h = hash(value);
        let (text, ends) = (&self.text, &self.ends);
        let slice = |id: u32| &text[ends[id as usize]..ends[id as usize + 1]];
        if let Some(&id) = self.table.find(h, |&id| slice(id) == value) {
            return id;
        }
        let Ok(id) = u32::try_from(self.ends.len() - 1) else {
            return u32::MAX;
        };
        self.text.push_str(value);
        self.ends.push(self.text.len());
        let (text, ends) = (&self.text, &self.ends);
        self.table.insert_unique(h, id, |&i| {
            hash(&text[ends[i as usize]..ends[i as usize + 1]])
        });
        id
    }

    /// Drops the hash table and spare capacity: the pool is read-only from here on (a later
    /// [`StrPool::intern`] still works, but may store a text twice).
    pub fn freeze(&mut self) {
        self.table = hashbrown::HashTable::new();
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// A read-only pool of `text` cut at `ends` (the start of each string, then the end of the
    /// last), or `None` when `ends` does not start at 0, rise, end at the text's end and fall on
    /// character boundaries. An empty `ends` is the empty pool.
    pub fn from_parts(text: String, ends: Vec<usize>) -> Option<StrPool> {
        let cut = match (ends.first(), ends.last()) {
            (None, _) => text.is_empty(),
            (Some(&first), Some(&last)) => first == 0 && last == text.len(),
            _ => false,
        };
        let valid = cut
            && ends.windows(2).all(|w| w[0] <= w[1])
            && ends.iter().all(|&end| text.is_char_boundary(end));
        valid.then(|| StrPool {
            table: hashbrown::HashTable::new(),
            text,
            ends,
        })
    }

    /// The ids in the byte order of their strings.
    pub fn sorted_ids(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.get(a).cmp(self.get(b)));
        order
    }

    /// The strings in id order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len() as u32).map(|id| self.get(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_gets_the_same_id_and_ids_follow_first_appearance() {
        let mut pool = StrPool::default();
        assert!(pool.is_empty());
        assert_eq!(pool.get(0), "");
        let words = ["Next", "", "Home", "Next", "été", "Home", ""];
        let ids: Vec<u32> = words.iter().map(|w| pool.intern(w)).collect();
        assert_eq!(ids, [0, 1, 2, 0, 3, 2, 1]);
        assert_eq!(pool.len(), 4);
        assert_eq!(pool.iter().collect::<Vec<_>>(), ["Next", "", "Home", "été"]);
        assert_eq!(pool.sorted_ids(), [1, 2, 0, 3]);
        pool.freeze();
        assert_eq!((pool.get(3), pool.get(1), pool.get(9)), ("été", "", ""));
        let parts = StrPool::from_parts("Nextété".into(), vec![0, 4, 4, 9]).unwrap();
        assert_eq!(parts.iter().collect::<Vec<_>>(), ["Next", "", "été"]);
        assert!(
            StrPool::from_parts(String::new(), Vec::new())
                .unwrap()
                .is_empty()
        );
        for bad in [
            vec![0, 5, 9],
            vec![1, 9],
            vec![0, 6, 4, 9],
            vec![0, 8],
            vec![],
        ] {
            assert!(StrPool::from_parts("Nextété".into(), bad).is_none());
        }
    }

    #[test]
    fn many_texts_against_a_map() {
        let mut pool = StrPool::default();
        let mut map = std::collections::HashMap::new();
        for i in 0..20_000u32 {
            let text = format!("anchor {}", (i * 7919) % 5003);
            let next = map.len() as u32;
            let want = *map.entry(text.clone()).or_insert(next);
            assert_eq!(pool.intern(&text), want);
        }
        assert_eq!(pool.len(), map.len());
        for (text, id) in &map {
            assert_eq!(pool.get(*id), text);
        }
    }
}
