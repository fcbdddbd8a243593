//! Where confusions come from: populations that, given a classifier from a
//! family the papers use, return its confusion at the working precision.
//!
//! * [`BinaryPopulation`] (003): threshold classifiers 1[η ≥ δ] on the
//!   upper boundary ∂C+ and 1[η ≤ δ] on the lower boundary ∂C−, confusions
//!   (TP, TN), ζ = P(Y = 1).
//!   - [`LogisticUniform`]: 003 App. A, X ~ U[−1, 1], η(x) = 1/(1 + e^{ax}),
//!     in closed form;
//!   - [`FiniteBinary`]: n (score, label) pairs, O(log n) per threshold.
//! * [`MulticlassPopulation`] (002): restricted-Bayes-optimal diagonal
//!   confusions on a face (k1, k2).
//!   - [`LogisticMulticlass`]: 002 §6.1, by precision-generic quadrature;
//!   - [`FiniteMulticlass`]: an n×k score matrix at the working precision
//!     with labels (or η̂ in expectation); one O(n) pass per face, the
//!     binned faces of [`expected`];
//!   - [`ExpectedMulticlass`]: n probability rows evaluated in expectation
//!     (no labels), e.g. the 004 §5 population of 10⁷ rows generated in
//!     parallel; one O(n) pass per face, O(1) per query (see [`expected`]);
//!   - [`PairBlocks`]: k − 1 copies of the 003 App. A problem, one per
//!     face (1, i), in closed form.
//! * [`arrays`]: the two finite populations from rows held in memory (a
//!   spec's `arrays` population).
//! * [`calibration`]: whether a labelled sample's probabilities describe
//!   its labels (checked before any question).
//! * [`DatasetPopulation`]: a real dataset's held-out part with η̂ fitted on
//!   the rest ([`crate::fit`]), labelled or expected confusions, groups; a
//!   multiclass population, a binary one when k = 2, and the feasible set
//!   of its plug-in classifiers for the sphere finder.

pub mod arrays;
mod binary_finite;
mod binary_synthetic;
mod binned;
pub mod calibration;
#[cfg(feature = "data")]
pub mod csv_file;
#[cfg(feature = "data")]
mod dataset;
pub mod expected;
mod multiclass;
mod pair_blocks;

pub use binary_finite::FiniteBinary;
pub use binary_synthetic::LogisticUniform;
#[cfg(feature = "data")]
pub use dataset::{DatasetPopulation, DatasetSummary};
pub use expected::{ExpectedMulticlass, FaceStats};
pub use multiclass::{
    Checked, FiniteMulticlass, LogisticMulticlass, Memoized, MulticlassPopulation, ScoreFamily,
};
pub use pair_blocks::PairBlocks;

/// Which confusions of a finite sample the oracle's metric is evaluated on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confusions {
    /// Counts of the true labels of the held-out rows (what the papers'
    /// real-data experiments measure).
    #[default]
    Labelled,
    /// Expectations under the fitted η̂ (no labels; a different, easier
    /// experiment).
    Expected,
}

use crate::oracle::QueryPoint;
use crate::scalar::Scalar;

/// A binary confusion (TP, TN), as fractions of the population
/// (003 eq. 1; FN = ζ − TP, FP = 1 − ζ − TN).
#[derive(Debug, Clone, PartialEq)]
pub struct BinaryConfusion<T> {
    /// True positives, P(h = 1, Y = 1).
    pub tp: T,
    /// True negatives, P(h = 0, Y = 0).
    pub tn: T,
}

impl<T: Scalar> BinaryConfusion<T> {
    /// A confusion from its two rates.
    pub fn new(tp: T, tn: T) -> Self {
        BinaryConfusion { tp, tn }
    }

    /// The confusion of the complementary classifier 1 − h:
    /// (ζ − TP, 1 − ζ − TN).
    pub fn complement(&self, zeta: &T) -> Self {
        BinaryConfusion {
            tp: zeta.clone() - self.tp.clone(),
            tn: T::int(1) - zeta.clone() - self.tn.clone(),
        }
    }

    /// ⟨m, C⟩ = m11·TP + m00·TN.
    pub fn dot(&self, m11: &T, m00: &T) -> T {
        m11.clone() * self.tp.clone() + m00.clone() * self.tn.clone()
    }
}

impl<T: Scalar> QueryPoint for BinaryConfusion<T> {
    fn coords(&self) -> Vec<String> {
        vec![
            crate::scalar::Backend::encode(&self.tp),
            crate::scalar::Backend::encode(&self.tn),
        ]
    }

    fn values(&self) -> Vec<f64> {
        vec![self.tp.to_f64_lossy(), self.tn.to_f64_lossy()]
    }
}

/// Which boundary of the confusion set a threshold classifier lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// ∂C+: classifiers 1[η(x) ≥ δ] (Bayes for m11, m00 ≥ 0).
    Upper,
    /// ∂C−: classifiers 1[η(x) ≤ δ] (Bayes for m11, m00 ≤ 0).
    Lower,
}

/// A binary classification population (003 §2): it knows ζ = P(Y = 1) and
/// the confusion of every threshold classifier on η.
///
/// Thresholds are given by a slope m = (m11, m00) with both entries of one
/// sign and not both zero, δ = m00/(m11 + m00) (003 Prop. 1), so that the
/// vertices δ = 0 and δ = 1 are exact.
pub trait BinaryPopulation<T: Scalar> {
    /// ζ = P(Y = 1).
    fn zeta(&self) -> T;

    /// The confusion of the threshold classifier with threshold
    /// δ = m00/(m11 + m00): 1[η ≥ δ] on [`Side::Upper`], 1[η ≤ δ] on
    /// [`Side::Lower`]. Callers guarantee m11·m00 ≥ 0 and m ≠ 0.
    fn threshold_confusion(&self, m11: &T, m00: &T, side: Side) -> BinaryConfusion<T>;

    /// What the population itself says against the metric it will give
    /// (a labelled sample whose probabilities do not describe its labels,
    /// [`calibration`]); none by default.
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        Vec::new()
    }
}

impl<T: Scalar, P: BinaryPopulation<T> + ?Sized> BinaryPopulation<T> for &P {
    fn zeta(&self) -> T {
        (**self).zeta()
    }
    fn threshold_confusion(&self, m11: &T, m00: &T, side: Side) -> BinaryConfusion<T> {
        (**self).threshold_confusion(m11, m00, side)
    }
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        (**self).warnings()
    }
}

impl<T: Scalar, P: BinaryPopulation<T> + ?Sized> BinaryPopulation<T> for Box<P> {
    fn zeta(&self) -> T {
        (**self).zeta()
    }
    fn threshold_confusion(&self, m11: &T, m00: &T, side: Side) -> BinaryConfusion<T> {
        (**self).threshold_confusion(m11, m00, side)
    }
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        (**self).warnings()
    }
}

/// Off-diagonal index of (i, j), i ≠ j, row-major without the diagonal
/// (the crate's layout of off-diagonal confusions and rates).
pub fn offdiag_index(k: usize, i: usize, j: usize) -> usize {
    i * (k - 1) + if j < i { j } else { j - 1 }
}

/// The (i, j) of an off-diagonal index.
pub fn offdiag_pair(k: usize, index: usize) -> (usize, usize) {
    let i = index / (k - 1);
    let r = index % (k - 1);
    (i, if r < i { r } else { r + 1 })
}
