//! What every layer of the pipeline uses: the wall clock, the states and reasons of decisions,
//! passwords out of messages, checksums of written folders, sorted runs of strings on disk, the network guard, the run
//! folder's lock and live state, progress bars and the analysis threads.
//!
//! **In/Out:** see each module. **Invariants:** imports nothing of the pipeline outside this
//! folder.

pub mod checksums;
pub mod clock;
pub mod guard;
pub mod live;
pub mod outcome;
pub mod parallel;
pub mod progress;
pub mod runlock;
pub mod runs;
pub mod secrets;
