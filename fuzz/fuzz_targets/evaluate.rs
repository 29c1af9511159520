//! `evaluate_function` / `call_function` of fuzzed images with fuzzed host values under a small
//! budget and input size limit (`nx_ir_core::testing::fuzz::evaluate_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| nx_ir_core::testing::fuzz::evaluate_case(data));
