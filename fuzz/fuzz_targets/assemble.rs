//! The assembler over fuzzed explain texts: a coded refusal, or an image that prepares and
//! whose explain text assembles to the same image (`nx_ir_core::testing::fuzz::assemble_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| nx_ir_core::testing::fuzz::assemble_case(data));
