//! The binary procedures' adapters (003): `binary-lpm` ([`BinaryLpm`],
//! §5.1 and App. C), `binary-lfpm` and `binary-lfpm-known-p11`
//! ([`BinaryLfpm`], §5.2 and Cor. 1), over a spec's binary population
//! ([`build::binary`]).

use crate::diagnostics::{Cause, Warning};
use crate::driver::adapter::{
    linear_words, lossy, significant, table, Adapter, Family, Report, View,
};
use crate::driver::build;
use crate::driver::panels;
use crate::driver::present::{times, Names, Panel, Shape, Summary};
use crate::driver::rank::{
    binary_confusion, ClassifierStatistics, Metric as RankMetric, Parameters, PoolStatistics,
    Rankability, Rankable, Statistic,
};
use crate::driver::spec::{num_list_of, Num, PopulationSpec};
use crate::driver::view;
use crate::elicit::binary::{
    alg3_confusions, maximize_upper, ratio_stats, Alg3Settings, BinaryLfpm, BinaryLpm,
    LfpmEstimate, LpmEstimate, Monotonicity,
};
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::geometry::binary::slope;
use crate::metric::binary::{Lfpm, Lpm};
use crate::population::BinaryConfusion;
use crate::scalar::Scalar;
use crate::search::{Consistent, Stop, Strategy, Tolerance};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields of `binary-lpm` (003 §5.1, App. C).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinaryLpmFields {
    /// `increasing` (on ∂C+), `decreasing` (on ∂C−) or `unknown`
    /// (default: one extra query, App. C).
    #[serde(default)]
    pub monotonicity: Option<String>,
}

/// `binary-lpm`: 003 §5.1 LPM elicitation (Alg. 1, or Alg. 1 on ∂C− for
/// decreasing metrics, App. C).
pub struct BinaryLpmAdapter<T: Scalar>(BinaryLpm<T>);

impl<T: Scalar> Adapter<T> for BinaryLpmAdapter<T> {
    type Fields = BinaryLpmFields;
    type Algorithm = BinaryLpm<T>;
    type Truth = Lpm<T>;
    const ERROR: &'static str = "max |m - m^| over (m11, m00), both unit";
    const SINGLE_OPTIMUM: bool = true;

    fn new(
        fields: BinaryLpmFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        Ok(BinaryLpmAdapter(BinaryLpm::new(
            build::binary(population, "binary-lpm")?,
            search,
            monotonicity(fields.monotonicity.as_deref())?,
        )))
    }

    fn algorithm(&self) -> &BinaryLpm<T> {
        &self.0
    }

    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.0.population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<Lpm<T>> {
        lpm_truth(metric, self.0.monotonicity())
    }

    fn distance(&self, truth: &Lpm<T>, point: &BinaryConfusion<T>) -> Option<T> {
        let optimum =
            crate::geometry::binary::bayes_confusion(self.0.population(), &truth.m11, &truth.m00)
                .ok()?;
        Some((point.tp.clone() - optimum.tp).powi(2) + (point.tn.clone() - optimum.tn).powi(2))
    }

    fn report(&self, est: &LpmEstimate<T>, truth: Option<&Lpm<T>>) -> Report {
        let eps = &self.0.search().eps;
        let (theta, m11, m00) = self.reported(est);
        let (elicited, elicited_exact) = table([("m11", &m11), ("m00", &m00)]);
        let (lo, hi) = est.search.consistent.bounds();
        let mut details = Map::new();
        details.insert("theta".into(), lossy(&theta));
        let mut report = Report {
            elicited,
            elicited_exact,
            words: linear_words([("TP".to_string(), &m11), ("TN".to_string(), &m00)]),
            consistent: json!({ "theta": [lo.to_f64_lossy(), hi.to_f64_lossy()] }),
            warnings: crate::geometry::binary::degenerate_warning(self.0.population(), eps)
                .into_iter()
                .chain(est.search.warnings(eps, "boundary search"))
                .collect(),
            details,
            ..Report::default()
        };
        report.warnings.extend(truth.and_then(opposite_signs));
        if let Some(t) = truth {
            report_truth(&mut report, t, &m11, &m00);
        }
        report
    }

    fn view(&self, point: &BinaryConfusion<T>) -> View {
        view::binary(point, &self.0.population().zeta())
    }

    fn shape(&self) -> Shape {
        BINARY_SHAPE
    }

    fn panel(&self, point: &BinaryConfusion<T>, names: &Names) -> Option<Panel> {
        Some(binary_panel(self.0.population(), point, names))
    }

    fn elicited_metric(&self, est: &LpmEstimate<T>) -> Option<Lpm<T>> {
        let (_, m11, m00) = self.reported(est);
        Lpm::new(m11, m00, T::int(0)).ok()
    }

    fn summary(&self, est: &LpmEstimate<T>, names: &Names) -> Option<Summary> {
        let (lo, hi) = est.search.consistent.bounds();
        let (lo, hi) = (lo.to_f64_lossy(), hi.to_f64_lossy());
        let (_, m11, m00) = self.reported(est);
        let (m11, m00) = (m11.to_f64_lossy(), m00.to_f64_lossy());
        let mut undetermined = Vec::new();
        if lo <= hi {
            // m = (cos θ, sin θ): the cost ratio m11/m00 = cot θ.
            let (a, b) = (1.0 / hi.tan(), 1.0 / lo.tan());
            undetermined.push(format!(
                "Your answers leave the cost of a missed {} between {} and {} false alarms.",
                names.class(0),
                ratio_text(a),
                ratio_text(b)
            ));
        } else {
            undetermined.push(
                "Some of your answers contradict each other; the sentence is the middle of where they point."
                    .into(),
            );
        }
        Some(Summary {
            sentence: binary_sentence(names, m11, m00, ""),
            undetermined,
            picture: Some(binary_picture(
                self.0.population(),
                names,
                m11,
                m00,
                &est.search.confusion,
            )),
        })
    }
}

/// The `vertex-optimum` warning for a simulated truth whose weights have
/// opposite signs: its optimum is a trivial classifier (a vertex of C),
/// where every slope on one side gives the same answers (003 Prop. 1), so
/// the answers only bound the metric (either engine).
pub(super) fn opposite_signs<T: Scalar>(t: &Lpm<T>) -> Option<Warning> {
    (t.m11.clone() * t.m00.clone() < T::int(0)).then(|| {
        Warning::new(
            Cause::VertexOptimum,
            format!(
                "the oracle's metric ({}, {}) has weights of opposite signs: its optimum is a trivial classifier, which every slope on that side shares, so the answers only bound the metric",
                t.m11.to_f64_lossy(),
                t.m00.to_f64_lossy()
            ),
        )
    })
}

/// The `monotonicity` field: increasing, decreasing or unknown (default).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `monotonicity`.
pub(super) fn monotonicity(field: Option<&str>) -> Result<Monotonicity> {
    match field {
        None | Some("unknown") => Ok(Monotonicity::Unknown),
        Some("increasing") => Ok(Monotonicity::Increasing),
        Some("decreasing") => Ok(Monotonicity::Decreasing),
        Some(other) => Err(Error::invalid(
            "monotonicity",
            format!("{other:?} is not increasing, decreasing or unknown"),
        )),
    }
}

/// A binary LPM truth from the spec's `oracle.metric`: two finite weights,
/// refused when monotone against the declared `monotonicity`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `oracle.metric…`;
/// A binary LPM's truth (unit weights) and the error of the elicited unit
/// weights (m11, m00) against it: max |m − m̂|, the error both engines
/// report.
pub(super) fn report_truth<T: Scalar>(report: &mut Report, truth: &Lpm<T>, m11: &T, m00: &T) {
    let t = truth.unit();
    report.truth = Some(table([("m11", &t.m11), ("m00", &t.m00)]).0);
    let err = (t.m11.clone() - m11.clone())
        .abs()
        .max((t.m00.clone() - m00.clone()).abs());
    report.error = Some(err.to_f64_lossy());
}

/// [`Error::Assumption`] against the monotonicity.
pub(super) fn lpm_truth<T: Scalar>(metric: &Value, monotonicity: Monotonicity) -> Result<Lpm<T>> {
    // As given: the oracle's noise band ε_Ω is on this scale.
    let v = num_list_of::<T>(metric, "oracle.metric", 2)?;
    for (i, x) in v.iter().enumerate() {
        if !x.finite() {
            return Err(Error::invalid(
                format!("oracle.metric[{i}]"),
                "must be finite",
            ));
        }
    }
    // The declared monotonicity is an assumption about the metric: a
    // simulated metric against it would be elicited on the wrong
    // boundary (issue #29, item 4).
    let (zero, m11, m00) = (T::int(0), &v[0], &v[1]);
    let against = match monotonicity {
        Monotonicity::Increasing => *m11 < zero || *m00 < zero,
        Monotonicity::Decreasing => *m11 > zero || *m00 > zero,
        Monotonicity::Unknown => false,
    };
    if against && m11.clone() * m00.clone() >= zero {
        return Err(Error::Assumption {
            assumption: format!(
                "monotonicity = {:?} (003 §5.1 / App. C)",
                match monotonicity {
                    Monotonicity::Increasing => "increasing",
                    _ => "decreasing",
                }
            ),
            detail: format!(
                "oracle.metric = [{}, {}] is monotone the other way",
                m11.to_f64_lossy(),
                m00.to_f64_lossy()
            ),
        });
    }
    Lpm::new(v[0].clone(), v[1].clone(), T::int(0))
}

impl<T: Scalar> BinaryLpmAdapter<T> {
    /// The metric reported for an estimate, as (θ, m11, m00): the search's
    /// θ̂, or, when ties leave the consistent θ interval wider than ε (a
    /// plateau: "can't tell" answers, or a finite sample's equal values),
    /// the centre of that interval rather than the point in it where the
    /// search happened to stop. The result then lists the plateau under
    /// `undetermined`. The algorithm's own estimate (what the
    /// reproductions use) is unchanged.
    fn reported(&self, est: &LpmEstimate<T>) -> (T, T, T) {
        let eps = self.0.search().eps.get();
        match &est.search.consistent {
            Consistent::Interval { lo, hi }
                if est.search.stop != Stop::Resolution && hi.clone() - lo.clone() > eps.clone() =>
            {
                let centre = (lo.clone() + hi.clone()) / T::int(2);
                let (m11, m00) = slope(&centre);
                (centre, m11, m00)
            }
            _ => (est.search.theta.clone(), est.m11.clone(), est.m00.clone()),
        }
    }
}

/// The classes of the binary procedures (the positive class named first).
pub(super) const BINARY_SHAPE: Shape = Shape {
    classes: Some(2),
    groups: None,
    binary: true,
};

/// A binary confusion in the task's words.
pub(super) fn binary_panel<T: Scalar, P: crate::population::BinaryPopulation<T> + ?Sized>(
    population: &P,
    point: &BinaryConfusion<T>,
    names: &Names,
) -> Panel {
    panels::binary(
        names,
        point.tp.to_f64_lossy(),
        point.tn.to_f64_lossy(),
        population.zeta().to_f64_lossy(),
    )
}

/// A ratio to two significant digits.
fn ratio_text(x: f64) -> String {
    if !x.is_finite() || x > 1e6 {
        "any number of".into()
    } else if x >= 10.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The trade-off of a utility w_tp·TP + w_tn·TN in words: a missed
/// positive loses w_tp, a false alarm w_tn.
pub(super) fn binary_sentence(names: &Names, w_tp: f64, w_tn: f64, qualifier: &str) -> String {
    let (pos, neg) = (names.class(0), names.class(1));
    let missed = format!("a missed {pos} (a {pos} case labelled {neg})");
    let alarm = format!("a false alarm (a {neg} case labelled {pos})");
    let lead = if qualifier.is_empty() {
        String::new()
    } else {
        format!("{qualifier}, ")
    };
    let text = if w_tp <= 0.0 && w_tn <= 0.0 {
        format!("{lead}your answers prefer classifiers with more mistakes: the elicited weights are {w_tp:.3} on found {pos} and {w_tn:.3} on correct {neg} cases")
    } else if w_tn <= 1e-9 * w_tp.abs() {
        format!("{lead}only found {pos} cases matter to you: false alarms cost nothing")
    } else if w_tp <= 1e-9 * w_tn.abs() {
        format!("{lead}only correct {neg} cases matter to you: missed {pos} cases cost nothing")
    } else if w_tp >= w_tn {
        format!("{lead}{missed} costs {} {alarm}", times(w_tp / w_tn))
    } else {
        format!("{lead}{alarm} costs {} {missed}", times(w_tn / w_tp))
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => format!("{}{}.", c.to_uppercase(), chars.as_str()),
        None => text,
    }
}

/// The achievable (TP, TN) region of a binary population in counts of
/// `per` cases (its upper boundary ∂C+ and the lower ∂C−), the elicited
/// weights and the best classifier: the page draws the region and the
/// metric's iso-lines over it.
pub(super) fn binary_picture<T: Scalar, P: crate::population::BinaryPopulation<T> + ?Sized>(
    population: &P,
    names: &Names,
    w_tp: f64,
    w_tn: f64,
    best: &BinaryConfusion<T>,
) -> Value {
    let zeta = population.zeta();
    let per = f64::from(names.per);
    let n = 48;
    let mut upper = Vec::new();
    for i in 0..=n {
        let theta = T::frac_pi_2() * T::from_f64_exact(i as f64 / n as f64);
        if let Ok(c) = crate::geometry::binary::boundary_point(population, &theta) {
            upper.push(c);
        }
    }
    let mut region: Vec<[f64; 2]> = upper
        .iter()
        .map(|c| [per * c.tp.to_f64_lossy(), per * c.tn.to_f64_lossy()])
        .collect();
    region.extend(upper.iter().map(|c| {
        let l = c.complement(&zeta);
        [per * l.tp.to_f64_lossy(), per * l.tn.to_f64_lossy()]
    }));
    json!({
        "kind": "binary",
        "x": format!("{} found, of {} {}", names.class(0), names.per, names.cases),
        "y": format!("{} correct, of {} {}", names.class(1), names.per, names.cases),
        "region": region,
        "weights": [w_tp, w_tn],
        "best": [per * best.tp.to_f64_lossy(), per * best.tn.to_f64_lossy()],
    })
}

/// The spec's own fields of `binary-lfpm` (003 §5.2).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinaryLfpmFields {
    /// Alg. 3: confusions per boundary (default 1000, the paper's).
    #[serde(default)]
    pub alg3_confusions: Option<usize>,
    /// Alg. 3: grid steps, Δ = 1/steps (default 100, the paper's).
    #[serde(default)]
    pub alg3_steps: Option<u32>,
}

/// The spec's own fields of `binary-lfpm-known-p11` (003 Cor. 1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinaryLfpmKnownP11Fields {
    /// The known share p′11 = p11/(p11 + p00) (Fβ: 1).
    pub p11: Option<Num>,
}

/// The report of both LFPM adapters.
fn lfpm_report<T: Scalar>(
    alg: &BinaryLfpm<T>,
    est: &LfpmEstimate<T>,
    truth: Option<&Lfpm<T>>,
) -> Report {
    let eps = &alg.search().eps;
    let m = &est.metric;
    let fields = |m: &'_ Lfpm<T>| {
        table([
            ("p11", &m.p11),
            ("p00", &m.p00),
            ("q11", &m.q11),
            ("q00", &m.q00),
            ("q0", &m.q0),
        ])
    };
    let (elicited, elicited_exact) = fields(m);
    let mut warnings: Vec<Warning> =
        crate::geometry::binary::degenerate_warning(alg.population(), eps)
            .into_iter()
            .collect();
    warnings.extend(est.upper.warnings(eps, "Alg. 1 (upper boundary)"));
    let mut consistent = Map::new();
    let (lo, hi) = est.upper.consistent.bounds();
    consistent.insert(
        "theta_upper".into(),
        json!([lo.to_f64_lossy(), hi.to_f64_lossy()]),
    );
    if let Some(lower) = &est.lower {
        warnings.extend(lower.warnings(eps, "Alg. 2 (lower boundary)"));
        let (lo, hi) = lower.consistent.bounds();
        consistent.insert(
            "theta_lower".into(),
            json!([lo.to_f64_lossy(), hi.to_f64_lossy()]),
        );
    }
    let term = |w: &T, name: &str| (name.to_string(), w.clone());
    let numerator = [term(&m.p11, "TP"), term(&m.p00, "TN")];
    let denominator = [term(&m.q11, "TP"), term(&m.q00, "TN"), term(&m.q0, "1")];
    let words = format!(
        "({}) / ({})",
        linear_words(numerator.iter().map(|(n, w)| (n.clone(), w))),
        linear_words(denominator.iter().map(|(n, w)| (n.clone(), w))).replace("·1", "")
    );
    let mut details = Map::new();
    details.insert("p11_share".into(), lossy(&est.p11));
    let mut report = Report {
        elicited,
        elicited_exact,
        words,
        consistent: Value::Object(consistent),
        warnings,
        details,
        ..Report::default()
    };
    if let Some(t) = truth {
        report.truth = Some(fields(t).0);
        if let Ok((upper, _)) = alg3_confusions(alg.population(), alg.alg3().confusions_per_side) {
            if let Ok((alpha, sigma)) = ratio_stats(m, t, &upper) {
                report.details.insert("alpha".into(), lossy(&alpha));
                report.details.insert("sigma".into(), lossy(&sigma));
                report.error = Some(sigma.to_f64_lossy());
            }
        }
    }
    report
}

/// The LFPM truth from the spec, checked against 003 Assumption 2.
fn lfpm_truth<T: Scalar>(alg: &BinaryLfpm<T>, metric: &Value) -> Result<Lfpm<T>> {
    let v = num_list_of::<T>(metric, "oracle.metric", 5)?;
    let m = Lfpm::new(
        v[0].clone(),
        v[1].clone(),
        v[2].clone(),
        v[3].clone(),
        v[4].clone(),
    )?;
    m.check_assumption2(&alg.population().zeta())?;
    if let Some(known) = alg.known_p11() {
        // 003 Cor. 1 assumes the numerator's share is the one given: a
        // simulated metric with another share would be elicited against a
        // wrong assumption, silently (issue #29, item 4).
        let share = m.p11.clone() / (m.p11.clone() + m.p00.clone());
        let gap = (share.clone() - known.clone()).abs();
        if !(gap.finite() && gap <= T::ratio(1, 1_000_000)) {
            return Err(Error::Assumption {
                assumption: "003 Cor. 1 (the known share p'11)".into(),
                detail: format!(
                    "p11 = {} but oracle.metric's share p11/(p11 + p00) is {}",
                    significant(known.to_f64_lossy()),
                    significant(share.to_f64_lossy())
                ),
            });
        }
    }
    Ok(m)
}

/// The [`Adapter`] items both LFPM adapters share (they differ in their
/// fields and how the algorithm is built).
macro_rules! lfpm_adapter_items {
    () => {
        type Algorithm = BinaryLfpm<T>;
        type Truth = Lfpm<T>;
        const ERROR: &'static str =
            "sigma: standard deviation of phi^/phi over the upper-boundary confusions (003 Table 2)";
        const SINGLE_OPTIMUM: bool = true;

        fn algorithm(&self) -> &BinaryLfpm<T> {
            &self.0
        }

        fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
            self.0.population().warnings()
        }

        fn truth(&self, metric: &Value) -> Result<Lfpm<T>> {
            lfpm_truth(&self.0, metric)
        }

        fn distance(&self, truth: &Lfpm<T>, point: &BinaryConfusion<T>) -> Option<T> {
            let fine = Tolerance::new(T::epsilon().sqrt()).ok()?;
            let optimum = maximize_upper(
                self.0.population(),
                &mut crate::oracle::Simulated::new(truth.clone()),
                &fine,
                Strategy::Golden,
            )
            .ok()?
            .confusion;
            Some((point.tp.clone() - optimum.tp).powi(2) + (point.tn.clone() - optimum.tn).powi(2))
        }

        fn report(&self, est: &LfpmEstimate<T>, truth: Option<&Lfpm<T>>) -> Report {
            lfpm_report(&self.0, est, truth)
        }

        fn view(&self, point: &BinaryConfusion<T>) -> View {
            view::binary(point, &self.0.population().zeta())
        }

        fn shape(&self) -> Shape {
            BINARY_SHAPE
        }

        fn panel(&self, point: &BinaryConfusion<T>, names: &Names) -> Option<Panel> {
            Some(binary_panel(self.0.population(), point, names))
        }

        fn elicited_metric(&self, est: &LfpmEstimate<T>) -> Option<Lfpm<T>> {
            Some(est.metric.clone())
        }

        fn summary(&self, est: &LfpmEstimate<T>, names: &Names) -> Option<Summary> {
            lfpm_summary(self.0.population(), est, names)
        }
    };
}

/// An LFPM for a person: its local trade-off at the best classifier found
/// (the gradient of the ratio there), and the picture.
fn lfpm_summary<T: Scalar, P: crate::population::BinaryPopulation<T> + ?Sized>(
    population: &P,
    est: &LfpmEstimate<T>,
    names: &Names,
) -> Option<Summary> {
    let m = &est.metric;
    let f = |x: &T| x.to_f64_lossy();
    let c = &est.upper.confusion;
    let (tp, tn) = (f(&c.tp), f(&c.tn));
    let num = f(&m.p11) * tp + f(&m.p00) * tn;
    let den = f(&m.q11) * tp + f(&m.q00) * tn + f(&m.q0);
    if den == 0.0 || !den.is_finite() {
        return None;
    }
    let g_tp = (f(&m.p11) * den - num * f(&m.q11)) / (den * den);
    let g_tn = (f(&m.p00) * den - num * f(&m.q00)) / (den * den);
    Some(Summary {
        sentence: format!(
            "{} Your metric is a ratio (like an F-score), so this trade-off changes from one classifier to another.",
            binary_sentence(names, g_tp, g_tn, "near the best classifier your answers point to")
        ),
        undetermined: Vec::new(),
        picture: Some(binary_picture(population, names, g_tp, g_tn, c)),
    })
}

/// `binary-lfpm`: 003 §5.2 (Alg. 1, Alg. 2, Alg. 3).
pub struct BinaryLfpmAdapter<T: Scalar>(BinaryLfpm<T>);

impl<T: Scalar> Adapter<T> for BinaryLfpmAdapter<T> {
    type Fields = BinaryLfpmFields;
    lfpm_adapter_items!();

    fn new(
        fields: BinaryLfpmFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let defaults = Alg3Settings::default();
        let alg3 = Alg3Settings {
            confusions_per_side: fields
                .alg3_confusions
                .unwrap_or(defaults.confusions_per_side),
            steps: fields.alg3_steps.unwrap_or(defaults.steps),
        };
        alg3.check()?;
        let population = build::binary(population, "binary-lfpm")?;
        Ok(BinaryLfpmAdapter(BinaryLfpm::new(
            population, search, alg3, None,
        )?))
    }
}

/// `binary-lfpm-known-p11`: 003 Cor. 1 (Alg. 1 alone, the numerator's
/// share known).
pub struct BinaryLfpmKnownP11Adapter<T: Scalar>(BinaryLfpm<T>);

impl<T: Scalar> Adapter<T> for BinaryLfpmKnownP11Adapter<T> {
    type Fields = BinaryLfpmKnownP11Fields;
    lfpm_adapter_items!();

    fn new(
        fields: BinaryLfpmKnownP11Fields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let p11: T = match &fields.p11 {
            Some(p) => {
                let p: T = p.to_scalar("p11")?;
                if p < T::int(0) || p > T::int(1) {
                    return Err(Error::invalid(
                        "p11",
                        format!(
                            "the share p'11 must lie in [0, 1], got {}",
                            significant(p.to_f64_lossy())
                        ),
                    ));
                }
                p
            }
            None => {
                return Err(Error::invalid(
                    "p11",
                    "binary-lfpm-known-p11 needs the known share p11 (F-beta: 1)",
                ));
            }
        };
        let population = build::binary(population, "binary-lfpm-known-p11")?;
        Ok(BinaryLfpmKnownP11Adapter(BinaryLfpm::new(
            population,
            search,
            Alg3Settings::default(),
            Some(p11),
        )?))
    }
}

/// `binary-lpm`.
pub struct BinaryLpmFamily;
impl Family for BinaryLpmFamily {
    const NAME: &'static str = "binary-lpm";
    const SUMMARY: &'static str =
        "a linear metric m11*TP + m00*TN of binary confusions (003 §5.1, Alg. 1; App. C)";
    type At<T: Scalar> = BinaryLpmAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_lpm);
}

/// `binary-lfpm`.
pub struct BinaryLfpmFamily;
impl Family for BinaryLfpmFamily {
    const NAME: &'static str = "binary-lfpm";
    const SUMMARY: &'static str =
        "a linear-fractional metric of binary confusions (003 §5.2, Alg. 1-3)";
    type At<T: Scalar> = BinaryLfpmAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_lfpm);
}

/// `binary-lfpm-known-p11`.
pub struct BinaryLfpmKnownP11Family;
impl Family for BinaryLfpmKnownP11Family {
    const NAME: &'static str = "binary-lfpm-known-p11";
    const SUMMARY: &'static str =
        "a linear-fractional metric with known numerator share, e.g. F-beta (003 Cor. 1)";
    type At<T: Scalar> = BinaryLfpmKnownP11Adapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_lfpm);
}

// ---- ranking (elicit rank) --------------------------------------------------

/// `binary-lpm`'s result (`{"m11": …, "m00": …}` or `[m11, m00]`) as an
/// [`Lpm`] to rank by.
pub(super) fn rank_lpm(p: &Parameters<'_>) -> Result<RankMetric> {
    let v = p.named(&["m11", "m00"])?;
    Ok(RankMetric::new(p.checked(Lpm::new(v[0], v[1], 0.0))?))
}

/// The LFPM procedures' result (`{"p11", "p00", "q11", "q00", "q0"}` or
/// the five in that order) as an [`Lfpm`] to rank by.
fn rank_lfpm(p: &Parameters<'_>) -> Result<RankMetric> {
    let v = p.named(&["p11", "p00", "q11", "q00", "q0"])?;
    Ok(RankMetric::new(
        p.checked(Lfpm::new(v[0], v[1], v[2], v[3], v[4]))?,
    ))
}

/// 003's LPM on (TP, TN) = (P(Y = 1, h = 1), P(Y = 0, h = 0)), a utility:
/// [`crate::oracle::Metric::value`] at the classifier's
/// [`BinaryConfusion`] (m11·TP + m00·TN + m0, m0 = 0 for a result).
impl Rankable for Lpm<f64> {
    fn family(&self) -> &'static str {
        "binary-linear"
    }

    fn classes(&self) -> Option<usize> {
        Some(2)
    }

    fn statistic(&self) -> Statistic {
        Statistic::JointDiagonal
    }

    fn is_constant(&self) -> bool {
        self.m11 == 0.0 && self.m00 == 0.0
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        Ok(crate::oracle::Metric::value(
            self,
            &binary_confusion(classifier)?,
        ))
    }
}

/// 003's LFPM on (TP, TN), a utility; a classifier where the denominator
/// vanishes is an error naming it.
impl Rankable for Lfpm<f64> {
    fn family(&self) -> &'static str {
        "binary-fractional"
    }

    fn classes(&self) -> Option<usize> {
        Some(2)
    }

    fn statistic(&self) -> Statistic {
        Statistic::JointDiagonal
    }

    /// A zero numerator, or (with q0 = 0) a numerator proportional to the
    /// denominator.
    fn is_constant(&self) -> bool {
        let zero_numerator = self.p11 == 0.0 && self.p00 == 0.0 && self.p0 == 0.0;
        let proportional = self.q0 == 0.0
            && self.p0 == 0.0
            && (self.q11 != 0.0 || self.q00 != 0.0)
            && self.p11 * self.q00 == self.p00 * self.q11;
        zero_numerator || proportional
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        let c = binary_confusion(classifier)?;
        let den = self.denominator(&c);
        if den == 0.0 || !den.is_finite() {
            return Err(Error::invalid(
                "metric",
                format!("the LFPM's denominator vanishes on {}", classifier.name),
            ));
        }
        Ok(crate::oracle::Metric::value(self, &c))
    }
}
