//! A block of text as the tree walk collects it, before classification: what the walk, the
//! classifier, the region rules and the language rule all read.
//!
//! **In/Out:** [`RawBlock`]. **Invariants:** the text is never empty and is
//! whitespace-collapsed (the walk makes it so).

use super::BlockKind;

/// A block as collected during the walk, before classification.
pub(super) struct RawBlock {
    pub(super) kind: BlockKind,
    pub(super) text: String,
    pub(super) link_chars: usize,
}
