//! The work bound over generated programs: every corpus program's images, structurally mutated
//! (`mutate_evaluate_case`, as the `work_bound` fuzz target mutates them) and called with
//! generated host values and limits (and a component of the entry initialized and dispatched
//! under the same limits, its instance counted as a dispatch's input), keep the evaluator's
//! work within
//! `WORK_PER_UNIT` × (operations charged + input size + free copies + 1), one constant for every
//! node kind and intrinsic (free copies: what the update intrinsics copy that no structure
//! shares, the frames handlers capture and the slots binds skip over, which the reference
//! charges nothing for and the memory ceiling bounds); and every
//! input the `work_bound` fuzz target found is replayed.

mod support;

use std::path::Path;

use nx_ir_core::testing::fuzz::{component_work_of_case, mutate_evaluate_case, work_bound, work_bound_case, work_of_case, write_chunks, Rng, WORK_PER_UNIT};
use support::corpus;

/// Cases per corpus entry module: the generated call, then each of its mutants in a chain.
const CALLS: u64 = 24;
const CHAIN: u64 = 4;

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn generated_programs_keep_work_within_the_bound() {
    let Some(dir) = corpus::dir_or_skip("work bound") else {
        return;
    };
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let (mut cases, mut ran, mut component_calls, mut dispatches) = (0u64, 0u64, 0u64, 0u64);
    let mut worst = (0.0f64, String::new());
    for program in corpus::programs(&dir) {
        for (identity, images) in corpus::entry_first_image_sets(&program) {
            let parts: Vec<&[u8]> = images.iter().map(Vec::as_slice).collect();
            for _ in 0..CALLS {
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
                    cases += 1;
                    let function = work_of_case(&input);
                    ran += u64::from(function.is_some());
                    let components = component_work_of_case(&input);
                    component_calls += components.len() as u64;
                    dispatches += components.len().saturating_sub(1) as u64;
                    for paid in function.into_iter().chain(components) {
                        let ratio = paid.work as f64 / paid.units() as f64;
                        if ratio > worst.0 {
                            worst = (ratio, format!("{} ({identity}, step {step}): {paid:?}", corpus::name(&program)));
                        }
                        if let Err(message) = work_bound(paid) {
                            panic!("{}: {message}", corpus::name(&program));
                        }
                    }
                    match mutate_evaluate_case(&input, rng.next() | 1) {
                        Some(mutant) => input = mutant,
                        None => break,
                    }
                }
            }
        }
    }
    println!(
        "work bound: {ran} of {cases} generated cases ran, and {component_calls} component calls ({dispatches} dispatches); K = {WORK_PER_UNIT}; worst ratio {:.2}: {}",
        worst.0, worst.1
    );
    assert!(ran * 2 > cases, "only {ran} of {cases} generated cases reached a call");
    assert!(dispatches > 100, "only {dispatches} of {component_calls} component calls were dispatches");
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
