//! Choosing the next question: candidate pairs from the family's query
//! space, scored by expected information and by how far apart they split
//! the posterior.

use super::family::positive;
use super::family::{dot, Family, View};
use super::posterior::Predictive;
use super::AnswerModel;
use crate::oracle::people::logistic;
use crate::scalar::Scalar;

/// Binary entropy in bits.
pub(crate) fn entropy<T: Scalar>(p: &T) -> T {
    let zero = T::int(0);
    let one = T::int(1);
    if *p <= zero || *p >= one {
        return zero;
    }
    let q = one - p.clone();
    -(p.clone() * p.clone().ln() + q.clone() * q.ln()) / T::ln_2()
}

/// A scored candidate.
pub(crate) struct Scored<T, P> {
    pub first: P,
    pub second: P,
    pub delta: Vec<T>,
    pub split: T,
    pub information: T,
    pub score: T,
}

/// Expected information (bits) of a question with feature difference
/// `delta`, and the distance between the means of the two halves it
/// splits the posterior into. Under the person model `predictive` holds
/// each particle's predictive law (its cells' posterior), and the
/// information is that of the mixture.
pub(crate) fn assess<T: Scalar, F: Family<T>>(
    view: &View<'_, T, F>,
    delta: &[T],
    model: &AnswerModel<T>,
    mistake: &T,
    predictive: Option<&[Predictive<T>]>,
) -> (T, T, T) {
    let zero = T::int(0);
    let d = view.d;
    let mut split = T::int(0);
    let mut mean_first = vec![T::int(0); d];
    let mut mean_second = vec![T::int(0); d];
    let (mut w_first, mut w_second) = (T::int(0), T::int(0));
    let mut bt_mean = T::int(0);
    let mut bt_entropy = T::int(0);
    for i in 0..view.n {
        let w = &view.weights[i];
        if *w == zero {
            continue;
        }
        let x = view.particle(i);
        let s = dot(x, delta);
        if s > zero {
            split += w;
            w_first += w;
            for (m, v) in mean_first.iter_mut().zip(x) {
                *m += &(v.clone() * w.clone());
            }
        } else {
            if s == zero {
                split += &(w.clone() / T::int(2));
            }
            w_second += w;
            for (m, v) in mean_second.iter_mut().zip(x) {
                *m += &(v.clone() * w.clone());
            }
        }
        let sig = match (model, predictive) {
            (AnswerModel::BradleyTerry { tau }, _) => Some(logistic(&(s / tau.clone()))),
            (AnswerModel::Person { .. }, Some(pred)) => Some(pred[i].first(&s)),
            _ => None,
        };
        if let Some(sig) = sig {
            bt_entropy += &(entropy(&sig) * w.clone());
            bt_mean += &(sig * w.clone());
        }
    }
    let information = match (model, predictive) {
        (AnswerModel::BradleyTerry { .. }, _) | (AnswerModel::Person { .. }, Some(_)) => {
            entropy(&bt_mean) - bt_entropy
        }
        _ => {
            let p = mistake.clone();
            let answer = p.clone() + (T::int(1) - p.clone() * T::int(2)) * split.clone();
            entropy(&answer) - entropy(&p)
        }
    };
    let separation = if w_first > zero && w_second > zero {
        mean_first
            .iter()
            .zip(&mean_second)
            .fold(T::int(0), |s, (a, b)| {
                let diff = a.clone() / w_first.clone() - b.clone() / w_second.clone();
                s + diff.clone() * diff
            })
            .sqrt()
    } else {
        zero
    };
    (split, information, separation)
}

/// Whether two points differ visibly: some shown number by at least
/// `min_visible`.
pub(crate) fn visible<T: Scalar, F: Family<T>>(
    family: &F,
    x: &F::Point,
    y: &F::Point,
    min_visible: &T,
) -> bool {
    let (a, b) = (family.shown(x), family.shown(y));
    if a.len() != b.len() {
        return true;
    }
    let gap = a
        .iter()
        .zip(&b)
        .fold(T::int(0), |m, (p, q)| m.max((p.clone() - q.clone()).abs()));
    gap >= *min_visible && gap > T::int(0)
}

/// The best visible candidate by information × separation (information
/// alone where no candidate separates anything).
pub(crate) fn choose<T: Scalar, F: Family<T>>(
    view: &View<'_, T, F>,
    candidates: Vec<(F::Point, F::Point)>,
    model: &AnswerModel<T>,
    mistake: &T,
    predictive: Option<&[Predictive<T>]>,
    min_visible: &T,
) -> Option<Scored<T, F::Point>> {
    let mut best: Option<Scored<T, F::Point>> = None;
    for (first, second) in candidates {
        if !visible(view.family, &first, &second, min_visible) {
            continue;
        }
        let delta = view.delta(&first, &second);
        if delta.iter().any(|x| !x.finite()) {
            continue;
        }
        let (split, information, separation) = assess(view, &delta, model, mistake, predictive);
        if !positive(&information) {
            continue;
        }
        let score = information.clone() * (separation + T::epsilon());
        if best.as_ref().is_none_or(|b| score > b.score) {
            best = Some(Scored {
                first,
                second,
                delta,
                split,
                information,
                score,
            });
        }
    }
    best
}
