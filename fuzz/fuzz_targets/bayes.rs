//! The Bayesian engine (issue #28) on binary LPM, LPME and DLPM answered by
//! fuzzer-chosen answers, contradictory sequences included: no panic, a
//! finite posterior, no invisible question, and either a metric within its
//! credible promise or "undetermined" (see
//! `metric_elicitation::elicit::bayes::check`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::bayes_answers(data) {
        panic!("{violation}");
    }
});
