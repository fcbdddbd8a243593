//! 004: cost and reward infused elicitation, its frontier, its metric, and
//! the 004 §5 population at scale.

use metric_elicitation::elicit::cost_reward::{elicit_cost_reward, CostRewardSettings};
use metric_elicitation::elicit::multiclass::{elicit_dlpm, DlpmSettings};
use metric_elicitation::geometry::frontier::optimum;
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::population::ExpectedMulticlass;
use metric_elicitation::search::Strategy;
use metric_elicitation::search::Tolerance;
use metric_elicitation_lab::reproduce::cost_reward::{self as repro, Sweep, TABLE1};
use nalgebra::DVector;

/// Table 1 at n = 10⁵: the paper's â at 2 decimals, its query counts with
/// the paper strategy, adaptive identical to paper, golden within the same
/// interval width, and the D11 bound |m̂ − m*| ≤ 2^-(T+1) on every
/// frontier.
#[test]
fn table1_small_population() {
    let rows = repro::table1::<f64>(100_000, 2019, &Strategy::ALL).unwrap();
    for row in rows.iter().filter(|r| r.search == "paper") {
        assert!(row.note.contains("equal the paper"), "{row:?}");
    }
    let counts: Vec<usize> = rows
        .iter()
        .filter(|r| r.search == "paper")
        .map(|r| r.queries)
        .collect();
    assert_eq!(counts, vec![120, 120, 200, 200]);
    for pair in rows.chunks(3) {
        assert_eq!(pair[0].elicited, pair[1].elicited, "adaptive = paper");
        assert!(pair[1].queries < pair[0].queries && pair[2].queries < pair[1].queries);
        assert!(pair[2].error < 5e-3, "{:?}", pair[2]);
    }
    // D11 on the frontiers.
    for (k, attrs, parts, ..) in TABLE1 {
        let pop = repro::population::<f64>(k, 100_000, 2019).unwrap();
        let attributes = repro::attributes::<f64>(attrs).unwrap();
        let truth = repro::metric::<f64>(k, parts).unwrap();
        let mut oracle = Counted::new(Simulated::new(truth.clone()));
        let est = elicit_cost_reward(
            &pop,
            &attributes,
            &mut oracle,
            &CostRewardSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Paper),
        )
        .unwrap();
        let w = truth.weights();
        for face in est.ratios.faces.iter().filter(|f| f.class >= k) {
            let mstar = optimum(&w[0], &w[face.class]);
            assert!(
                (face.m - mstar).abs() <= 2f64.powi(-11),
                "{} {}",
                face.m,
                mstar
            );
        }
        assert!(est.warnings().is_empty(), "{:?}", est.warnings());
    }
}

/// DLPM, LPM and LPME run on the 004 §5 population.
#[test]
fn other_procedures_run_on_the_population() {
    let pop = ExpectedMulticlass::<f64>::synthetic_004(3, 100_000, 4).unwrap();
    let truth = DVector::from_vec(vec![0.3, 0.5, 0.2]);
    let t = truth.clone();
    let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| t.dot(d)));
    let est = elicit_dlpm(
        &pop,
        &mut oracle,
        &DlpmSettings::paper(Tolerance::new(1e-3).unwrap(), Strategy::Golden),
    )
    .unwrap();
    assert!((est.a - &truth).amax() < 2e-3);
    let sphere = metric_elicitation_lab::reproduce::multiclass::sphere_for(&pop).unwrap();
    let a = DVector::from_vec(vec![-0.4, -0.2, -0.5, -0.1, -0.6, -0.3]).normalize();
    let t = a.clone();
    let mut oracle = Counted::new(Simulated::new(move |z: &DVector<f64>| t.dot(z)));
    let lpm = metric_elicitation::elicit::multiclass::elicit_lpm(
        &sphere,
        &mut oracle,
        &Tolerance::new(1e-3).unwrap(),
        Strategy::Golden,
        2,
    )
    .unwrap();
    assert!((lpm.a - a).norm() < 0.02);
}

/// The noise sweep with few trials: finite constants, every adversary.
#[test]
fn noise_sweep_small() {
    let rows = repro::noise::<f64>(
        &Sweep {
            trials: 20,
            eps_omega: vec![(1, 10_000)],
            ..repro::default_sweep()
        },
        20_000,
    )
    .unwrap();
    assert_eq!(rows.len(), 4 * 4 * 3);
    for r in &rows {
        let c = r.worst_ratio.unwrap();
        assert!(c.is_finite() && c < 50.0, "{r:?}");
    }
}

#[test]
fn fig4_error_falls() {
    let rows = repro::fig4::<f64>(50_000, 1, 12).unwrap();
    let first = rows.iter().find(|r| r.row == "Table 1 row 1, t=1").unwrap();
    let last = rows
        .iter()
        .find(|r| r.row == "Table 1 row 1, t=12")
        .unwrap();
    assert!(
        last.error < first.error / 100.0,
        "{} {}",
        first.error,
        last.error
    );
    assert_eq!(last.queries, 4 * 3 * 12);
}

#[cfg(feature = "mpfr")]
mod mpfr {
    use metric_elicitation::search::Tolerance;

    use metric_elicitation::elicit::cost_reward::{elicit_cost_reward, CostRewardSettings};

    use metric_elicitation::geometry::frontier::optimum;
    use metric_elicitation::metric::cost_reward::{Attribute, CostRewardMetric, Kind};
    use metric_elicitation::oracle::{Counted, Simulated};
    use metric_elicitation::population::ExpectedMulticlass;
    use metric_elicitation::search::Strategy;
    use metric_elicitation_lab::reproduce::cost_reward::{self as repro};

    use nalgebra::DVector;

    use metric_elicitation::prelude::ComplexField;
    use metric_elicitation::scalar::{Backend, Mpfr, Scalar};
    type M = Mpfr<256>;

    /// f64 and 256-bit runs of Table 1 at n = 10⁵ agree to 1e-10.
    #[test]
    fn table1_agrees_between_backends() {
        let a = repro::table1::<f64>(100_000, 2019, &[Strategy::Paper]).unwrap();
        let b = repro::table1::<M>(100_000, 2019, &[Strategy::Paper]).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.queries, y.queries);
            let d = metric_elicitation_lab::reproduce::max_abs_diff(&x.elicited, &y.elicited);
            assert!(d < 1e-10, "{}: {d:e}", x.row);
        }
    }

    /// At 256 bits the frontier search reaches ε = 10⁻²⁵ with exactly
    /// 4·⌈log₂(10²⁵)⌉ queries per ratio, and m̂ is within 2^-(T+1) of m*.
    #[test]
    fn frontier_reaches_1e_minus_25() {
        let pop = ExpectedMulticlass::<M>::synthetic_004(2, 2_000, 3).unwrap();
        let attributes = vec![
            Attribute::new("speed", Kind::Reward, M::int(0), M::int(5)).unwrap(),
            Attribute::new("cost", Kind::Cost, -M::ratio(3, 10), M::int(0)).unwrap(),
        ];
        let truth = CostRewardMetric::new(
            DVector::from_vec(vec![M::ratio(1, 10), M::ratio(1, 20)]),
            DVector::from_vec(vec![M::ratio(1, 20), M::ratio(4, 5)]),
        )
        .unwrap();
        let eps = M::decode("1e-25").unwrap();
        let mut oracle = Counted::new(Simulated::new(truth.clone()));
        let est = elicit_cost_reward(
            &pop,
            &attributes,
            &mut oracle,
            &CostRewardSettings::paper(Tolerance::new(eps.clone()).unwrap(), Strategy::Paper),
        )
        .unwrap();
        let t = metric_elicitation::search::halvings(&M::int(1), &eps).unwrap();
        assert_eq!(t, 84);
        assert_eq!(oracle.posed(), 4 * 3 * t);
        let w = truth.weights();
        let mut bound = M::int(1);
        bound.mul_pow2_assign(-(t as i32 + 1));
        for face in est.ratios.faces.iter().filter(|f| f.class >= 2) {
            let mstar = optimum(&w[0], &w[face.class]);
            assert!((face.m.clone() - mstar).abs() <= bound, "{}", face.m);
            assert_eq!(face.queries, 4 * t);
        }
    }
}
