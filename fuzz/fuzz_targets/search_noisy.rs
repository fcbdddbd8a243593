//! The unimodal search driven by fuzzer-chosen answers inside the ε_Ω band:
//! no panic, and the noisy guarantee holds (see `metric_elicitation::fuzzing`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::search_noisy(data) {
        panic!("{violation}");
    }
});
