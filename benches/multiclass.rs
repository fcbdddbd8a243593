//! Multiclass procedures (f64).
//!
//! * `lpme/q12`: the general LPME with q = 12, ε = 0.01, 4 cycles, paper
//!   strategy, on a sphere of radius 1 with a simulated linear oracle
//!   (1420 comparisons per run). Target: under 0.5 ms per run. With the
//!   `mpfr` feature also `lpme/q12/mpfr256`, the same at 256 bits (target:
//!   within 30× of f64; see the README for the measured ratio and where the
//!   time goes).
//! * `dlpm/finite-1e7`: DLPM on a finite labelled population of n = 10^7
//!   rows and k = 4 classes. Preparing a face (one binning pass over the n
//!   rows, O(n), no sort; see `population::expected`) is timed once and
//!   printed, with the face statistics after the runs; the benchmark
//!   measures one RBO query on a prepared face (O(1) at a bin boundary,
//!   otherwise a binary search in δ's bin, whose rows the first query in
//!   it extracts and sorts) and one whole DLPM elicitation on prepared
//!   faces.

use criterion::{criterion_group, criterion_main, Criterion};
use metric_elicitation::elicit::lpme::{lpme, LpmeSettings};
use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::oracle::Simulated;
use metric_elicitation::population::{FiniteMulticlass, MulticlassPopulation};
use metric_elicitation::scalar::{dot, Scalar};
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

/// LPME at q = 12, ε = 0.01, paper strategy, 4 cycles, forward order, on
/// the unit sphere at the origin with a simulated linear oracle, at `T`.
fn lpme_at<T: Scalar>(c: &mut Criterion, name: &str) {
    let q = 12;
    let sphere = Sphere::new(DVector::from_element(q, T::int(0)), T::int(1)).unwrap();
    let truth = DVector::from_fn(q, |i, _| T::from_f64_exact(((i as f64) * 0.7).sin()));
    let norm = truth.norm();
    let truth = truth / norm;
    let settings = LpmeSettings::paper(
        Tolerance::new(T::ratio(1, 100)).unwrap(),
        Strategy::Paper,
        4,
    );
    c.bench_function(name, |b| {
        b.iter(|| {
            let t = truth.clone();
            let mut oracle = Simulated::new(move |z: &DVector<T>| dot(&t, z));
            black_box(lpme(&sphere, &mut oracle, &settings).unwrap().queries)
        })
    });
}

fn lpme_bench(c: &mut Criterion) {
    lpme_at::<f64>(c, "lpme/q12");
    #[cfg(feature = "mpfr")]
    lpme_at::<metric_elicitation::scalar::Mpfr<256>>(c, "lpme/q12/mpfr256");
}

fn dlpm_bench(c: &mut Criterion) {
    let (n, k) = (10_000_000usize, 4usize);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut scores = Vec::with_capacity(n * k);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let y = rng.random_range(0..k);
        for j in 0..k {
            let s: f64 = rng.random_range(0.0..1.0) + if j == y { 0.5 } else { 0.0 };
            scores.push(s);
        }
        labels.push(y);
    }
    let pop = FiniteMulticlass::new(k, scores, labels).unwrap();
    let start = Instant::now();
    for i in 1..k {
        pop.prepare(0, i);
    }
    let prep = start.elapsed();
    eprintln!(
        "dlpm/finite-1e7: preparing {} faces took {:.2?} ({:.2?} per face)",
        k - 1,
        prep,
        prep / (k as u32 - 1)
    );
    c.bench_function("dlpm/finite-1e7/query", |b| {
        let mut m = 0.0;
        b.iter(|| {
            m = (m + 0.618_034) % 1.0;
            black_box(pop.rbo_diagonal(0, 2, &m, &(1.0 - m)).unwrap())
        })
    });
    let truth = DVector::from_vec(vec![0.4, 0.2, 0.3, 0.1]);
    c.bench_function("dlpm/finite-1e7/elicitation", |b| {
        b.iter(|| {
            let t = truth.clone();
            let mut oracle = Simulated::new(move |d: &DVector<f64>| t.dot(d));
            black_box(
                elicit_dlpm(
                    &pop,
                    &mut oracle,
                    &DlpmSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper),
                )
                .unwrap()
                .queries,
            )
        })
    });
    eprintln!("dlpm/finite-1e7: {:?}", pop.stats());
}

criterion_group! {
    name = multiclass;
    config = Criterion::default().sample_size(20);
    targets = lpme_bench, dlpm_bench
}
criterion_main!(multiclass);
