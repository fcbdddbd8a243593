//! Multiclass metric elicitation: *Multiclass Performance Metric
//! Elicitation* (Hiranandani, Boodaghians, Mehta, Koyejo, NeurIPS 2019;
//! `002` in `shared/seeds`).
//!
//! * [`elicit_dlpm`] — Alg. 1: diagonal linear metrics ψ(d) = ⟨a, d⟩ over
//!   the faces (1, i) of the space of diagonal confusions;
//! * [`elicit_lpm`] — Alg. 2: monotonically decreasing linear metrics of
//!   the off-diagonal confusions over a sphere S_λ (via [`super::lpme`]).

use super::lpme::{lpme, AngleOrder, LpmeEstimate, LpmeSettings, Orthant};
use super::ratios::{elicit_ratios, PairSpace, RatioEstimate};
pub use super::ratios::{FaceSearch, Reference};
use super::Elicitation;
use crate::error::Result;
use crate::geometry::sphere::{Sign, Sphere};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use crate::search::{Strategy, Tolerance};
use nalgebra::DVector;

/// Settings of [`elicit_dlpm`].
#[derive(Debug, Clone, PartialEq)]
pub struct DlpmSettings<T> {
    /// Search tolerance ε on each face's m ∈ [0, 1].
    pub eps: Tolerance<T>,
    /// The search strategy.
    pub strategy: Strategy,
    /// The reference class.
    pub reference: Reference,
}

impl<T: Scalar> DlpmSettings<T> {
    /// 002 Alg. 1 as printed: reference class 1, the given ε and strategy.
    pub fn paper(eps: Tolerance<T>, strategy: Strategy) -> Self {
        DlpmSettings {
            eps,
            strategy,
            reference: Reference::Class(0),
        }
    }
}

/// An elicited diagonal linear metric (see [`RatioEstimate`]; its
/// searches are the faces (r, i) and `class` is the class i).
pub type DlpmEstimate<T> = RatioEstimate<T>;

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

/// The faces (r, i) of a population's diagonal confusions as the pair
/// spaces of [`elicit_ratios`].
struct Faces<'a, P: ?Sized>(&'a P);

impl<T: Scalar, P: MulticlassPopulation<T> + ?Sized> PairSpace<T> for Faces<'_, P> {
    type Point = DVector<T>;

    fn weights(&self) -> usize {
        self.0.classes()
    }

    fn can_lead(&self, _: usize) -> bool {
        true
    }

    fn point(&self, r: usize, i: usize, m: &T) -> Result<DVector<T>> {
        nu(self.0, m, r, i)
    }

    fn empty_sides(&self, r: usize, i: usize, d: &DVector<T>) -> (bool, bool) {
        (d[r] == T::int(0), d[i] == T::int(0))
    }

    fn label(&self, r: usize, i: usize) -> String {
        format!("face ({}, {})", r + 1, i + 1)
    }

    fn weight_name(&self, i: usize) -> String {
        format!("a_{}", i + 1)
    }
}

/// 002 Algorithm 1 (DLPM elicitation): for each class i ≠ r, search
/// m ∈ [0, 1] on the face (r, i) with ν(m; r, i); then â_r = 1,
/// âᵢ = (1 − m̂)/m̂ and â ← â/‖â‖₁. Class indices are 0-based (class 1 of
/// the paper is 0). With [`Reference::Auto`] the reference moves to the
/// largest weight seen, and a face whose optimum is a vertex is searched
/// again through another class found so far, as described there.
///
/// With [`Strategy::Paper`] and a fixed reference (or `Auto` with no face
/// at a vertex) it asks exactly 4(k − 1)·⌈log₂(1/ε)⌉ queries
/// (fewer when two quarter points give the same confusion: those
/// comparisons are answered without asking by [`crate::oracle::Counted`]).
///
/// Besides â it returns the box of weights consistent with every answer
/// and warnings naming why a face's consistent interval is wider than ε
/// (a vertex optimum, a plateau, a reference weight too small, answers that
/// contradict each other).
///
/// # Errors
/// [`crate::Error::InvalidEpsilon`]; [`crate::Error::InvalidArgument`] for a reference
/// class out of range; [`crate::Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
/// use metric_elicitation::population::LogisticMulticlass;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// use nalgebra::DVector;
/// let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
/// let truth = DVector::from_vec(vec![0.21, 0.59, 0.20]);
/// let t = truth.clone();
/// let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
/// let est = elicit_dlpm(&pop, &mut oracle, &DlpmSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper)).unwrap();
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
    elicit_ratios(
        &Faces(population),
        oracle,
        &settings.eps,
        settings.strategy,
        settings.reference,
        "DLPM elicitation (002 Alg. 1)",
    )
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
    eps: &Tolerance<T>,
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

/// DLPM elicitation (002 Alg. 1) as a typed algorithm: a k-class
/// population and the settings; its point is a diagonal confusion.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::multiclass::{Dlpm, DlpmSettings};
/// use metric_elicitation::elicit::Elicitation;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::population::LogisticMulticlass;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// use nalgebra::DVector;
/// let population = LogisticMulticlass::softmax(vec![1.0, 3.0, 5.0]).unwrap();
/// let settings = DlpmSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Golden);
/// let dlpm = Dlpm::new(Box::new(population), settings);
/// let truth = DVector::from_vec(vec![0.2, 0.5, 0.3]);
/// let hidden = truth.clone();
/// let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| hidden.dot(d)));
/// let estimate = dlpm.elicit(&mut oracle).unwrap();
/// assert!((&estimate.a - &truth).amax() <= 0.01);
/// ```
pub struct Dlpm<T: Scalar> {
    population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
    settings: DlpmSettings<T>,
}

impl<T: Scalar> Dlpm<T> {
    /// DLPM on `population` with `settings`.
    pub fn new(
        population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
        settings: DlpmSettings<T>,
    ) -> Self {
        Dlpm {
            population,
            settings,
        }
    }

    /// The population.
    pub fn population(&self) -> &(dyn MulticlassPopulation<T> + Send + Sync) {
        self.population.as_ref()
    }

    /// The settings.
    pub fn settings(&self) -> &DlpmSettings<T> {
        &self.settings
    }
}

impl<T: Scalar> Elicitation<T> for Dlpm<T> {
    type Point = DVector<T>;
    type Estimate = DlpmEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<DlpmEstimate<T>> {
        elicit_dlpm(self.population.as_ref(), oracle, &self.settings)
    }

    /// One search of [0, 1] per face (k − 1 faces). With
    /// [`Reference::Auto`] a face at a vertex costs one more search, so a
    /// run may take up to twice this.
    fn expected_queries(&self) -> Option<usize> {
        crate::search::expected_queries(self.settings.strategy, &T::int(1), &self.settings.eps)
            .map(|n| n * (self.population.classes() - 1))
    }
}
