//! Multiclass metric elicitation: *Multiclass Performance Metric
//! Elicitation* (Hiranandani, Boodaghians, Mehta, Koyejo, NeurIPS 2019;
//! `002` in `shared/seeds`).
//!
//! * [`elicit_dlpm`] — Alg. 1: diagonal linear metrics ψ(d) = ⟨a, d⟩ over
//!   the faces (1, i) of the space of diagonal confusions;
//! * [`elicit_lpm`] — Alg. 2: monotonically decreasing linear metrics of
//!   the off-diagonal confusions over a sphere S_λ (via [`super::lpme`]).

use super::lpme::{lpme, LpmeEstimate, LpmeSettings, Orthant};
use crate::error::{Error, Result};
use crate::geometry::sphere::{Sign, Sphere};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{maximize, Stop, Strategy};
use nalgebra::DVector;

/// An elicited diagonal linear metric.
#[derive(Debug, Clone, PartialEq)]
pub struct DlpmEstimate<T: Scalar> {
    /// â with ‖â‖₁ = 1.
    pub a: DVector<T>,
    /// m̂ for each face (1, i), i = 2..k: the estimate of a₁/(a₁ + aᵢ).
    pub m: Vec<T>,
    /// Oracle queries.
    pub queries: usize,
    /// Faces whose search stopped at the working precision before ε.
    pub resolution_stops: usize,
    /// Faces (1, i), as i (0-based), where the oracle's optimum is a vertex
    /// of the face: ν(m) is the same trivial classifier for every m on one
    /// side of m̂ within ε, so aᵢ/a₁ is only bounded, not identified, on
    /// this population (the estimate is the plateau's edge).
    pub unidentified_faces: Vec<usize>,
}

/// ν(m; k1, k2): the RBO diagonal confusion of the DLPM with a_{k1} = m,
/// a_{k2} = 1 − m (002 §3.1).
///
/// # Errors
/// As [`MulticlassPopulation::rbo_diagonal`].
pub fn nu<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(
    population: &P,
    m: &T,
    k1: usize,
    k2: usize,
) -> Result<DVector<T>> {
    population.rbo_diagonal(k1, k2, m, &(T::int(1) - m.clone()))
}

/// 002 Algorithm 1 (DLPM elicitation): for each i = 2..k, search m ∈ [0, 1]
/// on the face (1, i) with ν(m; 1, i); then â₁ = 1, âᵢ = (1 − m̂)/m̂ and
/// â ← â/‖â‖₁. Class indices are 0-based (class 1 of the paper is 0).
///
/// With [`Strategy::Paper`] it asks exactly 4(k − 1)·⌈log₂(1/ε)⌉ queries.
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::Interrupted`] when the oracle stops;
/// [`Error::IllConditioned`] when a face's final interval reaches m = 0,
/// i.e. the reference weight a₁ is too small for the ratio aᵢ/a₁ to be
/// resolved at this ε.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::multiclass::elicit_dlpm;
/// use metric_elicitation::population::LogisticMulticlass;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use nalgebra::DVector;
/// let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
/// let truth = DVector::from_vec(vec![0.21, 0.59, 0.20]);
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
/// let est = elicit_dlpm(&pop, &mut oracle, &0.01, Strategy::Paper).unwrap();
/// assert!((est.a - truth).amax() <= 0.01);
/// assert_eq!(est.queries, 56);
/// ```
pub fn elicit_dlpm<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &T,
    strategy: Strategy,
) -> Result<DlpmEstimate<T>>
where
    T: Scalar,
    P: MulticlassPopulation<T> + ?Sized,
    O: Oracle<DVector<T>> + ?Sized,
{
    crate::search::check_epsilon(eps)?;
    let k = population.classes();
    let mut a = DVector::from_element(k, T::int(0));
    a[0] = T::int(1);
    let (mut queries, mut resolution_stops, mut ms) = (0, 0, Vec::with_capacity(k - 1));
    let mut unidentified_faces = Vec::new();
    for i in 1..k {
        let out = maximize(
            T::int(0),
            T::int(1),
            eps.clone(),
            strategy,
            |x: &T, y: &T| {
                let dx = nu(population, x, 0, i)?;
                let dy = nu(population, y, 0, i)?;
                Ok(oracle.compare(&dx, &dy)?.prefers_first)
            },
        )
        .map_err(|e| match e {
            Error::Interrupted {
                queries: q,
                progress,
                source,
                ..
            } => Error::Interrupted {
                procedure: "DLPM elicitation (002 Alg. 1)".into(),
                queries: queries + q,
                progress: format!("face (1, {}): {progress}", i + 1),
                source,
            },
            other => other,
        })?;
        queries += out.queries;
        if out.stop == Stop::Resolution {
            resolution_stops += 1;
        }
        let touches_zero = out.lo <= T::int(0);
        let m = out.estimate;
        // A vertex within ε of m̂: the face's optimum is a trivial classifier.
        let (zero, one) = (T::int(0), T::int(1));
        let below = (m.clone() - eps.clone()).max(zero.clone());
        let above = (m.clone() + eps.clone()).min(one.clone());
        if nu(population, &below, 0, i)?[0] == zero || nu(population, &above, 0, i)?[i] == zero {
            unidentified_faces.push(i);
        }
        // The final interval reaches m = 0: the search cannot tell
        // a₁/(a₁ + aᵢ) from 0, so (1 − m̂)/m̂ would be a number of the
        // search's making, not the oracle's.
        if touches_zero || m <= prec::ill_conditioned::<T>() {
            return Err(Error::IllConditioned {
                what: "DLPM ratio a_i/a_1".into(),
                detail: format!(
                    "on face (1, {}) the search ended at m^ = {m} with its interval reaching 0: a_1 is too small (below about eps*a_i) to serve as the reference",
                    i + 1
                ),
            });
        }
        a[i] = (T::int(1) - m.clone()) / m.clone();
        ms.push(m);
    }
    let norm = a.iter().fold(T::int(0), |s, v| s + v.clone().abs());
    Ok(DlpmEstimate {
        a: a / norm,
        m: ms,
        queries,
        resolution_stops,
        unidentified_faces,
    })
}

/// 002 Algorithm 2 (LPM elicitation): a monotonically decreasing linear
/// metric of the off-diagonal confusions (all aᵢ ≤ 0), elicited over the
/// lower boundary of the sphere S_λ with T = cycles·(q − 1) single-angle
/// searches (the paper: 2 cycles; angles θ₁..θ_{q−2} ∈ [π/2, π],
/// θ_{q−1} ∈ [π, 3π/2]).
///
/// # Errors
/// As [`lpme`].
pub fn elicit_lpm<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    eps: &T,
    strategy: Strategy,
    cycles: usize,
) -> Result<LpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    let settings = LpmeSettings {
        eps: eps.clone(),
        strategy,
        cycles,
        orthant: Orthant::Known(vec![Sign::Negative; sphere.dim()]),
    };
    lpme(sphere, oracle, &settings)
}
