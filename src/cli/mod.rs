//! The `elicit` command's parts: the terminal person of `ask`, and the
//! progress of `reproduce`. Everything else is in the library
//! ([`metric_elicitation::session`], [`metric_elicitation::reproduce`]).

pub mod ask;
pub mod reproduce;
