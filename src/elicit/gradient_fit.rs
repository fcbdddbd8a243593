//! Fitting a gradient field to measured gradient directions: the joint
//! homogeneous least-squares estimator of `notes/000-quadratic.md` R1–R4,
//! shared by QPME (000 Alg. 1), fair QPME (Alg. 4) and the cubic metrics
//! (§8).
//!
//! Each observation is a point pⱼ and a unit vector uⱼ, the direction of
//! the metric's gradient there (an LPME on a small sphere returns the unit
//! gradient at its touching point, 000 Lemma 1). A model gradient field
//! g(θ; x) = Aⱼθ, linear in the unknowns θ, is fitted by minimizing
//! Σⱼ wⱼ‖(I − uⱼuⱼᵀ)Aⱼθ‖² (the part of the modelled gradient orthogonal to
//! the measurement) over directions θ: a homogeneous least-squares problem
//! solved by an SVD at the working precision (no normal equations).
//!
//! Two solvers:
//! * [`fit_direct`] — R2 as written: the SVD of the stacked
//!   [√wⱼ(I − uⱼuⱼᵀ)Aⱼ]ⱼ, columns equilibrated, for any [`GradientModel`]
//!   (quadratic or cubic). Its size is (q·N) × (unknowns): 440 × 230 for a
//!   QPME at q = 20.
//! * [`fit_quadratic`] — the same objective for the quadratic field
//!   d + Bx, solved through the gradient magnitudes: since
//!   ‖(I − uuᵀ)g‖ = min_μ ‖g − μu‖, the objective is
//!   Σⱼ wⱼ‖d + Bxⱼ − μⱼuⱼ‖² jointly in (d, B, μ). For fixed μ the best
//!   (d, B) is a weighted affine regression with symmetric B, solved in
//!   closed form (a Lyapunov equation diagonalized by the design's scatter
//!   matrix S = X̃ᵀX̃, whose eigenvectors and eigenvalues come from an SVD of
//!   the N × q weighted design X̃, so that S is never formed), so the
//!   residual is R·μ for a (q·N) × N matrix R, and μ is its smallest right
//!   singular vector: a 440 × 22 SVD at q = 20 instead of 440 × 230. The normalization is on the magnitudes (‖D_μ μ‖ = 1 instead
//!   of ‖Dθ‖ = 1); with exact directions both solvers are exact, with noisy
//!   ones they differ by the choice of normalization (compared in the
//!   tests and the 000 reproduction).
//!
//! Both run up to three passes (R3): unit weights, then twice wⱼ = 1/‖Aⱼθ‖², so
//! the objective becomes Σ sin²(angle error); a pass whose gap says the
//! direction is unidentified is the last. Both report the gap σ_{n−1}/σ_n
//! of the two smallest singular values (R4): a gap near 1 means a second
//! direction of θ fits the answers as well (B along d·dᵀ, 000 Q13, or a
//! degenerate design).

use crate::error::{Error, Result};
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};

/// One measured gradient direction: the point x (relative to the model's
/// origin o) and the unit vector u.
#[derive(Debug, Clone, PartialEq)]
pub struct Direction<T: Scalar> {
    /// x = p − o.
    pub x: DVector<T>,
    /// The measured unit gradient direction at p.
    pub u: DVector<T>,
}

/// The result of a fit: the unknowns θ (the sign fixed so that the model
/// gradients agree with the observations overall, Σⱼ⟨gⱼ, uⱼ⟩ > 0), and
/// the diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct FitResult<T: Scalar> {
    /// The fitted unknowns, scaled to ‖θ‖₂ = 1 (the caller normalizes as its
    /// family requires).
    pub theta: DVector<T>,
    /// The smallest singular value σ_n of the (equilibrated, weighted)
    /// system: the residual of the fit.
    pub sigma_min: T,
    /// The second smallest, σ_{n−1}.
    pub sigma_next: T,
    /// σ_{n−1}/σ_n (∞ when σ_n = 0).
    pub gap: T,
    /// σ₁/σ_{n−1}: the condition of the solution direction (how much
    /// rounding or measurement error it amplifies).
    pub condition: T,
    /// The angle (radians) between each observation and the fitted
    /// gradient direction at its point.
    pub angles: Vec<T>,
    /// Observations whose fitted gradient points against the measured
    /// direction (⟨g, u⟩ ≤ 0): a fit no gradient field of the model
    /// supports.
    pub reversed: Vec<usize>,
}

/// A gradient field g(θ; x) linear in its unknowns θ.
pub trait GradientModel<T: Scalar> {
    /// The number of unknowns.
    fn unknowns(&self) -> usize;
    /// The dimension q.
    fn dim(&self) -> usize;
    /// ∂g/∂θ at x (q × unknowns).
    fn jacobian(&self, x: &DVector<T>) -> DMatrix<T>;
}

/// The quadratic model g = d + Bx, θ = (d, vech B) with vech listing the
/// upper triangle row by row (B_11, B_12, …, B_1q, B_22, …) (R1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuadraticModel {
    /// The dimension q.
    pub q: usize,
}

impl<T: Scalar> GradientModel<T> for QuadraticModel {
    fn unknowns(&self) -> usize {
        self.q + self.q * (self.q + 1) / 2
    }
    fn dim(&self) -> usize {
        self.q
    }
    fn jacobian(&self, x: &DVector<T>) -> DMatrix<T> {
        let q = self.q;
        let mut j = DMatrix::from_element(q, GradientModel::<T>::unknowns(self), T::int(0));
        for i in 0..q {
            j[(i, i)] = T::int(1);
        }
        let mut col = q;
        for i in 0..q {
            for l in i..q {
                // B_il (= B_li) adds x_l to row i and x_i to row l.
                j[(i, col)] += &x[l];
                if l != i {
                    j[(l, col)] += &x[i];
                }
                col += 1;
            }
        }
        j
    }
}

impl QuadraticModel {
    /// (d, B) from θ.
    pub fn split<T: Scalar>(&self, theta: &DVector<T>) -> (DVector<T>, DMatrix<T>) {
        let q = self.q;
        let d = theta.rows(0, q).into_owned();
        let mut b = DMatrix::from_element(q, q, T::int(0));
        let mut col = q;
        for i in 0..q {
            for l in i..q {
                b[(i, l)] = theta[col].clone();
                b[(l, i)] = theta[col].clone();
                col += 1;
            }
        }
        (d, b)
    }

    /// θ from (d, B) (upper triangle of B).
    pub fn join<T: Scalar>(&self, d: &DVector<T>, b: &DMatrix<T>) -> DVector<T> {
        let q = self.q;
        let mut theta = Vec::with_capacity(GradientModel::<T>::unknowns(self));
        theta.extend(d.iter().cloned());
        for i in 0..q {
            for l in i..q {
                theta.push(b[(i, l)].clone());
            }
        }
        DVector::from_vec(theta)
    }
}

/// What [`smallest_singular`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Smallest<T: Scalar> {
    /// The right singular vector of σ_n.
    pub vector: DVector<T>,
    /// σ_n.
    pub min: T,
    /// σ_{n−1}.
    pub next: T,
    /// σ₁.
    pub max: T,
}

/// Singular values (descending) and right singular vectors (the rows of
/// Vᵀ) of `m`: the thin SVD's min(rows, columns) leading pairs, by
/// one-sided Jacobi rotations (Hestenes) at the working precision, so
/// that a non-converging iteration is a typed error naming `what`. A tall
/// matrix is rotated through the triangular factor of its QR
/// decomposition (as LAPACK's `dgejsv`, without its pivoting); a pair of
/// columns counts as orthogonal to √n·ε_mach relative to their norms, n
/// the rows rotated (LAPACK's `dgesvj` tolerance), and a column at the
/// rounding level of the whole matrix (norm ≤ ε_mach·‖A‖_F, this
/// function's own rule) as a zero singular value that is not rotated.
///
/// Not nalgebra's SVD: its implicit-shift iteration stops on an absolute
/// tolerance (nalgebra issue #1172, fix pending in pull request #1590),
/// and on these fits it lost up to 2.5·10⁷ ulps on the 6 × 4 designs of
/// q = 4 (‖UΣVᵀ − A‖ against ‖A‖, entrywise, over 5 400 random QPME
/// metrics' designs) and gave
/// QPME fits with exact maximisers 1 000–50 000·ε_mach·condition away from
/// the truth (16 of 45 000 random metrics). Rotating column pairs until
/// every pair is orthogonal to √rows·ε_mach (relative to their norms)
/// gives each singular value to a few ulps of ‖A‖ (of itself where the
/// columns' scales are the only ill-conditioning, as in these
/// equilibrated fits) and each vector to that over its gap. Measured on
/// 300 000 random QPME metrics (q = 2..6, every shape): none outside the
/// exactness property's bound, the worst 25·ε_mach·condition; the q = 20
/// fit 1.24× nalgebra's time, the whole q = 20 QPME 1.01–1.04× and fair
/// QPME (3, 3) 0.99–1.01× (`benches/quadratic.rs`, the two binaries run
/// alternately, twice).
fn right_svd<T: Scalar>(m: DMatrix<T>, what: &str) -> Result<(DVector<T>, DMatrix<T>)> {
    let (rows, n) = m.shape();
    // Scaled to a largest entry of 1 (as nalgebra's SVD does), so that
    // no sum of squares below overflows or underflows.
    let mut m = m;
    let scale = m.amax();
    let scale = if scale > T::int(0) && scale.finite() {
        m /= scale.clone();
        scale
    } else {
        T::int(1)
    };
    // A tall matrix is first reduced to its n × n triangular factor
    // (Householder QR, backward stable): the same singular values and
    // right vectors, with rows·n² work once instead of in every sweep.
    let mut a = if rows > n { m.qr().r() } else { m };
    let rows = a.nrows();
    let mut v = DMatrix::<T>::identity(n, n);
    let eps = T::epsilon();
    // Orthogonal to √rows·ε_mach (LAPACK's dgesvj): the rounding of a dot
    // product of `rows` terms, below which a rotation only cycles.
    let tol = T::from_usize(rows).map_or(eps.clone(), |r| r.sqrt() * eps.clone());
    let zero = T::int(0);
    // A column whose norm is at the rounding level of the whole matrix is
    // a zero singular value: rotating it against a large column moves the
    // large one by at most ε_mach, while the rounding of that rotation
    // leaves the pair non-orthogonal again (the iteration would cycle).
    let noise = {
        let f = a.norm() * eps.clone();
        f.clone() * f
    };
    let mut converged = false;
    // Quadratic convergence: a handful of sweeps at f64, a few more at
    // higher precision; the bound is only a guard.
    for _sweep in 0..(T::precision_bits() as usize).max(64) {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let alpha = a.column(p).norm_squared();
                let beta = a.column(q).norm_squared();
                let gamma = a.column(p).dot(&a.column(q));
                if gamma == zero
                    || alpha.clone().min(beta.clone()) <= noise
                    || gamma.clone().abs() <= tol.clone() * (alpha.clone() * beta.clone()).sqrt()
                {
                    continue;
                }
                rotated = true;
                let (c, s) = jacobi_rotation(&alpha, &beta, &gamma);
                rotate_columns(&mut a, p, q, &c, &s);
                rotate_columns(&mut v, p, q, &c, &s);
            }
        }
        if !rotated {
            converged = true;
            break;
        }
    }
    if !converged || a.iter().any(|x| !x.finite()) {
        return Err(Error::IllConditioned {
            what: what.into(),
            detail: "the Jacobi rotations did not converge".into(),
        });
    }
    let norms: Vec<T> = (0..n).map(|j| a.column(j).norm() * scale.clone()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| {
        norms[j]
            .partial_cmp(&norms[i])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    order.truncate(rows.min(n));
    let values = DVector::from_iterator(order.len(), order.iter().map(|&j| norms[j].clone()));
    let v_t = DMatrix::from_fn(order.len(), n, |i, k| v[(k, order[i])].clone());
    Ok((values, v_t))
}

/// The rotation (c, s) that makes columns p and q orthogonal, given
/// α = ‖a_p‖², β = ‖a_q‖², γ = a_p·a_q ≠ 0: ζ = (β − α)/(2γ),
/// t = sign(ζ)/(|ζ| + √(1 + ζ²)) (the smaller angle), c = 1/√(1 + t²),
/// s = c·t.
fn jacobi_rotation<T: Scalar>(alpha: &T, beta: &T, gamma: &T) -> (T, T) {
    let one = T::int(1);
    let zeta = (beta.clone() - alpha.clone()) / (gamma.clone() * T::int(2));
    let size = zeta.clone().abs();
    // For |ζ| beyond 1/√ε, 1 + ζ² rounds to ζ² (and may overflow):
    // t = 1/(2ζ) to working precision.
    let t = if size > T::epsilon().sqrt().recip() {
        one.clone() / (zeta.clone() * T::int(2))
    } else {
        let t = one.clone() / (size.clone() + (one.clone() + zeta.clone() * zeta.clone()).sqrt());
        if zeta < T::int(0) {
            -t
        } else {
            t
        }
    };
    let c = one.clone() / (one + t.clone() * t.clone()).sqrt();
    let s = c.clone() * t;
    (c, s)
}

/// Columns (p, q) ← (c·a_p − s·a_q, s·a_p + c·a_q).
fn rotate_columns<T: Scalar>(a: &mut DMatrix<T>, p: usize, q: usize, c: &T, s: &T) {
    for i in 0..a.nrows() {
        let x = a[(i, p)].clone();
        let y = a[(i, q)].clone();
        a[(i, p)] = c.clone() * x.clone() - s.clone() * y.clone();
        a[(i, q)] = s.clone() * x + c.clone() * y;
    }
}

/// The two smallest singular values of `m` (tall or square), the largest,
/// and the right singular vector of the smallest, by one-sided Jacobi
/// rotations at the working precision (`T`'s arithmetic throughout).
///
/// # Errors
/// [`Error::IllConditioned`] when the SVD does not converge within its
/// iteration limit, or `m` has fewer rows than columns or fewer than two
/// columns.
pub fn smallest_singular<T: Scalar>(m: DMatrix<T>) -> Result<Smallest<T>> {
    let n = m.ncols();
    if n < 2 {
        return Err(Error::IllConditioned {
            what: "gradient fit".into(),
            detail: format!("{n} unknowns: no direction to fit"),
        });
    }
    let (values, v_t) = right_svd(m, "singular value decomposition")?;
    let s = &values;
    // A tall matrix has n singular values; a wide one has fewer, and its
    // null space is at least n − m dimensional: σ_n = σ_{n−1} = 0.
    if s.len() < n {
        return Err(Error::IllConditioned {
            what: "gradient fit".into(),
            detail: format!(
                "{} equations for {n} unknowns: the answers cannot determine the metric",
                s.len()
            ),
        });
    }
    let mut order: Vec<usize> = (0..s.len()).collect();
    order.sort_by(|&i, &j| s[i].partial_cmp(&s[j]).unwrap_or(std::cmp::Ordering::Equal));
    let smallest = order[0];
    Ok(Smallest {
        vector: v_t.row(smallest).transpose(),
        min: s[smallest].clone(),
        next: s[order[1]].clone(),
        max: s[order[order.len() - 1]].clone(),
    })
}

/// Whether fitted gradients (of either sign: the fits determine θ up to
/// sign) point against the observed directions overall: Σⱼ⟨gⱼ, uⱼ⟩ < 0.
/// Every term is positive for the truth with truthful answers, so the
/// rule keeps the orientation the answers give; summing lets the
/// observations where the fitted gradient is large decide. A rule on the
/// first observation alone was decided by rounding where the fitted
/// gradient there vanishes (000-thm1, k = 2, ε_Ω = 10⁻⁴, always-wrong:
/// ⟨g₀, u₀⟩ = 2·10⁻¹⁷ in f64 and 6·10⁻⁷⁸ at 256 bits, of opposite signs,
/// so the two precisions reported opposite metrics).
fn against<T: Scalar>(gradients: &[DVector<T>], obs: &[Direction<T>]) -> bool {
    gradients
        .iter()
        .zip(obs)
        .fold(T::int(0), |s, (g, o)| s + g.dot(&o.u))
        < T::int(0)
}

/// Angles between the fitted gradients and the observations, and the
/// observations the fit reverses.
fn diagnostics<T: Scalar>(gradients: &[DVector<T>], obs: &[Direction<T>]) -> (Vec<T>, Vec<usize>) {
    let mut angles = Vec::with_capacity(obs.len());
    let mut reversed = Vec::new();
    for (j, (g, o)) in gradients.iter().zip(obs).enumerate() {
        let n = g.norm();
        let cos = if n > T::int(0) {
            (g.dot(&o.u) / n).min(T::int(1)).max(T::int(-1))
        } else {
            T::int(0)
        };
        if cos <= T::int(0) {
            reversed.push(j);
        }
        angles.push(cos.acos());
    }
    (angles, reversed)
}

/// Below this singular-value gap σ_{n−1}/σ_n a second direction of the
/// unknowns fits the answers about as well as the first: reported as
/// unidentifiable (000 Q13: B ∝ d·dᵀ, linear metrics).
pub const UNIDENTIFIABLE_GAP: i64 = 2;

/// Whether a pass's gap says the answers leave a second direction: the
/// passes then stop, since the next pass's weights would come from one
/// arbitrary member of that family (a fitted gradient near zero at some
/// point gives that point a weight near 1/√ε_mach, and the reweighted
/// system's rounding, not the answers, would then set the gap).
fn unidentified<T: Scalar>(sv: &Smallest<T>) -> bool {
    gap(sv) < T::int(UNIDENTIFIABLE_GAP)
}

fn condition<T: Scalar>(sv: &Smallest<T>) -> T {
    if sv.next > T::int(0) {
        sv.max.clone() / sv.next.clone()
    } else {
        T::int(1) / T::epsilon()
    }
}

/// σ_{n−1}/σ_n with both floored at 1024 ulps of σ₁: singular values at
/// the rounding level count as equal, so an exact fit (σ_n ≈ 0) reports a
/// large gap and a two-dimensional null space (σ_n ≈ σ_{n−1} ≈ 0, e.g. a
/// linear metric with exact gradients) a gap of 1.
fn gap<T: Scalar>(sv: &Smallest<T>) -> T {
    let floor = prec::ulps::<T>(1024) * sv.max.clone();
    sv.next.clone().max(floor.clone()) / sv.min.clone().max(floor)
}

/// The reweighting passes' weights wⱼ = 1/max(‖gⱼ‖², 2⁻²⁶), normalized to
/// mean 1 (θ has ‖θ‖₂ = 1). The floor is the same at every precision (it
/// equals f64's √ε_mach): a floor of √ε_mach at the working precision
/// (10⁻³⁸ at 256 bits) weighted a nearly vanishing fitted gradient
/// (‖g₀‖² ≈ 10⁻¹⁰) differently in f64 and at 256 bits, and the next pass
/// solved a different problem (000-thm1, q = 12 and 20, ε_Ω = 10⁻⁴:
/// results 3·10⁻⁸ to 5·10⁻⁸ apart from identical answers).
fn reweight<T: Scalar>(gradients: &[DVector<T>]) -> Vec<T> {
    let floor = T::ratio(1, 1 << 26);
    let raw: Vec<T> = gradients
        .iter()
        .map(|g| T::int(1) / g.norm_squared().max(floor.clone()))
        .collect();
    let mean = raw.iter().fold(T::int(0), |s, w| s + w.clone()) / T::int(raw.len() as i64);
    raw.into_iter().map(|w| w / mean.clone()).collect()
}

fn check_obs<T: Scalar>(q: usize, obs: &[Direction<T>]) -> Result<()> {
    for (j, o) in obs.iter().enumerate() {
        if o.x.len() != q || o.u.len() != q {
            return Err(Error::invalid(
                "observations",
                format!(
                    "observation {j} has dimension {} / {} for q = {q}",
                    o.x.len(),
                    o.u.len()
                ),
            ));
        }
        if o.x.iter().chain(o.u.iter()).any(|v| !v.finite()) {
            return Err(Error::invalid(
                "observations",
                format!("observation {j} is not finite"),
            ));
        }
    }
    Ok(())
}

/// R1–R4 for any [`GradientModel`]: the SVD of the stacked projected
/// Jacobians, columns equilibrated, up to three passes (unit weights, then
/// wⱼ = 1/‖Aⱼθ‖² twice). The sign makes Σⱼ⟨g(θ; xⱼ), uⱼ⟩ > 0.
///
/// # Errors
/// [`Error::InvalidArgument`] for mismatched dimensions or non-finite
/// observations; [`Error::IllConditioned`] when there are fewer equations
/// than unknowns or the SVD fails.
pub fn fit_direct<T: Scalar, M: GradientModel<T> + ?Sized>(
    model: &M,
    obs: &[Direction<T>],
) -> Result<FitResult<T>> {
    let q = model.dim();
    check_obs(q, obs)?;
    let n = model.unknowns();
    let jacobians: Vec<DMatrix<T>> = obs.iter().map(|o| model.jacobian(&o.x)).collect();
    let projected: Vec<DMatrix<T>> = jacobians
        .iter()
        .zip(obs)
        .map(|(j, o)| {
            let ut_j = o.u.transpose() * j;
            j - &o.u * ut_j
        })
        .collect();
    let mut weights = vec![T::int(1); obs.len()];
    let mut last = None;
    for _pass in 0..3 {
        let mut m = DMatrix::from_element(q * obs.len(), n, T::int(0));
        for (k, (p, w)) in projected.iter().zip(&weights).enumerate() {
            let s = w.clone().sqrt();
            m.view_mut((k * q, 0), (q, n)).copy_from(&(p * s));
        }
        let scale: Vec<T> = (0..n)
            .map(|c| {
                let norm = m.column(c).norm();
                if norm > T::int(0) {
                    norm
                } else {
                    T::int(1)
                }
            })
            .collect();
        for (c, s) in scale.iter().enumerate() {
            let mut col = m.column_mut(c);
            col /= s.clone();
        }
        let sv = smallest_singular(m)?;
        let mut theta = DVector::from_iterator(
            n,
            sv.vector
                .iter()
                .zip(&scale)
                .map(|(x, s)| x.clone() / s.clone()),
        );
        let norm = theta.norm();
        theta /= norm;
        // The gradients once, turned with θ when they point against the
        // observations (a negation is exact, so both are as if computed
        // from the turned θ).
        let mut gradients: Vec<DVector<T>> = jacobians.iter().map(|j| j * &theta).collect();
        if against(&gradients, obs) {
            theta.neg_mut();
            for g in &mut gradients {
                g.neg_mut();
            }
        }
        weights = reweight(&gradients);
        let unidentified = unidentified(&sv);
        last = Some((theta, sv, gradients));
        if unidentified {
            break;
        }
    }
    let (theta, sv, gradients) = last.ok_or_else(|| Error::invalid("passes", "none run"))?;
    let (angles, reversed) = diagnostics(&gradients, obs);
    Ok(FitResult {
        gap: gap(&sv),
        condition: condition(&sv),
        theta,
        sigma_min: sv.min,
        sigma_next: sv.next,
        angles,
        reversed,
    })
}

/// The weighted affine regression of a quadratic gradient field with
/// symmetric Hessian, in closed form: the design's centred scatter matrix
/// S = Σ wⱼx̃ⱼx̃ⱼᵀ = VΛVᵀ turns the optimality condition BS + SB = C + Cᵀ
/// into B = V[(Vᵀ(C + Cᵀ)V) ⊘ (λᵢ + λ_k)]Vᵀ, d = ȳ − Bx̄, with V and
/// Λ = Σ² from the SVD X̃ = UΣVᵀ of the weighted centred design (S is not
/// formed).
struct Regression<T: Scalar> {
    weights: Vec<T>,
    total: T,
    xbar: DVector<T>,
    centred: Vec<DVector<T>>,
    vecs: DMatrix<T>,
    lambdas: DVector<T>,
}

impl<T: Scalar> Regression<T> {
    fn new(obs: &[Direction<T>], weights: Vec<T>) -> Result<Self> {
        let q = obs[0].x.len();
        let total = weights.iter().fold(T::int(0), |s, w| s + w.clone());
        let mut xbar = DVector::from_element(q, T::int(0));
        for (o, w) in obs.iter().zip(&weights) {
            xbar += &o.x * w.clone();
        }
        xbar /= total.clone();
        let centred: Vec<DVector<T>> = obs.iter().map(|o| &o.x - &xbar).collect();
        // S = X̃ᵀX̃ with X̃ the weighted centred design (rows √wⱼ x̃ⱼᵀ); its
        // eigenvectors and eigenvalues are X̃'s right singular vectors and
        // squared singular values, taken from an SVD of X̃ so that S itself
        // (the normal equations' matrix, whose small eigenvalues rounding
        // would blur by ε‖S‖) is never formed.
        let roots: Vec<T> = weights.iter().map(|w| w.clone().sqrt()).collect();
        let design = DMatrix::from_fn(centred.len(), q, |j, i| {
            roots[j].clone() * centred[j][i].clone()
        });
        let (singular, v_t) = right_svd(design, "QPME design")?;
        let vecs = v_t.transpose();
        let lambdas = singular.map(|s| s.clone() * s);
        let top = lambdas.amax();
        let low = lambdas.iter().cloned().fold(top.clone(), |m, l| m.min(l));
        // Fewer points than dimensions leave singular values out: zeros.
        let low = if lambdas.len() < q { T::int(0) } else { low };
        if low <= prec::ill_conditioned::<T>() * top.clone() || !low.finite() {
            return Err(Error::IllConditioned {
                what: "QPME design".into(),
                detail: format!(
                    "the observation points do not span the {q} rate dimensions (scatter eigenvalues {:.3e} .. {:.3e})",
                    low.to_f64_lossy(),
                    top.to_f64_lossy()
                ),
            });
        }
        Ok(Regression {
            weights,
            total,
            xbar,
            centred,
            vecs,
            lambdas,
        })
    }

    /// (d, B) of the regression of the targets yⱼ = μⱼuⱼ with μ = e_m: only
    /// observation m has a target, so C = w_m·u_m·x̃_mᵀ (Σⱼwⱼx̃ⱼ = 0).
    fn basis(&self, m: usize, u: &DVector<T>) -> (DVector<T>, DMatrix<T>) {
        let q = u.len();
        let w = &self.weights[m];
        let ur = self.vecs.tr_mul(u);
        let xr = self.vecs.tr_mul(&self.centred[m]);
        let inner = DMatrix::from_fn(q, q, |i, k| {
            w.clone() * (ur[i].clone() * xr[k].clone() + xr[i].clone() * ur[k].clone())
                / (self.lambdas[i].clone() + self.lambdas[k].clone())
        });
        let b = &self.vecs * inner * self.vecs.transpose();
        let d = u * (w.clone() / self.total.clone()) - &b * &self.xbar;
        (d, b)
    }
}

/// R1–R4 for the quadratic field d + Bx through the gradient magnitudes
/// (see the module docs): up to three passes, each an SVD of a (q·N) × N matrix
/// at the working precision. Returns θ = (d, vech B) as [`fit_direct`]
/// with [`QuadraticModel`] does.
///
/// # Errors
/// [`Error::InvalidArgument`] for mismatched dimensions or non-finite
/// observations; [`Error::IllConditioned`] when the points do not span
/// the q dimensions (fewer than q + 1 affinely independent points) or the
/// SVD fails.
pub fn fit_quadratic<T: Scalar>(obs: &[Direction<T>]) -> Result<FitResult<T>> {
    let Some(first) = obs.first() else {
        return Err(Error::invalid("observations", "none"));
    };
    let q = first.x.len();
    check_obs(q, obs)?;
    let n = obs.len();
    let model = QuadraticModel { q };
    let mut weights = vec![T::int(1); n];
    let mut last = None;
    // The observation points as the columns of one q × N matrix, so that
    // each basis field is evaluated at all of them by one matrix product.
    let points = DMatrix::from_fn(q, n, |i, j| obs[j].x[i].clone());
    for _pass in 0..3 {
        let reg = Regression::new(obs, weights.clone())?;
        let bases: Vec<(DVector<T>, DMatrix<T>)> = obs
            .iter()
            .enumerate()
            .map(|(m, o)| reg.basis(m, &o.u))
            .collect();
        let roots: Vec<T> = weights.iter().map(|w| w.clone().sqrt()).collect();
        // Column m of r stacks √wⱼ·(d_m + B_m xⱼ − [j = m]·u_m) over j: the
        // columns of the q × N matrix d_m1ᵀ + B_m X, which its column-major
        // storage already holds in that order.
        let mut r = DMatrix::from_element(q * n, n, T::int(0));
        for (m, (d, b)) in bases.iter().enumerate() {
            let mut fields = b * &points;
            for (j, (mut res, root)) in fields.column_iter_mut().zip(&roots).enumerate() {
                res += d;
                if j == m {
                    res -= &obs[m].u;
                }
                res *= root.clone();
            }
            r.column_mut(m).copy_from_slice(fields.as_slice());
        }
        let scale: Vec<T> = (0..n)
            .map(|c| {
                let norm = r.column(c).norm();
                if norm > T::int(0) {
                    norm
                } else {
                    T::int(1)
                }
            })
            .collect();
        for (c, s) in scale.iter().enumerate() {
            let mut col = r.column_mut(c);
            col /= s.clone();
        }
        let sv = smallest_singular(r)?;
        let mu: Vec<T> = sv
            .vector
            .iter()
            .zip(&scale)
            .map(|(x, s)| x.clone() / s.clone())
            .collect();
        let mut d = DVector::from_element(q, T::int(0));
        let mut b = DMatrix::from_element(q, q, T::int(0));
        for ((bd, bb), m) in bases.iter().zip(&mu) {
            d += bd * m.clone();
            b += bb * m.clone();
        }
        let mut theta = model.join(&d, &b);
        let fitted: Vec<DVector<T>> = obs.iter().map(|o| &d + &b * &o.x).collect();
        if against(&fitted, obs) {
            theta.neg_mut();
        }
        let norm = theta.norm();
        theta /= norm;
        let (d, b) = model.split(&theta);
        let gradients: Vec<DVector<T>> = obs.iter().map(|o| &d + &b * &o.x).collect();
        weights = reweight(&gradients);
        let unidentified = unidentified(&sv);
        last = Some((theta, sv, gradients));
        if unidentified {
            break;
        }
    }
    let (theta, sv, gradients) = last.ok_or_else(|| Error::invalid("passes", "none run"))?;
    let (angles, reversed) = diagnostics(&gradients, obs);
    Ok(FitResult {
        gap: gap(&sv),
        condition: condition(&sv),
        theta,
        sigma_min: sv.min,
        sigma_next: sv.next,
        angles,
        reversed,
    })
}
