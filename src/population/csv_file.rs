//! Finite populations read from a CSV file with a header row, through the
//! crate's one CSV reader ([`Records`]: quoted fields, CRLF line ends,
//! surrounding spaces, a column named twice refused).
//!
//! Scores are probabilities: a binary score must lie in [0, 1], and a
//! multiclass row of probabilities must have entries in [0, 1] summing to
//! one within [`PROBABILITY_SUM_TOLERANCE`]. Anything else is an
//! [`Error::InvalidArgument`] naming the file, the 1-based line (the header
//! is line 1) and the value.

use super::{FiniteBinary, FiniteMulticlass};
use crate::error::{Error, Result};
use crate::fit::{Record, Records};
use crate::scalar::Scalar;
use std::path::Path;

/// How far a multiclass row of probabilities may sum from 1 (absolute),
/// to allow for probabilities printed to six or more decimals.
pub const PROBABILITY_SUM_TOLERANCE: f64 = 1e-6;

/// The data rows of a score file: a [`Records`] reader (the crate's one
/// CSV reader) with every record read, lines of empty cells skipped.
struct Table {
    file: Records<Box<dyn std::io::Read>>,
    rows: Vec<Record>,
}

impl Table {
    fn read(path: &Path) -> Result<Table> {
        let mut file = Records::open(path, "population")?;
        let mut rows = Vec::new();
        while let Some(record) = file.next_record()? {
            if !record.is_blank() {
                rows.push(record);
            }
        }
        if rows.is_empty() {
            return Err(Error::invalid(
                "population",
                format!("{}: no data rows after the header", file.source()),
            ));
        }
        Ok(Table { file, rows })
    }

    fn column(&self, name: &str, field: &str) -> Result<usize> {
        self.file.column(name, field)
    }

    fn name(&self, column: usize) -> &str {
        &self.file.names()[column]
    }

    fn bad(&self, line: u64, what: String) -> Error {
        self.file.error(line, what)
    }

    fn number<T: Scalar>(&self, record: &Record, column: usize) -> Result<T> {
        self.file.number(record, column)
    }

    fn class(&self, record: &Record, column: usize, k: usize) -> Result<usize> {
        let text = record.cell(column);
        match self.file.code(record, column) {
            Some(v) if v < k => Ok(v),
            _ if k == usize::MAX => Err(self.bad(
                record.line,
                format!(
                    "{} = {text:?} is not a non-negative integer",
                    self.name(column)
                ),
            )),
            _ => Err(self.bad(
                record.line,
                format!(
                    "{} = {text:?} is not a class in 0..{}",
                    self.name(column),
                    k - 1
                ),
            )),
        }
    }
}

/// A binary population from a CSV file: `score` = P(Y = 1 | x) in [0, 1]
/// and `label` ∈ {0, 1}.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::InvalidArgument`]
/// naming the file, line and value for a missing column, a score that is
/// not a probability, or a label that is not 0 or 1.
pub fn binary<T: Scalar>(path: &Path, score: &str, label: &str) -> Result<FiniteBinary<T>> {
    let table = Table::read(path)?;
    let (si, li) = (
        table.column(score, "population.score_column")?,
        table.column(label, "population.label_column")?,
    );
    let (zero, one) = (T::int(0), T::int(1));
    let mut pairs = Vec::with_capacity(table.rows.len());
    for record in &table.rows {
        let s: T = table.number(record, si)?;
        if s < zero || s > one {
            return Err(table.bad(
                record.line,
                format!(
                    "{score} = {} is not a probability in [0, 1]",
                    record.cell(si)
                ),
            ));
        }
        let y = table.class(record, li, 2)?;
        pairs.push((s, y == 1));
    }
    // The reliability check (a diagnostic, in f64).
    let flat: Vec<f64> = pairs
        .iter()
        .flat_map(|(s, _)| {
            let p = s.to_f64_lossy();
            [1.0 - p, p]
        })
        .collect();
    let labels: Vec<usize> = pairs.iter().map(|(_, y)| usize::from(*y)).collect();
    let warnings = super::calibration::check(2, &flat, &labels);
    Ok(FiniteBinary::new(pairs)
        .map_err(|e| Error::invalid("population", format!("{}: {e}", table.file.source())))?
        .with_warnings(warnings.into_iter().collect()))
}

/// A multiclass sample read from a CSV file: probabilities, labels,
/// optional groups, and the reliability check of the probabilities against
/// the labels.
#[derive(Debug)]
pub struct MulticlassCsv<T> {
    /// The population of the probability rows and labels.
    pub population: FiniteMulticlass<T>,
    /// The group of each row (0-based), when a group column was named.
    pub groups: Option<Vec<usize>>,
    /// The reliability check's warning, when the probabilities do not
    /// describe the labels ([`super::calibration`]).
    pub warnings: Vec<crate::diagnostics::Warning>,
}

/// A multiclass population from a CSV file: the columns `probabilities`
/// hold P(Y = i | x) for i = 0..k−1 (each in [0, 1], each row summing to 1
/// within [`PROBABILITY_SUM_TOLERANCE`]), `label` ∈ 0..k−1, and an optional
/// integer group column.
///
/// # Errors
/// As [`binary`], naming the file, line and value.
pub fn multiclass<T: Scalar>(
    path: &Path,
    probabilities: &[String],
    label: &str,
    group: Option<&str>,
) -> Result<MulticlassCsv<T>> {
    let k = probabilities.len();
    if k < 2 {
        return Err(Error::invalid(
            "population.probabilities",
            format!("needs at least two columns, got {k}"),
        ));
    }
    let table = Table::read(path)?;
    let columns: Vec<usize> = probabilities
        .iter()
        .map(|c| table.column(c, "population.probabilities"))
        .collect::<Result<_>>()?;
    let li = table.column(label, "population.label_column")?;
    let gi = group
        .map(|g| table.column(g, "population.group_column"))
        .transpose()?;
    let (zero, one) = (T::int(0), T::int(1));
    let tolerance = T::from_f64_exact(PROBABILITY_SUM_TOLERANCE);
    let mut scores = Vec::with_capacity(table.rows.len() * k);
    let mut labels = Vec::with_capacity(table.rows.len());
    let mut groups = gi.map(|_| Vec::with_capacity(table.rows.len()));
    for record in &table.rows {
        let mut sum = T::int(0);
        for &c in &columns {
            let p: T = table.number(record, c)?;
            if p < zero || p > one {
                return Err(table.bad(
                    record.line,
                    format!(
                        "{} = {} is not a probability in [0, 1]",
                        table.name(c),
                        record.cell(c)
                    ),
                ));
            }
            sum += &p;
            scores.push(p);
        }
        if (sum.clone() - one.clone()).abs() > tolerance {
            return Err(table.bad(
                record.line,
                format!(
                    "the {} probabilities ({}) sum to {} (must be 1 within {PROBABILITY_SUM_TOLERANCE}){}",
                    columns.len(),
                    columns
                        .iter()
                        .map(|c| table.name(*c))
                        .collect::<Vec<_>>()
                        .join(", "),
                    sum.to_f64_lossy(),
                    if sum < one {
                        "; is a class's column missing from probabilities?"
                    } else {
                        ""
                    }
                ),
            ));
        }
        labels.push(table.class(record, li, k)?);
        if let (Some(gi), Some(groups)) = (gi, groups.as_mut()) {
            groups.push(table.class(record, gi, usize::MAX)?);
        }
    }
    let flat: Vec<f64> = scores.iter().map(|p| p.to_f64_lossy()).collect();
    let warnings = super::calibration::check(k, &flat, &labels)
        .into_iter()
        .collect();
    let population = FiniteMulticlass::new(k, scores, labels)
        .map_err(|e| Error::invalid("population", format!("{}: {e}", table.file.source())))?;
    Ok(MulticlassCsv {
        population,
        groups,
        warnings,
    })
}
