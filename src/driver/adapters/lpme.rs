//! The sphere procedures' adapters: `lpme` (001 App. A, Alg. 2, any
//! signs) and `lpm` (002 Alg. 2, a monotonically decreasing metric: the
//! orthant is known), both [`Lpme`] over the query sphere a spec's
//! population gives ([`build::sphere`]).

use crate::driver::adapter::{
    exact_list, f64s, linear_words, lossy_list, Adapter, Family, Report, View,
};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{Names, Panel, Shape, Summary};
use crate::driver::rank::{linear_on, Metric as RankMetric, Parameters, Rankability, Statistic};
use crate::driver::spec::{num_list_of, PopulationSpec};
use crate::driver::view;
use crate::elicit::lpme::{AngleOrder, Lpme, LpmeEstimate, LpmeSettings, Orthant};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::geometry::sphere::{unit_from_angles, Sign};
use crate::metric::Linear;
use crate::scalar::Scalar;
use crate::search::Strategy;
use nalgebra::DVector;
use serde::Deserialize;
use serde_json::{json, Value};

/// The spec's own fields of the sphere procedures (`lpme`, `lpm`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereFields {
    /// Cycles over the angles (default 1: with the reverse order one
    /// cycle finds every angle; the papers use 2 (002) or 4 (001)).
    #[serde(default)]
    pub cycles: Option<usize>,
    /// `reverse` (default) or `paper` (forward).
    #[serde(default)]
    pub order: Option<AngleOrder>,
    /// Stop after a cycle that moves no angle by more than ε (default
    /// true; only matters with more than one cycle).
    #[serde(default)]
    pub stop_early: Option<bool>,
}

/// LPME over a spec's query sphere, with k when the sphere's coordinates
/// are a k-class population's off-diagonal confusions (for names and
/// views).
pub struct SphereSpace<T: Scalar> {
    /// The algorithm.
    pub lpme: Lpme<T>,
    /// k when the coordinates are off-diagonal confusions.
    pub classes: Option<usize>,
    /// The class priors, when known (for showing a point to a person).
    pub priors: Option<Vec<f64>>,
    /// For a sphere found in data, how far its centre is toward the data's
    /// most accurate classifier ([`build::SphereParts::toward_accurate`]).
    pub toward_accurate: Option<f64>,
}

impl<T: Scalar> SphereSpace<T> {
    /// The sphere of `population` ([`build::sphere`]) with the fields'
    /// settings over [`LpmeSettings::efficient`] and the given orthant.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field.
    pub fn new(
        fields: SphereFields,
        search: Search<T>,
        population: &PopulationSpec,
        name: &str,
        orthant: impl FnOnce(usize) -> Orthant,
    ) -> Result<Self> {
        let defaults = LpmeSettings::efficient(search);
        let cycles = fields.cycles.unwrap_or(defaults.cycles);
        if cycles == 0 {
            return Err(Error::invalid("cycles", "must be at least 1"));
        }
        let build::SphereParts {
            sphere,
            classes,
            priors,
            toward_accurate,
        } = build::sphere_with_priors::<T>(population, name)?;
        let settings = LpmeSettings {
            cycles,
            orthant: orthant(sphere.dim()),
            order: fields.order.unwrap_or(defaults.order),
            stop_early: fields.stop_early.unwrap_or(defaults.stop_early),
            ..defaults
        };
        Ok(SphereSpace {
            lpme: Lpme::new(sphere, settings),
            classes,
            priors: priors.map(|p| f64s(p.iter())),
            toward_accurate,
        })
    }

    /// The spec's metric as a unit vector of the sphere's dimension.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong length, a non-finite or an
    /// all-zero metric.
    pub fn unit_truth(&self, metric: &Value) -> Result<Linear<T>> {
        unit_truth(metric, self.lpme.sphere().dim())
    }

    /// The unit metric reported for an estimate: â, or, when an angle's
    /// search left its consistent interval wider than ε (a plateau: ties,
    /// "can't tell" answers), the metric at the centre of that interval
    /// (the other angles at their estimates) rather than the point at its
    /// edge where the search happened to stop. The result lists those
    /// angles under `undetermined` (their `plateau` warnings). The
    /// algorithm's own estimate (what the reproductions use) is unchanged.
    pub fn reported(&self, est: &LpmeEstimate<T>) -> DVector<T> {
        if !est.wide.iter().any(|w| *w) || est.theta.len() != est.wide.len() {
            return est.a.clone();
        }
        let theta: Vec<T> = est
            .theta
            .iter()
            .zip(&est.wide)
            .zip(&est.consistent)
            .map(|((t, wide), c)| {
                if *wide {
                    let (lo, hi) = c.bounds();
                    (lo + hi) / T::int(2)
                } else {
                    t.clone()
                }
            })
            .collect();
        unit_from_angles(&theta)
    }

    /// The report on a unit linear metric.
    pub fn report(&self, est: &LpmeEstimate<T>, truth: Option<&Linear<T>>) -> Report {
        let name = |i: usize| coordinate_name(self.classes, i);
        let angles: Vec<Value> = est
            .consistent
            .iter()
            .map(|c| {
                let (lo, hi) = c.bounds();
                json!([lo.to_f64_lossy(), hi.to_f64_lossy()])
            })
            .collect();
        let a = self.reported(est);
        let mut report = Report {
            elicited: lossy_list(a.iter()),
            elicited_exact: exact_list(a.iter()),
            words: linear_words(a.iter().enumerate().map(|(i, w)| (name(i), w))),
            consistent: json!({ "angles": angles }),
            warnings: est.warnings.clone(),
            ..Report::default()
        };
        report.details.insert(
            "sphere_radius".into(),
            json!(self.lpme.sphere().radius().to_f64_lossy()),
        );
        if let Some(t) = self.toward_accurate {
            report.details.insert("query_center_t".into(), json!(t));
        }
        report
            .details
            .insert("cycles_run".into(), json!(est.cycles));
        if let Some(Linear(t)) = truth {
            report.truth = Some(lossy_list(t.iter()));
            report.error = Some((t - &a).amax().to_f64_lossy());
        }
        report
    }

    /// A point in the task's words: correct per class and the k × k
    /// mistakes, when the coordinates are off-diagonal confusions.
    pub fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        sphere_panel(
            self.classes,
            self.priors.as_deref(),
            self.toward_accurate,
            point,
            names,
        )
    }

    /// The costs of the k × k mistakes in words (or the weights of the
    /// coordinates), and the angles the answers leave open.
    pub fn summary(&self, est: &LpmeEstimate<T>, names: &Names) -> Summary {
        let a: Vec<f64> = f64s(self.reported(est).iter());
        let undetermined = est
            .consistent
            .iter()
            .enumerate()
            .filter_map(|(j, c)| {
                let (lo, hi) = c.bounds();
                let (lo, hi) = (lo.to_f64_lossy(), hi.to_f64_lossy());
                if lo > hi {
                    Some(format!("Answers about angle {} contradict each other.", j + 1))
                } else if est.wide.get(j).copied().unwrap_or(false) {
                    Some(format!(
                        "Your answers leave angle {} of the metric anywhere in [{lo:.3}, {hi:.3}] rad; the sentence is the middle of it.",
                        j + 1
                    ))
                } else {
                    None
                }
            })
            .collect();
        Summary {
            undetermined,
            ..mistakes_summary(self.classes, &a, names)
        }
    }

    /// A point shown as a k×k matrix of mistakes, or as coordinates.
    pub fn view(&self, point: &DVector<T>) -> View {
        sphere_view(self.classes, point)
    }
}

/// The spec's metric as a unit vector of `dim` weights.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length, a non-finite or an
/// all-zero metric.
pub(crate) fn unit_truth<T: Scalar>(metric: &Value, dim: usize) -> Result<Linear<T>> {
    let v = DVector::from_vec(num_list_of::<T>(metric, "oracle.metric", dim)?);
    // Scaled to its largest weight first: the norm of weights near 1e300
    // overflows (the truth became 0) and of weights near 1e-320
    // underflows ("all weights are zero").
    let largest = v.amax();
    if largest <= T::int(0) {
        return Err(Error::invalid("oracle.metric", "all weights are zero"));
    }
    let v = v / largest;
    let norm = v.norm();
    Ok(Linear(v / norm))
}

/// A point of the sphere shown as a k×k matrix of mistakes (when its
/// coordinates are a k-class population's off-diagonal confusions), or as
/// coordinates.
pub(crate) fn sphere_view<T: Scalar>(classes: Option<usize>, point: &DVector<T>) -> View {
    match classes {
        Some(k) => view::off_diagonal(point, k, "mistakes, % of all cases"),
        None => view::coordinates(point),
    }
}

/// A point of the sphere in the task's words: correct per class and the
/// k × k mistakes, when the coordinates are off-diagonal confusions.
pub(crate) fn sphere_panel<T: Scalar>(
    classes: Option<usize>,
    priors: Option<&[f64]>,
    toward_accurate: Option<f64>,
    point: &DVector<T>,
    names: &Names,
) -> Option<Panel> {
    let k = classes?;
    let z: Vec<f64> = f64s(point.iter());
    let mut panel = panels::mistakes(names, k, &z, priors);
    // What the options are, for a sphere found in data (issue #30).
    if let Some(t) = toward_accurate {
        panel.context.push(if t > 0.0 {
            format!(
                "Both classifiers can be built from the data: variations on using its most accurate classifier for {:.0} % of {} (chosen at random) and guessing at random for the rest.",
                100.0 * t,
                names.cases
            )
        } else {
            "Both classifiers can be built from the data: variations on guessing at random.".into()
        });
    }
    Some(panel)
}

/// The name of the i-th coordinate in a result's formula: `C(i,j)` for
/// the off-diagonal confusions of k classes (row-major, the diagonal
/// skipped), else `x{i}`.
pub(crate) fn coordinate_name(classes: Option<usize>, i: usize) -> String {
    match classes {
        Some(k) => {
            let (row, col) = (i / (k - 1), i % (k - 1));
            let col = if col >= row { col + 1 } else { col };
            format!("C({},{})", row + 1, col + 1)
        }
        None => format!("x{}", i + 1),
    }
}

/// A unit linear metric of the sphere's coordinates in words (the
/// costliest mistake, the others relative to it) and, for k classes, the
/// k × k picture of its costs; nothing undetermined (the caller says).
pub(crate) fn mistakes_summary(classes: Option<usize>, a: &[f64], names: &Names) -> Summary {
    let name = |i: usize| match classes {
        Some(k) => {
            let (row, col) = (i / (k - 1), i % (k - 1));
            let col = if col >= row { col + 1 } else { col };
            format!("a {} case labelled {}", names.class(row), names.class(col))
        }
        None => format!("coordinate x{}", i + 1),
    };
    let mut order: Vec<usize> = (0..a.len()).collect();
    order.sort_by(|i, j| {
        a[*i]
            .partial_cmp(&a[*j])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let costs: Vec<usize> = order.iter().copied().filter(|i| a[*i] < 0.0).collect();
    let mut sentence = match costs.first() {
        Some(&worst) => {
            let rest: Vec<String> = costs[1..]
                .iter()
                .take(4)
                .map(|i| format!("{} {:.2} of it", name(*i), a[*i] / a[worst]))
                .collect();
            format!(
                "The costliest mistake for you is {}{}.",
                name(worst),
                if rest.is_empty() {
                    String::new()
                } else {
                    format!("; relative to it: {}", rest.join(", "))
                }
            )
        }
        None => "None of these mistakes costs you anything by your answers.".into(),
    };
    let gains: Vec<String> = order
        .iter()
        .rev()
        .filter(|i| a[**i] > 0.0)
        .map(|i| name(*i))
        .collect();
    if !gains.is_empty() && classes.is_some() {
        sentence.push_str(&format!(
                " Your answers favour more of: {} (a metric that rewards a mistake is unusual; check the answers).",
                gains.join(", ")
            ));
    }
    Summary {
        sentence,
        undetermined: Vec::new(),
        picture: classes.map(|k| {
            let mut it = a.iter();
            let cells: Vec<Vec<Option<f64>>> = (0..k)
                .map(|i| {
                    (0..k)
                        .map(|j| if i == j { None } else { it.next().copied() })
                        .collect()
                })
                .collect();
            json!({
                "kind": "costs",
                "labels": (0..k).map(|i| names.class(i)).collect::<Vec<_>>(),
                "weights": cells,
            })
        }),
    }
}

/// The [`Adapter`] items shared by the two adapters that are a
/// [`SphereSpace`] in a newtype (`lpm` and `lpme` differ only in the
/// orthant and in the truth's assumptions).
macro_rules! sphere_adapter_items {
    () => {
        type Fields = SphereFields;
        type Algorithm = Lpme<T>;
        type Truth = Linear<T>;
        const ERROR: &'static str = "max |a - a^| (both unit l2)";
        const SINGLE_OPTIMUM: bool = true;

        /// q = k² − k off-diagonal confusions for a k-class population.
        fn metric_length(classes: usize) -> Option<usize> {
            classes.checked_mul(classes).map(|q| q - classes)
        }

        /// Bisection: a linear metric along one angle is symmetric about
        /// its optimum, so one comparison per halving suffices (fewer
        /// queries than golden section at the same ε, and about half its
        /// error; README, `002-lpme-efficient`).
        fn default_strategy() -> Strategy {
            Strategy::Bisection
        }

        fn algorithm(&self) -> &Lpme<T> {
            &self.0.lpme
        }

        fn distance(&self, truth: &Linear<T>, point: &DVector<T>) -> Option<T> {
            self.0.lpme.distance(&truth.0, point)
        }

        fn report(&self, est: &LpmeEstimate<T>, truth: Option<&Linear<T>>) -> Report {
            self.0.report(est, truth)
        }

        fn view(&self, point: &DVector<T>) -> View {
            self.0.view(point)
        }

        fn shape(&self) -> Shape {
            Shape {
                classes: self.0.classes,
                ..Shape::default()
            }
        }

        fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
            self.0.panel(point, names)
        }

        fn elicited_metric(&self, est: &LpmeEstimate<T>) -> Option<Linear<T>> {
            Some(Linear(self.0.reported(est)))
        }

        fn summary(&self, est: &LpmeEstimate<T>, names: &Names) -> Option<Summary> {
            Some(self.0.summary(est, names))
        }
    };
}

/// `lpme`: 001 App. A Alg. 2 over any sphere, any signs.
pub struct LpmeAdapter<T: Scalar>(SphereSpace<T>);

impl<T: Scalar> Adapter<T> for LpmeAdapter<T> {
    sphere_adapter_items!();

    fn new(fields: SphereFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        Ok(LpmeAdapter(SphereSpace::new(
            fields,
            search,
            population,
            "lpme",
            |_| Orthant::Detect,
        )?))
    }

    fn truth(&self, metric: &Value) -> Result<Linear<T>> {
        self.0.unit_truth(metric)
    }
}

/// `lpme`.
pub struct LpmeFamily;
impl Family for LpmeFamily {
    const NAME: &'static str = "lpme";
    const SUMMARY: &'static str =
        "any linear metric over a sphere, orthant found by queries (001 App. A, Alg. 2)";
    type At<T: Scalar> = LpmeAdapter<T>;
    /// A [`Linear`] on the off-diagonal statistic ([`rank_sphere`]).
    const RANK: Rankability = Rankability::Reads(rank_sphere);
}

/// `lpm`: 002 Alg. 2, a monotonically decreasing linear metric of the
/// off-diagonal confusions over a sphere S_λ (the orthant is known).
pub struct LpmAdapter<T: Scalar>(SphereSpace<T>);

impl<T: Scalar> Adapter<T> for LpmAdapter<T> {
    sphere_adapter_items!();

    fn new(fields: SphereFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        Ok(LpmAdapter(SphereSpace::new(
            fields,
            search,
            population,
            "lpm",
            |q| Orthant::Known(vec![Sign::Negative; q]),
        )?))
    }

    fn truth(&self, metric: &Value) -> Result<Linear<T>> {
        let v = self.0.unit_truth(metric)?;
        if let Some(i) = v.0.iter().position(|x| *x > T::int(0)) {
            return Err(Error::Assumption {
                assumption: "002 §2.2 (LPM monotonically decreasing: weights <= 0)".into(),
                detail: format!("oracle.metric[{i}] is positive; use procedure lpme for any signs"),
            });
        }
        Ok(v)
    }
}

/// `lpm`.
pub struct LpmFamily;
impl Family for LpmFamily {
    const NAME: &'static str = "lpm";
    const SUMMARY: &'static str =
        "a monotonically decreasing linear metric of off-diagonal confusions over a sphere (002 Alg. 2)";
    type At<T: Scalar> = LpmAdapter<T>;
    /// A [`Linear`] on the off-diagonal statistic ([`rank_sphere`]).
    const RANK: Rankability = Rankability::Reads(rank_sphere);
}

/// The sphere procedures' result (k² − k weights) as a [`Linear`] on the
/// off-diagonal joint confusions P(Y = i, h = j) (the coordinates of
/// `run`'s sphere on a population), or on the rates P(h = j | Y = i) when
/// the file says `"statistic": "rates"` (001's LPME).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field, or `statistic` for a value
/// other than `joint` or `rates`.
pub fn rank_sphere(p: &Parameters<'_>) -> Result<RankMetric> {
    let statistic = match p.key("statistic")? {
        None | Some("joint") => Statistic::JointOffDiagonal,
        Some("rates") => Statistic::RatesOffDiagonal,
        Some(other) => {
            return Err(Error::invalid(
                "statistic",
                format!("{other:?} is not joint or rates"),
            ))
        }
    };
    linear_on(p, statistic)
}
