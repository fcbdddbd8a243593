//! 003 (binary metric elicitation): Tables 1–2 beside the paper, Thm. 2,
//! Lemma 2, finite samples, geometry invariants and bad input.
//! Run with `--nocapture` to see the tables.

use metric_elicitation::elicit::binary::{
    elicit_lfpm, elicit_lpm, maximize_upper, minimize_lower, solve_prop4, Alg3Settings,
    Monotonicity,
};
use metric_elicitation::search::Tolerance;

use metric_elicitation::geometry::binary::{
    bayes_confusion, boundary_point, inverse_bayes_confusion,
};
use metric_elicitation::metric::binary::{Lfpm, Lpm};
use metric_elicitation::oracle::{Counted, Metric, Oracle, Simulated};
use metric_elicitation::population::{BinaryPopulation, FiniteBinary, LogisticUniform, Side};

use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use proptest::prelude::*;

#[test]
fn unknown_monotonicity_costs_one_query_and_finds_the_same_metric() {
    let pop = LogisticUniform::new(5.0).unwrap();
    for k in [3i32, 22] {
        let truth = Lpm::from_angle(&(std::f64::consts::PI * f64::from(k) / 18.0)).unwrap();
        let known = if k < 18 {
            Monotonicity::Increasing
        } else {
            Monotonicity::Decreasing
        };
        let a = elicit_lpm(
            &pop,
            &mut Simulated::new(truth.clone()),
            &Tolerance::new(0.02).unwrap(),
            Strategy::Paper,
            known,
        )
        .unwrap();
        let b = elicit_lpm(
            &pop,
            &mut Simulated::new(truth),
            &Tolerance::new(0.02).unwrap(),
            Strategy::Paper,
            Monotonicity::Unknown,
        )
        .unwrap();
        assert_eq!((a.m11, a.m00, a.side), (b.m11, b.m00, b.side));
        assert_eq!(b.queries, a.queries + 1);
    }
}

#[test]
fn finite_population_matches_brute_force_counting() {
    let pairs = vec![
        (0.9, true),
        (0.8, false),
        (0.5, true),
        (0.5, false),
        (0.3, true),
        (0.1, false),
    ];
    let pop = FiniteBinary::new(pairs.clone()).unwrap();
    for delta in [0.0, 0.1, 0.3, 0.4, 0.5, 0.6, 0.85, 1.0] {
        let (m11, m00) = (1.0 - delta, delta);
        let up = pop.threshold_confusion(&m11, &m00, Side::Upper);
        let lo = pop.threshold_confusion(&m11, &m00, Side::Lower);
        let d = m00 / (m11 + m00);
        let count = |pred: &dyn Fn(f64) -> bool, pos: bool| {
            pairs
                .iter()
                .filter(|(s, y)| pred(*s) == pos && *y == pos)
                .count() as f64
                / 6.0
        };
        assert_eq!(up.tp, count(&|s| s >= d, true));
        assert_eq!(up.tn, count(&|s| s >= d, false));
        assert_eq!(lo.tp, count(&|s| s <= d, true));
        assert_eq!(lo.tn, count(&|s| s <= d, false));
    }
}

proptest! {
    /// Geometry of C (003 Prop. 2, eq. 7): boundary points lie in the
    /// rectangle, the Bayes confusion of m maximizes ⟨m, ·⟩ over other
    /// boundary points, the inverse Bayes confusion minimizes it, and C is
    /// 180° symmetric (C_{θ+π} = complement of C_θ).
    #[test]
    fn boundary_geometry(theta in 0.0..std::f64::consts::TAU, other in 0.0..std::f64::consts::TAU, a in 0.5..20.0f64) {
        let pop = LogisticUniform::new(a).unwrap();
        let (m11, m00) = (theta.cos(), theta.sin());
        let c = bayes_confusion(&pop, &m11, &m00).unwrap();
        prop_assert!(c.tp >= 0.0 && c.tp <= 0.5 + 1e-15 && c.tn >= 0.0 && c.tn <= 0.5 + 1e-15);
        let d = boundary_point(&pop, &other).unwrap();
        prop_assert!(c.dot(&m11, &m00) >= d.dot(&m11, &m00) - 1e-12);
        let inv = inverse_bayes_confusion(&pop, &m11, &m00).unwrap();
        prop_assert!(inv.dot(&m11, &m00) <= d.dot(&m11, &m00) + 1e-12);
        let opposite = boundary_point(&pop, &(theta + std::f64::consts::PI)).unwrap();
        let flipped = c.complement(&0.5);
        prop_assert!((opposite.tp - flipped.tp).abs() < 1e-12 && (opposite.tn - flipped.tn).abs() < 1e-12);
    }

    /// Prop. 4, exactly: the hyperplane ℓ fixes (m, C0) only up to a factor
    /// λ > 0, and the true LFPM solves (9) with λ = s = ‖p − τq‖. Given
    /// λ = s and the true p11, Prop. 4 returns the truth; with the paper's
    /// λ = 1 it returns an LFPM that still solves (9), has the same
    /// maximizer on ∂C+, but is a multiple of the truth only when s = 1.
    /// (s11 = s00 = 0 is the constant metric 1; a maximizer at a vertex has
    /// no unique supporting hyperplane: both are excluded.)
    #[test]
    fn prop4_inverts_the_upper_hyperplane(p11 in 0.05..0.95f64, s11 in 0.05..1.0f64, s00 in 0.05..1.0f64) {
        let zeta = 0.5;
        let p00 = 1.0 - p11;
        let (q11, q00) = (p11 - s11, p00 - s00);
        let q0 = (p11 - q11) * zeta + (p00 - q00) * (1.0 - zeta);
        let truth = Lfpm::new(p11, p00, q11, q00, q0).unwrap();
        truth.check_assumption2(&zeta).unwrap();
        let pop = LogisticUniform::new(5.0).unwrap();
        let up = maximize_upper(&pop, &mut Simulated::new(truth.clone()), &Tolerance::new(1e-12).unwrap(), Strategy::Golden).unwrap();
        prop_assume!(up.confusion.tp > 1e-9 && up.confusion.tn > 1e-9);
        let tau = truth.value(&up.confusion);
        let s = (p11 - tau * q11).hypot(p00 - tau * q00);
        let exact = solve_prop4(&p11, &(s * up.m11), &(s * up.m00), &(s * up.offset), &zeta).unwrap();
        for (e, t) in [(exact.q11, q11), (exact.q00, q00), (exact.q0, q0)] {
            prop_assert!((e - t).abs() <= 1e-6, "{} vs {}", e, t);
        }
        let paper = solve_prop4(&p11, &up.m11, &up.m00, &up.offset, &zeta).unwrap();
        paper.check_assumption2(&zeta).unwrap();
        let tau_hat = paper.value(&up.confusion);
        prop_assert!((paper.p11 - tau_hat * paper.q11 - up.m11).abs() <= 1e-9);
        prop_assert!((paper.p00 - tau_hat * paper.q00 - up.m00).abs() <= 1e-9);
        for i in 0..64 {
            let c = boundary_point(&pop, &(f64::from(i) * std::f64::consts::FRAC_PI_2 / 63.0)).unwrap();
            prop_assert!(paper.value(&c) <= tau_hat + 1e-9);
        }
    }
}

#[test]
fn alg2_minimizes_on_the_lower_boundary() {
    let pop = LogisticUniform::new(5.0).unwrap();
    let truth = Lfpm::f_beta(1.0, 0.5).unwrap();
    let low = minimize_lower(
        &pop,
        &mut Simulated::new(truth.clone()),
        &Tolerance::new(1e-6).unwrap(),
        Strategy::Paper,
    )
    .unwrap();
    assert!(low.m11 <= 0.0 && low.m00 <= 0.0);
    // No boundary point is worse than the minimizer.
    for i in 0..200 {
        let c = boundary_point(&pop, &(f64::from(i) * std::f64::consts::TAU / 200.0)).unwrap();
        assert!(truth.value(&c) >= truth.value(&low.confusion) - 1e-9);
    }
}

#[test]
fn bad_input_gets_typed_errors() {
    let pop = LogisticUniform::new(5.0).unwrap();
    assert!(matches!(
        LogisticUniform::new(0.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        LogisticUniform::new(f64::NAN),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Lpm::new(f64::NAN, 1.0, 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Lpm::new(0.0, 0.0, 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Lfpm::new(1.0, f64::INFINITY, 0.0, 0.0, 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    // Assumption 2 violations name the condition.
    let cases = [
        (Lfpm::new(-0.2, 1.2, -0.5, 0.0, 0.5).unwrap(), "p11 >= 0"),
        (Lfpm::new(0.5, 0.5, 0.7, 0.0, 0.15).unwrap(), "p11 >= q11"),
        (Lfpm::new(0.6, 0.6, 0.0, 0.0, 0.6).unwrap(), "p11 + p00 = 1"),
        (Lfpm::new(0.5, 0.5, 0.0, 0.0, 0.9).unwrap(), "q0 ="),
    ];
    for (metric, condition) in cases {
        match metric.check_assumption2(&0.5) {
            Err(Error::Assumption { detail, .. }) => {
                assert!(detail.contains(condition), "{detail}")
            }
            other => panic!("expected an Assumption error for {condition}, got {other:?}"),
        }
    }
    // A tolerance is checked once, when it is made.
    for eps in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Tolerance::new(eps),
            Err(Error::InvalidEpsilon { .. })
        ));
    }
    assert!(FiniteBinary::new(Vec::<(f64, bool)>::new()).is_err());
    assert!(FiniteBinary::new(vec![(0.5, true), (f64::NAN, false)]).is_err());
    assert!(FiniteBinary::new(vec![(0.5, true), (0.7, true)]).is_err());
    assert!(bayes_confusion(&pop, &0.0, &0.0).is_err());
    // An LFPM whose denominator vanishes on C makes the oracle fail, typed.
    let broken = Lfpm::new(1.0, 0.0, 0.0, 0.0, 0.0).unwrap();
    let err = elicit_lfpm(
        &pop,
        &mut Simulated::new(broken),
        &Tolerance::new(0.05).unwrap(),
        Strategy::Paper,
        Alg3Settings::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err.root_cause(), Error::NonFiniteMetric { .. }),
        "{err}"
    );
    // A budget stops LFPM elicitation with a typed error saying how far it got.
    let truth = Lfpm::f_beta(1.0, 0.5).unwrap();
    let mut oracle = Counted::new(Simulated::new(truth)).with_budget(25).unwrap();
    let err = elicit_lfpm(
        &pop,
        &mut oracle,
        &Tolerance::new(0.05).unwrap(),
        Strategy::Paper,
        Alg3Settings::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::Interrupted { queries: 5, .. }),
        "{err}"
    );
    assert_eq!(oracle.queries(), 25);
    let _ = oracle.compare(
        &boundary_point(&pop, &0.1).unwrap(),
        &boundary_point(&pop, &0.2).unwrap(),
    );
}
