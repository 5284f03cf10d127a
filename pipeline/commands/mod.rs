//! The commands beside the crawl's stages and the explorer: `run` (the stages in order),
//! `check`, `verify`, one stage on local files (`formula`, `extract`, `tokenize`), `monitor`,
//! `batch`, `worker`/`collect`, `compare`, and the seed review (`seeds`).
//!
//! **In/Out:** see each module. **Invariants:** a command composes the layers below; none of
//! them imports a command.

pub mod batch;
pub mod check;
pub mod compare;
pub mod inspect;
pub mod monitor;
pub mod run;
pub mod seeds;
mod signals;
pub mod verify;
pub mod workers;
