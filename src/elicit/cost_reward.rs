//! Cost and reward infused metric elicitation: *Cost and Reward Infused
//! Metric Elicitation* (Bhateja, Hashmi, O'Brien, Prakash; `004` in
//! `shared/seeds`), which extends DLPM elicitation (002 Alg. 1).
//!
//! * [`elicit_cost_reward`] — 004 Alg. 1: the metric
//!   ψ = ⟨aᵈ, d⟩ + ⟨aʳ, r⟩ + ⟨aᶜ, c⟩ (§2,
//!   [`crate::metric::cost_reward::CostRewardMetric`]) one ratio at a time
//!   against the class-1 accuracy: class accuracies on the faces (1, i) of
//!   the diagonal confusions (the RBO classifiers, §4.2.1) and each
//!   attribute on its quarter-ellipse frontier (§4.2.2,
//!   [`crate::geometry::frontier`]); âᵢ = (1 − m̂)/m̂ relative to a₁ᵈ, then
//!   ℓ1-normalized. The loop is the one DLPM uses
//!   ([`super::ratios::elicit_ratios`]), so consistent boxes, warnings and
//!   the moving reference come with it.
//! * [`CostReward`] — the same as a typed algorithm
//!   ([`super::Elicitation`]); the spec driver's `procedure =
//!   "cost-reward"` runs it.
//!
//! Corrections to the paper (`shared/notes/004-cost-reward.md`): the
//! accuracy branch of Alg. 1 is i ≤ k (the printed i < dim(aᵈ) sends the
//! last class to the attribute branch); §4.2.2's undefined η₁ is ζ̂₁, the
//! same number that scales d₁ of the attribute queries; θ is computed with
//! atan2 so that m = 1 gives π/2; Assumption 2's cost half must read
//! "strictly decreasing" (the frontier here satisfies it by construction).

use super::ratios::{elicit_ratios, PairSpace, RatioEstimate, Reference};
use super::Elicitation;
use crate::diagnostics::Warning;
use crate::error::{Error, Result};
use crate::geometry::frontier::Frontier;
use crate::metric::cost_reward::{Attribute, CostRewardMetric, Space, Statistics};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use crate::search::{halvings, Strategy, Tolerance};
use nalgebra::DVector;

/// The procedure's name in messages and errors.
pub const PROCEDURE: &str = "cost and reward infused elicitation (004 Alg. 1)";

/// Settings of [`elicit_cost_reward`].
#[derive(Debug, Clone, PartialEq)]
pub struct CostRewardSettings<T> {
    /// Search tolerance ε on each ratio's m ∈ [0, 1].
    pub eps: Tolerance<T>,
    /// The search strategy.
    pub strategy: Strategy,
    /// The reference: class 1 in the paper; [`Reference::Auto`] moves it to
    /// the largest class weight seen (attributes are always searched
    /// against a class: their frontiers exist only against an accuracy).
    pub reference: Reference,
}

impl<T: Scalar> CostRewardSettings<T> {
    /// 004 Alg. 1 as printed: reference class 1, the given ε and strategy.
    pub fn paper(eps: Tolerance<T>, strategy: Strategy) -> Self {
        CostRewardSettings {
            eps,
            strategy,
            reference: Reference::Class(0),
        }
    }
}

/// The query spaces of 004 Alg. 1: faces (r, i) for the weights i < k and,
/// for the weight k + j, attribute j's frontier against class r with
/// ζ = ζ̂_r of the population (`004-cost-reward.md` D3–D8).
pub struct CostRewardSpace<'a, T, P: ?Sized> {
    population: &'a P,
    attributes: &'a [Attribute<T>],
    priors: Vec<T>,
}

impl<'a, T: Scalar, P: MulticlassPopulation<T> + ?Sized> CostRewardSpace<'a, T, P> {
    /// P(Y = i) of every class (ζ̂ of the population).
    pub fn priors(&self) -> &[T] {
        &self.priors
    }

    /// The spaces of `population` and `attributes`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for two attributes with the same name.
    pub fn new(population: &'a P, attributes: &'a [Attribute<T>]) -> Result<Self> {
        for (j, a) in attributes.iter().enumerate() {
            if attributes[..j].iter().any(|b| b.name == a.name) {
                return Err(Error::invalid(
                    "attributes",
                    format!("the name {:?} is used twice", a.name),
                ));
            }
        }
        Ok(Self::checked(population, attributes))
    }

    /// The spaces of attributes already checked by [`CostRewardSpace::new`].
    pub(crate) fn checked(population: &'a P, attributes: &'a [Attribute<T>]) -> Self {
        CostRewardSpace {
            population,
            attributes,
            priors: population.priors(),
        }
    }

    /// The frontier of attribute j against class r.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when class r does not occur (ζ̂_r = 0).
    pub fn frontier(&self, r: usize, j: usize) -> Result<Frontier<T>> {
        let a = &self.attributes[j];
        Frontier::new(self.priors[r].clone(), a.lower.clone(), a.upper.clone()).map_err(|_| {
            Error::invalid(
                "population",
                format!(
                    "class {} does not occur (zeta = {}), so attribute {:?} has no frontier against it",
                    r + 1,
                    self.priors[r],
                    a.name
                ),
            )
        })
    }

    /// The point ν(m) of the space (r, i) (see [`PairSpace::point`]).
    ///
    /// # Errors
    /// As [`MulticlassPopulation::rbo_diagonal`] and
    /// [`CostRewardSpace::frontier`].
    pub fn statistics(&self, r: usize, i: usize, m: &T) -> Result<Statistics<T>> {
        let k = self.population.classes();
        let zero = T::int(0);
        let mut attributes = DVector::from_element(self.attributes.len(), zero.clone());
        if i < k {
            let d = self
                .population
                .rbo_diagonal(r, i, m, &(T::int(1) - m.clone()))?;
            return Ok(Statistics {
                d,
                attributes,
                space: Space::Face {
                    reference: r,
                    class: i,
                },
            });
        }
        let j = i - k;
        let (dr, s) = self.frontier(r, j)?.at(m)?;
        let mut d = DVector::from_element(k, zero);
        d[r] = dr;
        attributes[j] = s;
        Ok(Statistics {
            d,
            attributes,
            space: Space::Frontier {
                reference: r,
                attribute: j,
            },
        })
    }

    /// The oracle's optimum on the space (r, i) for a metric: ν(m*) with
    /// m* = a_r/(a_r + aᵢ).
    ///
    /// # Errors
    /// As [`CostRewardSpace::statistics`].
    pub fn optimum(
        &self,
        truth: &CostRewardMetric<T>,
        r: usize,
        i: usize,
    ) -> Result<Statistics<T>> {
        let w = truth.weights();
        let m = crate::geometry::frontier::optimum(&w[r], &w[i]);
        self.statistics(r, i, &m)
    }
}

impl<T: Scalar, P: MulticlassPopulation<T> + ?Sized> PairSpace<T> for CostRewardSpace<'_, T, P> {
    type Point = Statistics<T>;

    fn weights(&self) -> usize {
        self.population.classes() + self.attributes.len()
    }

    fn can_lead(&self, i: usize) -> bool {
        i < self.population.classes()
    }

    fn point(&self, r: usize, i: usize, m: &T) -> Result<Statistics<T>> {
        self.statistics(r, i, m)
    }

    fn empty_sides(&self, r: usize, i: usize, p: &Statistics<T>) -> (bool, bool) {
        match p.space {
            Space::Face { .. } => (p.d[r] == T::int(0), p.d[i] == T::int(0)),
            // Every m gives a distinct frontier point: no plateau.
            Space::Frontier { .. } => (false, false),
        }
    }

    fn label(&self, r: usize, i: usize) -> String {
        let k = self.population.classes();
        if i < k {
            format!("face ({}, {})", r + 1, i + 1)
        } else {
            format!(
                "frontier (class {}, {:?})",
                r + 1,
                self.attributes[i - k].name
            )
        }
    }

    fn weight_name(&self, i: usize) -> String {
        let k = self.population.classes();
        if i < k {
            format!("a_{}^d", i + 1)
        } else {
            format!("a[{}]", self.attributes[i - k].name)
        }
    }
}

/// An elicited cost and reward infused metric.
#[derive(Debug, Clone, PartialEq)]
pub struct CostRewardEstimate<T: Scalar> {
    /// âᵈ (ℓ1-normalized together with the attribute weights).
    pub accuracy: DVector<T>,
    /// One weight per attribute, in declaration order.
    pub attributes: DVector<T>,
    /// The ratio searches, the consistent box (weights in the order
    /// (aᵈ, attributes)), queries and warnings.
    pub ratios: RatioEstimate<T>,
}

impl<T: Scalar> CostRewardEstimate<T> {
    /// All weights, (âᵈ, attribute weights).
    pub fn weights(&self) -> &DVector<T> {
        &self.ratios.a
    }

    /// Oracle queries asked.
    pub fn queries(&self) -> usize {
        self.ratios.queries
    }

    /// Why the consistent set is wider than ε, where it is.
    pub fn warnings(&self) -> &[Warning] {
        &self.ratios.warnings
    }
}

/// 004 Algorithm 1: elicits ψ = ⟨aᵈ, d⟩ + Σⱼ wⱼ·sⱼ over `attributes` from
/// pairwise comparisons, one ratio to the reference accuracy (a₁ᵈ in the
/// paper) at a time: on the face (1, i) for the class accuracies i = 2..k
/// (the branch is i ≤ k; the paper's "i < dim(aᵈ)" is an off-by-one), on
/// attribute j's frontier for its weight. Returns â relative to â₁ᵈ = 1,
/// ℓ1-normalized.
///
/// With [`Strategy::Paper`] it asks exactly
/// Q = 4·(k + #attributes − 1)·⌈log₂(1/ε)⌉ queries (120 for k = 2 with two
/// attributes at ε = 10⁻³, 200 for k = 3 with three), fewer only where two
/// quarter points of a face give the same confusion (a finite sample's
/// plateau: answered "indifferent" without asking by
/// [`crate::oracle::Counted`]).
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for duplicate
/// attribute names, a reference that is not a class, or a reference class
/// that does not occur; [`Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::cost_reward::{elicit_cost_reward, CostRewardSettings};
/// use metric_elicitation::metric::cost_reward::{Attribute, CostRewardMetric};
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::population::ExpectedMulticlass;
/// use metric_elicitation::search::Strategy;
/// use nalgebra::DVector;
/// // Table 1, row 1: k = 2, a reward on [0, 5] and a cost on [-0.3, 0].
/// let pop = ExpectedMulticlass::<f64>::synthetic_004(2, 100_000, 1).unwrap();
/// let attributes = vec![
///     Attribute::reward("speed", 5.0).unwrap(),
///     Attribute::cost("cost", 0.3).unwrap(),
/// ];
/// let truth = CostRewardMetric::new(
///     DVector::from_vec(vec![0.10, 0.05]),
///     DVector::from_vec(vec![0.05, 0.80]),
/// ).unwrap();
/// let mut oracle = Counted::new(Simulated::new(truth.clone()));
/// let settings = CostRewardSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Paper);
/// let est = elicit_cost_reward(&pop, &attributes, &mut oracle, &settings).unwrap();
/// assert_eq!(oracle.posed(), 120);
/// assert!((est.weights() - truth.weights()).amax() < 5e-3);
/// ```
pub fn elicit_cost_reward<T, P, O>(
    population: &P,
    attributes: &[Attribute<T>],
    oracle: &mut O,
    settings: &CostRewardSettings<T>,
) -> Result<CostRewardEstimate<T>>
where
    T: Scalar,
    P: MulticlassPopulation<T> + ?Sized,
    O: Oracle<Statistics<T>> + ?Sized,
{
    let space = CostRewardSpace::new(population, attributes)?;
    let k = population.classes();
    let ratios = elicit_ratios(
        &space,
        oracle,
        &settings.eps,
        settings.strategy,
        settings.reference,
        PROCEDURE,
    )?;
    let accuracy = ratios.a.rows(0, k).into_owned();
    let attributes = ratios.a.rows(k, attributes.len()).into_owned();
    Ok(CostRewardEstimate {
        accuracy,
        attributes,
        ratios,
    })
}

/// Queries of one [`elicit_cost_reward`] run with [`Strategy::Paper`]:
/// 4·(k + #attributes − 1)·⌈log₂(1/ε)⌉.
///
/// # Errors
/// [`Error::InvalidEpsilon`].
pub fn paper_queries<T: Scalar>(classes: usize, attributes: usize, eps: &T) -> Result<usize> {
    Ok(4 * (classes + attributes - 1) * halvings(&T::int(1), eps)?)
}

/// 004 Alg. 1 (cost and reward infused DLPM) as a typed algorithm: a
/// k-class population, the attributes and the settings; its point is a
/// [`Statistics`] (a diagonal confusion with the attributes' values).
pub struct CostReward<T: Scalar> {
    population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
    attributes: Vec<Attribute<T>>,
    settings: CostRewardSettings<T>,
}

impl<T: Scalar> std::fmt::Debug for CostReward<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CostReward")
            .field("classes", &self.population.classes())
            .field("attributes", &self.attributes)
            .field("settings", &self.settings)
            .finish()
    }
}

impl<T: Scalar> CostReward<T> {
    /// The procedure over an already built population.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for duplicate
    /// attribute names or a reference that is not a class.
    pub fn with_population(
        population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
        attributes: Vec<Attribute<T>>,
        settings: CostRewardSettings<T>,
    ) -> Result<Self> {
        CostRewardSpace::new(population.as_ref(), &attributes)?;
        if let Reference::Class(r) = settings.reference {
            if r >= population.classes() {
                return Err(Error::invalid(
                    "reference",
                    format!(
                        "class {} is not one of the {} classes",
                        r + 1,
                        population.classes()
                    ),
                ));
            }
        }
        Ok(CostReward {
            population,
            attributes,
            settings,
        })
    }

    /// The population.
    pub fn population(&self) -> &(dyn MulticlassPopulation<T> + Send + Sync) {
        self.population.as_ref()
    }

    /// The attributes.
    pub fn attributes(&self) -> &[Attribute<T>] {
        &self.attributes
    }

    /// The query spaces (faces and frontiers) of the population.
    pub fn space(&self) -> CostRewardSpace<'_, T, dyn MulticlassPopulation<T> + Send + Sync> {
        CostRewardSpace {
            population: self.population.as_ref(),
            attributes: &self.attributes,
            priors: self.population.priors(),
        }
    }
}

impl<T: Scalar> Elicitation<T> for CostReward<T> {
    type Point = Statistics<T>;
    type Estimate = CostRewardEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<Statistics<T>>) -> Result<CostRewardEstimate<T>> {
        elicit_cost_reward(
            self.population.as_ref(),
            &self.attributes,
            oracle,
            &self.settings,
        )
    }

    /// One search of [0, 1] per weight but the reference (golden section:
    /// its bound less the one query it reserves for rounding).
    fn expected_queries(&self) -> Option<usize> {
        let searches = self.population.classes() + self.attributes.len() - 1;
        let s = &self.settings;
        let per = crate::search::expected_queries(s.strategy, &T::int(1), &s.eps)?;
        Some(searches * (per - usize::from(s.strategy == Strategy::Golden)))
    }
}
