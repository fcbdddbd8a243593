//! LPME at q = 12 (ε = 0.01, paper strategy, 4 cycles, forward order) in
//! `f64` and, with the `mpfr` feature, `Mpfr<256>`: wall time per run and
//! the ratio, for the README's precision-cost table. Run with
//! `cargo run --release --features mpfr --example lpme_cost [runs]`; for
//! instruction counts run it under `valgrind --tool=callgrind`.

use metric_elicitation::elicit::lpme::{lpme, LpmeSettings};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::oracle::Simulated;
use metric_elicitation::scalar::{dot, Scalar};
use metric_elicitation::search::Strategy;
use nalgebra::DVector;
use std::time::Instant;

fn run<T: Scalar>(runs: usize) -> f64 {
    let q = 12;
    let sphere = Sphere::new(DVector::from_element(q, T::int(0)), T::int(1)).unwrap();
    let truth = DVector::from_fn(q, |i, _| T::from_f64_exact(((i as f64) * 0.7).sin()));
    let norm = truth.norm();
    let truth = truth / norm;
    let settings = LpmeSettings::paper(T::ratio(1, 100), Strategy::Paper, 4);
    let start = Instant::now();
    let mut queries = 0;
    for _ in 0..runs {
        let t = truth.clone();
        let mut oracle = Simulated::new(move |z: &DVector<T>| dot(&t, z));
        queries += lpme(&sphere, &mut oracle, &settings).unwrap().queries;
    }
    let per = start.elapsed().as_secs_f64() / runs as f64;
    println!(
        "{:>9}: {:>9.1} µs per run ({} queries)",
        T::backend_name(),
        per * 1e6,
        queries / runs
    );
    per
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    // `f64` or `mpfr` alone (for instruction counts), both by default.
    let only = args.get(2).map(String::as_str);
    let f64_time = (only != Some("mpfr")).then(|| run::<f64>(runs * 50));
    #[cfg(feature = "mpfr")]
    if only != Some("f64") {
        let mpfr = run::<metric_elicitation::scalar::Mpfr<256>>(runs);
        if let Some(f) = f64_time {
            println!("ratio mpfr:256 / f64: {:.1}", mpfr / f);
        }
    }
    #[cfg(not(feature = "mpfr"))]
    let _ = f64_time;
}
