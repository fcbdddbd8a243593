//! Fuzz checks for QPME (000 Alg. 1) and fair QPME (Alg. 4): fuzzer-chosen
//! metrics, noise levels and in-band answers. Guarantees: no panic; an
//! estimate is finite, normalized (‖â‖² + ‖B̂‖²_F = 1, resp. ‖â‖ = 1,
//! ½Σ‖B̂^{uv}‖_F = 1, 0 < λ̂ < 1) with a symmetric B̂ and no more queries
//! than the setting's maximum; with an exact oracle (ε_Ω = 0), the fit
//! estimator and no warning it is within a generous multiple of its
//! tolerance (the closed form's warning is an estimate, not a bound, so
//! it is not held to this); otherwise the error is a typed one
//! (an exhausted script, an ill-conditioned reconstruction, a metric
//! outside the assumptions).

use arbitrary::{Arbitrary, Unstructured};
use metric_elicitation::elicit::fair_qpme::{fair_qpme, FairSettings};
use metric_elicitation::elicit::qpme::{check_metric, qpme, Design, Estimator, QpmeSettings};
use metric_elicitation::error::Error;
use metric_elicitation::geometry::groups::{GroupRates, Groups, Rates};
use metric_elicitation::geometry::sphere::Sphere;
use metric_elicitation::metric::quadratic::{FairQuadraticMetric, QuadraticMetric};
use metric_elicitation::oracle::{Counted, Noisy, Scripted};
use metric_elicitation::search::Tolerance;
use metric_elicitation::search::{golden_max_queries, Strategy};
use nalgebra::{DMatrix, DVector};

/// One fuzz case: sizes, coefficients (bytes mapped to [−1, 1]), noise,
/// estimator and the adversary's script.
#[derive(Debug, Clone, Arbitrary)]
pub struct QuadraticCase {
    fair: bool,
    size: u8,
    groups: u8,
    coefficients: Vec<u8>,
    lambda: u8,
    eps_omega: u8,
    paper: bool,
    script: Vec<u8>,
}

fn coefficient(bytes: &[u8], i: usize) -> f64 {
    let b = bytes.get(i % bytes.len().max(1)).copied().unwrap_or(97);
    f64::from(b) / 127.5 - 1.0 + 1e-3 * i as f64
}

impl QuadraticCase {
    fn eps_omega(&self) -> f64 {
        if self.eps_omega < 64 {
            0.0
        } else {
            10f64.powf(-7.0 + 4.0 * f64::from(self.eps_omega - 64) / 191.0) // [1e-7, 1e-3]
        }
    }
    fn estimator(&self) -> Estimator {
        if self.paper {
            Estimator::Paper
        } else {
            Estimator::Fit
        }
    }
}

fn acceptable(e: &Error) -> bool {
    matches!(
        e.root_cause(),
        Error::ScriptExhausted { .. } | Error::IllConditioned { .. } | Error::Assumption { .. }
    )
}

/// QPME or fair QPME with fuzzer-chosen answers inside the ε_Ω band.
///
/// # Errors
/// A message describing the violated guarantee.
pub fn qpme_noisy(data: &[u8]) -> Result<(), String> {
    let Ok(case) = QuadraticCase::arbitrary(&mut Unstructured::new(data)) else {
        return Ok(());
    };
    if case.fair {
        fair_case(&case)
    } else {
        plain_case(&case)
    }
}

/// The efficient setting with golden section, or (bit 6 of `size`) with
/// bisection, which QPME's small spheres admit ([`Strategy::Bisection`]);
/// its searches ask no more than golden section's, so the query maximum
/// below covers both.
fn settings(case: &QuadraticCase) -> QpmeSettings<f64> {
    let mut s = QpmeSettings {
        estimator: case.estimator(),
        ..QpmeSettings::efficient(Tolerance::new(1e-3).expect("a valid tolerance"), 5e-3)
    };
    if case.size & 0x40 != 0 {
        s.lpme.strategy = Strategy::Bisection;
    }
    s
}

fn plain_case(case: &QuadraticCase) -> Result<(), String> {
    let q = 2 + usize::from(case.size % 3);
    let c = &case.coefficients;
    let a = DVector::from_fn(q, |i, _| coefficient(c, i));
    let m = DMatrix::from_fn(q, q, |i, j| coefficient(c, q + i * q + j));
    let b = (&m + m.transpose()) / 2.0;
    let Ok(metric) = QuadraticMetric::new(a, b) else {
        return Ok(());
    };
    let sphere = Sphere::new(DVector::from_element(q, 1.0 / q as f64), 0.2)
        .map_err(|e| format!("valid sphere refused: {e}"))?;
    let s = settings(case);
    let design = Design::new(sphere.clone(), s.small_radius).map_err(|e| e.to_string())?;
    if check_metric(&metric, &design, s.estimator).is_err() {
        return Ok(());
    }
    let t = metric.clone();
    let eo = case.eps_omega();
    let noisy = Noisy::new(
        move |r: &DVector<f64>| t.value(r),
        eo,
        Scripted::new(case.script.clone()),
    )
    .map_err(|e| format!("valid noise refused: {e}"))?;
    let mut oracle = Counted::new(noisy);
    let est = match qpme(&sphere, &mut oracle, &s) {
        Ok(est) => est,
        Err(e) if acceptable(&e) => return Ok(()),
        Err(e) => return Err(format!("{case:?}: unexpected error {e}")),
    };
    // Per angle: a golden search (bisection asks fewer) over its range
    // and, for each crossing (at most one turn's worth of ranges), one
    // query and another search.
    // The first LPME has q orthant queries and quadrants; the others
    // windows of width 2w and no orthant queries.
    let per_angle = |width: f64| {
        let g = golden_max_queries(&width, &s.lpme.eps).unwrap_or(usize::MAX / 64);
        (1 + (std::f64::consts::TAU / width).ceil() as usize) * (1 + g)
    };
    let windows = s.window.map_or(std::f64::consts::FRAC_PI_2, |w| 2.0 * w);
    let maximum = q
        + (q - 1) * per_angle(std::f64::consts::FRAC_PI_2)
        + (q + 1) * (usize::from(s.window.is_none()) * q + (q - 1) * per_angle(windows));
    if oracle.queries() > maximum || est.queries != oracle.queries() {
        return Err(format!(
            "{} queries (counted {}), maximum {maximum}",
            est.queries,
            oracle.queries()
        ));
    }
    let norm = est.a.norm_squared() + est.b.norm_squared();
    if !norm.is_finite() || (norm - 1.0).abs() > 1e-9 || est.b != est.b.transpose() {
        return Err(format!(
            "{case:?}: estimate not normalized or not symmetric: {norm}"
        ));
    }
    // The accuracy claim is the fit's, whose condition σ₁/σ_{n−1} bounds
    // the amplification (an ill-conditioned warning past condition·ε >
    // 1/10). The closed form's warning is a first-order estimate (its
    // sensitivity to ε-sized moves plus its touching-point bias), not a
    // bound: a fuzzed exact-oracle case at q = 4 had errors 0.56 / 1.51
    // without it (kept in regressions/qpme/paper-quiet-error).
    if eo == 0.0 && est.warnings.is_empty() && s.estimator == Estimator::Fit {
        let (ea, eb) = metric.errors(&est.a, &est.b);
        // ε = 1e-3 per angle, δ ≈ 0.2: generous for the d·dᵀ part (1/δ²).
        if ea > 0.5 || eb > 1.5 {
            return Err(format!("{case:?}: exact oracle, errors {ea} {eb}"));
        }
    }
    Ok(())
}

/// Fair QPME on m ∈ {2, 3} groups of k ∈ {2, 3} classes (bits 0 and 1 of
/// `groups`), with general rates (q = k² − k) when bit 2 is set and k = 2,
/// diagonal rates (q = k) otherwise.
fn fair_case(case: &QuadraticCase) -> Result<(), String> {
    let (k, m) = (
        2 + usize::from(case.groups / 2 % 2),
        2 + usize::from(case.groups % 2),
    );
    let rates = if k == 2 && case.groups & 4 != 0 {
        Rates::General
    } else {
        Rates::Diagonal
    };
    let q = if rates == Rates::General {
        k * k - k
    } else {
        k
    };
    let c = &case.coefficients;
    let t: Vec<Vec<f64>> = {
        let raw: Vec<Vec<f64>> = (0..m)
            .map(|g| {
                (0..k)
                    .map(|i| 0.1 + coefficient(c, 50 + g * k + i).abs())
                    .collect()
            })
            .collect();
        let sums: Vec<f64> = (0..k).map(|i| raw.iter().map(|r| r[i]).sum()).collect();
        raw.iter()
            .map(|r| r.iter().zip(&sums).map(|(v, s)| v / s).collect())
            .collect()
    };
    let Ok(groups) = Groups::with_rates(k, t, None, rates) else {
        return Ok(());
    };
    let a = DVector::from_fn(q, |i, _| 0.05 + coefficient(c, i).abs());
    let b: Vec<DMatrix<f64>> = (0..m * (m - 1) / 2)
        .map(|p| {
            let l = DMatrix::from_fn(q, q, |i, j| coefficient(c, 10 + p * q * q + i * q + j));
            &l * l.transpose()
        })
        .collect();
    let lambda = 0.05 + 0.9 * f64::from(case.lambda) / 255.0;
    let Ok(metric) = FairQuadraticMetric::normalized(a, b, lambda, rates) else {
        return Ok(());
    };
    let s = settings(case);
    let fs = FairSettings {
        origin_from_a: s.estimator == Estimator::Fit,
        qpme: s,
    };
    let (tm, gm) = (metric.clone(), groups.clone());
    let noisy = Noisy::new(
        move |r: &GroupRates<f64>| -tm.cost(r, &gm),
        case.eps_omega(),
        Scripted::new(case.script.clone()),
    )
    .map_err(|e| format!("valid noise refused: {e}"))?;
    let mut oracle = Counted::new(noisy);
    let est = match fair_qpme(&groups, &mut oracle, &fs) {
        Ok(est) => est,
        Err(e) if acceptable(&e) => return Ok(()),
        Err(e) => return Err(format!("{case:?}: unexpected error {e}")),
    };
    let half: f64 = est.b.iter().map(|m| m.norm()).sum::<f64>() / 2.0;
    if (est.a.norm() - 1.0).abs() > 1e-9
        || (half - 1.0).abs() > 1e-9
        || !(est.lambda > 0.0 && est.lambda < 1.0)
        || est.b.iter().any(|m| m != &m.transpose())
    {
        return Err(format!(
            "{case:?}: estimate breaks Def. 4's normalization: {est:?}"
        ));
    }
    // With an exact oracle, the fit and no warning: Def. 4's parts within
    // generous multiples of what 40 000 random cases (k, m ∈ {2, 3}, both
    // strategies, 4 159 of them exact and quiet) reached at ε = 10⁻³:
    // ‖a − â‖ 4.9e-4, |λ − λ̂| 0.031, Σ‖B^{uv} − B̂^{uv}‖_F 0.84 (of at most
    // 4 under the normalization ½Σ‖B^{uv}‖_F = 1; a sign flip of B̂ is 4).
    if case.eps_omega() == 0.0 && fs.qpme.estimator == Estimator::Fit && est.warnings.is_empty() {
        let (ea, eb, el) = metric.errors(&est.a, &est.b, &est.lambda);
        if ea > 0.01 || el > 0.25 || eb > 2.0 {
            return Err(format!(
                "{case:?}: exact oracle, fair errors a {ea}, B {eb}, lambda {el}"
            ));
        }
    }
    if est.queries != oracle.queries() {
        return Err(format!(
            "queries {} but counted {}",
            est.queries,
            oracle.queries()
        ));
    }
    Ok(())
}
