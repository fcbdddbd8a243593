//! A binary population given by finitely many (score, label) pairs.

use super::{BinaryConfusion, BinaryPopulation, Side};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// The empirical population of n pairs (η̂(xᵢ), yᵢ): the confusion of a
/// threshold classifier is the fraction of pairs it gets right.
///
/// [`FiniteBinary::expected`] builds the same population with confusions in
/// expectation under the scores instead of the labels: each row counts
/// η̂(xᵢ) towards class 1 and 1 − η̂(xᵢ) towards class 0.
///
/// Built in O(n log n) (one sort and prefix sums of the labels); the
/// confusion of any threshold is then O(log n) (a binary search). The
/// boundary of its confusion set is a staircase, so elicitation on it is
/// exact only to the resolution the sample allows.
///
/// # Examples
/// ```
/// use metric_elicitation::population::{BinaryPopulation, FiniteBinary, Side};
/// let pop = FiniteBinary::new(vec![(0.9, true), (0.6, false), (0.4, true), (0.1, false)]).unwrap();
/// assert_eq!(pop.zeta(), 0.5);
/// // 1[η̂ ≥ 1/2]: predicts the first two positive.
/// let c = pop.threshold_confusion(&1.0, &1.0, Side::Upper);
/// assert_eq!((c.tp, c.tn), (0.25, 0.25));
/// ```
#[derive(Debug, Clone)]
pub struct FiniteBinary<T> {
    /// Scores sorted increasingly.
    scores: Vec<T>,
    /// positives_below[i] = the class-1 mass (labels, or η̂ for expected
    /// confusions) of scores[..i]; the class-0 mass is i − positives_below[i].
    positives_below: Vec<T>,
    n: T,
    /// What the sample says against itself ([`FiniteBinary::with_warnings`]).
    warnings: Vec<crate::diagnostics::Warning>,
}

impl<T: Scalar> FiniteBinary<T> {
    /// The empirical population of `pairs` (score, is_positive).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when there are no pairs, a score is not
    /// finite, or only one class occurs.
    pub fn new(pairs: Vec<(T, bool)>) -> Result<Self> {
        let weighted = pairs
            .into_iter()
            .map(|(s, y)| (s, T::int(i64::from(y))))
            .collect();
        Self::weighted(weighted)
    }

    /// The population of scores η̂(xᵢ) ∈ [0, 1] with *expected* confusions:
    /// row i is class 1 with probability η̂(xᵢ) (no labels).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when there are no scores, a score is not
    /// in [0, 1], or all scores are 0 or all are 1.
    pub fn expected(scores: Vec<T>) -> Result<Self> {
        if let Some(i) = scores
            .iter()
            .position(|s| !(*s >= T::int(0) && *s <= T::int(1)))
        {
            return Err(Error::invalid(
                "population",
                format!("score of row {i} is not a probability ({})", scores[i]),
            ));
        }
        Self::weighted(scores.into_iter().map(|s| (s.clone(), s)).collect())
    }

    /// (score, class-1 mass in [0, 1]) pairs.
    fn weighted(mut pairs: Vec<(T, T)>) -> Result<Self> {
        if pairs.is_empty() {
            return Err(Error::invalid("population", "no (score, label) pairs"));
        }
        if let Some(i) = pairs.iter().position(|(s, _)| !s.finite()) {
            return Err(Error::invalid(
                "population",
                format!("score of row {i} is not finite ({})", pairs[i].0),
            ));
        }
        // Finite values are totally ordered.
        pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        let mut positives_below = Vec::with_capacity(pairs.len() + 1);
        positives_below.push(T::int(0));
        let mut mass = T::int(0);
        for (_, y) in &pairs {
            mass += y;
            positives_below.push(mass.clone());
        }
        let n = T::from_u64(pairs.len() as u64).unwrap_or_else(T::one);
        if mass <= T::int(0) || mass >= n {
            return Err(Error::invalid(
                "population",
                "labels must contain both classes",
            ));
        }
        Ok(FiniteBinary {
            scores: pairs.into_iter().map(|(s, _)| s).collect(),
            positives_below,
            n,
            warnings: Vec::new(),
        })
    }

    /// The same population carrying `warnings` (reported with every
    /// estimate on it, [`BinaryPopulation::warnings`]).
    #[must_use]
    pub fn with_warnings(mut self, warnings: Vec<crate::diagnostics::Warning>) -> Self {
        self.warnings = warnings;
        self
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Always false (construction rejects an empty sample).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    fn count(&self, mass: T) -> T {
        mass / self.n.clone()
    }

    /// Class-1 and class-0 mass among the first `i` sorted scores.
    fn below(&self, i: usize) -> (T, T) {
        let p = self.positives_below[i].clone();
        let all = T::from_u64(i as u64).unwrap_or_else(T::zero);
        (p.clone(), all - p)
    }
}

impl<T: Scalar> BinaryPopulation<T> for FiniteBinary<T> {
    fn zeta(&self) -> T {
        self.count(self.positives_below[self.scores.len()].clone())
    }

    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.warnings.clone()
    }

    fn threshold_confusion(&self, m11: &T, m00: &T, side: Side) -> BinaryConfusion<T> {
        let (m11, m00) = (m11.clone().abs(), m00.clone().abs());
        let delta = m00.clone() / (m11 + m00);
        let total = self.below(self.scores.len());
        // 1[η̂ ≥ δ] predicts positive on scores[lt..] where lt = #{s < δ};
        // 1[η̂ ≤ δ] predicts positive on scores[..le] where le = #{s ≤ δ}.
        match side {
            Side::Upper => {
                let lt = self.scores.partition_point(|s| *s < delta);
                let (pos, neg) = self.below(lt);
                BinaryConfusion {
                    tp: self.count(total.0 - pos),
                    tn: self.count(neg),
                }
            }
            Side::Lower => {
                let le = self.scores.partition_point(|s| *s <= delta);
                let (pos, neg) = self.below(le);
                BinaryConfusion {
                    tp: self.count(pos),
                    tn: self.count(total.1 - neg),
                }
            }
        }
    }
}
