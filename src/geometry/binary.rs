//! The binary confusion set C and its boundary (003 §3).
//!
//! A unit linear metric m = (cos θ, sin θ) (003 eq. 6) has a unique Bayes
//! confusion C_θ on the boundary ∂C (Prop. 2 and eq. 7); θ ∈ [0, π/2]
//! traces the upper boundary ∂C+ and θ ∈ [π, 3π/2] the lower boundary ∂C−
//! (Def. 6). Slopes of opposite sign are maximized at the vertices (ζ, 0)
//! or (0, 1 − ζ).

use crate::error::{Error, Result};
use crate::population::{BinaryConfusion, BinaryPopulation, Side};
use crate::scalar::Scalar;

/// m(θ) = (cos θ, sin θ) (003 eq. 6).
pub fn slope<T: Scalar>(theta: &T) -> (T, T) {
    let (s, c) = theta.clone().sin_cos();
    (c, s)
}

/// The Bayes confusion of the linear metric m11·TP + m00·TN (003 Prop. 1):
/// the threshold classifier 1[η ≥ m00/(m11 + m00)] when m11, m00 ≥ 0,
/// 1[η ≤ m00/(m11 + m00)] when both are ≤ 0, the vertex (ζ, 0) when
/// m11 > 0 > m00 and (0, 1 − ζ) when m11 < 0 < m00.
///
/// # Errors
/// [`Error::InvalidArgument`] when m is zero or not finite.
///
/// # Examples
/// ```
/// use metric_elicitation::geometry::binary::bayes_confusion;
/// use metric_elicitation::population::LogisticUniform;
/// let pop = LogisticUniform::new(5.0).unwrap();
/// let c = bayes_confusion(&pop, &1.0, &-0.5).unwrap();
/// assert_eq!((c.tp, c.tn), (0.5, 0.0)); // the vertex (ζ, 0)
/// ```
pub fn bayes_confusion<T: Scalar, P: BinaryPopulation<T> + ?Sized>(
    population: &P,
    m11: &T,
    m00: &T,
) -> Result<BinaryConfusion<T>> {
    let zero = T::int(0);
    if !m11.finite() || !m00.finite() || (*m11 == zero && *m00 == zero) {
        return Err(Error::invalid(
            "slope",
            format!("a linear metric needs finite, not both zero weights, got ({m11}, {m00})"),
        ));
    }
    let zeta = population.zeta();
    Ok(if *m11 >= zero && *m00 >= zero {
        population.threshold_confusion(m11, m00, Side::Upper)
    } else if *m11 <= zero && *m00 <= zero {
        population.threshold_confusion(m11, m00, Side::Lower)
    } else if *m11 > zero {
        BinaryConfusion::new(zeta, zero)
    } else {
        BinaryConfusion::new(zero, T::int(1) - zeta)
    })
}

/// The inverse Bayes confusion (the minimizer of m11·TP + m00·TN over C):
/// the complement 1 − h of the Bayes classifier (003 Prop. 1).
///
/// # Errors
/// As [`bayes_confusion`].
pub fn inverse_bayes_confusion<T: Scalar, P: BinaryPopulation<T> + ?Sized>(
    population: &P,
    m11: &T,
    m00: &T,
) -> Result<BinaryConfusion<T>> {
    Ok(bayes_confusion(population, m11, m00)?.complement(&population.zeta()))
}

/// The boundary point C_θ: the Bayes confusion of m(θ).
///
/// # Errors
/// As [`bayes_confusion`] (only for a non-finite θ).
pub fn boundary_point<T: Scalar, P: BinaryPopulation<T> + ?Sized>(
    population: &P,
    theta: &T,
) -> Result<BinaryConfusion<T>> {
    let (m11, m00) = slope(theta);
    bayes_confusion(population, &m11, &m00)
}

/// `k` angles spread evenly over [start, start + π/2], at the centres of `k`
/// equal cells: start + (i + ½)·(π/2)/k. Used for the confusions of
/// 003 Alg. 3 ("varying θ uniformly"); the cell centres avoid the two
/// vertices, where linear-fractional metrics may vanish.
pub fn quarter_grid<T: Scalar>(start: &T, k: usize) -> Vec<T> {
    let step = T::frac_pi_2() / T::from_u64(k as u64).unwrap_or_else(T::one);
    (0..k)
        .map(|i| {
            let centre = T::from_u64(2 * i as u64 + 1).unwrap_or_else(T::one) / T::int(2);
            start.clone() + step.clone() * centre
        })
        .collect()
}
