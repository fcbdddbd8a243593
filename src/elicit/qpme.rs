//! Quadratic performance metric elicitation: 000 Alg. 1 (QPME), in the
//! diagonal rates of the main text and the general rates of App. E.
//!
//! QPME runs q + 2 LPMEs ([`crate::elicit::lpme`]) on small spheres of
//! radius ϱ inside the query sphere S(o, ρ), each touching it from inside:
//! at o, at zⱼ = o + δαⱼ (j = 1..q) and at o − δα_p, with δ = ρ − ϱ. Each
//! LPME returns the unit gradient of φ at its touching point c + ϱf (000
//! Lemma 1 applied to the exact maximiser on the small sphere; eqs. (6)–(8)
//! read it as the gradient at the centre c, an O(ϱ) bias:
//! `notes/000-quadratic.md` Q5). Two estimators turn the q + 2 directions
//! into (a, B):
//!
//! * [`Estimator::Paper`] — the closed form of App. C, corrected
//!   (notes Q6–Q11: eq. (18)'s first line with the factor 1/(ρ − ϱ), the
//!   last term F_{i,j}F_{j,1}κ, a = d − Bo), on reference coordinate 1
//!   with the "−z" centre o − δα₁. It divides by first coordinates of the
//!   LPME outputs and refuses (typed error) a divisor below its tolerance
//!   instead of clipping it.
//! * [`Estimator::Fit`] (default) — the joint homogeneous least-squares fit
//!   of (d, B) to all q + 2 directions at their touching points, the "−z"
//!   centre at the largest coordinate of the first LPME
//!   ([`crate::elicit::gradient_fit`], notes R1–R6), reporting the
//!   singular-value gap (B along d·dᵀ is not identifiable by any method,
//!   Q13).
//!
//! Both return (a, B) with ‖a‖₂² + ‖B‖²_F = 1 and the sign fixed by the
//! first LPME (its output is a positive multiple of the gradient at o).
//!
//! The LPME step is abstracted as a [`Probe`]: [`LpmeProbe`] asks an
//! oracle, [`ExactProbe`] returns the exact maximiser on the small sphere
//! (what an error-free LPME returns), [`CentreProbe`] the unit gradient at
//! the centre (the paper's model of an LPME). The last two give the
//! "exact gradients" the reconstructions are tested with.

use super::gradient_fit::{fit_quadratic, Direction, QuadraticModel};
use super::lpme::{lpme, lpme_near, lpme_queries, AngleOrder, LpmeSettings, Orthant};
use super::Elicitation;
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{check_centres, GradientField, QuadraticMetric};
use crate::oracle::Oracle;
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{Consistent, Strategy, Tolerance};
use nalgebra::{DMatrix, DVector};

/// Which reconstruction turns the LPME outputs into (a, B).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// The joint least-squares fit at the touching points (notes R1–R6).
    #[default]
    Fit,
    /// The corrected closed form of 000 App. C (notes Q10), reference
    /// coordinate 1.
    Paper,
}

impl Estimator {
    /// The name used in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Fit => "fit",
            Estimator::Paper => "paper",
        }
    }
}

pub use super::gradient_fit::UNIDENTIFIABLE_GAP;

/// Below this gap (and above [`UNIDENTIFIABLE_GAP`]) the second direction
/// is determined only to about 1/gap of its size: reported as
/// ill-conditioned.
pub const WEAK_GAP: i64 = 10;

/// Where a small sphere sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Centre {
    /// At o.
    Origin,
    /// At zⱼ = o + δαⱼ (0-based j).
    Plus(usize),
    /// At o − δα_p (0-based p): the paper's "−z₁" for p = 0.
    Minus(usize),
}

impl Centre {
    /// The paper's name of the centre (1-based).
    pub fn label(self) -> String {
        match self {
            Centre::Origin => "o".into(),
            Centre::Plus(j) => format!("z_{}", j + 1),
            Centre::Minus(p) => format!("-z_{}", p + 1),
        }
    }
}

/// The query geometry of QPME: the big sphere S(o, ρ) and the small radius
/// ϱ, with δ = ρ − ϱ.
#[derive(Debug, Clone, PartialEq)]
pub struct Design<T: Scalar> {
    sphere: Sphere<T>,
    small: T,
    delta: T,
}

impl<T: Scalar> Design<T> {
    /// The design on `sphere` with small radius ϱ = `small_radius`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`small_radius`) unless 0 < 3ϱ < ρ: the
    /// small spheres must be disjoint (δ > 2ϱ) for the centres to be told
    /// apart.
    pub fn new(sphere: Sphere<T>, small_radius: T) -> Result<Self> {
        if !small_radius.finite() || small_radius <= T::int(0) {
            return Err(Error::invalid(
                "small_radius",
                format!("must be a finite number > 0, got {small_radius}"),
            ));
        }
        if small_radius.clone() * T::int(3) >= sphere.radius().clone() {
            return Err(Error::invalid(
                "small_radius",
                format!(
                    "must be below a third of the sphere's radius {} so that the small spheres are disjoint, got {small_radius}",
                    sphere.radius()
                ),
            ));
        }
        let delta = sphere.radius().clone() - small_radius.clone();
        Ok(Design {
            sphere,
            small: small_radius,
            delta,
        })
    }

    /// The query sphere S(o, ρ).
    pub fn sphere(&self) -> &Sphere<T> {
        &self.sphere
    }

    /// o.
    pub fn origin(&self) -> &DVector<T> {
        self.sphere.center()
    }

    /// ϱ.
    pub fn small_radius(&self) -> &T {
        &self.small
    }

    /// δ = ρ − ϱ.
    pub fn delta(&self) -> &T {
        &self.delta
    }

    /// q.
    pub fn dim(&self) -> usize {
        self.sphere.dim()
    }

    /// The centre's point.
    pub fn centre(&self, c: Centre) -> DVector<T> {
        let mut p = self.origin().clone();
        match c {
            Centre::Origin => {}
            Centre::Plus(j) => p[j] += &self.delta,
            Centre::Minus(j) => p[j] -= &self.delta,
        }
        p
    }

    /// The small sphere at a centre.
    ///
    /// # Errors
    /// Only for an out-of-range index.
    pub fn small_sphere(&self, c: Centre) -> Result<Sphere<T>> {
        if let Centre::Plus(j) | Centre::Minus(j) = c {
            if j >= self.dim() {
                return Err(Error::invalid(
                    "centre",
                    format!("index {j} for q = {}", self.dim()),
                ));
            }
        }
        Sphere::new(self.centre(c), self.small.clone())
    }

    /// The centres of Alg. 1 in order: o, z₁..z_q, o − δα_p.
    pub fn centres(&self, minus: usize) -> Vec<Centre> {
        let mut out = vec![Centre::Origin];
        out.extend((0..self.dim()).map(Centre::Plus));
        out.push(Centre::Minus(minus));
        out
    }

    /// The centres with their points and labels, for
    /// [`QuadraticMetric::check_design`].
    pub fn labelled(&self, minus: usize) -> Vec<(String, DVector<T>)> {
        self.centres(minus)
            .into_iter()
            .map(|c| (c.label(), self.centre(c)))
            .collect()
    }
}

/// What one LPME (or an exact stand-in) returned on a small sphere.
#[derive(Debug, Clone, PartialEq)]
pub struct Probed<T: Scalar> {
    /// The unit vector f (‖f‖₂ = 1).
    pub unit: DVector<T>,
    /// Oracle queries it took.
    pub queries: usize,
    /// Per angle, the values consistent with its answers (empty for exact
    /// probes).
    pub consistent: Vec<Consistent<T>>,
    /// Its warnings.
    pub warnings: Vec<Warning>,
}

/// The LPME step of QPME: a unit gradient direction on a small sphere.
pub trait Probe<T: Scalar> {
    /// Probes `sphere` (named `label` in messages).
    ///
    /// # Errors
    /// Whatever stops the probe (an interrupted oracle, a metric the exact
    /// probe cannot handle).
    fn probe(&mut self, sphere: &Sphere<T>, label: &str) -> Result<Probed<T>>;
}

/// LPME (001/000 App. A, Alg. 2) against an oracle over points of ℝ^q.
pub struct LpmeProbe<'a, T: Scalar, O: Oracle<DVector<T>> + ?Sized> {
    oracle: &'a mut O,
    settings: LpmeSettings<T>,
    window: Option<T>,
    first: Option<DVector<T>>,
    asked: usize,
}

impl<'a, T: Scalar, O: Oracle<DVector<T>> + ?Sized> LpmeProbe<'a, T, O> {
    /// Probes through `oracle` with `settings`.
    pub fn new(oracle: &'a mut O, settings: LpmeSettings<T>) -> Self {
        LpmeProbe {
            oracle,
            settings,
            window: None,
            first: None,
            asked: 0,
        }
    }

    /// After the first probe, searches windows of half-width `window` about
    /// its direction ([`QpmeSettings::window`]).
    pub fn with_window(mut self, window: Option<T>) -> Self {
        self.window = window;
        self
    }

    /// Takes `first` as the first probe's direction (a probe sequence
    /// continued across probe objects).
    pub fn with_first(mut self, first: Option<DVector<T>>) -> Self {
        self.first = first;
        self
    }

    /// Queries asked so far.
    pub fn queries(&self) -> usize {
        self.asked
    }
}

impl<T: Scalar, O: Oracle<DVector<T>> + ?Sized> Probe<T> for LpmeProbe<'_, T, O> {
    fn probe(&mut self, sphere: &Sphere<T>, label: &str) -> Result<Probed<T>> {
        let before = self.asked;
        let est = match (&self.window, &self.first) {
            (Some(width), Some(first)) => {
                lpme_near(sphere, self.oracle, &self.settings, first, width)
            }
            _ => lpme(sphere, self.oracle, &self.settings),
        }
        .map_err(|e| match e {
            Error::Interrupted {
                queries,
                progress,
                source,
                ..
            } => Error::Interrupted {
                procedure: "QPME".into(),
                queries: before + queries,
                progress: format!("LPME on the small sphere at {label}, {progress}"),
                source,
            },
            other => other,
        })?;
        self.asked += est.queries;
        if self.first.is_none() {
            self.first = Some(est.a.clone());
        }
        let warnings = est
            .warnings
            .into_iter()
            .map(|w| Warning::new(w.cause, format!("LPME at {label}: {}", w.message)))
            .collect();
        Ok(Probed {
            unit: est.a,
            queries: est.queries,
            consistent: est.consistent,
            warnings,
        })
    }
}

/// The exact maximiser of a smooth metric on a small sphere S(c, ϱ), the
/// output of an error-free LPME: the fixed point u = unit(∇φ(c + ϱu)),
/// found by iterating from unit(∇φ(c)) (a contraction when
/// ϱ·‖Hessian‖ < ‖∇φ‖/2 on the sphere).
pub struct ExactProbe<'a, F: ?Sized> {
    metric: &'a F,
}

impl<'a, F: ?Sized> ExactProbe<'a, F> {
    /// The exact probe of `metric`.
    pub fn new(metric: &'a F) -> Self {
        ExactProbe { metric }
    }
}

/// The exact maximiser direction of `metric` on `sphere` (see
/// [`ExactProbe`]).
///
/// # Errors
/// [`Error::Assumption`] when the gradient vanishes or the iteration does
/// not settle (the sphere too large for the metric's curvature).
pub fn exact_maximiser<T: Scalar, F: GradientField<T> + ?Sized>(
    metric: &F,
    sphere: &Sphere<T>,
) -> Result<DVector<T>> {
    let c = sphere.center();
    let radius = sphere.radius();
    let unit = |g: DVector<T>| -> Result<DVector<T>> {
        let n = g.norm();
        if n == T::int(0) {
            return Err(Error::Assumption {
                assumption: "000 Assumption 4: non-zero gradients".into(),
                detail: "the gradient vanishes on the small sphere".into(),
            });
        }
        Ok(g / n)
    };
    let mut u = unit(metric.gradient(c))?;
    let tol = prec::ulps::<T>(16);
    let mut last: Option<T> = None;
    let mut stalled = 0;
    for _ in 0..4 * T::precision_bits() {
        let next = unit(metric.gradient(&(c + &u * radius.clone())))?;
        let step = &next - &u;
        let moved = step.amax();
        u = next;
        if moved <= tol {
            return Ok(u);
        }
        // Settled at the rounding of the gradient: where ∇φ is a small
        // difference of large terms its direction carries more than 16
        // ulps of rounding, and the steps, once tiny, stop shrinking. (Near
        // the fixed point the map is linear with a symmetric Jacobian on
        // the tangent space, ϱ·P B P/‖∇φ‖, so the steps' Euclidean lengths
        // shrink monotonically until rounding dominates.)
        // Two steps in a row that do not shrink, so that one noisy step
        // does not end a slow contraction early.
        let length = step.norm();
        if let Some(prev) = last.replace(length.clone()) {
            if length <= prec::ill_conditioned::<T>() && length >= prev {
                stalled += 1;
                if stalled == 2 {
                    return Ok(u);
                }
            } else {
                stalled = 0;
            }
        }
    }
    Err(Error::Assumption {
        assumption: "000 Lemma 1 on a small sphere: rho_small*||B||_2 < ||grad phi(c)||".into(),
        detail: "the maximiser on the small sphere does not settle: the sphere is too large for the metric's curvature".into(),
    })
}

impl<T: Scalar, F: GradientField<T> + ?Sized> Probe<T> for ExactProbe<'_, F> {
    fn probe(&mut self, sphere: &Sphere<T>, _: &str) -> Result<Probed<T>> {
        Ok(Probed {
            unit: exact_maximiser(self.metric, sphere)?,
            queries: 0,
            consistent: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// The unit gradient at the small sphere's centre: the paper's model of an
/// LPME on a small sphere (eqs. (6)–(8)), with which the closed form is
/// exact.
pub struct CentreProbe<'a, F: ?Sized> {
    metric: &'a F,
}

impl<'a, F: ?Sized> CentreProbe<'a, F> {
    /// The centre-gradient probe of `metric`.
    pub fn new(metric: &'a F) -> Self {
        CentreProbe { metric }
    }
}

impl<T: Scalar, F: GradientField<T> + ?Sized> Probe<T> for CentreProbe<'_, F> {
    fn probe(&mut self, sphere: &Sphere<T>, label: &str) -> Result<Probed<T>> {
        let g = self.metric.gradient(sphere.center());
        let n = g.norm();
        if n == T::int(0) {
            return Err(Error::Assumption {
                assumption: "000 Assumption 4: non-zero gradients".into(),
                detail: format!("the gradient at {label} is zero"),
            });
        }
        Ok(Probed {
            unit: g / n,
            queries: 0,
            consistent: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// One LPME of a QPME run: where, and what it returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation<T: Scalar> {
    /// The centre.
    pub centre: Centre,
    /// Its point c.
    pub at: DVector<T>,
    /// The returned unit vector f.
    pub unit: DVector<T>,
    /// The touching point c + ϱf, where f is the gradient direction.
    pub touching: DVector<T>,
    /// Queries of this LPME.
    pub queries: usize,
    /// Per angle, the consistent values.
    pub consistent: Vec<Consistent<T>>,
}

/// Runs the q + 2 probes of Alg. 1 in order: o first; then z₁..z_q; then
/// the "−z" centre, at o − δα₁ for the closed form and at o − δα_p with
/// p = argmaxᵢ|f_{i,0}| for the fit (notes R5). Returns the observations
/// and every warning.
///
/// # Errors
/// The probe's errors.
pub fn observe<T: Scalar, P: Probe<T> + ?Sized>(
    design: &Design<T>,
    probe: &mut P,
    estimator: Estimator,
) -> Result<(Vec<Observation<T>>, Vec<Warning>)> {
    observe_known(design, probe, estimator, None)
}

/// [`observe`], with the gradient's direction at o itself known (`at_o`,
/// any nonzero length) instead of probed: the first observation is then
/// that direction at the point o (`touching` = o, no queries), and the
/// other q + 1 LPMEs run as in [`observe`]. Not in the paper: fair QPME
/// knows it from its first LPME, since the violation terms vanish at o
/// ([`crate::elicit::fair_qpme::FairSettings::origin_from_a`]). Only the
/// fit uses touching points, so the closed form refuses it.
///
/// # Errors
/// The probe's errors; [`Error::InvalidArgument`] for `at_o` with the
/// closed form, of the wrong length, or without a direction.
pub fn observe_known<T: Scalar, P: Probe<T> + ?Sized>(
    design: &Design<T>,
    probe: &mut P,
    estimator: Estimator,
    at_o: Option<&DVector<T>>,
) -> Result<(Vec<Observation<T>>, Vec<Warning>)> {
    let q = design.dim();
    let mut out: Vec<Observation<T>> = Vec::with_capacity(q + 2);
    let mut warnings = Vec::new();
    let mut run = |c: Centre, out: &mut Vec<Observation<T>>| -> Result<()> {
        let sphere = design.small_sphere(c)?;
        let probed = probe.probe(&sphere, &c.label())?;
        warnings.extend(probed.warnings);
        let touching = sphere.point(&probed.unit)?;
        out.push(Observation {
            centre: c,
            at: sphere.center().clone(),
            unit: probed.unit,
            touching,
            queries: probed.queries,
            consistent: probed.consistent,
        });
        Ok(())
    };
    match at_o {
        None => run(Centre::Origin, &mut out)?,
        Some(g) => {
            if estimator != Estimator::Fit {
                return Err(Error::invalid(
                    "at_o",
                    "a known direction at o is an observation at o itself, which only the fit uses",
                ));
            }
            let norm = g.norm();
            if g.len() != q || !(norm > T::int(0) && norm.finite()) {
                return Err(Error::invalid(
                    "at_o",
                    format!("needs a nonzero finite direction of {q} coordinates"),
                ));
            }
            out.push(Observation {
                centre: Centre::Origin,
                at: design.origin().clone(),
                unit: g / norm,
                touching: design.origin().clone(),
                queries: 0,
                consistent: Vec::new(),
            });
        }
    }
    for j in 0..q {
        run(Centre::Plus(j), &mut out)?;
    }
    let minus = match estimator {
        Estimator::Paper => 0,
        Estimator::Fit => largest_coordinate(&out[0].unit),
    };
    run(Centre::Minus(minus), &mut out)?;
    Ok((out, warnings))
}

/// argmaxᵢ |vᵢ| (the first on ties).
pub fn largest_coordinate<T: Scalar>(v: &DVector<T>) -> usize {
    let mut best = 0;
    for i in 1..v.len() {
        if v[i].clone().abs() > v[best].clone().abs() {
            best = i;
        }
    }
    best
}

/// A reconstruction in the shifted form φ = ⟨d, r − o⟩ + ½(r − o)ᵀB(r − o),
/// up to a positive factor, with its diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct Shifted<T: Scalar> {
    /// d = ∇φ(o), up to the common positive factor.
    pub d: DVector<T>,
    /// B, up to the same factor.
    pub b: DMatrix<T>,
    /// The fit's singular-value gap σ_{n−1}/σ_n (`None` for the closed form).
    pub gap: Option<T>,
    /// The fit's two smallest singular values (σ_n, σ_{n−1}).
    pub singular: Option<(T, T)>,
    /// How much the solution amplifies the directions' errors: the fit's
    /// σ₁/σ_{n−1}, or the closed form's [`closed_form_condition`] (set by
    /// [`reconstruct`]; `None` straight from [`closed_form`]).
    pub condition: Option<T>,
    /// Per observation, the angle between its direction and the
    /// reconstruction's gradient at its touching point.
    pub angles: Vec<T>,
    /// Warnings about the reconstruction.
    pub warnings: Vec<Warning>,
}

/// The corrected closed form of 000 App. C on reference coordinate 1
/// (notes Q6–Q11): with F_{i,j} = f_{ij}/f_{1j} (the output at zⱼ),
/// F_{i,0} = f_{i0}/f_{10} (at o), F⁻ᵢ = f⁻ᵢ/f⁻₁ (at o − δα₁), d₁ = 1:
/// dᵢ = F_{i,0}; κ = (F⁻₂ + F_{2,1} − 2F_{2,0})/(F⁻₂ − F_{2,1});
/// δ·B_ij = F_{i,j}(1 + F_{j,1} − F_{j,0}) − F_{i,0} + F_{i,j}F_{j,1}κ for
/// i ≤ j, mirrored. `units` are f₀, f_{z₁}, …, f_{z_q}, f₋ in that order;
/// the sign is sgn(f_{1,0}).
///
/// # Errors
/// [`Error::IllConditioned`] naming the divisor when |f_{1,0}|, some
/// |f_{1,j}|, |f⁻₁| or |F⁻₂ − F_{2,1}| is at most `tolerance` (never
/// clipped); [`Error::InvalidArgument`] for the wrong number of units.
pub fn closed_form<T: Scalar>(
    units: &[DVector<T>],
    delta: &T,
    tolerance: &T,
) -> Result<Shifted<T>> {
    let Some(first) = units.first() else {
        return Err(Error::invalid("units", "none"));
    };
    let q = first.len();
    if units.len() != q + 2 {
        return Err(Error::invalid(
            "units",
            format!(
                "the closed form needs q + 2 = {} LPME outputs, got {}",
                q + 2,
                units.len()
            ),
        ));
    }
    let refuse = |name: String, value: &T| -> Result<()> {
        if value.clone().abs() <= tolerance.clone() {
            Err(Error::IllConditioned {
                what: "QPME closed form (000 App. C)".into(),
                detail: format!(
                    "the divisor {name} = {:.3e} is within the tolerance {:.3e} of zero; use estimator = \"fit\"",
                    value.to_f64_lossy(),
                    tolerance.to_f64_lossy()
                ),
            })
        } else {
            Ok(())
        }
    };
    let f0 = &units[0];
    let fm = &units[q + 1];
    refuse("f_{1,0} (LPME at o)".into(), &f0[0])?;
    for j in 0..q {
        refuse(
            format!("f_{{1,{}}} (LPME at z_{})", j + 1, j + 1),
            &units[1 + j][0],
        )?;
    }
    refuse("f^-_1 (LPME at -z_1)".into(), &fm[0])?;
    let f_at = |i: usize, j: usize| units[1 + j][i].clone() / units[1 + j][0].clone();
    let f_o = |i: usize| f0[i].clone() / f0[0].clone();
    let f_m = |i: usize| fm[i].clone() / fm[0].clone();
    let denom = f_m(1) - f_at(1, 0);
    refuse("F^-_2 - F_{2,1} (d_2 B_11 - d_1 B_21)".into(), &denom)?;
    let kappa = (f_m(1) + f_at(1, 0) - f_o(1) * T::int(2)) / denom;
    let d = DVector::from_fn(q, |i, _| f_o(i));
    let mut b = DMatrix::from_element(q, q, T::int(0));
    let one = T::int(1);
    for j in 0..q {
        let fj1 = f_at(j, 0);
        for i in 0..=j {
            let fij = f_at(i, j);
            let v = fij.clone() * (one.clone() + fj1.clone() - f_o(j)) - f_o(i)
                + fij * fj1.clone() * kappa.clone();
            let v = v / delta.clone();
            b[(i, j)] = v.clone();
            b[(j, i)] = v;
        }
    }
    let (d, b) = if f0[0] < T::int(0) { (-d, -b) } else { (d, b) };
    Ok(Shifted {
        d,
        b,
        gap: None,
        singular: None,
        condition: None,
        angles: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The fit (notes R1–R6) of (d, B) to observations at their touching
/// points, with the gap warnings.
///
/// # Errors
/// As [`fit_quadratic`].
pub fn fit<T: Scalar>(observations: &[Observation<T>], o: &DVector<T>) -> Result<Shifted<T>> {
    let dirs: Vec<Direction<T>> = observations
        .iter()
        .map(|ob| Direction {
            x: &ob.touching - o,
            u: ob.unit.clone(),
        })
        .collect();
    let q = o.len();
    let result = fit_quadratic(&dirs)?;
    let (d, b) = QuadraticModel { q }.split(&result.theta);
    let mut warnings = gap_warnings(&result.gap);
    for j in &result.reversed {
        warnings.push(Warning::new(
            Cause::Contradictory,
            format!(
                "the fitted gradient at {} points against the LPME's direction: no quadratic metric agrees with all the answers",
                observations[*j].centre.label()
            ),
        ));
    }
    Ok(Shifted {
        d,
        b,
        gap: Some(result.gap),
        singular: Some((result.sigma_min, result.sigma_next)),
        condition: Some(result.condition),
        angles: result.angles,
        warnings,
    })
}

/// Warnings for a singular-value gap (see [`UNIDENTIFIABLE_GAP`]).
pub fn gap_warnings<T: Scalar>(gap: &T) -> Vec<Warning> {
    if *gap < T::int(UNIDENTIFIABLE_GAP) {
        vec![Warning::new(
            Cause::Unidentifiable,
            format!(
                "singular-value gap {:.3}: a second direction of (d, B) fits the answers as well; B along d d^T cannot be identified by any comparison (000 Q13: e.g. a linear metric)",
                gap.to_f64_lossy()
            ),
        )]
    } else if *gap < T::int(WEAK_GAP) {
        vec![Warning::new(
            Cause::IllConditioned,
            format!(
                "singular-value gap {:.3}: one direction of (d, B) (typically B along d d^T) is determined only to about {:.0}% of its size",
                gap.to_f64_lossy(),
                100.0 / gap.to_f64_lossy()
            ),
        )]
    } else {
        Vec::new()
    }
}

/// (a, B) from the shifted form: a = d − Bo, scaled to
/// ‖a‖₂² + ‖B‖²_F = 1 (Def. 3). Returns (a, B, d) with d scaled alike.
///
/// # Errors
/// [`Error::IllConditioned`] for a zero reconstruction.
pub fn unshift<T: Scalar>(
    shifted: &Shifted<T>,
    o: &DVector<T>,
) -> Result<(DVector<T>, DMatrix<T>, DVector<T>)> {
    let a = &shifted.d - &shifted.b * o;
    let norm = (a.norm_squared() + shifted.b.norm_squared()).sqrt();
    if norm <= T::int(0) || !norm.finite() {
        return Err(Error::IllConditioned {
            what: "QPME reconstruction".into(),
            detail: format!("the reconstruction has norm {norm}"),
        });
    }
    Ok((
        a / norm.clone(),
        &shifted.b / norm.clone(),
        &shifted.d / norm,
    ))
}

/// Settings of [`qpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct QpmeSettings<T> {
    /// The LPME run on each small sphere.
    pub lpme: LpmeSettings<T>,
    /// ϱ, the small spheres' radius.
    pub small_radius: T,
    /// The reconstruction.
    pub estimator: Estimator,
    /// Not in the paper: the half-width of the windows, about the first
    /// LPME's angles (the gradient at o), in which the other q + 1 LPMEs
    /// search ([`crate::elicit::lpme::lpme_near`]: no orthant queries, an
    /// edge crossed where the answers push past it); `None`: every LPME
    /// runs on its own as `lpme` says.
    pub window: Option<T>,
}

impl<T: Scalar> QpmeSettings<T> {
    /// 000's setting (App. A, App. H): LPMEs with ≤ 3-query adaptive
    /// halving, 3 cycles in the paper's angle order, and the closed form.
    pub fn paper(eps: Tolerance<T>, small_radius: T) -> Self {
        QpmeSettings {
            lpme: LpmeSettings::paper(eps, Strategy::Adaptive, 3),
            small_radius,
            estimator: Estimator::Paper,
            window: None,
        }
    }

    /// The efficient setting: one reverse-order cycle of golden-section
    /// searches per LPME (each angle found once its later angles are, see
    /// [`AngleOrder::Reverse`]) at tolerance `eps`, the first LPME checking
    /// its orthant's edges ([`Orthant::DetectAndCheck`]) and the others
    /// searching windows of half-width 0.2 rad about its angles
    /// ([`QpmeSettings::window`]), and the joint fit.
    pub fn efficient(eps: Tolerance<T>, small_radius: T) -> Self {
        QpmeSettings {
            lpme: LpmeSettings {
                eps,
                strategy: Strategy::Golden,
                cycles: 1,
                orthant: Orthant::DetectAndCheck,
                order: AngleOrder::Reverse,
                stop_early: false,
            },
            small_radius,
            estimator: Estimator::Fit,
            window: Some(T::ratio(1, 5)),
        }
    }
}

/// The result of [`qpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct QpmeEstimate<T: Scalar> {
    /// â (‖â‖₂² + ‖B̂‖²_F = 1).
    pub a: DVector<T>,
    /// B̂ (symmetric).
    pub b: DMatrix<T>,
    /// d̂ = â + B̂o, the gradient at o in the same scale.
    pub d: DVector<T>,
    /// The estimator used.
    pub estimator: Estimator,
    /// The fit's singular-value gap (`None` for the closed form).
    pub gap: Option<T>,
    /// The fit's two smallest singular values.
    pub singular: Option<(T, T)>,
    /// How much the estimate amplifies the directions' errors: the fit's
    /// σ₁/σ_{n−1}, or the closed form's [`closed_form_condition`].
    pub condition: Option<T>,
    /// The eigenvalues of B̂, ascending (Def. 3 asks for all ≤ 0).
    pub eigenvalues: Vec<T>,
    /// The q + 2 LPMEs.
    pub observations: Vec<Observation<T>>,
    /// Total oracle queries.
    pub queries: usize,
    /// Why the estimate is less certain than ε promises, where it is.
    pub warnings: Vec<Warning>,
}

/// The divisor tolerance of the closed form for LPME outputs found to
/// within `eps` per angle: a first coordinate no larger than ε (in a unit
/// vector) is within the search's own uncertainty, its sign included.
pub fn closed_form_tolerance<T: Scalar>(eps: &T) -> T {
    eps.clone().max(prec::ill_conditioned::<T>())
}

/// The closed form's condition: the Frobenius norm of the derivative of
/// the normalized (â, B̂) with respect to the q + 2 LPME directions, by
/// forward differences of step `tolerance` (the directions' accuracy) at
/// the working precision. Each of the q(q + 2) coordinates is moved in turn,
/// so the number is what an error of the answers' size does to the
/// estimate, the closed-form counterpart of the fit's σ₁/σ_{n−1}.
///
/// A step that makes a divisor vanish (the closed form refuses it) gives
/// an infinite condition: the answers cannot tell the divisor's sign.
///
/// # Errors
/// [`Error::IllConditioned`] from [`unshift`] on a zero reconstruction.
pub fn closed_form_condition<T: Scalar>(
    units: &[DVector<T>],
    design: &Design<T>,
    tolerance: &T,
    shifted: &Shifted<T>,
) -> Result<T> {
    let o = design.origin();
    let (a, b, _) = unshift(shifted, o)?;
    let mut moved = units.to_vec();
    let mut total = T::int(0);
    for i in 0..units.len() {
        for c in 0..units[i].len() {
            moved[i][c] = units[i][c].clone() + tolerance.clone();
            let step = closed_form(&moved, design.delta(), tolerance).and_then(|s| unshift(&s, o));
            moved[i][c] = units[i][c].clone();
            let Ok((a2, b2, _)) = step else {
                // +∞ in both backends (IEEE and MPFR division by zero).
                return Ok(T::int(1) / T::int(0));
            };
            total = total + (a2 - &a).norm_squared() + (b2 - &b).norm_squared();
        }
    }
    Ok(total.sqrt() / tolerance.clone())
}

/// The closed form's model error (notes Q5), replayed on its own result:
/// it reads each LPME's direction, the gradient's at the touching point
/// c + ϱf, as the gradient's at the centre c. For the reconstructed φ̂ the
/// closed form is exact on the centres' gradients, so feeding it φ̂'s
/// gradients at φ̂'s touching points (to first order in ϱ) and measuring how
/// far the result moves from φ̂ gives the bias the design causes for a metric
/// like the one found: ‖(Δâ, ΔB̂)‖ on the unit-normalized metric, +∞ when
/// the replay hits a refused divisor.
fn touching_bias<T: Scalar>(
    design: &Design<T>,
    observations: &[Observation<T>],
    shifted: &Shifted<T>,
    tolerance: &T,
) -> T {
    let o = design.origin();
    let gradient = |p: &DVector<T>| &shifted.d + &shifted.b * (p - o);
    let unit = |v: DVector<T>| {
        let n = v.norm();
        v / n
    };
    let replayed: Vec<DVector<T>> = observations
        .iter()
        .map(|ob| {
            let f = unit(gradient(&ob.at));
            unit(gradient(&(&ob.at + f * design.small_radius().clone())))
        })
        .collect();
    let moved = closed_form(&replayed, design.delta(), tolerance).and_then(|r| unshift(&r, o));
    match (moved, unshift(shifted, o)) {
        (Ok((a2, b2, _)), Ok((a, b, _))) => {
            ((a2 - a).norm_squared() + (b2 - b).norm_squared()).sqrt()
        }
        // +∞ in both backends (IEEE and MPFR division by zero).
        _ => T::int(1) / T::int(0),
    }
}

/// How accurately the LPMEs' answers fix their directions: the search
/// tolerance `eps`, or, where noisy answers contradicted each other, the
/// widest range of angles they disagreed over. A reconstruction amplifies
/// it by its condition (QPME's and the cubic fit's ill-conditioned
/// warnings).
pub fn directions_accuracy<T: Scalar>(observations: &[Observation<T>], eps: &T) -> T {
    observations
        .iter()
        .flat_map(|ob| &ob.consistent)
        .fold(eps.clone(), |acc, c| match c {
            Consistent::Contradictory { above, below } => acc.max(above.clone() - below.clone()),
            Consistent::Interval { .. } => acc,
        })
}

/// The uncertainty condition · accuracy + bias of a reconstruction from
/// directions accurate to `accuracy` ([`directions_accuracy`]), when it
/// exceeds [`prec::undetermined`] (or is not finite): the threshold of
/// QPME's and the cubic fit's ill-conditioned warnings. `None` when the
/// result is determined.
pub fn undetermined<T: Scalar>(condition: &T, accuracy: &T, bias: &T) -> Option<T> {
    let uncertainty = condition.clone() * accuracy.clone() + bias.clone();
    (uncertainty > prec::undetermined::<T>() || !uncertainty.finite()).then_some(uncertainty)
}

/// Reconstructs (a, B) from the observations of [`observe`].
///
/// # Errors
/// As [`closed_form`] or [`fit`].
pub fn reconstruct<T: Scalar>(
    design: &Design<T>,
    observations: Vec<Observation<T>>,
    mut warnings: Vec<Warning>,
    estimator: Estimator,
    tolerance: &T,
) -> Result<QpmeEstimate<T>> {
    let o = design.origin();
    let shifted = match estimator {
        Estimator::Paper => {
            let units: Vec<DVector<T>> = observations.iter().map(|ob| ob.unit.clone()).collect();
            let mut shifted = closed_form(&units, design.delta(), tolerance)?;
            shifted.condition = Some(closed_form_condition(&units, design, tolerance, &shifted)?);
            shifted
        }
        Estimator::Fit => fit(&observations, o)?,
    };
    let (a, b, d) = unshift(&shifted, o)?;
    warnings.extend(shifted.warnings.iter().cloned());
    if let Some(c) = &shifted.condition {
        // Both estimators amplify the directions' error by up to their
        // condition (the fit's σ₁/σ_{n−1}, the closed form's sensitivity).
        // An exact fit (q = 2 has no redundant equation) hides this from
        // the singular-value gap, and the closed form has no redundancy at
        // all. The directions are accurate to about ε, or, where noisy
        // answers contradicted each other, to the width of the angles they
        // disagree over; the closed form moreover has its model error
        // (notes Q5), replayed on its result.
        let bias = match estimator {
            Estimator::Fit => T::int(0),
            Estimator::Paper => touching_bias(design, &observations, &shifted, tolerance),
        };
        let accuracy = directions_accuracy(&observations, tolerance);
        if let Some(uncertainty) = undetermined(c, &accuracy, &bias) {
            warnings.push(Warning::new(
                Cause::IllConditioned,
                format!(
                    "the reconstruction's condition {:.3e} times the directions' accuracy {:.1e}, plus the closed form's touching-point bias {:.1e}, exceeds {}: (a, B) is determined only to about {:.0e} ({})",
                    c.to_f64_lossy(),
                    accuracy.to_f64_lossy(),
                    bias.to_f64_lossy(),
                    prec::undetermined::<T>().to_f64_lossy(),
                    uncertainty.to_f64_lossy(),
                    match estimator {
                        Estimator::Fit => "a smaller epsilon helps",
                        Estimator::Paper => "estimator = \"fit\" has no touching-point bias",
                    }
                ),
            ));
        }
    }
    let mut eigenvalues: Vec<T> = b.clone().symmetric_eigenvalues().iter().cloned().collect();
    eigenvalues.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
    Ok(QpmeEstimate {
        a,
        b,
        d,
        estimator,
        gap: shifted.gap,
        singular: shifted.singular,
        condition: shifted.condition,
        eigenvalues,
        queries: observations.iter().map(|ob| ob.queries).sum(),
        observations,
        warnings,
    })
}

/// QPME with any probe: [`observe`] then [`reconstruct`].
///
/// # Errors
/// As [`observe`] and [`reconstruct`].
pub fn qpme_with<T: Scalar, P: Probe<T> + ?Sized>(
    design: &Design<T>,
    probe: &mut P,
    estimator: Estimator,
    tolerance: &T,
) -> Result<QpmeEstimate<T>> {
    let (observations, warnings) = observe(design, probe, estimator)?;
    reconstruct(design, observations, warnings, estimator, tolerance)
}

/// 000 Alg. 1: elicit a quadratic metric (Def. 3) of an oracle over the
/// rates of the query sphere `sphere` (diagonal rates, q = k, or the
/// general rates of App. E, q = k² − k; o = (1/k)·1 in both).
///
/// With the paper's 4-query halving it asks exactly
/// (q + 2)·(q + 4·cycles·(q − 1)·⌈log₂((π/2)/ε)⌉) queries.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad `small_radius` or ε;
/// [`Error::Interrupted`] when the oracle stops (naming the LPME);
/// [`Error::IllConditioned`] when the closed form meets a divisor below its
/// tolerance, or the fit's design is degenerate.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::qpme::{qpme, QpmeSettings};
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::metric::quadratic::{GradientField, QuadraticMetric};
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use nalgebra::{dmatrix, dvector, DVector};
/// let truth = QuadraticMetric::new(dvector![0.6, 0.5, 0.3], dmatrix![
///     -0.4, 0.1, 0.0;
///      0.1, -0.3, 0.05;
///      0.0, 0.05, -0.2]).unwrap();
/// let sphere = Sphere::new(DVector::from_element(3, 1.0 / 3.0), 0.2).unwrap();
/// let t = truth.clone();
/// let mut oracle = Counted::new(Simulated::new(move |r: &DVector<f64>| t.value(r)));
/// let est = qpme(&sphere, &mut oracle, &QpmeSettings::efficient(Tolerance::new(1e-3).unwrap(), 5e-3)).unwrap();
/// let (ea, eb) = truth.errors(&est.a, &est.b);
/// assert!(ea < 1e-2 && eb < 5e-2, "{ea} {eb}");
/// assert_eq!(est.queries, oracle.queries());
/// ```
pub fn qpme<T, O>(
    sphere: &Sphere<T>,
    oracle: &mut O,
    settings: &QpmeSettings<T>,
) -> Result<QpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<DVector<T>> + ?Sized,
{
    let design = Design::new(sphere.clone(), settings.small_radius.clone())?;
    let mut probe =
        LpmeProbe::new(oracle, settings.lpme.clone()).with_window(settings.window.clone());
    let tolerance = closed_form_tolerance(settings.lpme.eps.get());
    qpme_with(&design, &mut probe, settings.estimator, &tolerance)
}

/// Checks a quadratic metric against the design QPME will use with it: at
/// every centre (o, z₁..z_q, and the "−z" centre the estimator would
/// choose for this metric) a non-zero gradient and ϱ‖B‖₂ < ‖∇φ‖, and for
/// the closed form d₁ ≠ 0.
///
/// # Errors
/// [`Error::Assumption`] naming the condition.
pub fn check_metric<T: Scalar>(
    metric: &QuadraticMetric<T>,
    design: &Design<T>,
    estimator: Estimator,
) -> Result<()> {
    let d = metric.shifted(design.origin());
    let (minus, reference) = match estimator {
        Estimator::Paper => (0, Some(0)),
        Estimator::Fit => (largest_coordinate(&d), None),
    };
    metric.check_design(&design.labelled(minus), design.small_radius(), reference)
}

/// [`check_centres`] for any gradient field on the design's centres.
///
/// # Errors
/// As [`check_centres`].
pub fn check_field<T: Scalar, F: GradientField<T> + ?Sized>(
    metric: &F,
    design: &Design<T>,
) -> Result<()> {
    let d = metric.gradient(design.origin());
    check_centres(
        metric,
        &design.labelled(largest_coordinate(&d)),
        design.small_radius(),
    )
}

/// About how many queries QPME's q + 2 LPMEs take: the first as
/// [`lpme_queries`], and with a window the others search windows of width
/// 2w without orthant queries (crossings not counted). With `origin_known`
/// (fair QPME's [`crate::elicit::fair_qpme::FairSettings::origin_from_a`])
/// the first is not asked and every other LPME is.
pub fn qpme_queries<T: Scalar>(
    q: usize,
    lpme: &LpmeSettings<T>,
    window: &Option<T>,
    origin_known: bool,
) -> Option<usize> {
    let first = lpme_queries(q, lpme)?;
    let other = match window {
        Some(w) => {
            let width = (w.clone() * T::int(2)).min(T::frac_pi_2());
            lpme.cycles
                * (q - 1)
                * crate::search::expected_queries(lpme.strategy, &width, &lpme.eps)?
        }
        None => first,
    };
    Some(usize::from(!origin_known) * first + (q + 1) * other)
}

/// The distance of `p` from the optimum of the small sphere (radius
/// `small`) among `centres` nearest to it: the exact maximiser of `field`
/// there (the push-away adversary's distance on QPME's and the cubic
/// procedure's designs).
pub fn nearest_optimum<T: Scalar, F: GradientField<T> + ?Sized>(
    field: &F,
    centres: &[DVector<T>],
    small: &T,
    p: &DVector<T>,
) -> Option<T> {
    let c = centres
        .iter()
        .min_by(|x, y| {
            (*x - p)
                .norm()
                .partial_cmp(&(*y - p).norm())
                .unwrap_or(std::cmp::Ordering::Equal)
        })?
        .clone();
    let sphere = Sphere::new(c, small.clone()).ok()?;
    let u = exact_maximiser(field, &sphere).ok()?;
    Some((sphere.point(&u).ok()? - p).norm())
}

/// QPME (000 Alg. 1; general rates App. E) as a typed algorithm: the
/// design (the query sphere and the small radius) and the settings; q + 2
/// LPMEs on small spheres, then the joint fit (or the corrected closed
/// form of App. C, eq. 18).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::qpme::{Design, Qpme, QpmeSettings};
/// use metric_elicitation::elicit::Elicitation;
/// use metric_elicitation::geometry::sphere::Sphere;
/// use metric_elicitation::metric::quadratic::QuadraticMetric;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::search::Tolerance;
/// use nalgebra::{dmatrix, dvector};
/// let sphere = Sphere::new(dvector![0.5, 0.5], 0.2).unwrap();
/// let design = Design::new(sphere, 5e-3).unwrap();
/// let qpme = Qpme::new(design, QpmeSettings::efficient(Tolerance::new(1e-3).unwrap(), 5e-3));
/// let truth = QuadraticMetric::new(dvector![0.6, 0.5], dmatrix![-0.4, 0.1; 0.1, -0.3]).unwrap();
/// let mut oracle = Counted::new(Simulated::new(truth.clone()));
/// let est = qpme.elicit(&mut oracle).unwrap();
/// let (ea, eb) = truth.errors(&est.a, &est.b);
/// assert!(ea < 0.05 && eb < 0.05);
/// ```
#[derive(Debug, Clone)]
pub struct Qpme<T: Scalar> {
    design: Design<T>,
    settings: QpmeSettings<T>,
}

impl<T: Scalar> Qpme<T> {
    /// QPME on `design` with `settings`.
    pub fn new(design: Design<T>, settings: QpmeSettings<T>) -> Self {
        Qpme { design, settings }
    }

    /// The design (query sphere and small radius).
    pub fn design(&self) -> &Design<T> {
        &self.design
    }

    /// The QPME settings.
    pub fn settings(&self) -> &QpmeSettings<T> {
        &self.settings
    }

    /// The centres of the design's small spheres: o and o ± δαⱼ.
    pub fn centres(&self) -> Vec<DVector<T>> {
        let q = self.design.dim();
        let mut out = vec![self.design.origin().clone()];
        for j in 0..q {
            out.push(self.design.centre(Centre::Plus(j)));
            out.push(self.design.centre(Centre::Minus(j)));
        }
        out
    }
}

impl<T: Scalar> Elicitation<T> for Qpme<T> {
    type Point = DVector<T>;
    type Estimate = QpmeEstimate<T>;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn elicit(&self, oracle: &mut dyn Oracle<DVector<T>>) -> Result<QpmeEstimate<T>> {
        qpme(self.design.sphere(), oracle, &self.settings)
    }

    fn expected_queries(&self) -> Option<usize> {
        qpme_queries(
            self.design.dim(),
            &self.settings.lpme,
            &self.settings.window,
            false,
        )
    }
}
