//! The 004 §5 population at n = 10⁷ (f64), beside the paper's public code
//! measured on this machine (`shared/notes/peers.md`: its DLPM k = 4 takes
//! 74.2 s end to end, 70.6 s of elicitation, 1.7 GB; its cost/reward run,
//! k = 2 with two attributes, 50.4 s, 47.0 s of elicitation, 1.4 GB).
//!
//! * `004/generate-1e7-k4`: generating the population (x ~ N(0, I₁₀) drawn
//!   and discarded, η = softmax(Wx) stored), in parallel;
//! * `004/prepare-face-1e7`: one face's binning pass;
//! * `004/dlpm-elicit-1e7-k4/{paper,golden}`: DLPM at ε = 10⁻³ on prepared
//!   faces (the elicitation phase alone; golden's bin extractions are done
//!   by the first iteration and reused, so the first, cold run is printed);
//! * `004/cost-reward-elicit-1e7/{paper,golden}`: Table 1 row 1 on a
//!   prepared face;
//! * `004/dlpm-end-to-end-1e7-k4` and `004/cost-reward-end-to-end-1e7`:
//!   generation, preparation and elicitation, each iteration from scratch.
//!
//! Targets: DLPM end to end under 0.75 s, its elicitation phase at least
//! 1000× faster than the peer's 70.6 s (under 70 ms), the cost/reward run
//! end to end under 0.5 s.

use criterion::{criterion_group, criterion_main, Criterion};
use metric_elicitation::elicit::cost_reward::{elicit_cost_reward, CostRewardSettings};
use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
use metric_elicitation::oracle::Simulated;
use metric_elicitation::population::ExpectedMulticlass;
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use metric_elicitation_lab::reproduce::cost_reward::{
    attributes, metric, time_cost_reward, time_dlpm, TABLE1,
};
use nalgebra::DVector;
use std::hint::black_box;
use std::time::Duration;

const N: usize = 10_000_000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("004");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("generate-1e7-k4", |b| {
        b.iter(|| {
            black_box(
                ExpectedMulticlass::<f64>::synthetic_004(4, N, 1)
                    .unwrap()
                    .rows(),
            )
        })
    });
    group.bench_function("prepare-face-1e7", |b| {
        b.iter_with_setup(
            || ExpectedMulticlass::<f64>::synthetic_004(2, N, 1).unwrap(),
            |pop| {
                pop.prepare(0, 1).unwrap();
                black_box(pop.rows())
            },
        )
    });
    let pop4 = ExpectedMulticlass::<f64>::synthetic_004(4, N, 1).unwrap();
    for i in 1..4 {
        pop4.prepare(0, i).unwrap();
    }
    let truth = DVector::from_vec(vec![0.1, 0.2, 0.3, 0.4]);
    for strategy in [Strategy::Paper, Strategy::Golden] {
        let cold = std::time::Instant::now();
        let t = truth.clone();
        let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
        elicit_dlpm(
            &pop4,
            &mut oracle,
            &DlpmSettings::paper(Tolerance::new(1e-3).unwrap(), strategy),
        )
        .unwrap();
        println!(
            "004/dlpm-elicit-1e7-k4/{}: first (cold) run {:.3e} s",
            strategy.name(),
            cold.elapsed().as_secs_f64()
        );
        group.bench_function(format!("dlpm-elicit-1e7-k4/{}", strategy.name()), |b| {
            b.iter(|| {
                let t = truth.clone();
                let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
                black_box(
                    elicit_dlpm(
                        &pop4,
                        &mut oracle,
                        &DlpmSettings::paper(Tolerance::new(1e-3).unwrap(), strategy),
                    )
                    .unwrap()
                    .queries,
                )
            })
        });
    }
    drop(pop4);
    let (k, attrs, parts, ..) = TABLE1[0];
    let pop2 = ExpectedMulticlass::<f64>::synthetic_004(k, N, 1).unwrap();
    pop2.prepare(0, 1).unwrap();
    let attrs = attributes::<f64>(attrs).unwrap();
    let psi = metric::<f64>(k, parts).unwrap();
    for strategy in [Strategy::Paper, Strategy::Golden] {
        group.bench_function(format!("cost-reward-elicit-1e7/{}", strategy.name()), |b| {
            b.iter(|| {
                let mut oracle = Simulated::new(psi.clone());
                let settings = CostRewardSettings::paper(Tolerance::new(1e-3).unwrap(), strategy);
                black_box(
                    elicit_cost_reward(&pop2, &attrs, &mut oracle, &settings)
                        .unwrap()
                        .queries(),
                )
            })
        });
    }
    drop(pop2);
    group.bench_function("dlpm-end-to-end-1e7-k4", |b| {
        b.iter(|| black_box(time_dlpm(N, 4, 1, Strategy::Paper).unwrap().queries))
    });
    group.bench_function("cost-reward-end-to-end-1e7", |b| {
        b.iter(|| black_box(time_cost_reward(N, 1, Strategy::Paper).unwrap().queries))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
