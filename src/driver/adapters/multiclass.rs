//! The `dlpm` adapter: 002 Alg. 1 ([`Dlpm`]) over the faces (r, i) of the
//! diagonal confusions of a spec's k-class population.

use crate::driver::adapter::{
    exact_list, f64s, linear_words, lossy_list, Adapter, Family, Report, View,
};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{Names, Panel, Shape, Summary};
use crate::driver::rank::{linear_on, Metric as RankMetric, Parameters, Rankability, Statistic};
use crate::driver::spec::{num_list_of, PopulationSpec};
use crate::driver::view;
use crate::elicit::multiclass::{Dlpm, DlpmEstimate, DlpmSettings, Reference};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::metric::Linear;
use crate::population::MulticlassPopulation;
use crate::scalar::Scalar;
use nalgebra::DVector;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields of `dlpm`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlpmFields {
    /// The reference class: a 1-based class number (002 Alg. 1 uses 1)
    /// or `"auto"` (default: the largest weight found along the way).
    #[serde(default)]
    pub reference: Option<Value>,
}

/// `dlpm`: 002 Alg. 1 over the faces (r, i) of the diagonal confusions.
pub struct DlpmAdapter<T: Scalar>(Dlpm<T>);

impl<T: Scalar> Adapter<T> for DlpmAdapter<T> {
    type Fields = DlpmFields;
    type Algorithm = Dlpm<T>;
    type Truth = Linear<T>;
    const ERROR: &'static str = "max |a - a^| (both l1-normalized)";

    fn metric_length(classes: usize) -> Option<usize> {
        Some(classes)
    }

    fn new(fields: DlpmFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let population = build::multiclass(population, "dlpm")?;
        let k = population.classes();
        let reference = match &fields.reference {
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
        let settings = DlpmSettings {
            reference,
            ..DlpmSettings::paper(search.eps, search.strategy)
        };
        Ok(DlpmAdapter(Dlpm::new(population, settings)))
    }

    fn algorithm(&self) -> &Dlpm<T> {
        &self.0
    }

    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.0.population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<Linear<T>> {
        dlpm_truth(metric, self.0.population().classes())
    }

    fn report(&self, est: &DlpmEstimate<T>, truth: Option<&Linear<T>>) -> Report {
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
                    "used": f.used,
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
                        .find(|f| f.class == *i && f.used)
                        .map_or(0, |f| f.reference);
                    format!("({}, {})", r + 1, i + 1)
                })
                .collect::<Vec<_>>()),
        );
        details.insert("reference".into(), json!(est.reference + 1));
        let a = self.reported(est);
        let mut report = Report {
            elicited: lossy_list(a.iter()),
            elicited_exact: exact_list(a.iter()),
            words: linear_words(
                a.iter()
                    .enumerate()
                    .map(|(i, w)| (format!("correct(class {})", i + 1), w)),
            ),
            consistent: json!({ "weights": bounds, "faces": faces }),
            warnings: est.warnings.clone(),
            details,
            ..Report::default()
        };
        if let Some(Linear(t)) = truth {
            report.truth = Some(lossy_list(t.iter()));
            report.error = Some((t - &a).amax().to_f64_lossy());
        }
        report
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::diagonal(point)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(self.0.population().classes()),
            ..Shape::default()
        }
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(diagonal_panel(self.0.population(), point, names))
    }

    fn elicited_metric(&self, est: &DlpmEstimate<T>) -> Option<Linear<T>> {
        Some(Linear(self.reported(est)))
    }

    fn summary(&self, est: &DlpmEstimate<T>, names: &Names) -> Option<Summary> {
        let a: Vec<f64> = f64s(self.reported(est).iter());
        let priors: Vec<f64> = f64s(self.0.population().priors().iter());
        let bounds: Vec<(f64, f64)> = est
            .bounds
            .iter()
            .map(|(lo, hi)| (lo.to_f64_lossy(), hi.to_f64_lossy()))
            .collect();
        Some(weights_summary(names, &a, &priors, &bounds))
    }
}

impl<T: Scalar> DlpmAdapter<T> {
    /// The weights reported for an estimate: â, or, when a search the
    /// estimate uses left its consistent interval of m wider than ε (a
    /// vertex optimum, a plateau, "can't tell" answers, a reference too
    /// small), the centre of the box that holds every metric consistent
    /// with the answers (each weight's interval's midpoint, ℓ1-normalized;
    /// an outer box, so the centre need not satisfy every answer itself)
    /// rather than the point at its edge where the searches happened to
    /// stop. The result lists those faces under `undetermined` (the same
    /// tolerance decides both). The algorithm's own estimate (what the
    /// reproductions use) is unchanged.
    fn reported(&self, est: &DlpmEstimate<T>) -> DVector<T> {
        let eps = self.0.settings().eps.get().clone();
        let limit = eps * (T::int(1) + crate::prec::ulps::<T>(64));
        let wide = est.faces.iter().filter(|f| f.used).any(|f| {
            f.stop != crate::search::Stop::Resolution
                && f.consistent.width().is_some_and(|w| w > limit)
        });
        if !wide {
            return est.a.clone();
        }
        let centre = DVector::from_iterator(
            est.bounds.len(),
            est.bounds
                .iter()
                .map(|(lo, hi)| (lo.clone() + hi.clone()) / T::int(2)),
        );
        let norm = centre.iter().fold(T::int(0), |s, v| s + v.clone().abs());
        if norm > T::int(0) {
            centre / norm
        } else {
            est.a.clone()
        }
    }
}

/// A DLPM truth from the spec's `oracle.metric`: k weights ≥ 0, not all
/// zero, ℓ1-normalized.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.metric`; [`Error::Assumption`]
/// for a negative weight (002 Def. 5).
pub(super) fn dlpm_truth<T: Scalar>(metric: &Value, k: usize) -> Result<Linear<T>> {
    let v = DVector::from_vec(num_list_of::<T>(metric, "oracle.metric", k)?);
    if let Some(i) = v.iter().position(|x| *x < T::int(0)) {
        return Err(Error::Assumption {
            assumption: "002 Def. 5 (DLPM weights >= 0)".into(),
            detail: format!("oracle.metric[{i}] = {} is negative", v[i]),
        });
    }
    // Scaled to its largest weight first, so that the sum of weights near
    // 1e308 does not overflow.
    let largest = v.amax();
    if largest <= T::int(0) {
        return Err(Error::invalid("oracle.metric", "all weights are zero"));
    }
    let v = v / largest;
    let norm = v.iter().fold(T::int(0), |s, x| s + x.clone());
    Ok(Linear(v / norm))
}

/// A diagonal confusion in the task's words (a face's classifiers predict
/// two classes only: said so).
pub(super) fn diagonal_panel<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(
    population: &P,
    point: &DVector<T>,
    names: &Names,
) -> Panel {
    let d: Vec<f64> = f64s(point.iter());
    let priors: Vec<f64> = f64s(population.priors().iter());
    let mut panel = panels::diagonal(names, &d, Some(&priors));
    let used: Vec<String> = (0..d.len())
        .filter(|i| d[*i] > 0.0)
        .map(|i| names.class(i))
        .collect();
    if used.len() < d.len() {
        panel.what = Some(format!("labels every case {}", used.join(" or ")));
    }
    panel
}

/// A diagonal linear metric for a person: which class's correct cases
/// matter most, and by how much, relative to the largest weight.
pub(super) fn weights_summary(
    names: &Names,
    a: &[f64],
    _priors: &[f64],
    bounds: &[(f64, f64)],
) -> Summary {
    let mut order: Vec<usize> = (0..a.len()).collect();
    order.sort_by(|i, j| {
        a[*j]
            .partial_cmp(&a[*i])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let top = order[0];
    let rest: Vec<String> = order[1..]
        .iter()
        .map(|i| {
            if a[top] > 0.0 {
                format!(
                    "a {} case counts {:.2} as much",
                    names.class(*i),
                    a[*i] / a[top]
                )
            } else {
                format!("{}: weight {:.3}", names.class(*i), a[*i])
            }
        })
        .collect();
    let sentence = format!(
        "Getting a {} case right matters most to you; {}.",
        names.class(top),
        rest.join(", ")
    );
    let undetermined = bounds
        .iter()
        .enumerate()
        .filter(|(_, (lo, hi))| hi - lo > 0.1)
        .map(|(i, (lo, hi))| {
            format!(
                "The weight of {} lies anywhere between {:.2} and {:.2} (normalized weights).",
                names.class(i),
                lo,
                hi
            )
        })
        .collect();
    Summary {
        sentence,
        undetermined,
        picture: Some(json!({
            "kind": "weights",
            "labels": (0..a.len()).map(|i| names.class(i)).collect::<Vec<_>>(),
            "weights": a,
        })),
    }
}

/// `dlpm`.
pub struct DlpmFamily;
impl Family for DlpmFamily {
    const NAME: &'static str = "dlpm";
    const SUMMARY: &'static str = "a diagonal linear metric of k-class confusions (002 Alg. 1)";
    type At<T: Scalar> = DlpmAdapter<T>;
    /// A [`Linear`] on the diagonal joint confusions dᵢ = P(Y = i, h = i).
    const RANK: Rankability = Rankability::Reads(rank_dlpm);
}

/// `dlpm`'s result (k weights) as a [`Linear`] on the diagonal joint
/// confusions.
pub(super) fn rank_dlpm(p: &Parameters<'_>) -> Result<RankMetric> {
    linear_on(p, Statistic::JointDiagonal)
}
