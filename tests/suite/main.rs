//! The integration suite, one test binary: each paper's procedures beside
//! its tables and theorems, the oracle model, the search primitive, the CLI,
//! the spec reference, real data, saved fuzz crashes and the MPFR backend.
//! One binary rather than one per file: each file would otherwise
//! monomorphise the generic procedures again, which dominated the cold
//! build. Run one file's tests with a filter, e.g. `cargo test fair_001::`.

mod binary_003;
mod cli;
mod cost_reward_004;
mod faces;
mod fair_001;
mod fuzz_regressions;
mod multiclass_002;
mod oracle;
mod precision;
mod quadratic_000;
mod real_data;
mod search_properties;
mod spec_reference;
mod units;
