//! The work bound over generated programs: every corpus program's images, structurally mutated
//! (`mutate_evaluate_case`, as the `work_bound` fuzz target mutates them) and called with
//! generated host values and limits (and a component of the entry initialized and dispatched
//! under the same limits, its instance counted as a dispatch's input), keep the evaluator's
//! work within
//! `WORK_PER_UNIT` × (operations charged + input size + free copies + 1), one constant for every
//! node kind and intrinsic (free copies: what the update intrinsics copy that no structure
//! shares, the frames handlers capture and the slots binds skip over, which the reference
//! charges nothing for and the memory ceiling bounds); the same cases count the same in another
//! process; and every input the `work_bound` fuzz target found is replayed.

mod support;

use std::path::Path;

use nx_ir_core::testing::fuzz::{
    component_work_of_case, mutate_evaluate_case, ComponentCall, work_bound, work_bound_case, work_of_calls, work_of_case, write_chunks, Rng, WORK_PER_UNIT,
};
use support::corpus;

/// Cases per corpus entry module: the generated call, then each of its mutants in a chain.
const CALLS: u64 = 24;
const CHAIN: u64 = 4;

/// Each generated case: `calls` generated calls per corpus entry module (mode, limits and
/// values from one seeded generator), each followed by a chain of up to [`CHAIN`] mutants.
/// `visit` gets the program's name, the entry's identity, the step in the chain and the input.
fn each_generated_case(dir: &Path, calls: u64, mut visit: impl FnMut(&str, &str, u64, &[u8])) {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    for program in corpus::programs(dir) {
        let name = corpus::name(&program);
        for (identity, images) in corpus::entry_first_image_sets(&program) {
            let parts: Vec<&[u8]> = images.iter().map(Vec::as_slice).collect();
            for _ in 0..calls {
                // The call: flags (mode, limits) and the call bytes, then generated values.
                let flags = (rng.next() as u8) & !2;
                let mut call = rng.bytes(11);
                // Keep budgets mostly large enough to run.
                call[2] |= 0x10;
                call[3] |= 0x01;
                call.extend(rng.bytes(48));
                let mut input = vec![flags];
                input.extend(write_chunks(&[&call]));
                input.extend(write_chunks(&parts));
                for step in 0..=CHAIN {
                    visit(&name, &identity, step, &input);
                    match mutate_evaluate_case(&input, rng.next() | 1) {
                        Some(mutant) => input = mutant,
                        None => break,
                    }
                }
            }
        }
    }
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn generated_programs_keep_work_within_the_bound() {
    let Some(dir) = corpus::dir_or_skip("work bound") else {
        return;
    };
    let (mut cases, mut ran, mut component_calls, mut dispatches, mut children) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut worst = (0.0f64, String::new());
    each_generated_case(&dir, CALLS, |program, identity, step, input| {
        cases += 1;
        let function = work_of_case(input);
        ran += u64::from(function.is_some());
        let components = component_work_of_case(input);
        component_calls += components.len() as u64;
        dispatches += components.iter().filter(|(call, _)| *call == ComponentCall::Dispatch).count() as u64;
        children += components.iter().filter(|(call, _)| *call == ComponentCall::Child).count() as u64;
        for paid in function.into_iter().chain(components.into_iter().map(|(_, paid)| paid)) {
            let ratio = paid.work as f64 / paid.units() as f64;
            if ratio > worst.0 {
                worst = (ratio, format!("{program} ({identity}, step {step}): {paid:?}"));
            }
            if let Err(message) = work_bound(paid) {
                panic!("{program}: {message}");
            }
        }
    });
    println!(
        "work bound: {ran} of {cases} generated cases ran, and {component_calls} component calls ({dispatches} dispatches, {children} children started under their parents); K = {WORK_PER_UNIT}; worst ratio {:.2}: {}",
        worst.0, worst.1
    );
    assert!(ran * 2 > cases, "only {ran} of {cases} generated cases reached a call");
    assert!(dispatches > 100, "only {dispatches} of {component_calls} component calls were dispatches");
    assert!(children > 0, "none of {component_calls} component calls started a child under its parent");
}

/// What a call does and is paid is a function of the call alone: the same generated cases count
/// the same work, operations, input and free copies in another process (a hash keyed per
/// process, or an order taken from addresses, would show here).
#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn generated_programs_count_the_same_in_every_process() {
    let Some(dir) = corpus::dir_or_skip("work bound") else {
        return;
    };
    // FNV-1a over every count of every call, in order.
    let (mut digest, mut calls) = (0xcbf2_9ce4_8422_2325u64, 0u64);
    each_generated_case(&dir, CALLS, |_, _, _, input| {
        for paid in work_of_calls(input) {
            calls += 1;
            for count in [paid.work, paid.operations, paid.input, paid.free_copies] {
                for byte in count.to_le_bytes() {
                    digest = (digest ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
    });
    assert!(calls > 500, "only {calls} calls");
    support::process::same_in_a_child("generated_programs_count_the_same_in_every_process", &format!("{calls} calls, digest {digest:016x}"));
}

/// The kept inputs: what the fuzz target found, and the worst ratio of its 30-minute run (9.95).
#[test]
fn work_bound_regressions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/work_bound");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir).expect("the kept inputs").map(|entry| entry.expect("an entry").path()).collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    for path in &inputs {
        let data = std::fs::read(path).expect("a regression input");
        let paid = work_of_case(&data).expect("the kept input reaches a call");
        if let Err(message) = work_bound(paid) {
            panic!("{}: {message}", path.display());
        }
        work_bound_case(&data);
    }
}
