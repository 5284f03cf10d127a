//! The positional index a query runs on: per attribute a sorted lexicon, the attribute's value
//! id at every corpus position (the forward index) and, per value, the sorted positions where it
//! occurs (postings); per region kind (`text`, `p`, `s`) the spans and their attributes.
//!
//! **In:** what [`crate::explore::build`] made, held in memory ([`MemColumns`]) or read from
//! files by the caller through [`Columns`] (the pipeline reads them with positioned reads, so
//! that a query touches only the postings and the stretches of the forward index it needs).
//!
//! **Out:** lookups: value ↔ id, frequency of a value, postings, ids over a range of positions,
//! the region that holds a position.
//!
//! **Invariants:** lexicon entries are distinct and sorted by bytes, id = rank; `offsets` of a
//! lexicon and of the postings have one entry more than the lexicon; the postings of an id are
//! strictly increasing; regions of one kind do not overlap and are sorted by start; positions
//! are `u32` (an index holds at most 4,294,967,295 tokens).

/// Reading the large arrays (forward index and postings) of an index.
pub trait Columns {
    /// Fills `out` with the ids of attribute `attr` at positions `start..start + out.len()`.
    fn ids(&self, attr: usize, start: u32, out: &mut [u32]) -> Result<(), ColumnError>;
    /// The entries `range` of attribute `attr`'s postings array (every value's positions one
    /// value after the other, each value's ascending).
    fn postings(&self, attr: usize, range: std::ops::Range<u64>) -> Result<Vec<u32>, ColumnError>;
}

/// A failure to read an index column, with what the reader says (file and cause).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ColumnError(pub String);

/// The distinct values of one attribute, sorted by bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    /// The values one after the other.
    pub text: String,
    /// Byte offset of each value in `text`, and `text.len()` last.
    pub offsets: Vec<u64>,
}

impl Lexicon {
    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the lexicon holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of an id ("" for an id out of range).
    pub fn get(&self, id: u32) -> &str {
        let i = id as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.text.get(a as usize..b as usize).unwrap_or(""),
            _ => "",
        }
    }

    /// The id of a value, by binary search.
    pub fn find(&self, value: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid as u32).as_bytes().cmp(value.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        None
    }

    /// Every value with its id.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        (0..self.len() as u32).map(|id| (id, self.get(id)))
    }
}

/// One positional attribute (`word`, `lc`, `lemma`, `pos`, …): its lexicon and where each
/// value's postings are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// Its values.
    pub lexicon: Lexicon,
    /// Start of each id's postings in the postings array, and the array's length last; the
    /// frequency of id `i` is `postings[i + 1] - postings[i]`.
    pub postings: Vec<u64>,
}

impl Attribute {
    /// How often value `id` occurs.
    pub fn frequency(&self, id: u32) -> u64 {
        let i = id as usize;
        match (self.postings.get(i), self.postings.get(i + 1)) {
            (Some(&a), Some(&b)) => b.saturating_sub(a),
            _ => 0,
        }
    }

    /// Where value `id`'s postings lie in the postings array.
    pub fn postings_range(&self, id: u32) -> std::ops::Range<u64> {
        let i = id as usize;
        match (self.postings.get(i), self.postings.get(i + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }
}

/// The spans of one structural element (`text`, `p`, `s`, …) and their attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Regions {
    /// The element's name.
    pub name: String,
    /// First position of each region.
    pub starts: Vec<u32>,
    /// One past the last position of each region (a region may be empty: start = end).
    pub ends: Vec<u32>,
    /// The element's attributes: name and one value per region ("" when a region lacks it).
    pub attrs: Vec<(String, Vec<String>)>,
}

impl Regions {
    /// Number of regions.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether there is no region.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The region that holds position `pos`, if any.
    pub fn find(&self, pos: u32) -> Option<usize> {
        // The last region starting at or before pos; empty regions never hold a position.
        let i = self.starts.partition_point(|&s| s <= pos).checked_sub(1)?;
        (pos < self.ends[i]).then_some(i)
    }

    /// [`Regions::find`], trying first the region `hint` names and the one after it (a scan
    /// of ascending positions finds its region there); `hint` is set to the region found.
    pub fn find_near(&self, pos: u32, hint: &mut usize) -> Option<usize> {
        for i in [*hint, hint.wrapping_add(1)] {
            // Exactly find's answer: the last region starting at or before pos, if it holds pos.
            if i < self.starts.len()
                && self.starts[i] <= pos
                && pos < self.ends[i]
                && self.starts.get(i + 1).is_none_or(|&next| next > pos)
            {
                *hint = i;
                return Some(i);
            }
        }
        let found = self.find(pos);
        if let Some(i) = found {
            *hint = i;
        }
        found
    }

    /// The value of attribute `name` for region `i`.
    pub fn attr(&self, name: &str, i: usize) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, values)| values.get(i))
            .map(String::as_str)
    }
}

/// An index: what is small enough is held (lexicons, postings offsets, regions); the forward
/// index and the postings are read through `C`.
#[derive(Debug, Clone)]
pub struct Index<C> {
    /// Number of tokens.
    pub n_tokens: u32,
    /// Positional attributes, `word` first.
    pub attributes: Vec<Attribute>,
    /// Structural elements.
    pub regions: Vec<Regions>,
    /// The large arrays.
    pub columns: C,
}

impl<C: Columns> Index<C> {
    /// The number of an attribute, by name.
    pub fn attribute(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }

    /// A region kind, by name; `doc` is a synonym of `text` (Sketch Engine's name).
    pub fn region(&self, name: &str) -> Option<&Regions> {
        let name = if name == "doc" { "text" } else { name };
        self.regions.iter().find(|r| r.name == name)
    }

    /// The postings of value `id` of attribute `attr`.
    pub fn postings(&self, attr: usize, id: u32) -> Result<Vec<u32>, ColumnError> {
        let range = self.attributes[attr].postings_range(id);
        if range.is_empty() {
            return Ok(Vec::new());
        }
        self.columns.postings(attr, range)
    }

    /// The ids of attribute `attr` over `range` (clamped to the corpus).
    pub fn ids(&self, attr: usize, range: std::ops::Range<u32>) -> Result<Vec<u32>, ColumnError> {
        let end = range.end.min(self.n_tokens);
        let start = range.start.min(end);
        let mut out = vec![0; (end - start) as usize];
        self.columns.ids(attr, start, &mut out)?;
        Ok(out)
    }

    /// The values of attribute `attr` over `range`.
    pub fn values(
        &self,
        attr: usize,
        range: std::ops::Range<u32>,
    ) -> Result<Vec<&str>, ColumnError> {
        let lexicon = &self.attributes[attr].lexicon;
        Ok(self
            .ids(attr, range)?
            .into_iter()
            .map(|id| lexicon.get(id))
            .collect())
    }
}

/// The large arrays held in memory: what the builder makes, and what tests query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemColumns {
    /// Per attribute, the id at every position.
    pub ids: Vec<Vec<u32>>,
    /// Per attribute, every value's postings one after the other.
    pub postings: Vec<Vec<u32>>,
}

impl Columns for MemColumns {
    fn ids(&self, attr: usize, start: u32, out: &mut [u32]) -> Result<(), ColumnError> {
        let start = start as usize;
        let src = self
            .ids
            .get(attr)
            .and_then(|ids| ids.get(start..start + out.len()))
            .ok_or_else(|| ColumnError(format!("positions {start}.. out of range")))?;
        out.copy_from_slice(src);
        Ok(())
    }

    fn postings(&self, attr: usize, range: std::ops::Range<u64>) -> Result<Vec<u32>, ColumnError> {
        self.postings
            .get(attr)
            .and_then(|p| p.get(range.start as usize..range.end as usize))
            .map(<[u32]>::to_vec)
            .ok_or_else(|| ColumnError(format!("postings {range:?} out of range")))
    }
}

#[cfg(test)]
mod tests {
    use super::Regions;

    #[test]
    fn finding_near_the_last_region_answers_what_a_search_answers() {
        // Adjacent, gapped, empty and same-start regions.
        let regions = Regions {
            name: "s".into(),
            starts: vec![0, 3, 3, 5, 9, 9, 12],
            ends: vec![3, 3, 5, 8, 9, 12, 20],
            attrs: Vec::new(),
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut hint = (state % 9) as usize;
            // Ascending runs (as a scan asks) and jumps both.
            for pos in (state >> 8) as u32 % 22..22 {
                assert_eq!(
                    regions.find_near(pos, &mut hint),
                    regions.find(pos),
                    "{pos}"
                );
            }
        }
    }
}
