//! The oracle model: who answers "do you prefer x to y?".
//!
//! * [`Oracle`] — the trait: Ω(x, y) = 1[φ(x) > φ(y)] (003 Def. 3; strictly
//!   greater, ties answer "no").
//! * [`Simulated`] — an exact oracle from a known metric.
//! * [`Noisy`] — the ε_Ω-noise model of 003 Def. 7: every answer is correct
//!   when |φ(x) − φ(y)| ≥ ε_Ω; inside that band an [`Adversary`] answers.
//! * [`Memo`] — a metric that remembers its last few values, so that a
//!   costly simulated metric is evaluated once per distinct point.
//! * [`Counted`] — the wrapper every procedure runs its oracle behind:
//!   counts queries, enforces a budget, records a [`Transcript`].
//! * [`Replay`] — answers from a recorded transcript, refusing any query that
//!   differs from the recorded one.
//! * [`people`] — simulated people: [`Mistakes`], [`BradleyTerry`],
//!   [`CantTell`].

mod counting;
mod memo;
mod noise;
pub mod people;
mod transcript;

pub use counting::Counted;
pub use memo::{Memo, Recall, MEMO_SLOTS};
pub use noise::{Adversary, AlwaysWrong, Noisy, PushAway, Scripted, SeededRandom};
pub use people::{BradleyTerry, CantTell, Mistakes, Tempered};
pub use transcript::{QueryPoint, Record, Replay, ReplayThen, Transcript};

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// The answer to "do you prefer x to y?", three-valued: a preference for
/// either point, or indifference (equal metric values, identical confusions,
/// or a person's "can't tell").
///
/// The papers' oracle is binary, Ω(x, y) = 1[φ(x) > φ(y)] (003 Def. 3,
/// strictly greater, ties answer "no"); [`Preference::prefers_first`] is that
/// reading, and every procedure decides with it, so reproductions follow the
/// papers. The third value is kept for what the answers *imply*: the
/// consistent sets of [`crate::search::Outcome`] treat "first" and "second"
/// as strict and indifference as no information about where the maximum is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preference {
    /// φ(x) > φ(y): the first point is strictly preferred.
    First,
    /// φ(x) < φ(y): the second point is strictly preferred.
    Second,
    /// Neither is preferred: φ(x) = φ(y), or the person cannot tell.
    Indifferent,
}

impl Preference {
    /// The exact answer for two metric values: `First` when `fx > fy`,
    /// `Second` when `fx < fy`, `Indifferent` when they are equal.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::oracle::Preference;
    /// assert_eq!(Preference::of(&0.5, &0.25), Preference::First);
    /// assert_eq!(Preference::of(&0.5, &0.5), Preference::Indifferent);
    /// ```
    pub fn of<T: PartialOrd>(fx: &T, fy: &T) -> Self {
        // One comparison (at MPFR precision each comparison is a call); an
        // unordered pair (NaN) is indifferent, as neither is greater.
        match fx.partial_cmp(fy) {
            Some(std::cmp::Ordering::Greater) => Preference::First,
            Some(std::cmp::Ordering::Less) => Preference::Second,
            _ => Preference::Indifferent,
        }
    }

    /// The papers' binary reading Ω(x, y) = 1[φ(x) > φ(y)]: `true` only for
    /// a strict preference for the first point.
    pub fn prefers_first(self) -> bool {
        self == Preference::First
    }

    /// The answer to the same question with the two points swapped.
    pub fn swapped(self) -> Self {
        match self {
            Preference::First => Preference::Second,
            Preference::Second => Preference::First,
            Preference::Indifferent => Preference::Indifferent,
        }
    }
}

/// A binary answer read strictly: `true` is a strict preference for the
/// first point, `false` a strict preference for the second (a binary oracle
/// that never reports ties).
impl From<bool> for Preference {
    fn from(first: bool) -> Self {
        if first {
            Preference::First
        } else {
            Preference::Second
        }
    }
}

/// One answer of an oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// Which point is preferred, if either.
    pub preference: Preference,
    /// Whether the pair lay inside the noise band |φ(x) − φ(y)| < ε_Ω, when
    /// the oracle knows (simulated oracles do; a person does not).
    pub in_noise_band: Option<bool>,
}

impl Answer {
    /// An answer with no noise-band information.
    pub fn plain(preference: Preference) -> Self {
        Answer {
            preference,
            in_noise_band: None,
        }
    }

    /// The papers' binary reading: is the first point strictly preferred?
    pub fn prefers_first(&self) -> bool {
        self.preference.prefers_first()
    }
}

/// A pairwise preference oracle over points of type `Q` (003 Def. 3,
/// 002 Def. 6, 001 Def. 2, 000 Def. 2).
pub trait Oracle<Q: ?Sized> {
    /// Which of `x` and `y` is preferred, if either.
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

    /// `f(&φ(x), &φ(y))`, evaluating y first. The default evaluates both;
    /// a [`Memo`] lends its kept values instead of copying them (a copy
    /// is an allocation at MPFR precision).
    fn with_values<R>(&self, x: &Q, y: &Q, f: impl FnOnce(&Self::Value, &Self::Value) -> R) -> R
    where
        Self: Sized,
    {
        let fy = self.value(y);
        f(&self.value(x), &fy)
    }
}

impl<Q: ?Sized, T: Scalar, F: Fn(&Q) -> T> Metric<Q> for F {
    type Value = T;
    fn value(&self, q: &Q) -> T {
        self(q)
    }
}

/// `f(&φ(x), &φ(y))` for a comparison of x with y, rejecting a NaN or
/// infinite value (y's first) with a typed error. y is evaluated first:
/// along a search's run of comparisons the second point is the one
/// before's first, so behind a [`Memo`] it is the most recent value, found
/// at the first look.
fn finite_values<Q: ?Sized, M: Metric<Q>, R>(
    metric: &M,
    x: &Q,
    y: &Q,
    f: impl FnOnce(&M::Value, &M::Value) -> R,
) -> Result<R> {
    metric.with_values(x, y, |fx, fy| {
        match [fy, fx].into_iter().find(|v| !v.finite()) {
            Some(v) => Err(Error::NonFiniteMetric {
                value: v.to_string(),
            }),
            None => Ok(f(fx, fy)),
        }
    })
}

/// The exact oracle of a known metric: Ω(x, y) = 1[φ(x) > φ(y)].
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{Oracle, Preference, Simulated};
/// let mut oracle = Simulated::new(|x: &f64| -(x - 0.3).powi(2));
/// assert!(oracle.compare(&0.3, &0.5).unwrap().prefers_first());
/// // ties: indifferent (the papers' binary reading: "no")
/// assert_eq!(oracle.compare(&0.5, &0.5).unwrap().preference, Preference::Indifferent);
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
        Ok(Answer {
            preference: finite_values(&self.metric, x, y, Preference::of)?,
            in_noise_band: Some(false),
        })
    }
}
