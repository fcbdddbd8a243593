//! A metric that remembers its last few values, for costly simulated
//! metrics.

use super::Metric;
use crate::scalar::Scalar;
use nalgebra::DVector;
use std::cell::RefCell;

/// A query point a [`Memo`] can keep: compared and overwritten without
/// allocating.
pub trait Recall: Clone {
    /// `None` when `self` and `other` are the same point (equal entries),
    /// else the index of an entry where they differ, looking at entry
    /// `hint` first (the index where the last two points differed: points
    /// asked in turn along a sphere slice all differ at the slice's angle).
    fn difference(&self, other: &Self, hint: usize) -> Option<usize>;
    /// Makes `self` equal to `other`, reusing `self`'s storage when the
    /// shapes agree.
    fn copy_from(&mut self, other: &Self);
}

/// Entry `hint` first, then every entry.
#[inline]
fn entries_difference<T: Scalar>(x: &[T], y: &[T], hint: usize) -> Option<usize> {
    if x.len() != y.len() {
        return Some(0);
    }
    if let (Some(a), Some(b)) = (x.get(hint), y.get(hint)) {
        if !a.identical(b) {
            return Some(hint);
        }
    }
    // A hit compares every entry: without an early exit the comparison
    // runs branch-free (and vectorized for f64); only a miss looks for where.
    if x.iter()
        .zip(y)
        .fold(true, |same, (a, b)| same & a.identical(b))
    {
        return None;
    }
    x.iter().zip(y).rposition(|(a, b)| !a.identical(b))
}

/// Overwrites `x` with `y` in place when the lengths agree.
fn copy_entries<T: Scalar>(x: &mut DVector<T>, y: &DVector<T>) {
    if x.len() == y.len() {
        x.as_mut_slice().clone_from_slice(y.as_slice());
    } else {
        *x = y.clone();
    }
}

impl<T: Scalar> Recall for DVector<T> {
    fn difference(&self, other: &Self, hint: usize) -> Option<usize> {
        entries_difference(self.as_slice(), other.as_slice(), hint)
    }

    fn copy_from(&mut self, other: &Self) {
        copy_entries(self, other);
    }
}

/// How many values a [`Memo`] keeps: the five points of one halving of the
/// paper's ShrinkInterval and a few more.
pub const MEMO_SLOTS: usize = 8;

/// A metric that remembers the values at the last [`MEMO_SLOTS`] points it
/// was evaluated at, and answers a point asked again from them.
///
/// The searches ask about each point more than once: the paper's
/// ShrinkInterval (002 Alg. 1) compares the five points of a halving in
/// four pairs, eight evaluations, and three of the five were points of the
/// previous halving, so only two of the eight values are new; a golden
/// section step compares one new point with a kept one. Behind a
/// [`crate::oracle::Simulated`] oracle the memo cuts the evaluations of a
/// costly metric (a quadratic form in q = 20 rates, a fair metric over m
/// groups) by up to four times; the answers, the query counts and the
/// transcripts are unchanged, since the metric is a function of the point.
/// A hit costs a comparison of entries, so the memo is for metrics that
/// cost more than that (not for a short dot product).
///
/// # Examples
/// ```
/// use metric_elicitation::oracle::{Counted, Memo, Metric, Oracle, Simulated};
/// use nalgebra::DVector;
/// use std::cell::Cell;
/// let calls = Cell::new(0);
/// let phi = |x: &DVector<f64>| {
///     calls.set(calls.get() + 1);
///     x.sum()
/// };
/// let mut oracle = Counted::new(Simulated::new(Memo::new(phi)));
/// let (x, y, z) = (DVector::from_element(3, 0.1), DVector::from_element(3, 0.2), DVector::from_element(3, 0.3));
/// assert!(!oracle.compare(&x, &y).unwrap().prefers_first());
/// assert!(!oracle.compare(&y, &z).unwrap().prefers_first());
/// assert_eq!(oracle.queries(), 2);
/// assert_eq!(calls.get(), 3); // φ(y) was evaluated once
/// ```
#[derive(Debug, Clone)]
pub struct Memo<M: Metric<Q>, Q> {
    metric: M,
    kept: RefCell<Kept<Q, M::Value>>,
}

/// The kept points and values, and their order of last use (the least
/// recently used is replaced: the ends of a search's interval can stay in
/// use for many halvings).
#[derive(Debug, Clone)]
struct Kept<Q, V> {
    slots: Vec<(Q, V)>,
    /// Indices into `slots`, most recently used first. A search asks each
    /// point in two consecutive comparisons, so a point asked again is
    /// nearly always among the first two looked at.
    recency: Vec<usize>,
    /// Where the last two points compared differed.
    hint: usize,
}

impl<Q: Recall, M: Metric<Q>> Memo<M, Q> {
    /// `metric`, remembering its last [`MEMO_SLOTS`] values.
    pub fn new(metric: M) -> Self {
        Memo {
            metric,
            kept: RefCell::new(Kept {
                slots: Vec::with_capacity(MEMO_SLOTS),
                recency: Vec::with_capacity(MEMO_SLOTS),
                hint: 0,
            }),
        }
    }

    /// The metric.
    pub fn metric(&self) -> &M {
        &self.metric
    }
}

impl<Q: Recall, V: Scalar> Kept<Q, V> {
    /// The slot holding the value at `q`, evaluating `metric` into the
    /// least recently used slot (never slot `keep`) when `q` is not kept;
    /// the slot becomes the most recently used.
    fn slot<M: Metric<Q, Value = V>>(&mut self, metric: &M, q: &Q, keep: Option<usize>) -> usize {
        let Kept {
            slots,
            recency,
            hint,
        } = self;
        let hit = recency
            .iter()
            .position(|&i| match slots[i].0.difference(q, *hint) {
                Some(at) => {
                    *hint = at;
                    false
                }
                None => true,
            });
        if let Some(p) = hit {
            // Move it to the front of the order.
            recency[..=p].rotate_right(1);
            return recency[0];
        }
        let v = metric.value(q);
        if slots.len() < MEMO_SLOTS {
            slots.push((q.clone(), v));
            recency.insert(0, slots.len() - 1);
        } else {
            // Overwrite the least recently used (or the one before it, when
            // that is the slot to keep) and move it to the front.
            let last = recency.len() - 1;
            let p = if Some(recency[last]) == keep {
                last - 1
            } else {
                last
            };
            recency[..=p].rotate_right(1);
            let slot = &mut slots[recency[0]];
            slot.0.copy_from(q);
            slot.1 = v;
        }
        recency[0]
    }
}

impl<Q: Recall, M: Metric<Q>> Metric<Q> for Memo<M, Q> {
    type Value = M::Value;

    fn value(&self, q: &Q) -> M::Value {
        let mut kept = self.kept.borrow_mut();
        let i = kept.slot(&self.metric, q, None);
        kept.slots[i].1.clone()
    }

    /// Both values from the kept slots, lent to `f` without a copy.
    fn with_values<R>(&self, x: &Q, y: &Q, f: impl FnOnce(&M::Value, &M::Value) -> R) -> R {
        let mut kept = self.kept.borrow_mut();
        let iy = kept.slot(&self.metric, y, None);
        let ix = kept.slot(&self.metric, x, Some(iy));
        f(&kept.slots[ix].1, &kept.slots[iy].1)
    }
}
