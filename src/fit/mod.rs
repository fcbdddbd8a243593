//! From a labelled CSV to a fitted class-probability model η̂ (the data
//! preparation of the papers' real-data experiments: 003 §7.2, 002 §6.2,
//! 001 §6.2, 000 App. H.2).
//!
//! The path is
//! 1. [`Table::read`]: a CSV with a header row (optionally gzip-compressed,
//!    `.csv.gz`), every cell a number or missing (empty, `?`, `NA`);
//! 2. [`Table::prepare`]: the label, the optional group and the feature
//!    columns ([`Columns`]), with optional binning of a real-valued label
//!    or group and the choice of the positive class; rows with a missing
//!    value in a used column are dropped (and counted);
//! 3. [`Split::random`]: a seeded random split into the part η̂ is fitted
//!    on (S1) and the held-out part the queries are built on (S2);
//! 4. [`fit_eta`]: standardization with S1's means and standard deviations,
//!    then an L2-regularized logistic (k = 2) or softmax (k ≥ 3) regression
//!    fitted by `linfa-logistic` (L-BFGS).
//!
//! This is data preparation and runs in `f64`; the populations built from
//! it ([`crate::population::DatasetPopulation`]) serve the algorithms at any
//! precision.
//!
//! # Regularization
//! `linfa-logistic` minimizes Σₙ log-loss(xₙ, yₙ) + (α/2)·‖W‖² (a *sum*
//! over the rows; the intercepts are not penalized). [`Regularization`]
//! states λ in one of the forms found in the literature and converts it to
//! α: as the weight α itself, as scikit-learn's inverse strength C = 1/α,
//! or as the weight of a *mean* loss, (1/n)Σ log-loss + λ‖W‖², which is
//! α = 2nλ.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
pub use records::{Record, Records};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

pub mod records;

/// A numeric CSV table held column by column; missing cells are NaN.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    names: Vec<String>,
    columns: Vec<Vec<f64>>,
    /// The first non-numeric cell of each column: (line, text).
    text: Vec<Option<(u64, String)>>,
    source: String,
}

impl Table {
    /// Reads a CSV file with a header row ([`Records`]: a name ending in
    /// `.gz` is decompressed first); problems are filed under
    /// `population.path`.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::InvalidArgument`]
    /// naming the file and line for a malformed CSV (no header, a column
    /// named twice, a row of the wrong length).
    pub fn read(path: &Path) -> Result<Table> {
        Self::from_records(Records::open(path, "population.path")?)
    }

    /// Reads CSV text from `reader`; `source` names it in messages.
    ///
    /// # Errors
    /// As [`Table::read`].
    pub fn from_reader(reader: impl Read, source: &str) -> Result<Table> {
        Self::from_records(Records::new(reader, source, "population.path")?)
    }

    /// The table of every record: numbers, NaN where a cell is missing
    /// ([`records::missing`]) or not a number (the first such cell of a
    /// column is kept for [`Table::column`]'s message).
    fn from_records<R: Read>(mut records: Records<R>) -> Result<Table> {
        let names = records.names().to_vec();
        let mut columns = vec![Vec::new(); names.len()];
        let mut text = vec![None; names.len()];
        while let Some(record) = records.next_record()? {
            for (c, column) in columns.iter_mut().enumerate() {
                let cell = record.cell(c);
                let v = if records::missing(cell) {
                    f64::NAN
                } else {
                    match cell.parse::<f64>() {
                        Ok(v) if v.is_finite() => v,
                        _ => {
                            if text[c].is_none() {
                                text[c] = Some((record.line, cell.to_string()));
                            }
                            f64::NAN
                        }
                    }
                };
                column.push(v);
            }
        }
        Ok(Table {
            names,
            columns,
            text,
            source: records.source().to_string(),
        })
    }

    /// Column names, in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    fn index(&self, name: &str, field: &str) -> Result<usize> {
        records::column_of(&self.names, &self.source, name, field)
    }

    /// The values of column `name` (NaN where missing); `field` names the
    /// spec field in errors.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when there is no such column or it holds
    /// a cell that is not a number.
    pub fn column(&self, name: &str, field: &str) -> Result<&[f64]> {
        let c = self.index(name, field)?;
        if let Some((line, cell)) = &self.text[c] {
            return Err(Error::invalid(
                field,
                format!(
                    "{}:{line}: column {name:?} holds {cell:?}, not a number",
                    self.source
                ),
            ));
        }
        Ok(&self.columns[c])
    }

    /// Adds (or replaces) a numeric column.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the length differs from the table's.
    pub fn set_column(&mut self, name: &str, values: Vec<f64>) -> Result<()> {
        if values.len() != self.rows() {
            return Err(Error::invalid(
                name,
                format!("{} values for {} rows", values.len(), self.rows()),
            ));
        }
        match self.names.iter().position(|n| n == name) {
            Some(c) => {
                self.columns[c] = values;
                self.text[c] = None;
            }
            None => {
                self.names.push(name.to_string());
                self.columns.push(values);
                self.text.push(None);
            }
        }
        Ok(())
    }

    /// Removes a column (no-op when absent).
    pub fn drop_column(&mut self, name: &str) {
        if let Some(c) = self.names.iter().position(|n| n == name) {
            self.names.remove(c);
            self.columns.remove(c);
            self.text.remove(c);
        }
    }

    /// The rows where `keep` is true, in order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `keep` has the wrong length.
    pub fn filter(&self, keep: &[bool]) -> Result<Table> {
        if keep.len() != self.rows() {
            return Err(Error::invalid(
                "rows",
                format!("{} flags for {} rows", keep.len(), self.rows()),
            ));
        }
        let columns = self
            .columns
            .iter()
            .map(|col| {
                col.iter()
                    .zip(keep)
                    .filter(|(_, k)| **k)
                    .map(|(v, _)| *v)
                    .collect()
            })
            .collect();
        Ok(Table {
            names: self.names.clone(),
            columns,
            text: self.text.clone(),
            source: self.source.clone(),
        })
    }

    /// The labelled data set `columns` describes: features, classes and
    /// groups; rows with a missing value in a used column are dropped.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field: an unknown or
    /// non-numeric column, a label or group that is not a non-negative
    /// integer code (and no bins), a class or group code that never occurs,
    /// fewer than two classes, or no rows left.
    pub fn prepare(&self, columns: &Columns) -> Result<Prepared> {
        let label = self.column(&columns.label, "population.label")?;
        let group = match &columns.group {
            Some(g) => Some(self.column(g, "population.group")?),
            None => None,
        };
        let feature_names: Vec<String> = match &columns.features {
            Some(f) => f.clone(),
            None => self
                .names
                .iter()
                .filter(|n| {
                    **n != columns.label
                        && Some(*n) != columns.group.as_ref()
                        && !columns.exclude.contains(n)
                })
                .cloned()
                .collect(),
        };
        if feature_names.is_empty() {
            return Err(Error::invalid("population.features", "no feature columns"));
        }
        let features: Vec<&[f64]> = feature_names
            .iter()
            .map(|n| self.column(n, "population.features"))
            .collect::<Result<_>>()?;
        let n = self.rows();
        let keep: Vec<usize> = (0..n)
            .filter(|&r| {
                !label[r].is_nan()
                    && group.is_none_or(|g| !g[r].is_nan())
                    && features.iter().all(|f| !f[r].is_nan())
            })
            .collect();
        if keep.is_empty() {
            return Err(Error::invalid(
                "population.path",
                format!("{}: no row without a missing value", self.source),
            ));
        }
        let labels = codes(
            keep.iter().map(|&r| label[r]),
            columns.bins.as_deref(),
            columns.positive,
            "population.label",
        )?;
        let classes = labels.iter().max().map_or(0, |m| m + 1);
        if classes < 2 {
            return Err(Error::invalid(
                "population.label",
                "needs at least two classes",
            ));
        }
        check_all_occur(&labels, classes, "population.label")?;
        let groups = match group {
            Some(g) => codes(
                keep.iter().map(|&r| g[r]),
                columns.group_bins.as_deref(),
                None,
                "population.group",
            )?,
            None => vec![0; keep.len()],
        };
        let group_count = groups.iter().max().map_or(1, |m| m + 1);
        check_all_occur(&groups, group_count, "population.group")?;
        let mut x = Array2::zeros((keep.len(), feature_names.len()));
        for (i, &r) in keep.iter().enumerate() {
            for (j, f) in features.iter().enumerate() {
                x[(i, j)] = f[r];
            }
        }
        Ok(Prepared {
            features: x,
            feature_names,
            labels,
            classes,
            groups,
            group_count,
            dropped: n - keep.len(),
        })
    }
}

/// Integer codes of a column: bins (code = number of cut points ≤ v), a
/// positive value (code 1 for it, 0 for the other), or the values
/// themselves as non-negative integers.
fn codes(
    values: impl Iterator<Item = f64>,
    bins: Option<&[f64]>,
    positive: Option<f64>,
    field: &str,
) -> Result<Vec<usize>> {
    if let Some(b) = bins {
        if b.windows(2).any(|w| w[0] >= w[1]) || b.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid(
                field,
                format!("bins must be finite and increasing, got {b:?}"),
            ));
        }
        return Ok(values
            .map(|v| b.iter().filter(|c| **c <= v).count())
            .collect());
    }
    let values: Vec<f64> = values.collect();
    if let Some(p) = positive {
        let mut distinct: Vec<f64> = values.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        if distinct.len() != 2 || !distinct.contains(&p) {
            return Err(Error::invalid(
                "population.positive",
                format!("the label must take two values, one of them {p}; it takes {distinct:?}"),
            ));
        }
        return Ok(values.iter().map(|v| usize::from(*v == p)).collect());
    }
    values
        .iter()
        .map(|&v| {
            if v >= 0.0 && v.fract() == 0.0 && v < 1e6 {
                Ok(v as usize)
            } else {
                Err(Error::invalid(
                    field,
                    format!(
                        "{v} is not a class code 0, 1, 2, … (give bins for a real-valued column)"
                    ),
                ))
            }
        })
        .collect()
}

fn check_all_occur(codes: &[usize], count: usize, field: &str) -> Result<()> {
    let mut seen = vec![false; count];
    for &c in codes {
        seen[c] = true;
    }
    match seen.iter().position(|s| !s) {
        Some(c) => Err(Error::invalid(
            field,
            format!("code {c} never occurs (codes must be 0..{})", count - 1),
        )),
        None => Ok(()),
    }
}

/// Which columns of a [`Table`] are the label, the group and the features.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Columns {
    /// The label column.
    pub label: String,
    /// An optional group column.
    pub group: Option<String>,
    /// Feature columns (default: every column but the label, the group and
    /// `exclude`).
    pub features: Option<Vec<String>>,
    /// Columns left out of the default feature set.
    pub exclude: Vec<String>,
    /// Cut points binning a real-valued label: class = number of cut points
    /// ≤ value (e.g. wine quality with [6, 7]: ≤ 5, 6, ≥ 7).
    pub bins: Option<Vec<f64>>,
    /// Binary labels: the value that is class 1 (the "positive" class); the
    /// other value is class 0.
    pub positive: Option<f64>,
    /// Cut points binning a real-valued group column.
    pub group_bins: Option<Vec<f64>>,
}

/// A labelled data set: features, class codes 0..k−1, group codes 0..m−1.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// n × p features (raw, not standardized).
    pub features: Array2<f64>,
    /// The feature columns' names.
    pub feature_names: Vec<String>,
    /// Class of each row.
    pub labels: Vec<usize>,
    /// k.
    pub classes: usize,
    /// Group of each row (all 0 without a group column).
    pub groups: Vec<usize>,
    /// m (1 without a group column).
    pub group_count: usize,
    /// Rows dropped for a missing value.
    pub dropped: usize,
}

impl Prepared {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there are no rows (never, after [`Table::prepare`]).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The rows `rows`, in that order.
    pub fn subset(&self, rows: &[usize]) -> Prepared {
        Prepared {
            features: self.features.select(Axis(0), rows),
            feature_names: self.feature_names.clone(),
            labels: rows.iter().map(|&r| self.labels[r]).collect(),
            classes: self.classes,
            groups: rows.iter().map(|&r| self.groups[r]).collect(),
            group_count: self.group_count,
            dropped: self.dropped,
        }
    }

    /// Rows per class.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.classes];
        for &y in &self.labels {
            c[y] += 1;
        }
        c
    }
}

/// A seeded random split of n rows into the part η̂ is fitted on (S1) and
/// the held-out part (S2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// S1, increasing row indices.
    pub fit: Vec<usize>,
    /// S2, increasing row indices.
    pub held_out: Vec<usize>,
}

impl Split {
    /// Shuffles 0..n with ChaCha8 seeded by `seed` and puts the first
    /// round(fraction·n) rows in S1.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `population.split` unless
    /// 0 < fraction < 1 and both parts are non-empty.
    pub fn random(n: usize, fraction: f64, seed: u64) -> Result<Split> {
        if !(fraction > 0.0 && fraction < 1.0) {
            return Err(Error::invalid(
                "population.split",
                format!("must be in (0, 1), got {fraction}"),
            ));
        }
        let cut = (fraction * n as f64).round() as usize;
        if cut == 0 || cut >= n {
            return Err(Error::invalid(
                "population.split",
                format!("{fraction} of {n} rows leaves an empty part"),
            ));
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        let mut fit = order[..cut].to_vec();
        let mut held_out = order[cut..].to_vec();
        fit.sort_unstable();
        held_out.sort_unstable();
        Ok(Split { fit, held_out })
    }
}

/// The strength of the L2 penalty, in one of the forms papers and
/// libraries use (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", content = "value", rename_all = "kebab-case")]
pub enum Regularization {
    /// λ is linfa's α: Σ log-loss + (λ/2)‖W‖².
    Weight(f64),
    /// λ is scikit-learn's C: C·Σ log-loss + ½‖W‖², i.e. α = 1/C.
    Inverse(f64),
    /// λ weighs a mean loss: (1/n)Σ log-loss + λ‖W‖², i.e. α = 2nλ.
    MeanLoss(f64),
}

impl Regularization {
    /// linfa's α for a fit on `n` rows.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `population.regularization` for a
    /// negative or non-finite value, or C = 0.
    pub fn alpha(&self, n: usize) -> Result<f64> {
        let (v, alpha) = match *self {
            Regularization::Weight(v) => (v, v),
            Regularization::Inverse(v) => (v, if v > 0.0 { 1.0 / v } else { f64::NAN }),
            Regularization::MeanLoss(v) => (v, 2.0 * n as f64 * v),
        };
        if !(v.is_finite() && v >= 0.0 && alpha.is_finite()) {
            return Err(Error::invalid(
                "population.regularization",
                format!("must be a finite number >= 0 (> 0 for C), got {v}"),
            ));
        }
        Ok(alpha)
    }

    /// The value as written, with its form, for reports.
    pub fn describe(&self) -> String {
        match self {
            Regularization::Weight(v) => {
                format!("lambda = {v} as the penalty weight (alpha = {v})")
            }
            Regularization::Inverse(v) => format!("lambda = {v} as C (alpha = 1/{v})"),
            Regularization::MeanLoss(v) => format!("lambda = {v} on a mean loss (alpha = 2 n {v})"),
        }
    }
}

/// Feature means and standard deviations of the fit part.
#[derive(Debug, Clone, PartialEq)]
pub struct Standardizer {
    mean: Array1<f64>,
    scale: Array1<f64>,
}

impl Standardizer {
    /// Means and (population) standard deviations of the columns of `x`;
    /// a constant column keeps scale 1.
    pub fn fit(x: ArrayView2<f64>) -> Standardizer {
        let n = x.nrows().max(1) as f64;
        let mean = x.sum_axis(Axis(0)) / n;
        let mut scale = Array1::zeros(x.ncols());
        for (j, s) in scale.iter_mut().enumerate() {
            let m = mean[j];
            let var = x.column(j).iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
            *s = if var > 0.0 { var.sqrt() } else { 1.0 };
        }
        Standardizer { mean, scale }
    }

    /// (x − mean)/scale, column by column.
    pub fn apply(&self, x: ArrayView2<f64>) -> Array2<f64> {
        let mut out = x.to_owned();
        for mut row in out.rows_mut() {
            row -= &self.mean;
            row /= &self.scale;
        }
        out
    }
}

/// A fitted η̂: standardization, then logistic (k = 2) or softmax (k ≥ 3).
#[derive(Debug, Clone, PartialEq)]
pub struct Eta {
    standardizer: Standardizer,
    model: Model,
    classes: usize,
    alpha: f64,
}

#[derive(Debug, Clone, PartialEq)]
enum Model {
    Binary(linfa_logistic::FittedLogisticRegression<f64, usize>),
    Multi(linfa_logistic::MultiFittedLogisticRegression<f64, usize>),
}

/// Fits η̂ on the rows of `data` (S1): standardize with their means and
/// standard deviations, then minimize Σ log-loss + (α/2)‖W‖² (α from
/// `regularization`) with `linfa-logistic`'s L-BFGS (at most `iterations`
/// iterations).
///
/// # Errors
/// [`Error::InvalidArgument`] when a class does not occur in `data`, for a
/// bad regularization, or when the solver fails.
pub fn fit_eta(data: &Prepared, regularization: Regularization, iterations: u64) -> Result<Eta> {
    use linfa::traits::Fit;
    let counts = data.class_counts();
    if let Some(c) = counts.iter().position(|&c| c == 0) {
        return Err(Error::invalid(
            "population.split",
            format!("class {c} does not occur in the part eta is fitted on"),
        ));
    }
    let alpha = regularization.alpha(data.len())?;
    let standardizer = Standardizer::fit(data.features.view());
    let x = standardizer.apply(data.features.view());
    let y = Array1::from(data.labels.clone());
    let dataset = linfa::Dataset::new(x, y);
    let solver = |e: linfa_logistic::error::Error| {
        Error::invalid("population", format!("fitting eta failed: {e}"))
    };
    let model = if data.classes == 2 {
        Model::Binary(
            linfa_logistic::LogisticRegression::default()
                .alpha(alpha)
                .max_iterations(iterations)
                .fit(&dataset)
                .map_err(solver)?,
        )
    } else {
        Model::Multi(
            linfa_logistic::MultiLogisticRegression::default()
                .alpha(alpha)
                .max_iterations(iterations)
                .fit(&dataset)
                .map_err(solver)?,
        )
    };
    Ok(Eta {
        standardizer,
        model,
        classes: data.classes,
        alpha,
    })
}

impl Eta {
    /// η̂(x) for each row of raw features `x`: n × k, rows summing to 1.
    pub fn probabilities(&self, x: ArrayView2<f64>) -> Array2<f64> {
        let z = self.standardizer.apply(x);
        match &self.model {
            Model::Binary(m) => {
                // linfa's "positive" label is the more frequent class of
                // the fit part, whatever its code.
                let p = m.predict_probabilities(&z);
                let one_is_positive = m.labels().pos.class == 1;
                let mut out = Array2::zeros((z.nrows(), 2));
                for (i, v) in p.iter().enumerate() {
                    let p1 = if one_is_positive { *v } else { 1.0 - v };
                    out[(i, 0)] = 1.0 - p1;
                    out[(i, 1)] = p1;
                }
                out
            }
            Model::Multi(m) => m.predict_probabilities(&z),
        }
    }

    /// k.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// linfa's α used.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The standardization of the fit part.
    pub fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }
}

/// Everything the data preparation of one dataset decides, as plain
/// values: the columns, the split, the regularization.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetSettings {
    /// Label, group and feature columns.
    pub columns: Columns,
    /// Fraction of the rows η̂ is fitted on.
    pub split: f64,
    /// Seed of the split.
    pub seed: u64,
    /// The L2 penalty.
    pub regularization: Regularization,
    /// L-BFGS iterations at most.
    pub iterations: u64,
}

impl DatasetSettings {
    /// Defaults: half the rows fit η̂, seed 0, α = 1, 200 iterations.
    pub fn new(columns: Columns) -> Self {
        DatasetSettings {
            columns,
            split: 0.5,
            seed: 0,
            regularization: Regularization::Weight(1.0),
            iterations: 200,
        }
    }
}

/// A fitted dataset: the held-out rows (S2) with η̂ on them.
#[derive(Debug, Clone)]
pub struct FittedDataset {
    /// The held-out rows S2 (features, labels, groups).
    pub held_out: Prepared,
    /// η̂ on S2: n₂ × k.
    pub eta: Array2<f64>,
    /// The fitted model.
    pub model: Eta,
    /// Rows in S1.
    pub fit_rows: usize,
    /// Rows dropped for a missing value.
    pub dropped: usize,
}

/// Prepares, splits and fits (steps 2–4 of the module docs).
///
/// # Errors
/// As [`Table::prepare`], [`Split::random`] and [`fit_eta`].
pub fn fit_dataset(table: &Table, settings: &DatasetSettings) -> Result<FittedDataset> {
    let data = table.prepare(&settings.columns)?;
    fit_prepared(&data, settings)
}

/// Splits and fits an already prepared data set.
///
/// # Errors
/// As [`Split::random`] and [`fit_eta`].
pub fn fit_prepared(data: &Prepared, settings: &DatasetSettings) -> Result<FittedDataset> {
    let split = Split::random(data.len(), settings.split, settings.seed)?;
    let fit = data.subset(&split.fit);
    let held_out = data.subset(&split.held_out);
    let model = fit_eta(&fit, settings.regularization, settings.iterations)?;
    let eta = model.probabilities(held_out.features.view());
    Ok(FittedDataset {
        held_out,
        eta,
        model,
        fit_rows: split.fit.len(),
        dropped: data.dropped,
    })
}

/// Index of the largest value (the first on ties).
pub fn argmax(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in values.enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    best.0
}
