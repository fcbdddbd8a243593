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

/// The bulge of the upper boundary ∂C₊: the largest distance of a
/// threshold classifier's (TP, TN) from the chord between the trivial
/// classifiers (ζ, 0) and (0, 1 − ζ). It is attained by the Bayes
/// classifier of the metric normal to the chord, (m11, m00) = (1 − ζ, ζ).
/// Near zero, every classifier is close to a mixture of the trivial ones and
/// the boundary is flat: metric values along it differ by little more than
/// the bulge, so answers (and rounding) at that scale decide the search.
///
/// # Examples
/// ```
/// use metric_elicitation::geometry::binary::boundary_bulge;
/// use metric_elicitation::population::LogisticUniform;
/// let wide = boundary_bulge(&LogisticUniform::new(5.0).unwrap());
/// let flat = boundary_bulge(&LogisticUniform::new(1e-6).unwrap());
/// assert!(wide > 0.2 && flat < 1e-6);
/// ```
pub fn boundary_bulge<T: Scalar, P: BinaryPopulation<T> + ?Sized>(population: &P) -> T {
    let zeta = population.zeta();
    let one = T::int(1);
    let (m11, m00) = (one.clone() - zeta.clone(), zeta.clone());
    if m11 <= T::int(0) || m00 <= T::int(0) {
        return T::int(0);
    }
    let c = population.threshold_confusion(&m11, &m00, Side::Upper);
    let norm = (m11.clone() * m11.clone() + m00.clone() * m00.clone()).sqrt();
    let gap = m11.clone() * c.tp + m00.clone() * c.tn - m11 * m00;
    (gap / norm).max(T::int(0))
}

/// A warning when the population's boundary is flat at the scale of `eps`
/// ([`boundary_bulge`] below `eps`): the classifiers' values differ by less
/// than the requested accuracy, so the population cannot tell metrics apart
/// to that accuracy (e.g. 003's η(x) = 1/(1 + e^{ax}) with a = 1e-9).
pub fn degenerate_warning<T: Scalar, P: BinaryPopulation<T> + ?Sized>(
    population: &P,
    eps: &T,
) -> Option<crate::diagnostics::Warning> {
    let bulge = boundary_bulge(population);
    (bulge < *eps).then(|| {
        crate::diagnostics::Warning::new(
            crate::diagnostics::Cause::DegeneratePopulation,
            format!(
                "the population is nearly degenerate: every classifier lies within {:.3e} of the chord between the trivial classifiers, less than epsilon = {:.3e}, so the metric values the answers compare differ by about that much (e.g. synthetic-003 with a tiny a, where eta stays near 1/2)",
                bulge.to_f64_lossy(),
                eps.to_f64_lossy()
            ),
        )
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
