//! 001 (fair metric elicitation): §6.1 recovery (Fig. 4), query counts,
//! Theorem 1.
//!
//! The paper states no distribution for its random metrics and groups; the
//! one used here is [`FairMetric::sample`] (a = unit(U[0, 1]^q); b^{uv} =
//! w_{uv}·unit(U[0, 1]^q), masses w ~ U[0, 1] normalized to Σ = 1;
//! λ ~ U[0.1, 0.9]) with [`Groups::sample`] (per class, the groups'
//! shares U[0, 1]^m normalized), ρ = min(0.2, 1/k).

use super::{parallel_map, plots, Figure, Job, Layout, Options, Row, Section};
use crate::reproduce::binary::ADVERSARIES;
use metric_elicitation::elicit::fpme::theorem1_bound;
use metric_elicitation::elicit::fpme::{
    errors, fpme, paper_query_count, trade_off, DeltaRule, FpmeEstimate, FpmeSettings,
    TradeOffSearch, EFFICIENT_DIVISOR,
};
use metric_elicitation::error::{Error, Result};
use metric_elicitation::geometry::groups::{GroupRates, Groups, Partitions};
use metric_elicitation::metric::fair::FairMetric;
use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, PushAway, Scripted, SeededRandom, Simulated,
};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Tolerance;
use plotters::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

fn f(x: &impl Scalar) -> f64 {
    x.to_f64_lossy()
}

/// One random instance (groups and metric) of a cell (m, k).
pub type Instance<T> = (Groups<T>, FairMetric<T>);

/// `trials` random instances of the cell (m, k), the same for every
/// setting, precision and noise level of a seed: τ by [`Groups::sample`]
/// (default radius), then Ψ by [`FairMetric::sample`].
///
/// # Errors
/// Only on internal failure.
pub fn instances<T: Scalar>(
    m: usize,
    k: usize,
    trials: usize,
    seed: u64,
) -> Result<Vec<Instance<T>>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (0x001f_a1e5 + (m as u64) * 1000 + k as u64));
    (0..trials)
        .map(|_| {
            let groups = Groups::sample(m, k, None, &mut rng)?;
            let metric = FairMetric::sample(m, k, &mut rng);
            Ok((groups, metric))
        })
        .collect()
}

/// The errors of one §6.1 trial: ‖a − â‖₂; ‖vec(B − B̂)‖₂ with the paper's
/// δ and with least squares; |λ − λ̂| by Alg. 4 with group 1, by Alg. 4
/// with the best-conditioned group, and in closed form (from the
/// least-squares B̃). `NaN` where a rule failed or was not run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialErrors {
    /// ‖a − â‖₂.
    pub a: f64,
    /// ‖vec(B − B̂)‖₂, paper δ.
    pub b_paper: f64,
    /// ‖vec(B − B̂)‖₂, least-squares δ.
    pub b_ls: f64,
    /// |λ − λ̂|, Alg. 4 with group 1.
    pub lambda_group1: f64,
    /// |λ − λ̂|, Alg. 4 with the best-conditioned group.
    pub lambda_best: f64,
    /// |λ − λ̂|, closed form S/(1 + S) from the least-squares B̃.
    pub lambda_closed: f64,
    /// The procedure's queries (Alg. 4 with the best group, run after it
    /// for the report, is not counted).
    pub queries: usize,
}

/// Runs FPME with `settings` on one instance with an exact oracle and
/// measures every error of [`TrialErrors`]; Alg. 4 is (re)run with
/// group 1 and with the best group through the same oracle when the
/// settings did not run it.
///
/// # Errors
/// Propagates elicitation failures.
pub fn trial<T: Scalar>(
    instance: &Instance<T>,
    settings: &FpmeSettings<T>,
) -> Result<(TrialErrors, FpmeEstimate<T>)> {
    let (groups, psi) = instance;
    let mut oracle = Counted::new(Simulated::new(psi.bind(groups)?));
    let est = fpme(groups, &mut oracle, settings)?;
    let queries = oracle.posed();
    let (ea, _, _) = errors(psi, &est.a, &est.b, &est.lambda);
    let b_err = |rule| {
        est.by_rule(rule).map_or(
            f64::NAN,
            |(b, _)| f(&errors(psi, &est.a, &b, &est.lambda).1),
        )
    };
    let ls = est.by_rule(DeltaRule::LeastSquares);
    let lam_err = |l: &T| f(&(psi.lambda().clone() - l.clone()).abs());
    let mut search = |group: Option<usize>| -> Result<f64> {
        if let (Some(t), true) = (&est.trade_off, group == settings.trade_off_group) {
            return Ok(t.lambda.as_ref().map_or(f64::NAN, lam_err));
        }
        let Some((b, cf)) = &ls else {
            return Ok(f64::NAN);
        };
        let search = TradeOffSearch {
            eps: settings.eps.clone(),
            strategy: settings.strategy,
            group,
        };
        let t = trade_off(groups, &est.a, b, cf, &search, &mut oracle)?;
        Ok(t.lambda.as_ref().map_or(f64::NAN, lam_err))
    };
    let lambda_group1 = search(Some(0))?;
    let lambda_best = search(None)?;
    Ok((
        TrialErrors {
            a: f(&ea),
            b_paper: b_err(DeltaRule::Paper),
            b_ls: b_err(DeltaRule::LeastSquares),
            lambda_group1,
            lambda_best,
            lambda_closed: ls.as_ref().map_or(f64::NAN, |(_, l)| lam_err(l)),
            queries,
        },
        est,
    ))
}

/// The two settings of §6.1: the paper's (ShrinkInterval with 4 queries,
/// 4 forward cycles, paper δ, Alg. 4 with group 1) at ε, and the efficient
/// default (golden section, one reverse cycle, least squares, closed form)
/// searching to ε/[`EFFICIENT_DIVISOR`].
pub fn sec61_settings<T: Scalar>(eps: &Tolerance<T>) -> [(&'static str, FpmeSettings<T>); 2] {
    [
        ("paper strategy, 4 cycles", FpmeSettings::paper(eps.clone())),
        ("efficient", FpmeSettings::efficient(eps.clone())),
    ]
}

/// The cells (m, k) of §6.1: m, k ∈ {2, 3, 4, 5} (the paper's; the issue
/// asks k ≤ 4, k = 5 is added since ρ = 0.2 = 1/k is still feasible).
pub fn sec61_cells() -> Vec<(usize, usize)> {
    (2..=5).flat_map(|m| (2..=5).map(move |k| (m, k))).collect()
}

fn stats(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let (n, sum, max) = v
        .filter(|x| x.is_finite())
        .fold((0usize, 0.0, 0f64), |(n, s, m), x| (n + 1, s + x, m.max(x)));
    if n == 0 {
        (f64::NAN, f64::NAN)
    } else {
        (sum / n as f64, max)
    }
}

/// 001 §6.1: FPME on `trials` random metrics per cell (m, k), ε = 10⁻³,
/// with the paper's settings and with the efficient default. Each row's
/// `elicited` holds (mean, max) of ‖a − â‖₂, ‖vec(B − B̂)‖₂ (paper δ, least
/// squares), |λ − λ̂| (Alg. 4 group 1, Alg. 4 best group, closed form): 12
/// numbers.
///
/// # Errors
/// Propagates elicitation failures.
pub fn sec61<T: Scalar>(trials: usize, seed: u64, cells: &[(usize, usize)]) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 1000);
    let units: Vec<((usize, usize), usize)> = cells
        .iter()
        .flat_map(|&c| (0..2).map(move |s| (c, s)))
        .collect();
    super::shard::sharded_map(&units, |&((m, k), s)| {
        let (name, settings) = sec61_settings(&Tolerance::new(eps.clone())?)[s].clone();
        let mut all = Vec::with_capacity(trials);
        let mut failures = 0;
        let mut warned = 0;
        for instance in instances::<T>(m, k, trials, seed)? {
            match trial(&instance, &settings) {
                Ok((e, est)) => {
                    warned += usize::from(!est.warnings.is_empty());
                    all.push(e);
                }
                Err(Error::IllConditioned { .. }) => failures += 1,
                Err(e) => return Err(e),
            }
        }
        let pick = |g: fn(&TrialErrors) -> f64| stats(all.iter().map(g));
        let columns = [
            pick(|e| e.a),
            pick(|e| e.b_paper),
            pick(|e| e.b_ls),
            pick(|e| e.lambda_group1),
            pick(|e| e.lambda_best),
            pick(|e| e.lambda_closed),
        ];
        let mut row = Row::new(
            "001-sec6.1",
            format!("m={m}, k={k}, {name}"),
            T::backend_name(),
            settings.strategy.name(),
        );
        row.trials = Some(trials);
        row.queries = all.iter().map(|e| e.queries).max().unwrap_or(0);
        row.elicited = columns.iter().flat_map(|(a, b)| [*a, *b]).collect();
        row.error = columns[0].1;
        let show = |(mean, max): (f64, f64)| format!("{mean:.1e} / {max:.1e}");
        row.note = format!(
            "mean / max: a {}; B paper delta {}, least squares {}; lambda Alg. 4 group 1 {}, best group {}, closed form {}{}{}",
            show(columns[0]),
            show(columns[1]),
            show(columns[2]),
            show(columns[3]),
            show(columns[4]),
            show(columns[5]),
            if failures > 0 {
                format!("; {failures} runs stopped with an ill-conditioned reconstruction")
            } else {
                String::new()
            },
            if warned > 0 {
                format!("; {warned} runs carried warnings")
            } else {
                String::new()
            }
        );
        Ok(row)
    })
}

/// Query counts: the paper strategy's count measured against
/// [`paper_query_count`] and the paper's printed formula
/// (1 + 2|M|)·16(q − 1)log₂(π/2ε) + 4log₂(1/ε), and the efficient setting's
/// largest count over `trials` metrics, ε = 10⁻³.
///
/// # Errors
/// Propagates elicitation failures.
pub fn query_counts<T: Scalar>(trials: usize, seed: u64) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 1000);
    let cells = sec61_cells();
    super::shard::sharded_map(&cells, |&(m, k)| {
        let q = k * k - k;
        let sets = m * (m - 1) / 2;
        let [(_, paper), (_, efficient)] = sec61_settings(&Tolerance::new(eps.clone())?);
        let instances = instances::<T>(m, k, trials.max(1), seed)?;
        let count = |settings: &FpmeSettings<T>, inst: &Instance<T>| -> Result<usize> {
            let mut oracle = Counted::new(Simulated::new(inst.1.bind(&inst.0)?));
            fpme(&inst.0, &mut oracle, settings)?;
            Ok(oracle.posed())
        };
        let measured = count(&paper, &instances[0])?;
        let formula = paper_query_count(m, k, 4, &eps, true)?;
        let e = 1e-3f64;
        let printed = (1 + 2 * sets) as f64
            * 16.0
            * (q - 1) as f64
            * (std::f64::consts::FRAC_PI_2 / e).log2()
            + 4.0 * (1.0 / e).log2();
        let mut efficient_max = 0;
        for inst in &instances {
            efficient_max = efficient_max.max(count(&efficient, inst)?);
        }
        let mut row = Row::new(
            "001-queries",
            format!("m={m}, k={k} (q={q})"),
            T::backend_name(),
            "paper",
        );
        row.queries = measured;
        row.bound = Some(formula as f64);
        row.error = measured as f64 - formula as f64;
        row.trials = Some(trials.max(1));
        row.elicited = vec![
            measured as f64,
            formula as f64,
            printed,
            efficient_max as f64,
        ];
        row.note = format!(
            "paper strategy: measured {measured}, formula (1 + 2|M|)(q + 16(q - 1) ceil(log2(pi/(2 eps)))) + 4 ceil(log2(1/eps)) = {formula}, the paper's printed 16(q - 1) log2(pi/2eps) per LPME gives {printed:.0}; efficient (golden, 1 reverse cycle, closed-form lambda, searches to eps/{EFFICIENT_DIVISOR}): at most {efficient_max} over {} metrics = {:.1} % of the paper's",
            trials.max(1),
            100.0 * efficient_max as f64 / measured as f64
        );
        Ok(row)
    })
}

/// Settings of the Theorem 1 sweep.
#[derive(Debug, Clone)]
pub struct Thm1Sweep {
    /// Random metrics per cell.
    pub trials: usize,
    /// Seed.
    pub seed: u64,
    /// Cells (m, k).
    pub cells: Vec<(usize, usize)>,
    /// Tolerances ε as fractions.
    pub eps: Vec<(i64, i64)>,
    /// Noise levels ε_Ω as fractions ((0, 1): exact).
    pub eps_omega: Vec<(i64, i64)>,
    /// Adversaries (names from [`ADVERSARIES`]).
    pub adversaries: Vec<&'static str>,
}

impl Default for Thm1Sweep {
    /// 1000 metrics per cell, m ∈ {2, 3, 4, 5}, k ∈ {2, 3, 4},
    /// ε ∈ {1e-2, 1e-3, 1e-4}, ε_Ω ∈ {0, 1e-5, 1e-4, 1e-3}, every
    /// adversary.
    fn default() -> Self {
        Thm1Sweep {
            trials: 1000,
            seed: 2020,
            cells: (2..=5).flat_map(|m| (2..=4).map(move |k| (m, k))).collect(),
            eps: vec![(1, 100), (1, 1000), (1, 10_000)],
            eps_omega: vec![(0, 1), (1, 100_000), (1, 10_000), (1, 1000)],
            adversaries: ADVERSARIES.to_vec(),
        }
    }
}

fn adversary<T: Scalar>(
    name: &str,
    rng: &mut ChaCha8Rng,
    instance: &Instance<T>,
    script_bytes: usize,
) -> Box<dyn Adversary<GroupRates<T>>> {
    match name {
        "always-wrong" => Box::new(AlwaysWrong),
        "random" => Box::new(SeededRandom::new(rng.random())),
        "push-away" => {
            let (groups, psi) = instance.clone();
            Box::new(PushAway::new(move |r: &GroupRates<T>| {
                metric_elicitation::elicit::fpme::distance_from_optimum(&groups, &psi, r)
                    .unwrap_or_else(|| T::int(0))
            }))
        }
        _ => Box::new(Scripted::new(
            (0..script_bytes).map(|_| rng.random()).collect(),
        )),
    }
}

/// A cell of the Theorem 1 sweep: (m, k), its instances, and the
/// Assumption 2 constants of those (min λ, max λ, min c₃, min c₄,
/// min sin φ₁).
type Thm1Cell<T> = ((usize, usize), Vec<Instance<T>>, [f64; 5]);

/// What one unit of the Theorem 1 sweep measured: the largest and the
/// 99th-percentile constants of the five measures, the largest query
/// count, and the runs stopped by an ill-conditioned reconstruction.
type Thm1Unit = ([f64; 5], [f64; 5], usize, usize);

/// 001 Theorem 1 checked: FPME with the paper's settings (ShrinkInterval, 4
/// cycles, paper δ, Alg. 4 with group 1; least-squares δ and the closed
/// form are computed from the same answers) on `trials` random metrics per
/// cell, for every ε, ε_Ω and adversary (ε_Ω = 0 once: no answer is in the
/// band). One row per (m, k, ε, ε_Ω), worst over the adversaries: its
/// `elicited` holds the observed constants max(error/shape) for a, B
/// (paper δ), B (least squares), λ (Alg. 4), λ (closed form), then the
/// Assumption 2 constants of the cell's metrics (min λ, max λ, min c₃,
/// min c₄, min sin φ₁), then the 99th-percentile constants of the five
/// measures; `worst_ratio` is the constant of B with the paper's δ.
///
/// # Errors
/// Propagates elicitation failures other than an ill-conditioned
/// reconstruction (counted in the note).
pub fn theorem1<T: Scalar>(sweep: &Thm1Sweep) -> Result<Vec<Row>> {
    let cells: Vec<Thm1Cell<T>> = parallel_map(&sweep.cells, |&(m, k)| {
        let inst = instances::<T>(m, k, sweep.trials, sweep.seed)?;
        let partitions = Partitions::<T>::new(m)?;
        let mut c = [
            f64::INFINITY,
            0.0,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
        ];
        for (g, psi) in &inst {
            let a2 = psi.assumption2(g, &partitions);
            c[0] = c[0].min(a2.lambda);
            c[1] = c[1].max(a2.lambda);
            c[2] = c[2].min(a2.c3);
            c[3] = c[3].min(a2.c4);
            c[4] = c[4].min(a2.sin_phi[0]);
        }
        Ok(((m, k), inst, c))
    })?;
    let mut units = Vec::new();
    for (ci, _) in sweep.cells.iter().enumerate() {
        for &e in &sweep.eps {
            for &eo in &sweep.eps_omega {
                if eo.0 == 0 {
                    units.push((ci, e, eo, "exact"));
                } else {
                    for &a in &sweep.adversaries {
                        units.push((ci, e, eo, a));
                    }
                }
            }
        }
    }
    // constants per unit: [a, B paper, B LS, λ Alg. 4, λ closed] max and p99,
    // max queries, failures
    let results = super::shard::sharded_map(&units, |&(ci, (en, ed), (on, od), name)| {
        let ((m, k), inst, _) = &cells[ci];
        let (m, k) = (*m, *k);
        let q = k * k - k;
        let eps = T::ratio(en, ed);
        let eps_omega = T::ratio(on, od);
        let settings = FpmeSettings::paper(Tolerance::new(eps.clone())?);
        let script = paper_query_count(m, k, 4, &eps, true)? / 8 + 64;
        let mut rng = ChaCha8Rng::seed_from_u64(sweep.seed ^ 0xad7e_5a21 ^ (ci as u64) << 8);
        let mut ratios: Vec<[f64; 5]> = Vec::with_capacity(inst.len());
        let (mut max_q, mut failures) = (0usize, 0usize);
        for instance in inst {
            let (groups, psi) = instance;
            let rho = f(groups.radius());
            let small = rho / (1.0 + (q as f64).sqrt());
            let shapes = theorem1_bound(m, q, f(&eps), f(&eps_omega), rho, small);
            // The adversary's draws are kept, so that a rerun (below) meets
            // the same adversary without moving the other trials' draws.
            let draws = rng.clone();
            let adv = adversary::<T>(name, &mut rng, instance, script);
            let mut oracle = Counted::new(Noisy::new(psi.bind(groups)?, eps_omega.clone(), adv)?);
            let stopped = |e: &Error| match e {
                Error::Interrupted { source, .. } => {
                    matches!(**source, Error::IllConditioned { .. })
                }
                Error::IllConditioned { .. } => true,
                _ => false,
            };
            let (est, paper_delta, posed) = match fpme(groups, &mut oracle, &settings) {
                Ok(est) => (est, true, oracle.posed()),
                // The paper's two-coordinate δ met a vanishing denominator:
                // the paper's B (and Alg. 4, which needs it) have no value
                // for this trial, but â, the least-squares B and the
                // closed-form λ do. The same adversary with the same draws
                // is asked again with the least-squares δ, whose queries
                // are the same up to Alg. 4.
                Err(e) if stopped(&e) => {
                    failures += 1;
                    let adv = adversary::<T>(name, &mut draws.clone(), instance, script);
                    let mut again =
                        Counted::new(Noisy::new(psi.bind(groups)?, eps_omega.clone(), adv)?);
                    let ls = FpmeSettings {
                        delta: DeltaRule::LeastSquares,
                        ..settings.clone()
                    };
                    match fpme(groups, &mut again, &ls) {
                        Ok(est) => (est, false, again.posed()),
                        Err(e) if stopped(&e) => continue,
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            };
            max_q = max_q.max(posed);
            let (ea, eb, _) = errors(psi, &est.a, &est.b, &est.lambda);
            let eb = if paper_delta { f(&eb) } else { f64::NAN };
            let eb_ls = est
                .by_rule(DeltaRule::LeastSquares)
                .map_or(
                    f64::NAN,
                    |(b, _)| f(&errors(psi, &est.a, &b, &est.lambda).1),
                );
            let lam = |l: Option<&T>| {
                l.map_or(f64::NAN, |l| f(&(psi.lambda().clone() - l.clone()).abs()))
            };
            let el_search = if paper_delta {
                lam(est.lambda_search.as_ref())
            } else {
                f64::NAN
            };
            let el_cf = lam(est
                .by_rule(DeltaRule::LeastSquares)
                .as_ref()
                .map(|(_, l)| l));
            ratios.push([
                f(&ea) / shapes[0],
                eb / shapes[1],
                eb_ls / shapes[1],
                el_search / shapes[2],
                el_cf / shapes[2],
            ]);
        }
        let mut worst = [0f64; 5];
        let mut p99 = [0f64; 5];
        for i in 0..5 {
            let mut v: Vec<f64> = ratios
                .iter()
                .map(|r| r[i])
                .filter(|x| x.is_finite())
                .collect();
            v.sort_by(f64::total_cmp);
            worst[i] = v.last().copied().unwrap_or(f64::NAN);
            p99[i] = v
                .get(((v.len() as f64) * 0.99) as usize)
                .or(v.last())
                .copied()
                .unwrap_or(f64::NAN);
        }
        Ok((worst, p99, max_q, failures))
    })?;
    let mut rows = Vec::new();
    for (ci, ((m, k), inst, a2)) in cells.iter().enumerate() {
        for &(en, ed) in &sweep.eps {
            for &(on, od) in &sweep.eps_omega {
                let mine: Vec<(&'static str, &Thm1Unit)> = units
                    .iter()
                    .zip(&results)
                    .filter(|((c, e, eo, _), _)| *c == ci && *e == (en, ed) && *eo == (on, od))
                    .map(|((_, _, _, name), r)| (*name, r))
                    .collect();
                let mut worst = [0f64; 5];
                let mut p99 = [0f64; 5];
                let mut by = [""; 5];
                let (mut max_q, mut failures) = (0, 0);
                for (name, (w, p, mq, fl)) in &mine {
                    for i in 0..5 {
                        if w[i] > worst[i] {
                            worst[i] = w[i];
                            by[i] = name;
                        }
                        p99[i] = p99[i].max(p[i]);
                    }
                    max_q = max_q.max(*mq);
                    failures += fl;
                }
                let eps = en as f64 / ed as f64;
                let eo = on as f64 / od as f64;
                let q = k * k - k;
                let rho = inst.first().map_or(0.2, |(g, _)| f(g.radius()));
                let shapes = theorem1_bound(*m, q, eps, eo, rho, rho / (1.0 + (q as f64).sqrt()));
                let mut row = Row::new(
                    "001-thm1",
                    format!("m={m}, k={k}, eps={eps:e}, eps_omega={eo:e}"),
                    T::backend_name(),
                    "paper",
                );
                row.trials = Some(sweep.trials);
                row.queries = max_q;
                row.worst_ratio = Some(worst[1]);
                row.bound = Some(shapes[1]);
                row.worst_error = Some(worst[1] * shapes[1]);
                row.error = worst[1] * shapes[1];
                row.violations = Some(failures);
                row.elicited = worst
                    .iter()
                    .chain(a2.iter())
                    .chain(p99.iter())
                    .copied()
                    .collect();
                let runs = if on == 0 {
                    "exact oracle".to_string()
                } else {
                    format!("{} adversaries", mine.len())
                };
                row.note = format!(
                    "{runs}; constants max(error/shape) (worst adversary): a {:.3} ({}), B paper delta {:.3} ({}), B least squares {:.3} ({}), lambda Alg. 4 group 1 {:.3} ({}), lambda closed form {:.3} ({}); 99th percentiles {:.3}, {:.3}, {:.3}, {:.3}, {:.3}; shapes {:.2e}, {:.2e}, {:.2e}; Assumption 2 of the {} metrics: lambda in [{:.3}, {:.3}], c3 = min a_i >= {:.1e}, c4 >= {:.1e}, sin phi_1 >= {:.1e}{}",
                    worst[0], by[0], worst[1], by[1], worst[2], by[2], worst[3], by[3], worst[4], by[4],
                    p99[0], p99[1], p99[2], p99[3], p99[4],
                    shapes[0], shapes[1], shapes[2],
                    inst.len(), a2[0], a2[1], a2[2], a2[3], a2[4],
                    if failures > 0 { format!("; in {failures} runs the paper's delta denominator vanished: their paper-delta B and Alg. 4 lambda have no value, their a, least-squares B and closed-form lambda come from the same adversary asked again with the least-squares delta") } else { String::new() }
                );
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// The 001 reproductions as [`Job`]s.
pub fn jobs<T: Scalar>(o: &Options) -> Vec<Job> {
    let (trials, seed) = (o.trials, o.seed);
    // The Thm. 1 sweep costs about 20 s per metric and cell on 2 cores, so
    // the default run uses 20 metrics per cell; naming it (`--only
    // 001-thm1`) runs `--trials` of them.
    let named = o
        .only
        .iter()
        .any(|f| !f.is_empty() && "001-thm1".starts_with(f.as_str()) && f.len() > 4);
    let thm1_trials = if named {
        trials
    } else {
        trials.min(THM1_DEFAULT_TRIALS)
    };
    let job = Job::maker(verdict);
    vec![
        job(
            "001-sec6.1",
            "001 §6.1 / Fig. 4: recovering (a, B, lambda), eps = 1e-3, 100 random metrics per (m, k)",
            EXPLAIN_SEC61,
            Layout::Sweep,
            Box::new(move || sec61::<T>(trials.min(100), seed, &sec61_cells())),
            Some(Figure {
                file: "fig-001-fig4.svg",
                draw: figure4,
            }),
            true,
        ),
        job(
            "001-queries",
            "001: queries of FPME (paper strategy: exact count) and of the efficient setting",
            EXPLAIN_QUERIES,
            Layout::Sweep,
            Box::new(move || query_counts::<T>(trials.min(20), seed)),
            None,
            false,
        ),
        job(
            "001-thm1",
            "001 Theorem 1: errors / bound shape for a, B and lambda, every adversary",
            EXPLAIN_THM1,
            Layout::Sweep,
            Box::new(move || {
                theorem1::<T>(&Thm1Sweep {
                    trials: thm1_trials,
                    seed,
                    ..Thm1Sweep::default()
                })
            }),
            Some(Figure {
                file: "fig-001-thm1-constants.svg",
                draw: thm1_figure,
            }),
            false,
        ),
    ]
}

/// Metrics per cell of the 001 Thm. 1 sweep in a run that does not name it.
pub const THM1_DEFAULT_TRIALS: usize = 20;

const EXPLAIN_SEC61: &str = include_str!("../../text/fair-explain-sec61.md");
const EXPLAIN_QUERIES: &str = include_str!("../../text/fair-explain-queries.md");
const EXPLAIN_THM1: &str = include_str!("../../text/fair-explain-thm1.md");

fn verdict(id: &str, rows: &[Row]) -> String {
    match id {
        "001-sec6.1" => {
            let worst = |setting: &str, i: usize| {
                rows.iter()
                    .filter(|r| r.row.ends_with(setting))
                    .filter_map(|r| r.elicited.get(i).copied())
                    .filter(|x| x.is_finite())
                    .fold(0f64, f64::max)
            };
            let p = "paper strategy, 4 cycles";
            let e = "efficient";
            format!(
                "measured (the paper plots these, no numbers): max over cells of the mean errors, paper / efficient: a {:.1e} / {:.1e}; B paper delta {:.1e}, least squares {:.1e} / {:.1e}; lambda Alg. 4 group 1 {:.1e}, closed form {:.1e} / {:.1e}",
                worst(p, 0),
                worst(e, 0),
                worst(p, 2),
                worst(p, 4),
                worst(e, 4),
                worst(p, 6),
                worst(p, 10),
                worst(e, 10)
            )
        }
        "001-queries" => {
            let exact = rows.iter().all(|r| r.error == 0.0);
            let ratio = rows
                .iter()
                .map(|r| r.elicited[3] / r.elicited[0])
                .fold(0f64, f64::max);
            format!(
                "{}: paper strategy: measured = formula in {} of {} cells{}; efficient at most {:.1} % of the paper's queries",
                if exact { "matches" } else { "differs" },
                rows.iter().filter(|r| r.error == 0.0).count(),
                rows.len(),
                if exact { "" } else { " (MISMATCH)" },
                100.0 * ratio
            )
        }
        "001-thm1" => {
            let by = constants_by_cell(rows);
            let list: Vec<String> = by
                .iter()
                .map(|(c, v)| {
                    format!(
                        "m={}, k={}: a {:.2}, B {:.2} / LS {:.2}, lambda {:.2} / cf {:.2}",
                        c.0, c.1, v[0], v[1], v[2], v[3], v[4]
                    )
                })
                .collect();
            format!("measured (the theorem states no constant): largest constants per cell (paper delta / least squares; Alg. 4 / closed form): {}", list.join("; "))
        }
        _ => String::new(),
    }
}

/// The largest of the five Theorem 1 constants per cell (m, k), over the
/// rows' ε and ε_Ω.
fn constants_by_cell(rows: &[Row]) -> std::collections::BTreeMap<(usize, usize), [f64; 5]> {
    let mut by = std::collections::BTreeMap::<(usize, usize), [f64; 5]>::new();
    for r in rows {
        let v = by.entry(cell_of(&r.row)).or_insert([0.0; 5]);
        for (vi, x) in v.iter_mut().zip(&r.elicited) {
            if x.is_finite() {
                *vi = vi.max(*x);
            }
        }
    }
    by
}

fn cell_of(row: &str) -> (usize, usize) {
    let num = |key: &str| {
        row.split(key)
            .nth(1)
            .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    (num("m="), num("k="))
}

/// One panel of a three-panel figure: a log-scale y axis, one coloured
/// series per line label with a solid and an optional dashed curve.
struct Panel {
    title: &'static str,
    /// What the solid and the dashed curves are, when a panel has both.
    readings: Option<(&'static str, &'static str)>,
    x_desc: &'static str,
    x_max: f64,
    lines: Vec<Line>,
}

/// One line of a [`Panel`]: its label, the solid and the dashed points.
type Line = (String, Vec<(f64, f64)>, Vec<(f64, f64)>);

fn draw_panels(path: &Path, panels: Vec<Panel>) -> std::result::Result<(), String> {
    let root = plots::canvas(path, (1500, 520))?;
    let areas = root.split_evenly((1, 3));
    let colors = [RED, BLUE, GREEN, MAGENTA];
    for (area, panel) in areas.iter().zip(panels) {
        let values: Vec<f64> = panel
            .lines
            .iter()
            .flat_map(|(_, a, b)| a.iter().chain(b).map(|p| p.1))
            .collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min) * 0.5;
        // headroom above the curves for the legend
        let hi = values.iter().copied().fold(0f64, f64::max) * 8.0;
        if !(lo.is_finite() && hi > lo) {
            continue;
        }
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(56)
            .build_cartesian_2d(1.5f64..panel.x_max + 0.5, (lo..hi).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(panel.x_desc)
            .x_labels(plots::integer_labels(1.5, panel.x_max + 0.5))
            .x_label_formatter(&plots::whole)
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for ((label, solid, dashed), color) in panel.lines.into_iter().zip(colors) {
            chart
                .draw_series(LineSeries::new(solid.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart
                .draw_series(solid.iter().map(|p| Circle::new(*p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(DashedLineSeries::new(dashed, 5, 4, color.into()))
                .map_err(|e| e.to_string())?;
        }
        if let Some((solid, dashed)) = panel.readings {
            plots::readings_legend(&mut chart, solid, dashed)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperMiddle)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}

/// The points (x, value) of one line of a figure, sorted by x, finite and
/// positive values only (log axes).
fn line(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = points.filter(|p| p.1.is_finite() && p.1 > 0.0).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// 001 Fig. 4: mean ‖a − â‖ vs k, mean ‖vec(B − B̂)‖ vs k and mean
/// |λ − λ̂| vs m, one line per m (per k for λ), paper strategy; B with the
/// paper's δ (solid) and least squares (dashed); λ by Alg. 4 with group 1
/// (solid) and the closed form (dashed).
pub(crate) fn figure4(section: &Section, path: &Path) -> std::result::Result<(), String> {
    let paper: Vec<((usize, usize), &Row)> = section
        .rows
        .iter()
        .filter(|r| r.row.ends_with("paper strategy, 4 cycles"))
        .map(|r| (cell_of(&r.row), r))
        .collect();
    let column = |by_m: bool, series: usize, col: Option<usize>| {
        line(paper.iter().filter_map(|((m, k), r)| {
            let (which, x) = if by_m { (*k, *m) } else { (*m, *k) };
            let v = r.elicited.get(col?).copied()?;
            (which == series).then_some((x as f64, v))
        }))
    };
    let panel = |title, by_m: bool, solid: usize, dashed: Option<usize>| Panel {
        title,
        readings: dashed.map(|_| {
            if by_m {
                ("Alg. 4 on group 1", "closed form")
            } else {
                ("paper delta", "least squares")
            }
        }),
        x_desc: if by_m { "groups m" } else { "classes k" },
        x_max: 5.0,
        lines: (2..=5)
            .map(|series| {
                (
                    format!("{} = {series}", if by_m { "k" } else { "m" }),
                    column(by_m, series, Some(solid)),
                    column(by_m, series, dashed),
                )
            })
            .collect(),
    };
    draw_panels(
        path,
        vec![
            panel("(a) mean ||a - a^||2", false, 0, None),
            panel(
                "(b) mean ||vec(B - B^)||2 (dashed: least squares)",
                false,
                2,
                Some(4),
            ),
            panel(
                "(c) mean |lambda - lambda^| (dashed: closed form)",
                true,
                6,
                Some(10),
            ),
        ],
    )
}

/// Theorem 1: the observed constants (max over ε, ε_Ω and adversaries) per
/// cell, one panel per measure, one line per m against k.
pub(crate) fn thm1_figure(section: &Section, path: &Path) -> std::result::Result<(), String> {
    let by = constants_by_cell(&section.rows);
    let x_max = by.keys().map(|c| c.1).max().unwrap_or(4) as f64;
    let column = |m: usize, col: usize| {
        line(
            by.iter()
                .filter(|((mm, _), _)| *mm == m)
                .map(|((_, k), v)| (*k as f64, v[col])),
        )
    };
    let panel = |title, solid: usize, dashed: Option<usize>| Panel {
        title,
        readings: dashed.map(|_| {
            if solid == 1 {
                ("paper delta", "least squares")
            } else {
                ("Alg. 4 on group 1", "closed form")
            }
        }),
        x_desc: "classes k",
        x_max,
        lines: (2..=5)
            .map(|m| {
                (
                    format!("m = {m}"),
                    column(m, solid),
                    dashed.map_or_else(Vec::new, |d| column(m, d)),
                )
            })
            .collect(),
    };
    draw_panels(
        path,
        vec![
            panel("a: max ||a - a^|| / shape", 0, None),
            panel("B: paper delta (solid), least squares (dashed)", 1, Some(2)),
            panel(
                "lambda: Alg. 4 group 1 (solid), closed form (dashed)",
                3,
                Some(4),
            ),
        ],
    )
}
