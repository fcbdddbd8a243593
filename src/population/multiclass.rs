//! Multiclass populations (002): diagonal confusions of restricted-Bayes-
//! optimal classifiers on a face (k1, k2) (Prop. 2) and full confusions of
//! weighted classifiers h(x) = argmaxᵢ wᵢηᵢ(x).

use super::binned::{check_face, ratio_key, BinnedFaces, FaceRows};
use super::FaceStats;
use crate::error::{Error, Result};
use crate::quadrature::GaussLegendre;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};

/// A k-class population.
pub trait MulticlassPopulation<T: Scalar> {
    /// Number of classes k.
    fn classes(&self) -> usize;

    /// Priors ζᵢ = P(Y = i).
    fn priors(&self) -> Vec<T>;

    /// The diagonal confusion d (dᵢ = P(h = i, Y = i)) of the restricted
    /// Bayes optimal classifier on the face (k1, k2) for weights w1, w2 ≥ 0,
    /// not both zero (002 Prop. 2): predict k1 iff w1·η_{k1}(x) ≥ w2·η_{k2}(x),
    /// else k2. Entries other than k1, k2 are zero.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a class out of range, k1 = k2, or
    /// invalid weights.
    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>>;

    /// What the population itself says against the metric it will give
    /// (a labelled sample whose probabilities do not describe its labels,
    /// [`crate::population::calibration`]); none by default.
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        Vec::new()
    }
}

impl<T: Scalar, P: MulticlassPopulation<T> + ?Sized> MulticlassPopulation<T> for Box<P> {
    fn classes(&self) -> usize {
        (**self).classes()
    }
    fn priors(&self) -> Vec<T> {
        (**self).priors()
    }
    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        (**self).rbo_diagonal(k1, k2, w1, w2)
    }
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        (**self).warnings()
    }
}

/// A k-class population with the warnings it carries against any metric
/// elicited on it (a CSV sample's reliability check).
#[derive(Debug, Clone)]
pub struct Checked<P> {
    /// The population.
    pub population: P,
    /// Reported with every estimate on it.
    pub warnings: Vec<crate::diagnostics::Warning>,
}

impl<T: Scalar, P: MulticlassPopulation<T>> MulticlassPopulation<T> for Checked<P> {
    fn classes(&self) -> usize {
        self.population.classes()
    }
    fn priors(&self) -> Vec<T> {
        self.population.priors()
    }
    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        self.population.rbo_diagonal(k1, k2, w1, w2)
    }
    fn warnings(&self) -> Vec<crate::diagnostics::Warning> {
        self.warnings.clone()
    }
}

/// How class scores depend on x in a [`LogisticMulticlass`] population.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreFamily {
    /// gᵢ(x) = 1/(1 + e^{pᵢx}) (002 §6.1).
    Logistic,
    /// gᵢ(x) = e^{pᵢx} (softmax of linear scores).
    Softmax,
}

/// A synthetic population on X ~ U[−1, 1] with class scores gᵢ(x) and
/// ηᵢ(x) = gᵢ(x)/Σⱼ gⱼ(x).
///
/// [`LogisticMulticlass::new`] is the population of 002 §6.1,
/// gᵢ(x) = 1/(1 + e^{pᵢx}). The paper writes ηᵢ = gᵢ, but these do not sum
/// to one over i; normalizing keeps every decision rule wᵢηᵢ ≥ wⱼηⱼ
/// unchanged (the normalizer cancels).
///
/// Since g₁/g₂ stays within a bounded range on [−1, 1] (for p = (1, 3):
/// [0.75, 5.67]), the RBO classifier of a face predicts one class everywhere
/// for a whole interval of m at each end (the face of D is not strictly
/// convex there, against 002 Assumption 1); [`LogisticMulticlass::softmax`]
/// with widely spaced slopes makes those intervals as small as wanted.
///
/// Confusions are integrals of ηᵢ over the regions where a class wins; the
/// region boundaries (crossings of w₁g₁ = w₂g₂, of which there can be two:
/// ln g₁ − ln g₂ vanishes at 0 and at −∞) are found by a scan of 256 cells
/// and bisection to the working precision, and the integrals by adaptive
/// Gauss–Legendre at the working precision ([`GaussLegendre`]).
#[derive(Debug, Clone)]
pub struct LogisticMulticlass<T> {
    p: Vec<T>,
    family: ScoreFamily,
    rule: GaussLegendre<T>,
    priors: Vec<T>,
}

impl<T: Scalar> LogisticMulticlass<T> {
    /// The population with slopes p (002 uses (1, 3, 5) for k = 3 and
    /// (1, 3, 6, 10) for k = 4).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than two classes, a non-finite
    /// slope, or two equal slopes (two classes would be indistinguishable).
    pub fn new(p: Vec<T>) -> Result<Self> {
        Self::with_family(p, ScoreFamily::Logistic)
    }

    /// Softmax scores gᵢ(x) = e^{pᵢx}: the ratio of two classes sweeps
    /// [e^{−|Δp|}, e^{|Δp|}], so plateaus of a face have width about
    /// 1/(1 + e^{|Δp|}) in m.
    ///
    /// # Errors
    /// As [`LogisticMulticlass::new`].
    pub fn softmax(p: Vec<T>) -> Result<Self> {
        Self::with_family(p, ScoreFamily::Softmax)
    }

    fn with_family(p: Vec<T>, family: ScoreFamily) -> Result<Self> {
        if p.len() < 2 {
            return Err(Error::invalid("p", "needs at least two classes"));
        }
        if let Some(v) = p.iter().find(|v| !v.finite()) {
            return Err(Error::invalid(
                "p",
                format!("slopes must be finite, got {v}"),
            ));
        }
        for i in 0..p.len() {
            for j in 0..i {
                if p[i] == p[j] {
                    return Err(Error::invalid(
                        "p",
                        format!("classes {j} and {i} have the same slope {}", p[i]),
                    ));
                }
            }
        }
        let rule = GaussLegendre::for_precision()?;
        let mut pop = LogisticMulticlass {
            p,
            family,
            rule,
            priors: Vec::new(),
        };
        let (lo, hi) = (-T::int(1), T::int(1));
        pop.priors = (0..pop.p.len())
            .map(|i| {
                pop.rule
                    .integrate_adaptive(&mut |x: &T| pop.eta(i, x), &lo, &hi)
                    / T::int(2)
            })
            .collect();
        Ok(pop)
    }

    /// gᵢ(x).
    fn g(&self, i: usize, x: &T) -> T {
        let z = (self.p[i].clone() * x.clone()).exp();
        match self.family {
            ScoreFamily::Logistic => T::int(1) / (T::int(1) + z),
            ScoreFamily::Softmax => z,
        }
    }

    /// ηᵢ(x) = gᵢ(x)/Σⱼ gⱼ(x).
    pub fn eta(&self, i: usize, x: &T) -> T {
        let total = (0..self.p.len()).fold(T::int(0), |s, j| s + self.g(j, x));
        self.g(i, x) / total
    }

    /// Sub-intervals of [−1, 1] on which h(x) = argmaxᵢ wᵢgᵢ(x) is constant,
    /// with the winning class (ties to the lower index).
    fn regions(&self, w: &[T]) -> Vec<(T, T, usize)> {
        let k = self.p.len();
        let zero = T::int(0);
        let winner = |x: &T| {
            let mut best = 0;
            let mut value = w[0].clone() * self.g(0, x);
            for (i, wi) in w.iter().enumerate().skip(1) {
                let v = wi.clone() * self.g(i, x);
                if v > value {
                    best = i;
                    value = v;
                }
            }
            best
        };
        // Crossings of every pair of classes that can win.
        let mut cuts = vec![-T::int(1), T::int(1)];
        let cells = 256;
        let step = T::ratio(2, cells);
        for a in 0..k {
            for b in (a + 1)..k {
                if w[a] <= zero || w[b] <= zero {
                    continue;
                }
                let f = |x: &T| w[a].clone() * self.g(a, x) - w[b].clone() * self.g(b, x);
                let mut x0 = -T::int(1);
                let mut f0 = f(&x0);
                for c in 1..=cells {
                    let x1 = -T::int(1) + step.clone() * T::int(c);
                    let f1 = f(&x1);
                    if (f0 < zero) != (f1 < zero) {
                        cuts.push(bisect(&f, x0.clone(), x1.clone()));
                    }
                    x0 = x1;
                    f0 = f1;
                }
            }
        }
        cuts.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
        let mut out = Vec::new();
        for pair in cuts.windows(2) {
            if pair[0] < pair[1] {
                let mid = (pair[0].clone() + pair[1].clone()) / T::int(2);
                out.push((pair[0].clone(), pair[1].clone(), winner(&mid)));
            }
        }
        out
    }

    /// The full confusion C (C_ij = P(Y = i, h = j)) of h(x) = argmaxᵢ wᵢηᵢ(x)
    /// (a cost-weighted classifier), at the working precision.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a weight vector of the wrong length, a
    /// negative or non-finite weight, or all weights zero.
    pub fn weighted_confusion(&self, w: &[T]) -> Result<DMatrix<T>> {
        let k = self.p.len();
        if w.len() != k
            || w.iter().any(|v| !v.finite() || *v < T::int(0))
            || w.iter().all(|v| *v == T::int(0))
        {
            return Err(Error::invalid(
                "weights",
                format!("need {k} finite weights >= 0, not all zero"),
            ));
        }
        let mut c = DMatrix::from_element(k, k, T::int(0));
        for (lo, hi, j) in self.regions(w) {
            for i in 0..k {
                let mass = self
                    .rule
                    .integrate_adaptive(&mut |x: &T| self.eta(i, x), &lo, &hi)
                    / T::int(2);
                c[(i, j)] += &mass;
            }
        }
        Ok(c)
    }
}

/// Bisection to the working precision for a sign change of f on [a, b].
fn bisect<T: Scalar>(f: &impl Fn(&T) -> T, mut a: T, mut b: T) -> T {
    let zero = T::int(0);
    let fa_negative = f(&a) < zero;
    for _ in 0..(T::precision_bits() + 8) {
        let mid = (a.clone() + b.clone()) / T::int(2);
        if mid <= a || mid >= b {
            break;
        }
        if (f(&mid) < zero) == fa_negative {
            a = mid;
        } else {
            b = mid;
        }
    }
    (a + b) / T::int(2)
}

impl<T: Scalar> MulticlassPopulation<T> for LogisticMulticlass<T> {
    fn classes(&self) -> usize {
        self.p.len()
    }

    fn priors(&self) -> Vec<T> {
        self.priors.clone()
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        let k = self.p.len();
        check_face(k, k1, k2, w1, w2)?;
        // h predicts k1 where w1·g_{k1} ≥ w2·g_{k2} (the normalizer cancels):
        // the weighted classifier with zero weight off the face.
        let mut w = vec![T::int(0); k];
        w[k1] = w1.clone();
        w[k2] = w2.clone();
        let mut d = DVector::from_element(k, T::int(0));
        for (lo, hi, class) in self.regions(&w) {
            let mass = self
                .rule
                .integrate_adaptive(&mut |x: &T| self.eta(class, x), &lo, &hi)
                / T::int(2);
            d[class] += &mass;
        }
        Ok(d)
    }
}

/// The class masses of a [`FiniteMulticlass`]'s rows.
#[derive(Debug)]
enum Masses<T> {
    /// Row r has label y_r: mass 1[y_r = i] of class i.
    Labels(Vec<usize>),
    /// Row-major n×k: row r has mass η̂ᵢ(x_r) of class i.
    Expected(Vec<T>),
}

/// The face (k1, k2) of a [`FiniteMulticlass`]: keys from the scores,
/// masses from the labels or η̂.
struct FiniteRows<'a, T> {
    k: usize,
    k1: usize,
    k2: usize,
    scores: &'a [T],
    masses: &'a Masses<T>,
    one: T,
}

impl<T: Scalar> FiniteRows<'_, T> {
    fn add(&self, r: usize, class: usize, sum: &mut T) {
        match self.masses {
            Masses::Labels(y) => {
                if y[r] == class {
                    *sum += &self.one;
                }
            }
            Masses::Expected(m) => *sum += &m[r * self.k + class],
        }
    }
}

impl<T: Scalar> FaceRows<T> for FiniteRows<'_, T> {
    fn len(&self) -> usize {
        self.scores.len() / self.k
    }

    fn key(&self, r: usize) -> T {
        ratio_key(
            &self.scores[r * self.k + self.k1],
            &self.scores[r * self.k + self.k2],
        )
    }

    fn add_first(&self, r: usize, sum: &mut T) {
        self.add(r, self.k1, sum);
    }

    fn add_second(&self, r: usize, sum: &mut T) {
        self.add(r, self.k2, sum);
    }
}

/// The empirical population of n rows of class scores η̂(x) ∈ R^k and labels.
///
/// RBO queries on a face (k1, k2) predict k1 iff w1·s_{k1} ≥ w2·s_{k2}, i.e.
/// iff u = s_{k1}/(s_{k1} + s_{k2}) ≥ δ = w2/(w1 + w2) (u = 1 when both
/// scores are 0), computed at the working precision. Faces are the binned
/// faces described in [`super::expected`], the same code as
/// [`super::ExpectedMulticlass`]'s: the first query on a face prepares it
/// in one O(n) pass that bins the rows by u (no sort of the n rows); a
/// query is then O(1) when δ is a multiple of 2⁻¹², and otherwise sorts
/// the rows of δ's bin once (only those) and binary-searches them.
///
/// [`FiniteMulticlass::expected`] builds the same population with
/// confusions in expectation under the scores instead of the labels: row r
/// counts η̂ᵢ(x_r) towards class i.
///
/// The scores are stored in `T` (data read from text is rounded once, at
/// the working precision), and so are the expected masses.
///
/// # Examples
/// ```
/// use metric_elicitation::population::{FiniteMulticlass, MulticlassPopulation};
/// // Three rows, two classes: scores (s₁, s₂) and labels.
/// let scores = vec![0.9, 0.1, 0.4, 0.6, 0.0, 0.0];
/// let pop = FiniteMulticlass::<f64>::new(2, scores, vec![0, 1, 0]).unwrap();
/// // δ = 1/2: rows 0 (u = 0.9) and 2 (u = 1, both scores 0) are predicted
/// // class 1, both labelled 1; row 1 is predicted class 2, labelled 2.
/// let d = pop.rbo_diagonal(0, 1, &0.5, &0.5).unwrap();
/// assert_eq!((d[0], d[1]), (2.0 / 3.0, 1.0 / 3.0));
/// ```
#[derive(Debug)]
pub struct FiniteMulticlass<T> {
    k: usize,
    scores: Vec<T>,
    masses: Masses<T>,
    faces: BinnedFaces<T>,
    n: T,
    /// The class shares, computed once at construction (a pass over the
    /// rows that `ask` would otherwise repeat for every question).
    priors: Vec<T>,
}

impl<T: Scalar> FiniteMulticlass<T> {
    /// From row-major scores (n·k values, each ≥ 0) and labels in 0..k.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for k < 2, mismatched lengths, a negative
    /// or non-finite score, a label out of range, or no rows.
    pub fn new(k: usize, scores: Vec<T>, labels: Vec<usize>) -> Result<Self> {
        if k < 2 {
            return Err(Error::invalid("k", "needs at least two classes"));
        }
        if labels.is_empty() || scores.len() != labels.len() * k {
            return Err(Error::invalid(
                "scores",
                format!(
                    "{} scores for {} labels and k = {k}",
                    scores.len(),
                    labels.len()
                ),
            ));
        }
        check_scores(k, &scores)?;
        if let Some(i) = labels.iter().position(|&y| y >= k) {
            return Err(Error::invalid(
                "labels",
                format!("row {i}: label {} is not below k = {k}", labels[i]),
            ));
        }
        Ok(Self::with_masses(k, scores, Masses::Labels(labels)))
    }

    /// From row-major class probabilities η̂ (n·k values ≥ 0, each row
    /// summing to a positive number, normalized here), with *expected*
    /// confusions: no labels; row r counts η̂ᵢ(x_r) towards class i.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for k < 2, a length that is not a
    /// multiple of k, no rows, a negative or non-finite score, or a row
    /// summing to 0.
    pub fn expected(k: usize, scores: Vec<T>) -> Result<Self> {
        if k < 2 || scores.is_empty() || !scores.len().is_multiple_of(k) {
            return Err(Error::invalid(
                "scores",
                format!("{} scores for k = {k}", scores.len()),
            ));
        }
        check_scores(k, &scores)?;
        let mut mass = scores.clone();
        for (r, row) in mass.chunks_mut(k).enumerate() {
            let total = row.iter().fold(T::int(0), |s, v| s + v.clone());
            if total <= T::int(0) {
                return Err(Error::invalid(
                    "scores",
                    format!("row {r}: the scores sum to 0"),
                ));
            }
            for v in row.iter_mut() {
                *v = v.clone() / total.clone();
            }
        }
        Ok(Self::with_masses(k, scores, Masses::Expected(mass)))
    }

    fn with_masses(k: usize, scores: Vec<T>, masses: Masses<T>) -> Self {
        let rows = scores.len() / k;
        let n = T::from_u64(rows as u64).unwrap_or_else(T::one);
        let priors = class_shares(k, &masses, &n);
        FiniteMulticlass {
            k,
            scores,
            masses,
            faces: BinnedFaces::new(k),
            n,
            priors,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.scores.len() / self.k
    }

    /// Always false (construction rejects an empty sample).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Prepares the face (k1, k2) now, one O(n) binning pass (the first
    /// query does it otherwise); returns immediately if already prepared,
    /// and does nothing for classes out of range or equal (a query on such
    /// a face reports the error).
    pub fn prepare(&self, k1: usize, k2: usize) {
        let _ = self.faces.prepare(k1, k2, &self.face_rows(k1, k2));
    }

    /// Counters and timings of face preparation (the binning passes), bin
    /// extractions and queries.
    pub fn stats(&self) -> FaceStats {
        self.faces.stats()
    }

    /// The rows of the face (k1, k2), which must be classes below k (the
    /// faces check them before reading a row).
    fn face_rows(&self, k1: usize, k2: usize) -> FiniteRows<'_, T> {
        FiniteRows {
            k: self.k,
            k1,
            k2,
            scores: &self.scores,
            masses: &self.masses,
            one: T::int(1),
        }
    }
}

/// Every score finite and ≥ 0.
fn check_scores<T: Scalar>(k: usize, scores: &[T]) -> Result<()> {
    match scores.iter().position(|s| !s.finite() || *s < T::int(0)) {
        Some(i) => Err(Error::invalid(
            "scores",
            format!(
                "row {}: score {} is not a finite number >= 0",
                i / k,
                scores[i]
            ),
        )),
        None => Ok(()),
    }
}

/// The share of each of the k classes in `masses` (labels counted, or η̂
/// summed), over the `n` rows.
fn class_shares<T: Scalar>(k: usize, masses: &Masses<T>, n: &T) -> Vec<T> {
    let mut totals = vec![T::int(0); k];
    match masses {
        Masses::Labels(labels) => {
            let mut counts = vec![0u64; k];
            for &y in labels {
                counts[y] += 1;
            }
            for (t, c) in totals.iter_mut().zip(counts) {
                *t = T::from_u64(c).unwrap_or_else(T::zero);
            }
        }
        Masses::Expected(mass) => {
            for row in mass.chunks(k) {
                for (t, m) in totals.iter_mut().zip(row) {
                    *t += m;
                }
            }
        }
    }
    totals.into_iter().map(|c| c / n.clone()).collect()
}

impl<T: Scalar> MulticlassPopulation<T> for FiniteMulticlass<T> {
    fn classes(&self) -> usize {
        self.k
    }

    fn priors(&self) -> Vec<T> {
        self.priors.clone()
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        self.faces
            .rbo_diagonal(k1, k2, w1, w2, &self.face_rows(k1, k2), &self.n)
    }
}

/// A memo key: the face (k1, k2) and the two weights as lossless text.
type FaceKey = (usize, usize, String, String);

/// Memoizes another population's RBO confusions by (face, weights): a
/// search probes the same points repeatedly (ShrinkInterval compares each
/// quarter point twice, and halving probes are dyadic, so many trials share
/// them). Thread-safe.
#[derive(Debug)]
pub struct Memoized<P, T: Scalar> {
    inner: P,
    cache: std::sync::Mutex<std::collections::HashMap<FaceKey, DVector<T>>>,
}

impl<P, T: Scalar> Memoized<P, T> {
    /// Wraps `inner`.
    pub fn new(inner: P) -> Self {
        Memoized {
            inner,
            cache: Default::default(),
        }
    }

    /// The wrapped population.
    pub fn inner(&self) -> &P {
        &self.inner
    }
}

impl<T: Scalar, P: MulticlassPopulation<T>> MulticlassPopulation<T> for Memoized<P, T> {
    fn classes(&self) -> usize {
        self.inner.classes()
    }

    fn priors(&self) -> Vec<T> {
        self.inner.priors()
    }

    fn rbo_diagonal(&self, k1: usize, k2: usize, w1: &T, w2: &T) -> Result<DVector<T>> {
        let key = (k1, k2, w1.encode(), w2.encode());
        if let Some(d) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(d);
        }
        let d = self.inner.rbo_diagonal(k1, k2, w1, w2)?;
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(key, d.clone());
        }
        Ok(d)
    }
}
