//! Binary linear metrics (003 §5.1, App. C) on the boundary of the
//! confusion set.

use crate::elicit::bayes::family::View;
use crate::elicit::bayes::family::{Cone, Family, Prior, SignConstraint};
use crate::elicit::binary::Monotonicity;
use crate::error::{Error, Result};
use crate::geometry::binary::boundary_point;
use crate::metric::binary::Lpm;
use crate::oracle::people::uniform;
use crate::population::{BinaryConfusion, BinaryPopulation};
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand_chacha::ChaCha8Rng;

/// A binary linear metric m11·TP + m00·TN with ‖m‖₂ = 1 (003 Def. 1),
/// asked about the Bayes confusions of the boundary ∂C (003 §3): θ = m,
/// f(C) = (TP, TN), D = 2, d = 1, error max(|m11 − m̂11|, |m00 − m̂00|).
///
/// The monotonicity is known (increasing: both weights ≥ 0, the upper
/// boundary; decreasing: both ≤ 0, the lower boundary) or unknown (either;
/// the prior puts half its mass on each, and the question
/// Ω(C_{π/4}, C_{5π/4}) of 003 App. C is a candidate). Questions are
/// chords C(φ + δ) against C(φ − δ) of a boundary, δ from π/4 down to
/// π/64, φ chosen so that the chord's normal cuts the posterior in half.
/// The wide chords matter to a person who errs on near-ties: the same cut
/// with twice the chord doubles every metric's value difference, so under
/// the person model ([`AnswerModel::person`](crate::elicit::bayes::AnswerModel::person))
/// an answer tells more (docs/measurements/bayes-noise.md, "Wider chords").
/// At 1 000 metrics per setting they also cost: behind people who flip
/// at random the person model is silently wrong in 165 of 6 000 runs
/// against 33 with chords π/16–π/64 only, behind Bradley–Terry people in
/// 62 of 4 000 against 251 (the same file, "The binary person model at
/// 1 000 metrics, after its wide chords").
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, AnswerModel, families::BinaryLpm};
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::LogisticUniform;
/// let family = BinaryLpm::new(LogisticUniform::new(5.0).unwrap());
/// let truth = Lpm::from_angle(&(std::f64::consts::PI + 0.3)).unwrap(); // decreasing
/// let mut person = Simulated::new(truth.clone());
/// let settings = BayesSettings::builder(Tolerance::new(0.02).unwrap())
///     .answers(AnswerModel::Mistakes { p: 0.0 })
///     .build()
///     .unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// let m = est.metric.unwrap();
/// assert!((m.m11 - truth.m11).abs() <= 0.02 && (m.m00 - truth.m00).abs() <= 0.02);
/// ```
#[derive(Debug, Clone)]
pub struct BinaryLpm<P> {
    population: P,
    monotonicity: Monotonicity,
}

impl<P> BinaryLpm<P> {
    /// Either monotonicity.
    pub fn new(population: P) -> Self {
        BinaryLpm {
            population,
            monotonicity: Monotonicity::Unknown,
        }
    }

    /// A known (or unknown) monotonicity.
    pub fn with_monotonicity(population: P, monotonicity: Monotonicity) -> Self {
        BinaryLpm {
            population,
            monotonicity,
        }
    }

    /// The population.
    pub fn population(&self) -> &P {
        &self.population
    }

    fn starts<T: Scalar>(&self) -> Vec<T> {
        match self.monotonicity {
            Monotonicity::Increasing => vec![T::int(0)],
            Monotonicity::Decreasing => vec![T::pi()],
            Monotonicity::Unknown => vec![T::int(0), T::pi()],
        }
    }
}

impl<T: Scalar, P: BinaryPopulation<T> + Sync> Family<T> for BinaryLpm<P> {
    type Point = BinaryConfusion<T>;
    type Metric = Lpm<T>;

    fn name(&self) -> String {
        "binary LPM".into()
    }

    fn dim(&self) -> usize {
        2
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        let sign = match self.monotonicity {
            Monotonicity::Decreasing => SignConstraint::NonPositive,
            _ => SignConstraint::NonNegative,
        };
        Cone {
            signs: vec![sign; 2],
            or_negated: self.monotonicity == Monotonicity::Unknown,
        }
    }

    fn scale(&self, theta: &[T]) -> T {
        (theta[0].clone() * theta[0].clone() + theta[1].clone() * theta[1].clone()).sqrt()
    }

    fn features(&self, x: &BinaryConfusion<T>, out: &mut [T]) {
        out[0] = x.tp.clone();
        out[1] = x.tn.clone();
    }

    fn shown(&self, x: &BinaryConfusion<T>) -> Vec<T> {
        vec![x.tp.clone(), x.tn.clone()]
    }

    fn report_names(&self) -> Vec<String> {
        vec!["m11".into(), "m00".into()]
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        out.clone_from_slice(&normalized[..2]);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        (x[0].clone() - y[0].clone())
            .abs()
            .max((x[1].clone() - y[1].clone()).abs())
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        _rng: &mut ChaCha8Rng,
    ) -> Vec<(BinaryConfusion<T>, BinaryConfusion<T>)> {
        let mut out = Vec::new();
        let pop = &self.population;
        if self.monotonicity == Monotonicity::Unknown {
            let quarter = T::frac_pi_4();
            if let (Ok(up), Ok(down)) = (
                boundary_point(pop, &quarter),
                boundary_point(pop, &(quarter + T::pi())),
            ) {
                out.push((up, down));
            }
        }
        for start in self.starts::<T>() {
            let end = start.clone() + T::frac_pi_2();
            for width in [4, 8, 16, 32, 64] {
                let delta = T::pi() / T::int(width);
                let clamp = |x: T| x.max(start.clone()).min(end.clone());
                let pair = view.bisect(start.clone(), end.clone(), |phi: &T| {
                    let a = boundary_point(pop, &clamp(phi.clone() + delta.clone())).ok()?;
                    let b = boundary_point(pop, &clamp(phi.clone() - delta.clone())).ok()?;
                    Some((a, b))
                });
                out.extend(pair);
            }
        }
        out
    }

    fn random_pair(
        &self,
        rng: &mut ChaCha8Rng,
    ) -> Option<(BinaryConfusion<T>, BinaryConfusion<T>)> {
        let starts = self.starts::<T>();
        let draw = |rng: &mut ChaCha8Rng| -> Option<BinaryConfusion<T>> {
            let pick = if starts.len() > 1 && uniform::<T, _>(rng) < T::ratio(1, 2) {
                1
            } else {
                0
            };
            let angle = starts[pick].clone() + T::frac_pi_2() * uniform::<T, _>(rng);
            boundary_point(&self.population, &angle).ok()
        };
        Some((draw(rng)?, draw(rng)?))
    }

    fn metric(&self, normalized: &[T]) -> Result<Lpm<T>> {
        Lpm::new(normalized[0].clone(), normalized[1].clone(), T::int(0))
    }

    fn parameters(&self, metric: &Lpm<T>) -> Result<DVector<T>> {
        let unit = metric.unit();
        if !unit.m11.finite() || !unit.m00.finite() {
            return Err(Error::invalid("metric", "a binary LPM needs a slope"));
        }
        Ok(DVector::from_vec(vec![unit.m11, unit.m00]))
    }
}
