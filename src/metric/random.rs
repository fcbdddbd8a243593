//! Random metrics of the papers' families, drawn as the reproductions draw
//! them: the quadratic, fair quadratic and cubic metrics of 000 App. H (and
//! of the public reference's instances), random orthogonal and symmetric
//! matrices at the working precision, and random groups. The fair linear
//! metrics of 001 §6.1 are [`super::fair::FairMetric::sample`] with
//! [`crate::geometry::groups::Groups::sample`].
//!
//! Every generator takes the random source as an argument, so a seeded
//! `rand_chacha::ChaCha8Rng` gives the same metric at every precision (each
//! number is drawn as an `f64` and converted exactly).

use crate::error::Result;
use crate::geometry::groups::{Groups, Rates};
use crate::metric::quadratic::{CubicMetric, FairQuadraticMetric, QuadraticMetric};
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// The spectrum of a random B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Eigenvalues in −[0.2, 1] (000 Def. 3: a concave utility).
    Nsd,
    /// Eigenvalues in [0.2, 1].
    Psd,
    /// Eigenvalues ±[0.2, 1], both signs present.
    Indefinite,
    /// The public reference's instances: a ~ U[0, 1]^q, B symmetric
    /// positive definite with eigenvalues in [1, 2] (before scaling).
    Reference,
}

impl Shape {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Nsd => "NSD",
            Shape::Psd => "PSD",
            Shape::Indefinite => "indefinite",
            Shape::Reference => "reference (SPD, a >= 0)",
        }
    }
}

fn uniform<T: Scalar>(rng: &mut (impl Rng + ?Sized), lo: f64, hi: f64) -> T {
    T::from_f64_exact(lo + (hi - lo) * rng.random::<f64>())
}

/// A random orthogonal matrix: the Q of a QR factorization of a matrix with
/// entries uniform in [−1, 1], at the working precision.
pub fn random_orthogonal<T: Scalar>(rng: &mut (impl Rng + ?Sized), q: usize) -> DMatrix<T> {
    let m = DMatrix::from_fn(q, q, |_, _| uniform::<T>(rng, -1.0, 1.0));
    m.qr().q()
}

/// A random symmetric matrix Q·diag(λ)·Qᵀ with the given eigenvalues.
pub fn random_symmetric<T: Scalar>(rng: &mut (impl Rng + ?Sized), eigenvalues: &[T]) -> DMatrix<T> {
    let q = eigenvalues.len();
    let o = random_orthogonal::<T>(rng, q);
    let d = DMatrix::from_diagonal(&DVector::from_column_slice(eigenvalues));
    let b = &o * d * o.transpose();
    (&b + b.transpose()) / T::int(2)
}

/// A random quadratic metric of `shape` in q dimensions: ‖a‖₂² drawn from
/// U[0.3, 0.7] (the public reference's split) and ‖B‖²_F the rest.
///
/// # Errors
/// Only on internal failure.
pub fn random_quadratic<T: Scalar>(
    rng: &mut (impl Rng + ?Sized),
    q: usize,
    shape: Shape,
) -> Result<QuadraticMetric<T>> {
    let eig: Vec<T> = (0..q)
        .map(|i| match shape {
            Shape::Nsd => -uniform::<T>(rng, 0.2, 1.0),
            Shape::Psd => uniform::<T>(rng, 0.2, 1.0),
            Shape::Reference => uniform::<T>(rng, 1.0, 2.0),
            Shape::Indefinite => {
                let v = uniform::<T>(rng, 0.2, 1.0);
                let negative = if i < 2 { i == 1 } else { rng.random::<bool>() };
                if negative {
                    -v
                } else {
                    v
                }
            }
        })
        .collect();
    let b = random_symmetric(rng, &eig);
    let a = DVector::from_fn(q, |_, _| match shape {
        Shape::Reference => uniform::<T>(rng, 0.0, 1.0),
        _ => uniform::<T>(rng, -1.0, 1.0),
    });
    let share = uniform::<T>(rng, 0.3, 0.7);
    let a = a.clone() * (share.clone().sqrt() / a.norm());
    let b = b.clone() * ((T::int(1) - share).sqrt() / b.norm());
    QuadraticMetric::new(a, b)
}

/// Random groups: t^g_i uniform in [0, 1], normalized per class.
///
/// # Errors
/// Only on internal failure.
pub fn random_groups<T: Scalar>(
    rng: &mut (impl Rng + ?Sized),
    k: usize,
    m: usize,
    rates: Rates,
    radius: Option<T>,
) -> Result<Groups<T>> {
    let mut t: Vec<Vec<f64>> = (0..m)
        .map(|_| (0..k).map(|_| 0.05 + 0.95 * rng.random::<f64>()).collect())
        .collect();
    for i in 0..k {
        let s: f64 = t.iter().map(|row| row[i]).sum();
        for row in &mut t {
            row[i] /= s;
        }
    }
    let t = t
        .into_iter()
        .map(|row| row.into_iter().map(T::from_f64_exact).collect())
        .collect();
    Groups::with_rates(k, t, radius, rates)
}

/// A random fair quadratic metric: a = unit(U[0, 1]^q); each B^{uv} PSD
/// with eigenvalues in [0, 1] and a mass in [0.2, 1]; λ ~ U[0.1, 0.9].
///
/// # Errors
/// Only on internal failure.
pub fn random_fair<T: Scalar>(
    rng: &mut (impl Rng + ?Sized),
    q: usize,
    m: usize,
    rates: Rates,
) -> Result<FairQuadraticMetric<T>> {
    let a = DVector::from_fn(q, |_, _| uniform::<T>(rng, 0.05, 1.0));
    let b = (0..m * (m - 1) / 2)
        .map(|_| {
            let eig: Vec<T> = (0..q).map(|_| uniform::<T>(rng, 0.0, 1.0)).collect();
            let mass = uniform::<T>(rng, 0.2, 1.0);
            random_symmetric(rng, &eig) * mass
        })
        .collect();
    let lambda = uniform::<T>(rng, 0.1, 0.9);
    FairQuadraticMetric::normalized(a, b, lambda, rates)
}

/// A random cubic metric: entries of a, B and the unique entries of C
/// uniform in [−1, 1], made symmetric, normalized (000 §8, C1).
///
/// # Errors
/// Only on internal failure.
pub fn random_cubic<T: Scalar>(rng: &mut (impl Rng + ?Sized), q: usize) -> Result<CubicMetric<T>> {
    let a = DVector::from_fn(q, |_, _| uniform::<T>(rng, -1.0, 1.0));
    let m = DMatrix::from_fn(q, q, |_, _| uniform::<T>(rng, -1.0, 1.0));
    let b = (&m + m.transpose()) / T::int(2);
    let raw: Vec<T> = (0..q * q * q)
        .map(|_| uniform::<T>(rng, -1.0, 1.0))
        .collect();
    let c = super::quadratic::symmetrize3(q, &raw);
    CubicMetric::new(a, b, c)
}
