//! General linear performance metric elicitation over a sphere: 001 App. A
//! Alg. 2 (orthant detection, then cyclic single-angle searches), which
//! contains 002 Alg. 2 (LPM elicitation, monotonically decreasing metrics:
//! orthant known, T = 2(q − 1)) as a special case.
//!
//! The subroutine takes any [`Sphere`] and any oracle over its points, so
//! FPME and QPME (001, 000) can call it on small spheres and restricted
//! oracles.

use super::{Elicitation, Search};
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::sphere::{
    angles_from_unit, orthant_ranges, sines_cosines, trig_from_unit, unit_from_sines_cosines,
    AngleSlice, Sign, Sphere, Steps,
};
use crate::oracle::{Oracle, Preference};
use crate::scalar::Scalar;
use crate::search::{halvings, maximize, Consistent, Outcome, Stop, Strategy, Tolerance};
use nalgebra::DVector;

/// How the orthant of the metric is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Orthant {
    /// q queries Ω(z(a), z(a′)), a = 1/√q, a′ with coordinate i flipped
    /// (001 App. A, lines 2–6).
    Detect,
    /// As [`Orthant::Detect`], and a search that ends within ε of an edge of
    /// the detected quadrant asks once more whether the point ε past it is
    /// better; if it is, the adjacent quadrant is searched and kept (not in
    /// the papers; see [`LpmeEstimate::orthant_crossings`]). The detection
    /// compares points a chord apart, so on an oracle that is not exactly
    /// linear on the sphere (a quadratic metric on QPME's small spheres,
    /// 000 Alg. 1) it can pick the wrong sign of a coordinate near zero;
    /// this catches it for about one query per such coordinate. Measured
    /// on QPME with exact oracles (30 000 random metrics, q = 2..4,
    /// ε = 10⁻³): the fit's largest error with a condition·ε below 1/10
    /// went from 0.89 to 0.15.
    DetectAndCheck,
    /// Known signs, no queries (002 Alg. 2: all negative).
    Known(Vec<Sign>),
}

/// The order in which a cycle visits the angles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AngleOrder {
    /// θ₁, θ₂, …, θ_{q−1}, as in 001 Alg. 2 and 002 Alg. 2.
    Paper,
    /// θ_{q−1}, …, θ₁. Along θⱼ with the later angles fixed the metric is
    /// const + Pⱼ·(gⱼ cos θⱼ + Bⱼ sin θⱼ), where Pⱼ = Π_{l<j} sin θ_l ≥ 0
    /// and Bⱼ depends only on the later angles; so once the later angles
    /// are at their optima, θⱼ's optimum is the true one, whatever the
    /// earlier angles are. One reverse cycle therefore finds every angle
    /// (up to the propagation of each search's ε), where the forward order
    /// needs several.
    Reverse,
}

/// Settings of [`lpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct LpmeSettings<T> {
    /// Binary-search tolerance ε per angle.
    pub eps: Tolerance<T>,
    /// The search strategy of each single-angle search.
    pub strategy: Strategy,
    /// Cycles over the q − 1 angles (T = cycles·(q − 1) searches): 4 in
    /// 001, 3 in 000, 2 in 002; at most this many with `stop_early`.
    pub cycles: usize,
    /// How the orthant is found.
    pub orthant: Orthant,
    /// The order of the angles within a cycle.
    pub order: AngleOrder,
    /// Stop after a cycle that moved no angle by more than ε (changes the
    /// query count; the papers' tables run a fixed number of cycles).
    pub stop_early: bool,
}

impl<T: Scalar> LpmeSettings<T> {
    /// The papers' settings: forward order, a fixed number of cycles,
    /// orthant detection.
    pub fn paper(eps: Tolerance<T>, strategy: Strategy, cycles: usize) -> Self {
        LpmeSettings {
            eps,
            strategy,
            cycles,
            orthant: Orthant::Detect,
            order: AngleOrder::Paper,
            stop_early: false,
        }
    }

    /// The efficient setting (`procedure = "lpme"`'s defaults): one cycle
    /// in reverse order, which finds every angle (see
    /// [`AngleOrder::Reverse`]), orthant detection, and a stop once a cycle
    /// moves no angle by more than ε. `002-lpme-efficient` measures it with
    /// bisection at ε/4 at about 9 % of the paper setting's queries.
    pub fn efficient(search: Search<T>) -> Self {
        LpmeSettings {
            eps: search.eps,
            strategy: search.strategy,
            cycles: 1,
            orthant: Orthant::Detect,
            order: AngleOrder::Reverse,
            stop_early: true,
        }
    }
}

/// About how many queries one LPME takes with `settings` on a sphere of
/// dimension q: q orthant queries (unless the orthant is known), then
/// cycles·(q − 1) searches over π/2 ([`crate::search::expected_queries`];
/// exact for the paper strategy and bisection without early stops).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::lpme::{lpme_queries, LpmeSettings};
/// use metric_elicitation::search::{Strategy, Tolerance};
/// let settings = LpmeSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Paper, 4);
/// assert_eq!(lpme_queries(3, &settings), Some(3 + 4 * 2 * 4 * 11));
/// ```
pub fn lpme_queries<T: Scalar>(q: usize, settings: &LpmeSettings<T>) -> Option<usize> {
    let per = crate::search::expected_queries(settings.strategy, &T::frac_pi_2(), &settings.eps)?;
    let orthant = usize::from(!matches!(settings.orthant, Orthant::Known(_))) * q;
    Some(orthant + settings.cycles * (q - 1) * per)
}

/// The general LPME (001 App. A, Alg. 2; 002 Alg. 2 with a known orthant)
/// as a typed algorithm: a sphere and its settings.
///
/// # Examples
/// See [`crate::elicit::algorithm`].
#[derive(Debug, Clone)]
pub struct Lpme<T: Scalar> {
    sphere: Sphere<T>,
    settings: LpmeSettings<T>,
}

impl<T: Scalar> Lpme<T> {
    /// LPME over `sphere` with `settings`.
    pub fn new(sphere: Sphere<T>, settings: LpmeSettings<T>) -> Self {
        Lpme { sphere, settings }
    }

    /// The query sphere.
    pub fn sphere(&self) -> &Sphere<T> {
        &self.sphere
    }

    /// The settings.
    pub fn settings(&self) -> &LpmeSettings<T> {
        &self.settings
    }

    /// |z − z*|² with z* = o + ρ·a the optimum of the unit linear metric
    /// `a` on the sphere (002 Lemma 1): the push-away adversary's distance.
    pub fn distance(&self, a: &DVector<T>, point: &DVector<T>) -> Option<T> {
        let optimum = self.sphere.point(a).ok()?;
        Some((point - optimum).norm_squared())
    }
}

impl<T: Scalar> Elicitation<T> for Lpme<T> {
    type Point = DVector<T>;
    type Estimate = LpmeEstimate<T>;
    /// A linear metric along one angle is symmetric about its optimum.
    const SYMMETRIC_SEARCHES: bool = true;

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<LpmeEstimate<T>> {
        lpme(&self.sphere, oracle, &self.settings)
    }

    fn expected_queries(&self) -> Option<usize> {
        lpme_queries(self.sphere.dim(), &self.settings)
    }
}

/// An elicited unit linear metric.
#[derive(Debug, Clone, PartialEq)]
pub struct LpmeEstimate<T: Scalar> {
    /// â with ‖â‖₂ = 1.
    pub a: DVector<T>,
    /// Its angles.
    pub theta: Vec<T>,
    /// The orthant searched.
    pub signs: Vec<Sign>,
    /// Total oracle queries (orthant queries included).
    pub queries: usize,
    /// Orthant-detection queries.
    pub orthant_queries: usize,
    /// Searches that ended on an edge of their range (a quadrant of the
    /// detected orthant with [`Orthant::DetectAndCheck`], a window of
    /// [`lpme_near`]) with the point just past it preferred, and so searched
    /// the adjacent range (one query to ask, plus that search); `signs` is
    /// the orthant finally searched (for [`lpme_near`], the prediction's).
    pub orthant_crossings: usize,
    /// Single-angle searches that stopped at the working precision rather
    /// than at ε.
    pub resolution_stops: usize,
    /// Cycles run (fewer than the setting when stopped early).
    pub cycles: usize,
    /// For each angle, the values consistent with the answers of its last
    /// search (the other angles fixed at their final values).
    pub consistent: Vec<Consistent<T>>,
    /// Ties among all answers.
    pub ties: usize,
    /// For each angle, whether its consistent interval is wider than ε
    /// though its search did not stop at the working precision (a plateau:
    /// ties, "can't tell" answers); each such angle has a `plateau`
    /// warning.
    pub wide: Vec<bool>,
    /// Why the consistent set is wider than ε, where it is.
    pub warnings: Vec<Warning>,
}

/// 001 App. A Alg. 2 (and 002 Alg. 2): elicit the unit linear metric ξ(z) =
/// ⟨a, z⟩ of an oracle over points of `sphere`.
///
/// With [`Strategy::Paper`] it asks q (orthant, when detected) plus
/// cycles·(q − 1)·4·⌈log₂((π/2)/ε)⌉ queries.
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for zero cycles or
/// known signs of the wrong length; [`Error::Interrupted`] when the oracle
/// stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::lpme::{lpme, LpmeSettings, Orthant};
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// use nalgebra::DVector;
/// let truth = DVector::from_vec(vec![0.6, -0.8, 0.0]);
/// let sphere = Sphere::new(DVector::from_element(3, 0.5), 0.1).unwrap();
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |z: &DVector<f64>| t.dot(z));
/// let settings = LpmeSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Paper, 4);
/// let est = lpme(&sphere, &mut oracle, &settings).unwrap();
/// assert!((est.a - truth).amax() < 5e-3);
/// assert_eq!(est.queries, 3 + 4 * 2 * 4 * 11);
/// ```
pub fn lpme<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    settings: &LpmeSettings<T>,
) -> Result<LpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    run(sphere, oracle, settings, None)
}

/// LPME started near a predicted direction (not in the papers): no orthant
/// queries; each angle is searched in a window of half-width `width` about
/// the prediction's angle, and where a search ends on a window's edge with
/// the point just past it preferred, the adjacent window is searched (as
/// [`Orthant::DetectAndCheck`] does with quadrants), so a wrong prediction
/// costs queries, not accuracy. QPME's LPMEs on the small spheres about
/// o ± δα_j see gradients that turn little from the one at o (000 Alg. 1),
/// so the first one predicts the others.
///
/// `settings.orthant` is not used.
///
/// # Errors
/// As [`lpme`]; [`Error::InvalidArgument`] when the prediction has the
/// wrong dimension or no direction, or the width is not positive.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::lpme::{lpme_near, LpmeSettings};
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// use nalgebra::{dvector, DVector};
/// let sphere = Sphere::new(dvector![0.3, 0.3, 0.3], 0.1).unwrap();
/// let truth = dvector![0.6, -0.48, 0.64];
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |z: &DVector<f64>| t.dot(z));
/// let settings = LpmeSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Golden, 1);
/// // A prediction 0.3 rad off, windows of half-width 0.1: edges are crossed.
/// let guess = dvector![0.8, -0.3, 0.5];
/// let est = lpme_near(&sphere, &mut oracle, &settings, &guess, &0.1).unwrap();
/// assert!((est.a - truth).amax() < 5e-3);
/// assert!(est.orthant_crossings > 0 && est.orthant_queries == 0);
/// ```
pub fn lpme_near<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    settings: &LpmeSettings<T>,
    prediction: &DVector<T>,
    width: &T,
) -> Result<LpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    if prediction.len() != sphere.dim() {
        return Err(Error::invalid(
            "prediction",
            format!(
                "{} coordinates for dimension {}",
                prediction.len(),
                sphere.dim()
            ),
        ));
    }
    let norm = prediction.norm();
    if !(norm > T::int(0) && norm.finite()) {
        return Err(Error::invalid(
            "prediction",
            "no direction (zero or not finite)",
        ));
    }
    if !(*width > T::int(0) && width.finite()) {
        return Err(Error::invalid("width", "must be positive and finite"));
    }
    run(
        sphere,
        oracle,
        settings,
        Some((&(prediction / norm), width)),
    )
}

/// [`lpme`] and [`lpme_near`]: `near` is the unit prediction and the
/// windows' half-width.
fn run<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    settings: &LpmeSettings<T>,
    near: Option<(&DVector<T>, &T)>,
) -> Result<LpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    if settings.cycles == 0 {
        return Err(Error::invalid("cycles", "LPME needs at least one cycle"));
    }
    let q = sphere.dim();
    let mut queries = 0usize;
    let interrupted = |queries: usize, progress: String, source: Error| Error::Interrupted {
        procedure: "LPME".into(),
        queries,
        progress,
        source: Box::new(source),
    };
    let signs = match (&settings.orthant, near) {
        (_, Some((unit, _))) => unit.iter().map(Sign::of).collect(),
        (Orthant::Known(signs), None) => {
            if signs.len() != q {
                return Err(Error::invalid(
                    "orthant",
                    format!("{} signs for dimension {q}", signs.len()),
                ));
            }
            signs.clone()
        }
        (Orthant::Detect | Orthant::DetectAndCheck, None) => {
            let root = T::int(q as i64).sqrt();
            let a = DVector::from_element(q, T::int(1) / root);
            let za = sphere.point(&a)?;
            let mut signs = Vec::with_capacity(q);
            for i in 0..q {
                let mut flipped = a.clone();
                flipped[i] = -flipped[i].clone();
                let answer = oracle
                    .compare(&za, &sphere.point(&flipped)?)
                    .map_err(|e| interrupted(queries, format!("orthant query {i}"), e))?;
                queries += 1;
                signs.push(if answer.prefers_first() {
                    Sign::Positive
                } else {
                    Sign::Negative
                });
            }
            signs
        }
    };
    let orthant_queries = queries;
    let check_edges = near.is_some() || settings.orthant == Orthant::DetectAndCheck;
    let mut signs = signs;
    let mut crossings = 0usize;
    // Above f64's precision a sine costs tens of multiplications and an
    // arctangent hundreds: derive the probes' sines and cosines from their
    // neighbours' (every orthant range is a quadrant, so the steps are the
    // same for every angle), and the start's from its unit vector.
    let steps = crate::scalar::costly_arithmetic::<T>().then(|| {
        Steps::new(
            &T::frac_pi_2(),
            halvings(&T::frac_pi_2(), &settings.eps).unwrap_or(0),
        )
    });
    let (start, mut theta, mut ranges) = match near {
        // Start at the prediction, each angle in its window (j < q − 2
        // within [0, π]).
        Some((unit, width)) => {
            let theta = angles_from_unit(unit);
            let pi = T::pi();
            let ranges = theta
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let (lo, hi) = (t.clone() - width.clone(), t.clone() + width.clone());
                    if j + 2 == q {
                        (lo, hi)
                    } else {
                        (lo.max(T::int(0)), hi.min(pi.clone()))
                    }
                })
                .collect();
            (unit.clone(), theta.into_iter().map(Some).collect(), ranges)
        }
        // Start at the centre of the orthant: a = s/√q.
        None => {
            let root = T::int(q as i64).sqrt();
            let start = DVector::from_iterator(
                q,
                signs.iter().map(|s| {
                    if *s == Sign::Positive {
                        T::int(1) / root.clone()
                    } else {
                        -T::int(1) / root.clone()
                    }
                }),
            );
            // The start's angles are read only by the early stop (how far
            // the first cycle moved each angle); every angle is searched in
            // the first cycle, so the estimate never holds them.
            let theta = if steps.is_none() || settings.stop_early {
                angles_from_unit(&start).into_iter().map(Some).collect()
            } else {
                vec![None; q - 1]
            };
            (start, theta, orthant_ranges::<T>(&signs))
        }
    };
    let mut trig = match steps {
        Some(_) => trig_from_unit(&start),
        None => sines_cosines(&theta.iter().flatten().cloned().collect::<Vec<_>>()),
    };
    let mut slot: Option<AngleSlice<T>> = None;
    let mut resolution_stops = 0;
    let mut consistent: Vec<Option<Consistent<T>>> = vec![None; q - 1];
    let mut at_resolution = vec![false; q - 1];
    let (mut ties, mut cycles) = (0, 0);
    let mut warnings = Vec::new();
    for cycle in 0..settings.cycles {
        cycles += 1;
        let mut largest_move = T::int(0);
        for step in 0..q - 1 {
            let j = match settings.order {
                AngleOrder::Paper => step,
                AngleOrder::Reverse => q - 2 - step,
            };
            // One slice for the whole run, turned to each angle in turn.
            let mut slice = match slot.take() {
                Some(mut slice) => {
                    slice.turn(sphere, &trig, j)?;
                    slice
                }
                None => AngleSlice::with_trig(sphere, &trig, j, steps.as_ref())?,
            };
            let search =
                |slice: &mut AngleSlice<T>, oracle: &mut O, range: &(T, T), queries: usize| {
                    maximize(
                        range.0.clone(),
                        range.1.clone(),
                        settings.eps.get().clone(),
                        settings.strategy,
                        |x: &T, y: &T| {
                            let (px, py) = slice.pair(x, y);
                            Ok(oracle.compare(px, py)?.preference)
                        },
                    )
                    .map_err(|e| match e {
                        Error::Interrupted {
                            queries: q2,
                            progress,
                            source,
                            ..
                        } => interrupted(
                            queries + q2,
                            format!("angle {} of cycle {}: {progress}", j + 1, cycle + 1),
                            *source,
                        ),
                        other => other,
                    })
                };
            let mut out = search(&mut slice, oracle, &ranges[j], queries)?;
            queries += out.queries;
            // The detected orthant can be wrong where a coordinate of the
            // optimum is near zero and the oracle is not exactly linear on
            // the sphere (a quadratic metric on QPME's small spheres, noise):
            // the search then ends on the quadrant's edge. One query asks
            // whether the point just past the edge is better; if so the
            // adjacent quadrant is searched, and kept for later cycles.
            if check_edges {
                // At most one turn's worth of ranges.
                let mut covered = ranges[j].1.clone() - ranges[j].0.clone();
                while let Some((edge, past, adjacent)) =
                    edge_crossing(&ranges[j], j + 2 == q, &out.estimate, &settings.eps)
                {
                    if covered >= T::two_pi() {
                        break;
                    }
                    covered += &(adjacent.1.clone() - adjacent.0.clone());
                    let answer = {
                        let (pe, pp) = slice.pair(&edge, &past);
                        oracle.compare(pp, pe)
                    }
                    .map_err(|e| {
                        interrupted(
                            queries,
                            format!("angle {} of cycle {}: range edge", j + 1, cycle + 1),
                            e,
                        )
                    })?;
                    queries += 1;
                    if answer.preference != Preference::First {
                        break;
                    }
                    let again = search(&mut slice, oracle, &adjacent, queries)?;
                    queries += again.queries;
                    out = Outcome {
                        queries: out.queries + again.queries,
                        ties: out.ties + again.ties,
                        ..again
                    };
                    if near.is_none() {
                        orthant_of(&mut signs, j, &adjacent);
                    }
                    ranges[j] = adjacent;
                    crossings += 1;
                }
            }
            ties += out.ties;
            at_resolution[j] = out.stop == Stop::Resolution;
            if at_resolution[j] {
                resolution_stops += 1;
            }
            if let Some(old) = &theta[j] {
                let moved = (out.estimate.clone() - old.clone()).abs();
                if moved > largest_move {
                    largest_move = moved;
                }
            }
            trig[j] = slice.trig(&out.estimate);
            theta[j] = Some(out.estimate);
            consistent[j] = Some(out.consistent);
            slot = Some(slice);
        }
        if settings.stop_early && largest_move <= *settings.eps {
            break;
        }
    }
    let consistent: Vec<Consistent<T>> = consistent
        .into_iter()
        .zip(&ranges)
        .map(|(c, (lo, hi))| {
            c.unwrap_or_else(|| Consistent::Interval {
                lo: lo.clone(),
                hi: hi.clone(),
            })
        })
        .collect();
    let slack = settings.eps.get().clone() * (T::int(1) + crate::prec::ulps::<T>(64));
    let mut wide = vec![false; q - 1];
    for (j, c) in consistent.iter().enumerate() {
        match c {
            Consistent::Contradictory { above, below } => warnings.push(Warning::new(
                Cause::Contradictory,
                format!(
                    "angle {}: the answers put the optimum both above {:.6} and below {:.6} rad, which no linear metric does (a noisy oracle, or a query space where the metric is not unimodal)",
                    j + 1,
                    above.to_f64_lossy(),
                    below.to_f64_lossy()
                ),
            )),
            Consistent::Interval { lo, hi }
                if !at_resolution[j] && hi.clone() - lo.clone() > slack =>
            {
                wide[j] = true;
                warnings.push(Warning::new(
                    Cause::Plateau,
                    format!(
                        "angle {}: the answers leave it anywhere in [{:.6}, {:.6}] rad ({} ties in all)",
                        j + 1,
                        lo.to_f64_lossy(),
                        hi.to_f64_lossy(),
                        ties
                    ),
                ))
            }
            Consistent::Interval { .. } => {}
        }
    }
    if resolution_stops > 0 {
        warnings.push(Warning::new(
            Cause::Resolution,
            format!("{resolution_stops} angle searches reached the working precision before eps"),
        ));
    }
    Ok(LpmeEstimate {
        a: unit_from_sines_cosines(&trig),
        // Every angle was searched in the first cycle: all are set.
        theta: theta.into_iter().flatten().collect(),
        signs,
        queries,
        orthant_queries,
        orthant_crossings: crossings,
        resolution_stops,
        cycles,
        consistent,
        ties,
        wide,
        warnings,
    })
}

/// The edge of angle j's search range within `eps` of `estimate` that a
/// search may cross, with the point `eps` past it and the adjacent range of
/// the same width. For j < q − 2 the angle lives in [0, π] (0 and π are the
/// poles where the later coordinates vanish; past them their signs flip),
/// so those edges are not crossed and the adjacent range stops at them;
/// the last angle is periodic, so every edge is crossed. On the quadrants
/// of a detected orthant this crosses π/2 (j < q − 2) or any quadrant edge
/// (the last angle).
fn edge_crossing<T: Scalar>(
    range: &(T, T),
    last: bool,
    estimate: &T,
    eps: &T,
) -> Option<(T, T, (T, T))> {
    let (lo, hi) = range;
    let width = hi.clone() - lo.clone();
    let pi = T::pi();
    let near = |edge: &T| (estimate.clone() - edge.clone()).abs() <= eps.clone();
    if (last || *hi < pi) && near(hi) {
        let far = hi.clone() + width;
        let far = if last || far < pi { far } else { pi };
        return Some((hi.clone(), hi.clone() + eps.clone(), (hi.clone(), far)));
    }
    if (last || *lo > T::int(0)) && near(lo) {
        let far = lo.clone() - width;
        let far = if last || far > T::int(0) {
            far
        } else {
            T::int(0)
        };
        return Some((lo.clone(), lo.clone() - eps.clone(), (far, lo.clone())));
    }
    None
}

/// Sets the signs that angle j's quadrant `range` decides: aⱼ's from
/// cos θⱼ, and for the last angle also a_q's from sin θ_{q−1}.
fn orthant_of<T: Scalar>(signs: &mut [Sign], j: usize, range: &(T, T)) {
    let mid = (range.0.clone() + range.1.clone()) * T::ratio(1, 2);
    let (sin, cos) = mid.sin_cos();
    signs[j] = Sign::of(&cos);
    if j + 2 == signs.len() {
        signs[j + 1] = Sign::of(&sin);
    }
}
