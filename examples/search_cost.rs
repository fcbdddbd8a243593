//! Runs the benchmark search (to 2^-30 on [0, 1], metric −|x − 1/3|
//! evaluated in place) many times in one backend, for instruction counting:
//! `valgrind --tool=callgrind target/release/examples/search_cost f64 paper 2000`
//! (append `plain` for the primitive alone, with the metric −x). With
//! `--features mpfr`, the backend `mpfr256` is available too.

use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::{maximize, Strategy};

/// The primitive alone: metric −x (answers "x < y"), no arithmetic per query.
fn run_plain<T: Scalar>(strategy: Strategy, times: usize) -> usize {
    let eps = T::int(2).powi(-30);
    (0..times)
        .map(|_| {
            maximize(
                T::int(0),
                T::int(1),
                eps.clone(),
                strategy,
                |x: &T, y: &T| Ok(x < y),
            )
            .expect("valid search")
            .queries
        })
        .sum()
}

fn run<T: Scalar>(strategy: Strategy, times: usize) -> usize {
    let peak = T::ratio(1, 3);
    let eps = T::int(2).powi(-30);
    let (mut dx, mut dy) = (T::zero(), T::zero());
    let mut total = 0;
    for _ in 0..times {
        let out = maximize(
            T::int(0),
            T::int(1),
            eps.clone(),
            strategy,
            |x: &T, y: &T| {
                dx.set_difference(x, &peak);
                if dx.is_sign_negative() {
                    dx.neg_assign();
                }
                dy.set_difference(y, &peak);
                if dy.is_sign_negative() {
                    dy.neg_assign();
                }
                Ok(dx < dy)
            },
        )
        .expect("valid search");
        total += out.queries;
    }
    total
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let strategy: Strategy = args
        .get(2)
        .map_or("paper", String::as_str)
        .parse()
        .expect("strategy");
    let times = args.get(3).map_or(2000, |t| t.parse().expect("count"));
    let plain = args.get(4).is_some_and(|m| m == "plain");
    let queries = match (args.get(1).map_or("f64", String::as_str), plain) {
        #[cfg(feature = "mpfr")]
        ("mpfr256", false) => run::<metric_elicitation::scalar::Mpfr<256>>(strategy, times),
        #[cfg(feature = "mpfr")]
        ("mpfr256", true) => run_plain::<metric_elicitation::scalar::Mpfr<256>>(strategy, times),
        (_, false) => run::<f64>(strategy, times),
        (_, true) => run_plain::<f64>(strategy, times),
    };
    println!("{queries} queries");
}
