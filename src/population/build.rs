//! Populations built from a spec's `[population]` section at precision `T`
//! (shared by every procedure, so each kind is parsed in one place).

use super::{
    csv_file, BinaryPopulation, ExpectedMulticlass, LogisticMulticlass, LogisticUniform,
    MulticlassPopulation,
};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::spec::{PopulationSpec, Scores};

/// A binary population (003) from `spec`: `synthetic-003` or a binary `csv`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field; a population of another
/// kind is refused naming `procedure`.
pub fn binary<T: Scalar>(
    spec: &PopulationSpec,
    procedure: &str,
) -> Result<Box<dyn BinaryPopulation<T> + Send + Sync>> {
    match spec {
        PopulationSpec::Synthetic003 { a } => Ok(Box::new(LogisticUniform::new(
            a.to_scalar::<T>("population.a")?,
        )?)),
        PopulationSpec::Csv {
            path,
            score_column,
            probabilities: None,
            label_column,
            group_column: _,
        } => Ok(Box::new(csv_file::binary::<T>(
            path,
            score_column.as_deref().unwrap_or("score"),
            label_column,
        )?)),
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a binary procedure: give score_column (P(Y = 1 | x)), not probabilities"),
        )),
        other => Err(other.unsupported(procedure, "synthetic-003 or csv")),
    }
}

/// A k-class population from `spec`: `synthetic-002` (logistic or softmax
/// scores), `synthetic-004` (the expected confusions of the 004 §5
/// population) or a multiclass `csv` (labelled confusions).
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
            path,
            score_column: None,
            probabilities: Some(columns),
            label_column,
            group_column,
        } => Ok(Box::new(
            csv_file::multiclass::<T>(path, columns, label_column, group_column.as_deref())?
                .population,
        )),
        PopulationSpec::Csv { .. } => Err(Error::invalid(
            "population.probabilities",
            format!("{procedure} is a multiclass procedure: give probabilities (one column per class), not score_column"),
        )),
        other => Err(other.unsupported(
            procedure,
            "synthetic-002, synthetic-004 or a multiclass csv",
        )),
    }
}
