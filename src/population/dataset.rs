//! Finite-sample populations of a real dataset (issue 13): η̂ fitted on one
//! part ([`crate::fit`]), the query classifiers and their confusions on the
//! held-out part, with groups.

use super::offdiag_index;
use super::{Confusions, FiniteBinary, FiniteMulticlass, MulticlassPopulation};
use crate::error::{Error, Result};
use crate::fit::FittedDataset;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};

/// A dataset's held-out part as a population at precision `T`: the class
/// scores η̂(xₙ), the class masses the confusions count (one-hot labels for
/// [`Confusions::Labelled`], η̂ for [`Confusions::Expected`]) and the
/// groups.
///
/// * It is a [`MulticlassPopulation`] (002's RBO classifiers, DLPM);
/// * [`DatasetPopulation::binary`] is a [`super::BinaryPopulation`] when
///   k = 2 (003's threshold classifiers, LPM/LFPM), with η̂ = P(Y = 1 | x);
/// * its feasible set (`DatasetPopulation::feasible`, in
///   [`crate::geometry::feasible`]) is that of its plug-in classifiers, per
///   group, for the sphere finder;
/// * [`DatasetPopulation::confusion`], [`DatasetPopulation::rates`] and
///   [`DatasetPopulation::tau`] give any classifier's statistics.
///
/// # Examples
/// ```
/// use metric_elicitation::fit::{Columns, DatasetSettings, Table, fit_dataset};
/// use metric_elicitation::population::{Confusions, DatasetPopulation, MulticlassPopulation};
/// let mut csv = String::from("x,y\n");
/// for i in 0..200 {
///     let x = f64::from(i) / 100.0 - 1.0;
///     csv.push_str(&format!("{x},{}\n", u8::from((i * 7919) % 200 < 100 + i / 2)));
/// }
/// let table = Table::from_reader(csv.as_bytes(), "example").unwrap();
/// let settings = DatasetSettings::new(Columns { label: "y".into(), ..Columns::default() });
/// let fitted = fit_dataset(&table, &settings).unwrap();
/// let pop = DatasetPopulation::<f64>::new(&fitted, Confusions::Labelled).unwrap();
/// assert_eq!(pop.classes(), 2);
/// let zeta: f64 = pop.priors().iter().sum();
/// assert!((zeta - 1.0).abs() < 1e-12);
/// ```
#[derive(Debug)]
pub struct DatasetPopulation<T: Scalar> {
    pub(crate) k: usize,
    m: usize,
    confusions: Confusions,
    pub(crate) scores: Vec<f64>,
    pub(crate) mass: Vec<f64>,
    labels: Vec<usize>,
    pub(crate) groups: Vec<usize>,
    /// The reliability check of labelled rows ([`crate::population::calibration`]).
    calibration: Option<crate::diagnostics::Warning>,
    multiclass: FiniteMulticlass<T>,
    binary: Option<FiniteBinary<T>>,
    /// Rows in the fit part, rows dropped for missing values, linfa's α.
    summary: DatasetSummary,
}

/// What the data preparation did, for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetSummary {
    /// Rows η̂ was fitted on (S1).
    pub fit_rows: usize,
    /// Held-out rows (S2).
    pub held_out_rows: usize,
    /// Rows dropped for a missing value.
    pub dropped: usize,
    /// linfa's α.
    pub alpha: f64,
    /// Feature columns.
    pub features: Vec<String>,
    /// Accuracy of argmax η̂ on S2 (against the labels; NaN without
    /// labels).
    pub accuracy: f64,
}

impl<T: Scalar> DatasetPopulation<T> {
    /// The population of a fitted dataset's held-out part.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when η̂ is not finite or (labelled) a
    /// class is absent from the held-out part.
    pub fn new(fitted: &FittedDataset, confusions: Confusions) -> Result<Self> {
        let data = &fitted.held_out;
        let scores: Vec<f64> = fitted.eta.iter().copied().collect();
        let mut pop = Self::from_rows(
            data.classes,
            scores,
            Some(&data.labels),
            Some((data.groups.clone(), data.group_count)),
            confusions,
        )?;
        pop.summary.fit_rows = fitted.fit_rows;
        pop.summary.dropped = fitted.dropped;
        pop.summary.alpha = fitted.model.alpha();
        pop.summary.features.clone_from(&data.feature_names);
        Ok(pop)
    }

    /// The population of rows given directly (a spec's `arrays`, the
    /// Python package's `predict_proba` output): `scores` holds n rows of k
    /// class probabilities (row-major), `labels` the n labels (needed for
    /// labelled confusions), `groups` the group codes and their number m.
    /// The summary has no fit part (0 rows, α = NaN, no features).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a length that does not fit, labelled
    /// confusions without labels, a label or group out of range, or (as
    /// [`DatasetPopulation::new`]) a class absent from labelled rows.
    pub fn from_rows(
        k: usize,
        scores: Vec<f64>,
        labels: Option<&[usize]>,
        groups: Option<(Vec<usize>, usize)>,
        confusions: Confusions,
    ) -> Result<Self> {
        if k < 2 || scores.is_empty() || !scores.len().is_multiple_of(k) {
            return Err(Error::invalid(
                "population.probabilities",
                format!(
                    "{} values do not make rows of k = {k} classes",
                    scores.len()
                ),
            ));
        }
        let n = scores.len() / k;
        if let Some(labels) = labels {
            if labels.len() != n {
                return Err(Error::invalid(
                    "population.labels",
                    format!("{} labels for {n} rows", labels.len()),
                ));
            }
        }
        let (groups, m) = groups.unwrap_or_else(|| (vec![0; n], 1));
        if groups.len() != n || groups.iter().any(|&g| g >= m) {
            return Err(Error::invalid(
                "population.groups",
                format!("{} group codes below m = {m} needed for {n} rows", n),
            ));
        }
        let mut mass = vec![0.0; scores.len()];
        let to_t = |v: &[f64]| v.iter().map(|x| T::from_f64_exact(*x)).collect::<Vec<T>>();
        let (multiclass, binary) = match (confusions, labels) {
            (Confusions::Labelled, None) => {
                return Err(Error::invalid(
                    "population.labels",
                    "labelled confusions need one label per row",
                ))
            }
            (Confusions::Labelled, Some(labels)) => {
                for (r, &y) in labels.iter().enumerate() {
                    if y >= k {
                        return Err(Error::invalid(
                            format!("population.labels[{r}]"),
                            format!("class {y} is not below k = {k}"),
                        ));
                    }
                    mass[r * k + y] = 1.0;
                }
                let binary = if k == 2 {
                    let p1: Vec<T> = to_t(&scores).into_iter().skip(1).step_by(2).collect();
                    Some(
                        FiniteBinary::new(
                            p1.into_iter()
                                .zip(labels)
                                .map(|(s, &y)| (s, y == 1))
                                .collect(),
                        )?
                        .with_warnings(
                            crate::population::calibration::check(k, &scores, labels)
                                .into_iter()
                                .collect(),
                        ),
                    )
                } else {
                    None
                };
                (
                    FiniteMulticlass::new(k, to_t(&scores), labels.to_vec())?,
                    binary,
                )
            }
            (Confusions::Expected, _) => {
                mass.clone_from(&scores);
                let binary = if k == 2 {
                    let p1: Vec<T> = to_t(&scores).into_iter().skip(1).step_by(2).collect();
                    Some(FiniteBinary::expected(p1)?)
                } else {
                    None
                };
                (FiniteMulticlass::expected(k, to_t(&scores))?, binary)
            }
        };
        let accuracy = labels.map_or(f64::NAN, |labels| {
            let correct = scores
                .chunks(k)
                .zip(labels)
                .filter(|(row, y)| crate::fit::argmax(row.iter().copied()) == **y)
                .count();
            correct as f64 / n as f64
        });
        let calibration = match (confusions, labels) {
            (Confusions::Labelled, Some(labels)) => {
                crate::population::calibration::check(k, &scores, labels)
            }
            _ => None,
        };
        Ok(DatasetPopulation {
            calibration,
            k,
            m,
            confusions,
            scores,
            mass,
            labels: labels.map(<[usize]>::to_vec).unwrap_or_default(),
            groups,
            multiclass,
            binary,
            summary: DatasetSummary {
                fit_rows: 0,
                held_out_rows: n,
                dropped: 0,
                alpha: f64::NAN,
                features: Vec::new(),
                accuracy,
            },
        })
    }

    /// Number of groups m (1 without a group column).
    pub fn groups(&self) -> usize {
        self.m
    }

    /// Held-out rows.
    pub fn len(&self) -> usize {
        self.scores.len() / self.k
    }

    /// Always false (a population has rows).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Which confusions the population counts.
    pub fn confusions(&self) -> Confusions {
        self.confusions
    }

    /// What the data preparation did.
    pub fn summary(&self) -> &DatasetSummary {
        &self.summary
    }

    /// η̂ on the held-out rows (n × k, row-major).
    pub fn scores(&self) -> &[f64] {
        &self.scores
    }

    /// The held-out labels (empty for rows given without labels).
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The held-out groups.
    pub fn group_codes(&self) -> &[usize] {
        &self.groups
    }

    /// The binary population (003's threshold classifiers on η̂ = P(Y = 1)).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `population` when k ≠ 2.
    pub fn binary(&self) -> Result<&FiniteBinary<T>> {
        self.binary.as_ref().ok_or_else(|| {
            Error::invalid(
                "population",
                format!(
                    "a binary procedure needs two classes, the dataset has {}",
                    self.k
                ),
            )
        })
    }

    /// The multiclass population (002's RBO classifiers).
    pub fn multiclass(&self) -> &FiniteMulticlass<T> {
        &self.multiclass
    }

    fn check(&self, predictions: &[usize]) -> Result<()> {
        if predictions.len() != self.len() {
            return Err(Error::invalid(
                "predictions",
                format!(
                    "{} predictions for {} held-out rows",
                    predictions.len(),
                    self.len()
                ),
            ));
        }
        if let Some(r) = predictions.iter().position(|&j| j >= self.k) {
            return Err(Error::invalid(
                "predictions",
                format!(
                    "row {r}: class {} is not below k = {}",
                    predictions[r], self.k
                ),
            ));
        }
        Ok(())
    }

    /// The confusion C_ij = P(Y = i, h = j | G = g) (every row when `group`
    /// is `None`) of a classifier given by its prediction on every held-out
    /// row, counting the population's class masses.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the wrong number of predictions, a
    /// class or group out of range.
    pub fn confusion(&self, predictions: &[usize], group: Option<usize>) -> Result<DMatrix<T>> {
        self.check(predictions)?;
        if group.is_some_and(|g| g >= self.m) {
            return Err(Error::invalid(
                "group",
                format!("there are {} groups", self.m),
            ));
        }
        let k = self.k;
        let mut c = DMatrix::from_element(k, k, T::int(0));
        let mut rows = 0i64;
        for (r, &j) in predictions.iter().enumerate() {
            if group.is_some_and(|g| self.groups[r] != g) {
                continue;
            }
            rows += 1;
            for i in 0..k {
                let w = self.mass[r * k + i];
                if w != 0.0 {
                    c[(i, j)] += &T::from_f64_exact(w);
                }
            }
        }
        Ok(c / T::int(rows.max(1)))
    }

    /// The rates R_ij = P(h = j | Y = i, G = g) (rows of the confusion
    /// divided by their sums).
    ///
    /// # Errors
    /// As [`DatasetPopulation::confusion`]; [`Error::InvalidArgument`] when
    /// a class has no mass in the group.
    pub fn rates(&self, predictions: &[usize], group: Option<usize>) -> Result<DMatrix<T>> {
        let mut c = self.confusion(predictions, group)?;
        for i in 0..self.k {
            let total = c.row(i).iter().fold(T::int(0), |s, v| s + v.clone());
            if total <= T::int(0) {
                return Err(Error::invalid(
                    "group",
                    format!("class {} has no rows in group {group:?}", i + 1),
                ));
            }
            for j in 0..self.k {
                c[(i, j)] = c[(i, j)].clone() / total.clone();
            }
        }
        Ok(c)
    }

    /// τ: m rows of k values, t^g_i = P(G = g | Y = i) on the held-out part
    /// (each column sums to 1).
    pub fn tau(&self) -> Vec<Vec<T>> {
        let k = self.k;
        let mut t = vec![vec![T::int(0); k]; self.m];
        let mut totals = vec![T::int(0); k];
        for (r, &g) in self.groups.iter().enumerate() {
            for i in 0..k {
                let w = T::from_f64_exact(self.mass[r * k + i]);
                t[g][i] += &w;
                totals[i] += &w;
            }
        }
        for row in &mut t {
            for (v, total) in row.iter_mut().zip(&totals) {
                if *total > T::int(0) {
                    *v = v.clone() / total.clone();
                }
            }
        }
        t
    }

    /// The off-diagonal vector (row-major without the diagonal) of a k × k
    /// matrix.
    pub fn off_diagonal(&self, matrix: &DMatrix<T>) -> DVector<T> {
        let k = self.k;
        let mut v = DVector::from_element(k * k - k, T::int(0));
        for i in 0..k {
            for j in 0..k {
                if i != j {
                    v[offdiag_index(k, i, j)] = matrix[(i, j)].clone();
                }
            }
        }
        v
    }
}

impl<T: Scalar> MulticlassPopulation<T> for DatasetPopulation<T> {
    fn classes(&self) -> usize {
        self.k
    }

    fn priors(&self) -> Vec<T> {
        self.multiclass.priors()
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        self.multiclass.rbo_diagonal(k1, k2, w1, w2)
    }

    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.calibration.iter().cloned().collect()
    }
}
