//! Finite populations read from a CSV file with a header row (parsed with
//! the `csv` crate: quoted fields, CRLF line ends, surrounding spaces).
//!
//! Scores are probabilities: a binary score must lie in [0, 1], and a
//! multiclass row of probabilities must have entries in [0, 1] summing to
//! one within [`PROBABILITY_SUM_TOLERANCE`]. Anything else is an
//! [`Error::InvalidArgument`] naming the file, the 1-based line (the header
//! is line 1) and the value.

use super::{FiniteBinary, FiniteMulticlass};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::path::Path;

/// How far a multiclass row of probabilities may sum from 1 (absolute),
/// to allow for probabilities printed to six or more decimals.
pub const PROBABILITY_SUM_TOLERANCE: f64 = 1e-6;

/// The rows of a CSV file, with the header's column names.
struct Table {
    path: String,
    header: Vec<String>,
    /// (1-based line, fields).
    rows: Vec<(u64, Vec<String>)>,
}

fn io(path: &Path) -> impl Fn(String) -> Error + '_ {
    move |message| Error::Io {
        path: path.display().to_string(),
        message,
    }
}

impl Table {
    fn read(path: &Path) -> Result<Table> {
        let bytes = std::fs::read(path).map_err(|e| io(path)(e.to_string()))?;
        // 1-based line of a byte offset, counted here (the parser's own line
        // count skips quoted header lines).
        let newlines: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i)
            .collect();
        // The parser may report a record's start on the previous line's
        // terminator; skip terminators before counting.
        let line_of = |byte: u64| {
            let mut at = byte as usize;
            while bytes.get(at).is_some_and(|b| *b == b'\n' || *b == b'\r') {
                at += 1;
            }
            newlines.partition_point(|&i| i < at) as u64 + 1
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_reader(bytes.as_slice());
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| io(path)(e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| line_of(p.byte()));
                Error::invalid(
                    "population",
                    format!("{}:{line}: {}", path.display(), one_line(&e.to_string())),
                )
            })?;
            if record.iter().all(str::is_empty) {
                continue;
            }
            let line = record.position().map_or(0, |p| line_of(p.byte()));
            rows.push((line, record.iter().map(str::to_string).collect()));
        }
        if rows.is_empty() {
            return Err(Error::invalid(
                "population",
                format!("{}: no data rows after the header", path.display()),
            ));
        }
        Ok(Table {
            path: path.display().to_string(),
            header,
            rows,
        })
    }

    fn column(&self, name: &str, field: &str) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            Error::invalid(
                field,
                format!(
                    "{}: no column {name:?} (columns: {})",
                    self.path,
                    self.header.join(", ")
                ),
            )
        })
    }

    fn bad(&self, line: u64, what: String) -> Error {
        Error::invalid("population", format!("{}:{line}: {what}", self.path))
    }

    fn cell<'a>(&self, line: u64, fields: &'a [String], column: usize) -> Result<&'a str> {
        fields
            .get(column)
            .map(String::as_str)
            .ok_or_else(|| self.bad(line, format!("missing column {:?}", self.header[column])))
    }

    fn number<T: Scalar>(&self, line: u64, fields: &[String], column: usize) -> Result<T> {
        let text = self.cell(line, fields, column)?;
        let v = T::decode(text).map_err(|_| {
            self.bad(
                line,
                format!("{} = {text:?} is not a number", self.header[column]),
            )
        })?;
        if v.finite() {
            Ok(v)
        } else {
            Err(self.bad(
                line,
                format!("{} = {text} is not finite", self.header[column]),
            ))
        }
    }

    fn class(&self, line: u64, fields: &[String], column: usize, k: usize) -> Result<usize> {
        let text = self.cell(line, fields, column)?;
        let value: Option<usize> = text.parse::<usize>().ok().or_else(|| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.fract() == 0.0 && *v >= 0.0)
                .map(|v| v as usize)
        });
        match value {
            Some(v) if v < k => Ok(v),
            _ if k == usize::MAX => Err(self.bad(
                line,
                format!(
                    "{} = {text:?} is not a non-negative integer",
                    self.header[column]
                ),
            )),
            _ => Err(self.bad(
                line,
                format!(
                    "{} = {text:?} is not a class in 0..{}",
                    self.header[column],
                    k - 1
                ),
            )),
        }
    }
}

fn one_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
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
    for (line, fields) in &table.rows {
        let s: T = table.number(*line, fields, si)?;
        if s < zero || s > one {
            return Err(table.bad(
                *line,
                format!(
                    "{score} = {} is not a probability in [0, 1]",
                    table.cell(*line, fields, si)?
                ),
            ));
        }
        let y = table.class(*line, fields, li, 2)?;
        pairs.push((s, y == 1));
    }
    FiniteBinary::new(pairs)
        .map_err(|e| Error::invalid("population", format!("{}: {e}", table.path)))
}

/// A multiclass sample read from a CSV file: probabilities, labels and
/// optional groups.
#[derive(Debug)]
pub struct MulticlassCsv<T> {
    /// The population of the probability rows and labels.
    pub population: FiniteMulticlass<T>,
    /// The group of each row (0-based), when a group column was named.
    pub groups: Option<Vec<usize>>,
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
    for (line, fields) in &table.rows {
        let mut sum = T::int(0);
        for &c in &columns {
            let p: T = table.number(*line, fields, c)?;
            if p < zero || p > one {
                return Err(table.bad(
                    *line,
                    format!(
                        "{} = {} is not a probability in [0, 1]",
                        table.header[c],
                        table.cell(*line, fields, c)?
                    ),
                ));
            }
            sum += &p;
            scores.push(p);
        }
        if (sum.clone() - one.clone()).abs() > tolerance {
            return Err(table.bad(
                *line,
                format!(
                    "the probabilities sum to {} (must be 1 within {PROBABILITY_SUM_TOLERANCE})",
                    sum.to_f64_lossy()
                ),
            ));
        }
        labels.push(table.class(*line, fields, li, k)?);
        if let (Some(gi), Some(groups)) = (gi, groups.as_mut()) {
            groups.push(table.class(*line, fields, gi, usize::MAX)?);
        }
    }
    let population = FiniteMulticlass::new(k, scores, labels)
        .map_err(|e| Error::invalid("population", format!("{}: {e}", table.path)))?;
    Ok(MulticlassCsv { population, groups })
}
