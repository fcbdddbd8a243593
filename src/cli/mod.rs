//! The `elicit` command's parts.

pub mod ask;
pub mod multiclass;
pub mod reproduce;
pub mod run;
pub mod spec;
