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
            format!("{face}: the answers put the optimum both above m = {} and below m = {}, which no unimodal metric does (a noisy oracle, or a finite sample whose metric is not unimodal along the face)", above.to_f64_lossy(), below.to_f64_lossy()),
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

/// How a k-class query is shown to a person.
pub mod views {
    use crate::elicit::procedure::View;
    use crate::scalar::Scalar;
    use nalgebra::DVector;

    /// A diagonal confusion: each class's correct predictions, in % of all
    /// cases.
    pub fn diagonal<T: Scalar>(d: &DVector<T>) -> View {
        View {
            title: "correct predictions, % of all cases".into(),
            rows: d
                .iter()
                .enumerate()
                .map(|(i, v)| format!("class {} {:>8.2}", i + 1, 100.0 * v.to_f64_lossy()))
                .collect(),
        }
    }

    /// Off-diagonal entries (row-major, q = k² − k) as a k×k matrix of
    /// mistakes (actual class by row, predicted by column), scaled by
    /// `scale` (100 for % of all cases).
    pub fn off_diagonal<T: Scalar>(z: &DVector<T>, k: usize, what: &str) -> View {
        let mut it = z.iter();
        let rows = (0..k)
            .map(|i| {
                let cells: Vec<String> = (0..k)
                    .map(|j| {
                        if i == j {
                            "     -".to_string()
                        } else {
                            format!(
                                "{:>6.2}",
                                it.next().map_or(0.0, |v| 100.0 * v.to_f64_lossy())
                            )
                        }
                    })
                    .collect();
                format!("actual {} {}", i + 1, cells.join(" "))
            })
            .collect();
        View {
            title: format!("{what}: predicted 1..{k}"),
            rows,
        }
    }

    /// A point of an abstract query space: its coordinates.
    pub fn coordinates<T: Scalar>(z: &DVector<T>) -> View {
        View {
            title: "coordinates".into(),
            rows: z
                .iter()
                .enumerate()
                .map(|(i, v)| format!("x{} {:>10.6}", i + 1, v.to_f64_lossy()))
                .collect(),
        }
    }

    /// The off-diagonal k of q = k² − k, if q is of that form.
    pub fn classes_of(q: usize) -> Option<usize> {
        (2..=q).find(|k| k * k - k == q)
    }
}

/// DLPM (002 Alg. 1) and LPM (002 Alg. 2) behind the one interface
/// ([`super::procedure::Procedure`]): `dlpm` and `lpm`.
pub mod procedures {
    use super::*;
    use crate::elicit::lpme::procedures::{SphereSettings, SphereSpace};
    use crate::elicit::procedure::{
        exact_list, linear_words, lossy_list, Family, Procedure, Report, Search, View,
    };
    use crate::population::build;
    use crate::spec::{num_list_of, PopulationSpec};
    use serde::Deserialize;
    use serde_json::{json, Map, Value};

    /// Settings of `dlpm`.
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DlpmSpecSettings {
        /// The reference class: a 1-based class number (002 Alg. 1 uses 1)
        /// or `"auto"` (default: the largest weight found along the way).
        #[serde(default)]
        pub reference: Option<Value>,
    }

    /// `dlpm`: 002 Alg. 1 over the faces (r, i) of the diagonal confusions.
    pub struct Dlpm<T: Scalar> {
        population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
        settings: DlpmSettings<T>,
    }

    impl<T: Scalar> Procedure<T> for Dlpm<T> {
        type Settings = DlpmSpecSettings;
        type Point = DVector<T>;
        type Truth = DVector<T>;
        type Estimate = DlpmEstimate<T>;
        const ERROR: &'static str = "max |a - a^| (both l1-normalized)";

        fn new(
            s: DlpmSpecSettings,
            search: Search<T>,
            population: &PopulationSpec,
        ) -> Result<Self> {
            let population = build::multiclass(population, "dlpm")?;
            let k = population.classes();
            let reference = match &s.reference {
                None => Reference::Auto,
                Some(Value::String(a)) if a == "auto" => Reference::Auto,
                Some(v) => match v.as_u64() {
                    Some(r) if r >= 1 && (r as usize) <= k => Reference::Class(r as usize - 1),
                    _ => {
                        return Err(Error::invalid(
                            "reference",
                            format!("expected a class 1..{k} or \"auto\", got {v}"),
                        ))
                    }
                },
            };
            Ok(Dlpm {
                population,
                settings: DlpmSettings {
                    eps: search.eps,
                    strategy: search.strategy,
                    reference,
                },
            })
        }

        fn truth(&self, metric: &Value) -> Result<DVector<T>> {
            let k = self.population.classes();
            let v = DVector::from_vec(num_list_of::<T>(metric, "oracle.metric", k)?);
            if let Some(i) = v.iter().position(|x| *x < T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 Def. 5 (DLPM weights >= 0)".into(),
                    detail: format!("oracle.metric[{i}] = {} is negative", v[i]),
                });
            }
            let norm = v.iter().fold(T::int(0), |s, x| s + x.clone());
            if norm <= T::int(0) {
                return Err(Error::invalid("oracle.metric", "all weights are zero"));
            }
            Ok(v / norm)
        }

        fn value(&self, truth: &DVector<T>, point: &DVector<T>) -> T {
            truth.dot(point)
        }

        fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<DlpmEstimate<T>> {
            elicit_dlpm(self.population.as_ref(), oracle, &self.settings)
        }

        fn report(&self, est: &DlpmEstimate<T>, truth: Option<&DVector<T>>) -> Report {
            let faces: Vec<Value> = est
                .faces
                .iter()
                .map(|f| {
                    let (lo, hi) = f.consistent.bounds();
                    json!({
                        "face": format!("({}, {})", f.reference + 1, f.class + 1),
                        "m": f.m.to_f64_lossy(),
                        "consistent_m": [lo.to_f64_lossy(), hi.to_f64_lossy()],
                        "ties": f.ties,
                    })
                })
                .collect();
            let bounds: Vec<Value> = est
                .bounds
                .iter()
                .map(|(lo, hi)| json!([lo.to_f64_lossy(), hi.to_f64_lossy()]))
                .collect();
            let mut details = Map::new();
            details.insert(
                "unidentified_faces".into(),
                json!(est
                    .unidentified_faces
                    .iter()
                    .map(|i| {
                        let r = est
                            .faces
                            .iter()
                            .find(|f| f.class == *i)
                            .map_or(0, |f| f.reference);
                        format!("({}, {})", r + 1, i + 1)
                    })
                    .collect::<Vec<_>>()),
            );
            details.insert("reference".into(), json!(est.reference + 1));
            let mut report = Report {
                elicited: lossy_list(est.a.iter()),
                elicited_exact: exact_list(est.a.iter()),
                words: linear_words(
                    est.a
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (format!("correct(class {})", i + 1), w)),
                ),
                consistent: json!({ "weights": bounds, "faces": faces }),
                warnings: est.warnings.clone(),
                details,
                ..Report::default()
            };
            if let Some(t) = truth {
                report.truth = Some(lossy_list(t.iter()));
                report.error = Some((t - &est.a).amax().to_f64_lossy());
            }
            report
        }

        fn present(&self, point: &DVector<T>) -> View {
            views::diagonal(point)
        }

        fn expected_queries(&self) -> Option<usize> {
            let search = Search {
                eps: self.settings.eps.clone(),
                strategy: self.settings.strategy,
            };
            crate::elicit::binary::procedures::expected(&T::int(1), &search)
                .map(|n| n * (self.population.classes() - 1))
        }
    }

    /// `lpm`: 002 Alg. 2, a monotonically decreasing linear metric of the
    /// off-diagonal confusions over a sphere S_λ (the orthant is known).
    pub struct Lpm<T: Scalar>(SphereSpace<T>);

    impl<T: Scalar> Procedure<T> for Lpm<T> {
        type Settings = SphereSettings;
        type Point = DVector<T>;
        type Truth = DVector<T>;
        type Estimate = LpmeEstimate<T>;
        const ERROR: &'static str = "max |a - a^| (both unit l2)";
        const SINGLE_OPTIMUM: bool = true;

        fn new(s: SphereSettings, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
            let mut space = SphereSpace::new(s, search, population, "lpm")?;
            space.orthant = Orthant::Known(vec![Sign::Negative; space.sphere.dim()]);
            Ok(Lpm(space))
        }

        fn truth(&self, metric: &Value) -> Result<DVector<T>> {
            let v = self.0.unit_truth(metric)?;
            if let Some(i) = v.iter().position(|x| *x > T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 §2.2 (LPM monotonically decreasing: weights <= 0)".into(),
                    detail: format!(
                        "oracle.metric[{i}] is positive; use procedure lpme for any signs"
                    ),
                });
            }
            Ok(v)
        }

        fn value(&self, truth: &DVector<T>, point: &DVector<T>) -> T {
            truth.dot(point)
        }

        fn distance(&self, truth: &DVector<T>, point: &DVector<T>) -> Option<T> {
            self.0.distance(truth, point)
        }

        fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<LpmeEstimate<T>> {
            self.0.elicit(oracle)
        }

        fn report(&self, est: &LpmeEstimate<T>, truth: Option<&DVector<T>>) -> Report {
            self.0.report(est, truth)
        }

        fn present(&self, point: &DVector<T>) -> View {
            self.0.present(point)
        }

        fn expected_queries(&self) -> Option<usize> {
            self.0.expected_queries()
        }
    }

    /// `dlpm`.
    pub struct DlpmFamily;
    impl Family for DlpmFamily {
        const NAME: &'static str = "dlpm";
        const SUMMARY: &'static str = "a diagonal linear metric of k-class confusions (002 Alg. 1)";
        type At<T: Scalar> = Dlpm<T>;
    }

    /// `lpm`.
    pub struct LpmFamily;
    impl Family for LpmFamily {
        const NAME: &'static str = "lpm";
        const SUMMARY: &'static str =
            "a monotonically decreasing linear metric of off-diagonal confusions over a sphere (002 Alg. 2)";
        type At<T: Scalar> = Lpm<T>;
    }
}
