//! A sphere S_λ inside a query space, and the angle parametrization of its
//! surface (002 §3.2, 001 App. A).
//!
//! A unit vector a ∈ R^q is written with q − 1 angles:
//! aᵢ = Π_{j<i} sin θⱼ · cos θᵢ (i < q), a_q = Π_{j<q} sin θⱼ; the optimum of
//! the unit linear metric a over the sphere is o + λ·a (002 Lemma 1).

use crate::error::{Error, Result};
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use nalgebra::DVector;

/// A sphere of radius λ centred at o, assumed to lie inside the feasible
/// query space (002 Assumption 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Sphere<T: Scalar> {
    center: DVector<T>,
    radius: T,
}

impl<T: Scalar> Sphere<T> {
    /// The sphere with `center` and `radius`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for dimension below 2, a non-finite
    /// coordinate, or a radius that is not finite and positive.
    pub fn new(center: DVector<T>, radius: T) -> Result<Self> {
        if center.len() < 2 {
            return Err(Error::invalid("sphere", "needs dimension q >= 2"));
        }
        if let Some(v) = center.iter().find(|v| !v.finite()) {
            return Err(Error::invalid(
                "sphere",
                format!("center coordinate {v} is not finite"),
            ));
        }
        if !radius.finite() || radius <= T::int(0) {
            return Err(Error::invalid(
                "sphere",
                format!("radius must be finite and > 0, got {radius}"),
            ));
        }
        Ok(Sphere { center, radius })
    }

    /// Dimension q.
    pub fn dim(&self) -> usize {
        self.center.len()
    }

    /// Centre o.
    pub fn center(&self) -> &DVector<T> {
        &self.center
    }

    /// Radius λ.
    pub fn radius(&self) -> &T {
        &self.radius
    }

    /// o + λ·a: the optimum over the sphere of the unit linear metric a
    /// (002 Lemma 1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `a` does not have the sphere's
    /// dimension.
    pub fn point(&self, a: &DVector<T>) -> Result<DVector<T>> {
        if a.len() != self.dim() {
            return Err(Error::invalid(
                "direction",
                format!(
                    "length {} for a sphere of dimension {}",
                    a.len(),
                    self.dim()
                ),
            ));
        }
        Ok(&self.center + a * self.radius.clone())
    }
}

/// μ(θ): the unit vector with angles θ (length q − 1).
pub fn unit_from_angles<T: Scalar>(theta: &[T]) -> DVector<T> {
    let q = theta.len() + 1;
    let mut a = DVector::from_element(q, T::int(0));
    let mut sines = T::int(1);
    for (i, t) in theta.iter().enumerate() {
        let (s, c) = t.clone().sin_cos();
        a[i] = sines.clone() * c;
        sines *= &s;
    }
    a[q - 1] = sines;
    a
}

/// The points μ(θ) as one angle θⱼ varies and the others stay fixed: with
/// the first j coordinates, P = Π_{l<j} sin θ_l and the unit vector t of the
/// angles after j precomputed, a point costs one sin/cos and q
/// multiply-adds: aⱼ = P·cos θⱼ, a_{>j} = P·sin θⱼ·t.
#[derive(Debug, Clone)]
pub struct AngleSlice<T: Scalar> {
    base: DVector<T>,
    j: usize,
    scale: T,
    tail: DVector<T>,
}

impl<T: Scalar> AngleSlice<T> {
    /// The slice through `theta` along angle `j` of `sphere`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `theta` does not have q − 1 angles or
    /// j is out of range.
    pub fn new(sphere: &Sphere<T>, theta: &[T], j: usize) -> Result<Self> {
        let q = sphere.dim();
        if theta.len() + 1 != q || j + 1 >= q {
            return Err(Error::invalid(
                "angles",
                format!("{} angles and index {j} for dimension {q}", theta.len()),
            ));
        }
        let full = unit_from_angles(theta);
        let mut base = sphere.center.clone();
        for i in 0..j {
            base[i] += &(full[i].clone() * sphere.radius.clone());
        }
        let p = theta[..j]
            .iter()
            .fold(T::int(1), |acc, t| acc * t.clone().sin());
        Ok(AngleSlice {
            base,
            j,
            scale: p * sphere.radius.clone(),
            tail: unit_from_angles(&theta[j + 1..]),
        })
    }

    /// The sphere point with angle j set to `angle`.
    pub fn point(&self, angle: &T) -> DVector<T> {
        let (s, c) = angle.clone().sin_cos();
        let mut z = self.base.clone();
        z[self.j] += &(self.scale.clone() * c);
        let ss = self.scale.clone() * s;
        for (k, t) in self.tail.iter().enumerate() {
            z[self.j + 1 + k] += &(ss.clone() * t.clone());
        }
        z
    }
}

/// The angles of a unit vector (inverse of [`unit_from_angles`]), in the
/// standard ranges θ₁..θ_{q−2} ∈ [0, π], θ_{q−1} ∈ [0, 2π).
pub fn angles_from_unit<T: Scalar>(a: &DVector<T>) -> Vec<T> {
    let q = a.len();
    let mut theta = Vec::with_capacity(q - 1);
    for i in 0..q - 1 {
        if i < q - 2 {
            let rest = a.rows(i + 1, q - i - 1).norm();
            theta.push(rest.atan2(a[i].clone()));
        } else {
            let mut t = a[q - 1].clone().atan2(a[q - 2].clone());
            if t < T::int(0) {
                t += T::two_pi();
            }
            theta.push(t);
        }
    }
    theta
}

/// Sign of a coordinate of the metric (its orthant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Sign {
    /// ≥ 0.
    Positive,
    /// ≤ 0.
    Negative,
}

/// The angle ranges that keep μ(θ) in the orthant `signs` (001 App. A):
/// θⱼ ∈ [0, π/2] for + and [π/2, π] for − (j ≤ q − 2); the last angle from
/// the last two signs: (+,+) [0, π/2], (−,+) [π/2, π], (−,−) [π, 3π/2],
/// (+,−) [3π/2, 2π].
pub fn orthant_ranges<T: Scalar>(signs: &[Sign]) -> Vec<(T, T)> {
    let q = signs.len();
    let half = T::frac_pi_2();
    let quadrant = |k: i64| (half.clone() * T::int(k), half.clone() * T::int(k + 1));
    let mut ranges: Vec<(T, T)> = signs[..q - 2]
        .iter()
        .map(|s| quadrant(if *s == Sign::Positive { 0 } else { 1 }))
        .collect();
    ranges.push(quadrant(match (signs[q - 2], signs[q - 1]) {
        (Sign::Positive, Sign::Positive) => 0,
        (Sign::Negative, Sign::Positive) => 1,
        (Sign::Negative, Sign::Negative) => 2,
        (Sign::Positive, Sign::Negative) => 3,
    }));
    ranges
}

/// A sphere inside the off-diagonal confusions of a k-class population
/// (002 §3.2, Table 3): centred at the confusion of the uniform random
/// classifier, o_ij = ζᵢ/k (row-major off-diagonal), with radius
/// λ = min ζᵢ/(4k), which keeps every point a valid confusion (002 App. D's
/// radius is not in the text; with an exact oracle the result does not
/// depend on it).
///
/// # Errors
/// [`Error::InvalidArgument`] when a class has prior 0 (no sphere fits).
pub fn off_diagonal_sphere<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(
    pop: &P,
) -> Result<Sphere<T>> {
    let k = pop.classes();
    let priors = pop.priors();
    let kt = T::int(k as i64);
    let mut center = Vec::with_capacity(k * k - k);
    for (i, zeta) in priors.iter().enumerate() {
        for j in 0..k {
            if i != j {
                center.push(zeta.clone() / kt.clone());
            }
        }
    }
    let least = priors.iter().cloned().fold(T::int(1), |m, z| m.min(z));
    if least <= T::int(0) {
        return Err(Error::invalid(
            "population",
            "a class with prior 0 leaves no sphere inside the confusions",
        ));
    }
    Sphere::new(DVector::from_vec(center), least / (T::int(4) * kt))
}
