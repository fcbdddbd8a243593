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

impl<T: Scalar> Metric<DVector<T>> for Linear<T> {
    type Value = T;
    fn value(&self, z: &DVector<T>) -> T {
        self.0.dot(z)
    }
}
