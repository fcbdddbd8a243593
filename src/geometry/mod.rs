//! Query spaces and their parametrizations.
//!
//! * [`binary`] — the boundary of the binary confusion set C ⊂ [0, ζ]×[0, 1−ζ]
//!   parametrized by the angle θ of a linear metric (003 §3).

pub mod binary;
