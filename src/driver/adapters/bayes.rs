//! `engine = "bayes"`: the noise-robust Bayesian engine
//! ([`crate::elicit::bayes`], issue #28) behind a spec, for the procedures
//! that have it. So far `binary-lpm` (003 §5.1's family, elicited from a
//! posterior over the slope instead of the boundary search).
//!
//! The spec's `epsilon` is the credible radius to reach, in the family's
//! error measure (for binary-lpm: max |m − m̂| over the unit weights, the
//! error `run` reports), not a search interval's width. The result adds
//! `credible` (its level and radius), the estimated mistake rate, the
//! questions and "can't tell" answers, and why the engine stopped; when
//! the radius did not reach ε the parameters still wider than ε are listed
//! under `undetermined` and the exit status is 3.

use crate::diagnostics::{Cause, Warning};
use crate::driver::adapter::{linear_words, lossy, table, Adapter, Family, Report, View};
use crate::driver::adapters::binary::{
    binary_panel, binary_picture, binary_sentence, lpm_truth, monotonicity, rank_lpm, BINARY_SHAPE,
};
use crate::driver::build;
use crate::driver::present::{Names, Panel, Shape, Summary};
use crate::driver::rank::Rankability;
use crate::driver::spec::{Engine, Num, PopulationSpec};
use crate::driver::view;
use crate::elicit::bayes::{families, AnswerModel, Bayes, BayesEstimate, BayesSettings};
use crate::elicit::binary::Population;
use crate::elicit::Search;
use crate::error::{Error, Result};
use crate::metric::binary::Lpm;
use crate::population::{BinaryConfusion, BinaryPopulation};
use crate::scalar::Scalar;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The spec's own fields of `binary-lpm` with `engine = "bayes"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayesBinaryLpmFields {
    /// increasing | decreasing | unknown (default).
    pub monotonicity: Option<String>,
    /// How often the engine assumes the person errs: a probability in
    /// [0, 0.5), or `"unknown"` (the default: estimated with the metric
    /// under a Beta(2, 18) prior, mean 0.1).
    pub assumed_mistake_rate: Option<Value>,
    /// The engine's seed (its particles and moves; default 0).
    pub engine_seed: Option<u64>,
    /// The most questions the engine asks (default 400).
    pub max_questions: Option<usize>,
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
        Some(v) => {
            let n: Num = serde_json::from_value(v.clone()).map_err(|_| {
                Error::invalid(
                    FIELD,
                    format!("expected a probability or \"unknown\", got {v}"),
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
        let mut settings = BayesSettings::builder(search.eps)
            .answers(answers(fields.assumed_mistake_rate.as_ref())?)
            .seed(fields.engine_seed.unwrap_or(0));
        if let Some(n) = fields.max_questions {
            if n == 0 {
                return Err(Error::invalid(
                    "max_questions",
                    "needs at least one question",
                ));
            }
            settings = settings.budget(n);
        }
        let family = families::BinaryLpm::with_monotonicity(
            build::binary(population, "binary-lpm")?,
            monotonicity,
        );
        Ok(BayesBinaryLpmAdapter {
            algorithm: Bayes::new(family, settings.build()?),
            monotonicity,
        })
    }

    fn algorithm(&self) -> &Self::Algorithm {
        &self.algorithm
    }

    fn truth(&self, metric: &Value) -> Result<Lpm<T>> {
        lpm_truth(metric, self.monotonicity)
    }

    fn report(&self, est: &BayesEstimate<T, Lpm<T>>, truth: Option<&Lpm<T>>) -> Report {
        let (m11, m00) = (est.theta[0].clone(), est.theta[1].clone());
        let (elicited, elicited_exact) = table([("m11", &m11), ("m00", &m00)]);
        let mut details = Map::new();
        details.insert("engine".into(), json!(Engine::Bayes.name()));
        details.insert(
            "credible".into(),
            json!({
                "level": lossy(&est.level),
                "radius": lossy(&est.radius),
                "half_widths": est.parameters.iter().map(|p| (p.name.clone(), lossy(&p.half_width))).collect::<Map<String, Value>>(),
            }),
        );
        details.insert(
            "mistake_rate_estimate".into(),
            est.mistake_rate.as_ref().map_or(Value::Null, lossy),
        );
        details.insert("disagreement".into(), lossy(&est.disagreement));
        details.insert("cant_tell".into(), json!(est.ties));
        details.insert("stop".into(), json!(est.stop));
        // A quarter of "can't tell" answers is worth saying, but a radius
        // within ε determines the metric all the same: a note then, not a
        // warning that leaves it undetermined.
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
        let mut report = Report {
            elicited,
            elicited_exact,
            words: linear_words([("TP".to_string(), &m11), ("TN".to_string(), &m00)]),
            consistent: Value::Null,
            warnings,
            details,
            ..Report::default()
        };
        if let Some(t) = truth {
            let t = t.unit();
            report.truth = Some(table([("m11", &t.m11), ("m00", &t.m00)]).0);
            let err = (t.m11.clone() - m11.clone())
                .abs()
                .max((t.m00.clone() - m00.clone()).abs());
            report.error = Some(err.to_f64_lossy());
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
        let mut undetermined = Vec::new();
        if !est.determined() {
            undetermined.push(format!(
                "Your answers leave the weights uncertain by up to {:.2} (95 % credible), more than the {:.2} asked.",
                est.radius.to_f64_lossy(),
                self.algorithm.settings().eps().to_f64_lossy()
            ));
        }
        if let Some(p) = &est.mistake_rate {
            undetermined.push(format!(
                "About {:.0} in 100 of your answers disagree with the elicited metric (estimated with it).",
                100.0 * p.to_f64_lossy()
            ));
        }
        Some(Summary {
            sentence: binary_sentence(names, m11, m00, ""),
            undetermined,
            picture: Some(binary_picture(self.population(), names, m11, m00, &best)),
        })
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
