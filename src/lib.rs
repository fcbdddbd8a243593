//! # metric-elicitation
//!
//! Recover a person's classification performance metric from pairwise
//! preferences between classifiers ("of these two, which do you prefer?"),
//! following Hiranandani et al. (AISTATS 2019, NeurIPS 2019, NeurIPS 2020,
//! UAI 2022) and Bhateja et al.
//!
//! Every algorithm is generic over [`scalar::Scalar`], so the same code runs
//! in `f64` and, with the `mpfr` feature, in arbitrary precision
//! ([`scalar::Mpfr`]).
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
//! * [`error`] — the crate's error type;
//! * [`fuzzing`] — the checks the fuzz targets run (shared with the tests).
#![warn(missing_docs)]

pub mod elicit;
pub mod error;
pub mod fuzzing;
pub mod geometry;
pub mod metric;
pub mod oracle;
pub mod population;
pub mod prec;
pub mod quadrature;
pub mod reproduce;
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
