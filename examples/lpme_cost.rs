//! LPME at q = 12 (ε = 0.01, paper strategy, 4 cycles, forward order) in
//! `f64` and, with the `mpfr` feature, `Mpfr<256>`: wall time per run and
//! the ratio, for the README's precision-cost table. Run with
//! `cargo run --release --features mpfr --example lpme_cost [rounds]`
//! (each round: 50 `f64` runs, one plain and one memo 256-bit run; the
//! ratio reported is the median of the rounds' ratios, so both precisions
//! are timed under the same load of this shared machine); for instruction
//! counts run it under `valgrind --tool=callgrind` with a second argument
//! `f64`, `mpfr` or `mpfr-memo` (that configuration only).
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
use metric_elicitation::search::Tolerance;
use nalgebra::DVector;
use std::time::Instant;

/// `runs` LPME runs with fresh oracles from `oracle`: seconds per run and
/// comparisons per run.
fn time<T: Scalar, O: Oracle<DVector<T>>>(
    runs: usize,
    oracle: &impl Fn(DVector<T>) -> O,
) -> (f64, usize) {
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
    let start = Instant::now();
    let mut queries = 0;
    for _ in 0..runs {
        let mut o = oracle(truth.clone());
        queries += lpme(&sphere, &mut o, &settings).unwrap().queries;
    }
    (start.elapsed().as_secs_f64() / runs as f64, queries / runs)
}

fn plain<T: Scalar>(t: DVector<T>) -> impl Oracle<DVector<T>> {
    Simulated::new(move |z: &DVector<T>| dot(&t, z))
}

/// Median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// One configuration's per-run times, one per round.
struct Series {
    name: &'static str,
    times: Vec<f64>,
    queries: usize,
}

impl Series {
    fn new(name: &'static str) -> Self {
        Series {
            name,
            times: Vec::new(),
            queries: 0,
        }
    }

    fn push(&mut self, (t, queries): (f64, usize)) {
        self.times.push(t);
        self.queries = queries;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    // `f64`, `mpfr` or `mpfr-memo` alone (for instruction counts); all by
    // default.
    let only = args.get(2).map(String::as_str);
    let want = |name: &str| only.is_none() || only == Some(name);
    let mut series = vec![Series::new("f64")];
    #[cfg(feature = "mpfr")]
    series.extend([Series::new("mpfr:256"), Series::new("mpfr:256 memo")]);
    // Rounds alternate the configurations (50 f64 runs, then one of each
    // 256-bit configuration, each taking about as long), so that a slower
    // or faster spell of this shared machine falls on all of them; each
    // round gives one ratio, and the report is their median.
    for _ in 0..rounds {
        if want("f64") {
            series[0].push(time::<f64, _>(50, &plain));
        }
        #[cfg(feature = "mpfr")]
        {
            type M = metric_elicitation::scalar::Mpfr<256>;
            if want("mpfr") {
                series[1].push(time::<M, _>(1, &plain));
            }
            if want("mpfr-memo") {
                series[2].push(time::<M, _>(1, &|t: DVector<M>| {
                    Simulated::new(metric_elicitation::oracle::Memo::new(
                        move |z: &DVector<M>| dot(&t, z),
                    ))
                }));
            }
        }
    }
    for s in &series {
        if !s.times.is_empty() {
            println!(
                "{:>14}: {:>9.1} µs per run, median of {} rounds ({} queries)",
                s.name,
                median(&mut s.times.clone()) * 1e6,
                s.times.len(),
                s.queries
            );
        }
    }
    let f64_times = &series[0].times;
    for s in &series[1..] {
        if !s.times.is_empty() && s.times.len() == f64_times.len() {
            let mut ratios: Vec<f64> = s.times.iter().zip(f64_times).map(|(t, f)| t / f).collect();
            let median_ratio = median(&mut ratios);
            println!(
                "ratio {} / f64: {:.1} (median of per-round ratios; quartiles {:.1}-{:.1})",
                s.name,
                median_ratio,
                ratios[ratios.len() / 4],
                ratios[(3 * ratios.len()) / 4],
            );
        }
    }
}
