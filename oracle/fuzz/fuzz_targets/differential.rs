//! nx-ir-core against the NX reference runtime of the entry image's schema, on fuzzed image sets
//! and calls (`nx_agent_oracle::differential`): a disagreement is a crash, its input kept by
//! libFuzzer. Half the mutations are the evaluate target's structured ones
//! (`mutate_evaluate_case`: an image decoded, changed as a model and encoded again, or the
//! call's arguments made again from the called function's declared types), half libFuzzer's
//! own. The verdict counts are printed when the process exits.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use nx_agent_oracle::differential::{differential_case, Verdict, COUNTS};
use nx_ir_core::testing::fuzz::mutate_evaluate_case_in_place;
use std::sync::Once;

extern "C" {
    fn atexit(callback: extern "C" fn()) -> i32;
}

extern "C" fn print_counts() {
    eprintln!("{COUNTS}");
}

fuzz_target!(|data: &[u8]| {
    static REGISTER: Once = Once::new();
    // SAFETY: `print_counts` only reads atomics and writes to stderr; libFuzzer leaves by exit().
    REGISTER.call_once(|| unsafe {
        atexit(print_counts);
    });
    if let Verdict::Disagreed(what) = differential_case(data) {
        panic!("nx-ir-core and the reference runtime disagree: {what}");
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_evaluate_case_in_place(data, size, max_size, seed).unwrap_or_else(|| fuzzer_mutate(data, size, max_size))
});
