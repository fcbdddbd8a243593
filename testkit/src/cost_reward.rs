//! The check behind `fuzz/fuzz_targets/cost_reward.rs`: 004 Alg. 1 with
//! fuzzer-chosen attribute ranges, weights, ε, ε_Ω, strategy and in-band
//! answers.

use arbitrary::{Arbitrary, Unstructured};
use metric_elicitation::elicit::cost_reward::{
    elicit_cost_reward, CostRewardSettings, CostRewardSpace,
};
use metric_elicitation::error::Error;
use metric_elicitation::metric::cost_reward::{Attribute, CostRewardMetric, Kind};
use metric_elicitation::oracle::{Counted, Noisy, Scripted};
use metric_elicitation::population::ExpectedMulticlass;
use metric_elicitation::search::Tolerance;
use metric_elicitation::search::{halving_reach, halvings, Consistent, Strategy};
use nalgebra::DVector;
use std::sync::OnceLock;

/// One fuzz case: k ∈ {2, 3}, up to three attributes (kind and a range
/// from raw bytes, possibly invalid), raw weights (possibly zero), ε, ε_Ω,
/// the strategy and the adversary's script.
#[derive(Debug, Clone, Arbitrary)]
pub struct CostRewardCase {
    three_classes: bool,
    attributes: Vec<(bool, i16, i16)>,
    weights: Vec<u8>,
    strategy: u8,
    eps: u8,
    eps_omega: u8,
    script: Vec<u8>,
}

/// The 004 §5 population the fuzzer runs on (2000 rows per k, built once).
fn population(k: usize) -> &'static ExpectedMulticlass<f64> {
    static POPS: [OnceLock<ExpectedMulticlass<f64>>; 2] = [OnceLock::new(), OnceLock::new()];
    POPS[k - 2].get_or_init(|| {
        ExpectedMulticlass::synthetic_004(k, 2000, 7).unwrap_or_else(|_| {
            // Unreachable: the arguments are valid constants.
            std::process::abort()
        })
    })
}

impl CostRewardCase {
    fn strategy(&self) -> Strategy {
        Strategy::ALL[usize::from(self.strategy % 3)]
    }
    fn eps(&self) -> f64 {
        10f64.powf(-1.0 - 3.0 * f64::from(self.eps) / 255.0) // [1e-4, 1e-1]
    }
    fn eps_omega(&self) -> f64 {
        if self.eps_omega < 32 {
            0.0
        } else {
            10f64.powf(-2.0 - 6.0 * f64::from(self.eps_omega) / 255.0) // [1e-8, 1e-2]
        }
    }
}

/// Fuzzer-chosen attribute ranges, weights and in-band answers: no panic;
/// invalid ranges and weights come back as typed errors
/// ([`Error::InvalidArgument`], [`Error::Assumption`]); a script that runs
/// out as [`Error::ScriptExhausted`] inside [`Error::Interrupted`];
/// otherwise â is a finite, non-negative, ℓ1-normalized vector, the paper
/// strategy posed exactly 4·(dim − 1)·⌈log₂(1/ε)⌉ queries, and
/// * with the halving strategies every ratio's m̂ lies within the exact
///   range [`halving_reach`] gives for *every* ε_Ω-noisy oracle;
/// * with an exact oracle (ε_Ω = 0), every frontier search's consistent
///   interval contains m* = a₁/(a₁ + aᵢ), and every face search's reaches
///   a maximizer of ψ along the face (a finite sample's faces are flat
///   between rows).
///
/// # Errors
/// A message describing the violated guarantee.
pub fn cost_reward(data: &[u8]) -> Result<(), String> {
    let Ok(case) = CostRewardCase::arbitrary(&mut Unstructured::new(data)) else {
        return Ok(());
    };
    let k = if case.three_classes { 3 } else { 2 };
    let mut attributes = Vec::new();
    for (j, (cost, a, b)) in case.attributes.iter().take(3).enumerate() {
        let (lower, upper) = (f64::from(*a) / 64.0, f64::from(*b) / 64.0);
        let kind = if *cost { Kind::Cost } else { Kind::Reward };
        match Attribute::new(format!("attribute{j}"), kind, lower, upper) {
            Ok(attr) => attributes.push(attr),
            Err(Error::InvalidArgument { .. }) => return Ok(()),
            Err(e) => return Err(format!("bad range gave an unexpected error: {e}")),
        }
    }
    let dim = k + attributes.len();
    let raw: Vec<f64> = (0..dim)
        .map(|i| f64::from(case.weights.get(i).copied().unwrap_or(1)))
        .collect();
    let total: f64 = raw.iter().sum();
    let truth = match CostRewardMetric::normalized(
        DVector::from_vec(raw[..k].to_vec()),
        DVector::from_vec(raw[k..].to_vec()),
    ) {
        Ok(t) => t,
        Err(Error::Assumption { .. }) if raw[0] == 0.0 || total == 0.0 => return Ok(()),
        Err(e) => return Err(format!("valid weights {raw:?} rejected: {e}")),
    };
    let pop = population(k);
    let (eps, eps_omega, strategy) = (case.eps(), case.eps_omega(), case.strategy());
    let noisy = Noisy::new(truth.clone(), eps_omega, Scripted::new(case.script.clone()))
        .map_err(|e| format!("valid noise rejected: {e}"))?;
    let mut oracle = Counted::new(noisy);
    let tolerance = Tolerance::new(eps).map_err(|e| format!("{case:?}: {e}"))?;
    let settings = CostRewardSettings::paper(tolerance, strategy);
    let est = match elicit_cost_reward(pop, &attributes, &mut oracle, &settings) {
        Ok(est) => est,
        Err(e) => {
            return match e.root_cause() {
                Error::ScriptExhausted { .. } => Ok(()),
                _ => Err(format!("unexpected error: {e}")),
            }
        }
    };
    let a = est.weights();
    let sum: f64 = a.iter().sum();
    if a.iter().any(|x| !x.is_finite() || *x < 0.0) || (sum - 1.0).abs() > 1e-12 {
        return Err(format!("estimate is not a normalized weight vector: {a}"));
    }
    let t = halvings(&1.0, &eps).map_err(|e| e.to_string())?;
    if strategy == Strategy::Paper && oracle.posed() != 4 * (dim - 1) * t {
        return Err(format!(
            "paper strategy posed {} queries, expected {}",
            oracle.posed(),
            4 * (dim - 1) * t
        ));
    }
    let space = CostRewardSpace::new(pop, &attributes).map_err(|e| e.to_string())?;
    let w = truth.weights();
    for search in &est.ratios.faces {
        let i = search.class;
        let value = |m: &f64| space.statistics(0, i, m).map(|p| truth.psi(&p));
        if strategy != Strategy::Golden {
            let (lo, hi) = halving_reach(&eps, &eps_omega, value).map_err(|e| e.to_string())?;
            if search.m < lo || search.m > hi {
                return Err(format!(
                    "{case:?}: ratio {i}: m^ = {} outside the reachable [{lo}, {hi}]",
                    search.m
                ));
            }
        }
        if eps_omega == 0.0 {
            let mstar = w[0] / (w[0] + w[i]);
            let Consistent::Interval { lo, hi } = &search.consistent else {
                return Err(format!("{case:?}: an exact oracle contradicted itself"));
            };
            let reached = if i < k {
                // A face of a finite sample: ψ is flat on plateaus, so ask
                // that the interval reach a maximizer (up to rounding).
                let best = value(&mstar).map_err(|e| e.to_string())?;
                let near = value(&mstar.clamp(*lo, *hi)).map_err(|e| e.to_string())?;
                near >= best - 1e-12 * (1.0 + best.abs())
            } else {
                *lo - 1e-12 <= mstar && mstar <= *hi + 1e-12
            };
            if !reached {
                return Err(format!(
                    "{case:?}: ratio {i}: m* = {mstar} is not reached by the consistent [{lo}, {hi}]"
                ));
            }
        }
    }
    Ok(())
}
