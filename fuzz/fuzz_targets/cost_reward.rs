//! 004 Alg. 1 with fuzzer-chosen attribute ranges, weights and in-band
//! answers: no panic, a guarantee or a typed error (see
//! `metric_elicitation_testkit::cost_reward`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::cost_reward::cost_reward(data) {
        panic!("{violation}");
    }
});
