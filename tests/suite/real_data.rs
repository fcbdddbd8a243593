//! Real data end to end (issue 13): fitting η̂, dataset populations, the
//! sphere finder's certificate, ranking, NDCG and Kendall τ.

use metric_elicitation::driver::rank::{
    compare, compare_scores, kendall_tau_b, rank, Metric, PoolStatistics,
};
use metric_elicitation::driver::spec::Confusions;
use metric_elicitation::fit::{fit_dataset, Columns, DatasetSettings, Regularization, Table};
use metric_elicitation::geometry::feasible::Normalization;
use metric_elicitation::population::{
    BinaryPopulation, DatasetPopulation, MulticlassPopulation, Side,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::path::Path;

fn data(name: &str) -> Table {
    Table::read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("lab/data")
            .join(name),
    )
    .unwrap()
}

fn fitted(name: &str, columns: Columns, split: f64) -> metric_elicitation::fit::FittedDataset {
    let mut s = DatasetSettings::new(columns);
    s.split = split;
    s.seed = 3;
    s.regularization = Regularization::Weight(1.0);
    fit_dataset(&data(name), &s).unwrap()
}

fn label(name: &str) -> Columns {
    Columns {
        label: name.into(),
        ..Columns::default()
    }
}

// ---- NDCG and Kendall τ-b against hand-computed values ----

#[test]
fn ndcg_exponential_gain_by_hand() {
    // True utilities A 3, B 2, C 1: rel = (u − 1)/2 = (1, ½, 0), gains
    // 2^rel − 1 = (1, √2 − 1, 0); ideal DCG = 1 + (√2 − 1)/log₂3.
    let truth = [3.0, 2.0, 1.0];
    // Candidate order B, A, C: DCG = (√2 − 1) + 1/log₂3.
    let c = compare_scores(&[2.0, 3.0, 1.0], &truth, false);
    assert!((c.ndcg.exponential - 0.828_597_837_995_113_7).abs() < 1e-12);
    // The truth's own order gives 1.
    assert!((compare_scores(&truth, &truth, false).ndcg.exponential - 1.0).abs() < 1e-15);
    // A and B tied first: each gets the mean discount (1 + 1/log₂3)/2.
    let tie = compare_scores(&[1.0, 1.0, 0.0], &truth, false);
    assert!((tie.ndcg.exponential - 0.914_298_918_997_556_9).abs() < 1e-12);
}

#[test]
fn ndcg_linear_gain_on_inverse_costs_by_hand() {
    // Costs A 1, B 2, C 4: gains 1/cost = (1, ½, ¼); ideal 1 + ½/log₂3 + ¼/2.
    let costs = [1.0, 2.0, 4.0];
    // Candidate order C, B, A (candidate utilities increasing in the cost).
    let c = compare_scores(&[1.0, 2.0, 4.0], &costs, true);
    assert!((c.ndcg.linear.unwrap() - 0.739_667_376_800_759_2).abs() < 1e-12);
    assert_eq!(c.kendall_tau_b, Some(-1.0));
    // A non-positive cost has no linear gain.
    assert!(compare_scores(&[0.0, 1.0], &[0.0, 1.0], true)
        .ndcg
        .linear
        .is_none());
}

#[test]
fn kendall_tau_b_by_hand_with_ties() {
    // One discordant pair of six: (5 − 1)/6.
    let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
    assert!((t - 4.0 / 6.0).abs() < 1e-15);
    // One tie in each: n₀ = 6, n₁ = n₂ = 1, four concordant pairs: 4/5.
    let t = kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]).unwrap();
    assert!((t - 0.8).abs() < 1e-15);
    // A constant side has no τ.
    assert_eq!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
}

// ---- Ranking against brute force ----

/// A classifier right with its own probability (its skill, drawn first),
/// otherwise predicting a uniformly random class.
fn noisy_predictions(rng: &mut ChaCha8Rng, labels: &[usize], k: usize) -> Vec<usize> {
    let skill = rng.random_range(0.2..0.9);
    labels
        .iter()
        .map(|&y| {
            if rng.random_bool(skill) {
                y
            } else {
                rng.random_range(0..k)
            }
        })
        .collect()
}

fn random_pool(k: usize, m: usize, n: usize, classifiers: usize, seed: u64) -> PoolStatistics {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let groups: Vec<usize> = (0..n).map(|i| (i / k) % m).collect();
    let pool: Vec<(String, Vec<usize>)> = (0..classifiers)
        .map(|c| (format!("c{c}"), noisy_predictions(&mut rng, &labels, k)))
        .collect();
    PoolStatistics::from_predictions(&pool, &labels, Some(&groups)).unwrap()
}

/// The metric evaluated from first principles: counts of (label, prediction,
/// group) per classifier, recomputed here without the library's statistics.
fn brute_force(metric: &serde_json::Value, k: usize, m: usize, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let groups: Vec<usize> = (0..n).map(|i| (i / k) % m).collect();
    let proc_ = metric["procedure"].as_str().unwrap();
    let w: Vec<f64> = match &metric["elicited"] {
        serde_json::Value::Array(a) => a.iter().map(|v| v.as_f64().unwrap()).collect(),
        _ => vec![],
    };
    let mut out = Vec::new();
    for _ in 0..30 {
        let h = noisy_predictions(&mut rng, &labels, k);
        let count = |i: usize, j: usize, g: Option<usize>| {
            (0..n)
                .filter(|&r| labels[r] == i && h[r] == j && g.is_none_or(|g| groups[r] == g))
                .count() as f64
        };
        let value = match proc_ {
            "dlpm" => (0..k).map(|i| w[i] * count(i, i, None) / n as f64).sum(),
            "lpme" => {
                // Off-diagonal joint confusions (the coordinates of `run`'s
                // sphere), row-major without the diagonal.
                let mut s = 0.0;
                let mut idx = 0;
                for i in 0..k {
                    for j in 0..k {
                        if i != j {
                            s += w[idx] * count(i, j, None) / n as f64;
                            idx += 1;
                        }
                    }
                }
                s
            }
            _ => {
                // fpme: (1 − λ)⟨a, r⟩ + λ Σ_{u<v}⟨b, |r^u − r^v|⟩ (a cost).
                let a: Vec<f64> = metric["elicited"]["a"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                let b: Vec<Vec<f64>> = metric["elicited"]["B"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        r.as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_f64().unwrap())
                            .collect()
                    })
                    .collect();
                let lambda = metric["elicited"]["lambda"].as_f64().unwrap();
                let rate = |i: usize, j: usize, g: usize| {
                    let row: f64 = (0..k).map(|jj| count(i, jj, Some(g))).sum();
                    count(i, j, Some(g)) / row
                };
                let class_total = |i: usize| labels.iter().filter(|&&y| y == i).count() as f64;
                let tau = |g: usize, i: usize| {
                    (0..n).filter(|&r| labels[r] == i && groups[r] == g).count() as f64
                        / class_total(i)
                };
                let (mut linear, mut fair, mut idx) = (0.0, 0.0, 0);
                for i in 0..k {
                    for j in 0..k {
                        if i == j {
                            continue;
                        }
                        let overall: f64 = (0..m).map(|g| tau(g, i) * rate(i, j, g)).sum();
                        linear += a[idx] * overall;
                        let mut pair = 0;
                        for u in 0..m {
                            for v in (u + 1)..m {
                                fair += b[pair][idx] * (rate(i, j, u) - rate(i, j, v)).abs();
                                pair += 1;
                            }
                        }
                        idx += 1;
                    }
                }
                -((1.0 - lambda) * linear + lambda * fair)
            }
        };
        out.push(value);
    }
    out
}

#[test]
fn rank_orders_a_pool_as_brute_force_does() {
    let (k, m, n) = (3, 2, 240);
    let metrics = [
        json!({"procedure": "dlpm", "elicited": [0.5, 0.3, 0.2]}),
        json!({"procedure": "lpme", "elicited": [-0.3, 0.1, -0.5, 0.2, -0.7, -0.1]}),
        json!({"procedure": "fpme", "elicited": {"a": [0.4, 0.4, 0.4, 0.4, 0.4, 0.46], "B": [[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]], "lambda": 0.3}}),
    ];
    for (seed, metric) in metrics.iter().enumerate() {
        let seed = seed as u64 + 10;
        let pool = random_pool(k, m, n, 30, seed);
        let brute = brute_force(metric, k, m, n, seed);
        let parsed = Metric::from_result(metric).unwrap();
        let ranked = rank(&parsed, &pool).unwrap();
        let mut expected: Vec<usize> = (0..30).collect();
        expected.sort_by(|&a, &b| brute[b].total_cmp(&brute[a]));
        let names: Vec<String> = expected.iter().map(|i| format!("c{i}")).collect();
        let got: Vec<String> = ranked.iter().map(|r| r.classifier.clone()).collect();
        assert_eq!(got, names, "{metric}");
        for (r, i) in ranked.iter().zip(&expected) {
            let v = if parsed.is_cost() { -r.value } else { r.value };
            assert!(
                (v - brute[*i]).abs() < 1e-12,
                "{metric}: {v} vs {}",
                brute[*i]
            );
        }
        // Ranking by the truth itself is perfect.
        let c = compare(&parsed, &parsed, &pool).unwrap();
        assert!((c.ndcg.exponential - 1.0).abs() < 1e-12);
        assert_eq!(c.kendall_tau_b, Some(1.0));
    }
}

// ---- Dataset populations ----

#[test]
fn labelled_and_expected_binary_confusions_count_what_they_say() {
    let fit = fitted("breast_cancer_wdbc.csv.gz", label("label"), 0.5);
    let labelled = DatasetPopulation::<f64>::new(&fit, Confusions::Labelled).unwrap();
    let expected = DatasetPopulation::<f64>::new(&fit, Confusions::Expected).unwrap();
    let eta: Vec<f64> = fit.eta.column(1).to_vec();
    let y = &fit.held_out.labels;
    let n = y.len() as f64;
    for delta in [0.1, 0.5, 0.9] {
        let (m11, m00) = (1.0 - delta, delta);
        let c = labelled
            .binary()
            .unwrap()
            .threshold_confusion(&m11, &m00, Side::Upper);
        let tp = eta
            .iter()
            .zip(y)
            .filter(|(e, &y)| **e >= delta && y == 1)
            .count() as f64
            / n;
        let tn = eta
            .iter()
            .zip(y)
            .filter(|(e, &y)| **e < delta && y == 0)
            .count() as f64
            / n;
        assert!((c.tp - tp).abs() < 1e-15 && (c.tn - tn).abs() < 1e-15);
        let c = expected
            .binary()
            .unwrap()
            .threshold_confusion(&m11, &m00, Side::Upper);
        let tp: f64 = eta.iter().filter(|e| **e >= delta).sum::<f64>() / n;
        let tn: f64 = eta
            .iter()
            .filter(|e| **e < delta)
            .map(|e| 1.0 - e)
            .sum::<f64>()
            / n;
        assert!((c.tp - tp).abs() < 1e-12 && (c.tn - tn).abs() < 1e-12);
    }
    assert!((labelled.binary().unwrap().zeta() - y.iter().sum::<usize>() as f64 / n).abs() < 1e-15);
    assert!(labelled.summary().accuracy > 0.9);
}

#[test]
fn expected_rbo_confusions_sum_eta() {
    let fit = fitted("vehicle.csv.gz", label("label"), 0.5);
    let pop = DatasetPopulation::<f64>::new(&fit, Confusions::Expected).unwrap();
    let d = pop.rbo_diagonal(0, 2, &0.5, &0.5).unwrap();
    let n = fit.held_out.len() as f64;
    let (mut d0, mut d2) = (0.0, 0.0);
    for row in fit.eta.rows() {
        if row[0] >= row[2] {
            d0 += row[0];
        } else {
            d2 += row[2];
        }
    }
    assert!((d[0] - d0 / n).abs() < 1e-12 && (d[2] - d2 / n).abs() < 1e-12);
    assert_eq!((d[1], d[3]), (0.0, 0.0));
}

// ---- The sphere finder's certificate ----

#[test]
fn sphere_certificate_holds_on_breast_cancer_rates() {
    let fit = fitted("breast_cancer_wdbc.csv.gz", label("label"), 0.5);
    for confusions in [Confusions::Labelled, Confusions::Expected] {
        let pop = DatasetPopulation::<f64>::new(&fit, confusions).unwrap();
        let found = pop
            .find_sphere(Normalization::Rates, false, 100, 5)
            .unwrap();
        assert!(found.certificate.holds, "{:?}", found.certificate);
        assert_eq!(found.certificate.points, 104);
        // P27: rho >= min_j c_j / sqrt(q), and rho <= s~ <= min_j c_j.
        assert!(found.radius >= found.guarantee - 1e-15);
        assert!(found.radius <= found.min_extent);
        if let Some(s) = found.s_tilde_upper {
            assert!(found.radius <= s + 1e-9, "{} > {s}", found.radius);
        }
        assert!(found.certificate.min_uniform_weight >= 0.0);
    }
}

#[test]
fn sphere_certificate_holds_on_vehicle_joint_and_wine_groups() {
    // k = 4, one group, joint confusions (002's LPM space).
    let fit = fitted("vehicle.csv.gz", label("label"), 0.5);
    let pop = DatasetPopulation::<f64>::new(&fit, Confusions::Labelled).unwrap();
    let found = pop.find_sphere(Normalization::Joint, false, 50, 2).unwrap();
    assert!(found.certificate.holds, "{:?}", found.certificate);
    assert_eq!(found.sphere.dim(), 12);
    // k = 3 (wine quality <= 5, 6, >= 7), two colour groups, rates.
    let cols = Columns {
        label: "label".into(),
        group: Some("group".into()),
        bins: Some(vec![3.0, 4.0]),
        ..Columns::default()
    };
    let fit = fitted("wine_quality_multiclass.csv.gz", cols, 0.5);
    let pop = DatasetPopulation::<f64>::new(&fit, Confusions::Labelled).unwrap();
    assert_eq!((pop.classes(), pop.groups()), (3, 2));
    let found = pop.find_sphere(Normalization::Rates, true, 50, 2).unwrap();
    assert!(found.certificate.holds, "{:?}", found.certificate);
    assert_eq!(found.certificate.groups, 2);
    // Every group's extents bound the intersection's.
    for e in &found.extents {
        let c = if e.positive {
            &found.c_plus
        } else {
            &found.c_minus
        };
        assert!(c[e.axis] <= e.c);
    }
    // τ's columns sum to 1.
    let tau = pop.tau();
    assert_eq!(tau[0].len(), 3);
    for (a, b) in tau[0].iter().zip(&tau[1]) {
        assert!((a + b - 1.0).abs() < 1e-12);
    }
}

#[cfg(feature = "mpfr")]
#[test]
fn sphere_certificate_at_256_bits() {
    use metric_elicitation::scalar::Mpfr;
    type M = Mpfr<256>;
    let fit = fitted("breast_cancer_wdbc.csv.gz", label("label"), 0.5);
    let pop = DatasetPopulation::<M>::new(&fit, Confusions::Labelled).unwrap();
    let found = pop.find_sphere(Normalization::Rates, false, 20, 5).unwrap();
    assert!(found.certificate.holds, "{:?}", found.certificate);
    // The basis is re-solved at 256 bits: the realized rates match to far
    // below f64's resolution.
    assert!(
        found.certificate.max_deviation < 1e-60,
        "{:?}",
        found.certificate
    );
}
