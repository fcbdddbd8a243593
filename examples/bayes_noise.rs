//! Measures the Bayesian engine (`elicit::bayes`, issue #28) against the
//! papers' coordinate searches behind the same simulated people: binary
//! LPM (003, golden-section boundary search) and LPME on a sphere (001
//! App. A, one-cycle bisection), with exact answers and with independent
//! mistakes.
//!
//! Each row elicits `--trials` metrics drawn from the engine's prior (one
//! seed per trial, sequential, so the output depends on the seeds only)
//! and prints the median and 90th percentile of the questions, the
//! fraction of estimates within ε of the truth in the family's error
//! measure (binary: max(|Δm11|, |Δm00|) with ‖m‖₂ = 1; LPME: ‖a − â‖₂), the
//! coverage of the engine's 95 % credible radius (truth within the radius
//! of the estimate), the information bound d·log₂(1/ε)/(1 − H(p)) and the
//! engine's time per question.
//!
//! ```text
//! cargo run --release --example bayes_noise -- --trials 100
//! cargo run --release --example bayes_noise -- --trials 100 --lpme 6
//! ```

use metric_elicitation::elicit::bayes::families::{BinaryLpm, SphereLpme};
use metric_elicitation::elicit::bayes::{
    draw_prior, elicit, information_bound, AnswerModel, BayesSettings, Family,
};
use metric_elicitation::elicit::binary::{elicit_lpm, Monotonicity};
use metric_elicitation::elicit::lpme::{lpme, LpmeSettings};
use metric_elicitation::elicit::Search;
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::binary::Lpm;
use metric_elicitation::oracle::{Counted, Mistakes, Simulated};
use metric_elicitation::population::LogisticUniform;
use metric_elicitation::search::{Strategy, Tolerance};
use nalgebra::DVector;
use std::time::Instant;

/// One trial: (error, credible radius if any, questions, seconds).
type Trial = (f64, Option<f64>, usize, f64);

fn arg(args: &[String], name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

fn row(name: &str, trials: &[Trial], eps: f64, bound: f64) {
    let mut q: Vec<usize> = trials.iter().map(|t| t.2).collect();
    q.sort_unstable();
    let n = trials.len() as f64;
    let median = if q.len() % 2 == 1 {
        q[q.len() / 2] as f64
    } else {
        (q[q.len() / 2 - 1] + q[q.len() / 2]) as f64 / 2.0
    };
    let p90 = q[((q.len() as f64 * 0.9).ceil() as usize).saturating_sub(1)];
    let within = trials.iter().filter(|t| t.0 <= eps).count() as f64 / n * 100.0;
    let coverage = if trials.iter().all(|t| t.1.is_some()) {
        let c = trials
            .iter()
            .filter(|t| t.1.is_some_and(|r| t.0 <= r))
            .count();
        format!("{:.0} %", c as f64 / n * 100.0)
    } else {
        "—".into()
    };
    let total_q: usize = q.iter().sum();
    let secs: f64 = trials.iter().map(|t| t.3).sum();
    let worst = trials.iter().map(|t| t.0).fold(0.0, f64::max);
    println!(
        "| {name} | {median} | {p90} | {within:.0} % | {coverage} | {worst:.3} | {bound:.1} | {:.2} |",
        secs / total_q.max(1) as f64 * 1e3
    );
}

/// "exact" or "p = 0.1".
fn label(p: f64) -> String {
    if p == 0.0 {
        "exact".to_string()
    } else {
        format!("p = {p}")
    }
}

fn engine_settings(eps: f64, model: AnswerModel<f64>, seed: u64) -> BayesSettings<f64> {
    BayesSettings::builder(Tolerance::new(eps).expect("eps > 0"))
        .answers(model)
        .seed(seed)
        .build()
        .expect("valid settings")
}

fn engine_trial<F: Family<f64>>(
    family: &F,
    truth: &DVector<f64>,
    oracle: &mut dyn metric_elicitation::oracle::Oracle<F::Point>,
    settings: &BayesSettings<f64>,
) -> Trial {
    let start = Instant::now();
    let est = elicit(family, oracle, settings).expect("no oracle error");
    let secs = start.elapsed().as_secs_f64();
    let n = family.report_names().len();
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    family.report(truth.as_slice(), &mut a);
    family.report(est.theta.as_slice(), &mut b);
    (family.error(&a, &b), Some(est.radius), est.questions, secs)
}

fn binary(trials: u64, eps: f64, p: f64) {
    let population = LogisticUniform::new(5.0).expect("a > 0");
    let family = BinaryLpm::new(population.clone());
    let truths: Vec<DVector<f64>> = (0..trials)
        .map(|s| draw_prior::<f64, _>(&family, 10_000 + s).expect("a prior draw"))
        .collect();
    let metric = |t: &DVector<f64>| Lpm::new(t[0], t[1], 0.0).expect("a unit LPM");
    let label = label(p);
    let models = [
        ("known p", AnswerModel::Mistakes { p }),
        (
            "p unknown, Beta(2, 18)",
            AnswerModel::UnknownMistakes {
                alpha: 2.0,
                beta: 18.0,
            },
        ),
    ];
    for (name, model) in models {
        let runs: Vec<Trial> = truths
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let seed = i as u64;
                let mut person = Mistakes::new(Simulated::new(metric(t)), p, seed ^ 0x5eed)
                    .expect("p in [0, 1]");
                engine_trial(
                    &family,
                    t,
                    &mut person,
                    &engine_settings(eps, model.clone(), seed),
                )
            })
            .collect();
        let name = format!("binary LPM, {label}, engine ({name})");
        row(&name, &runs, eps, bound(1, eps, p));
    }
    let runs: Vec<Trial> = truths
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let truth = metric(t);
            let mut person = Counted::new(
                Mistakes::new(Simulated::new(truth.clone()), p, i as u64 ^ 0x5eed)
                    .expect("p in [0, 1]"),
            );
            let start = Instant::now();
            let est = elicit_lpm(
                &population,
                &mut person,
                &Tolerance::new(eps).expect("eps > 0"),
                Strategy::Golden,
                Monotonicity::Unknown,
            )
            .expect("no oracle error");
            let secs = start.elapsed().as_secs_f64();
            let u = truth.unit();
            let error = (est.m11 - u.m11).abs().max((est.m00 - u.m00).abs());
            (error, None, person.queries(), secs)
        })
        .collect();
    row(
        &format!("binary LPM, {label}, coordinate search (golden)"),
        &runs,
        eps,
        bound(1, eps, p),
    );
}

/// The information bound; the example's own `--eps` and p are in range.
fn bound(d: usize, eps: f64, p: f64) -> f64 {
    information_bound(d, &eps, &p).expect("eps in (0, 1], p in [0, 1/2]")
}

fn sphere_lpme(q: usize, trials: u64, eps: f64, p: f64) {
    let sphere = Sphere::new(DVector::from_element(q, 0.5), 0.2).expect("a sphere");
    let family = SphereLpme::new(sphere.clone());
    let label = label(p);
    let truths: Vec<DVector<f64>> = (0..trials)
        .map(|s| draw_prior::<f64, _>(&family, 20_000 + s).expect("a prior draw"))
        .collect();
    let linear = |t: &DVector<f64>| {
        let t = t.clone();
        move |z: &DVector<f64>| t.dot(z)
    };
    let runs: Vec<Trial> = truths
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let seed = i as u64;
            let mut person =
                Mistakes::new(Simulated::new(linear(t)), p, seed ^ 0x5eed).expect("p in [0, 1]");
            engine_trial(
                &family,
                t,
                &mut person,
                &engine_settings(eps, AnswerModel::Mistakes { p }, seed),
            )
        })
        .collect();
    let bound = bound(q - 1, eps, p);
    row(&format!("LPME q = {q}, {label}, engine"), &runs, eps, bound);
    let runs: Vec<Trial> = truths
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut person = Counted::new(
                Mistakes::new(Simulated::new(linear(t)), p, i as u64 ^ 0x5eed)
                    .expect("p in [0, 1]"),
            );
            let search = Search::new(eps, Strategy::Bisection).expect("eps > 0");
            let start = Instant::now();
            let est = lpme(&sphere, &mut person, &LpmeSettings::efficient(search))
                .expect("no oracle error");
            let secs = start.elapsed().as_secs_f64();
            ((&est.a - t).norm(), None, person.queries(), secs)
        })
        .collect();
    row(
        &format!("LPME q = {q}, {label}, coordinate search (bisection)"),
        &runs,
        eps,
        bound,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let trials: u64 = arg(&args, "--trials").map_or(100, |s| s.parse().expect("--trials N"));
    let eps: f64 = arg(&args, "--eps").map_or(0.05, |s| s.parse().expect("--eps X"));
    let q: Option<usize> = arg(&args, "--lpme").map(|s| s.parse().expect("--lpme Q"));
    println!("{trials} seeded trials per row, eps = {eps}, 1000 particles; bound = d log2(1/eps)/(1 - H(p))");
    println!();
    println!("| setting | median questions | p90 | within eps | 95 % radius covers | worst error | bound | ms/question |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in [0.0, 0.1] {
        binary(trials, eps, p);
    }
    if let Some(q) = q {
        for p in [0.0, 0.1] {
            sphere_lpme(q, trials, eps, p);
        }
    }
}
