//! Fair performance metric elicitation: *Fair Performance Metric
//! Elicitation* (Hiranandani, Narasimhan, Koyejo, NeurIPS 2020; `001` in
//! `shared/seeds`), Alg. 1 with the corrections of `notes/001-fair.md`.
//!
//! The hidden metric is the fair metric Ψ of 001 Def. 1
//! ([`FairMetric`]), a cost; the oracle prefers the classifier with the
//! smaller Ψ (the crate convention). Every query is a tuple of m groups'
//! rates ([`GroupRates`]); each part of Alg. 1 searches one sphere through
//! a restricted oracle ([`Restricted`]) that embeds its points:
//!
//! 1. **Part 1** (line 1): â by the general LPME ([`lpme`], 001 App. A
//!    Alg. 2) on S_ρ with every group at s: Ψ(s, …, s) = (1 − λ)⟨a, s⟩.
//! 2. **Part 2** (lines 2–11): for each σ of the partitions M
//!    ([`Partitions`]), two LPMEs with the groups in σ at e₁ and at e_k (the
//!    paper's e₂ is e_k: they differ for k ≥ 3, P12–P13) give the unit
//!    slopes f̆^σ, f̃^σ of (1 − λ)a ⊙ (1 − τ^σ) + λw_c ⊙ η^σ. From them
//!    γ^σ = λη^σ/(1 − λ), either by the paper's two-coordinate δ (eq. 24 as
//!    re-derived, P13: [`DeltaRule::Paper`]) or by least squares over all q
//!    coordinates (P14: [`DeltaRule::LeastSquares`], the default); then
//!    B̃ = Ξ⁻¹Γ (eqs. 32–34) and B̂ = B̃/Σ‖b̃^{uv}‖₂ (eq. 35).
//! 3. **Part 3** (line 12): λ̂ in closed form, S/(1 + S) with
//!    S = Σ‖b̃^{uv}‖₂ = λ/(1 − λ) (P18, no query), and/or by Alg. 4 (a
//!    search over λ̄ on the small sphere S⁺ with one group at s⁺ ≥ o, P21–P23)
//!    with the group whose directions τ^u ⊙ â and Σ_v b̂^{uv} are best
//!    conditioned (the paper uses group 1). When those directions are
//!    parallel λ is not identifiable by Alg. 4: that is reported (a warning,
//!    no search value), not guessed.
//!
//! The procedure runs in the oracle's own orientation (the utility −Ψ, so
//! the LPMEs return −a and the slopes of −Ψ) and negates (â, B̂) once at the
//! end (λ is unchanged; P5).
//!
//! With [`Strategy::Paper`] and the paper's fixed cycles it asks exactly
//! (1 + 2|M|)·(q + 4·cycles·(q − 1)·⌈log₂(π/(2ε))⌉) + 4⌈log₂(1/ε)⌉ queries
//! (the last term when Alg. 4 runs); 6242 at m = k = 3, ε = 10⁻³, 4 cycles
//! ([`paper_query_count`]).

use super::lpme::{lpme, AngleOrder, LpmeEstimate, LpmeSettings, Orthant};
use super::Elicitation;
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::groups::{
    pairs, rate_entry, sign_vector, trivial, Embedding, GroupRates, Groups, Partitions, Restricted,
};
use crate::geometry::sphere::Sphere;
use crate::metric::fair::{sine, FairMetric};
use crate::oracle::Oracle;
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{halvings, maximize, Consistent, Stop, Strategy, Tolerance};
use nalgebra::DVector;
use serde::{Deserialize, Serialize};

/// How δ^σ (the scale relating the unit slope f̆^σ to the true slope) is
/// found in Part 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeltaRule {
    /// 001 eq. (24) as re-derived (P13): from the two switching coordinates
    /// (1, k) and (k, 1), δ = 2(A_p f̃_r − A_r f̃_p)/(f̆_p f̃_r − f̆_r f̃_p),
    /// γ = w₁ ⊙ (δf̆ − A), A = â ⊙ (1 − τ^σ). Exact with exact slopes, but
    /// its denominator can be small.
    Paper,
    /// Least squares over all q coordinates (P14, not in the paper): the
    /// scales (α, β) of αf̆ = A + w₁ ⊙ γ, βf̃ = A + w_k ⊙ γ, then
    /// γ = ½[w₁ ⊙ (αf̆ − A) + w_k ⊙ (βf̃ − A)]. Identical to
    /// [`DeltaRule::Paper`] at k = 2.
    LeastSquares,
}

/// How λ̂ is found in Part 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LambdaRule {
    /// λ̂ = S/(1 + S), S = Σ‖b̃^{uv}‖₂ (P18): no further query.
    ClosedForm,
    /// λ̂ from 001 Alg. 4 (4⌈log₂(1/ε)⌉ queries with the paper strategy);
    /// the closed form is reported beside it.
    Search,
    /// Both are computed and reported; λ̂ is the closed form.
    Both,
}

impl LambdaRule {
    fn searches(self) -> bool {
        self != LambdaRule::ClosedForm
    }
}

/// The efficient default searches to ε/`EFFICIENT_DIVISOR` so that its
/// errors are no larger than those of the paper's setting at ε: one reverse
/// cycle with golden section at ε alone is slightly less accurate than four
/// forward cycles of ShrinkInterval (measured in `001-sec6.1`), and a finer
/// search costs only ⌈log_φ 4⌉ = 3 more queries per angle. The whole run
/// still asks about 11 % of the paper's queries.
pub const EFFICIENT_DIVISOR: i64 = 4;

/// Settings of [`fpme`].
#[derive(Debug, Clone, PartialEq)]
pub struct FpmeSettings<T> {
    /// Search tolerance ε of every angle search (radians) and of Alg. 4's
    /// search over λ̄ ∈ [0, 1].
    pub eps: Tolerance<T>,
    /// The search strategy of every search.
    pub strategy: Strategy,
    /// LPME cycles over the q − 1 angles (the paper: 4).
    pub cycles: usize,
    /// The order of the angles within a cycle.
    pub order: AngleOrder,
    /// Stop an LPME after a cycle that moved no angle by more than ε.
    pub stop_early: bool,
    /// How δ is found in Part 2.
    pub delta: DeltaRule,
    /// How λ is found in Part 3.
    pub lambda: LambdaRule,
    /// The group (0-based) that moves in Alg. 4; `None`: the best
    /// conditioned (largest κ_u, see [`TradeOff::kappa`]).
    pub trade_off_group: Option<usize>,
}

impl<T: Scalar> FpmeSettings<T> {
    /// 001 Alg. 1 as printed (with the corrections that make it work):
    /// ShrinkInterval with 4 queries per halving, 4 forward cycles, the
    /// two-coordinate δ, λ by Alg. 4 with group 1.
    pub fn paper(eps: Tolerance<T>) -> Self {
        FpmeSettings {
            eps,
            strategy: Strategy::Paper,
            cycles: 4,
            order: AngleOrder::Paper,
            stop_early: false,
            delta: DeltaRule::Paper,
            lambda: LambdaRule::Search,
            trade_off_group: Some(0),
        }
    }

    /// The efficient setting for accuracy ε (the default of `elicit run`):
    /// every search runs to ε/[`EFFICIENT_DIVISOR`], golden-section search,
    /// one reverse cycle per LPME, least-squares δ, closed-form λ; with more
    /// cycles, an LPME stops after one that moves no angle by more than
    /// its tolerance (as `lpm` and `lpme` do). To search to a tolerance of
    /// your own, set `eps` after: `FpmeSettings { eps, ..efficient(eps) }`.
    pub fn efficient(eps: Tolerance<T>) -> Self {
        FpmeSettings {
            eps: eps.scaled(1, EFFICIENT_DIVISOR),
            strategy: Strategy::Golden,
            cycles: 1,
            order: AngleOrder::Reverse,
            stop_early: true,
            delta: DeltaRule::LeastSquares,
            lambda: LambdaRule::ClosedForm,
            trade_off_group: None,
        }
    }

    fn lpme(&self) -> LpmeSettings<T> {
        LpmeSettings {
            eps: self.eps.clone(),
            strategy: self.strategy,
            cycles: self.cycles,
            orthant: Orthant::Detect,
            order: self.order,
            stop_early: self.stop_early,
        }
    }
}

/// (1 + 2|M|)·(q + 4·cycles·(q − 1)·⌈log₂(π/(2ε))⌉) + 4⌈log₂(1/ε)⌉: the
/// queries of [`fpme`] with [`Strategy::Paper`] and a fixed number of
/// cycles, with Alg. 4 (`with_search`) or without (001-fair.md P24; the
/// paper's "16(q − 1) log(π/2ε)" omits the q orthant queries and the
/// ceiling).
///
/// # Errors
/// [`Error::InvalidEpsilon`].
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::fpme::paper_query_count;
/// assert_eq!(paper_query_count(3, 3, 4, &1e-3, true).unwrap(), 6242);
/// assert_eq!(paper_query_count(2, 2, 4, &1e-3, true).unwrap(), 574);
/// ```
pub fn paper_query_count<T: Scalar>(
    m: usize,
    k: usize,
    cycles: usize,
    eps: &T,
    with_search: bool,
) -> Result<usize> {
    let q = k * k - k;
    let sets = m * (m - 1) / 2;
    let lpme = q + 4 * cycles * (q - 1) * halvings(&T::frac_pi_2(), eps)?;
    let search = if with_search {
        4 * halvings(&T::int(1), eps)?
    } else {
        0
    };
    Ok((1 + 2 * sets) * lpme + search)
}

/// The shapes of 001 Theorem 1's three bounds on FPME's error, for m
/// groups, q off-diagonal rates, tolerance ε, noise ε_Ω, query sphere
/// radius ρ and the small radius ϱ of the violation searches:
/// `[√q·(ε + √(ε_Ω/ρ)), m·q·(ε + √(ε_Ω/ρ)), ε + √(ε_Ω/ϱ) + √(m·q·(ε + √(ε_Ω/ρ))/ϱ)]`
/// for ‖a − â‖, ‖B − B̂‖ and |λ − λ̂| respectively (up to the theorem's
/// constants, which the reproduction measures). A report-side quantity,
/// in `f64`.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::fpme::theorem1_bound;
/// let [a, b, lambda] = theorem1_bound(2, 2, 1e-2, 0.0, 0.2, 0.1);
/// assert!((a - 2f64.sqrt() * 1e-2).abs() < 1e-15);
/// assert!((b - 4e-2).abs() < 1e-15);
/// assert!((lambda - (1e-2 + (0.4f64).sqrt())).abs() < 1e-15);
/// ```
pub fn theorem1_bound(
    m: usize,
    q: usize,
    eps: f64,
    eps_omega: f64,
    rho: f64,
    small: f64,
) -> [f64; 3] {
    let base = eps + (eps_omega / rho).sqrt();
    let (m, q) = (m as f64, q as f64);
    [
        q.sqrt() * base,
        m * q * base,
        eps + (eps_omega / small).sqrt() + (m * q * base / small).sqrt(),
    ]
}

/// Queries per part of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Queries {
    /// Part 1 (â).
    pub class: usize,
    /// Part 2 (B̂): 2|M| LPMEs.
    pub violation: usize,
    /// Part 3 (Alg. 4; 0 for the closed form).
    pub trade_off: usize,
}

impl Queries {
    /// All queries of the run.
    pub fn total(&self) -> usize {
        self.class + self.violation + self.trade_off
    }
}

/// The two LPMEs of one σ ∈ M and what Part 2 derives from them.
#[derive(Debug, Clone, PartialEq)]
pub struct ViolationPart<T: Scalar> {
    /// σ (0-based groups).
    pub sigma: Vec<usize>,
    /// The LPME with the groups in σ at e₁: f̆^σ.
    pub first: LpmeEstimate<T>,
    /// The LPME with the groups in σ at e_k: f̃^σ.
    pub last: LpmeEstimate<T>,
}

/// Part 2's reconstruction of B from the slopes, for one δ rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Reconstruction<T: Scalar> {
    /// The δ rule.
    pub rule: DeltaRule,
    /// For each σ ∈ M: δ^σ (the scale α of f̆^σ).
    pub delta: Vec<T>,
    /// For each σ ∈ M: γ^σ, the estimate of λη^σ/(1 − λ).
    pub gamma: Vec<DVector<T>>,
    /// b̃^{uv} = (Ξ⁻¹Γ)_{uv}, estimates of λb^{uv}/(1 − λ).
    pub b_tilde: Vec<DVector<T>>,
    /// S = Σ‖b̃^{uv}‖₂ (= λ/(1 − λ) for exact slopes).
    pub s: T,
    /// b̂^{uv} = b̃^{uv}/S.
    pub b: Vec<DVector<T>>,
    /// λ̂ = S/(1 + S) (P18).
    pub lambda: T,
}

/// Part 3 by Alg. 4.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeOff<T: Scalar> {
    /// The group (0-based) that moved.
    pub group: usize,
    /// For each group u, κ_u = ‖x_u‖‖y_u‖ sin φ_u/‖(1 − λ̂)x_u + λ̂y_u‖²
    /// with x_u = τ^u ⊙ â, y_u = Σ_v b̂^{uv}, λ̂ the closed form: how fast
    /// the search point turns with λ̄ (an angular error Δ moves λ̂ by about
    /// Δ/κ_u; P23).
    pub kappa: Vec<T>,
    /// sin φ_u for each group.
    pub sin_phi: Vec<T>,
    /// λ̂ of the search; `None` when x ∥ y for the chosen group (λ is not
    /// identifiable by Alg. 4; no query was spent).
    pub lambda: Option<T>,
    /// Every λ̄ consistent with the search's answers.
    pub consistent: Option<Consistent<T>>,
    /// Queries of the search.
    pub queries: usize,
    /// Why λ̂ is less certain than ε, where it is.
    pub warnings: Vec<Warning>,
}

/// The result of [`fpme`], in the crate's cost convention (â ≥ 0 and
/// b̂ ≥ 0 for an exact oracle).
#[derive(Debug, Clone, PartialEq)]
pub struct FpmeEstimate<T: Scalar> {
    /// â, ‖â‖₂ = 1.
    pub a: DVector<T>,
    /// B̂ = {b̂^{uv}}, Σ‖b̂^{uv}‖₂ = 1, pairs in the order of
    /// [`pairs`]; from the selected δ rule. Entries may be slightly
    /// negative from noise: they are reported (a warning), not clipped.
    pub b: Vec<DVector<T>>,
    /// λ̂ by the selected rule.
    pub lambda: T,
    /// λ̂ in closed form (always available).
    pub lambda_closed_form: T,
    /// λ̂ of Alg. 4, when it ran and λ was identifiable.
    pub lambda_search: Option<T>,
    /// Part 2 with the selected δ rule (oracle orientation: −b, see the
    /// module docs).
    pub reconstruction: Reconstruction<T>,
    /// Part 2 with the other δ rule, from the same answers; `None` when it
    /// failed (a zero denominator).
    pub alternative: Option<Reconstruction<T>>,
    /// The Part 1 LPME.
    pub class_part: LpmeEstimate<T>,
    /// The Part 2 LPMEs, one pair per σ ∈ M.
    pub violations: Vec<ViolationPart<T>>,
    /// Alg. 4, when it ran.
    pub trade_off: Option<TradeOff<T>>,
    /// Queries per part.
    pub queries: Queries,
    /// What the answers left undecided and why (every LPME's warnings,
    /// prefixed with its part, and the reconstruction's).
    pub warnings: Vec<Warning>,
}

impl<T: Scalar> FpmeEstimate<T> {
    /// B̂ of the other δ rule in the cost convention, if it succeeded.
    pub fn alternative_b(&self) -> Option<Vec<DVector<T>>> {
        self.alternative
            .as_ref()
            .map(|r| r.b.iter().map(|v| -v).collect())
    }

    /// B̂ (cost convention) and the closed-form λ̂ of the δ rule `rule`,
    /// whether it was the selected one or the alternative; `None` when that
    /// rule failed (a zero denominator).
    pub fn by_rule(&self, rule: DeltaRule) -> Option<(Vec<DVector<T>>, T)> {
        if self.reconstruction.rule == rule {
            Some((self.b.clone(), self.reconstruction.lambda.clone()))
        } else {
            let alt = self.alternative.as_ref()?;
            Some((self.alternative_b()?, alt.lambda.clone()))
        }
    }
}

/// The errors of an estimate against the truth (001 §6.1): ‖a − â‖₂,
/// ‖vec(B − B̂)‖₂ (stacked) and |λ − λ̂|.
pub fn errors<T: Scalar>(
    truth: &FairMetric<T>,
    a: &DVector<T>,
    b: &[DVector<T>],
    lambda: &T,
) -> (T, T, T) {
    let ea = (truth.a() - a).norm();
    let eb = truth
        .b()
        .iter()
        .zip(b)
        .fold(T::int(0), |s, (x, y)| s + (x - y).norm_squared())
        .sqrt();
    (ea, eb, (truth.lambda().clone() - lambda.clone()).abs())
}

fn ill(what: &str, detail: String) -> Error {
    Error::IllConditioned {
        what: what.into(),
        detail,
    }
}

/// Part 2's reconstruction (001 eqs. 24–25, 32–35 with P12–P18) from Part
/// 1's â and, for each σ ∈ M (in the order of `partitions.sets()`), the
/// unit slopes (f̆^σ, f̃^σ) of the LPMEs with the groups in σ at e₁ and at
/// e_k.
///
/// The formulas are linear in (a, B) for a fixed λ, so they hold in either
/// orientation: given the slopes of Ψ they return (b̂ of Ψ, λ̂); given those
/// of −Ψ (what an oracle's LPME returns) they return −b̂ and the same λ̂.
/// With exact normalized gradients the result is exact (the property test
/// checks 10⁻¹²).
///
/// # Errors
/// [`Error::InvalidArgument`] for shapes that do not match `groups`;
/// [`Error::IllConditioned`] when a δ denominator (paper rule) or the 2×2
/// least-squares system is numerically singular, or S = Σ‖b̃^{uv}‖₂ is
/// numerically zero (B not identifiable).
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::fpme::{reconstruct, DeltaRule};
/// use metric_elicitation::geometry::groups::{Groups, Partitions};
/// use metric_elicitation::metric::fair::FairMetric;
/// use nalgebra::DVector;
/// let groups = Groups::new(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None).unwrap();
/// let partitions = Partitions::new(2).unwrap();
/// let psi = FairMetric::new(
///     DVector::from_vec(vec![0.6, 0.8]),
///     vec![DVector::from_vec(vec![0.8, 0.6])],
///     0.3,
/// ).unwrap();
/// // the exact unit slopes in place of the LPMEs
/// let unit = |v: DVector<f64>| v.normalize();
/// let slopes: Vec<_> = partitions.sets().iter().map(|s| (
///     unit(psi.violation_slope(&groups, s, 0).unwrap()),
///     unit(psi.violation_slope(&groups, s, 1).unwrap()),
/// )).collect();
/// let r = reconstruct(&groups, &partitions, psi.a(), &slopes, DeltaRule::LeastSquares).unwrap();
/// assert!((r.lambda - 0.3).abs() < 1e-14);
/// assert!((&r.b[0] - &psi.b()[0]).amax() < 1e-14);
/// ```
pub fn reconstruct<T: Scalar>(
    groups: &Groups<T>,
    partitions: &Partitions<T>,
    a: &DVector<T>,
    slopes: &[(DVector<T>, DVector<T>)],
    rule: DeltaRule,
) -> Result<Reconstruction<T>> {
    let (k, q) = (groups.classes(), groups.dim());
    if a.len() != q
        || slopes.len() != partitions.sets().len()
        || slopes.iter().any(|(f, g)| f.len() != q || g.len() != q)
        || partitions.groups() != groups.groups()
    {
        return Err(Error::invalid(
            "slopes",
            format!(
                "expected a of {q} rates and {} pairs of slopes of {q} rates",
                partitions.sets().len()
            ),
        ));
    }
    let one = T::int(1);
    let w1 = sign_vector::<T>(k, 0)?;
    let wk = sign_vector::<T>(k, k - 1)?;
    // Switching coordinates: the entries in column 1 or column k, where
    // w₁ = −w_k; elsewhere w₁ = w_k = 1.
    let switching: Vec<bool> = (0..q)
        .map(|i| rate_entry(k, i).is_some_and(|(_, j)| j == 0 || j == k - 1))
        .collect();
    let tiny = prec::ill_conditioned::<T>();
    let mut delta = Vec::with_capacity(slopes.len());
    let mut gamma = Vec::with_capacity(slopes.len());
    for (sigma, (f1, fk)) in partitions.sets().iter().zip(slopes) {
        let rest = groups.tau_sum(sigma).map(|t| one.clone() - t);
        let big_a = a.component_mul(&rest);
        let name = |what: &str| format!("{what} for sigma = {}", one_based(sigma));
        match rule {
            DeltaRule::Paper => {
                // p = entry (1, k), r = entry (k, 1) (0-based indices).
                let (p, r) = (k - 2, (k - 1) * (k - 1));
                let den = f1[p].clone() * fk[r].clone() - f1[r].clone() * fk[p].clone();
                let scale =
                    (f1[p].clone() * fk[r].clone()).abs() + (f1[r].clone() * fk[p].clone()).abs();
                if den.clone().abs() <= tiny.clone() * scale.clone() || scale <= T::int(0) {
                    return Err(ill(
                        &name("delta (eq. 24)"),
                        format!(
                            "the denominator f1_p fk_r - f1_r fk_p = {:.3e} vanishes",
                            den.to_f64_lossy()
                        ),
                    ));
                }
                let d = (big_a[p].clone() * fk[r].clone() - big_a[r].clone() * fk[p].clone())
                    * T::int(2)
                    / den;
                let g = w1.component_mul(&(f1 * d.clone() - &big_a));
                delta.push(d);
                gamma.push(g);
            }
            DeltaRule::LeastSquares => {
                // α u + β v = c with u = f̆, v = s ⊙ f̃ (s = +1 switching, −1
                // elsewhere), c = 2A on switching coordinates, 0 elsewhere.
                let v = DVector::from_fn(q, |i, _| {
                    if switching[i] {
                        fk[i].clone()
                    } else {
                        -fk[i].clone()
                    }
                });
                let c = DVector::from_fn(q, |i, _| {
                    if switching[i] {
                        big_a[i].clone() * T::int(2)
                    } else {
                        T::int(0)
                    }
                });
                // Solved through a two-column QR (Gram–Schmidt with one
                // re-orthogonalisation), not the normal equations: the error
                // then grows with cond([u v]), not with its square.
                let (nu, nv) = (f1.norm(), v.norm());
                if nu <= T::int(0) || nv <= T::int(0) {
                    return Err(ill(
                        &name("least-squares delta"),
                        "a slope with e_1 or e_k is zero".to_string(),
                    ));
                }
                let q1 = f1 / nu.clone();
                let r12 = q1.dot(&v);
                let mut w = &v - &q1 * r12.clone();
                let again = q1.dot(&w);
                w -= &q1 * again.clone();
                let r12 = r12 + again;
                let r22 = w.norm();
                let sine = r22.clone() / nv;
                if sine <= tiny.clone().sqrt() {
                    return Err(ill(
                        &name("least-squares delta"),
                        format!(
                            "the slopes with e_1 and e_k are parallel (sine {:.3e})",
                            sine.to_f64_lossy()
                        ),
                    ));
                }
                let q2 = w / r22.clone();
                let beta = q2.dot(&c) / r22;
                let alpha = (q1.dot(&c) - r12 * beta.clone()) / nu;
                let g1 = w1.component_mul(&(f1 * alpha.clone() - &big_a));
                let gk = wk.component_mul(&(fk * beta - &big_a));
                delta.push(alpha);
                gamma.push((g1 + gk) * T::ratio(1, 2));
            }
        }
    }
    let b_tilde = partitions.solve(&gamma)?;
    let s = b_tilde.iter().fold(T::int(0), |acc, v| acc + v.norm());
    if s <= tiny {
        return Err(ill(
            "violation weights",
            format!(
                "sum ||b~|| = {:.3e}: the answers show no violation weight (lambda = 0?)",
                s.to_f64_lossy()
            ),
        ));
    }
    let b = b_tilde.iter().map(|v| v / s.clone()).collect();
    let lambda = s.clone() / (one + s.clone());
    Ok(Reconstruction {
        rule,
        delta,
        gamma,
        b_tilde,
        s,
        b,
        lambda,
    })
}

fn one_based(sigma: &[usize]) -> String {
    let inner: Vec<String> = sigma.iter().map(|g| (g + 1).to_string()).collect();
    format!("{{{}}}", inner.join(","))
}

/// The directions of Alg. 4 for group u: x_u = τ^u ⊙ â, y_u = Σ_v b̂^{uv}.
fn trade_off_directions<T: Scalar>(
    groups: &Groups<T>,
    a: &DVector<T>,
    b: &[DVector<T>],
    u: usize,
) -> (DVector<T>, DVector<T>) {
    let x = groups.tau(u).component_mul(a);
    let y = pairs(groups.groups())
        .into_iter()
        .zip(b)
        .filter(|((p, r), _)| *p == u || *r == u)
        .fold(DVector::from_element(a.len(), T::int(0)), |s, (_, v)| s + v);
    (x, y)
}

/// κ = ‖x‖‖y‖ sin φ/‖(1 − λ)x + λy‖² (P23), 0 when degenerate.
fn conditioning<T: Scalar>(x: &DVector<T>, y: &DVector<T>, lambda: &T) -> (T, T) {
    let s = sine(x, y);
    let v = x * (T::int(1) - lambda.clone()) + y * lambda.clone();
    let n2 = v.norm_squared();
    if n2 <= T::int(0) {
        return (T::int(0), s);
    }
    (x.norm() * y.norm() * s.clone() / n2, s)
}

/// The point of S⁺ that maximizes ⟨(1 − λ̄)x + λ̄y, s⟩ (Lemma 2): c⁺ + ϱ·unit(v);
/// the centre when v = 0.
fn trade_off_point<T: Scalar>(
    plus: &Sphere<T>,
    x: &DVector<T>,
    y: &DVector<T>,
    l: &T,
) -> DVector<T> {
    let v = x * (T::int(1) - l.clone()) + y * l.clone();
    let n = v.norm();
    if n <= T::int(0) {
        return plus.center().clone();
    }
    plus.center() + v * (plus.radius().clone() / n)
}

/// Wraps an LPME or search interruption with FPME's progress.
fn interrupted(done: usize, part: String, e: Error) -> Error {
    match e {
        Error::Interrupted {
            queries,
            progress,
            source,
            ..
        } => Error::Interrupted {
            procedure: "FPME (001 Alg. 1)".into(),
            queries: done + queries,
            progress: format!("{part}: {progress}"),
            source,
        },
        other => other,
    }
}

/// 001 Algorithm 1 (FPME): elicit a fair metric Ψ (Def. 1) from an oracle
/// over m groups' rates, on the groups' common sphere S_ρ. See the module
/// docs for the three parts and the corrections.
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for zero cycles or
/// a trade-off group out of range; [`Error::Interrupted`] (naming the part
/// reached and the queries asked) when the oracle stops;
/// [`Error::IllConditioned`] when Part 2's reconstruction is numerically
/// singular with the selected δ rule (see [`reconstruct`]).
///
/// # Examples
/// ```
/// use metric_elicitation::search::Tolerance;
/// use metric_elicitation::elicit::fpme::{fpme, FpmeSettings};
/// use metric_elicitation::geometry::groups::{GroupRates, Groups};
/// use metric_elicitation::metric::fair::FairMetric;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use nalgebra::DVector;
/// let groups = Groups::new(2, vec![vec![0.3, 0.6], vec![0.7, 0.4]], None).unwrap();
/// let psi = FairMetric::new(
///     DVector::from_vec(vec![0.6, 0.8]),
///     vec![DVector::from_vec(vec![0.8, 0.6])],
///     0.3,
/// ).unwrap();
/// let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
/// let est = fpme(&groups, &mut oracle, &FpmeSettings::paper(Tolerance::new(1e-3).unwrap())).unwrap();
/// assert!((&est.a - psi.a()).norm() < 2e-3);
/// assert!((&est.b[0] - &psi.b()[0]).norm() < 2e-2);
/// assert!((est.lambda - 0.3).abs() < 1e-2);
/// assert_eq!(oracle.queries(), 574); // (1 + 2)(2 + 16·11) + 4·10
/// ```
pub fn fpme<T, O>(
    groups: &Groups<T>,
    oracle: &mut O,
    settings: &FpmeSettings<T>,
) -> Result<FpmeEstimate<T>>
where
    T: Scalar,
    O: Oracle<GroupRates<T>> + ?Sized,
{
    if settings.cycles == 0 {
        return Err(Error::invalid("cycles", "LPME needs at least one cycle"));
    }
    let (m, k) = (groups.groups(), groups.classes());
    if let Some(g) = settings.trade_off_group {
        if g >= m {
            return Err(Error::invalid(
                "trade_off_group",
                format!("group {} is not one of the {m} groups", g + 1),
            ));
        }
    }
    let partitions = Partitions::<T>::new(m)?;
    let lpme_settings = settings.lpme();
    let sphere = groups.sphere();
    let mut queries = Queries::default();
    let mut warnings = Vec::new();
    let tag = |part: &str, ws: &[Warning], out: &mut Vec<Warning>| {
        out.extend(
            ws.iter()
                .map(|w| Warning::new(w.cause, format!("{part}: {}", w.message))),
        );
    };

    // Part 1: â (oracle orientation: −a).
    let class_part = {
        let mut restricted = Restricted::new(groups, Embedding::Uniform, &mut *oracle)?;
        lpme(sphere, &mut restricted, &lpme_settings)
            .map_err(|e| interrupted(0, "Part 1 (a)".into(), e))?
    };
    queries.class = class_part.queries;
    tag("Part 1 (a)", &class_part.warnings, &mut warnings);
    let a_hat = class_part.a.clone();

    // Part 2: two LPMEs per σ.
    let mut violations = Vec::with_capacity(partitions.sets().len());
    for sigma in partitions.sets() {
        let mut run = |class: usize| -> Result<LpmeEstimate<T>> {
            let part = format!(
                "Part 2 (B), sigma = {}, groups in sigma at e_{}",
                one_based(sigma),
                class + 1
            );
            let embedding = Embedding::Violation {
                sigma: sigma.clone(),
                class,
            };
            let mut restricted = Restricted::new(groups, embedding, &mut *oracle)?;
            let est = lpme(sphere, &mut restricted, &lpme_settings)
                .map_err(|e| interrupted(queries.class + queries.violation, part.clone(), e))?;
            queries.violation += est.queries;
            tag(&part, &est.warnings, &mut warnings);
            Ok(est)
        };
        let first = run(0)?;
        let last = run(k - 1)?;
        violations.push(ViolationPart {
            sigma: sigma.clone(),
            first,
            last,
        });
    }
    let slopes: Vec<(DVector<T>, DVector<T>)> = violations
        .iter()
        .map(|v| (v.first.a.clone(), v.last.a.clone()))
        .collect();
    let other_rule = match settings.delta {
        DeltaRule::Paper => DeltaRule::LeastSquares,
        DeltaRule::LeastSquares => DeltaRule::Paper,
    };
    let reconstruction = reconstruct(groups, &partitions, &a_hat, &slopes, settings.delta)
        .map_err(|e| interrupted(queries.total(), "Part 2 (B)".into(), e))?;
    let alternative = reconstruct(groups, &partitions, &a_hat, &slopes, other_rule).ok();

    // Part 3.
    let lambda_cf = reconstruction.lambda.clone();
    let trade_off = if settings.lambda.searches() {
        let a_cost = -a_hat.clone();
        let b_cost: Vec<DVector<T>> = reconstruction.b.iter().map(|v| -v).collect();
        let search = TradeOffSearch {
            eps: settings.eps.clone(),
            strategy: settings.strategy,
            group: settings.trade_off_group,
        };
        let t = trade_off(groups, &a_cost, &b_cost, &lambda_cf, &search, &mut *oracle)
            .map_err(|e| interrupted(queries.total(), "Part 3 (lambda, Alg. 4)".into(), e))?;
        queries.trade_off = t.queries;
        warnings.extend(t.warnings.iter().cloned());
        Some(t)
    } else {
        None
    };
    let lambda_search = trade_off.as_ref().and_then(|t| t.lambda.clone());
    let lambda = match (settings.lambda, &lambda_search) {
        (LambdaRule::Search, Some(l)) => l.clone(),
        _ => lambda_cf.clone(),
    };

    // The crate's cost convention: negate once (P5).
    let a = -a_hat;
    let b: Vec<DVector<T>> = reconstruction.b.iter().map(|v| -v).collect();
    let zero = T::int(0);
    let negative_a = a.iter().filter(|v| **v < zero).count();
    let negative_b: usize = b
        .iter()
        .map(|v| v.iter().filter(|x| **x < zero).count())
        .sum();
    if negative_a + negative_b > 0 {
        let least = a
            .iter()
            .chain(b.iter().flatten())
            .cloned()
            .fold(T::int(0), |s, v| s.min(v));
        warnings.push(Warning::new(
            Cause::OutsideFamily,
            format!(
                "{negative_a} entries of a^ and {negative_b} of B^ are negative (the least {:.3e}); 001 Def. 1 needs them >= 0. They come from the answers (noise, or weights too small to resolve at this eps) and are reported, not clipped",
                least.to_f64_lossy()
            ),
        ));
    }
    Ok(FpmeEstimate {
        a,
        b,
        lambda,
        lambda_closed_form: lambda_cf,
        lambda_search,
        reconstruction,
        alternative,
        class_part,
        violations,
        trade_off,
        queries,
        warnings,
    })
}

/// How Alg. 4 searches (see [`trade_off`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TradeOffSearch<T> {
    /// Tolerance ε on λ̄ ∈ [0, 1].
    pub eps: Tolerance<T>,
    /// The search strategy.
    pub strategy: Strategy,
    /// The group (0-based) that moves; `None`: the largest κ_u.
    pub group: Option<usize>,
}

/// 001 Algorithm 4 (Part 3): λ̂ from estimates (â, B̂) in the cost
/// convention, by a search over λ̄ ∈ [0, 1] of the point
/// s*(λ̄) = c⁺ + ϱ·unit((1 − λ̄)x + λ̄y) of S⁺ (P21–P22), x = −τ^u ⊙ â,
/// y = −Σ_v b̂^{uv} (the oracle's orientation), with group u at s*(λ̄) and
/// every other group at o. `lambda_hint` (the closed form) only weighs the
/// conditioning κ_u used to choose u. When x ∥ y for the chosen group no
/// query is asked and the result carries `lambda: None` and a warning.
///
/// # Errors
/// [`Error::InvalidEpsilon`]; [`Error::InvalidArgument`] for a group out of
/// range or shapes that do not match `groups`; [`Error::Interrupted`] when
/// the oracle stops.
pub fn trade_off<T, O>(
    groups: &Groups<T>,
    a: &DVector<T>,
    b: &[DVector<T>],
    lambda_hint: &T,
    search: &TradeOffSearch<T>,
    oracle: &mut O,
) -> Result<TradeOff<T>>
where
    T: Scalar,
    O: Oracle<GroupRates<T>> + ?Sized,
{
    let m = groups.groups();
    if a.len() != groups.dim() || b.len() != m * (m - 1) / 2 || b.iter().any(|v| v.len() != a.len())
    {
        return Err(Error::invalid(
            "estimate",
            "a^ and B^ do not have the groups' shape",
        ));
    }
    if let Some(g) = search.group {
        if g >= m {
            return Err(Error::invalid(
                "trade_off_group",
                format!("group {} is not one of the {m} groups", g + 1),
            ));
        }
    }
    let directions: Vec<(DVector<T>, DVector<T>)> = (0..m)
        .map(|u| {
            let (x, y) = trade_off_directions(groups, a, b, u);
            (-x, -y)
        })
        .collect();
    let (kappa, sin_phi): (Vec<T>, Vec<T>) = directions
        .iter()
        .map(|(x, y)| conditioning(x, y, lambda_hint))
        .unzip();
    let group = search
        .group
        .unwrap_or_else(|| (0..m).fold(0, |best, u| if kappa[u] > kappa[best] { u } else { best }));
    let (x, y) = &directions[group];
    let mut warnings = Vec::new();
    if sin_phi[group] <= prec::ill_conditioned::<T>() {
        warnings.push(Warning::new(
            Cause::Unidentifiable,
            format!(
                "Part 3 (lambda): tau^{g} . a^ and sum_v b^^({g}v) are parallel (sin phi = {:.2e}), so Alg. 4 cannot identify lambda; no search was run (the closed form S/(1 + S) = {:.6} stands)",
                sin_phi[group].to_f64_lossy(),
                lambda_hint.to_f64_lossy(),
                g = group + 1
            ),
        ));
        return Ok(TradeOff {
            group,
            kappa,
            sin_phi,
            lambda: None,
            consistent: None,
            queries: 0,
            warnings,
        });
    }
    let plus = groups.plus_sphere()?;
    let mut restricted = Restricted::new(groups, Embedding::TradeOff { group }, &mut *oracle)?;
    let out = maximize(
        T::int(0),
        T::int(1),
        search.eps.get().clone(),
        search.strategy,
        |l1: &T, l2: &T| {
            let (s1, s2) = (
                trade_off_point(&plus, x, y, l1),
                trade_off_point(&plus, x, y, l2),
            );
            Ok(restricted.compare(&s1, &s2)?.preference)
        },
    )?;
    match &out.consistent {
        Consistent::Contradictory { above, below } => warnings.push(Warning::new(
            Cause::Contradictory,
            format!(
                "Part 3 (lambda): the answers put lambda both above {:.6} and below {:.6} (a noisy oracle)",
                above.to_f64_lossy(),
                below.to_f64_lossy()
            ),
        )),
        Consistent::Interval { lo, hi }
            if out.stop != Stop::Resolution
                && hi.clone() - lo.clone()
                    > search.eps.get().clone() * (T::int(1) + prec::ulps::<T>(64)) =>
        {
            warnings.push(Warning::new(
                Cause::Plateau,
                format!(
                    "Part 3 (lambda): the answers leave lambda anywhere in [{:.6}, {:.6}] ({} ties)",
                    lo.to_f64_lossy(),
                    hi.to_f64_lossy(),
                    out.ties
                ),
            ))
        }
        Consistent::Interval { .. } => {}
    }
    Ok(TradeOff {
        group,
        kappa,
        sin_phi,
        lambda: Some(out.estimate.clone()),
        consistent: Some(out.consistent),
        queries: out.queries,
        warnings,
    })
}

/// The distance of a query point from the optimum, over its own sphere, of
/// the oracle's utility −Ψ restricted to the embedding the point comes
/// from, for the push-away adversary: (s, …, s) on S_ρ; the groups in σ at
/// e₁ or e_k and the others at s on S_ρ; one group at s⁺ and the others at
/// o on S⁺. `None` for a point of no FPME embedding.
pub fn distance_from_optimum<T: Scalar>(
    groups: &Groups<T>,
    truth: &FairMetric<T>,
    point: &GroupRates<T>,
) -> Option<T> {
    let (m, k) = (groups.groups(), groups.classes());
    if groups.check(point).is_err() || !truth.fits(groups) {
        return None;
    }
    let at = |g: usize| point.group(g).clone_owned();
    let sphere = groups.sphere();
    let toward = |s: &DVector<T>, sphere: &Sphere<T>, slope: DVector<T>| -> Option<T> {
        let n = slope.norm();
        if n <= T::int(0) {
            return None;
        }
        // the utility −Ψ increases along −slope
        let optimum = sphere.point(&(slope / -n)).ok()?;
        Some((s - optimum).norm())
    };
    let first = at(0);
    if (1..m).all(|g| at(g) == first) {
        return toward(&first, sphere, truth.class_slope());
    }
    for class in [0, k - 1] {
        let Ok(e) = trivial::<T>(k, class) else {
            continue;
        };
        let sigma: Vec<usize> = (0..m).filter(|g| at(*g) == e).collect();
        let rest: Vec<usize> = (0..m).filter(|g| !sigma.contains(g)).collect();
        if !sigma.is_empty() && !rest.is_empty() && rest.iter().all(|g| at(*g) == at(rest[0])) {
            let slope = truth.violation_slope(groups, &sigma, class).ok()?;
            return toward(&at(rest[0]), sphere, slope);
        }
    }
    let moved: Vec<usize> = (0..m).filter(|g| at(*g) != *groups.centre()).collect();
    if let [u] = moved[..] {
        let plus = groups.plus_sphere().ok()?;
        return toward(&at(u), &plus, truth.trade_off_slope(groups, u));
    }
    None
}

/// FPME (001 Alg. 1) as a typed algorithm: the groups (τ and the common
/// query sphere) and the settings; its point is every group's rates.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::fpme::{Fpme, FpmeSettings};
/// use metric_elicitation::elicit::Elicitation;
/// use metric_elicitation::geometry::groups::Groups;
/// use metric_elicitation::metric::fair::FairMetric;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::search::Tolerance;
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
/// let groups = Groups::<f64>::sample(2, 2, None, &mut rng).unwrap();
/// let truth = FairMetric::sample(2, 2, &mut rng);
/// let fpme = Fpme::new(groups.clone(), FpmeSettings::efficient(Tolerance::new(1e-3).unwrap()));
/// let mut oracle = Counted::new(Simulated::new(truth.bind(&groups).unwrap()));
/// let estimate = fpme.elicit(&mut oracle).unwrap();
/// assert!((&estimate.a - truth.a()).amax() < 1e-2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Fpme<T: Scalar> {
    groups: Groups<T>,
    settings: FpmeSettings<T>,
}

impl<T: Scalar> Fpme<T> {
    /// FPME for `groups` with `settings`.
    pub fn new(groups: Groups<T>, settings: FpmeSettings<T>) -> Self {
        Fpme { groups, settings }
    }

    /// The groups.
    pub fn groups(&self) -> &Groups<T> {
        &self.groups
    }

    /// The settings.
    pub fn settings(&self) -> &FpmeSettings<T> {
        &self.settings
    }
}

impl<T: Scalar> Elicitation<T> for Fpme<T> {
    type Point = GroupRates<T>;
    type Estimate = FpmeEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<GroupRates<T>>) -> Result<FpmeEstimate<T>> {
        fpme(&self.groups, oracle, &self.settings)
    }

    /// At most: (1 + 2|M|) LPMEs of q orthant queries and cycles·(q − 1)
    /// searches, and one search of [0, 1] when λ is searched, each search
    /// at its strategy's most ([`crate::search::max_queries`]); exact for
    /// the paper strategy.
    fn expected_queries(&self) -> Option<usize> {
        let s = &self.settings;
        let (m, q) = (self.groups.groups(), self.groups.dim());
        let sets = m * (m - 1) / 2;
        let per = |length: &T| crate::search::max_queries(s.strategy, length, &s.eps).ok();
        let lpme = q + s.cycles * (q - 1) * per(&T::frac_pi_2())?;
        let search = if s.lambda.searches() {
            per(&T::int(1))?
        } else {
            0
        };
        Some((1 + 2 * sets) * lpme + search)
    }
}
