//! Replays every input saved under `fuzz/regressions/<target>/` (crashes the
//! fuzzers found, and seeds) through the same checks the fuzz targets run.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8]) -> Result<(), String>) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("regression folder") {
        let path = entry.expect("entry").path();
        let data = std::fs::read(&path).expect("readable input");
        if let Err(violation) = check(&data) {
            panic!("{}: {violation}", path.display());
        }
        n += 1;
    }
    n
}

#[test]
fn search_noisy_regressions() {
    assert!(replay("search_noisy", metric_elicitation_testkit::search_noisy) > 0);
}

#[test]
fn fpme_noisy_regressions() {
    assert!(replay("fpme", metric_elicitation_testkit::fpme_noisy) > 0);
}

#[cfg(feature = "mpfr")]
#[test]
fn search_diff_f64_mpfr_regressions() {
    assert!(
        replay(
            "search_diff_f64_mpfr",
            metric_elicitation_testkit::search_diff_f64_mpfr
        ) > 0
    );
}

#[test]
fn qpme_regressions() {
    assert!(replay("qpme", metric_elicitation_testkit::quadratic::qpme_noisy) > 0);
}

#[test]
fn cost_reward_regressions() {
    assert!(
        replay(
            "cost_reward",
            metric_elicitation_testkit::cost_reward::cost_reward
        ) > 0
    );
}

#[test]
fn bayes_regressions() {
    assert!(replay("bayes", metric_elicitation_testkit::bayes_answers) > 0);
}
