//! The work bound: an evaluate case (fuzzed images and host values, as the `evaluate` target
//! decodes them) run once under its budget, and a component of its entry initialized and
//! dispatched under it (and the components its outputs render started as its children), whose
//! only assertion is that the evaluator's work counter stays within `WORK_PER_UNIT` ×
//! (operations charged + input size + free copies + 1) for each call, a dispatch's instance and
//! a child's parent counted as input (`nx_ir_core::testing::fuzz::work_bound_case`). Half the
//! mutations are structured (`mutate_evaluate_case`, whose retyped calls bring records, union
//! cases and lists of thousands shaped after the declared types), half are libFuzzer's own.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use nx_ir_core::testing::fuzz::{mutate_evaluate_case_in_place, work_bound_case};

fuzz_target!(|data: &[u8]| work_bound_case(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_evaluate_case_in_place(data, size, max_size, seed).unwrap_or_else(|| fuzzer_mutate(data, size, max_size))
});
