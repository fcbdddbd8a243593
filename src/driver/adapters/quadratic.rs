//! The 000 procedures' adapters: `qpme` ([`Qpme`], Alg. 1), `fair-qpme`
//! ([`FairQpme`], Alg. 4), `qpme-tradeoff` ([`QpmeTradeoff`], Alg. 5) and
//! `cubic` ([`Cubic`], §8).
//!
//! Spec settings (top-level fields, all optional):
//! * `estimator = "fit" | "paper"` (qpme, fair-qpme; qpme-tradeoff:
//!   "fit" queries the model's exact optimum on the small sphere, "paper"
//!   the paper's centre slope);
//! * `small_radius` (ϱ, default ρ/40: 5·10⁻³ at the paper's ρ = 0.2);
//! * `rates = "diagonal" | "general"` (how a rate vector is shown; for the
//!   fair procedures also what the groups' vectors hold: default
//!   "diagonal", 000 Def. 4);
//! * `cycles` and `order` of every LPME (default one reverse-order cycle,
//!   the efficient setting; the paper's is `cycles = 3`, `order = "paper"`,
//!   `search = "adaptive"`, `estimator = "paper"`);
//! * qpme-tradeoff: the known `a` and `B` (required);
//! * cubic: `design = "minimal" | "nested"`.
//!
//! The oracle's `metric` is a table: `a` (q values) and `B` (q rows of q
//! values); fair: `a`, `B` (C(m, 2) matrices, pairs (1,2), (1,3), …) and
//! `lambda`; cubic adds `C` (q × q × q, symmetric). The report's
//! `elicited` has the same keys.

use crate::driver::adapter::{f64s, Adapter, Family, Report, View};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{percent, Names, Panel, Shape, Summary};
use crate::driver::rank::{
    ClassifierStatistics, Metric as RankMetric, On, Parameters, PoolStatistics, Rankability,
    Rankable, Statistic,
};
use crate::driver::spec::{num, num_list_of, num_matrix, Num, PopulationSpec};
use crate::driver::view;
use crate::elicit::cubic::{centres, Cubic, CubicDesign, CubicEstimate, CubicSettings};
use crate::elicit::fair_qpme::{
    tradeoff_sphere, FairEstimate, FairQpme, FairSettings, Known, QpmeTradeoff, RestrictedFair,
    TradeoffEstimate,
};
use crate::elicit::lpme::{AngleOrder, LpmeSettings, Orthant};
use crate::elicit::qpme::{
    check_metric, exact_maximiser, nearest_optimum, Centre, Design, Estimator, Qpme, QpmeEstimate,
    QpmeSettings,
};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, GroupRates, Groups, Rates};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{CubicMetric, FairQuadraticMetric, QuadraticMetric};
use crate::oracle::Metric;
use crate::scalar::Scalar;
use crate::search::Consistent;
use nalgebra::{DMatrix, DVector};
use serde::Deserialize;
use serde_json::{json, Map, Value};

// ---- shared helpers ---------------------------------------------------------

fn f(x: &impl Scalar) -> f64 {
    x.to_f64_lossy()
}

fn vec_json<T: Scalar>(v: &DVector<T>) -> Value {
    Value::from(v.iter().map(f).collect::<Vec<f64>>())
}

fn vec_exact<T: Scalar>(v: &DVector<T>) -> Value {
    Value::from(v.iter().map(|x| x.encode()).collect::<Vec<String>>())
}

fn mat_json<T: Scalar>(m: &DMatrix<T>) -> Value {
    Value::from(
        (0..m.nrows())
            .map(|i| Value::from((0..m.ncols()).map(|j| f(&m[(i, j)])).collect::<Vec<f64>>()))
            .collect::<Vec<Value>>(),
    )
}

fn mat_exact<T: Scalar>(m: &DMatrix<T>) -> Value {
    Value::from(
        (0..m.nrows())
            .map(|i| {
                Value::from(
                    (0..m.ncols())
                        .map(|j| m[(i, j)].encode())
                        .collect::<Vec<String>>(),
                )
            })
            .collect::<Vec<Value>>(),
    )
}

fn tensor_json<T: Scalar>(q: usize, c: &[T], exact: bool) -> Value {
    Value::from(
        (0..q)
            .map(|i| {
                Value::from(
                    (0..q)
                        .map(|j| {
                            let row = &c[(i * q + j) * q..(i * q + j + 1) * q];
                            if exact {
                                Value::from(row.iter().map(|x| x.encode()).collect::<Vec<String>>())
                            } else {
                                Value::from(row.iter().map(f).collect::<Vec<f64>>())
                            }
                        })
                        .collect::<Vec<Value>>(),
                )
            })
            .collect::<Vec<Value>>(),
    )
}

fn field<'a>(metric: &'a Value, name: &str) -> Result<&'a Value> {
    metric
        .get(name)
        .ok_or_else(|| Error::invalid(format!("oracle.metric.{name}"), "missing"))
}

fn read_vector<T: Scalar>(value: &Value, name: &str, q: usize) -> Result<DVector<T>> {
    Ok(DVector::from_vec(num_list_of(value, name, q)?))
}

fn read_matrix<T: Scalar>(value: &Value, name: &str, q: usize) -> Result<DMatrix<T>> {
    let rows = num_matrix::<T>(value, name, q, q)?;
    Ok(DMatrix::from_fn(q, q, |i, j| rows[i][j].clone()))
}

fn read_matrices<T: Scalar>(
    value: &Value,
    name: &str,
    count: usize,
    q: usize,
) -> Result<Vec<DMatrix<T>>> {
    let items = value
        .as_array()
        .ok_or_else(|| Error::invalid(name, format!("expected a list of {count} matrices")))?;
    if items.len() != count {
        return Err(Error::invalid(
            name,
            format!("expected C(m, 2) = {count} matrices, got {}", items.len()),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(p, m)| read_matrix(m, &format!("{name}[{p}]"), q))
        .collect()
}

/// The LPME settings of a spec: the shared search, `cycles` (default 1) and
/// `order` (default reverse).
fn lpme_settings<T: Scalar>(
    search: &Search<T>,
    cycles: Option<usize>,
    order: Option<AngleOrder>,
) -> Result<LpmeSettings<T>> {
    let cycles = cycles.unwrap_or(1);
    if cycles == 0 {
        return Err(Error::invalid("cycles", "must be at least 1"));
    }
    Ok(LpmeSettings {
        eps: search.eps.clone(),
        strategy: search.strategy,
        cycles,
        orthant: Orthant::DetectAndCheck,
        order: order.unwrap_or(AngleOrder::Reverse),
        stop_early: false,
    })
}

fn small_radius<T: Scalar>(given: &Option<Num>, rho: &T) -> Result<T> {
    match given {
        Some(n) => n.to_scalar("small_radius"),
        None => Ok(rho.clone() / T::int(40)),
    }
}

fn consistent_json<T: Scalar>(c: &[Consistent<T>]) -> Value {
    Value::from(
        c.iter()
            .map(|c| match c {
                Consistent::Interval { lo, hi } => json!({ "lo": f(lo), "hi": f(hi) }),
                Consistent::Contradictory { above, below } => {
                    json!({ "contradictory": true, "above": f(above), "below": f(below) })
                }
            })
            .collect::<Vec<Value>>(),
    )
}

fn qpme_details<T: Scalar>(est: &QpmeEstimate<T>, details: &mut Map<String, Value>) {
    details.insert("estimator".into(), est.estimator.name().into());
    if let Some(g) = &est.gap {
        details.insert("singular_value_gap".into(), f(g).into());
    }
    if let Some((s0, s1)) = &est.singular {
        details.insert("singular_values".into(), json!([f(s0), f(s1)]));
    }
    details.insert(
        "eigenvalues_of_B".into(),
        Value::from(est.eigenvalues.iter().map(f).collect::<Vec<f64>>()),
    );
    details.insert(
        "lpmes".into(),
        Value::from(
            est.observations
                .iter()
                .map(|o| {
                    json!({
                        "centre": o.centre.label(),
                        "queries": o.queries,
                        "direction": vec_json(&o.unit),
                    })
                })
                .collect::<Vec<Value>>(),
        ),
    );
}

fn words_quadratic<T: Scalar>(a: &DVector<T>, b: &DMatrix<T>) -> String {
    let lin: Vec<String> = a
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{:+.4}·r{}", f(v), i + 1))
        .collect();
    let mut quad = Vec::new();
    for i in 0..b.nrows() {
        for j in i..b.ncols() {
            let c = if i == j {
                f(&b[(i, j)]) / 2.0
            } else {
                f(&b[(i, j)])
            };
            quad.push(format!("{c:+.4}·r{}·r{}", i + 1, j + 1));
        }
    }
    format!("phi(r) = {} {}", lin.join(" "), quad.join(" "))
}

/// A quadratic metric's truth from the oracle's `metric` table (`a`: q
/// values, `B`: q rows of q), normalized as 000 Def. 3.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.metric.a` or
/// `oracle.metric.B`.
pub fn quadratic_truth<T: Scalar>(metric: &Value, q: usize) -> Result<QuadraticMetric<T>> {
    let a = read_vector(field(metric, "a")?, "oracle.metric.a", q)?;
    let b = read_matrix(field(metric, "B")?, "oracle.metric.B", q)?;
    QuadraticMetric::new(a, b)
}

/// What every quadratic result reports of its metric (a, B): `elicited`
/// (`{"a", "B"}`), its lossless twin, the formula, and against a truth
/// `truth` and the error max(‖a − â‖₂, ‖B − B̂‖_F).
pub fn quadratic_report<T: Scalar>(
    a: &DVector<T>,
    b: &DMatrix<T>,
    truth: Option<&QuadraticMetric<T>>,
) -> Report {
    Report {
        elicited: json!({ "a": vec_json(a), "B": mat_json(b) }),
        elicited_exact: json!({ "a": vec_exact(a), "B": mat_exact(b) }),
        words: words_quadratic(a, b),
        truth: truth.map(|t| json!({ "a": vec_json(t.a()), "B": mat_json(t.b()) })),
        error: truth.map(|t| {
            let (ea, eb) = t.errors(a, b);
            f(&ea).max(f(&eb))
        }),
        ..Report::default()
    }
}

/// What every fair quadratic result reports of its metric (a, B^uv, λ):
/// `elicited` (`{"a", "B", "lambda"}`), its lossless twin, the formula,
/// and against a truth `truth` and the error
/// max(‖a − â‖₂, Σ‖B^uv − B̂^uv‖_F, |λ − λ̂|).
pub fn fair_qpme_report<T: Scalar>(
    groups: &Groups<T>,
    a: &DVector<T>,
    b: &[DMatrix<T>],
    lambda: &T,
    truth: Option<&FairQuadraticMetric<T>>,
) -> Report {
    let pair_names: Vec<String> = pairs(groups.groups())
        .into_iter()
        .map(|(u, v)| format!("B^({},{})", u + 1, v + 1))
        .collect();
    Report {
        elicited: fair_json(a, b, lambda, false),
        elicited_exact: fair_json(a, b, lambda, true),
        words: format!(
            "cost = (1 - {:.4})·<a, {}> + {:.4}/2·sum (r^u - r^v)' B^uv (r^u - r^v), a = {:?}, pairs {}",
            f(lambda),
            if groups.rates() == Rates::Diagonal { "1 - r" } else { "r" },
            f(lambda),
            a.iter().map(|x| (f(x) * 1e4).round() / 1e4).collect::<Vec<f64>>(),
            pair_names.join(", ")
        ),
        truth: truth.map(|t| fair_json(t.a(), t.b(), t.lambda(), false)),
        error: truth.map(|t| {
            let (ea, eb, el) = t.errors(a, b, lambda);
            f(&ea).max(f(&eb)).max(f(&el))
        }),
        ..Report::default()
    }
}

/// A fair quadratic metric in a sentence: how much mistakes and
/// unfairness weigh (λ), and the costliest mistake (the largest entry of
/// a, a cost on the errors 1 − r in diagonal rates or on r in general
/// ones), in the task's words.
pub fn fair_qpme_sentence<T: Scalar>(
    groups: &Groups<T>,
    names: &Names,
    a: &DVector<T>,
    lambda: &T,
) -> String {
    let errors: Vec<f64> = f64s(a);
    let labels: Vec<String> = match groups.rates() {
        Rates::Diagonal => (0..errors.len())
            .map(|i| format!("a mistake on a {} case", names.class(i)))
            .collect(),
        Rates::General => (0..errors.len())
            .map(|i| {
                super::fair::mistake_name(names, rate_classes(errors.len(), Rates::General), i)
            })
            .collect(),
    };
    let worst = (0..errors.len())
        .max_by(|i, j| {
            errors[*i]
                .partial_cmp(&errors[*j])
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    format!(
        "{} The costliest mistake is {}.",
        tradeoff_sentence(f(lambda)),
        labels.get(worst).map_or("none", String::as_str)
    )
}

/// A cubic metric's truth from the oracle's `metric` table (`a`: q
/// values, `B`: q rows of q, `C`: q matrices q × q), normalized as
/// [`CubicMetric::new`].
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field of `oracle.metric`.
pub fn cubic_truth<T: Scalar>(metric: &Value, q: usize) -> Result<CubicMetric<T>> {
    let a = read_vector(field(metric, "a")?, "oracle.metric.a", q)?;
    let b = read_matrix(field(metric, "B")?, "oracle.metric.B", q)?;
    let c_value = field(metric, "C")?;
    let slices = c_value
        .as_array()
        .ok_or_else(|| Error::invalid("oracle.metric.C", "expected q matrices of q x q"))?;
    if slices.len() != q {
        return Err(Error::invalid(
            "oracle.metric.C",
            format!("expected {q} matrices, got {}", slices.len()),
        ));
    }
    let mut c = Vec::with_capacity(q * q * q);
    for (i, s) in slices.iter().enumerate() {
        let rows = num_matrix::<T>(s, &format!("oracle.metric.C[{i}]"), q, q)?;
        for row in rows {
            c.extend(row);
        }
    }
    CubicMetric::new(a, b, c)
}

/// What every cubic result reports of its metric (a, B, C): `elicited`
/// (`{"a", "B", "C"}`), its lossless twin, the formula, and against a
/// truth `truth` and the error max(‖a − â‖₂, ‖B − B̂‖_F, ‖C − Ĉ‖).
pub fn cubic_report<T: Scalar>(
    a: &DVector<T>,
    b: &DMatrix<T>,
    c: &[T],
    truth: Option<&CubicMetric<T>>,
) -> Report {
    let q = a.len();
    Report {
        elicited: json!({ "a": vec_json(a), "B": mat_json(b), "C": tensor_json(q, c, false) }),
        elicited_exact: json!({ "a": vec_exact(a), "B": mat_exact(b), "C": tensor_json(q, c, true) }),
        words: format!("{} + cubic terms (see C)", words_quadratic(a, b)),
        truth: truth.map(|t| json!({ "a": vec_json(t.a()), "B": mat_json(t.b()), "C": tensor_json(q, t.c(), false) })),
        error: truth.map(|t| {
            let (ea, eb, ec) = t.errors(a, b, c);
            f(&ea).max(f(&eb)).max(f(&ec))
        }),
        ..Report::default()
    }
}

/// A cubic metric (a, B, C) in a sentence: its trade-off at `centre` (the
/// gradient a + B·c + ½C(c, c, ·)), in the task's words.
pub fn cubic_sentence<T: Scalar>(
    names: &Names,
    rates: Rates,
    centre: &DVector<T>,
    a: &DVector<T>,
    b: &DMatrix<T>,
    c: &[T],
) -> String {
    let q = centre.len();
    let mut g = a + b * centre;
    for i in 0..q {
        let mut extra = T::int(0);
        for j in 0..q {
            for l in 0..q {
                extra += c[(i * q + j) * q + l].clone() * centre[j].clone() * centre[l].clone();
            }
        }
        g[i] += extra / T::int(2);
    }
    gradient_sentence(names, rates, &f64s(&g))
}

// ---- person-facing helpers --------------------------------------------------

/// The classes a rate vector of q entries shows.
fn rate_classes(q: usize, rates: Rates) -> usize {
    match rates {
        Rates::Diagonal => q,
        Rates::General => view::classes_of(q).unwrap_or(q),
    }
}

/// Names of the q rates, in the task's words.
fn rate_names(names: &Names, q: usize, rates: Rates) -> Vec<String> {
    match rates {
        Rates::Diagonal => (0..q)
            .map(|i| format!("a correctly labelled {} case", names.class(i)))
            .collect(),
        Rates::General => {
            let k = rate_classes(q, rates);
            (0..q)
                .map(|idx| format!("one fewer {}", super::fair::mistake_name(names, k, idx)))
                .collect()
        }
    }
}

/// The shape of a page showing q rates as `rates` says.
pub fn rates_shape(q: usize, rates: Rates) -> Shape {
    Shape {
        classes: Some(rate_classes(q, rates)),
        ..Shape::default()
    }
}

/// A quadratic metric (a, B) in a sentence: its trade-off at `centre`
/// (the gradient a + B·centre), in the task's words.
pub fn quadratic_sentence<T: Scalar>(
    names: &Names,
    rates: Rates,
    a: &DVector<T>,
    b: &DMatrix<T>,
    centre: &DVector<T>,
) -> String {
    gradient_sentence(names, rates, &f64s(&(a + b * centre)))
}

/// A rate vector (or one per group) in the task's words.
pub fn rates_panel(names: &Names, rates: Rates, groups: &[Vec<f64>]) -> Panel {
    let q = groups.first().map_or(0, Vec::len);
    panels::rates(
        names,
        rate_classes(q, rates),
        rates == Rates::Diagonal,
        groups,
    )
}

/// A smooth metric's local trade-off: its gradient at the centre of the
/// classifiers shown, in words (general rates are mistakes: their gradient
/// is negated so that "worth" reads as "fewer").
fn gradient_sentence(names: &Names, rates: Rates, gradient: &[f64]) -> String {
    let q = gradient.len();
    let labels = rate_names(names, q, rates);
    let worth: Vec<f64> = match rates {
        Rates::Diagonal => gradient.to_vec(),
        Rates::General => gradient.iter().map(|g| -g).collect(),
    };
    let mut order: Vec<usize> = (0..q).collect();
    order.sort_by(|i, j| {
        worth[*j]
            .partial_cmp(&worth[*i])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let top = order[0];
    if worth[top] <= 0.0 {
        return "Near the middle of the classifiers shown, your answers value none of these rates (the elicited metric decreases in all of them).".into();
    }
    let rest: Vec<String> = order[1..]
        .iter()
        .take(4)
        .map(|i| {
            if worth[*i] > 0.0 {
                format!(
                    "{} is worth {:.2} of it",
                    labels[*i],
                    worth[*i] / worth[top]
                )
            } else {
                format!("{} is worth nothing to you", labels[*i])
            }
        })
        .collect();
    format!(
        "Near the middle of the classifiers shown, {} is worth most to you{}{}. The metric is curved, so these weights change away from the middle.",
        labels[top],
        if rest.is_empty() { "" } else { "; " },
        rest.join(", ")
    )
}

/// Each group's rates, as numbers for a panel.
pub fn group_rates<T: Scalar>(point: &GroupRates<T>) -> Vec<Vec<f64>> {
    (0..point.groups())
        .map(|g| point.group(g).iter().map(f).collect())
        .collect()
}

/// The shape of a page showing the groups' rates.
pub fn groups_shape<T: Scalar>(groups: &Groups<T>) -> Shape {
    Shape {
        classes: Some(rate_classes(groups.dim(), groups.rates())),
        groups: Some(groups.groups()),
        binary: false,
    }
}

/// λ in words, with the costliest part of a.
fn tradeoff_sentence(lambda: f64) -> String {
    format!(
        "Mistakes weigh {} and unfairness (differences between the groups' rates) {} in your choices.",
        percent(1.0 - lambda),
        percent(lambda)
    )
}

// ---- qpme -------------------------------------------------------------------

/// The spec's own fields of `qpme`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpmeFields {
    /// `fit` (default) or `paper`.
    #[serde(default)]
    pub estimator: Option<Estimator>,
    /// ϱ.
    #[serde(default)]
    pub small_radius: Option<Num>,
    /// How rates are shown (default diagonal).
    #[serde(default)]
    pub rates: Option<Rates>,
    /// LPME cycles (default 1).
    #[serde(default)]
    pub cycles: Option<usize>,
    /// LPME angle order (default reverse).
    #[serde(default)]
    pub order: Option<AngleOrder>,
    /// Half-width (rad) of the windows about the first LPME's angles in
    /// which the others search ([`QpmeSettings::window`]); default 0.2, 0
    /// for the paper's independent LPMEs.
    #[serde(default)]
    pub window: Option<Num>,
}

/// The QPME LPMEs' window (see [`QpmeFields::window`]): `None` for 0,
/// `default` when not given.
fn window<T: Scalar>(given: &Option<Num>, default: Option<T>) -> Result<Option<T>> {
    let w = match given {
        Some(n) => n.to_scalar::<T>("window")?,
        None => return Ok(default),
    };
    if w < T::int(0) {
        return Err(Error::invalid(
            "window",
            format!("must be 0 (off) or a positive half-width in rad, got {w}"),
        ));
    }
    Ok((w > T::int(0)).then_some(w))
}

/// `qpme`: QPME (000 Alg. 1; general rates App. E) on a `sphere`
/// population: q + 2 LPMEs on small spheres inside it, then the joint fit
/// (or the corrected closed form of App. C, eq. 18). The error is
/// max(‖a − â‖₂, ‖B − B̂‖_F); `rates` says how a query's rates are shown.
pub struct QpmeAdapter<T: Scalar> {
    qpme: Qpme<T>,
    rates: Rates,
}

impl<T: Scalar> Adapter<T> for QpmeAdapter<T> {
    type Fields = QpmeFields;
    type Algorithm = Qpme<T>;
    type Truth = QuadraticMetric<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;

    fn new(settings: QpmeFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let sphere = build::sphere_population::<T>(population, "qpme")?;
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        view::rate_labels(sphere.dim(), rates)?;
        let small = small_radius(&settings.small_radius, sphere.radius())?;
        let lpme = lpme_settings(&search, settings.cycles, settings.order)?;
        let design = Design::new(sphere, small.clone())?;
        let settings = QpmeSettings {
            lpme,
            small_radius: small,
            estimator: settings.estimator.unwrap_or_default(),
            window: window(&settings.window, Some(T::ratio(1, 5)))?,
        };
        Ok(QpmeAdapter {
            qpme: Qpme::new(design, settings),
            rates,
        })
    }

    fn algorithm(&self) -> &Qpme<T> {
        &self.qpme
    }

    fn truth(&self, metric: &Value) -> Result<QuadraticMetric<T>> {
        let design = self.qpme.design();
        let m = quadratic_truth(metric, design.dim())?;
        check_metric(&m, design, self.qpme.settings().estimator)?;
        Ok(m)
    }

    fn distance(&self, truth: &QuadraticMetric<T>, point: &DVector<T>) -> Option<T> {
        let design = self.qpme.design();
        nearest_optimum(truth, &self.qpme.centres(), design.small_radius(), point)
    }

    fn report(&self, est: &QpmeEstimate<T>, truth: Option<&QuadraticMetric<T>>) -> Report {
        let mut details = Map::new();
        qpme_details(est, &mut details);
        details.insert("queries".into(), est.queries.into());
        Report {
            consistent: Value::from(
                est.observations
                    .iter()
                    .map(|o| json!({ "centre": o.centre.label(), "angles": consistent_json(&o.consistent) }))
                    .collect::<Vec<Value>>(),
            ),
            warnings: est.warnings.clone(),
            details,
            ..quadratic_report(&est.a, &est.b, truth)
        }
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::rates(point, self.rates)
    }

    fn shape(&self) -> Shape {
        rates_shape(self.qpme.design().dim(), self.rates)
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(names, self.rates, &[f64s(point.iter())]))
    }

    fn elicited_metric(&self, est: &QpmeEstimate<T>) -> Option<QuadraticMetric<T>> {
        QuadraticMetric::new(est.a.clone(), est.b.clone()).ok()
    }

    fn summary(&self, est: &QpmeEstimate<T>, names: &Names) -> Option<Summary> {
        let c = self.qpme.design().sphere().center();
        Some(Summary {
            sentence: quadratic_sentence(names, self.rates, &est.a, &est.b, c),
            undetermined: Vec::new(),
            picture: None,
        })
    }
}

/// `procedure = "qpme"`.
#[derive(Debug, Clone, Copy)]
pub struct QpmeFamily;

impl Family for QpmeFamily {
    const NAME: &'static str = "qpme";
    const SUMMARY: &'static str =
        "quadratic metric a.r + r'Br/2 over a sphere of rates (000 Alg. 1, App. E)";
    type At<T: Scalar> = QpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_qpme);
}

// ---- fair-qpme --------------------------------------------------------------

/// The spec's own fields of `fair-qpme`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairQpmeFields {
    /// `fit` (default) or `paper`.
    #[serde(default)]
    pub estimator: Option<Estimator>,
    /// ϱ.
    #[serde(default)]
    pub small_radius: Option<Num>,
    /// `diagonal` (default, Def. 4) or `general`.
    #[serde(default)]
    pub rates: Option<Rates>,
    /// LPME cycles (default 1).
    #[serde(default)]
    pub cycles: Option<usize>,
    /// LPME angle order (default reverse).
    #[serde(default)]
    pub order: Option<AngleOrder>,
    /// As for qpme: the windows of each QPME's LPMEs after its first;
    /// default 0 (off, as in the paper: see [`FairQpmeAdapter`]).
    #[serde(default)]
    pub window: Option<Num>,
}

/// The hidden fair quadratic metric of a simulated oracle with its groups:
/// the utility −cost by [`FairQuadraticMetric::cost`], the evaluation the
/// spec driver has always used ([`crate::metric::quadratic::BoundFairQuadratic`]
/// evaluates the same cost faster, rounding in another order, which would
/// move spec results in their last bits).
#[derive(Debug, Clone)]
pub struct FairQuadraticTruth<T: Scalar> {
    /// The metric.
    pub metric: FairQuadraticMetric<T>,
    /// Its groups.
    pub groups: Groups<T>,
}

impl<T: Scalar> Metric<GroupRates<T>> for FairQuadraticTruth<T> {
    type Value = T;
    fn value(&self, point: &GroupRates<T>) -> T {
        -self.metric.cost(point, &self.groups)
    }
}

/// A fair quadratic metric's truth from the oracle's `metric` table (`a`:
/// q values, `B`: C(m, 2) matrices q × q, `lambda`), normalized as 000
/// Def. 4 and checked against the groups.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field of `oracle.metric`.
pub fn fair_truth<T: Scalar>(metric: &Value, groups: &Groups<T>) -> Result<FairQuadraticMetric<T>> {
    let (q, m) = (groups.dim(), groups.groups());
    let a = read_vector(field(metric, "a")?, "oracle.metric.a", q)?;
    let b = read_matrices(field(metric, "B")?, "oracle.metric.B", m * (m - 1) / 2, q)?;
    let lambda: T = num(field(metric, "lambda")?, "oracle.metric.lambda")?;
    let t = FairQuadraticMetric::new(a, b, lambda, groups.rates())?;
    t.check_groups(groups)?;
    Ok(t)
}

fn fair_json<T: Scalar>(a: &DVector<T>, b: &[DMatrix<T>], lambda: &T, exact: bool) -> Value {
    if exact {
        json!({
            "a": vec_exact(a),
            "B": Value::from(b.iter().map(mat_exact).collect::<Vec<Value>>()),
            "lambda": lambda.encode(),
        })
    } else {
        json!({
            "a": vec_json(a),
            "B": Value::from(b.iter().map(mat_json).collect::<Vec<Value>>()),
            "lambda": f(lambda),
        })
    }
}

/// The distance of a fair query from the optimum of the sphere it lies on,
/// in the coordinates s of the moving groups.
fn fair_distance<T: Scalar>(
    truth: &FairQuadraticMetric<T>,
    groups: &Groups<T>,
    spheres: &[Sphere<T>],
    point: &GroupRates<T>,
) -> Option<T> {
    let o = groups.centre();
    let moving: Vec<usize> = (0..groups.groups())
        .filter(|g| point.group(*g) != o.rows(0, o.len()))
        .collect();
    let s = point.group(*moving.first()?).into_owned();
    let field = RestrictedFair::new(truth, groups, &moving);
    let sphere = spheres.iter().min_by(|x, y| {
        ((x.center() - &s).norm() - x.radius().clone())
            .abs()
            .partial_cmp(&((y.center() - &s).norm() - y.radius().clone()).abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    })?;
    let u = exact_maximiser(&field, sphere).ok()?;
    Some((sphere.point(&u).ok()? - s).norm())
}

fn fair_spheres<T: Scalar>(groups: &Groups<T>, design: &Design<T>) -> Vec<Sphere<T>> {
    let mut out = vec![groups.sphere().clone()];
    let q = design.dim();
    let mut cs = vec![Centre::Origin];
    for j in 0..q {
        cs.push(Centre::Plus(j));
        cs.push(Centre::Minus(j));
    }
    out.extend(cs.into_iter().filter_map(|c| design.small_sphere(c).ok()));
    out
}

/// `fair-qpme`: fair QPME (000 §4.3, App. D Alg. 4; notes F1–F8) on a
/// `groups` population: one LPME for â, one QPME per σ ∈ M, Ξ⁻¹ and the
/// normalization for λ. The error is
/// max(‖a − â‖₂, Σ‖B^{uv} − B̂^{uv}‖_F, |λ − λ̂|).
pub struct FairQpmeAdapter<T: Scalar>(FairQpme<T>);

impl<T: Scalar> Adapter<T> for FairQpmeAdapter<T> {
    type Fields = FairQpmeFields;
    type Algorithm = FairQpme<T>;
    type Truth = FairQuadraticTruth<T>;
    const ERROR: &'static str = "max(||a - a^||_2, sum ||B^uv - B^^uv||_F, |lambda - lambda^|)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;

    fn new(
        settings: FairQpmeFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        let groups = build::groups_with(population, "fair-qpme", rates)?;
        let small: T = small_radius(&settings.small_radius, groups.radius())?;
        // The small spheres must fit before the other fields are read.
        Design::new(groups.sphere().clone(), small.clone())?;
        let lpme = lpme_settings(&search, settings.cycles, settings.order)?;
        let fair = FairSettings {
            qpme: QpmeSettings {
                lpme,
                small_radius: small,
                estimator: settings.estimator.unwrap_or_default(),
                // Off by default: at o every group is at the same point, so
                // the violation terms add nothing to the first gradient and
                // the others turn far from it (windows of 0.2 rad cost 41 %
                // more queries at m = 2, k = 2; 4 % fewer at m = k = 3).
                window: window(&settings.window, None)?,
            },
            origin_from_a: settings.estimator.unwrap_or_default() == Estimator::Fit,
        };
        Ok(FairQpmeAdapter(FairQpme::new(groups, fair)?))
    }

    fn algorithm(&self) -> &FairQpme<T> {
        &self.0
    }

    fn truth(&self, metric: &Value) -> Result<FairQuadraticTruth<T>> {
        let groups = self.0.groups();
        let t = fair_truth(metric, groups)?;
        if !(t.lambda().clone() > T::int(0) && t.lambda().clone() < T::int(1)) {
            return Err(Error::Assumption {
                assumption: "000 Alg. 4: 0 < lambda < 1".into(),
                detail: format!(
                    "lambda = {}: at 0 the violation weights, at 1 the costs a are unidentifiable",
                    f(t.lambda())
                ),
            });
        }
        let all: Vec<usize> = (0..groups.groups()).collect();
        let parts = crate::geometry::groups::Partitions::<T>::new(groups.groups())?;
        for sigma in std::iter::once(&all).chain(parts.sets()) {
            let field = RestrictedFair::new(&t, groups, sigma);
            crate::elicit::qpme::check_field(&field, self.0.design())?;
        }
        Ok(FairQuadraticTruth {
            metric: t,
            groups: groups.clone(),
        })
    }

    fn distance(&self, truth: &FairQuadraticTruth<T>, point: &GroupRates<T>) -> Option<T> {
        let groups = self.0.groups();
        fair_distance(
            &truth.metric,
            groups,
            &fair_spheres(groups, self.0.design()),
            point,
        )
    }

    fn report(&self, est: &FairEstimate<T>, truth: Option<&FairQuadraticTruth<T>>) -> Report {
        let truth = truth.map(|t| &t.metric);
        let groups = self.0.groups();
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
        crate::driver::adapters::fair::group_details(groups, &mut details);
        details.insert("nu".into(), f(&est.nu).into());
        details.insert(
            "lowest_eigenvalues".into(),
            Value::from(est.lowest_eigenvalues.iter().map(f).collect::<Vec<f64>>()),
        );
        details.insert(
            "partitions".into(),
            Value::from(
                crate::geometry::groups::Partitions::<T>::new(groups.groups())
                    .map(|p| {
                        p.sets()
                            .iter()
                            .map(|s| Value::from(s.iter().map(|g| g + 1).collect::<Vec<usize>>()))
                            .collect::<Vec<Value>>()
                    })
                    .unwrap_or_default(),
            ),
        );
        details.insert(
            "qpme_gaps".into(),
            Value::from(
                est.parts
                    .iter()
                    .map(|p| p.gap.as_ref().map(f))
                    .collect::<Vec<Option<f64>>>(),
            ),
        );
        Report {
            consistent: json!({ "a": consistent_json(&est.consistent) }),
            warnings: est.warnings.clone(),
            details,
            ..fair_qpme_report(groups, &est.a, &est.b, &est.lambda, truth)
        }
    }

    fn view(&self, point: &GroupRates<T>) -> View {
        view::groups_rates(self.0.groups(), point)
    }

    fn shape(&self) -> Shape {
        groups_shape(self.0.groups())
    }

    fn panel(&self, point: &GroupRates<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(
            names,
            self.0.groups().rates(),
            &group_rates(point),
        ))
    }

    fn elicited_metric(&self, est: &FairEstimate<T>) -> Option<FairQuadraticTruth<T>> {
        let groups = self.0.groups();
        let metric = FairQuadraticMetric::new(
            est.a.clone(),
            est.b.clone(),
            est.lambda.clone(),
            groups.rates(),
        )
        .ok()?;
        Some(FairQuadraticTruth {
            metric,
            groups: groups.clone(),
        })
    }

    fn summary(&self, est: &FairEstimate<T>, names: &Names) -> Option<Summary> {
        Some(Summary {
            sentence: fair_qpme_sentence(self.0.groups(), names, &est.a, &est.lambda),
            undetermined: Vec::new(),
            picture: None,
        })
    }
}

/// `procedure = "fair-qpme"`.
#[derive(Debug, Clone, Copy)]
pub struct FairQpmeFamily;

impl Family for FairQpmeFamily {
    const NAME: &'static str = "fair-qpme";
    const SUMMARY: &'static str =
        "fair quadratic metric (a, B^uv, lambda) over groups' rates (000 Def. 4, Alg. 4)";
    type At<T: Scalar> = FairQpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_fair_qpme);
}

// ---- qpme-tradeoff ----------------------------------------------------------

/// The spec's own fields of `qpme-tradeoff`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpmeTradeoffFields {
    /// The known a (q values).
    #[serde(default)]
    pub a: Option<Value>,
    /// The known B^{uv} (C(m, 2) matrices).
    #[serde(default, rename = "B")]
    pub b: Option<Value>,
    /// `fit` (default: query the model's exact optimum on the small sphere)
    /// or `paper` (the paper's z₁ + ϱ·unit(slope)).
    #[serde(default)]
    pub estimator: Option<Estimator>,
    /// ϱ.
    #[serde(default)]
    pub small_radius: Option<Num>,
    /// `diagonal` (default) or `general`.
    #[serde(default)]
    pub rates: Option<Rates>,
}

/// `qpme-tradeoff`: the trade-off alone (000 App. D Alg. 5; notes F9) on
/// a `groups` population: λ of a fair quadratic metric whose a and B^{uv}
/// are known (the spec's `a` and `B` fields), by one unimodal search over
/// λ′ ∈ [0, 1]. The error is |λ − λ̂|.
pub struct QpmeTradeoffAdapter<T: Scalar>(QpmeTradeoff<T>);

impl<T: Scalar> Adapter<T> for QpmeTradeoffAdapter<T> {
    type Fields = QpmeTradeoffFields;
    type Algorithm = QpmeTradeoff<T>;
    type Truth = FairQuadraticTruth<T>;
    const ERROR: &'static str = "|lambda - lambda^|";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;

    fn new(
        settings: QpmeTradeoffFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        let groups = build::groups_with(population, "qpme-tradeoff", rates)?;
        let (q, m) = (groups.dim(), groups.groups());
        let a = settings
            .a
            .as_ref()
            .ok_or_else(|| Error::invalid("a", "qpme-tradeoff needs the known a (q values)"))?;
        let b = settings.b.as_ref().ok_or_else(|| {
            Error::invalid("B", "qpme-tradeoff needs the known B (C(m, 2) matrices)")
        })?;
        let a = read_vector::<T>(a, "a", q)?;
        let b = read_matrices::<T>(b, "B", m * (m - 1) / 2, q)?;
        // The known part must itself be a Def. 4 metric (λ plays no role).
        let checked = FairQuadraticMetric::new(a, b, T::ratio(1, 2), rates)?;
        let small = small_radius(&settings.small_radius, groups.radius())?;
        let known = Known {
            a: checked.a().clone(),
            b: checked.b().to_vec(),
        };
        let touching = settings.estimator.unwrap_or_default() == Estimator::Fit;
        Ok(QpmeTradeoffAdapter(QpmeTradeoff::new(
            groups, known, search, small, touching,
        )?))
    }

    fn algorithm(&self) -> &QpmeTradeoff<T> {
        &self.0
    }

    fn truth(&self, metric: &Value) -> Result<FairQuadraticTruth<T>> {
        let groups = self.0.groups();
        let metric = fair_truth(metric, groups)?;
        // The search assumes the known parts are the metric's own: a
        // simulated metric with other parts would be searched against a
        // wrong assumption, silently (issue #29, item 4). Both sides are
        // Def. 4 metrics (‖a‖₂ = 1, ½Σ‖B^{uv}‖_F = 1), so they compare
        // entry by entry.
        let known = self.0.known();
        let gap = (metric.a() - &known.a).amax().max(
            metric
                .b()
                .iter()
                .zip(&known.b)
                .map(|(x, y)| (x - y).amax())
                .fold(T::int(0), |m, d| m.max(d)),
        );
        if !(gap.finite() && gap <= T::ratio(1, 1_000_000)) {
            return Err(Error::Assumption {
                assumption: "000 §4.3 (the trade-off search's known a and B)".into(),
                detail: format!(
                    "oracle.metric's a and B differ from the spec's a and B by up to {:.3e} (normalized as Def. 4)",
                    gap.to_f64_lossy()
                ),
            });
        }
        Ok(FairQuadraticTruth {
            metric,
            groups: groups.clone(),
        })
    }

    fn distance(&self, truth: &FairQuadraticTruth<T>, point: &GroupRates<T>) -> Option<T> {
        let groups = self.0.groups();
        let sphere = tradeoff_sphere(groups, self.0.small_radius()).ok()?;
        fair_distance(&truth.metric, groups, &[sphere], point)
    }

    fn report(&self, est: &TradeoffEstimate<T>, truth: Option<&FairQuadraticTruth<T>>) -> Report {
        let truth = truth.map(|t| &t.metric);
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
        crate::driver::adapters::fair::group_details(self.0.groups(), &mut details);
        details.insert(
            "interval".into(),
            json!([f(&est.interval.0), f(&est.interval.1)]),
        );
        Report {
            elicited: json!({ "lambda": f(&est.lambda) }),
            elicited_exact: json!({ "lambda": est.lambda.encode() }),
            words: format!("trade-off lambda = {:.4}", f(&est.lambda)),
            consistent: consistent_json(std::slice::from_ref(&est.consistent)),
            warnings: est.warnings.clone(),
            truth: truth.map(|t| json!({ "lambda": f(t.lambda()) })),
            error: truth.map(|t| (f(t.lambda()) - f(&est.lambda)).abs()),
            details,
        }
    }

    fn view(&self, point: &GroupRates<T>) -> View {
        view::groups_rates(self.0.groups(), point)
    }

    fn shape(&self) -> Shape {
        groups_shape(self.0.groups())
    }

    fn panel(&self, point: &GroupRates<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(
            names,
            self.0.groups().rates(),
            &group_rates(point),
        ))
    }

    fn summary(&self, est: &TradeoffEstimate<T>, _names: &Names) -> Option<Summary> {
        let (lo, hi) = (f(&est.interval.0), f(&est.interval.1));
        Some(Summary {
            sentence: tradeoff_sentence(f(&est.lambda)),
            undetermined: if hi - lo > 0.05 {
                vec![format!(
                    "Your answers leave the weight of unfairness between {} and {}.",
                    percent(lo),
                    percent(hi)
                )]
            } else {
                Vec::new()
            },
            picture: None,
        })
    }
}

/// `procedure = "qpme-tradeoff"`.
#[derive(Debug, Clone, Copy)]
pub struct QpmeTradeoffFamily;

impl Family for QpmeTradeoffFamily {
    const NAME: &'static str = "qpme-tradeoff";
    const SUMMARY: &'static str =
        "trade-off lambda of a fair quadratic metric with known a and B (000 Alg. 5)";
    type At<T: Scalar> = QpmeTradeoffAdapter<T>;
    /// Its result holds the trade-off λ alone (a and B were known and are
    /// not in it), which ranks nothing by itself.
    const RANK: Rankability = Rankability::Not(
        "its result holds the trade-off lambda alone (the known a and B are the spec's, not the result's); rank by the whole fair quadratic metric instead: a file {\"procedure\": \"fair-qpme\", \"metric\": {\"a\": [...], \"B\": [...], \"lambda\": ...}} with the spec's a and B and the elicited lambda",
    );
}

// ---- cubic ------------------------------------------------------------------

/// The spec's own fields of `cubic`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicFields {
    /// `minimal` (default) or `nested`.
    #[serde(default)]
    pub design: Option<CubicDesign>,
    /// ϱ.
    #[serde(default)]
    pub small_radius: Option<Num>,
    /// How rates are shown.
    #[serde(default)]
    pub rates: Option<Rates>,
    /// LPME cycles (default 1).
    #[serde(default)]
    pub cycles: Option<usize>,
    /// LPME angle order (default reverse).
    #[serde(default)]
    pub order: Option<AngleOrder>,
}

/// `cubic`: cubic metrics (000 §8, done as notes C4–C5) on a `sphere`
/// population: LPMEs over a design of small spheres, then a joint fit of
/// the cubic's quadratic gradient field. The error is
/// max(‖a − â‖₂, ‖B − B̂‖_F, ‖C − Ĉ‖).
pub struct CubicAdapter<T: Scalar> {
    cubic: Cubic<T>,
    rates: Rates,
}

impl<T: Scalar> Adapter<T> for CubicAdapter<T> {
    type Fields = CubicFields;
    type Algorithm = Cubic<T>;
    type Truth = CubicMetric<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F, ||C - C^||)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;

    fn new(settings: CubicFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let sphere = build::sphere_population::<T>(population, "cubic")?;
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        view::rate_labels(sphere.dim(), rates)?;
        let small = small_radius(&settings.small_radius, sphere.radius())?;
        let design = settings.design.unwrap_or_default();
        // The design must fit before the other fields are read.
        centres(&sphere, &small, design)?;
        let settings = CubicSettings {
            lpme: lpme_settings(&search, settings.cycles, settings.order)?,
            small_radius: small,
            design,
        };
        Ok(CubicAdapter {
            cubic: Cubic::new(sphere, settings)?,
            rates,
        })
    }

    fn algorithm(&self) -> &Cubic<T> {
        &self.cubic
    }

    fn truth(&self, metric: &Value) -> Result<CubicMetric<T>> {
        let (sphere, s) = (self.cubic.sphere(), self.cubic.settings());
        let m = cubic_truth(metric, sphere.dim())?;
        let design = Design::new(sphere.clone(), s.small_radius.clone())?;
        let cs: Vec<(String, DVector<T>)> = centres(sphere, &s.small_radius, s.design)?
            .into_iter()
            .enumerate()
            .map(|(n, c)| (format!("cubic centre {}", n + 1), c))
            .collect();
        crate::metric::quadratic::check_centres(&m, &cs, design.small_radius())?;
        Ok(m)
    }

    fn distance(&self, truth: &CubicMetric<T>, point: &DVector<T>) -> Option<T> {
        let (sphere, s) = (self.cubic.sphere(), self.cubic.settings());
        let cs = centres(sphere, &s.small_radius, s.design).ok()?;
        nearest_optimum(truth, &cs, &s.small_radius, point)
    }

    fn report(&self, est: &CubicEstimate<T>, truth: Option<&CubicMetric<T>>) -> Report {
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
        details.insert("singular_value_gap".into(), f(&est.gap).into());
        details.insert("lpmes".into(), est.observations.len().into());
        Report {
            consistent: Value::from(
                est.observations
                    .iter()
                    .map(|o| consistent_json(&o.consistent))
                    .collect::<Vec<Value>>(),
            ),
            warnings: est.warnings.clone(),
            details,
            ..cubic_report(&est.a, &est.b, &est.c, truth)
        }
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::rates(point, self.rates)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(rate_classes(self.cubic.sphere().dim(), self.rates)),
            ..Shape::default()
        }
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(names, self.rates, &[f64s(point.iter())]))
    }

    fn elicited_metric(&self, est: &CubicEstimate<T>) -> Option<CubicMetric<T>> {
        CubicMetric::new(est.a.clone(), est.b.clone(), est.c.clone()).ok()
    }

    fn summary(&self, est: &CubicEstimate<T>, names: &Names) -> Option<Summary> {
        Some(Summary {
            sentence: cubic_sentence(
                names,
                self.rates,
                self.cubic.sphere().center(),
                &est.a,
                &est.b,
                &est.c,
            ),
            undetermined: Vec::new(),
            picture: None,
        })
    }
}

/// `procedure = "cubic"`.
#[derive(Debug, Clone, Copy)]
pub struct CubicFamily;

impl Family for CubicFamily {
    const NAME: &'static str = "cubic";
    const SUMMARY: &'static str =
        "cubic metric (a, B, C) over a sphere of rates, by a fit of its gradient field (000 §8)";
    type At<T: Scalar> = CubicAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_cubic);
}

// ---- ranking (elicit rank) --------------------------------------------------

/// The rates a quadratic result reads: its file's `"rates"` key,
/// `"diagonal"` (the default, 000's main text) or `"off-diagonal"` /
/// `"general"` (App. E).
fn rates_key(p: &Parameters<'_>) -> Result<Statistic> {
    match p.key("rates")? {
        None | Some("diagonal") => Ok(Statistic::RatesDiagonal),
        Some("off-diagonal" | "general") => Ok(Statistic::RatesOffDiagonal),
        Some(other) => Err(Error::invalid(
            "rates",
            format!("{other:?} is not diagonal, off-diagonal or general"),
        )),
    }
}

/// `qpme`'s result (`{"a": [q], "B": [q rows of q]}`) as a
/// [`QuadraticMetric`] (as given) on the diagonal rates, or the
/// off-diagonal ones with `"rates": "off-diagonal"`.
pub fn rank_qpme(p: &Parameters<'_>) -> Result<RankMetric> {
    let a = p.numbers(p.get(&["a"])?, "a")?;
    let b = p.matrix(p.get(&["B", "b"])?, "B")?;
    let metric = p.checked(QuadraticMetric::as_given(DVector::from_vec(a), b))?;
    Ok(RankMetric::new(p.checked(On::new(metric, rates_key(p)?))?))
}

/// `cubic`'s result (`{"a": [q], "B": [q rows], "C": [q matrices q × q]}`)
/// as a [`CubicMetric`] (as given) on the diagonal rates, as QPME's, or
/// the off-diagonal ones with `"rates": "off-diagonal"`.
pub fn rank_cubic(p: &Parameters<'_>) -> Result<RankMetric> {
    let a = p.numbers(p.get(&["a"])?, "a")?;
    let q = a.len();
    let b = p.matrix(p.get(&["B", "b"])?, "B")?;
    let slices = p.matrices(p.get(&["C", "c"])?, "C")?;
    if slices.len() != q || slices.iter().any(|m| m.nrows() != q || m.ncols() != q) {
        return Err(Error::invalid(
            p.name("C"),
            format!("expected q = {q} matrices of {q} x {q}"),
        ));
    }
    let c: Vec<f64> = slices
        .iter()
        .flat_map(|m| (0..q).flat_map(move |j| (0..q).map(move |l| m[(j, l)])))
        .collect();
    let metric = p.checked(CubicMetric::as_given(DVector::from_vec(a), b, c))?;
    Ok(RankMetric::new(p.checked(On::new(metric, rates_key(p)?))?))
}

/// `fair-qpme`'s result (`{"a": [q], "B": [C(m, 2) matrices q × q],
/// "lambda": λ}`) as a [`FairQuadraticMetric`] (as given) in diagonal
/// rates (000 Def. 4), or general ones with `"rates": "general"`;
/// 0 ≤ λ ≤ 1.
pub fn rank_fair_qpme(p: &Parameters<'_>) -> Result<RankMetric> {
    let a = p.numbers(p.get(&["a"])?, "a")?;
    let b = p.matrices(p.get(&["B", "b"])?, "B")?;
    let lambda = p.number(p.get(&["lambda"])?, "lambda")?;
    if !(0.0..=1.0).contains(&lambda) {
        return Err(Error::invalid(
            p.name("lambda"),
            format!("the trade-off must lie in [0, 1], got {lambda}"),
        ));
    }
    let rates = match rates_key(p)? {
        Statistic::RatesDiagonal => Rates::Diagonal,
        _ => Rates::General,
    };
    let statistic = rates_statistic(rates);
    if statistic.classes(a.len()).is_none() {
        return Err(Error::invalid(
            p.name("a"),
            format!("{} weights read no {statistic:?} statistic", a.len()),
        ));
    }
    let metric = p.checked(FairQuadraticMetric::as_given(
        DVector::from_vec(a),
        b,
        lambda,
        rates,
    ))?;
    Ok(RankMetric::new(metric))
}

/// The statistic of each group a fair quadratic metric in `rates` reads.
fn rates_statistic(rates: Rates) -> Statistic {
    match rates {
        Rates::Diagonal => Statistic::RatesDiagonal,
        Rates::General => Statistic::RatesOffDiagonal,
    }
}

/// 000 Def. 3's quadratic metric (a utility) on a rate vector, evaluated
/// by [`QuadraticMetric::value_left_to_right`].
impl Rankable for On<QuadraticMetric<f64>> {
    fn family(&self) -> &'static str {
        "quadratic"
    }

    fn classes(&self) -> Option<usize> {
        self.statistic().classes(self.metric().dim())
    }

    fn statistic(&self) -> Statistic {
        On::statistic(self)
    }

    fn is_constant(&self) -> bool {
        let m = self.metric();
        m.a().iter().chain(m.b().iter()).all(|w| *w == 0.0)
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        self.metric().value_left_to_right(&self.read(classifier)?)
    }
}

/// 000 §8's cubic metric (a utility) on a rate vector, evaluated by
/// [`CubicMetric::value_left_to_right`].
impl Rankable for On<CubicMetric<f64>> {
    fn family(&self) -> &'static str {
        "cubic"
    }

    fn classes(&self) -> Option<usize> {
        self.statistic().classes(self.metric().a().len())
    }

    fn statistic(&self) -> Statistic {
        On::statistic(self)
    }

    fn is_constant(&self) -> bool {
        let m = self.metric();
        m.a()
            .iter()
            .chain(m.b().iter())
            .chain(m.c())
            .all(|w| *w == 0.0)
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        self.metric().value_left_to_right(&self.read(classifier)?)
    }
}

/// 000 Def. 4's fair quadratic metric, a cost: each group's rates (in the
/// metric's [`Rates`]) with the data's τ, evaluated by
/// [`FairQuadraticMetric::cost_left_to_right`].
impl Rankable for FairQuadraticMetric<f64> {
    fn family(&self) -> &'static str {
        "fair-quadratic"
    }

    fn is_cost(&self) -> bool {
        true
    }

    fn classes(&self) -> Option<usize> {
        rates_statistic(self.rates()).classes(self.dim())
    }

    fn groups(&self) -> Option<usize> {
        Some(FairQuadraticMetric::groups(self))
    }

    fn statistic(&self) -> Statistic {
        rates_statistic(self.rates())
    }

    /// (1 − λ)·a = 0 and λ·B = 0.
    fn is_constant(&self) -> bool {
        let lambda = *self.lambda();
        let linear = lambda == 1.0 || self.a().iter().all(|w| *w == 0.0);
        let violation = lambda == 0.0 || self.b().iter().flatten().all(|w| *w == 0.0);
        linear && violation
    }

    fn value(&self, classifier: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64> {
        let statistic = rates_statistic(self.rates());
        self.cost_left_to_right(
            &pool.shares(statistic),
            &pool.group_rates(classifier, statistic)?,
        )
    }
}
