//! The `fpme` adapter: 001 Alg. 1 ([`Fpme`]) over the groups of a spec's
//! `groups` population ([`build::groups`]); the fair metric's table in
//! specs and results.

use crate::driver::adapter::{f64s, Adapter, Family, Report, View};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{percent, Names, Panel, Shape, Summary};
use crate::driver::rank::{
    ClassifierStatistics, Metric as RankMetric, Parameters, PoolStatistics, Rankability, Rankable,
    Statistic,
};
use crate::driver::spec::{num, num_list_of, num_matrix, Num, PopulationSpec};
use crate::elicit::fpme::{
    distance_from_optimum, errors, DeltaRule, Fpme, FpmeEstimate, FpmeSettings, LambdaRule,
};
use crate::elicit::lpme::{AngleOrder, LpmeEstimate};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, GroupRates, Groups};
use crate::metric::fair::{BoundFair, FairMetric};
use crate::scalar::Scalar;
use crate::search::Tolerance;
use nalgebra::DVector;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields of `procedure = "fpme"` (every field optional; the
/// defaults are the efficient setting, [`FpmeSettings::efficient`]).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FpmeFields {
    /// LPME cycles (default 1; the paper: 4).
    #[serde(default)]
    pub cycles: Option<usize>,
    /// `reverse` (default) or `paper` angle order.
    #[serde(default)]
    pub order: Option<AngleOrder>,
    /// `least-squares` (default) or `paper` δ.
    #[serde(default)]
    pub delta: Option<DeltaRule>,
    /// `closed-form` (default), `search` (Alg. 4) or `both`.
    #[serde(default)]
    pub lambda: Option<LambdaRule>,
    /// The group (1-based) that moves in Alg. 4 (default: the best
    /// conditioned; the paper: 1).
    #[serde(default)]
    pub trade_off_group: Option<usize>,
    /// Stop an LPME after a cycle that moved no angle by more than ε.
    #[serde(default)]
    pub stop_early: Option<bool>,
    /// The tolerance every search runs to (default ε/4,
    /// [`crate::elicit::fpme::EFFICIENT_DIVISOR`]: the efficient setting at the accuracy of the
    /// paper's setting at ε; write `search_epsilon = epsilon` to reproduce
    /// the paper).
    #[serde(default)]
    pub search_epsilon: Option<Num>,
}

/// `fpme`: FPME at precision `T`; the population is `kind = "groups"`,
/// the oracle's metric a [`FairMetric`] table.
pub struct FpmeAdapter<T: Scalar>(Fpme<T>);

/// `fpme`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FpmeFamily;

impl Family for FpmeFamily {
    const NAME: &'static str = "fpme";
    const SUMMARY: &'static str =
        "fair metric (a, B, lambda) over m groups' rates: 001 Alg. 1 (FPME)";
    type At<T: Scalar> = FpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_fpme);
}

/// The groups' τ (t^g_i = P(G = g | Y = i), one row per group) and the
/// query sphere's radius ρ, in a fair procedure's result (read off the
/// rows when the population is data).
pub(crate) fn group_details<T: Scalar>(
    groups: &crate::geometry::groups::Groups<T>,
    details: &mut Map<String, Value>,
) {
    let f = |x: &T| x.to_f64_lossy();
    details.insert("sphere_radius".into(), json!(f(groups.radius())));
    details.insert(
        "tau".into(),
        json!((0..groups.groups())
            .map(|g| groups.t(g).iter().map(f).collect::<Vec<_>>())
            .collect::<Vec<_>>()),
    );
}

fn pct<T: Scalar>(v: &T) -> String {
    format!("{:>5.1}", 100.0 * v.to_f64_lossy())
}

impl<T: Scalar> Adapter<T> for FpmeAdapter<T> {
    type Fields = FpmeFields;
    type Algorithm = Fpme<T>;
    type Truth = BoundFair<T>;

    const ERROR: &'static str = "max(||a - a^||2, ||vec(B - B^)||2, |lambda - lambda^|)";

    fn new(fields: FpmeFields, search: Search<T>, population: &PopulationSpec) -> Result<Self> {
        let groups = build::groups(population, FpmeFamily::NAME)?;
        let search_eps = fields
            .search_epsilon
            .as_ref()
            .map(|e| e.to_scalar::<T>("search_epsilon"))
            .transpose()?;
        let mut s = FpmeSettings::efficient(search.eps);
        s.strategy = search.strategy;
        if let Some(c) = fields.cycles {
            if c == 0 {
                return Err(Error::invalid("cycles", "must be at least 1"));
            }
            s.cycles = c;
        }
        if let Some(o) = fields.order {
            s.order = o;
        }
        if let Some(d) = fields.delta {
            s.delta = d;
        }
        if let Some(l) = fields.lambda {
            s.lambda = l;
        }
        if let Some(g) = fields.trade_off_group {
            if g == 0 || g > groups.groups() {
                return Err(Error::invalid(
                    "trade_off_group",
                    format!("must be a group 1..={}, got {g}", groups.groups()),
                ));
            }
            s.trade_off_group = Some(g - 1);
        }
        if let Some(e) = fields.stop_early {
            s.stop_early = e;
        }
        if let Some(e) = search_eps {
            s.eps = Tolerance::new(e)?;
        }
        Ok(FpmeAdapter(Fpme::new(groups, s)))
    }

    fn algorithm(&self) -> &Fpme<T> {
        &self.0
    }

    fn truth(&self, metric: &Value) -> Result<BoundFair<T>> {
        let groups = self.0.groups();
        fair_metric::<T>(metric, groups.groups(), groups.classes())?.bind(groups)
    }

    fn distance(&self, truth: &BoundFair<T>, point: &GroupRates<T>) -> Option<T> {
        distance_from_optimum(self.0.groups(), truth.metric(), point)
    }

    fn report(&self, est: &FpmeEstimate<T>, truth: Option<&BoundFair<T>>) -> Report {
        let truth = truth.map(BoundFair::metric);
        let f = |x: &T| x.to_f64_lossy();
        let readable = |x: &T| json!(f(x));
        let exact = |x: &T| json!(x.encode());
        let m = self.0.groups().groups();
        let words = {
            let weights = |v: &DVector<T>| {
                let inner: Vec<String> = v.iter().map(|x| format!("{:.3}", f(x))).collect();
                format!("({})", inner.join(", "))
            };
            let bs: Vec<String> = pairs(m)
                .iter()
                .zip(&est.b)
                .map(|((u, v), b)| format!("b^({},{}) = {}", u + 1, v + 1, weights(b)))
                .collect();
            format!(
                "Psi = {:.4} <a, r> + {:.4} sum_(u<v) <b^(uv), |r^u - r^v|> (a cost: smaller is preferred), a = {}, {}",
                1.0 - f(&est.lambda),
                f(&est.lambda),
                weights(&est.a),
                bs.join(", ")
            )
        };
        let angles = |e: &LpmeEstimate<T>| -> Value {
            e.consistent
                .iter()
                .map(|c| {
                    let (lo, hi) = c.bounds();
                    json!([f(&lo), f(&hi)])
                })
                .collect()
        };
        let consistent = json!({
            "unit": "radians per LPME angle ([lo, hi]; crossed when the answers contradict each other); lambda in [0, 1]",
            "class": angles(&est.class_part),
            "violation": est.violations.iter().map(|v| json!({
                "sigma": v.sigma.iter().map(|g| g + 1).collect::<Vec<_>>(),
                "e_1": angles(&v.first),
                "e_k": angles(&v.last),
            })).collect::<Vec<_>>(),
            "lambda": est.trade_off.as_ref().and_then(|t| t.consistent.as_ref()).map(|c| {
                let (lo, hi) = c.bounds();
                json!([f(&lo), f(&hi)])
            }),
        });
        let mut details = Map::new();
        group_details(self.0.groups(), &mut details);
        details.insert(
            "queries_per_part".into(),
            json!({
                "class": est.queries.class,
                "violation": est.queries.violation,
                "trade_off": est.queries.trade_off,
                "total": est.queries.total(),
            }),
        );
        details.insert(
            "lambda_closed_form".into(),
            json!(f(&est.lambda_closed_form)),
        );
        details.insert(
            "lambda_search".into(),
            est.lambda_search.as_ref().map_or(Value::Null, readable),
        );
        details.insert("delta_rule".into(), json!(est.reconstruction.rule));
        details.insert(
            "delta".into(),
            json!(est.reconstruction.delta.iter().map(f).collect::<Vec<_>>()),
        );
        details.insert(
            "partitions".into(),
            json!(est
                .violations
                .iter()
                .map(|v| v.sigma.iter().map(|g| g + 1).collect::<Vec<_>>())
                .collect::<Vec<_>>()),
        );
        if let Some(t) = &est.trade_off {
            details.insert(
                "trade_off".into(),
                json!({
                    "group": t.group + 1,
                    "kappa": t.kappa.iter().map(f).collect::<Vec<_>>(),
                    "sin_phi": t.sin_phi.iter().map(f).collect::<Vec<_>>(),
                }),
            );
        }
        if let (Some(alt), Some(b)) = (&est.alternative, est.alternative_b()) {
            details.insert(
                "alternative".into(),
                json!({
                    "delta_rule": alt.rule,
                    "b": b.iter().map(|v| v.iter().map(f).collect::<Vec<_>>()).collect::<Vec<_>>(),
                    "lambda_closed_form": f(&alt.lambda),
                }),
            );
        }
        let error = truth.map(|t| {
            let (ea, eb, el) = errors(t, &est.a, &est.b, &est.lambda);
            details.insert(
                "errors".into(),
                json!({"a": f(&ea), "b": f(&eb), "lambda": f(&el)}),
            );
            if let Some(l) = &est.lambda_search {
                details.insert(
                    "lambda_search_error".into(),
                    json!(f(&(t.lambda().clone() - l.clone()).abs())),
                );
            }
            details.insert(
                "lambda_closed_form_error".into(),
                json!(f(
                    &(t.lambda().clone() - est.lambda_closed_form.clone()).abs()
                )),
            );
            if let Some(b) = est.alternative_b() {
                let (_, eb2, _) = errors(t, &est.a, &b, &est.lambda);
                details.insert("alternative_b_error".into(), json!(f(&eb2)));
            }
            f(&ea).max(f(&eb)).max(f(&el))
        });
        Report {
            elicited: fair_table(&est.a, &est.b, &est.lambda, readable),
            elicited_exact: fair_table(&est.a, &est.b, &est.lambda, exact),
            words,
            consistent,
            warnings: est.warnings.clone(),
            truth: truth.map(fair_metric_json),
            error,
            details,
        }
    }

    fn view(&self, point: &GroupRates<T>) -> View {
        groups_view(self.0.groups(), point)
    }

    fn shape(&self) -> Shape {
        let g = self.0.groups();
        Shape {
            classes: Some(g.classes()),
            groups: Some(g.groups()),
            binary: false,
        }
    }

    fn panel(&self, point: &GroupRates<T>, names: &Names) -> Option<Panel> {
        Some(groups_panel(self.0.groups(), point, names))
    }

    fn elicited_metric(&self, est: &FpmeEstimate<T>) -> Option<BoundFair<T>> {
        let clip = |v: &DVector<T>| v.map(|x| if x < T::int(0) { T::int(0) } else { x });
        let metric = FairMetric::normalized(
            clip(&est.a),
            est.b.iter().map(clip).collect(),
            est.lambda.clone(),
        )
        .ok()?;
        metric.bind(self.0.groups()).ok()
    }

    fn summary(&self, est: &FpmeEstimate<T>, names: &Names) -> Option<Summary> {
        let k = self.0.groups().classes();
        let m = self.0.groups().groups();
        Some(fair_summary(
            names,
            k,
            m,
            &f64s(est.a.iter()),
            &est.b.iter().map(|b| f64s(b.iter())).collect::<Vec<_>>(),
            est.lambda.to_f64_lossy(),
        ))
    }
}

/// A point of m groups' rates as a table: each group's error rates in %
/// of the actual class (the fair procedures' terminal view).
pub(crate) fn groups_view<T: Scalar>(groups: &Groups<T>, point: &GroupRates<T>) -> View {
    let (m, k) = (groups.groups(), groups.classes());
    let width = 6 * k;
    let header: Vec<String> = (0..m)
        .map(|g| format!("{:^width$}", format!("group {}", g + 1)))
        .collect();
    let predicted: Vec<String> = (0..m)
        .map(|_| {
            (0..k)
                .map(|j| format!("{:>5} ", format!("->{}", j + 1)))
                .collect()
        })
        .collect();
    let mut rows = vec![
        format!("         {}", header.join(" | ")),
        format!("actual   {}", predicted.join(" | ")),
    ];
    let valid = groups.check(point).is_ok();
    for i in 0..k {
        let cells: Vec<String> = (0..m)
            .map(|g| {
                (0..k)
                    .map(|j| match crate::geometry::groups::rate_index(k, i, j) {
                        Some(idx) if valid => format!("{} ", pct(&point.group(g)[idx])),
                        _ => "    - ".to_string(),
                    })
                    .collect()
            })
            .collect();
        rows.push(format!("class {:<2} {}", i + 1, cells.join(" | ")));
    }
    View {
        title: "error rates per group, in % of the actual class: P(predicted j | actual i, group g); '-' marks correct predictions".into(),
        rows,
    }
}

/// The rates of each group in the task's words.
pub(crate) fn groups_panel<T: Scalar>(
    groups: &Groups<T>,
    point: &GroupRates<T>,
    names: &Names,
) -> Panel {
    let rates: Vec<Vec<f64>> = (0..point.groups())
        .map(|u| point.group(u).iter().map(|x| x.to_f64_lossy()).collect())
        .collect();
    panels::rates(names, groups.classes(), false, &rates)
}

/// The name of off-diagonal rate `idx` of k classes: "a X case labelled Y".
pub(crate) fn mistake_name(names: &Names, k: usize, idx: usize) -> String {
    match crate::geometry::groups::rate_entry(k, idx) {
        Some((i, j)) => format!("a {} case labelled {}", names.class(i), names.class(j)),
        None => format!("rate {}", idx + 1),
    }
}

/// A fair metric (a cost: errors weighted by a, and the groups' differences
/// weighted by b, traded by λ) for a person.
pub(crate) fn fair_summary(
    names: &Names,
    k: usize,
    m: usize,
    a: &[f64],
    b: &[Vec<f64>],
    lambda: f64,
) -> Summary {
    let argmax = |v: &[f64]| {
        (0..v.len())
            .max_by(|i, j| {
                v[*i]
                    .partial_cmp(&v[*j])
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .unwrap_or(0)
    };
    let worst = argmax(a);
    let mut sentence = format!(
        "Mistakes weigh {} and unfairness (a difference between the groups' rates) {} in your choices. The costliest mistake is {}",
        percent(1.0 - lambda),
        percent(lambda),
        mistake_name(names, k, worst)
    );
    let second = (0..a.len()).filter(|i| *i != worst).max_by(|i, j| {
        a[*i]
            .partial_cmp(&a[*j])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    if let Some(s) = second {
        if a[worst] > 0.0 {
            sentence.push_str(&format!(
                " ({} the next, {})",
                crate::driver::present::times(a[worst] / a[s].max(1e-12)),
                mistake_name(names, k, s)
            ));
        }
    }
    sentence.push('.');
    let pair_names = pairs(m);
    let mut best: Option<(usize, usize, f64)> = None;
    for (p, bp) in b.iter().enumerate() {
        for (i, v) in bp.iter().enumerate() {
            if best.is_none_or(|(_, _, w)| *v > w) {
                best = Some((p, i, *v));
            }
        }
    }
    if let Some((p, i, _)) = best {
        let (u, v) = pair_names[p];
        sentence.push_str(&format!(
            " The unfairness that costs most: {} and {} differing in {}.",
            names.group(u),
            names.group(v),
            mistake_name(names, k, i).replacen("a ", "how often ", 1)
        ));
    }
    Summary {
        sentence,
        undetermined: Vec::new(),
        picture: Some(json!({
            "kind": "fair",
            "lambda": lambda,
            "mistakes": (0..a.len()).map(|i| mistake_name(names, k, i)).collect::<Vec<_>>(),
            "a": a,
        })),
    }
}

/// A [`FairMetric`] from a spec's `oracle.metric` table: `a` (q numbers),
/// `b` (C(m, 2) lists of q numbers, pairs in the order (1,2), (1,3), …),
/// `lambda`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.metric.…`; as
/// [`FairMetric::new`].
pub fn fair_metric<T: Scalar>(value: &Value, m: usize, k: usize) -> Result<FairMetric<T>> {
    let q = k * k - k;
    let field = |name: &str| format!("oracle.metric.{name}");
    let get = |name: &str| {
        value.get(name).ok_or_else(|| {
            Error::invalid(
                field(name),
                "missing (the fair metric is a table with a, b and lambda)",
            )
        })
    };
    if let Some(map) = value.as_object() {
        if let Some(other) = map
            .keys()
            .find(|k| !["a", "b", "lambda"].contains(&k.as_str()))
        {
            return Err(Error::invalid(
                field(other),
                "unknown key (the fair metric has a, b and lambda)",
            ));
        }
    } else {
        return Err(Error::invalid(
            "oracle.metric",
            "expected a table with a, b and lambda",
        ));
    }
    let a = DVector::from_vec(num_list_of::<T>(get("a")?, &field("a"), q)?);
    let b = num_matrix::<T>(get("b")?, &field("b"), m * (m - 1) / 2, q)?
        .into_iter()
        .map(DVector::from_vec)
        .collect();
    let lambda = num::<T>(get("lambda")?, &field("lambda"))?;
    FairMetric::new(a, b, lambda)
}

/// The metric as the spec's table (`f64` numbers) — the shape of
/// `oracle.metric` and of a result's `elicited`.
pub fn fair_metric_json<T: Scalar>(metric: &FairMetric<T>) -> Value {
    fair_table(metric.a(), metric.b(), metric.lambda(), |x| {
        json!(x.to_f64_lossy())
    })
}

/// The fair metric's three parts as the spec's table, each number written
/// by `number`.
pub fn fair_table<T: Scalar>(
    a: &DVector<T>,
    b: &[DVector<T>],
    lambda: &T,
    number: impl Fn(&T) -> Value,
) -> Value {
    json!({
        "a": a.iter().map(&number).collect::<Vec<_>>(),
        "b": b.iter().map(|v| v.iter().map(&number).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "lambda": number(lambda),
    })
}

// ---- ranking (elicit rank) --------------------------------------------------

/// `fpme`'s result (`{"a": [q], "B": [C(m, 2) lists of q], "lambda": λ}`;
/// `b` for `B` as in specs) as a [`FairMetric`] with its weights as given
/// ([`FairMetric::as_given`]), q = k² − k off-diagonal rates and
/// 0 ≤ λ ≤ 1.
pub(crate) fn rank_fpme(p: &Parameters<'_>) -> Result<RankMetric> {
    let a = p.numbers(p.get(&["a"])?, "a")?;
    let b = p.get(&["B", "b"])?;
    let b: Vec<DVector<f64>> = b
        .as_array()
        .ok_or_else(|| {
            Error::invalid(
                p.name("B"),
                "expected a list of weight lists, one per pair of groups",
            )
        })?
        .iter()
        .enumerate()
        .map(|(i, v)| p.numbers(v, &format!("B[{i}]")).map(DVector::from_vec))
        .collect::<Result<_>>()?;
    let lambda = p.number(p.get(&["lambda"])?, "lambda")?;
    if !(0.0..=1.0).contains(&lambda) {
        return Err(Error::invalid(
            p.name("lambda"),
            format!("the trade-off must lie in [0, 1], got {lambda}"),
        ));
    }
    if Statistic::RatesOffDiagonal.classes(a.len()).is_none() {
        return Err(Error::invalid(
            p.name("a"),
            format!(
                "{} weights: a fair metric weighs the k² − k = 2, 6, 12, … off-diagonal rates",
                a.len()
            ),
        ));
    }
    let metric = p.checked(FairMetric::as_given(DVector::from_vec(a), b, lambda))?;
    Ok(RankMetric::new(metric))
}

/// 001's fair metric, a cost: each group's off-diagonal rates with the
/// data's τ, evaluated by [`FairMetric::cost_left_to_right`].
impl Rankable for FairMetric<f64> {
    fn family(&self) -> &'static str {
        "fair"
    }

    fn is_cost(&self) -> bool {
        true
    }

    fn classes(&self) -> Option<usize> {
        Statistic::RatesOffDiagonal.classes(self.dim())
    }

    fn groups(&self) -> Option<usize> {
        Some(FairMetric::groups(self))
    }

    fn statistic(&self) -> Statistic {
        Statistic::RatesOffDiagonal
    }

    /// (1 − λ)·a = 0 and λ·b = 0.
    fn is_constant(&self) -> bool {
        let lambda = *self.lambda();
        let accuracy = lambda == 1.0 || self.a().iter().all(|w| *w == 0.0);
        let fairness = lambda == 0.0 || self.b().iter().flatten().all(|w| *w == 0.0);
        accuracy && fairness
    }

    fn value(&self, classifier: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64> {
        let statistic = Statistic::RatesOffDiagonal;
        self.cost_left_to_right(
            &pool.shares(statistic),
            &pool.group_rates(classifier, statistic)?,
        )
    }
}
