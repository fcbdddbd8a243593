//! Ranking a practitioner's classifiers by an elicited metric (001 §6.2,
//! 000 App. H.2), and comparing two rankings (NDCG, Kendall τ-b).
//!
//! * [`Metric`]: a metric to rank by — a value of one of the metric types
//!   of [`crate::metric`] at `f64` ([`Rankable`]: what it reads of a
//!   classifier and its value there). A result of `elicit run` /
//!   `elicit ask` becomes one through the registry
//!   ([`Metric::from_result`]): its `procedure` names a registered family,
//!   whose [`Rankability`] ([`crate::driver::adapter::Family::RANK`], written
//!   once in the family's adapter file) either reads the result's
//!   parameters into the family's metric type or says why that procedure's
//!   result cannot rank classifiers. A new rankable procedure is its
//!   adapter's `RANK` and, for a new metric type, one [`Rankable`]
//!   implementation.
//! * [`PoolStatistics`]: every classifier's confusion overall and per
//!   group, from a predictions CSV ([`PoolStatistics::read`]: one column
//!   per classifier with its predicted class on each row, a label column,
//!   an optional group column; with the `data` feature) or from memory.
//! * [`rank`]: the classifiers best first, with the metric's values;
//!   [`compare`]: NDCG and Kendall τ-b of a ranking against a true metric's.
//! * [`rank_files`]: the one call behind `elicit rank` (`data` feature).
//!
//! # What a metric reads, and the order it sums in
//! Each metric reads one [`Statistic`] of a classifier (the fair metrics:
//! each group's, with the data's τ^g_i = P(G = g | Y = i)), and its value
//! is computed by the metric type's `*_left_to_right` method
//! ([`Linear::value_left_to_right`],
//! [`crate::metric::fair::FairMetric::cost_left_to_right`], …): every sum
//! taken left to right from its first term, so that a value can be
//! recomputed by hand in that order to the last bit. (The oracles'
//! evaluations of the same types sum in faster orders that can differ in
//! the last bits; ranking keeps this one, which is also what the lab's
//! ranking experiments have always used.)
//!
//! # NDCG and τ
//! Let u_c be the true metric's *utility* of classifier c (a cost's
//! negative) and π̂ the candidate ranking. DCG(π̂) = Σ_r gain(π̂(r))/log₂(r + 1),
//! NDCG = DCG(π̂)/DCG(π*), π* sorted by u.
//! * [`Ndcg::exponential`] (the papers' "exponential gain", 001 §6.2,
//!   000 App. H.2): gain = 2^rel − 1 with rel = (u_c − u_min)/(u_max − u_min)
//!   ∈ [0, 1] (for a cost Ψ: (Ψ_max − Ψ_c)/(Ψ_max − Ψ_min)); the papers do
//!   not say how rel is derived, this is our choice.
//! * [`Ndcg::linear`] (what the 000 authors' code computes): gain = 1/Ψ_c
//!   for a cost (all Ψ_c > 0), gain = u_c for a utility (all u_c ≥ 0);
//!   absent when those signs do not hold.
//! * Ties in the candidate ranking (classifiers with equal candidate
//!   values) share their positions: each gets the mean discount of the
//!   block, which is the expected DCG over a uniformly random order of the
//!   tie.
//! * Kendall τ-b between the candidate and true utilities:
//!   (n_c − n_d)/√((n₀ − n₁)(n₀ − n₂)), n₀ = N(N − 1)/2, n₁ and n₂ the pairs
//!   tied in each; ties are exact equality of the `f64` values.

use crate::error::{Error, Result};
use crate::geometry::feasible::offdiag_index;
use crate::geometry::groups::GroupRates;
use crate::metric::quadratic::{CubicMetric, QuadraticMetric};
use crate::metric::Linear;
use crate::population::BinaryConfusion;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use serde_json::{json, Value};
use std::any::Any;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// A statistic of a classifier: the vector a metric reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// dᵢ = P(Y = i, h = i), i = 0..k−1: the joint confusions on the
    /// diagonal (003's (TN, TP) for k = 2; 002's DLPM; 004).
    JointDiagonal,
    /// P(Y = i, h = j), i ≠ j, row-major without the diagonal: the joint
    /// confusions off the diagonal (002's LPM; the coordinates of `run`'s
    /// sphere on a population).
    JointOffDiagonal,
    /// rᵢ = P(h = i | Y = i): the rates on the diagonal (000's main text).
    RatesDiagonal,
    /// R_(i,j) = P(h = j | Y = i), i ≠ j, row-major: the rates off the
    /// diagonal (001; 000 App. E).
    RatesOffDiagonal,
}

impl Statistic {
    /// Whether it holds the diagonal (k entries) or the off-diagonal
    /// (k² − k entries).
    pub fn diagonal(self) -> bool {
        matches!(self, Statistic::JointDiagonal | Statistic::RatesDiagonal)
    }

    /// Whether it holds rates P(h = j | Y = i) rather than joint
    /// confusions P(Y = i, h = j).
    pub fn rates(self) -> bool {
        matches!(self, Statistic::RatesDiagonal | Statistic::RatesOffDiagonal)
    }

    /// Its number of entries for k classes.
    pub fn len(self, k: usize) -> usize {
        if self.diagonal() {
            k
        } else {
            k * k - k
        }
    }

    /// The k ≥ 2 for which it has `entries` entries, if there is one.
    pub fn classes(self, entries: usize) -> Option<usize> {
        (2..=entries.max(2)).find(|&k| self.len(k) == entries)
    }

    /// Its entries for a classifier with joint confusion `joint` (rates of
    /// a class without rows are 0).
    pub fn of(self, joint: &DMatrix<f64>) -> Vec<f64> {
        match self {
            Statistic::JointDiagonal => (0..joint.nrows()).map(|i| joint[(i, i)]).collect(),
            Statistic::JointOffDiagonal => off_diagonal(joint),
            Statistic::RatesDiagonal => diagonal_rates(joint),
            Statistic::RatesOffDiagonal => off_diagonal(&rates_of(joint)),
        }
    }

    /// What its entries are, for k classes (the text output's header).
    pub fn describe(self, k: usize) -> String {
        let last = k.saturating_sub(1);
        let pairs = format!(
            "i ≠ j, row-major: (0,1), (0,2), …, ({last},{}))",
            last.saturating_sub(1)
        );
        match (self, k) {
            (Statistic::JointDiagonal, 2) => {
                "[TN, TP] = [P(Y = 0, h = 0), P(Y = 1, h = 1)], fractions of all rows".into()
            }
            (Statistic::JointDiagonal, _) => {
                format!("[P(Y = i, h = i) for i = 0..{last}], the joint confusions on the diagonal (fractions of all rows)")
            }
            (Statistic::JointOffDiagonal, _) => {
                format!("[P(Y = i, h = j) for {pairs}], the joint confusions off the diagonal (fractions of all rows)")
            }
            (Statistic::RatesDiagonal, _) => {
                format!("[P(h = i | Y = i) for i = 0..{last}], the rates on the diagonal (fractions of each class)")
            }
            (Statistic::RatesOffDiagonal, 2) => {
                "[P(h = 1 | Y = 0), P(h = 0 | Y = 1)] = [FPR, FNR], the rates off the diagonal (fractions of each class)".into()
            }
            (Statistic::RatesOffDiagonal, _) => {
                format!("[P(h = j | Y = i) for {pairs}], the rates off the diagonal (fractions of each class)")
            }
        }
    }

    /// Its entry counts in words, for messages: `k = 2, 3, 4, … entries`
    /// or `k² − k = 2, 6, 12, … entries`.
    fn sizes(self) -> &'static str {
        if self.diagonal() {
            "k = 2, 3, 4, … entries, one per class"
        } else {
            "k² − k = 2, 6, 12, 20, … entries, one per pair of classes i ≠ j"
        }
    }
}

/// The joint confusion with its rows divided by their sums (rows without
/// mass stay 0): rates P(h = j | Y = i).
fn rates_of(joint: &DMatrix<f64>) -> DMatrix<f64> {
    let mut r = joint.clone();
    for i in 0..r.nrows() {
        let total: f64 = r.row(i).sum();
        if total > 0.0 {
            for j in 0..r.ncols() {
                r[(i, j)] /= total;
            }
        }
    }
    r
}

/// rᵢ = P(h = i | Y = i) of a joint confusion (0 for a class without
/// mass).
pub fn diagonal_rates(joint: &DMatrix<f64>) -> Vec<f64> {
    (0..joint.nrows())
        .map(|i| {
            let total: f64 = joint.row(i).sum();
            if total > 0.0 {
                joint[(i, i)] / total
            } else {
                0.0
            }
        })
        .collect()
}

/// The off-diagonal entries of a k × k matrix, row-major without the
/// diagonal.
pub fn off_diagonal(matrix: &DMatrix<f64>) -> Vec<f64> {
    let k = matrix.nrows();
    let mut v = vec![0.0; k * k - k];
    for i in 0..k {
        for j in 0..k {
            if i != j {
                v[offdiag_index(k, i, j)] = matrix[(i, j)];
            }
        }
    }
    v
}

/// A metric a pool of classifiers can be ranked by: a metric type of
/// [`crate::metric`] at `f64` with the statistic of a classifier it reads
/// (see the module docs). Implemented once per metric type, beside the
/// family's adapter.
pub trait Rankable: std::fmt::Debug + Send + Sync + Any {
    /// What kind of metric it is, as the JSON output's `family` names it
    /// (`"diagonal"`, `"fair"`, …).
    fn family(&self) -> &'static str;

    /// Whether it is a cost (smaller is better); a utility otherwise.
    fn is_cost(&self) -> bool {
        false
    }

    /// The number of classes k its weights are for; `None` when their
    /// number fits no k (a metric built in code with such weights ranks
    /// no pool).
    fn classes(&self) -> Option<usize>;

    /// The number of groups m it compares; `None` when it reads no
    /// groups.
    fn groups(&self) -> Option<usize> {
        None
    }

    /// The statistic it reads (of each group, for the fair metrics): what
    /// the text output shows beside each value.
    fn statistic(&self) -> Statistic;

    /// The attributes whose values per classifier it weighs (a cost/reward
    /// metric's), read from `--attributes`.
    fn attributes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether it gives every classifier the same value whatever it
    /// predicts (every weight zero, or weights that cancel): such a metric
    /// ranks nothing, and [`Metric::from_result`] refuses it.
    fn is_constant(&self) -> bool;

    /// Its value on `classifier` of `pool`, as its paper writes it (a cost
    /// for costs), every sum left to right (see the module docs).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the classifier's statistics do not
    /// have the metric's shape (checked for a whole pool by [`rank`] and
    /// [`compare`]), a fractional metric's denominator vanishes, or an
    /// attribute value is missing.
    fn value(&self, classifier: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64>;
}

/// A metric to rank by: any [`Rankable`] (cheap to clone, shared).
///
/// The metric type behind it is recovered with [`Metric::get`], e.g.
/// `metric.get::<FairMetric<f64>>()`.
#[derive(Debug, Clone)]
pub struct Metric(Arc<dyn Rankable>);

impl std::ops::Deref for Metric {
    type Target = dyn Rankable;
    fn deref(&self) -> &(dyn Rankable + 'static) {
        &*self.0
    }
}

impl Metric {
    /// A metric of any rankable type.
    pub fn new(metric: impl Rankable) -> Metric {
        Metric(Arc::new(metric))
    }

    /// The metric type behind it, if it is an `M`.
    pub fn get<M: Rankable>(&self) -> Option<&M> {
        let any: &dyn Any = &*self.0;
        any.downcast_ref::<M>()
    }

    /// The utility (larger is better): the value, negated for a cost.
    ///
    /// # Errors
    /// As [`Rankable::value`].
    pub fn utility(&self, classifier: &ClassifierStatistics, pool: &PoolStatistics) -> Result<f64> {
        let v = self.value(classifier, pool)?;
        Ok(if self.is_cost() { -v } else { v })
    }
}

/// How a registered procedure's result ranks classifiers: declared by
/// every family ([`crate::driver::adapter::Family::RANK`]) and held by its
/// registry entry.
#[derive(Debug, Clone, Copy)]
pub enum Rankability {
    /// The result ranks: this reads its parameters into the family's
    /// metric type.
    Reads(fn(&Parameters<'_>) -> Result<Metric>),
    /// The result cannot rank classifiers: why, and what to do instead.
    Not(&'static str),
}

/// A metric file as a family's [`Rankability::Reads`] sees it, with
/// readers whose errors name the field (`elicited.a[3]`).
#[derive(Debug, Clone, Copy)]
pub struct Parameters<'a> {
    /// The procedure named by the file.
    pub procedure: &'a str,
    /// The parameters: the file's `elicited`, else `truth`, else `metric`.
    pub value: &'a Value,
    /// Which of the three keys held them.
    pub field: &'static str,
    /// The whole file (for optional keys such as `statistic` and `rates`).
    pub file: &'a Value,
}

impl<'a> Parameters<'a> {
    /// The field name of `path` within the parameters (`elicited.a`).
    pub fn name(&self, path: &str) -> String {
        if path.is_empty() {
            self.field.to_string()
        } else {
            format!("{}.{path}", self.field)
        }
    }

    /// The first of `keys` the parameters (a table) hold.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first key as missing.
    pub fn get(&self, keys: &[&str]) -> Result<&'a Value> {
        keys.iter().find_map(|k| self.value.get(*k)).ok_or_else(|| {
            Error::invalid(self.name(keys.first().copied().unwrap_or("")), "missing")
        })
    }

    /// A number (a JSON number or a decimal string), finite.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `path`.
    pub fn number(&self, value: &Value, path: &str) -> Result<f64> {
        crate::driver::spec::num::<f64>(value, &self.name(path))
    }

    /// A list of numbers.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `path` or the entry (`path[i]`).
    pub fn numbers(&self, value: &Value, path: &str) -> Result<Vec<f64>> {
        let items = value.as_array().ok_or_else(|| {
            Error::invalid(
                self.name(path),
                format!("expected a list of numbers, got {}", short(value)),
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(i, v)| self.number(v, &format!("{path}[{i}]")))
            .collect()
    }

    /// A matrix: a list of rows of one length.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `path`, a row or an entry.
    pub fn matrix(&self, value: &Value, path: &str) -> Result<DMatrix<f64>> {
        let rows = value.as_array().ok_or_else(|| {
            Error::invalid(
                self.name(path),
                format!("expected a list of rows, got {}", short(value)),
            )
        })?;
        let rows: Vec<Vec<f64>> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| self.numbers(r, &format!("{path}[{i}]")))
            .collect::<Result<_>>()?;
        let width = rows.first().map_or(0, Vec::len);
        if let Some(i) = rows.iter().position(|r| r.len() != width) {
            return Err(Error::invalid(
                self.name(&format!("{path}[{i}]")),
                format!("has {} entries, row 0 has {width}", rows[i].len()),
            ));
        }
        Ok(DMatrix::from_fn(rows.len(), width, |i, j| rows[i][j]))
    }

    /// A list of matrices.
    ///
    /// # Errors
    /// As [`Parameters::matrix`].
    pub fn matrices(&self, value: &Value, path: &str) -> Result<Vec<DMatrix<f64>>> {
        value
            .as_array()
            .ok_or_else(|| {
                Error::invalid(
                    self.name(path),
                    format!("expected a list of matrices, got {}", short(value)),
                )
            })?
            .iter()
            .enumerate()
            .map(|(i, m)| self.matrix(m, &format!("{path}[{i}]")))
            .collect()
    }

    /// The parameters as named numbers: a table with those keys, or a list
    /// in that order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the field: a missing key, a list
    /// of another length, an entry that is not a number.
    pub fn named(&self, names: &[&str]) -> Result<Vec<f64>> {
        match self.value {
            Value::Object(map) => names
                .iter()
                .map(|n| {
                    let v = map
                        .get(*n)
                        .ok_or_else(|| Error::invalid(self.name(n), "missing"))?;
                    self.number(v, n)
                })
                .collect(),
            _ => {
                let v = self.numbers(self.value, "")?;
                if v.len() != names.len() {
                    return Err(Error::invalid(
                        self.field,
                        format!(
                            "expected {} numbers ({}), got {}",
                            names.len(),
                            names.join(", "),
                            v.len()
                        ),
                    ));
                }
                Ok(v)
            }
        }
    }

    /// An optional text key of the whole file (`"statistic"`, `"rates"`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the key holds something other than
    /// text.
    pub fn key(&self, key: &str) -> Result<Option<&'a str>> {
        match self.file.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(Error::invalid(
                key,
                format!("expected text, got {}", short(other)),
            )),
        }
    }

    /// A metric type's constructor result with its errors filed under the
    /// parameters' field (`elicited.B: …`).
    ///
    /// # Errors
    /// The constructor's error, renamed.
    pub fn checked<T>(&self, result: Result<T>) -> Result<T> {
        result.map_err(|e| match e {
            Error::InvalidArgument { name, reason } => Error::invalid(self.name(&name), reason),
            other => Error::invalid(self.field, other.to_string()),
        })
    }
}

/// A JSON value in a message, cut to 60 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// The number of weights or rates of a metric type (for [`On`]).
pub trait Dimension {
    /// The number of weights (linear metrics) or rates (quadratic and cubic
    /// metrics) it takes.
    fn dimension(&self) -> usize;
}

impl<T: Scalar> Dimension for Linear<T> {
    fn dimension(&self) -> usize {
        self.0.len()
    }
}

impl<T: Scalar> Dimension for QuadraticMetric<T> {
    fn dimension(&self) -> usize {
        self.dim()
    }
}

impl<T: Scalar> Dimension for CubicMetric<T> {
    fn dimension(&self) -> usize {
        self.a().len()
    }
}

/// A metric of vectors (a [`Linear`], [`QuadraticMetric`] or
/// [`CubicMetric`] at `f64`) on one [`Statistic`] of a classifier: 002's
/// DLPM is a `Linear` on [`Statistic::JointDiagonal`], its LPM and the
/// LPME a `Linear` on [`Statistic::JointOffDiagonal`] (or the rates), QPME
/// a `QuadraticMetric` on [`Statistic::RatesDiagonal`].
#[derive(Debug, Clone, PartialEq)]
pub struct On<M> {
    metric: M,
    statistic: Statistic,
    classes: usize,
}

impl<M: Dimension> On<M> {
    /// `metric` on `statistic`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the metric's dimension is that of
    /// `statistic` for no number of classes k ≥ 2.
    pub fn new(metric: M, statistic: Statistic) -> Result<Self> {
        let n = metric.dimension();
        let classes = statistic.classes(n).ok_or_else(|| {
            Error::invalid(
                "metric",
                format!(
                    "{n} weights read no {:?} statistic: it has {}",
                    statistic,
                    statistic.sizes()
                ),
            )
        })?;
        Ok(On {
            metric,
            statistic,
            classes,
        })
    }
}

impl<M> On<M> {
    /// The metric.
    pub fn metric(&self) -> &M {
        &self.metric
    }

    /// The statistic it reads.
    pub fn statistic(&self) -> Statistic {
        self.statistic
    }

    /// The classifier's statistic as a vector, checked against the
    /// metric's k.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the classifier has another k.
    pub fn read(&self, classifier: &ClassifierStatistics) -> Result<DVector<f64>> {
        let k = classifier.confusion.nrows();
        if k != self.classes {
            return Err(Error::invalid(
                "metric",
                format!(
                    "a metric for k = {} classes evaluated on {} with k = {k}",
                    self.classes, classifier.name
                ),
            ));
        }
        Ok(DVector::from_vec(self.statistic.of(&classifier.confusion)))
    }
}

impl Rankable for On<Linear<f64>> {
    fn family(&self) -> &'static str {
        if self.statistic.diagonal() {
            "diagonal"
        } else {
            "off-diagonal"
        }
    }

    fn classes(&self) -> Option<usize> {
        Some(self.classes)
    }

    fn statistic(&self) -> Statistic {
        self.statistic
    }

    fn is_constant(&self) -> bool {
        self.metric.0.iter().all(|w| *w == 0.0)
    }

    fn value(&self, classifier: &ClassifierStatistics, _: &PoolStatistics) -> Result<f64> {
        Ok(self.metric.value_left_to_right(&self.read(classifier)?))
    }
}

/// A linear metric (DLPM, LPM, LPME) read from a result's list of weights
/// on `statistic`: the one reader of the linear families' adapters.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the field for entries that are not
/// numbers or a count that fits no k.
pub fn linear_on(parameters: &Parameters<'_>, statistic: Statistic) -> Result<Metric> {
    let a = parameters.numbers(parameters.value, "")?;
    let on = parameters.checked(On::new(Linear(DVector::from_vec(a)), statistic))?;
    Ok(Metric::new(on))
}

/// The binary confusion (TP, TN) = (P(Y = 1, h = 1), P(Y = 0, h = 0)) of a
/// two-class classifier (what 003's metrics read).
///
/// # Errors
/// [`Error::InvalidArgument`] when the classifier has another k.
pub fn binary_confusion(classifier: &ClassifierStatistics) -> Result<BinaryConfusion<f64>> {
    let c = &classifier.confusion;
    if c.nrows() != 2 {
        return Err(Error::invalid(
            "metric",
            format!(
                "a binary metric evaluated on {} with k = {} classes",
                classifier.name,
                c.nrows()
            ),
        ));
    }
    Ok(BinaryConfusion::new(c[(1, 1)], c[(0, 0)]))
}

/// One classifier's statistics on the evaluation rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassifierStatistics {
    /// Its name (the column header).
    pub name: String,
    /// Joint confusion over every row, C_ij = P(Y = i, h = j).
    pub confusion: DMatrix<f64>,
    /// Joint confusion within each group, P(Y = i, h = j | G = g).
    pub group_confusions: Vec<DMatrix<f64>>,
    /// Its attribute values by name (a cost/reward metric's, from
    /// `--attributes`; empty otherwise).
    pub attributes: Vec<(String, f64)>,
}

impl ClassifierStatistics {
    /// `statistic` over every row.
    pub fn statistic(&self, statistic: Statistic) -> Vec<f64> {
        statistic.of(&self.confusion)
    }

    /// The value of attribute `name`, if given.
    pub fn attribute(&self, name: &str) -> Option<f64> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// Every classifier's statistics, with the classes, groups and τ of the
/// evaluation rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolStatistics {
    /// k.
    pub classes: usize,
    /// m (1 without groups).
    pub groups: usize,
    /// τ: m rows of k values, t^g_i = P(G = g | Y = i).
    pub tau: Vec<Vec<f64>>,
    /// The classifiers, in input order.
    pub classifiers: Vec<ClassifierStatistics>,
}

impl PoolStatistics {
    /// From predictions in memory: `(name, predicted class per row)`,
    /// labels in 0..k−1 and optional group codes 0..m−1 (k and m are the
    /// largest codes + 1, at least 2 classes).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for mismatched lengths, no classifier, or
    /// a group never seen in the labels.
    pub fn from_predictions(
        classifiers: &[(String, Vec<usize>)],
        labels: &[usize],
        groups: Option<&[usize]>,
    ) -> Result<PoolStatistics> {
        let k = labels.iter().max().map_or(0, |m| m + 1).max(2);
        Self::with_classes(k, classifiers, labels, groups)
    }

    /// As [`PoolStatistics::from_predictions`] for k classes given (a class
    /// may have no row: its rates are 0).
    ///
    /// # Errors
    /// As [`PoolStatistics::from_predictions`]; a label or prediction not
    /// below k.
    pub fn with_classes(
        k: usize,
        classifiers: &[(String, Vec<usize>)],
        labels: &[usize],
        groups: Option<&[usize]>,
    ) -> Result<PoolStatistics> {
        if classifiers.is_empty() || labels.is_empty() {
            return Err(Error::invalid("predictions", "no classifier or no row"));
        }
        if let Some(r) = labels.iter().position(|&y| y >= k) {
            return Err(Error::invalid(
                "label",
                format!("row {r}: class {} is not below k = {k}", labels[r]),
            ));
        }
        let groups: Vec<usize> = groups.map_or_else(|| vec![0; labels.len()], <[usize]>::to_vec);
        if groups.len() != labels.len() {
            return Err(Error::invalid("group", "one group code per row needed"));
        }
        let m = groups.iter().max().map_or(1, |g| g + 1);
        let mut class_totals = vec![0usize; k];
        let mut counts = vec![vec![0usize; k]; m];
        let mut group_rows = vec![0usize; m];
        for (&y, &g) in labels.iter().zip(&groups) {
            class_totals[y] += 1;
            counts[g][y] += 1;
            group_rows[g] += 1;
        }
        if let Some(g) = group_rows.iter().position(|&r| r == 0) {
            return Err(Error::invalid(
                "group",
                format!("group code {g} never occurs"),
            ));
        }
        let tau = (0..m)
            .map(|g| {
                (0..k)
                    .map(|i| {
                        if class_totals[i] == 0 {
                            0.0
                        } else {
                            counts[g][i] as f64 / class_totals[i] as f64
                        }
                    })
                    .collect()
            })
            .collect();
        let stats = classifiers
            .iter()
            .map(|(name, h)| {
                if h.len() != labels.len() {
                    return Err(Error::invalid(
                        "predictions",
                        format!("{name}: {} predictions for {} rows", h.len(), labels.len()),
                    ));
                }
                if let Some(r) = h.iter().position(|&j| j >= k) {
                    return Err(Error::invalid(
                        "predictions",
                        format!("{name} row {r}: class {} is not below k = {k}", h[r]),
                    ));
                }
                let mut all = DMatrix::zeros(k, k);
                let mut per = vec![DMatrix::zeros(k, k); m];
                for ((&j, &y), &g) in h.iter().zip(labels).zip(&groups) {
                    all[(y, j)] += 1.0;
                    per[g][(y, j)] += 1.0;
                }
                all /= labels.len() as f64;
                for (c, rows) in per.iter_mut().zip(&group_rows) {
                    *c /= *rows as f64;
                }
                Ok(ClassifierStatistics {
                    name: name.clone(),
                    confusion: all,
                    group_confusions: per,
                    attributes: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PoolStatistics {
            classes: k,
            groups: m,
            tau,
            classifiers: stats,
        })
    }

    /// τ^g over the entries of `statistic` (entry (i, j) or i holds
    /// t^g_i = P(G = g | Y = i)), one vector per group: the shares a fair
    /// metric weighs each group's statistic by.
    pub fn shares(&self, statistic: Statistic) -> Vec<DVector<f64>> {
        let k = self.classes;
        self.tau
            .iter()
            .map(|t| {
                if statistic.diagonal() {
                    DVector::from_vec(t.clone())
                } else {
                    DVector::from_iterator(k * k - k, (0..k * k - k).map(|idx| t[idx / (k - 1)]))
                }
            })
            .collect()
    }

    /// `statistic` of `classifier` within each group, as the point of a
    /// fair metric.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a classifier without group
    /// statistics.
    pub fn group_rates(
        &self,
        classifier: &ClassifierStatistics,
        statistic: Statistic,
    ) -> Result<GroupRates<f64>> {
        let per: Vec<DVector<f64>> = classifier
            .group_confusions
            .iter()
            .map(|c| DVector::from_vec(statistic.of(c)))
            .collect();
        GroupRates::new(&per)
    }

    /// Attaches attribute values to the classifiers: `values` holds
    /// (classifier name, its values in the order of `names`); classifiers
    /// without a row keep none (a metric weighing them then names
    /// `--attributes`).
    pub fn set_attributes(&mut self, names: &[String], values: &[(String, Vec<f64>)]) {
        for c in &mut self.classifiers {
            if let Some((_, v)) = values.iter().find(|(n, _)| *n == c.name) {
                c.attributes = names.iter().cloned().zip(v.iter().copied()).collect();
            }
        }
    }
}

/// Checks that `metric` can rank `pool`: the same k, the groups it
/// compares, the attributes it weighs.
///
/// # Errors
/// [`Error::InvalidArgument`] naming what does not fit: `--group is
/// required` for a fair metric and a pool without groups.
pub fn check(metric: &Metric, pool: &PoolStatistics) -> Result<()> {
    let family = metric.family();
    match metric.classes() {
        Some(k) if k == pool.classes => {}
        Some(k) => {
            return Err(Error::invalid(
                "metric",
                format!(
                "a {family} metric for k = {k} classes cannot rank predictions of k = {} classes",
                pool.classes
            ),
            ))
        }
        None => {
            return Err(Error::invalid(
                "metric",
                format!("the {family} metric's weights fit no number of classes"),
            ))
        }
    }
    match metric.groups() {
        Some(m) if pool.groups < 2 => {
            return Err(Error::invalid(
                "group",
                format!("--group is required: the {family} metric compares m = {m} groups; name the predictions file's group column"),
            ))
        }
        Some(m) if m != pool.groups => {
            return Err(Error::invalid(
                "group",
                format!(
                    "the {family} metric compares m = {m} groups; the group column holds m = {}",
                    pool.groups
                ),
            ))
        }
        _ => {}
    }
    let names = metric.attributes();
    for c in &pool.classifiers {
        if names.iter().any(|n| c.attribute(n).is_none()) {
            return Err(Error::invalid(
                "--attributes",
                format!(
                    "the metric weighs {}: give each classifier's values (no row for {})",
                    names.join(", "),
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// One ranked classifier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// Its name.
    pub classifier: String,
    /// The metric's value (a cost for cost metrics).
    pub value: f64,
}

/// Ranks the pool by `metric`, best first (ties keep the input order).
///
/// # Errors
/// As [`check`] and [`Rankable::value`].
pub fn rank(metric: &Metric, pool: &PoolStatistics) -> Result<Vec<Ranked>> {
    check(metric, pool)?;
    let mut scored: Vec<(f64, Ranked)> = pool
        .classifiers
        .iter()
        .map(|c| {
            let value = metric.value(c, pool)?;
            Ok((
                if metric.is_cost() { -value } else { value },
                Ranked {
                    classifier: c.name.clone(),
                    value,
                },
            ))
        })
        .collect::<Result<_>>()?;
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored.into_iter().map(|(_, r)| r).collect())
}

/// NDCG of a candidate ranking against the truth (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ndcg {
    /// Exponential gain 2^rel − 1, rel = the truth's utility scaled to
    /// [0, 1] (the papers' statement).
    pub exponential: f64,
    /// Linear gain 1/cost (or the utility), as the 000 authors' code;
    /// `None` when the signs do not allow it.
    pub linear: Option<f64>,
}

/// A candidate ranking compared with the truth's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    /// NDCG.
    pub ndcg: Ndcg,
    /// Kendall τ-b; `None` when one side is constant.
    pub kendall_tau_b: Option<f64>,
}

/// DCG of `gains` taken in the order of decreasing `scores`, ties sharing
/// the mean discount of their block.
pub fn dcg(scores: &[f64], gains: &[f64]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let discount = |r: usize| 1.0 / ((r + 2) as f64).log2();
    let mut total = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let mean = (start..end).map(discount).sum::<f64>() / (end - start) as f64;
        total += order[start..end].iter().map(|&c| gains[c]).sum::<f64>() * mean;
        start = end;
    }
    total
}

/// NDCG of the ranking by `candidate` utilities, with `gains` of the truth
/// (the ideal ranking sorts by the gains themselves).
pub fn ndcg(candidate: &[f64], gains: &[f64]) -> f64 {
    let ideal = dcg(gains, gains);
    if ideal == 0.0 {
        return 1.0;
    }
    dcg(candidate, gains) / ideal
}

/// Kendall τ-b of two score vectors (ties by exact equality); `None` when
/// either is constant or shorter than 2.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in (i + 1)..n {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            if dx == 0.0 {
                tied_x += 1;
            }
            if dy == 0.0 {
                tied_y += 1;
            }
            if dx != 0.0 && dy != 0.0 {
                if (dx > 0.0) == (dy > 0.0) {
                    concordant += 1;
                } else {
                    discordant += 1;
                }
            }
        }
    }
    let n0 = (n * n.saturating_sub(1) / 2) as i64;
    let denominator = (((n0 - tied_x) * (n0 - tied_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// The exponential and linear gains of the truth's values (see the module
/// docs): `values` are the truth's values as written, `cost` says how.
pub fn gains(values: &[f64], cost: bool) -> (Vec<f64>, Option<Vec<f64>>) {
    let utility: Vec<f64> = values.iter().map(|v| if cost { -v } else { *v }).collect();
    let (lo, hi) = utility
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    let exponential = utility
        .iter()
        .map(|u| {
            let rel = if hi > lo { (u - lo) / (hi - lo) } else { 1.0 };
            rel.exp2() - 1.0
        })
        .collect();
    let linear = if cost {
        values
            .iter()
            .all(|v| *v > 0.0)
            .then(|| values.iter().map(|v| 1.0 / v).collect())
    } else {
        values.iter().all(|v| *v >= 0.0).then(|| values.to_vec())
    };
    (exponential, linear)
}

/// Compares the ranking by `candidate` with the ranking by `truth` on the
/// same pool.
///
/// # Errors
/// As [`check`] (for both metrics) and [`Rankable::value`].
pub fn compare(candidate: &Metric, truth: &Metric, pool: &PoolStatistics) -> Result<Comparison> {
    check(candidate, pool)?;
    check(truth, pool)?;
    let cand: Vec<f64> = pool
        .classifiers
        .iter()
        .map(|c| candidate.utility(c, pool))
        .collect::<Result<_>>()?;
    let true_values: Vec<f64> = pool
        .classifiers
        .iter()
        .map(|c| truth.value(c, pool))
        .collect::<Result<_>>()?;
    Ok(compare_scores(&cand, &true_values, truth.is_cost()))
}

/// [`compare`] on precomputed numbers: candidate utilities, and the
/// truth's values as written (`cost` says whether they are costs).
pub fn compare_scores(candidate: &[f64], truth: &[f64], cost: bool) -> Comparison {
    let (exponential, linear) = gains(truth, cost);
    let true_utility: Vec<f64> = truth.iter().map(|v| if cost { -v } else { *v }).collect();
    Comparison {
        ndcg: Ndcg {
            exponential: ndcg(candidate, &exponential),
            linear: linear.map(|g| ndcg(candidate, &g)),
        },
        kendall_tau_b: kendall_tau_b(candidate, &true_utility),
    }
}

/// What `elicit rank` prints: the ranking, and the comparison with a true
/// metric when one is given.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// The metric ranked by.
    pub metric: Metric,
    /// Best first.
    pub ranking: Vec<Ranked>,
    /// Against the truth, when given.
    pub comparison: Option<Comparison>,
    /// The pool's statistics (for the text output's statistics).
    pub pool: PoolStatistics,
    /// Which columns of the predictions file were ranked, in words (empty
    /// for a pool built in memory).
    pub columns: String,
}

impl Ranking {
    /// `{"ranking": [{"classifier": NAME, "value": …}, …], "order": …,
    /// "family": …, "statistic": …}`, plus `ndcg_exponential`,
    /// `ndcg_linear` and `kendall_tau_b` when a truth was given.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "ranking": self.ranking,
            "order": if self.metric.is_cost() { "ascending cost" } else { "descending utility" },
            "family": self.metric.family(),
            "statistic": self.metric.statistic(),
        });
        if let Some(c) = &self.comparison {
            out["ndcg_exponential"] = json!(c.ndcg.exponential);
            out["ndcg_linear"] = json!(c.ndcg.linear);
            out["kendall_tau_b"] = json!(c.kendall_tau_b);
        }
        out
    }

    /// The ranked classifiers with their values and the statistic the
    /// metric reads, one per line, under a header saying what the numbers
    /// are.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let k = self.pool.classes;
        let statistic = self.metric.statistic();
        let _ = writeln!(
            s,
            "{} classifiers{}, best first by the {} metric ({})",
            self.ranking.len(),
            if self.columns.is_empty() {
                String::new()
            } else {
                format!(" ({})", self.columns)
            },
            self.metric.family(),
            if self.metric.is_cost() {
                "a cost: smallest first"
            } else {
                "a utility: largest first"
            }
        );
        let _ = writeln!(
            s,
            "beside each value: {}{}",
            statistic.describe(k),
            if self.metric.groups().is_some() {
                ", over all rows (the metric also reads each group's)"
            } else {
                ""
            }
        );
        let attributes = self.metric.attributes();
        if !attributes.is_empty() {
            let _ = writeln!(s, "then the attribute values {}", attributes.join(", "));
        }
        let width = self
            .ranking
            .iter()
            .map(|r| r.classifier.len())
            .max()
            .unwrap_or(10)
            .max(10);
        for (i, r) in self.ranking.iter().enumerate() {
            let c = self
                .pool
                .classifiers
                .iter()
                .find(|c| c.name == r.classifier);
            let shown: Vec<String> = c
                .map(|c| c.statistic(statistic))
                .unwrap_or_default()
                .iter()
                .map(|v| format!("{v:.4}"))
                .collect();
            let extra: String = attributes
                .iter()
                .map(|n| {
                    c.and_then(|c| c.attribute(n))
                        .map_or_else(|| format!("  {n} = ?"), |v| format!("  {n} = {v}"))
                })
                .collect();
            let _ = writeln!(
                s,
                "{:>3}. {:<width$}  {:>10.6}  [{}]{extra}",
                i + 1,
                r.classifier,
                r.value,
                shown.join(", ")
            );
        }
        if let Some(c) = &self.comparison {
            let _ = writeln!(
                s,
                "NDCG (exponential gain) {:.4}; NDCG (linear gain, 1/cost) {}; Kendall tau-b {}",
                c.ndcg.exponential,
                c.ndcg.linear.map_or("n/a".into(), |v| format!("{v:.4}")),
                c.kendall_tau_b.map_or("n/a".into(), |v| format!("{v:.4}"))
            );
        }
        s
    }
}

/// An error reading a metric file, filed under the option that gave it
/// (`--metric`, `--truth`) with the file's name: `invalid --truth: t.json:
/// elicited.a[2]: …`.
fn under(option: &str, path: &Path, e: Error) -> Error {
    match e {
        Error::Io { .. } => e,
        Error::InvalidArgument { name, reason } => {
            Error::invalid(option, format!("{}: {name}: {reason}", path.display()))
        }
        other => Error::invalid(option, format!("{}: {other}", path.display())),
    }
}

/// Reads a metric file (JSON, [`Metric::from_result`]); `option`
/// (`--metric`, `--truth`) names it in errors, with the file, the field
/// and, for JSON that does not parse, the parser's line and column.
///
/// # Errors
/// [`Error::Io`] for an unreadable file; [`Error::InvalidArgument`] under
/// `option` otherwise.
pub fn read_metric(path: &Path, option: &str) -> Result<Metric> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::invalid(option, format!("{}: not JSON ({e})", path.display())))?;
    Metric::from_result(&value).map_err(|e| under(option, path, e))
}

/// Which columns of a predictions CSV hold what (`elicit rank`'s
/// `--label`, `--group` and `--classifiers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictionColumns {
    /// The label column (class codes 0..k−1).
    pub label: String,
    /// The group column (group codes 0..m−1), for the fair metrics.
    pub group: Option<String>,
    /// The classifier columns. `None`: every column but the label and the
    /// group, except that a column named like a group column (`group`,
    /// `group_…`, `…_group`, any case) is refused unless `group` names it.
    pub classifiers: Option<Vec<String>>,
}

impl Default for PredictionColumns {
    fn default() -> Self {
        PredictionColumns {
            label: "label".into(),
            group: None,
            classifiers: None,
        }
    }
}

/// Whether a column name reads as a group column: `group`, `groups`,
/// `group_…`, `group-…`, `…_group`, `…-group` (any case).
pub fn named_like_a_group(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "group"
        || n == "groups"
        || n.starts_with("group_")
        || n.starts_with("group-")
        || n.ends_with("_group")
        || n.ends_with("-group")
}

#[cfg(feature = "data")]
mod files {
    use super::{
        check, compare, named_like_a_group, rank, read_metric, Metric, PoolStatistics,
        PredictionColumns, Ranking,
    };
    use crate::error::{Error, Result};
    use crate::fit::{Record, Records};
    use std::io::Read;
    use std::path::Path;

    /// A cell as a code below `limit` (`what` says of which kind), or an
    /// error naming the file, line, column and value.
    fn code<R: Read>(
        file: &Records<R>,
        record: &Record,
        column: usize,
        limit: Option<&(usize, String)>,
    ) -> Result<usize> {
        let name = &file.names()[column];
        let cell = record.cell(column);
        if cell.is_empty() {
            return Err(file.error(
                record.line,
                format!(
                    "row {}: {name} is empty (a class code 0, 1, 2, … is needed)",
                    record.line
                ),
            ));
        }
        let Some(v) = file.code(record, column) else {
            return Err(file.error(
                record.line,
                format!(
                    "row {}: {name} = {cell} is not a class code (0, 1, 2, …)",
                    record.line
                ),
            ));
        };
        match limit {
            Some((n, what)) if v >= *n => Err(file.error(
                record.line,
                format!("row {}: {name} = {v} is not {what}", record.line),
            )),
            _ => Ok(v),
        }
    }

    impl PoolStatistics {
        /// Reads a predictions CSV ([`Records`], problems filed under
        /// `--predictions` with the file and line): the columns of
        /// `columns`, each classifier's cells its predicted class codes.
        /// With a `metric`, k and m are its classes and groups: codes
        /// outside them are refused naming the row and the value, and every
        /// class (and group) must occur in the labels (and groups). Without
        /// one, k is the largest label + 1 (at least 2).
        ///
        /// # Errors
        /// [`Error::Io`] when the file cannot be read;
        /// [`Error::InvalidArgument`] naming the option or the file, line
        /// and column: a missing or duplicated column, a classifier column
        /// that is the label or group, a column named like a group column
        /// left among the classifiers, no classifier, a cell that is not a
        /// code, a code outside the metric's classes or groups, a class or
        /// group that never occurs.
        pub fn read(
            path: &Path,
            columns: &PredictionColumns,
            metric: Option<&Metric>,
        ) -> Result<PoolStatistics> {
            let classes = metric.and_then(|m| m.classes());
            let groups = metric.and_then(|m| m.groups());
            let family = metric.map_or("", |m| m.family());
            let mut file = Records::open(path, "--predictions")?;
            let source = file.source().to_string();
            let label = file.column(&columns.label, "--label")?;
            let group = match &columns.group {
                Some(g) => {
                    let at = file.column(g, "--group")?;
                    if at == label {
                        return Err(Error::invalid(
                            "--group",
                            format!("{g:?} is the label column"),
                        ));
                    }
                    Some(at)
                }
                None => None,
            };
            let chosen: Vec<usize> = match &columns.classifiers {
                Some(names) => {
                    let mut at = Vec::with_capacity(names.len());
                    for (i, n) in names.iter().enumerate() {
                        if names[..i].contains(n) {
                            return Err(Error::invalid(
                                "--classifiers",
                                format!("{n:?} is named twice"),
                            ));
                        }
                        let c = file.column(n, "--classifiers")?;
                        if c == label || Some(c) == group {
                            return Err(Error::invalid(
                                "--classifiers",
                                format!(
                                    "{n:?} is the {} column, not a classifier",
                                    if c == label { "label" } else { "group" }
                                ),
                            ));
                        }
                        at.push(c);
                    }
                    at
                }
                None => {
                    let names = file.names();
                    let mut at = Vec::new();
                    for (c, n) in names.iter().enumerate() {
                        if c == label || Some(c) == group {
                            continue;
                        }
                        if columns.group.is_none() && named_like_a_group(n) {
                            return Err(file.error(
                                1,
                                format!(
                                    "column {n:?} looks like a group column, not a classifier: pass --group {n} to use it as the groups, or name the classifier columns with --classifiers"
                                ),
                            ));
                        }
                        at.push(c);
                    }
                    at
                }
            };
            if chosen.is_empty() {
                return Err(Error::invalid(
                    "--predictions",
                    format!(
                        "{source}: no classifier column (columns: {})",
                        file.names().join(", ")
                    ),
                ));
            }
            let class_limit = classes.map(|k| {
                (
                    k,
                    format!(
                        "a class of the {family} metric (k = {k} classes: codes 0..{})",
                        k - 1
                    ),
                )
            });
            let group_limit = groups.map(|m| {
                (
                    m,
                    format!(
                        "a group of the {family} metric (m = {m} groups: codes 0..{})",
                        m - 1
                    ),
                )
            });
            let mut labels = Vec::new();
            let mut group_codes = group.map(|_| Vec::new());
            let mut predictions: Vec<Vec<usize>> = vec![Vec::new(); chosen.len()];
            while let Some(record) = file.next_record()? {
                labels.push(code(&file, &record, label, class_limit.as_ref())?);
                if let (Some(g), Some(codes)) = (group, group_codes.as_mut()) {
                    codes.push(code(&file, &record, g, group_limit.as_ref())?);
                }
                for (p, &c) in predictions.iter_mut().zip(&chosen) {
                    p.push(code(&file, &record, c, class_limit.as_ref())?);
                }
            }
            if labels.is_empty() {
                return Err(Error::invalid(
                    "--predictions",
                    format!("{source}: no data rows after the header"),
                ));
            }
            let observed = labels.iter().max().map_or(0, |m| m + 1).max(2);
            let k = classes.unwrap_or(observed);
            if let Some(c) = (0..k).find(|c| !labels.contains(c)) {
                return Err(Error::invalid(
                    "--predictions",
                    format!(
                        "{source}: class {c} never occurs in the label column {:?}: the {family} metric is for k = {k} classes, the labels hold k = {} (classes {})",
                        columns.label,
                        labels.iter().max().map_or(0, |m| m + 1),
                        {
                            let mut seen: Vec<usize> = labels.clone();
                            seen.sort_unstable();
                            seen.dedup();
                            seen.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                        }
                    ),
                ));
            }
            if let (Some(m), Some(codes)) = (groups, &group_codes) {
                if let Some(g) = (0..m).find(|g| !codes.contains(g)) {
                    return Err(Error::invalid(
                        "--predictions",
                        format!(
                            "{source}: group {g} never occurs in the group column {:?}: the {family} metric compares m = {m} groups",
                            columns.group.as_deref().unwrap_or("")
                        ),
                    ));
                }
            }
            let named: Vec<(String, Vec<usize>)> = chosen
                .iter()
                .map(|&c| file.names()[c].clone())
                .zip(predictions)
                .collect();
            PoolStatistics::with_classes(k, &named, &labels, group_codes.as_deref())
                .map_err(|e| Error::invalid("--predictions", format!("{source}: {e}")))
        }
    }

    /// Reads each classifier's attribute values (a cost/reward metric's):
    /// a CSV with a `classifier` column and one column per name in
    /// `names` ([`Records`], problems filed under `--attributes`).
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file; [`Error::InvalidArgument`]
    /// naming the file, line and column for a missing column, a value that
    /// is not a number, or a classifier listed twice.
    pub fn read_attributes(path: &Path, names: &[String]) -> Result<Vec<(String, Vec<f64>)>> {
        let mut file = Records::open(path, "--attributes")?;
        let name_at = file.column("classifier", "--attributes")?;
        let at: Vec<usize> = names
            .iter()
            .map(|n| file.column(n, "--attributes"))
            .collect::<Result<_>>()?;
        let mut values: Vec<(String, Vec<f64>)> = Vec::new();
        while let Some(record) = file.next_record()? {
            let name = record.cell(name_at).to_string();
            if values.iter().any(|(n, _)| *n == name) {
                return Err(file.error(record.line, format!("classifier {name:?} listed twice")));
            }
            let row = at
                .iter()
                .map(|&i| file.number::<f64>(&record, i))
                .collect::<Result<_>>()?;
            values.push((name, row));
        }
        Ok(values)
    }

    /// `elicit rank --metric FILE --predictions FILE [--label COL] [--group
    /// COL] [--classifiers A,B,…] [--truth FILE] [--attributes FILE]`: reads
    /// the metric (and the truth), then the predictions with the metric's
    /// classes and groups, and, for a metric weighing attributes, each
    /// classifier's values; ranks, and compares with the truth.
    ///
    /// # Errors
    /// As [`read_metric`], [`PoolStatistics::read`], [`read_attributes`]
    /// and [`rank`]; a truth for other classes or groups than the metric's,
    /// a fair metric without `--group`, a metric weighing attributes
    /// without `--attributes`.
    pub fn rank_files(
        metric: &Path,
        predictions: &Path,
        columns: &PredictionColumns,
        truth: Option<&Path>,
        attributes: Option<&Path>,
    ) -> Result<Ranking> {
        let metric_path = metric;
        let metric = read_metric(metric_path, "--metric")?;
        let truth = match truth {
            Some(path) => {
                let t = read_metric(path, "--truth")?;
                if t.classes() != metric.classes() || t.groups() != metric.groups() {
                    let shape = |m: &Metric| {
                        format!(
                            "a {} metric for k = {} classes{}",
                            m.family(),
                            m.classes().map_or("?".into(), |k| k.to_string()),
                            m.groups()
                                .map_or(String::new(), |g| format!(" and m = {g} groups"))
                        )
                    };
                    return Err(Error::invalid(
                        "--truth",
                        format!(
                            "{}: {}, but --metric {} is {}",
                            path.display(),
                            shape(&t),
                            metric_path.display(),
                            shape(&metric)
                        ),
                    ));
                }
                Some(t)
            }
            None => None,
        };
        metric.classes().ok_or_else(|| {
            Error::invalid("--metric", "the metric's weights fit no number of classes")
        })?;
        if let (Some(m), None) = (metric.groups(), &columns.group) {
            return Err(Error::invalid(
                "group",
                format!(
                    "--group is required: the {} metric compares m = {m} groups; name the predictions file's group column",
                    metric.family()
                ),
            ));
        }
        let mut pool = PoolStatistics::read(predictions, columns, Some(&metric))?;
        let mut names = metric.attributes();
        for n in truth.iter().flat_map(|t| t.attributes()) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        if !names.is_empty() {
            let path = attributes.ok_or_else(|| {
                Error::invalid(
                    "--attributes",
                    format!(
                        "the metric weighs {}: give each classifier's values with --attributes FILE (a CSV with a classifier column and one column per attribute)",
                        names.join(", ")
                    ),
                )
            })?;
            let values = read_attributes(path, &names)?;
            pool.set_attributes(&names, &values);
        }
        check(&metric, &pool)?;
        let ranking = rank(&metric, &pool)?;
        let comparison = match &truth {
            Some(t) => Some(compare(&metric, t, &pool)?),
            None => None,
        };
        let columns = match &columns.classifiers {
            Some(_) => "the columns --classifiers names".to_string(),
            None => format!(
                "every column but {}; --classifiers names them",
                match &columns.group {
                    Some(g) => format!("{} and {g}", columns.label),
                    None => columns.label.clone(),
                }
            ),
        };
        Ok(Ranking {
            metric,
            ranking,
            comparison,
            pool,
            columns,
        })
    }
}

#[cfg(feature = "data")]
pub use files::{rank_files, read_attributes};
