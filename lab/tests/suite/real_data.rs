//! Real data end to end (issue 13): fitting η̂, dataset populations, the
//! sphere finder's certificate, ranking, NDCG and Kendall τ.

use metric_elicitation::driver::rank::{
    rank, Metric, On, PoolStatistics, PredictionColumns, Statistic,
};
use metric_elicitation::driver::spec::Confusions;
use metric_elicitation::fit::{Columns, Table};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::path::Path;

fn data(name: &str) -> Table {
    Table::read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name),
    )
    .unwrap()
}

#[test]
fn predictions_file_round_trip_and_binary_metrics() {
    use metric_elicitation_lab::pool::{write_predictions, Classifier};
    let labels = vec![0, 1, 1, 0, 1, 0, 1, 1];
    let pool = vec![
        Classifier {
            name: "all-ones".into(),
            predictions: vec![1; 8],
        },
        Classifier {
            name: "perfect".into(),
            predictions: labels.clone(),
        },
        Classifier {
            name: "all-zeros".into(),
            predictions: vec![0; 8],
        },
    ];
    let dir = std::env::temp_dir().join(format!("rank-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("p.csv");
    write_predictions(&path, &pool, &labels, None).unwrap();
    let stats = PoolStatistics::read(&path, &PredictionColumns::default(), None).unwrap();
    // TP weight only: all-ones (TP = 5/8) and perfect tie first.
    let m = Metric::from_result(
        &json!({"procedure": "binary-lpm", "elicited": {"m11": 1.0, "m00": 0.0}}),
    )
    .unwrap();
    let r = rank(&m, &stats).unwrap();
    assert_eq!(r[0].classifier, "all-ones");
    assert_eq!(r[1].classifier, "perfect");
    assert!((r[0].value - 0.625).abs() < 1e-15 && (r[1].value - 0.625).abs() < 1e-15);
    // F1 as an LFPM: (2TP)/(TP + ζ) ... p = (1, 0), q = (1/2, −1/2, 1/2).
    let f1 = Metric::from_result(
        &json!({"procedure": "binary-lfpm", "elicited": [1.0, 0.0, 0.5, -0.5, 0.5]}),
    )
    .unwrap();
    let r = rank(&f1, &stats).unwrap();
    assert_eq!(r[0].classifier, "perfect");
    assert!((r[0].value - 1.0).abs() < 1e-12);
    std::fs::remove_dir_all(&dir).ok();
}

// ---- Datasets of the ranking experiments ----

#[test]
fn adult_rebuild_has_the_papers_shape() {
    use metric_elicitation_lab::reproduce::ranking::{adult_rebuild, AdultGroups};
    let race = adult_rebuild(AdultGroups::Race).unwrap();
    assert_eq!((race.len(), race.features.ncols()), (43156, 74));
    assert_eq!(race.group_count, 3);
    let mut per_group = [0usize; 3];
    for g in &race.groups {
        per_group[*g] += 1;
    }
    // White, Black, Asian-Pac-Islander (shared/notes/real-data.md §6).
    assert_eq!(per_group, [38151, 4101, 904]);
    let sex = adult_rebuild(AdultGroups::Sex).unwrap();
    assert_eq!((sex.len(), sex.group_count), (43156, 2));
}

#[test]
fn ranking_harness_with_exact_metrics() {
    use metric_elicitation_lab::reproduce::ranking::{
        evaluate, exact_elicitor, fair_baseline, random_fair, ranking_data, wine_colour, Method,
        Source, FAIR_METHODS,
    };
    let data = ranking_data("wine", &wine_colour().unwrap(), 12, 4).unwrap();
    assert_eq!((data.pool.classes, data.pool.groups), (3, 2));
    assert_eq!(data.pool.classifiers.len(), 12);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let truths: Vec<Metric> = (0..8)
        .map(|_| random_fair(3, 2, &mut rng).unwrap())
        .collect();
    let methods: Vec<Method<'_>> = FAIR_METHODS
        .iter()
        .map(|(name, a, b, l)| {
            let s = (*a, *b, *l);
            (
                *name,
                Box::new(move |t: &Metric, e: Option<&Metric>, r: &mut ChaCha8Rng| {
                    fair_baseline(s, t, e, r)
                })
                    as Box<
                        dyn Fn(
                            &Metric,
                            Option<&Metric>,
                            &mut ChaCha8Rng,
                        )
                            -> metric_elicitation::Result<Option<Metric>>,
                    >,
            )
        })
        .collect();
    let out = evaluate(&data, &truths, &methods, &exact_elicitor, 9).unwrap();
    for ((name, a, b, l), (scores, pending)) in FAIR_METHODS.iter().zip(&out) {
        assert_eq!(*pending, 0, "{name}");
        assert_eq!(scores.ndcg.len(), 8);
        // FPME with every part exact ranks like the truth.
        if [a, b, l].iter().all(|s| **s == Source::Elicited) {
            assert!(scores.ndcg.iter().all(|v| (v - 1.0).abs() < 1e-12));
            assert!(scores.tau.iter().all(|v| (v - 1.0).abs() < 1e-12));
        }
        assert!(scores.ndcg.iter().all(|v| *v > 0.0 && *v <= 1.0 + 1e-12));
    }
}

#[test]
fn elicitors_rank_real_classifiers_like_the_truth() {
    use metric_elicitation::metric::quadratic::QuadraticMetric;
    use metric_elicitation_lab::reproduce::ranking::{
        default_marriage, evaluate, fair_qpme_elicitor, fpme_elicitor, fpme_on_quadratic_elicitor,
        random_fair, random_fair_quadratic, ranking_data, table4_elicitor, wine_colour, Method,
        Table4Method,
    };
    use nalgebra::{dmatrix, dvector};
    let same: Vec<Method<'_>> = vec![(
        "elicited",
        Box::new(|_: &Metric, e: Option<&Metric>, _: &mut ChaCha8Rng| Ok(e.cloned())),
    )];
    // 001: FPME on wine's data-derived sphere (k = 3, m = 2).
    let data = ranking_data("wine", &wine_colour().unwrap(), 12, 4).unwrap();
    let sphere = data.sphere.clone().unwrap();
    assert!(sphere.certified && sphere.radius >= sphere.guarantee && sphere.radius > 0.0);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let truths: Vec<Metric> = (0..4)
        .map(|_| random_fair(3, 2, &mut rng).unwrap())
        .collect();
    let (scores, missing) = evaluate(&data, &truths, &same, &fpme_elicitor, 9)
        .unwrap()
        .remove(0);
    assert_eq!(missing, 0);
    assert!(scores.tau.iter().all(|t| *t > 0.9), "{:?}", scores.tau);
    // 000: on a k = 2 data set, fair QPME and FPME on Def. 4 truths, and the
    // four Table 4 elicitations of a quadratic truth in general rates.
    let data = ranking_data("default", &default_marriage().unwrap(), 12, 4).unwrap();
    let truths: Vec<Metric> = (0..4)
        .map(|_| random_fair_quadratic(2, 2, &mut rng).unwrap())
        .collect();
    for (elicitor, least) in [
        (&fair_qpme_elicitor as &dyn Fn(&_, &_, &mut _) -> _, 0.9),
        (&fpme_on_quadratic_elicitor, -1.0),
    ] {
        let (scores, missing) = evaluate(&data, &truths, &same, elicitor, 9)
            .unwrap()
            .remove(0);
        assert_eq!(scores.tau.len() + missing, 4);
        assert!(scores.tau.iter().all(|t| *t >= least), "{:?}", scores.tau);
    }
    let quadratic = Metric::new(
        On::new(
            QuadraticMetric::as_given(dvector![0.3, -0.5], dmatrix![-0.6, 0.2; 0.2, -0.5]).unwrap(),
            Statistic::RatesOffDiagonal,
        )
        .unwrap(),
    );
    for rates in [Statistic::RatesDiagonal, Statistic::RatesOffDiagonal] {
        let elicitor = table4_elicitor(Table4Method {
            quadratic: true,
            rates,
        });
        let (scores, missing) =
            evaluate(&data, std::slice::from_ref(&quadratic), &same, &elicitor, 9)
                .unwrap()
                .remove(0);
        assert_eq!(missing, 0);
        assert!(scores.tau[0] > 0.95, "{rates:?}: {:?}", scores.tau);
    }
}

// ---- The reproduction jobs, with few metrics ----

#[test]
fn real_data_jobs_run_and_report_consistent_sets() {
    use metric_elicitation_lab::reproduce::real::{figure3, table2_magic, table3, table3_readings};
    let rows = table3::<f64>(2019, &table3_readings()[..1]).unwrap();
    assert_eq!(rows.len(), 16);
    for r in &rows {
        // Every row reports the consistent sets of its 28 elicitations.
        assert!(
            r.note.contains("consistent set wider than eps"),
            "{}",
            r.note
        );
        assert_eq!(r.trials, Some(28));
        // The mirror symmetry of the two quadrants: failures come in pairs.
        let failed = (r.elicited[0] * 28.0).round() as usize;
        assert_eq!(failed % 2, 0, "{}: {failed}", r.row);
    }
    let rows = table2_magic::<f64>(2019, 1.0, Confusions::Labelled, false).unwrap();
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r.sigma.is_some()), "{rows:?}");
    let rows = figure3::<f64>(2019, 10).unwrap();
    assert_eq!(rows.len(), 18);
    for r in &rows {
        assert_eq!(r.elicited.len(), 11);
        assert!(r.elicited.windows(2).all(|w| w[0] <= w[1]), "{}", r.row);
        assert!(r.note.contains("warnings (consistent set wider than eps)"));
    }
}

// ---- pools of real classifiers ----

/// A pool is a function of its data and seed: built twice in one process
/// (where a randomly seeded hash map would differ between the two builds),
/// every classifier predicts the same classes. Wine's features are rounded
/// measurements with many ties, where CART's modal votes and equal Gini
/// gains are decided by its tie rule.
#[test]
fn pools_are_reproducible() {
    use metric_elicitation_lab::pool;
    let cols = Columns {
        label: "label".into(),
        group: Some("group".into()),
        bins: Some(vec![3.0, 4.0]),
        ..Columns::default()
    };
    let all = data("wine_quality_multiclass.csv.gz")
        .prepare(&cols)
        .unwrap();
    let even: Vec<usize> = (0..3000).step_by(2).collect();
    let odd: Vec<usize> = (1..3000).step_by(2).collect();
    let (train, test) = (all.subset(&even), all.subset(&odd));
    let first = pool::build(&train, &test, 16, 11).unwrap();
    let second = pool::build(&train, &test, 16, 11).unwrap();
    assert_eq!(first.len(), 16);
    assert_eq!(first, second);
    // Not a degenerate pool: the members disagree with one another.
    let distinct: std::collections::BTreeSet<&Vec<usize>> =
        first.iter().map(|c| &c.predictions).collect();
    assert!(distinct.len() >= 8, "{} distinct members", distinct.len());
    // Another seed gives another pool.
    assert_ne!(first, pool::build(&train, &test, 16, 12).unwrap());
}

/// The fairness share (000 Table 3's diagnostic) is zero when no classifier
/// treats the groups differently and grows linearly with B.
#[test]
fn fairness_share_measures_the_violation_term() {
    use metric_elicitation::metric::Linear;
    use metric_elicitation_lab::reproduce::ranking::{fair_quadratic_as_given, fairness_share};
    let labels = [0, 1, 0, 1, 0, 1, 0, 1];
    let groups = [0, 0, 0, 0, 1, 1, 1, 1];
    // Two fixed classifiers and a third, `last`.
    let pool = |name: &str, last: Vec<usize>| {
        PoolStatistics::from_predictions(
            &[
                ("all-0".into(), vec![0; 8]),
                ("perfect".into(), labels.to_vec()),
                (name.into(), last),
            ],
            &labels,
            Some(&groups),
        )
        .unwrap()
    };
    // Each classifier makes the same predictions in both groups.
    let fair = pool("half", vec![0, 1, 1, 1, 0, 1, 1, 1]);
    let truth = |scale: f64| {
        fair_quadratic_as_given(
            vec![0.6, 0.8],
            vec![vec![vec![scale, 0.0], vec![0.0, scale]]],
            0.5,
        )
        .unwrap()
    };
    assert_eq!(fairness_share(&truth(1.0), &fair).unwrap(), Some(0.0));
    // One classifier errs on class 1 in group 1 only.
    let unfair = pool("group-1-errs", vec![0, 1, 0, 1, 0, 0, 0, 0]);
    let one = fairness_share(&truth(1.0), &unfair).unwrap().unwrap();
    let two = fairness_share(&truth(2.0), &unfair).unwrap().unwrap();
    assert!(one > 0.0);
    assert!((two / one - 2.0).abs() < 1e-12, "{one} {two}");
    // Not a fair quadratic metric: no share.
    let linear = Metric::new(
        On::new(
            Linear(nalgebra::dvector![0.6, 0.8]),
            Statistic::JointDiagonal,
        )
        .unwrap(),
    );
    assert_eq!(fairness_share(&linear, &unfair).unwrap(), None);
}
