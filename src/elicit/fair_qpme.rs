//! Fair quadratic metric elicitation: 000 §4.3 and App. D, Alg. 4 (all of
//! (a, 𝔹, λ)) and Alg. 5 (λ alone for known a and 𝔹), on the group model of
//! [`crate::geometry::groups`].
//!
//! Alg. 4, corrected as in `notes/000-quadratic.md` F1–F8:
//! 1. â from one LPME on the common sphere S̄ with every group at the same
//!    point s ([`Embedding::Uniform`]): the utility is ±(1 − λ)⟨a, s⟩ +
//!    const (+ in diagonal rates, − in general rates, see
//!    [`FairQuadraticMetric`]), so the LPME returns ±â directly (F4).
//! 2. For each σ of the partitions M ([`Partitions`]): a QPME
//!    ([`crate::elicit::qpme`]) on S̄ with the groups in σ at s and the
//!    others at o ([`Embedding::Quadratic`]). Its utility is
//!    ±(1 − λ)⟨τ^σ ⊙ a, s − o⟩ − (λ/2)(s − o)ᵀW^σ(s − o) + const with
//!    W^σ = Σ_{u∈σ, v∉σ}B^{uv} (F2), so it returns (d̂, B̂) ∝
//!    (±(1 − λ)τ^σ ⊙ a, −λW^σ) with an unknown positive factor c (F3).
//!    The factor's (1 − λ)-part is read off d̂ against τ^σ ⊙ â by least
//!    squares, c(1 − λ) = ⟨d̂, v⟩/⟨v, v⟩ with v = ±τ^σ ⊙ â (not in the
//!    paper; eq. (22) divides by one coordinate, and F5's ‖d̂ ⊘ τ^σ‖
//!    divides by every τ^σ_i), giving W̃^σ = (λ/(1 − λ))W^σ =
//!    −B̂/(c(1 − λ)).
//! 3. B̃^{uv} = Ξ⁻¹W̃ entrywise (eqs. 23–24, F6).
//! 4. ν = ½Σ‖B̃^{uv}‖_F = λ/(1 − λ): λ̂ = ν/(1 + ν), B̂^{uv} = B̃^{uv}/ν (F7).
//!
//! Queries: one LPME plus |M| = C(m, 2) QPMEs of q + 2 LPMEs each (N4);
//! q + 1 each with [`FairSettings::origin_from_a`] (not in the paper: at o
//! the violation terms vanish, so step 1 already gives each σ's direction
//! there, ±τ^σ ⊙ â), and the LPME for â runs to ε/2. On App. H Table 1's
//! cells that takes the efficient setting from 18.5–19.3 % to 14.5–16.5 %
//! of the paper setting's queries, with â now more accurate than the paper
//! setting's in every cell.
//!
//! Alg. 5 ([`tradeoff`]): group 1 on a small sphere S(z₁, ϱ), z₁ = o + δα₁,
//! the others at o; a unimodal search over λ′ ∈ [0, 1] of the point that
//! is optimal on that sphere for the model metric with trade-off λ′. The
//! paper puts the cost slope in an argmax (line 5); the utility slope is
//! used (F9).

use super::lpme::{lpme_queries, LpmeSettings};
use super::qpme::{
    closed_form_tolerance, exact_maximiser, observe_known, qpme_queries, reconstruct, Design,
    LpmeProbe, Probe, Probed, QpmeEstimate, QpmeSettings,
};
use super::Elicitation;
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::groups::{Embedding, GroupRates, Groups, Partitions, Restricted};
use crate::geometry::sphere::Sphere;
use crate::metric::quadratic::{spectral_norm, FairQuadraticMetric, GradientField};
use crate::oracle::Oracle;
use crate::scalar::Scalar;
use crate::search::{maximize, Consistent, Strategy, Tolerance};
use nalgebra::{DMatrix, DVector};

/// The utility of a fair metric seen through an embedding "the groups in σ
/// at s, the others at o" (σ = every group: the uniform embedding), as a
/// gradient field over s: ∇U(s) = ±(1 − λ)τ^σ ⊙ a − λW^σ(s − o).
#[derive(Debug, Clone)]
pub struct RestrictedFair<'a, T: Scalar> {
    metric: &'a FairQuadraticMetric<T>,
    groups: &'a Groups<T>,
    moving: Vec<usize>,
    linear: DVector<T>,
    w: DMatrix<T>,
}

impl<'a, T: Scalar> RestrictedFair<'a, T> {
    /// The utility over s when the groups `moving` take s and the others o.
    pub fn new(
        metric: &'a FairQuadraticMetric<T>,
        groups: &'a Groups<T>,
        moving: &[usize],
    ) -> Self {
        let tau = groups.tau_sum(moving);
        let factor = metric.orientation() * (T::int(1) - metric.lambda().clone());
        let linear = tau.component_mul(metric.a()) * factor;
        let w = metric.cut_weights(moving) * metric.lambda().clone();
        RestrictedFair {
            metric,
            groups,
            moving: moving.to_vec(),
            linear,
            w,
        }
    }

    fn embed(&self, s: &DVector<T>) -> GroupRates<T> {
        let o = self.groups.centre();
        let rates: Vec<DVector<T>> = (0..self.groups.groups())
            .map(|g| {
                if self.moving.contains(&g) {
                    s.clone()
                } else {
                    o.clone()
                }
            })
            .collect();
        // Shapes are the population's by construction.
        GroupRates::new(&rates).unwrap_or_else(|_| GroupRates::uniform(s, self.groups.groups()))
    }
}

impl<T: Scalar> GradientField<T> for RestrictedFair<'_, T> {
    fn dim(&self) -> usize {
        self.linear.len()
    }
    fn value(&self, s: &DVector<T>) -> T {
        -self.metric.cost(&self.embed(s), self.groups)
    }
    fn gradient(&self, s: &DVector<T>) -> DVector<T> {
        &self.linear - &self.w * (s - self.groups.centre())
    }
    fn curvature_bound(&self, _: &DVector<T>, _: &T) -> T {
        spectral_norm(&self.w)
    }
}

/// The probes of a fair procedure: a unit gradient direction on a sphere
/// with the groups in σ at s (σ = `None`: every group).
pub trait FairProbe<T: Scalar> {
    /// Probes `sphere` through the embedding of `sigma`.
    ///
    /// # Errors
    /// Whatever stops the probe.
    fn probe(
        &mut self,
        sigma: Option<&[usize]>,
        sphere: &Sphere<T>,
        label: &str,
    ) -> Result<Probed<T>>;

    /// Told the direction at o of σ's QPME before its LPMEs run (when
    /// [`FairSettings::origin_from_a`] takes it from the first LPME), so
    /// that windows can centre on it. The default ignores it.
    fn predict(&mut self, _sigma: &[usize], _at_o: &DVector<T>) {}
}

/// LPMEs through the restricted oracles of [`Restricted`] over an oracle of
/// m groups' rates.
pub struct FairLpmeProbe<'a, T: Scalar, O: Oracle<GroupRates<T>> + ?Sized> {
    groups: &'a Groups<T>,
    oracle: &'a mut O,
    settings: LpmeSettings<T>,
    window: Option<T>,
    /// The tolerance of the LPME with every group moved (σ = `None`), when
    /// it differs from `settings.eps`.
    first_eps: Option<Tolerance<T>>,
    /// Per σ, its first LPME's direction (the gradient at o).
    firsts: Vec<(Vec<usize>, DVector<T>)>,
    asked: usize,
}

impl<'a, T: Scalar, O: Oracle<GroupRates<T>> + ?Sized> FairLpmeProbe<'a, T, O> {
    /// LPMEs with `settings` through `oracle`.
    pub fn new(groups: &'a Groups<T>, oracle: &'a mut O, settings: LpmeSettings<T>) -> Self {
        FairLpmeProbe {
            groups,
            oracle,
            settings,
            window: None,
            first_eps: None,
            firsts: Vec::new(),
            asked: 0,
        }
    }

    /// Within each σ's QPME, after its first LPME the others search
    /// windows of half-width `window` about its direction
    /// ([`crate::elicit::qpme::QpmeSettings::window`]).
    pub fn with_window(mut self, window: Option<T>) -> Self {
        self.window = window;
        self
    }

    /// The LPME with every group moved (the one giving â) searches to
    /// `eps` instead of the settings' tolerance.
    pub fn with_first_eps(mut self, eps: Tolerance<T>) -> Self {
        self.first_eps = Some(eps);
        self
    }
}

impl<T: Scalar, O: Oracle<GroupRates<T>> + ?Sized> FairProbe<T> for FairLpmeProbe<'_, T, O> {
    fn probe(
        &mut self,
        sigma: Option<&[usize]>,
        sphere: &Sphere<T>,
        label: &str,
    ) -> Result<Probed<T>> {
        let embedding = match sigma {
            None => Embedding::Uniform,
            Some(s) => Embedding::Quadratic { sigma: s.to_vec() },
        };
        let mut restricted = Restricted::new(self.groups, embedding, &mut *self.oracle)?;
        let before = self.asked;
        let first = sigma.and_then(|s| {
            self.firsts
                .iter()
                .find(|(t, _)| t.as_slice() == s)
                .map(|(_, u)| u.clone())
        });
        let mut settings = self.settings.clone();
        if let (None, Some(eps)) = (sigma, &self.first_eps) {
            settings.eps = eps.clone();
        }
        let mut inner = LpmeProbe::new(&mut restricted, settings)
            .with_window(self.window.clone())
            .with_first(first.clone());
        let probed = inner.probe(sphere, label).map_err(|e| match e {
            Error::Interrupted {
                queries,
                progress,
                source,
                ..
            } => Error::Interrupted {
                procedure: "fair QPME".into(),
                queries: before + queries,
                progress,
                source,
            },
            other => other,
        })?;
        self.asked += probed.queries;
        if let (Some(s), None) = (sigma, first) {
            self.firsts.push((s.to_vec(), probed.unit.clone()));
        }
        Ok(probed)
    }

    fn predict(&mut self, sigma: &[usize], at_o: &DVector<T>) {
        if !self.firsts.iter().any(|(t, _)| t.as_slice() == sigma) {
            self.firsts.push((sigma.to_vec(), at_o.normalize()));
        }
    }
}

/// Exact gradient directions of a known fair metric (the maximiser on each
/// sphere, [`exact_maximiser`]), or with `centre` the gradient at the
/// sphere's centre (the paper's model of an LPME).
pub struct FairExactProbe<'a, T: Scalar> {
    metric: &'a FairQuadraticMetric<T>,
    groups: &'a Groups<T>,
    centre: bool,
}

impl<'a, T: Scalar> FairExactProbe<'a, T> {
    /// The exact probe (maximisers on the spheres).
    pub fn new(metric: &'a FairQuadraticMetric<T>, groups: &'a Groups<T>) -> Self {
        FairExactProbe {
            metric,
            groups,
            centre: false,
        }
    }

    /// The centre-gradient probe.
    pub fn at_centres(metric: &'a FairQuadraticMetric<T>, groups: &'a Groups<T>) -> Self {
        FairExactProbe {
            metric,
            groups,
            centre: true,
        }
    }
}

impl<T: Scalar> FairProbe<T> for FairExactProbe<'_, T> {
    fn probe(
        &mut self,
        sigma: Option<&[usize]>,
        sphere: &Sphere<T>,
        label: &str,
    ) -> Result<Probed<T>> {
        let all: Vec<usize> = (0..self.groups.groups()).collect();
        let field = RestrictedFair::new(self.metric, self.groups, sigma.unwrap_or(&all));
        let unit = if self.centre {
            let g = field.gradient(sphere.center());
            let n = g.norm();
            if n == T::int(0) {
                return Err(Error::Assumption {
                    assumption: "000 Assumption 4: non-zero gradients".into(),
                    detail: format!("the gradient at {label} is zero"),
                });
            }
            g / n
        } else {
            exact_maximiser(&field, sphere)?
        };
        Ok(Probed {
            unit,
            queries: 0,
            consistent: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// A [`FairProbe`] seen as a QPME [`Probe`] for one σ.
struct ForSigma<'p, 's, T: Scalar> {
    inner: &'p mut dyn FairProbe<T>,
    sigma: &'s [usize],
}

impl<T: Scalar> Probe<T> for ForSigma<'_, '_, T> {
    fn probe(&mut self, sphere: &Sphere<T>, label: &str) -> Result<Probed<T>> {
        let name: Vec<String> = self.sigma.iter().map(|g| (g + 1).to_string()).collect();
        self.inner.probe(
            Some(self.sigma),
            sphere,
            &format!("{label} (groups {{{}}} moved)", name.join(",")),
        )
    }
}

/// Settings of [`fair_qpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct FairSettings<T> {
    /// Every QPME's settings: its LPMEs (also the first LPME, on S̄), ϱ
    /// of its small spheres, its reconstruction and, within each QPME, the
    /// windows of its LPMEs after the first
    /// ([`crate::elicit::qpme::QpmeSettings::window`]).
    pub qpme: QpmeSettings<T>,
    /// Not in the paper: each σ's QPME takes its gradient direction at o
    /// from the first LPME instead of asking an LPME on S(o, ϱ). At o the
    /// violation terms vanish, so that direction is ±(1 − λ)τ^σ ⊙ a, i.e.
    /// τ^σ ⊙ (the first LPME's direction); the QPME then needs q + 1
    /// LPMEs, not q + 2 ([`crate::elicit::qpme::observe_known`]). Only
    /// with [`super::qpme::Estimator::Fit`] (the closed form reads every direction at
    /// its small sphere's touching point). Where that one LPME then stands
    /// in for an observation of every one of |M| ≥ 2 QPMEs (m ≥ 3), so
    /// that its error is shared by all their fits instead of averaging out,
    /// [`fair_qpme`] runs it to ε/2 ([`FairSettings::first_eps`],
    /// [`FairLpmeProbe::with_first_eps`]): q − 1 more queries with
    /// bisection, about 1.44(q − 1) with golden section. With m = 2 it
    /// serves one fit, as any other LPME does, and runs to ε. Measured on
    /// App. H Table 1's cells (1000 metrics each, bisection at ε/4): with
    /// the rule, â, B̂ and λ̂ are no less accurate than the paper
    /// setting's in every cell; halving at m = 2 too costs 0.2 % of the
    /// paper's queries more for no needed gain, and never halving leaves λ̂
    /// at m = 5, k = 2 worse than the paper setting's (3.2·10⁻² against
    /// 2.8·10⁻²).
    pub origin_from_a: bool,
}

impl<T: Scalar> FairSettings<T> {
    /// The tolerance of the first LPME (the one for â) with `m` groups:
    /// ε/2 when [`FairSettings::origin_from_a`] makes its direction an
    /// observation of C(m, 2) ≥ 2 QPMEs (m ≥ 3), else ε.
    ///
    /// # Examples
    /// ```
    /// use metric_elicitation::search::Tolerance;
    /// use metric_elicitation::elicit::fair_qpme::FairSettings;
    /// use metric_elicitation::elicit::qpme::QpmeSettings;
    /// let q = QpmeSettings::efficient(Tolerance::new(0.01).unwrap(), 5e-3);
    /// let s = FairSettings { qpme: QpmeSettings { window: None, ..q }, origin_from_a: true };
    /// assert_eq!(*s.first_eps(2), 0.01);
    /// assert_eq!(*s.first_eps(3), 0.005);
    /// ```
    pub fn first_eps(&self, m: usize) -> Tolerance<T> {
        if self.origin_from_a && m >= 3 {
            self.qpme.lpme.eps.scaled(1, 2)
        } else {
            self.qpme.lpme.eps.clone()
        }
    }
}

/// The estimate of [`fair_qpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct FairEstimate<T: Scalar> {
    /// â (‖â‖₂ = 1).
    pub a: DVector<T>,
    /// B̂^{uv} in the order of [`crate::geometry::groups::pairs`]
    /// (½Σ‖B̂^{uv}‖_F = 1).
    pub b: Vec<DMatrix<T>>,
    /// λ̂ = ν/(1 + ν).
    pub lambda: T,
    /// ν = ½Σ‖B̃^{uv}‖_F = λ̂/(1 − λ̂).
    pub nu: T,
    /// The first LPME's consistent angle intervals.
    pub consistent: Vec<Consistent<T>>,
    /// The QPME of each σ ∈ M, in the order of [`Partitions::sets`].
    pub parts: Vec<QpmeEstimate<T>>,
    /// The smallest eigenvalue of each B̂^{uv} (Def. 4 asks for ≥ 0).
    pub lowest_eigenvalues: Vec<T>,
    /// Total oracle queries.
    pub queries: usize,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// 000 Alg. 4 with any probe (see the module docs).
///
/// # Errors
/// The probes' errors; [`Error::IllConditioned`] when a QPME's linear part
/// carries no (1 − λ)-signal (c(1 − λ) ≤ 0) or ν = 0 (λ = 0: the
/// violation weights are unidentifiable); the QPME errors.
pub fn fair_qpme_with<T: Scalar>(
    groups: &Groups<T>,
    probe: &mut dyn FairProbe<T>,
    settings: &FairSettings<T>,
) -> Result<FairEstimate<T>> {
    let m = groups.groups();
    let partitions = Partitions::<T>::new(m)?;
    let orientation = match groups.rates() {
        crate::geometry::groups::Rates::Diagonal => T::int(1),
        crate::geometry::groups::Rates::General => T::int(-1),
    };
    let first = probe.probe(None, groups.sphere(), "o (every group moved)")?;
    let mut warnings = first.warnings;
    let a = &first.unit * orientation.clone();
    let mut queries = first.queries;
    let tiny = crate::prec::ill_conditioned::<T>();
    if let Some((i, v)) = a
        .iter()
        .enumerate()
        .find(|(_, v)| **v < -settings.qpme.lpme.eps.get().clone())
    {
        warnings.push(Warning::new(
            Cause::Contradictory,
            format!(
                "a_{} = {:.4} < 0: Def. 4 has a >= 0; the answers contradict a fair metric",
                i + 1,
                v.to_f64_lossy()
            ),
        ));
    }
    let design = Design::new(groups.sphere().clone(), settings.qpme.small_radius.clone())?;
    let tolerance = closed_form_tolerance(settings.qpme.lpme.eps.get());
    let q = groups.dim();
    let mut parts = Vec::with_capacity(partitions.sets().len());
    let mut gamma = Vec::with_capacity(partitions.sets().len());
    for sigma in partitions.sets() {
        let mut sub = ForSigma {
            inner: &mut *probe,
            sigma,
        };
        // τ^σ ⊙ â·orientation = τ^σ ⊙ (the first direction): the gradient
        // direction at o of σ's restricted utility (orientation is ±1).
        let v = groups.tau_sum(sigma).component_mul(&first.unit);
        let at_o = settings.origin_from_a.then(|| {
            sub.inner.predict(sigma, &v);
            &v
        });
        let (observations, w) = observe_known(&design, &mut sub, settings.qpme.estimator, at_o)?;
        let part = reconstruct(
            &design,
            observations,
            w,
            settings.qpme.estimator,
            &tolerance,
        )?;
        queries += part.queries;
        let vv = v.norm_squared();
        let scale = part.d.dot(&v) / vv;
        let label: Vec<String> = sigma.iter().map(|g| (g + 1).to_string()).collect();
        if scale <= tiny || !scale.finite() {
            return Err(Error::IllConditioned {
                what: "fair QPME".into(),
                detail: format!(
                    "the QPME with groups {{{}}} moved has no linear part along tau ⊙ a (scale {:.3e}): lambda = 1 or a contradictory oracle",
                    label.join(","),
                    scale.to_f64_lossy()
                ),
            });
        }
        let w_tilde = -&part.b / scale;
        gamma.push(DVector::from_column_slice(w_tilde.as_slice()));
        warnings.extend(part.warnings.iter().map(|w| {
            Warning::new(
                w.cause,
                format!("QPME for groups {{{}}}: {}", label.join(","), w.message),
            )
        }));
        parts.push(part);
    }
    let tilde: Vec<DMatrix<T>> = partitions
        .solve(&gamma)?
        .into_iter()
        .map(|v| {
            let m = DMatrix::from_column_slice(q, q, v.as_slice());
            (&m + m.transpose()) * T::ratio(1, 2)
        })
        .collect();
    let nu = tilde.iter().fold(T::int(0), |s, b| s + b.norm()) / T::int(2);
    if nu <= tiny || !nu.finite() {
        return Err(Error::IllConditioned {
            what: "fair QPME".into(),
            detail:
                "every violation weight came out zero (lambda = 0): the B^{uv} are unidentifiable"
                    .into(),
        });
    }
    let lambda = nu.clone() / (T::int(1) + nu.clone());
    let b: Vec<DMatrix<T>> = tilde.into_iter().map(|t| t / nu.clone()).collect();
    let lowest: Vec<T> = b
        .iter()
        .map(|m| m.clone().symmetric_eigenvalues().min())
        .collect();
    for ((u, v), low) in crate::geometry::groups::pairs(m).into_iter().zip(&lowest) {
        if *low < -settings.qpme.lpme.eps.get().clone() {
            warnings.push(Warning::new(
                Cause::IllConditioned,
                format!(
                    "B^({},{}) has eigenvalue {:.4} < 0 (Def. 4 asks for PSD): estimation error, not clipped",
                    u + 1,
                    v + 1,
                    low.to_f64_lossy()
                ),
            ));
        }
    }
    Ok(FairEstimate {
        a,
        b,
        lambda,
        nu,
        consistent: first.consistent,
        parts,
        lowest_eigenvalues: lowest,
        queries,
        warnings,
    })
}

/// 000 Alg. 4: elicit a fair quadratic metric (Def. 4) of an oracle over m
/// groups' rates (diagonal or general, as `groups` says).
///
/// # Errors
/// As [`fair_qpme_with`]; [`Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::fair_qpme::{fair_qpme, FairSettings};
/// use metric_elicitation::elicit::qpme::QpmeSettings;
/// use metric_elicitation::geometry::groups::{GroupRates, Groups, Rates};
/// use metric_elicitation::metric::quadratic::FairQuadraticMetric;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use nalgebra::{dmatrix, dvector};
/// let groups = Groups::with_rates(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None, Rates::Diagonal).unwrap();
/// let truth = FairQuadraticMetric::normalized(
///     dvector![0.6, 0.8], vec![dmatrix![1.0, 0.2; 0.2, 0.5]], 0.4, Rates::Diagonal).unwrap();
/// let (t, g) = (truth.clone(), groups.clone());
/// let mut oracle = Counted::new(Simulated::new(move |r: &GroupRates<f64>| -t.cost(r, &g)));
/// let q = QpmeSettings::efficient(Tolerance::new(1e-4).unwrap(), 5e-3);
/// let settings = FairSettings { qpme: QpmeSettings { window: None, ..q }, origin_from_a: true };
/// let est = fair_qpme(&groups, &mut oracle, &settings).unwrap();
/// let (ea, eb, el) = truth.errors(&est.a, &est.b, &est.lambda);
/// assert!(ea < 1e-3 && eb < 2e-2 && el < 1e-2, "{ea} {eb} {el}");
/// ```
pub fn fair_qpme<T: Scalar, O: Oracle<GroupRates<T>> + ?Sized>(
    groups: &Groups<T>,
    oracle: &mut O,
    settings: &FairSettings<T>,
) -> Result<FairEstimate<T>> {
    let mut probe = FairLpmeProbe::new(groups, oracle, settings.qpme.lpme.clone())
        .with_window(settings.qpme.window.clone());
    probe = probe.with_first_eps(settings.first_eps(groups.groups()));
    fair_qpme_with(groups, &mut probe, settings)
}

/// What Alg. 5 needs to know: â and the B̂^{uv} of a fair metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Known<T: Scalar> {
    /// â.
    pub a: DVector<T>,
    /// B̂^{uv} in pair order.
    pub b: Vec<DMatrix<T>>,
}

/// The estimate of [`tradeoff`].
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffEstimate<T: Scalar> {
    /// λ̂, the midpoint of the final interval.
    pub lambda: T,
    /// The final search interval.
    pub interval: (T, T),
    /// The values of λ consistent with the answers.
    pub consistent: Consistent<T>,
    /// Queries.
    pub queries: usize,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// The point Alg. 5 queries for a trial trade-off λ′: on the small sphere
/// S(z₁, ϱ), the optimum of the model utility with trade-off λ′ (group 1 at
/// s, the others at o). With `touching` it is the exact maximiser of the
/// model on the sphere (so that the true λ is the exact optimum of the
/// search when â and B̂ are exact); without, the paper's z₁ + ϱ·unit(ℓ(λ′))
/// with ℓ the model's utility slope at z₁ (an O(ϱ) bias, notes Q5, F9).
///
/// # Errors
/// [`Error::Assumption`] when the model's gradient vanishes on the sphere.
pub fn tradeoff_point<T: Scalar>(
    groups: &Groups<T>,
    known: &Known<T>,
    lambda: &T,
    sphere: &Sphere<T>,
    touching: bool,
) -> Result<DVector<T>> {
    let orientation = match groups.rates() {
        crate::geometry::groups::Rates::Diagonal => T::int(1),
        crate::geometry::groups::Rates::General => T::int(-1),
    };
    let one = T::int(1);
    let linear = groups.tau(0).component_mul(&known.a) * (orientation * (one - lambda.clone()));
    let q = groups.dim();
    let mut w = DMatrix::from_element(q, q, T::int(0));
    for ((u, v), b) in crate::geometry::groups::pairs(groups.groups())
        .into_iter()
        .zip(&known.b)
    {
        if u == 0 || v == 0 {
            w += b;
        }
    }
    let w = w * lambda.clone();
    let field = LinearQuadratic {
        linear,
        w,
        o: groups.centre().clone(),
    };
    let unit = if touching {
        exact_maximiser(&field, sphere)?
    } else {
        let g = field.gradient(sphere.center());
        let n = g.norm();
        if n == T::int(0) {
            return Err(Error::Assumption {
                assumption: "000 Lemma 3: a non-zero utility slope".into(),
                detail: format!("the model's slope vanishes at lambda' = {lambda}"),
            });
        }
        g / n
    };
    sphere.point(&unit)
}

/// The model utility ℓ·(s − o) − ½(s − o)ᵀW(s − o) as a gradient field.
struct LinearQuadratic<T: Scalar> {
    linear: DVector<T>,
    w: DMatrix<T>,
    o: DVector<T>,
}

impl<T: Scalar> GradientField<T> for LinearQuadratic<T> {
    fn dim(&self) -> usize {
        self.linear.len()
    }
    fn value(&self, s: &DVector<T>) -> T {
        let x = s - &self.o;
        self.linear.dot(&x) - (&self.w * &x).dot(&x) / T::int(2)
    }
    fn gradient(&self, s: &DVector<T>) -> DVector<T> {
        &self.linear - &self.w * (s - &self.o)
    }
    fn curvature_bound(&self, _: &DVector<T>, _: &T) -> T {
        spectral_norm(&self.w)
    }
}

/// The small sphere of Alg. 5: S(z₁, ϱ) with z₁ = o + (ρ − ϱ)α₁.
///
/// # Errors
/// As [`Design::new`].
pub fn tradeoff_sphere<T: Scalar>(groups: &Groups<T>, small_radius: &T) -> Result<Sphere<T>> {
    let design = Design::new(groups.sphere().clone(), small_radius.clone())?;
    design.small_sphere(super::qpme::Centre::Plus(0))
}

/// 000 App. D Alg. 5: elicit the trade-off λ of a fair quadratic metric
/// whose â and B̂^{uv} are known, with ⌈log₂(1/ε)⌉ halvings (or the golden
/// section) over λ′ ∈ [0, 1], asking an oracle over m groups' rates about
/// points with group 1 on S(z₁, ϱ) and the others at o.
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for a `known`
/// of the wrong shape; [`Error::Interrupted`] when the oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::fair_qpme::{tradeoff, Known};
/// use metric_elicitation::geometry::groups::{GroupRates, Groups, Rates};
/// use metric_elicitation::metric::quadratic::FairQuadraticMetric;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::search::Strategy;
/// use nalgebra::{dmatrix, dvector};
/// let groups = Groups::with_rates(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None, Rates::Diagonal).unwrap();
/// let truth = FairQuadraticMetric::normalized(
///     dvector![0.6, 0.8], vec![dmatrix![1.0, 0.2; 0.2, 0.5]], 0.4, Rates::Diagonal).unwrap();
/// let known = Known { a: truth.a().clone(), b: truth.b().to_vec() };
/// let (t, g) = (truth.clone(), groups.clone());
/// let mut oracle = Counted::new(Simulated::new(move |r: &GroupRates<f64>| -t.cost(r, &g)));
/// let est = tradeoff(&groups, &known, &mut oracle, Tolerance::new(1e-3).unwrap(), Strategy::Adaptive, 1e-3, true).unwrap();
/// assert!((est.lambda - 0.4).abs() < 1e-3);
/// ```
pub fn tradeoff<T: Scalar, O: Oracle<GroupRates<T>> + ?Sized>(
    groups: &Groups<T>,
    known: &Known<T>,
    oracle: &mut O,
    eps: Tolerance<T>,
    strategy: Strategy,
    small_radius: T,
    touching: bool,
) -> Result<TradeoffEstimate<T>> {
    let (q, m) = (groups.dim(), groups.groups());
    if known.a.len() != q
        || known.b.len() != m * (m - 1) / 2
        || known.b.iter().any(|b| b.nrows() != q || b.ncols() != q)
    {
        return Err(Error::invalid(
            "known",
            format!("expected a of {q} entries and C({m}, 2) matrices of {q}x{q}"),
        ));
    }
    let sphere = tradeoff_sphere(groups, &small_radius)?;
    let mut restricted = Restricted::new(groups, Embedding::TradeOff { group: 0 }, &mut *oracle)?;
    let out = maximize(
        T::int(0),
        T::int(1),
        eps.into_inner(),
        strategy,
        |x: &T, y: &T| {
            let px = tradeoff_point(groups, known, x, &sphere, touching)?;
            let py = tradeoff_point(groups, known, y, &sphere, touching)?;
            Ok(restricted.compare(&px, &py)?.preference)
        },
    )
    .map_err(|e| match e {
        Error::Interrupted {
            queries,
            progress,
            source,
            ..
        } => Error::Interrupted {
            procedure: "trade-off (000 Alg. 5)".into(),
            queries,
            progress,
            source,
        },
        other => other,
    })?;
    let mut warnings = Vec::new();
    if let Consistent::Contradictory { .. } = out.consistent {
        warnings.push(Warning::new(
            Cause::Contradictory,
            "the answers put lambda both above and below a value: a noisy oracle",
        ));
    }
    Ok(TradeoffEstimate {
        lambda: out.estimate,
        interval: (out.lo, out.hi),
        consistent: out.consistent,
        queries: out.queries,
        warnings,
    })
}

/// Fair QPME (000 §4.3, App. D Alg. 4) as a typed algorithm: the groups,
/// the design of the QPMEs' small spheres and the settings.
#[derive(Debug, Clone)]
pub struct FairQpme<T: Scalar> {
    groups: Groups<T>,
    design: Design<T>,
    settings: FairSettings<T>,
}

impl<T: Scalar> FairQpme<T> {
    /// Fair QPME over `groups` with `settings` (the design: the groups'
    /// query sphere with the settings' small radius).
    ///
    /// # Errors
    /// As [`Design::new`].
    pub fn new(groups: Groups<T>, settings: FairSettings<T>) -> Result<Self> {
        let design = Design::new(groups.sphere().clone(), settings.qpme.small_radius.clone())?;
        Ok(FairQpme {
            groups,
            design,
            settings,
        })
    }

    /// The groups.
    pub fn groups(&self) -> &Groups<T> {
        &self.groups
    }

    /// The design.
    pub fn design(&self) -> &Design<T> {
        &self.design
    }

    /// The settings.
    pub fn settings(&self) -> &FairSettings<T> {
        &self.settings
    }
}

impl<T: Scalar> Elicitation<T> for FairQpme<T> {
    type Point = GroupRates<T>;
    type Estimate = FairEstimate<T>;
    /// Every search runs on a small sphere, where the metric is nearly
    /// symmetric ([`Strategy::Bisection`]).
    const SYMMETRIC_SEARCHES: bool = true;

    fn elicit(&self, oracle: &mut dyn Oracle<GroupRates<T>>) -> Result<FairEstimate<T>> {
        fair_qpme(&self.groups, oracle, &self.settings)
    }

    /// The first LPME and |M| = C(m, 2) QPMEs.
    fn expected_queries(&self) -> Option<usize> {
        let (q, m) = (self.groups.dim(), self.groups.groups());
        let s = &self.settings;
        let qpmes = m * (m - 1) / 2;
        let first = LpmeSettings {
            eps: s.first_eps(m),
            ..s.qpme.lpme.clone()
        };
        Some(
            lpme_queries(q, &first)?
                + qpmes * qpme_queries(q, &s.qpme.lpme, &s.qpme.window, s.origin_from_a)?,
        )
    }
}

/// The trade-off alone (000 App. D Alg. 5) as a typed algorithm: λ of a
/// fair quadratic metric whose a and B^{uv} are known, by one unimodal
/// search over λ′ ∈ [0, 1] ([`tradeoff`]).
#[derive(Debug, Clone)]
pub struct QpmeTradeoff<T: Scalar> {
    groups: Groups<T>,
    known: Known<T>,
    search: super::Search<T>,
    small: T,
    touching: bool,
}

impl<T: Scalar> QpmeTradeoff<T> {
    /// The search over `groups` for the metric with the `known` parts, on
    /// the small sphere of radius `small`, querying the fitted model's
    /// exact optimum there (`touching`) or the paper's centre slope.
    ///
    /// # Errors
    /// As [`tradeoff_sphere`].
    pub fn new(
        groups: Groups<T>,
        known: Known<T>,
        search: super::Search<T>,
        small: T,
        touching: bool,
    ) -> Result<Self> {
        tradeoff_sphere(&groups, &small)?;
        Ok(QpmeTradeoff {
            groups,
            known,
            search,
            small,
            touching,
        })
    }

    /// The groups.
    pub fn groups(&self) -> &Groups<T> {
        &self.groups
    }

    /// The small radius.
    pub fn small_radius(&self) -> &T {
        &self.small
    }

    /// The known parts (a, {B^{uv}}) the search assumes.
    pub fn known(&self) -> &Known<T> {
        &self.known
    }
}

impl<T: Scalar> Elicitation<T> for QpmeTradeoff<T> {
    type Point = GroupRates<T>;
    type Estimate = TradeoffEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<GroupRates<T>>) -> Result<TradeoffEstimate<T>> {
        tradeoff(
            &self.groups,
            &self.known,
            oracle,
            self.search.eps.clone(),
            self.search.strategy,
            self.small.clone(),
            self.touching,
        )
    }

    /// One search of [0, 1].
    fn expected_queries(&self) -> Option<usize> {
        crate::search::expected_queries(self.search.strategy, &T::int(1), &self.search.eps)
    }
}
