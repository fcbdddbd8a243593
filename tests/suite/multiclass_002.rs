//! 002 (multiclass) and the general sphere LPME (001/000 App. A): Tables
//! 2–3 beside the paper, Thms. 1–2, query counts, populations, geometry,
//! bad input. Run with `--nocapture` to see the tables.

use metric_elicitation::diagnostics::Cause;
use metric_elicitation::elicit::lpme::{lpme, LpmeSettings, Orthant};
use metric_elicitation::elicit::multiclass::{elicit_dlpm, nu, DlpmSettings, Reference};
use metric_elicitation::geometry::sphere::{
    angles_from_unit, orthant_ranges, unit_from_angles, AngleSlice, Sign, Sphere,
};
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::population::{FiniteMulticlass, LogisticMulticlass, MulticlassPopulation};
use metric_elicitation::search::Tolerance;

use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use nalgebra::DVector;
use proptest::prelude::*;

proptest! {
    /// μ is a bijection onto the unit sphere and stays in the orthant its
    /// angle ranges describe.
    #[test]
    fn angle_parametrization_round_trips(raw in proptest::collection::vec(-1.0..1.0f64, 2..14), frac in proptest::collection::vec(0.0..1.0f64, 13)) {
        let a = DVector::from_vec(raw.clone());
        prop_assume!(a.norm() > 1e-3);
        let a = &a / a.norm();
        let back = unit_from_angles(&angles_from_unit(&a));
        prop_assert!((back - &a).amax() < 1e-12);
        let signs: Vec<Sign> = raw.iter().map(|x| if *x >= 0.0 { Sign::Positive } else { Sign::Negative }).collect();
        let ranges = orthant_ranges::<f64>(&signs);
        let theta: Vec<f64> = ranges.iter().zip(&frac).map(|((lo, hi), t)| lo + (hi - lo) * t).collect();
        let u = unit_from_angles(&theta);
        prop_assert!((u.norm() - 1.0).abs() < 1e-12);
        // The fast single-angle slice agrees with the full parametrization.
        let sphere = Sphere::new(DVector::from_element(u.len(), 0.25), 0.1).unwrap();
        for j in 0..theta.len() {
            let slice = AngleSlice::new(&sphere, &theta, j).unwrap();
            let direct = sphere.point(&unit_from_angles(&theta)).unwrap();
            prop_assert!((slice.point(&theta[j]) - direct).amax() < 1e-14);
        }
        for (x, s) in u.iter().zip(&signs) {
            let inside = if *s == Sign::Positive { *x >= -1e-12 } else { *x <= 1e-12 };
            prop_assert!(inside, "coordinate {} outside orthant {:?}", x, s);
        }
    }

    /// LPME finds the orthant of any metric and recovers it, exactly answered.
    #[test]
    fn lpme_recovers_any_sign_pattern(raw in proptest::collection::vec(-1.0..1.0f64, 2..8), strategy in 0usize..3) {
        let a = DVector::from_vec(raw);
        prop_assume!(a.amin() > 0.05);
        let truth = &a / a.norm();
        let sphere = Sphere::new(DVector::from_element(truth.len(), 0.3), 0.05).unwrap();
        let t = truth.clone();
        let mut oracle = Simulated::new(move |z: &DVector<f64>| t.dot(z));
        let settings = LpmeSettings::paper(Tolerance::new(1e-4).unwrap(), Strategy::ALL[strategy], 6);
        let est = lpme(&sphere, &mut oracle, &settings).unwrap();
        for (s, x) in est.signs.iter().zip(truth.iter()) {
            prop_assert_eq!(*s == Sign::Positive, *x > 0.0);
        }
        prop_assert!((est.a - &truth).norm() < 1e-2);
    }
}

#[test]
fn finite_multiclass_matches_brute_force() {
    let (k, n) = (3, 200);
    let mut scores = Vec::new();
    let mut labels = Vec::new();
    for r in 0..n {
        let x = (r as f64 * 0.37).sin();
        let s = [1.0 + x, 1.0 - x * 0.5, 0.5 + x * x];
        scores.extend_from_slice(&s);
        labels.push(r % k);
    }
    let pop = FiniteMulticlass::new(k, scores.clone(), labels.clone()).unwrap();
    for (k1, k2, w1, w2) in [
        (0, 1, 0.5, 0.5),
        (0, 2, 0.2, 0.8),
        (1, 2, 0.9, 0.1),
        (0, 1, 1.0, 0.0),
    ] {
        let d = pop.rbo_diagonal(k1, k2, &w1, &w2).unwrap();
        let (mut c1, mut c2) = (0, 0);
        for r in 0..n {
            let k1_wins = w1 * scores[r * k + k1] >= w2 * scores[r * k + k2];
            if k1_wins && labels[r] == k1 {
                c1 += 1;
            }
            if !k1_wins && labels[r] == k2 {
                c2 += 1;
            }
        }
        assert_eq!(d[k1], c1 as f64 / n as f64);
        assert_eq!(d[k2], c2 as f64 / n as f64);
    }
    let priors: f64 = pop.priors().iter().sum();
    assert!((priors - 1.0).abs() < 1e-15);
}

#[test]
fn synthetic_population_is_consistent() {
    let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
    let priors = pop.priors();
    assert!(
        (priors.iter().sum::<f64>() - 1.0).abs() < 1e-13,
        "{priors:?}"
    );
    // Full confusions of a weighted classifier sum to the priors by row.
    let c = pop.weighted_confusion(&[0.2, 0.5, 0.3]).unwrap();
    for (i, prior) in priors.iter().enumerate() {
        assert!((c.row(i).sum() - prior).abs() < 1e-13);
    }
    // ν moves along the face monotonically: d_1 grows with m, d_2 shrinks.
    let (mut last1, mut last2) = (-1.0, 2.0);
    for i in 0..=20 {
        let d = nu(&pop, &(f64::from(i) / 20.0), 0, 1).unwrap();
        assert!(d[0] >= last1 && d[1] <= last2 && d[2] == 0.0);
        last1 = d[0];
        last2 = d[1];
    }
}

#[test]
fn bad_input_gets_typed_errors() {
    assert!(matches!(
        LogisticMulticlass::new(vec![1.0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        LogisticMulticlass::new(vec![1.0, 1.0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        LogisticMulticlass::new(vec![1.0, f64::NAN]),
        Err(Error::InvalidArgument { .. })
    ));
    let pop = LogisticMulticlass::new(vec![1.0, 3.0, 5.0]).unwrap();
    assert!(pop.rbo_diagonal(0, 0, &0.5, &0.5).is_err());
    assert!(pop.rbo_diagonal(0, 3, &0.5, &0.5).is_err());
    assert!(pop.rbo_diagonal(0, 1, &-0.5, &0.5).is_err());
    assert!(pop.weighted_confusion(&[0.5, 0.5]).is_err());
    assert!(FiniteMulticlass::new(3, vec![0.1; 5], vec![0, 1]).is_err());
    assert!(FiniteMulticlass::new(2, vec![0.1, -0.1], vec![0]).is_err());
    assert!(FiniteMulticlass::new(2, vec![0.1, 0.2], vec![5]).is_err());
    assert!(Sphere::new(DVector::from_element(3, 0.1), 0.0).is_err());
    assert!(Sphere::new(DVector::from_element(1, 0.1), 0.1).is_err());
    let sphere = Sphere::new(DVector::from_element(3, 0.1), 0.05).unwrap();
    let mut oracle = Simulated::new(|z: &DVector<f64>| z.sum());
    let bad = |cycles, orthant| LpmeSettings {
        orthant,
        ..LpmeSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper, cycles)
    };
    assert!(lpme(&sphere, &mut oracle, &bad(0, Orthant::Detect)).is_err());
    assert!(lpme(
        &sphere,
        &mut oracle,
        &bad(2, Orthant::Known(vec![Sign::Negative; 2]))
    )
    .is_err());
    assert!(matches!(
        Tolerance::new(-1.0),
        Err(Error::InvalidEpsilon { .. })
    ));
    // DLPM with a vanishing reference weight: the consistent set reaches
    // a_1 = 0 and the warning says so.
    let truth = DVector::from_vec(vec![0.0, 0.5, 0.5]);
    let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| truth.dot(d)));
    let est = elicit_dlpm(
        &pop,
        &mut oracle,
        &DlpmSettings::paper(Tolerance::new(0.01).unwrap(), Strategy::Paper),
    )
    .unwrap();
    assert_eq!(est.bounds[0].0, 0.0);
    assert!(
        est.warnings.iter().any(|w| w.cause == Cause::VertexOptimum),
        "{:?}",
        est.warnings
    );
}

/// 002 Alg. 1 with a reference class chosen along the way recovers a
/// metric whose a_1 is 0.01, where the paper's reference (class 1) cannot
/// resolve the ratios; both on a softmax population.
#[test]
fn dlpm_auto_reference_recovers_a_small_first_weight() {
    let pop = LogisticMulticlass::softmax(vec![0.0, 10.0, 20.0]).unwrap();
    let truth = DVector::from_vec(vec![0.01, 0.59, 0.40]);
    let t = truth.clone();
    let run = |reference| {
        let t = t.clone();
        let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| t.dot(d)));
        let settings = DlpmSettings {
            eps: Tolerance::new(1e-3).unwrap(),
            strategy: Strategy::Paper,
            reference,
        };
        elicit_dlpm(&pop, &mut oracle, &settings).unwrap()
    };
    let auto = run(Reference::Auto);
    assert!((&auto.a - &truth).amax() < 1e-3, "{}", auto.a);
    assert!(auto.warnings.is_empty(), "{:?}", auto.warnings);
    assert_eq!(auto.reference, 1);
    for (i, (lo, hi)) in auto.bounds.iter().enumerate() {
        assert!(*lo <= truth[i] && truth[i] <= *hi, "class {i}: {lo} {hi}");
    }
    let paper = run(Reference::Class(0));
    assert!((&paper.a - &truth).amax() > (&auto.a - &truth).amax());
}

/// Issue 29, item 6: the default reference ("auto") never leaves a metric
/// unidentified that the paper's reference (class 1) identifies. On the
/// 002 §6.1 logistic populations and their softmax variants, k = 3…6,
/// random metrics (uniform on the simplex) that class 1 identifies at
/// ε = 10⁻³ within 0.01: "auto" gets each within 0.01 with no face left
/// unidentified (before: six of ten above 0.01 at k = 5). The price, in
/// queries against class 1's (golden search, no memo; printed with
/// `--nocapture`): none or 14–23 % more on the softmax populations, 48–80 %
/// more on the logistic ones, where a face against the largest weight
/// often has its optimum at a vertex (32 queries for nothing) and is
/// searched again through another class (about 15). Asserted: at most
/// twice.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn dlpm_auto_reference_identifies_what_class_1_identifies() {
    use rand::{Rng, SeedableRng};
    let eps = 1e-3;
    let slopes: [&[f64]; 4] = [
        &[1.0, 3.0, 5.0],
        &[1.0, 3.0, 6.0, 10.0],
        &[1.0, 2.0, 3.5, 5.0, 8.0],
        &[1.0, 2.0, 3.0, 5.0, 7.0, 9.0],
    ];
    for softmax in [false, true] {
        for p in slopes {
            let k = p.len();
            let pop = if softmax {
                LogisticMulticlass::softmax(p.to_vec()).unwrap()
            } else {
                LogisticMulticlass::new(p.to_vec()).unwrap()
            };
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(k as u64);
            let (mut found, mut paper_queries, mut auto_queries) = (0, 0, 0);
            for _ in 0..200 {
                let raw: Vec<f64> = (0..k).map(|_| -rng.random::<f64>().ln()).collect();
                let sum: f64 = raw.iter().sum();
                let truth = DVector::from_vec(raw.iter().map(|x| x / sum).collect());
                let run = |reference| {
                    let t = truth.clone();
                    let mut oracle = Counted::new(Simulated::new(move |d: &DVector<f64>| t.dot(d)));
                    let settings = DlpmSettings {
                        eps: Tolerance::new(eps).unwrap(),
                        strategy: Strategy::Golden,
                        reference,
                    };
                    elicit_dlpm(&pop, &mut oracle, &settings).unwrap()
                };
                let paper = run(Reference::Class(0));
                if !paper.unidentified_faces.is_empty() || (&paper.a - &truth).amax() > 0.01 {
                    continue;
                }
                let auto = run(Reference::Auto);
                let error = (&auto.a - &truth).amax();
                assert!(
                    error <= 0.01 && auto.unidentified_faces.is_empty(),
                    "k = {k}, softmax {softmax}, truth {truth}: auto {} (error {error}), unidentified {:?}",
                    auto.a,
                    auto.unidentified_faces
                );
                for (i, (lo, hi)) in auto.bounds.iter().enumerate() {
                    assert!(*lo <= truth[i] && truth[i] <= *hi, "class {i}: {lo} {hi}");
                }
                paper_queries += paper.queries;
                auto_queries += auto.queries;
                found += 1;
                if found == 8 {
                    break;
                }
            }
            assert!(
                found >= 4,
                "k = {k}: only {found} metrics identifiable from class 1"
            );
            println!("k = {k}, softmax {softmax}: {found} metrics, {auto_queries} queries against {paper_queries}");
            assert!(
                auto_queries <= 2 * paper_queries,
                "k = {k}, softmax {softmax}: {auto_queries} queries against {paper_queries}"
            );
        }
    }
}

#[test]
fn pair_blocks_faces_are_the_003_binary_face() {
    use metric_elicitation::population::{BinaryPopulation, LogisticUniform, PairBlocks, Side};
    let binary = LogisticUniform::new(5.0).unwrap();
    for k in 2..=5usize {
        let pop = PairBlocks::new(k, 5.0).unwrap();
        let priors = pop.priors();
        assert!((priors.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        for i in 1..k {
            for m in [0.0, 0.1, 0.5, 0.77, 1.0] {
                let d = pop.rbo_diagonal(0, i, &m, &(1.0 - m)).unwrap();
                let c = binary.threshold_confusion(&m, &(1.0 - m), Side::Upper);
                let rest = (k - 2) as f64 / (2.0 * (k - 1) as f64);
                assert!((d[0] - rest - c.tp / (k - 1) as f64).abs() < 1e-15);
                assert!((d[i] - c.tn / (k - 1) as f64).abs() < 1e-15);
                // The same face from the other side gives the same confusion.
                let e = pop.rbo_diagonal(i, 0, &(1.0 - m), &m).unwrap();
                if m > 0.0 && m < 1.0 {
                    assert!((&d - &e).amax() < 1e-15);
                }
            }
        }
    }
    assert!(PairBlocks::new(1, 5.0).is_err());
    assert!(PairBlocks::new(3, f64::NAN).is_err());
    let pop = PairBlocks::new(3, 5.0).unwrap();
    assert!(pop.rbo_diagonal(0, 0, &1.0, &1.0).is_err());
    assert!(pop.rbo_diagonal(0, 1, &-1.0, &1.0).is_err());
}

#[test]
fn halving_reach_is_the_search_without_noise_and_covers_every_oracle() {
    use metric_elicitation::search::{halving_reach, maximize};
    let f = |x: &f64| -(x - 0.3).powi(2);
    // No noise: one path, the search's own estimate.
    let (lo, hi) = halving_reach(&0.01, &0.0, |x| Ok(f(x))).unwrap();
    let out = maximize(0.0, 1.0, 0.01, Strategy::Paper, |x, y| Ok(f(x) > f(y))).unwrap();
    assert_eq!((lo, hi), (out.estimate, out.estimate));
    // With noise: every scripted adversary ends inside the reachable range.
    let eps_omega = 1e-3;
    let (lo, hi) = halving_reach(&0.01, &eps_omega, |x| Ok(f(x))).unwrap();
    assert!(lo < hi);
    let mut reached = (f64::INFINITY, f64::NEG_INFINITY);
    for script in 0u32..4096 {
        let mut n = 0;
        let out = maximize(0.0, 1.0, 0.01, Strategy::Paper, |x, y| {
            let truthful = f(x) > f(y);
            n += 1;
            Ok(if (f(x) - f(y)).abs() < eps_omega {
                script >> (n % 12) & 1 == 1
            } else {
                truthful
            })
        })
        .unwrap();
        assert!(lo <= out.estimate && out.estimate <= hi, "{script}");
        reached = (reached.0.min(out.estimate), reached.1.max(out.estimate));
    }
    println!("reachable [{lo}, {hi}], scripted adversaries reached {reached:?}");
}
