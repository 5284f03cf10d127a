//! The fixture tests of `stages`, in one test binary (one link step instead of one per file):
//! each module checks one stage on real material committed in `tests/data/` at the root of the
//! repository (sources and licences in its README); `change` simulates its pages instead (seeded).

// A test reads as one story (its fixtures, its checks): the length rule is for the code.
#![allow(clippy::too_many_lines)]

mod common;

mod change;
mod decode;
mod dedup;
mod extract;
mod formula;
mod lang;
mod robots;
mod serp;
mod similarity;
mod skim;
mod tagged;
mod tokenize;
mod urlnorm;
mod vertical;
mod warc;
