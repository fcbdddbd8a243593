//! FPME (001 Alg. 1) driven by fuzzer-chosen answers inside the ε_Ω band on
//! random fair metrics: no panic, and every estimate within its guarantee or
//! a typed error (see `metric_elicitation_testkit::fair`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::fpme_noisy(data) {
        panic!("{violation}");
    }
});
