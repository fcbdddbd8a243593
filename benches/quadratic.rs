//! 000 procedures (f64), in the public reference implementation's own
//! configurations (notes/peers.md):
//!
//! * `qpme/q20-fit` and `qpme/q20-paper`: QPME at q = 20 (general rates of
//!   k = 5) on a radius-1 sphere at the origin, ε = 0.01, the paper's
//!   4-query halving, 4 cycles, ϱ = 5·10⁻³: 53 944 comparisons per run, as
//!   the reference's 2.34 s per trial on this machine. Target: under 10 ms.
//!   The two estimators share the LPMEs; `qpme/q20-fit-only` times the
//!   joint fit alone.
//! * `fair/m3-k3`: fair QPME with m = 3 groups, k = 3 classes in general
//!   rates (q = 6), same searches: 16 150 comparisons, as the reference's
//!   1.07 s. Target: under 5 ms.
//! * `…-no-memo`: the same without [`Memo`] in front of the simulated
//!   metric, like for like with the reference (which evaluates its metric
//!   at every point it asks about; about 3.6 times as many evaluations).

use criterion::{criterion_group, criterion_main, Criterion};
use metric_elicitation::elicit::fair_qpme::{fair_qpme, FairSettings};
use metric_elicitation::elicit::lpme::LpmeSettings;
use metric_elicitation::elicit::qpme::{
    observe, qpme, reconstruct, Design, Estimator, ExactProbe, QpmeSettings,
};
use metric_elicitation::geometry::groups::Rates;
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::random::{random_fair, random_groups, random_quadratic, Shape};
use metric_elicitation::oracle::{Memo, Simulated};
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use nalgebra::DVector;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn qpme_bench(c: &mut Criterion) {
    let q = 20;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let metric = random_quadratic::<f64>(&mut rng, q, Shape::Reference).unwrap();
    let sphere = Sphere::new(DVector::from_element(q, 0.0), 1.0).unwrap();
    for estimator in [Estimator::Fit, Estimator::Paper] {
        let settings = QpmeSettings {
            lpme: LpmeSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper, 4),
            small_radius: 5e-3,
            estimator,
            window: None,
        };
        c.bench_function(&format!("qpme/q20-{}", estimator.name()), |b| {
            b.iter(|| {
                let m = metric.clone();
                let mut oracle = Simulated::new(Memo::new(move |r: &DVector<f64>| m.value(r)));
                // The closed form may refuse a small divisor; the searches
                // (the cost) run either way.
                black_box(
                    qpme(&sphere, &mut oracle, &settings)
                        .map(|e| e.queries)
                        .ok(),
                )
            })
        });
        // Like for like with the reference, which evaluates its metric at
        // every point asked: no memo.
        c.bench_function(&format!("qpme/q20-{}-no-memo", estimator.name()), |b| {
            b.iter(|| {
                let m = metric.clone();
                let mut oracle = Simulated::new(move |r: &DVector<f64>| m.value(r));
                black_box(
                    qpme(&sphere, &mut oracle, &settings)
                        .map(|e| e.queries)
                        .ok(),
                )
            })
        });
    }
    let design = Design::new(sphere.clone(), 5e-3).unwrap();
    let (obs, warnings) = observe(&design, &mut ExactProbe::new(&metric), Estimator::Fit).unwrap();
    c.bench_function("qpme/q20-fit-only", |b| {
        b.iter(|| {
            black_box(
                reconstruct(
                    &design,
                    obs.clone(),
                    warnings.clone(),
                    Estimator::Fit,
                    &1e-8,
                )
                .unwrap()
                .gap,
            )
        })
    });
}

fn fair_bench(c: &mut Criterion) {
    let (m, k) = (3, 3);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let groups = random_groups::<f64>(&mut rng, k, m, Rates::General, Some(1.0 / 3.0)).unwrap();
    let metric = random_fair::<f64>(&mut rng, groups.dim(), m, Rates::General).unwrap();
    let settings = FairSettings {
        qpme: QpmeSettings {
            lpme: LpmeSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper, 4),
            small_radius: 5e-3,
            estimator: Estimator::Fit,
            window: None,
        },
        origin_from_a: false,
    };
    c.bench_function("fair/m3-k3", |b| {
        b.iter(|| {
            let mut oracle = Simulated::new(Memo::new(metric.bind(&groups).unwrap()));
            black_box(fair_qpme(&groups, &mut oracle, &settings).unwrap().queries)
        })
    });
    let bound = metric.bind(&groups).unwrap();
    c.bench_function("fair/m3-k3-no-memo", |b| {
        b.iter(|| {
            let mut oracle = Simulated::new(bound.clone());
            black_box(fair_qpme(&groups, &mut oracle, &settings).unwrap().queries)
        })
    });
}

criterion_group!(benches, qpme_bench, fair_bench);
criterion_main!(benches);
