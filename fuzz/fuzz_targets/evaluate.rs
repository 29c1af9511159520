//! `evaluate_function` / `call_function` of fuzzed images with fuzzed host values under a small
//! budget and input size limit (`nx_ir_core::testing::fuzz::evaluate_case`). Half the mutations
//! are structured (`mutate_evaluate_case`: an image decoded, changed as a model and encoded, so
//! that it mostly still prepares and reaches the evaluator, or the call's arguments made again
//! from the called function's declared types), half are libFuzzer's own.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use nx_ir_core::testing::fuzz::{evaluate_case, mutate_evaluate_case_in_place};

fuzz_target!(|data: &[u8]| evaluate_case(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_evaluate_case_in_place(data, size, max_size, seed).unwrap_or_else(|| fuzzer_mutate(data, size, max_size))
});
