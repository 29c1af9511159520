//! `Program::link` over a fuzzed set of images with a resolver over the set and the built-in
//! prelude, then `CompiledProgram::compile` (`nx_ir_core::testing::fuzz::link_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| nx_ir_core::testing::fuzz::link_case(data));
