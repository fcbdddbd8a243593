//! 002 (multiclass): Tables 2–3, Thms. 1–2, query counts.

use super::Row;
use crate::elicit::lpme::{lpme, LpmeSettings, Orthant};
use crate::elicit::multiclass::{elicit_dlpm, elicit_lpm, nu};
use crate::error::Result;
use crate::geometry::sphere::{Sign, Sphere};
use crate::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, PushAway, Scripted, SeededRandom, Simulated,
};
use crate::population::{LogisticMulticlass, Memoized, MulticlassPopulation};
use crate::reproduce::binary::ADVERSARIES;
use crate::scalar::Scalar;
use crate::search::{lower_bound, paper_queries, Strategy};
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn f(x: &impl Scalar) -> f64 {
    x.to_f64_lossy()
}

fn v64<T: Scalar>(v: &DVector<T>) -> Vec<f64> {
    v.iter().map(f).collect()
}

/// The slopes p of 002 §6.1 for k = 3 and 4, and the ones used here for
/// k = 2 and 5 (first entries of the same pattern).
pub fn slopes(k: usize) -> Vec<i64> {
    match k {
        2 => vec![1, 3],
        3 => vec![1, 3, 5],
        4 => vec![1, 3, 6, 10],
        _ => (0..k as i64).map(|i| 1 + 2 * i).collect(),
    }
}

/// The §6.1 population for k classes, memoized.
///
/// # Errors
/// Only on internal failure.
pub fn population<T: Scalar>(k: usize) -> Result<Memoized<LogisticMulticlass<T>, T>> {
    Ok(Memoized::new(LogisticMulticlass::new(
        slopes(k).into_iter().map(T::int).collect(),
    )?))
}

/// 002 Table 2: the true DLPMs (in hundredths; rows that do not sum to 1
/// are ℓ1-normalized) and the paper's â.
pub const TABLE2: [(usize, &[i64], &[f64]); 4] = [
    (3, &[21, 59, 20], &[0.21, 0.60, 0.20]),
    (3, &[23, 15, 62], &[0.23, 0.15, 0.62]),
    (4, &[22, 13, 14, 52], &[0.22, 0.13, 0.14, 0.52]),
    (4, &[58, 17, 8, 18], &[0.58, 0.17, 0.08, 0.18]),
];

/// A table row comparing an elicited vector with the truth and the paper's.
fn vector_row<T: Scalar>(
    table: &str,
    label: String,
    strategy: Strategy,
    truth: &DVector<T>,
    elicited: &DVector<T>,
    paper: &[f64],
    queries: usize,
) -> Row {
    let mut row = Row::new(table, label, T::backend_name(), strategy.name());
    row.truth = v64(truth);
    row.elicited = v64(elicited);
    row.paper = paper.to_vec();
    row.queries = queries;
    row.error = f(&(truth - elicited).amax());
    row
}

fn simplex<T: Scalar>(parts: &[i64]) -> DVector<T> {
    let total: i64 = parts.iter().sum();
    DVector::from_iterator(parts.len(), parts.iter().map(|p| T::ratio(*p, total)))
}

/// 002 Table 2: DLPM elicitation, ε = 0.01, on the §6.1 population.
///
/// # Errors
/// Propagates elicitation failures.
pub fn table2<T: Scalar>(strategy: Strategy) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 100);
    let mut rows = Vec::new();
    for (i, (k, parts, paper)) in TABLE2.iter().enumerate() {
        let pop = population::<T>(*k)?;
        let truth = simplex::<T>(parts);
        let t = truth.clone();
        let mut oracle = Counted::new(Simulated::new(move |d: &DVector<T>| t.dot(d)));
        let est = elicit_dlpm(&pop, &mut oracle, &eps, strategy)?;
        let mut row = vector_row(
            "002-table2",
            format!("k={k}, row {}", i + 1),
            strategy,
            &truth,
            &est.a,
            paper,
            oracle.queries(),
        );
        row.note = if est.unidentified_faces.is_empty() {
            "eps = 0.01".into()
        } else {
            let faces: Vec<String> = est
                .unidentified_faces
                .iter()
                .map(|i| format!("(1, {})", i + 1))
                .collect();
            format!(
                "face {} has its optimum at a vertex (the RBO classifier predicts one class everywhere for every m on one side of m^), so a_i/a_1 is only bounded on this population; the estimate is the plateau's edge",
                faces.join(", ")
            )
        };
        rows.push(row);
    }
    Ok(rows)
}

/// 002 Table 3: true LPMs (off-diagonal confusions, row-major, printed to
/// two decimals; ℓ2-normalized here) and the paper's â.
pub const TABLE3: [(usize, &[f64], &[f64]); 4] = [
    (
        3,
        &[-0.37, -0.89, -0.09, -0.23, -0.04, -0.03],
        &[-0.37, -0.89, -0.09, -0.23, -0.04, -0.03],
    ),
    (
        3,
        &[-0.80, -0.55, -0.18, -0.08, -0.14, -0.05],
        &[-0.80, -0.55, -0.18, -0.08, -0.14, -0.05],
    ),
    (
        4,
        &[
            -0.90, -0.28, -0.10, -0.31, -0.04, -0.05, -0.03, -0.04, -0.02, -0.01, -0.01, -0.01,
        ],
        &[
            -0.90, -0.28, -0.10, -0.31, -0.04, -0.05, -0.03, -0.04, -0.02, -0.01, -0.01, -0.01,
        ],
    ),
    (
        4,
        &[
            -0.54, -0.10, -0.62, -0.52, -0.03, -0.07, -0.11, -0.07, -0.14, -0.03, -0.03, -0.04,
        ],
        &[
            -0.55, -0.11, -0.62, -0.51, -0.03, -0.07, -0.11, -0.07, -0.14, -0.03, -0.03, -0.04,
        ],
    ),
];

/// The sphere used for LPM elicitation on k classes: centred at o, the
/// off-diagonal confusion of the classifier predicting each class with
/// probability 1/k (o_ij = ζᵢ/k, row-major, 002 Prop. 3), radius
/// λ = min ζᵢ/(4k), small enough to stay inside C. The paper's λ (found by
/// its App. D Alg. 3, not in the text) is not given; with an exact oracle
/// the result does not depend on λ.
///
/// # Errors
/// Only on internal failure.
pub fn sphere<T: Scalar>(k: usize) -> Result<Sphere<T>> {
    sphere_for(&population::<T>(k)?)
}

/// The sphere of [`sphere`] for any population: o_ij = ζᵢ/k, λ = min ζᵢ/(4k).
///
/// # Errors
/// Only on internal failure.
pub fn sphere_for<T: Scalar, P: MulticlassPopulation<T> + ?Sized>(pop: &P) -> Result<Sphere<T>> {
    let k = pop.classes();
    let priors = pop.priors();
    let kt = T::int(k as i64);
    let mut center = Vec::with_capacity(k * k - k);
    for (i, zeta) in priors.iter().enumerate() {
        for j in 0..k {
            if i != j {
                center.push(zeta.clone() / kt.clone());
            }
        }
    }
    let least = priors.iter().cloned().fold(T::int(1), |m, z| m.min(z));
    Sphere::new(DVector::from_vec(center), least / (T::int(4) * kt))
}

fn unit<T: Scalar>(v: &[f64]) -> DVector<T> {
    let a = DVector::from_iterator(v.len(), v.iter().map(|x| T::from_f64_exact(*x)));
    let n = a.norm();
    a / n
}

/// 002 Table 3: LPM elicitation (Alg. 2), ε = 0.01, T = 2(q − 1).
///
/// # Errors
/// Propagates elicitation failures.
pub fn table3<T: Scalar>(strategy: Strategy) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 100);
    let mut rows = Vec::new();
    for (i, (k, truth, paper)) in TABLE3.iter().enumerate() {
        let s = sphere::<T>(*k)?;
        let a = unit::<T>(truth);
        let t = a.clone();
        let mut oracle = Counted::new(Simulated::new(move |c: &DVector<T>| t.dot(c)));
        let est = elicit_lpm(&s, &mut oracle, &eps, strategy, 2)?;
        let mut row = vector_row(
            "002-table3",
            format!("k={k}, row {}", i + 1),
            strategy,
            &a,
            &est.a,
            paper,
            oracle.queries(),
        );
        row.note = format!("eps = 0.01, 2 cycles, sphere radius {:.4}", f(s.radius()));
        rows.push(row);
    }
    Ok(rows)
}

/// Settings of the 002 theorem sweeps.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Random metrics per setting.
    pub trials: usize,
    /// Seed.
    pub seed: u64,
    /// Class counts.
    pub ks: Vec<usize>,
    /// Tolerance ε.
    pub eps: (i64, i64),
    /// Noise levels ε_Ω.
    pub eps_omega: Vec<(i64, i64)>,
    /// Adversaries (names from [`ADVERSARIES`]).
    pub adversaries: Vec<&'static str>,
    /// Strategies.
    pub strategies: Vec<Strategy>,
}

impl Default for Sweep {
    /// 1000 trials per k ∈ {2, 3, 4, 5}, ε = 0.01, ε_Ω = 1e-4, every
    /// adversary and strategy.
    fn default() -> Self {
        Sweep {
            trials: 1000,
            seed: 2019,
            ks: vec![2, 3, 4, 5],
            eps: (1, 100),
            eps_omega: vec![(1, 10_000)],
            adversaries: ADVERSARIES.to_vec(),
            strategies: Strategy::ALL.to_vec(),
        }
    }
}

fn adversary<T: Scalar>(
    name: &str,
    rng: &mut ChaCha8Rng,
    optimum: DVector<T>,
) -> Box<dyn Adversary<DVector<T>>> {
    match name {
        "always-wrong" => Box::new(AlwaysWrong),
        "random" => Box::new(SeededRandom::new(rng.random())),
        "push-away" => Box::new(PushAway::new(move |z: &DVector<T>| {
            (z - &optimum).norm_squared()
        })),
        _ => Box::new(Scripted::new((0..2048).map(|_| rng.random()).collect())),
    }
}

/// A theorem-check row: the largest observed error/rate ratio `worst` over
/// `trials`, with the theorem's rate `scale` as its bound.
fn constant_row<T: Scalar>(
    table: &str,
    label: String,
    strategy: Strategy,
    trials: usize,
    max_queries: usize,
    worst: f64,
    scale: f64,
) -> Row {
    let mut row = Row::new(table, label, T::backend_name(), strategy.name());
    row.trials = Some(trials);
    row.queries = max_queries;
    row.worst_ratio = Some(worst);
    row.worst_error = Some(worst * scale);
    row.bound = Some(scale);
    row.error = worst * scale;
    row
}

/// The population of the Thm. 1 check: softmax scores with slopes
/// pᵢ = 30·i/(k − 1) on X ~ U[−1, 1], so that every face (1, i) of D is
/// strictly convex except on plateaus narrower than ε/4 (002 Lemma 2 assumes
/// none; the §6.1 population has plateaus of width 0.4 in m).
///
/// # Errors
/// Only on internal failure.
pub fn theorem1_population<T: Scalar>(k: usize) -> Result<Memoized<LogisticMulticlass<T>, T>> {
    let p = (0..k)
        .map(|i| T::int(30 * i as i64) / T::int(k as i64 - 1))
        .collect();
    Ok(Memoized::new(LogisticMulticlass::softmax(p)?))
}

type Setting = (usize, (i64, i64), &'static str, Strategy);

fn settings(sweep: &Sweep) -> Vec<Setting> {
    let mut out = Vec::new();
    for &k in &sweep.ks {
        for &eo in &sweep.eps_omega {
            for &name in &sweep.adversaries {
                for &strategy in &sweep.strategies {
                    out.push((k, eo, name, strategy));
                }
            }
        }
    }
    out
}

/// 002 Thm. 1 checked: DLPM elicitation (Alg. 1) of random a* (uniform on
/// the simplex) with an ε_Ω-noisy oracle, on [`theorem1_population`];
/// `worst_ratio` is the largest ‖a* − â‖∞/(ε + √ε_Ω) (the theorem's
/// O-constant, observed). Trials with a₁ < 0.05 (the reference weight too
/// small to divide by) or whose face optimum is a vertex (aᵢ/a₁ not
/// identifiable) are counted in the note and left out.
///
/// # Errors
/// Propagates elicitation failures.
pub fn theorem1<T: Scalar>(sweep: &Sweep) -> Result<Vec<Row>> {
    let eps = T::ratio(sweep.eps.0, sweep.eps.1);
    let pops = sweep
        .ks
        .iter()
        .map(|&k| theorem1_population::<T>(k))
        .collect::<Result<Vec<_>>>()?;
    super::parallel_map(&settings(sweep), |&(k, (on, od), name, strategy)| {
        let pop = &pops[sweep.ks.iter().position(|&x| x == k).unwrap_or(0)];
        let eps_omega = T::ratio(on, od);
        let scale = f(&eps) + f(&eps_omega).sqrt();
        let mut rng = ChaCha8Rng::seed_from_u64(sweep.seed);
        let (mut worst, mut excluded, mut max_q) = (0f64, 0usize, 0usize);
        let mut worst_conditioned = 0f64;
        for _ in 0..sweep.trials {
            let raw: Vec<f64> = (0..k)
                .map(|_| -rng.random_range(1e-12..1.0f64).ln())
                .collect();
            let total: f64 = raw.iter().sum();
            let truth = DVector::from_iterator(k, raw.iter().map(|x| T::from_f64_exact(x / total)));
            let mut identifiable = f(&truth[0]) >= 0.05;
            let mut optimum = DVector::from_element(k, T::int(0));
            for i in 1..k {
                let m = truth[0].clone() / (truth[0].clone() + truth[i].clone());
                let d = nu(pop, &m, 0, i)?;
                if d[0] == T::int(0) || d[i] == T::int(0) {
                    identifiable = false;
                }
                optimum = d;
            }
            let adv = adversary::<T>(name, &mut rng, optimum);
            let t = truth.clone();
            let metric = move |d: &DVector<T>| t.dot(d);
            let mut oracle = Counted::new(Noisy::new(metric, eps_omega.clone(), adv)?);
            let est = match elicit_dlpm(pop, &mut oracle, &eps, strategy) {
                Ok(est) => est,
                Err(crate::Error::IllConditioned { .. }) => {
                    excluded += 1;
                    continue;
                }
                Err(e) => return Err(e),
            };
            max_q = max_q.max(oracle.queries());
            if !identifiable {
                excluded += 1;
                continue;
            }
            // âᵢ = (1 − m̂)/m̂ turns an error δ in m into about δ(a₁ + aᵢ)²/a₁
            // in the normalized â: the conditioning κ of the trial.
            let a1 = f(&truth[0]);
            let kappa = (1..k)
                .map(|i| (a1 + f(&truth[i])).powi(2) / a1)
                .fold(1.0, f64::max);
            let ratio = f(&(truth - est.a).amax()) / scale;
            worst = worst.max(ratio);
            worst_conditioned = worst_conditioned.max(ratio / kappa);
        }
        let mut row = constant_row::<T>(
            "002-thm1",
            format!("k={k}, eps_omega={}, {name}", f(&eps_omega)),
            strategy,
            sweep.trials,
            max_q,
            worst,
            scale,
        );
        row.note = format!(
            "constant = max ||a*-a^||inf/(eps + sqrt(eps_Omega)); divided by the conditioning kappa = max_i (a_1 + a_i)^2/a_1 it is {worst_conditioned:.3}; softmax population p_i = 30 i/(k-1); {excluded} trials with a_1 < 0.05 or a vertex optimum excluded"
        );
        Ok(row)
    })
}

/// 002 Thm. 2 checked, for LPM (Alg. 2: negative a*, known orthant,
/// 2 cycles) and general LPME (001 App. A: any signs, orthant detected,
/// 4 cycles): `worst_ratio` is the largest
/// ‖a* − â‖₂/(√q·(ε + √(ε_Ω/λ))).
///
/// # Errors
/// Propagates elicitation failures.
pub fn theorem2<T: Scalar>(sweep: &Sweep, general: bool) -> Result<Vec<Row>> {
    let eps = T::ratio(sweep.eps.0, sweep.eps.1);
    let table = if general { "002-thm2-lpme" } else { "002-thm2" };
    let spheres = sweep
        .ks
        .iter()
        .map(|&k| sphere::<T>(k))
        .collect::<Result<Vec<_>>>()?;
    super::parallel_map(&settings(sweep), |&(k, (on, od), name, strategy)| {
        let s = &spheres[sweep.ks.iter().position(|&x| x == k).unwrap_or(0)];
        let q = s.dim();
        let eps_omega = T::ratio(on, od);
        let scale = (q as f64).sqrt() * (f(&eps) + (f(&eps_omega) / f(s.radius())).sqrt());
        let mut rng = ChaCha8Rng::seed_from_u64(sweep.seed);
        let (mut worst, mut max_q) = (0f64, 0usize);
        for _ in 0..sweep.trials {
            let raw: Vec<f64> = (0..q)
                .map(|_| {
                    let g: f64 = rng.random_range(-1.0..1.0);
                    if general {
                        g
                    } else {
                        -g.abs()
                    }
                })
                .collect();
            let truth = unit::<T>(&raw);
            let adv = adversary::<T>(name, &mut rng, s.point(&truth)?);
            let t = truth.clone();
            let metric = move |z: &DVector<T>| t.dot(z);
            let mut oracle = Counted::new(Noisy::new(metric, eps_omega.clone(), adv)?);
            let settings = LpmeSettings {
                eps: eps.clone(),
                strategy,
                cycles: if general { 4 } else { 2 },
                orthant: if general {
                    Orthant::Detect
                } else {
                    Orthant::Known(vec![Sign::Negative; q])
                },
            };
            let est = lpme(s, &mut oracle, &settings)?;
            max_q = max_q.max(oracle.queries());
            worst = worst.max(f(&(truth - est.a).norm()) / scale);
        }
        let mut row = constant_row::<T>(
            table,
            format!("k={k} (q={q}), eps_omega={}, {name}", f(&eps_omega)),
            strategy,
            sweep.trials,
            max_q,
            worst,
            scale,
        );
        row.note = format!(
            "constant = max ||a*-a^||2/(sqrt(q)(eps + sqrt(eps_Omega/lambda))), lambda = {:.4}",
            f(s.radius())
        );
        Ok(row)
    })
}

/// Query counts of DLPM, LPM and LPME per strategy beside the lower bound
/// (q − 1)·log₂(L/ε) (DLPM: (k − 1)·log₂(1/ε)), and LPME with golden
/// search and fewer cycles at the accuracy of the paper's setting.
///
/// # Errors
/// Propagates elicitation failures.
pub fn query_counts<T: Scalar>(trials: usize, seed: u64) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 100);
    let mut rows = Vec::new();
    for k in [3usize, 4] {
        // Counts do not depend on the population; the plateau-free one keeps
        // golden section (which has no tie rule) meaningful.
        let pop = theorem1_population::<T>(k)?;
        let s = sphere::<T>(k)?;
        let q = s.dim();
        let dlpm_bound = (k - 1) as f64 * f(&lower_bound(&T::int(1), &eps)?);
        let lpm_bound = (q - 1) as f64 * f(&lower_bound(&T::frac_pi_2(), &eps)?);
        let configs: Vec<(&str, Strategy, usize)> = vec![
            ("dlpm", Strategy::Paper, 0),
            ("dlpm", Strategy::Adaptive, 0),
            ("dlpm", Strategy::Golden, 0),
            ("lpme", Strategy::Paper, 4),
            ("lpme", Strategy::Adaptive, 4),
            ("lpme", Strategy::Golden, 4),
            ("lpme", Strategy::Golden, 3),
            ("lpme", Strategy::Golden, 2),
            ("lpme", Strategy::Golden, 1),
        ];
        for (what, strategy, cycles) in configs {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (mut total, mut max, mut worst, mut runs) = (0usize, 0usize, 0f64, 0usize);
            for _ in 0..trials {
                if what == "dlpm" {
                    let raw: Vec<f64> = (0..k).map(|_| rng.random_range(0.2..1.0f64)).collect();
                    let sum: f64 = raw.iter().sum();
                    let truth =
                        DVector::from_iterator(k, raw.iter().map(|x| T::from_f64_exact(x / sum)));
                    let t = truth.clone();
                    let mut oracle = Counted::new(Simulated::new(move |d: &DVector<T>| t.dot(d)));
                    let est = match elicit_dlpm(&pop, &mut oracle, &eps, strategy) {
                        Ok(est) => est,
                        Err(crate::Error::IllConditioned { .. }) => continue,
                        Err(e) => return Err(e),
                    };
                    runs += 1;
                    total += oracle.queries();
                    max = max.max(oracle.queries());
                    worst = worst.max(f(&(truth - est.a).amax()));
                } else {
                    let raw: Vec<f64> = (0..q).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let truth = unit::<T>(&raw);
                    let t = truth.clone();
                    let mut oracle = Counted::new(Simulated::new(move |z: &DVector<T>| t.dot(z)));
                    let settings = LpmeSettings {
                        eps: eps.clone(),
                        strategy,
                        cycles,
                        orthant: Orthant::Detect,
                    };
                    let est = lpme(&s, &mut oracle, &settings)?;
                    runs += 1;
                    total += oracle.queries();
                    max = max.max(oracle.queries());
                    worst = worst.max(f(&(truth - est.a).norm()));
                }
            }
            let bound = if what == "dlpm" {
                dlpm_bound
            } else {
                lpm_bound
            };
            let label = if what == "dlpm" {
                format!("DLPM k={k}")
            } else {
                format!("LPME k={k} (q={q}), {cycles} cycles")
            };
            let mut row = Row::new("002-queries", label, T::backend_name(), strategy.name());
            row.queries = max;
            row.error = worst;
            row.trials = Some(trials);
            row.bound = Some(bound);
            row.note = format!(
                "mean {:.1} queries over {runs} runs, max {max}; lower bound {bound:.1}; max/bound {:.2}; worst error {worst:.4} ({}); paper strategy per search 4*ceil = {}",
                total as f64 / runs.max(1) as f64,
                max as f64 / bound,
                if what == "dlpm" { "inf-norm" } else { "2-norm" },
                if what == "dlpm" { paper_queries(&T::int(1), &eps)? } else { paper_queries(&T::frac_pi_2(), &eps)? }
            );
            rows.push(row);
        }
    }
    Ok(rows)
}
