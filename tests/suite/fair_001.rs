//! 001 (fair metric elicitation): the reconstruction with exact slopes,
//! exact query counts, §6.1 and Theorem 1 on reduced sweeps (the full ones
//! run in `elicit reproduce --only 001`), the procedure interface, and the
//! restricted oracles under budgets, transcripts and replay. Run with
//! `--nocapture` to see the tables.

use metric_elicitation::diagnostics::Cause;
use metric_elicitation::driver::adapter::{Adapter, Family};
use metric_elicitation::driver::adapters::fair::{FpmeAdapter, FpmeFamily, FpmeFields};
use metric_elicitation::elicit::fpme::{
    distance_from_optimum, errors, fpme, paper_query_count, reconstruct, trade_off, DeltaRule,
    FpmeSettings, LambdaRule, TradeOffSearch,
};
use metric_elicitation::elicit::{Elicitation, Search};
use metric_elicitation::geometry::groups::{
    centre, trivial, Embedding, GroupRates, Groups, Partitions, Restricted,
};
use metric_elicitation::metric::fair::FairMetric;
use metric_elicitation::oracle::Metric;
use metric_elicitation::oracle::{Counted, Replay, Simulated, Transcript};
use metric_elicitation::search::Tolerance;

use metric_elicitation::driver::spec::Spec;
use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use nalgebra::DVector;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn instance(m: usize, k: usize, seed: u64) -> (Groups<f64>, FairMetric<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let groups = Groups::sample(m, k, None, &mut rng).unwrap();
    let psi = FairMetric::sample(m, k, &mut rng);
    (groups, psi)
}

fn exact_slopes(
    groups: &Groups<f64>,
    partitions: &Partitions<f64>,
    psi: &FairMetric<f64>,
    sign: f64,
) -> Vec<(DVector<f64>, DVector<f64>)> {
    let k = groups.classes();
    partitions
        .sets()
        .iter()
        .map(|s| {
            let unit = |c| (psi.violation_slope(groups, s, c).unwrap() * sign).normalize();
            (unit(0), unit(k - 1))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// With the true normalized gradients in place of the LPMEs, Part 2 and
    /// the closed form return (B, λ) to 1e-12, for both δ rules, in both
    /// orientations (the slopes of Ψ, or of −Ψ as an oracle's LPME returns
    /// them: then −B).
    #[test]
    fn exact_slopes_reconstruct_the_metric(m in 2usize..=6, k in 2usize..=5, seed in any::<u64>()) {
        let (groups, psi) = instance(m, k, seed);
        let partitions = Partitions::new(m).unwrap();
        for sign in [1.0, -1.0] {
            let slopes = exact_slopes(&groups, &partitions, &psi, sign);
            let a = psi.a() * sign;
            for rule in [DeltaRule::LeastSquares, DeltaRule::Paper] {
                let r = reconstruct(&groups, &partitions, &a, &slopes, rule).unwrap();
                let b: Vec<DVector<f64>> = r.b.iter().map(|v| v * sign).collect();
                let (_, eb, el) = errors(&psi, psi.a(), &b, &r.lambda);
                prop_assert!(eb < 1e-12, "{rule:?} m={m} k={k}: B error {eb:e}");
                prop_assert!(el < 1e-12, "{rule:?} m={m} k={k}: lambda error {el:e}");
                // the scales δ^σ are positive: α = ‖g‖/(1 − λ)
                prop_assert!(r.delta.iter().all(|d| *d > 0.0));
            }
        }
    }
}

/// Part 1 with an exact oracle gives â; with the exact (a, B) Alg. 4 finds
/// λ within ε/2 for the best-conditioned group.
#[test]
fn alg4_with_exact_estimates_is_within_half_eps() {
    for (m, k) in [(2, 2), (2, 3), (3, 3), (4, 2), (5, 4)] {
        for seed in 0..20 {
            let (groups, psi) = instance(m, k, seed);
            let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
            for (strategy, eps) in [(Strategy::Paper, 1e-3), (Strategy::Golden, 1e-4)] {
                let search = TradeOffSearch {
                    eps: Tolerance::new(eps).unwrap(),
                    strategy,
                    group: None,
                };
                let t = trade_off(
                    &groups,
                    psi.a(),
                    psi.b(),
                    psi.lambda(),
                    &search,
                    &mut oracle,
                )
                .unwrap();
                let l = t.lambda.expect("identifiable");
                assert!(
                    (l - psi.lambda()).abs() <= eps / 2.0 + 1e-12,
                    "m={m} k={k} seed {seed}: {l} vs {}",
                    psi.lambda()
                );
                assert!(t.consistent.unwrap().contains(psi.lambda()));
            }
        }
    }
}

/// The paper strategy asks exactly (1 + 2|M|)(q + 16(q − 1)h) + 4h' queries,
/// whatever the metric (6242 at m = k = 3, ε = 1e-3), and recovers the
/// metric; the efficient default asks at most 15 % of them at no worse
/// error on these instances.
#[test]
fn query_counts_are_exact() {
    let table = [
        ((2, 2), 574),
        ((2, 3), 2698),
        ((3, 2), 1286),
        ((3, 3), 6242),
        ((4, 3), 11558),
        ((2, 4), 5884),
    ];
    for ((m, k), expected) in table {
        assert_eq!(paper_query_count(m, k, 4, &1e-3, true).unwrap(), expected);
        for seed in 0..2 {
            let (groups, psi) = instance(m, k, 100 + seed);
            let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
            let est = fpme(
                &groups,
                &mut oracle,
                &FpmeSettings::paper(Tolerance::new(1e-3).unwrap()),
            )
            .unwrap();
            assert_eq!(oracle.posed(), expected, "m={m} k={k}");
            assert_eq!(est.queries.total(), expected);
            assert_eq!(est.queries.trade_off, 40);
            let (ea, _, _) = errors(&psi, &est.a, &est.b, &est.lambda);
            assert!(ea < 1e-3, "m={m} k={k}: a error {ea}");
            let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
            let eff = fpme(
                &groups,
                &mut oracle,
                &FpmeSettings::efficient(Tolerance::new(1e-3).unwrap()),
            )
            .unwrap();
            assert!(
                oracle.posed() * 100 <= expected * 15,
                "m={m} k={k}: {}",
                oracle.posed()
            );
            let (ea2, _, _) = errors(&psi, &eff.a, &eff.b, &eff.lambda);
            assert!(ea2 <= ea * 1.5 + 1e-5, "m={m} k={k}: {ea2} vs {ea}");
        }
    }
    // other eps and cycles
    for (eps, cycles) in [(1e-2, 4), (1e-4, 2)] {
        let (groups, psi) = instance(3, 2, 9);
        let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
        let settings = FpmeSettings {
            cycles,
            ..FpmeSettings::paper(Tolerance::new(eps).unwrap())
        };
        fpme(&groups, &mut oracle, &settings).unwrap();
        assert_eq!(
            oracle.posed(),
            paper_query_count(3, 2, cycles, &eps, true).unwrap()
        );
    }
}

/// Through an oracle that prefers the smaller Ψ (the crate convention),
/// FPME returns a ≥ 0 (a flipped sign would show at once).
#[test]
fn cost_convention_gives_nonnegative_weights() {
    let (groups, psi) = instance(3, 3, 5);
    let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
    let est = fpme(
        &groups,
        &mut oracle,
        &FpmeSettings::efficient(Tolerance::new(4e-4).unwrap()),
    )
    .unwrap();
    assert!(est.a.iter().all(|x| *x > -1e-3));
    assert!(psi.a().dot(&est.a) > 0.99);
    let (_, eb, el) = errors(&psi, &est.a, &est.b, &est.lambda);
    assert!(eb < 0.05 && el < 0.01, "{eb} {el}");
}

fn spec(text: &str) -> Spec {
    Spec::parse(text, true).unwrap()
}

const SPEC: &str = r#"
procedure = "fpme"
epsilon = 0.001
[population]
kind = "groups"
classes = 2
tau = [[0.3, 0.6], [0.7, 0.4]]
[oracle]
kind = "simulated"
metric = { a = [0.6, 0.8], b = [[0.8, 0.6]], lambda = 0.3 }
"#;

fn build(spec: &Spec) -> Result<FpmeAdapter<f64>, Error> {
    let fields: FpmeFields = spec.settings()?;
    let eps: f64 = spec.epsilon()?.to_scalar("epsilon")?;
    let strategy = spec.strategy_or(FpmeAdapter::<f64>::default_strategy())?;
    FpmeAdapter::new(fields, Search::new(eps, strategy)?, &spec.population)
}

#[test]
fn procedure_interface() {
    assert_eq!(FpmeFamily::NAME, "fpme");
    let s = spec(SPEC);
    let p = build(&s).unwrap();
    let metric = match &s.oracle {
        metric_elicitation::driver::spec::OracleSpec::Simulated { metric, .. } => metric.clone(),
        _ => unreachable!(),
    };
    let truth = p.truth(&metric).unwrap();
    // the default is the efficient setting at the paper's accuracy
    let settings = p.algorithm().settings();
    assert_eq!(settings.strategy, Strategy::Golden);
    assert_eq!(settings.lambda, LambdaRule::ClosedForm);
    assert_eq!(*settings.eps, 0.001 / 4.0);
    let mut oracle = Counted::new(Simulated::new(|r: &GroupRates<f64>| truth.value(r)));
    let est = p.algorithm().elicit(&mut oracle).unwrap();
    assert!(oracle.posed() <= p.algorithm().expected_queries().unwrap());
    let report = p.report(&est, Some(&truth));
    for key in ["a", "b", "lambda"] {
        assert!(report.elicited.get(key).is_some(), "{key}");
        assert!(report.elicited_exact.get(key).is_some(), "{key}");
    }
    assert_eq!(report.elicited["b"].as_array().unwrap().len(), 1);
    assert!(report.error.unwrap() < 5e-3, "{:?}", report.error);
    assert_eq!(report.truth.as_ref().unwrap()["lambda"], 0.3);
    assert!(
        report.details["queries_per_part"]["total"]
            .as_u64()
            .unwrap()
            > 0
    );
    // `ask` shows each group's error rates side by side
    let view = p.view(
        &GroupRates::new(&[
            DVector::from_vec(vec![0.1, 0.25]),
            DVector::from_vec(vec![0.3, 0.05]),
        ])
        .unwrap(),
    );
    let text = view.rows.join("\n");
    println!("{}\n{text}", view.title);
    assert!(text.contains("group 1") && text.contains("group 2"));
    assert!(
        text.contains("10.0")
            && text.contains("25.0")
            && text.contains("30.0")
            && text.contains("5.0")
    );
    // the paper's settings, named in the spec
    let paper = spec(&SPEC.replace(
        "epsilon = 0.001\n",
        "epsilon = 0.001\nsearch = \"paper\"\ncycles = 4\norder = \"paper\"\nstop_early = false\ndelta = \"paper\"\nlambda = \"search\"\ntrade_off_group = 1\nsearch_epsilon = 0.001\n",
    ));
    let p2 = build(&paper).unwrap();
    let mut oracle = Counted::new(Simulated::new(|r: &GroupRates<f64>| truth.value(r)));
    let est = p2.algorithm().elicit(&mut oracle).unwrap();
    assert_eq!(oracle.posed(), 574);
    assert_eq!(p2.algorithm().expected_queries(), Some(574));
    assert!(est.lambda_search.is_some());
}

#[test]
fn bad_input_is_a_typed_error_naming_the_field() {
    let s = spec(SPEC);
    let p = build(&s).unwrap();
    let cases = [
        (
            r#"{"a": [-0.6, 0.8], "b": [[0.8, 0.6]], "lambda": 0.3}"#,
            "a >= 0",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, -0.6]], "lambda": 0.3}"#,
            "b >= 0",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, 0.6]], "lambda": 1.0}"#,
            "0 < lambda < 1",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, 0.6]], "lambda": 0.0}"#,
            "0 < lambda < 1",
        ),
        (
            r#"{"a": [0.6, 0.9], "b": [[0.8, 0.6]], "lambda": 0.3}"#,
            "||a||_2 = 1",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.5, 0.6]], "lambda": 0.3}"#,
            "sum_(u<v) ||b^(uv)||_2 = 1",
        ),
        (
            r#"{"a": [0.6, 0.8, 0.0], "b": [[0.8, 0.6]], "lambda": 0.3}"#,
            "oracle.metric.a",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, 0.6], [0.8, 0.6]], "lambda": 0.3}"#,
            "oracle.metric.b",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, 0.6]]}"#,
            "oracle.metric.lambda",
        ),
        (
            r#"{"a": [0.6, 0.8], "b": [[0.8, 0.6]], "lambda": 0.3, "c": 1}"#,
            "oracle.metric.c",
        ),
        (r#"[0.6, 0.8]"#, "oracle.metric"),
    ];
    for (json, needle) in cases {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let err = p.truth(&value).unwrap_err();
        assert!(err.to_string().contains(needle), "{json}: {err}");
        if needle.contains('=') || needle.contains('<') {
            assert!(matches!(err, Error::Assumption { .. }), "{err:?}");
        }
    }
    for (from, to, needle) in [
        (
            "tau = [[0.3, 0.6], [0.7, 0.4]]",
            "tau = [[0.3, 0.6], [0.6, 0.4]]",
            "class 1",
        ),
        (
            "tau = [[0.3, 0.6], [0.7, 0.4]]",
            "tau = [[0.3, 0.6, 0.1], [0.7, 0.4, 0.9]]",
            "tau[0]",
        ),
        (
            "tau = [[0.3, 0.6], [0.7, 0.4]]",
            "tau = [[1.0, 1.0]]",
            "m >= 2",
        ),
        (
            "classes = 2\n",
            "classes = 2\nradius = 0.6\n",
            "population.radius",
        ),
        (
            "epsilon = 0.001\n",
            "epsilon = 0.001\ncycles = 0\n",
            "cycles",
        ),
        (
            "epsilon = 0.001\n",
            "epsilon = 0.001\ntrade_off_group = 3\n",
            "trade_off_group",
        ),
        (
            "epsilon = 0.001\n",
            "epsilon = 0.001\nreference = 1\n",
            "reference",
        ),
        (
            "epsilon = 0.001\n",
            "epsilon = 0.001\ndelta = \"median\"\n",
            "unknown variant",
        ),
    ] {
        let Err(err) = build(&spec(&SPEC.replace(from, to))) else {
            panic!("{to}: accepted")
        };
        assert!(err.to_string().contains(needle), "{to}: {err}");
    }
    let wrong = spec(
        &SPEC
            .replace(
                "kind = \"groups\"",
                "kind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.1",
            )
            .replace("classes = 2\ntau = [[0.3, 0.6], [0.7, 0.4]]\n", ""),
    );
    assert!(build(&wrong)
        .err()
        .is_some_and(|e| e.to_string().contains("population.kind")));
}

/// The restricted oracles go through the inner oracle: a budget stops the
/// run with the part reached; a transcript replays to the same estimate.
#[test]
fn budgets_transcripts_and_replay() {
    let (groups, psi) = instance(3, 2, 11);
    let settings = FpmeSettings::paper(Tolerance::new(1e-2).unwrap());
    let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()))
        .with_budget(500)
        .unwrap();
    let err = fpme(&groups, &mut oracle, &settings).unwrap_err();
    match &err {
        Error::Interrupted {
            queries, progress, ..
        } => {
            assert_eq!(*queries, 500);
            assert!(progress.starts_with("Part 2"), "{progress}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(err.root_cause(), Error::BudgetExhausted { .. }));
    let mut oracle =
        Counted::new(Simulated::new(psi.bind(&groups).unwrap())).with_transcript(Transcript::new());
    let est = fpme(&groups, &mut oracle, &settings).unwrap();
    let records = oracle.take_transcript().unwrap().records().to_vec();
    assert_eq!(records.len(), oracle.queries());
    assert_eq!(records[0].first.len(), 3 * 2); // m groups of q rates
    let mut replay = Counted::new(Replay::new(records));
    let again = fpme(&groups, &mut replay, &settings).unwrap();
    assert_eq!(again, est);
}

/// Every point FPME asks is recognised by the push-away distance, which is
/// 0 at each part's optimum.
#[test]
fn distance_recognises_every_embedding() {
    let (groups, psi) = instance(3, 3, 3);
    let k = 3;
    let utility = |r: &GroupRates<f64>| psi.utility(&groups, r);
    let sphere = groups.sphere();
    let at = |embedding: Embedding, s: &DVector<f64>| {
        Restricted::new(&groups, embedding, utility)
            .unwrap()
            .embed(s)
            .unwrap()
    };
    let opt = sphere.point(&(-psi.class_slope()).normalize()).unwrap();
    let d = distance_from_optimum(&groups, &psi, &at(Embedding::Uniform, &opt)).unwrap();
    assert!(d < 1e-12);
    for sigma in Partitions::<f64>::new(3).unwrap().sets() {
        for class in [0, k - 1] {
            let g = psi.violation_slope(&groups, sigma, class).unwrap();
            let opt = sphere.point(&(-g).normalize()).unwrap();
            let p = at(
                Embedding::Violation {
                    sigma: sigma.clone(),
                    class,
                },
                &opt,
            );
            assert!(distance_from_optimum(&groups, &psi, &p).unwrap() < 1e-12);
            assert!(
                distance_from_optimum(
                    &groups,
                    &psi,
                    &at(
                        Embedding::Violation {
                            sigma: sigma.clone(),
                            class
                        },
                        &centre(k)
                    )
                )
                .unwrap()
                    > 0.0
            );
        }
    }
    let plus = groups.plus_sphere().unwrap();
    let opt = plus
        .point(&(-psi.trade_off_slope(&groups, 1)).normalize())
        .unwrap();
    let p = at(Embedding::TradeOff { group: 1 }, &opt);
    assert!(distance_from_optimum(&groups, &psi, &p).unwrap() < 1e-12);
    let e = trivial::<f64>(k, 1).unwrap();
    let odd = GroupRates::new(&[e.clone(), centre(k), e * 0.5]).unwrap();
    assert!(distance_from_optimum(&groups, &psi, &odd).is_none());
}

/// x ∥ y: Alg. 4 cannot identify λ; that is reported, not guessed.
#[test]
fn unidentifiable_lambda_is_reported() {
    // k = 2, m = 2, tau = 1/2: x = τ¹ ⊙ a = a/2 ∥ y = b¹² when b ∥ a.
    let groups = Groups::new(2, vec![vec![0.5, 0.5], vec![0.5, 0.5]], None).unwrap();
    let psi = FairMetric::new(
        DVector::from_vec(vec![0.6, 0.8]),
        vec![DVector::from_vec(vec![0.6, 0.8])],
        0.4,
    )
    .unwrap();
    let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
    let t = trade_off(
        &groups,
        psi.a(),
        psi.b(),
        psi.lambda(),
        &TradeOffSearch {
            eps: Tolerance::new(1e-3).unwrap(),
            strategy: Strategy::Paper,
            group: None,
        },
        &mut oracle,
    )
    .unwrap();
    assert!(t.lambda.is_none());
    assert_eq!(t.queries, 0);
    assert_eq!(t.warnings[0].cause, Cause::Unidentifiable);
    // the whole procedure still answers, with the closed form
    let mut oracle = Counted::new(Simulated::new(psi.bind(&groups).unwrap()));
    let est = fpme(
        &groups,
        &mut oracle,
        &FpmeSettings::paper(Tolerance::new(1e-3).unwrap()),
    )
    .unwrap();
    if est.lambda_search.is_none() {
        assert!(est
            .warnings
            .iter()
            .any(|w| w.cause == Cause::Unidentifiable));
        assert_eq!(est.lambda, est.lambda_closed_form);
    }
    assert!((est.lambda_closed_form - 0.4).abs() < 1e-2);
}

/// The example spec parses, validates and elicits its metric with the
/// query count its comment states.
#[test]
fn example_spec_runs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/specs/fpme.toml");
    let s = Spec::load(&path).unwrap();
    let p = build(&s).unwrap();
    let metric = match &s.oracle {
        metric_elicitation::driver::spec::OracleSpec::Simulated { metric, .. } => metric.clone(),
        _ => unreachable!(),
    };
    let truth = p.truth(&metric).unwrap();
    let mut oracle = Counted::new(Simulated::new(|r: &GroupRates<f64>| truth.value(r)));
    let est = p.algorithm().elicit(&mut oracle).unwrap();
    assert_eq!(oracle.posed(), 707);
    let report = p.report(&est, Some(&truth));
    println!(
        "{}\n{}",
        report.words,
        serde_json::to_string(&report.details).unwrap()
    );
    assert!(report.error.unwrap() < 2e-3, "{:?}", report.error);
}
