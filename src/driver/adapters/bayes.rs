//! `engine = "bayes"`: the noise-robust Bayesian engine
//! ([`crate::elicit::bayes`], issue #28) behind a spec, for the procedures
//! that have it. So far `binary-lpm` (003 §5.1's family, elicited from a
//! posterior over the slope instead of the boundary search) and `dlpm`
//! (002's diagonal family, from a posterior over the weights with
//! questions on the faces (r, i) of any pair of classes) and `lpme`
//! (001 App. A's any-sign linear metric over the spec's query sphere, from
//! a posterior over its unit weights) and `fpme` (001's fair metric
//! (a, B, λ) over m groups' rates, from a posterior over
//! ((1 − λ)a, λB) with the disparities |r^u − r^v| as features) and
//! `qpme` (000 Def. 3's quadratic metric over the spec's sphere, from a
//! posterior over (a, B) with questions c ± s·u as wide as the ball allows)
//! and `cost-reward` (004's weights of classes and attributes) and
//! `fair-qpme` (000 Def. 4, a posterior over ((1 − λ)a, λB^{uv})) and
//! `cubic` (000 §8, a posterior over (a, B, C)).
//!
//! The spec's `epsilon` is the credible radius to reach, in the family's
//! error measure (the error `run` reports: binary-lpm max |m − m̂| over
//! the unit weights, dlpm max |a − â| over the ℓ1-normalized weights), not
//! a search interval's width. The result adds
//! `credible` (its level and radius), the estimated mistake rate, the
//! questions and "can't tell" answers, and why the engine stopped; when
//! the radius did not reach ε the parameters still wider than ε are listed
//! under `undetermined` and the exit status is 3.

use crate::diagnostics::{Cause, Warning};
use crate::driver::adapter::{
    exact_list, f64s, linear_words, lossy, lossy_list, table, Adapter, Family, Report, View,
};
use crate::driver::adapters::binary::{
    binary_panel, binary_picture, binary_sentence, lpm_truth, monotonicity, rank_lpm, report_truth,
    BINARY_SHAPE,
};
use crate::driver::adapters::cost_reward;
use crate::driver::adapters::fair::{
    fair_metric, fair_metric_json, fair_summary, fair_table, group_details, groups_panel,
    groups_view, rank_fpme,
};
use crate::driver::adapters::lpme::{
    coordinate_name, mistakes_summary, rank_sphere, sphere_panel, sphere_view, unit_truth,
};
use crate::driver::adapters::multiclass::{diagonal_panel, dlpm_truth, rank_dlpm, weights_summary};
use crate::driver::adapters::quadratic::{
    cubic_report, cubic_sentence, cubic_truth, fair_qpme_report, fair_qpme_sentence, fair_truth,
    group_rates, groups_shape, quadratic_report, quadratic_sentence, quadratic_truth, rank_cubic,
    rank_fair_qpme, rank_qpme, rates_panel, rates_shape, FairQuadraticTruth,
};
use crate::driver::build;
use crate::driver::present::{Names, Panel, Shape, Summary};
use crate::driver::rank::Rankability;
use crate::driver::spec::{AttributeSpec, Engine, Num, PopulationSpec};
use crate::driver::view;
use crate::elicit::bayes::Family as _;
use crate::elicit::bayes::{
    families, AnswerModel, Bayes, BayesEstimate, BayesSettings, Stop, Watch,
};
use crate::elicit::binary::Population;
use crate::elicit::fpme::errors as fpme_errors;
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, GroupRates, Rates};
use crate::geometry::sphere::Sphere;
use crate::metric::binary::Lpm;
use crate::metric::cost_reward::{CostRewardMetric, Statistics};
use crate::metric::fair::{BoundFair, FairMetric};
use crate::metric::quadratic::{CubicMetric, FairQuadraticMetric, QuadraticMetric};
use crate::metric::Linear;
use crate::population::MulticlassPopulation;
use crate::population::{BinaryConfusion, BinaryPopulation};
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields of `binary-lpm` with `engine = "bayes"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesBinaryLpmFields {
    /// increasing | decreasing | unknown (default).
    pub monotonicity: Option<String>,
    /// How the engine assumes the person errs: a probability in [0, 0.5)
    /// of flipping each answer, `"unknown"` (flips at a rate with prior
    /// Beta(2, 18), mean 0.1) or `"person"` (flips at an unknown rate and
    /// confusion near ties at an unknown temperature,
    /// [`AnswerModel::person`]: right behind Bradley–Terry people too, at
    /// more questions). A spec that names none gets
    /// [`crate::driver::spec::Spec::default_answer_model`] pinned: `"person"`
    /// for a person, `"unknown"` for a simulated oracle that only flips;
    /// these fields without it read as `"unknown"`.
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (its particles and moves; default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
    /// The engine's weighted particles (default 1000, from 64 to
    /// [`MAX_PARTICLES`]): more give a credible radius that covers the
    /// truth more nearly as often as its level promises, at about
    /// proportionally more time per question.
    pub particles: Option<usize>,
}

/// `binary-lpm` with `engine = "bayes"`: [`Bayes`] over
/// [`families::BinaryLpm`] on the spec's binary population.
pub struct BayesBinaryLpmAdapter<T: Scalar> {
    algorithm: Bayes<T, families::BinaryLpm<Population<T>>>,
    monotonicity: crate::elicit::binary::Monotonicity,
}

impl<T: Scalar> BayesBinaryLpmAdapter<T> {
    fn population(&self) -> &(dyn BinaryPopulation<T> + Send + Sync) {
        self.algorithm.family().population().as_ref()
    }
}

/// The most particles a spec may ask the engine for: 100 000 hold about
/// 320 MB of projections at the default 400 questions in f64, and take
/// about a hundred times the default's time per question.
pub const MAX_PARTICLES: usize = 100_000;

/// The fields every Bayesian procedure's spec shares, as given.
#[derive(Debug, Clone, Copy, Default)]
pub struct SharedFields<'a> {
    /// `assumed_mistake_rate`.
    pub assumed_mistake_rate: Option<&'a Value>,
    /// `engine_seed`.
    pub engine_seed: Option<u64>,
    /// `max_questions`.
    pub max_questions: Option<usize>,
    /// `particles`.
    pub particles: Option<usize>,
}

/// The fields every Bayesian procedure's spec shares
/// (`assumed_mistake_rate`, `engine_seed`, `max_questions`, `particles`),
/// and the engine's settings they give.
pub trait EngineFields {
    /// The shared fields, as given.
    fn engine_fields(&self) -> SharedFields<'_>;

    /// The engine's settings at the spec's ε.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field.
    fn settings<T: Scalar>(&self, search: Search<T>) -> Result<BayesSettings<T>> {
        settings(search, self.engine_fields())
    }
}

macro_rules! engine_fields {
    ($($fields:ty),*) => {
        $(impl EngineFields for $fields {
            fn engine_fields(&self) -> SharedFields<'_> {
                SharedFields {
                    assumed_mistake_rate: self.assumed_mistake_rate.as_ref(),
                    engine_seed: self.engine_seed,
                    max_questions: self.max_questions,
                    particles: self.particles,
                }
            }
        })*
    };
}
engine_fields!(
    BayesBinaryLpmFields,
    BayesDlpmFields,
    BayesQpmeFields,
    BayesCostRewardFields,
    BayesFairQpmeFields
);

/// The engine's settings from the fields every Bayesian procedure shares.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field.
fn settings<T: Scalar>(search: Search<T>, fields: SharedFields<'_>) -> Result<BayesSettings<T>> {
    let model = answers(fields.assumed_mistake_rate)?;
    // The person model explains answers that follow no metric as a fuzzy
    // person's and would ask until the budget: it watches with
    // consistency checks (docs/measurements/bayes-noise.md).
    let person = matches!(model, AnswerModel::Person { .. });
    let mut settings = BayesSettings::builder(search.eps)
        .answers(model)
        .seed(fields.engine_seed.unwrap_or(0));
    if person {
        settings = settings.watch(Watch::person());
    }
    if let Some(n) = fields.max_questions {
        if n == 0 {
            return Err(Error::invalid(
                "max_questions",
                "needs at least one question",
            ));
        }
        settings = settings.budget(n);
    }
    if let Some(n) = fields.particles {
        if !(64..=MAX_PARTICLES).contains(&n) {
            return Err(Error::invalid(
                "particles",
                format!("must be between 64 and {MAX_PARTICLES}, got {n}"),
            ));
        }
        settings = settings.particles(n);
    }
    settings.build()
}

/// The answer model as a spec names it (`assumed_mistake_rate`): the rate
/// of a known one, `"unknown"`, `"person"`, or `"bradley-terry"` (not a
/// spec's; the library's).
fn model_name<T: Scalar>(model: &AnswerModel<T>) -> Value {
    match model {
        AnswerModel::Mistakes { p } => lossy(p),
        AnswerModel::UnknownMistakes { .. } => json!("unknown"),
        AnswerModel::Person { .. } => json!("person"),
        AnswerModel::BradleyTerry { .. } => json!("bradley-terry"),
    }
}

/// The engine's answer model from `assumed_mistake_rate`.
fn answers<T: Scalar>(field: Option<&Value>) -> Result<AnswerModel<T>> {
    const FIELD: &str = "assumed_mistake_rate";
    match field {
        None => Ok(AnswerModel::UnknownMistakes {
            alpha: T::int(2),
            beta: T::int(18),
        }),
        Some(Value::String(s)) if s == "unknown" => Ok(AnswerModel::UnknownMistakes {
            alpha: T::int(2),
            beta: T::int(18),
        }),
        Some(Value::String(s)) if s == "person" => Ok(AnswerModel::person()),
        Some(Value::String(s)) => Err(Error::invalid(
            FIELD,
            format!("expected a probability, \"unknown\" or \"person\", got {s:?}"),
        )),
        Some(v) => {
            let n: Num = serde_json::from_value(v.clone()).map_err(|_| {
                Error::invalid(
                    FIELD,
                    format!("expected a probability, \"unknown\" or \"person\", got {v}"),
                )
            })?;
            let p: T = n.to_scalar(FIELD)?;
            if p < T::int(0) || p >= T::ratio(1, 2) {
                return Err(Error::invalid(
                    FIELD,
                    format!("must be in [0, 0.5), got {p}"),
                ));
            }
            Ok(AnswerModel::Mistakes { p })
        }
    }
}

/// What every Bayesian result adds (`engine`, `credible` with the
/// `particles` it was computed from, the estimated mistake rate, the
/// disagreement, "can't tell" answers, why it stopped), and its warnings:
/// a quarter of "can't tell" answers is worth saying, but a credible
/// radius within ε determines the metric all the same, so that note is
/// kept out of the warnings (which decide `undetermined`).
fn bayes_details<T: Scalar, M>(
    est: &BayesEstimate<T, M>,
    settings: &BayesSettings<T>,
) -> (Map<String, Value>, Vec<Warning>) {
    let particles = settings.particles();
    let mut details = Map::new();
    details.insert("engine".into(), json!(Engine::Bayes.name()));
    details.insert("answer_model".into(), model_name(settings.answers()));
    details.insert(
        "credible".into(),
        json!({
            "level": lossy(&est.level),
            "radius": lossy(&est.radius),
            "half_widths": est.parameters.iter().map(|p| (p.name.clone(), lossy(&p.half_width))).collect::<Map<String, Value>>(),
            "particles": particles,
        }),
    );
    details.insert(
        "mistake_rate_estimate".into(),
        est.mistake_rate.as_ref().map_or(Value::Null, lossy),
    );
    details.insert("disagreement".into(), lossy(&est.disagreement));
    details.insert("cant_tell".into(), json!(est.ties));
    details.insert("stop".into(), json!(est.stop));
    if let Some(w) = &est.watched {
        details.insert("consistency_checks".into(), json!(w));
    }
    let (warnings, notes): (Vec<Warning>, Vec<Warning>) = est
        .warnings
        .iter()
        .cloned()
        .partition(|w| !(est.determined() && w.cause == Cause::Plateau));
    if !notes.is_empty() {
        details.insert(
            "notes".into(),
            json!(notes.iter().map(|w| w.message.clone()).collect::<Vec<_>>()),
        );
    }
    (details, warnings)
}

/// What the person's answers leave open, in words (the page and `ask`).
fn bayes_open<T: Scalar, M>(est: &BayesEstimate<T, M>, eps: &T) -> Vec<String> {
    let mut open = Vec::new();
    if let (Stop::Contradicted, Some(w)) = (est.stop, &est.watched) {
        open.push(format!(
            "Your answers to {} questions that every metric your other answers allowed would answer alike went the other way {} times: your answers may not follow one metric of this kind.",
            w.judged, w.disagreed
        ));
    }
    if !est.determined() {
        open.push(format!(
            "Your answers leave the weights uncertain by up to {:.2} (95 % credible), more than the {:.2} asked.",
            est.radius.to_f64_lossy(),
            eps.to_f64_lossy()
        ));
    }
    if let Some(p) = &est.mistake_rate {
        open.push(format!(
            "About {:.0} in 100 of your answers disagree with the elicited metric (estimated with it).",
            100.0 * p.to_f64_lossy()
        ));
    }
    open
}

impl<T: Scalar> Adapter<T> for BayesBinaryLpmAdapter<T> {
    type Fields = BayesBinaryLpmFields;
    type Algorithm = Bayes<T, families::BinaryLpm<Population<T>>>;
    type Truth = Lpm<T>;
    const ERROR: &'static str = "max |m - m^| over (m11, m00), both unit";

    fn new(
        fields: BayesBinaryLpmFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let monotonicity = monotonicity(fields.monotonicity.as_deref())?;
        let settings = fields.settings(search)?;
        let family = families::BinaryLpm::with_monotonicity(
            build::binary(population, "binary-lpm")?,
            monotonicity,
        );
        Ok(BayesBinaryLpmAdapter {
            algorithm: Bayes::new(family, settings),
            monotonicity,
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<Lpm<T>> {
        lpm_truth(metric, self.monotonicity)
    }

    fn report(&self, est: &BayesEstimate<T, Lpm<T>>, truth: Option<&Lpm<T>>) -> Report {
        let (m11, m00) = (est.theta[0].clone(), est.theta[1].clone());
        let (elicited, elicited_exact) = table([("m11", &m11), ("m00", &m00)]);
        let (details, warnings) = bayes_details(est, self.algorithm.settings());
        let mut report = Report {
            elicited,
            elicited_exact,
            words: linear_words([("TP".to_string(), &m11), ("TN".to_string(), &m00)]),
            consistent: Value::Null,
            warnings,
            details,
            ..Report::default()
        };
        report
            .warnings
            .extend(truth.and_then(super::binary::opposite_signs));
        if let Some(t) = truth {
            report_truth(&mut report, t, &m11, &m00);
        }
        report
    }

    fn view(&self, point: &BinaryConfusion<T>) -> View {
        view::binary(point, &self.population().zeta())
    }

    fn shape(&self) -> Shape {
        BINARY_SHAPE
    }

    fn panel(&self, point: &BinaryConfusion<T>, names: &Names) -> Option<Panel> {
        Some(binary_panel(self.population(), point, names))
    }

    fn elicited_metric(&self, est: &BayesEstimate<T, Lpm<T>>) -> Option<Lpm<T>> {
        Lpm::new(est.theta[0].clone(), est.theta[1].clone(), T::int(0)).ok()
    }

    fn summary(&self, est: &BayesEstimate<T, Lpm<T>>, names: &Names) -> Option<Summary> {
        let (m11, m00) = (est.theta[0].to_f64_lossy(), est.theta[1].to_f64_lossy());
        let best = self.population().threshold_confusion(
            &est.theta[0],
            &est.theta[1],
            crate::population::Side::Upper,
        );
        Some(Summary {
            sentence: binary_sentence(names, m11, m00, ""),
            undetermined: bayes_open(est, self.algorithm.settings().eps()),
            picture: Some(binary_picture(self.population(), names, m11, m00, &best)),
        })
    }

    fn contradicted(&self, est: &BayesEstimate<T, Lpm<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `binary-lpm` with `engine = "bayes"`.
pub struct BayesBinaryLpmFamily;
impl Family for BayesBinaryLpmFamily {
    const NAME: &'static str = "binary-lpm";
    const SUMMARY: &'static str =
        "a binary linear metric (003 §5.1's family) from a posterior over its slope, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesBinaryLpmAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_lpm);
    const ENGINE: Engine = Engine::Bayes;
}

/// The spec's own fields of `dlpm` with `engine = "bayes"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesDlpmFields {
    /// As binary-lpm's ([`BayesBinaryLpmFields::assumed_mistake_rate`]).
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
    /// The engine's particles, as binary-lpm's
    /// ([`BayesBinaryLpmFields::particles`]).
    pub particles: Option<usize>,
}

/// A k-class population as the driver builds it.
type MulticlassPop<T> = Box<dyn MulticlassPopulation<T> + Send + Sync>;

/// `dlpm` with `engine = "bayes"`: [`Bayes`] over [`families::Dlpm`] on the
/// spec's k-class population.
pub struct BayesDlpmAdapter<T: Scalar> {
    algorithm: Bayes<T, families::Dlpm<MulticlassPop<T>>>,
}

impl<T: Scalar> BayesDlpmAdapter<T> {
    fn population(&self) -> &(dyn MulticlassPopulation<T> + Send + Sync) {
        self.algorithm.family().population().as_ref()
    }
}

impl<T: Scalar> Adapter<T> for BayesDlpmAdapter<T> {
    type Fields = BayesDlpmFields;
    type Algorithm = Bayes<T, families::Dlpm<MulticlassPop<T>>>;
    type Truth = Linear<T>;
    const ERROR: &'static str = "max |a - a^| (both l1-normalized)";

    fn metric_length(classes: usize) -> Option<usize> {
        Some(classes)
    }

    fn new(
        fields: BayesDlpmFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let settings = fields.settings(search)?;
        let family = families::Dlpm::new(build::multiclass(population, "dlpm")?);
        Ok(BayesDlpmAdapter {
            algorithm: Bayes::new(family, settings),
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn population_warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<Linear<T>> {
        dlpm_truth(metric, self.population().classes())
    }

    /// The weights are θ̂/s(θ̂) with s the ℓ1 norm: as the search reports
    /// them.
    fn report(&self, est: &BayesEstimate<T, DVector<T>>, truth: Option<&Linear<T>>) -> Report {
        let a = &est.theta;
        let (details, warnings) = bayes_details(est, self.algorithm.settings());
        let mut report = Report {
            elicited: lossy_list(a.iter()),
            elicited_exact: exact_list(a.iter()),
            words: linear_words(
                a.iter()
                    .enumerate()
                    .map(|(i, w)| (format!("correct(class {})", i + 1), w)),
            ),
            consistent: Value::Null,
            warnings,
            details,
            ..Report::default()
        };
        if let Some(Linear(t)) = truth {
            report.truth = Some(lossy_list(t.iter()));
            report.error = Some((t - a).amax().to_f64_lossy());
        }
        report
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::diagonal(point)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(self.population().classes()),
            ..Shape::default()
        }
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(diagonal_panel(self.population(), point, names))
    }

    fn elicited_metric(&self, est: &BayesEstimate<T, DVector<T>>) -> Option<Linear<T>> {
        Some(Linear(est.theta.clone()))
    }

    fn summary(&self, est: &BayesEstimate<T, DVector<T>>, names: &Names) -> Option<Summary> {
        let a: Vec<f64> = f64s(est.theta.iter());
        let priors: Vec<f64> = f64s(self.population().priors().iter());
        let bounds: Vec<(f64, f64)> = a
            .iter()
            .zip(&est.parameters)
            .map(|(x, p)| {
                let h = p.half_width.to_f64_lossy();
                (x - h, x + h)
            })
            .collect();
        let mut summary = weights_summary(names, &a, &priors, &bounds);
        summary.undetermined = bayes_open(est, self.algorithm.settings().eps());
        Some(summary)
    }

    fn contradicted(&self, est: &BayesEstimate<T, DVector<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `dlpm` with `engine = "bayes"`.
pub struct BayesDlpmFamily;
impl Family for BayesDlpmFamily {
    const NAME: &'static str = "dlpm";
    const SUMMARY: &'static str =
        "a diagonal linear metric of k classes (002's family) from a posterior over its weights, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesDlpmAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_dlpm);
    const ENGINE: Engine = Engine::Bayes;
}

/// The spec's own fields of `lpme` with `engine = "bayes"` (as dlpm's).
pub type BayesLpmeFields = BayesDlpmFields;

/// `lpme` with `engine = "bayes"`: [`Bayes`] over
/// [`families::SphereLpme`] (any signs) on the spec's query sphere (the
/// same sphere the search asks about, [`build::sphere_with_priors`]).
pub struct BayesLpmeAdapter<T: Scalar> {
    algorithm: Bayes<T, families::SphereLpme<T>>,
    classes: Option<usize>,
    priors: Option<Vec<f64>>,
    toward_accurate: Option<f64>,
}

impl<T: Scalar> Adapter<T> for BayesLpmeAdapter<T> {
    type Fields = BayesLpmeFields;
    type Algorithm = Bayes<T, families::SphereLpme<T>>;
    type Truth = Linear<T>;
    const ERROR: &'static str = "max |a - a^| (both unit l2)";

    /// q = k² − k off-diagonal confusions for a k-class population.
    fn metric_length(classes: usize) -> Option<usize> {
        classes.checked_mul(classes).map(|q| q - classes)
    }

    fn new(
        fields: BayesLpmeFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let settings = fields.settings(search)?;
        let parts = build::sphere_with_priors::<T>(population, "lpme")?;
        Ok(BayesLpmeAdapter {
            algorithm: Bayes::new(families::SphereLpme::new(parts.sphere), settings),
            classes: parts.classes,
            priors: parts.priors.map(|p| f64s(p.iter())),
            toward_accurate: parts.toward_accurate,
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<Linear<T>> {
        unit_truth(metric, self.algorithm.family().sphere().dim())
    }

    /// The weights are the posterior mean's direction, â with ‖â‖₂ = 1, as
    /// the search reports them.
    fn report(&self, est: &BayesEstimate<T, DVector<T>>, truth: Option<&Linear<T>>) -> Report {
        let a = &est.theta;
        let (mut details, warnings) = bayes_details(est, self.algorithm.settings());
        details.insert(
            "sphere_radius".into(),
            lossy(self.algorithm.family().sphere().radius()),
        );
        if let Some(t) = self.toward_accurate {
            details.insert("query_center_t".into(), serde_json::json!(t));
        }
        let mut report = Report {
            elicited: lossy_list(a.iter()),
            elicited_exact: exact_list(a.iter()),
            words: linear_words(
                a.iter()
                    .enumerate()
                    .map(|(i, w)| (coordinate_name(self.classes, i), w)),
            ),
            consistent: Value::Null,
            warnings,
            details,
            ..Report::default()
        };
        if let Some(Linear(t)) = truth {
            report.truth = Some(lossy_list(t.iter()));
            report.error = Some((t - a).amax().to_f64_lossy());
        }
        report
    }

    fn view(&self, point: &DVector<T>) -> View {
        sphere_view(self.classes, point)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: self.classes,
            ..Shape::default()
        }
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        sphere_panel(
            self.classes,
            self.priors.as_deref(),
            self.toward_accurate,
            point,
            names,
        )
    }

    fn elicited_metric(&self, est: &BayesEstimate<T, DVector<T>>) -> Option<Linear<T>> {
        Some(Linear(est.theta.clone()))
    }

    fn summary(&self, est: &BayesEstimate<T, DVector<T>>, names: &Names) -> Option<Summary> {
        let a: Vec<f64> = f64s(est.theta.iter());
        let mut summary = mistakes_summary(self.classes, &a, names);
        summary.undetermined = bayes_open(est, self.algorithm.settings().eps());
        Some(summary)
    }

    fn contradicted(&self, est: &BayesEstimate<T, DVector<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `lpme` with `engine = "bayes"`.
pub struct BayesLpmeFamily;
impl Family for BayesLpmeFamily {
    const NAME: &'static str = "lpme";
    const SUMMARY: &'static str =
        "any linear metric over a query sphere (001 App. A's family) from a posterior over its unit weights, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesLpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_sphere);
    const ENGINE: Engine = Engine::Bayes;
}

/// The spec's own fields of `fpme` with `engine = "bayes"` (as dlpm's).
pub type BayesFpmeFields = BayesDlpmFields;

/// `fpme` with `engine = "bayes"`: [`Bayes`] over [`families::Fpme`] on
/// the spec's groups (the same τ and common query sphere radius the search
/// uses; from data the sphere is centred toward the groups' most accurate
/// classifiers unless `query_center = "uniform"`,
/// [`build::groups_centred`]).
pub struct BayesFpmeAdapter<T: Scalar> {
    algorithm: Bayes<T, families::Fpme<T>>,
}

impl<T: Scalar> BayesFpmeAdapter<T> {
    fn groups(&self) -> &crate::geometry::groups::Groups<T> {
        self.algorithm.family().groups()
    }

    /// (a, B, λ) of an estimate, as the family reports its parameters
    /// (a, then each b^(uv), each normalized as 001 §2 asks, then λ).
    fn parts(&self, est: &BayesEstimate<T, FairMetric<T>>) -> (DVector<T>, Vec<DVector<T>>, T) {
        let q = self.groups().dim();
        let blocks = pairs(self.groups().groups()).len();
        let value = |i: usize| {
            est.parameters
                .get(i)
                .map_or_else(|| T::int(0), |p| p.value.clone())
        };
        let a = DVector::from_fn(q, |i, _| value(i));
        let b = (0..blocks)
            .map(|p| DVector::from_fn(q, |i, _| value(q + p * q + i)))
            .collect();
        (a, b, value(q * (1 + blocks)))
    }
}

impl<T: Scalar> Adapter<T> for BayesFpmeAdapter<T> {
    type Fields = BayesFpmeFields;
    type Algorithm = Bayes<T, families::Fpme<T>>;
    type Truth = BoundFair<T>;
    const ERROR: &'static str = "max(||a - a^||2, ||vec(B - B^)||2, |lambda - lambda^|)";

    fn new(
        fields: BayesFpmeFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let settings = fields.settings(search)?;
        // From data, the common sphere toward the groups' most accurate
        // classifiers (unless `query_center = "uniform"`).
        let groups = build::groups_centred(population, "fpme")?;
        Ok(BayesFpmeAdapter {
            algorithm: Bayes::new(families::Fpme::new(groups), settings),
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<BoundFair<T>> {
        let groups = self.groups();
        fair_metric::<T>(metric, groups.groups(), groups.classes())?.bind(groups)
    }

    /// The family's error measure (the search's): the largest of
    /// ‖a − â‖₂, ‖vec(B − B̂)‖₂ and |λ − λ̂|.
    fn report(
        &self,
        est: &BayesEstimate<T, FairMetric<T>>,
        truth: Option<&BoundFair<T>>,
    ) -> Report {
        let (a, b, lambda) = self.parts(est);
        let (mut details, warnings) = bayes_details(est, self.algorithm.settings());
        group_details(self.groups(), &mut details);
        let f = |x: &T| x.to_f64_lossy();
        let weights = |v: &DVector<T>| {
            let inner: Vec<String> = v.iter().map(|x| format!("{:.3}", f(x))).collect();
            format!("({})", inner.join(", "))
        };
        let bs: Vec<String> = pairs(self.groups().groups())
            .iter()
            .zip(&b)
            .map(|((u, v), w)| format!("b^({},{}) = {}", u + 1, v + 1, weights(w)))
            .collect();
        let words = format!(
            "Psi = {:.4} <a, r> + {:.4} sum_(u<v) <b^(uv), |r^u - r^v|> (a cost: smaller is preferred), a = {}, {}",
            1.0 - f(&lambda),
            f(&lambda),
            weights(&a),
            bs.join(", ")
        );
        let mut report = Report {
            elicited: fair_table(&a, &b, &lambda, |x| json!(f(x))),
            elicited_exact: fair_table(&a, &b, &lambda, |x| json!(x.encode())),
            words,
            consistent: Value::Null,
            warnings,
            details,
            ..Report::default()
        };
        if let Some(t) = truth.map(BoundFair::metric) {
            let (ea, eb, el) = fpme_errors(t, &a, &b, &lambda);
            report.details.insert(
                "errors".into(),
                json!({"a": f(&ea), "b": f(&eb), "lambda": f(&el)}),
            );
            report.truth = Some(fair_metric_json(t));
            report.error = Some(f(&ea).max(f(&eb)).max(f(&el)));
        }
        report
    }

    fn view(&self, point: &GroupRates<T>) -> View {
        groups_view(self.groups(), point)
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(self.groups().classes()),
            groups: Some(self.groups().groups()),
            binary: false,
        }
    }

    fn panel(&self, point: &GroupRates<T>, names: &Names) -> Option<Panel> {
        Some(groups_panel(self.groups(), point, names))
    }

    fn elicited_metric(&self, est: &BayesEstimate<T, FairMetric<T>>) -> Option<BoundFair<T>> {
        let (a, b, lambda) = self.parts(est);
        let metric = est
            .metric
            .clone()
            .or_else(|| FairMetric::normalized(a, b, lambda).ok())?;
        metric.bind(self.groups()).ok()
    }

    fn summary(&self, est: &BayesEstimate<T, FairMetric<T>>, names: &Names) -> Option<Summary> {
        let (a, b, lambda) = self.parts(est);
        let mut summary = fair_summary(
            names,
            self.groups().classes(),
            self.groups().groups(),
            &f64s(a.iter()),
            &b.iter().map(|v| f64s(v.iter())).collect::<Vec<_>>(),
            lambda.to_f64_lossy(),
        );
        summary.undetermined = bayes_open(est, self.algorithm.settings().eps());
        Some(summary)
    }

    fn contradicted(&self, est: &BayesEstimate<T, FairMetric<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `fpme` with `engine = "bayes"`.
pub struct BayesFpmeFamily;
impl Family for BayesFpmeFamily {
    const NAME: &'static str = "fpme";
    const SUMMARY: &'static str =
        "fair metric (a, B, lambda) over m groups' rates (001's family) from a posterior over ((1 - lambda) a, lambda B), robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesFpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_fpme);
    const ENGINE: Engine = Engine::Bayes;
    /// A person's default since each step of an interview costs one
    /// question (the engine's memo): on `fpme-ask.toml` (2 groups, 2
    /// classes, ε = 0.05) it shows 26 questions, none invisible, where the
    /// search showed 21 and answered 39 invisible ones "can't tell" for the
    /// person (docs/measurements/web-counts.md). At a lab's ε = 0.001 with
    /// 3 groups and classes (24 parameters) it spends its budget and says
    /// the metric is undetermined.
    const BY_DEFAULT: bool = true;
}

/// The spec's own fields of `qpme` with `engine = "bayes"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesQpmeFields {
    /// As binary-lpm's ([`BayesBinaryLpmFields::assumed_mistake_rate`]).
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
    /// The engine's particles, as binary-lpm's
    /// ([`BayesBinaryLpmFields::particles`]).
    pub particles: Option<usize>,
    /// How a rate vector is shown, as the search's `rates` (default
    /// diagonal).
    pub rates: Option<Rates>,
}

/// The spec's own fields of `qpme` and `cubic` with `engine = "bayes"`.
pub type BayesCubicFields = BayesQpmeFields;

/// What the Bayesian qpme and cubic read from their spec: the engine's
/// settings, the `sphere` population's query sphere and how its rates are
/// shown (checked against the sphere's dimension).
///
/// # Errors
/// As [`EngineFields::settings`], [`build::sphere_population`] and
/// [`view::rate_labels`].
fn ball<T: Scalar>(
    fields: &BayesQpmeFields,
    search: Search<T>,
    population: &PopulationSpec,
    procedure: &str,
) -> Result<(BayesSettings<T>, Sphere<T>, Rates)> {
    let settings = fields.settings(search)?;
    let sphere = build::sphere_population::<T>(population, procedure)?;
    let rates = fields.rates.unwrap_or(Rates::Diagonal);
    view::rate_labels(sphere.dim(), rates)?;
    Ok((settings, sphere, rates))
}

/// `qpme` with `engine = "bayes"`: [`Bayes`] over [`families::Qpme`] (000
/// Def. 3's quadratic metric a·r + ½ rᵀBr, any signs) on the spec's
/// `sphere` population. Every question is a pair c ± s·u symmetric about
/// a point c of the ball, so it asks about the metric's gradient at c; the
/// pairs are as far apart as the ball allows, not on the search's small
/// spheres (whose classifiers a person cannot tell apart).
pub struct BayesQpmeAdapter<T: Scalar> {
    algorithm: Bayes<T, families::Qpme<T>>,
    rates: Rates,
}

impl<T: Scalar> BayesQpmeAdapter<T> {
    /// (a, B) of an estimate (the determined metric, else the normalized
    /// posterior mean read as one).
    /// The query sphere (the family's).
    fn sphere(&self) -> &Sphere<T> {
        self.algorithm.family().sphere()
    }

    fn parts(&self, est: &BayesEstimate<T, QuadraticMetric<T>>) -> (DVector<T>, DMatrix<T>) {
        let q = self.sphere().dim();
        est.metric
            .clone()
            .or_else(|| self.algorithm.family().metric(est.theta.as_slice()).ok())
            .map_or_else(
                || (DVector::zeros(q), DMatrix::zeros(q, q)),
                |m| (m.a().clone(), m.b().clone()),
            )
    }
}

impl<T: Scalar> Adapter<T> for BayesQpmeAdapter<T> {
    type Fields = BayesQpmeFields;
    type Algorithm = Bayes<T, families::Qpme<T>>;
    type Truth = QuadraticMetric<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F)";

    fn new(
        fields: BayesQpmeFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let (settings, sphere, rates) = ball(&fields, search, population, "qpme")?;
        Ok(BayesQpmeAdapter {
            algorithm: Bayes::new(families::Qpme::new(sphere), settings),
            rates,
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<QuadraticMetric<T>> {
        quadratic_truth(metric, self.sphere().dim())
    }

    fn report(
        &self,
        est: &BayesEstimate<T, QuadraticMetric<T>>,
        truth: Option<&QuadraticMetric<T>>,
    ) -> Report {
        let (a, b) = self.parts(est);
        let (mut details, warnings) = bayes_details(est, self.algorithm.settings());
        details.insert("sphere_radius".into(), lossy(self.sphere().radius()));
        Report {
            warnings,
            details,
            ..quadratic_report(&a, &b, truth)
        }
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::rates(point, self.rates)
    }

    fn shape(&self) -> Shape {
        rates_shape(self.sphere().dim(), self.rates)
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(names, self.rates, &[f64s(point.iter())]))
    }

    /// The metric reported (determined or not), as the other Bayesian
    /// adapters judge check questions against theirs.
    fn elicited_metric(
        &self,
        est: &BayesEstimate<T, QuadraticMetric<T>>,
    ) -> Option<QuadraticMetric<T>> {
        let (a, b) = self.parts(est);
        QuadraticMetric::new(a, b).ok()
    }

    fn summary(
        &self,
        est: &BayesEstimate<T, QuadraticMetric<T>>,
        names: &Names,
    ) -> Option<Summary> {
        let (a, b) = self.parts(est);
        Some(Summary {
            sentence: quadratic_sentence(names, self.rates, &a, &b, self.sphere().center()),
            undetermined: bayes_open(est, self.algorithm.settings().eps()),
            picture: None,
        })
    }

    fn contradicted(&self, est: &BayesEstimate<T, QuadraticMetric<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `qpme` with `engine = "bayes"`.
pub struct BayesQpmeFamily;
impl Family for BayesQpmeFamily {
    const NAME: &'static str = "qpme";
    const SUMMARY: &'static str =
        "quadratic metric a.r + r'Br/2 over a sphere of rates (000's family) from a posterior over (a, B), asking pairs a person can tell apart, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesQpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_qpme);
    const ENGINE: Engine = Engine::Bayes;
}

/// The spec's own fields of `cost-reward` with `engine = "bayes"`: the
/// search's attributes, and the engine's settings as dlpm's (no
/// `reference`: the engine weighs every class and attribute at once).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesCostRewardFields {
    /// The attributes, `{ name, kind = "cost" | "reward", lower, upper, unit }`.
    pub attributes: Vec<AttributeSpec>,
    /// As binary-lpm's ([`BayesBinaryLpmFields::assumed_mistake_rate`]).
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
    /// The engine's particles, as binary-lpm's
    /// ([`BayesBinaryLpmFields::particles`]).
    pub particles: Option<usize>,
}

/// `cost-reward` with `engine = "bayes"`: [`Bayes`] over
/// [`families::CostReward`] (004 §2's metric ⟨aᵈ, d⟩ + Σⱼ aⱼ·sⱼ with
/// every weight ≥ 0, ℓ1-normalized) on the spec's k-class population and
/// attributes; its questions are pairs of the search's query spaces (004
/// Alg. 1: the faces and the attribute frontiers), chosen to split the
/// posterior.
pub struct BayesCostRewardAdapter<T: Scalar> {
    algorithm: Bayes<T, families::CostReward<T, MulticlassPop<T>>>,
    units: Vec<Option<String>>,
}

impl<T: Scalar> BayesCostRewardAdapter<T> {
    fn family(&self) -> &families::CostReward<T, MulticlassPop<T>> {
        self.algorithm.family()
    }

    fn classes(&self) -> usize {
        self.family().population().classes()
    }
}

impl<T: Scalar> Adapter<T> for BayesCostRewardAdapter<T> {
    type Fields = BayesCostRewardFields;
    type Algorithm = Bayes<T, families::CostReward<T, MulticlassPop<T>>>;
    type Truth = CostRewardMetric<T>;
    const ERROR: &'static str = "max |a - a^|";

    fn new(
        fields: BayesCostRewardFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let settings = fields.settings(search)?;
        let attributes = cost_reward::attributes::<T>(&fields.attributes)?;
        let population = build::multiclass::<T>(population, "cost-reward")?;
        let family = families::CostReward::new(population, attributes)?;
        Ok(BayesCostRewardAdapter {
            algorithm: Bayes::new(family, settings),
            units: fields.attributes.iter().map(|a| a.unit.clone()).collect(),
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn population_warnings(&self) -> Vec<Warning> {
        self.family().population().warnings()
    }

    fn truth(&self, metric: &Value) -> Result<CostRewardMetric<T>> {
        cost_reward::cost_reward_truth(metric, self.classes(), self.family().attributes())
    }

    /// The weights are the posterior mean θ̂ with ‖θ̂‖₁ = 1 (004's
    /// normalization), as the search reports them.
    fn report(
        &self,
        est: &BayesEstimate<T, CostRewardMetric<T>>,
        truth: Option<&CostRewardMetric<T>>,
    ) -> Report {
        let (k, attributes) = (self.classes(), self.family().attributes());
        let a = &est.theta;
        let readable = |v: &T| json!(v.to_f64_lossy());
        let (details, warnings) = bayes_details(est, self.algorithm.settings());
        Report {
            elicited: cost_reward::table(k, attributes, a, readable),
            elicited_exact: cost_reward::table(k, attributes, a, |v| json!(v.encode())),
            words: cost_reward::cost_reward_words(a, k, attributes),
            consistent: Value::Null,
            warnings,
            truth: truth.map(|t| cost_reward::table(k, attributes, &t.weights(), readable)),
            error: truth.map(|t| (t.weights() - a).amax().to_f64_lossy()),
            details,
        }
    }

    fn view(&self, point: &Statistics<T>) -> View {
        cost_reward::cost_reward_view(
            &self.family().population().priors(),
            self.family().attributes(),
            point,
        )
    }

    fn shape(&self) -> Shape {
        Shape {
            classes: Some(self.classes()),
            ..Shape::default()
        }
    }

    fn panel(&self, point: &Statistics<T>, names: &Names) -> Option<Panel> {
        Some(cost_reward::cost_reward_panel(
            &self.family().population().priors(),
            self.family().attributes(),
            &self.units,
            point,
            names,
        ))
    }

    fn elicited_metric(
        &self,
        est: &BayesEstimate<T, CostRewardMetric<T>>,
    ) -> Option<CostRewardMetric<T>> {
        est.metric
            .clone()
            .or_else(|| self.family().metric(est.theta.as_slice()).ok())
    }

    fn summary(
        &self,
        est: &BayesEstimate<T, CostRewardMetric<T>>,
        names: &Names,
    ) -> Option<Summary> {
        let k = self.classes();
        let w: Vec<f64> = f64s(est.theta.iter());
        Some(Summary {
            sentence: cost_reward::cost_reward_sentence(
                &w[..k],
                &w[k..],
                self.family().attributes(),
                &self.units,
                names,
            ),
            undetermined: bayes_open(est, self.algorithm.settings().eps()),
            picture: None,
        })
    }

    fn contradicted(&self, est: &BayesEstimate<T, CostRewardMetric<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `cost-reward` with `engine = "bayes"`.
pub struct BayesCostRewardFamily;
impl Family for BayesCostRewardFamily {
    const NAME: &'static str = "cost-reward";
    const SUMMARY: &'static str =
        "a diagonal linear metric with named cost and reward attributes (004's family) from a posterior over its weights, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesCostRewardAdapter<T>;
    const RANK: Rankability = Rankability::Reads(cost_reward::rank_cost_reward);
    const ENGINE: Engine = Engine::Bayes;
}

/// The spec's own fields of `fair-qpme` with `engine = "bayes"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesFairQpmeFields {
    /// As binary-lpm's ([`BayesBinaryLpmFields::assumed_mistake_rate`]).
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
    /// The engine's particles, as binary-lpm's
    /// ([`BayesBinaryLpmFields::particles`]).
    pub particles: Option<usize>,
    /// What the groups' rate vectors hold, as the search's `rates`
    /// (default diagonal, 000 Def. 4).
    pub rates: Option<Rates>,
}

/// `fair-qpme` with `engine = "bayes"`: [`Bayes`] over
/// [`families::FairQpme`] (000 Def. 4's fair quadratic metric, a cost
/// (1 − λ)⟨a, lin(r)⟩ + (λ/2)Σ_{u<v}(r^u − r^v)ᵀB^{uv}(r^u − r^v) with
/// a ≥ 0 and every B^{uv} positive semi-definite) on the spec's groups,
/// from a posterior over ((1 − λ)a, λB^{uv}); its questions are pairs of
/// the groups' common query ball chosen to split the posterior (the
/// search's are on small spheres a person cannot tell apart). From data
/// in general rates the common sphere is centred toward the groups' most
/// accurate classifiers unless `query_center = "uniform"`
/// ([`build::groups_centred_with`]).
pub struct BayesFairQpmeAdapter<T: Scalar> {
    algorithm: Bayes<T, families::FairQpme<T>>,
}

impl<T: Scalar> BayesFairQpmeAdapter<T> {
    fn groups(&self) -> &crate::geometry::groups::Groups<T> {
        self.algorithm.family().groups()
    }

    /// (a, B^{uv}, λ) of an estimate (the determined metric, else the
    /// normalized posterior mean read as one; zeros if neither reads).
    fn parts(
        &self,
        est: &BayesEstimate<T, FairQuadraticMetric<T>>,
    ) -> (DVector<T>, Vec<DMatrix<T>>, T) {
        let (q, m) = (self.groups().dim(), self.groups().groups());
        est.metric
            .clone()
            .or_else(|| self.algorithm.family().metric(est.theta.as_slice()).ok())
            .map_or_else(
                || {
                    (
                        DVector::zeros(q),
                        vec![DMatrix::zeros(q, q); pairs(m).len()],
                        T::int(0),
                    )
                },
                |t| (t.a().clone(), t.b().to_vec(), t.lambda().clone()),
            )
    }
}

impl<T: Scalar> Adapter<T> for BayesFairQpmeAdapter<T> {
    type Fields = BayesFairQpmeFields;
    type Algorithm = Bayes<T, families::FairQpme<T>>;
    type Truth = FairQuadraticTruth<T>;
    const ERROR: &'static str = "max(||a - a^||_2, sum ||B^uv - B^^uv||_F, |lambda - lambda^|)";

    fn new(
        fields: BayesFairQpmeFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let settings = fields.settings(search)?;
        let rates = fields.rates.unwrap_or(Rates::Diagonal);
        let groups = build::groups_centred_with(population, "fair-qpme", rates)?;
        Ok(BayesFairQpmeAdapter {
            algorithm: Bayes::new(families::FairQpme::new(groups), settings),
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<FairQuadraticTruth<T>> {
        let groups = self.groups();
        Ok(FairQuadraticTruth {
            metric: fair_truth(metric, groups)?,
            groups: groups.clone(),
        })
    }

    fn report(
        &self,
        est: &BayesEstimate<T, FairQuadraticMetric<T>>,
        truth: Option<&FairQuadraticTruth<T>>,
    ) -> Report {
        let (a, b, lambda) = self.parts(est);
        let (mut details, warnings) = bayes_details(est, self.algorithm.settings());
        group_details(self.groups(), &mut details);
        Report {
            warnings,
            details,
            ..fair_qpme_report(self.groups(), &a, &b, &lambda, truth.map(|t| &t.metric))
        }
    }

    fn view(&self, point: &GroupRates<T>) -> View {
        view::groups_rates(self.groups(), point)
    }

    fn shape(&self) -> Shape {
        groups_shape(self.groups())
    }

    fn panel(&self, point: &GroupRates<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(
            names,
            self.groups().rates(),
            &group_rates(point),
        ))
    }

    fn elicited_metric(
        &self,
        est: &BayesEstimate<T, FairQuadraticMetric<T>>,
    ) -> Option<FairQuadraticTruth<T>> {
        let (a, b, lambda) = self.parts(est);
        let metric = FairQuadraticMetric::new(a, b, lambda, self.groups().rates()).ok()?;
        Some(FairQuadraticTruth {
            metric,
            groups: self.groups().clone(),
        })
    }

    fn summary(
        &self,
        est: &BayesEstimate<T, FairQuadraticMetric<T>>,
        names: &Names,
    ) -> Option<Summary> {
        let (a, _, lambda) = self.parts(est);
        Some(Summary {
            sentence: fair_qpme_sentence(self.groups(), names, &a, &lambda),
            undetermined: bayes_open(est, self.algorithm.settings().eps()),
            picture: None,
        })
    }

    fn contradicted(&self, est: &BayesEstimate<T, FairQuadraticMetric<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `fair-qpme` with `engine = "bayes"`.
pub struct BayesFairQpmeFamily;
impl Family for BayesFairQpmeFamily {
    const NAME: &'static str = "fair-qpme";
    const SUMMARY: &'static str =
        "fair quadratic metric (a, B^uv, lambda) over groups' rates (000 Def. 4) from a posterior over ((1 - lambda) a, lambda B^uv), robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesFairQpmeAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_fair_qpme);
    const ENGINE: Engine = Engine::Bayes;
}

/// `cubic` with `engine = "bayes"`: [`Bayes`] over [`families::Cubic`]
/// (000 §8's cubic metric ⟨a, r⟩ + ½rᵀBr + ⅙C(r, r, r), any signs, with
/// ‖a‖² + ‖B‖²_F + ‖C‖²_F = 1) on the spec's `sphere` population, from a
/// posterior over (a, B, C); its questions are pairs of the query ball as
/// far apart as it allows, as the Bayesian `qpme`'s.
pub struct BayesCubicAdapter<T: Scalar> {
    algorithm: Bayes<T, families::Cubic<T>>,
    rates: Rates,
}

impl<T: Scalar> BayesCubicAdapter<T> {
    fn sphere(&self) -> &Sphere<T> {
        self.algorithm.family().sphere()
    }

    /// (a, B, C) of an estimate (the determined metric, else the
    /// normalized posterior mean read as one; zeros if neither reads).
    fn parts(&self, est: &BayesEstimate<T, CubicMetric<T>>) -> (DVector<T>, DMatrix<T>, Vec<T>) {
        let q = self.sphere().dim();
        est.metric
            .clone()
            .or_else(|| self.algorithm.family().metric(est.theta.as_slice()).ok())
            .map_or_else(
                || {
                    (
                        DVector::zeros(q),
                        DMatrix::zeros(q, q),
                        vec![T::int(0); q * q * q],
                    )
                },
                |m| (m.a().clone(), m.b().clone(), m.c().to_vec()),
            )
    }
}

impl<T: Scalar> Adapter<T> for BayesCubicAdapter<T> {
    type Fields = BayesCubicFields;
    type Algorithm = Bayes<T, families::Cubic<T>>;
    type Truth = CubicMetric<T>;
    const ERROR: &'static str = "max(||a - a^||_2, ||B - B^||_F, ||C - C^||)";

    fn new(
        fields: BayesCubicFields,
        search: Search<T>,
        population: &PopulationSpec,
    ) -> Result<Self> {
        let (settings, sphere, rates) = ball(&fields, search, population, "cubic")?;
        Ok(BayesCubicAdapter {
            algorithm: Bayes::new(families::Cubic::new(sphere), settings),
            rates,
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<CubicMetric<T>> {
        cubic_truth(metric, self.sphere().dim())
    }

    fn report(
        &self,
        est: &BayesEstimate<T, CubicMetric<T>>,
        truth: Option<&CubicMetric<T>>,
    ) -> Report {
        let (a, b, c) = self.parts(est);
        let (mut details, warnings) = bayes_details(est, self.algorithm.settings());
        details.insert("sphere_radius".into(), lossy(self.sphere().radius()));
        Report {
            warnings,
            details,
            ..cubic_report(&a, &b, &c, truth)
        }
    }

    fn view(&self, point: &DVector<T>) -> View {
        view::rates(point, self.rates)
    }

    fn shape(&self) -> Shape {
        rates_shape(self.sphere().dim(), self.rates)
    }

    fn panel(&self, point: &DVector<T>, names: &Names) -> Option<Panel> {
        Some(rates_panel(names, self.rates, &[f64s(point.iter())]))
    }

    fn elicited_metric(&self, est: &BayesEstimate<T, CubicMetric<T>>) -> Option<CubicMetric<T>> {
        let (a, b, c) = self.parts(est);
        CubicMetric::new(a, b, c).ok()
    }

    fn summary(&self, est: &BayesEstimate<T, CubicMetric<T>>, names: &Names) -> Option<Summary> {
        let (a, b, c) = self.parts(est);
        Some(Summary {
            sentence: cubic_sentence(names, self.rates, self.sphere().center(), &a, &b, &c),
            undetermined: bayes_open(est, self.algorithm.settings().eps()),
            picture: None,
        })
    }

    fn contradicted(&self, est: &BayesEstimate<T, CubicMetric<T>>) -> bool {
        est.contradicted()
    }
}

/// The registry's handle of `cubic` with `engine = "bayes"`.
pub struct BayesCubicFamily;
impl Family for BayesCubicFamily {
    const NAME: &'static str = "cubic";
    const SUMMARY: &'static str =
        "cubic metric (a, B, C) over a sphere of rates (000 §8) from a posterior over (a, B, C), asking pairs a person can tell apart, robust to a person's mistakes (issue #28)";
    type At<T: Scalar> = BayesCubicAdapter<T>;
    const RANK: Rankability = Rankability::Reads(rank_cubic);
    const ENGINE: Engine = Engine::Bayes;
}
