//! Binary metric elicitation: *Performance Metric Elicitation from Pairwise
//! Classifier Comparisons* (Hiranandani, Boodaghians, Mehta, Koyejo,
//! AISTATS 2019; `003` in `shared/seeds`).
//!
//! Every procedure is generic over the scalar type, the population
//! ([`BinaryPopulation`]) and the oracle ([`Oracle`] over
//! [`BinaryConfusion`]s), and takes the search [`Strategy`].

use super::{Elicitation, Search};
use crate::diagnostics::{Cause, Warning};
use crate::error::{Error, Result};
use crate::geometry::binary::{boundary_point, quarter_grid, slope};
use crate::metric::binary::Lfpm;
use crate::oracle::{Metric, Oracle};
use crate::population::{BinaryConfusion, BinaryPopulation, LogisticUniform, Side};
use crate::prec;
use crate::scalar::Scalar;
use crate::search::{maximize, Consistent, Stop, Strategy, Tolerance};

/// The result of a search along one boundary of C (003 Alg. 1 or 2): the
/// slope m = m(θ̂), the confusion C_θ̂, and the supporting hyperplane
/// ℓ: m11·tp + m00·tn = C0 at it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundaryOptimum<T> {
    /// θ̂, the midpoint of the final search interval.
    pub theta: T,
    /// m11 = cos θ̂.
    pub m11: T,
    /// m00 = sin θ̂.
    pub m00: T,
    /// The Bayes (Alg. 1) or inverse-Bayes-side (Alg. 2) confusion C_θ̂.
    pub confusion: BinaryConfusion<T>,
    /// C0 = ⟨m, C_θ̂⟩, the hyperplane's offset.
    pub offset: T,
    /// Final θ interval, lower end.
    pub lo: T,
    /// Final θ interval, upper end.
    pub hi: T,
    /// Oracle queries asked.
    pub queries: usize,
    /// Why the search stopped.
    pub stop: Stop,
    /// Every θ consistent with the answers (see [`Consistent`]).
    pub consistent: Consistent<T>,
    /// Answers that preferred neither confusion.
    pub ties: usize,
}

impl<T: Scalar> BoundaryOptimum<T> {
    /// Why the consistent θ interval is wider than ε, if it is: a plateau
    /// (ties between distinct confusions, e.g. of a finite sample or where
    /// thresholds leave the range of η), contradictory answers, or the
    /// working precision. `what` names the search in the message.
    pub fn warnings(&self, eps: &T, what: &str) -> Vec<Warning> {
        let mut out = Vec::new();
        match &self.consistent {
            Consistent::Contradictory { above, below } => out.push(Warning::new(
                Cause::Contradictory,
                format!(
                    "{what}: the answers put the optimum both above theta = {:.6} and below {:.6}, which no unimodal metric does (a noisy oracle, or a finite sample whose metric is not unimodal along the boundary)",
                    above.to_f64_lossy(),
                    below.to_f64_lossy()
                ),
            )),
            Consistent::Interval { lo, hi } => {
                // At the working precision's resolution the width is
                // rounding's, reported below.
                if self.stop != Stop::Resolution
                    && hi.clone() - lo.clone() > eps.clone() * (T::int(1) + prec::ulps::<T>(64))
                {
                    out.push(Warning::new(
                        Cause::Plateau,
                        format!(
                            "{what}: {} answers tied distinct confusions (a plateau, e.g. of a finite sample or where thresholds leave the range of eta), leaving theta anywhere in [{:.6}, {:.6}]",
                            self.ties,
                            lo.to_f64_lossy(),
                            hi.to_f64_lossy()
                        ),
                    ));
                }
            }
        }
        if self.stop == Stop::Resolution {
            out.push(Warning::new(
                Cause::Resolution,
                format!("{what}: the working precision was reached before eps"),
            ));
        }
        out
    }
}

/// Whether the search looks for the oracle's most or least preferred point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Goal {
    Maximize,
    Minimize,
}

fn boundary_search<T, P, O>(
    population: &P,
    oracle: &mut O,
    start: T,
    eps: &Tolerance<T>,
    strategy: Strategy,
    goal: Goal,
) -> Result<BoundaryOptimum<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    let end = start.clone() + T::frac_pi_2();
    let out = maximize(start, end, eps.get().clone(), strategy, |x: &T, y: &T| {
        let cx = boundary_point(population, x)?;
        let cy = boundary_point(population, y)?;
        Ok(match goal {
            Goal::Maximize => oracle.compare(&cx, &cy)?.preference,
            // 003 Alg. 2: "check C ≺ C′ whenever Alg. 1 checks C ≻ C′".
            Goal::Minimize => oracle.compare(&cy, &cx)?.preference,
        })
    })?;
    let (m11, m00) = slope(&out.estimate);
    let confusion = boundary_point(population, &out.estimate)?;
    let offset = confusion.dot(&m11, &m00);
    Ok(BoundaryOptimum {
        theta: out.estimate,
        m11,
        m00,
        confusion,
        offset,
        lo: out.lo,
        hi: out.hi,
        queries: out.queries,
        stop: out.stop,
        consistent: out.consistent,
        ties: out.ties,
    })
}

/// 003 Algorithm 1: maximize a quasiconcave metric, monotonically increasing
/// in TP and TN, over the upper boundary ∂C+ (θ ∈ [0, π/2]), returning the
/// maximizer and its supporting hyperplane.
///
/// With [`Strategy::Paper`] it asks exactly 4·⌈log₂((π/2)/ε)⌉ queries.
///
/// # Errors
/// [`Error::InvalidEpsilon`] for ε ≤ 0; [`Error::Interrupted`] when the
/// oracle stops.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::binary::maximize_upper;
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::LogisticUniform;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// let pop = LogisticUniform::new(5.0).unwrap();
/// let truth = Lpm::from_angle(&0.5).unwrap();
/// let mut oracle = Simulated::new(truth);
/// let out = maximize_upper(&pop, &mut oracle, &Tolerance::new(0.02).unwrap(), Strategy::Paper).unwrap();
/// assert!((out.theta - 0.5).abs() <= 0.01);
/// assert_eq!(out.queries, 28);
/// ```
pub fn maximize_upper<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
) -> Result<BoundaryOptimum<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    boundary_search(population, oracle, T::int(0), eps, strategy, Goal::Maximize)
}

/// 003 Algorithm 2: minimize a quasiconvex metric, monotonically increasing
/// in TP and TN, over the lower boundary ∂C− (θ ∈ [π, 3π/2], every
/// comparison reversed), returning the minimizer and its supporting
/// hyperplane (whose slope m has both entries ≤ 0).
///
/// # Errors
/// As [`maximize_upper`].
pub fn minimize_lower<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
) -> Result<BoundaryOptimum<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    boundary_search(population, oracle, T::pi(), eps, strategy, Goal::Minimize)
}

/// Maximize a quasiconcave metric that is monotonically *decreasing* in TP
/// and TN: its maximizer lies on ∂C− (003 App. C), θ ∈ [π, 3π/2].
///
/// # Errors
/// As [`maximize_upper`].
pub fn maximize_lower<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
) -> Result<BoundaryOptimum<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    boundary_search(population, oracle, T::pi(), eps, strategy, Goal::Maximize)
}

/// What is known of the oracle's metric's monotonicity in (TP, TN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Monotonicity {
    /// Increasing in TP and TN: the maximizer is on ∂C+ (003 §5.1).
    Increasing,
    /// Decreasing in TP and TN: the maximizer is on ∂C− (003 App. C).
    Decreasing,
    /// Unknown: one query Ω(C_{π/4}, C_{5π/4}) decides (003 App. C).
    Unknown,
}

/// An elicited linear metric.
#[derive(Debug, Clone, PartialEq)]
pub struct LpmEstimate<T> {
    /// m̂11 (‖m̂‖₂ = 1).
    pub m11: T,
    /// m̂00.
    pub m00: T,
    /// The boundary searched.
    pub side: Side,
    /// The boundary search it came from.
    pub search: BoundaryOptimum<T>,
    /// Total oracle queries (the search's, plus one when the monotonicity
    /// was [`Monotonicity::Unknown`]).
    pub queries: usize,
}

/// LPM elicitation (003 §5.1; App. C for decreasing metrics): the elicited
/// metric is the slope of the supporting hyperplane at the oracle's most
/// preferred boundary point, m̂ = (cos θ̂, sin θ̂).
///
/// # Errors
/// As [`maximize_upper`].
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::binary::{elicit_lpm, Monotonicity};
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::LogisticUniform;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// let pop = LogisticUniform::new(5.0).unwrap();
/// let truth = Lpm::new(-0.94, -0.34, 0.0).unwrap().unit(); // decreasing
/// let mut oracle = Simulated::new(truth.clone());
/// let est = elicit_lpm(&pop, &mut oracle, &Tolerance::new(0.02).unwrap(), Strategy::Paper, Monotonicity::Unknown).unwrap();
/// assert!((est.m11 - truth.m11).abs() <= 0.01 && (est.m00 - truth.m00).abs() <= 0.01);
/// assert_eq!(est.queries, 1 + 28);
/// ```
pub fn elicit_lpm<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
    monotonicity: Monotonicity,
) -> Result<LpmEstimate<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    let (side, extra) = match monotonicity {
        Monotonicity::Increasing => (Side::Upper, 0),
        Monotonicity::Decreasing => (Side::Lower, 0),
        Monotonicity::Unknown => {
            let quarter = T::frac_pi_4();
            let upper = boundary_point(population, &quarter)?;
            let lower = boundary_point(population, &(quarter + T::pi()))?;
            let increasing = oracle
                .compare(&upper, &lower)
                .map_err(|e| Error::Interrupted {
                    procedure: "LPM elicitation (App. C monotonicity query)".into(),
                    queries: 0,
                    progress: "no search started".into(),
                    source: Box::new(e),
                })?
                .prefers_first();
            (if increasing { Side::Upper } else { Side::Lower }, 1)
        }
    };
    let search = match side {
        Side::Upper => maximize_upper(population, oracle, eps, strategy)?,
        Side::Lower => maximize_lower(population, oracle, eps, strategy)?,
    };
    Ok(LpmEstimate {
        m11: search.m11.clone(),
        m00: search.m00.clone(),
        side,
        queries: search.queries + extra,
        search,
    })
}

/// 003 Prop. 4: the LFPM solving system (9) — p′11 − τ q′11 = m11,
/// p′00 − τ q′00 = m00, τ q′0 = C0, with Assumption 2 — given the share
/// p′11 (p′00 = 1 − p′11): with P′ = p′11ζ + p′00(1 − ζ) and
/// Q′ = P′ + C0 − m11ζ − m00(1 − ζ), q′0 = C0·P′/Q′,
/// q′11 = (p′11 − m11)·P′/Q′, q′00 = (p′00 − m00)·P′/Q′ (and τ = Q′/P′).
///
/// For system (10) (the hyperplane from Alg. 2, whose m and C0 are
/// negative) pass (−m11, −m00, −C0): dividing by −γ > 0 there flips the
/// signs the paper's (10) leaves as printed; see [`solve_lower_system`].
///
/// # On the scale of the hyperplane
/// A hyperplane fixes (m, C0) only up to a factor λ > 0. The true LFPM
/// (with p11 + p00 = 1) solves (9) for λ = s = ‖p − τq‖, not for the unit m
/// that Alg. 1 returns; the paper's argument that the solution is "α times
/// the true metric" holds only when s = 1. With λ = 1 (the paper's choice,
/// reproduced here) the solution shares the true metric's maximizer and
/// hyperplane but is only approximately a multiple of it (F1: α = 0.915,
/// σ = 0.037 even with an exact hyperplane, which is 003 Table 2's row 1).
/// Passing (s·m11, s·m00, s·C0) with the true p11 returns the true metric
/// exactly (`tests/suite/binary_003.rs`, `prop4_inverts_the_upper_hyperplane`).
///
/// # Errors
/// [`Error::IllConditioned`] when P′ or Q′ vanishes to working precision.
pub fn solve_prop4<T: Scalar>(p11: &T, m11: &T, m00: &T, c0: &T, zeta: &T) -> Result<Lfpm<T>> {
    let one = T::int(1);
    let p00 = one.clone() - p11.clone();
    let big_p = p11.clone() * zeta.clone() + p00.clone() * (one.clone() - zeta.clone());
    let big_q = big_p.clone() + c0.clone()
        - m11.clone() * zeta.clone()
        - m00.clone() * (one - zeta.clone());
    let scale = big_p.clone().abs() + c0.clone().abs() + m11.clone().abs() + m00.clone().abs();
    let tiny = prec::ill_conditioned::<T>() * scale;
    if big_p.clone().abs() <= tiny || big_q.clone().abs() <= tiny {
        return Err(Error::IllConditioned {
            what: "003 Prop. 4".into(),
            detail: format!("P' = {big_p} or Q' = {big_q} is zero at p'11 = {p11}"),
        });
    }
    let ratio = big_p / big_q;
    Lfpm::new(
        p11.clone(),
        p00.clone(),
        (p11.clone() - m11.clone()) * ratio.clone(),
        (p00 - m00.clone()) * ratio.clone(),
        c0.clone() * ratio,
    )
}

/// System (9) from Alg. 1's hyperplane, solved by [`solve_prop4`].
///
/// # Errors
/// As [`solve_prop4`].
pub fn solve_upper_system<T: Scalar>(
    p11: &T,
    upper: &BoundaryOptimum<T>,
    zeta: &T,
) -> Result<Lfpm<T>> {
    solve_prop4(p11, &upper.m11, &upper.m00, &upper.offset, zeta)
}

/// System (10) from Alg. 2's hyperplane: the true metric satisfies
/// p − τ̲ q = γ m, τ̲ q0 = γ C0 with γ < 0; dividing by −γ gives the form of
/// (9) with (−m11, −m00, −C0), solved by [`solve_prop4`].
///
/// # Errors
/// As [`solve_prop4`].
pub fn solve_lower_system<T: Scalar>(
    p11: &T,
    lower: &BoundaryOptimum<T>,
    zeta: &T,
) -> Result<Lfpm<T>> {
    solve_prop4(
        p11,
        &-lower.m11.clone(),
        &-lower.m00.clone(),
        &-lower.offset.clone(),
        zeta,
    )
}

/// Mean and (population) standard deviation of φ_a(C)/φ_b(C) over
/// `confusions`.
///
/// Confusions where both metrics vanish (e.g. Fβ and its estimate at the
/// vertex (0, 1 − ζ), reached by the end cells of a θ grid on the App. A
/// population) give 0/0, carry no ratio, and are skipped.
///
/// # Errors
/// [`Error::IllConditioned`] when φ_b alone vanishes (to working precision)
/// at one of the confusions, a value is not finite, or every confusion was
/// skipped.
pub fn ratio_stats<T, A, B>(a: &A, b: &B, confusions: &[BinaryConfusion<T>]) -> Result<(T, T)>
where
    T: Scalar,
    A: Metric<BinaryConfusion<T>, Value = T>,
    B: Metric<BinaryConfusion<T>, Value = T>,
{
    if confusions.is_empty() {
        return Err(Error::invalid("confusions", "no confusions to compare on"));
    }
    let tiny = prec::ulps::<T>(16);
    let mut ratios = Vec::with_capacity(confusions.len());
    for c in confusions {
        let (va, vb) = (a.value(c), b.value(c));
        if va.clone().abs() <= tiny && vb.clone().abs() <= tiny {
            continue;
        }
        if vb.clone().abs() <= tiny || !va.finite() || !vb.finite() {
            return Err(Error::IllConditioned {
                what: "metric ratio".into(),
                detail: format!(
                    "denominator metric is {vb} at (TP, TN) = ({}, {})",
                    c.tp, c.tn
                ),
            });
        }
        ratios.push(va / vb);
    }
    if ratios.is_empty() {
        return Err(Error::IllConditioned {
            what: "metric ratio".into(),
            detail: "both metrics vanish at every confusion".into(),
        });
    }
    let n = T::from_u64(ratios.len() as u64).unwrap_or_else(T::one);
    let mean = ratios.iter().fold(T::int(0), |s, r| s + r.clone()) / n.clone();
    let var = ratios
        .iter()
        .fold(T::int(0), |s, r| s + (r.clone() - mean.clone()).powi(2))
        / n;
    Ok((mean, var.sqrt()))
}

/// Settings of 003 Alg. 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alg3Settings {
    /// Confusions generated on each of ∂C+ and ∂C− (the paper: 1000 each,
    /// "n = 2000").
    pub confusions_per_side: usize,
    /// Grid steps: p′11 ∈ {0, 1/steps, …, 1}, i.e. Δ = 1/steps (the paper:
    /// Δ = 0.01, steps = 100).
    pub steps: u32,
}

impl Alg3Settings {
    /// Checks that both counts are at least 1.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `alg3_confusions` or
    /// `alg3_steps`.
    pub fn check(&self) -> Result<()> {
        if self.confusions_per_side == 0 {
            return Err(Error::invalid("alg3_confusions", "must be at least 1"));
        }
        if self.steps == 0 {
            return Err(Error::invalid("alg3_steps", "must be at least 1"));
        }
        Ok(())
    }
}

impl Default for Alg3Settings {
    /// The paper's settings: 1000 confusions per boundary, Δ = 0.01.
    fn default() -> Self {
        Alg3Settings {
            confusions_per_side: 1000,
            steps: 100,
        }
    }
}

/// Confusions on the upper and the lower boundary, in that order.
pub type BoundaryConfusions<T> = (Vec<BinaryConfusion<T>>, Vec<BinaryConfusion<T>>);

/// The confusions 003 Alg. 3 compares on: θ at the `k` cell centres of
/// [0, π/2] (∂C+) and of [π, 3π/2] (∂C−). Returns (upper, lower).
///
/// Angles whose threshold falls outside the range of η give the vertices
/// (ζ, 0) and (0, 1 − ζ) (TP = 0 or TN = 0), shared by both boundaries,
/// where a linear-fractional metric can vanish; they are left out, so each
/// list may hold fewer than `k` confusions.
///
/// # Errors
/// Only if the population fails (it does not for finite θ).
pub fn alg3_confusions<T: Scalar, P: BinaryPopulation<T> + ?Sized>(
    population: &P,
    k: usize,
) -> Result<BoundaryConfusions<T>> {
    let zero = T::int(0);
    let side = |start: T| -> Result<Vec<BinaryConfusion<T>>> {
        let mut out = Vec::with_capacity(k);
        for theta in quarter_grid(&start, k) {
            let c = boundary_point(population, &theta)?;
            if c.tp > zero && c.tn > zero {
                out.push(c);
            }
        }
        Ok(out)
    };
    Ok((side(T::int(0))?, side(T::pi())?))
}

/// 003 Algorithm 3 (grid search for the best ratio): for p′11 on the grid,
/// solve (9) and (10) by Prop. 4 and keep the p′11 whose two solutions have
/// the most constant ratio φ′/φ′′ (smallest standard deviation) over
/// `confusions`. Grid points where either system is ill-conditioned or φ′′
/// vanishes are skipped. Returns (p′11, σ).
///
/// # Errors
/// [`Error::IllConditioned`] when no grid point gives a usable pair;
/// [`Error::InvalidArgument`] for `steps` = 0.
pub fn grid_search<T: Scalar>(
    upper: &BoundaryOptimum<T>,
    lower: &BoundaryOptimum<T>,
    confusions: &[BinaryConfusion<T>],
    steps: u32,
    zeta: &T,
) -> Result<(T, T)> {
    if steps == 0 {
        return Err(Error::invalid(
            "steps",
            "Alg. 3 needs at least one grid step",
        ));
    }
    let mut best: Option<(T, T)> = None;
    for i in 0..=steps {
        let p11 = T::ratio(i64::from(i), i64::from(steps));
        let (Ok(first), Ok(second)) = (
            solve_upper_system(&p11, upper, zeta),
            solve_lower_system(&p11, lower, zeta),
        ) else {
            continue;
        };
        let Ok((_, sigma)) = ratio_stats(&first, &second, confusions) else {
            continue;
        };
        if best.as_ref().is_none_or(|(_, s)| sigma < *s) {
            best = Some((p11, sigma));
        }
    }
    best.ok_or_else(|| Error::IllConditioned {
        what: "003 Alg. 3".into(),
        detail: "no grid value of p'11 gives finite, non-vanishing solutions of (9) and (10)"
            .into(),
    })
}

/// An elicited linear-fractional metric.
#[derive(Debug, Clone, PartialEq)]
pub struct LfpmEstimate<T> {
    /// φ̂ = (p̂11·TP + p̂00·TN)/(q̂11·TP + q̂00·TN + q̂0), the solution of (9)
    /// at the chosen p′11 (a positive multiple of the true metric).
    pub metric: Lfpm<T>,
    /// The p′11 used (chosen by Alg. 3, or given for Cor. 1).
    pub p11: T,
    /// σ of φ′/φ′′ at the chosen p′11 (Alg. 3's criterion); `None` for the
    /// Cor. 1 shortcut, which does not run Alg. 3.
    pub alg3_sigma: Option<T>,
    /// Alg. 1's result (maximizer on ∂C+ and hyperplane).
    pub upper: BoundaryOptimum<T>,
    /// Alg. 2's result (minimizer on ∂C− and hyperplane); `None` for Cor. 1.
    pub lower: Option<BoundaryOptimum<T>>,
    /// Total oracle queries.
    pub queries: usize,
}

/// LFPM elicitation (003 §5.2, Fig. 3): Alg. 1 on ∂C+, Alg. 2 on ∂C−, then
/// the oracle-free Alg. 3 over the confusions of [`alg3_confusions`].
///
/// # Errors
/// As [`maximize_upper`] and [`grid_search`].
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::binary::{elicit_lfpm, ratio_stats, alg3_confusions, Alg3Settings};
/// use metric_elicitation::metric::binary::Lfpm;
/// use metric_elicitation::oracle::Simulated;
/// use metric_elicitation::population::LogisticUniform;
/// use metric_elicitation::search::{Strategy, Tolerance};
/// let pop = LogisticUniform::new(5.0).unwrap();
/// let truth = Lfpm::new(0.4, 0.6, -0.1, -0.2, 0.65).unwrap(); // 003 Table 2, row 5
/// let settings = Alg3Settings { confusions_per_side: 200, steps: 100 };
/// let est = elicit_lfpm(&pop, &mut Simulated::new(truth.clone()), &Tolerance::new(0.05).unwrap(), Strategy::Paper, settings).unwrap();
/// let (upper, _) = alg3_confusions(&pop, 200).unwrap();
/// let (_alpha, sigma) = ratio_stats(&est.metric, &truth, &upper).unwrap();
/// assert!(sigma < 0.05);
/// ```
pub fn elicit_lfpm<T, P, O>(
    population: &P,
    oracle: &mut O,
    eps: &Tolerance<T>,
    strategy: Strategy,
    settings: Alg3Settings,
) -> Result<LfpmEstimate<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    if settings.confusions_per_side == 0 {
        return Err(Error::invalid(
            "confusions_per_side",
            "Alg. 3 needs confusions",
        ));
    }
    let upper = maximize_upper(population, oracle, eps, strategy)?;
    let lower = minimize_lower(population, oracle, eps, strategy)?;
    let zeta = population.zeta();
    let (mut confusions, lower_confusions) =
        alg3_confusions(population, settings.confusions_per_side)?;
    confusions.extend(lower_confusions);
    let (p11, sigma) = grid_search(&upper, &lower, &confusions, settings.steps, &zeta)?;
    let metric = solve_upper_system(&p11, &upper, &zeta)?;
    Ok(LfpmEstimate {
        metric,
        p11,
        alg3_sigma: Some(sigma),
        queries: upper.queries + lower.queries,
        upper,
        lower: Some(lower),
    })
}

/// 003 Cor. 1: when the numerator's share p′11 = p11/(p11 + p00) is known
/// (Fβ: p′11 = 1, whatever β), Alg. 1 alone elicits the LFPM: Prop. 4 on
/// its hyperplane.
///
/// The paper claims the result is the true metric up to a constant; that
/// holds only when ‖p − τq‖ = 1 (see [`solve_prop4`]). For F1 the exact
/// hyperplane gives (1, 0), (0.25, −0.75, 0.75), α = 0.915, σ = 0.037
/// against the truth, as in 003 Table 2.
///
/// # Errors
/// As [`maximize_upper`] and [`solve_prop4`]; [`Error::InvalidArgument`]
/// for p′11 outside [0, 1].
pub fn elicit_lfpm_known_p11<T, P, O>(
    population: &P,
    oracle: &mut O,
    p11: &T,
    eps: &Tolerance<T>,
    strategy: Strategy,
) -> Result<LfpmEstimate<T>>
where
    T: Scalar,
    P: BinaryPopulation<T> + ?Sized,
    O: Oracle<BinaryConfusion<T>> + ?Sized,
{
    if !p11.finite() || *p11 < T::int(0) || *p11 > T::int(1) {
        return Err(Error::invalid(
            "p11",
            format!("the share p'11 must lie in [0, 1], got {p11}"),
        ));
    }
    let upper = maximize_upper(population, oracle, eps, strategy)?;
    let metric = solve_upper_system(p11, &upper, &population.zeta())?;
    Ok(LfpmEstimate {
        metric,
        p11: p11.clone(),
        alg3_sigma: None,
        queries: upper.queries,
        upper,
        lower: None,
    })
}

/// The constants of 003 Assumption 4 for the App. A population at the
/// optimal threshold δ, and whether the assumption holds there.
#[derive(Debug, Clone, PartialEq)]
pub struct Assumption4<T> {
    /// k0: the least density of η(X) in the window around δ.
    pub k0: T,
    /// k1: the largest density of η(X) in the window.
    pub k1: T,
    /// The window half-width ν̄ = (2/k0)·√(k1·ε_Ω).
    pub nu: T,
    /// False when the window leaves the support of η(X) (k0 = 0: the bound
    /// of Thm. 2 is vacuous there).
    pub holds: bool,
}

/// k0 and k1 of 003 Assumption 4 for [`LogisticUniform`]: Z = η(X) has
/// density 1/(2a·z(1 − z)) on [η(1), η(−1)], so over a window
/// [δ − ν̄, δ + ν̄] k0 is the density's minimum and k1 its maximum. Since ν̄
/// itself depends on k0 and k1, the window is grown to a fixed point.
pub fn assumption4_constants<T: Scalar>(
    population: &LogisticUniform<T>,
    delta: &T,
    eps_omega: &T,
) -> Assumption4<T> {
    let a = population.a().clone();
    let (one, two) = (T::int(1), T::int(2));
    let density =
        |z: &T| one.clone() / (two.clone() * a.clone() * z.clone() * (one.clone() - z.clone()));
    let (support_lo, support_hi) = (population.eta(&one), population.eta(&-one.clone()));
    if *delta <= support_lo || *delta >= support_hi {
        return Assumption4 {
            k0: T::int(0),
            k1: T::int(0),
            nu: T::int(0),
            holds: false,
        };
    }
    let (mut k0, mut k1) = (density(delta), density(delta));
    let mut nu = T::int(0);
    for _ in 0..200 {
        nu = two.clone() / k0.clone() * (k1.clone() * eps_omega.clone()).sqrt();
        let (lo, hi) = (delta.clone() - nu.clone(), delta.clone() + nu.clone());
        if lo < support_lo || hi > support_hi {
            return Assumption4 {
                k0: T::int(0),
                k1,
                nu,
                holds: false,
            };
        }
        // The density is convex with its minimum at z = 1/2.
        let half = T::ratio(1, 2);
        let new_k0 = density(&half.clone().clamp(lo.clone(), hi.clone()));
        let new_k1 = density(&lo).max(density(&hi));
        if new_k0 == k0 && new_k1 == k1 {
            break;
        }
        k0 = new_k0;
        k1 = new_k1;
    }
    Assumption4 {
        k0,
        k1,
        nu,
        holds: true,
    }
}

/// The right-hand side of 003 Thm. 2: ‖m* − m̂‖∞ ≤ √2·ε + (2/k0)·√(2·k1·ε_Ω);
/// `None` when Assumption 4 fails (the bound is vacuous).
pub fn theorem2_bound<T: Scalar>(eps: &T, eps_omega: &T, constants: &Assumption4<T>) -> Option<T> {
    if !constants.holds || constants.k0 <= T::int(0) {
        return None;
    }
    let two = T::int(2);
    Some(
        two.clone().sqrt() * eps.clone()
            + two.clone() / constants.k0.clone()
                * (two * constants.k1.clone() * eps_omega.clone()).sqrt(),
    )
}

/// The population of a typed binary algorithm.
pub type Population<T> = Box<dyn BinaryPopulation<T> + Send + Sync>;

/// LPM elicitation (003 §5.1, Alg. 1; App. C for an unknown or decreasing
/// metric) as a typed algorithm: a population, the search settings and
/// what is known of the metric's monotonicity.
///
/// # Examples
/// ```
/// use metric_elicitation::elicit::binary::{BinaryLpm, Monotonicity};
/// use metric_elicitation::elicit::{Elicitation, Search};
/// use metric_elicitation::metric::binary::Lpm;
/// use metric_elicitation::oracle::{Counted, Simulated};
/// use metric_elicitation::population::LogisticUniform;
/// use metric_elicitation::search::Strategy;
/// let population = LogisticUniform::new(5.0).unwrap();
/// let search = Search::new(0.02, Strategy::Paper).unwrap();
/// let lpm = BinaryLpm::new(Box::new(population), search, Monotonicity::Unknown);
/// let truth = Lpm::new(0.8, 0.6, 0.0).unwrap();
/// let mut oracle = Counted::new(Simulated::new(truth.clone()));
/// let est = lpm.elicit(&mut oracle).unwrap();
/// assert!((est.m11 - 0.8).abs() <= 0.01 && (est.m00 - 0.6).abs() <= 0.01);
/// assert_eq!(Some(oracle.queries()), lpm.expected_queries());
/// ```
pub struct BinaryLpm<T: Scalar> {
    population: Population<T>,
    search: Search<T>,
    monotonicity: Monotonicity,
}

impl<T: Scalar> BinaryLpm<T> {
    /// LPM elicitation on `population`.
    pub fn new(population: Population<T>, search: Search<T>, monotonicity: Monotonicity) -> Self {
        BinaryLpm {
            population,
            search,
            monotonicity,
        }
    }

    /// The population.
    pub fn population(&self) -> &(dyn BinaryPopulation<T> + Send + Sync) {
        self.population.as_ref()
    }

    /// What is known of the metric's monotonicity (which boundary is
    /// searched).
    pub fn monotonicity(&self) -> Monotonicity {
        self.monotonicity
    }

    /// The search settings.
    pub fn search(&self) -> &Search<T> {
        &self.search
    }
}

impl<T: Scalar> Elicitation<T> for BinaryLpm<T> {
    type Point = BinaryConfusion<T>;
    type Estimate = LpmEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<BinaryConfusion<T>>) -> Result<LpmEstimate<T>> {
        elicit_lpm(
            self.population.as_ref(),
            oracle,
            &self.search.eps,
            self.search.strategy,
            self.monotonicity,
        )
    }

    /// One search of [0, π/2], plus the monotonicity query when unknown.
    fn expected_queries(&self) -> Option<usize> {
        crate::search::expected_queries(self.search.strategy, &T::frac_pi_2(), &self.search.eps)
            .map(|n| n + usize::from(self.monotonicity == Monotonicity::Unknown))
    }
}

/// LFPM elicitation as a typed algorithm: 003 §5.2 (Alg. 1, Alg. 2 and
/// Alg. 3) or, with a known numerator share p′11, 003 Cor. 1 (Alg. 1
/// alone).
pub struct BinaryLfpm<T: Scalar> {
    population: Population<T>,
    search: Search<T>,
    alg3: Alg3Settings,
    known_p11: Option<T>,
}

impl<T: Scalar> BinaryLfpm<T> {
    /// 003 §5.2 with Alg. 3's `alg3` settings, or Cor. 1 with `known_p11`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `alg3_confusions` or `alg3_steps`
    /// when zero, or `p11` outside [0, 1].
    pub fn new(
        population: Population<T>,
        search: Search<T>,
        alg3: Alg3Settings,
        known_p11: Option<T>,
    ) -> Result<Self> {
        alg3.check()?;
        Ok(BinaryLfpm {
            population,
            search,
            alg3,
            known_p11,
        })
    }

    /// The population.
    pub fn population(&self) -> &(dyn BinaryPopulation<T> + Send + Sync) {
        self.population.as_ref()
    }

    /// The search settings.
    pub fn search(&self) -> &Search<T> {
        &self.search
    }

    /// The known numerator share p′11 of 003 Cor. 1, when given.
    pub fn known_p11(&self) -> Option<&T> {
        self.known_p11.as_ref()
    }

    /// Alg. 3's settings.
    pub fn alg3(&self) -> Alg3Settings {
        self.alg3
    }
}

impl<T: Scalar> Elicitation<T> for BinaryLfpm<T> {
    type Point = BinaryConfusion<T>;
    type Estimate = LfpmEstimate<T>;

    fn elicit(&self, oracle: &mut dyn Oracle<BinaryConfusion<T>>) -> Result<LfpmEstimate<T>> {
        let (eps, strategy) = (&self.search.eps, self.search.strategy);
        match &self.known_p11 {
            None => elicit_lfpm(self.population.as_ref(), oracle, eps, strategy, self.alg3),
            Some(p11) => {
                elicit_lfpm_known_p11(self.population.as_ref(), oracle, p11, eps, strategy)
            }
        }
    }

    /// One search of [0, π/2] per boundary (one with Cor. 1).
    fn expected_queries(&self) -> Option<usize> {
        let one = crate::search::expected_queries(
            self.search.strategy,
            &T::frac_pi_2(),
            &self.search.eps,
        )?;
        Some(if self.known_p11.is_some() {
            one
        } else {
            2 * one
        })
    }
}
