//! What a query may cost, and why one cannot run: the bounds of the automaton and of the value
//! sets, the interrupt a caller gives, the errors.
//!
//! **In/Out:** constants and types shared by the compiled conditions (`pred.rs`) and the
//! search (`query.rs`). **Invariants:** every error names what it refuses and what is allowed.

use super::cql::CqlError;
use super::index::{ColumnError, Index};

/// Tokens that unbounded repetitions may add to a hit.
pub const UNBOUNDED_SPAN: u32 = 100;

/// Most ways (a state with its label positions) a query with a global constraint may be
/// matched at one position.
pub const MAX_THREADS: usize = 1 << 16;

/// Most automaton states a query may unfold into.
pub const MAX_STATES: usize = 20_000;

/// Most bytes the lexicon-id sets of a query's value tests may hold together.
pub const MAX_SET_BYTES: usize = 256 << 20;

/// Asked now and then while a query runs: true stops it ([`QueryError::Interrupted`]).
pub type Interrupt = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// Positions or lexicon values between two questions to the [`Interrupt`].
pub(super) const ASK_EVERY: u32 = 4096;

/// Why a query cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Parse error.
    #[error(transparent)]
    Syntax(#[from] CqlError),
    /// An attribute the index does not have.
    #[error("no attribute `{name}` in this corpus (it has: {have})")]
    Attribute {
        /// Asked for.
        name: String,
        /// Available.
        have: String,
    },
    /// A region the index does not have.
    #[error("no region `{name}` in this corpus (it has: {have})")]
    Region {
        /// Asked for.
        name: String,
        /// Available.
        have: String,
    },
    /// A regular expression the engine cannot compile.
    #[error("`{pattern}` is not a valid regular expression: {message}")]
    Regex {
        /// The pattern.
        pattern: String,
        /// The regex crate's message.
        message: String,
    },
    /// The index could not be read.
    #[error("cannot read the index")]
    Read(#[from] ColumnError),
    /// Repetitions nested so deep that the automaton would not fit.
    #[error(
        "the query is too large once its repetitions are unfolded (over {MAX_STATES} steps): use smaller {{n,m}}"
    )]
    TooLarge,
    /// The labels of a query with a global constraint can be set in too many ways at once.
    #[error(
        "the query's labels can be set in too many ways at one position (over {}): label fewer optional or repeated tokens",
        MAX_THREADS
    )]
    TooManyPaths,
    /// The value tests select more lexicon values than [`MAX_SET_BYTES`] holds.
    #[error(
        "the query's value tests hold too many distinct values together (over {} MiB): test fewer attributes or positions",
        MAX_SET_BYTES >> 20
    )]
    TooManyValues,
    /// The caller's [`Interrupt`] said stop.
    #[error("the query was stopped before its end")]
    Interrupted,
    /// A filter on tokens must be one token pattern.
    #[error(
        "a filter is one token pattern such as [pos=\"NOUN|ADJ|VERB\"] or [!pos=\"PUNCT\"] (no sequence, repetition or within)"
    )]
    NotOneToken,
}

impl QueryError {
    /// The attribute `name`, which `index` does not have, with those it has.
    pub fn unknown_attribute<C>(index: &Index<C>, name: &str) -> QueryError {
        QueryError::Attribute {
            name: name.to_string(),
            have: index
                .attributes
                .iter()
                .map(|a| a.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}
