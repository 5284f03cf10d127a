//! The indexes of a finished corpus: the positional index that CQL queries read ([`corpus`]:
//! `index/`) and the ranked document search index ([`documents`]: `search/`), built by the
//! export stage and read by `glaneur kwic`, `search` and the web interface.
//!
//! **In/Out:** see each module. **Invariants:** each index is written in a staging folder and
//! put in place whole, with its `SHA256SUMS`.

pub mod corpus;
pub mod documents;
