//! Multiclass metric elicitation: *Multiclass Performance Metric
//! Elicitation* (Hiranandani, Boodaghians, Mehta, Koyejo, NeurIPS 2019;
//! `002` in `shared/seeds`).
//!
//! * [`elicit_dlpm`] — Alg. 1: diagonal linear metrics ψ(d) = ⟨a, d⟩ over
//!   the faces (1, i) of the space of diagonal confusions;
//! * [`elicit_lpm`] — Alg. 2: monotonically decreasing linear metrics of
//!   the off-diagonal confusions over a sphere S_λ (via [`super::lpme`]).

use super::lpme::{lpme, AngleOrder, LpmeEstimate, LpmeSettings, Orthant};
use super::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::sphere::{Sign, Sphere};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{maximize, Consistent, Stop, Strategy};
use nalgebra::DVector;
use serde::Serialize;

/// Which class serves as the reference of DLPM's ratios aᵢ/a_r.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reference {
    /// A fixed class (0-based; 002 Alg. 1 uses class 1, i.e. 0): faces
    /// (r, i) for every i ≠ r, âᵢ = (1 − m̂)/m̂ relative to â_r = 1.
    Class(usize),
    /// The largest weight found along the way, at no extra query: faces are
    /// searched against the current reference r; when a face says aᵢ > a_r
    /// (m̂ < ½) class i becomes the reference and the ratios found so far
    /// are rescaled by a_r/aᵢ = m̂/(1 − m̂). Every ratio is then computed
    /// where it is well conditioned (m̂ ≥ ½ for (1 − m̂)/m̂, m̂ < ½ for
    /// m̂/(1 − m̂)), so a small a₁ is harmless.
    Auto,
}

/// Settings of [`elicit_dlpm`].
#[derive(Debug, Clone, PartialEq)]
pub struct DlpmSettings<T> {
    /// Search tolerance ε on each face's m ∈ [0, 1].
    pub eps: T,
    /// The search strategy.
    pub strategy: Strategy,
    /// The reference class.
    pub reference: Reference,
}

impl<T: Scalar> DlpmSettings<T> {
    /// 002 Alg. 1 as printed: reference class 1, the given ε and strategy.
    pub fn paper(eps: T, strategy: Strategy) -> Self {
        DlpmSettings {
            eps,
            strategy,
            reference: Reference::Class(0),
        }
    }
}

/// One face search of DLPM.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceSearch<T: Scalar> {
    /// The reference class r of the face (0-based).
    pub reference: usize,
    /// The other class i (0-based).
    pub class: usize,
    /// m̂, the estimate of a_r/(a_r + aᵢ): the midpoint of the search's
    /// final interval.
    pub m: T,
    /// The search's final interval (lo, hi).
    pub interval: (T, T),
    /// Every m consistent with the answers (see [`Consistent`]).
    pub consistent: Consistent<T>,
    /// Oracle queries of this face.
    pub queries: usize,
    /// Ties among its answers.
    pub ties: usize,
    /// Why the face's search stopped.
    pub stop: Stop,
}

/// An elicited diagonal linear metric.
#[derive(Debug, Clone, PartialEq)]
pub struct DlpmEstimate<T: Scalar> {
    /// â with ‖â‖₁ = 1.
    pub a: DVector<T>,
    /// m̂ of each face, in the order searched (with [`Reference::Class(0)`]:
    /// the faces (1, i), i = 2..k).
    pub m: Vec<T>,
    /// The face searches, in order.
    pub faces: Vec<FaceSearch<T>>,
    /// The set of metrics consistent with the answers, as a box: for each
    /// class, the least and largest ℓ1-normalized weight over every metric
    /// whose face optima lie in the faces' consistent intervals.
    pub bounds: Vec<(T, T)>,
    /// The final reference class (0-based).
    pub reference: usize,
    /// Oracle queries.
    pub queries: usize,
    /// Faces whose search stopped at the working precision before ε.
    pub resolution_stops: usize,
    /// Faces, as the class i (0-based) of the face (r, i), where the
    /// oracle's optimum is within ε of a vertex of the face: ν(m) is the
    /// same trivial classifier for every m on one side of m̂, so aᵢ/a_r is
    /// only bounded, not identified, on this population.
    pub unidentified_faces: Vec<usize>,
    /// Why the consistent set is wider than ε, where it is.
    pub warnings: Vec<Warning>,
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

/// A non-negative interval whose upper end may be +∞ (`None`).
#[derive(Debug, Clone)]
struct Ratio<T> {
    lo: T,
    hi: Option<T>,
}

impl<T: Scalar> Ratio<T> {
    fn one() -> Self {
        Ratio {
            lo: T::int(1),
            hi: Some(T::int(1)),
        }
    }

    /// (1 − m)/m over m ∈ [lo, hi] ⊂ [0, 1]: [(1 − hi)/hi, (1 − lo)/lo].
    fn complement_over(lo: &T, hi: &T) -> Self {
        let one = T::int(1);
        let zero = T::int(0);
        Ratio {
            lo: if *hi > zero {
                (one.clone() - hi.clone()) / hi.clone()
            } else {
                zero.clone()
            },
            hi: (*lo > zero).then(|| (one - lo.clone()) / lo.clone()),
        }
    }

    /// m/(1 − m) over m ∈ [lo, hi]: the reciprocal of the above.
    fn odds_over(lo: &T, hi: &T) -> Self {
        let one = T::int(1);
        Ratio {
            lo: lo.clone() / (one.clone() - lo.clone()),
            hi: (*hi < one).then(|| hi.clone() / (one - hi.clone())),
        }
    }

    fn times(&self, other: &Ratio<T>) -> Self {
        Ratio {
            lo: self.lo.clone() * other.lo.clone(),
            hi: match (&self.hi, &other.hi) {
                (Some(a), Some(b)) => Some(a.clone() * b.clone()),
                _ => None,
            },
        }
    }
}

/// The box of ℓ1-normalized weights over ratios wᵢ ∈ [loᵢ, hiᵢ]:
/// aᵢ ∈ [loᵢ/(loᵢ + Σ_{j≠i} hiⱼ), hiᵢ/(hiᵢ + Σ_{j≠i} loⱼ)].
fn normalized_box<T: Scalar>(ratios: &[Ratio<T>]) -> Vec<(T, T)> {
    let zero = T::int(0);
    let sum_lo = ratios.iter().fold(zero.clone(), |s, r| s + r.lo.clone());
    let infinite = ratios.iter().filter(|r| r.hi.is_none()).count();
    let sum_hi = ratios.iter().fold(zero.clone(), |s, r| {
        s + r.hi.clone().unwrap_or_else(|| zero.clone())
    });
    ratios
        .iter()
        .map(|r| {
            let others_hi_infinite = infinite - usize::from(r.hi.is_none()) > 0;
            let lo = if others_hi_infinite || r.lo <= zero {
                zero.clone()
            } else {
                let others = sum_hi.clone() - r.hi.clone().unwrap_or_else(|| zero.clone());
                r.lo.clone() / (r.lo.clone() + others)
            };
            let hi = match &r.hi {
                None => T::int(1),
                Some(h) => {
                    let others = sum_lo.clone() - r.lo.clone();
                    if h.clone() + others.clone() > zero {
                        h.clone() / (h.clone() + others)
                    } else {
                        T::int(1)
                    }
                }
            };
            (lo, hi)
        })
        .collect()
}

/// 002 Algorithm 1 (DLPM elicitation): for each class i ≠ r, search
/// m ∈ [0, 1] on the face (r, i) with ν(m; r, i); then â_r = 1,
/// âᵢ = (1 − m̂)/m̂ and â ← â/‖â‖₁. Class indices are 0-based (class 1 of
/// the paper is 0). With [`Reference::Auto`] the reference moves to the
/// largest weight seen, as described there.
///
/// With [`Strategy::Paper`] it asks exactly 4(k − 1)·⌈log₂(1/ε)⌉ queries
/// (fewer when two quarter points give the same confusion: those
/// comparisons are answered without asking by [`crate::oracle::Counted`]).
///
/// Besides â it returns the box of weights consistent with every answer
/// and warnings naming why a face's consistent interval is wider than ε
/// (a vertex optimum, a plateau, a reference weight too small, answers that
/// contradict each other).
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for a reference
/// class out of range; [`Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
/// use metric_elicitation::population::LogisticMulticlass;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use nalgebra::DVector;
/// let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
/// let truth = DVector::from_vec(vec![0.21, 0.59, 0.20]);
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
/// let est = elicit_dlpm(&pop, &mut oracle, &DlpmSettings::paper(0.01, Strategy::Paper)).unwrap();
/// assert!((est.a - truth).amax() <= 0.01);
/// assert_eq!(est.queries, 56);
/// assert!(est.warnings.is_empty());
/// ```
pub fn elicit_dlpm<T, P, O>(
    population: &P,
    oracle: &mut O,
    settings: &DlpmSettings<T>,
) -> Result<DlpmEstimate<T>>
where
    T: Scalar,
    P: MulticlassPopulation<T> + ?Sized,
    O: Oracle<DVector<T>> + ?Sized,
{
    let eps = &settings.eps;
    crate::search::check_epsilon(eps)?;
    let k = population.classes();
    let (mut r, auto) = match settings.reference {
        Reference::Class(r) if r < k => (r, false),
        Reference::Class(r) => {
            return Err(Error::invalid(
                "reference",
                format!("class {} is not one of the {k} classes", r + 1),
            ))
        }
        Reference::Auto => (0, true),
    };
    let (zero, one, half) = (T::int(0), T::int(1), T::ratio(1, 2));
    // Weights relative to the current reference, and their consistent ranges.
    let mut w: Vec<Option<T>> = vec![None; k];
    let mut ranges: Vec<Option<Ratio<T>>> = vec![None; k];
    w[r] = Some(one.clone());
    ranges[r] = Some(Ratio::one());
    let (mut queries, mut resolution_stops) = (0, 0);
    let mut faces = Vec::with_capacity(k - 1);
    let mut unidentified_faces = Vec::new();
    let mut warnings = Vec::new();
    let order: Vec<usize> = (0..k).filter(|i| *i != r).collect();
    for i in order {
        let face_reference = r;
        let out = maximize(
            zero.clone(),
            one.clone(),
            eps.clone(),
            settings.strategy,
            |x: &T, y: &T| {
                let dx = nu(population, x, r, i)?;
                let dy = nu(population, y, r, i)?;
                Ok(oracle.compare(&dx, &dy)?.preference)
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
                progress: format!("face ({}, {}): {progress}", r + 1, i + 1),
                source,
            },
            other => other,
        })?;
        queries += out.queries;
        if out.stop == Stop::Resolution {
            resolution_stops += 1;
            warnings.push(Warning::new(
                Cause::Resolution,
                format!(
                    "face ({}, {}): the working precision was reached before eps",
                    r + 1,
                    i + 1
                ),
            ));
        }
        let m = out.estimate.clone();
        // A vertex within ε of m̂: the face's optimum is a trivial classifier.
        let below = (m.clone() - eps.clone()).max(zero.clone());
        let above = (m.clone() + eps.clone()).min(one.clone());
        if nu(population, &below, r, i)?[r] == zero || nu(population, &above, r, i)?[i] == zero {
            unidentified_faces.push(i);
        }
        let (clo, chi) = match &out.consistent {
            Consistent::Interval { lo, hi } => (lo.clone(), hi.clone()),
            Consistent::Contradictory { .. } => (out.lo.clone(), out.hi.clone()),
        };
        if let Some(warning) = face_warning(population, &out, eps, (r, i), (&clo, &chi))? {
            warnings.push(warning);
        }
        if auto && m < half {
            // aᵢ > a_r: class i becomes the reference; earlier ratios are
            // rescaled by a_r/aᵢ = m/(1 − m) (well conditioned for m < ½).
            let odds = m.clone() / (one.clone() - m.clone());
            let odds_range = Ratio::odds_over(&clo, &chi);
            for j in 0..k {
                if let Some(v) = w[j].as_mut() {
                    *v *= &odds;
                }
                if let Some(rg) = ranges[j].as_mut() {
                    *rg = rg.times(&odds_range);
                }
            }
            w[i] = Some(one.clone());
            ranges[i] = Some(Ratio::one());
            r = i;
        } else {
            w[i] = Some((one.clone() - m.clone()) / m.clone());
            ranges[i] = Some(Ratio::complement_over(&clo, &chi));
        }
        faces.push(FaceSearch {
            reference: face_reference,
            class: i,
            m,
            interval: (out.lo.clone(), out.hi.clone()),
            consistent: out.consistent,
            queries: out.queries,
            ties: out.ties,
            stop: out.stop,
        });
    }
    let a: Vec<T> = w.into_iter().map(|v| v.unwrap_or_else(T::zero)).collect();
    let norm = a.iter().fold(T::int(0), |s, v| s + v.clone().abs());
    let a = DVector::from_vec(a) / norm;
    let ranges: Vec<Ratio<T>> = ranges
        .into_iter()
        .map(|r| r.unwrap_or_else(Ratio::one))
        .collect();
    let bounds = normalized_box(&ranges);
    Ok(DlpmEstimate {
        a,
        m: faces.iter().map(|f| f.m.clone()).collect(),
        faces,
        bounds,
        reference: r,
        queries,
        resolution_stops,
        unidentified_faces,
        warnings,
    })
}
/// Why a face's consistent interval [lo, hi] of m is wider than ε, if it
/// is: contradictory answers, a vertex optimum (the interval maps to one
/// trivial classifier), a reference weight too small (the interval reaches
/// m = 0), or a plateau (ties between distinct classifiers).
fn face_warning<T, P>(
    population: &P,
    out: &crate::search::Outcome<T>,
    eps: &T,
    (r, i): (usize, usize),
    (lo, hi): (&T, &T),
) -> Result<Option<Warning>>
where
    T: Scalar,
    P: MulticlassPopulation<T> + ?Sized,
{
    let face = format!("face ({}, {})", r + 1, i + 1);
    if let Consistent::Contradictory { above, below } = &out.consistent {
        return Ok(Some(Warning::new(
            Cause::Contradictory,
            format!("{face}: the answers put the optimum both above m = {} and below m = {}, which no DLPM does (a noisy oracle)", above.to_f64_lossy(), below.to_f64_lossy()),
        )));
    }
    let width = hi.clone() - lo.clone();
    if width <= eps.clone() * (T::int(1) + prec::ulps::<T>(64)) {
        return Ok(None);
    }
    let zero = T::int(0);
    let ratio = Ratio::complement_over(lo, hi);
    let ratio_text = format!(
        "a_{}/a_{} in [{:.4}, {}]",
        i + 1,
        r + 1,
        ratio.lo.to_f64_lossy(),
        ratio
            .hi
            .as_ref()
            .map_or("inf".to_string(), |h| format!("{:.4}", h.to_f64_lossy()))
    );
    let (at_lo, at_hi, at_m) = (
        nu(population, lo, r, i)?,
        nu(population, hi, r, i)?,
        nu(population, &out.estimate, r, i)?,
    );
    let interval = format!("[{:.4}, {:.4}]", lo.to_f64_lossy(), hi.to_f64_lossy());
    let vertex = |d: &DVector<T>| d[r] == zero || d[i] == zero;
    let (cause, message) = if (at_hi == at_m && vertex(&at_hi)) || (at_lo == at_m && vertex(&at_lo))
    {
        let class = if at_m[i] == zero { r } else { i };
        (
            Cause::VertexOptimum,
            format!("{face}: every m in {interval} near the answers' optimum gives the classifier that predicts class {} everywhere (a vertex of the face), so the population cannot tell these metrics apart: {ratio_text}", class + 1),
        )
    } else if *lo <= zero {
        (
            Cause::SmallReference,
            format!("{face}: the answers allow m = 0, i.e. a_{} = 0: the reference weight is too small to be resolved at this eps, {ratio_text} (reference = \"auto\" avoids this)", r + 1),
        )
    } else if out.ties > 0 {
        (
            Cause::Plateau,
            format!("{face}: {} answers tied distinct classifiers (a plateau, e.g. of a finite sample), leaving m in {interval}: {ratio_text}", out.ties),
        )
    } else {
        (
            Cause::Plateau,
            format!("{face}: the answers leave m in {interval}: {ratio_text}"),
        )
    };
    Ok(Some(Warning::new(cause, message)))
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
        order: AngleOrder::Paper,
        stop_early: false,
    };
    lpme(sphere, oracle, &settings)
}
