//! 004: cost and reward infused elicitation, its frontier, its metric, and
//! the 004 §5 population at scale.

use metric_elicitation::diagnostics::Cause;
use metric_elicitation::driver::adapter::{Adapter, Family};
use metric_elicitation::driver::adapters::cost_reward::{CostRewardAdapter, CostRewardFamily};
use metric_elicitation::elicit::cost_reward::{
    elicit_cost_reward, paper_queries, CostRewardSettings, CostRewardSpace,
};
use metric_elicitation::elicit::multiclass::Reference;
use metric_elicitation::elicit::{Elicitation, Search};
use metric_elicitation::error::Error;
use metric_elicitation::geometry::frontier::{optimum, Frontier};
use metric_elicitation::metric::cost_reward::{Attribute, CostRewardMetric, Kind, Space};
use metric_elicitation::oracle::{Counted, Simulated};
use metric_elicitation::population::{ExpectedMulticlass, MulticlassPopulation};
use metric_elicitation::search::Tolerance;

use metric_elicitation::driver::spec::{PopulationSpec, Spec};
use metric_elicitation::search::Strategy;
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use serde_json::json;

fn brute_force(
    pop: &ExpectedMulticlass<f64>,
    k1: usize,
    k2: usize,
    w1: f64,
    w2: f64,
) -> (f64, f64) {
    let (a, b) = (pop.column(k1), pop.column(k2));
    let delta = w2 / (w1 + w2);
    let (mut s1, mut s2) = (0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let u = if x + y > 0.0 { x / (x + y) } else { 1.0 };
        if u >= delta {
            s1 += x;
        } else {
            s2 += y;
        }
    }
    let n = pop.rows() as f64;
    (s1 / n, s2 / n)
}

/// Binned faces answer exactly what a scan of every row answers, on bin
/// boundaries and strictly inside bins, and identical row sets give
/// bit-identical confusions.
#[test]
fn binned_faces_match_a_full_scan() {
    let pop = ExpectedMulticlass::<f64>::synthetic_004(3, 50_000, 11).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for _ in 0..200 {
        let m: f64 = if rng.random_bool(0.3) {
            f64::from(rng.random_range(0..=4096u32)) / 4096.0
        } else {
            rng.random_range(0.0..1.0)
        };
        for (k1, k2) in [(0, 1), (0, 2), (2, 1)] {
            let d = pop.rbo_diagonal(k1, k2, &m, &(1.0 - m)).unwrap();
            let (e1, e2) = brute_force(&pop, k1, k2, m, 1.0 - m);
            assert!(
                (d[k1] - e1).abs() < 1e-12 && (d[k2] - e2).abs() < 1e-12,
                "m {m}"
            );
        }
    }
    // Two thresholds with no row between them: the same classifier.
    let face = pop.rbo_diagonal(0, 1, &0.3, &0.7).unwrap();
    let again = pop
        .rbo_diagonal(0, 1, &0.3000000000001, &0.6999999999999)
        .unwrap();
    assert_eq!(face, again);
    // The vertices.
    let zeta = pop.priors();
    assert!((pop.rbo_diagonal(0, 1, &1.0, &0.0).unwrap()[0] - zeta[0]).abs() < 1e-13);
    assert_eq!(pop.rbo_diagonal(0, 1, &0.0, &1.0).unwrap()[0], 0.0);
    let stats = pop.stats();
    assert_eq!(stats.faces, 3);
    assert!(stats.extractions > 0 && stats.queries > 0);
}

/// Generation and face sums do not depend on the number of threads.
#[test]
fn population_is_the_same_for_any_thread_count() {
    let build = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let pop = ExpectedMulticlass::<f64>::synthetic_004(4, 150_000, 5).unwrap();
                let d = pop.rbo_diagonal(0, 3, &0.37, &0.63).unwrap();
                (pop.column(2).to_vec(), pop.priors(), d)
            })
    };
    assert_eq!(build(1), build(2));
    assert_eq!(build(1), build(3));
}

#[test]
fn synthetic_population_validates_its_size() {
    assert!(matches!(
        ExpectedMulticlass::<f64>::synthetic_004(1, 10, 0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(ExpectedMulticlass::<f64>::synthetic_004(2, 0, 0).is_err());
    assert!(ExpectedMulticlass::<f64>::from_columns(vec![vec![0.5], vec![-0.5]]).is_err());
}

#[test]
fn frontier_geometry() {
    let f = Frontier::new(0.4, -15.0, 0.0).unwrap();
    assert_eq!(f.theta(&1.0).unwrap(), std::f64::consts::FRAC_PI_2);
    assert_eq!(f.theta(&0.0).unwrap(), 0.0);
    assert!(f.theta(&1.5).is_err());
    assert!(Frontier::new(0.0, -1.0, 0.0).is_err());
    // m* = a_r/(a_r + a_s) maximizes a_r d + a_s s along the frontier,
    // whatever zeta and the range.
    for (zeta, lo, hi, ar, as_) in [
        (0.4, -15.0, 0.0, 0.32, 0.28),
        (0.7, 0.0, 5.0, 0.1, 0.05),
        (0.2, -0.3, 0.0, 0.1, 0.8),
    ] {
        let f = Frontier::new(zeta, lo, hi).unwrap();
        let value = |m: f64| {
            let (d, s) = f.at(&m).unwrap();
            ar * d + as_ * s
        };
        let best = (0..=100_000)
            .map(|j| f64::from(j) / 1e5)
            .fold((0.0, f64::MIN), |b, m| {
                if value(m) > b.1 {
                    (m, value(m))
                } else {
                    b
                }
            });
        assert!((best.0 - optimum(&ar, &as_)).abs() <= 1e-5, "{best:?}");
    }
}

#[test]
fn metric_and_attribute_validation() {
    let v = |x: &[f64]| DVector::from_vec(x.to_vec());
    for (acc, att, what) in [
        (v(&[0.0, 0.5]), v(&[0.5]), "a_1^d"),
        (v(&[0.5, -0.1]), v(&[0.6]), "negative"),
        (v(&[0.5, 0.5]), v(&[0.5]), "||a||_1"),
        (v(&[0.5, f64::NAN]), v(&[0.5]), "finite"),
    ] {
        match CostRewardMetric::new(acc, att) {
            Err(Error::Assumption { detail, .. }) => assert!(detail.contains(what), "{detail}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    assert!(CostRewardMetric::normalized(v(&[1.0, 1.0]), v(&[2.0])).is_ok());
    assert!(Attribute::new("c", Kind::Cost, -1.0, 0.5).is_err());
    assert!(Attribute::new("r", Kind::Reward, -1.0, 0.5).is_err());
    assert!(Attribute::new("r", Kind::Reward, 2.0, 1.0).is_err());
    assert!(Attribute::new("accuracy", Kind::Reward, 0.0, 1.0).is_err());
    assert!(Attribute::new("r", Kind::Reward, 0.0, f64::INFINITY).is_err());
}

#[test]
fn paper_query_formula() {
    assert_eq!(paper_queries(2, 2, &1e-3).unwrap(), 120);
    assert_eq!(paper_queries(3, 3, &1e-3).unwrap(), 200);
    assert!(paper_queries(2, 2, &0.0).is_err());
}

/// A tiny class-1 weight: with the paper's reference the attribute ratio
/// is ill-conditioned and reported; "auto" moves the reference to the
/// larger class weight and recovers the metric.
#[test]
fn small_first_weight_is_reported_and_auto_reference_helps() {
    let pop = ExpectedMulticlass::<f64>::synthetic_004(2, 200_000, 9).unwrap();
    let attributes = vec![Attribute::cost("cost", 10.0).unwrap()];
    let truth = CostRewardMetric::new(
        DVector::from_vec(vec![0.01, 0.49]),
        DVector::from_vec(vec![0.5]),
    )
    .unwrap();
    let run = |reference| {
        let mut oracle = Counted::new(Simulated::new(truth.clone()));
        let settings = CostRewardSettings {
            eps: Tolerance::new(1e-3).unwrap(),
            strategy: Strategy::Paper,
            reference,
        };
        elicit_cost_reward(&pop, &attributes, &mut oracle, &settings).unwrap()
    };
    let paper = run(Reference::Class(0));
    assert!(
        paper
            .warnings()
            .iter()
            .any(|w| matches!(w.cause, Cause::IllConditioned | Cause::SmallReference)),
        "{:?}",
        paper.warnings()
    );
    let auto = run(Reference::Auto);
    assert_eq!(auto.ratios.reference, 1);
    let e_auto = (truth.weights() - auto.weights()).amax();
    let e_paper = (truth.weights() - paper.weights()).amax();
    assert!(e_auto < 1e-3 && e_auto < e_paper, "{e_auto} {e_paper}");
    for (i, (lo, hi)) in auto.ratios.bounds.iter().enumerate() {
        assert!(*lo <= truth.weights()[i] && truth.weights()[i] <= *hi);
    }
}

fn spec(text: &str) -> Spec {
    Spec::parse(text, true).unwrap()
}

const SPEC: &str = r#"
procedure = "cost-reward"
epsilon = 0.001
attributes = [
  { name = "speed", kind = "reward", lower = 0, upper = 5 },
  { name = "cost", kind = "cost", lower = -0.3, upper = 0 },
]
[population]
kind = "synthetic-004"
classes = 2
rows = 20000
seed = 1
[oracle]
kind = "simulated"
metric = { accuracy = [0.10, 0.05], speed = 0.05, cost = 0.80 }
"#;

/// The procedure through its interface: settings from a spec, the truth
/// table, the report's keys, the view of a point, typed errors.
#[test]
fn procedure_interface() {
    assert_eq!(CostRewardFamily::NAME, "cost-reward");
    let s = spec(SPEC);
    let search = Search::new(1e-3, Strategy::Paper).unwrap();
    let proc = CostRewardAdapter::<f64>::new(s.settings().unwrap(), search.clone(), &s.population)
        .unwrap();
    assert_eq!(proc.algorithm().expected_queries(), Some(120));
    let metric = match &s.oracle {
        metric_elicitation::driver::spec::OracleSpec::Simulated { metric, .. } => metric.clone(),
        _ => unreachable!(),
    };
    let truth = proc.truth(&metric).unwrap();
    let mut oracle = Counted::new(Simulated::new(truth.clone()));
    let est = proc.algorithm().elicit(&mut oracle).unwrap();
    assert_eq!(oracle.posed(), 120);
    let report = proc.report(&est, Some(&truth));
    for key in ["accuracy", "speed", "cost"] {
        assert!(report.elicited.get(key).is_some(), "{key}");
        assert!(report.consistent.get(key).is_some(), "{key}");
    }
    assert!(report.error.unwrap() < 5e-3);
    assert!(report.words.contains("speed") && report.words.contains("cost"));
    let point = CostRewardSpace::new(proc.algorithm().population(), proc.algorithm().attributes())
        .unwrap()
        .statistics(0, 3, &0.5)
        .unwrap();
    assert_eq!(
        point.space,
        Space::Frontier {
            reference: 0,
            attribute: 1
        }
    );
    let view = proc.view(&point);
    assert_eq!(view.rows.len(), 4);
    assert!(
        view.rows[3].starts_with("cost (cost in [-0.3, 0])"),
        "{:?}",
        view.rows
    );
    assert!(proc.distance(&truth, &point).unwrap() > 0.0);
    // Typed errors naming the field.
    for (bad, field) in [
        (
            json!({"accuracy": [0.1, 0.05], "speed": 0.05}),
            "oracle.metric.cost",
        ),
        (
            json!({"accuracy": [0.1, 0.05], "speed": 0.05, "cost": 0.8, "x": 0.0}),
            "oracle.metric.x",
        ),
        (
            json!({"accuracy": [0.1], "speed": 0.05, "cost": 0.8}),
            "oracle.metric.accuracy",
        ),
    ] {
        match proc.truth(&bad) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, field),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        proc.truth(&json!({"accuracy": [0.1, 0.05], "speed": -0.05, "cost": 0.9})),
        Err(Error::Assumption { .. })
    ));
    let s2 = spec(&SPEC.replace("kind = \"cost\"", "kind = \"price\""));
    assert!(matches!(
        CostRewardAdapter::<f64>::new(s2.settings().unwrap(), search.clone(), &s2.population),
        Err(Error::InvalidArgument { .. })
    ));
    let wrong = PopulationSpec::Synthetic003 {
        a: metric_elicitation::driver::spec::Num::Float(5.0),
    };
    assert!(CostRewardAdapter::<f64>::new(s.settings().unwrap(), search, &wrong).is_err());
}

/// Every Table 1 row's example spec parses and runs.
#[test]
fn example_specs_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/specs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("cost-reward") {
            continue;
        }
        let mut s = Spec::load(&path).unwrap();
        // Keep the test fast: a small population.
        if let PopulationSpec::Synthetic004 { rows, .. } = &mut s.population {
            *rows = 20_000;
        }
        let search = Search::new(1e-3, s.strategy_or(Strategy::Golden).unwrap()).unwrap();
        let proc =
            CostRewardAdapter::<f64>::new(s.settings().unwrap(), search, &s.population).unwrap();
        if let metric_elicitation::driver::spec::OracleSpec::Simulated { metric, .. } = &s.oracle {
            let truth = proc.truth(metric).unwrap();
            let mut oracle = Counted::new(Simulated::new(truth.clone()));
            let est = proc.algorithm().elicit(&mut oracle).unwrap();
            assert!(
                proc.report(&est, Some(&truth)).error.unwrap() < 5e-3,
                "{name}"
            );
        }
        n += 1;
    }
    assert!(n >= 4);
}
