//! Query spaces and their parametrizations.
//!
//! * [`binary`] — the boundary of the binary confusion set C ⊂ [0, ζ]×[0, 1−ζ]
//!   parametrized by the angle θ of a linear metric (003 §3);
//! * [`frontier`] — the quarter-ellipse frontier between a class's accuracy
//!   and a cost or reward attribute (004 §4.2.2);
//! * [`sphere`] — a sphere S_λ inside a query space and its angle
//!   parametrization (002 §3.2, 001 App. A);
//! * [`feasible`] — the feasible rates of a finite sample's plug-in
//!   classifiers and the query sphere inside them (001 App. B.1, OP1).
//! * [`groups`] — group-conditional rates, the common sphere S_ρ, the
//!   partitions M / Ξ and the restricted oracles of the fair procedures
//!   (001, 000 §4.3).

pub mod binary;
#[cfg(feature = "data")]
pub mod feasible;
pub mod frontier;
pub mod groups;
pub mod sphere;
