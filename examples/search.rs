//! The numeric core end to end: find the maximizer of a concave metric from
//! pairwise comparisons, with every search strategy, against an exact oracle
//! and against ε_Ω-noisy oracles driven by each adversary; then (with
//! `--features mpfr`) the same search at 256 bits to ε = 1e-40.
//!
//! ```text
//! cargo run --release --example search
//! cargo run --release --features mpfr --example search
//! ```

use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, Oracle, PushAway, SeededRandom, Simulated,
};
use metric_elicitation::search::{lower_bound, maximize, Strategy};
use metric_elicitation::Result;

fn main() -> Result<()> {
    let peak = 0.3;
    let metric = move |x: &f64| -(x - peak).abs();
    let eps = 1e-6;
    println!("maximize -|x - {peak}| on [0, 1] to eps = {eps:e}");
    println!(
        "lower bound log2(L/eps) = {:.1} comparisons\n",
        lower_bound(&1.0, &eps)?
    );
    println!(
        "{:<9} {:<13} {:>8} {:>14}",
        "strategy", "oracle", "queries", "|x* - x^|"
    );
    for strategy in Strategy::ALL {
        let mut oracle = Counted::new(Simulated::new(metric));
        let out = maximize(0.0, 1.0, eps, strategy, |x, y| {
            Ok(oracle.compare(x, y)?.preference)
        })?;
        println!(
            "{:<9} {:<13} {:>8} {:>14.3e}",
            strategy.name(),
            "exact",
            oracle.queries(),
            (out.estimate - peak).abs()
        );
        let eps_omega = 1e-3;
        let adversaries: Vec<(&str, Box<dyn Adversary<f64>>)> = vec![
            ("always-wrong", Box::new(AlwaysWrong)),
            ("random", Box::new(SeededRandom::new(7))),
            (
                "push-away",
                Box::new(PushAway::new(move |x: &f64| (x - peak).abs())),
            ),
        ];
        for (name, adversary) in adversaries {
            let mut oracle = Counted::new(Noisy::new(metric, eps_omega, adversary)?);
            let out = maximize(0.0, 1.0, eps, strategy, |x, y| {
                Ok(oracle.compare(x, y)?.preference)
            })?;
            println!(
                "{:<9} {:<13} {:>8} {:>14.3e}   ({} of the answers in the eps_Omega = {eps_omega:e} band)",
                "",
                name,
                oracle.queries(),
                (out.estimate - peak).abs(),
                oracle.in_band_queries()
            );
        }
    }
    high_precision()
}

#[cfg(feature = "mpfr")]
fn high_precision() -> Result<()> {
    use metric_elicitation::prelude::*;
    use metric_elicitation::scalar::Mpfr;
    type M = Mpfr<256>;
    let peak = M::ratio(1, 3);
    let eps = M::decode("1e-40")?;
    let mut oracle = Counted::new(Simulated::new(|x: &M| -(x.clone() - peak.clone()).abs()));
    let out = maximize(M::int(0), M::int(1), eps, Strategy::Paper, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })?;
    println!(
        "\nmpfr:256, paper, eps = 1e-40: {} queries, stop {:?}, |x* - x^| = {:.3e}",
        out.queries,
        out.stop,
        (out.estimate - M::ratio(1, 3)).abs().to_f64_lossy()
    );
    let mut oracle = Counted::new(Simulated::new(|x: &f64| -(x - 1.0 / 3.0).abs()));
    let out = maximize(0.0, 1.0, 1e-40, Strategy::Paper, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })?;
    println!(
        "f64,      paper, eps = 1e-40: {} queries, stop {:?} (interval width {:.3e})",
        out.queries,
        out.stop,
        out.hi - out.lo
    );
    Ok(())
}

#[cfg(not(feature = "mpfr"))]
fn high_precision() -> Result<()> {
    println!("\n(build with --features mpfr for the 256-bit run)");
    Ok(())
}
