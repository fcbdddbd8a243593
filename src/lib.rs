//! # metric-elicitation
//!
//! Recover a person's classification performance metric from pairwise
//! preferences between classifiers ("of these two, which do you prefer?"),
//! following Hiranandani et al. (AISTATS 2019, NeurIPS 2019, NeurIPS 2020,
//! UAI 2022) and Bhateja et al.
//!
//! Every algorithm is generic over [`scalar::Scalar`], so the same code runs
//! in `f64` and, with the `mpfr` feature, in arbitrary precision
//! (`scalar::Mpfr`, with the `mpfr` feature).
//!
//! # Quick start
//! Elicit a three-class diagonal metric (002 Alg. 1) from a simulated person
//! whose hidden metric is `truth`; every query goes through a counting
//! wrapper, and the estimate says what the answers left undecided:
//! ```
//! use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
//! use metric_elicitation::oracle::{Counted, Simulated};
//! use metric_elicitation::population::LogisticMulticlass;
//! use metric_elicitation::search::Strategy;
//! use nalgebra::DVector;
//!
//! let population = LogisticMulticlass::softmax(vec![1.0, 3.0, 5.0]).unwrap();
//! let truth = DVector::from_vec(vec![0.2, 0.5, 0.3]);
//! let hidden = truth.clone();
//! let mut person = Counted::new(Simulated::new(move |d: &DVector<f64>| hidden.dot(d)));
//! let settings = DlpmSettings::paper(0.01, Strategy::Golden);
//! let estimate = elicit_dlpm(&population, &mut person, &settings).unwrap();
//! assert!((&estimate.a - &truth).amax() <= 0.01);
//! assert!(estimate.warnings.is_empty());
//! println!("{} queries: a = {}", person.queries(), estimate.a.transpose());
//! ```
//! The `elicit` command runs the same procedures from a spec file
//! (`elicit run`, `elicit ask` for a person at the terminal, `elicit replay`);
//! see the README and `docs/spec.md`.
//!
//! # Conventions
//! * **Utility and cost.** An oracle prefers the query with the larger
//!   *utility* (the papers' Ω(x, y) = 1[φ(x) > φ(y)]). Each metric family
//!   is written as its paper writes it: as a utility (003, 002, 004, the
//!   quadratic metrics of 000 Def. 3) or as a cost (the fair metric of
//!   001 Def. 1, the fair quadratic metric of 000 Def. 4, the general-rate
//!   metrics of 000 App. E). A cost's utility is its negative: the oracle
//!   prefers the smaller cost. (001 Def. 2 prints an oracle preferring the
//!   larger Ψ although §2.1 calls Ψ a cost; we take the cost reading, under
//!   which non-negative weights on error rates penalize errors. Through the
//!   other reading FPME would return (−a, −B, λ).)
//! * **Indices** are 0-based in code; messages and docs that quote the
//!   papers use their 1-based classes, faces and groups.
//! * **Off-diagonal rates** are row-major without the diagonal:
//!   (1,2), (1,3), …, (1,k), (2,1), (2,3), …, (k,k−1); q = k² − k.
//!
//! Layout:
//! * [`scalar`] — the scalar trait and its backends;
//! * [`prec`] — every tolerance, scaled by the backend's epsilon;
//! * [`oracle`] — preference oracles, the ε_Ω noise model, adversaries,
//!   query counting, budgets and transcripts;
//! * [`search`] — the one unimodal-search primitive (ShrinkInterval and
//!   golden section);
//! * [`population`] — where confusions come from (synthetic and finite
//!   samples);
//! * [`geometry`] — query spaces and their parametrizations;
//! * [`metric`] — metric families as values;
//! * [`elicit`] — the elicitation procedures, one module per paper family;
//! * [`spec`] — elicitation specs (TOML/JSON) as typed values;
//! * [`fit`] — real data: CSV tables, splits, the fitted η̂, classifier
//!   pools;
//! * [`rank`] — ranking classifiers by an elicited metric, NDCG and
//!   Kendall τ;
//! * [`session`] — `run`, `ask` and `replay` of any registered procedure at
//!   any precision, with transcripts;
//! * [`error`] — the crate's error type.
#![warn(missing_docs)]

pub mod diagnostics;
#[cfg(feature = "driver")]
pub mod driver;
pub mod elicit;
pub mod error;
#[cfg(feature = "data")]
pub mod fit;
pub mod geometry;
pub mod metric;
pub mod oracle;
mod par;
pub mod population;
pub mod prec;
pub mod quadrature;
pub mod scalar;
pub mod search;

pub use error::{Error, Result};

pub use nalgebra;
pub use simba;

/// The traits needed to write generic code over scalars:
/// `use metric_elicitation::prelude::*;`.
pub mod prelude {
    pub use crate::scalar::{Backend, Scalar};
    pub use simba::scalar::{ComplexField, RealField};
}
