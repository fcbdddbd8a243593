//! Diagonal linear metrics on the faces of the diagonal confusions (002
//! Alg. 1) and their cost and reward extension on attribute frontiers (004
//! Alg. 1).

use crate::elicit::bayes::family::positive;
use crate::elicit::bayes::family::View;
use crate::elicit::bayes::family::{Cone, Family, Prior};
use crate::elicit::cost_reward::CostRewardSpace;
use crate::error::{Error, Result};
use crate::metric::cost_reward::{Attribute, CostRewardMetric, Statistics};
use crate::oracle::people::uniform;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand_chacha::ChaCha8Rng;

fn l1<T: Scalar>(theta: &[T]) -> T {
    theta.iter().fold(T::int(0), |s, x| s + x.clone().abs())
}

fn max_abs<T: Scalar>(x: &[T], y: &[T]) -> T {
    x.iter()
        .zip(y)
        .fold(T::int(0), |m, (a, b)| m.max((a.clone() - b.clone()).abs()))
}

/// The chord half-widths δ = 1/w of DLPM's faces: ½ down to 1/32. The
/// wide chords (½, ¼) matter to a person who errs on near-ties, as the
/// binary boundary's do; on the faces they cut the person model's
/// questions by 24 % (k = 3) and 45 % (k = 5) behind exact and flipping
/// people, with no more silent errors, at 60 metrics per setting
/// (docs/measurements/bayes-noise.md, "DLPM's wide chords at 60 metrics
/// per setting").
const FACE_WIDTHS: [i64; 5] = [2, 4, 8, 16, 32];

/// The chord half-widths δ = 1/w of cost/reward's frontiers: 1/8 down to
/// 1/32. The faces' wide chords were tried here too and, at 60 metrics
/// per setting, made the person model silently wrong in 11 of 480 runs
/// behind exact and flipping people against 1
/// (docs/measurements/bayes-noise.md, "Cost/reward's frontiers go back
/// to the narrow chords").
const FRONTIER_WIDTHS: [i64; 3] = [8, 16, 32];

/// Chords ν(m + δ) against ν(m − δ) of a one-parameter space m ∈ [0, 1]
/// (a face or a frontier), m chosen by bisection so that the chord's
/// normal halves the posterior, for each δ = 1/w of `widths`.
fn chords<T: Scalar, F: Family<T>>(
    view: &View<'_, T, F>,
    widths: &[i64],
    point: impl Fn(&T) -> Option<F::Point>,
    out: &mut Vec<(F::Point, F::Point)>,
) {
    let (zero, one) = (T::int(0), T::int(1));
    for &width in widths {
        let delta = T::ratio(1, width);
        let clamp = |x: T| x.max(zero.clone()).min(one.clone());
        out.extend(view.bisect(zero.clone(), one.clone(), |m: &T| {
            Some((
                point(&clamp(m.clone() + delta.clone()))?,
                point(&clamp(m.clone() - delta.clone()))?,
            ))
        }));
    }
}

/// A diagonal linear metric ψ(d) = ⟨a, d⟩ of the k class accuracies
/// dᵢ = P(h = i, Y = i), a ≥ 0 with ‖a‖₁ = 1 (002 §2.2), asked about the
/// restricted-Bayes-optimal classifiers ν(m; i, j) of the faces (i, j)
/// (002 §3.1): θ = a, f = d, D = k, d = k − 1, error max|a − â|. The
/// prior is uniform on the simplex. Every face (i < j) is a candidate; a
/// face whose points do not differ visibly (e.g. the faces of
/// [`crate::population::PairBlocks`] without class 1) is never asked.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, families::Dlpm};
/// use metric_elicitation::oracle::{Mistakes, Simulated};
/// use metric_elicitation::population::PairBlocks;
/// use nalgebra::{dvector, DVector};
/// let family = Dlpm::new(PairBlocks::new(3, 5.0).unwrap());
/// let truth = dvector![0.5, 0.2, 0.3];
/// let t = truth.clone();
/// let mut person = Mistakes::new(Simulated::new(move |d: &DVector<f64>| t.dot(d)), 0.05, 3).unwrap();
/// let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap()).seed(2).build().unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// assert!((est.metric.unwrap() - truth).amax() <= 0.05);
/// ```
#[derive(Debug, Clone)]
pub struct Dlpm<P> {
    population: P,
}

impl<P> Dlpm<P> {
    /// The faces of `population`.
    pub fn new(population: P) -> Self {
        Dlpm { population }
    }

    /// The population.
    pub fn population(&self) -> &P {
        &self.population
    }
}

impl<T: Scalar, P: MulticlassPopulation<T> + Sync> Family<T> for Dlpm<P> {
    type Point = DVector<T>;
    type Metric = DVector<T>;

    fn name(&self) -> String {
        format!("DLPM k = {}", self.population.classes())
    }

    fn dim(&self) -> usize {
        self.population.classes()
    }

    fn prior(&self) -> Prior {
        Prior::Exponential
    }

    fn cone(&self) -> Cone {
        Cone::nonnegative(self.population.classes())
    }

    fn scale(&self, theta: &[T]) -> T {
        l1(theta)
    }

    fn features(&self, x: &DVector<T>, out: &mut [T]) {
        out.clone_from_slice(x.as_slice());
    }

    fn shown(&self, x: &DVector<T>) -> Vec<T> {
        x.as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        (1..=self.population.classes())
            .map(|i| format!("a_{i}"))
            .collect()
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        out.clone_from_slice(normalized);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        max_abs(x, y)
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        _rng: &mut ChaCha8Rng,
    ) -> Vec<(DVector<T>, DVector<T>)> {
        let k = self.population.classes();
        let mut out = Vec::new();
        for r in 0..k {
            for i in r + 1..k {
                let point = |m: &T| {
                    self.population
                        .rbo_diagonal(r, i, m, &(T::int(1) - m.clone()))
                        .ok()
                };
                chords(view, &FACE_WIDTHS, point, &mut out);
            }
        }
        out
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(DVector<T>, DVector<T>)> {
        let k = self.population.classes();
        let r = (rng_index(rng, k)).min(k - 1);
        let mut i = rng_index(rng, k - 1);
        if i >= r {
            i += 1;
        }
        let point = |rng: &mut ChaCha8Rng| {
            let m: T = uniform(rng);
            self.population
                .rbo_diagonal(r, i, &m, &(T::int(1) - m.clone()))
                .ok()
        };
        Some((point(rng)?, point(rng)?))
    }

    fn metric(&self, normalized: &[T]) -> Result<DVector<T>> {
        Ok(DVector::from_column_slice(normalized))
    }

    fn parameters(&self, metric: &DVector<T>) -> Result<DVector<T>> {
        let s = l1(metric.as_slice());
        if metric.len() != self.population.classes()
            || metric.iter().any(|x| *x < T::int(0))
            || !positive(&s)
        {
            return Err(Error::invalid(
                "metric",
                "a DLPM needs k non-negative weights, not all zero",
            ));
        }
        Ok(metric / s)
    }
}

/// A uniform index below `n` (n ≥ 1).
fn rng_index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    use rand::Rng;
    rng.random_range(0..n.max(1))
}

/// A cost and reward infused DLPM ψ = ⟨aᵈ, d⟩ + Σⱼ wⱼsⱼ (004 §2), weights
/// ≥ 0 with ‖a‖₁ = 1, asked about 004 Alg. 1's query spaces: the faces
/// (r, i) of the classes and each attribute's frontier against a class's
/// accuracy: θ = (aᵈ, w), f = (d, s), D = k + #attributes, d = D − 1,
/// error max|a − â|. Every class serves as a frontier's reference (the
/// papers use class 1 only).
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, AnswerModel, families::CostReward};
/// use metric_elicitation::metric::cost_reward::{Attribute, CostRewardMetric};
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::PairBlocks;
/// use nalgebra::dvector;
/// let pop = PairBlocks::new(2, 5.0).unwrap();
/// let attributes = vec![Attribute::reward("speed", 5.0).unwrap(), Attribute::cost("cost", 0.3).unwrap()];
/// let family = CostReward::new(pop, attributes).unwrap();
/// let truth = CostRewardMetric::new(dvector![0.4, 0.2], dvector![0.1, 0.3]).unwrap();
/// let mut person = Simulated::new(truth.clone());
/// let settings = BayesSettings::builder(Tolerance::new(0.05).unwrap()).answers(AnswerModel::Mistakes { p: 0.0 }).build().unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// assert!((est.metric.unwrap().weights() - truth.weights()).amax() <= 0.05);
/// ```
pub struct CostReward<T: Scalar, P> {
    population: P,
    attributes: Vec<Attribute<T>>,
    classes: usize,
}

impl<T: Scalar, P: MulticlassPopulation<T>> CostReward<T, P> {
    /// The query spaces of `population` and `attributes`.
    ///
    /// # Errors
    /// As [`CostRewardSpace::new`].
    pub fn new(population: P, attributes: Vec<Attribute<T>>) -> Result<Self> {
        CostRewardSpace::new(&population, &attributes)?;
        Ok(CostReward {
            classes: population.classes(),
            population,
            attributes,
        })
    }

    /// The population.
    pub fn population(&self) -> &P {
        &self.population
    }

    /// The attributes.
    pub fn attributes(&self) -> &[Attribute<T>] {
        &self.attributes
    }

    /// The query spaces (faces and frontiers, 004 Alg. 1), checked at
    /// construction.
    pub fn space(&self) -> CostRewardSpace<'_, T, P> {
        CostRewardSpace::checked(&self.population, &self.attributes)
    }

    fn spaces(&self) -> Vec<(usize, usize)> {
        let k = self.classes;
        let total = k + self.attributes.len();
        let mut out = Vec::new();
        for r in 0..k {
            for i in r + 1..total {
                out.push((r, i));
            }
        }
        out
    }
}

impl<T: Scalar, P: MulticlassPopulation<T> + Sync> Family<T> for CostReward<T, P> {
    type Point = Statistics<T>;
    type Metric = CostRewardMetric<T>;

    fn name(&self) -> String {
        format!(
            "cost/reward k = {} with {} attributes",
            self.classes,
            self.attributes.len()
        )
    }

    fn dim(&self) -> usize {
        self.classes + self.attributes.len()
    }

    fn prior(&self) -> Prior {
        Prior::Exponential
    }

    fn cone(&self) -> Cone {
        Cone::nonnegative(self.classes + self.attributes.len())
    }

    fn scale(&self, theta: &[T]) -> T {
        l1(theta)
    }

    fn features(&self, x: &Statistics<T>, out: &mut [T]) {
        for (o, v) in out.iter_mut().zip(x.d.iter().chain(x.attributes.iter())) {
            *o = v.clone();
        }
    }

    fn shown(&self, x: &Statistics<T>) -> Vec<T> {
        x.d.iter().chain(x.attributes.iter()).cloned().collect()
    }

    fn report_names(&self) -> Vec<String> {
        (1..=self.classes)
            .map(|i| format!("a_{i}^d"))
            .chain(self.attributes.iter().map(|a| format!("a[{}]", a.name)))
            .collect()
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        out.clone_from_slice(normalized);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        max_abs(x, y)
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        _rng: &mut ChaCha8Rng,
    ) -> Vec<(Statistics<T>, Statistics<T>)> {
        let mut out = Vec::new();
        let space = self.space();
        for (r, i) in self.spaces() {
            let point = |m: &T| space.statistics(r, i, m).ok();
            chords(view, &FRONTIER_WIDTHS, point, &mut out);
        }
        out
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(Statistics<T>, Statistics<T>)> {
        let spaces = self.spaces();
        let (r, i) = spaces[rng_index(rng, spaces.len())];
        let space = self.space();
        let a = space.statistics(r, i, &uniform::<T, _>(rng)).ok()?;
        let b = space.statistics(r, i, &uniform::<T, _>(rng)).ok()?;
        Some((a, b))
    }

    fn metric(&self, normalized: &[T]) -> Result<CostRewardMetric<T>> {
        let k = self.classes;
        CostRewardMetric::normalized(
            DVector::from_column_slice(&normalized[..k]),
            DVector::from_column_slice(&normalized[k..]),
        )
    }

    fn parameters(&self, metric: &CostRewardMetric<T>) -> Result<DVector<T>> {
        if metric.classes() != self.classes || metric.attributes.len() != self.attributes.len() {
            return Err(Error::invalid(
                "metric",
                "the metric's classes and attributes differ from the family's",
            ));
        }
        let w = metric.weights();
        let s = l1(w.as_slice());
        Ok(w / s)
    }
}
