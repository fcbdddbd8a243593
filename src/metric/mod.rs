//! Metric families, as values.
//!
//! * [`binary`] — 003: linear (LPM, Def. 1) and linear-fractional (LFPM,
//!   Def. 2) metrics of the binary confusion (TP, TN);
//! * [`fair`] — 001: the fair metric Ψ of group-conditional rates (Def. 1);
//! * [`cost_reward`] — 004: diagonal linear metrics with named cost and
//!   reward attributes;
//! * [`quadratic`] — 000: quadratic (Def. 3), fair quadratic (Def. 4) and
//!   cubic (§8) metrics of rates;
//! * [`random`] — random metrics of these families, as the reproductions
//!   draw them.

pub mod binary;
pub mod cost_reward;
pub mod fair;
pub mod quadratic;
pub mod random;
