//! Populations built from a spec's `[population]` section at precision `T`
//! (shared by every procedure, so each kind is parsed in one place).

use super::{
    csv_file, BinaryPopulation, DatasetPopulation, ExpectedMulticlass, LogisticMulticlass,
    LogisticUniform, MulticlassPopulation,
};
use crate::error::{Error, Result};
use crate::geometry::groups::Groups;
use crate::scalar::Scalar;
use crate::spec::{PopulationSpec, Scores};

/// `group_column` given to a procedure that does not use groups: a field
/// that does not apply, refused rather than ignored.
fn no_groups(procedure: &str) -> Error {
    Error::invalid(
        "population.group_column",
        format!("{procedure} does not use groups; the fair procedures (fpme, fair-qpme, qpme-tradeoff) take kind = \"groups\", or kind = \"dataset\" with group"),
    )
}

/// A binary population (003) from `spec`: `synthetic-003`, a binary `csv`
/// or a two-class `dataset` (threshold classifiers of the fitted η̂ on the
/// held-out rows).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field; a population of another
/// kind is refused naming `procedure`.
pub fn binary<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<Box<dyn BinaryPopulation<T> + Send + Sync>> {
    match spec {
        PopulationSpec::Synthetic003 { a } => Ok(Box::new(
            LogisticUniform::new(a.to_scalar::<T>("population.a")?).map_err(|e| match e {
                Error::InvalidArgument { name, reason } if name == "a" => {
                    Error::invalid("population.a", reason)
                }
                other => other,
            })?,
        )),
        PopulationSpec::Csv {
            group_column: Some(_),
            ..
        } => Err(no_groups(procedure)),
        PopulationSpec::Csv {
            path,
            score_column,
            probabilities: None,
            label_column,
            group_column: None,
        } => Ok(Box::new(csv_file::binary::<T>(
            path,
            score_column.as_deref().unwrap_or("score"),
            label_column,
        )?)),
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a binary procedure: give score_column (P(Y = 1 | x)), not probabilities"),
        )),
        PopulationSpec::Dataset { .. } => Ok(Box::new(
            DatasetPopulation::<T>::from_spec(spec)?.binary()?.clone(),
        )),
        other => Err(other.unsupported(procedure, "synthetic-003, csv or dataset")),
    }
}

/// A k-class population from `spec`: `synthetic-002` (logistic or softmax
/// scores), `synthetic-004` (the expected confusions of the 004 §5
/// population), a multiclass `csv` (labelled confusions) or a `dataset` (η̂
/// fitted on part of a CSV, RBO classifiers on the held-out rows).
///
/// # Errors
/// As [`binary`].
pub fn multiclass<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<Box<dyn MulticlassPopulation<T> + Send + Sync>> {
    match spec {
        PopulationSpec::Synthetic002 { p, scores } => {
            let p: Vec<T> = p
                .iter()
                .enumerate()
                .map(|(i, v)| v.to_scalar(&format!("population.p[{i}]")))
                .collect::<Result<_>>()?;
            Ok(Box::new(match scores {
                Scores::Logistic => LogisticMulticlass::new(p)?,
                Scores::Softmax => LogisticMulticlass::softmax(p)?,
            }))
        }
        PopulationSpec::Synthetic004 {
            classes,
            rows,
            seed,
        } => Ok(Box::new(ExpectedMulticlass::<T>::synthetic_004(
            *classes, *rows, *seed,
        )?)),
        PopulationSpec::Csv {
            group_column: Some(_),
            ..
        } => Err(no_groups(procedure)),
        PopulationSpec::Csv {
            path,
            score_column: None,
            probabilities: Some(columns),
            label_column,
            group_column: None,
        } => Ok(Box::new(
            csv_file::multiclass::<T>(path, columns, label_column, None)?.population,
        )),
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a multiclass procedure: give probabilities (one column per class), not score_column"),
        )),
        PopulationSpec::Dataset { .. } => Ok(Box::new(DatasetPopulation::<T>::from_spec(spec)?)),
        other => Err(other.unsupported(
            procedure,
            "synthetic-002, synthetic-004, a multiclass csv or dataset",
        )),
    }
}

/// The groups of a fair procedure (001) from `spec`: `groups` (τ, and the
/// common query sphere S_ρ).
///
/// # Errors
/// As [`Groups::from_spec`], naming the field; a population of another
/// kind is refused naming `procedure`.
pub fn groups<T: Scalar>(spec: &PopulationSpec, procedure: &str) -> Result<Groups<T>> {
    Groups::from_spec(spec, procedure)
}
