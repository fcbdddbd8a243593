//! The Bayesian engine's time per question (issue #28; target ≤ 20 ms at
//! d ≤ 23 on a 2-core machine), f64, default settings (1000 particles), a
//! person erring with p = 0.1 known to the engine, ε = 0.05.
//!
//! * `question/d1`: binary LPM (003 App. A population);
//! * `question/d5`: LPME q = 6 on S_ρ (centre 1/3, ρ = 1/5);
//! * `question/d11`: LPME q = 12 on S_ρ (centre 1/4, ρ = 1/5);
//! * `question/d23`: FPME with m = 3 groups and k = 3 classes (q = 6, D =
//!   24).
//!
//! Each benchmark starts from an engine that has already answered about
//! d·log₂(1/ε)/(1 − H(0.1)) questions (the middle of a typical
//! elicitation, where the answers the likelihood runs over are many and
//! the posterior is narrow) and times the next 10 questions —
//! choosing each question, the answer, the reweighting and the
//! rejuvenations that fall among them — reported per question.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metric_elicitation::elicit::bayes::families::{BinaryLpm, Fpme, SphereLpme};
use metric_elicitation::elicit::bayes::{
    draw_prior, information_bound, AnswerModel, BayesSettings, Engine, Family,
};
use metric_elicitation::geometry::groups::{default_radius, Groups};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::oracle::{Mistakes, Oracle, Simulated};
use metric_elicitation::population::LogisticUniform;
use metric_elicitation::search::Tolerance;
use nalgebra::DVector;
use std::hint::black_box;

const BATCH: usize = 10;

fn settings() -> BayesSettings<f64> {
    BayesSettings::builder(Tolerance::new(0.05).unwrap())
        .answers(AnswerModel::Mistakes { p: 0.1 })
        .seed(1)
        .build()
        .expect("valid settings")
}

/// Answers with the exact preference of ⟨θ, f⟩, flipped with p = 0.1.
fn bench_family<F: Family<f64>>(c: &mut Criterion, name: &str, family: &F) {
    let theta = draw_prior::<f64, _>(family, 7).expect("a prior draw");
    let d = family.dim();
    let t = theta.clone();
    let fam = family;
    let value = move |x: &F::Point| {
        let mut f = vec![0.0; d];
        fam.features(x, &mut f);
        t.iter().zip(&f).map(|(a, b)| a * b).sum::<f64>()
    };
    let mut person = Mistakes::new(Simulated::new(value), 0.1, 3).expect("p in [0, 1]");
    let mut engine = Engine::new(family, settings()).expect("valid family");
    let warm = information_bound(family.free(), &0.05, &0.1)
        .expect("valid bound arguments")
        .round() as usize;
    for _ in 0..warm {
        let q = engine.next_question().expect("a question");
        let a = person.compare(&q.first, &q.second).expect("an answer");
        engine.observe(&q, a.preference);
    }
    let mut group = c.benchmark_group("question");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.sample_size(10);
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut e = engine.clone();
            let mut p = person.clone();
            for _ in 0..BATCH {
                let q = e.next_question().expect("a question");
                let a = p.compare(&q.first, &q.second).expect("an answer");
                e.observe(&q, a.preference);
            }
            black_box(e.questions())
        })
    });
    group.finish();
}

fn questions(c: &mut Criterion) {
    bench_family(
        c,
        "d1",
        &BinaryLpm::new(LogisticUniform::new(5.0).expect("a > 0")),
    );
    for (name, k) in [("d5", 3usize), ("d11", 4)] {
        let q = k * k - k;
        let sphere = Sphere::new(
            DVector::from_element(q, 1.0 / k as f64),
            default_radius::<f64>(k),
        )
        .expect("a sphere");
        bench_family(c, name, &SphereLpme::new(sphere));
    }
    let groups = Groups::new(
        3,
        vec![
            vec![0.2, 0.5, 0.3],
            vec![0.3, 0.2, 0.4],
            vec![0.5, 0.3, 0.3],
        ],
        None,
    )
    .expect("valid groups");
    bench_family(c, "d23", &Fpme::new(groups));
}

criterion_group!(benches, questions);
criterion_main!(benches);
