//! The search primitive's cost per query, f64 against `Mpfr<256>`.
//!
//! `search/*`: each benchmark runs one whole search on [0, 1] to ε = 2⁻³⁰ (30 halvings;
//! 120 queries with `paper`) against an exact oracle for the concave metric
//! −|x − 1/3|, evaluated in place (one subtraction, one sign flip), so the
//! time is mostly the primitive's own overhead. `primitive/*`: the same
//! searches with the metric −x (no arithmetic per answer): the primitive
//! alone. Throughput is reported per query.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::{maximize, Strategy};
use std::hint::black_box;

/// |x − p| into `out`, in place (no allocation in either backend).
fn distance<T: Scalar>(out: &mut T, x: &T, p: &T) {
    out.set_difference(x, p);
    if out.is_sign_negative() {
        out.neg_assign();
    }
}

fn run<T: Scalar>(strategy: Strategy) -> usize {
    let peak = T::ratio(1, 3);
    let eps = T::int(2).powi(-30);
    let (mut dx, mut dy) = (T::zero(), T::zero());
    let out = maximize(T::int(0), T::int(1), eps, strategy, |x: &T, y: &T| {
        distance(&mut dx, x, &peak);
        distance(&mut dy, y, &peak);
        Ok(dx < dy)
    })
    .expect("valid search");
    out.queries
}

/// The primitive alone: metric −x (each answer is one comparison of the
/// two points, no arithmetic), so only the search's own work is timed.
fn run_plain<T: Scalar>(strategy: Strategy) -> usize {
    let eps = T::int(2).powi(-30);
    maximize(
        T::int(0),
        T::int(1),
        eps,
        strategy,
        |x: &T, y: &T| Ok(x < y),
    )
    .expect("valid search")
    .queries
}

fn bench_backend<T: Scalar>(c: &mut Criterion, name: &str) {
    let mut group = c.benchmark_group(format!("search/{name}"));
    for strategy in Strategy::ALL {
        let queries = run::<T>(strategy);
        group.throughput(Throughput::Elements(queries as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(strategy.name()),
            &strategy,
            |b, s| b.iter(|| black_box(run::<T>(*s))),
        );
    }
    group.finish();
    let mut group = c.benchmark_group(format!("primitive/{name}"));
    for strategy in Strategy::ALL {
        group.throughput(Throughput::Elements(run_plain::<T>(strategy) as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(strategy.name()),
            &strategy,
            |b, s| b.iter(|| black_box(run_plain::<T>(*s))),
        );
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_backend::<f64>(c, "f64");
    #[cfg(feature = "mpfr")]
    bench_backend::<metric_elicitation::scalar::Mpfr<256>>(c, "mpfr256");
}

criterion_group!(search, benches);
criterion_main!(search);
