//! Elicitation procedures, one module per family of the papers.
//!
//! * [`binary`] — 003: Alg. 1 and 2 (boundary search), LPM elicitation
//!   (§5.1, App. C), LFPM elicitation (§5.2: Prop. 4, Alg. 3, Cor. 1), and
//!   the constants of Thm. 2;
//! * [`multiclass`] — 002: DLPM (Alg. 1) and LPM (Alg. 2) elicitation;
//! * [`lpme`] — the general sphere LPME subroutine (001/000 App. A);
//! * [`fpme`] — 001: fair metric elicitation (Alg. 1 with Alg. 4);
//! * [`qpme`] — 000: quadratic metrics (Alg. 1, App. E), on
//!   [`gradient_fit`] (the joint fit of a gradient field to LPME outputs);
//! * [`fair_qpme`] — 000: fair quadratic metrics (Alg. 4) and the
//!   trade-off alone (Alg. 5);
//! * [`cubic`] — 000 §8: cubic metrics, by a fit of their gradient field;
//! * [`ratios`] — the ratio searches DLPM and cost/reward share (a weight
//!   at a time against a reference, with consistent boxes and warnings);
//! * [`cost_reward`] — 004: Alg. 1, cost and reward infused DLPM;
//! * [`bayes`] — the Bayesian, noise-robust engine for families linear in
//!   their parameters (issue #28): a posterior instead of a search;
//! * [`algorithm`] — the one interface of a typed algorithm
//!   ([`Elicitation`]) and the search settings every one shares
//!   ([`Search`]).
//!
//! Every procedure returns, besides its estimate, what its answers left
//! undecided (the set of metrics consistent with them, built from the
//! searches' [`crate::search::Consistent`] intervals) and a list of
//! [`Warning`](crate::diagnostics::Warning)s naming why that set is wider than ε, when it is.

pub mod algorithm;
pub mod bayes;
pub mod binary;
pub mod cost_reward;
pub mod cubic;
pub mod fair_qpme;
pub mod fpme;
pub mod gradient_fit;
pub mod lpme;
pub mod multiclass;
pub mod qpme;
pub mod ratios;

pub use algorithm::{Elicitation, Search};
