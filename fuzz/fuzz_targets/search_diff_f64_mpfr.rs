//! Differential target: the same answer sequence drives the search in f64 and
//! in `Mpfr<256>`; both must end in the same interval.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = metric_elicitation_testkit::search_diff_f64_mpfr(data) {
        panic!("{violation}");
    }
});
