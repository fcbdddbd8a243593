//! The ratio searches shared by DLPM elicitation (002 Alg. 1) and cost and
//! reward infused elicitation (004 Alg. 1).
//!
//! Both estimate a non-negative weight vector a one ratio at a time: for
//! each weight i other than a reference r, a one-dimensional query space
//! between r and i (a face (r, i) of the diagonal confusions, or the
//! frontier of an attribute against class r's accuracy) whose points ν(m)
//! maximize m·(statistic r) + (1 − m)·(statistic i); the oracle's optimum
//! is m* = a_r/(a_r + aᵢ), found by the one search primitive, and
//! âᵢ = (1 − m̂)/m̂ relative to â_r = 1; finally â/‖â‖₁.
//!
//! [`elicit_ratios`] runs this loop over any [`PairSpace`], with the
//! reference fixed or moved to the largest weight seen ([`Reference`]), and
//! returns the estimate with the box of weights consistent with every
//! answer and [`Warning`]s naming why that box is wider than ε where it is.

use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::oracle::Oracle;
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{maximize, Consistent, Outcome, Stop, Strategy, Tolerance};
use nalgebra::DVector;
use serde::Serialize;

/// Which weight serves as the reference of the ratios aᵢ/a_r.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reference {
    /// A fixed class (0-based; 002 Alg. 1 and 004 Alg. 1 use class 1, i.e.
    /// 0): spaces (r, i) for every i ≠ r, âᵢ = (1 − m̂)/m̂ relative to
    /// â_r = 1.
    Class(usize),
    /// The largest weight found along the way: spaces
    /// are searched against the current reference r; when a space says
    /// aᵢ > a_r (m̂ < ½) and i may lead ([`PairSpace::can_lead`]: a class),
    /// i becomes the reference and the ratios found so far are rescaled by
    /// a_r/aᵢ = m̂/(1 − m̂). Every such ratio is then computed where it is
    /// well conditioned (m̂ ≥ ½ for (1 − m̂)/m̂, m̂ < ½ for m̂/(1 − m̂)), so a
    /// small a₁ is harmless.
    ///
    /// A space (r, i) whose optimum lies within ε of a vertex (a trivial
    /// classifier: aᵢ/a_r only bounded on this population) is searched
    /// once more through another weight j found so far that may lead: the
    /// one whose space (j, i) identifies (read off the population, without
    /// a query) most of the ratios aᵢ/aⱼ within the bound the first search
    /// left; aᵢ is taken through it (aᵢ/a_r = (aⱼ/a_r)·(1 − m̂)/m̂ on the
    /// space (j, i)) if it identifies aᵢ. Only a face at a vertex costs this one more search; where the
    /// second search does not identify aᵢ either (or no space could), the
    /// first stands and aᵢ is reported unidentified.
    Auto,
}

/// A family of one-dimensional query spaces, one per pair (reference r,
/// weight i): what [`elicit_ratios`] searches.
pub trait PairSpace<T: Scalar> {
    /// What the oracle compares.
    type Point: PartialEq;

    /// The number of weights (classes, then any further statistics).
    fn weights(&self) -> usize;

    /// Whether weight i may serve as the reference (a space (i, j) exists
    /// for every other j).
    fn can_lead(&self, i: usize) -> bool;

    /// ν(m) on the space (r, i): the point maximizing
    /// m·(statistic r) + (1 − m)·(statistic i), m ∈ [0, 1].
    ///
    /// # Errors
    /// The population's errors.
    fn point(&self, r: usize, i: usize, m: &T) -> Result<Self::Point>;

    /// Whether the point's statistic r, and its statistic i, is zero: on a
    /// face, a vertex (a trivial classifier predicting the other class
    /// everywhere). A space whose points are all distinct (a frontier)
    /// answers (false, false).
    fn empty_sides(&self, r: usize, i: usize, point: &Self::Point) -> (bool, bool);

    /// The space's name in messages, 1-based (e.g. "face (1, 2)").
    fn label(&self, r: usize, i: usize) -> String;

    /// A weight's name in messages, 1-based (e.g. "a_2").
    fn weight_name(&self, i: usize) -> String;
}

/// One pair search.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceSearch<T: Scalar> {
    /// The reference r of the space (0-based).
    pub reference: usize,
    /// The other weight i (0-based; for DLPM a class).
    pub class: usize,
    /// m̂, the estimate of a_r/(a_r + aᵢ): the midpoint of the search's
    /// final interval.
    pub m: T,
    /// The search's final interval (lo, hi).
    pub interval: (T, T),
    /// Every m consistent with the answers (see [`Consistent`]).
    pub consistent: Consistent<T>,
    /// Oracle queries of this search.
    pub queries: usize,
    /// Ties among its answers.
    pub ties: usize,
    /// Why the search stopped.
    pub stop: Stop,
    /// Whether the estimate uses it. With [`Reference::Auto`] a space
    /// (r, i) whose optimum is at a vertex is searched once more through
    /// another weight found so far; if that search identifies aᵢ it is
    /// used and the first stays on record unused, else the reverse.
    pub used: bool,
}

/// An elicited weight vector (the result of [`elicit_ratios`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RatioEstimate<T: Scalar> {
    /// â with ‖â‖₁ = 1.
    pub a: DVector<T>,
    /// m̂ of each search, in the order searched (with
    /// `Reference::Class(0)`: the spaces (1, i), i = 2..).
    pub m: Vec<T>,
    /// The searches, in order.
    pub faces: Vec<FaceSearch<T>>,
    /// The set of metrics consistent with the answers, as a box: for each
    /// weight, the least and largest ℓ1-normalized value over every metric
    /// whose optima lie in the searches' consistent intervals.
    pub bounds: Vec<(T, T)>,
    /// The final reference (0-based).
    pub reference: usize,
    /// Oracle queries.
    pub queries: usize,
    /// Searches that stopped at the working precision before ε.
    pub resolution_stops: usize,
    /// Weights i (0-based) whose space (r, i) has the oracle's optimum
    /// within ε of a vertex: ν(m) is the same trivial classifier for every
    /// m on one side of m̂, so aᵢ/a_r is only bounded, not identified, on
    /// this population.
    pub unidentified_faces: Vec<usize>,
    /// Why the consistent set is wider than ε, where it is.
    pub warnings: Vec<Warning>,
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

    /// The values both intervals allow; `None` when they do not meet.
    fn intersect(&self, other: &Ratio<T>) -> Option<Self> {
        let lo = self.lo.clone().max(other.lo.clone());
        let hi = match (&self.hi, &other.hi) {
            (Some(a), Some(b)) => Some(a.clone().min(b.clone())),
            (Some(a), None) | (None, Some(a)) => Some(a.clone()),
            (None, None) => None,
        };
        match &hi {
            Some(h) if *h < lo => None,
            _ => Some(Ratio { lo, hi }),
        }
    }

    /// `x` moved into the interval.
    fn clamp(&self, x: T) -> T {
        let x = x.max(self.lo.clone());
        match &self.hi {
            Some(h) => x.min(h.clone()),
            None => x,
        }
    }

    /// 1/x over x in the interval.
    fn recip(&self) -> Self {
        let one = T::int(1);
        Ratio {
            lo: self
                .hi
                .as_ref()
                .map_or_else(T::zero, |h| one.clone() / h.clone()),
            hi: (self.lo > T::int(0)).then(|| one / self.lo.clone()),
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

/// The loop of 002 Alg. 1 and 004 Alg. 1 over any [`PairSpace`]: for each
/// weight i ≠ r, search m ∈ [0, 1] on the space (r, i); then â_r = 1,
/// âᵢ = (1 − m̂)/m̂ and â ← â/‖â‖₁, with the reference fixed or moving
/// ([`Reference`]). `procedure` names the procedure in
/// [`Error::Interrupted`].
///
/// With [`Strategy::Paper`] each search asks exactly 4·⌈log₂(1/ε)⌉
/// queries (fewer when two quarter points are the same point: those
/// comparisons are answered without asking by
/// [`crate::oracle::Counted`]).
///
/// Besides â it returns the box of weights consistent with every answer
/// and warnings naming why a search's consistent interval is wider than ε
/// (a vertex optimum, a plateau, a reference weight too small, answers
/// that contradict each other) and where a weight's box is much wider than
/// ε because its reference weight is much smaller (an ill-conditioned
/// ratio).
///
/// # Errors
/// [`Error::InvalidArgument`] for a reference
/// out of range or one that cannot lead; [`Error::Interrupted`] when the
/// oracle stops.
pub fn elicit_ratios<T, S, O>(
    space: &S,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
    reference: Reference,
    procedure: &str,
) -> Result<RatioEstimate<T>>
where
    T: Scalar,
    S: PairSpace<T> + ?Sized,
    O: Oracle<S::Point> + ?Sized,
{
    let k = space.weights();
    let (mut r, auto) = match reference {
        Reference::Class(r) if r < k && space.can_lead(r) => (r, false),
        Reference::Class(r) => {
            return Err(Error::invalid(
                "reference",
                format!(
                    "{} cannot serve as the reference (a class 1..k is needed)",
                    r + 1
                ),
            ))
        }
        Reference::Auto => (0, true),
    };
    let how = How {
        eps,
        strategy,
        procedure,
        auto,
    };
    let (one, half) = (T::int(1), T::ratio(1, 2));
    // Weights relative to the current reference, and their consistent ranges.
    let mut w: Vec<Option<T>> = vec![None; k];
    let mut ranges: Vec<Option<Ratio<T>>> = vec![None; k];
    w[r] = Some(one.clone());
    ranges[r] = Some(Ratio::one());
    let (mut queries, mut resolution_stops) = (0, 0);
    let mut faces = Vec::with_capacity(k - 1);
    let mut unidentified_faces = Vec::new();
    let mut warnings = Vec::new();
    // Whether a weight's ratio to the reference is known to ε (its search
    // neither at a vertex nor wider than ε).
    let mut determined = vec![false; k];
    determined[r] = true;
    let order: Vec<usize> = (0..k).filter(|i| *i != r).collect();
    for i in order {
        let mut found = search_pair(space, oracle, &how, queries, (r, i))?;
        queries += found.face.queries;
        resolution_stops += note_resolution(&mut found, &mut warnings);
        let mut via = r;
        // A second search that did not identify the ratio either: on
        // record after the first, unused.
        let mut unused_after = None;
        // The first search's bound on aᵢ/a_r, kept when aᵢ is found
        // through another weight.
        let first_bound = Ratio::complement_over(&found.clo, &found.chi);
        if auto && found.vertex {
            // The space (r, i) has the optimum at a vertex: aᵢ/a_r is only
            // bounded there, within `bound`. Another weight j already found
            // may identify it: the population alone tells which ratios
            // aᵢ/aⱼ the space (j, i) identifies (its optima away from its
            // vertices); the one whose range overlaps the bound most (in log
            // scale) is searched, once. (Measured on the 002 §6.1
            // populations: trying further weights after a failed one never
            // identified another metric, and cost about 10 % more queries.)
            let bound = &first_bound;
            let mut candidates: Vec<(usize, T)> = Vec::new();
            // Only weights that are themselves determined to ε serve.
            for j in (0..k).filter(|j| *j != r && *j != i && determined[*j] && space.can_lead(*j)) {
                let Some(wj) = w[j].clone() else { continue };
                let Some((lo, hi)) = identified_ratios(space, (j, i), eps)? else {
                    continue;
                };
                // The bound as aᵢ/aⱼ, in logs (−∞/+∞ where unbounded).
                let from = if bound.lo > T::int(0) {
                    (bound.lo.clone() / wj.clone()).ln()
                } else {
                    lo.clone()
                };
                let to = bound
                    .hi
                    .clone()
                    .map_or(hi.clone(), |h| (h / wj.clone()).ln());
                let overlap = to.min(hi) - from.max(lo);
                if overlap > T::int(0) {
                    candidates.push((j, overlap));
                }
            }
            candidates.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
            if let Some((j, _)) = candidates.first() {
                let j = *j;
                let mut other = search_pair(space, oracle, &how, queries, (j, i))?;
                queries += other.face.queries;
                resolution_stops += note_resolution(&mut other, &mut warnings);
                if other.vertex {
                    // Not identified through j either: the first search
                    // stands, the second on record after it, unused.
                    other.face.used = false;
                    unused_after = Some(other.face);
                } else {
                    // Identified through j: the search of (r, i) stays on
                    // record, unused.
                    let mut first = std::mem::replace(&mut found, other);
                    first.face.used = false;
                    faces.push(first.face);
                    via = j;
                }
            }
        }
        let Searched {
            face,
            clo,
            chi,
            vertex,
            warning,
            resolution,
        } = found;
        if vertex {
            unidentified_faces.push(i);
        }
        debug_assert!(resolution.is_none());
        determined[i] = !vertex && warning.is_none();
        warnings.extend(warning);
        let m = face.m.clone();
        if via == r {
            if auto && m < half && space.can_lead(i) {
                // aᵢ > a_r: i becomes the reference; earlier ratios are
                // rescaled by a_r/aᵢ = m/(1 − m) (well conditioned for m < ½).
                let odds = m.clone() / (one.clone() - m.clone());
                let odds_range = Ratio::odds_over(&clo, &chi);
                rescale(&mut w, &mut ranges, &odds, &odds_range);
                w[i] = Some(one.clone());
                ranges[i] = Some(Ratio::one());
                r = i;
            } else {
                w[i] = Some((one.clone() - m.clone()) / m.clone());
                ranges[i] = Some(Ratio::complement_over(&clo, &chi));
            }
        } else {
            // Found through j: aᵢ/a_r = (aⱼ/a_r)·(1 − m̂)/m̂.
            let (wj, rj) = (
                w[via].clone().unwrap_or_else(|| one.clone()),
                ranges[via].clone().unwrap_or_else(Ratio::one),
            );
            let wi = wj * (one.clone() - m.clone()) / m.clone();
            // Both searches bound aᵢ/a_r: keep what both allow (and the
            // estimate inside it).
            let through = rj.times(&Ratio::complement_over(&clo, &chi));
            let ri = through.intersect(&first_bound).unwrap_or(through);
            let wi = ri.clamp(wi);
            if wi > one && space.can_lead(i) {
                // aᵢ > a_r: i becomes the reference.
                let odds = one.clone() / wi;
                rescale(&mut w, &mut ranges, &odds, &ri.recip());
                w[i] = Some(one.clone());
                ranges[i] = Some(Ratio::one());
                // aⱼ/aᵢ = m/(1 − m) on the space (j, i) itself.
                ranges[via] = Some(Ratio::odds_over(&clo, &chi));
                r = i;
            } else {
                w[i] = Some(wi);
                ranges[i] = Some(ri);
            }
        }
        faces.push(face);
        faces.extend(unused_after);
    }
    let a: Vec<T> = w.into_iter().map(|v| v.unwrap_or_else(T::zero)).collect();
    let norm = a.iter().fold(T::int(0), |s, v| s + v.clone().abs());
    let a = DVector::from_vec(a) / norm;
    let ranges: Vec<Ratio<T>> = ranges
        .into_iter()
        .map(|r| r.unwrap_or_else(Ratio::one))
        .collect();
    let bounds = normalized_box(&ranges);
    conditioning_warnings(space, &faces, &a, &bounds, eps, auto, &mut warnings);
    Ok(RatioEstimate {
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

/// Moves a search's resolution warning into `warnings`; 1 if there was one.
fn note_resolution<T: Scalar>(found: &mut Searched<T>, warnings: &mut Vec<Warning>) -> usize {
    match found.resolution.take() {
        Some(w) => {
            warnings.push(w);
            1
        }
        None => 0,
    }
}

/// Multiplies every weight found so far by `odds` and its range by
/// `range`: the move to a new reference.
fn rescale<T: Scalar>(
    w: &mut [Option<T>],
    ranges: &mut [Option<Ratio<T>>],
    odds: &T,
    range: &Ratio<T>,
) {
    for v in w.iter_mut().flatten() {
        *v *= odds;
    }
    for rg in ranges.iter_mut().flatten() {
        *rg = rg.times(range);
    }
}

/// The ratios aᵢ/a_r, as an interval of their logs, that the space (r, i)
/// identifies: those whose optimum m* = a_r/(a_r + aᵢ) lies more than ε
/// from the m where ν(m) becomes a vertex (a trivial classifier), found by
/// bisection on the population alone (no query). `None` when no ratio is.
fn identified_ratios<T, S>(
    space: &S,
    (r, i): (usize, usize),
    eps: &Tolerance<T>,
) -> Result<Option<(T, T)>>
where
    T: Scalar,
    S: PairSpace<T> + ?Sized,
{
    let (zero, one, half) = (T::int(0), T::int(1), T::ratio(1, 2));
    let step = eps.get().clone() * T::ratio(1, 4);
    // The boundary between m where `side` holds and where it does not,
    // `side` holding at `at` and not at `from` (or nowhere).
    let edge = |side: &dyn Fn(&S::Point) -> bool, at: T, from: T| -> Result<Option<T>> {
        if !side(&space.point(r, i, &at)?) {
            return Ok(None);
        }
        if side(&space.point(r, i, &from)?) {
            return Ok(Some(from));
        }
        let (mut inside, mut outside) = (at, from);
        while (outside.clone() - inside.clone()).abs() > step {
            let mid = (inside.clone() + outside.clone()) * half.clone();
            // At the working precision's resolution the halving stops.
            if mid == inside || mid == outside {
                break;
            }
            if side(&space.point(r, i, &mid)?) {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        Ok(Some(inside))
    };
    // Near m = 0 class r is never predicted; near m = 1 class i never is.
    let low = edge(&|p| space.empty_sides(r, i, p).0, zero.clone(), one.clone())?
        .unwrap_or_else(|| zero.clone());
    let high = edge(&|p| space.empty_sides(r, i, p).1, one.clone(), zero.clone())?
        .unwrap_or_else(|| one.clone());
    let (m_lo, m_hi) = (low + eps.get().clone(), high - eps.get().clone());
    if m_lo >= m_hi || m_lo <= zero || m_hi >= one {
        return Ok(None);
    }
    // aᵢ/a_r = (1 − m)/m falls as m rises.
    let ratio = |m: T| ((one.clone() - m.clone()) / m).ln();
    Ok(Some((ratio(m_hi), ratio(m_lo))))
}

/// One search on the space (r, i), with what [`elicit_ratios`] needs of it.
struct Searched<T: Scalar> {
    face: FaceSearch<T>,
    /// The consistent interval of m (the final interval when the answers
    /// contradict each other).
    clo: T,
    chi: T,
    /// A vertex within ε of m̂: aᵢ/a_r is not identified on this space.
    vertex: bool,
    /// Why the consistent interval is wider than ε, if it is.
    warning: Option<Warning>,
    /// The working precision was reached before ε.
    resolution: Option<Warning>,
}

/// How [`elicit_ratios`] searches: its settings, passed to each search.
struct How<'a, T: Scalar> {
    eps: &'a Tolerance<T>,
    strategy: Strategy,
    /// The procedure's name, for [`Error::Interrupted`].
    procedure: &'a str,
    /// Whether the reference is [`Reference::Auto`] (messages then do not
    /// suggest it).
    auto: bool,
}

/// Searches m ∈ [0, 1] on the space (r, i) (`before` queries were asked
/// earlier, for [`Error::Interrupted`]).
fn search_pair<T, S, O>(
    space: &S,
    oracle: &mut O,
    how: &How<'_, T>,
    before: usize,
    (r, i): (usize, usize),
) -> Result<Searched<T>>
where
    T: Scalar,
    S: PairSpace<T> + ?Sized,
    O: Oracle<S::Point> + ?Sized,
{
    let (eps, strategy, procedure) = (how.eps, how.strategy, how.procedure);
    let (zero, one) = (T::int(0), T::int(1));
    let out = maximize(
        zero.clone(),
        one.clone(),
        eps.get().clone(),
        strategy,
        |x: &T, y: &T| {
            let px = space.point(r, i, x)?;
            let py = space.point(r, i, y)?;
            Ok(oracle.compare(&px, &py)?.preference)
        },
    )
    .map_err(|e| match e {
        Error::Interrupted {
            queries: q,
            progress,
            source,
            ..
        } => Error::Interrupted {
            procedure: procedure.to_string(),
            queries: before + q,
            progress: format!("{}: {progress}", space.label(r, i)),
            source,
        },
        other => other,
    })?;
    let resolution = (out.stop == Stop::Resolution).then(|| {
        Warning::new(
            Cause::Resolution,
            format!(
                "{}: the working precision was reached before eps",
                space.label(r, i)
            ),
        )
    });
    let m = out.estimate.clone();
    // A vertex within ε of m̂: the space's optimum is a trivial classifier.
    let below = (m.clone() - eps.get().clone()).max(zero.clone());
    let above = (m.clone() + eps.get().clone()).min(one.clone());
    let vertex = space.empty_sides(r, i, &space.point(r, i, &below)?).0
        || space.empty_sides(r, i, &space.point(r, i, &above)?).1;
    let (clo, chi) = match &out.consistent {
        Consistent::Interval { lo, hi } => (lo.clone(), hi.clone()),
        Consistent::Contradictory { .. } => (out.lo.clone(), out.hi.clone()),
    };
    let warning = search_warning(space, &out, eps, how.auto, (r, i), (&clo, &chi))?;
    Ok(Searched {
        face: FaceSearch {
            reference: r,
            class: i,
            m,
            interval: (out.lo.clone(), out.hi.clone()),
            consistent: out.consistent,
            queries: out.queries,
            ties: out.ties,
            stop: out.stop,
            used: true,
        },
        clo,
        chi,
        vertex,
        warning,
        resolution,
    })
}

/// How much wider than ε a weight's consistent box may be before the
/// estimate is reported as ill-conditioned: with the reference the larger
/// of the two weights the amplification |∂âᵢ/∂m̂| = (1 − aᵢ)(a_r + aᵢ)²/a_r
/// is at most 1, so 10 means a reference at least several times smaller.
pub const ILL_CONDITIONED_WIDTH: i64 = 10;

/// Warns where a weight's consistent box is wider than
/// [`ILL_CONDITIONED_WIDTH`]·ε while its search's own interval was not
/// (that case has its own warning) and its reference weight is the smaller
/// one: the ratio aᵢ/a_r amplifies the search's error.
fn conditioning_warnings<T, S>(
    space: &S,
    faces: &[FaceSearch<T>],
    a: &DVector<T>,
    bounds: &[(T, T)],
    eps: &T,
    auto: bool,
    warnings: &mut Vec<Warning>,
) where
    T: Scalar,
    S: PairSpace<T> + ?Sized,
{
    let limit = eps.clone() * T::int(ILL_CONDITIONED_WIDTH);
    for f in faces.iter().filter(|f| f.used) {
        let i = f.class;
        let narrow = f
            .consistent
            .width()
            .is_some_and(|w| w <= eps.clone() * (T::int(1) + prec::ulps::<T>(64)));
        let (lo, hi) = &bounds[i];
        let width = hi.clone() - lo.clone();
        if narrow && width > limit && a[f.reference] < a[i] {
            warnings.push(Warning::new(
                Cause::IllConditioned,
                format!(
                    "{}: {} = {:.4} is only known within [{:.4}, {:.4}] ({:.1} eps): it is found through the ratio {}/{} = {:.3}, whose reference weight is the smaller one, so the search's eps is amplified{}",
                    space.label(f.reference, i),
                    space.weight_name(i),
                    a[i].to_f64_lossy(),
                    lo.to_f64_lossy(),
                    hi.to_f64_lossy(),
                    (width / eps.clone()).to_f64_lossy(),
                    space.weight_name(i),
                    space.weight_name(f.reference),
                    ((T::int(1) - f.m.clone()) / f.m.clone()).to_f64_lossy(),
                    if space.can_lead(i) && !auto {
                        " (reference = \"auto\" avoids this)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
}

/// Why a search's consistent interval [lo, hi] of m is wider than ε, if it
/// is: contradictory answers, a vertex optimum (the interval maps to one
/// trivial classifier), a reference weight too small (the interval reaches
/// m = 0), or a plateau (ties between distinct points).
fn search_warning<T, S>(
    space: &S,
    out: &Outcome<T>,
    eps: &T,
    auto: bool,
    (r, i): (usize, usize),
    (lo, hi): (&T, &T),
) -> Result<Option<Warning>>
where
    T: Scalar,
    S: PairSpace<T> + ?Sized,
{
    let face = space.label(r, i);
    if let Consistent::Contradictory { above, below } = &out.consistent {
        return Ok(Some(Warning::new(
            Cause::Contradictory,
            format!("{face}: the answers put the optimum both above m = {} and below m = {}, which no unimodal metric does (a noisy oracle, or a finite sample whose metric is not unimodal along the face)", above.to_f64_lossy(), below.to_f64_lossy()),
        )));
    }
    let width = hi.clone() - lo.clone();
    // At the working precision's resolution the width is rounding's (the
    // resolution warning says so), not a plateau of the population.
    if width <= eps.clone() * (T::int(1) + prec::ulps::<T>(64)) || out.stop == Stop::Resolution {
        return Ok(None);
    }
    let zero = T::int(0);
    let ratio = Ratio::complement_over(lo, hi);
    let ratio_text = format!(
        "{}/{} in [{:.4}, {}]",
        space.weight_name(i),
        space.weight_name(r),
        ratio.lo.to_f64_lossy(),
        ratio
            .hi
            .as_ref()
            .map_or("inf".to_string(), |h| format!("{:.4}", h.to_f64_lossy()))
    );
    let (at_lo, at_hi, at_m) = (
        space.point(r, i, lo)?,
        space.point(r, i, hi)?,
        space.point(r, i, &out.estimate)?,
    );
    let (e_lo, e_hi, e_m) = (
        space.empty_sides(r, i, &at_lo),
        space.empty_sides(r, i, &at_hi),
        space.empty_sides(r, i, &at_m),
    );
    let vertex = |e: (bool, bool)| e.0 || e.1;
    let interval = format!("[{:.4}, {:.4}]", lo.to_f64_lossy(), hi.to_f64_lossy());
    let (cause, message) = if (at_hi == at_m && vertex(e_hi)) || (at_lo == at_m && vertex(e_lo)) {
        let class = if e_m.1 { r } else { i };
        (
            Cause::VertexOptimum,
            format!("{face}: every m in {interval} near the answers' optimum gives the classifier that predicts class {} everywhere (a vertex of the face), so the population cannot tell these metrics apart: {ratio_text}", class + 1),
        )
    } else if *lo <= zero {
        (
            Cause::SmallReference,
            format!("{face}: the answers allow m = 0, i.e. {} = 0: the reference weight is too small to be resolved at this eps, {ratio_text}{}", space.weight_name(r), if space.can_lead(i) && !auto { " (reference = \"auto\" avoids this)" } else { "" }),
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
