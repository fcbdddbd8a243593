//! Fair metric elicitation (001, f64).
//!
//! * `fpme/m3-k3-paper`: one FPME run (001 Alg. 1 with Alg. 4) at
//!   (m, k) = (3, 3), ε = 0.01, the paper's strategy (4 queries per halving,
//!   4 forward cycles, two-coordinate δ, Alg. 4 with group 1), with a
//!   simulated oracle behind the counting wrapper: 4550 comparisons per
//!   run. Target: under 1 ms per run. The public reference's fair (quadratic)
//!   procedure needs 1.07 s per trial for about 16 000 comparisons on this
//!   machine, 40–66 µs per comparison (`notes/peers.md`).
//! * `fpme/m3-k3-efficient`: the default setting (golden section, one
//!   reverse cycle, least-squares δ, closed-form λ) at the same accuracy.

use criterion::{criterion_group, criterion_main, Criterion};
use metric_elicitation::elicit::fpme::{fpme, paper_query_count, FpmeSettings};
use metric_elicitation::geometry::groups::Groups;
use metric_elicitation::metric::fair::FairMetric;
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::search::Tolerance;
use rand::SeedableRng;
use std::hint::black_box;

fn fpme_bench(c: &mut Criterion) {
    let (m, k) = (3, 3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let groups = Groups::<f64>::sample(m, k, None, &mut rng).unwrap();
    let psi = FairMetric::<f64>::sample(m, k, &mut rng);
    let bound = psi.bind(&groups).unwrap();
    let run = |settings: &FpmeSettings<f64>| {
        let mut oracle = Counted::new(Simulated::new(bound.clone()));
        let est = fpme(&groups, &mut oracle, settings).unwrap();
        (oracle.queries(), est)
    };
    let paper = FpmeSettings::paper(Tolerance::new(1e-2).unwrap());
    let (queries, _) = run(&paper);
    assert_eq!(queries, paper_query_count(m, k, 4, &1e-2, true).unwrap());
    println!("fpme/m3-k3-paper: {queries} comparisons per run");
    c.bench_function("fpme/m3-k3-paper", |b| b.iter(|| black_box(run(&paper).0)));
    let efficient = FpmeSettings::efficient(Tolerance::new(1e-2).unwrap());
    let (queries, _) = run(&efficient);
    println!("fpme/m3-k3-efficient (searches to eps/4): {queries} comparisons per run");
    c.bench_function("fpme/m3-k3-efficient", |b| {
        b.iter(|| black_box(run(&efficient).0))
    });
}

criterion_group!(benches, fpme_bench);
criterion_main!(benches);
