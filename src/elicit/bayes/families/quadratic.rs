//! Quadratic (000 Def. 3) and cubic (000 §8) metrics of rates, asked
//! about pairs of points of a ball inside the query space.
//!
//! On one sphere about o, ‖r − o‖² is constant, so the part of B along the
//! identity is not identifiable from the sphere's points alone
//! (`notes/people.md`); the papers' QPME uses small spheres about several
//! centres for that reason. Here every question is a pair c ± s·u
//! symmetric about a centre c of the ball B(o, ρ): for a quadratic metric
//! φ(c + su) − φ(c − su) = 2s⟨∇φ(c), u⟩ exactly, so a question at c asks
//! about the gradient at c, and centres off o reach B. The centres are o,
//! o ± (3/5)ρ·eⱼ and four random points at (3/5)ρ from o; at each, the
//! directions u come from [`View::pencil`] with J the exact difference map
//! u ↦ f(c + u) − f(c − u).

use crate::elicit::bayes::family::positive;
use crate::elicit::bayes::family::View;
use crate::elicit::bayes::family::{Cone, Family, Prior};
use crate::elicit::bayes::posterior::Normals;
use crate::error::{Error, Result};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{CubicMetric, QuadraticMetric};
use crate::oracle::people::uniform;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;

/// The ball B(o, ρ) of a sphere, and the pairs c ± s·u inside it.
#[derive(Debug, Clone)]
struct Ball<T: Scalar> {
    sphere: Sphere<T>,
}

impl<T: Scalar> Ball<T> {
    fn q(&self) -> usize {
        self.sphere.dim()
    }

    /// The largest s with c ± s·w inside the ball (0 when c is outside).
    fn reach(&self, c: &DVector<T>, w: &DVector<T>) -> T {
        let x = c - self.sphere.center();
        let rho = self.sphere.radius().clone();
        let ww = w.norm_squared();
        if !positive(&ww) {
            return T::int(0);
        }
        let xw = x.dot(w).abs();
        let slack = rho.clone() * rho - x.norm_squared();
        if slack < T::int(0) {
            return T::int(0);
        }
        ((xw.clone() * xw.clone() + ww.clone() * slack).sqrt() - xw) / ww
    }

    fn centres(&self, rng: &mut ChaCha8Rng) -> Vec<DVector<T>> {
        let q = self.q();
        let o = self.sphere.center().clone();
        let step = self.sphere.radius().clone() * T::ratio(3, 5);
        let mut out = vec![o.clone()];
        for j in 0..q {
            for sign in [1, -1] {
                let mut c = o.clone();
                c[j] += &(step.clone() * T::int(sign));
                out.push(c);
            }
        }
        let mut normals = Normals::<T>::new();
        for _ in 0..4 {
            let v = DVector::from_fn(q, |_, _| normals.draw(rng));
            let n = v.norm();
            if n > T::int(0) {
                out.push(&o + v * (step.clone() / n));
            }
        }
        out
    }

    fn uniform_point(&self, rng: &mut ChaCha8Rng, normals: &mut Normals<T>) -> Option<DVector<T>> {
        let q = self.q();
        let v = DVector::from_fn(q, |_, _| normals.draw(rng));
        let n = v.norm();
        if !positive(&n) {
            return None;
        }
        // Radius ρ·U^{1/q}: uniform in the ball.
        let u: T = uniform(rng);
        let r = self.sphere.radius().clone() * u.powf(T::int(1) / T::int(q as i64));
        Some(self.sphere.center() + v * (r / n))
    }

    /// Candidate pairs c ± s·u at every centre for a feature map `f`.
    fn candidates<F: Family<T, Point = DVector<T>>>(
        &self,
        view: &View<'_, T, F>,
        f: &F,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(DVector<T>, DVector<T>)> {
        let q = self.q();
        let d = f.dim();
        let mut out = Vec::new();
        let (mut plus, mut minus) = (vec![T::int(0); d], vec![T::int(0); d]);
        for c in self.centres(rng) {
            // J e_k = f(c + h e_k) − f(c − h e_k), h = ρ/8 (exact up to
            // scale for a quadratic f; the linearization for a cubic).
            let h = self.sphere.radius().clone() / T::int(8);
            let mut jac = DMatrix::from_element(d, q, T::int(0));
            for k in 0..q {
                let mut a = c.clone();
                a[k] += &h;
                let mut b = c.clone();
                b[k] -= &h;
                f.features(&a, &mut plus);
                f.features(&b, &mut minus);
                for r in 0..d {
                    jac[(r, k)] = plus[r].clone() - minus[r].clone();
                }
            }
            for u in view.pencil(&jac, 2) {
                let s = self.reach(&c, &u) * T::ratio(999, 1000);
                if s > T::int(0) {
                    out.push((&c + &u * s.clone(), &c - &u * s));
                }
            }
        }
        out
    }
}

fn pairs_of(q: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..q {
        for j in i..q {
            out.push((i, j));
        }
    }
    out
}

/// Writes (r, r_i r_j ·(½ on the diagonal, 1/√2 off it)) into `out`.
fn quadratic_features<T: Scalar>(r: &[T], out: &mut [T]) {
    let q = r.len();
    let half = T::ratio(1, 2);
    let root = half.clone().sqrt();
    out[..q].clone_from_slice(r);
    let mut k = q;
    for i in 0..q {
        for j in i..q {
            let w = if i == j { half.clone() } else { root.clone() };
            out[k] = r[i].clone() * r[j].clone() * w;
            k += 1;
        }
    }
}

fn l2<T: Scalar>(x: &[T]) -> T {
    x.iter()
        .fold(T::int(0), |s, v| s + v.clone() * v.clone())
        .sqrt()
}

/// B from its scaled upper triangle (B_ii, √2·B_ij).
fn unpack_b<T: Scalar>(q: usize, packed: &[T]) -> DMatrix<T> {
    let root = T::ratio(1, 2).sqrt();
    let mut b = DMatrix::from_element(q, q, T::int(0));
    for (k, (i, j)) in pairs_of(q).into_iter().enumerate() {
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

fn pack_b<T: Scalar>(b: &DMatrix<T>) -> Vec<T> {
    let root = T::int(2).sqrt();
    pairs_of(b.nrows())
        .into_iter()
        .map(|(i, j)| {
            if i == j {
                b[(i, i)].clone()
            } else {
                b[(i, j)].clone() * root.clone()
            }
        })
        .collect()
}

/// A quadratic metric φ(r) = ⟨a, r⟩ + ½rᵀBr with ‖a‖₂² + ‖B‖²_F = 1 (000
/// Def. 3; any symmetric B), asked about pairs of points of the ball
/// inside the query sphere S(o, ρ): θ = (a, B_ii, √2·B_ij), f(r) =
/// (r, r_i²/2, r_i r_j/√2), so ‖θ‖₂² = ‖a‖² + ‖B‖²_F; D = q + q(q+1)/2,
/// d = D − 1, error max(‖a − â‖₂, ‖B − B̂‖_F) (the two errors 000's
/// procedures report).
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::bayes::{elicit, BayesSettings, AnswerModel, families::Qpme};
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::metric::quadratic::{GradientField, QuadraticMetric};
/// use metric_elicitation::oracle::Simulated;
/// use nalgebra::{dmatrix, dvector, DVector};
/// let family = Qpme::new(Sphere::new(DVector::from_element(2, 0.5), 0.2).unwrap());
/// let truth = QuadraticMetric::new(dvector![0.7, 0.5], dmatrix![-0.4, 0.1; 0.1, -0.3]).unwrap();
/// let t = truth.clone();
/// let mut person = Simulated::new(move |r: &DVector<f64>| t.value(r));
/// let settings = BayesSettings::builder(Tolerance::new(0.1).unwrap()).answers(AnswerModel::Mistakes { p: 0.0 }).build().unwrap();
/// let est = elicit(&family, &mut person, &settings).unwrap();
/// let m = est.metric.unwrap();
/// let (ea, eb) = truth.errors(m.a(), m.b());
/// assert!(ea <= 0.1 && eb <= 0.1, "{ea} {eb}");
/// ```
#[derive(Debug, Clone)]
pub struct Qpme<T: Scalar> {
    ball: Ball<T>,
}

impl<T: Scalar> Qpme<T> {
    /// The ball inside `sphere`.
    pub fn new(sphere: Sphere<T>) -> Self {
        Qpme {
            ball: Ball { sphere },
        }
    }

    /// The query sphere whose ball the questions are drawn from.
    pub fn sphere(&self) -> &Sphere<T> {
        &self.ball.sphere
    }
}

impl<T: Scalar> Family<T> for Qpme<T> {
    type Point = DVector<T>;
    type Metric = QuadraticMetric<T>;

    fn name(&self) -> String {
        format!("QPME q = {}", self.ball.q())
    }

    fn dim(&self) -> usize {
        let q = self.ball.q();
        q + q * (q + 1) / 2
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        Cone::free(Family::<T>::dim(self))
    }

    fn scale(&self, theta: &[T]) -> T {
        l2(theta)
    }

    fn features(&self, x: &DVector<T>, out: &mut [T]) {
        quadratic_features(x.as_slice(), out);
    }

    fn shown(&self, x: &DVector<T>) -> Vec<T> {
        x.as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        let q = self.ball.q();
        (1..=q)
            .map(|i| format!("a_{i}"))
            .chain(
                pairs_of(q)
                    .into_iter()
                    .map(|(i, j)| format!("B_{}{}", i + 1, j + 1)),
            )
            .collect()
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        let q = self.ball.q();
        let root = T::ratio(1, 2).sqrt();
        out[..q].clone_from_slice(&normalized[..q]);
        for (k, (i, j)) in pairs_of(q).into_iter().enumerate() {
            out[q + k] = if i == j {
                normalized[q + k].clone()
            } else {
                normalized[q + k].clone() * root.clone()
            };
        }
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        let q = self.ball.q();
        let ea = l2(&x[..q]
            .iter()
            .zip(&y[..q])
            .map(|(a, b)| a.clone() - b.clone())
            .collect::<Vec<T>>());
        let mut eb = T::int(0);
        for (k, (i, j)) in pairs_of(q).into_iter().enumerate() {
            let d = x[q + k].clone() - y[q + k].clone();
            let sq = d.clone() * d;
            eb += &(if i == j { sq } else { sq * T::int(2) });
        }
        ea.max(eb.sqrt())
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(DVector<T>, DVector<T>)> {
        self.ball.candidates(view, self, rng)
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(DVector<T>, DVector<T>)> {
        let mut normals = Normals::<T>::new();
        Some((
            self.ball.uniform_point(rng, &mut normals)?,
            self.ball.uniform_point(rng, &mut normals)?,
        ))
    }

    fn metric(&self, normalized: &[T]) -> Result<QuadraticMetric<T>> {
        let q = self.ball.q();
        QuadraticMetric::new(
            DVector::from_column_slice(&normalized[..q]),
            unpack_b(q, &normalized[q..]),
        )
    }

    fn parameters(&self, metric: &QuadraticMetric<T>) -> Result<DVector<T>> {
        let q = self.ball.q();
        if metric.dim() != q {
            return Err(Error::invalid(
                "metric",
                format!("q = {} for a family of q = {q}", metric.dim()),
            ));
        }
        let mut theta: Vec<T> = metric.a().iter().cloned().collect();
        theta.extend(pack_b(metric.b()));
        let n = l2(&theta);
        Ok(DVector::from_vec(theta) / n)
    }
}

/// Unique index triples i ≤ j ≤ l and their multiplicities (the number of
/// distinct permutations: 1, 3 or 6).
fn triples(q: usize) -> Vec<(usize, usize, usize, i64)> {
    let mut out = Vec::new();
    for i in 0..q {
        for j in i..q {
            for l in j..q {
                let m = if i == j && j == l {
                    1
                } else if i == j || j == l {
                    3
                } else {
                    6
                };
                out.push((i, j, l, m));
            }
        }
    }
    out
}

/// A cubic metric φ(r) = ⟨a, r⟩ + ½rᵀBr + ⅙C(r, r, r) with
/// ‖a‖² + ‖B‖²_F + ‖C‖²_F = 1 over all q³ entries (000 §8 as
/// [`CubicMetric`] normalizes it), asked about pairs of points of the ball
/// inside S(o, ρ) as [`Qpme`] (the question's difference is no longer
/// exactly linear in the offset; its exact value is used): θ = (a, B_ii,
/// √2·B_ij, √μ·C_ijl) over unique triples with μ their permutations,
/// f(r) = (r, r_i²/2, r_i r_j/√2, √μ·r_i r_j r_l/6); error the largest of
/// ‖a − â‖₂, ‖B − B̂‖_F, ‖C − Ĉ‖_F.
#[derive(Debug, Clone)]
pub struct Cubic<T: Scalar> {
    ball: Ball<T>,
}

impl<T: Scalar> Cubic<T> {
    /// The ball inside `sphere`.
    pub fn new(sphere: Sphere<T>) -> Self {
        Cubic {
            ball: Ball { sphere },
        }
    }

    /// The query sphere.
    pub fn sphere(&self) -> &Sphere<T> {
        &self.ball.sphere
    }

    fn quad(&self) -> usize {
        let q = self.ball.q();
        q + q * (q + 1) / 2
    }
}

impl<T: Scalar> Family<T> for Cubic<T> {
    type Point = DVector<T>;
    type Metric = CubicMetric<T>;

    fn name(&self) -> String {
        format!("cubic q = {}", self.ball.q())
    }

    fn dim(&self) -> usize {
        let q = self.ball.q();
        self.quad() + q * (q + 1) * (q + 2) / 6
    }

    fn prior(&self) -> Prior {
        Prior::Gaussian
    }

    fn cone(&self) -> Cone {
        Cone::free(Family::<T>::dim(self))
    }

    fn scale(&self, theta: &[T]) -> T {
        l2(theta)
    }

    fn features(&self, x: &DVector<T>, out: &mut [T]) {
        let r = x.as_slice();
        let nq = self.quad();
        quadratic_features(r, &mut out[..nq]);
        let sixth = T::ratio(1, 6);
        for (k, (i, j, l, m)) in triples(self.ball.q()).into_iter().enumerate() {
            out[nq + k] =
                r[i].clone() * r[j].clone() * r[l].clone() * T::int(m).sqrt() * sixth.clone();
        }
    }

    fn shown(&self, x: &DVector<T>) -> Vec<T> {
        x.as_slice().to_vec()
    }

    fn report_names(&self) -> Vec<String> {
        let q = self.ball.q();
        (1..=q)
            .map(|i| format!("a_{i}"))
            .chain(
                pairs_of(q)
                    .into_iter()
                    .map(|(i, j)| format!("B_{}{}", i + 1, j + 1)),
            )
            .chain(
                triples(q)
                    .into_iter()
                    .map(|(i, j, l, _)| format!("C_{}{}{}", i + 1, j + 1, l + 1)),
            )
            .collect()
    }

    fn report(&self, normalized: &[T], out: &mut [T]) {
        let q = self.ball.q();
        let nq = self.quad();
        let root = T::ratio(1, 2).sqrt();
        out[..q].clone_from_slice(&normalized[..q]);
        for (k, (i, j)) in pairs_of(q).into_iter().enumerate() {
            out[q + k] = if i == j {
                normalized[q + k].clone()
            } else {
                normalized[q + k].clone() * root.clone()
            };
        }
        for (k, (_, _, _, m)) in triples(q).into_iter().enumerate() {
            out[nq + k] = normalized[nq + k].clone() / T::int(m).sqrt();
        }
    }

    fn error(&self, x: &[T], y: &[T]) -> T {
        let q = self.ball.q();
        let nq = self.quad();
        let sq = |i: usize| {
            let d = x[i].clone() - y[i].clone();
            d.clone() * d
        };
        let ea = (0..q).fold(T::int(0), |s, i| s + sq(i)).sqrt();
        let eb = pairs_of(q)
            .into_iter()
            .enumerate()
            .fold(T::int(0), |s, (k, (i, j))| {
                s + if i == j {
                    sq(q + k)
                } else {
                    sq(q + k) * T::int(2)
                }
            })
            .sqrt();
        let ec = triples(q)
            .into_iter()
            .enumerate()
            .fold(T::int(0), |s, (k, (_, _, _, m))| s + sq(nq + k) * T::int(m))
            .sqrt();
        ea.max(eb).max(ec)
    }

    fn candidates(
        &self,
        view: &View<'_, T, Self>,
        rng: &mut ChaCha8Rng,
    ) -> Vec<(DVector<T>, DVector<T>)> {
        self.ball.candidates(view, self, rng)
    }

    fn random_pair(&self, rng: &mut ChaCha8Rng) -> Option<(DVector<T>, DVector<T>)> {
        let mut normals = Normals::<T>::new();
        Some((
            self.ball.uniform_point(rng, &mut normals)?,
            self.ball.uniform_point(rng, &mut normals)?,
        ))
    }

    fn metric(&self, normalized: &[T]) -> Result<CubicMetric<T>> {
        let q = self.ball.q();
        let nq = self.quad();
        let mut rep = vec![T::int(0); Family::<T>::dim(self)];
        self.report(normalized, &mut rep);
        let b = unpack_b(q, &normalized[q..nq]);
        let mut c = vec![T::int(0); q * q * q];
        for (k, (i, j, l, _)) in triples(q).into_iter().enumerate() {
            for (x, y, z) in [
                (i, j, l),
                (i, l, j),
                (j, i, l),
                (j, l, i),
                (l, i, j),
                (l, j, i),
            ] {
                c[(x * q + y) * q + z] = rep[nq + k].clone();
            }
        }
        CubicMetric::new(DVector::from_column_slice(&normalized[..q]), b, c)
    }

    fn parameters(&self, metric: &CubicMetric<T>) -> Result<DVector<T>> {
        let q = self.ball.q();
        if metric.a().len() != q {
            return Err(Error::invalid(
                "metric",
                format!("q = {} for a family of q = {q}", metric.a().len()),
            ));
        }
        let mut theta: Vec<T> = metric.a().iter().cloned().collect();
        theta.extend(pack_b(metric.b()));
        for (i, j, l, m) in triples(q) {
            theta.push(metric.c_at(i, j, l).clone() * T::int(m).sqrt());
        }
        let n = l2(&theta);
        Ok(DVector::from_vec(theta) / n)
    }
}
