//! The `elicit` command's parts: the terminal person of `ask`, the
//! progress of `reproduce`, the output of `rank`. Everything else is in the library
//! ([`metric_elicitation::session`], [`metric_elicitation::reproduce`]).

pub mod ask;
pub mod rank;
pub mod reproduce;
