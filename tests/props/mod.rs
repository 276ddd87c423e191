//! Property-based tests (issue 23): the scenario parser and resolver and the result.json
//! loader answer any input with a value or a typed error, never a panic. `PROPTEST_CASES` sets
//! the cases per property (256 by default); bench/fuzz.sh runs them for a given time with many
//! more, and what it finds becomes a file under tests/data/fuzz/ that `regressions` replays.

mod harness;
mod regressions;
mod result;
mod scenario;
mod tree;
