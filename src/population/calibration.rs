//! Whether rows' class probabilities describe the labels they come with:
//! a reliability check run before any question on a labelled sample
//! (a `dataset` or `arrays` population with labelled confusions).
//!
//! The query classifiers of a finite sample are built from its
//! probabilities η̂ (threshold classifiers in 003, restricted-Bayes-optimal
//! ones in 002), and the oracle's metric is evaluated on the confusions
//! its *labels* give. The procedures assume that those classifiers are the
//! best for some metric on these confusions, which holds when η̂ describes
//! the labels. When it does not (labels that do not follow the
//! probabilities, a badly over-confident model), the classifiers asked
//! about need not be best for any metric, and the elicited metric can be
//! far from the oracle's with every search looking settled: a DLPM run on
//! 300 rows whose labels were drawn independently of their probabilities
//! ended "determined" with error 0.33 before this check.
//!
//! The sphere-based procedures (lpm, lpme, the fair ones) do not need it:
//! every query they ask is a point of a certified sphere inside the
//! sample's feasible set, the labelled confusions of a real (randomized)
//! classifier whatever the probabilities, and a linear metric recovered on
//! any such sphere is the metric.
//!
//! The check: among the n_j rows whose most probable class is j, the share
//! labelled j, o_j, against the mean probability of j over them, e_j
//! (equal in expectation when η̂ is calibrated). It fails when, for a class
//! with at least [`MIN_ROWS`] such rows,
//! |o_j − e_j| > [`SLACK`] + 3·√(e_j(1 − e_j)/n_j): a gap beyond the
//! sampling noise of n_j rows and beyond the miscalibration of a fair model.

use crate::diagnostics::{Cause, Warning};

/// Absolute slack on |o_j − e_j| (ten points of probability): the
/// reliability error of an ordinary fitted model stays below it.
pub const SLACK: f64 = 0.10;

/// Classes predicted on fewer rows are not judged.
pub const MIN_ROWS: usize = 20;

/// The reliability check of n rows of k probabilities (`scores`, row-major)
/// against their `labels`; a [`Cause::Miscalibrated`] warning naming the
/// worst class when it fails (classes quoted 1-based).
///
/// # Examples
/// ```
/// use metric_elicitation::population::calibration;
/// // Labels that follow the probabilities' argmax 80 % of the time, as the
/// // probabilities (0.8) say: no warning.
/// let scores: Vec<f64> = (0..100).flat_map(|_| [0.8, 0.2]).collect();
/// let labels: Vec<usize> = (0..100).map(|r| usize::from(r % 5 == 0)).collect();
/// assert!(calibration::check(2, &scores, &labels).is_none());
/// // The same probabilities with every label 1: class 1 is predicted on
/// // 100 rows with probability 0.8 and none of them is class 1.
/// let wrong = vec![1; 100];
/// assert!(calibration::check(2, &scores, &wrong).is_some());
/// ```
pub fn check(k: usize, scores: &[f64], labels: &[usize]) -> Option<Warning> {
    if k < 2 || scores.len() != labels.len() * k {
        return None;
    }
    let mut rows = vec![0usize; k];
    let mut labelled = vec![0usize; k];
    let mut expected = vec![0f64; k];
    for (row, &y) in scores.chunks(k).zip(labels) {
        let j = argmax(row);
        rows[j] += 1;
        expected[j] += row[j];
        labelled[j] += usize::from(y == j);
    }
    let mut worst: Option<(f64, usize)> = None;
    for j in 0..k {
        if rows[j] < MIN_ROWS {
            continue;
        }
        let n = rows[j] as f64;
        let (e, o) = (expected[j] / n, labelled[j] as f64 / n);
        let allowed = SLACK + 3.0 * (e * (1.0 - e) / n).sqrt();
        let excess = (o - e).abs() - allowed;
        if excess > 0.0 && worst.is_none_or(|(w, _)| excess > w) {
            worst = Some((excess, j));
        }
    }
    worst.map(|(_, j)| {
        let n = rows[j] as f64;
        Warning::new(
            Cause::Miscalibrated,
            format!(
                "the probabilities do not describe the labels: of the {} rows whose most probable class is {}, {:.0} % are labelled {} where their probabilities say {:.0} %; the classifiers asked about are built from the probabilities, so on these labels they need not be the best for any metric and the elicited metric can be far off (calibrate the model, for example with scikit-learn's CalibratedClassifierCV, or use confusions = \"expected\")",
                rows[j],
                j + 1,
                100.0 * labelled[j] as f64 / n,
                j + 1,
                100.0 * expected[j] / n
            ),
        )
    })
}

/// The most probable class (the first of equals).
fn argmax(row: &[f64]) -> usize {
    let mut best = 0;
    for (j, v) in row.iter().enumerate() {
        if *v > row[best] {
            best = j;
        }
    }
    best
}
