//! Populations from a sample held in memory (the `arrays` population of a
//! spec, written by the Python package for `predict_proba` output): the
//! same populations as [`csv_file`](crate::population) builds from a CSV
//! file's columns, with the same checks, naming `population.probabilities`
//! `[row][class]`, `population.labels[row]` or `population.groups`.

use super::{FiniteBinary, FiniteMulticlass};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// How far a row's probabilities may sum from 1 (the CSV reader's bound).
pub const PROBABILITY_SUM_TOLERANCE: f64 = 1e-6;

/// Checks n rows of k probabilities and, for labelled confusions, n
/// labels; returns k.
pub(crate) fn check(probabilities: &[Vec<f64>], labels: Option<&[usize]>) -> Result<usize> {
    let Some(first) = probabilities.first() else {
        return Err(Error::invalid("population.probabilities", "no rows"));
    };
    let k = first.len();
    if k < 2 {
        return Err(Error::invalid(
            "population.probabilities[0]",
            format!("a row needs at least two class probabilities, got {k}"),
        ));
    }
    if let Some(labels) = labels {
        if labels.len() != probabilities.len() {
            return Err(Error::invalid(
                "population.labels",
                format!(
                    "{} labels for {} rows of probabilities",
                    labels.len(),
                    probabilities.len()
                ),
            ));
        }
    }
    for (r, row) in probabilities.iter().enumerate() {
        if row.len() != k {
            return Err(Error::invalid(
                format!("population.probabilities[{r}]"),
                format!("{} values, but row 0 has {k}", row.len()),
            ));
        }
        let mut sum = 0.0;
        for (i, &p) in row.iter().enumerate() {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::invalid(
                    format!("population.probabilities[{r}][{i}]"),
                    format!("{p} is not a probability in [0, 1]"),
                ));
            }
            sum += p;
        }
        if (sum - 1.0).abs() > PROBABILITY_SUM_TOLERANCE {
            return Err(Error::invalid(
                format!("population.probabilities[{r}]"),
                format!("the {k} probabilities sum to {sum} (must be 1 within {PROBABILITY_SUM_TOLERANCE})"),
            ));
        }
        if let Some(&y) = labels.and_then(|l| l.get(r)) {
            if y >= k {
                return Err(Error::invalid(
                    format!("population.labels[{r}]"),
                    format!("class {y} is not below k = {k}"),
                ));
            }
        }
    }
    Ok(k)
}

/// A binary procedure's rows hold two probabilities.
fn two_columns(k: usize) -> Result<()> {
    if k != 2 {
        return Err(Error::invalid(
            "population.probabilities",
            format!("a binary procedure needs two probabilities per row, got {k}"),
        ));
    }
    Ok(())
}

/// A binary population (003) of rows (P(Y = 0 | x), P(Y = 1 | x)) with
/// labels in {0, 1}: threshold classifiers of the second probability,
/// carrying the [`crate::population::calibration`] check's warning when
/// the probabilities do not describe the labels.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the row for a value outside [0, 1], a
/// row not summing to 1, a label not 0 or 1, mismatched lengths, more than
/// two classes, or a sample with one class only.
///
/// # Examples
/// ```
/// use metric_elicitation::population::arrays;
/// let p = arrays::binary::<f64>(&[vec![0.8, 0.2], vec![0.3, 0.7]], &[0, 1]).unwrap();
/// assert_eq!(p.len(), 2);
/// ```
pub fn binary<T: Scalar>(probabilities: &[Vec<f64>], labels: &[usize]) -> Result<FiniteBinary<T>> {
    two_columns(check(probabilities, Some(labels))?)?;
    let pairs = probabilities
        .iter()
        .zip(labels)
        .map(|(row, &y)| (T::from_f64_exact(row[1]), y == 1))
        .collect();
    let flat: Vec<f64> = probabilities.iter().flatten().copied().collect();
    Ok(FiniteBinary::new(pairs)
        .map_err(|e| Error::invalid("population", e.to_string()))?
        .with_warnings(
            crate::population::calibration::check(2, &flat, labels)
                .into_iter()
                .collect(),
        ))
}

/// A binary population with *expected* confusions: row r is class 1 with
/// probability `probabilities[r][1]` (no labels: a classifier's TP and TN
/// are the probabilities' sums, not counts of labels).
///
/// # Errors
/// As [`binary`] for the probabilities; every row certain of one class.
///
/// # Examples
/// ```
/// use metric_elicitation::population::arrays;
/// let p = arrays::binary_expected::<f64>(&[vec![0.8, 0.2], vec![0.3, 0.7]]).unwrap();
/// assert_eq!(p.len(), 2);
/// ```
pub fn binary_expected<T: Scalar>(probabilities: &[Vec<f64>]) -> Result<FiniteBinary<T>> {
    two_columns(check(probabilities, None)?)?;
    let scores = probabilities
        .iter()
        .map(|row| T::from_f64_exact(row[1]))
        .collect();
    FiniteBinary::expected(scores).map_err(|e| Error::invalid("population", e.to_string()))
}

/// A k-class population (002) of n rows of class probabilities with
/// labels: restricted-Bayes-optimal classifiers of the rows, labelled
/// confusions.
///
/// # Errors
/// As [`binary`] (any k ≥ 2).
///
/// # Examples
/// ```
/// use metric_elicitation::population::arrays;
/// let rows = vec![vec![0.7, 0.2, 0.1], vec![0.1, 0.8, 0.1], vec![0.2, 0.2, 0.6]];
/// assert!(arrays::multiclass::<f64>(&rows, &[0, 1, 2]).is_ok());
/// assert!(arrays::multiclass::<f64>(&rows, &[0, 1, 3]).is_err());
/// ```
pub fn multiclass<T: Scalar>(
    probabilities: &[Vec<f64>],
    labels: &[usize],
) -> Result<FiniteMulticlass<T>> {
    let k = check(probabilities, Some(labels))?;
    let scores = probabilities
        .iter()
        .flatten()
        .map(|&p| T::from_f64_exact(p))
        .collect();
    FiniteMulticlass::new(k, scores, labels.to_vec())
        .map_err(|e| Error::invalid("population", e.to_string()))
}

/// A k-class population with *expected* confusions: row r counts
/// `probabilities[r][i]` towards class i (no labels).
///
/// # Errors
/// As [`multiclass`] for the probabilities.
///
/// # Examples
/// ```
/// use metric_elicitation::population::arrays;
/// let rows = vec![vec![0.7, 0.2, 0.1], vec![0.1, 0.8, 0.1]];
/// assert!(arrays::multiclass_expected::<f64>(&rows).is_ok());
/// ```
pub fn multiclass_expected<T: Scalar>(probabilities: &[Vec<f64>]) -> Result<FiniteMulticlass<T>> {
    let k = check(probabilities, None)?;
    let scores = probabilities
        .iter()
        .flatten()
        .map(|&p| T::from_f64_exact(p))
        .collect();
    FiniteMulticlass::expected(k, scores).map_err(|e| Error::invalid("population", e.to_string()))
}
