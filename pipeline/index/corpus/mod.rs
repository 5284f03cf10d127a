//! The corpus index on disk: built from a vertical file, opened for queries.
//!
//! **In:** a `.vrt` file (the export's `vrt/corpus.vrt`, or any CWB vertical file) and the
//! names of its columns.
//!
//! **Out:** an index folder (`RUN/index/` after an export):
//! - `index.json`: format, token count, attribute and region names, the source file;
//! - per attribute `A` (`word`, `lc`, and `pos`, `lemma` when tagged): `A.values` (the distinct
//!   values in byte order, one after the other) and `A.valueoffsets` (u64 per value, and the
//!   total last: where each starts), `A.offsets` (u64 per value, and the total last: where
//!   each value's postings start), `A.ids` (u32 per token: the forward index), `A.postings`
//!   (u32 positions, value by value);
//! - per region `R` (`text`, `p`, `s`): `R.spans` (u32 start, u32 end per region) and per
//!   attribute `K` of the region `R.attr.K` (one value a line, region by region).
//!
//! All numbers little-endian. Opening reads the lexicons, offsets and regions; a query reads
//! the postings it needs and the stretches of the forward index it checks, with positioned
//! reads (no memory map: the workspace forbids `unsafe`).
//!
//! **Invariants:** an index is written into a fresh folder beside the target and renamed into
//! place, so a failed build never leaves half an index; a folder that is not an index (or of
//! another format) is refused with a message naming it.

mod build;
mod open;
mod regions;

pub use build::{POSTINGS_IN_MEMORY, build};
pub(crate) use build::{put_in_place, staging_for};
pub use open::{FileColumns, RegionValues, locate, names, open, open_attributes, open_with};

const FORMAT: u32 = 2;
#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    format: u32,
    tokens: u32,
    attributes: Vec<String>,
    regions: Vec<String>,
    /// Per region, the names of its attributes (`R.attr.NAME`, one value a line).
    region_attrs: Vec<Vec<String>>,
    source: String,
}

/// What building an index did.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    /// Tokens indexed.
    pub tokens: u64,
    /// Bytes written.
    pub bytes: u64,
}
