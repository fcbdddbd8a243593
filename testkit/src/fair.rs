//! The check of the `fpme` fuzz target: FPME (001 Alg. 1) against a noisy
//! oracle whose answers inside the ε_Ω band come from the fuzzer's bytes,
//! on a random fair metric.

use metric_elicitation::diagnostics::Cause;
use metric_elicitation::elicit::fpme::theorem1_bound;
use metric_elicitation::elicit::fpme::{
    errors, fpme, paper_query_count, DeltaRule, Fpme, FpmeSettings, LambdaRule,
};
use metric_elicitation::elicit::lpme::AngleOrder;
use metric_elicitation::elicit::Elicitation;
use metric_elicitation::error::Error;
use metric_elicitation::geometry::groups::Groups;
use metric_elicitation::metric::fair::FairMetric;
use metric_elicitation::oracle::{Counted, Noisy, Scripted};
use metric_elicitation::search::{Strategy, Tolerance};
use rand::SeedableRng;

/// One fuzz case: the shape (m ∈ 2..=4, k ∈ 2..=3), the seed of τ and Ψ,
/// the settings, ε ∈ [10⁻³, 10⁻¹], ε_Ω (0, or [10⁻⁶, 10⁻²]) and the
/// in-band answers: a 13-byte header, then every remaining byte is script
/// (8 answers each).
#[derive(Debug, Clone)]
pub struct FpmeCase {
    m: u8,
    k: u8,
    seed: u64,
    setting: u8,
    eps: u8,
    eps_omega: u8,
    script: Vec<u8>,
}

impl FpmeCase {
    /// Decodes a case; `None` for fewer than 13 bytes.
    pub fn from_bytes(data: &[u8]) -> Option<Self> {
        let (header, script) = (data.get(..13)?, data.get(13..)?);
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&header[2..10]);
        Some(FpmeCase {
            m: header[0],
            k: header[1],
            seed: u64::from_le_bytes(seed),
            setting: header[10],
            eps: header[11],
            eps_omega: header[12],
            script: script.to_vec(),
        })
    }

    fn shape(&self) -> (usize, usize) {
        (2 + usize::from(self.m % 3), 2 + usize::from(self.k % 2))
    }
    fn eps(&self) -> f64 {
        10f64.powf(-1.0 - 2.0 * f64::from(self.eps) / 255.0)
    }
    fn eps_omega(&self) -> f64 {
        if self.eps_omega == 0 {
            0.0
        } else {
            10f64.powf(-6.0 + 4.0 * f64::from(self.eps_omega) / 255.0)
        }
    }
    fn settings(&self) -> (FpmeSettings<f64>, usize) {
        // ε ∈ [10⁻³, 10⁻¹]: always a valid tolerance. Each setting searches
        // to ε itself (not the efficient default's ε/4).
        let eps = Tolerance::new(self.eps()).expect("a tolerance in [1e-3, 0.1]");
        let efficient = FpmeSettings {
            eps: eps.clone(),
            ..FpmeSettings::efficient(eps.clone())
        };
        match self.setting % 4 {
            0 => (FpmeSettings::paper(eps), 4),
            1 => (efficient, 1),
            2 => (
                FpmeSettings {
                    lambda: LambdaRule::Both,
                    ..efficient
                },
                1,
            ),
            _ => (
                FpmeSettings {
                    strategy: Strategy::Adaptive,
                    order: AngleOrder::Paper,
                    cycles: 4,
                    delta: DeltaRule::LeastSquares,
                    lambda: LambdaRule::Search,
                    trade_off_group: None,
                    stop_early: false,
                    eps,
                },
                4,
            ),
        }
    }
}

/// FPME with fuzzer-chosen in-band answers and a random metric: no panic;
/// the run ends with an estimate or a typed error (the script running out,
/// or an ill-conditioned reconstruction); an estimate satisfies what the
/// procedure guarantees whatever the answers: ‖â‖₂ = 1, Σ‖b̂^{uv}‖₂ = 1,
/// λ̂ ∈ [0, 1], the exact query count of the paper strategy (at most the
/// procedure's expected count otherwise), negative entries reported by a
/// warning; and, when no answer fell in the band (the oracle was exact),
/// ‖a − â‖₂ ≤ √q·ε, the least-squares B̂ within 100 and the closed-form λ̂
/// within 10 times Theorem 1's shapes (ε_Ω = 0).
///
/// # Errors
/// A message describing the violated guarantee.
pub fn fpme_noisy(data: &[u8]) -> Result<(), String> {
    let Some(case) = FpmeCase::from_bytes(data) else {
        return Ok(());
    };
    check(&case).map(|_| ())
}

/// How a fuzz case ended (when no guarantee was violated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// An estimate, every guarantee checked.
    Estimate,
    /// A typed error: the script ran out or the reconstruction was
    /// ill-conditioned.
    Stopped,
}

/// Runs one case; see [`fpme_noisy`].
///
/// # Errors
/// A message describing the violated guarantee.
pub fn check(case: &FpmeCase) -> Result<Ending, String> {
    let (m, k) = case.shape();
    let q = k * k - k;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(case.seed);
    let groups = Groups::<f64>::sample(m, k, None, &mut rng).map_err(|e| e.to_string())?;
    let psi = FairMetric::<f64>::sample(m, k, &mut rng);
    let (settings, cycles) = case.settings();
    let bound = psi.bind(&groups).map_err(|e| e.to_string())?;
    let noisy = Noisy::new(bound, case.eps_omega(), Scripted::new(case.script.clone()))
        .map_err(|e| format!("valid noise rejected: {e}"))?;
    let mut oracle = Counted::new(noisy);
    let est = match fpme(&groups, &mut oracle, &settings) {
        Ok(est) => est,
        Err(e) => {
            return match e.root_cause() {
                Error::ScriptExhausted { .. } | Error::IllConditioned { .. } => Ok(Ending::Stopped),
                _ => Err(format!("{case:?}: unexpected error {e}")),
            }
        }
    };
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12;
    let finite = est
        .a
        .iter()
        .chain(est.b.iter().flatten())
        .all(|x| x.is_finite());
    if !finite || !close(est.a.norm(), 1.0) {
        return Err(format!("{case:?}: a^ = {:?} is not a unit vector", est.a));
    }
    let b_norm: f64 = est.b.iter().map(|v| v.norm()).sum();
    if !close(b_norm, 1.0) {
        return Err(format!("{case:?}: sum ||b^|| = {b_norm}"));
    }
    let lambdas = [
        Some(est.lambda),
        Some(est.lambda_closed_form),
        est.lambda_search,
    ];
    if lambdas.iter().flatten().any(|l| !(0.0..=1.0).contains(l)) {
        return Err(format!("{case:?}: lambda outside [0, 1]: {lambdas:?}"));
    }
    let searched = est.trade_off.as_ref().is_some_and(|t| t.lambda.is_some());
    if settings.strategy == Strategy::Paper {
        let expected = paper_query_count(m, k, cycles, settings.eps.get(), searched)
            .map_err(|e| e.to_string())?;
        if oracle.posed() != expected {
            return Err(format!(
                "{case:?}: {} queries, the paper strategy asks {expected}",
                oracle.posed()
            ));
        }
    }
    let procedure = Fpme::new(groups.clone(), settings.clone());
    if let Some(most) = procedure.expected_queries() {
        if oracle.posed() > most {
            return Err(format!(
                "{case:?}: {} queries, more than the expected {most}",
                oracle.posed()
            ));
        }
    }
    let negative = est.a.iter().chain(est.b.iter().flatten()).any(|x| *x < 0.0);
    let warned = est.warnings.iter().any(|w| w.cause == Cause::OutsideFamily);
    if negative != warned {
        return Err(format!(
            "{case:?}: negative entries {negative}, outside-family warning {warned}"
        ));
    }
    if oracle.in_band_queries() == 0 {
        let (ea, _, _) = errors(&psi, &est.a, &est.b, &est.lambda);
        let limit = (q as f64).sqrt() * *settings.eps;
        if ea > limit {
            return Err(format!(
                "{case:?}: exact answers but ||a - a^|| = {ea:e} > sqrt(q) eps = {limit:e}"
            ));
        }
    }
    // B̂ by least squares and λ̂ in closed form, with exact answers and no
    // warning, against Theorem 1's shapes with ε_Ω = 0 times generous
    // constants: the 1000-metric sweep's largest exact-oracle constants
    // were 11 for B (k = 2, its heavy tail) and below 1.2 for the
    // closed-form λ with noise. A warned estimate is exempt: the one case
    // over 60 000 random inputs past 100 (B off by 2.0 at k = 2) came with
    // a warning of negative weights, on a metric at the edge of Assumption
    // 2 (sin φ ≈ 0.002).
    if oracle.in_band_queries() == 0 && est.warnings.is_empty() {
        let rho = groups.radius();
        let shapes = theorem1_bound(
            m,
            q,
            *settings.eps,
            0.0,
            *rho,
            rho / (1.0 + (q as f64).sqrt()),
        );
        // Both from the least-squares δ, the rule the sweep measured; when
        // it failed, λ̂ of the selected rule is still held to the bound.
        let (ls_b, lambda) = match est.by_rule(DeltaRule::LeastSquares) {
            Some((b, lambda)) => (Some(b), lambda),
            None => (None, est.lambda_closed_form),
        };
        if let Some(b) = ls_b {
            let (_, eb, _) = errors(&psi, &est.a, &b, &est.lambda);
            if eb > 100.0 * shapes[1] {
                return Err(format!(
                    "{case:?}: exact answers but ||B - B^|| (least squares) = {eb:e} > 100 m q eps = {:e}",
                    100.0 * shapes[1]
                ));
            }
        }
        let el = (psi.lambda() - lambda).abs();
        if el > 10.0 * shapes[2] {
            return Err(format!(
                "{case:?}: exact answers but |lambda - lambda^| (closed form) = {el:e} > 10 times Theorem 1's shape {:e}",
                shapes[2]
            ));
        }
    }
    Ok(Ending::Estimate)
}
