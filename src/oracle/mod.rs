//! The oracle model: who answers "do you prefer x to y?".
//!
//! * [`Oracle`] — the trait: Ω(x, y) = 1[φ(x) > φ(y)] (003 Def. 3; strictly
//!   greater, ties answer "no").
//! * [`Simulated`] — an exact oracle from a known metric.
//! * [`Noisy`] — the ε_Ω-noise model of 003 Def. 7: every answer is correct
//!   when |φ(x) − φ(y)| ≥ ε_Ω; inside that band an [`Adversary`] answers.
//! * [`Counted`] — the wrapper every procedure runs its oracle behind:
//!   counts queries, enforces a budget, records a [`Transcript`].
//! * [`Replay`] — answers from a recorded transcript, refusing any query that
//!   differs from the recorded one.

mod counting;
mod noise;
mod transcript;

pub use counting::Counted;
pub use noise::{Adversary, AlwaysWrong, Noisy, PushAway, Scripted, SeededRandom};
pub use transcript::{QueryPoint, Record, Replay, ReplayThen, Transcript};

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// One answer of an oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// `true` when the first point is strictly preferred.
    pub prefers_first: bool,
    /// Whether the pair lay inside the noise band |φ(x) − φ(y)| < ε_Ω, when
    /// the oracle knows (simulated oracles do; a person does not).
    pub in_noise_band: Option<bool>,
}

impl Answer {
    /// An answer with no noise-band information.
    pub fn plain(prefers_first: bool) -> Self {
        Answer {
            prefers_first,
            in_noise_band: None,
        }
    }
}

/// A pairwise preference oracle over points of type `Q` (003 Def. 3,
/// 002 Def. 6, 001 Def. 2, 000 Def. 2).
pub trait Oracle<Q: ?Sized> {
    /// Is `x` strictly preferred to `y`?
    ///
    /// # Errors
    /// Whatever stops the oracle from answering: an exhausted budget, script
    /// or transcript, a non-finite metric value, a person quitting.
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer>;
}

impl<Q: ?Sized, O: Oracle<Q> + ?Sized> Oracle<Q> for Box<O> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        (**self).compare(x, y)
    }
}

impl<Q: ?Sized, O: Oracle<Q> + ?Sized> Oracle<Q> for &mut O {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        (**self).compare(x, y)
    }
}

/// A performance metric φ over query points of type `Q`; larger is better.
///
/// Closures `Fn(&Q) -> T` are metrics.
pub trait Metric<Q: ?Sized> {
    /// The scalar type of the metric's values.
    type Value: Scalar;
    /// φ(q).
    fn value(&self, q: &Q) -> Self::Value;
}

impl<Q: ?Sized, T: Scalar, F: Fn(&Q) -> T> Metric<Q> for F {
    type Value = T;
    fn value(&self, q: &Q) -> T {
        self(q)
    }
}

/// Evaluates φ and rejects NaN or infinite values with a typed error.
fn finite_value<Q: ?Sized, M: Metric<Q>>(metric: &M, q: &Q) -> Result<M::Value> {
    let v = metric.value(q);
    if v.finite() {
        Ok(v)
    } else {
        Err(Error::NonFiniteMetric {
            value: v.to_string(),
        })
    }
}

/// The exact oracle of a known metric: Ω(x, y) = 1[φ(x) > φ(y)].
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{Oracle, Simulated};
/// let mut oracle = Simulated::new(|x: &f64| -(x - 0.3).powi(2));
/// assert!(oracle.compare(&0.3, &0.5).unwrap().prefers_first);
/// assert!(!oracle.compare(&0.5, &0.5).unwrap().prefers_first); // ties: no
/// ```
#[derive(Debug, Clone)]
pub struct Simulated<M> {
    metric: M,
}

impl<M> Simulated<M> {
    /// An exact oracle answering according to `metric`.
    pub fn new(metric: M) -> Self {
        Simulated { metric }
    }

    /// The hidden metric.
    pub fn metric(&self) -> &M {
        &self.metric
    }
}

impl<Q: ?Sized, M: Metric<Q>> Oracle<Q> for Simulated<M> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        let fx = finite_value(&self.metric, x)?;
        let fy = finite_value(&self.metric, y)?;
        Ok(Answer {
            prefers_first: fx > fy,
            in_noise_band: Some(false),
        })
    }
}
