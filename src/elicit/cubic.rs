//! Cubic metric elicitation (000 §8), done so that it recovers (a, B, C).
//!
//! §8 proposes one QPME around each of o, zₗ = o + (ρ − ρ₁)αₗ and a "−z"
//! point, reading each face C[:, :, l] from the difference of two local
//! Hessians and fixing scales with one more run. That cannot work: a local
//! quadratic fit determines its Hessian only up to t·ddᵀ (the gauge
//! φ → φ + tφ² that moves no gradient direction to first order,
//! `notes/000-quadratic.md` Q13), and the cubic term moves directions at
//! the same (second) order, so each local Hessian carries an O(1) error
//! along ddᵀ however small the local radius (C3). [`two_level`] implements
//! that scheme (with the true relative scales supplied, its best case) for
//! the reproduction.
//!
//! What works (C4): fit the quadratic gradient field of the cubic,
//! ∇φ(o + x) = d + Hx + ½C(x, x, ·), d = a + Bo + ½C(o, o, ·),
//! H = B + C(o, ·, ·), to every LPME direction at its touching point with
//! the joint homogeneous fit of [`crate::elicit::gradient_fit`] (the gauge
//! exists only for linear φ here), then convert back (C2) and normalize
//! (C1). Two designs (C5): [`CubicDesign::Nested`], the paper's point set
//! ((q + 2)² LPMEs), and [`CubicDesign::Minimal`], o plus ⌈(N − 1)/(q − 1)⌉
//! + 1 points at distance ρ − ϱ (N unknowns).

use super::gradient_fit::{fit_direct, Direction, GradientModel, QuadraticModel};
use super::lpme::{lpme_queries, LpmeSettings};
use super::qpme::{
    directions_accuracy, gap_warnings, undetermined, Design, Estimator, ExactProbe, LpmeProbe,
    Observation, Probe, QpmeEstimate,
};
use super::Elicitation;
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{CubicMetric, GradientField};
use crate::oracle::Oracle;
use crate::prec;
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The unique index triples i ≤ j ≤ l of q dimensions, in lexicographic
/// order.
pub fn triples(q: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for i in 0..q {
        for j in i..q {
            for l in j..q {
                out.push((i, j, l));
            }
        }
    }
    out
}

/// The distinct permutations of a triple (1, 3 or 6 of them).
fn permutations(t: (usize, usize, usize)) -> Vec<(usize, usize, usize)> {
    let mut all = crate::metric::quadratic::triple_permutations(t).to_vec();
    all.sort_unstable();
    all.dedup();
    all
}

/// The quadratic gradient field of a cubic (notes C4):
/// g(x) = d + Hx + ½C(x, x, ·), θ = (d, vech H, sym₃ C), the column of a
/// unique triple T being ½E_T(x, x, ·) with E_T the symmetric 0/1 tensor
/// that is 1 at every permutation of T.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubicModel {
    /// The dimension q.
    pub q: usize,
}

impl CubicModel {
    /// q + q(q+1)/2 + q(q+1)(q+2)/6.
    pub fn unknowns(&self) -> usize {
        let q = self.q;
        q + q * (q + 1) / 2 + q * (q + 1) * (q + 2) / 6
    }

    /// (d, H, C dense) from θ.
    pub fn split<T: Scalar>(&self, theta: &DVector<T>) -> (DVector<T>, DMatrix<T>, Vec<T>) {
        let q = self.q;
        let quad = QuadraticModel { q };
        let nq = q + q * (q + 1) / 2;
        let (d, h) = quad.split(&theta.rows(0, nq).into_owned());
        let mut c = vec![T::int(0); q * q * q];
        for (k, t) in triples(q).into_iter().enumerate() {
            for (a, b, e) in permutations(t) {
                c[(a * q + b) * q + e] = theta[nq + k].clone();
            }
        }
        (d, h, c)
    }
}

impl<T: Scalar> GradientModel<T> for CubicModel {
    fn unknowns(&self) -> usize {
        CubicModel::unknowns(self)
    }
    fn dim(&self) -> usize {
        self.q
    }
    fn jacobian(&self, x: &DVector<T>) -> DMatrix<T> {
        let q = self.q;
        let quad = QuadraticModel { q };
        let base = GradientModel::<T>::jacobian(&quad, x);
        let nq = base.ncols();
        let mut j = DMatrix::from_element(q, CubicModel::unknowns(self), T::int(0));
        j.view_mut((0, 0), (q, nq)).copy_from(&base);
        for (k, t) in triples(q).into_iter().enumerate() {
            for (a, b, e) in permutations(t) {
                // ½·E_T(x, x, ·): row e gains ½·x_a·x_b.
                j[(e, nq + k)] += &(x[a].clone() * x[b].clone() / T::int(2));
            }
        }
        j
    }
}

/// Where the LPMEs of a cubic elicitation go (notes C5).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CubicDesign {
    /// o plus ⌈(N − 1)/(q − 1)⌉ + 1 centres at distance ρ − ϱ from o:
    /// ±αⱼ first, then fixed pseudo-random directions (seeded, so the
    /// design is the same in every run and precision).
    #[default]
    Minimal,
    /// The paper's point set: QPME centres o, o + (ρ − ρ₁)αₗ, o − (ρ − ρ₁)α₁
    /// with ρ₁ = ρ/4, and inside each of radius ρ₁ the QPME's own q + 2
    /// centres with small radius ϱ: (q + 2)² LPMEs.
    Nested,
}

/// The centres of a cubic design on the sphere S(o, ρ) with small radius ϱ.
///
/// # Errors
/// [`Error::InvalidArgument`] for a small radius the design cannot hold.
pub fn centres<T: Scalar>(
    sphere: &Sphere<T>,
    small: &T,
    design: CubicDesign,
) -> Result<Vec<DVector<T>>> {
    let q = sphere.dim();
    let o = sphere.center();
    let rho = sphere.radius().clone();
    match design {
        CubicDesign::Minimal => {
            let d = Design::new(sphere.clone(), small.clone())?;
            let delta = d.delta().clone();
            let n = (CubicModel { q }.unknowns() - 1).div_ceil(q - 1) + 2;
            let mut dirs: Vec<DVector<T>> = Vec::with_capacity(n - 1);
            for j in 0..q {
                for sign in [1, -1] {
                    let mut v = DVector::from_element(q, T::int(0));
                    v[j] = T::int(sign);
                    dirs.push(v);
                }
            }
            dirs.truncate(n - 1);
            let mut rng = ChaCha8Rng::seed_from_u64(8);
            while dirs.len() < n - 1 {
                let v =
                    DVector::from_fn(q, |_, _| T::from_f64_exact(rng.random::<f64>() * 2.0 - 1.0));
                let norm = v.norm();
                if norm > T::ratio(1, 10) {
                    dirs.push(v / norm);
                }
            }
            let mut out = vec![o.clone()];
            out.extend(dirs.into_iter().map(|v| o + v * delta.clone()));
            Ok(out)
        }
        CubicDesign::Nested => {
            let inner = rho.clone() / T::int(4);
            if small.clone() * T::int(3) >= inner {
                return Err(Error::invalid(
                    "small_radius",
                    format!(
                        "the nested cubic design needs small_radius < rho/12 = {}",
                        (rho / T::int(12)).to_f64_lossy()
                    ),
                ));
            }
            let outer = Design::new(sphere.clone(), inner.clone())?;
            let mut out = Vec::new();
            for c in outer.centres(0) {
                let local = Design::new(outer.small_sphere(c)?, small.clone())?;
                for cc in local.centres(0) {
                    out.push(local.centre(cc));
                }
            }
            Ok(out)
        }
    }
}

/// Settings of [`cubic`].
#[derive(Debug, Clone, PartialEq)]
pub struct CubicSettings<T> {
    /// The LPME on each small sphere.
    pub lpme: LpmeSettings<T>,
    /// ϱ.
    pub small_radius: T,
    /// The design.
    pub design: CubicDesign,
}

/// An elicited cubic metric.
#[derive(Debug, Clone, PartialEq)]
pub struct CubicEstimate<T: Scalar> {
    /// â.
    pub a: DVector<T>,
    /// B̂.
    pub b: DMatrix<T>,
    /// Ĉ, dense, C_ijl at (i·q + j)·q + l.
    pub c: Vec<T>,
    /// The fit's singular-value gap.
    pub gap: T,
    /// The fit's condition σ₁/σ_{n−1}: how much it amplifies the
    /// directions' errors.
    pub condition: T,
    /// The LPMEs.
    pub observations: Vec<Observation<T>>,
    /// Queries.
    pub queries: usize,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// (a, B, C) from the fitted field (notes C2), normalized as
/// [`CubicMetric`] (C1).
///
/// # Errors
/// [`Error::IllConditioned`] for a zero fit.
pub fn unshift_cubic<T: Scalar>(
    d: &DVector<T>,
    h: &DMatrix<T>,
    c: &[T],
    o: &DVector<T>,
) -> Result<(DVector<T>, DMatrix<T>, Vec<T>)> {
    let q = o.len();
    let co = DMatrix::from_fn(q, q, |i, j| {
        (0..q).fold(T::int(0), |s, l| {
            s + c[(i * q + j) * q + l].clone() * o[l].clone()
        })
    });
    let b = h - &co;
    let a = d - &b * o - (&co * o) / T::int(2);
    let metric = CubicMetric::new(a, b, c.to_vec()).map_err(|e| Error::IllConditioned {
        what: "cubic reconstruction".into(),
        detail: e.to_string(),
    })?;
    Ok((metric.a().clone(), metric.b().clone(), metric.c().to_vec()))
}

/// Cubic elicitation with any probe over the design's centres.
///
/// # Errors
/// The probe's errors; [`Error::IllConditioned`] from the fit.
pub fn cubic_with<T: Scalar, P: Probe<T> + ?Sized>(
    sphere: &Sphere<T>,
    probe: &mut P,
    small: &T,
    design: CubicDesign,
) -> Result<CubicEstimate<T>> {
    let q = sphere.dim();
    let o = sphere.center();
    let mut observations = Vec::new();
    let mut warnings = Vec::new();
    let mut dirs = Vec::new();
    for (n, c) in centres(sphere, small, design)?.into_iter().enumerate() {
        let s = Sphere::new(c, small.clone())?;
        let probed = probe.probe(&s, &format!("cubic centre {}", n + 1))?;
        warnings.extend(probed.warnings);
        let touching = s.point(&probed.unit)?;
        dirs.push(Direction {
            x: &touching - o,
            u: probed.unit.clone(),
        });
        observations.push(Observation {
            centre: super::qpme::Centre::Origin,
            at: s.center().clone(),
            unit: probed.unit,
            touching,
            queries: probed.queries,
            consistent: probed.consistent,
        });
    }
    let model = CubicModel { q };
    let fit = fit_direct(&model, &dirs)?;
    warnings.extend(gap_warnings(&fit.gap));
    for j in &fit.reversed {
        warnings.push(Warning::new(
            Cause::Contradictory,
            format!(
                "the fitted gradient at cubic centre {} points against the LPME's direction",
                j + 1
            ),
        ));
    }
    let (d, h, c) = model.split(&fit.theta);
    let (a, b, c) = unshift_cubic(&d, &h, &c, o)?;
    Ok(CubicEstimate {
        a,
        b,
        c,
        gap: fit.gap,
        condition: fit.condition,
        queries: observations.iter().map(|ob| ob.queries).sum(),
        observations,
        warnings,
    })
}

/// 000 §8, done as notes C4–C5: elicit a cubic metric of an oracle over the
/// rates of `sphere`.
///
/// # Errors
/// As [`cubic_with`]; [`Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::cubic::{cubic_with, CubicDesign};
/// use metric_elicitation::elicit::qpme::ExactProbe;
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::metric::quadratic::CubicMetric;
/// use nalgebra::{dmatrix, dvector, DVector};
/// let mut c = vec![0.0; 8];
/// c[0] = 0.5; // C_111
/// for i in [1, 2, 4] { c[i] = -0.2; } // C_112 and its permutations
/// let truth = CubicMetric::new(dvector![0.8, 0.6], dmatrix![-0.5, 0.1; 0.1, -0.3], c).unwrap();
/// let sphere = Sphere::new(DVector::from_element(2, 0.5), 0.2).unwrap();
/// let est = cubic_with(&sphere, &mut ExactProbe::new(&truth), &5e-3, CubicDesign::Minimal).unwrap();
/// let (ea, eb, ec) = truth.errors(&est.a, &est.b, &est.c);
/// assert!(ea < 1e-9 && eb < 1e-9 && ec < 1e-9);
/// ```
pub fn cubic<T: Scalar, O: Oracle<DVector<T>> + ?Sized>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    settings: &CubicSettings<T>,
) -> Result<CubicEstimate<T>> {
    let mut probe = LpmeProbe::new(oracle, settings.lpme.clone());
    let mut est = cubic_with(sphere, &mut probe, &settings.small_radius, settings.design)?;
    // As QPME's reconstruction: the directions are accurate to about ε, or
    // to the width of the angles noisy answers disagreed over, and the fit
    // amplifies that by its condition. The cubic part moves the gradient
    // directions by about ‖C‖ρ², so it is the first to go.
    let accuracy = directions_accuracy(&est.observations, &settings.lpme.eps);
    if let Some(uncertainty) = undetermined(&est.condition, &accuracy, &T::int(0)) {
        est.warnings.push(Warning::new(
            Cause::IllConditioned,
            format!(
                "the fit's condition {:.3e} times the directions' accuracy {:.1e} exceeds {}: (a, B, C) is determined only to about {:.0e} (a smaller epsilon helps; the cubic part is the least determined)",
                est.condition.to_f64_lossy(),
                accuracy.to_f64_lossy(),
                prec::undetermined::<T>().to_f64_lossy(),
                uncertainty.to_f64_lossy()
            ),
        ));
    }
    Ok(est)
}

/// The LPMEs a design takes for q rates.
pub fn design_size(q: usize, design: CubicDesign) -> usize {
    match design {
        CubicDesign::Minimal => (CubicModel { q }.unknowns() - 1).div_ceil(q - 1) + 2,
        CubicDesign::Nested => (q + 2) * (q + 2),
    }
}

/// §8's two-level scheme as written, given its best case: exact LPME
/// outputs (the maximiser on every small sphere) and the true relative
/// scales of the local fits. A QPME (the joint fit, notes R1–R6) around
/// each of o, zₗ = o + (ρ − ρ₁)αₗ and o − (ρ − ρ₁)α₁ with local radius
/// ρ₁ = ρ/4 returns (gₗ, Hₗ) up to scale; each is scaled so that gₗ is
/// the true gradient there; then C[:, :, l] = (H_{zₗ} − H_o)/(ρ − ρ₁),
/// B = H_o − C(o, ·, ·), a = ∇φ(o) − Bo − ½C(o, o, ·), normalized (C1).
/// With exact data it still fails (notes C3); the reproduction measures by
/// how much.
///
/// # Errors
/// As the QPMEs.
pub fn two_level<T: Scalar>(
    truth: &CubicMetric<T>,
    sphere: &Sphere<T>,
    small: &T,
) -> Result<(DVector<T>, DMatrix<T>, Vec<T>)> {
    let q = sphere.dim();
    let o = sphere.center();
    let inner = sphere.radius().clone() / T::int(4);
    let outer = Design::new(sphere.clone(), inner.clone())?;
    let step = outer.delta().clone();
    let local = |c: super::qpme::Centre| -> Result<(DVector<T>, DMatrix<T>)> {
        let centre_sphere = outer.small_sphere(c)?;
        let design = Design::new(centre_sphere.clone(), small.clone())?;
        let est: QpmeEstimate<T> = super::qpme::qpme_with(
            &design,
            &mut ExactProbe::new(truth),
            Estimator::Fit,
            &crate::prec::ill_conditioned::<T>(),
        )?;
        // The local fit's gradient at its centre is d̂ (up to scale); the
        // true gradient there fixes the scale (the best case).
        let g = truth.gradient(centre_sphere.center());
        let s = g.dot(&est.d) / est.d.norm_squared();
        Ok((est.d * s.clone(), est.b * s))
    };
    let (g0, h0) = local(super::qpme::Centre::Origin)?;
    let mut c = vec![T::int(0); q * q * q];
    for l in 0..q {
        let (_, hl) = local(super::qpme::Centre::Plus(l))?;
        let face = (hl - &h0) / step.clone();
        for i in 0..q {
            for j in 0..q {
                c[(i * q + j) * q + l] = face[(i, j)].clone();
            }
        }
    }
    let c = crate::metric::quadratic::symmetrize3(q, &c);
    unshift_cubic(&g0, &h0, &c, o)
}

/// Cubic metrics (000 §8) as a typed algorithm: LPMEs over a design of
/// small spheres inside `sphere`, then a joint fit of the cubic's
/// quadratic gradient field ([`cubic`]).
#[derive(Debug, Clone)]
pub struct Cubic<T: Scalar> {
    sphere: Sphere<T>,
    settings: CubicSettings<T>,
}

impl<T: Scalar> Cubic<T> {
    /// The procedure over `sphere` with `settings`.
    ///
    /// # Errors
    /// As [`centres`]: a design that does not fit in the sphere.
    pub fn new(sphere: Sphere<T>, settings: CubicSettings<T>) -> Result<Self> {
        centres(&sphere, &settings.small_radius, settings.design)?;
        Ok(Cubic { sphere, settings })
    }

    /// The query sphere.
    pub fn sphere(&self) -> &Sphere<T> {
        &self.sphere
    }

    /// The settings.
    pub fn settings(&self) -> &CubicSettings<T> {
        &self.settings
    }
}

impl<T: Scalar> Elicitation<T> for Cubic<T> {
    type Point = DVector<T>;
    type Estimate = CubicEstimate<T>;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`crate::search::Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<CubicEstimate<T>> {
        cubic(&self.sphere, oracle, &self.settings)
    }

    /// One LPME per small sphere of the design.
    fn expected_queries(&self) -> Option<usize> {
        let q = self.sphere.dim();
        Some(design_size(q, self.settings.design) * lpme_queries(q, &self.settings.lpme)?)
    }
}
