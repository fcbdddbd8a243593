//! Quadratic metric families of 000 (Hiranandani et al., UAI 2022):
//! quadratic metrics (Def. 3, a utility), cubic metrics (§8, a utility),
//! and fair quadratic metrics (Def. 4, a cost).
//!
//! The quadratic and cubic metrics are scaled on construction to the
//! papers' normalization (Def. 3: ‖a‖₂² + ‖B‖²_F = 1; §8 by analogy, every
//! index tuple counted), which changes no preference. The fair metric's two
//! normalizations (‖a‖₂ = 1 and ½Σ_{u<v}‖B^{uv}‖_F = 1) are part of what λ
//! means, so they are checked, not imposed.
//!
//! The conditions a procedure needs of a metric on its query design (a
//! non-zero reference coordinate, small spheres small enough for their
//! gradient) are checked by [`QuadraticMetric::check_design`] and come back
//! as [`Error::Assumption`] naming the condition.

use crate::error::{Error, Result};
use crate::geometry::groups::{pairs, GroupRates, Groups, Rates};
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};

/// A smooth metric over ℝ^q given by its value and gradient: what the
/// exact-gradient probes and the gradient-field fits need of a metric.
pub trait GradientField<T: Scalar> {
    /// The dimension q.
    fn dim(&self) -> usize;
    /// φ(r) (a utility: larger is preferred).
    fn value(&self, r: &DVector<T>) -> T;
    /// ∇φ(r).
    fn gradient(&self, r: &DVector<T>) -> DVector<T>;
    /// An upper bound on the spectral norm of the Hessian on the ball of
    /// radius `reach` about `r` (used to check that a small sphere is small
    /// enough for its gradient).
    fn curvature_bound(&self, r: &DVector<T>, reach: &T) -> T;
}

fn check_finite<T: Scalar>(name: &str, values: impl IntoIterator<Item = T>) -> Result<()> {
    for (i, v) in values.into_iter().enumerate() {
        if !v.finite() {
            return Err(Error::invalid(
                name,
                format!("entry {i} is not finite ({v})"),
            ));
        }
    }
    Ok(())
}

/// Largest |B_ij − B_ji| relative to the largest |B_ij|, with the place.
fn asymmetry<T: Scalar>(b: &DMatrix<T>) -> (T, usize, usize) {
    let scale = b.amax();
    let mut worst = (T::int(0), 0, 0);
    for i in 0..b.nrows() {
        for j in i + 1..b.ncols() {
            let d = (b[(i, j)].clone() - b[(j, i)].clone()).abs();
            if d > worst.0 {
                worst = (d, i, j);
            }
        }
    }
    if scale > T::int(0) {
        worst.0 /= &scale;
    }
    worst
}

/// Refuses a matrix that is not symmetric to the working precision
/// (relative tolerance [`prec::symmetry`]).
fn check_symmetric<T: Scalar>(what: &str, assumption: &str, b: &DMatrix<T>) -> Result<()> {
    let (d, i, j) = asymmetry(b);
    if d > prec::symmetry::<T>() {
        return Err(Error::Assumption {
            assumption: assumption.into(),
            detail: format!(
                "{what} is not symmetric: entries ({}, {}) = {:.6e} and ({}, {}) = {:.6e}",
                i + 1,
                j + 1,
                b[(i, j)].to_f64_lossy(),
                j + 1,
                i + 1,
                b[(j, i)].to_f64_lossy()
            ),
        });
    }
    Ok(())
}

/// The spectral norm ‖B‖₂ of a symmetric matrix (largest |eigenvalue|).
pub fn spectral_norm<T: Scalar>(b: &DMatrix<T>) -> T {
    b.clone()
        .symmetric_eigenvalues()
        .iter()
        .fold(T::int(0), |m, l| m.max(l.clone().abs()))
}

/// A quadratic metric φ(r) = ⟨a, r⟩ + ½ rᵀBr with B = Bᵀ (000 Def. 3), a
/// utility: the oracle prefers the larger φ. Stored with
/// ‖a‖₂² + ‖B‖²_F = 1 (the Frobenius norm sums all q² entries).
///
/// Def. 3 asks for B negative semi-definite (a concave utility); the
/// elicitation needs only symmetry, so any symmetric B is accepted and
/// [`QuadraticMetric::eigenvalues`] reports its definiteness.
///
/// # Examples
/// ```
/// use metric_elicitation::metric::quadratic::{GradientField, QuadraticMetric};
/// use nalgebra::{dmatrix, dvector};
/// let m = QuadraticMetric::new(dvector![3.0, 0.0], dmatrix![0.0, 0.0; 0.0, -4.0]).unwrap();
/// assert!((m.a()[0] - 0.6).abs() < 1e-15); // scaled by 1/5
/// let r = dvector![1.0, 1.0];
/// assert!((m.value(&r) - (0.6 - 0.4)).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QuadraticMetric<T: Scalar> {
    a: DVector<T>,
    b: DMatrix<T>,
}

/// The largest magnitude of coefficients of extreme size (beyond 2^±500),
/// by which to divide them before normalizing, so that a sum of their
/// squares neither overflows (weights near 1e300: the metric became NaN)
/// nor underflows (near 1e-320: "a constant metric"); `None` for every
/// other size, which is normalized exactly as given, and for all zeros.
fn extreme_scale<'a, T: Scalar + 'a>(coefficients: impl Iterator<Item = &'a T>) -> Option<T> {
    let largest = coefficients.fold(T::int(0), |m, x| m.max(x.clone().abs()));
    let (mut high, mut low) = (T::int(1), T::int(1));
    high.mul_pow2_assign(500);
    low.mul_pow2_assign(-500);
    (largest > high || (largest > T::int(0) && largest < low)).then_some(largest)
}

impl<T: Scalar> QuadraticMetric<T> {
    /// The metric with linear part `a` and symmetric `b`, scaled to
    /// ‖a‖₂² + ‖B‖²_F = 1 (Def. 3's normalization, which changes no
    /// preference). B is symmetrized exactly once it passes the check, so
    /// that rounding in the input leaves no asymmetry.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for q < 2, mismatched sizes, non-finite
    /// entries or a zero metric; [`Error::Assumption`] ("000 Def. 3: B
    /// symmetric") for a non-symmetric B.
    pub fn new(a: DVector<T>, b: DMatrix<T>) -> Result<Self> {
        let QuadraticMetric { a, b } = Self::as_given(a, b)?;
        let (a, b) = match extreme_scale(a.iter().chain(b.iter())) {
            Some(s) => (a / s.clone(), b / s),
            None => (a, b),
        };
        let b = (&b + b.transpose()) * T::ratio(1, 2);
        let norm = (a.norm_squared() + b.norm_squared()).sqrt();
        if norm == T::int(0) {
            return Err(Error::invalid(
                "metric",
                "a = 0 and B = 0 is a constant metric",
            ));
        }
        Ok(QuadraticMetric {
            a: a / norm.clone(),
            b: b / norm,
        })
    }

    /// The quadratic metric with these coefficients exactly as given: q ≥ 2,
    /// sizes, finite entries and B's symmetry are checked (as
    /// [`QuadraticMetric::new`]), nothing is symmetrized or rescaled, and
    /// an all-zero metric is accepted. A metric to *rank* by
    /// ([`crate::driver::rank`]), whose values are those of the
    /// coefficients written.
    ///
    /// # Errors
    /// As [`QuadraticMetric::new`], except for the zero metric.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::quadratic::QuadraticMetric;
    /// use nalgebra::{dmatrix, dvector};
    /// let m = QuadraticMetric::as_given(dvector![3.0, 0.0], dmatrix![0.0, 0.0; 0.0, -4.0]).unwrap();
    /// assert_eq!(m.a()[0], 3.0); // not scaled
    /// assert_eq!(m.value_left_to_right(&dvector![1.0, 1.0]).unwrap(), 3.0 - 2.0);
    /// ```
    pub fn as_given(a: DVector<T>, b: DMatrix<T>) -> Result<Self> {
        let q = a.len();
        if q < 2 {
            return Err(Error::invalid("a", "a quadratic metric needs q >= 2 rates"));
        }
        if b.nrows() != q || b.ncols() != q {
            return Err(Error::invalid(
                "B",
                format!("B is {}x{} but a has {q} entries", b.nrows(), b.ncols()),
            ));
        }
        check_finite("a", a.iter().cloned())?;
        check_finite("B", b.iter().cloned())?;
        check_symmetric("B", "000 Def. 3: B symmetric", &b)?;
        Ok(QuadraticMetric { a, b })
    }

    /// φ(r) = ⟨a, r⟩ + ½·Σᵢ rᵢ(Σⱼ B_ij rⱼ) with every sum taken left to
    /// right from its first term (the order `rank` evaluates in,
    /// [`crate::driver::rank`]). [`GradientField::value`] (the oracles'
    /// evaluation) uses the backend's kernel or the upper triangle; the two
    /// can differ in the last bits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `r` does not have q entries.
    pub fn value_left_to_right(&self, r: &DVector<T>) -> Result<T> {
        let q = self.a.len();
        if r.len() != q {
            return Err(Error::invalid(
                "rates",
                format!(
                    "a quadratic metric of q = {q} rates evaluated on {} rates",
                    r.len()
                ),
            ));
        }
        Ok(crate::scalar::dot(&self.a, r)
            + T::ratio(1, 2) * quadratic_form_left_to_right(&self.b, r))
    }

    /// The linear coefficients a.
    pub fn a(&self) -> &DVector<T> {
        &self.a
    }

    /// The quadratic coefficients B.
    pub fn b(&self) -> &DMatrix<T> {
        &self.b
    }

    /// The dimension q.
    pub fn dim(&self) -> usize {
        self.a.len()
    }

    /// d = a + B·o: the gradient at o, the linear part of the shifted form
    /// φ(r) = ⟨d, r − o⟩ + ½(r − o)ᵀB(r − o) + const (eq. 4).
    pub fn shifted(&self, o: &DVector<T>) -> DVector<T> {
        &self.a + &self.b * o
    }

    /// The eigenvalues of B, ascending (all ≤ 0 for Def. 3's concave
    /// utilities).
    pub fn eigenvalues(&self) -> Vec<T> {
        let mut e: Vec<T> = self
            .b
            .clone()
            .symmetric_eigenvalues()
            .iter()
            .cloned()
            .collect();
        e.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
        e
    }

    /// ‖a − â‖₂ and ‖B − B̂‖_F against an estimate.
    pub fn errors(&self, a: &DVector<T>, b: &DMatrix<T>) -> (T, T) {
        ((&self.a - a).norm(), (&self.b - b).norm())
    }

    /// Checks the conditions QPME needs on its design (000 Assumptions 2
    /// and 4, and what Lemma 1 needs of a small sphere): at every centre c
    /// the gradient is non-zero and the small sphere's curvature cannot
    /// turn it, ϱ‖B‖₂ < ‖∇φ(c)‖; with `reference = Some(p)` (the closed
    /// form), d_p ≠ 0 as well.
    ///
    /// # Errors
    /// [`Error::Assumption`] naming the violated condition and the centre.
    pub fn check_design(
        &self,
        centres: &[(String, DVector<T>)],
        small_radius: &T,
        reference: Option<usize>,
    ) -> Result<()> {
        check_centres(self, centres, small_radius)?;
        if let (Some(p), Some((_, o))) = (reference, centres.first()) {
            let d = self.shifted(o);
            let tiny = prec::ill_conditioned::<T>() * d.amax();
            if d[p].clone().abs() <= tiny {
                return Err(Error::Assumption {
                    assumption: format!("000 App. C: d_{} != 0", p + 1),
                    detail: format!(
                        "the reference coordinate d_{} = {:.3e} of the gradient at o is zero; the closed form divides by it",
                        p + 1,
                        d[p].to_f64_lossy()
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The check shared by every gradient field: at each centre, ∇φ(c) ≠ 0 and
/// ϱ·(curvature bound) < ‖∇φ(c)‖.
///
/// # Errors
/// [`Error::Assumption`] naming the centre.
pub fn check_centres<T: Scalar, F: GradientField<T> + ?Sized>(
    metric: &F,
    centres: &[(String, DVector<T>)],
    small_radius: &T,
) -> Result<()> {
    for (name, c) in centres {
        let g = metric.gradient(c);
        let norm = g.norm();
        let curvature = metric.curvature_bound(c, small_radius);
        if norm == T::int(0) {
            return Err(Error::Assumption {
                assumption: "000 Assumption 4: non-zero gradients at the centres".into(),
                detail: format!("the gradient at {name} is zero"),
            });
        }
        if small_radius.clone() * curvature.clone() >= norm {
            return Err(Error::Assumption {
                assumption: "000 Lemma 1 on a small sphere: rho_small*||B||_2 < ||grad phi(c)||"
                    .into(),
                detail: format!(
                    "at {name}: rho_small*||B||_2 = {:.3e} >= ||grad phi|| = {:.3e}; the sphere's curvature can turn its optimum away from the gradient (use a smaller small_radius)",
                    (small_radius.clone() * curvature).to_f64_lossy(),
                    norm.to_f64_lossy()
                ),
            });
        }
    }
    Ok(())
}

impl<T: Scalar> GradientField<T> for QuadraticMetric<T> {
    fn dim(&self) -> usize {
        self.a.len()
    }

    /// ⟨a, r⟩ + ½rᵀBr: by the backend's own kernel when it has one
    /// ([`crate::scalar::Backend::quadratic_form`]; `f64` has), else from
    /// the upper triangle (B is symmetric), in place (no allocation per
    /// evaluation), with four independent partial sums per column so that
    /// the multiply-adds pipeline.
    fn value(&self, r: &DVector<T>) -> T {
        let q = r.len();
        let (a, b, r) = (self.a.as_slice(), self.b.as_slice(), r.as_slice());
        if let Some(v) = T::quadratic_form(a, b, r) {
            return v;
        }
        let (mut total, mut term) = (T::zero(), T::zero());
        let mut acc = [T::zero(), T::zero(), T::zero(), T::zero()];
        let mut prod = T::zero();
        for (j, ((column, rj), aj)) in b.chunks_exact(q).zip(r).zip(a).enumerate() {
            // Σ_{i<j} B_ij r_i over column j above the diagonal, in four
            // interleaved partial sums (chunks of four: no bounds checks).
            let (col, head) = (&column[..j], &r[..j]);
            for x in &mut acc {
                x.set_zero();
            }
            // Fixed-size chunks: the four products need no bounds checks.
            let ((cols, col_rest), (heads, head_rest)) =
                (col.as_chunks::<4>(), head.as_chunks::<4>());
            for (c, h) in cols.iter().zip(heads) {
                let [x0, x1, x2, x3] = &mut acc;
                prod.set_product(&c[0], &h[0]);
                *x0 += &prod;
                prod.set_product(&c[1], &h[1]);
                *x1 += &prod;
                prod.set_product(&c[2], &h[2]);
                *x2 += &prod;
                prod.set_product(&c[3], &h[3]);
                *x3 += &prod;
            }
            for (c, h) in col_rest.iter().zip(head_rest) {
                prod.set_product(c, h);
                acc[0] += &prod;
            }
            // φ gains r_j·(a_j + ½B_jj r_j + Σ_{i<j} B_ij r_i).
            term.set_product(&column[j], rj);
            term.mul_pow2_assign(-1);
            term += aj;
            for x in &acc {
                term += x;
            }
            term *= rj;
            total += &term;
        }
        total
    }

    fn gradient(&self, r: &DVector<T>) -> DVector<T> {
        &self.a + &self.b * r
    }

    fn curvature_bound(&self, _: &DVector<T>, _: &T) -> T {
        spectral_norm(&self.b)
    }
}

/// xᵀBx = Σᵢ xᵢ(Σⱼ B_ij xⱼ), each sum left to right from its first term
/// (for a q × q `b` and q entries of `x`).
fn quadratic_form_left_to_right<T: Scalar>(b: &DMatrix<T>, x: &DVector<T>) -> T {
    let q = x.len();
    crate::metric::sum_left_to_right((0..q).map(|i| {
        x[i].clone()
            * crate::metric::sum_left_to_right((0..q).map(|j| b[(i, j)].clone() * x[j].clone()))
    }))
}

/// Index of the unique triple (i ≤ j ≤ l) in a dense q×q×q array.
fn idx3(q: usize, i: usize, j: usize, l: usize) -> usize {
    (i * q + j) * q + l
}

/// A cubic metric φ(r) = Σaᵢrᵢ + ½ΣB_ij rᵢrⱼ + (1/6)ΣC_ijl rᵢrⱼr_l (000 §8),
/// a utility, with B symmetric and C symmetric in all three indices, stored
/// with Σa² + ΣB² + ΣC² = 1 over **all** index tuples (an off-diagonal B
/// entry counts twice, a C entry with three distinct indices six times).
///
/// # Examples
/// ```
/// use metric_elicitation::metric::quadratic::{CubicMetric, GradientField};
/// use nalgebra::{dmatrix, dvector};
/// let mut c = vec![0.0; 8];
/// c[0] = 6.0; // C_111
/// let m = CubicMetric::new(dvector![0.0, 0.0], dmatrix![0.0, 0.0; 0.0, 0.0], c).unwrap();
/// // scaled by 1/6 (the only entry): C₁₁₁ = 1, so φ = r₁³/6
/// assert_eq!(*m.c_at(0, 0, 0), 1.0);
/// assert!((m.value(&dvector![0.5, 0.3]) - 0.125 / 6.0).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CubicMetric<T: Scalar> {
    a: DVector<T>,
    b: DMatrix<T>,
    c: Vec<T>,
}

impl<T: Scalar> CubicMetric<T> {
    /// The metric with linear part `a`, symmetric `b` and symmetric `c`
    /// (dense, row-major: C_ijl at index (i·q + j)·q + l), scaled to
    /// Σa² + ΣB² + ΣC² = 1.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for sizes, non-finite entries or a zero
    /// metric; [`Error::Assumption`] ("000 §8: B symmetric", "000 §8: C
    /// symmetric") otherwise.
    pub fn new(a: DVector<T>, b: DMatrix<T>, c: Vec<T>) -> Result<Self> {
        Self::check(&a, &b, &c)?;
        let q = a.len();
        let (a, b, c) = match extreme_scale(a.iter().chain(b.iter()).chain(c.iter())) {
            Some(s) => (
                a / s.clone(),
                b / s.clone(),
                c.into_iter().map(|x| x / s.clone()).collect(),
            ),
            None => (a, b, c),
        };
        let b = (&b + b.transpose()) * T::ratio(1, 2);
        let c = symmetrize3(q, &c);
        let norm = (a.norm_squared()
            + b.norm_squared()
            + c.iter()
                .map(|x| x.clone() * x.clone())
                .fold(T::int(0), |s, x| s + x))
        .sqrt();
        if norm == T::int(0) {
            return Err(Error::invalid(
                "metric",
                "a = 0, B = 0 and C = 0 is a constant metric",
            ));
        }
        Ok(CubicMetric {
            a: a / norm.clone(),
            b: b / norm.clone(),
            c: c.into_iter().map(|x| x / norm.clone()).collect(),
        })
    }

    /// Sizes, finite entries and the symmetries of B and C (within
    /// [`prec::symmetry`]).
    fn check(a: &DVector<T>, b: &DMatrix<T>, c: &[T]) -> Result<()> {
        let q = a.len();
        if q < 2 {
            return Err(Error::invalid("a", "a cubic metric needs q >= 2 rates"));
        }
        if b.nrows() != q || b.ncols() != q {
            return Err(Error::invalid(
                "B",
                format!("B is {}x{} but a has {q} entries", b.nrows(), b.ncols()),
            ));
        }
        if c.len() != q * q * q {
            return Err(Error::invalid(
                "C",
                format!("C has {} entries, expected q^3 = {}", c.len(), q * q * q),
            ));
        }
        check_finite("a", a.iter().cloned())?;
        check_finite("B", b.iter().cloned())?;
        check_finite("C", c.iter().cloned())?;
        check_symmetric("B", "000 §8: B symmetric", b)?;
        let scale = c.iter().fold(T::int(0), |m, x| m.max(x.clone().abs()));
        let tol = prec::symmetry::<T>() * scale;
        for i in 0..q {
            for j in 0..q {
                for l in 0..q {
                    let x = &c[idx3(q, i, j, l)];
                    for (p, r, s) in [(j, i, l), (i, l, j), (l, j, i)] {
                        let y = &c[idx3(q, p, r, s)];
                        if (x.clone() - y.clone()).abs() > tol {
                            return Err(Error::Assumption {
                                assumption: "000 §8: C symmetric".into(),
                                detail: format!(
                                    "C[{}][{}][{}] = {:.6e} but C[{}][{}][{}] = {:.6e}",
                                    i + 1,
                                    j + 1,
                                    l + 1,
                                    x.to_f64_lossy(),
                                    p + 1,
                                    r + 1,
                                    s + 1,
                                    y.to_f64_lossy()
                                ),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The cubic metric with these coefficients exactly as given: sizes,
    /// finite entries and the symmetries of B and C are checked (as
    /// [`CubicMetric::new`]), nothing is symmetrized or rescaled, and an
    /// all-zero metric is accepted. A metric to *rank* by
    /// ([`crate::driver::rank`]), whose values are those of the
    /// coefficients written.
    ///
    /// # Errors
    /// As [`CubicMetric::new`], except for the zero metric.
    pub fn as_given(a: DVector<T>, b: DMatrix<T>, c: Vec<T>) -> Result<Self> {
        Self::check(&a, &b, &c)?;
        Ok(CubicMetric { a, b, c })
    }

    /// φ(r) with every sum taken left to right (the order `rank` evaluates
    /// in): ⟨a, r⟩ + ½·Σᵢ rᵢ(Σⱼ B_ij rⱼ) + (1/6)·Σᵢ rᵢ Σⱼ rⱼ (Σ_l C_ijl r_l),
    /// each inner sum from its first term. [`GradientField::value`] forms
    /// the same polynomial through matrix products; the two can differ in
    /// the last bits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `r` does not have q entries.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::quadratic::CubicMetric;
    /// use nalgebra::{dmatrix, dvector};
    /// let mut c = vec![0.0; 8];
    /// c[0] = 6.0; // C_111: φ = a·r + r₁³
    /// let m = CubicMetric::as_given(dvector![1.0, 0.0], dmatrix![0.0, 0.0; 0.0, 0.0], c).unwrap();
    /// assert_eq!(m.value_left_to_right(&dvector![0.5, 0.3]).unwrap(), 0.5 + 0.125);
    /// ```
    pub fn value_left_to_right(&self, r: &DVector<T>) -> Result<T> {
        let q = self.a.len();
        if r.len() != q {
            return Err(Error::invalid(
                "rates",
                format!(
                    "a cubic metric of q = {q} rates evaluated on {} rates",
                    r.len()
                ),
            ));
        }
        let sum = |terms: &mut dyn Iterator<Item = T>| crate::metric::sum_left_to_right(terms);
        let linear = crate::scalar::dot(&self.a, r);
        let quadratic = quadratic_form_left_to_right(&self.b, r);
        let cubic = sum(&mut (0..q).map(|i| {
            r[i].clone()
                * sum(&mut (0..q).map(|j| {
                    r[j].clone()
                        * sum(&mut (0..q).map(|l| self.c_at(i, j, l).clone() * r[l].clone()))
                }))
        }));
        Ok(linear + quadratic * T::ratio(1, 2) + cubic / T::int(6))
    }

    /// The linear coefficients a.
    pub fn a(&self) -> &DVector<T> {
        &self.a
    }

    /// The quadratic coefficients B.
    pub fn b(&self) -> &DMatrix<T> {
        &self.b
    }

    /// The cubic coefficients C, dense, C_ijl at (i·q + j)·q + l.
    pub fn c(&self) -> &[T] {
        &self.c
    }

    /// C_ijl.
    pub fn c_at(&self, i: usize, j: usize, l: usize) -> &T {
        &self.c[idx3(self.a.len(), i, j, l)]
    }

    /// C(x, ·, ·): the q×q matrix Σ_l C_ijl x_l.
    pub fn contract1(&self, x: &DVector<T>) -> DMatrix<T> {
        let q = self.a.len();
        DMatrix::from_fn(q, q, |i, j| {
            (0..q).fold(T::int(0), |s, l| {
                s + self.c_at(i, j, l).clone() * x[l].clone()
            })
        })
    }

    /// ‖a − â‖₂, ‖B − B̂‖_F and ‖C − Ĉ‖ (all q³ entries) against an
    /// estimate.
    pub fn errors(&self, a: &DVector<T>, b: &DMatrix<T>, c: &[T]) -> (T, T, T) {
        let ce = self
            .c
            .iter()
            .zip(c)
            .fold(T::int(0), |s, (x, y)| s + (x.clone() - y.clone()).powi(2))
            .sqrt();
        ((&self.a - a).norm(), (&self.b - b).norm(), ce)
    }
}

/// The six orderings of an index triple (i, j, l), repeats included, in
/// the order (i, j, l), (i, l, j), (j, i, l), (j, l, i), (l, i, j),
/// (l, j, i).
pub fn triple_permutations((i, j, l): (usize, usize, usize)) -> [(usize, usize, usize); 6] {
    [
        (i, j, l),
        (i, l, j),
        (j, i, l),
        (j, l, i),
        (l, i, j),
        (l, j, i),
    ]
}

/// The fully symmetric part of a dense q×q×q array (mean over the six
/// permutations).
pub fn symmetrize3<T: Scalar>(q: usize, c: &[T]) -> Vec<T> {
    let mut out = vec![T::int(0); q * q * q];
    for i in 0..q {
        for j in 0..q {
            for l in 0..q {
                let s = triple_permutations((i, j, l))
                    .iter()
                    .fold(T::int(0), |s, &(x, y, z)| s + c[idx3(q, x, y, z)].clone());
                out[idx3(q, i, j, l)] = s / T::int(6);
            }
        }
    }
    out
}

impl<T: Scalar> GradientField<T> for CubicMetric<T> {
    fn dim(&self) -> usize {
        self.a.len()
    }

    fn value(&self, r: &DVector<T>) -> T {
        let cr = self.contract1(r);
        let quad = &self.b * T::ratio(1, 2) + cr * T::ratio(1, 6);
        self.a.dot(r) + (quad * r).dot(r)
    }

    fn gradient(&self, r: &DVector<T>) -> DVector<T> {
        let cr = self.contract1(r);
        &self.a + &self.b * r + (cr * r) * T::ratio(1, 2)
    }

    /// ‖B + C(r, ·, ·)‖₂ + ‖C‖·reach, with ‖C‖ the Frobenius norm of all
    /// entries (a bound on ‖C(x, ·, ·)‖₂/‖x‖).
    fn curvature_bound(&self, r: &DVector<T>, reach: &T) -> T {
        let h = &self.b + self.contract1(r);
        let cn = self
            .c
            .iter()
            .fold(T::int(0), |s, x| s + x.clone() * x.clone())
            .sqrt();
        spectral_norm(&h) + cn * reach.clone()
    }
}

/// A fair quadratic metric (000 Def. 4), a **cost** over the group rates
/// r^{1:m}:
/// cost = (1 − λ)⟨a, 1 − r⟩ + (λ/2)Σ_{u<v}(r^u − r^v)ᵀB^{uv}(r^u − r^v)
/// in diagonal rates (Def. 4), with r = Σ_g τ^g ⊙ r^g the overall rates;
/// the oracle prefers the smaller cost (its utility is the negative, see
/// the crate conventions). In general (off-diagonal, error) rates the
/// linear term is (1 − λ)⟨a, r⟩, so that a ≥ 0 penalizes errors in both
/// (000 App. E states no fair metric in general rates; this is the
/// reading of 001 Def. 1 and of the public reference implementation).
///
/// Def. 4's normalizations are required: a ≥ 0 with ‖a‖₂ = 1, every
/// B^{uv} symmetric positive semi-definite with ½Σ_{u<v}‖B^{uv}‖_F = 1,
/// and 0 ≤ λ ≤ 1 (elicitation needs 0 < λ < 1).
///
/// # Examples
/// ```
/// use metric_elicitation::metric::quadratic::FairQuadraticMetric;
/// use nalgebra::{dmatrix, dvector};
/// use metric_elicitation::geometry::groups::Rates;
/// let m = FairQuadraticMetric::new(
///     dvector![0.6, 0.8],
///     vec![dmatrix![2.0, 0.0; 0.0, 0.0]],
///     0.3,
///     Rates::Diagonal,
/// )
/// .unwrap();
/// assert_eq!(m.groups(), 2);
/// // a malformed normalization is refused, naming the condition
/// let bad = FairQuadraticMetric::new(
///     dvector![0.6, 0.6], vec![dmatrix![2.0, 0.0; 0.0, 0.0]], 0.3, Rates::Diagonal);
/// assert!(bad.is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FairQuadraticMetric<T: Scalar> {
    a: DVector<T>,
    b: Vec<DMatrix<T>>,
    lambda: T,
    groups: usize,
    rates: Rates,
}

impl<T: Scalar> FairQuadraticMetric<T> {
    /// The metric (a, {B^{uv}}, λ) in `rates`, pairs in the order of
    /// [`pairs`], checked against Def. 4. Normalizations that hold within
    /// [`prec::input`] are then made exact at the working precision.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for sizes or non-finite entries;
    /// [`Error::Assumption`] naming the violated condition of Def. 4
    /// (a ≥ 0, ‖a‖₂ = 1, B^{uv} symmetric PSD, ½Σ‖B^{uv}‖_F = 1, λ ∈ [0, 1]).
    pub fn new(a: DVector<T>, b: Vec<DMatrix<T>>, lambda: T, rates: Rates) -> Result<Self> {
        // Sizes and finiteness: as given; Def. 4's conditions below.
        let FairQuadraticMetric {
            a,
            b,
            lambda,
            groups,
            rates,
        } = Self::as_given(a, b, lambda, rates)?;
        let tol = prec::input::<T>();
        let def4 = |what: &str, detail: String| Error::Assumption {
            assumption: format!("000 Def. 4: {what}"),
            detail,
        };
        if let Some((i, v)) = a.iter().enumerate().find(|(_, v)| **v < T::int(0)) {
            return Err(def4(
                "a >= 0",
                format!("a_{} = {:.6e}", i + 1, v.to_f64_lossy()),
            ));
        }
        let an = a.norm();
        if (an.clone() - T::int(1)).abs() > tol {
            return Err(def4(
                "||a||_2 = 1",
                format!("||a||_2 = {:.12}", an.to_f64_lossy()),
            ));
        }
        let mut total = T::int(0);
        for ((u, v), m) in pairs(groups).into_iter().zip(&b) {
            let name = format!("B[({},{})]", u + 1, v + 1);
            check_symmetric(&name, "000 Def. 4: B^{uv} symmetric", m)?;
            let low = m.clone().symmetric_eigenvalues().min();
            if low < -(tol.clone() * m.amax()) {
                return Err(def4(
                    "B^{uv} positive semi-definite",
                    format!("{name} has eigenvalue {:.6e}", low.to_f64_lossy()),
                ));
            }
            total += &m.norm();
        }
        let half = total / T::int(2);
        if (half.clone() - T::int(1)).abs() > tol {
            return Err(def4(
                "1/2 sum ||B^{uv}||_F = 1",
                format!("1/2 sum ||B^{{uv}}||_F = {:.12}", half.to_f64_lossy()),
            ));
        }
        if lambda < T::int(0) || lambda > T::int(1) {
            return Err(def4(
                "0 <= lambda <= 1",
                format!("lambda = {}", lambda.to_f64_lossy()),
            ));
        }
        let b = b
            .into_iter()
            .map(|m| (&m + m.transpose()) * T::ratio(1, 2) / half.clone())
            .collect();
        Ok(FairQuadraticMetric {
            a: a / an,
            b,
            lambda,
            groups,
            rates,
        })
    }

    /// The metric with these coefficients exactly as given: q ≥ 2, C(m, 2)
    /// matrices of q × q for some m ≥ 2 and finite entries are checked;
    /// Def. 4's signs, normalizations, symmetry and λ ∈ [0, 1] are not, and
    /// nothing is rescaled. A metric to *rank* by
    /// ([`crate::driver::rank`]), where baselines such as λ = 0 ("linear
    /// with no fairness") or B = 1·1ᵀ are as meaningful as an elicited
    /// metric; elicitation needs [`FairQuadraticMetric::new`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the sizes or a non-finite entry.
    pub fn as_given(a: DVector<T>, b: Vec<DMatrix<T>>, lambda: T, rates: Rates) -> Result<Self> {
        let q = a.len();
        if q < 2 {
            return Err(Error::invalid("a", "a fair metric needs q >= 2 rates"));
        }
        let groups = crate::geometry::groups::groups_of_pairs(b.len()).ok_or_else(|| {
            Error::invalid(
                "B",
                format!(
                    "{} matrices is not C(m, 2) for any number of groups m >= 2",
                    b.len()
                ),
            )
        })?;
        check_finite("a", a.iter().cloned())?;
        check_finite("lambda", [lambda.clone()])?;
        for ((u, v), m) in pairs(groups).into_iter().zip(&b) {
            let name = format!("B[({},{})]", u + 1, v + 1);
            if m.nrows() != q || m.ncols() != q {
                return Err(Error::invalid(
                    &name,
                    format!("is {}x{}, expected {q}x{q}", m.nrows(), m.ncols()),
                ));
            }
            check_finite(&name, m.iter().cloned())?;
        }
        Ok(FairQuadraticMetric {
            a,
            b,
            lambda,
            groups,
            rates,
        })
    }

    /// The cost with every sum taken left to right (the order `rank`
    /// evaluates in, [`crate::driver::rank`]): the overall rates
    /// rᵢ = Σ_g τ^g_i r^g_i (over the groups in order), the linear part
    /// ⟨a, 1 − r⟩ in diagonal rates (⟨a, r⟩ in general rates), the
    /// violation V = Σ over the pairs in [`pairs`] order, from 0, of
    /// dᵀB^{uv}d = Σᵢ dᵢ(Σⱼ B^{uv}_ij dⱼ) with d = r^u − r^v, and
    /// (1 − λ)·linear + (½λ)·V. `tau[g]` is τ^g over the q rates (as
    /// [`Groups::tau`]) taken as given: a data set's shares.
    /// [`FairQuadraticMetric::cost`] and [`BoundFairQuadratic`] sum the same
    /// terms in other orders; the values can differ in the last bits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `tau` or `rates` does not have the
    /// metric's m groups of q rates.
    pub fn cost_left_to_right(&self, tau: &[DVector<T>], rates: &GroupRates<T>) -> Result<T> {
        let (q, m) = (self.dim(), self.groups);
        if tau.len() != m
            || tau.iter().any(|t| t.len() != q)
            || rates.groups() != m
            || rates.dim() != q
        {
            return Err(Error::invalid(
                "rates",
                format!(
                    "a fair quadratic metric of m = {m} groups and q = {q} rates evaluated on {} groups of {} rates ({} shares)",
                    rates.groups(),
                    rates.dim(),
                    tau.len()
                ),
            ));
        }
        let one = T::int(1);
        let overall = DVector::from_iterator(
            q,
            (0..q).map(|i| {
                crate::metric::sum_left_to_right(
                    (0..m).map(|g| tau[g][i].clone() * rates.group(g)[i].clone()),
                )
            }),
        );
        let linear = match self.rates {
            Rates::Diagonal => crate::scalar::dot(&self.a, &overall.map(|r| one.clone() - r)),
            Rates::General => crate::scalar::dot(&self.a, &overall),
        };
        let mut violation = T::int(0);
        for ((u, v), b) in pairs(m).into_iter().zip(&self.b) {
            let d: DVector<T> = rates.group(u) - rates.group(v);
            violation += &quadratic_form_left_to_right(b, &d);
        }
        Ok((one - self.lambda.clone()) * linear + T::ratio(1, 2) * self.lambda.clone() * violation)
    }

    /// The metric with a and the B^{uv} each scaled to Def. 4's
    /// normalization (a → a/‖a‖₂, B^{uv} → B^{uv}/(½Σ‖B^{uv}‖_F)); for
    /// generating random metrics.
    ///
    /// # Errors
    /// As [`FairQuadraticMetric::new`], and [`Error::InvalidArgument`] for
    /// a zero a or zero B.
    pub fn normalized(a: DVector<T>, b: Vec<DMatrix<T>>, lambda: T, rates: Rates) -> Result<Self> {
        let an = a.norm();
        let bn = b.iter().fold(T::int(0), |s, m| s + m.norm()) / T::int(2);
        if an == T::int(0) || bn == T::int(0) {
            return Err(Error::invalid("metric", "a = 0 or every B^{uv} = 0"));
        }
        Self::new(
            a / an,
            b.into_iter().map(|m| m / bn.clone()).collect(),
            lambda,
            rates,
        )
    }

    /// a (‖a‖₂ = 1).
    pub fn a(&self) -> &DVector<T> {
        &self.a
    }

    /// The B^{uv}, pairs in the order of [`pairs`].
    pub fn b(&self) -> &[DMatrix<T>] {
        &self.b
    }

    /// λ.
    pub fn lambda(&self) -> &T {
        &self.lambda
    }

    /// The number of groups m.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The dimension q.
    pub fn dim(&self) -> usize {
        self.a.len()
    }

    /// The rates the metric is written in.
    pub fn rates(&self) -> Rates {
        self.rates
    }

    /// Checks that the metric fits a population of groups (same m, q and
    /// rates).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the mismatch.
    pub fn check_groups(&self, groups: &Groups<T>) -> Result<()> {
        if groups.groups() != self.groups
            || groups.dim() != self.dim()
            || groups.rates() != self.rates
        {
            return Err(Error::invalid(
                "oracle.metric",
                format!(
                    "a metric of {} groups and q = {} ({:?} rates) for a population of {} groups and q = {} ({:?} rates)",
                    self.groups,
                    self.dim(),
                    self.rates,
                    groups.groups(),
                    groups.dim(),
                    groups.rates()
                ),
            ));
        }
        Ok(())
    }

    /// The cost of the group rates `rates` in the population `groups`
    /// (smaller is preferred); a shape mismatch is a programming error
    /// checked by [`Groups::check`].
    pub fn cost(&self, rates: &GroupRates<T>, groups: &Groups<T>) -> T {
        let one = T::int(1);
        let overall = groups.overall(rates);
        let linear = match self.rates {
            Rates::Diagonal => self
                .a
                .iter()
                .zip(overall.iter())
                .fold(T::int(0), |s, (a, r)| {
                    s + a.clone() * (one.clone() - r.clone())
                }),
            Rates::General => self.a.dot(&overall),
        };
        let mut quad = T::int(0);
        for ((u, v), b) in pairs(self.groups).into_iter().zip(&self.b) {
            let diff = rates.group(u) - rates.group(v);
            quad += &(b * &diff).dot(&diff);
        }
        (one - self.lambda.clone()) * linear + self.lambda.clone() * quad / T::int(2)
    }

    /// The metric bound to `groups`, evaluated without allocating (the
    /// simulated oracle's metric of the fair procedures): the same cost as
    /// [`FairQuadraticMetric::cost`], its terms precomputed.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shapes differ.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::metric::quadratic::FairQuadraticMetric;
    /// use metric_elicitation::geometry::groups::{GroupRates, Groups, Rates};
    /// use metric_elicitation::oracle::Metric;
    /// use nalgebra::{dmatrix, dvector};
    /// let m = FairQuadraticMetric::new(
    ///     dvector![0.6, 0.8], vec![dmatrix![2.0, 0.0; 0.0, 0.0]], 0.3, Rates::Diagonal).unwrap();
    /// let groups = Groups::with_rates(2, vec![vec![0.5, 0.5], vec![0.5, 0.5]], None, Rates::Diagonal).unwrap();
    /// let r = GroupRates::new(&[dvector![0.7, 0.4], dvector![0.6, 0.5]]).unwrap();
    /// let bound = m.bind(&groups).unwrap();
    /// assert!((bound.value(&r) + m.cost(&r, &groups)).abs() < 1e-15);
    /// ```
    pub fn bind(&self, groups: &Groups<T>) -> Result<BoundFairQuadratic<T>> {
        let q = self.dim();
        if groups.dim() != q || groups.groups() != self.groups {
            return Err(Error::invalid(
                "oracle.metric",
                format!(
                    "a metric of {} groups and q = {q} for a population of {} groups and q = {}",
                    self.groups,
                    groups.groups(),
                    groups.dim()
                ),
            ));
        }
        let keep = T::int(1) - self.lambda.clone();
        // Diagonal rates: (1 − λ)⟨a, 1 − r⟩ = (1 − λ)Σa − Σ_g⟨(1 − λ)a ⊙ τ^g, r^g⟩.
        let (sign, constant) = match self.rates {
            Rates::Diagonal => (T::int(-1), keep.clone() * self.a.sum()),
            Rates::General => (T::int(1), T::int(0)),
        };
        let w = DVector::from_iterator(
            q * self.groups,
            (0..self.groups).flat_map(|g| {
                groups
                    .tau(g)
                    .iter()
                    .zip(self.a.iter())
                    .map(|(t, a)| t.clone() * a.clone() * keep.clone() * sign.clone())
                    .collect::<Vec<T>>()
            }),
        );
        let half = self.lambda.clone() / T::int(2);
        let b = self.b.iter().map(|b| b.map(|x| x * half.clone())).collect();
        Ok(BoundFairQuadratic {
            q,
            constant,
            w,
            b,
            pairs: pairs(self.groups),
        })
    }

    /// The sign of the linear term's gradient in a group's rates: +1 for
    /// diagonal rates (the utility −cost grows with r), −1 for general.
    pub fn orientation(&self) -> T {
        match self.rates {
            Rates::Diagonal => T::int(1),
            Rates::General => T::int(-1),
        }
    }

    /// W^σ = Σ_{u∈σ, v∉σ} B^{uv}: the violation weights of the pairs split
    /// by `sigma` (a set of 0-based groups).
    pub fn cut_weights(&self, sigma: &[usize]) -> DMatrix<T> {
        let q = self.dim();
        let mut w = DMatrix::from_element(q, q, T::int(0));
        for ((u, v), b) in pairs(self.groups).into_iter().zip(&self.b) {
            if sigma.contains(&u) != sigma.contains(&v) {
                w += b;
            }
        }
        w
    }

    /// The errors ‖a − â‖₂, Σ_{u<v}‖B^{uv} − B̂^{uv}‖_F and |λ − λ̂|.
    pub fn errors(&self, a: &DVector<T>, b: &[DMatrix<T>], lambda: &T) -> (T, T, T) {
        let be = self
            .b
            .iter()
            .zip(b)
            .fold(T::int(0), |s, (x, y)| s + (x - y).norm());
        (
            (&self.a - a).norm(),
            be,
            (self.lambda.clone() - lambda.clone()).abs(),
        )
    }
}

/// A [`FairQuadraticMetric`] bound to its groups (see
/// [`FairQuadraticMetric::bind`]): cost = c + Σ_g ⟨w^g, r^g⟩ +
/// Σ_{u<v} (r^u − r^v)ᵀ(λ/2)B^{uv}(r^u − r^v), evaluated without allocating
/// (also at MPFR precision). As an oracle's metric
/// ([`crate::oracle::Metric`]) its value is the utility −cost.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundFairQuadratic<T: Scalar> {
    q: usize,
    constant: T,
    /// The linear weights, group after group.
    w: DVector<T>,
    /// (λ/2)·B^{uv}, pair after pair.
    b: Vec<DMatrix<T>>,
    pairs: Vec<(usize, usize)>,
}

impl<T: Scalar> BoundFairQuadratic<T> {
    /// The cost at `rates`; NaN when `rates` does not have the groups'
    /// shape (a simulated oracle turns that into a typed error).
    pub fn cost(&self, rates: &GroupRates<T>) -> T {
        if rates.as_vector().len() != self.w.len() {
            let zero = T::int(0);
            return zero.clone() / zero;
        }
        let r = rates.as_vector().as_slice();
        let q = self.q;
        let mut total = crate::scalar::dot(&self.w, rates.as_vector());
        total += &self.constant;
        let (mut t, mut di, mut row) = (T::int(0), T::int(0), T::int(0));
        for (b, &(u, v)) in self.b.iter().zip(&self.pairs) {
            let (ru, rv) = (&r[u * q..][..q], &r[v * q..][..q]);
            let b = b.as_slice();
            // Σ_i d_i Σ_j B_ji d_j over the columns of the symmetric B.
            for i in 0..q {
                row.set_zero();
                let col = &b[i * q..][..q];
                for j in 0..q {
                    t.set_difference(&ru[j], &rv[j]);
                    t *= &col[j];
                    row += &t;
                }
                di.set_difference(&ru[i], &rv[i]);
                row *= &di;
                total += &row;
            }
        }
        total
    }
}

impl<T: Scalar> crate::oracle::Metric<GroupRates<T>> for BoundFairQuadratic<T> {
    type Value = T;
    /// The utility −cost (the crate convention: the oracle prefers it larger).
    fn value(&self, rates: &GroupRates<T>) -> T {
        -self.cost(rates)
    }
}

impl<T: Scalar> QuadraticMetric<T> {
    /// φ(r) = ⟨a, r⟩ + ½rᵀBr ([`GradientField::value`]; inherent, so that
    /// a call is not ambiguous where [`crate::oracle::Metric`] is in scope
    /// too).
    pub fn value(&self, r: &DVector<T>) -> T {
        GradientField::value(self, r)
    }
}

impl<T: Scalar> CubicMetric<T> {
    /// φ(r) ([`GradientField::value`]; inherent, as for
    /// [`QuadraticMetric::value`]).
    pub fn value(&self, r: &DVector<T>) -> T {
        GradientField::value(self, r)
    }
}

impl<T: Scalar> crate::oracle::Metric<DVector<T>> for QuadraticMetric<T> {
    type Value = T;
    /// φ(r) = ⟨a, r⟩ + ½rᵀBr ([`GradientField::value`]).
    fn value(&self, r: &DVector<T>) -> T {
        GradientField::value(self, r)
    }
}

impl<T: Scalar> crate::oracle::Metric<DVector<T>> for CubicMetric<T> {
    type Value = T;
    /// φ(r) ([`GradientField::value`]).
    fn value(&self, r: &DVector<T>) -> T {
        GradientField::value(self, r)
    }
}
