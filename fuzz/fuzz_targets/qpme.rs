//! QPME and fair QPME (000 Alg. 1 and 4) driven by fuzzer-chosen metrics and
//! answers inside the ε_Ω band: no panic, a normalized estimate or a typed
//! error (see `metric_elicitation_testkit::quadratic`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::quadratic::qpme_noisy(data) {
        panic!("{violation}");
    }
});
