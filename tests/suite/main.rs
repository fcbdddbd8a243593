//! The core's integration suite, one test binary: each paper's procedures
//! (their invariants, query counts and bad input), the oracle model, the
//! search primitive, the spec driver and its reference, real data and the
//! MPFR backend. The papers' tables and theorem sweeps are the lab's suite
//! (`lab/tests`), the command's end-to-end tests `cli/tests`, and the saved
//! fuzz inputs `testkit/tests`.
//! One binary rather than one per file: each file would otherwise
//! monomorphise the generic procedures again, which dominated the cold
//! build. Run one file's tests with a filter, e.g. `cargo test fair_001::`.

mod bayes;
mod binary_003;
mod cost_reward_004;
mod faces;
mod fair_001;
mod multiclass_002;
mod oracle;
mod precision;
mod quadratic_000;
mod rank_properties;
mod real_data;
mod search_properties;
mod units;
