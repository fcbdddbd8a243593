//! Checks driven by the cargo-fuzz targets in `fuzz/`, kept in the library so
//! that `tests/suite/fuzz_regressions.rs` replays every saved crash input through
//! exactly the same code.
//!
//! Each function decodes fuzzer bytes with `arbitrary`, runs a procedure
//! against an adversarial oracle whose in-band answers come from those
//! bytes, and returns `Err(message)` when a guarantee is violated (the fuzz
//! target turns that into a crash). Bad input is never a violation: it must
//! come back as a typed error, which these checks accept.

pub mod fair;

pub use fair::fpme_noisy;
/// The Bayesian engine driven by fuzzer-chosen answers (the `bayes`
/// target); the check lives beside the engine, in the library.
pub use metric_elicitation::elicit::bayes::check::answers as bayes_answers;
pub mod cost_reward;
pub mod quadratic;

use arbitrary::{Arbitrary, Unstructured};
use metric_elicitation::error::Error;
use metric_elicitation::oracle::{Noisy, Oracle, Scripted};
use metric_elicitation::search::{maximize, Stop, Strategy};

/// The multiple c of ε_Ω within which a noisy search's estimate is
/// guaranteed (observed; see `tests/suite/search_properties.rs`) to come for
/// concave functions with power flanks of exponent p ≤ 4.
pub fn noise_multiple(strategy: Strategy) -> f64 {
    match strategy {
        Strategy::Golden => 6.0,
        // Bisection is not among `Strategy::ALL`: these cases are unimodal,
        // not symmetric, so it is not fuzzed here.
        Strategy::Paper | Strategy::Adaptive | Strategy::Bisection => 4.5,
    }
}

/// One fuzz case for the noisy search: a concave function
/// −(s·|x − x*|)^p on [0, 1], ε, ε_Ω, and the adversary's script.
#[derive(Debug, Clone, Arbitrary)]
pub struct SearchCase {
    strategy: u8,
    peak: u16,
    left: u8,
    right: u8,
    power: u8,
    eps: u8,
    eps_omega: u8,
    script: Vec<u8>,
}

impl SearchCase {
    fn strategy(&self) -> Strategy {
        Strategy::ALL[usize::from(self.strategy % 3)]
    }
    fn peak(&self) -> f64 {
        f64::from(self.peak) / f64::from(u16::MAX)
    }
    fn slope(byte: u8) -> f64 {
        10f64.powf(f64::from(byte) / 255.0 * 4.0 - 2.0) // [1e-2, 1e2]
    }
    fn power(&self) -> f64 {
        1.0 + 3.0 * f64::from(self.power) / 255.0 // [1, 4]
    }
    fn eps(&self) -> f64 {
        10f64.powf(-1.0 - 5.0 * f64::from(self.eps) / 255.0) // [1e-6, 1e-1]
    }
    fn eps_omega(&self) -> f64 {
        10f64.powf(-1.0 - 6.0 * f64::from(self.eps_omega) / 255.0) // [1e-7, 1e-1]
    }
    fn metric(&self) -> impl Fn(&f64) -> f64 {
        let (peak, l, r, p) = (
            self.peak(),
            Self::slope(self.left),
            Self::slope(self.right),
            self.power(),
        );
        move |x: &f64| {
            let t = if *x < peak {
                l * (peak - x)
            } else {
                r * (x - peak)
            };
            -t.powf(p)
        }
    }
}

/// Noisy search with fuzzer-chosen in-band answers: no panic; when the script
/// lasts, the estimate is within ε of {f ≥ max f − c·ε_Ω}
/// ([`noise_multiple`]); when it runs out, the error is
/// [`Error::ScriptExhausted`] inside [`Error::Interrupted`].
///
/// # Errors
/// A message describing the violated guarantee.
pub fn search_noisy(data: &[u8]) -> Result<(), String> {
    let Ok(case) = SearchCase::arbitrary(&mut Unstructured::new(data)) else {
        return Ok(());
    };
    let metric = case.metric();
    let (eps, eps_omega, strategy) = (case.eps(), case.eps_omega(), case.strategy());
    let mut oracle = Noisy::new(&metric, eps_omega, Scripted::new(case.script.clone()))
        .map_err(|e| format!("valid noise rejected: {e}"))?;
    let result = maximize(0.0, 1.0, eps, strategy, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    });
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            return match e.root_cause() {
                Error::ScriptExhausted { .. } => Ok(()),
                _ => Err(format!("unexpected error: {e}")),
            }
        }
    };
    if out.stop != Stop::Converged || out.hi - out.lo > eps {
        return Err(format!("did not converge: {out:?}"));
    }
    let near = case.peak().clamp(out.estimate - eps, out.estimate + eps);
    let loss = -metric(&near);
    let bound = noise_multiple(strategy) * eps_omega;
    if loss > bound {
        return Err(format!(
            "{case:?}: loss {loss:e} exceeds {}·ε_Ω = {bound:e}",
            noise_multiple(strategy)
        ));
    }
    Ok(())
}

/// Differential check, f64 against `Mpfr<256>`: the same search driven by
/// the same fuzzer-chosen answer sequence must end in the same interval, up
/// to f64 rounding of the interior points (exactly, for the dyadic halving
/// strategies on [0, 1]).
///
/// # Errors
/// A message describing the disagreement.
#[cfg(feature = "mpfr")]
pub fn search_diff_f64_mpfr(data: &[u8]) -> Result<(), String> {
    use metric_elicitation::oracle::{Adversary, Preference};
    use metric_elicitation::scalar::{Backend, Mpfr, Scalar};
    type M = Mpfr<256>;
    let Ok((strategy, eps_byte, script)) =
        <(u8, u8, Vec<u8>)>::arbitrary(&mut Unstructured::new(data))
    else {
        return Ok(());
    };
    let strategy = Strategy::ALL[usize::from(strategy % 3)];
    let eps_bits = 1 + i32::from(eps_byte % 40);
    let eps = 2f64.powi(-eps_bits) * 1.25;
    let script: Vec<u8> = if script.is_empty() { vec![0] } else { script };
    let long = script.repeat(1 + 256 / script.len());
    let mut a = Scripted::new(long.clone());
    let mut b = Scripted::new(long);
    let f = maximize(0.0, 1.0, eps, strategy, |x: &f64, y: &f64| {
        Adversary::<f64>::answer(&mut a, x, y, Preference::First)
    })
    .map_err(|e| format!("f64 failed: {e}"))?;
    let m = maximize(
        M::int(0),
        M::int(1),
        M::from_f64_exact(eps),
        strategy,
        |x: &M, y: &M| Adversary::<M>::answer(&mut b, x, y, Preference::First),
    )
    .map_err(|e| format!("mpfr failed: {e}"))?;
    if f.queries != m.queries {
        return Err(format!(
            "query counts differ: f64 {} vs mpfr {}",
            f.queries, m.queries
        ));
    }
    let tol = match strategy {
        Strategy::Golden => 1e-12,
        _ => 0.0,
    };
    for (x, y) in [(f.lo, &m.lo), (f.hi, &m.hi)] {
        if (x - y.to_f64_lossy()).abs() > tol {
            return Err(format!(
                "{strategy:?}: f64 end {x:e} vs mpfr {}",
                y.encode()
            ));
        }
    }
    Ok(())
}
