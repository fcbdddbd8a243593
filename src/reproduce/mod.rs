//! Reproductions of the papers' tables and theorem checks, as data.
//!
//! Each function re-runs one table (or checks one theorem empirically) and
//! returns [`Row`]s carrying the paper's numbers beside ours; the tests
//! assert on them and the `elicit reproduce` command renders them.

pub mod binary;
pub mod multiclass;

use serde::Serialize;

/// One reproduced row (the schema of `results.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Paper prefix and table or theorem, e.g. `003-table1`.
    pub table: String,
    /// Row label within the table.
    pub row: String,
    /// The hidden metric's parameters.
    pub truth: Vec<f64>,
    /// The elicited parameters.
    pub elicited: Vec<f64>,
    /// The paper's elicited parameters, where it printed them.
    pub paper: Vec<f64>,
    /// Oracle queries used (per trial, for theorem rows: the largest).
    pub queries: usize,
    /// The error measure of the row (‖truth − elicited‖∞ unless stated).
    pub error: f64,
    /// Scalar backend (`f64`, `mpfr:256`).
    pub precision: String,
    /// Search strategy.
    pub search: String,
    /// LFPM rows: mean of φ̂/φ over the ∂C+ confusions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// LFPM rows: standard deviation of φ̂/φ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// LFPM rows: the paper's α and σ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper_alpha_sigma: Option<(f64, f64)>,
    /// Theorem rows: number of trials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<usize>,
    /// Theorem rows: the theorem's right-hand side for this setting (the
    /// smallest over the trials when it depends on the trial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// Theorem rows: the largest error over the trials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_error: Option<f64>,
    /// Theorem rows: the largest error/bound ratio over the trials (≤ 1
    /// when the theorem held in every trial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_ratio: Option<f64>,
    /// Theorem rows: trials in which the bound was violated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<usize>,
    /// 002 Thm. 1 rows: the largest error divided by the trial's own
    /// instance bound (see `multiclass::dlpm_instance_bound`); ≤ 1 when every
    /// trial met it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_ratio: Option<f64>,
    /// 002 Thm. 1 rows: the constant with each trial divided by the
    /// conditioning of Alg. 1's estimator (max(1, κ)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditioned_ratio: Option<f64>,
    /// MPFR runs: ‖elicited − elicited at f64‖∞ for the same row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f64_difference: Option<f64>,
    /// Free-form notes (settings, why a value differs).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl Row {
    /// A row with the identifying fields set and the rest empty.
    pub fn new(table: &str, row: impl Into<String>, precision: String, search: &str) -> Self {
        Row {
            table: table.into(),
            row: row.into(),
            truth: Vec::new(),
            elicited: Vec::new(),
            paper: Vec::new(),
            queries: 0,
            error: 0.0,
            precision,
            search: search.into(),
            alpha: None,
            sigma: None,
            paper_alpha_sigma: None,
            trials: None,
            bound: None,
            worst_error: None,
            worst_ratio: None,
            violations: None,
            instance_ratio: None,
            conditioned_ratio: None,
            f64_difference: None,
            note: String::new(),
        }
    }
}

/// ‖a − b‖∞ over two equally long slices.
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Maps `f` over `items` on all available cores (scoped threads), keeping
/// the order; the first error wins.
///
/// # Errors
/// The first error any call returned.
pub fn parallel_map<I: Sync, R: Send>(
    items: &[I],
    f: impl Fn(&I) -> crate::Result<R> + Sync,
) -> crate::Result<Vec<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    let parts: Vec<crate::Result<Vec<R>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<crate::Result<Vec<R>>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(crate::Error::invalid("worker", "a worker thread panicked"))
                })
            })
            .collect()
    });
    let mut out = Vec::with_capacity(items.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}
