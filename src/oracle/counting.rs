//! The counting wrapper every procedure runs its oracle behind.

use super::{Answer, Oracle, Preference, QueryPoint, Record, Transcript};
use crate::error::{Error, Result};

/// Wraps an oracle to count its queries, enforce a query budget and
/// (optionally) record a [`Transcript`].
///
/// Query counts are the headline figure of metric elicitation; every
/// procedure reports `queries()` of the `Counted` it ran behind.
///
/// A comparison of two identical points (the same confusion reached by two
/// different parameters, e.g. on a plateau of a finite sample) is not put to
/// the inner oracle: its answer is known to be
/// [`Preference::Indifferent`]. It is counted in [`Counted::known`], not in
/// [`Counted::queries`], is not recorded, and uses no budget, so a person is
/// never shown two identical classifiers.
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{Counted, Oracle, Simulated};
/// let mut oracle = Counted::new(Simulated::new(|x: &f64| *x)).with_budget(1).unwrap();
/// assert!(oracle.compare(&1.0, &0.0).unwrap().prefers_first());
/// assert!(oracle.compare(&1.0, &0.0).is_err()); // budget spent
/// assert_eq!(oracle.queries(), 1);
/// ```
#[derive(Debug)]
pub struct Counted<O> {
    inner: O,
    queries: usize,
    in_band: usize,
    known: usize,
    budget: Option<usize>,
    transcript: Option<Transcript>,
}

impl<O> Counted<O> {
    /// Counts the queries posed to `inner`; no budget, no transcript.
    pub fn new(inner: O) -> Self {
        Counted {
            inner,
            queries: 0,
            in_band: 0,
            known: 0,
            budget: None,
            transcript: None,
        }
    }

    /// Refuses any query beyond the first `budget`.
    ///
    /// # Errors
    /// [`Error::ZeroBudget`] when `budget` is 0.
    pub fn with_budget(mut self, budget: usize) -> Result<Self> {
        if budget == 0 {
            return Err(Error::ZeroBudget);
        }
        self.budget = Some(budget);
        Ok(self)
    }

    /// Records every query and answer into `transcript` (which may also write
    /// each record to a file as it is made).
    pub fn with_transcript(mut self, transcript: Transcript) -> Self {
        self.transcript = Some(transcript);
        self
    }

    /// Queries answered so far.
    pub fn queries(&self) -> usize {
        self.queries
    }

    /// Queries whose pair the oracle reported inside the noise band.
    pub fn in_band_queries(&self) -> usize {
        self.in_band
    }

    /// Comparisons of two identical points, answered "indifferent" without
    /// asking (the papers count them as queries: their count is
    /// `queries() + known()`).
    pub fn known(&self) -> usize {
        self.known
    }

    /// Comparisons the procedure posed: [`Counted::queries`] plus
    /// [`Counted::known`]. This is the papers' query count.
    pub fn posed(&self) -> usize {
        self.queries + self.known
    }

    /// The budget, if one was set.
    pub fn budget(&self) -> Option<usize> {
        self.budget
    }

    /// The wrapped oracle.
    pub fn inner(&self) -> &O {
        &self.inner
    }

    /// The wrapped oracle, mutably.
    pub fn inner_mut(&mut self) -> &mut O {
        &mut self.inner
    }

    /// The transcript recorded so far, if recording.
    pub fn transcript(&self) -> Option<&Transcript> {
        self.transcript.as_ref()
    }

    /// Takes the transcript out, leaving the wrapper without one.
    pub fn take_transcript(&mut self) -> Option<Transcript> {
        self.transcript.take()
    }
}

impl<Q: QueryPoint + PartialEq + ?Sized, O: Oracle<Q>> Oracle<Q> for Counted<O> {
    fn compare(&mut self, x: &Q, y: &Q) -> Result<Answer> {
        if x == y {
            self.known += 1;
            return Ok(Answer {
                preference: Preference::Indifferent,
                in_noise_band: Some(false),
            });
        }
        if let Some(budget) = self.budget {
            if self.queries >= budget {
                return Err(Error::BudgetExhausted { budget });
            }
        }
        let answer = self.inner.compare(x, y)?;
        if let Some(transcript) = self.transcript.as_mut() {
            transcript.push(Record {
                index: self.queries,
                first: x.coords(),
                second: y.coords(),
                answer: answer.preference,
                in_noise_band: answer.in_noise_band,
            })?;
        }
        self.queries += 1;
        if answer.in_noise_band == Some(true) {
            self.in_band += 1;
        }
        Ok(answer)
    }
}
