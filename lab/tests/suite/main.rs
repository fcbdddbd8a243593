//! The reproduction suite, one test binary: each paper's tables, theorem
//! checks and real-data experiments, as `elicit reproduce` runs them (the
//! theorem sweeps at 1000 random metrics per setting). Run one file's tests
//! with a filter, e.g. `cargo test -p metric-elicitation-lab fair_001::`.

mod binary_003;
mod cost_reward_004;
mod fair_001;
mod multiclass_002;
mod quadratic_000;
mod real_data;
