//! Tolerances, in one place, each scaled by the backend's machine epsilon so
//! that an `Mpfr<256>` run is held to 256-bit standards and an `f64` run to
//! `f64` ones.

use crate::scalar::Scalar;

/// Relative tolerance of `k` units of machine epsilon: `k·ε_mach`.
pub fn ulps<T: Scalar>(k: i64) -> T {
    T::epsilon() * T::int(k)
}

/// Threshold below which a divisor (a coordinate used in a ratio, a pivot,
/// a gradient component) is treated as zero and the computation reported as
/// ill-conditioned: `√ε_mach` relative to the scale it is compared with.
/// Above it, a ratio loses at most half the working digits.
pub fn ill_conditioned<T: Scalar>() -> T {
    T::epsilon().sqrt()
}

/// Tolerance of the sphere certificate (realized rates against the points
/// of S_ρ, [`crate::geometry::feasible`]): 2²⁴ ulps, which covers sums of
/// up to about 10⁶ rates at any precision.
pub fn certificate<T: Scalar>() -> T {
    ulps::<T>(1 << 24)
}

/// Tolerance on normalizations a user writes down (columns of τ summing to
/// 1, ‖a‖₂ = 1, Σ‖b^{uv}‖₂ = 1 in a fair metric): 10⁻⁹, the same at every
/// precision, so that values written to ten or more digits (or as `f64`)
/// pass in an `Mpfr<256>` run too. The value is then rescaled to satisfy
/// the normalization exactly at the working precision.
pub fn input<T: Scalar>() -> T {
    T::ratio(1, 1_000_000_000)
}

/// Relative tolerance for symmetry of a matrix or tensor given as input
/// (|B_ij − B_ji| ≤ tol·max|B|): `√ε_mach`, so that rounding in computed
/// input passes and a typing slip does not.
pub fn symmetry<T: Scalar>() -> T {
    T::epsilon().sqrt()
}

/// The largest first-order error estimate (condition × the answers'
/// accuracy, on the unit-normalized metric) an estimate is returned at
/// without an `ill-conditioned` warning: 1/10. Not a rounding tolerance
/// but a statement about the answers, so the same at every precision.
/// Measured on QPME with an exact oracle and ε = 10⁻³ (30 000 random
/// metrics, q = 2..4): the error is at most about 5× the estimate in 99.9 %
/// of cases, so an estimate below 1/10 leaves the metric recognisable,
/// while past it errors of order one occur (sign flips of B's ddᵀ part).
pub fn undetermined<T: Scalar>() -> T {
    T::ratio(1, 10)
}
