//! Every procedure `run`, `ask`, `replay` and `rank` know, by spec name.
//! Adding a procedure is one line here.

use super::adapter::Family;
use super::adapters::{bayes, binary, cost_reward, fair, lpme, multiclass, quadratic};
use super::rank::{Metric, Parameters, Rankability};
use super::session::{conduct_family, run_family, ConductBox, Finished, Mode};
use super::spec::{Engine, Spec};
use crate::error::{Error, Result};
use serde_json::Value;

/// A registered procedure.
pub struct Entry {
    /// The spec name.
    pub name: &'static str,
    /// The engine (`engine = …`; the papers' searches by default).
    pub engine: Engine,
    /// Chosen for a spec naming no engine whose oracle prefers `engine`
    /// ([`Family::BY_DEFAULT`]).
    pub by_default: bool,
    /// One line on what it elicits.
    pub summary: &'static str,
    /// Runs it at the spec's precision.
    pub run: fn(&Spec, Mode<'_>) -> Result<Finished>,
    /// Builds it at the spec's precision for an interview, one answer at a
    /// time ([`crate::driver::interview::Interview`]).
    pub conduct: fn(&Spec) -> Result<Box<dyn ConductBox>>,
    /// How `rank` reads its result as a metric, or why it cannot
    /// ([`Family::RANK`]).
    pub rank: Rankability,
}

const fn entry<F: Family>() -> Entry {
    Entry {
        name: F::NAME,
        engine: F::ENGINE,
        by_default: F::BY_DEFAULT,
        summary: F::SUMMARY,
        run: run_family::<F>,
        conduct: conduct_family::<F>,
        rank: F::RANK,
    }
}

/// The registry.
///
/// A `static`, not a `const`: a `const` is copied into every crate that
/// names it, function pointers and all, so each such crate (a test, the
/// Python binding) compiled every procedure at every precision again at
/// opt-level 3. A `static` is one symbol, compiled here once: the workspace
/// crates' build for `cargo test --features mpfr` went from 1 620 s to
/// 1 258 s on 2 cores, `cli/tests/cli.rs` (which reads the names) from 680 s
/// to 14 s.
pub static PROCEDURES: &[Entry] = &[
    entry::<binary::BinaryLpmFamily>(),
    entry::<binary::BinaryLfpmFamily>(),
    entry::<binary::BinaryLfpmKnownP11Family>(),
    entry::<multiclass::DlpmFamily>(),
    entry::<lpme::LpmFamily>(),
    entry::<lpme::LpmeFamily>(),
    entry::<fair::FpmeFamily>(),
    entry::<quadratic::QpmeFamily>(),
    entry::<quadratic::FairQpmeFamily>(),
    entry::<quadratic::QpmeTradeoffFamily>(),
    entry::<quadratic::CubicFamily>(),
    entry::<cost_reward::CostRewardFamily>(),
    entry::<bayes::BayesBinaryLpmFamily>(),
    entry::<bayes::BayesDlpmFamily>(),
    entry::<bayes::BayesLpmeFamily>(),
    entry::<bayes::BayesFpmeFamily>(),
    entry::<bayes::BayesQpmeFamily>(),
    entry::<bayes::BayesCostRewardFamily>(),
    entry::<bayes::BayesFairQpmeFamily>(),
    entry::<bayes::BayesCubicFamily>(),
];

/// The procedure a spec names, with the engine it names; a spec that
/// names none gets [`Spec::default_engine`] where the procedure has it,
/// else the papers' search.
///
/// # Errors
/// As [`find`]; [`Error::InvalidArgument`] naming `engine` when the
/// procedure has no such engine (listing those that have).
pub fn find_for(spec: &Spec) -> Result<&'static Entry> {
    let first = find(&spec.procedure)?;
    let Some(engine) = spec.engine()? else {
        let preferred = spec.default_engine();
        return Ok(PROCEDURES
            .iter()
            .find(|e| e.name == spec.procedure && e.engine == preferred && e.by_default)
            .unwrap_or(first));
    };
    PROCEDURES
        .iter()
        .find(|e| e.name == spec.procedure && e.engine == engine)
        .ok_or_else(|| {
            let with: Vec<&str> = PROCEDURES
                .iter()
                .filter(|e| e.engine == engine)
                .map(|e| e.name)
                .collect();
            Error::invalid(
                "engine",
                format!(
                    "{} has no {} engine (engine = \"{}\" is available for: {})",
                    first.name,
                    engine.name(),
                    engine.name(),
                    with.join(", ")
                ),
            )
        })
}

/// As [`find_for`], and pins the engine found in `spec` (`engine`) and,
/// for the Bayesian engine, the answer model
/// ([`Spec::default_answer_model`], `assumed_mistake_rate`), so that a
/// transcript's header, the result and a replay name the engine and the
/// model that asked, whatever the defaults are when it is read.
///
/// # Errors
/// As [`find_for`].
pub fn resolve(spec: &mut Spec) -> Result<&'static Entry> {
    let entry = find_for(spec)?;
    if spec.engine.is_none() {
        spec.engine = Some(entry.engine.name().to_string());
    }
    if entry.engine == Engine::Bayes && !spec.settings.contains_key(ANSWER_MODEL) {
        let model = spec.default_answer_model();
        spec.settings.insert(ANSWER_MODEL.into(), model.into());
    }
    Ok(entry)
}

/// The spec field naming the Bayesian engine's answer model.
pub(crate) const ANSWER_MODEL: &str = "assumed_mistake_rate";

/// The answer model of a transcript recorded before the model was pinned
/// (2026-12-01): flips at an unknown rate, then every spec's default.
pub(crate) const FORMER_ANSWER_MODEL: &str = "unknown";

/// The procedure named `name` (with the papers' engine where it has
/// several).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `procedure` and listing the known
/// names.
pub fn find(name: &str) -> Result<&'static Entry> {
    PROCEDURES.iter().find(|e| e.name == name).ok_or_else(|| {
        Error::invalid(
            "procedure",
            format!(
                "unknown procedure {name:?} (expected one of {})",
                names().join(", ")
            ),
        )
    })
}

/// Every registered name, in order (once each).
pub fn names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for e in PROCEDURES {
        if !out.contains(&e.name) {
            out.push(e.name);
        }
    }
    out
}

/// Reading a metric for ranking goes through the registry (the procedure
/// names its family), so it is defined here, above the families, and not
/// in [`crate::driver::rank`], which the families use.
impl Metric {
    /// Reads a metric from a result (`{"procedure": …, "elicited": …}`), a
    /// run result's `truth`, or a spec-like `{"procedure": …, "metric": …}`,
    /// in that order of preference, through the registry: the procedure's
    /// [`Rankability`] reads the parameters (optional keys of the file such
    /// as `"statistic"` and `"rates"` choose what the metric reads; see
    /// `docs/real-data.md`), or says why that procedure cannot rank.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field: no procedure, an
    /// unknown one, one whose result cannot rank (with the reason),
    /// parameters of the wrong shape, or a metric that ranks nothing
    /// ([`Rankable::is_constant`](crate::driver::rank::Rankable::is_constant)).
    pub fn from_result(result: &Value) -> Result<Metric> {
        let procedure = result
            .get("procedure")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid("procedure", "the metric file names no procedure"))?;
        let entry = find(procedure)?;
        let (value, field) = ["elicited", "truth", "metric"]
            .iter()
            .find_map(|k| result.get(*k).map(|v| (v, *k)))
            .ok_or_else(|| {
                Error::invalid(
                    "elicited",
                    "the metric file has no elicited, truth or metric field",
                )
            })?;
        let read = match entry.rank {
            Rankability::Reads(read) => read,
            Rankability::Not(why) => {
                return Err(Error::invalid(
                    "procedure",
                    format!("a {procedure} result cannot rank classifiers: {why}"),
                ))
            }
        };
        let metric = read(&Parameters {
            procedure,
            value,
            field,
            file: result,
        })?;
        if metric.is_constant() {
            return Err(Error::invalid(
                field,
                format!(
                    "the {} metric gives every classifier the same value (its weights are all zero, or cancel) and ranks nothing",
                    metric.family()
                ),
            ));
        }
        Ok(metric)
    }
}
