//! 004 (cost and reward infused elicitation): Table 1, Fig. 4, observed
//! error constants under noise, and the speed of the 10⁷-row population
//! against the paper's public code.

use super::{plots, Figure, Job, Layout, Options, Row, Section};
use metric_elicitation::elicit::cost_reward::{
    elicit_cost_reward, paper_queries, CostRewardSettings, CostRewardSpace,
};
use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
use metric_elicitation::error::Result;
use metric_elicitation::metric::cost_reward::{
    Attribute, CostRewardMetric, Kind, Space, Statistics,
};
use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, PushAway, Scripted, SeededRandom, Simulated,
};
use metric_elicitation::population::ExpectedMulticlass;
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use nalgebra::DVector;
use plotters::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::time::Instant;

fn f(x: &impl Scalar) -> f64 {
    x.to_f64_lossy()
}

/// One attribute of a Table 1 setting: name, kind, lower, upper.
pub type AttributeRow = (&'static str, Kind, f64, f64);

/// One Table 1 setting: k, the attributes in the paper's order (rewards,
/// then costs: a = (aᵈ, aʳ, aᶜ)), a* in hundredths in that order, the
/// paper's â (2 decimals) and its query count.
pub type Setting = (
    usize,
    &'static [AttributeRow],
    &'static [i64],
    &'static [f64],
    usize,
);

const ROW1: &[AttributeRow] = &[
    ("speed", Kind::Reward, 0.0, 5.0),
    ("cost", Kind::Cost, -0.3, 0.0),
];
const ROW2: &[AttributeRow] = &[
    ("cost1", Kind::Cost, -15.0, 0.0),
    ("cost2", Kind::Cost, -18.0, 0.0),
];
const ROW3: &[AttributeRow] = &[
    ("reward", Kind::Reward, 0.0, 15.5),
    ("cost1", Kind::Cost, -8.0, 0.0),
    ("cost2", Kind::Cost, -20.0, 0.0),
];
const ROW4: &[AttributeRow] = &[
    ("reward1", Kind::Reward, 0.0, 20.0),
    ("reward2", Kind::Reward, 0.0, 30.0),
    ("cost", Kind::Cost, -0.5, 0.0),
];
const K3_TRUTH: &[i64] = &[12, 8, 7, 32, 19, 22];
const K3_PAPER: &[f64] = &[0.12, 0.08, 0.07, 0.32, 0.19, 0.22];

/// 004 Table 1 (ε = 10⁻³).
pub const TABLE1: [Setting; 4] = [
    (2, ROW1, &[10, 5, 5, 80], &[0.10, 0.05, 0.05, 0.80], 120),
    (2, ROW2, &[32, 17, 28, 23], &[0.32, 0.17, 0.28, 0.23], 120),
    (3, ROW3, K3_TRUTH, K3_PAPER, 200),
    (3, ROW4, K3_TRUTH, K3_PAPER, 200),
];

/// The attributes of a setting at precision `T`.
///
/// # Errors
/// Only for an invalid range (none in [`TABLE1`]).
pub fn attributes<T: Scalar>(rows: &[AttributeRow]) -> Result<Vec<Attribute<T>>> {
    rows.iter()
        .map(|(name, kind, lo, hi)| {
            Attribute::new(*name, *kind, T::from_f64_exact(*lo), T::from_f64_exact(*hi))
        })
        .collect()
}

/// a* = parts/100 split into (aᵈ, attribute weights).
///
/// # Errors
/// When the parts do not describe a valid metric.
pub fn metric<T: Scalar>(k: usize, parts: &[i64]) -> Result<CostRewardMetric<T>> {
    let total: i64 = parts.iter().sum();
    let w: Vec<T> = parts.iter().map(|p| T::ratio(*p, total)).collect();
    CostRewardMetric::new(
        DVector::from_vec(w[..k].to_vec()),
        DVector::from_vec(w[k..].to_vec()),
    )
}

fn v64<T: Scalar>(v: &DVector<T>) -> Vec<f64> {
    v.iter().map(f).collect()
}

/// The 004 §5 population of Table 1: n rows, seed `seed + k`.
///
/// # Errors
/// As [`ExpectedMulticlass::synthetic_004`].
pub fn population<T: Scalar>(k: usize, n: usize, seed: u64) -> Result<ExpectedMulticlass<T>> {
    ExpectedMulticlass::synthetic_004(k, n, seed + k as u64)
}

/// 004 Table 1 on populations of `n` rows, ε = 10⁻³, with each strategy
/// in `strategies`: â beside the paper's, queries, the error and the
/// elicitation's wall time.
///
/// # Errors
/// Propagates elicitation failures.
pub fn table1<T: Scalar>(n: usize, seed: u64, strategies: &[Strategy]) -> Result<Vec<Row>> {
    let eps = T::ratio(1, 1000);
    let mut rows = Vec::new();
    let mut pops: Vec<(usize, ExpectedMulticlass<T>)> = Vec::new();
    for (index, (k, attrs, parts, paper, paper_q)) in TABLE1.iter().enumerate() {
        if !pops.iter().any(|(kk, _)| kk == k) {
            pops.push((*k, population::<T>(*k, n, seed)?));
        }
        let Some((_, pop)) = pops.iter().find(|(kk, _)| kk == k) else {
            continue;
        };
        let attributes = attributes::<T>(attrs)?;
        let truth = metric::<T>(*k, parts)?;
        let mapping: Vec<String> = attrs
            .iter()
            .map(|(name, kind, lo, hi)| format!("{name} ({} [{lo}, {hi}])", kind.name()))
            .collect();
        for &strategy in strategies {
            let mut oracle = Counted::new(Simulated::new(truth.clone()));
            let start = Instant::now();
            let est = elicit_cost_reward(
                pop,
                &attributes,
                &mut oracle,
                &CostRewardSettings::paper(Tolerance::new(eps.clone())?, strategy),
            )?;
            let seconds = start.elapsed().as_secs_f64();
            let mut row = Row::new(
                "004-table1",
                format!("row {}, k={k}, {} attributes", index + 1, attrs.len()),
                T::backend_name(),
                strategy.name(),
            );
            row.truth = v64(&truth.weights());
            row.elicited = v64(est.weights());
            row.paper = paper.to_vec();
            row.queries = oracle.posed();
            row.error = f(&(truth.weights() - est.weights()).amax());
            row.seconds = Some(seconds);
            let rounded: Vec<f64> = row
                .elicited
                .iter()
                .map(|x| (x * 100.0).round() / 100.0)
                .collect();
            let matches = rounded
                .iter()
                .zip(paper.iter())
                .all(|(a, b)| (a - b).abs() < 1e-9);
            row.note = format!(
                "n = {n}; weights (a^d, then {}); 2 dp {} the paper's{}; paper strategy count 4(k + R + C - 1) ceil(log2(1/eps)) = {} (paper: {paper_q})",
                mapping.join(", "),
                if matches { "equal" } else { "differ from" },
                if matches {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        rounded
                            .iter()
                            .map(|x| format!("{x:.2}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                paper_queries(*k, attrs.len(), &eps)?,
            );
            for w in est.warnings() {
                row.note.push_str("; ");
                row.note.push_str(&w.message);
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Fig. 4's two runs: Table 1 row 1, and k = 2 with one attribute on
/// [0, 10] (a reward) and weights (0.15, 0.05, 0.8) (the reference's; the
/// text's 0.5 is a misprint).
pub const FIG4: [(&str, usize, &[AttributeRow], &[i64]); 2] = [
    ("Table 1 row 1", 2, ROW1, &[10, 5, 5, 80]),
    (
        "3-D run",
        2,
        &[("attribute", Kind::Reward, 0.0, 10.0)],
        &[15, 5, 80],
    ),
];

/// 004 Fig. 4: the error of â after t halvings of every search
/// (ε = 2⁻ᵗ, paper strategy), t = 0..=`iterations`, for both runs of
/// [`FIG4`]; `error` is the plotted mean absolute error ‖â − a*‖₁/dim.
///
/// # Errors
/// Propagates elicitation failures.
pub fn fig4<T: Scalar>(n: usize, seed: u64, iterations: usize) -> Result<Vec<Row>> {
    let pop = population::<T>(2, n, seed)?;
    let mut rows = Vec::new();
    for (label, k, attrs, parts) in FIG4 {
        let attributes = attributes::<T>(attrs)?;
        let truth = metric::<T>(k, parts)?;
        let dim = truth.weights().len();
        for t in 0..=iterations {
            let (estimate, queries) = if t == 0 {
                // No halving yet: every m̂ = ½, so every ratio is 1.
                let uniform = DVector::from_element(dim, T::ratio(1, dim as i64));
                (uniform, 0)
            } else {
                let mut eps = T::int(1);
                eps.mul_pow2_assign(-(t as i32));
                let mut oracle = Counted::new(Simulated::new(truth.clone()));
                let est = elicit_cost_reward(
                    &pop,
                    &attributes,
                    &mut oracle,
                    &CostRewardSettings::paper(Tolerance::new(eps.clone())?, Strategy::Paper),
                )?;
                (est.weights().clone(), oracle.posed())
            };
            let mut row = Row::new(
                "004-fig4",
                format!("{label}, t={t}"),
                T::backend_name(),
                Strategy::Paper.name(),
            );
            let diff = truth.weights() - &estimate;
            row.truth = v64(&truth.weights());
            row.elicited = v64(&estimate);
            row.queries = queries;
            row.error = f(&diff.abs().sum()) / dim as f64;
            row.note = format!("eps = 2^-{t}; ||a^ - a*||_1 = {:.3e}", f(&diff.abs().sum()));
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Draws Fig. 4: mean absolute error against iterations (log scale), and
/// the trajectory of each weight of the 3-D run.
pub(crate) fn fig4_figure(section: &Section, path: &Path) -> std::result::Result<(), String> {
    let root = plots::canvas(path, (1200, 480))?;
    let panels = root.split_evenly((1, 2));
    let series = |label: &str| -> Vec<&Row> {
        section
            .rows
            .iter()
            .filter(|r| r.row.starts_with(label))
            .collect()
    };
    let t_of = |r: &Row| -> f64 {
        r.row
            .rsplit("t=")
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0.0)
    };
    let last = section.rows.iter().map(t_of).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&panels[0])
        .caption(
            "004 Fig. 4: mean |a^ - a*| by iteration",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..last, (1e-6f64..1.0).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("iterations (halvings of every search)")
        .x_labels(plots::integer_labels(0.0, last))
        .x_label_formatter(&plots::whole)
        .y_desc("||a^ - a*||_1 / dim")
        .draw()
        .map_err(|e| e.to_string())?;
    for ((label, _, _, _), color) in FIG4.iter().zip([BLUE, RED]) {
        let points: Vec<(f64, f64)> = series(label)
            .iter()
            .map(|r| (t_of(r), r.error.max(1e-6)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    plots::legend(&mut chart)?;
    let run = series(FIG4[1].0);
    let mut chart = ChartBuilder::on(&panels[1])
        .caption(
            "3-D run: weights (a_1^d, a_2^d, a_attr) by iteration",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..last, 0f64..1f64)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("iterations")
        .x_labels(plots::integer_labels(0.0, last))
        .x_label_formatter(&plots::whole)
        .y_desc("weight")
        .draw()
        .map_err(|e| e.to_string())?;
    let names = ["a_1^d", "a_2^d", "a_attribute"];
    for (c, (name, color)) in names.iter().zip([BLUE, GREEN, RED]).enumerate() {
        let points: Vec<(f64, f64)> = run
            .iter()
            .filter_map(|r| r.elicited.get(c).map(|v| (t_of(r), *v)))
            .collect();
        let truth = run
            .first()
            .and_then(|r| r.truth.get(c))
            .copied()
            .unwrap_or(0.0);
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(format!("{name} (true {truth})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, truth), (last, truth)],
                color.mix(0.4).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
    }
    plots::legend(&mut chart)?;
    root.present().map_err(|e| e.to_string())
}

/// The noise sweep's settings: 002's [`Sweep`], with `ks` selecting the
/// Table 1 spaces by their k.
pub use super::multiclass::Sweep;

/// The default noise sweep: 1000 random metrics per Table 1 space,
/// ε = 10⁻², ε_Ω ∈ {10⁻⁶, 10⁻⁴, 10⁻³}, every adversary and strategy.
pub fn default_sweep() -> Sweep {
    Sweep {
        ks: vec![2, 3],
        ..Sweep::noise_levels()
    }
}

fn adversary<T: Scalar>(
    name: &str,
    rng: &mut ChaCha8Rng,
    push: impl Fn(&Statistics<T>) -> T + 'static,
) -> Box<dyn Adversary<Statistics<T>>> {
    match name {
        "always-wrong" => Box::new(AlwaysWrong),
        "random" => Box::new(SeededRandom::new(rng.random())),
        "push-away" => Box::new(PushAway::new(push)),
        _ => Box::new(Scripted::new((0..4096).map(|_| rng.random()).collect())),
    }
}

/// κ = maxᵢ (1 − aᵢ)(a₁ + aᵢ)²/a₁: how much Alg. 1's ratio-then-normalize
/// step amplifies an error in m̂ᵢ (|∂âᵢ/∂m̂ᵢ| at the truth); 1 or less when
/// a₁ is the largest weight.
pub fn conditioning(a: &[f64]) -> f64 {
    a.iter()
        .skip(1)
        .map(|ai| (1.0 - ai) * (a[0] + ai).powi(2) / a[0])
        .fold(0.0, f64::max)
}

/// Random metrics (uniform on the simplex) on each Table 1 space whose k
/// is in `sweep.ks`, on populations of `rows` rows, with an ε_Ω-noisy
/// oracle and every adversary: the observed constant
/// max ‖a* − â‖∞/(ε + √ε_Ω), also divided by the conditioning
/// max(1, κ) ([`conditioning`]). Trials with a₁ᵈ < 0.05 are counted and
/// left out of the constants (the reference weight too small to divide
/// by; 002 Thm. 1's sweep does the same).
///
/// # Errors
/// Propagates elicitation failures.
pub fn noise<T: Scalar>(sweep: &Sweep, rows: usize) -> Result<Vec<Row>> {
    let eps = T::ratio(sweep.eps.0, sweep.eps.1);
    let pops = [2usize, 3]
        .iter()
        .map(|&k| population::<T>(k, rows, sweep.seed))
        .collect::<Result<Vec<_>>>()?;
    let mut cells = Vec::new();
    for (index, (k, attrs, ..)) in TABLE1.iter().enumerate() {
        if !sweep.ks.contains(k) {
            continue;
        }
        for &eo in &sweep.eps_omega {
            for &name in &sweep.adversaries {
                for &strategy in &sweep.strategies {
                    cells.push((index, *k, *attrs, eo, name, strategy));
                }
            }
        }
    }
    super::shard::sharded_map(&cells, |&(index, k, attrs, (on, od), name, strategy)| {
        let pop = &pops[k - 2];
        let attributes = attributes::<T>(attrs)?;
        let space = CostRewardSpace::new(pop, &attributes)?;
        let dim = k + attrs.len();
        let eps_omega = T::ratio(on, od);
        let scale = f(&eps) + f(&eps_omega).sqrt();
        let mut truths = ChaCha8Rng::seed_from_u64(sweep.seed ^ index as u64);
        let mut rng = ChaCha8Rng::seed_from_u64(sweep.seed ^ 0x5eed);
        let (mut worst, mut worst_conditioned, mut excluded) = (0f64, 0f64, 0usize);
        let (mut max_q, mut worst_any) = (0usize, 0f64);
        for _ in 0..sweep.trials {
            let raw: Vec<f64> = (0..dim)
                .map(|_| -truths.random_range(1e-12..1.0f64).ln())
                .collect();
            let total: f64 = raw.iter().sum();
            let a: Vec<f64> = raw.iter().map(|x| x / total).collect();
            let truth = CostRewardMetric::normalized(
                DVector::from_iterator(k, a[..k].iter().map(|x| T::from_f64_exact(*x))),
                DVector::from_iterator(dim - k, a[k..].iter().map(|x| T::from_f64_exact(*x))),
            )?;
            // Push-away: the distance from the optimum of the point's own
            // space.
            let optima: Vec<Statistics<T>> = (1..dim)
                .map(|i| space.optimum(&truth, 0, i))
                .collect::<Result<_>>()?;
            let push = move |p: &Statistics<T>| {
                let i = match p.space {
                    Space::Face { class, .. } => class,
                    Space::Frontier { attribute, .. } => k + attribute,
                };
                let best = &optima[i - 1];
                (&p.d - &best.d).norm_squared() + (&p.attributes - &best.attributes).norm_squared()
            };
            let adv = adversary::<T>(name, &mut rng, push);
            let mut oracle = Counted::new(Noisy::new(truth.clone(), eps_omega.clone(), adv)?);
            let est = elicit_cost_reward(
                pop,
                &attributes,
                &mut oracle,
                &CostRewardSettings::paper(Tolerance::new(eps.clone())?, strategy),
            )?;
            max_q = max_q.max(oracle.posed());
            let error = f(&(truth.weights() - est.weights()).amax());
            worst_any = worst_any.max(error / scale);
            if a[0] < 0.05 {
                excluded += 1;
                continue;
            }
            worst = worst.max(error / scale);
            worst_conditioned = worst_conditioned.max(error / scale / conditioning(&a).max(1.0));
        }
        let mut row = Row::new(
            "004-noise",
            format!(
                "k={k}, {} attributes (row {}), eps_omega={}, {name}",
                attrs.len(),
                index + 1,
                f(&eps_omega)
            ),
            T::backend_name(),
            strategy.name(),
        );
        row.trials = Some(sweep.trials);
        row.queries = max_q;
        row.worst_ratio = Some(worst);
        row.worst_error = Some(worst * scale);
        row.bound = Some(scale);
        row.error = worst * scale;
        row.conditioned_ratio = Some(worst_conditioned);
        row.note = format!(
            "constant over the {} trials with a_1^d >= 0.05: {worst:.2}; divided by max(1, kappa): {worst_conditioned:.2}; over all trials (a_1^d down to 0): {worst_any:.1}",
            sweep.trials - excluded
        );
        Ok(row)
    })
}

/// The paper's public code measured on this machine (`shared/notes/peers.md`):
/// (run, queries, end to end s, elicitation s, peak GB).
pub const PEER: [(&str, usize, f64, f64, f64); 2] = [
    ("DLPM k = 4", 120, 74.2, 70.6, 1.7),
    ("cost/reward k = 2, two attributes", 120, 50.4, 47.0, 1.4),
];

/// Peak resident memory of this process so far (VmHWM), in bytes, where
/// the system reports it.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// One timed end-to-end run on the 004 §5 population: generation, face
/// preparation, elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Rows n.
    pub rows: usize,
    /// Classes k.
    pub classes: usize,
    /// Seconds generating the population.
    pub generation: f64,
    /// Seconds preparing the faces (one binning pass each).
    pub preparation: f64,
    /// Seconds of the elicitation alone (queries and any bin extraction).
    pub elicitation: f64,
    /// Of which: bin extractions.
    pub extraction: f64,
    /// Queries posed.
    pub queries: usize,
    /// Bytes held by the population.
    pub bytes: usize,
    /// The elicited weights.
    pub elicited: Vec<f64>,
    /// The true weights.
    pub truth: Vec<f64>,
}

impl Timing {
    /// Generation + preparation + elicitation.
    pub fn total(&self) -> f64 {
        self.generation + self.preparation + self.elicitation
    }
}

/// What a timed run returns: the estimate, the truth and the queries.
type Outcome = (Vec<f64>, Vec<f64>, usize);

/// Times generation, the preparation of the faces (1, i), i < `faces`,
/// and `run` on the 004 §5 population of `rows` rows and k classes.
fn timed(
    rows: usize,
    k: usize,
    faces: usize,
    seed: u64,
    run: impl FnOnce(&ExpectedMulticlass<f64>) -> Result<Outcome>,
) -> Result<Timing> {
    let start = Instant::now();
    let pop = ExpectedMulticlass::<f64>::synthetic_004(k, rows, seed)?;
    let generation = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for i in 1..faces {
        pop.prepare(0, i)?;
    }
    let preparation = start.elapsed().as_secs_f64();
    let before = pop.stats();
    let start = Instant::now();
    let (elicited, truth, queries) = run(&pop)?;
    let elicitation = start.elapsed().as_secs_f64();
    Ok(Timing {
        rows,
        classes: k,
        generation,
        preparation,
        elicitation,
        extraction: (pop.stats().extraction - before.extraction).as_secs_f64(),
        queries,
        bytes: pop.memory_bytes(),
        elicited,
        truth,
    })
}

/// DLPM (002 Alg. 1) at ε = 10⁻³ on the 004 §5 population of `rows` rows
/// and k classes, timed phase by phase (the faces (1, i) are prepared
/// before the elicitation starts); a* ∝ (1, 2, …, k).
///
/// # Errors
/// Propagates population and elicitation failures.
pub fn time_dlpm(rows: usize, k: usize, seed: u64, strategy: Strategy) -> Result<Timing> {
    timed(rows, k, k, seed, |pop| {
        let total = (k * (k + 1) / 2) as f64;
        let truth = DVector::from_fn(k, |i, _| (i + 1) as f64 / total);
        let t = truth.clone();
        let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| t.dot(d)));
        let est = elicit_dlpm(
            pop,
            &mut oracle,
            &DlpmSettings::paper(Tolerance::new(1e-3)?, strategy),
        )?;
        Ok((
            est.a.iter().copied().collect(),
            truth.iter().copied().collect(),
            oracle.posed(),
        ))
    })
}

/// Table 1's row 1 (k = 2, a reward and a cost) at ε = 10⁻³ on `rows`
/// rows, timed phase by phase.
///
/// # Errors
/// Propagates population and elicitation failures.
pub fn time_cost_reward(rows: usize, seed: u64, strategy: Strategy) -> Result<Timing> {
    let (k, attrs, parts, ..) = TABLE1[0];
    timed(rows, k, k, seed, |pop| {
        let attributes = attributes::<f64>(attrs)?;
        let truth = metric::<f64>(k, parts)?;
        let mut oracle = Counted::new(Simulated::new(truth.clone()));
        let est = elicit_cost_reward(
            pop,
            &attributes,
            &mut oracle,
            &CostRewardSettings::paper(Tolerance::new(1e-3)?, strategy),
        )?;
        Ok((
            est.weights().iter().copied().collect(),
            truth.weights().iter().copied().collect(),
            oracle.posed(),
        ))
    })
}

fn timing_row(table: &str, label: String, strategy: Strategy, t: &Timing) -> Row {
    let mut row = Row::new(table, label, "f64".into(), strategy.name());
    row.truth = t.truth.clone();
    row.elicited = t.elicited.clone();
    row.queries = t.queries;
    row.error = super::max_abs_diff(&t.truth, &t.elicited);
    row.seconds = Some(t.total());
    row
}

/// The speed rows: DLPM (k = 4) and cost/reward (k = 2, two attributes)
/// at n = 10⁷ and ε = 10⁻³, per strategy, beside the paper's public code
/// ([`PEER`]).
///
/// # Errors
/// Propagates failures.
pub fn speed(rows: usize, seed: u64) -> Result<Vec<Row>> {
    let mut out = Vec::new();
    for strategy in Strategy::ALL {
        for (peer, t) in [
            (PEER[0], time_dlpm(rows, 4, seed, strategy)?),
            (PEER[1], time_cost_reward(rows, seed, strategy)?),
        ] {
            let (name, peer_q, peer_total, peer_elicit, peer_gb) = peer;
            let mut row = timing_row("004-speed", format!("{name}, n = {rows}"), strategy, &t);
            row.note = format!(
                "ours: generation {:.3} s, preparation {:.3} s, elicitation {:.2e} s (of which bin extraction {:.2e} s), total {:.3} s, population {:.0} MB, process peak so far {:.0} MB; the paper's code ({peer_q} queries): {peer_total} s end to end, {peer_elicit} s elicitation, {peer_gb} GB; end to end {:.0}x faster, elicitation {:.0}x faster",
                t.generation,
                t.preparation,
                t.elicitation,
                t.extraction,
                t.total(),
                t.bytes as f64 / 1e6,
                peak_memory().map_or(f64::NAN, |b| b as f64 / 1e6),
                peer_total / t.total(),
                peer_elicit / t.elicitation,
            );
            out.push(row);
        }
    }
    Ok(out)
}

/// DLPM (k = 4, ε = 10⁻³, paper strategy) at each n of `sizes`: the
/// scaling of generation, preparation and elicitation.
///
/// # Errors
/// Propagates failures.
pub fn scaling(sizes: &[usize], seed: u64) -> Result<Vec<Row>> {
    let mut out = Vec::new();
    for &n in sizes {
        let t = time_dlpm(n, 4, seed, Strategy::Paper)?;
        let mut row = timing_row(
            "004-scaling",
            format!("DLPM k = 4, n = {n}"),
            Strategy::Paper,
            &t,
        );
        row.note = format!(
            "generation {:.3} s ({:.1} ns/row), preparation {:.3} s ({:.2} ns/row per face), elicitation {:.2e} s for {} queries ({:.0} ns/query), population {:.0} MB, process peak so far {:.0} MB",
            t.generation,
            t.generation * 1e9 / n as f64,
            t.preparation,
            t.preparation * 1e9 / (3 * n) as f64,
            t.elicitation,
            t.queries,
            t.elicitation * 1e9 / t.queries.max(1) as f64,
            t.bytes as f64 / 1e6,
            peak_memory().map_or(f64::NAN, |b| b as f64 / 1e6),
        );
        out.push(row);
    }
    Ok(out)
}

/// The 004 jobs. `004-scaling` adds n = 10⁸ (about 3.2 GB of rows and
/// 10 s) only when named exactly (`--only 004-scaling`).
pub fn jobs<T: Scalar>(o: &Options) -> Vec<Job> {
    let (trials, seed) = (o.trials, o.seed);
    let huge = o.only.iter().any(|x| x == "004-scaling");
    let job = Job::maker(verdict);
    vec![
        job(
            "004-table1",
            "004 Table 1: cost and reward infused elicitation (eps = 1e-3, n = 1e7)",
            EXPLAIN_T1,
            Layout::Table,
            Box::new(move || table1::<T>(10_000_000, seed, &Strategy::ALL)),
            None,
            true,
        ),
        job(
            "004-fig4",
            "004 Fig. 4: error by iteration (paper strategy, n = 1e6)",
            EXPLAIN_FIG4,
            Layout::Table,
            Box::new(move || fig4::<T>(1_000_000, seed, 14)),
            Some(Figure {
                file: "fig-004-fig4.svg",
                draw: fig4_figure,
            }),
            false,
        ),
        job(
            "004-noise",
            "004: random metrics with eps_Omega noise, ||a* - a^||inf / (eps + sqrt(eps_Omega))",
            EXPLAIN_NOISE,
            Layout::Sweep,
            Box::new(move || {
                noise::<T>(
                    &Sweep {
                        trials,
                        seed,
                        ..default_sweep()
                    },
                    1_000_000,
                )
            }),
            None,
            false,
        ),
        job(
            "004-speed",
            "004: speed at n = 1e7 beside the paper's public code (f64, 2 cores)",
            EXPLAIN_SPEED,
            Layout::Table,
            Box::new(move || speed(10_000_000, seed)),
            None,
            false,
        ),
        job(
            "004-scaling",
            "004: DLPM k = 4 from n = 1e5 to 1e7 (1e8 with --only 004-scaling)",
            EXPLAIN_SCALING,
            Layout::Table,
            Box::new(move || {
                let mut sizes = vec![100_000, 1_000_000, 10_000_000];
                if huge {
                    sizes.push(100_000_000);
                }
                scaling(&sizes, seed)
            }),
            None,
            false,
        ),
    ]
}

const EXPLAIN_T1: &str = include_str!("../../text/cost_reward-explain-t1.md");
const EXPLAIN_FIG4: &str = include_str!("../../text/cost_reward-explain-fig4.md");
const EXPLAIN_NOISE: &str = include_str!("../../text/cost_reward-explain-noise.md");
const EXPLAIN_SPEED: &str = include_str!("../../text/cost_reward-explain-speed.md");
const EXPLAIN_SCALING: &str = include_str!("../../text/cost_reward-explain-scaling.md");

fn verdict(id: &str, rows: &[Row]) -> String {
    match id {
        "004-table1" => {
            let paper: Vec<&Row> = rows.iter().filter(|r| r.search == "paper").collect();
            let same = paper
                .iter()
                .filter(|r| r.note.contains("equal the paper"))
                .count();
            let counts: Vec<String> = paper.iter().map(|r| r.queries.to_string()).collect();
            let others: Vec<String> = rows
                .iter()
                .filter(|r| r.search != "paper")
                .map(|r| format!("{} {} ({:.1e})", r.search, r.queries, r.error))
                .collect();
            let worst = paper.iter().map(|r| r.error).fold(0.0, f64::max);
            format!(
                "{}: {same} of {} rows equal the paper's a^ at 2 dp (worst |a* - a^| {worst:.1e}); paper-strategy queries {} (paper: 120, 120, 200, 200); other strategies: {}",
                if same == paper.len() { "matches" } else { "differs" },
                paper.len(),
                counts.join(", "),
                others.join(", ")
            )
        }
        "004-fig4" => {
            let parts: Vec<String> = FIG4
                .iter()
                .map(|(label, ..)| {
                    let run: Vec<&Row> =
                        rows.iter().filter(|r| r.row.starts_with(label)).collect();
                    let (first, last) = (run.get(1), run.last());
                    match (first, last) {
                        (Some(a), Some(b)) if run.len() > 2 && b.error > 0.0 => format!(
                            "{label}: {:.1e} after 1 iteration, {:.1e} after {}, a factor {:.2} per iteration",
                            a.error,
                            b.error,
                            run.len() - 1,
                            (a.error / b.error).powf(1.0 / (run.len() - 2) as f64)
                        ),
                        _ => format!("{label}: too few rows"),
                    }
                })
                .collect();
            format!(
                "measured (the paper plots this, no numbers): {}",
                parts.join("; ")
            )
        }
        "004-noise" => {
            let mut by = std::collections::BTreeMap::new();
            for r in rows {
                let key = r.row.split(", eps_omega").next().unwrap_or("").to_string();
                let v = by.entry(key).or_insert((0f64, 0f64));
                v.0 = v.0.max(r.worst_ratio.unwrap_or(0.0));
                v.1 = v.1.max(r.conditioned_ratio.unwrap_or(0.0));
            }
            let list: Vec<String> = by
                .iter()
                .map(|(k, v)| format!("{k}: {:.1} (/kappa {:.1})", v.0, v.1))
                .collect();
            format!(
                "measured (the paper states no constant): observed constants {}",
                list.join("; ")
            )
        }
        "004-speed" | "004-scaling" => {
            "measured (the times of both, taken here; see the table): ".to_string()
                + &rows
                    .iter()
                    .map(|r| {
                        format!(
                            "{} [{}]: {:.3} s",
                            r.row,
                            r.search,
                            r.seconds.unwrap_or(0.0)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
        }
        _ => String::new(),
    }
}
