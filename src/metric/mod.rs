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

use crate::oracle::Metric;
use crate::scalar::Scalar;
use nalgebra::DVector;

/// A linear metric φ(z) = ⟨a, z⟩ of a vector of rates (002's DLPM of the
/// diagonal confusions, its LPM and the general LPME of off-diagonal
/// confusions or of any sphere's coordinates): the weights `a` as a
/// [`Metric`].
///
/// # Examples
/// ```
/// use metric_elicitation::metric::Linear;
/// use metric_elicitation::oracle::Metric;
/// use nalgebra::dvector;
/// let phi = Linear(dvector![0.6, 0.8]);
/// assert_eq!(phi.value(&dvector![0.5, 0.25]), 0.5);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Linear<T: Scalar>(pub DVector<T>);

impl<T: Scalar> Linear<T> {
    /// ⟨a, z⟩ summed left to right from the first product
    /// ([`crate::scalar::dot`]): the order `rank` evaluates in
    /// ([`crate::driver::rank`]), so that a value can be recomputed by hand.
    /// [`Metric::value`] (the oracles' evaluation) uses nalgebra's dot
    /// product, which sums eight or more entries in eight interleaved
    /// partial sums; the two can differ in the last bits. Entries of the
    /// longer vector beyond the shorter one's length are ignored.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::Linear;
    /// use nalgebra::dvector;
    /// let phi = Linear(dvector![0.6, 0.8]);
    /// assert_eq!(phi.value_left_to_right(&dvector![0.5, 0.25]), 0.6 * 0.5 + 0.8 * 0.25);
    /// ```
    pub fn value_left_to_right(&self, z: &DVector<T>) -> T {
        crate::scalar::dot(&self.0, z)
    }
}

/// Σ of `terms` left to right from the first (0 when there is none): the
/// order of `f64`'s `Iterator::sum`, which starts from −0 and so returns
/// the first term unchanged, and of [`crate::scalar::dot`].
pub(crate) fn sum_left_to_right<T: Scalar>(terms: impl IntoIterator<Item = T>) -> T {
    let mut terms = terms.into_iter();
    let Some(mut total) = terms.next() else {
        return T::int(0);
    };
    for t in terms {
        total += &t;
    }
    total
}

impl<T: Scalar> Metric<DVector<T>> for Linear<T> {
    type Value = T;
    fn value(&self, z: &DVector<T>) -> T {
        self.0.dot(z)
    }
}
