//! One adapter per procedure family, each beside its algorithm's module
//! of [`crate::elicit`]: the spec's own fields (`…Fields`), the adapter
//! (`…Adapter<T>`, an [`crate::driver::adapter::Adapter`]) and the
//! registry's handle (`…Family`, a [`crate::driver::adapter::Family`]).

pub mod bayes;
pub mod binary;
pub mod cost_reward;
pub mod fair;
pub mod lpme;
pub mod multiclass;
pub mod quadratic;
