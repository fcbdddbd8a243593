//! The quarter-ellipse frontier between one class's accuracy and one
//! attribute (004 §4.2.2, Fig. 3, Alg. 1's CONSTRUCT_COST_ACCURACY_CLASSIFIER).
//!
//! The points are P(θ) = (d, s) = (ζ·sin θ, lower + (upper − lower)·cos θ),
//! θ ∈ [0, π/2]: the trivial classifier "always class r" (d = ζ_r, its
//! accuracy) degraded by p_wrong = 1 − sin θ, with the attribute at
//! s(θ). The slope ds/dd = −(upper − lower)·tan θ/ζ sweeps (0, −∞), so
//! every weight ratio has exactly one tangent point.
//!
//! For the hypothesis metric ν_m = m·d + (1 − m)·s the frontier's
//! maximizer is θ(m) = atan2(ζ·m, (upper − lower)(1 − m)) (so m = 1 gives
//! π/2), and a true metric with weights (a_r, a_s) on (d, s) is maximized
//! along the frontier at m* = a_r/(a_r + a_s), whatever ζ and the range
//! (`004-cost-reward.md` D6–D7). The same ζ must scale d and enter θ(m)
//! (D8): [`Frontier`] holds one.

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// One frontier: ζ (the reference class's accuracy of the trivial
/// classifier, ζ̂_r = P̂(Y = r)) and the attribute's range.
///
/// # Examples
/// ```
/// use metric_elicitation::geometry::frontier::Frontier;
/// let f = Frontier::new(0.5, -0.3, 0.0).unwrap();
/// // m = 1: all weight on accuracy, the full-accuracy end (ζ, lower).
/// assert_eq!(f.at(&1.0).unwrap(), (0.5, -0.3));
/// // m = 0: all weight on the attribute, the free end (0, upper).
/// assert_eq!(f.at(&0.0).unwrap(), (0.0, 0.0));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Frontier<T> {
    zeta: T,
    lower: T,
    span: T,
}

impl<T: Scalar> Frontier<T> {
    /// The frontier for accuracy scale ζ > 0 and range [lower, upper].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for ζ ≤ 0 or not finite, or a range that
    /// is not finite with lower < upper.
    pub fn new(zeta: T, lower: T, upper: T) -> Result<Self> {
        if !zeta.finite() || zeta <= T::int(0) {
            return Err(Error::invalid(
                "zeta",
                format!("the reference class must occur (zeta > 0), got {zeta}"),
            ));
        }
        if !lower.finite() || !upper.finite() || lower >= upper {
            return Err(Error::invalid(
                "range",
                format!("[{lower}, {upper}] must be finite with lower < upper"),
            ));
        }
        let span = upper - lower.clone();
        Ok(Frontier { zeta, lower, span })
    }

    /// ζ.
    pub fn zeta(&self) -> &T {
        &self.zeta
    }

    /// θ(m) = atan2(ζ·m, (upper − lower)(1 − m)), the frontier point that
    /// maximizes m·d + (1 − m)·s, for m ∈ [0, 1].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for m outside [0, 1] or not finite.
    pub fn theta(&self, m: &T) -> Result<T> {
        if !m.finite() || *m < T::int(0) || *m > T::int(1) {
            return Err(Error::invalid("m", format!("must lie in [0, 1], got {m}")));
        }
        let y = self.zeta.clone() * m.clone();
        let x = self.span.clone() * (T::int(1) - m.clone());
        Ok(y.atan2(x))
    }

    /// P(θ) = (ζ·sin θ, lower + (upper − lower)·cos θ).
    pub fn point(&self, theta: &T) -> (T, T) {
        let (sin, cos) = theta.clone().sin_cos();
        (
            self.zeta.clone() * sin,
            self.lower.clone() + self.span.clone() * cos,
        )
    }

    /// P(θ(m)).
    ///
    /// # Errors
    /// As [`Frontier::theta`].
    pub fn at(&self, m: &T) -> Result<(T, T)> {
        Ok(self.point(&self.theta(m)?))
    }
}

/// m* = a_r/(a_r + a_s): where a metric with weights a_r on the accuracy
/// and a_s on the attribute is maximized along a frontier (and along a
/// face (r, i) with a_s = aᵢ), independent of ζ and the range.
pub fn optimum<T: Scalar>(a_r: &T, a_s: &T) -> T {
    a_r.clone() / (a_r.clone() + a_s.clone())
}
