//! LPME at q = 12 (ε = 0.01, paper strategy, 4 cycles, forward order) in
//! `f64` and, with the `mpfr` feature, `Mpfr<256>`: wall time per run and
//! the ratio, for the README's precision-cost table. Run with
//! `cargo run --release --features mpfr --example lpme_cost [runs]`; for
//! instruction counts run it under `valgrind --tool=callgrind` with a
//! second argument `f64`, `mpfr` or `mpfr-memo` (that run only).
//!
//! Two oracles are timed. `plain` evaluates the simulated linear metric
//! (a 12-term dot product) for both points of every comparison, in both
//! precisions. `memo` puts `oracle::Memo` in front of it at 256 bits, as its
//! documentation advises for a metric that costs more than a comparison
//! of entries: at 256 bits a 12-term dot product costs about 430 ns, a
//! remembered value one comparison of up to 12 entries, while in `f64` the
//! dot product costs about 3 ns and the memo would double the run. The
//! ratio of the library's best configuration in each precision is
//! `mpfr-memo / f64`.

use metric_elicitation::elicit::lpme::{lpme, LpmeSettings};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::oracle::{Oracle, Simulated};
use metric_elicitation::scalar::{dot, Scalar};
use metric_elicitation::search::Strategy;
use nalgebra::DVector;
use std::time::Instant;

fn time<T: Scalar, O: Oracle<DVector<T>>>(
    name: &str,
    runs: usize,
    mut oracle: impl FnMut(DVector<T>) -> O,
) -> f64 {
    let q = 12;
    let sphere = Sphere::new(DVector::from_element(q, T::int(0)), T::int(1)).unwrap();
    let truth = DVector::from_fn(q, |i, _| T::from_f64_exact(((i as f64) * 0.7).sin()));
    let norm = truth.norm();
    let truth = truth / norm;
    let settings = LpmeSettings::paper(T::ratio(1, 100), Strategy::Paper, 4);
    let start = Instant::now();
    let mut queries = 0;
    for _ in 0..runs {
        let mut o = oracle(truth.clone());
        queries += lpme(&sphere, &mut o, &settings).unwrap().queries;
    }
    let per = start.elapsed().as_secs_f64() / runs as f64;
    println!(
        "{:>14}: {:>9.1} µs per run ({} queries)",
        name,
        per * 1e6,
        queries / runs
    );
    per
}

fn plain<T: Scalar>(t: DVector<T>) -> impl Oracle<DVector<T>> {
    Simulated::new(move |z: &DVector<T>| dot(&t, z))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    // `f64`, `mpfr` or `mpfr-memo` alone (for instruction counts); all by
    // default.
    let only = args.get(2).map(String::as_str);
    let want = |name: &str| only.is_none() || only == Some(name);
    let f64_time = want("f64").then(|| time::<f64, _>("f64", runs * 50, plain));
    #[cfg(feature = "mpfr")]
    {
        type M = metric_elicitation::scalar::Mpfr<256>;
        let mpfr = want("mpfr").then(|| time::<M, _>("mpfr:256", runs, plain));
        let memo = want("mpfr-memo").then(|| {
            time::<M, _>("mpfr:256 memo", runs, |t| {
                Simulated::new(metric_elicitation::oracle::Memo::new(
                    move |z: &DVector<M>| dot(&t, z),
                ))
            })
        });
        if let Some(f) = f64_time {
            for (name, t) in [("mpfr:256", mpfr), ("mpfr:256 memo", memo)] {
                if let Some(t) = t {
                    println!("ratio {name} / f64: {:.1}", t / f);
                }
            }
        }
    }
    #[cfg(not(feature = "mpfr"))]
    let _ = f64_time;
}
