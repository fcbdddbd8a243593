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
//! * [`CostReward`] — the same as a [`Procedure`] (`procedure =
//!   "cost-reward"`), [`CostRewardFamily`] its [`Family`].
//!
//! Corrections to the paper (`shared/notes/004-cost-reward.md`): the
//! accuracy branch of Alg. 1 is i ≤ k (the printed i < dim(aᵈ) sends the
//! last class to the attribute branch); §4.2.2's undefined η₁ is ζ̂₁, the
//! same number that scales d₁ of the attribute queries; θ is computed with
//! atan2 so that m = 1 gives π/2; Assumption 2's cost half must read
//! "strictly decreasing" (the frontier here satisfies it by construction).

use super::procedure::{Family, Procedure, Report, Search, View};
use super::ratios::{elicit_ratios, PairSpace, RatioEstimate, Reference};
use super::Warning;
use crate::error::{Error, Result};
use crate::geometry::frontier::Frontier;
use crate::metric::cost_reward::{Attribute, CostRewardMetric, Kind, Space, Statistics};
use crate::oracle::Oracle;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use crate::search::{golden_max_queries, halvings, Strategy};
use crate::spec::{num, num_list_of, AttributeSpec, PopulationSpec};
use nalgebra::DVector;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The procedure's name in messages and errors.
pub const PROCEDURE: &str = "cost and reward infused elicitation (004 Alg. 1)";

/// Settings of [`elicit_cost_reward`].
#[derive(Debug, Clone, PartialEq)]
pub struct CostRewardSettings<T> {
    /// Search tolerance ε on each ratio's m ∈ [0, 1].
    pub eps: T,
    /// The search strategy.
    pub strategy: Strategy,
    /// The reference: class 1 in the paper; [`Reference::Auto`] moves it to
    /// the largest class weight seen (attributes are always searched
    /// against a class: their frontiers exist only against an accuracy).
    pub reference: Reference,
}

impl<T: Scalar> CostRewardSettings<T> {
    /// 004 Alg. 1 as printed: reference class 1, the given ε and strategy.
    pub fn paper(eps: T, strategy: Strategy) -> Self {
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
        Ok(CostRewardSpace {
            population,
            attributes,
            priors: population.priors(),
        })
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
/// let settings = CostRewardSettings::paper(1e-3, Strategy::Paper);
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

/// The spec's own fields for `procedure = "cost-reward"`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The attributes, `{ name, kind = "cost" | "reward", lower, upper }`.
    pub attributes: Vec<AttributeSpec>,
    /// The reference: a class number (1-based; 1 is the paper's) or
    /// `"auto"` (the default: the largest class weight seen, the same
    /// queries with better-conditioned ratios, as for DLPM).
    #[serde(default)]
    pub reference: Option<Value>,
}

/// `procedure = "cost-reward"`: 004 Alg. 1 as a [`Procedure`].
///
/// Population: `synthetic-004` (`classes`, `rows`, `seed`: the §5
/// population, expected confusions) or a multiclass `csv` (`probabilities`
/// and `label_column`: labelled confusions). The simulated oracle's
/// `metric` is a table: `accuracy` (k weights) and one weight per
/// attribute name; `elicited` has the same keys.
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
    /// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for duplicate
    /// attribute names or a reference that is not a class.
    pub fn with_population(
        population: Box<dyn MulticlassPopulation<T> + Send + Sync>,
        attributes: Vec<Attribute<T>>,
        settings: CostRewardSettings<T>,
    ) -> Result<Self> {
        crate::search::check_epsilon(&settings.eps)?;
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

    fn space(&self) -> CostRewardSpace<'_, T, dyn MulticlassPopulation<T> + Send + Sync> {
        CostRewardSpace {
            population: self.population.as_ref(),
            attributes: &self.attributes,
            priors: self.population.priors(),
        }
    }

    /// A weight vector as the spec's table: `accuracy` and one entry per
    /// attribute name.
    fn table(&self, w: &DVector<T>, f: impl Fn(&T) -> Value) -> Value {
        let k = self.population.classes();
        let mut out = Map::new();
        out.insert(
            "accuracy".into(),
            Value::Array(w.rows(0, k).iter().map(&f).collect()),
        );
        for (j, a) in self.attributes.iter().enumerate() {
            out.insert(a.name.clone(), f(&w[k + j]));
        }
        Value::Object(out)
    }
}

/// Reads the `reference` setting: a 1-based class number or `"auto"`.
fn reference(value: Option<&Value>) -> Result<Reference> {
    match value {
        None => Ok(Reference::Auto),
        Some(Value::String(s)) if s == "auto" => Ok(Reference::Auto),
        Some(v) => match v.as_u64() {
            Some(c) if c >= 1 => Ok(Reference::Class(c as usize - 1)),
            _ => Err(Error::invalid(
                "reference",
                format!("expected a class number (1, 2, ...) or \"auto\", got {v}"),
            )),
        },
    }
}

/// The attributes of a spec, validated.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `attributes[i]…`.
pub fn attributes<T: Scalar>(specs: &[AttributeSpec]) -> Result<Vec<Attribute<T>>> {
    specs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let kind: Kind = a.kind.parse().map_err(|_| {
                Error::invalid(
                    format!("attributes[{i}].kind"),
                    format!("{:?} is neither \"cost\" nor \"reward\"", a.kind),
                )
            })?;
            let lower = a.lower.to_scalar(&format!("attributes[{i}].lower"))?;
            let upper = a.upper.to_scalar(&format!("attributes[{i}].upper"))?;
            Attribute::new(a.name.clone(), kind, lower, upper)
        })
        .collect()
}

impl<T: Scalar> Procedure<T> for CostReward<T> {
    type Settings = Settings;
    type Point = Statistics<T>;
    type Truth = CostRewardMetric<T>;
    type Estimate = CostRewardEstimate<T>;

    const ERROR: &'static str = "max |a - a^|";

    /// Golden-section search: the paper's interval width ε on every ratio
    /// with about 1.44·log₂(1/ε) queries per ratio instead of 4·log₂(1/ε).
    fn default_strategy() -> Strategy {
        Strategy::Golden
    }

    fn new(settings: Settings, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let attributes = attributes::<T>(&settings.attributes)?;
        let reference = reference(settings.reference.as_ref())?;
        let population = crate::population::build::multiclass::<T>(population, "cost-reward")?;
        Self::with_population(
            population,
            attributes,
            CostRewardSettings {
                eps: search.eps,
                strategy: search.strategy,
                reference,
            },
        )
    }

    fn truth(&self, metric: &Value) -> Result<CostRewardMetric<T>> {
        let table = metric.as_object().ok_or_else(|| {
            Error::invalid(
                "oracle.metric",
                "expected a table: accuracy = [k weights] and one weight per attribute name",
            )
        })?;
        if let Some(key) = table
            .keys()
            .find(|key| *key != "accuracy" && !self.attributes.iter().any(|a| &a.name == *key))
        {
            return Err(Error::invalid(
                format!("oracle.metric.{key}"),
                "not \"accuracy\" nor the name of an attribute",
            ));
        }
        let k = self.population.classes();
        let accuracy = table.get("accuracy").ok_or_else(|| {
            Error::invalid("oracle.metric.accuracy", format!("missing ({k} weights)"))
        })?;
        let accuracy = num_list_of::<T>(accuracy, "oracle.metric.accuracy", k)?;
        let weights = self
            .attributes
            .iter()
            .map(|a| {
                let field = format!("oracle.metric.{}", a.name);
                let v = table
                    .get(&a.name)
                    .ok_or_else(|| Error::invalid(&field, "missing (one weight per attribute)"))?;
                num::<T>(v, &field)
            })
            .collect::<Result<Vec<T>>>()?;
        if let Some(j) = weights.iter().position(|w| *w < T::int(0)) {
            return Err(Error::Assumption {
                assumption: crate::metric::cost_reward::ASSUMPTION.into(),
                detail: format!(
                    "oracle.metric.{} = {} is negative (a >= 0)",
                    self.attributes[j].name, weights[j]
                ),
            });
        }
        CostRewardMetric::new(DVector::from_vec(accuracy), DVector::from_vec(weights))
    }

    fn value(&self, truth: &CostRewardMetric<T>, point: &Statistics<T>) -> T {
        truth.psi(point)
    }

    /// The squared distance from the optimum of the point's own space
    /// (each space has one).
    fn distance(&self, truth: &CostRewardMetric<T>, point: &Statistics<T>) -> Option<T> {
        let k = self.population.classes();
        let (r, i) = match point.space {
            Space::Face { reference, class } => (reference, class),
            Space::Frontier {
                reference,
                attribute,
            } => (reference, k + attribute),
        };
        let best = self.space().optimum(truth, r, i).ok()?;
        Some(
            (&point.d - &best.d).norm_squared()
                + (&point.attributes - &best.attributes).norm_squared(),
        )
    }

    fn elicit(&self, oracle: &mut dyn Oracle<Statistics<T>>) -> Result<CostRewardEstimate<T>> {
        elicit_cost_reward(
            self.population.as_ref(),
            &self.attributes,
            oracle,
            &self.settings,
        )
    }

    fn report(
        &self,
        estimate: &CostRewardEstimate<T>,
        truth: Option<&CostRewardMetric<T>>,
    ) -> Report {
        let a = estimate.weights();
        let k = self.population.classes();
        let readable = |v: &T| json!(v.to_f64_lossy());
        let names: Vec<String> = (0..k)
            .map(|i| format!("d{}", i + 1))
            .chain(self.attributes.iter().map(|a| a.name.clone()))
            .collect();
        let words = a
            .iter()
            .zip(&names)
            .map(|(w, n)| format!("{:.4}·{n}", w.to_f64_lossy()))
            .collect::<Vec<_>>()
            .join(" + ");
        let bounds = &estimate.ratios.bounds;
        let mut consistent = Map::new();
        consistent.insert(
            "accuracy".into(),
            json!(bounds[..k]
                .iter()
                .map(|(lo, hi)| [lo.to_f64_lossy(), hi.to_f64_lossy()])
                .collect::<Vec<_>>()),
        );
        for (j, attr) in self.attributes.iter().enumerate() {
            let (lo, hi) = &bounds[k + j];
            consistent.insert(
                attr.name.clone(),
                json!([lo.to_f64_lossy(), hi.to_f64_lossy()]),
            );
        }
        let space = self.space();
        let searches: Vec<Value> = estimate
            .ratios
            .faces
            .iter()
            .map(|f| {
                json!({
                    "space": space.label(f.reference, f.class),
                    "m": f.m.to_f64_lossy(),
                    "interval": [f.interval.0.to_f64_lossy(), f.interval.1.to_f64_lossy()],
                    "queries": f.queries,
                    "ties": f.ties,
                })
            })
            .collect();
        let mut details = Map::new();
        details.insert("searches".into(), Value::Array(searches));
        details.insert(
            "reference".into(),
            json!(space.weight_name(estimate.ratios.reference)),
        );
        details.insert("queries".into(), json!(estimate.ratios.queries));
        details.insert(
            "zeta".into(),
            json!(space
                .priors
                .iter()
                .map(|z| z.to_f64_lossy())
                .collect::<Vec<_>>()),
        );
        Report {
            elicited: self.table(a, readable),
            elicited_exact: self.table(a, |v| json!(v.encode())),
            words,
            consistent: Value::Object(consistent),
            warnings: estimate.ratios.warnings.clone(),
            truth: truth.map(|t| self.table(&t.weights(), readable)),
            error: truth.map(|t| (t.weights() - a).amax().to_f64_lossy()),
            details,
        }
    }

    fn present(&self, point: &Statistics<T>) -> View {
        // Per-class accuracy dᵢ/ζᵢ = P(h = i | Y = i), with dᵢ = P(Y = i,
        // h = i) (what the metric weighs) beside it.
        let priors = self.population.priors();
        let mut rows: Vec<String> = point
            .d
            .iter()
            .zip(&priors)
            .enumerate()
            .map(|(i, (d, prior))| {
                let (d, prior) = (d.to_f64_lossy(), prior.to_f64_lossy());
                let accuracy = if prior > 0.0 {
                    format!("{:.2} %", 100.0 * d / prior)
                } else {
                    "-".to_string()
                };
                format!(
                    "class {} accuracy: {accuracy} (correct on {:.2} % of all cases)",
                    i + 1,
                    100.0 * d
                )
            })
            .collect();
        for (a, v) in self.attributes.iter().zip(point.attributes.iter()) {
            rows.push(format!(
                "{} ({} in [{}, {}]): {:.4}",
                a.name,
                a.kind.name(),
                a.lower.to_f64_lossy(),
                a.upper.to_f64_lossy(),
                v.to_f64_lossy()
            ));
        }
        View {
            title: "per-class accuracy and attributes (larger accuracy and reward, smaller cost magnitude, are better)".into(),
            rows,
        }
    }

    fn expected_queries(&self) -> Option<usize> {
        let searches = self.population.classes() + self.attributes.len() - 1;
        let per = match self.settings.strategy {
            Strategy::Paper => 4 * halvings(&T::int(1), &self.settings.eps).ok()?,
            // ≤ 3 per halving, 2.75 on average (notes N1–N2).
            Strategy::Adaptive => (11 * halvings(&T::int(1), &self.settings.eps).ok()?).div_ceil(4),
            Strategy::Golden => golden_max_queries(&T::int(1), &self.settings.eps).ok()? - 1,
            Strategy::Bisection => halvings(&T::int(1), &self.settings.eps).ok()?,
        };
        Some(searches * per)
    }
}

/// The cost and reward infused procedure at every precision.
#[derive(Debug, Clone, Copy, Default)]
pub struct CostRewardFamily;

impl Family for CostRewardFamily {
    const NAME: &'static str = "cost-reward";
    const SUMMARY: &'static str =
        "a diagonal linear metric with named cost and reward attributes (004 Alg. 1)";
    type At<T: Scalar> = CostReward<T>;
}
