//! The 000 procedures behind the one [`Procedure`] interface:
//! `qpme` ([`Qpme`], Alg. 1), `fair-qpme` ([`FairQpme`], Alg. 4),
//! `qpme-tradeoff` ([`QpmeTradeoff`], Alg. 5) and `cubic` ([`Cubic`], §8).
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

use super::cubic::{centres, cubic, design_size, CubicDesign, CubicEstimate, CubicSettings};
use super::fair_qpme::{
    fair_qpme, tradeoff, tradeoff_sphere, FairEstimate, FairSettings, Known, RestrictedFair,
    TradeoffEstimate,
};
use super::lpme::{AngleOrder, LpmeSettings, Orthant};
use super::procedure::{Procedure, Report, Search, View};
use super::qpme::{
    check_metric, exact_maximiser, qpme, Design, Estimator, QpmeEstimate, QpmeSettings,
};
use super::Warning;
use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, rate_entry, GroupRates, Groups, Rates};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{CubicMetric, FairQuadraticMetric, GradientField, QuadraticMetric};
use crate::oracle::Oracle;
use crate::scalar::Scalar;
use crate::search::{golden_max_queries, halvings, Consistent, Strategy};
use crate::spec::{num, num_list_of, num_matrix, Num, PopulationSpec};
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

/// Labels of the q rates of a query vector.
fn rate_labels(q: usize, rates: Rates) -> Result<Vec<String>> {
    match rates {
        Rates::Diagonal => Ok((0..q)
            .map(|i| format!("P(h = {0} | Y = {0})", i + 1))
            .collect()),
        Rates::General => {
            let k = (2..=64).find(|k| k * k - k == q).ok_or_else(|| {
                Error::invalid(
                    "rates",
                    format!("general rates need q = k^2 - k, got q = {q}"),
                )
            })?;
            Ok((0..q)
                .map(|idx| {
                    let (i, j) = rate_entry(k, idx).unwrap_or((0, 0));
                    format!("P(h = {} | Y = {})", j + 1, i + 1)
                })
                .collect())
        }
    }
}

fn percent_rows<T: Scalar>(labels: &[String], r: &DVector<T>) -> Vec<String> {
    labels
        .iter()
        .zip(r.iter())
        .map(|(l, v)| format!("{l:<18} {:>7.2}%", 100.0 * f(v)))
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

/// Queries of one single-angle search over a range of length `length`.
fn search_queries<T: Scalar>(strategy: Strategy, length: &T, eps: &T) -> Option<usize> {
    match strategy {
        Strategy::Paper => Some(4 * halvings(length, eps).ok()?),
        // 2.75 per halving in steady state (notes N2).
        Strategy::Adaptive => Some((11 * halvings(length, eps).ok()?).div_ceil(4)),
        Strategy::Golden => golden_max_queries(length, eps).ok(),
        Strategy::Bisection => halvings(length, eps).ok(),
    }
}

/// About how many queries one LPME takes (q orthant queries, then
/// cycles·(q − 1) searches over π/2).
pub fn lpme_queries<T: Scalar>(q: usize, settings: &LpmeSettings<T>) -> Option<usize> {
    let per = search_queries(settings.strategy, &T::frac_pi_2(), &settings.eps)?;
    Some(q + settings.cycles * (q - 1) * per)
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

/// The distance of `p` from the optimum of the small sphere nearest to it
/// (push-away adversary): the exact maximiser of `field` there.
pub fn nearest_optimum<T: Scalar, F: GradientField<T> + ?Sized>(
    field: &F,
    centres: &[DVector<T>],
    small: &T,
    p: &DVector<T>,
) -> Option<T> {
    let c = centres
        .iter()
        .min_by(|x, y| {
            (*x - p)
                .norm()
                .partial_cmp(&(*y - p).norm())
                .unwrap_or(std::cmp::Ordering::Equal)
        })?
        .clone();
    let sphere = Sphere::new(c, small.clone()).ok()?;
    let u = exact_maximiser(field, &sphere).ok()?;
    Some((sphere.point(&u).ok()? - p).norm())
}

// ---- qpme -------------------------------------------------------------------

/// Settings of `qpme` in a spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpmeOptions {
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

/// The QPME LPMEs' window (see [`QpmeOptions::window`]): `None` for 0,
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

/// About how many queries QPME's q + 2 LPMEs take: the first as
/// [`lpme_queries`], and with a window the others search windows of width
/// 2w without orthant queries (crossings not counted). With `origin_known`
/// (fair QPME's [`FairSettings::origin_from_a`]) the first is not asked
/// and every other LPME is.
fn qpme_queries<T: Scalar>(
    q: usize,
    lpme: &LpmeSettings<T>,
    window: &Option<T>,
    origin_known: bool,
) -> Option<usize> {
    let first = lpme_queries(q, lpme)?;
    let other = match window {
        Some(w) => {
            let width = (w.clone() * T::int(2)).min(T::frac_pi_2());
            lpme.cycles * (q - 1) * search_queries(lpme.strategy, &width, &lpme.eps)?
        }
        None => first,
    };
    Some(usize::from(!origin_known) * first + (q + 1) * other)
}

/// QPME (000 Alg. 1; general rates App. E) as a [`Procedure`]: q + 2
/// LPMEs on small spheres inside the spec's `sphere` population, then the
/// joint fit (or the corrected closed form of App. C, eq. 18). The error
/// is max(‖a − â‖₂, ‖B − B̂‖_F).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::procedure::{Procedure, Search};
/// use metric_elicitation::elicit::quadratic_procedures::{Qpme, QpmeOptions};
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use metric_elicitation::spec::{Num, PopulationSpec};
/// let population = PopulationSpec::Sphere {
///     center: vec![Num::Float(0.5), Num::Float(0.5)],
///     radius: Num::Float(0.2),
/// };
/// let p = Qpme::<f64>::new(QpmeOptions::default(), Search { eps: 1e-3, strategy: Strategy::Golden }, &population).unwrap();
/// let truth = p.truth(&serde_json::json!({"a": [0.6, 0.5], "B": [[-0.4, 0.1], [0.1, -0.3]]})).unwrap();
/// let mut oracle = Simulated::new(|r: &nalgebra::DVector<f64>| p.value(&truth, r));
/// let est = p.elicit(&mut oracle).unwrap();
/// assert!(p.report(&est, Some(&truth)).error.unwrap() < 0.05);
/// ```
///
/// # Errors
/// See [`Procedure`]: bad settings name the field; a metric outside the
/// design's assumptions is [`Error::Assumption`].
#[derive(Debug, Clone)]
pub struct Qpme<T: Scalar> {
    design: Design<T>,
    settings: QpmeSettings<T>,
    rates: Rates,
}

/// The query sphere of a `sphere` population.
fn sphere_of<T: Scalar>(population: &PopulationSpec, procedure: &str) -> Result<Sphere<T>> {
    let PopulationSpec::Sphere { center, radius } = population else {
        return Err(population.unsupported(procedure, "sphere"));
    };
    let c: Vec<T> = center
        .iter()
        .enumerate()
        .map(|(i, v)| v.to_scalar(&format!("population.center[{i}]")))
        .collect::<Result<_>>()?;
    Sphere::new(DVector::from_vec(c), radius.to_scalar("population.radius")?)
}

impl<T: Scalar> Qpme<T> {
    /// The design (query sphere and small radius).
    pub fn design(&self) -> &Design<T> {
        &self.design
    }

    /// The QPME settings.
    pub fn settings(&self) -> &QpmeSettings<T> {
        &self.settings
    }

    fn centres(&self) -> Vec<DVector<T>> {
        let q = self.design.dim();
        let mut out = vec![self.design.origin().clone()];
        for j in 0..q {
            out.push(self.design.centre(super::qpme::Centre::Plus(j)));
            out.push(self.design.centre(super::qpme::Centre::Minus(j)));
        }
        out
    }
}

impl<T: Scalar> Procedure<T> for Qpme<T> {
    type Settings = QpmeOptions;
    type Point = DVector<T>;
    type Truth = QuadraticMetric<T>;
    type Estimate = QpmeEstimate<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn default_strategy() -> Strategy {
        Strategy::Golden
    }

    fn new(settings: QpmeOptions, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let sphere = sphere_of::<T>(population, "qpme")?;
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        rate_labels(sphere.dim(), rates)?;
        let small = small_radius(&settings.small_radius, sphere.radius())?;
        let lpme = lpme_settings(&search, settings.cycles, settings.order)?;
        let design = Design::new(sphere, small.clone())?;
        Ok(Qpme {
            design,
            settings: QpmeSettings {
                lpme,
                small_radius: small,
                estimator: settings.estimator.unwrap_or_default(),
                window: window(&settings.window, Some(T::ratio(1, 5)))?,
            },
            rates,
        })
    }

    fn truth(&self, metric: &Value) -> Result<QuadraticMetric<T>> {
        let q = self.design.dim();
        let a = read_vector(field(metric, "a")?, "oracle.metric.a", q)?;
        let b = read_matrix(field(metric, "B")?, "oracle.metric.B", q)?;
        let m = QuadraticMetric::new(a, b)?;
        check_metric(&m, &self.design, self.settings.estimator)?;
        Ok(m)
    }

    fn value(&self, truth: &QuadraticMetric<T>, point: &DVector<T>) -> T {
        truth.value(point)
    }

    fn distance(&self, truth: &QuadraticMetric<T>, point: &DVector<T>) -> Option<T> {
        nearest_optimum(truth, &self.centres(), self.design.small_radius(), point)
    }

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<QpmeEstimate<T>> {
        qpme(self.design.sphere(), oracle, &self.settings)
    }

    fn report(&self, est: &QpmeEstimate<T>, truth: Option<&QuadraticMetric<T>>) -> Report {
        let mut details = Map::new();
        qpme_details(est, &mut details);
        details.insert("queries".into(), est.queries.into());
        Report {
            elicited: json!({ "a": vec_json(&est.a), "B": mat_json(&est.b) }),
            elicited_exact: json!({ "a": vec_exact(&est.a), "B": mat_exact(&est.b) }),
            words: words_quadratic(&est.a, &est.b),
            consistent: Value::from(
                est.observations
                    .iter()
                    .map(|o| json!({ "centre": o.centre.label(), "angles": consistent_json(&o.consistent) }))
                    .collect::<Vec<Value>>(),
            ),
            warnings: est.warnings.clone(),
            truth: truth.map(|t| json!({ "a": vec_json(t.a()), "B": mat_json(t.b()) })),
            error: truth.map(|t| {
                let (ea, eb) = t.errors(&est.a, &est.b);
                f(&ea).max(f(&eb))
            }),
            details,
        }
    }

    fn present(&self, point: &DVector<T>) -> View {
        let labels = rate_labels(point.len(), self.rates).unwrap_or_default();
        View {
            title: "rates of the classifier, % of each actual class".into(),
            rows: percent_rows(&labels, point),
        }
    }

    fn expected_queries(&self) -> Option<usize> {
        let q = self.design.dim();
        qpme_queries(q, &self.settings.lpme, &self.settings.window, false)
    }
}

/// `procedure = "qpme"`.
#[derive(Debug, Clone, Copy)]
pub struct QpmeFamily;

impl super::procedure::Family for QpmeFamily {
    const NAME: &'static str = "qpme";
    const SUMMARY: &'static str =
        "quadratic metric a.r + r'Br/2 over a sphere of rates (000 Alg. 1, App. E)";
    type At<T: Scalar> = Qpme<T>;
}

// ---- fair-qpme --------------------------------------------------------------

/// Settings of `fair-qpme` in a spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairQpmeOptions {
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
    /// default 0 (off, as in the paper: see [`FairQpme`]).
    #[serde(default)]
    pub window: Option<Num>,
}

fn fair_truth<T: Scalar>(metric: &Value, groups: &Groups<T>) -> Result<FairQuadraticMetric<T>> {
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
    let mut cs = vec![super::qpme::Centre::Origin];
    for j in 0..q {
        cs.push(super::qpme::Centre::Plus(j));
        cs.push(super::qpme::Centre::Minus(j));
    }
    out.extend(cs.into_iter().filter_map(|c| design.small_sphere(c).ok()));
    out
}

fn present_groups<T: Scalar>(groups: &Groups<T>, point: &GroupRates<T>) -> View {
    let labels = rate_labels(groups.dim(), groups.rates()).unwrap_or_default();
    let mut rows = Vec::new();
    for g in 0..point.groups() {
        rows.push(format!("group {}:", g + 1));
        rows.extend(
            percent_rows(&labels, &point.group(g).into_owned())
                .into_iter()
                .map(|r| format!("  {r}")),
        );
    }
    View {
        title: "rates of the classifier in each group, % of each actual class".into(),
        rows,
    }
}

/// Fair QPME (000 §4.3, App. D Alg. 4; notes F1–F8) as a [`Procedure`] on
/// a `groups` population: one LPME for â, one QPME per σ ∈ M, Ξ⁻¹ and the
/// normalization for λ. The error is
/// max(‖a − â‖₂, Σ‖B^{uv} − B̂^{uv}‖_F, |λ − λ̂|).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::procedure::{Procedure, Search};
/// use metric_elicitation::elicit::quadratic_procedures::{FairQpme, FairQpmeOptions};
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use metric_elicitation::spec::{Num, PopulationSpec};
/// let population = PopulationSpec::Groups {
///     classes: 2,
///     tau: vec![vec![Num::Float(0.3), Num::Float(0.6)], vec![Num::Float(0.7), Num::Float(0.4)]],
///     radius: None,
/// };
/// let p = FairQpme::<f64>::new(FairQpmeOptions::default(), Search { eps: 1e-3, strategy: Strategy::Golden }, &population).unwrap();
/// let truth = p.truth(&serde_json::json!({
///     "a": [0.6, 0.8], "B": [[[1.6, 0.0], [0.0, 1.2]]], "lambda": 0.4})).unwrap();
/// let mut oracle = Simulated::new(|r: &_| p.value(&truth, r));
/// let est = p.elicit(&mut oracle).unwrap();
/// assert!(p.report(&est, Some(&truth)).error.unwrap() < 0.05);
/// ```
///
/// # Errors
/// See [`Procedure`].
#[derive(Debug, Clone)]
pub struct FairQpme<T: Scalar> {
    groups: Groups<T>,
    design: Design<T>,
    settings: FairSettings<T>,
}

impl<T: Scalar> FairQpme<T> {
    /// The groups.
    pub fn groups(&self) -> &Groups<T> {
        &self.groups
    }
}

impl<T: Scalar> Procedure<T> for FairQpme<T> {
    type Settings = FairQpmeOptions;
    type Point = GroupRates<T>;
    type Truth = FairQuadraticMetric<T>;
    type Estimate = FairEstimate<T>;
    const ERROR: &'static str = "max(||a - a^||_2, sum ||B^uv - B^^uv||_F, |lambda - lambda^|)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn new(
        settings: FairQpmeOptions,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        let groups = Groups::<T>::from_spec_in(population, "fair-qpme", rates)?;
        let small = small_radius(&settings.small_radius, groups.radius())?;
        let design = Design::new(groups.sphere().clone(), small.clone())?;
        let lpme = lpme_settings(&search, settings.cycles, settings.order)?;
        Ok(FairQpme {
            groups,
            design,
            settings: FairSettings {
                lpme,
                small_radius: small,
                estimator: settings.estimator.unwrap_or_default(),
                // Off by default: at o every group is at the same point, so
                // the violation terms add nothing to the first gradient and
                // the others turn far from it (windows of 0.2 rad cost 41 %
                // more queries at m = 2, k = 2; 4 % fewer at m = k = 3).
                window: window(&settings.window, None)?,
                origin_from_a: settings.estimator.unwrap_or_default() == Estimator::Fit,
            },
        })
    }

    fn truth(&self, metric: &Value) -> Result<FairQuadraticMetric<T>> {
        let t = fair_truth(metric, &self.groups)?;
        if !(t.lambda().clone() > T::int(0) && t.lambda().clone() < T::int(1)) {
            return Err(Error::Assumption {
                assumption: "000 Alg. 4: 0 < lambda < 1".into(),
                detail: format!(
                    "lambda = {}: at 0 the violation weights, at 1 the costs a are unidentifiable",
                    f(t.lambda())
                ),
            });
        }
        let all: Vec<usize> = (0..self.groups.groups()).collect();
        let parts = crate::geometry::groups::Partitions::<T>::new(self.groups.groups())?;
        for sigma in std::iter::once(&all).chain(parts.sets()) {
            let field = RestrictedFair::new(&t, &self.groups, sigma);
            super::qpme::check_field(&field, &self.design)?;
        }
        Ok(t)
    }

    fn value(&self, truth: &FairQuadraticMetric<T>, point: &GroupRates<T>) -> T {
        -truth.cost(point, &self.groups)
    }

    fn distance(&self, truth: &FairQuadraticMetric<T>, point: &GroupRates<T>) -> Option<T> {
        fair_distance(
            truth,
            &self.groups,
            &fair_spheres(&self.groups, &self.design),
            point,
        )
    }

    fn elicit(&self, oracle: &mut dyn Oracle<GroupRates<T>>) -> Result<FairEstimate<T>> {
        fair_qpme(&self.groups, oracle, &self.settings)
    }

    fn report(&self, est: &FairEstimate<T>, truth: Option<&FairQuadraticMetric<T>>) -> Report {
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
        details.insert("nu".into(), f(&est.nu).into());
        details.insert(
            "lowest_eigenvalues".into(),
            Value::from(est.lowest_eigenvalues.iter().map(f).collect::<Vec<f64>>()),
        );
        details.insert(
            "partitions".into(),
            Value::from(
                crate::geometry::groups::Partitions::<T>::new(self.groups.groups())
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
        let pair_names: Vec<String> = pairs(self.groups.groups())
            .into_iter()
            .map(|(u, v)| format!("B^({},{})", u + 1, v + 1))
            .collect();
        Report {
            elicited: fair_json(&est.a, &est.b, &est.lambda, false),
            elicited_exact: fair_json(&est.a, &est.b, &est.lambda, true),
            words: format!(
                "cost = (1 - {:.4})·<a, {}> + {:.4}/2·sum (r^u - r^v)' B^uv (r^u - r^v), a = {:?}, pairs {}",
                f(&est.lambda),
                if self.groups.rates() == Rates::Diagonal { "1 - r" } else { "r" },
                f(&est.lambda),
                est.a.iter().map(|x| (f(x) * 1e4).round() / 1e4).collect::<Vec<f64>>(),
                pair_names.join(", ")
            ),
            consistent: json!({ "a": consistent_json(&est.consistent) }),
            warnings: est.warnings.clone(),
            truth: truth.map(|t| fair_json(t.a(), t.b(), t.lambda(), false)),
            error: truth.map(|t| {
                let (ea, eb, el) = t.errors(&est.a, &est.b, &est.lambda);
                f(&ea).max(f(&eb)).max(f(&el))
            }),
            details,
        }
    }

    fn present(&self, point: &GroupRates<T>) -> View {
        present_groups(&self.groups, point)
    }

    fn expected_queries(&self) -> Option<usize> {
        let (q, m) = (self.groups.dim(), self.groups.groups());
        let s = &self.settings;
        // |M| = C(m, 2) QPMEs after the LPME for a.
        let qpmes = m * (m - 1) / 2;
        let first = LpmeSettings {
            eps: s.first_eps(m),
            ..s.lpme.clone()
        };
        Some(
            lpme_queries(q, &first)?
                + qpmes * qpme_queries(q, &s.lpme, &s.window, s.origin_from_a)?,
        )
    }
}

/// `procedure = "fair-qpme"`.
#[derive(Debug, Clone, Copy)]
pub struct FairQpmeFamily;

impl super::procedure::Family for FairQpmeFamily {
    const NAME: &'static str = "fair-qpme";
    const SUMMARY: &'static str =
        "fair quadratic metric (a, B^uv, lambda) over groups' rates (000 Def. 4, Alg. 4)";
    type At<T: Scalar> = FairQpme<T>;
}

// ---- qpme-tradeoff ----------------------------------------------------------

/// Settings of `qpme-tradeoff` in a spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TradeoffOptions {
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

/// The trade-off alone (000 App. D Alg. 5; notes F9) as a [`Procedure`]:
/// λ of a fair quadratic metric whose a and B^{uv} are known (the spec's
/// `a` and `B` settings), by one unimodal search over λ′ ∈ [0, 1]. The
/// error is |λ − λ̂|.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::procedure::{Procedure, Search};
/// use metric_elicitation::elicit::quadratic_procedures::{QpmeTradeoff, TradeoffOptions};
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use metric_elicitation::spec::{Num, PopulationSpec};
/// let population = PopulationSpec::Groups {
///     classes: 2,
///     tau: vec![vec![Num::Float(0.3), Num::Float(0.6)], vec![Num::Float(0.7), Num::Float(0.4)]],
///     radius: None,
/// };
/// let options = TradeoffOptions {
///     a: Some(serde_json::json!([0.6, 0.8])),
///     b: Some(serde_json::json!([[[1.6, 0.0], [0.0, 1.2]]])),
///     ..Default::default()
/// };
/// let p = QpmeTradeoff::<f64>::new(options, Search { eps: 1e-3, strategy: Strategy::Golden }, &population).unwrap();
/// let truth = p.truth(&serde_json::json!({
///     "a": [0.6, 0.8], "B": [[[1.6, 0.0], [0.0, 1.2]]], "lambda": 0.4})).unwrap();
/// let mut oracle = Simulated::new(|r: &_| p.value(&truth, r));
/// let est = p.elicit(&mut oracle).unwrap();
/// assert!((est.lambda - 0.4).abs() < 1e-3);
/// ```
///
/// # Errors
/// See [`Procedure`]; missing `a` or `B` settings name the field.
#[derive(Debug, Clone)]
pub struct QpmeTradeoff<T: Scalar> {
    groups: Groups<T>,
    known: Known<T>,
    search: Search<T>,
    small: T,
    touching: bool,
}

impl<T: Scalar> Procedure<T> for QpmeTradeoff<T> {
    type Settings = TradeoffOptions;
    type Point = GroupRates<T>;
    type Truth = FairQuadraticMetric<T>;
    type Estimate = TradeoffEstimate<T>;
    const ERROR: &'static str = "|lambda - lambda^|";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;

    fn new(
        settings: TradeoffOptions,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        let groups = Groups::<T>::from_spec_in(population, "qpme-tradeoff", rates)?;
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
        tradeoff_sphere(&groups, &small)?;
        Ok(QpmeTradeoff {
            known: Known {
                a: checked.a().clone(),
                b: checked.b().to_vec(),
            },
            groups,
            search,
            small,
            touching: settings.estimator.unwrap_or_default() == Estimator::Fit,
        })
    }

    fn truth(&self, metric: &Value) -> Result<FairQuadraticMetric<T>> {
        fair_truth(metric, &self.groups)
    }

    fn value(&self, truth: &FairQuadraticMetric<T>, point: &GroupRates<T>) -> T {
        -truth.cost(point, &self.groups)
    }

    fn distance(&self, truth: &FairQuadraticMetric<T>, point: &GroupRates<T>) -> Option<T> {
        let sphere = tradeoff_sphere(&self.groups, &self.small).ok()?;
        fair_distance(truth, &self.groups, &[sphere], point)
    }

    fn elicit(&self, oracle: &mut dyn Oracle<GroupRates<T>>) -> Result<TradeoffEstimate<T>> {
        tradeoff(
            &self.groups,
            &self.known,
            oracle,
            self.search.eps.clone(),
            self.search.strategy,
            self.small.clone(),
            self.touching,
        )
    }

    fn report(&self, est: &TradeoffEstimate<T>, truth: Option<&FairQuadraticMetric<T>>) -> Report {
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
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

    fn present(&self, point: &GroupRates<T>) -> View {
        present_groups(&self.groups, point)
    }

    fn expected_queries(&self) -> Option<usize> {
        search_queries(self.search.strategy, &T::int(1), &self.search.eps)
    }
}

/// `procedure = "qpme-tradeoff"`.
#[derive(Debug, Clone, Copy)]
pub struct QpmeTradeoffFamily;

impl super::procedure::Family for QpmeTradeoffFamily {
    const NAME: &'static str = "qpme-tradeoff";
    const SUMMARY: &'static str =
        "trade-off lambda of a fair quadratic metric with known a and B (000 Alg. 5)";
    type At<T: Scalar> = QpmeTradeoff<T>;
}

// ---- cubic ------------------------------------------------------------------

/// Settings of `cubic` in a spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicOptions {
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

/// Cubic metrics (000 §8, done as notes C4–C5) as a [`Procedure`] on a
/// `sphere` population: LPMEs over a design of small spheres, then a joint
/// fit of the cubic's quadratic gradient field. The error is
/// max(‖a − â‖₂, ‖B − B̂‖_F, ‖C − Ĉ‖).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::procedure::{Procedure, Search};
/// use metric_elicitation::elicit::quadratic_procedures::{Cubic, CubicOptions};
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::search::Strategy;
/// use metric_elicitation::spec::{Num, PopulationSpec};
/// let population = PopulationSpec::Sphere {
///     center: vec![Num::Float(0.5), Num::Float(0.5)],
///     radius: Num::Float(0.2),
/// };
/// let p = Cubic::<f64>::new(CubicOptions::default(), Search { eps: 1e-4, strategy: Strategy::Golden }, &population).unwrap();
/// let c = serde_json::json!([[[0.5, -0.2], [-0.2, 0.0]], [[-0.2, 0.0], [0.0, 0.1]]]);
/// let truth = p.truth(&serde_json::json!({"a": [0.8, 0.6], "B": [[-0.5, 0.1], [0.1, -0.3]], "C": c})).unwrap();
/// let mut oracle = Simulated::new(|r: &nalgebra::DVector<f64>| p.value(&truth, r));
/// let est = p.elicit(&mut oracle).unwrap();
/// assert!(p.report(&est, Some(&truth)).error.unwrap() < 0.2);
/// ```
///
/// # Errors
/// See [`Procedure`].
#[derive(Debug, Clone)]
pub struct Cubic<T: Scalar> {
    sphere: Sphere<T>,
    settings: CubicSettings<T>,
    rates: Rates,
}

impl<T: Scalar> Procedure<T> for Cubic<T> {
    type Settings = CubicOptions;
    type Point = DVector<T>;
    type Truth = CubicMetric<T>;
    type Estimate = CubicEstimate<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F, ||C - C^||)";
    /// Every query lies on one of the design's small spheres, and
    /// `distance` measures it from that sphere's optimum (push-away runs).
    const SINGLE_OPTIMUM: bool = true;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn new(settings: CubicOptions, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let sphere = sphere_of::<T>(population, "cubic")?;
        let rates = settings.rates.unwrap_or(Rates::Diagonal);
        rate_labels(sphere.dim(), rates)?;
        let small = small_radius(&settings.small_radius, sphere.radius())?;
        let design = settings.design.unwrap_or_default();
        centres(&sphere, &small, design)?;
        Ok(Cubic {
            settings: CubicSettings {
                lpme: lpme_settings(&search, settings.cycles, settings.order)?,
                small_radius: small,
                design,
            },
            sphere,
            rates,
        })
    }

    fn truth(&self, metric: &Value) -> Result<CubicMetric<T>> {
        let q = self.sphere.dim();
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
        let m = CubicMetric::new(a, b, c)?;
        let design = Design::new(self.sphere.clone(), self.settings.small_radius.clone())?;
        let cs: Vec<(String, DVector<T>)> = centres(
            &self.sphere,
            &self.settings.small_radius,
            self.settings.design,
        )?
        .into_iter()
        .enumerate()
        .map(|(n, c)| (format!("cubic centre {}", n + 1), c))
        .collect();
        crate::metric::quadratic::check_centres(&m, &cs, design.small_radius())?;
        Ok(m)
    }

    fn value(&self, truth: &CubicMetric<T>, point: &DVector<T>) -> T {
        truth.value(point)
    }

    fn distance(&self, truth: &CubicMetric<T>, point: &DVector<T>) -> Option<T> {
        let cs = centres(
            &self.sphere,
            &self.settings.small_radius,
            self.settings.design,
        )
        .ok()?;
        nearest_optimum(truth, &cs, &self.settings.small_radius, point)
    }

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<CubicEstimate<T>> {
        cubic(&self.sphere, oracle, &self.settings)
    }

    fn report(&self, est: &CubicEstimate<T>, truth: Option<&CubicMetric<T>>) -> Report {
        let q = self.sphere.dim();
        let mut details = Map::new();
        details.insert("queries".into(), est.queries.into());
        details.insert("singular_value_gap".into(), f(&est.gap).into());
        details.insert("lpmes".into(), est.observations.len().into());
        Report {
            elicited: json!({ "a": vec_json(&est.a), "B": mat_json(&est.b), "C": tensor_json(q, &est.c, false) }),
            elicited_exact: json!({ "a": vec_exact(&est.a), "B": mat_exact(&est.b), "C": tensor_json(q, &est.c, true) }),
            words: format!("{} + cubic terms (see C)", words_quadratic(&est.a, &est.b)),
            consistent: Value::from(
                est.observations
                    .iter()
                    .map(|o| consistent_json(&o.consistent))
                    .collect::<Vec<Value>>(),
            ),
            warnings: est.warnings.clone(),
            truth: truth.map(|t| json!({ "a": vec_json(t.a()), "B": mat_json(t.b()), "C": tensor_json(q, t.c(), false) })),
            error: truth.map(|t| {
                let (ea, eb, ec) = t.errors(&est.a, &est.b, &est.c);
                f(&ea).max(f(&eb)).max(f(&ec))
            }),
            details,
        }
    }

    fn present(&self, point: &DVector<T>) -> View {
        let labels = rate_labels(point.len(), self.rates).unwrap_or_default();
        View {
            title: "rates of the classifier, % of each actual class".into(),
            rows: percent_rows(&labels, point),
        }
    }

    fn expected_queries(&self) -> Option<usize> {
        let q = self.sphere.dim();
        Some(design_size(q, self.settings.design) * lpme_queries(q, &self.settings.lpme)?)
    }
}

/// `procedure = "cubic"`.
#[derive(Debug, Clone, Copy)]
pub struct CubicFamily;

impl super::procedure::Family for CubicFamily {
    const NAME: &'static str = "cubic";
    const SUMMARY: &'static str =
        "cubic metric (a, B, C) over a sphere of rates, by a fit of its gradient field (000 §8)";
    type At<T: Scalar> = Cubic<T>;
}

/// Warnings of an estimate as one line each (for tests and reports).
pub fn warning_lines(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(|w| w.message.clone()).collect()
}
