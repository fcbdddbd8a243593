//! The fair performance metric of 001 Def. 1 (eq. 6):
//!
//! Ψ(r¹, …, r^m; a, B, λ) = (1 − λ)·⟨a, r⟩ + λ·Σ_{u<v} ⟨b^{uv}, |r^u − r^v|⟩,
//!
//! with r = Σ_g τ^g ⊙ r^g the overall rates, a ≥ 0, ‖a‖₂ = 1 (the cost of
//! each kind of error), b^{uv} ≥ 0 with Σ_{u<v} ‖b^{uv}‖₂ = 1 (the cost of
//! each rate's disparity between groups u and v; a sum of ℓ2 norms, 001
//! eq. 5) and 0 < λ < 1 (the trade-off; the procedure needs it strictly
//! inside: at λ = 1 the class oracle is constant, at λ = 0 B is not
//! identifiable).
//!
//! **Ψ is a cost** (001 §2.1): with non-negative weights on error rates, a
//! classifier with fewer errors and smaller disparities has a smaller Ψ.
//! Following the crate convention ([`crate`] docs, *Conventions*), its
//! utility is −Ψ and an oracle prefers the classifier with the smaller Ψ.
//! (001 Def. 2 prints an oracle preferring the larger Ψ; under that reading
//! FPME would return (−a, −B, λ), see `notes/001-fair.md` P5.)

use crate::error::{Error, Result};
use crate::geometry::groups::{cuts, pairs, sign_vector, GroupRates, Groups, Partitions};
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::DVector;
use rand::Rng;

/// The assumption every condition of [`FairMetric::new`] belongs to.
const DEF1: &str = "001 Def. 1 (eq. 5)";

/// A fair metric (001 Def. 1): misclassification costs a, violation weights
/// B = {b^{uv}}_{u<v} (pairs in the order (1,2), (1,3), …, (1,m), (2,3), …)
/// and the trade-off λ. A cost: smaller is better.
///
/// # Examples
/// ```
/// use metric_elicitation::geometry::groups::{GroupRates, Groups};
/// use metric_elicitation::metric::fair::FairMetric;
/// use nalgebra::DVector;
/// let groups = Groups::new(2, vec![vec![0.5, 0.5], vec![0.5, 0.5]], None).unwrap();
/// let psi = FairMetric::new(
///     DVector::from_vec(vec![0.6, 0.8]),
///     vec![DVector::from_vec(vec![1.0, 0.0])],
///     0.25,
/// )
/// .unwrap();
/// let r1 = DVector::from_vec(vec![0.1, 0.2]);
/// let r2 = DVector::from_vec(vec![0.3, 0.2]);
/// let rates = GroupRates::new(&[r1, r2]).unwrap();
/// // overall r = (0.2, 0.2); |r¹ − r²| = (0.2, 0)
/// let cost = psi.cost(&groups, &rates);
/// assert!((cost - (0.75 * 0.28 + 0.25 * 0.2)).abs() < 1e-15);
/// assert_eq!(psi.utility(&groups, &rates), -cost);
/// // a negative weight is a typed error naming the condition
/// assert!(FairMetric::new(DVector::from_vec(vec![-0.6, 0.8]), vec![DVector::from_vec(vec![1.0, 0.0])], 0.25).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FairMetric<T: Scalar> {
    a: DVector<T>,
    b: Vec<DVector<T>>,
    lambda: T,
    m: usize,
}

fn assumption(detail: String) -> Error {
    Error::Assumption {
        assumption: DEF1.into(),
        detail,
    }
}

impl<T: Scalar> FairMetric<T> {
    /// A fair metric, checked against 001 Def. 1: a ≥ 0 with ‖a‖₂ = 1,
    /// b^{uv} ≥ 0 with Σ‖b^{uv}‖₂ = 1, 0 < λ < 1. The two norms must hold
    /// within 10⁻⁹ ([`prec::input`]) and are then made exact at the working
    /// precision.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for shapes (q < 2, b not C(m, 2) vectors
    /// of q entries for some m ≥ 2) or a non-finite entry;
    /// [`Error::Assumption`] naming the violated condition of Def. 1.
    pub fn new(a: DVector<T>, b: Vec<DVector<T>>, lambda: T) -> Result<Self> {
        let metric = Self::shaped(a, b, lambda)?;
        let zero = T::int(0);
        if let Some(i) = metric.a.iter().position(|v| *v < zero) {
            return Err(assumption(format!(
                "a >= 0 fails: a_{} = {}",
                i + 1,
                metric.a[i]
            )));
        }
        let all = pairs(metric.m);
        for (p, bp) in metric.b.iter().enumerate() {
            if let Some(i) = bp.iter().position(|v| *v < zero) {
                let (u, v) = all[p];
                return Err(assumption(format!(
                    "b >= 0 fails: b^({},{})_{} = {}",
                    u + 1,
                    v + 1,
                    i + 1,
                    bp[i]
                )));
            }
        }
        let one = T::int(1);
        if metric.lambda <= zero || metric.lambda >= one {
            return Err(assumption(format!(
                "0 < lambda < 1 fails: lambda = {} (at 0 the violation weights are unidentifiable, at 1 the misclassification costs)",
                metric.lambda
            )));
        }
        let (na, nb) = (metric.a.norm(), metric.b_norm());
        let tol = prec::input::<T>();
        if (na.clone() - one.clone()).abs() > tol {
            return Err(assumption(format!("||a||_2 = 1 fails: ||a||_2 = {na}")));
        }
        if (nb.clone() - one).abs() > tol {
            return Err(assumption(format!(
                "sum_(u<v) ||b^(uv)||_2 = 1 fails: the sum is {nb}"
            )));
        }
        Ok(metric.rescaled(&na, &nb))
    }

    /// The metric with a and B rescaled to ‖a‖₂ = 1 and Σ‖b^{uv}‖₂ = 1 (same
    /// preferences for a given λ only if both scales agree; this is a
    /// normalization of the parameters, as 001 eq. 5 assumes), then checked
    /// as [`FairMetric::new`] does.
    ///
    /// # Errors
    /// As [`FairMetric::new`]; [`Error::Assumption`] when a or B is zero.
    pub fn normalized(a: DVector<T>, b: Vec<DVector<T>>, lambda: T) -> Result<Self> {
        let metric = Self::shaped(a, b, lambda)?;
        let (na, nb) = (metric.a.norm(), metric.b_norm());
        if na <= T::int(0) || nb <= T::int(0) {
            return Err(assumption(format!(
                "a and B must be non-zero to be normalized (||a|| = {na}, sum ||b|| = {nb})"
            )));
        }
        let m = metric.rescaled(&na, &nb);
        Self::new(m.a, m.b, m.lambda)
    }

    /// The fair metric with these weights exactly as given: shapes (q ≥ 2
    /// rates, C(m, 2) vectors b^{uv} of q entries for some m ≥ 2) and
    /// finite entries are checked, 001 Def. 1's signs, normalizations and
    /// 0 < λ < 1 are not, and nothing is rescaled. This is a metric to
    /// *rank* by ([`crate::driver::rank`]), where a baseline such as λ = 0
    /// or equal weights is as meaningful as an elicited metric and the
    /// values must be those of the weights written; elicitation needs
    /// [`FairMetric::new`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the shapes or a non-finite entry.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::fair::FairMetric;
    /// use nalgebra::DVector;
    /// // λ = 0: the accuracy part alone (001 Table 2's o_p baseline).
    /// let psi = FairMetric::as_given(
    ///     DVector::from_vec(vec![2.0, 1.0]),
    ///     vec![DVector::from_vec(vec![1.0, 1.0])],
    ///     0.0,
    /// )
    /// .unwrap();
    /// assert_eq!(psi.a()[0], 2.0);
    /// assert!(FairMetric::new(psi.a().clone(), psi.b().to_vec(), 0.0).is_err());
    /// ```
    pub fn as_given(a: DVector<T>, b: Vec<DVector<T>>, lambda: T) -> Result<Self> {
        Self::shaped(a, b, lambda)
    }

    fn shaped(a: DVector<T>, b: Vec<DVector<T>>, lambda: T) -> Result<Self> {
        let q = a.len();
        if q < 2 {
            return Err(Error::invalid("a", format!("needs q >= 2 rates, got {q}")));
        }
        let m = crate::geometry::groups::groups_of_pairs(b.len()).ok_or_else(|| {
            Error::invalid(
                "b",
                format!(
                    "needs C(m, 2) vectors (one per pair of groups) for some m >= 2, got {}",
                    b.len()
                ),
            )
        })?;
        if let Some(p) = b.iter().position(|v| v.len() != q) {
            return Err(Error::invalid(
                format!("b[{p}]"),
                format!("expected q = {q} values, got {}", b[p].len()),
            ));
        }
        let finite = a.iter().chain(b.iter().flatten()).all(Scalar::finite);
        if !finite || !lambda.finite() {
            return Err(Error::invalid("metric", "every weight must be finite"));
        }
        Ok(FairMetric { a, b, lambda, m })
    }

    fn rescaled(self, na: &T, nb: &T) -> Self {
        FairMetric {
            a: self.a / na.clone(),
            b: self.b.into_iter().map(|v| v / nb.clone()).collect(),
            lambda: self.lambda,
            m: self.m,
        }
    }

    /// The misclassification costs a.
    pub fn a(&self) -> &DVector<T> {
        &self.a
    }

    /// The violation weights b^{uv}, in the order of
    /// [`crate::geometry::groups::pairs`].
    pub fn b(&self) -> &[DVector<T>] {
        &self.b
    }

    /// The trade-off λ.
    pub fn lambda(&self) -> &T {
        &self.lambda
    }

    /// The number of groups m.
    pub fn groups(&self) -> usize {
        self.m
    }

    /// The number of rates q.
    pub fn dim(&self) -> usize {
        self.a.len()
    }

    /// Σ_{u<v}‖b^{uv}‖₂.
    fn b_norm(&self) -> T {
        self.b.iter().fold(T::int(0), |s, v| s + v.norm())
    }

    /// Whether the metric's shape (m groups, q rates) is that of `groups`.
    pub fn fits(&self, groups: &Groups<T>) -> bool {
        self.m == groups.groups() && self.dim() == groups.dim()
    }

    /// Ψ at `rates` (001 eq. 6): the cost.
    ///
    /// # Panics
    /// When the shapes of `groups` or `rates` are not the metric's
    /// ([`FairMetric::fits`], [`Groups::check`]); procedures check them
    /// once when they are built.
    pub fn cost(&self, groups: &Groups<T>, rates: &GroupRates<T>) -> T {
        let q = self.dim();
        let r = rates.as_vector().as_slice();
        let mut accuracy = T::int(0);
        for g in 0..self.m {
            let tau = groups.tau(g).as_slice();
            for ((ai, ti), ri) in self.a.iter().zip(tau).zip(&r[g * q..(g + 1) * q]) {
                accuracy += &(ai.clone() * ti.clone() * ri.clone());
            }
        }
        let mut fairness = T::int(0);
        for ((u, v), b) in pairs(self.m).into_iter().zip(&self.b) {
            let (ru, rv) = (&r[u * q..(u + 1) * q], &r[v * q..(v + 1) * q]);
            for ((bi, x), y) in b.iter().zip(ru).zip(rv) {
                fairness += &(bi.clone() * (x.clone() - y.clone()).abs());
            }
        }
        (T::int(1) - self.lambda.clone()) * accuracy + self.lambda.clone() * fairness
    }

    /// Ψ at `rates` with every sum taken left to right (the order `rank`
    /// evaluates in, [`crate::driver::rank`]): the overall rates
    /// rᵢ = Σ_g τ^g_i r^g_i (over the groups in order), then
    /// (1 − λ)·⟨a, r⟩ + λ·V with V the sum over the pairs (u, v) in
    /// [`pairs`] order, from 0, of each pair's Σᵢ b^{uv}_i |r^u_i − r^v_i|.
    /// `tau[g]` is τ^g over the q rates (entry (i, j) = P(G = g | Y = i), as
    /// [`Groups::tau`]) taken as given: a data set's shares, which need not
    /// sum to 1 in rounding. [`FairMetric::cost`] sums the same terms in
    /// another order (and [`BoundFair`] in a third); the values can differ
    /// in the last bits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `tau` or `rates` does not have the
    /// metric's m groups of q rates.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::geometry::groups::GroupRates;
    /// use metric_elicitation::metric::fair::FairMetric;
    /// use nalgebra::DVector;
    /// let v = |x: &[f64]| DVector::from_vec(x.to_vec());
    /// let psi = FairMetric::as_given(v(&[0.6, 0.8]), vec![v(&[1.0, 0.0])], 0.25).unwrap();
    /// let rates = GroupRates::new(&[v(&[0.1, 0.2]), v(&[0.3, 0.2])]).unwrap();
    /// let tau = [v(&[0.5, 0.5]), v(&[0.5, 0.5])];
    /// let cost = psi.cost_left_to_right(&tau, &rates).unwrap();
    /// assert!((cost - (0.75 * 0.28 + 0.25 * 0.2)).abs() < 1e-15);
    /// ```
    pub fn cost_left_to_right(&self, tau: &[DVector<T>], rates: &GroupRates<T>) -> Result<T> {
        let q = self.dim();
        if tau.len() != self.m
            || tau.iter().any(|t| t.len() != q)
            || rates.groups() != self.m
            || rates.dim() != q
        {
            return Err(Error::invalid(
                "rates",
                format!(
                    "a fair metric of m = {} groups and q = {q} rates evaluated on {} groups of {} rates ({} shares)",
                    self.m,
                    rates.groups(),
                    rates.dim(),
                    tau.len()
                ),
            ));
        }
        let overall = DVector::from_iterator(
            q,
            (0..q).map(|i| {
                crate::metric::sum_left_to_right(
                    (0..self.m).map(|g| tau[g][i].clone() * rates.group(g)[i].clone()),
                )
            }),
        );
        let mut violation = T::int(0);
        for ((u, v), b) in pairs(self.m).into_iter().zip(&self.b) {
            let (ru, rv) = (rates.group(u), rates.group(v));
            violation += &crate::metric::sum_left_to_right(
                (0..q).map(|i| b[i].clone() * (ru[i].clone() - rv[i].clone()).abs()),
            );
        }
        Ok(
            (T::int(1) - self.lambda.clone()) * crate::scalar::dot(&self.a, &overall)
                + self.lambda.clone() * violation,
        )
    }

    /// The metric bound to `groups` for fast repeated evaluation
    /// ([`BoundFair`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shapes differ
    /// ([`FairMetric::fits`]).
    pub fn bind(&self, groups: &Groups<T>) -> Result<BoundFair<T>> {
        BoundFair::new(self.clone(), groups)
    }

    /// −Ψ: what an oracle maximizes (the crate convention).
    ///
    /// # Panics
    /// As [`FairMetric::cost`].
    pub fn utility(&self, groups: &Groups<T>, rates: &GroupRates<T>) -> T {
        -self.cost(groups, rates)
    }

    /// η^σ = Σ of b^{uv} over the pairs σ cuts (001 App. C.2).
    pub fn eta(&self, sigma: &[usize]) -> DVector<T> {
        pairs(self.m)
            .into_iter()
            .zip(&self.b)
            .filter(|(pair, _)| cuts(sigma, *pair))
            .fold(DVector::from_element(self.dim(), T::int(0)), |s, (_, b)| {
                s + b
            })
    }

    /// The gradient of Ψ along the class embedding (s, …, s): (1 − λ)·a
    /// (001 Alg. 1 Part 1, P11).
    pub fn class_slope(&self) -> DVector<T> {
        &self.a * (T::int(1) - self.lambda.clone())
    }

    /// The gradient of Ψ along ν(s, σ, c) (groups in σ at e_c, the others
    /// at s): (1 − λ)·a ⊙ (1 − τ^σ) + λ·w_c ⊙ η^σ (001 eq. 28 with
    /// (1 − τ^σ), P12).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a class out of range.
    pub fn violation_slope(
        &self,
        groups: &Groups<T>,
        sigma: &[usize],
        class: usize,
    ) -> Result<DVector<T>> {
        let one = T::int(1);
        let rest = groups.tau_sum(sigma).map(|t| one.clone() - t);
        let w = sign_vector::<T>(groups.classes(), class)?;
        Ok(self.a.component_mul(&rest) * (one - self.lambda.clone())
            + w.component_mul(&self.eta(sigma)) * self.lambda.clone())
    }

    /// The gradient of Ψ along (o, …, s⁺ at group u, …, o) for s⁺ ≥ o:
    /// (1 − λ)·τ^u ⊙ a + λ·Σ_{v≠u} b^{uv} (001 eq. 15/37, P20).
    pub fn trade_off_slope(&self, groups: &Groups<T>, u: usize) -> DVector<T> {
        let (x, y) = self.trade_off_parts(groups, u);
        x * (T::int(1) - self.lambda.clone()) + y * self.lambda.clone()
    }

    /// (τ^u ⊙ a, Σ_{v≠u} b^{uv}): the two directions Alg. 4 interpolates
    /// between for group u.
    pub fn trade_off_parts(&self, groups: &Groups<T>, u: usize) -> (DVector<T>, DVector<T>) {
        let x = groups.tau(u).component_mul(&self.a);
        let y = pairs(self.m)
            .into_iter()
            .zip(&self.b)
            .filter(|((p, r), _)| *p == u || *r == u)
            .fold(DVector::from_element(self.dim(), T::int(0)), |s, (_, b)| {
                s + b
            });
        (x, y)
    }

    /// The constants of 001 Assumption 2 (corrected reading, notes §7) for
    /// this metric on `groups` with the partitions `partitions`.
    pub fn assumption2(&self, groups: &Groups<T>, partitions: &Partitions<T>) -> Assumption2 {
        let f = |x: &T| x.to_f64_lossy();
        let c3 = self.a.iter().map(f).fold(f64::INFINITY, f64::min);
        let k = groups.classes();
        let mut c4 = f64::INFINITY;
        for sigma in partitions.sets() {
            for class in [0, k - 1] {
                if let Ok(g) = self.violation_slope(groups, sigma, class) {
                    c4 = g.iter().map(|v| f(v).abs()).fold(c4, f64::min);
                }
            }
        }
        let sin_phi = (0..self.m)
            .map(|u| {
                let (x, y) = self.trade_off_parts(groups, u);
                sine(&x, &y).to_f64_lossy()
            })
            .collect();
        Assumption2 {
            lambda: f(&self.lambda),
            c3,
            c4,
            sin_phi,
        }
    }

    /// A random metric from the distribution the reproductions use (001
    /// §6.1 does not state one): a = unit(U[0, 1]^q); each b^{uv} =
    /// w_{uv}·unit(U[0, 1]^q) with masses w_{uv} ~ U[0, 1] normalized to sum
    /// to 1; λ ~ U[0.1, 0.9]. Drawn in `f64`, converted exactly, normalized
    /// at the working precision.
    ///
    /// # Panics
    /// For m < 2 or k < 2 (no fair metric has that shape).
    pub fn sample<R: Rng + ?Sized>(m: usize, k: usize, rng: &mut R) -> Self {
        let q = k * k - k;
        let mut draw = |n: usize| -> DVector<T> {
            DVector::from_iterator(
                n,
                (0..n).map(|_| T::from_f64_exact(rng.random_range(1e-12..1.0))),
            )
        };
        let a = draw(q);
        let a = a.clone() / a.norm();
        let masses = draw(m * (m - 1) / 2);
        let b = masses
            .iter()
            .map(|w| {
                let v = draw(q);
                v.clone() / v.norm() * w.clone()
            })
            .collect();
        let lambda = T::from_f64_exact(rng.random_range(0.1..0.9));
        match Self::normalized(a, b, lambda) {
            Ok(metric) => metric,
            Err(e) => panic!("sampled a metric outside Def. 1 (m = {m}, k = {k}): {e}"),
        }
    }
}

/// A [`FairMetric`] bound to its groups: Ψ(r¹, …, r^m) =
/// Σ_g ⟨w^g, r^g⟩ + Σ_{u<v} ⟨λb^{uv}, |r^u − r^v|⟩ with w^g = (1 − λ)·a ⊙ τ^g
/// precomputed, evaluated without allocation (also at MPFR precision). It
/// is the oracle's metric ([`crate::oracle::Metric`], the utility −Ψ) of
/// the fair procedures.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundFair<T: Scalar> {
    metric: FairMetric<T>,
    q: usize,
    /// (1 − λ)·a ⊙ τ^g, group after group.
    w: Vec<T>,
    /// λ·b^{uv}, pair after pair.
    v: Vec<T>,
    pairs: Vec<(usize, usize)>,
}

impl<T: Scalar> BoundFair<T> {
    /// `metric` bound to `groups`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shapes differ.
    pub fn new(metric: FairMetric<T>, groups: &Groups<T>) -> Result<Self> {
        if !metric.fits(groups) {
            return Err(Error::invalid(
                "oracle.metric",
                format!(
                    "a metric of {} groups and q = {} for a population of {} groups and q = {}",
                    metric.groups(),
                    metric.dim(),
                    groups.groups(),
                    groups.dim()
                ),
            ));
        }
        let keep = T::int(1) - metric.lambda.clone();
        let w = (0..metric.m)
            .flat_map(|g| {
                groups
                    .tau(g)
                    .component_mul(&metric.a)
                    .iter()
                    .map(|x| x.clone() * keep.clone())
                    .collect::<Vec<T>>()
            })
            .collect();
        let v = metric
            .b
            .iter()
            .flat_map(|b| b.iter().map(|x| x.clone() * metric.lambda.clone()))
            .collect();
        Ok(BoundFair {
            q: metric.dim(),
            pairs: pairs(metric.m),
            metric,
            w,
            v,
        })
    }

    /// The metric.
    pub fn metric(&self) -> &FairMetric<T> {
        &self.metric
    }

    /// Ψ at `rates`; NaN when `rates` does not have the groups' shape (a
    /// simulated oracle turns that into [`Error::NonFiniteMetric`]).
    pub fn cost(&self, rates: &GroupRates<T>) -> T {
        let r = rates.as_vector().as_slice();
        let zero = T::int(0);
        if r.len() != self.w.len() {
            return zero.clone() / zero;
        }
        let q = self.q;
        let (mut total, mut t) = (T::int(0), T::int(0));
        let (w, r) = (self.w.as_slice(), &r[..self.w.len()]);
        for j in 0..w.len() {
            t.clone_from(&w[j]);
            t *= &r[j];
            total += &t;
        }
        for (p, &(u, v)) in self.pairs.iter().enumerate() {
            let weights = &self.v[p * q..][..q];
            let (ru, rv) = (&r[u * q..][..q], &r[v * q..][..q]);
            for i in 0..q {
                t.clone_from(&ru[i]);
                t -= &rv[i];
                if t < zero {
                    t.neg_assign();
                }
                t *= &weights[i];
                total += &t;
            }
        }
        total
    }
}

impl<T: Scalar> crate::oracle::Metric<GroupRates<T>> for BoundFair<T> {
    type Value = T;
    /// The utility −Ψ (the crate convention: the oracle prefers it larger).
    fn value(&self, rates: &GroupRates<T>) -> T {
        -self.cost(rates)
    }
}

/// sin of the angle between x and y (0 when either is zero).
pub fn sine<T: Scalar>(x: &DVector<T>, y: &DVector<T>) -> T {
    let (nx, ny) = (x.norm(), y.norm());
    if nx <= T::int(0) || ny <= T::int(0) {
        return T::int(0);
    }
    let c = x.dot(y) / (nx * ny);
    let one = T::int(1);
    (one - c.clone() * c).max(T::int(0)).sqrt()
}

/// The constants of 001 Assumption 2 for one metric, read as in
/// `notes/001-fair.md` §7 (the printed conditions have typos).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Assumption2 {
    /// λ (Assumption 2 asks 1 > c₁ > λ > c₂ > 0).
    pub lambda: f64,
    /// c₃ = minᵢ aᵢ (asked to be > 0).
    pub c3: f64,
    /// c₄ = the smallest |entry| of every Part-2 slope
    /// (1 − λ)aᵢ(1 − τ^σᵢ) + λw_{c,i}η^σᵢ over σ ∈ M and c ∈ {1, k}: the
    /// denominators of δ.
    pub c4: f64,
    /// For each group u, sin ∠(τ^u ⊙ a, Σ_v b^{uv}): Alg. 4 needs these
    /// not parallel (the printed "⟨â, Σb̂^{1v}⟩ ≠ 1", for u = 1).
    pub sin_phi: Vec<f64>,
}
