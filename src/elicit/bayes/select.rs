//! Choosing the next question: candidate pairs from the family's query
//! space, scored by expected information and by how far apart they split
//! the posterior.

use super::family::positive;
use super::family::Family;
use super::posterior::dot;
use super::AnswerModel;
use crate::oracle::people::logistic;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};

/// The posterior as a family sees it when it proposes questions: the
/// particles' normalized parameter vectors and weights, their mean and
/// principal axes, the current estimate, and two helpers that aim a
/// question at the posterior's median ([`View::bisect`], [`View::pencil`]).
pub struct View<'a, T: Scalar, F: ?Sized> {
    pub(crate) family: &'a F,
    pub(crate) d: usize,
    pub(crate) n: usize,
    pub(crate) norm: &'a [T],
    pub(crate) weights: &'a [T],
    pub(crate) mean: DVector<T>,
    pub(crate) axes: Vec<DVector<T>>,
    pub(crate) variances: Vec<T>,
    pub(crate) estimate: DVector<T>,
}

impl<T: Scalar, F: Family<T>> View<'_, T, F> {
    /// D.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// The number of particles.
    pub fn particles(&self) -> usize {
        self.n
    }

    /// Particle i's normalized parameter vector θ/s(θ).
    pub fn particle(&self, i: usize) -> &[T] {
        &self.norm[i * self.d..(i + 1) * self.d]
    }

    /// Particle i's weight (the weights sum to one).
    pub fn weight(&self, i: usize) -> &T {
        &self.weights[i]
    }

    /// The weighted mean of the normalized parameter vectors.
    pub fn mean(&self) -> &DVector<T> {
        &self.mean
    }

    /// The principal axes of the normalized parameter vectors, widest
    /// first, with their variances ([`View::variances`]).
    pub fn axes(&self) -> &[DVector<T>] {
        &self.axes
    }

    /// The variances along [`View::axes`].
    pub fn variances(&self) -> &[T] {
        &self.variances
    }

    /// The current estimate (normalized).
    pub fn estimate(&self) -> &DVector<T> {
        &self.estimate
    }

    /// P(⟨θ, Δf⟩ > 0) under the posterior (ties count half): the posterior
    /// probability that an exact person prefers the first point of a pair
    /// with feature difference `delta`.
    pub fn split(&self, delta: &[T]) -> T {
        let zero = T::int(0);
        let mut p = T::int(0);
        for i in 0..self.n {
            let w = &self.weights[i];
            if *w == zero {
                continue;
            }
            let s = dot(self.particle(i), delta);
            if s > zero {
                p += w;
            } else if s == zero {
                p += &(w.clone() / T::int(2));
            }
        }
        p
    }

    /// The feature difference f(x) − f(y).
    pub fn delta(&self, x: &F::Point, y: &F::Point) -> Vec<T> {
        let mut fx = vec![T::int(0); self.d];
        let mut fy = vec![T::int(0); self.d];
        self.family.features(x, &mut fx);
        self.family.features(y, &mut fy);
        for (a, b) in fx.iter_mut().zip(&fy) {
            *a -= b;
        }
        fx
    }

    /// Along a path of pairs t ↦ `path(t)`, t ∈ [`lo`, `hi`], the pair
    /// whose [`View::split`] is nearest ½, by bisection (at most 30
    /// evaluations; the split must move monotonically along the path for
    /// the bisection to find the crossing, else the nearest pair seen is
    /// returned). `None` when the path gives no pair.
    pub fn bisect(
        &self,
        lo: T,
        hi: T,
        mut path: impl FnMut(&T) -> Option<(F::Point, F::Point)>,
    ) -> Option<(F::Point, F::Point)> {
        type Best<T, P> = Option<(T, (P, P))>;
        let half = T::ratio(1, 2);
        let mut best: Best<T, F::Point> = None;
        let consider = |pair: (F::Point, F::Point), best: &mut Best<T, F::Point>| -> T {
            let delta = self.delta(&pair.0, &pair.1);
            let p = self.split(&delta);
            let gap = (p.clone() - half.clone()).abs();
            if best.as_ref().is_none_or(|(g, _)| gap < *g) {
                *best = Some((gap, pair));
            }
            p
        };
        let (mut a, mut b) = (lo, hi);
        let pa = path(&a).map(|pair| consider(pair, &mut best));
        let pb = path(&b).map(|pair| consider(pair, &mut best));
        let (Some(pa), Some(pb)) = (pa, pb) else {
            return best.map(|(_, p)| p);
        };
        if (pa.clone() > half) == (pb > half) {
            return best.map(|(_, p)| p);
        }
        let falling = pa > half;
        let tolerance = T::ratio(1, 64);
        for _ in 0..30 {
            if best.as_ref().is_some_and(|(g, _)| *g <= tolerance) {
                break;
            }
            let mid = (a.clone() + b.clone()) / T::int(2);
            let Some(pair) = path(&mid) else { break };
            let p = consider(pair, &mut best);
            if (p > half) == falling {
                a = mid;
            } else {
                b = mid;
            }
        }
        best.map(|(_, p)| p)
    }

    /// Directions u ∈ ℝ^m for a *pencil* of pairs, a linear map
    /// u ↦ Δf = J·u (J is D×m) that the family can realize as pairs (e.g.
    /// the two points c ± s·u about a centre c of a sphere): for each of
    /// the `count` directions in which J's image spreads the posterior most
    /// (generalized eigenvectors of JᵀΣJ against JᵀJ), the rotation of it
    /// towards the posterior's mean direction that splits the posterior in
    /// half. Every returned u has unit norm.
    pub fn pencil(&self, jac: &DMatrix<T>, count: usize) -> Vec<DVector<T>> {
        let m = jac.ncols();
        if m == 0 || jac.nrows() != self.d {
            return Vec::new();
        }
        let zero = T::int(0);
        // Projected particles g_i = Jᵀ n_i, their weighted mean and covariance.
        let mut g = Vec::with_capacity(self.n * m);
        for i in 0..self.n {
            let p = self.particle(i);
            for c in 0..m {
                g.push(dot(jac.column(c).as_slice(), p));
            }
        }
        let mut mean = DVector::from_element(m, zero.clone());
        for i in 0..self.n {
            let w = &self.weights[i];
            for c in 0..m {
                mean[c] += &(g[i * m + c].clone() * w.clone());
            }
        }
        let mut cov = DMatrix::from_element(m, m, zero.clone());
        for i in 0..self.n {
            let w = &self.weights[i];
            if *w == zero {
                continue;
            }
            for a in 0..m {
                let ca = (g[i * m + a].clone() - mean[a].clone()) * w.clone();
                for b in 0..=a {
                    cov[(a, b)] += &(ca.clone() * (g[i * m + b].clone() - mean[b].clone()));
                }
            }
        }
        for a in 0..m {
            for b in 0..a {
                cov[(b, a)] = cov[(a, b)].clone();
            }
        }
        // Generalized eigenvectors: G = JᵀJ = LLᵀ, eig(L⁻¹ C L⁻ᵀ).
        let gram = jac.transpose() * jac;
        let directions: Vec<DVector<T>> = match gram.clone().cholesky() {
            Some(ch) => {
                let l = ch.l();
                let linv = match l.clone().try_inverse() {
                    Some(x) => x,
                    None => return Vec::new(),
                };
                let whitened = &linv * &cov * linv.transpose();
                let sym = (&whitened + whitened.transpose()) * T::ratio(1, 2);
                let eig = sym.symmetric_eigen();
                let mut order: Vec<usize> = (0..m).collect();
                order.sort_by(|a, b| {
                    eig.eigenvalues[*b]
                        .partial_cmp(&eig.eigenvalues[*a])
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                let back = linv.transpose();
                order
                    .into_iter()
                    .take(count.max(1))
                    .map(|k| &back * eig.eigenvectors.column(k))
                    .collect()
            }
            None => return Vec::new(),
        };
        let mnorm = mean.norm();
        let mut out = Vec::new();
        for e in directions {
            let Some(u) = self.rotate_to_median(&g, m, e, &mean, &mnorm) else {
                continue;
            };
            out.push(u);
        }
        out
    }

    /// u = cos t·ê + sin t·ĥ (ĥ the mean's direction, ê the part of `e`
    /// orthogonal to it) with t ∈ [−π/2, π/2] chosen by bisection so that
    /// half the posterior has ⟨g_i, u⟩ > 0. Since the split at t + π is one
    /// minus the split at t, the two ends of the interval lie on either
    /// side of ½ and a crossing exists.
    fn rotate_to_median(
        &self,
        g: &[T],
        m: usize,
        e: DVector<T>,
        mean: &DVector<T>,
        mnorm: &T,
    ) -> Option<DVector<T>> {
        let zero = T::int(0);
        let tiny = T::epsilon().sqrt();
        let enorm = e.norm();
        if !positive(&enorm) || !enorm.finite() {
            return None;
        }
        let mut e = e / enorm;
        if *mnorm <= tiny {
            // No mean direction: any cut through the origin halves the
            // posterior as well as another; use e itself.
            return Some(e);
        }
        let h = mean / mnorm.clone();
        let along = e.dot(&h);
        e -= &h * along;
        let en = e.norm();
        if en <= tiny {
            return None;
        }
        e /= en;
        let a: Vec<T> = (0..self.n)
            .map(|i| dot(&g[i * m..(i + 1) * m], e.as_slice()))
            .collect();
        let b: Vec<T> = (0..self.n)
            .map(|i| dot(&g[i * m..(i + 1) * m], h.as_slice()))
            .collect();
        let half = T::ratio(1, 2);
        let split = |t: &T| -> T {
            let (s, c) = t.clone().sin_cos();
            let mut p = T::int(0);
            for i in 0..self.n {
                let w = &self.weights[i];
                if *w == zero {
                    continue;
                }
                let v = c.clone() * a[i].clone() + s.clone() * b[i].clone();
                if v > zero {
                    p += w;
                } else if v == zero {
                    p += &(w.clone() / T::int(2));
                }
            }
            p
        };
        let (mut lo, mut hi) = (-T::frac_pi_2(), T::frac_pi_2());
        let rising = split(&hi) > split(&lo);
        for _ in 0..24 {
            let mid = (lo.clone() + hi.clone()) / T::int(2);
            let p = split(&mid);
            if (p > half) == rising {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let t = (lo + hi) / T::int(2);
        let (s, c) = t.sin_cos();
        Some(e * c + h * s)
    }
}

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
/// splits the posterior into.
pub(crate) fn assess<T: Scalar, F: Family<T>>(
    view: &View<'_, T, F>,
    delta: &[T],
    model: &AnswerModel<T>,
    mistake: &T,
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
        if let AnswerModel::BradleyTerry { tau } = model {
            let sig = logistic(&(s / tau.clone()));
            bt_entropy += &(entropy(&sig) * w.clone());
            bt_mean += &(sig * w.clone());
        }
    }
    let information = match model {
        AnswerModel::BradleyTerry { .. } => entropy(&bt_mean) - bt_entropy,
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
        let (split, information, separation) = assess(view, &delta, model, mistake);
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
