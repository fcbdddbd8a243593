//! `rank` agrees with a brute-force evaluation (issue #29, item 2's
//! evidence): random predictions files, with and without a group column,
//! ranked by a random diagonal metric through the library's `rank_files`
//! (what `elicit rank` runs), against the utility Σᵢ aᵢ·P(Y = i, h = i)
//! counted directly from the rows.

use metric_elicitation::driver::rank::{rank_files, PredictionColumns};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

static CASE: AtomicUsize = AtomicUsize::new(0);

/// A deterministic stream from `seed` (xorshift).
fn stream(seed: u64) -> impl FnMut() -> u64 {
    let mut state = (seed ^ 0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn rank_agrees_with_a_brute_force_evaluation(
        k in 2usize..=4,
        n in 4usize..=40,
        pool in 1usize..=5,
        group in any::<bool>(),
        seed in any::<u64>(),
        weights in proptest::collection::vec(1u32..=100, 4),
    ) {
        let mut next = stream(seed);
        // Every class occurs (a class missing from the labels is refused,
        // rightly: the metric is for k classes).
        let labels: Vec<usize> = (0..n)
            .map(|r| if r < k { r } else { (next() % k as u64) as usize })
            .collect();
        // Both groups occur, as every class does (a group code that never
        // occurs is refused).
        let groups: Vec<usize> = (0..n)
            .map(|r| if r < 2 { r } else { (next() % 2) as usize })
            .collect();
        let preds: Vec<Vec<usize>> = (0..pool)
            .map(|_| labels.iter().map(|&y| if next().is_multiple_of(2) { y } else { (next() % k as u64) as usize }).collect())
            .collect();
        // Columns in a shuffled order: the label (and group) need not be last.
        let mut header: Vec<String> = (0..pool).map(|c| format!("model_{c}")).collect();
        header.insert((next() % (pool as u64 + 1)) as usize, "label".into());
        if group {
            header.insert((next() % (pool as u64 + 2)) as usize, "group".into());
        }
        let mut text = header.join(",") + "\n";
        for r in 0..n {
            let row: Vec<String> = header
                .iter()
                .map(|h| match h.as_str() {
                    "label" => labels[r].to_string(),
                    "group" => groups[r].to_string(),
                    name => preds[name["model_".len()..].parse::<usize>().unwrap()][r].to_string(),
                })
                .collect();
            text += &(row.join(",") + "\n");
        }
        let dir = std::env::temp_dir().join(format!(
            "rank-properties-{}-{}",
            std::process::id(),
            CASE.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let (csv, metric) = (dir.join("predictions.csv"), dir.join("metric.json"));
        std::fs::write(&csv, text).unwrap();
        let a: Vec<f64> = weights[..k].iter().map(|w| f64::from(*w)).collect();
        std::fs::write(
            &metric,
            serde_json::json!({"procedure": "dlpm", "elicited": a}).to_string(),
        )
        .unwrap();
        let columns = PredictionColumns {
            label: "label".into(),
            group: group.then(|| "group".into()),
            classifiers: None,
        };
        let ranking = rank_files(&metric, &csv, &columns, None, None).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // Brute force: the weights as the file gives them, each
        // classifier's joint diagonal counts.
        let brute = |c: usize| -> f64 {
            (0..n)
                .filter(|&r| preds[c][r] == labels[r])
                .map(|r| a[labels[r]])
                .sum::<f64>()
                / n as f64
        };
        prop_assert_eq!(ranking.ranking.len(), pool, "every classifier, no group or label column");
        for w in ranking.ranking.windows(2) {
            prop_assert!(w[0].value >= w[1].value, "best first");
        }
        for r in &ranking.ranking {
            let c: usize = r.classifier["model_".len()..].parse().unwrap();
            prop_assert!((r.value - brute(c)).abs() <= 1e-12, "{}: {} vs {}", r.classifier, r.value, brute(c));
        }
    }
}
