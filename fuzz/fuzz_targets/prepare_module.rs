//! `PreparedModule::prepare` over arbitrary bytes: a coded refusal, or a module that reads,
//! round-trips and explains (`nx_ir_core::testing::fuzz::prepare_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| nx_ir_core::testing::fuzz::prepare_case(data));
