//! Metric families, as values.
//!
//! * [`binary`] — 003: linear (LPM, Def. 1) and linear-fractional (LFPM,
//!   Def. 2) metrics of the binary confusion (TP, TN).

pub mod binary;
