//! The invariants the `bayes` fuzz target checks (shared with the test
//! suite): fuzzer-chosen answers, contradictory sequences included, give a
//! finite posterior, no panic, and either an estimate within its credible
//! set's promise or "undetermined".

use super::families::{BinaryLpm, Dlpm, SphereLpme};
use super::{select, AnswerModel, BayesSettings, Engine, Family, Stop, Watch};
use crate::geometry::sphere::Sphere;
use crate::oracle::Preference;
use crate::population::{LogisticUniform, PairBlocks};
use nalgebra::DVector;

/// Runs the engine on answers read two bits at a time from `data` (00
/// first, 01 second, 10 "can't tell", 11 first) after a header byte that
/// picks the family (binary LPM, LPME q = 3, DLPM k = 3) and the answer
/// model (p = 0, p = 0.1, unknown p, Bradley–Terry or the person model
/// of [`AnswerModel::person`]), and checks the
/// invariants.
///
/// # Errors
/// A description of the first violated invariant.
pub fn answers(data: &[u8]) -> Result<(), String> {
    let Some((&head, rest)) = data.split_first() else {
        return Ok(());
    };
    let model = match (head >> 2) % 4 {
        0 => AnswerModel::Mistakes { p: 0.0 },
        1 => AnswerModel::Mistakes { p: 0.1 },
        2 => AnswerModel::UnknownMistakes {
            alpha: 2.0,
            beta: 18.0,
        },
        _ if (head >> 6) & 1 == 1 => AnswerModel::person(),
        _ => AnswerModel::BradleyTerry { tau: 0.02 },
    };
    let budget = (rest.len() * 4).clamp(1, 48);
    let person = matches!(model, AnswerModel::Person { .. });
    let mut builder = BayesSettings::builder(
        crate::search::Tolerance::new(0.05).map_err(|e| format!("eps: {e}"))?,
    )
    .particles(96)
    .budget(budget)
    .answers(model)
    .max_sweeps(8)
    .seed(u64::from(head));
    if person {
        // Consistency checks early enough for the fuzzer's short runs.
        builder = builder.watch(Watch {
            after: 3,
            every: 2,
            least: 2,
            most: 8,
        });
    }
    let settings = builder.build().map_err(|e| format!("settings: {e}"))?;
    let bits = rest
        .iter()
        .flat_map(|b| (0..4).map(move |k| (b >> (2 * k)) & 3));
    match head % 3 {
        0 => {
            let family = BinaryLpm::new(LogisticUniform::new(5.0).map_err(|e| e.to_string())?);
            run(&family, &settings, bits)
        }
        1 => {
            let sphere =
                Sphere::new(DVector::from_element(3, 0.5), 0.2).map_err(|e| e.to_string())?;
            run(&SphereLpme::new(sphere), &settings, bits)
        }
        _ => {
            let family = Dlpm::new(PairBlocks::new(3, 5.0).map_err(|e| e.to_string())?);
            run(&family, &settings, bits)
        }
    }
}

fn finite(x: f64, what: &str) -> Result<(), String> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(format!("{what} is not finite ({x})"))
    }
}

fn run<F: Family<f64>>(
    family: &F,
    settings: &BayesSettings<f64>,
    mut bits: impl Iterator<Item = u8>,
) -> Result<(), String> {
    let mut engine = Engine::new(family, settings.clone()).map_err(|e| e.to_string())?;
    let eps = *settings.eps();
    let least = settings.watch().map(|w| w.least);
    let stop = loop {
        if least.is_some_and(|l| engine.watched().contradicted(l)) {
            break Stop::Contradicted;
        }
        let summary = engine.summary();
        finite(summary.radius, "the credible radius")?;
        if summary.estimate.iter().any(|x| !x.is_finite()) {
            return Err("the estimate is not finite".into());
        }
        if summary.radius <= eps {
            break Stop::Converged;
        }
        if engine.questions() >= settings.budget() {
            break Stop::Budget;
        }
        let Some(question) = engine.next_question() else {
            break Stop::NoQuestion;
        };
        if !select::visible(
            family,
            &question.first,
            &question.second,
            settings.min_visible(),
        ) {
            return Err(
                "asked a question whose options differ by less than the minimum visible difference"
                    .into(),
            );
        }
        let answer = match bits.next() {
            Some(0) | Some(3) => Preference::First,
            Some(1) => Preference::Second,
            Some(_) => Preference::Indifferent,
            None => break Stop::Budget,
        };
        engine.observe(&question, answer);
    };
    let est = engine.finish(stop, None);
    finite(est.radius, "the final credible radius")?;
    for p in &est.parameters {
        finite(p.value, &p.name)?;
        finite(p.half_width, &format!("{}'s half-width", p.name))?;
    }
    if let Some(rate) = est.mistake_rate {
        if !(0.0..=1.0).contains(&rate) {
            return Err(format!("mistake rate {rate} outside [0, 1]"));
        }
    }
    if !(0.0..=1.0).contains(&est.disagreement) {
        return Err(format!("disagreement {} outside [0, 1]", est.disagreement));
    }
    if est.contradicted() && (est.metric.is_some() || est.undetermined.is_empty()) {
        return Err("contradicted, yet a metric was presented".into());
    }
    if est.metric.is_some() && (est.radius > eps || !est.undetermined.is_empty()) {
        return Err(format!(
            "a metric was presented with credible radius {} > eps {eps} or undetermined {:?}",
            est.radius, est.undetermined
        ));
    }
    if est.radius > eps && (est.metric.is_some() || est.undetermined.is_empty()) {
        return Err(format!(
            "credible radius {} > eps but nothing is reported undetermined",
            est.radius
        ));
    }
    Ok(())
}
