//! Wall time of the papers' procedures in `f64` and in `Mpfr<256>`, side by
//! side in one process, for the README's precision-cost table: the binary
//! LPM and DLPM on finite samples (the procedure and cheap sums), then
//! whole reproduction tables (their closed-form or quadrature populations
//! built and evaluated at the working precision, every row elicited with
//! the paper's strategy).
//!
//! Run with `cargo run --release --features mpfr --example precision_cost
//! [runs]`; `runs` (default 3) is the number of repetitions at 256 bits;
//! `f64` is repeated 20× as often. Each time printed is the median over
//! the repetitions.

use metric_elicitation::elicit::binary::Alg3Settings;
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use metric_elicitation_lab::reproduce::{binary, multiclass};
use std::time::Instant;

/// One reproduction table at one scalar type: its number of rows.
type Job = fn() -> usize;

fn lpm<T: Scalar>() -> usize {
    binary::table1::<T>(Strategy::Paper)
        .expect("003 Table 1")
        .len()
}

fn lfpm<T: Scalar>() -> usize {
    binary::table2::<T>(Strategy::Paper, Alg3Settings::default())
        .expect("003 Table 2")
        .len()
}

fn dlpm<T: Scalar>() -> usize {
    multiclass::table2::<T>(Strategy::Paper)
        .expect("002 Table 2")
        .len()
}

fn lpm_sphere<T: Scalar>() -> usize {
    multiclass::table3::<T>(Strategy::Paper)
        .expect("002 Table 3")
        .len()
}

/// A finite sample (deterministic scores, n rows) in `T`, converted exactly.
fn finite_scores(n: usize, k: usize) -> (Vec<f64>, Vec<usize>) {
    let mut scores = Vec::with_capacity(n * k);
    let mut labels = Vec::with_capacity(n);
    for r in 0..n {
        let y = (r * 7 + r / 3) % k;
        for j in 0..k {
            let u = (((r * 2_654_435_761 + j * 40_503) % 1_000_003) as f64) / 1_000_003.0;
            scores.push(u + if j == y { 0.5 } else { 0.0 });
        }
        labels.push(y);
    }
    (scores, labels)
}

/// 003 Alg. 1 (LPM, paper strategy, ε = 0.02) on a finite sample of 10⁴
/// scores, eight slopes: the procedure's cost without a closed-form
/// population.
fn lpm_finite<T: Scalar>() -> usize {
    use metric_elicitation::elicit::binary::{elicit_lpm, Monotonicity};
    use metric_elicitation::metric::binary::Lpm;
    use metric_elicitation::oracle::Simulated;
    use metric_elicitation::population::FiniteBinary;
    let (scores, labels) = finite_scores(10_000, 2);
    let pairs = (0..labels.len())
        .map(|r| {
            (
                T::from_f64_exact(scores[2 * r + 1] - scores[2 * r]),
                labels[r] == 1,
            )
        })
        .collect();
    let pop = FiniteBinary::new(pairs).expect("finite sample");
    (1..=8)
        .map(|i| {
            let truth = Lpm::from_angle(&(T::pi() * T::ratio(2 * i - 1, 36))).expect("slope");
            let mut oracle = Simulated::new(truth);
            elicit_lpm(
                &pop,
                &mut oracle,
                &Tolerance::new(T::ratio(1, 50)).unwrap(),
                Strategy::Paper,
                Monotonicity::Increasing,
            )
            .expect("LPM")
            .queries
        })
        .sum()
}

/// 002 Alg. 1 (DLPM, paper strategy, ε = 0.01) on a finite sample of 10⁴
/// rows and 4 classes (faces prepared once), four metrics.
fn dlpm_finite<T: Scalar>() -> usize {
    use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
    use metric_elicitation::oracle::Simulated;
    use metric_elicitation::population::FiniteMulticlass;
    use nalgebra::DVector;
    let (scores, labels) = finite_scores(10_000, 4);
    let scores = scores.into_iter().map(T::from_f64_exact).collect();
    let pop = FiniteMulticlass::new(4, scores, labels).expect("finite sample");
    (0..4)
        .map(|i| {
            let truth = DVector::from_fn(4, |j, _| T::ratio(1 + ((i + j) % 4) as i64, 10));
            let mut oracle = Simulated::new(move |d: &DVector<T>| truth.dot(d));
            elicit_dlpm(
                &pop,
                &mut oracle,
                &DlpmSettings::paper(Tolerance::new(T::ratio(1, 100)).unwrap(), Strategy::Paper),
            )
            .expect("DLPM")
            .queries
        })
        .sum()
}

/// Median wall time of `runs` calls, in seconds.
fn median(job: Job, runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(job());
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    let jobs: [(&str, Job, &str); 6] = [
        (
            "LPM on a finite sample (n = 10⁴, 8 slopes)",
            lpm_finite::<f64>,
            "lpm-finite",
        ),
        (
            "DLPM on a finite sample (n = 10⁴, k = 4, 4 metrics)",
            dlpm_finite::<f64>,
            "dlpm-finite",
        ),
        ("003 Table 1 (LPM, 8 rows)", lpm::<f64>, "lpm"),
        ("003 Table 2 (LFPM, Alg. 3)", lfpm::<f64>, "lfpm"),
        ("002 Table 2 (DLPM, 2 populations)", dlpm::<f64>, "dlpm"),
        (
            "002 Table 3 (LPM on a sphere)",
            lpm_sphere::<f64>,
            "lpm-sphere",
        ),
    ];
    println!("| job | f64 | Mpfr<256> | ratio |");
    println!("|---|---|---|---|");
    for (name, f64_job, key) in jobs {
        let f = median(f64_job, runs * 20);
        #[cfg(feature = "mpfr")]
        {
            use metric_elicitation::scalar::Mpfr;
            let m: Job = match key {
                "lpm-finite" => lpm_finite::<Mpfr<256>>,
                "dlpm-finite" => dlpm_finite::<Mpfr<256>>,
                "lpm" => lpm::<Mpfr<256>>,
                "lfpm" => lfpm::<Mpfr<256>>,
                "dlpm" => dlpm::<Mpfr<256>>,
                _ => lpm_sphere::<Mpfr<256>>,
            };
            let m = median(m, runs);
            println!(
                "| {name} | {:.2} ms | {:.1} ms | {:.0}× |",
                f * 1e3,
                m * 1e3,
                m / f
            );
        }
        #[cfg(not(feature = "mpfr"))]
        {
            let _ = key;
            println!("| {name} | {:.2} ms | (needs --features mpfr) | |", f * 1e3);
        }
    }
}
