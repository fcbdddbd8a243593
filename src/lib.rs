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
//! use metric_elicitation::prelude::*;
//! use nalgebra::DVector;
//!
//! let population = LogisticMulticlass::softmax(vec![1.0, 3.0, 5.0]).unwrap();
//! let truth = DVector::from_vec(vec![0.2, 0.5, 0.3]);
//! let hidden = truth.clone();
//! let mut person = Counted::new(Simulated::new(move |d: &DVector<f64>| hidden.dot(d)));
//! let settings = DlpmSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Golden);
//! let estimate = elicit_dlpm(&population, &mut person, &settings).unwrap();
//! assert!((&estimate.a - &truth).amax() <= 0.01);
//! assert!(estimate.warnings.is_empty());
//! println!("{} queries: a = {}", person.queries(), estimate.a.transpose());
//! ```
//! The `elicit` command runs the same procedures from a spec file
//! (`elicit run`, `elicit ask` for a person at the terminal, `elicit replay`)
//! through the spec driver ([`driver`], the `driver` feature); see the
//! README and `docs/spec.md`.
//!
//! # The papers' algorithms and their entry points
//! Every entry point takes typed, validated settings (a
//! [`search::Tolerance`] built once, a [`search::Strategy`]) and an oracle
//! behind [`oracle::Counted`]; each has a typed algorithm implementing
//! [`elicit::Elicitation`] as well, which the spec driver runs.
//!
//! | paper | algorithm | entry point | typed algorithm |
//! |---|---|---|---|
//! | 003 (binary) | Alg. 1 / Alg. 2: the boundary searches | [`elicit::binary::maximize_upper`], [`elicit::binary::minimize_lower`] | |
//! | 003 | §5.1 LPM elicitation (App. C: unknown or decreasing) | [`elicit::binary::elicit_lpm`] | [`elicit::binary::BinaryLpm`] |
//! | 003 | §5.2 LFPM elicitation (Alg. 1–3, Prop. 4) | [`elicit::binary::elicit_lfpm`] | [`elicit::binary::BinaryLfpm`] |
//! | 003 | Cor. 1 (known numerator share, F_β) | [`elicit::binary::elicit_lfpm_known_p11`] | [`elicit::binary::BinaryLfpm`] |
//! | 003 | Thm. 2's bound | [`elicit::binary::theorem2_bound`] | |
//! | 002 (multiclass) | Alg. 1: DLPM | [`elicit::multiclass::elicit_dlpm`] | [`elicit::multiclass::Dlpm`] |
//! | 002 | Alg. 2: LPM on a sphere | [`elicit::multiclass::elicit_lpm`] | [`elicit::lpme::Lpme`] (known orthant) |
//! | 001 / 000 | App. A Alg. 2: the general LPME | [`elicit::lpme::lpme`] | [`elicit::lpme::Lpme`] |
//! | 001 (fair) | Alg. 1: FPME (with Alg. 4 for λ) | [`elicit::fpme::fpme`] | [`elicit::fpme::Fpme`] |
//! | 001 | Alg. 4: the trade-off λ | [`elicit::fpme::trade_off`] | |
//! | 001 | Thm. 1's bounds, the paper's query count | [`elicit::fpme::theorem1_bound`], [`elicit::fpme::paper_query_count`] | |
//! | 001 | App. B.1: the query sphere in a data set's feasible set | [`geometry::feasible`] (`data` feature) | |
//! | 000 (quadratic) | Alg. 1: QPME (App. E: general rates) | [`elicit::qpme::qpme`] | [`elicit::qpme::Qpme`] |
//! | 000 | Alg. 4: fair QPME | [`elicit::fair_qpme::fair_qpme`] | [`elicit::fair_qpme::FairQpme`] |
//! | 000 | Alg. 5: the trade-off alone | [`elicit::fair_qpme::tradeoff`] | [`elicit::fair_qpme::QpmeTradeoff`] |
//! | 000 | §8: cubic metrics | [`elicit::cubic::cubic`] | [`elicit::cubic::Cubic`] |
//! | 004 (cost/reward) | Alg. 1 | [`elicit::cost_reward::elicit_cost_reward`] | [`elicit::cost_reward::CostReward`] |
//! | all | the one search primitive (ShrinkInterval, golden section) | [`search::maximize`] | |
//!
//! Random metrics of the families, drawn as the reproductions draw them,
//! are in [`metric::random`] (and `FairMetric::sample`,
//! `Groups::sample`); [`prelude`] brings the entry points, the settings
//! and the oracle wrappers into scope.
//!
//! # Features
//! * `driver` (default): specs, sessions with transcripts, the registry of
//!   procedures and their adapters ([`driver`]);
//! * `data` (default): CSV tables (plain or gzip), the fitted η̂, the
//!   feasible set of a finite sample and the certified query sphere
//!   ([`fit`], [`geometry::feasible`]), dataset populations, `rank`;
//! * `rayon` (default): parallel binning of large finite populations;
//! * `mpfr` / `mpfr-scalar`: arbitrary precision through MPFR
//!   (`scalar::Mpfr`; `mpfr` adds the driver's `precision = "mpfr:BITS"`);
//! * `arbitrary`: `arbitrary::Arbitrary` for the fuzzable oracle types.
//!
//! With `default-features = false` the library is the algorithms alone:
//! scalar, oracle, search, populations, query spaces, metrics and
//! procedures (39 crates in its dependency tree).
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
//! # Layout, floor by floor (each module imports only from the floors
//! below it)
//! 1. [`error`], [`diagnostics`] (`Warning`/`Cause`), [`scalar`], [`prec`];
//! 2. [`quadrature`], [`oracle`] (oracles, the ε_Ω noise model, adversaries,
//!    counting, budgets, transcripts), [`search`] (the one unimodal-search
//!    primitive and the [`search::Tolerance`]);
//! 3. [`population`] (where confusions come from), [`geometry`] (query
//!    spaces and their parametrizations), [`metric`] (families as values),
//!    [`fit`] (`data`: CSV tables, splits, the fitted η̂);
//! 4. [`elicit`]: the typed algorithms, one module per paper family;
//! 5. [`driver`] (`driver`): spec, population builder, adapters, registry,
//!    sessions, ranking.
#![warn(missing_docs)]

pub mod diagnostics;
#[cfg(feature = "driver")]
pub mod driver;
pub mod elicit;
pub mod error;
#[cfg(feature = "data")]
pub mod fit;
pub mod geometry;
mod memory;
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

/// What a researcher needs in scope: the scalar traits for generic code,
/// the papers' entry points with their settings, the oracle wrappers and
/// the populations and query spaces they run on:
/// `use metric_elicitation::prelude::*;`.
pub mod prelude {
    pub use crate::diagnostics::{Cause, Warning};
    pub use crate::elicit::binary::{
        elicit_lfpm, elicit_lfpm_known_p11, elicit_lpm, Alg3Settings, Monotonicity,
    };
    pub use crate::elicit::cost_reward::{elicit_cost_reward, CostRewardSettings};
    pub use crate::elicit::cubic::{cubic, CubicSettings};
    pub use crate::elicit::fair_qpme::{fair_qpme, FairSettings};
    pub use crate::elicit::fpme::{fpme, FpmeSettings};
    pub use crate::elicit::lpme::{lpme, LpmeSettings};
    pub use crate::elicit::multiclass::{elicit_dlpm, DlpmSettings};
    pub use crate::elicit::qpme::{qpme, Design, QpmeSettings};
    pub use crate::elicit::{Elicitation, Search};
    pub use crate::error::{Error, Result};
    pub use crate::geometry::groups::{GroupRates, Groups};
    pub use crate::geometry::sphere::Sphere;
    pub use crate::metric::binary::{Lfpm, Lpm};
    pub use crate::metric::cost_reward::CostRewardMetric;
    pub use crate::metric::fair::FairMetric;
    pub use crate::metric::quadratic::{CubicMetric, FairQuadraticMetric, QuadraticMetric};
    pub use crate::metric::Linear;
    pub use crate::oracle::{Counted, Metric, Noisy, Oracle, Preference, Simulated};
    pub use crate::population::{
        BinaryConfusion, BinaryPopulation, LogisticMulticlass, LogisticUniform,
        MulticlassPopulation,
    };
    pub use crate::scalar::{Backend, Scalar};
    pub use crate::search::{Strategy, Tolerance};
    pub use simba::scalar::{ComplexField, RealField};
}
