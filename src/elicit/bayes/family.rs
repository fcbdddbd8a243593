//! What the engine needs to know of a metric family: a feature map that
//! makes the metric linear in its parameters, the parameters' cone and
//! normalization, the family's own error measure, and its query space.

use crate::error::Result;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;

/// The prior over the parameter cone, and with it the radial decomposition
/// θ = r·u the sampler works in (the likelihood depends on the direction u
/// only, so r is drawn afresh from its law at every move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    /// The standard Gaussian on ℝ^D restricted to the cone: directions
    /// u = θ/‖θ‖₂ uniform on the unit sphere ∩ cone, r = ‖θ‖₂ ~ χ_D.
    Gaussian,
    /// Independent Exp(1) coordinates on the non-negative orthant ∩ cone:
    /// directions u = θ/‖θ‖₁ uniform on the simplex (Dirichlet(1)),
    /// r = ‖θ‖₁ ~ Gamma(D, 1).
    Exponential,
}

/// The sign a coordinate of θ is constrained to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignConstraint {
    /// Any sign.
    Free,
    /// θᵢ ≥ 0.
    NonNegative,
    /// θᵢ ≤ 0.
    NonPositive,
}

/// The parameter cone's sign part: one constraint per coordinate, and
/// whether the negated orthant is allowed as well (a binary metric that is
/// either increasing or decreasing in both rates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cone {
    /// One constraint per coordinate of θ.
    pub signs: Vec<SignConstraint>,
    /// Whether −θ is admissible wherever θ is (the union of the orthant and
    /// its negative).
    pub or_negated: bool,
}

impl Cone {
    /// No sign constraint in `d` coordinates.
    pub fn free(d: usize) -> Self {
        Cone {
            signs: vec![SignConstraint::Free; d],
            or_negated: false,
        }
    }

    /// Every coordinate non-negative.
    pub fn nonnegative(d: usize) -> Self {
        Cone {
            signs: vec![SignConstraint::NonNegative; d],
            or_negated: false,
        }
    }

    fn holds<T: Scalar>(signs: &[SignConstraint], theta: &[T], flip: bool) -> bool {
        let zero = T::int(0);
        signs.iter().zip(theta).all(|(s, x)| {
            let (pos, neg) = (*x >= zero, *x <= zero);
            match (s, flip) {
                (SignConstraint::Free, _) => true,
                (SignConstraint::NonNegative, false) | (SignConstraint::NonPositive, true) => pos,
                (SignConstraint::NonPositive, false) | (SignConstraint::NonNegative, true) => neg,
            }
        })
    }

    /// Whether `theta` satisfies the sign constraints (or their negation,
    /// when allowed).
    pub fn contains<T: Scalar>(&self, theta: &[T]) -> bool {
        Self::holds(&self.signs, theta, false)
            || (self.or_negated && Self::holds(&self.signs, theta, true))
    }
}

/// x > 0, false for NaN: the one test of a positive scale or norm.
pub(crate) fn positive<T: Scalar>(x: &T) -> bool {
    *x > T::int(0)
}

/// A metric family linear in its parameters, as the engine sees it.
///
/// A parameter vector θ ∈ ℝ^D lies in a cone ([`Family::cone`] and
/// [`Family::admissible`]); the metric it stands for has the value
/// φ(x) = ⟨θ/s(θ), f(x)⟩ + const at a query point x, with f the feature
/// map ([`Family::features`]) and s(θ) > 0 the family's normalization
/// ([`Family::scale`], homogeneous of degree one), so θ and cθ (c > 0) are
/// the same metric and θ/s(θ) is the metric in the family's own units
/// (what a Bradley–Terry temperature is measured against). The constant
/// is the same for both points of a comparison.
///
/// The family also says how a normalized θ reads as the family's
/// parameters ([`Family::report`], e.g. (a, B, λ) flattened) and how far
/// apart two such readings are in the error measure its own procedures
/// report ([`Family::error`]); where the questions come from
/// ([`Family::candidates`], from the family's query space); and how a
/// normalized θ becomes the family's metric type ([`Family::metric`]).
pub trait Family<T: Scalar>: Sync {
    /// What the oracle compares.
    type Point: Clone + Send + Sync;
    /// The family's metric type in [`crate::metric`].
    type Metric;

    /// The family's name in messages ("binary LPM", "LPME q = 6", …).
    fn name(&self) -> String;

    /// D, the length of θ.
    fn dim(&self) -> usize;

    /// d, the free parameters after the normalization (the `d` of the
    /// information bound d·log₂(1/ε)); D − 1 unless the family says
    /// otherwise.
    fn free(&self) -> usize {
        self.dim().saturating_sub(1)
    }

    /// The prior (and radial decomposition).
    fn prior(&self) -> Prior;

    /// The sign constraints of θ.
    fn cone(&self) -> Cone;

    /// Constraints beyond the signs (e.g. positive semi-definite blocks),
    /// checked for every proposal; the set must be a cone (closed under
    /// positive scaling). The default admits everything.
    fn admissible(&self, _theta: &[T]) -> bool {
        true
    }

    /// s(θ) > 0 on the cone, homogeneous of degree one: θ/s(θ) is the
    /// metric in the family's normalization.
    fn scale(&self, theta: &[T]) -> T;

    /// f(x) into `out` (length D).
    fn features(&self, x: &Self::Point, out: &mut [T]);

    /// The numbers a person is shown for a point (rates or confusions, in
    /// the units of [`super::BayesSettings::min_visible`]); two points
    /// closer than the minimum visible difference in every one of them are
    /// never asked about.
    fn shown(&self, x: &Self::Point) -> Vec<T>;

    /// Names of the reported parameters, in the order of
    /// [`Family::report`].
    fn report_names(&self) -> Vec<String>;

    /// The family's parameters of a normalized θ (θ/s(θ)) into `out`
    /// (length `report_names().len()`).
    fn report(&self, normalized: &[T], out: &mut [T]);

    /// The distance of two reports in the family's error measure.
    fn error(&self, x: &[T], y: &[T]) -> T;

    /// Candidate questions for the current posterior, from the family's
    /// query space (the engine scores them by expected information and
    /// keeps the best visible one). The [`View`] offers the posterior's
    /// summary and the helpers [`View::bisect`] and [`View::pencil`].
    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(Self::Point, Self::Point)>
    where
        Self: Sized;

    /// A random pair of plausible points of the query space (check
    /// questions, and the fallback when no candidate splits the posterior).
    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(Self::Point, Self::Point)>;

    /// The family's metric of a normalized θ.
    ///
    /// # Errors
    /// The metric type's own checks (e.g. an estimate outside the family).
    fn metric(&self, normalized: &[T]) -> Result<Self::Metric>;

    /// The normalized θ of a metric of the family (the inverse of
    /// [`Family::metric`]): for simulations and tests.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a metric of another shape.
    fn parameters(&self, metric: &Self::Metric) -> Result<DVector<T>>;
}

/// ⟨a, b⟩ of two equally long slices, in place.
pub(crate) fn dot<T: Scalar>(a: &[T], b: &[T]) -> T {
    if let Some(v) = T::dot_product(a, b) {
        return v;
    }
    let (mut sum, mut term) = (T::int(0), T::int(0));
    for (x, y) in a.iter().zip(b) {
        term.set_product(x, y);
        sum += &term;
    }
    sum
}

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
    /// The weighted covariance of the normalized vectors (about `mean`).
    pub(crate) cov: DMatrix<T>,
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
        // The projected particles g_i = Jᵀn_i have the weighted mean Jᵀμ and
        // covariance JᵀΣJ (μ, Σ: the particles' moments, computed once per
        // question), so no particle is projected here.
        let jt = jac.transpose();
        let mean = &jt * &self.mean;
        let cov = &jt * &self.cov * jac;
        // Generalized eigenvectors: G = JᵀJ = LLᵀ, eig(L⁻¹ C L⁻ᵀ).
        let gram = &jt * jac;
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
            let Some(u) = self.rotate_to_median(jac, e, &mean, &mnorm) else {
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
        jac: &DMatrix<T>,
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
        // ⟨g_i, e⟩ = ⟨n_i, J·e⟩: one D-vector per direction.
        let (je, jh) = (jac * &e, jac * &h);
        let a: Vec<T> = (0..self.n)
            .map(|i| dot(self.particle(i), je.as_slice()))
            .collect();
        let b: Vec<T> = (0..self.n)
            .map(|i| dot(self.particle(i), jh.as_slice()))
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
