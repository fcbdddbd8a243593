//! The synthetic population of 003 App. A.

use super::{BinaryConfusion, BinaryPopulation, Side};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// 003 App. A: X ~ U[−1, 1], η(x) = 1/(1 + e^{ax}) with a > 0, so ζ = 1/2
/// for every a.
///
/// Confusions are in closed form at the working precision
/// (∫ 1/(1 + e^{ax}) dx = x − softplus(ax)/a, ∫ e^{ax}/(1 + e^{ax}) dx =
/// softplus(ax)/a, with softplus(z) = ln(1 + e^z) evaluated stably), with no
/// numerical integration. The threshold point is
/// x′ = clamp((1/a)·ln(m11/m00), −1, 1) (003 eq. 13).
///
/// # Examples
/// ```
/// use metric_elicitation::population::{BinaryPopulation, LogisticUniform, Side};
/// let pop = LogisticUniform::new(5.0).unwrap();
/// let c = pop.threshold_confusion(&1.0, &1.0, Side::Upper); // δ = 1/2, x′ = 0
/// assert!((c.tp - c.tn).abs() < 1e-15); // symmetric around (1/4, 1/4)
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticUniform<T> {
    a: T,
}

impl<T: Scalar> LogisticUniform<T> {
    /// The population with noise parameter `a` (the papers use a = 5).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `a` is finite and positive.
    pub fn new(a: T) -> Result<Self> {
        if !a.finite() || a <= T::int(0) {
            return Err(Error::invalid(
                "a",
                format!("the App. A population needs a finite a > 0, got {a}"),
            ));
        }
        Ok(LogisticUniform { a })
    }

    /// The parameter a.
    pub fn a(&self) -> &T {
        &self.a
    }

    /// η(x) = 1/(1 + e^{ax}).
    pub fn eta(&self, x: &T) -> T {
        T::int(1) / (T::int(1) + (self.a.clone() * x.clone()).exp())
    }

    /// softplus(z) = ln(1 + e^z) = max(z, 0) + ln(1 + e^{−|z|}), exact to the
    /// working precision for every z.
    fn softplus(z: T) -> T {
        let positive = z > T::int(0);
        let tail = (-z.clone().abs()).exp().ln_1p();
        if positive {
            z + tail
        } else {
            tail
        }
    }

    /// ∫_{lo}^{hi} η(x)/2 dx.
    fn positive_mass(&self, lo: &T, hi: &T) -> T {
        let antiderivative =
            |x: &T| x.clone() - Self::softplus(self.a.clone() * x.clone()) / self.a.clone();
        (antiderivative(hi) - antiderivative(lo)) / T::int(2)
    }

    /// ∫_{lo}^{hi} (1 − η(x))/2 dx.
    fn negative_mass(&self, lo: &T, hi: &T) -> T {
        let antiderivative = |x: &T| Self::softplus(self.a.clone() * x.clone()) / self.a.clone();
        (antiderivative(hi) - antiderivative(lo)) / T::int(2)
    }

    /// The point x′ where η(x′) = δ = m00/(m11 + m00), clamped to [−1, 1]
    /// (003 eq. 13), computed from the ratio m11/m00 without forming δ.
    pub fn threshold_point(&self, m11: &T, m00: &T) -> T {
        let (one, zero) = (T::int(1), T::int(0));
        let (m11, m00) = (m11.clone().abs(), m00.clone().abs());
        if m00 == zero {
            return one; // δ = 0: everything is predicted positive
        }
        if m11 == zero {
            return -one; // δ = 1: nothing is predicted positive
        }
        let x = (m11 / m00).ln() / self.a.clone();
        x.clamp(-one.clone(), one)
    }
}

impl<T: Scalar> BinaryPopulation<T> for LogisticUniform<T> {
    fn zeta(&self) -> T {
        T::ratio(1, 2)
    }

    fn threshold_confusion(&self, m11: &T, m00: &T, side: Side) -> BinaryConfusion<T> {
        let x = self.threshold_point(m11, m00);
        let (lo, hi) = (-T::int(1), T::int(1));
        // η is decreasing in x: 1[η ≥ δ] predicts 1 on [−1, x′].
        match side {
            Side::Upper => BinaryConfusion {
                tp: self.positive_mass(&lo, &x),
                tn: self.negative_mass(&x, &hi),
            },
            Side::Lower => BinaryConfusion {
                tp: self.positive_mass(&x, &hi),
                tn: self.negative_mass(&lo, &x),
            },
        }
    }
}
