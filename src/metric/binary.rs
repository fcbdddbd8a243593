//! Binary metric families of 003 §2.1.

use crate::error::{Error, Result};
use crate::oracle::Metric;
use crate::population::BinaryConfusion;
use crate::prec;
use crate::scalar::Scalar;

/// A linear performance metric φ(C) = m11·TP + m00·TN + m0 (003 Def. 1,
/// eq. 2).
///
/// # Examples
/// ```
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::population::BinaryConfusion;
/// use metric_elicitation::oracle::Metric;
/// let wa = Lpm::new(0.6, 0.4, 0.0).unwrap();
/// assert!((wa.value(&BinaryConfusion::new(0.5, 0.25)) - 0.4).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Lpm<T> {
    /// Weight of TP.
    pub m11: T,
    /// Weight of TN.
    pub m00: T,
    /// Constant term.
    pub m0: T,
}

impl<T: Scalar> Lpm<T> {
    /// A linear metric.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a weight is NaN or infinite, or
    /// m11 = m00 = 0 (a constant metric expresses no preference).
    pub fn new(m11: T, m00: T, m0: T) -> Result<Self> {
        for (name, v) in [("m11", &m11), ("m00", &m00), ("m0", &m0)] {
            if !v.finite() {
                return Err(Error::invalid(
                    name,
                    format!("weight must be finite, got {v}"),
                ));
            }
        }
        if m11 == T::int(0) && m00 == T::int(0) {
            return Err(Error::invalid("m", "m11 = m00 = 0 is a constant metric"));
        }
        Ok(Lpm { m11, m00, m0 })
    }

    /// The unit-slope metric m = (cos θ, sin θ), m0 = 0 (003 eq. 6).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a non-finite θ.
    pub fn from_angle(theta: &T) -> Result<Self> {
        let (m11, m00) = crate::geometry::binary::slope(theta);
        Self::new(m11, m00, T::int(0))
    }

    /// The same preferences with ‖(m11, m00)‖₂ = 1 and m0 = 0.
    pub fn unit(&self) -> Self {
        let mut norm = (self.m11.clone().powi(2) + self.m00.clone().powi(2)).sqrt();
        if !(norm.finite() && norm > T::from_f64_exact(1e-150) && norm < T::from_f64_exact(1e150)) {
            // The squares may have overflowed or underflowed (weights near
            // 1e±300 in f64): scale by the larger weight first. Not
            // otherwise, so that every other norm keeps its bits.
            let scale = self.m11.clone().abs().max(self.m00.clone().abs());
            if scale > T::int(0) && scale.finite() {
                let (a, b) = (
                    self.m11.clone() / scale.clone(),
                    self.m00.clone() / scale.clone(),
                );
                norm = (a.powi(2) + b.powi(2)).sqrt() * scale;
            }
        }
        Lpm {
            m11: self.m11.clone() / norm.clone(),
            m00: self.m00.clone() / norm,
            m0: T::int(0),
        }
    }

    /// The angle θ of the slope: m/‖m‖ = (cos θ, sin θ), θ ∈ (−π, π].
    pub fn angle(&self) -> T {
        self.m00.clone().atan2(self.m11.clone())
    }
}

impl<T: Scalar> Metric<BinaryConfusion<T>> for Lpm<T> {
    type Value = T;
    fn value(&self, c: &BinaryConfusion<T>) -> T {
        c.dot(&self.m11, &self.m00) + self.m0.clone()
    }
}

/// A linear-fractional performance metric (003 Def. 2, eq. 3):
/// φ(C) = (p11·TP + p00·TN + p0) / (q11·TP + q00·TN + q0).
///
/// Elicitation assumes 003 Assumption 2, checked by
/// [`Lfpm::check_assumption2`].
///
/// # Examples
/// ```
/// use metric_elicitation::metric::binary::Lfpm;
/// let f1 = Lfpm::f_beta(1.0, 0.5).unwrap();
/// assert_eq!((f1.q11, f1.q00, f1.q0), (0.5, -0.5, 0.5)); // 003 Table 2, row 1
/// f1.check_assumption2(&0.5).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Lfpm<T> {
    /// Numerator weight of TP.
    pub p11: T,
    /// Numerator weight of TN.
    pub p00: T,
    /// Numerator constant.
    pub p0: T,
    /// Denominator weight of TP.
    pub q11: T,
    /// Denominator weight of TN.
    pub q00: T,
    /// Denominator constant.
    pub q0: T,
}

impl<T: Scalar> Lfpm<T> {
    /// A linear-fractional metric with p0 = 0 (as Assumption 2 requires).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a coefficient is NaN or infinite.
    pub fn new(p11: T, p00: T, q11: T, q00: T, q0: T) -> Result<Self> {
        for (name, v) in [
            ("p11", &p11),
            ("p00", &p00),
            ("q11", &q11),
            ("q00", &q00),
            ("q0", &q0),
        ] {
            if !v.finite() {
                return Err(Error::invalid(
                    name,
                    format!("coefficient must be finite, got {v}"),
                ));
            }
        }
        Ok(Lfpm {
            p11,
            p00,
            p0: T::int(0),
            q11,
            q00,
            q0,
        })
    }

    /// Fβ (003 eq. 4): p = (1, 0), q = (1, −1, β²ζ + 1 − ζ)/(1 + β²).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for β not finite and positive or ζ ∉ (0, 1).
    pub fn f_beta(beta: T, zeta: T) -> Result<Self> {
        let (zero, one) = (T::int(0), T::int(1));
        if !beta.finite() || beta <= zero {
            return Err(Error::invalid(
                "beta",
                format!("needs a finite β > 0, got {beta}"),
            ));
        }
        if !zeta.finite() || zeta <= zero || zeta >= one {
            return Err(Error::invalid(
                "zeta",
                format!("needs 0 < ζ < 1, got {zeta}"),
            ));
        }
        let b2 = beta.clone() * beta;
        let d = one.clone() + b2.clone();
        Self::new(
            one.clone(),
            zero,
            one.clone() / d.clone(),
            -one.clone() / d.clone(),
            (b2 * zeta.clone() + one - zeta) / d,
        )
    }

    /// Checks 003 Assumption 2 for P(Y = 1) = `zeta`: p11, p00 ≥ 0,
    /// p11 ≥ q11, p00 ≥ q00, p0 = 0, q0 = (p11 − q11)ζ + (p00 − q00)(1 − ζ),
    /// p11 + p00 = 1 (equalities to a few units of the working precision).
    ///
    /// # Errors
    /// [`Error::Assumption`] naming the first violated condition.
    pub fn check_assumption2(&self, zeta: &T) -> Result<()> {
        let zero = T::int(0);
        let one = T::int(1);
        let violated = |detail: String| {
            Err(Error::Assumption {
                assumption: "003 Assumption 2".into(),
                detail,
            })
        };
        let scale = one.clone()
            + self.p11.clone().abs()
            + self.p00.clone().abs()
            + self.q11.clone().abs()
            + self.q00.clone().abs()
            + self.q0.clone().abs();
        let tol = prec::ulps::<T>(64) * scale;
        if self.p11 < zero {
            return violated(format!("p11 >= 0 fails: p11 = {}", self.p11));
        }
        if self.p00 < zero {
            return violated(format!("p00 >= 0 fails: p00 = {}", self.p00));
        }
        if self.p11 < self.q11 {
            return violated(format!("p11 >= q11 fails: {} < {}", self.p11, self.q11));
        }
        if self.p00 < self.q00 {
            return violated(format!("p00 >= q00 fails: {} < {}", self.p00, self.q00));
        }
        if self.p0.clone().abs() > tol {
            return violated(format!("p0 = 0 fails: p0 = {}", self.p0));
        }
        let sum = self.p11.clone() + self.p00.clone();
        if (sum.clone() - one.clone()).abs() > tol {
            return violated(format!("p11 + p00 = 1 fails: p11 + p00 = {sum}"));
        }
        let q0 = (self.p11.clone() - self.q11.clone()) * zeta.clone()
            + (self.p00.clone() - self.q00.clone()) * (one - zeta.clone());
        if (q0.clone() - self.q0.clone()).abs() > tol {
            return violated(format!(
                "q0 = (p11 - q11)ζ + (p00 - q00)(1 - ζ) fails: q0 = {}, the right side is {q0}",
                self.q0
            ));
        }
        Ok(())
    }

    /// The numerator p11·TP + p00·TN + p0.
    pub fn numerator(&self, c: &BinaryConfusion<T>) -> T {
        c.dot(&self.p11, &self.p00) + self.p0.clone()
    }

    /// The denominator q11·TP + q00·TN + q0.
    pub fn denominator(&self, c: &BinaryConfusion<T>) -> T {
        c.dot(&self.q11, &self.q00) + self.q0.clone()
    }
}

impl<T: Scalar> Metric<BinaryConfusion<T>> for Lfpm<T> {
    type Value = T;
    fn value(&self, c: &BinaryConfusion<T>) -> T {
        self.numerator(c) / self.denominator(c)
    }
}
