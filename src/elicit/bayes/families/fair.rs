//! Fair metrics over m groups' rates: the fair linear metric of 001 (FPME)
//! and the fair quadratic metric of 000 §4.3.
//!
//! Both are costs that are linear in the vector w = ((1 − λ)a, λB) once
//! the group disparities are features, and λ is the share of B in the sum
//! of the two normalizations: with S_a the norm of w's a-part and S_B the
//! family's norm of its B-part, a = w_a/S_a, B = w_B/S_B and
//! λ = S_B/(S_a + S_B); the metric's own scale is s(w) = S_a + S_B.
//!
//! Every question is a pair c ± s·u of group rates symmetric about a centre
//! c, each group's rates inside the ball of the common sphere S_ρ. At the
//! centre "every group at o" the pair's disparities are equal on both
//! sides, so it asks about a alone; at centres where two groups sit at
//! o ± ρ/2·w (w the all-ones direction or an axis) it asks about a and the
//! pair's violation weights together. The directions u come from
//! [`View::pencil`] with J the difference map at the centre (exact for the
//! quadratic metric; for the linear metric exact while no disparity
//! changes sign, which the step s respects).

use crate::elicit::bayes::family::positive;
use crate::elicit::bayes::family::View;
use crate::elicit::bayes::family::{Cone, Family, Prior, SignConstraint};
use crate::elicit::bayes::posterior::Normals;
use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, GroupRates, Groups, Rates};
use crate::metric::fair::FairMetric;
use crate::metric::quadratic::FairQuadraticMetric;
use crate::oracle::people::uniform;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;

fn l2<T: Scalar>(x: &[T]) -> T {
    x.iter()
        .fold(T::int(0), |s, v| s + v.clone() * v.clone())
        .sqrt()
}

/// The groups' query geometry shared by both families.
#[derive(Debug, Clone)]
struct GroupBall<T: Scalar> {
    groups: Groups<T>,
}

impl<T: Scalar> GroupBall<T> {
    fn m(&self) -> usize {
        self.groups.groups()
    }

    fn q(&self) -> usize {
        self.groups.dim()
    }

    fn point(&self, flat: &DVector<T>) -> Option<GroupRates<T>> {
        let q = self.q();
        let parts: Vec<DVector<T>> = (0..self.m())
            .map(|g| flat.rows(g * q, q).into_owned())
            .collect();
        GroupRates::new(&parts).ok()
    }

    /// Centres: every group at o; for each pair (u, v) and each direction
    /// w of {1/√q, e₁, …, e_q}, group u at o + ρ/2·w and v at o − ρ/2·w;
    /// and two centres with every group at a random point at ρ/2.
    fn centres(&self, rng: &mut ChaCha8Rng) -> Vec<DVector<T>> {
        let (m, q) = (self.m(), self.q());
        let o = self.groups.centre().clone();
        let step = self.groups.radius().clone() / T::int(2);
        let base = DVector::from_iterator(m * q, (0..m).flat_map(|_| o.iter().cloned()));
        let mut out = vec![base.clone()];
        let mut directions = vec![DVector::from_element(
            q,
            T::int(1) / T::int(q as i64).sqrt(),
        )];
        for j in 0..q {
            let mut e = DVector::from_element(q, T::int(0));
            e[j] = T::int(1);
            directions.push(e);
        }
        for (u, v) in pairs(m) {
            for w in &directions {
                let mut c = base.clone();
                for i in 0..q {
                    c[u * q + i] += &(w[i].clone() * step.clone());
                    c[v * q + i] -= &(w[i].clone() * step.clone());
                }
                out.push(c);
            }
        }
        let mut normals = Normals::<T>::new();
        for _ in 0..2 {
            let mut c = base.clone();
            for g in 0..m {
                let w = DVector::from_fn(q, |_, _| normals.draw(rng));
                let n = w.norm();
                if n > T::int(0) {
                    for i in 0..q {
                        c[g * q + i] += &(w[i].clone() * step.clone() / n.clone());
                    }
                }
            }
            out.push(c);
        }
        out
    }

    /// The largest s with every group of c ± s·u inside the ball.
    fn reach(&self, c: &DVector<T>, u: &DVector<T>) -> T {
        let q = self.q();
        let o = self.groups.centre();
        let rho = self.groups.radius().clone();
        let mut best: Option<T> = None;
        for g in 0..self.m() {
            let x = c.rows(g * q, q) - o;
            let w = u.rows(g * q, q).into_owned();
            let ww = w.norm_squared();
            if !positive(&ww) {
                continue;
            }
            let xw = x.dot(&w).abs();
            let slack = rho.clone() * rho.clone() - x.norm_squared();
            if slack < T::int(0) {
                return T::int(0);
            }
            let s = ((xw.clone() * xw.clone() + ww.clone() * slack).sqrt() - xw) / ww;
            if best.as_ref().is_none_or(|b| s < *b) {
                best = Some(s);
            }
        }
        best.unwrap_or_else(|| T::int(0))
    }

    /// The largest s for which no pair's disparity |c^u_i − c^v_i| ≠ 0
    /// changes sign along c ± s·u.
    fn region(&self, c: &DVector<T>, u: &DVector<T>) -> Option<T> {
        let q = self.q();
        let mut best: Option<T> = None;
        for (a, b) in pairs(self.m()) {
            for i in 0..q {
                let d = (c[a * q + i].clone() - c[b * q + i].clone()).abs();
                let du = (u[a * q + i].clone() - u[b * q + i].clone()).abs();
                if d > T::int(0) && du > T::int(0) {
                    let s = d / du;
                    if best.as_ref().is_none_or(|x| s < *x) {
                        best = Some(s);
                    }
                }
            }
        }
        best
    }

    fn candidates<F: Family<T, Point = GroupRates<T>>>(
        &self,
        view: &View<'_, T, F>,
        f: &F,
        piecewise: bool,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(GroupRates<T>, GroupRates<T>)> {
        let n = self.m() * self.q();
        let d = f.dim();
        let h = self.groups.radius().clone() / T::int(64);
        let (mut plus, mut minus) = (vec![T::int(0); d], vec![T::int(0); d]);
        let mut out = Vec::new();
        for c in self.centres(rng) {
            let mut jac = DMatrix::from_element(d, n, T::int(0));
            for k in 0..n {
                let (mut a, mut b) = (c.clone(), c.clone());
                a[k] += &h;
                b[k] -= &h;
                let (Some(pa), Some(pb)) = (self.point(&a), self.point(&b)) else {
                    continue;
                };
                f.features(&pa, &mut plus);
                f.features(&pb, &mut minus);
                for r in 0..d {
                    jac[(r, k)] = plus[r].clone() - minus[r].clone();
                }
            }
            for u in view.pencil(&jac, 2) {
                let mut s = self.reach(&c, &u);
                if piecewise {
                    if let Some(limit) = self.region(&c, &u) {
                        s = s.min(limit);
                    }
                }
                let s = s * T::ratio(999, 1000);
                if !positive(&s) {
                    continue;
                }
                let (a, b) = (&c + &u * s.clone(), &c - &u * s);
                if let (Some(a), Some(b)) = (self.point(&a), self.point(&b)) {
                    out.push((a, b));
                }
            }
        }
        out
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(GroupRates<T>, GroupRates<T>)> {
        let (m, q) = (self.m(), self.q());
        let mut normals = Normals::<T>::new();
        let mut draw = |rng: &mut ChaCha8Rng| -> Option<GroupRates<T>> {
            let mut flat = DVector::from_element(m * q, T::int(0));
            for g in 0..m {
                let w = DVector::from_fn(q, |_, _| normals.draw(rng));
                let n = w.norm();
                if !positive(&n) {
                    return None;
                }
                let u: T = uniform(rng);
                let r = self.groups.radius().clone() * u.powf(T::int(1) / T::int(q as i64));
                for i in 0..q {
                    flat[g * q + i] =
                        self.groups.centre()[i].clone() + w[i].clone() * r.clone() / n.clone();
                }
            }
            self.point(&flat)
        };
        Some((draw(rng)?, draw(rng)?))
    }
}

/// The fair linear metric of 001 Def. 1, Ψ = (1 − λ)⟨a, r⟩ +
/// λΣ_{u<v}⟨b^{uv}, |r^u − r^v|⟩ (a cost; ‖a‖₂ = 1, Σ‖b^{uv}‖₂ = 1,
/// a, b ≥ 0): θ = ((1 − λ)a, λb^{uv}) ≥ 0, f = −(r, |r^u − r^v|)
/// (the utility), s(θ) = ‖θ_a‖₂ + Σ‖θ_{b^{uv}}‖₂, D = q(1 + C(m, 2)),
/// d = D − 1, error max(‖a − â‖₂, ‖vec(B − B̂)‖₂, |λ − λ̂|) (001 §6.1's
/// errors, as [`crate::elicit::fpme::errors`]).
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, AnswerModel, families::Fpme};
/// use metric_elicitation::geometry::groups::Groups;
/// use metric_elicitation::metric::fair::FairMetric;
/// use metric_elicitation::oracle::Simulated;
/// use nalgebra::dvector;
/// let groups = Groups::new(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None).unwrap();
/// let truth = FairMetric::new(dvector![0.6, 0.8], vec![dvector![0.8, 0.6]], 0.3).unwrap();
/// let bound = truth.bind(&groups).unwrap();
/// let mut person = Simulated::new(bound);
/// let family = Fpme::new(groups);
/// let settings = BayesSettings::builder(Tolerance::new(0.1).unwrap()).answers(AnswerModel::Mistakes { p: 0.0 }).build().unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// let m = est.metric.unwrap();
/// assert!((m.lambda() - 0.3).abs() <= 0.1);
/// ```
#[derive(Debug, Clone)]
pub struct Fpme<T: Scalar> {
    ball: GroupBall<T>,
}

impl<T: Scalar> Fpme<T> {
    /// The groups' rates and query sphere.
    pub fn new(groups: Groups<T>) -> Self {
        Fpme {
            ball: GroupBall { groups },
        }
    }

    /// The groups (their τ and the common query sphere).
    pub fn groups(&self) -> &Groups<T> {
        &self.ball.groups
    }

    fn blocks(&self) -> usize {
        let m = self.ball.m();
        m * (m - 1) / 2
    }

    /// (S_a, S_B) of θ.
    fn norms(&self, theta: &[T]) -> (T, T) {
        let q = self.ball.q();
        let sa = l2(&theta[..q]);
        let sb =
            (0..self.blocks()).fold(T::int(0), |s, p| s + l2(&theta[q + p * q..q + (p + 1) * q]));
        (sa, sb)
    }
}

impl<T: Scalar> Family<T> for Fpme<T> {
    type Point = GroupRates<T>;
    type Metric = FairMetric<T>;

    fn name(&self) -> String {
        format!(
            "FPME (m, k) = ({}, {})",
            self.ball.m(),
            self.ball.groups.classes()
        )
    }

    fn dim(&self) -> usize {
        self.ball.q() * (1 + self.blocks())
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        Cone::nonnegative(Family::<T>::dim(self))
    }

    fn scale(&self, theta: &[T]) -> T {
        let (a, b) = self.norms(theta);
        a + b
    }

    fn features(&self, x: &GroupRates<T>, out: &mut [T]) {
        let q = self.ball.q();
        let overall = self.ball.groups.overall(x);
        for i in 0..q {
            out[i] = -overall[i].clone();
        }
        for (p, (u, v)) in pairs(self.ball.m()).into_iter().enumerate() {
            let (ru, rv) = (x.group(u), x.group(v));
            for i in 0..q {
                out[q + p * q + i] = -(ru[i].clone() - rv[i].clone()).abs();
            }
        }
    }

    fn shown(&self, x: &GroupRates<T>) -> Vec<T> {
        x.as_vector().as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        let q = self.ball.q();
        let mut names: Vec<String> = (1..=q).map(|i| format!("a_{i}")).collect();
        for (u, v) in pairs(self.ball.m()) {
            names.extend((1..=q).map(|i| format!("b^({},{})_{i}", u + 1, v + 1)));
        }
        names.push("lambda".into());
        names
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        let q = self.ball.q();
        let d = Family::<T>::dim(self);
        let (sa, sb) = self.norms(normalized);
        for i in 0..q {
            out[i] = normalized[i].clone() / sa.clone();
        }
        for i in q..d {
            out[i] = normalized[i].clone() / sb.clone();
        }
        out[d] = sb.clone() / (sa + sb);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        let q = self.ball.q();
        let d = Family::<T>::dim(self);
        let diff = |r: std::ops::Range<usize>| {
            l2(&r.map(|i| x[i].clone() - y[i].clone()).collect::<Vec<T>>())
        };
        diff(0..q)
            .max(diff(q..d))
            .max((x[d].clone() - y[d].clone()).abs())
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(GroupRates<T>, GroupRates<T>)> {
        self.ball.candidates(view, self, true, rng)
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(GroupRates<T>, GroupRates<T>)> {
        self.ball.random_pair(rng)
    }

    fn metric(&self, normalized: &[T]) -> Result<FairMetric<T>> {
        let q = self.ball.q();
        let mut rep = vec![T::int(0); Family::<T>::dim(self) + 1];
        self.report(normalized, &mut rep);
        let a = DVector::from_column_slice(&rep[..q]);
        let b = (0..self.blocks())
            .map(|p| DVector::from_column_slice(&rep[q + p * q..q + (p + 1) * q]))
            .collect();
        let lambda = rep[Family::<T>::dim(self)].clone();
        FairMetric::normalized(a, b, lambda)
    }

    fn parameters(&self, metric: &FairMetric<T>) -> Result<DVector<T>> {
        let q = self.ball.q();
        if metric.dim() != q || metric.groups() != self.ball.m() {
            return Err(Error::invalid(
                "metric",
                "the metric's groups or rates differ from the family's",
            ));
        }
        let keep = T::int(1) - metric.lambda().clone();
        let mut theta: Vec<T> = metric
            .a()
            .iter()
            .map(|x| x.clone() * keep.clone())
            .collect();
        for b in metric.b() {
            theta.extend(b.iter().map(|x| x.clone() * metric.lambda().clone()));
        }
        let s = self.scale(&theta);
        Ok(DVector::from_vec(theta) / s)
    }
}

/// Index pairs (i ≤ j) of a q×q symmetric block.
fn upper(q: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..q {
        for j in i..q {
            out.push((i, j));
        }
    }
    out
}

/// The fair quadratic metric of 000 Def. 4, cost = (1 − λ)⟨a, lin(r)⟩ +
/// (λ/2)Σ_{u<v}(r^u − r^v)ᵀB^{uv}(r^u − r^v) with lin(r) = 1 − r in
/// diagonal rates and r in general rates (a ≥ 0, ‖a‖₂ = 1, B^{uv}
/// positive semi-definite with ½Σ‖B^{uv}‖_F = 1): θ = ((1 − λ)a,
/// λB^{uv} as (B_ii, √2B_ij)), the B-parts constrained to the PSD cone,
/// s(θ) = ‖θ_a‖₂ + ½Σ‖B^{uv}‖_F, D = q + C(m, 2)·q(q+1)/2, d = D − 1,
/// error max(‖a − â‖₂, Σ‖B^{uv} − B̂^{uv}‖_F, |λ − λ̂|) (the errors of
/// [`FairQuadraticMetric::errors`]).
#[derive(Debug, Clone)]
pub struct FairQpme<T: Scalar> {
    ball: GroupBall<T>,
}

impl<T: Scalar> FairQpme<T> {
    /// The groups' rates (diagonal or general) and query sphere.
    pub fn new(groups: Groups<T>) -> Self {
        FairQpme {
            ball: GroupBall { groups },
        }
    }

    /// The groups (their rates and common query sphere).
    pub fn groups(&self) -> &Groups<T> {
        &self.ball.groups
    }

    fn blocks(&self) -> usize {
        let m = self.ball.m();
        m * (m - 1) / 2
    }

    fn block(&self) -> usize {
        let q = self.ball.q();
        q * (q + 1) / 2
    }

    fn norms(&self, theta: &[T]) -> (T, T) {
        let q = self.ball.q();
        let nb = self.block();
        let sa = l2(&theta[..q]);
        let sb = (0..self.blocks()).fold(T::int(0), |s, p| {
            s + l2(&theta[q + p * nb..q + (p + 1) * nb])
        }) / T::int(2);
        (sa, sb)
    }

    fn matrix(&self, packed: &[T]) -> DMatrix<T> {
        let q = self.ball.q();
        let root = T::ratio(1, 2).sqrt();
        let mut b = DMatrix::from_element(q, q, T::int(0));
        for (k, (i, j)) in upper(q).into_iter().enumerate() {
            let v = if i == j {
                packed[k].clone()
            } else {
                packed[k].clone() * root.clone()
            };
            b[(i, j)] = v.clone();
            b[(j, i)] = v;
        }
        b
    }
}

impl<T: Scalar> Family<T> for FairQpme<T> {
    type Point = GroupRates<T>;
    type Metric = FairQuadraticMetric<T>;

    fn name(&self) -> String {
        format!(
            "fair QPME (m, k) = ({}, {})",
            self.ball.m(),
            self.ball.groups.classes()
        )
    }

    fn dim(&self) -> usize {
        self.ball.q() + self.blocks() * self.block()
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        let q = self.ball.q();
        let mut signs = vec![SignConstraint::NonNegative; q];
        signs.extend(vec![SignConstraint::Free; self.blocks() * self.block()]);
        Cone {
            signs,
            or_negated: false,
        }
    }

    /// Every B-block positive semi-definite.
    fn admissible(&self, theta: &[T]) -> bool {
        let q = self.ball.q();
        let nb = self.block();
        (0..self.blocks()).all(|p| {
            let packed = &theta[q + p * nb..q + (p + 1) * nb];
            if q == 2 {
                let root = T::ratio(1, 2).sqrt();
                let (b11, b22) = (&packed[0], &packed[2]);
                let b12 = packed[1].clone() * root;
                *b11 >= T::int(0)
                    && *b22 >= T::int(0)
                    && b11.clone() * b22.clone() >= b12.clone() * b12
            } else {
                let low = self.matrix(packed).symmetric_eigenvalues().min();
                low >= T::int(0)
            }
        })
    }

    fn scale(&self, theta: &[T]) -> T {
        let (a, b) = self.norms(theta);
        a + b
    }

    fn features(&self, x: &GroupRates<T>, out: &mut [T]) {
        let q = self.ball.q();
        let nb = self.block();
        let overall = self.ball.groups.overall(x);
        let diagonal = self.ball.groups.rates() == Rates::Diagonal;
        for i in 0..q {
            // Utility −cost: diagonal rates −⟨a, 1 − r⟩ = ⟨a, r⟩ + const.
            out[i] = if diagonal {
                overall[i].clone()
            } else {
                -overall[i].clone()
            };
        }
        let half = T::ratio(1, 2);
        let root = half.clone().sqrt();
        for (p, (u, v)) in pairs(self.ball.m()).into_iter().enumerate() {
            let (ru, rv) = (x.group(u), x.group(v));
            let d: Vec<T> = (0..q).map(|i| ru[i].clone() - rv[i].clone()).collect();
            for (k, (i, j)) in upper(q).into_iter().enumerate() {
                let w = if i == j { half.clone() } else { root.clone() };
                out[q + p * nb + k] = -(d[i].clone() * d[j].clone() * w);
            }
        }
    }

    fn shown(&self, x: &GroupRates<T>) -> Vec<T> {
        x.as_vector().as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        let q = self.ball.q();
        let mut names: Vec<String> = (1..=q).map(|i| format!("a_{i}")).collect();
        for (u, v) in pairs(self.ball.m()) {
            names.extend(
                upper(q)
                    .into_iter()
                    .map(|(i, j)| format!("B^({},{})_{}{}", u + 1, v + 1, i + 1, j + 1)),
            );
        }
        names.push("lambda".into());
        names
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        let q = self.ball.q();
        let nb = self.block();
        let d = Family::<T>::dim(self);
        let (sa, sb) = self.norms(normalized);
        let root = T::ratio(1, 2).sqrt();
        for i in 0..q {
            out[i] = normalized[i].clone() / sa.clone();
        }
        let pattern = upper(q);
        for i in q..d {
            let (a, b) = pattern[(i - q) % nb];
            let v = normalized[i].clone() / sb.clone();
            out[i] = if a == b { v } else { v * root.clone() };
        }
        out[d] = sb.clone() / (sa + sb);
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        let q = self.ball.q();
        let nb = self.block();
        let d = Family::<T>::dim(self);
        let pattern = upper(q);
        let ea = l2(&(0..q)
            .map(|i| x[i].clone() - y[i].clone())
            .collect::<Vec<T>>());
        let mut eb = T::int(0);
        for p in 0..self.blocks() {
            let mut s = T::int(0);
            for (k, (i, j)) in pattern.iter().enumerate() {
                let idx = q + p * nb + k;
                let diff = x[idx].clone() - y[idx].clone();
                let sq = diff.clone() * diff;
                s += &(if i == j { sq } else { sq * T::int(2) });
            }
            eb += &s.sqrt();
        }
        ea.max(eb).max((x[d].clone() - y[d].clone()).abs())
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(GroupRates<T>, GroupRates<T>)> {
        self.ball.candidates(view, self, false, rng)
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(GroupRates<T>, GroupRates<T>)> {
        self.ball.random_pair(rng)
    }

    fn metric(&self, normalized: &[T]) -> Result<FairQuadraticMetric<T>> {
        let q = self.ball.q();
        let nb = self.block();
        let (sa, sb) = self.norms(normalized);
        let a = DVector::from_column_slice(&normalized[..q]) / sa.clone();
        let b = (0..self.blocks())
            .map(|p| self.matrix(&normalized[q + p * nb..q + (p + 1) * nb]) / sb.clone())
            .collect();
        let lambda = sb.clone() / (sa + sb);
        FairQuadraticMetric::normalized(a, b, lambda, self.ball.groups.rates())
    }

    fn parameters(&self, metric: &FairQuadraticMetric<T>) -> Result<DVector<T>> {
        let q = self.ball.q();
        if metric.dim() != q || metric.groups() != self.ball.m() {
            return Err(Error::invalid(
                "metric",
                "the metric's groups or rates differ from the family's",
            ));
        }
        let keep = T::int(1) - metric.lambda().clone();
        let root = T::int(2).sqrt();
        let mut theta: Vec<T> = metric
            .a()
            .iter()
            .map(|x| x.clone() * keep.clone())
            .collect();
        for b in metric.b() {
            for (i, j) in upper(q) {
                let v = b[(i, j)].clone() * metric.lambda().clone();
                theta.push(if i == j { v } else { v * root.clone() });
            }
        }
        let s = self.scale(&theta);
        Ok(DVector::from_vec(theta) / s)
    }
}
