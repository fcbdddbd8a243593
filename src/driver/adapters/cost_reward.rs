//! The `cost-reward` adapter: 004 Alg. 1 ([`CostReward`]) over a spec's
//! k-class population and its named cost and reward attributes.

use crate::driver::adapter::{f64s, Adapter, Family, Report, View};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{Better, Names, Panel, Row, Section, Shape, Summary};
use crate::driver::rank::{
    ClassifierStatistics, Metric as RankMetric, Parameters, PoolStatistics, Rankability, Rankable,
    Statistic,
};
use crate::driver::spec::{num, num_list_of, AttributeSpec, PopulationSpec};
use crate::elicit::cost_reward::{CostReward, CostRewardEstimate, CostRewardSettings};
use crate::elicit::ratios::{PairSpace, Reference};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::metric::cost_reward::{Attribute, CostRewardMetric, Kind, Space, Statistics};
use crate::scalar::Scalar;
use crate::search::Strategy;
use nalgebra::DVector;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields for `procedure = "cost-reward"`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostRewardFields {
    /// The attributes, `{ name, kind = "cost" | "reward", lower, upper }`.
    pub attributes: Vec<AttributeSpec>,
    /// The reference: a class number (1-based; 1 is the paper's) or
    /// `"auto"` (the default: the largest class weight seen, the same
    /// queries with better-conditioned ratios, as for DLPM).
    #[serde(default)]
    pub reference: Option<Value>,
}

/// `cost-reward`: 004 Alg. 1. Population: `synthetic-004` (`classes`,
/// `rows`, `seed`: the §5 population, expected confusions), a multiclass
/// `csv` or a `dataset`. The simulated oracle's `metric` is a table:
/// `accuracy` (k weights) and one weight per attribute name; `elicited`
/// has the same keys.
pub struct CostRewardAdapter<T: Scalar>(CostReward<T>, Vec<Option<String>>);

/// A weight vector as the spec's table: `accuracy` and one entry per
/// attribute name.
pub(crate) fn table<T: Scalar>(
    k: usize,
    attributes: &[Attribute<T>],
    w: &DVector<T>,
    f: impl Fn(&T) -> Value,
) -> Value {
    let mut out = Map::new();
    out.insert(
        "accuracy".into(),
        Value::Array(w.rows(0, k).iter().map(&f).collect()),
    );
    for (j, a) in attributes.iter().enumerate() {
        out.insert(a.name.clone(), f(&w[k + j]));
    }
    Value::Object(out)
}

/// The simulated oracle's `metric` table (`accuracy` = k weights and one
/// weight ≥ 0 per attribute name) as a metric.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.metric…`; [`Error::Assumption`]
/// for a negative attribute weight.
pub(crate) fn cost_reward_truth<T: Scalar>(
    metric: &Value,
    k: usize,
    attributes: &[Attribute<T>],
) -> Result<CostRewardMetric<T>> {
    let table = metric.as_object().ok_or_else(|| {
        Error::invalid(
            "oracle.metric",
            "expected a table: accuracy = [k weights] and one weight per attribute name",
        )
    })?;
    if let Some(key) = table
        .keys()
        .find(|key| *key != "accuracy" && !attributes.iter().any(|a| &a.name == *key))
    {
        return Err(Error::invalid(
            format!("oracle.metric.{key}"),
            "not \"accuracy\" nor the name of an attribute",
        ));
    }
    let accuracy = table.get("accuracy").ok_or_else(|| {
        Error::invalid("oracle.metric.accuracy", format!("missing ({k} weights)"))
    })?;
    let accuracy = num_list_of::<T>(accuracy, "oracle.metric.accuracy", k)?;
    let weights = attributes
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
                attributes[j].name, weights[j]
            ),
        });
    }
    CostRewardMetric::new(DVector::from_vec(accuracy), DVector::from_vec(weights))
}

/// The weights in a formula: `0.4·d1 + … + 0.1·NAME`.
pub(crate) fn cost_reward_words<T: Scalar>(
    a: &DVector<T>,
    k: usize,
    attributes: &[Attribute<T>],
) -> String {
    let names: Vec<String> = (0..k)
        .map(|i| format!("d{}", i + 1))
        .chain(attributes.iter().map(|a| a.name.clone()))
        .collect();
    a.iter()
        .zip(&names)
        .map(|(w, n)| format!("{:.4}·{n}", w.to_f64_lossy()))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// A point (per-class accuracy and attribute values) for the terminal.
pub(crate) fn cost_reward_view<T: Scalar>(
    priors: &[T],
    attributes: &[Attribute<T>],
    point: &Statistics<T>,
) -> View {
    // Per-class accuracy dᵢ/ζᵢ = P(h = i | Y = i), with dᵢ = P(Y = i,
    // h = i) (what the metric weighs) beside it.
    let mut rows: Vec<String> = point
        .d
        .iter()
        .zip(priors)
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
    for (a, v) in attributes.iter().zip(point.attributes.iter()) {
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

/// A point in the task's words: per-class counts and the attributes with
/// their names and units.
pub(crate) fn cost_reward_panel<T: Scalar>(
    priors: &[T],
    attributes: &[Attribute<T>],
    units: &[Option<String>],
    point: &Statistics<T>,
    names: &Names,
) -> Panel {
    let d: Vec<f64> = f64s(point.d.iter());
    let priors: Vec<f64> = f64s(priors.iter());
    let mut panel = panels::diagonal(names, &d, Some(&priors));
    let rows = attributes
        .iter()
        .zip(point.attributes.iter())
        .zip(units)
        .map(|((a, v), unit)| {
            let span = a.span().to_f64_lossy().abs().max(1e-12);
            let decimals = (2 - span.log10().floor() as i32).clamp(0, 6) as u8;
            Row {
                label: match unit {
                    Some(u) => format!("{} ({u})", a.name),
                    None => a.name.clone(),
                },
                value: v.to_f64_lossy(),
                decimals,
                of: None,
                better: match a.kind {
                    Kind::Cost => Better::Lower,
                    Kind::Reward => Better::Higher,
                },
            }
        })
        .collect();
    panel.sections.push(Section {
        title: "Other qualities".into(),
        rows,
        matrix: None,
    });
    panel
}

/// The metric in a sentence: the class whose correct cases matter most,
/// and what one unit of each attribute is worth in its correct cases.
pub(crate) fn cost_reward_sentence<T: Scalar>(
    accuracy: &[f64],
    weights: &[f64],
    attributes: &[Attribute<T>],
    units: &[Option<String>],
    names: &Names,
) -> String {
    let a = accuracy;
    let top = (0..a.len())
        .max_by(|i, j| {
            a[*i]
                .partial_cmp(&a[*j])
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    let per = f64::from(names.per);
    let mut parts = vec![format!(
        "Getting a {} case right matters most among the classes",
        names.class(top)
    )];
    for ((attr, w), unit) in attributes.iter().zip(weights).zip(units) {
        if a.get(top).is_none_or(|v| *v <= 0.0) {
            continue;
        }
        // One more correct case of `per` adds a/per; one unit of the
        // attribute adds w.
        let cases = w / (a[top] / per);
        let unit = unit.clone().unwrap_or_else(|| "unit".into());
        parts.push(match attr.kind {
            Kind::Cost => format!(
                "cutting {} by one {unit} is worth {:.2} more correct {} cases of {}",
                attr.name,
                cases,
                names.class(top),
                names.per
            ),
            Kind::Reward => format!(
                "one more {unit} of {} is worth {:.2} more correct {} cases of {}",
                attr.name,
                cases,
                names.class(top),
                names.per
            ),
        });
    }
    format!("{}.", parts.join("; "))
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

impl<T: Scalar> Adapter<T> for CostRewardAdapter<T> {
    type Fields = CostRewardFields;
    type Algorithm = CostReward<T>;
    type Truth = CostRewardMetric<T>;

    const ERROR: &'static str = "max |a - a^|";

    /// Golden-section search: the paper's interval width ε on every ratio
    /// with about 1.44·log₂(1/ε) queries per ratio instead of 4·log₂(1/ε).
    fn default_strategy() -> Strategy {
        Strategy::Golden
    }

    fn new(
        fields: CostRewardFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let attributes = attributes::<T>(&fields.attributes)?;
        let reference = reference(fields.reference.as_ref())?;
        let population = build::multiclass::<T>(population, "cost-reward")?;
        let settings = CostRewardSettings {
            reference,
            ..CostRewardSettings::paper(search.eps, search.strategy)
        };
        let units = fields.attributes.iter().map(|a| a.unit.clone()).collect();
        Ok(CostRewardAdapter(
            CostReward::with_population(population, attributes, settings)?,
            units,
        ))
    }

    fn algorithm(&self) -> &CostReward<T> {
        &self.0
    }

    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.0.population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<CostRewardMetric<T>> {
        cost_reward_truth(metric, self.0.population().classes(), self.0.attributes())
    }

    /// The squared distance from the optimum of the point's own space
    /// (each space has one).
    fn distance(&self, truth: &CostRewardMetric<T>, point: &Statistics<T>) -> Option<T> {
        let k = self.0.population().classes();
        let (r, i) = match point.space {
            Space::Face { reference, class } => (reference, class),
            Space::Frontier {
                reference,
                attribute,
            } => (reference, k + attribute),
        };
        let best = self.0.space().optimum(truth, r, i).ok()?;
        Some(
            (&point.d - &best.d).norm_squared()
                + (&point.attributes - &best.attributes).norm_squared(),
        )
    }

    fn report(
        &self,
        estimate: &CostRewardEstimate<T>,
        truth: Option<&CostRewardMetric<T>>,
    ) -> Report {
        let a = estimate.weights();
        let k = self.0.population().classes();
        let attributes = self.0.attributes();
        let readable = |v: &T| json!(v.to_f64_lossy());
        let words = cost_reward_words(a, k, attributes);
        let bounds = &estimate.ratios.bounds;
        let mut consistent = Map::new();
        consistent.insert(
            "accuracy".into(),
            json!(bounds[..k]
                .iter()
                .map(|(lo, hi)| [lo.to_f64_lossy(), hi.to_f64_lossy()])
                .collect::<Vec<_>>()),
        );
        for (j, attr) in self.0.attributes().iter().enumerate() {
            let (lo, hi) = &bounds[k + j];
            consistent.insert(
                attr.name.clone(),
                json!([lo.to_f64_lossy(), hi.to_f64_lossy()]),
            );
        }
        let space = self.0.space();
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
                    "used": f.used,
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
                .priors()
                .iter()
                .map(|z| z.to_f64_lossy())
                .collect::<Vec<_>>()),
        );
        Report {
            elicited: table(k, attributes, a, readable),
            elicited_exact: table(k, attributes, a, |v| json!(v.encode())),
            words,
            consistent: Value::Object(consistent),
            warnings: estimate.ratios.warnings.clone(),
            truth: truth.map(|t| table(k, attributes, &t.weights(), readable)),
            error: truth.map(|t| (t.weights() - a).amax().to_f64_lossy()),
            details,
        }
    }

    fn view(&self, point: &Statistics<T>) -> View {
        cost_reward_view(&self.0.population().priors(), self.0.attributes(), point)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(self.0.population().classes()),
            ..Shape::default()
        }
    }

    fn panel(&self, point: &Statistics<T>, names: &Names) -> Option<Panel> {
        Some(cost_reward_panel(
            &self.0.population().priors(),
            self.0.attributes(),
            &self.1,
            point,
            names,
        ))
    }

    fn elicited_metric(&self, est: &CostRewardEstimate<T>) -> Option<CostRewardMetric<T>> {
        let clip = |v: &DVector<T>| v.map(|x| if x < T::int(0) { T::int(0) } else { x });
        CostRewardMetric::normalized(clip(&est.accuracy), clip(&est.attributes)).ok()
    }

    fn summary(&self, est: &CostRewardEstimate<T>, names: &Names) -> Option<Summary> {
        Some(Summary {
            sentence: cost_reward_sentence(
                &f64s(est.accuracy.iter()),
                &f64s(est.attributes.iter()),
                self.0.attributes(),
                &self.1,
                names,
            ),
            undetermined: Vec::new(),
            picture: None,
        })
    }
}

/// The cost and reward infused procedure at every precision.
#[derive(Debug, Clone, Copy, Default)]
pub struct CostRewardFamily;

impl Family for CostRewardFamily {
    const NAME: &'static str = "cost-reward";
    const SUMMARY: &'static str =
        "a diagonal linear metric with named cost and reward attributes (004 Alg. 1)";
    type At<T: Scalar> = CostRewardAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_cost_reward);
}

// ---- ranking (elicit rank) --------------------------------------------------

/// A cost/reward metric to rank by: the weights as given and the names of
/// its attributes, whose values per classifier come from `--attributes`.
#[derive(Debug, Clone, PartialEq)]
pub struct CostRewardRanking {
    /// The weights (aᵈ and one per attribute).
    pub metric: CostRewardMetric<f64>,
    /// The attributes' names, in the order of `metric.attributes`.
    pub names: Vec<String>,
}

/// `cost-reward`'s result (`{"accuracy": [k], NAME: weight, …}`) as a
/// [`CostRewardMetric`] with its weights as given (004's normalization is
/// not needed to rank), the attributes in the file's key order.
pub(crate) fn rank_cost_reward(p: &Parameters<'_>) -> Result<RankMetric> {
    let map = p.value.as_object().ok_or_else(|| {
        Error::invalid(
            p.field,
            "expected {\"accuracy\": [...], ATTRIBUTE: weight, ...}",
        )
    })?;
    let accuracy = p.numbers(p.get(&["accuracy"])?, "accuracy")?;
    if accuracy.len() < 2 {
        return Err(Error::invalid(
            p.name("accuracy"),
            format!(
                "needs one weight per class (k >= 2), got {}",
                accuracy.len()
            ),
        ));
    }
    let (names, weights): (Vec<String>, Vec<f64>) = map
        .iter()
        .filter(|(k, _)| k.as_str() != "accuracy")
        .map(|(k, v)| Ok((k.clone(), p.number(v, k)?)))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    Ok(RankMetric::new(CostRewardRanking {
        metric: CostRewardMetric {
            accuracy: DVector::from_vec(accuracy),
            attributes: DVector::from_vec(weights),
        },
        names,
    }))
}

/// 004's metric (a utility) on the diagonal joint confusions and the
/// classifier's attribute values, evaluated by
/// [`CostRewardMetric::psi_left_to_right`].
impl Rankable for CostRewardRanking {
    fn family(&self) -> &'static str {
        "cost-reward"
    }

    fn classes(&self) -> Option<usize> {
        Some(self.metric.accuracy.len())
    }

    fn statistic(&self) -> Statistic {
        Statistic::JointDiagonal
    }

    fn attributes(&self) -> Vec<String> {
        self.names.clone()
    }

    fn is_constant(&self) -> bool {
        self.metric.weights().iter().all(|w| *w == 0.0)
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        let d = DVector::from_vec(classifier.statistic(Statistic::JointDiagonal));
        let s = self
            .names
            .iter()
            .map(|n| {
                classifier.attribute(n).ok_or_else(|| {
                    Error::invalid(
                        "--attributes",
                        format!(
                            "the metric weighs {}: give each classifier's values (no row for {})",
                            self.names.join(", "),
                            classifier.name
                        ),
                    )
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        self.metric.psi_left_to_right(&d, &DVector::from_vec(s))
    }
}
